"""The front page's "what fails" table, the ledger's order (failing claims first, reproduced ones collapsed),
claims judged under several readings, and the errata's place in the table of contents."""

import re

import pytest

import yaml

from conftest import ROOT
from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Readings
from gspa.book.ledger import PAPERS, render_template, render_ledger, shorten, whatfails_html
from gspa.book.results import Chapter, readings

BUILD = {"version": "0", "commit": "c", "date": "d"}


def _claim(cid, verdict, kind="numerical", statement="s", **extra):
    return {
        "id": cid,
        "verdict": verdict,
        "kind": kind,
        "statement": statement,
        "where": "Theorem 1",
        "paper_text": "—",
        "ours_text": "1",
        "rule": "r",
        "reason": "why",
        **extra,
    }


def _recorded(cid, ours, rule, paper, domain=None):
    """A claim judged under readings, recorded as a chapter records it."""
    ch = Chapter("gspa/x")
    ch.judge(
        cid.removeprefix("gspa."),
        "s",
        "Theorem 1",
        ours,
        rule,
        paper,
        kind="numerical",
        domain=domain,
    )
    return ch.claims[0]


def _readings_claim(cid="gspa.r"):
    """Two readings over a domain not searched (the reason gains "checked on the chapter's inputs only")."""
    rule = Readings(Close(abs_tol=0.5, loose_abs=2.0), what="reading of the sentence")
    ours = {"non-private net": 96.8, "best private (a) case": 92.1}
    dom = ClaimDomain((Param("x", 0.0, 1.0, "linear"),), "for all x in [0, 1]")
    return _recorded(cid, ours, rule, 96.78, dom)


def _records():
    return [
        {
            "chapter": "gspa/a",
            "title": "A",
            "profile": "paper",
            "overrides": {},
            "claims": [
                _claim("gspa.ok", "reproduced"),
                _claim("gspa.cond", "conditional"),
                _claim("gspa.bad", "not reproduced"),
                _claim("gspa.nc", "not checkable"),
            ],
        },
        {
            "chapter": "gspa/b",
            "title": "B",
            "profile": "paper",
            "overrides": {},
            "claims": [_claim("gspa.diff", "differs"), _readings_claim()],
        },
        {
            "chapter": "flame/c",
            "title": "C",
            "profile": "paper",
            "overrides": {},
            "claims": [_claim("flame.bad2", "not reproduced", kind="false-statement")],
        },
    ]


def _ids(text):
    return re.findall(r'#claim-([\w.-]+)"', text)


def test_what_fails_lists_the_failing_verdicts_in_order_grouped_by_paper_with_links():
    text = whatfails_html(_records())
    # not reproduced first, then differs, then conditional; by paper in book order inside each
    assert _ids(text) == ["gspa.bad", "flame.bad2", "gspa.diff", "gspa.cond", "gspa.r"]
    assert (
        "gspa.ok" not in text and "gspa.nc" not in text
    )  # reproduced and not checkable: not listed
    assert (
        'href="chapters/gspa/a.html#claim-gspa.bad"' in text
        and 'href="chapters/flame/c.html#claim-flame.bad2"' in text
    )
    assert (
        'title="claim gspa.bad">' in text and "false-statement" in text and "<code>" not in text
    )  # named by its statement in words, the id in the link's title; the kind
    assert text.index("GSPA (AAAI 2024)") < text.index("FLAME (AAAI 2021)")
    heads = re.findall(r'<table class="gspa-whatfails">.*?<thead>(.*?)</thead>', text)
    assert (
        heads == ["<tr><th>what the paper says (where)</th><th>kind</th></tr>"] * 3
    )  # two columns, three tables
    # not reproduced and differs open, conditional one click away
    assert re.findall(r'<details class="gspa-whatfails"( open)?>', text) == [" open", " open", ""]
    assert "<caption>" in text


def test_what_fails_renders_a_claim_with_readings_as_a_small_table():
    text = whatfails_html(_records())
    row = text[text.index('#claim-gspa.r"') :]
    assert "2 readings</summary>" in row and '<table class="gspa-readings">' in row
    assert (
        "<td>non-private net</td><td>96.8</td>" in row
        and "<td>best private (a) case</td><td>92.1</td>" in row
    )
    assert re.search(r'gspa-success" title="ours 96\.8 vs paper 96\.78[^"]*">reproduced', row)
    assert re.search(r'gspa-danger" title="[^"]*">not reproduced', row)


def test_front_page_fills_the_what_fails_placeholder_and_says_so_when_nothing_fails():
    page = render_template("# F\n\n{{whatfails}}\n", _records(), BUILD)
    assert "```{raw} html\n<details" in page and "{{" not in page
    ok = [{"chapter": "gspa/a", "profile": "paper", "claims": [_claim("gspa.ok", "reproduced")]}]
    assert "No claim of this build fails" in render_template("{{whatfails}}", ok, BUILD)


def test_a_claim_records_each_reading_s_verdict_and_what_the_domain_adds():
    c = _readings_claim()
    rows, rest = readings(c)
    assert [r["reading"] for r in rows] == ["non-private net", "best private (a) case"]
    assert [r["verdict"] for r in rows] == ["reproduced", "not reproduced"] and rows[1][
        "value"
    ] == 92.1
    assert rows[1]["reason"].startswith("ours 92.1 vs paper 96.78")
    assert rest.startswith("checked on the chapter's inputs only")
    assert readings(_claim("x", "reproduced")) is None  # not judged under readings


def test_ledger_puts_failing_claims_first_and_collapses_the_reproduced():
    text = render_ledger(_records())
    main, _, done = text.partition("## Reproduced claims")
    assert re.findall(r'<tr id="claim-([\w.-]+)"', main) == [
        "gspa.bad",
        "gspa.cond",
        "gspa.nc",
        "gspa.diff",
        "gspa.r",
        "flame.bad2",
    ]
    assert re.findall(r'<tr id="claim-([\w.-]+)"', done) == ["gspa.ok"]
    assert '<details class="gspa-reproduced"><summary>Show the 1 reproduced claims' in done
    assert "1 more claim of this chapter reproduced: under {ref}`ledger-reproduced-all`" in main
    assert "(ledger-reproduced-all)=\n## Reproduced claims" in text
    # the readings claim: the reason's long cell replaced by a small table in a row below it
    row = main[main.index('<tr id="claim-gspa.r"') :]
    assert (
        "2 readings: see below" in row and '<tr class="gspa-sub" data-verdict="conditional"' in row
    )
    assert (
        '<table class="gspa-readings"><caption>gspa.r under each reading of the sentence</caption>'
        in row
    )


def test_shorten_keeps_formulas_whole():
    assert shorten("short text") == "short text"
    s = shorten("word " * 30, 40)
    assert s.endswith("…") and len(s) <= 41 and not s.endswith(" …")
    assert shorten("a b c $\\alpha + \\beta + \\gamma$ and more", 12) == "a b c…"
    assert shorten("$x = \\sum_i y_i$ is long text here", 5).startswith("$x = \\sum_i y_i$")


def test_errata_sit_under_using_this_book():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    where = {ch["file"]: part["caption"] for part in toc["parts"] for ch in part["chapters"]}
    assert where["book/errata"] == "Using this book" and where["book/ledger"] == "Using this book"
    assert where["book/versions"].startswith("GSPA")
    # one page per paper under each index page
    under = {
        ch["file"]: [s["file"] for s in ch.get("sections", [])]
        for p in toc["parts"]
        for ch in p["chapters"]
    }
    for index in ("errata", "ledger"):
        assert under[f"book/{index}"] == [f"book/{index}-{p}" for p in PAPERS]


def _judged(cid, ours):
    return _recorded(cid, ours, Readings(Close(abs_tol=0.5), what="reading"), 0.0)


def _implied(monkeypatch, premise, conclusion):
    from gspa.book import ledger

    monkeypatch.setattr(ledger, "implications", lambda records: {"gspa.q": ("gspa.p", "why")})
    return ledger.implication_conflicts([{"chapter": "gspa/a", "claims": [premise, conclusion]}])


def test_a_claim_that_follows_from_another_must_hold_under_each_reading_where_that_one_holds(
    monkeypatch,
):
    p = _judged("gspa.p", {"r1": 0.1, "r2": 3.0})  # holds under r1 only: conditional
    assert p["verdict"] == "conditional"
    assert _implied(monkeypatch, p, _judged("gspa.q", {"r1": 0.2, "r2": 0.1})) == []
    (problem,) = _implied(monkeypatch, p, _judged("gspa.q", {"r1": 3.0, "r2": 0.1}))
    assert "gspa.q follows from gspa.p, which holds under 'r1'" in problem
    # a reading left uncomputed where the premise holds is a disagreement too
    assert _implied(monkeypatch, p, _judged("gspa.q", {"r1": None, "r2": 3.0}))
    # without readings: a premise that holds somewhere beside a conclusion that fails
    assert _implied(
        monkeypatch, _claim("gspa.p", "conditional"), _claim("gspa.q", "not reproduced")
    )
    assert not _implied(
        monkeypatch, _claim("gspa.p", "not reproduced"), _claim("gspa.q", "conditional")
    )


def test_every_declared_implication_names_a_declared_claim_of_its_paper():
    import importlib

    from gspa.book.ledger import implications

    declared = implications(
        [{"chapter": f"{p}/x"} for p in ("gspa", "flame", "fmt21", "accountant")]
    )
    assert declared["gspa.thm4-rr-gdp"][0] == "gspa.thm2-approx-gdp"
    assert declared["flame.flame-dpfl-gaussian"][0] == "gspa.def5-gaussian-calibration"
    assert len(declared) >= 15
    for conclusion, (premise, because) in declared.items():
        paper, _, cid = premise.partition(".")
        assert cid in importlib.import_module(f"gspa.studies.{paper}.claims").all_claims()
        assert premise != conclusion and because.strip()


def test_the_front_page_lists_a_claim_right_after_the_one_it_follows_from(monkeypatch):
    from gspa.book import ledger

    monkeypatch.setattr(ledger, "implications", lambda records: {"gspa.q": ("gspa.p", "a reason")})
    cs = [_claim(i, "conditional", statement=i) for i in ("gspa.q", "gspa.x", "gspa.p")]
    page = whatfails_html([{"chapter": "gspa/a", "claims": cs}])
    order = [page.index(f'title="claim {i}"') for i in ("gspa.x", "gspa.p", "gspa.q")]
    assert order == sorted(order)
    assert "follows from the claim above: a reason" in page


def test_the_front_page_keeps_a_chain_of_implied_claims_and_links_a_premise_shown_elsewhere(
    monkeypatch,
):
    from gspa.book import ledger

    chain = {
        "gspa.q": ("gspa.p", "one"),
        "gspa.r": ("gspa.q", "two"),
        "gspa.s": ("gspa.x", "three"),
    }
    monkeypatch.setattr(ledger, "implications", lambda records: chain)
    cs = [_claim(i, "conditional", statement=i) for i in ("gspa.r", "gspa.q", "gspa.p", "gspa.s")]
    cs.append(_claim("gspa.x", "not reproduced", statement="the premise"))
    page = whatfails_html([{"chapter": "gspa/a", "claims": cs}])
    order = [page.index(f'title="claim {i}"') for i in ("gspa.p", "gspa.q", "gspa.r", "gspa.s")]
    assert order == sorted(order)  # every claim of the chain is listed, each after its premise
    assert "follows from the claim above: two" in page
    # the premise sits in another table: the line names it, links it and gives its verdict
    assert re.search(
        r'follows from <a href="chapters/gspa/a.html#claim-gspa.x"[^>]*>the premise</a> '
        r"\(not reproduced\): three",
        page,
    )


def test_an_errata_heading_never_calls_false_what_its_verdicts_call_conditional():
    from gspa.book.ledger import _check_headings

    for template in (ROOT / "book").glob("errata-*.template.md"):  # the book's own
        _check_headings(template.read_text())
    for heading, verdict in [
        ("false statement", "conditional"),
        ("conditional", "not reproduced"),
        ("not an error", "not reproduced"),
    ]:
        with pytest.raises(ValueError, match="errata heading"):
            _check_headings(f"## A — {heading}\n\n<!-- verdicts: gspa.x = {verdict} -->\n")
    _check_headings("## A — false statement\n\n<!-- verdicts: gspa.x = not reproduced -->\n")


def test_a_proved_claim_shows_its_proof_in_the_claims_table_whether_or_not_the_search_covers():
    from gspa.book.results import coverage_html

    search = {"region": "r", "evaluations": 3, "worst_text": "w", "violations": 0}
    dom = {"stated": "s", "params": [{"name": "x"}]}
    for covers, label in [(True, "proved:"), (False, "the rest: by proof:")]:
        c = {"domain": dom, "search": search | {"covers": covers}, "proof": "one line"}
        assert f"<b>{label}</b> one line" in coverage_html(c)
    assert "proof" not in coverage_html({"domain": dom, "search": search | {"covers": True}})
