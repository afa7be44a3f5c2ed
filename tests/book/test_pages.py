"""The generated pages split so that each earns its length: the errata and the claims ledger one page per
paper under an index page (the page heights themselves: benchmarks/page_heights.py)."""

import re

import pytest

from conftest import ROOT
from gspa.book.ledger import (
    MARKER,
    PAPERS,
    PLACEHOLDER,
    render_errata_pages,
    render_ledger_pages,
)

from gspa.book.pipeline import errata_templates

HEAD = (ROOT / "book" / "errata.template.md").read_text(encoding="utf-8")
PER_PAPER = errata_templates(ROOT)
TEMPLATE = "\n".join(PER_PAPER.values())


def _claim(cid, verdict):
    return {
        "id": cid,
        "verdict": verdict,
        "kind": "numerical",
        "statement": "s",
        "where": "w",
        "paper_text": "—",
        "ours_text": "1",
        "rule": "r",
        "reason": "why",
    }


def _records_for(template):
    """Records in which every claim of the template's markers has the verdict its erratum expects, and every
    value it names is published."""
    claims, values = {}, {}
    for m in MARKER.finditer(template):
        for pair in filter(str.strip, m["body"].split(";")):
            cid, _, verdict = (x.strip() for x in pair.partition("="))
            claims[cid] = verdict
    for m in PLACEHOLDER.finditer(template):
        if m["kind"] == "value":
            chapter, _, name = m["arg"].strip().rpartition(":")
            values.setdefault(chapter, {})[name] = {"text": "1.0"}
    by_paper = {}
    for cid, verdict in claims.items():
        by_paper.setdefault(cid.split(".")[0], []).append(_claim(cid, verdict))
    records = [
        {"chapter": f"{p}/x", "profile": "paper", "overrides": {}, "claims": cs, "values": {}}
        for p, cs in by_paper.items()
    ]
    records += [
        {"chapter": ch, "profile": "paper", "overrides": {}, "claims": [], "values": vs}
        for ch, vs in values.items()
    ]
    return records


def test_the_errata_index_links_one_page_per_paper_and_every_marker_renders_on_its_paper_s_page():
    pages = render_errata_pages(HEAD, PER_PAPER, _records_for(TEMPLATE))
    assert list(PER_PAPER) == list(PAPERS)  # one template per paper, in book order
    assert set(pages) == {"errata.md"} | {f"errata-{p}.md" for p in PAPERS}
    index = pages.pop("errata.md")
    n_markers = len(MARKER.findall(TEMPLATE))
    assert (
        n_markers > 30
        and sum(t.count("*Verdicts computed in this build:*") for t in pages.values()) == n_markers
    )
    entries = re.findall(r"^## (.+)$", TEMPLATE, re.M)
    assert sum(len(re.findall(r"^## ", t, re.M)) for t in pages.values()) == len(entries)
    for p in PAPERS:
        page = pages[f"errata-{p}.md"]
        assert f"{{doc}}`errata-{p}`" in index and page.count("\n# ") == 1
        assert "<!-- verdicts" not in page
        # every claim shown on a paper's page is that paper's
        assert {c.split(".")[0] for c in re.findall(r"`([a-z0-9]+\.[\w.-]+)`", page)} <= {p}
        # the index lists that page's entries, in order, each linked to the label just above its heading
        listed = index.split(f"{{doc}}`errata-{p}`", 1)[1].split("\n## ", 1)[0]
        lines = re.findall(r"^\* \{ref\}`(.+?) <(errata-[\w-]+)>`(: | — )(.+)$", listed, re.M)
        headings = re.findall(r"^\((errata-[\w-]+)\)=\n## (.+)$", page, re.M)
        assert [label for _, label, _, _ in lines] == [label for label, _ in headings]
        assert [r if i == "entry" else i + sep + r for i, _, sep, r in lines] == [
            h for _, h in headings
        ] and len(headings) == page.count("\n## ")
    # a paper's preface opens its page, before its first entry
    flame = pages["errata-flame.md"]
    assert flame.index("**FLAME (Liu et al., AAAI 2021).**") < flame.index("\n## ")


def test_an_errata_page_names_only_its_paper_s_claims_and_its_headings_are_checked():
    mixed = "# E\n\n## An entry — misprint\n\n<!-- verdicts: gspa.a = reproduced; flame.b = reproduced -->\n"
    records = [{"chapter": "gspa/x", "claims": [_claim("gspa.a", "conditional")]}]
    with pytest.raises(
        ValueError, match=r"book/errata-gspa.template.md: its markers name claims of \['flame'\]"
    ):
        render_errata_pages("# Errata\n", {"gspa": mixed}, records)
    false = "# E\n\n## An entry — false statement\n\n<!-- verdicts: gspa.a = conditional -->\n"
    with pytest.raises(ValueError, match="book/errata-gspa.template.md: errata heading"):
        render_errata_pages("# Errata\n", {"gspa": false}, records)


def test_the_ledger_has_a_page_per_paper_holding_exactly_that_paper_s_claims():
    records = [
        {
            "chapter": "gspa/a",
            "title": "A",
            "profile": "paper",
            "claims": [_claim("gspa.x", "reproduced")],
        },
        {
            "chapter": "flame/b",
            "title": "B",
            "profile": "paper",
            "claims": [_claim("flame.y", "differs")],
        },
        {
            "chapter": "gspa/c",
            "title": "C",
            "profile": "paper",
            "claims": [_claim("gspa.z", "differs")],
        },
    ]
    pages = render_ledger_pages(records)
    assert set(pages) == {"ledger.md", "ledger-gspa.md", "ledger-flame.md"}
    anchors = {p: re.findall(r'id="claim-([\w.-]+)"', t) for p, t in pages.items()}
    assert anchors == {
        "ledger.md": [],
        "ledger-gspa.md": [
            "gspa.z",
            "gspa.x",
        ],  # failing first, the reproduced collapsed at the end
        "ledger-flame.md": ["flame.y"],
    }
    assert "{doc}`GSPA (AAAI 2024) <ledger-gspa>`" in pages["ledger.md"]
    assert "2 claims in 2 chapters: 1 reproduced, 1 with another verdict" in pages["ledger.md"]
    assert "(ledger-reproduced-gspa)=" in pages["ledger-gspa.md"]


def test_a_ledger_row_collapses_its_search_and_note_and_keeps_its_anchor():
    claim = _claim("gspa.x", "differs") | {
        "note": "a long note",
        "domain": {"stated": "ε in [0, 1]", "params": ["eps"]},
        "search": {
            "covers": True,
            "region": "ε ∈ [0, 1]",
            "evaluations": 40,
            "worst_text": "margin -1 at ε = 0",
            "violations": 3,
        },
    }
    page = render_ledger_pages([{"chapter": "gspa/a", "title": "A", "claims": [claim]}])
    row = page["ledger-gspa.md"].split('<tr id="claim-gspa.x"', 1)[1].split("</tr>", 1)[0]
    stated, _, rest = row.partition('<details class="gspa-search"><summary>checked over')
    assert "ε in [0, 1]" in stated and "checked over" not in stated
    assert "<b>checked over</b>" in rest and "3 violation(s)" in rest
    assert '<summary>note</summary><small class="gspa-note">a long note</small>' in row


def test_a_chapter_s_claims_table_is_as_short_as_the_ledger_s():
    """A chapter shows its claims as the ledger does (one renderer): the note and the search collapsed, and
    a long 'this build' cut at a word to a line, the whole of it under 'in full'."""
    from gspa.book.results import claims_html

    long = "the largest ratio found " + "over many settings " * 12 + "is $\\varepsilon = 2$"
    claim = _claim("gspa.x", "differs") | {"ours_text": long, "note": "n"}
    build = claims_html([claim]).split("</td><td>")[3]
    shown, _, full = build.partition('<details class="gspa-search"><summary>in full</summary>')
    assert shown.endswith("…") and len(shown) < 110 and "over many settings over" in shown
    assert "\\(\\varepsilon = 2\\)" in full and "over many" in full
    assert "<summary>in full</summary>" not in claims_html([_claim("gspa.y", "differs")])
    assert "<summary>note</summary>" in claims_html([claim])


def test_the_build_names_the_paper_s_errata_template_that_is_wrong(tmp_path):
    from gspa.book.parameters import PipelineError
    from gspa.book.pipeline import write_pages

    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "errata.template.md").write_text("# Errata\n")
    (tmp_path / "book" / "errata-gspa.template.md").write_text(
        "# E\n\n## An entry — false statement\n\n<!-- verdicts: gspa.a = conditional -->\n"
    )
    with pytest.raises(PipelineError, match=r"^book/errata-gspa\.template\.md: errata heading"):
        write_pages(tmp_path, [])
