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


#: each API page's name and its source: book/api-<name>.md, or its template (book/api-certified.template.md, which
#: the build renders into book/api-certified.md)
API_PAGES = {p.name.split(".")[0]: p for p in sorted((ROOT / "book").glob("api-*.md"))}


def test_the_api_pages_document_every_public_name_once_and_are_in_the_book():
    """The API is split by subpackage: the index (book/api.md) summarizes every public name, and each is
    documented on exactly one page under it in the table of contents."""
    index = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
    documented = [
        (name, stem)
        for stem, page in API_PAGES.items()
        for name in re.findall(
            r"^\.\. auto(?:function|class):: gspa\.privacy\.(\w+)$", page.read_text(), re.M
        )
    ]
    summary = index.split(".. autosummary::", 1)[1].split("```", 1)[0].split()
    names = gspa.privacy.__all__
    assert sorted(n for n, _ in documented) == sorted(names)  # each once, none left out
    assert sorted(n for n in summary if not n.startswith(":")) == sorted(names)
    toc = (ROOT / "_toc.yml").read_text()
    assert "- file: book/api\n" in toc
    for stem in API_PAGES:
        assert f"- file: book/{stem}\n" in toc and f"{{doc}}`{stem}`" in index


def test_each_subpackage_with_public_names_has_its_own_api_page():
    """A public name is documented on a page of the subpackage that defines it (``api-<subpackage>`` or, for
    one too long for a page, ``api-<subpackage>-<part>``; the certify and command line pages hold prose
    only)."""
    import gspa.privacy as P

    by_page = {
        name: stem.removeprefix("api-").split("-")[0]
        for stem, page in API_PAGES.items()
        for name in re.findall(
            r"^\.\. auto(?:function|class):: gspa\.privacy\.(\w+)$", page.read_text(), re.M
        )
    }
    allowed = {"profiles": "shuffle"}  # BestOf, WorstOf: beside the accountant that returns them
    for name in P.__all__:
        sub = getattr(P, name).__module__.split(".")[2]
        assert by_page[name] == allowed.get(sub, sub), (name, sub, by_page[name])
