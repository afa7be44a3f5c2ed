"""How a chapter publishes its numbers and its verdicts on the paper's claims.

A notebook makes one :class:`Chapter`; ``ch.value(name, x, fmt)`` glues a number into the prose
(``{glue}`name```) and records it, ``ch.claim(...)`` judges a claim of the paper with a
:mod:`gspa.claims.rules` rule, glues the verdict and records the claim, ``ch.save()`` writes the result
file the pipeline named in ``GSPA_RUN`` (JSON: chapter, profile, parameters, result file). Run
interactively, a chapter records nothing on disk. Never put a glue role inside ``$...$``: myst-nb leaves
it unrendered without a warning.
"""

from __future__ import annotations

import html
import json
import math
import os
from datetime import datetime, timezone

from gspa.book.tables import number, plain_math, raw_tex, shorten, tex_html, tex_text, value_text
from gspa.claims.rules import Readings, Rule, check_kind, finding_kind, over_domain
from gspa.util.atomic import write_json_atomic

RUN_ENV = "GSPA_RUN"


class _Text:
    """A glued text shown exactly as it is; with ``markdown`` (a text with ``$...$``) also MyST Markdown,
    pasted with ``{glue:md}`name:myst``` so that its mathematics is typeset."""

    def __init__(self, text: str, markdown: bool = False):
        self.text, self.markdown = text, markdown

    def __repr__(self):
        return self.text

    def _repr_markdown_(self):
        return self.text if self.markdown else None


def _jsonable(x):
    import numpy as np

    if isinstance(x, (np.generic, np.ndarray)):
        return x.tolist()
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    return x


def paper_of(chapter: str) -> str:
    """The paper of a chapter, its folder (``gspa/lemma1`` -> ``gspa``); ``book`` outside any folder."""
    return chapter.split("/")[0] if "/" in chapter else "book"


class Chapter:
    """Collects a chapter's published values and claims; see the module docstring."""

    def __init__(self, name: str, title: str | None = None, claims=None):
        self.name, self.title = name, title or name
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
                f"chapter name {name!r} does not match the pipeline's chapter {self.run.get('chapter')!r}"
            )
        self.values: dict[str, dict] = {}
        self.claims: list[dict] = []

    def value(self, name: str, x, fmt: str = "{:.4g}", note: str = "", *, markdown: bool = False):
        """Glue ``x`` as ``name`` and record it; ``markdown``: the text may hold ``$...$`` (paste it with
        ``{glue:md}`name:myst```)."""
        if isinstance(x, float) and math.isnan(x):
            raise ValueError(f"value {name!r} is NaN; refusing to publish it")
        text = fmt.format(x)
        self.values[name] = {"value": _jsonable(x), "text": text, "note": note}
        _glue(name, _Text(text, markdown))

    def publish(self, prefix: str, values: dict, fmt: str = "{:.4g}", note: str = ""):
        """Publish every entry of ``values`` as ``<prefix><key>`` (:meth:`value`)."""
        for key, x in values.items():
            self.value(f"{prefix}{key}", x, fmt, note)

    def declaration(self, id: str):
        """The study's declaration of claim ``id`` (:class:`gspa.claims.table.Claim`)."""
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

    def claim(
        self, id, statement=None, where=None, ours=None, rule=None, paper=None, *, kind=None, **run
    ) -> None:
        """Record claim ``id``. With a claims table the chapter passes only what its run computed
        (``ours``, ``ours_text``, a search's ``search`` and ``confirmed``, and what depends on its
        parameters), the rest comes from the declaration; without one, every field (:meth:`judge`)."""
        if self.declared is None:
            return self.judge(id, statement, where, ours, rule, paper, kind=kind, **run)
        from gspa.claims.table import CHAPTER_FIELDS

        if statement is not None or where is not None or kind is not None:
            raise ValueError(
                f"claim {id!r} is declared in the study's table: its statement, place and kind "
                "are set there, not in the chapter"
            )
        if bad := sorted(set(run) - CHAPTER_FIELDS):
            raise ValueError(
                f"claim {id!r}: unknown field(s) {bad}; a chapter sets {sorted(CHAPTER_FIELDS)}"
            )
        fields = self.declaration(id).fields()
        fields.update({k: v for k, v in (("rule", rule), ("paper", paper)) if v is not None})
        fields.update(
            {k: v for k, v in run.items() if v is not None or k in ("search", "confirmed")}
        )
        statement, where, kind, rule, paper = map(
            fields.pop, ("statement", "where", "kind", "rule", "paper")
        )
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
        """Judge a claim of the paper with ``rule`` and record it as ``<paper>.<id>`` (:func:`paper_of`); glue
        its verdict as ``claim:<id>`` and its reason as ``claim:<id>:reason``. Over a ``domain`` (what the
        statement quantifies over) :func:`gspa.claims.rules.over_domain` judges the verdict with the ``search``
        of its worst case, whether an exact computation ``confirmed`` a violation found, and a ``proof`` for
        the part not searched. Only a :class:`~gspa.claims.rules.Readings` rule makes a claim *conditional*."""
        full = f"{paper_of(self.name)}.{id}"
        if any(c["id"] == full for c in self.claims):
            raise ValueError(f"claim id {id!r} is recorded twice in chapter {self.name!r}")
        check_kind(kind)
        by_readings = isinstance(rule, Readings)
        each = rule.each(ours, paper) if by_readings else None  # the verdict under each reading
        judged = rule.combine(each) if by_readings else rule.judge(ours, paper)
        violated = search is not None and search.violations
        if by_readings and violated and judged.status in ("reproduced", "holds where checked"):
            raise ValueError(
                f"claim {id!r}: a search found violations of a claim whose readings all hold on the "
                "chapter's inputs; put the searched reading's value among the readings (or make it a claim "
                "of its own)"
            )
        verdict = over_domain(judged, domain, search, confirmed, proof)
        if verdict.status == "conditional" and not by_readings:
            raise ValueError(
                f"claim {id!r} came out conditional without readings: only a Readings rule may "
                "make a claim conditional"
            )
        # every text carries its mathematics as $...$, the readings' names too (they name the readings' rows)
        tex = lambda t: t if t is None else plain_math(t)  # noqa: E731
        if isinstance(ours, dict):
            ours = {plain_math(k): v for k, v in ours.items()}
        rec = {
            "id": full,
            "chapter": self.name,
            "kind": finding_kind(kind, verdict.status, domain),
            "statement": tex(statement),
            "where": tex(where),
            "paper": _jsonable(paper),
            "paper_text": tex(paper_text) if paper_text is not None else _fmt_val(paper),
            "ours": _jsonable(ours),
            "ours_text": tex(ours_text) if ours_text is not None else _fmt_val(ours),
            "rule": plain_math(rule.describe()),
            "verdict": verdict.status,
            "reason": plain_math(verdict.reason),
            "note": tex(note),
            "domain": None if domain is None else domain.as_dict(),
            "search": None if search is None else search.as_dict(),
            "confirmed": confirmed,
            "proof": tex(proof),
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
        for field in "statement where paper_text ours_text rule reason note proof".split():
            if bad := sorted({repr(c) for c in rec[field] or "" if ord(c) < 32 and c != "\n"}):
                raise ValueError(  # e.g. "\beta" in a non-raw string: a backspace and "eta" on the page
                    f"{field} of claim {id!r} holds control characters {', '.join(bad)} "
                    f"(allowed: printable text and newlines; write TeX in raw strings)"
                )
            if raw := raw_tex(rec[field] or ""):
                raise ValueError(
                    f"claim {id!r}: {field} has TeX outside $...$ (it would show raw on the page): "
                    f"{raw[0]!r}; put it in $...$ or write it in Unicode"
                )
        if by_readings:  # each reading's verdict, recorded (over_domain only appends to the reason)
            assert verdict.reason.startswith(judged.reason), (verdict.reason, judged.reason)
            rec["readings"] = [
                {
                    "reading": plain_math(k),
                    "value": rec["ours"][plain_math(k)],
                    "verdict": v.status,
                    "reason": tex(v.reason),
                }
                for k, v in each.items()
            ]
            rest = verdict.reason[len(judged.reason) :].removeprefix("; ").removeprefix(" — ")
            rec["reason_rest"] = tex(rest.strip())
        self.claims.append(rec)
        _glue(f"claim:{id}", _Text(verdict.status))
        _glue(f"claim:{id}:reason", _Text(verdict.reason))

    def parameters_table(self):
        """The profile this run used, a table of the parameters that differ from the paper's settings (all
        of them: ``gspa params <chapter>``), and the versions of the packages the run used."""
        from IPython.display import HTML

        params, paper = self.run.get("parameters", {}), self.run.get("paper_values", {})
        profile = html.escape(str(self.run.get("profile")))
        differ = {k: v for k, v in params.items() if k in paper and v["value"] != paper[k]}
        if not differ:
            return HTML(
                f'<p class="gspa-params-note">Parameters: the paper\'s settings (profile <b>{profile}</b>, '
                f"{len(params)} parameters; <code>gspa params {html.escape(self.name)}</code> lists them).</p>"
                + self.versions_html()
            )
        code = lambda x: f"<td><code>{html.escape(x)}</code></td>"  # noqa: E731
        rows = "".join(
            f"<tr>{code(k)}{code(repr(v['value']))}{code(repr(paper[k]))}<td>{html.escape(v['source'])}</td></tr>"
            for k, v in differ.items()
        )
        by_p = " (some set with <code>-p</code>)" if self.run.get("overrides") else ""
        return HTML(
            f'<p class="gspa-params-note">Profile <b>{profile}</b>: {len(differ)} of {len(params)} parameters '
            f"differ from the paper's settings{by_p}.</p>"
            '<div class="gspa-scroll"><table class="gspa-params"><caption>Parameters of this run that differ '
            "from the paper’s settings</caption><thead><tr><th>parameter</th><th>this run</th><th>paper's "
            f"setting</th><th>source</th></tr></thead><tbody>{rows}</tbody></table></div>"
            + self.versions_html()
        )

    def versions_html(self) -> str:
        """Python's and the installed packages' versions this run's code imports, as its inputs record them
        (:mod:`gspa.book.freshness`): one line, the full list one click away; empty outside the pipeline."""
        inputs = self.run.get("inputs") or {}
        pkgs = {
            k.removeprefix("package "): v for k, v in inputs.items() if k.startswith("package ")
        }
        if not pkgs:
            return ""
        first = [f"Python {pkgs.pop('python', '?')}"] + [
            f"{k} {pkgs[k]}"
            for k in ("numpy", "scipy", "torch", "dp-accounting", "mpmath")
            if k in pkgs
        ]
        rest = ", ".join(f"{k} {v}" for k, v in sorted(pkgs.items()))
        return (
            '<details class="gspa-versions"><summary>Computed in this build with '
            f"{html.escape(', '.join(first))} (all {len(pkgs)} packages)</summary>"
            f"<p>{html.escape(rest)}</p></details>"
        )

    def claims_table(self):
        """This chapter's claims and their verdicts (:func:`claims_html`)."""
        from IPython.display import HTML

        return HTML(claims_html(self.claims))

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
        """Write the result file named by the pipeline (nothing when run interactively)."""
        if path := self.run.get("result_file"):
            write_json_atomic(path, self.record())
        return path


def _glue(key, obj):
    from myst_nb import glue

    glue(key, obj, display=False)


def _fmt_val(x) -> str:
    """A claim's value as its table shows it: :func:`value_text`, a truth value as true/false."""
    return (
        "—" if x is None else ("true" if x else "false") if isinstance(x, bool) else value_text(x)
    )


BADGE = {
    "reproduced": "success",
    "holds where checked": "primary",
    "conditional": "info",
    "differs": "warning",
    "not reproduced": "danger",
    "not checkable": "secondary",
}


def chip(verdict: str, title: str = "") -> str:
    """A verdict as a coloured chip (``title``: its tooltip)."""
    tip = f' title="{html.escape(title)}"' if title else ""
    return f'<span class="gspa-verdict gspa-{BADGE[verdict]}"{tip}>{html.escape(verdict)}</span>'


def claim_row(c: dict, link: str | None = None) -> str:
    """One claim as a table row anchored ``claim-<id>``: id and kind, the paper's words and where, the
    paper's value and ours, the verdict with its reason and (collapsed) rule and note, and what it covers
    (the search collapsed, :func:`coverage_html`): rows stay short in the chapter and the ledger; a claim
    judged under readings has them in a row below. ``link`` (its chapter's page) links the id there."""
    cid, kind, verdict = html.escape(c["id"]), html.escape(c.get("kind", "")), c["verdict"]
    ident = (
        f'<a href="{html.escape(link)}#claim-{cid}"><code>{cid}</code></a>'
        if link
        else f"<code>{cid}</code>"
    )
    data = f'data-verdict="{html.escape(verdict)}" data-kind="{kind}"'
    split = readings(c)
    reason = c["reason"] if split is None else split[1]
    why = (
        ""
        if not reason
        else f"<br><small>{tex_html(reason)}</small>"
        if len(reason) <= 160  # a longer one (several readings) behind 'why'
        else f'<details class="gspa-reason"><summary>why</summary><small>{tex_html(reason)}</small></details>'
    )
    return (
        f'<tr id="claim-{cid}" {data}><td>{ident}<br><span class="gspa-kind">{kind}</span></td>'
        f'<td>{tex_html(c["statement"])}<br><span class="gspa-where">{tex_html(c["where"])}</span></td>'
        f"<td>{tex_html(c['paper_text'])}</td><td>{_brief(c['ours_text'])}</td><td>{chip(verdict)}"
        + ("" if split is None else f"<br><small>{len(split[0])} readings: see below</small>")
        + why
        + (
            '<details class="gspa-search"><summary>note</summary>'
            f'<small class="gspa-note">{tex_html(c["note"])}</small></details>'
            if c.get("note")
            else ""
        )
        + f'<details class="gspa-rule"><summary>rule</summary><small>{tex_html(c["rule"])}</small></details></td>'
        + f"<td>{coverage_html(c)}</td></tr>"
        + (
            ""
            if split is None
            else f'<tr class="gspa-sub" {data}><td colspan="6">{readings_html(c, split[0])}</td></tr>'
        )
    )


def _brief(text, limit: int = 100) -> str:
    """``text`` as HTML, cut to about ``limit`` characters with the whole of it under 'in full'."""
    short = shorten(text, limit)
    if short == " ".join(str(text).split()):
        return tex_html(text)
    return (
        f'{tex_html(short)}<details class="gspa-search"><summary>in full</summary>'
        f"<small>{tex_html(text)}</small></details>"
    )


def readings(c: dict) -> tuple[list[dict], str] | None:
    """The readings of a claim judged with :class:`gspa.claims.rules.Readings` (``{reading, value, verdict,
    reason}`` in the order of ``ours``) and what the domain adds to its reason; None for any other claim."""
    return (c["readings"], c.get("reason_rest", "")) if c.get("readings") else None


def readings_html(c: dict, rows: list[dict]) -> str:
    """A claim's readings (:func:`readings`) as a small table: reading, value, verdict (its reason on hover)."""
    what = str(c.get("rule", "")).rpartition(", under each ")[2] or "reading"
    body = "".join(
        f"<tr><td>{tex_html(r['reading'])}</td><td>"
        + (tex_html(r["value"]) if isinstance(r["value"], str) else html.escape(number(r["value"])))
        + f"</td><td>{chip(r['verdict'], tex_text(r['reason']))}</td></tr>"
        for r in rows
    )
    return (
        f'<table class="gspa-readings"><caption>{tex_html(c["id"])} under each {tex_html(what)}</caption>'
        f"<thead><tr><th>reading</th><th>value</th><th>verdict</th></tr></thead><tbody>{body}</tbody></table>"
    )


def coverage_html(c: dict) -> str:
    """What a verdict covers: the domain the paper states, then (collapsed) the region searched, the worst
    case found and the proof."""
    dom, search = c.get("domain"), c.get("search")
    if dom is None:
        return '<small class="gspa-uncovered">domain not stated: checked on the chapter\'s inputs only</small>'
    stated = f"<small>{tex_html(dom['stated'])}</small>"
    if not dom["params"]:
        return f"<small>single value</small><br>{stated}"
    if search is None:
        return f'{stated}<br><small class="gspa-uncovered"><b>checked over:</b> the chapter\'s inputs only (not searched)</small>'
    cover = "the whole stated domain" if search["covers"] else "part of the stated domain"
    bad = f" — {search['violations']} violation(s)" if search["violations"] else ""
    proof = (
        f"<br><small><b>{'proved' if search['covers'] else 'the rest: by proof'}:</b> "
        f"{tex_html(c['proof'])}</small>"
        if c.get("proof")
        else ""
    )
    return (
        f'{stated}<details class="gspa-search"><summary>checked over, worst case'
        f"{', proof' if c.get('proof') else ''}</summary>"
        f"<small><b>checked over</b> ({cover}): {tex_html(search['region'])}, "
        f"{search['evaluations']} points</small><br><small><b>worst case:</b> {tex_html(search['worst_text'])}"
        f"{bad}</small>{proof}</details>"
    )


CLAIMS_HEAD = (
    "<thead><tr><th>claim</th><th>the paper says (where)</th><th>paper</th><th>this build</th>"
    "<th>verdict</th><th>stated for / checked over / worst case</th></tr></thead>"
)


def claims_html(
    claims, caption: str = "Claims of the paper checked in this chapter", link=None
) -> str:
    """Claims as one table under ``caption`` (HTML), rows anchored ``#claim-<id>`` (:func:`claim_row`)."""
    rows = "".join(claim_row(c, link) for c in claims)
    return f'<div class="gspa-scroll"><table class="gspa-claims"><caption>{caption}</caption>{CLAIMS_HEAD}<tbody>{rows}</tbody></table></div>'
