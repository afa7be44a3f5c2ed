"""How a chapter publishes its numbers and its verdicts on the paper's claims.

A notebook creates one :class:`Chapter`, then

* ``ch.value(name, x, fmt)`` glues a computed number into the prose (``{glue}`name```) and records
  it in the chapter's result file;
* ``ch.claim(...)`` judges a claim of the paper with a :mod:`gspa.claims.rules` rule, glues the verdict
  and records the claim for the ledger;
* ``ch.save()`` writes the result file (atomically) when the chapter runs under the pipeline.

The pipeline passes the run's context in the environment variable ``GSPA_RUN`` (JSON: chapter,
profile, parameters with their sources, and the path of the result file to write). Run
interactively, a chapter records nothing on disk.

Never put a glue role inside ``$...$`` math: myst-nb leaves it unrendered without a warning.
"""

from __future__ import annotations

import html
import json
import math
import os
from datetime import datetime, timezone

from gspa.util.atomic import write_json_atomic
from gspa.claims.rules import Readings, Rule, check_kind, finding_kind, over_domain

RUN_ENV = "GSPA_RUN"


class _Text:
    """A value whose text/plain representation is exactly the formatted string (for glue); with ``markdown``
    (a text that may hold ``$...$``, e.g. a worst case named by its parameters' symbols) it is MyST Markdown
    too, pasted as ``{glue:md}`name:myst``` so that its mathematics is typeset (``{glue}`` would show the
    dollars as plain text)."""

    def __init__(self, text: str, markdown: bool = False):
        self.text = text
        self.markdown = markdown

    def __repr__(self):
        return self.text

    def _repr_markdown_(self):
        return self.text if self.markdown else None


def _jsonable(x):
    try:
        import numpy as np

        if isinstance(x, np.generic):
            return x.item()
        if isinstance(x, np.ndarray):
            return x.tolist()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    return x


def paper_of(chapter: str) -> str:
    """The paper a chapter belongs to: the folder of its name (``gspa/lemma1`` -> ``gspa``); a chapter
    outside any paper's folder belongs to the book itself (``book``)."""
    return chapter.split("/")[0] if "/" in chapter else "book"


class Chapter:
    """Collects a chapter's published values and claims; see the module docstring."""

    def __init__(self, name: str, title: str | None = None, claims=None):
        self.name = name
        self.title = title or name
        #: the study's declared claims (:func:`gspa.claims.table.table`): :meth:`claim` records them by id
        self.declared = claims
        run = os.environ.get(RUN_ENV)
        self.run = (
            json.loads(run)
            if run
            else {"chapter": name, "profile": "interactive", "parameters": {}, "result_file": None}
        )
        if self.run.get("chapter") not in (None, name):
            raise ValueError(
                f"chapter name {name!r} does not match the pipeline's chapter "
                f"{self.run.get('chapter')!r}"
            )
        self.values: dict[str, dict] = {}
        self.claims: list[dict] = []

    # -- publishing ----------------------------------------------------------------------------
    def _glue(self, key, obj):
        try:
            from myst_nb import glue
        except ImportError:  # pragma: no cover - myst-nb is a pinned dependency
            return
        glue(key, obj, display=False)

    def value(self, name: str, x, fmt: str = "{:.4g}", note: str = "", *, markdown: bool = False):
        """Publish a number (or short text): glued as ``name`` and recorded (returns nothing, so a
        notebook cell ending with it shows no stray output). ``markdown``: the text may hold ``$...$`` (a
        searched worst case: :meth:`gspa.claims.domain.Search.worst_text`); paste it with ``{glue:md}`name:myst```."""
        if isinstance(x, float) and math.isnan(x):
            raise ValueError(f"value {name!r} is NaN; refusing to publish it")
        text = fmt.format(x)
        self.values[name] = {"value": _jsonable(x), "text": text, "note": note}
        self._glue(name, _Text(text, markdown))

    def declaration(self, id: str):
        """The study's declaration of claim ``id`` (:class:`gspa.claims.table.Claim`); a ValueError names the
        study's ids when it has none."""
        if self.declared is None:
            raise ValueError(
                f"chapter {self.name!r} was given no claims table; pass claims=<study>.claims.CLAIMS"
            )
        if id not in self.declared:
            raise ValueError(
                f"claim id {id!r} is not declared in the study's claims table "
                f"(declared: {', '.join(sorted(self.declared))})"
            )
        return self.declared[id]

    def publish(self, prefix: str, values: dict, fmt: str = "{:.4g}", note: str = ""):
        """Publish every entry of ``values`` as ``<prefix><key>`` (:meth:`value`)."""
        for key, x in values.items():
            self.value(f"{prefix}{key}", x, fmt, note)

    def claim(
        self,
        id: str,
        statement: str | None = None,
        where: str | None = None,
        ours=None,
        rule: Rule | None = None,
        paper=None,
        *,
        kind: str | None = None,
        **run,
    ) -> None:
        """Record claim ``id``: a chapter with a claims table passes only what its run computed (``ours``,
        ``ours_text``; a search's ``search`` and ``confirmed``; and ``paper``, ``paper_text``, ``note``,
        ``rule`` or ``domain`` where they depend on its parameters), the rest comes from the declaration
        (:class:`gspa.claims.table.Claim`). Without a table every field is given here (:meth:`judge`)."""
        if self.declared is None:
            return self.judge(id, statement, where, ours, rule, paper, kind=kind, **run)
        from gspa.claims.table import CHAPTER_FIELDS

        if statement is not None or where is not None or kind is not None:
            raise ValueError(
                f"claim {id!r} is declared in the study's table: its statement, place and kind "
                "are set there, not in the chapter"
            )
        bad = sorted(set(run) - CHAPTER_FIELDS)
        if bad:
            raise ValueError(
                f"claim {id!r}: unknown field(s) {bad}; a chapter sets {sorted(CHAPTER_FIELDS)}"
            )
        fields = self.declaration(id).fields()
        fields.update({k: v for k, v in (("rule", rule), ("paper", paper)) if v is not None})
        fields.update(
            {k: v for k, v in run.items() if v is not None or k in ("search", "confirmed")}
        )
        statement, where, kind, rule = (
            fields.pop(k) for k in ("statement", "where", "kind", "rule")
        )
        paper = fields.pop("paper")
        return self.judge(id, statement, where, ours, rule, paper, kind=kind, **fields)

    def judge(
        self,
        id: str,
        statement: str,
        where: str,
        ours,
        rule: Rule,
        paper=None,
        *,
        kind: str,
        ours_text: str | None = None,
        paper_text: str | None = None,
        note: str = "",
        domain=None,
        search=None,
        confirmed: bool | None = None,
        proof: str | None = None,
    ) -> None:
        """Judge a claim of the paper with ``rule`` and record it for the ledger.

        ``statement`` quotes or paraphrases the paper; ``where`` locates it (section, equation,
        figure, table); ``kind`` is one of :data:`gspa.claims.rules.KINDS`. ``ours`` is the value computed in
        this run. The recorded id carries the paper (``gspa.<id>`` for chapter ``gspa/…``, see
        :func:`paper_of`); the verdict is glued under the short id, as ``claim:<id>`` (and its reason as ``claim:<id>:reason``); the
        record is in ``self.claims``.

        ``domain`` (:class:`gspa.claims.domain.ClaimDomain`) is what the paper's statement quantifies over,
        ``search`` the :class:`gspa.claims.domain.Search` of its worst case there and ``confirmed`` whether
        an independent exact computation confirmed a violation the search found; the rule's verdict is
        then judged over the domain by :func:`gspa.claims.rules.over_domain` (without a domain, a
        *reproduced* covers the chapter's inputs only and becomes *holds where checked*); ``proof``, a short
        proof that the statement holds over the whole domain, extends a search of part of it (shown beside the
        verdict). ``kind`` is listed as :func:`gspa.claims.rules.finding_kind` returns it (a quantified
        statement shown false is a ``false-statement``). Only a :class:`~gspa.claims.rules.Readings` rule can
        make a claim *conditional*."""
        full = f"{paper_of(self.name)}.{id}"
        for name, text in (
            ("statement", statement),
            ("where", where),
            ("note", note),
            ("ours_text", ours_text),
            ("paper_text", paper_text),
        ):
            bad = sorted({repr(c) for c in text or "" if ord(c) < 32 and c != "\n"})
            if bad:  # e.g. "\beta" in a non-raw string: a backspace and "eta" on the page
                raise ValueError(
                    f"{name} of claim {id!r} holds control characters {', '.join(bad)} "
                    f"(allowed: printable text and newlines; write TeX in raw strings)"
                )
        if any(c["id"] == full for c in self.claims):
            raise ValueError(f"claim id {id!r} is recorded twice in chapter {self.name!r}")
        check_kind(kind)
        judged = rule.judge(ours, paper)
        if (
            isinstance(rule, Readings)
            and judged.status in ("reproduced", "holds where checked")
            and search is not None
            and search.violations
        ):
            raise ValueError(
                f"claim {id!r}: a search found violations of a claim whose readings all hold on the "
                "chapter's inputs; put the searched reading's value among the readings (or make it a claim "
                "of its own)"
            )
        verdict = over_domain(judged, domain, search, confirmed, proof)
        if verdict.status == "conditional" and not isinstance(rule, Readings):
            raise ValueError(
                f"claim {id!r} came out conditional without readings: only a Readings rule may "
                "make a claim conditional"
            )
        kind = finding_kind(kind, verdict.status, domain)
        from gspa.book.tables import plain_math

        # every text of the claim carries its mathematics as $...$ (ε_l, n_p, e^ε typeset on every page), the
        # readings' names too (they name the rows of the readings table, parsed from the reason)
        math = lambda t: t if t is None else plain_math(t)
        statement, where, note, ours_text, paper_text, proof = map(
            math, (statement, where, note, ours_text, paper_text, proof)
        )
        if isinstance(ours, dict):
            ours = {plain_math(k): v for k, v in ours.items()}
        rec = {
            "id": full,
            "chapter": self.name,
            "kind": kind,
            "statement": statement,
            "where": where,
            "paper": _jsonable(paper),
            "paper_text": paper_text
            if paper_text is not None
            else ("—" if paper is None else _fmt_val(paper)),
            "ours": _jsonable(ours),
            "ours_text": ours_text if ours_text is not None else _fmt_val(ours),
            "rule": plain_math(rule.describe()),
            "verdict": verdict.status,
            "reason": plain_math(verdict.reason),
            "note": note,
            "domain": None if domain is None else domain.as_dict(),
            "search": None if search is None else search.as_dict(),
            "confirmed": confirmed,
            "proof": proof,
        }
        for part, keys in (
            (rec["domain"], ("stated", "text")),
            (rec["search"], ("region", "worst_text")),
        ):
            for key in keys if part else ():
                part[key] = plain_math(part[key])
        for param in (rec["domain"] or {}).get("params", []):
            param.update(
                stated=plain_math(param["stated"]), closed_by=plain_math(param["closed_by"])
            )
        from gspa.book.tables import raw_tex

        for field in (
            "statement",
            "where",
            "paper_text",
            "ours_text",
            "rule",
            "reason",
            "note",
            "proof",
        ):
            if rec[field] and raw_tex(rec[field]):
                raise ValueError(
                    f"claim {id!r}: {field} has TeX outside $...$ (it would show raw on the page): "
                    f"{raw_tex(rec[field])[0]!r}; put it in $...$ or write it in Unicode"
                )
        self.claims.append(rec)
        self._glue(f"claim:{id}", _Text(verdict.status))
        self._glue(f"claim:{id}:reason", _Text(verdict.reason))

    # -- display ---------------------------------------------------------------------------------
    def parameters_table(self):
        """A one-line note of the profile this run used, and a table of only the parameters whose values
        differ from the paper's settings (the full list: ``gspa params <chapter>``)."""
        from IPython.display import HTML
        from gspa.book.tables import tex_html

        params = self.run.get("parameters", {})
        paper = self.run.get("paper_values", {})
        profile = str(self.run.get("profile"))
        differ = {k: v for k, v in params.items() if k in paper and v["value"] != paper[k]}
        if not differ:
            note = (
                f"Parameters: the paper's settings (profile <b>{html.escape(profile)}</b>, "
                f"{len(params)} parameters; <code>gspa params {html.escape(self.name)}</code> lists them)."
            )
            return HTML(f'<p class="gspa-params-note">{note}</p>' + self.versions_html())
        rows = "".join(
            f"<tr><td><code>{html.escape(k)}</code></td><td><code>{html.escape(repr(v['value']))}</code></td>"
            f"<td><code>{html.escape(repr(paper[k]))}</code></td><td>{html.escape(v['source'])}</td></tr>"
            for k, v in differ.items()
        )
        note = (
            f"Profile <b>{html.escape(profile)}</b>: {len(differ)} of {len(params)} parameters differ from the "
            "paper's settings"
            + (" (some set with <code>-p</code>)" if self.run.get("overrides") else "")
            + "."
        )
        return HTML(
            f'<p class="gspa-params-note">{note}</p><div class="gspa-scroll"><table class="gspa-params">'
            f"<caption>{tex_html('Parameters of this run that differ from the paper’s settings')}</caption>"
            "<thead><tr><th>parameter</th><th>this run</th><th>paper's setting</th><th>source</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div>" + self.versions_html()
        )

    #: the packages the note under the parameters names first
    KEY_PACKAGES = ("numpy", "scipy", "torch", "dp-accounting", "mpmath")

    def versions_html(self) -> str:
        """The versions of Python and of the installed packages this run's code imports (and all they
        require), as its inputs record them (:mod:`gspa.book.freshness`): one line, with the full list one
        click away. Empty when the chapter runs outside the pipeline."""
        inputs = self.run.get("inputs") or {}
        pkgs = {
            k.removeprefix("package "): v for k, v in inputs.items() if k.startswith("package ")
        }
        if not pkgs:
            return ""
        first = [f"Python {pkgs.pop('python', '?')}"] + [
            f"{k} {pkgs[k]}" for k in self.KEY_PACKAGES if k in pkgs
        ]
        rest = ", ".join(f"{k} {v}" for k, v in sorted(pkgs.items()))
        return (
            '<details class="gspa-versions"><summary>Computed in this build with '
            f"{html.escape(', '.join(first))} (all {len(pkgs)} packages)</summary>"
            f"<p>{html.escape(rest)}</p></details>"
        )

    def claims_table(self):
        """HTML table of this chapter's claims and computed verdicts."""
        from IPython.display import HTML

        return HTML(claims_html(self.claims))

    # -- saving ----------------------------------------------------------------------------------
    def record(self) -> dict:
        return {
            "chapter": self.name,
            "title": self.title,
            "profile": self.run.get("profile"),
            "parameters": self.run.get("parameters", {}),
            "overrides": self.run.get("overrides", {}),
            "inputs_hash": self.run.get("inputs_hash"),
            "inputs": self.run.get("inputs"),
            "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "values": self.values,
            "claims": self.claims,
        }

    def save(self):
        """Write the result file named by the pipeline (no-op when run interactively)."""
        path = self.run.get("result_file")
        if path:
            write_json_atomic(path, self.record())
        return path


def _fmt_val(x) -> str:
    """A claim's value as its table shows it (:func:`gspa.book.tables.value_text`; true/false for a truth value)."""
    from gspa.book.tables import value_text

    if x is None:
        return "—"
    if isinstance(x, bool):
        return "true" if x else "false"
    return value_text(x)


BADGE = {
    "reproduced": "success",
    "holds where checked": "primary",
    "conditional": "info",
    "differs": "warning",
    "not reproduced": "danger",
    "not checkable": "secondary",
}


def claim_row(c: dict, link: str | None = None) -> str:
    """One claim as a table row with the anchor ``claim-<id>``: the claim and its kind, what the paper
    says and where, the paper's value, ours, and the verdict with its reason and (collapsed) rule.
    ``link`` (the chapter page) makes the id a link to the claim in its chapter."""
    from gspa.book.tables import tex_html

    cid = html.escape(c["id"])
    ident = (
        f'<a href="{html.escape(link)}#claim-{cid}"><code>{cid}</code></a>'
        if link
        else f"<code>{cid}</code>"
    )
    kind = html.escape(c.get("kind", ""))
    verdict = c["verdict"]
    split = readings(c)
    return (
        f'<tr id="claim-{cid}" data-verdict="{html.escape(verdict)}" data-kind="{kind}">'
        f'<td>{ident}<br><span class="gspa-kind">{kind}</span></td>'
        f'<td>{tex_html(c["statement"])}<br><span class="gspa-where">{tex_html(c["where"])}</span></td>'
        f"<td>{tex_html(c['paper_text'])}</td><td>{tex_html(c['ours_text'])}</td>"
        f'<td><span class="gspa-verdict gspa-{BADGE[verdict]}">{html.escape(verdict)}</span>'
        + (
            _reason_html(c["reason"])
            if split is None
            else f"<br><small>{len(split[0])} readings: see below</small>"
            + (_reason_html(split[1]) if split[1] else "")
        )
        + (f'<br><small class="gspa-note">{tex_html(c["note"])}</small>' if c.get("note") else "")
        + f'<details class="gspa-rule"><summary>rule</summary><small>{tex_html(c["rule"])}</small></details></td>'
        + f"<td>{coverage_html(c)}</td></tr>"
        + (
            ""
            if split is None
            else f'<tr class="gspa-sub" data-verdict="{html.escape(verdict)}" data-kind="{kind}"><td colspan="6">'
            + readings_html(c, split[0])
            + "</td></tr>"
        )
    )


def readings(c: dict) -> tuple[list[dict], str] | None:
    """The readings of a claim judged with :class:`gspa.claims.rules.Readings` (its ``ours`` a mapping reading ->
    value, its reason ``'reading: verdict (why); reading: verdict (why)'``, possibly after ``'holds under … only —
    '`` and before what the domain adds): a list of ``{reading, value, verdict, reason}`` in the order of
    ``ours``, and the rest of the reason (what the domain adds, or ``''``). ``None`` for any other claim, or
    where the reason does not read so."""
    from gspa.claims.rules import VERDICTS

    ours, reason = c.get("ours"), str(c.get("reason", ""))
    if not isinstance(ours, dict) or not ours or ", under each " not in str(c.get("rule", "")):
        return None
    rows, pos, keys = [], None, list(ours)
    for n, k in enumerate(keys):
        hits = [(reason.find(f"{k}: {v} (", pos or 0), v) for v in VERDICTS]
        hits = [(i, v) for i, v in hits if i >= 0 and (pos is None or i == pos)]
        if not hits:
            return None
        i, v = min(hits)
        j = end = i + len(f"{k}: {v} (")
        depth = 1
        while end < len(reason) and depth:
            depth += {"(": 1, ")": -1}.get(reason[end], 0)
            end += 1
        if depth:
            return None
        rows.append({"reading": k, "value": ours[k], "verdict": v, "reason": reason[j : end - 1]})
        pos = end
        if n < len(keys) - 1:
            if not reason.startswith("; ", pos):
                return None
            pos += 2
    rest = reason[pos:]
    for sep in ("; ", " — "):
        if rest.startswith(sep):
            rest = rest[len(sep) :]
    return rows, rest.strip()


def readings_html(c: dict, rows: list[dict] | None = None) -> str:
    """A claim's readings (:func:`readings`) as a small table: reading, value, verdict (its reason on hover)."""
    from gspa.book.tables import number, tex_html, tex_text

    rows = rows if rows is not None else (readings(c) or ([], ""))[0]
    what = str(c.get("rule", "")).rpartition(", under each ")[2] or "reading"
    body = "".join(
        f"<tr><td>{tex_html(r['reading'])}</td><td>{tex_html(r['value']) if isinstance(r['value'], str) else html.escape(number(r['value']))}</td>"
        f'<td><span class="gspa-verdict gspa-{BADGE[r["verdict"]]}" title="{html.escape(tex_text(r["reason"]))}">'
        f"{html.escape(r['verdict'])}</span></td></tr>"
        for r in rows
    )
    return (
        f'<table class="gspa-readings"><caption>{tex_html(c["id"])} under each {tex_html(what)}</caption>'
        f"<thead><tr><th>reading</th><th>value</th><th>verdict</th></tr></thead><tbody>{body}</tbody></table>"
    )


def coverage_html(c: dict) -> str:
    """What a claim's verdict covers: the domain the paper states, the region searched and the worst case
    found (``domain`` and ``search`` of the record, :mod:`gspa.claims.domain`)."""
    from gspa.book.tables import tex_html

    dom, search = c.get("domain"), c.get("search")
    if dom is None:
        return '<small class="gspa-uncovered">domain not stated: checked on the chapter\'s inputs only</small>'
    stated = f"<small>{tex_html(dom['stated'])}</small>"
    if not dom["params"]:
        return f"<small>single value</small><br>{stated}"
    if search is None:
        return (
            f'{stated}<br><small class="gspa-uncovered"><b>checked over:</b> the chapter\'s inputs only '
            f"(not searched)</small>"
        )
    cover = "the whole stated domain" if search["covers"] else "part of the stated domain"
    proof = (
        f"<br><small><b>the rest:</b> by proof — {tex_html(c['proof'])}</small>"
        if c.get("proof") and not search["covers"]
        else ""
    )
    return (
        f"{stated}<br><small><b>checked over</b> ({cover}): {tex_html(search['region'])}, "
        f"{search['evaluations']} points</small><br><small><b>worst case:</b> {tex_html(search['worst_text'])}"
        + (f" — {search['violations']} violation(s)" if search["violations"] else "")
        + "</small>"
        + proof
    )


def _reason_html(reason: str, short: int = 160) -> str:
    """The verdict's reason under the badge; a long one (several readings) collapsed behind 'why'."""
    from gspa.book.tables import tex_html

    if len(reason) <= short:
        return f"<br><small>{tex_html(reason)}</small>"
    return f'<details class="gspa-reason"><summary>why</summary><small>{tex_html(reason)}</small></details>'


CLAIMS_HEAD = (
    "<thead><tr><th>claim</th><th>the paper says (where)</th><th>paper</th><th>this build</th>"
    "<th>verdict</th><th>stated for / checked over / worst case</th></tr></thead>"
)


def claims_html(claims, caption: str = "Claims of the paper checked in this chapter") -> str:
    """The chapter's claims as one captioned HTML table (rows anchored as ``#claim-<id>``)."""
    from gspa.book.tables import tex_html

    return (
        f'<div class="gspa-scroll"><table class="gspa-claims"><caption>{tex_html(caption)}</caption>'
        + CLAIMS_HEAD
        + "<tbody>"
        + "".join(claim_row(c) for c in claims)
        + "</tbody></table></div>"
    )
