"""Mathematics on the page is typeset: no plain-text subscripts or superscripts (ε_c, n_p, e^ε, n^(1/6))
in prose. Checked here on the chapters' markdown cells (fast, no browser) and, with the same pattern, on
the rendered pages by tests/book/test_browser.py."""

import re

import pytest

from conftest import ROOT
from gspa.book.freshness import read_source
from gspa.book.ledger import PAPERS
from mathpattern import RAW_REPR, plain_math


def test_pattern():
    for bad in (
        "ε_c",
        "(ε_cd, δ_cd)",
        "n_p messages",
        "e^ε_L",
        "e^−ε",
        "O(n_p^(1/6) log^(1/3)(1/δ))",
        "x ∝ n^(−1/2)",
        "δ_c = 0.01/n^1.1",
        "α_φ + β_φ",
        "f_ε,0-DP",
        "max_α |T_RR(α)|",
    ):
        assert plain_math(bad), bad
    for fine in (
        "$\\varepsilon_c$",
        "`eps_c`",
        "{glue}`n_p`",
        "eps_lk and n_max",
        "get_budget.py",
        "εᵢ and δ₀",
        "[the chapter](fl_parameters.ipynb)",
        "```python\nx_i = 1\n```",
        "$$e^{\\varepsilon}$$",
        "10⁻⁶",
        "f_(x)",
        "10^6 users",
    ):
        assert plain_math(fine) == [], fine


def test_repr_pattern():
    for bad in (
        "{'ε_l = 78.5 kept': 0.62}",
        "[False, False, False]",
        "np.float64(0.5)",
        "gives 0.5378040242374512",
        "['a', 'b']",
        "<object at 0x7f00>",
    ):
        assert RAW_REPR.search(bad), bad
    for fine in (
        "0.6213",
        "{0.1, 0.5}",
        "[2, 200]",
        "doi:10.1137/1.9781611975482.151",
        "None of these runs",
        "5.92e+03",
    ):
        assert not RAW_REPR.search(fine), fine


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*/*.md"))


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_markdown_cells_typeset_their_mathematics(nb):
    found = [
        (i, frag)
        for i, c in enumerate(read_source(nb).cells)
        if c.cell_type == "markdown"
        for frag in plain_math(c.source)
    ]
    assert found == [], f"plain-text mathematics in markdown (write it as $...$): {found[:5]}"


# the pages a build writes (gitignored; from the templates checked here, the results and versions.yaml),
# which a previous build may have left behind: the browser check reads their rendered form
GENERATED = {
    "intro.md",
    "api-certified.md",
    "ledger.md",
    "errata.md",
    "versions.md",
    "cite.md",
} | {f"{index}-{p}.md" for index in ("ledger", "errata") for p in PAPERS}


@pytest.mark.parametrize(
    "page",
    sorted(p for p in (ROOT / "book").glob("*.md") if p.name not in GENERATED),
    ids=lambda p: p.name,
)
def test_book_pages_typeset_their_mathematics(page):
    text = re.sub(
        r"\{\{[^}]*\}\}", " ", page.read_text()
    )  # {{value:…}} placeholders of the templates
    assert plain_math(text) == [], f"plain-text mathematics in {page.name}: {plain_math(text)[:5]}"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_worst_cases_are_pasted_as_markdown(nb):
    """A searched worst case names its parameters by their symbols ($\\varepsilon_l$ = 1.6): published with
    ch.value(..., markdown=True) and pasted with {glue:md}`name:myst`, its mathematics is typeset; {glue} would
    show the dollars as plain text."""
    text = "".join(c.source for c in read_source(nb).cells)
    calls = re.findall(r"ch\.value\(\"(\w+)\",((?:[^()]|\([^()]*\))*)\)", text)
    worst = {n: args for n, args in calls if "worst_text()" in args}
    pasted = {n for n in worst if re.search(r"\{glue(:\w+)?\}`" + n + r"[`:]", text)}
    wrong = [
        n
        for n in pasted
        if "markdown=True" not in worst[n]
        or f"{{glue:md}}`{n}:myst`" not in text
        or f"{{glue}}`{n}`" in text
    ]
    assert wrong == [], f"publish with markdown=True and paste with {{glue:md}}`name:myst`: {wrong}"


# a decimal number in prose: what a page states as measured (a constant or a setting is an integer or 10⁻ᵏ)
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")
# where an API page may write one: code, maths, a link's address, a placeholder the build fills in, the
# budgets' law U(a, b) of a setting, a paper's item (Lemma 4.5)
QUOTED = re.compile(
    r"```.*?```|`[^`]*`|\$[^$]*\$|\]\([^)]*\)|\{\{[^}]*\}\}|\bU\([^)]*\)"
    r"|\b(?:Lemma|Theorem|Proposition|Corollary|Definition|Section)s?\s+\d+(?:\.\d+)+",
    re.S,
)


def typed_measurements(text: str) -> list[str]:
    return DECIMAL.findall(QUOTED.sub(" ", text))


@pytest.mark.parametrize(
    "page",
    sorted(p for p in (ROOT / "book").glob("api*.md") if p.name not in GENERATED),
    ids=lambda p: p.name,
)
def test_api_pages_type_no_measured_numbers(page):
    """Every number in the book is computed in its build: an API page that states a measured value glues it
    from a chapter's record ({{value:chapter:name}} in its template, as book/api-certified.template.md)
    instead of typing it; benchmarks/README.md keeps the benchmarks' runs."""
    assert typed_measurements(page.read_text()) == [], f"typed numbers in {page.name}"


def test_typed_measurements_are_found():
    text = "1.04 times, at `0.5`, $1.5$, U(0.01, 2), Lemma 4.5, {{value:a/b:c}} ([x](https://d.io/1.2))"
    assert typed_measurements(text) == ["1.04"]
