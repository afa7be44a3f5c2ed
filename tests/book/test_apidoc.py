"""The docstrings of the public API (gspa.book.apidoc): the check the book's build runs, and the API page."""

import re
from dataclasses import dataclass

import pytest

from conftest import ROOT
from gspa.book import apidoc


def test_every_public_docstring_passes_the_check():
    assert apidoc.check_public_api() == []


def test_every_public_function_of_the_paper_names_its_paper_item():
    """Where a public name implements an item of the GSPA paper, its docstring says which."""
    import gspa.privacy as P
    import gspa.privacy.exact as E

    items = re.compile(r"\b(Lemma|Theorem|Fact|Definition|Algorithm) \d|\beq\. \(\d+\)")
    for name in (
        "personalized_pair",
        "clone_pair",
        "ReducedPair",
        "compose",
        "CloneLaw",
        "gdp_delta",
        "gdp_epsilon",
        "gdp_tradeoff",
        "gdp_compose",
    ):
        assert items.search(apidoc.own_docstring(getattr(P, name))), name
    assert items.search(apidoc.own_docstring(E.shuffled_profile))


def test_the_api_page_documents_every_public_name_and_is_in_the_book():
    page = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\.\. auto(?:function|class):: gspa\.privacy\.(\w+)$", page, re.M)
    summary = page.split(".. autosummary::", 1)[1].split("```", 1)[0].split()
    names = apidoc.public_names()
    assert sorted(documented) == sorted(names)
    assert sorted(n for n in summary if not n.startswith(":")) == sorted(names)
    assert "- file: book/api\n" in (ROOT / "_toc.yml").read_text()


def missing():
    pass


def good():
    """Return 1: the number of things.

    ``x`` is :func:`good`."""


@dataclass
class Fields:
    x: int = 0


class Parent:
    """A documented parent."""


class Child(Parent):
    pass


@pytest.mark.parametrize(
    "obj, why",
    [
        (missing, "no docstring"),
        (Fields, "no docstring"),  # dataclasses' generated 'Fields(x: int = 0)' does not count
        (Child, "no docstring"),  # nor an inherited one
        (lambda: 0, "no docstring"),
    ],
)
def test_a_name_without_its_own_docstring_is_refused(obj, why):
    assert apidoc.docstring_problems(obj, "fake") == [f"fake: {why}"]


@pytest.mark.parametrize(
    "doc, why",
    [
        ("returns the number of things.", "does not start a sentence"),
        ("Returns the number of things", "does not end with a full stop"),
        ("Returns the number\nof things, and\n\nmore.", "does not end with a full stop"),
        ("Returns ``x and more.", "Inline literal start-string without end-string"),
        ("Returns *x and more.", "Inline emphasis start-string without end-string"),
        ("Returns w >= (w_hat - |e|) and more.", 'Undefined substitution referenced: "e"'),
        ("Returns `x` and more.", "single backticks"),
        ("Returns x.\n\n  indented\n then less.", "unexpected unindent"),
        ("Returns :func:`x and more.", "start-string without end-string"),
    ],
)
def test_a_malformed_docstring_is_refused(doc, why):
    def fake():
        pass

    fake.__doc__ = doc
    problems = apidoc.docstring_problems(fake, "fake")
    assert problems and any(why in p for p in problems), problems


def test_a_good_docstring_passes():
    assert apidoc.docstring_problems(good, "good") == []
    assert (
        apidoc.rst_problems(
            r"Fact 3, eq. (19): :math:`\delta(\varepsilon)` and ``code`` (Lemma 1, eq. (11))."
        )
        == []
    )


def test_members_include_inherited_methods_and_properties():
    import gspa.privacy as P

    assert {"delta", "epsilon", "certified_tradeoff"} <= dict(apidoc.members(P.BestOf)).keys()
    assert "support" in dict(apidoc.members(P.CloneLaw))
