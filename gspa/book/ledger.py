"""The pages written from the chapters' result records: the claims ledger, the front page, the errata and
the catalogue of the paper's two text copies, each with the verdicts and values of this build."""

from __future__ import annotations

import html
import importlib
import re
from collections import Counter

from gspa.book.results import BADGE, chip, claims_html, paper_of, readings, readings_html
from gspa.book.tables import shorten, tex_html
from gspa.claims.rules import KINDS, PARTLY, VERDICTS

#: each paper's short name and title (a new paper's chapters are in notebooks/<paper>/)
PAPERS = {
    "gspa": (
        "GSPA (AAAI 2024)",
        "A Generalized Shuffle Framework for Privacy Amplification (Chen, Cao, Ge, AAAI 2024)",
    ),
    "fmt21": (
        "FMT21 via the blog",
        "Hiding among the clones (Feldman, McMillan, Talwar, FOCS 2021), as told by C. Canonne's blog post (2022)",
    ),
    "flame": (
        "FLAME (AAAI 2021)",
        "FLAME: Differentially Private Federated Learning in the Shuffle Model (Liu, Cao, Chen, Guo, Yoshikawa, AAAI 2021)",
    ),
    "accountant": (
        "Peers (accountant)",
        "Peers of the shuffle accountant: bounds other accountants publish (Wang et al., VLDB 2024; Su, Cheng, Wang, S&P 2026; Liu et al. (EoN), AAAI 2023)",
    ),
}


def _by_paper(records: list[dict]) -> dict[str, list[dict]]:
    """The records with claims, by paper, in book order."""
    out: dict[str, list[dict]] = {}
    for r in records:
        if r["claims"]:
            out.setdefault(paper_of(r["chapter"]), []).append(r)
    return out


def _paper_cell(p: str, tag: str = "td", span: str = "") -> str:
    short, title = map(html.escape, PAPERS.get(p, (p, p)))
    return f'<{tag}{span} title="{title}">{short}</{tag}>'


def summary_html(records: list[dict]) -> str:
    """Two HTML tables: the verdicts of this build by paper, and the claims by kind (ledger, front page)."""
    by_paper = _by_paper(records)
    claims = [c for r in records for c in r["claims"]]
    rows = "".join(
        f"<tr>{_paper_cell(p)}"
        + "".join(
            f"<td>{sum(c['verdict'] == v for r in rs for c in r['claims'])}</td>" for v in VERDICTS
        )
        + f"<td>{sum(len(r['claims']) for r in rs)}</td></tr>"
        for p, rs in by_paper.items()
    )
    kinds = Counter(c.get("kind", "") for c in claims)
    shown = [k for k in KINDS if kinds.get(k)]
    n_ch = sum(len(rs) for rs in by_paper.values())
    return (
        '<div class="gspa-scroll"><table class="gspa-table gspa-summary"><caption>Verdicts of this build by '
        f"paper ({len(claims)} claims in {n_ch} chapters)</caption><thead><tr><th>paper</th>"
        + "".join(f"<th>{v}</th>" for v in VERDICTS)
        + f"<th>all</th></tr></thead><tbody>{rows}</tbody></table></div>"
        '<div class="gspa-scroll"><table class="gspa-table gspa-summary"><caption>Claims by kind of finding'
        "</caption><thead><tr>"
        + "".join(f"<th>{html.escape(k)}</th>" for k in shown)
        + "</tr></thead><tbody><tr>"
        + "".join(f"<td>{kinds[k]}</td>" for k in shown)
        + "</tr></tbody></table></div>"
    )


#: What the front page lists, in this order, and what each verdict means: the failing verdicts, then the
#: claims that hold only where checked (never counted as reproduced)
UNSETTLED = {
    "not reproduced": "fail under every reading checked, or have a confirmed counterexample inside the "
    "stated domain (where they still hold is in the reason)",
    "differs": "only a looser rule holds: same direction, different size",
    "conditional": "an ambiguous statement that holds under some of its readings only (each reading's "
    "verdict shown)",
    PARTLY: "no violation where checked, but the rest of the stated domain is neither searched nor proved "
    "(checked on the chapter's inputs only, or on part of the domain)",
}
#: The order of verdicts in the ledger: the unsettled ones, then those the paper gives nothing to check.
LEDGER_ORDER = (*UNSETTLED, "not checkable")


def whatfails_html(records: list[dict]) -> str:
    """The front page's tables of the :data:`UNSETTLED` claims, one per verdict, by paper in book order: the
    claim's statement and place, shortened to a line and linked to the claim in its chapter (its id in the
    link's title), its readings in a small table, and its kind. Two columns, so that it reads on a phone."""
    out, follows = [], implications(records)
    where = {c["id"]: (c, r["chapter"]) for r in records for c in r["claims"]}
    for v, say in UNSETTLED.items():
        rows, n = "", 0
        for p, rs in _by_paper(records).items():
            cs = _premise_first(
                [(c, r["chapter"]) for r in rs for c in r["claims"] if c["verdict"] == v], follows
            )
            group = _paper_cell(p, "th", ' colspan="2"')
            rows += f'<tr class="gspa-group">{group}</tr>' if cs else ""
            n += len(cs)
            for c, chapter in cs:
                cid = html.escape(c["id"])
                split = readings(c)
                more = (
                    ""
                    if split is None
                    else (
                        f'<details class="gspa-readings"><summary>{len(split[0])} readings</summary>'
                        f"{readings_html(c, split[0])}</details>"
                    )
                )
                after = _follows_html(c["id"], follows, {d["id"] for d, _ in cs}, where)
                rows += (
                    f'<tr data-verdict="{html.escape(v)}"><td>{after}<a href="chapters/{html.escape(chapter)}.html'
                    f'#claim-{cid}" title="claim {cid}">{tex_html(shorten(c["statement"]))}</a> '
                    f'<span class="gspa-where">({tex_html(shorten(c["where"], 50))})</span>{more}</td>'
                    f'<td><span class="gspa-kind">{html.escape(c.get("kind", ""))}</span></td></tr>'
                )
        if n:
            out.append(
                f'<details class="gspa-whatfails"{" open" if v in ("not reproduced", "differs") else ""}><summary>{v.capitalize()}: {n} '
                f'claim{"s" if n != 1 else ""}</summary><div class="gspa-scroll"><table class="gspa-whatfails">'
                f"<caption>{chip(v)} {say}</caption><thead><tr><th>what the paper says (where)</th>"
                f"<th>kind</th></tr></thead><tbody>{rows}</tbody></table></div></details>"
            )
    return "".join(out) or (
        "<p>No claim of this build fails: every verdict is <i>reproduced</i> or <i>not checkable</i>.</p>"
    )


def _follows_html(cid: str, follows: dict, here: set, where: dict) -> str:
    """The line above an implied claim on the front page: "follows from the claim above" where its premise
    is in the same table, else a link to the premise and the premise's verdict."""
    premise, why = follows.get(cid, (None, ""))
    if premise is None or premise not in where:
        return ""
    if premise in here:
        head = "follows from the claim above"
    else:
        p, chapter = where[premise]
        head = (
            f'follows from <a href="chapters/{html.escape(chapter)}.html#claim-{html.escape(premise)}" '
            f'title="claim {html.escape(premise)}">{tex_html(shorten(p["statement"], 60))}</a> '
            f"({html.escape(p['verdict'])})"
        )
    return f'<span class="gspa-follows">↳ {head}: {tex_html(why)}</span> '


def _premise_first(cs: list[tuple[dict, str]], follows: dict) -> list[tuple[dict, str]]:
    """``(claim, chapter)`` pairs in their order, except that a claim that follows from another of them
    comes right after it, and a chain of such claims in order (:func:`implications`)."""
    ids = {c["id"] for c, _ in cs}
    premise = {c["id"]: follows[c["id"]][0] for c, _ in cs if follows.get(c["id"], ("",))[0] in ids}
    out, placed = [], set()

    def place(item):
        out.append(item)
        placed.add(item[0]["id"])
        for x in cs:
            if premise.get(x[0]["id"]) == item[0]["id"] and x[0]["id"] not in placed:
                place(x)

    for item in cs:  # the roots first; then what a cycle of declarations left out
        if item[0]["id"] not in premise:
            place(item)
    for item in cs:
        if item[0]["id"] not in placed:
            place(item)
    return out


def _raw(text: str) -> str:
    return f"```{{raw}} html\n{text}\n```\n"


def ledger_page(paper: str) -> str:
    """The ledger page of one paper's claims (``gspa`` -> ``ledger-gspa``), where its claims' anchors are."""
    return f"ledger-{paper}"


_INTRO = (
    "Every claim of the three papers that this book checks (and of the peers its accountant is compared with): the paper's words and where they stand, the "
    "paper's value, the value computed in **this build**, and the verdict a stated rule returned "
    "(*reproduced*: holds over the whole stated domain; *holds where checked*: no violation where checked, "
    "the rest of the stated domain neither searched nor proved; *conditional*: an ambiguous statement that "
    "holds under some of its readings only; *differs*: only a looser rule holds; *not reproduced*: fails, "
    "or has a confirmed counterexample inside the stated domain; *not checkable*). The *kind* says what sort "
    "of finding it is. Each paper's claims are on a page of their own, below. On it, each "
    "claim's id links to the claim inside its chapter; the rule is under *rule* in each row. The claims "
    "that are not reproduced come first, chapter by chapter; the reproduced ones are collapsed at the end "
    "of the page. A claim judged under several readings has a small table of them below its row."
)


def _warnings(records: list[dict]) -> list[str]:
    lines = []
    if (profiles := sorted({str(r.get("profile")) for r in records})) != ["paper"]:
        lines += [
            f"```{{warning}}\nThese results were computed with profile(s) {', '.join(profiles)}, "
            "not only the paper's settings.\n```\n"
        ]
    if overridden := [r["chapter"] for r in records if r.get("overrides")]:
        lines += [
            f"```{{note}}\nChapters rerun with overridden parameters: {', '.join(overridden)}.\n```\n"
        ]
    return lines


def render_ledger_pages(records: list[dict]) -> dict[str, str]:
    """The claims ledger as pages: ``{"ledger.md": the verdicts by paper and by kind with a link to each
    paper's page, "ledger-<paper>.md": that paper's claims (:func:`render_ledger`), ...}``."""
    by_paper = _by_paper(records)
    lines = ["# Claims ledger", "", _INTRO, "", *_warnings(records), _raw(summary_html(records))]
    pages = {}
    for p, rs in by_paper.items():
        short, title = PAPERS.get(p, (p, p))
        n = sum(len(r["claims"]) for r in rs)
        ok = sum(c["verdict"] == "reproduced" for r in rs for c in r["claims"])
        lines += [
            f"* {{doc}}`{short} <{ledger_page(p)}>`: {title}. {n} claims in {len(rs)} chapters: {ok} "
            f"reproduced, {n - ok} with another verdict.",
        ]
        pages[f"{ledger_page(p)}.md"] = render_ledger(rs, title=f"Claims ledger: {short}", label=p)
    pages["ledger.md"] = "\n".join(lines) + "\n"
    return pages


def render_ledger(records: list[dict], title: str = "Claims ledger", label: str = "all") -> str:
    """MyST Markdown for one ledger page (records in book order): the verdicts by paper and by kind, then per
    paper and chapter a table of the claims that are not reproduced (in :data:`LEDGER_ORDER`), and the
    reproduced ones, by chapter, in one collapsed section at the end (its label ``ledger-reproduced-<label>``);
    each row anchored and linked to the claim in its chapter."""
    see = f": under {{ref}}`ledger-reproduced-{label}`.\n"
    lines = [
        f"# {title}",
        "",
        "The verdicts of {doc}`the claims ledger <ledger>`, claim by claim.",
        "",
    ]
    lines += _warnings(records)
    lines.append(_raw(summary_html(records)))

    def table(r, claims, caption):
        link = f"chapters/{r['chapter']}.html"
        title = html.escape(r.get("title", r["chapter"]))
        return claims_html(claims, f'{caption} <a href="{link}">{title}</a>', link)

    by_paper = _by_paper(records)
    for p, rs in by_paper.items():
        if len(by_paper) > 1:
            lines += [f"## {PAPERS.get(p, (p, p))[1]}", ""]
        for r in rs:
            open_ = [c for v in LEDGER_ORDER for c in r["claims"] if c["verdict"] == v]
            n_ok = len(r["claims"]) - len(open_)
            lines += [f"{'###' if len(by_paper) > 1 else '##'} {r.get('title', r['chapter'])}", ""]
            if open_:
                lines.append(_raw(table(r, open_, "Claims that fail or cannot be checked, in")))
            if n_ok and open_:
                lines.append(
                    f"{n_ok} more claim{'s' if n_ok > 1 else ''} of this chapter reproduced{see}"
                )
            elif n_ok:
                lines.append(f"All {n_ok} claims of this chapter are reproduced{see}")
    done = [(r, [c for c in r["claims"] if c["verdict"] == "reproduced"]) for r in records]
    if n := sum(len(cs) for _, cs in done):
        tables = "".join(table(r, cs, "Reproduced claims of") for r, cs in done if cs)
        lines += [f"(ledger-reproduced-{label})=", "## Reproduced claims", ""]
        lines.append(
            _raw(
                f'<details class="gspa-reproduced"><summary>Show the {n} reproduced claims, by chapter</summary>{tables}</details>'
            )
        )
    return "\n".join(lines)


class TemplateError(ValueError):
    """An error in one template file of several, which the message names first (``path``)."""

    def __init__(self, path: str, why):
        super().__init__(f"{path}: {why}")
        self.path = path


class ExpectationError(ValueError):
    """The prose expects a verdict that this build (with the paper's settings) did not compute."""


def _expect(records: list[dict], off: list[str], what: str) -> None:
    """Refuse a build with the paper's settings everywhere (profile ``paper``, no ``-p``) whose verdicts
    differ from what the prose of ``what`` expects (``off``): the prose is written for those verdicts. Under
    other settings the page shows a warning instead."""
    if off and all(r.get("profile") == "paper" and not r.get("overrides") for r in records):
        raise ExpectationError(
            f"the {what} text expects other verdicts than this build computed with the paper's settings: "
            + "; ".join(off)
        )


def _found(records: list[dict], cid: str, where: str) -> tuple[dict, str]:
    """The claim ``cid`` and its chapter; a ValueError names ``where`` when no chapter computed it."""
    found = {c["id"]: (c, r["chapter"]) for r in records for c in r["claims"]}
    if cid not in found:
        raise ValueError(f"{where} names claim {cid!r}, which no chapter computed")
    return found[cid]


MARKER = re.compile(r"^<!--[ \t]*verdicts:(?P<body>.*?)-->[ \t]*$", re.MULTILINE)
PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<kind>value|claim|summary|whatfails|build)(?::(?P<arg>[^}]*?))?\s*\}\}"
)


def _value(records: list[dict], arg: str) -> str:
    """The text of value ``chapter:name`` published in this build (nothing is typed in)."""
    chapter, _, name = arg.strip().rpartition(":")
    for r in records:
        if r["chapter"] == chapter and name in r.get("values", {}):
            return r["values"][name]["text"]
    raise ValueError(f"the page names value {arg.strip()!r}, which no chapter published")


#: what a word in an erratum's heading says, and the verdicts among its marker's of which one must back it
#: (a heading that calls false what is conditional, or the reverse, is refused)
HEADING_WORDS = {
    "false": ("not reproduced",),
    "conditional": ("conditional",),
}


def _marked(m: re.Match) -> list[tuple[str, str]]:
    """The ``(claim id, expected verdict)`` pairs of a marker line (:data:`MARKER`); a ValueError quotes a
    marker that does not read ``claim-id = verdict; ...``."""
    pairs = [p.split("=") for p in m.group("body").split(";") if p.strip()]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise ValueError(f"errata marker must read 'claim-id = verdict; ...', got {m.group(0)!r}")
    return [(a.strip(), b.strip()) for a, b in pairs]


def _check_headings(template: str) -> None:
    """Each ``## `` section's heading against the verdicts its markers expect (:data:`HEADING_WORDS`; "not an
    error" must expect no failing verdict); a ValueError names the first that disagrees."""
    for section in re.split(r"^(?=## )", template, flags=re.MULTILINE)[1:]:
        heading = section.splitlines()[0].removeprefix("## ")
        expected = {v for m in MARKER.finditer(section) for _, v in _marked(m)}
        if not expected:
            continue
        words = heading.lower().rsplit(" — ", 1)[-1] if " — " in heading else heading.lower()
        wrong = [
            f"says '{w}' but expects none of {list(need)}"
            for w, need in HEADING_WORDS.items()
            if re.search(rf"\b{w}\b", words) and not expected & set(need)
        ]
        if "not an error" in words and expected & {"not reproduced", "differs"}:
            wrong.append("says 'not an error' but expects a failing verdict")
        if wrong:
            raise ValueError(f"errata heading {heading!r} " + "; ".join(wrong))


def render_errata(template: str, records: list[dict]) -> str:
    """MyST Markdown for book/errata.md: the template with each ``{{value:chapter:name}}`` replaced by the
    value's text and each marker line ``<!-- verdicts: claim-id = expected verdict; ... -->`` by the
    verdicts this build computed for those claims; one that differs from the erratum's fails a build with
    the paper's settings (:func:`_expect`), any other shows a warning."""

    def block(m: re.Match) -> str:
        shown, off = [], []
        for cid, expected in _marked(m):
            if expected not in VERDICTS:
                raise ValueError(
                    f"errata marker: verdict {expected!r} for {cid!r} is not one of {VERDICTS}"
                )
            c, _ = _found(records, cid, "errata marker")
            v, kind = c["verdict"], c.get("kind", "")
            shown.append(f"`{cid}`" + (f" ({kind})" if kind else "") + f" {{bdg-{BADGE[v]}}}`{v}`")
            if v != expected:
                off.append(f"`{cid}` came out *{v}*, where this erratum expects *{expected}*")
        _expect(records, off, "erratum's")
        return (
            "*Verdicts computed in this build:* "
            + " · ".join(shown)
            + "."
            + (
                "\n\n```{warning}\nThis build disagrees with the erratum above: "
                + "; ".join(off)
                + ". The chapter ran with other parameters than the paper's, or the explanation above does not "
                "hold for them; see the chapter.\n```"
                if off
                else ""
            )
        )

    _check_headings(template)
    values = PLACEHOLDER.sub(
        lambda m: _value(records, m["arg"] or "") if m["kind"] == "value" else m[0], template
    )
    return (
        "<!-- Generated by gspa.book.pipeline from book/errata*.template.md and book/_results/*.json; "
        "edit the templates. -->\n" + MARKER.sub(block, values)
    )


def render_errata_pages(head: str, papers: dict[str, str], records: list[dict]) -> dict[str, str]:
    """The errata as pages: ``{"errata-<paper>.md": the paper's template (book/errata-<paper>.template.md, in
    ``papers``) with its ``## `` entries labelled ``errata-<paper>-<i>``, ..., "errata.md": ``head``
    (book/errata.template.md) and per paper a link to its page with its entries' headings}``, each rendered by
    :func:`render_errata`. A ValueError names a page whose markers name another paper's claims."""
    pages, index = {}, [head.rstrip(), ""]
    for paper, template in papers.items():
        top, *entries = re.split(r"^(?=## )", template, flags=re.MULTILINE)
        labelled = [(f"errata-{paper}-{i}", e.rstrip() + "\n") for i, e in enumerate(entries, 1)]
        body = "\n".join(f"({label})=\n{e}" for label, e in labelled)
        try:
            _check_headings(template)
            named = {cid.split(".")[0] for m in MARKER.finditer(template) for cid, _ in _marked(m)}
            if named - {paper}:
                raise ValueError(f"its markers name claims of {sorted(named - {paper})}")
            pages[f"errata-{paper}.md"] = render_errata(top.rstrip() + "\n\n" + body, records)
        except ValueError as exc:
            raise TemplateError(f"book/errata-{paper}.template.md", exc) from exc
        short, title = PAPERS.get(paper, (paper, paper))
        index += [
            f"## {short}",
            "",
            f"{{doc}}`errata-{paper}`: {len(labelled)} entr{'y' if len(labelled) == 1 else 'ies'} "
            f"on {title}.",
            "",
            *(_index_line(label, e.splitlines()[0].removeprefix("## ")) for label, e in labelled),
            "",
        ]
    pages["errata.md"] = render_errata("\n".join(index), records)
    return pages


def _index_line(label: str, heading: str) -> str:
    """An errata index line: the heading's item (before its first ':', else before ' — ') linked to the entry,
    the rest as written (a ``{ref}`` title shows no markup, so an item with markup links as 'entry')."""
    for sep in (":", " — "):
        item, found, rest = heading.partition(sep)
        if found and not any(c in item for c in "$`*_<>"):
            return f"* {{ref}}`{item.strip()} <{label}>`{sep}{rest}"
    return f"* {{ref}}`entry <{label}>`: {heading}"


VERSION_KEYS = tuple(
    "id item quote_003 quote_000 reading_003 reading_000 consistent relevance".split()
)


def render_versions(entries: list[dict], records: list[dict]) -> str:
    """MyST Markdown for book/versions.md from book/versions.yaml: every mathematically relevant difference
    between the paper's two text copies, both readings quoted, which copy agrees with the rest of the
    paper, and the verdict of the claim that checks it in this build."""
    lines = [
        "# The two text copies of the paper",
        "",
        "The paper exists here in two text copies that differ in places that matter: **003**, a clean "
        "copy, and **000**, converted from the authors' LaTeX source. Neither is known to be the final "
        "version, so where they differ this book reports a *version discrepancy* with both readings, "
        "not an error of the paper. Below is every mathematically relevant difference found, each with "
        "the exact text of both copies. Places that look wrong but read the same in both copies "
        "(Fact 1, Fact 4, eq. (17), the proof of Theorem 2's pᵢ, …) are errors of the paper, listed in "
        "the {doc}`errata of the paper <errata-gspa>`.",
        "",
    ]
    for e in entries:
        if missing := [k for k in VERSION_KEYS if not e.get(k)]:
            raise ValueError(f"versions entry {e.get('id')!r} lacks {missing}")
        quote = {k: str(e[f"quote_{k}"]).replace("`", "'") for k in ("003", "000")}
        lines += [
            f"## {e['item']}",
            "",
            f"* **Copy 003:** {e['reading_003']}  ",
            f"  printed as `{quote['003']}`",
            f"* **Copy 000:** {e['reading_000']}  ",
            f"  printed as `{quote['000']}`",
            f"* **Consistent with the rest of the paper:** {e['consistent']}",
            f"* **What changes:** {e['relevance']}",
        ]
        if cid := e.get("claim"):
            c, chapter = _found(records, cid, f"versions entry {e['id']!r}")
            v = c["verdict"]
            lines.append(
                f"* **Checked in** {{doc}}`chapters/{chapter}` (claim `{cid}`: {{bdg-{BADGE[v]}}}`{v}`)."
            )
        elif e.get("chapter"):
            lines.append(f"* **See** {{doc}}`chapters/{e['chapter']}`.")
        lines.append("")
    return "\n".join(lines)


def render_template(template: str, records: list[dict], build: dict) -> str:
    """MyST Markdown for a page from its template (book/intro.template.md, the front page;
    book/api-certified.template.md): ``{{value:chapter:name}}`` becomes the value's text,
    ``{{claim:id=verdict}}`` the claim's verdict linked to it in its chapter, ``{{summary}}``
    the verdict counts (:func:`summary_html`), ``{{whatfails}}`` :func:`whatfails_html`, ``{{build}}`` the
    version, commit and date. Each ``{{claim:…}}`` states the verdict its sentence expects; another one
    fails a build with the paper's settings (:func:`_expect`), so prose such as "where the paper holds"
    never stands beside a failing badge; under other settings the badge is marked and a warning opens the
    page."""
    off = []

    def sub(m: re.Match) -> str:
        kind, arg = m.group("kind"), (m.group("arg") or "").strip()
        if kind == "value":
            return _value(records, arg)
        if kind == "summary" or kind == "whatfails":
            return _raw((summary_html if kind == "summary" else whatfails_html)(records)).rstrip()
        if kind == "build":
            return f"gspa {build['version']}, commit `{build['commit']}`, built {build['date']}"
        cid, eq, expected = (x.strip() for x in arg.partition("="))
        if not eq or expected not in VERDICTS:
            raise ValueError(
                f"the template's claim {arg!r} must state the verdict its sentence expects, as "
                f"'{{{{claim:{cid}=verdict}}}}' with a verdict of {VERDICTS}"
            )
        c, chapter = _found(records, cid, "the template")
        mark = ""
        if c["verdict"] != expected:
            off.append(f"{cid} came out {c['verdict']}, where the text expects {expected}")
            mark = f' <span class="gspa-verdict gspa-danger" title="the text expects {expected}">≠ text</span>'
        return (
            f'<a class="gspa-verdict gspa-{BADGE[c["verdict"]]}" href="chapters/{chapter}.html#claim-{cid}">'
            f"{c['verdict']}</a>{mark}"
        )

    page = PLACEHOLDER.sub(sub, template)
    _expect(records, off, "template's")
    if off:
        head, _, rest = page.partition("\n")
        page = (
            f"{head}\n\n```{{warning}}\nThis build ran with other settings than the paper's, and {len(off)} "
            f"verdict(s) differ from what the text below expects (marked ≠ text): {'; '.join(off)}.\n```\n{rest}"
        )
    return page


def _declarations(records: list[dict]):
    """(paper, id, declaration) of every claim the studies of the papers in ``records`` declare."""
    for paper in sorted({rec["chapter"].split("/")[0] for rec in records if "/" in rec["chapter"]}):
        try:
            claims = importlib.import_module(f"gspa.studies.{paper}.claims")
        except ModuleNotFoundError:
            continue
        for i, decl in claims.all_claims().items():
            yield paper, i, decl


def implications(records: list[dict]) -> dict[str, tuple[str, str]]:
    """``{claim id: (id of the claim it follows from, why)}`` as the studies declare them."""
    return {
        f"{paper}.{i}": (d.follows_from, d.because)
        for paper, i, d in _declarations(records)
        if d.follows_from
    }


def unrecorded_claims(records: list[dict]) -> list[str]:
    """What breaks 'every declared claim is recorded by exactly one chapter', one line each: a claim of a
    study's tables (``gspa.studies.<paper>.claims``, for the papers in ``records``) that no chapter
    recorded, or one that two chapters recorded."""
    by_id: dict[str, list[str]] = {}
    for rec in records:
        for c in rec.get("claims", []):
            by_id.setdefault(c["id"], []).append(rec["chapter"])
    problems = [
        f"{i} is recorded by {' and '.join(chs)}" for i, chs in by_id.items() if len(chs) > 1
    ]
    return problems + [
        f"{paper}.{i} is declared but no chapter records it"
        for paper, i, _ in _declarations(records)
        if f"{paper}.{i}" not in by_id
    ]


#: verdicts that say a claim holds (everywhere, or where checked) and those that say it fails
_HOLDS, _FAILS = ("reproduced", PARTLY), ("not reproduced", "differs")


def implication_conflicts(records: list[dict]) -> list[str]:
    """What breaks 'a claim that follows from another is judged alike', one line each. Where both are judged
    under readings, every reading they share under which the premise holds must hold for the conclusion (a
    reading the conclusion left uncomputed does not); otherwise a premise that holds anywhere (reproduced, held
    where checked or conditional) must not stand beside a conclusion that fails. A premise no chapter recorded is
    named too."""
    found = {c["id"]: c for r in records for c in r["claims"]}
    problems = []
    for cid, (pid, _) in implications(records).items():
        q, p = found.get(cid), found.get(pid)
        if q is None:
            continue  # unrecorded_claims names it
        if p is None:
            problems.append(f"{cid} follows from {pid}, which no chapter recorded")
            continue
        split_p, split_q = readings(p), readings(q)
        if split_p and split_q:
            vp = {r["reading"]: r["verdict"] for r in split_p[0]}
            vq = {r["reading"]: r["verdict"] for r in split_q[0]}
            if not vp.keys() & vq.keys():
                problems.append(f"{cid} follows from {pid}, but the two share no reading")
            problems += [
                f"{cid} follows from {pid}, which holds under '{k}' ({vp[k]}), where {cid} is {vq[k]}"
                for k in vp
                if k in vq and vp[k] in _HOLDS and vq[k] not in _HOLDS
            ]
        elif p["verdict"] in (*_HOLDS, "conditional") and q["verdict"] in _FAILS:
            problems.append(
                f"{cid} follows from {pid}, which is {p['verdict']}, but {cid} is {q['verdict']}"
            )
    return problems
