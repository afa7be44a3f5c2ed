"""The public API's docstrings and the API page (ruff's pydocstyle rules check every docstring of gspa.privacy;
the book's build, with warnings as errors, checks that each parses)."""

import re

from conftest import ROOT
import gspa.privacy


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
        assert items.search((lambda o: o.__doc__)(getattr(P, name))), name
    assert items.search((lambda o: o.__doc__)(E.shuffled_profile))


def test_the_api_page_documents_every_public_name_and_is_in_the_book():
    page = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\.\. auto(?:function|class):: gspa\.privacy\.(\w+)$", page, re.M)
    summary = page.split(".. autosummary::", 1)[1].split("```", 1)[0].split()
    names = gspa.privacy.__all__
    assert sorted(documented) == sorted(names)
    assert sorted(n for n in summary if not n.startswith(":")) == sorted(names)
    assert "- file: book/api\n" in (ROOT / "_toc.yml").read_text()
