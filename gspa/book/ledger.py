"""The claims ledger (one Markdown page listing every claim with its verdict) and the errata page
with the verdicts of this build."""

from __future__ import annotations

import html
import re
from collections import Counter

from gspa.claims.rules import KINDS, PARTLY, VERDICTS
from gspa.book.results import BADGE, paper_of


def _cell(text) -> str:
    """Make text safe inside a Markdown table cell (no pipes, no newlines, no stray roles)."""
    s = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    return s.replace("`", "'").replace("{", "\\{").replace("}", "\\}")


PAPERS = {
    "gspa": "A Generalized Shuffle Framework for Privacy Amplification (Chen, Cao, Ge, AAAI 2024)",
    "fmt21": "Hiding among the clones (Feldman, McMillan, Talwar, FOCS 2021), as told by C. Canonne's blog post (2022)",
    "flame": "FLAME: Differentially Private Federated Learning in the Shuffle Model (Liu, Cao, Chen, Guo, Yoshikawa, AAAI 2021)",
    "accountant": "Peers of the shuffle accountant: bounds other accountants publish (Wang et al., VLDB 2024; Su, Cheng, Wang, S&P 2026; Liu et al. (EoN), AAAI 2023)",
}
SHORT = {
    "gspa": "GSPA (AAAI 2024)",
    "fmt21": "FMT21 via the blog",
    "flame": "FLAME (AAAI 2021)",
    "accountant": "Peers (accountant)",
}


_FILTER_JS = """<script>
(function () {
  function update() {
    var v = new Set([...document.querySelectorAll('.gspa-filters input[name=verdict]:checked')].map(function (e) { return e.value; }));
    var k = new Set([...document.querySelectorAll('.gspa-filters input[name=kind]:checked')].map(function (e) { return e.value; }));
    var shown = 0;
    document.querySelectorAll('table.gspa-claims > tbody > tr').forEach(function (tr) {
      var ok = v.has(tr.dataset.verdict) && k.has(tr.dataset.kind);
      tr.style.display = ok ? '' : 'none'; shown += (ok && tr.id) ? 1 : 0;
    });
    var c = document.getElementById('gspa-shown'); if (c) { c.textContent = shown + ' shown'; }
  }
  document.querySelectorAll('.gspa-filters input').forEach(function (e) { e.addEventListener('change', update); });
  update();
  function reveal() {   // a link to a claim among the collapsed reproduced ones opens their section
    var t = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var d = t && t.closest('details'); if (d) { d.open = true; t.scrollIntoView(); }
  }
  window.addEventListener('hashchange', reveal); reveal();
})();
</script>"""


def summary_html(records: list[dict]) -> str:
    """Two HTML tables: the verdicts of this build by paper, and the claims by kind (ledger, front page)."""
    claims = [c for r in records for c in r["claims"]]
    checked = [r for r in records if r["claims"]]
    papers = list(dict.fromkeys(paper_of(r["chapter"]) for r in checked))
    head = "".join(f"<th>{v}</th>" for v in VERDICTS)
    rows = ""
    for p in papers:
        cs = [c for r in checked if paper_of(r["chapter"]) == p for c in r["claims"]]
        rows += (
            f'<tr><td title="{html.escape(PAPERS.get(p, p))}">{html.escape(SHORT.get(p, p))}</td>'
            + "".join(f"<td>{sum(c['verdict'] == v for c in cs)}</td>" for v in VERDICTS)
            + f"<td>{len(cs)}</td></tr>"
        )
    kinds = Counter(c.get("kind", "") for c in claims)
    shown = [k for k in KINDS if kinds.get(k)]
    return (
        f'<div class="gspa-scroll"><table class="gspa-table gspa-summary"><caption>Verdicts of this build by paper '
        f"({len(claims)} claims in {len(checked)} chapters)</caption><thead><tr><th>paper</th>{head}<th>all</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></div>"
        '<div class="gspa-scroll"><table class="gspa-table gspa-summary"><caption>Claims by kind of finding</caption>'
        "<thead><tr>"
        + "".join(f"<th>{html.escape(k)}</th>" for k in shown)
        + "</tr></thead><tbody><tr>"
        + "".join(f"<td>{kinds[k]}</td>" for k in shown)
        + "</tr></tbody></table></div>"
    )


#: The verdicts the front page's "what fails" table lists, in its order.
FAILING = ("not reproduced", "differs", "conditional")
#: The front page's table also lists, after the failing ones, the claims that hold only where checked: never
#: counted as reproduced.
UNSETTLED = (*FAILING, PARTLY)
#: The order of verdicts in the ledger: the failing first, then the partly checked, then those the paper gives
#: nothing to check against.
LEDGER_ORDER = (*UNSETTLED, "not checkable")
_OPEN = {"not reproduced": True, "differs": True, "conditional": False, PARTLY: False}
_SAY = {
    "not reproduced": "fail under every reading checked, or have a confirmed counterexample inside the stated "
    "domain (where they still hold is in the reason)",
    "differs": "only a looser rule holds: same direction, different size",
    "conditional": "an ambiguous statement that holds under some of its readings only (each reading's verdict shown)",
    PARTLY: "no violation where checked, but the rest of the stated domain is neither searched nor proved "
    "(checked on the chapter's inputs only, or on part of the domain)",
}


def shorten(text, limit: int = 100) -> str:
    """``text`` cut at a word boundary to about ``limit`` visible characters, with an ellipsis; a ``$...$``
    formula is never cut (one that would cross the limit is left out, unless nothing comes before it)."""
    from gspa.book.tables import _MATH

    s = " ".join(str(text).split())
    pieces, pos = [], 0
    for m in _MATH.finditer(s):
        pieces += [(False, s[pos : m.start()]), (True, m.group(0))]
        pos = m.end()
    pieces.append((False, s[pos:]))
    out, used = [], 0
    for is_math, piece in pieces:
        size = (
            len(re.sub(r"\\[A-Za-z]+", "x", piece)) if is_math else len(piece)
        )  # \varepsilon shows as one sign
        if used + size <= limit:
            out.append(piece)
            used += size
            continue
        if is_math:
            if not "".join(out).strip():
                out.append(piece)
                used += size
                continue
        else:
            head = piece[: max(limit - used + 1, 0)]
            out.append(head.rsplit(" ", 1)[0] if " " in head else "")
        return "".join(out).rstrip(" ,;:—-(") + "…"
    return "".join(out)


def whatfails_html(records: list[dict]) -> str:
    """The front page's table of the claims that fail (:data:`FAILING`), then of those that hold only where
    checked (:data:`UNSETTLED`): one table per verdict, not reproduced first, the rows grouped by paper in book order; each row the claim's short id, linked to the claim in its
    chapter (``chapters/<chapter>.html#claim-<id>``), its kind, its statement and where the paper makes it,
    shortened to a line — and, for a claim judged under several readings, its readings in a small table.
    Two columns, so that it reads on a phone."""
    from gspa.book.results import readings, readings_html
    from gspa.book.tables import tex_html

    checked = [r for r in records if r["claims"]]
    papers = list(dict.fromkeys(paper_of(r["chapter"]) for r in checked))
    out = []
    for v in UNSETTLED:
        groups = [
            (
                p,
                [
                    (c, r["chapter"])
                    for r in checked
                    if paper_of(r["chapter"]) == p
                    for c in r["claims"]
                    if c["verdict"] == v
                ],
            )
            for p in papers
        ]
        groups = [(p, cs) for p, cs in groups if cs]
        n = sum(len(cs) for _, cs in groups)
        if not n:
            continue
        rows = ""
        for p, cs in groups:
            rows += (
                f'<tr class="gspa-group"><th colspan="2" title="{html.escape(PAPERS.get(p, p))}">'
                f"{html.escape(SHORT.get(p, p))}</th></tr>"
            )
            for c, chapter in cs:
                cid = html.escape(c["id"])
                short = html.escape(
                    c["id"].partition(".")[2] if c["id"].startswith(p + ".") else c["id"]
                )
                split = readings(c)
                more = (
                    ""
                    if split is None
                    else f'<details class="gspa-readings"><summary>{len(split[0])} readings</summary>'
                    + readings_html(c, split[0])
                    + "</details>"
                )
                rows += (
                    f'<tr data-verdict="{html.escape(v)}"><td><a href="chapters/{html.escape(chapter)}.html#claim-{cid}" '
                    f'title="{cid}"><code>{short}</code></a><br><span class="gspa-kind">'
                    f"{html.escape(c.get('kind', ''))}</span></td>"
                    f'<td>{tex_html(shorten(c["statement"]))} <span class="gspa-where">'
                    f"({tex_html(shorten(c['where'], 50))})</span>{more}</td></tr>"
                )
        table = (
            f'<div class="gspa-scroll"><table class="gspa-whatfails"><caption>'
            f'<span class="gspa-verdict gspa-{BADGE[v]}">{v}</span> {_SAY[v]}'
            "</caption><thead><tr><th>claim</th><th>what the paper says (where)</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div>"
        )
        out.append(
            f'<details class="gspa-whatfails"{" open" if _OPEN[v] else ""}><summary>{v.capitalize()}: {n} '
            f"claim{'s' if n != 1 else ''}</summary>{table}</details>"
        )
    if not out:
        return "<p>No claim of this build fails: every verdict is <i>reproduced</i> or <i>not checkable</i>.</p>"
    return "".join(out)


def render_ledger(records: list[dict]) -> str:
    """MyST Markdown for book/ledger.md from the chapters' result records (in book order): a summary by
    paper and verdict and by kind, filters, then per paper and chapter a table of the claims that are not
    reproduced (ordered as :data:`LEDGER_ORDER`), and at the end the reproduced claims, by chapter, in one
    collapsed section. Every row is anchored and linked to the claim in its chapter; a claim judged under
    several readings has a small table of them below its row."""
    from gspa.book.results import CLAIMS_HEAD, claim_row

    checked = [r for r in records if r["claims"]]
    papers = list(dict.fromkeys(paper_of(r["chapter"]) for r in checked))
    lines = [
        "# Claims ledger",
        "",
        "Every claim of the three papers that this book checks (and of the peers its accountant is compared with): the paper's words and where they stand, the "
        "paper's value, the value computed in **this build**, and the verdict a stated rule returned "
        "(*reproduced*: holds over the whole stated domain; *holds where checked*: no violation where checked, "
        "the rest of the stated domain neither searched nor proved; *conditional*: an ambiguous statement that "
        "holds under some of its readings only; *differs*: only a looser rule holds; *not reproduced*: fails, "
        "or has a confirmed counterexample inside the stated domain; *not checkable*). The *kind* says what sort "
        "of finding it is. Each "
        "claim's id links to the claim inside its chapter; the rule is under *rule* in each row. The claims "
        "that are not reproduced come first, chapter by chapter; the reproduced ones are collapsed at the end "
        "of the page. A claim judged under several readings has a small table of them below its row.",
        "",
    ]
    profiles = sorted({str(r.get("profile")) for r in records})
    if profiles != ["paper"]:
        lines += [
            "```{warning}",
            f"These results were computed with profile(s) {', '.join(profiles)}, "
            "not only the paper's settings.",
            "```",
            "",
        ]
    overridden = [r["chapter"] for r in records if r.get("overrides")]
    if overridden:
        lines += [
            "```{note}",
            "Chapters rerun with overridden parameters: " + ", ".join(overridden) + ".",
            "```",
            "",
        ]
    checks = (
        "Verdict: "
        + "".join(
            f'<label><input type="checkbox" name="verdict" value="{v}" checked> {v}</label>'
            for v in VERDICTS
        )
        + "<br>Kind: "
        + "".join(
            f'<label><input type="checkbox" name="kind" value="{k}" checked> {k}</label>'
            for k in KINDS
        )
        + ' <span id="gspa-shown"></span>'
    )
    lines += [
        "```{raw} html",
        summary_html(records),
        f'<div class="gspa-filters">{checks}</div>',
        "```",
        "",
    ]

    def table(r, claims, caption):
        title = r.get("title", r["chapter"])
        link = f"chapters/{r['chapter']}.html"
        return (
            f'<div class="gspa-scroll"><table class="gspa-claims"><caption>{caption} '
            f'<a href="{link}">{html.escape(title)}</a></caption>{CLAIMS_HEAD}<tbody>'
            + "".join(claim_row(c, link) for c in claims)
            + "</tbody></table></div>"
        )

    rank = {v: i for i, v in enumerate(LEDGER_ORDER)}
    for p in papers:
        if len(papers) > 1:
            lines += [f"## {PAPERS.get(p, p)}", ""]
        for r in (r for r in checked if paper_of(r["chapter"]) == p):
            title = r.get("title", r["chapter"])
            open_ = sorted(
                (c for c in r["claims"] if c["verdict"] != "reproduced"),
                key=lambda c: rank[c["verdict"]],
            )
            n_ok = len(r["claims"]) - len(open_)
            lines += [f"{'###' if len(papers) > 1 else '##'} {title}", ""]
            if open_:
                lines += [
                    "```{raw} html",
                    table(r, open_, "Claims that fail or cannot be checked, in"),
                    "```",
                    "",
                ]
            if n_ok:
                lines += [
                    (
                        f"All {n_ok} claims of this chapter are reproduced"
                        if not open_
                        else f"{n_ok} more claim{'s' if n_ok > 1 else ''} of this chapter reproduced"
                    )
                    + ": under {ref}`ledger-reproduced`.",
                    "",
                ]
    done = [(r, [c for c in r["claims"] if c["verdict"] == "reproduced"]) for r in checked]
    done = [(r, cs) for r, cs in done if cs]
    if done:
        n = sum(len(cs) for _, cs in done)
        lines += [
            "(ledger-reproduced)=",
            "## Reproduced claims",
            "",
            "```{raw} html",
            f'<details class="gspa-reproduced"><summary>Show the {n} reproduced claims, by chapter</summary>'
            + "".join(table(r, cs, "Reproduced claims of") for r, cs in done)
            + "</details>",
            "```",
            "",
        ]
    lines += ["```{raw} html", _FILTER_JS, "```", ""]
    return "\n".join(lines)


def strict(records: list[dict]) -> bool:
    """Whether the build runs the paper's settings everywhere (profile ``paper``, no ``-p`` overrides): the
    front page's and the errata's prose is written for those verdicts, so there a disagreement fails the
    build; under other settings it is shown as a warning."""
    return all(r.get("profile") == "paper" and not r.get("overrides") for r in records)


class ExpectationError(ValueError):
    """The prose expects a verdict that this build (with the paper's settings) did not compute."""


MARKER = re.compile(r"^<!--[ \t]*verdicts:(?P<body>.*?)-->[ \t]*$", re.MULTILINE)


def render_errata(template: str, records: list[dict]) -> str:
    """MyST Markdown for book/errata.md: the template's prose, with each marker line
    ``<!-- verdicts: claim-id = expected verdict; ... -->`` replaced by the verdicts this build
    computed for those claims, and each ``{{value:chapter:name}}`` by a value a chapter published in this build
    (:func:`fill_values`). Where one differs from what the erratum states, a build with the paper's
    settings fails (:class:`ExpectationError`, see :func:`strict`); any other shows a warning."""
    found = {c["id"]: (c, r["chapter"]) for r in records for c in r["claims"]}

    def block(m: re.Match) -> str:
        pairs = [p.split("=") for p in m.group("body").split(";") if p.strip()]
        if not pairs or any(len(p) != 2 for p in pairs):
            raise ValueError(
                f"errata marker must read 'claim-id = verdict; ...', got {m.group(0)!r}"
            )
        shown, off = [], []
        for cid, expected in ((a.strip(), b.strip()) for a, b in pairs):
            if expected not in VERDICTS:
                raise ValueError(
                    f"errata marker: verdict {expected!r} for {cid!r} is not one of {VERDICTS}"
                )
            if cid not in found:
                raise ValueError(f"errata marker names claim {cid!r}, which no chapter computed")
            v, kind = found[cid][0]["verdict"], found[cid][0].get("kind", "")
            shown.append(f"`{cid}`" + (f" ({kind})" if kind else "") + f" {{bdg-{BADGE[v]}}}`{v}`")
            if v != expected:
                off.append(f"`{cid}` came out *{v}*, where this erratum expects *{expected}*")
        text = "*Verdicts computed in this build:* " + " · ".join(shown) + "."
        if off and strict(records):
            raise ExpectationError(
                "the erratum's text expects other verdicts than this build computed with the "
                "paper's settings: " + "; ".join(off)
            )
        if off:
            text += (
                "\n\n```{warning}\nThis build disagrees with the erratum above: "
                + "; ".join(off)
                + ". The chapter ran with other parameters than the paper's, or the explanation "
                "above does not hold for them; see the chapter.\n```"
            )
        return text

    head = (
        "<!-- Generated by gspa.book.pipeline from book/errata.template.md and book/_results/*.json; "
        "edit the template. -->\n"
    )
    return head + MARKER.sub(block, fill_values(template, records))


VERSION_KEYS = (
    "id",
    "item",
    "quote_003",
    "quote_000",
    "reading_003",
    "reading_000",
    "consistent",
    "relevance",
)


def render_versions(entries: list[dict], records: list[dict]) -> str:
    """MyST Markdown for book/versions.md from book/versions.yaml: every mathematically relevant
    difference between the two text copies of the paper, with both readings quoted, which copy agrees
    with the rest of the paper, and the verdict of the claim that checks it in this build."""
    found = {c["id"]: (c, r["chapter"]) for r in records for c in r["claims"]}
    lines = [
        "# The two text copies of the paper",
        "",
        "The paper exists here in two text copies that differ in places that matter: **003**, a clean "
        "copy, and **000**, converted from the authors' LaTeX source. Neither is known to be the final "
        "version, so where they differ this book reports a *version discrepancy* with both readings, "
        "not an error of the paper. Below is every mathematically relevant difference found, each with "
        "the exact text of both copies. Places that look wrong but read the same in both copies "
        "(Fact 1, Fact 4, eq. (17), the proof of Theorem 2's pᵢ, …) are errors of the paper, listed in "
        "the {doc}`errata`.",
        "",
    ]
    for e in entries:
        missing = [k for k in VERSION_KEYS if not e.get(k)]
        if missing:
            raise ValueError(f"versions entry {e.get('id')!r} lacks {missing}")
        lines += [
            f"## {e['item']}",
            "",
            f"* **Copy 003:** {e['reading_003']}  ",
            f"  printed as `{_code(e['quote_003'])}`",
            f"* **Copy 000:** {e['reading_000']}  ",
            f"  printed as `{_code(e['quote_000'])}`",
            f"* **Consistent with the rest of the paper:** {e['consistent']}",
            f"* **What changes:** {e['relevance']}",
        ]
        cid = e.get("claim")
        if cid:
            if cid not in found:
                raise ValueError(
                    f"versions entry {e['id']!r} names claim {cid!r}, which no chapter computed"
                )
            c, chapter = found[cid]
            lines.append(
                f"* **Checked in** {{doc}}`chapters/{chapter}` (claim `{cid}`: "
                f"{{bdg-{BADGE[c['verdict']]}}}`{c['verdict']}`)."
            )
        elif e.get("chapter"):
            lines.append(f"* **See** {{doc}}`chapters/{e['chapter']}`.")
        lines.append("")
    return "\n".join(lines)


def _code(text: str) -> str:
    return str(text).replace("`", "'")


PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<kind>value|claim|summary|whatfails|build)(?::(?P<arg>[^}]*?))?\s*\}\}"
)


def _value_text(records: list[dict], arg: str) -> str:
    values = {(r["chapter"], k): v["text"] for r in records for k, v in r.get("values", {}).items()}
    chapter, _, name = arg.strip().rpartition(":")
    if (chapter, name) not in values:
        raise ValueError(f"the page names value {arg.strip()!r}, which no chapter published")
    return values[(chapter, name)]


def fill_values(template: str, records: list[dict]) -> str:
    """``template`` with each ``{{value:chapter:name}}`` replaced by the text of the value that chapter
    published in this build; a name no chapter published is an error (nothing is typed in)."""
    return PLACEHOLDER.sub(
        lambda m: (
            _value_text(records, m.group("arg") or "") if m.group("kind") == "value" else m.group(0)
        ),
        template,
    )


def render_front(template: str, records: list[dict], build: dict) -> str:
    """MyST Markdown for the front page from book/intro.template.md: ``{{value:chapter:name}}`` becomes
    the text of a value the chapter published in this build, ``{{claim:id=verdict}}`` the claim's verdict
    with a link to it in its chapter, ``{{summary}}`` the verdict counts by paper and by kind, ``{{whatfails}}``
    the table of the claims that fail (:func:`whatfails_html`), ``{{build}}`` the version, commit and date. A
    name that no chapter published is an error (nothing is typed in).

    Every ``{{claim:…}}`` states the verdict its sentence expects. Where this build computed another, a
    build with the paper's settings fails (:class:`ExpectationError`, see :func:`strict`), so prose such as
    "where the paper holds" can never stand beside a failing badge; under other settings the badge is
    marked and the page opens with a warning listing the disagreements."""
    found = {c["id"]: (c, r["chapter"]) for r in records for c in r["claims"]}
    off = []

    def sub(m: re.Match) -> str:
        kind, arg = m.group("kind"), (m.group("arg") or "").strip()
        if kind == "value":
            return _value_text(records, arg)
        if kind == "claim":
            cid, eq, expected = (x.strip() for x in arg.partition("="))
            if not eq or expected not in VERDICTS:
                raise ValueError(
                    f"front page claim {arg!r} must state the verdict its sentence expects, as "
                    f"'{{{{claim:{cid}=verdict}}}}' with a verdict of {VERDICTS}"
                )
            if cid not in found:
                raise ValueError(f"front page names claim {cid!r}, which no chapter computed")
            c, chapter = found[cid]
            mark = ""
            if c["verdict"] != expected:
                off.append(f"{cid} came out {c['verdict']}, where the text expects {expected}")
                mark = f' <span class="gspa-verdict gspa-danger" title="the text expects {expected}">≠ text</span>'
            return (
                f'<a class="gspa-verdict gspa-{BADGE[c["verdict"]]}" href="chapters/{chapter}.html#claim-{cid}">'
                f"{c['verdict']}</a>{mark}"
            )
        if kind == "summary":
            return "```{raw} html\n" + summary_html(records) + "\n```"
        if kind == "whatfails":
            return "```{raw} html\n" + whatfails_html(records) + "\n```"
        return f"gspa {build['version']}, commit `{build['commit']}`, built {build['date']}"

    page = PLACEHOLDER.sub(sub, template)
    if off and strict(records):
        raise ExpectationError(
            "the front page's text expects other verdicts than this build computed with the "
            "paper's settings: " + "; ".join(off)
        )
    if off:
        head, _, rest = page.partition("\n")
        page = (
            head + "\n\n```{warning}\nThis build ran with other settings than the paper's, and "
            f"{len(off)} verdict(s) differ from what the text below expects (marked ≠ text): "
            + "; ".join(off)
            + ".\n```\n"
            + rest
        )
    return page


def unrecorded_claims(records: list[dict]) -> list[str]:
    """What breaks the rule 'every declared claim is recorded by exactly one chapter', one line each: a claim of
    a study's tables (``gspa.studies.<paper>.claims``, for the papers whose chapters are in ``records``) that
    no chapter recorded, or one that two chapters recorded."""
    import importlib

    by_id: dict[str, list[str]] = {}
    for rec in records:
        for c in rec.get("claims", []):
            by_id.setdefault(c["id"], []).append(rec["chapter"])
    problems = [
        f"{i} is recorded by {' and '.join(chs)}" for i, chs in by_id.items() if len(chs) > 1
    ]
    for paper in sorted({rec["chapter"].split("/")[0] for rec in records if "/" in rec["chapter"]}):
        try:
            claims = importlib.import_module(f"gspa.studies.{paper}.claims")
        except ModuleNotFoundError:
            continue
        problems += [
            f"{paper}.{i} is declared but no chapter records it"
            for i in claims.all_claims()
            if f"{paper}.{i}" not in by_id
        ]
    return problems
