"""Rules that turn a computed value into a verdict on a claim of the paper.

A verdict is never typed by hand: it is what a stated rule returns for the value computed in the
same build. The six verdicts, each meaning one thing:

* ``reproduced``          — the rule's strict test passes, over the whole domain the paper states (searched
                            to its closed ranges, or the rest by a proof given in the chapter), under every
                            reading checked;
* ``holds where checked`` — no violation where checked, but the rest of the stated domain is neither
                            searched nor proved: checked on the chapter's inputs only, or on part of the
                            domain (the reason says which). Never counted as reproduced;
* ``conditional``         — only for an ambiguous or under-specified statement judged under its readings
                            (:class:`Readings`): it holds under some readings and not under others, each
                            reading's verdict shown;
* ``differs``             — the strict test fails but a stated looser test passes (same direction,
                            different size);
* ``not reproduced``      — the strict test fails (under every reading checked), or a counterexample inside
                            the stated domain is confirmed by an independent exact computation, however
                            many other points hold (the reason names where it still holds);
* ``not checkable``       — the paper gives nothing the code can compare with (the reason says why).

Every claim also has a *kind* (:data:`KINDS`), chosen when the claim is registered: what sort of
statement it is, or what sort of finding a failure of it is, so that a reader can tell a misprint from
a broken theorem. A quantified statement that is not reproduced is a ``false-statement``
(:func:`finding_kind`).
"""

from __future__ import annotations

import math
import operator
from dataclasses import asdict, dataclass

VERDICTS = (
    "reproduced",
    "holds where checked",
    "conditional",
    "differs",
    "not reproduced",
    "not checkable",
)
#: The verdict for "no violation where checked, the rest of the stated domain neither searched nor proved".
PARTLY = "holds where checked"

#: The kinds of finding. ``misprint``: a typo whose intended form is clear from the rest of the paper;
#: ``version-discrepancy``: the two text copies of the paper differ; ``proof-gap``: a statement that may
#: be true but whose proof does not establish it; ``false-statement``: a statement shown false by an
#: explicit computation; ``numerical``: a formula or number checked by computation; ``experiment``: a
#: measured result rerun; ``under-specified``: the paper leaves out what the result depends on.
KINDS = (
    "misprint",
    "version-discrepancy",
    "proof-gap",
    "false-statement",
    "numerical",
    "experiment",
    "under-specified",
)


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return kind


@dataclass(frozen=True)
class Verdict:
    status: str
    reason: str

    def __post_init__(self):
        if self.status not in VERDICTS:
            raise ValueError(f"status must be one of {VERDICTS}, got {self.status!r}")

    def as_dict(self):
        return asdict(self)


def _num(x) -> float:
    x = float(x)
    if math.isnan(x):
        raise ValueError("a claim's computed value is NaN; refusing to judge it")
    return x


def _fmt(x) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


class Rule:
    """Base class: ``describe()`` states the rule, ``judge(ours, paper)`` applies it."""

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def judge(self, ours, paper=None) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class Close(Rule):
    """|ours - paper| <= abs_tol + rel_tol * |paper|; a looser pair of tolerances gives 'differs'."""

    rel_tol: float = 0.0
    abs_tol: float = 0.0
    loose_rel: float | None = None
    loose_abs: float | None = None

    def describe(self):
        s = f"|ours − paper| ≤ {self.abs_tol:g} + {self.rel_tol:g}·|paper|"
        if self.loose_rel is not None or self.loose_abs is not None:
            s += f" (else 'differs' if ≤ {self.loose_abs or 0:g} + {self.loose_rel or 0:g}·|paper|)"
        return s

    def judge(self, ours, paper=None):
        if paper is None:
            raise ValueError("Close needs the paper's value")
        o, p = _num(ours), _num(paper)
        gap = abs(o - p)
        if gap <= self.abs_tol + self.rel_tol * abs(p):
            return Verdict(
                "reproduced", f"ours {_fmt(o)} vs paper {_fmt(p)}: gap {gap:.3g} within tolerance"
            )
        if self.loose_rel is not None or self.loose_abs is not None:
            if gap <= (self.loose_abs or 0.0) + (self.loose_rel or 0.0) * abs(p):
                return Verdict(
                    "differs",
                    f"ours {_fmt(o)} vs paper {_fmt(p)}: gap {gap:.3g} "
                    "outside the strict but inside the loose tolerance",
                )
        return Verdict(
            "not reproduced", f"ours {_fmt(o)} vs paper {_fmt(p)}: gap {gap:.3g} outside tolerance"
        )


_OPS = {"<=": operator.le, "<": operator.lt, ">=": operator.ge, ">": operator.gt, "==": operator.eq}


@dataclass(frozen=True)
class Compare(Rule):
    """ours <op> threshold, e.g. Compare('<=', 0.0, what='max excess of G_mu over the exact curve').

    ``loose`` is an optional second threshold: if the strict comparison fails but
    ``ours <op> loose`` holds, the verdict is 'differs'."""

    op: str
    threshold: float
    what: str = "our value"
    loose: float | None = None

    def __post_init__(self):
        if self.op not in _OPS:
            raise ValueError(f"op must be one of {sorted(_OPS)}, got {self.op!r}")

    def describe(self):
        s = f"{self.what} {self.op} {self.threshold:g}"
        if self.loose is not None:
            s += f" (else 'differs' if {self.op} {self.loose:g})"
        return s

    def judge(self, ours, paper=None):
        o = ours if isinstance(ours, bool) else _num(ours)
        if _OPS[self.op](o, self.threshold):
            return Verdict("reproduced", f"{self.what} = {_fmt(o)} {self.op} {self.threshold:g}")
        if self.loose is not None and _OPS[self.op](o, self.loose):
            return Verdict(
                "differs",
                f"{self.what} = {_fmt(o)} fails {self.op} {self.threshold:g} "
                f"but meets {self.op} {self.loose:g}",
            )
        return Verdict(
            "not reproduced", f"{self.what} = {_fmt(o)} fails {self.op} {self.threshold:g}"
        )


@dataclass(frozen=True)
class Holds(Rule):
    """A boolean computed by the code (e.g. 'every trade-off curve on the grid is convex').
    True -> reproduced, False -> not reproduced. ``what`` states the tested proposition."""

    what: str

    def describe(self):
        return f"computed check: {self.what}"

    def judge(self, ours, paper=None):
        if not isinstance(ours, (bool,)) and type(ours).__name__ != "bool_":
            raise ValueError(f"Holds needs a boolean computed value, got {ours!r}")
        if bool(ours):
            return Verdict("reproduced", f"holds: {self.what}")
        return Verdict("not reproduced", f"fails: {self.what}")


@dataclass(frozen=True)
class NotCheckable(Rule):
    reason: str

    def describe(self):
        return "none (not checkable)"

    def judge(self, ours=None, paper=None):
        return Verdict("not checkable", self.reason)


@dataclass(frozen=True)
class Readings(Rule):
    """Apply ``rule`` to the value computed under each stated reading of an ambiguous claim.

    ``ours`` is a mapping reading -> value (the same ``paper`` value for all; ``None`` for a reading that is
    stated but not computed, judged *not checkable*: never counted as holding nor as failing). Verdict:
    ``reproduced`` if the strict test passes under every reading; ``holds where checked`` if it passes under
    every reading computed and some are not computed; ``conditional`` if it passes under some computed
    readings and fails under others (the reason names them); otherwise the best verdict of the rule over the
    computed readings (``differs`` or ``not reproduced``; the reason names the readings not computed)."""

    rule: Rule
    what: str = "reading"

    def describe(self):
        return f"{self.rule.describe()}, under each {self.what}"

    def each(self, ours, paper=None) -> dict:
        """The rule's verdict under each reading (*not checkable* where not computed)."""
        if not isinstance(ours, dict) or not ours:
            raise ValueError(
                f"Readings needs a non-empty mapping {self.what} -> value, got {ours!r}"
            )
        return {
            k: Verdict("not checkable", "not computed under this reading (the note says why)")
            if v is None
            else self.rule.judge(v, paper)
            for k, v in ours.items()
        }

    def judge(self, ours, paper=None):
        return self.combine(self.each(ours, paper))

    def combine(self, verdicts: dict) -> Verdict:
        """The claim's verdict from its verdict under each reading (:meth:`each`)."""
        ok = [k for k, v in verdicts.items() if v.status == "reproduced"]
        unknown = [k for k, v in verdicts.items() if v.status == "not checkable"]
        detail = "; ".join(f"{k}: {v.status} ({v.reason})" for k, v in verdicts.items())
        if len(ok) == len(verdicts):
            return Verdict("reproduced", detail)
        if ok and len(ok) + len(unknown) == len(
            verdicts
        ):  # every reading computed holds, the others unknown
            return Verdict(
                PARTLY,
                f"holds under every reading computed ({', '.join(ok)}); not computed under "
                f"{', '.join(unknown)} — {detail}",
            )
        if ok:
            return Verdict("conditional", f"holds under {', '.join(ok)} only — {detail}")
        if len(unknown) == len(verdicts):
            return Verdict("not checkable", detail)
        best = (
            "differs" if any(v.status == "differs" for v in verdicts.values()) else "not reproduced"
        )
        if unknown:
            return Verdict(
                best,
                f"fails under every reading computed; not computed under {', '.join(unknown)} — {detail}",
            )
        return Verdict(best, detail)


def over_domain(
    verdict: Verdict, domain, search=None, confirmed: bool | None = None, proof: str | None = None
) -> Verdict:
    """The verdict a claim gets over the domain its paper states (:mod:`gspa.claims.domain`), from the verdict
    of its rule on the values the chapter computed:

    * a statement about one value (:meth:`ClaimDomain.point`): the rule's verdict;
    * ``reproduced`` stands only where a :class:`~gspa.claims.domain.Search` covered the whole (closed)
      stated domain and found no point with a negative margin, or where a ``proof`` given in the chapter
      covers what the search did not; a claim with a ``proof`` is said to be *proved* (its search, which
      found nothing, is then a numerical check of the proof, whether or not it covered the domain);
    * no domain recorded, no search, or a search over part of the domain that found nothing:
      ``holds where checked`` — the reason says "checked on the chapter's inputs only" or names the part
      searched; the rest of the stated domain is neither searched nor proved;
    * the search found a violation: it must have been put to an independent exact computation
      (``confirmed``; ``None`` is an error: a violation nobody re-verified is neither a counterexample nor
      nothing). Confirmed, the statement is ``not reproduced`` however many points hold — the reason names
      the part of the searched points where it still holds (:meth:`~gspa.claims.domain.Search.holding_text`).
      Not confirmed (``False``): the margin and the independent computation disagree, which is a bug in
      one of them, never a verdict — an error;
    * a rule's ``not reproduced``, ``differs`` or ``conditional`` is never raised to ``reproduced``;
    * a search that finds a confirmed violation of a claim stated with a ``proof`` is an error (the proof
      or the computation is wrong)."""
    if domain is None:
        if verdict.status != "reproduced":
            return verdict
        return Verdict(
            PARTLY,
            f"{verdict.reason} — checked on the chapter's inputs only: the domain the paper "
            "states for this claim is not recorded, so nothing beyond them is covered",
        )
    if domain.is_point:
        if search is not None:
            raise ValueError(
                "a claim about a single value (ClaimDomain.point) has no domain to search"
            )
        return verdict
    if proof is not None and (not isinstance(proof, str) or not proof.strip()):
        raise ValueError(f"proof must be the text of a proof, got {proof!r}")
    if search is None:
        if verdict.status in ("conditional", "differs"):
            return Verdict(
                verdict.status,
                f"{verdict.reason} — checked on the chapter's inputs only, not searched "
                f"over the stated domain ({domain.describe()})",
            )
        if verdict.status != "reproduced":
            return verdict
        return Verdict(
            PARTLY,
            f"{verdict.reason} — checked on the chapter's inputs only, not searched over "
            f"the stated domain ({domain.describe()})",
        )
    where = f"searched {search.region.describe()} ({search.evaluations} points, seed {search.seed})"
    if search.violations == 0:
        if verdict.status != "reproduced":
            return verdict
        if (
            proof is not None
        ):  # proved: the search is a numerical check of the proof, not the evidence
            rest = "the stated domain" if search.covers else "the rest of the stated domain"
            return Verdict(
                "reproduced",
                f"{verdict.reason}; proved: {rest} ({domain.describe()}) by the proof given in the "
                f"chapter, and no violation where computed ({where}, worst {search.worst_text()})",
            )
        if search.covers:
            return Verdict(
                "reproduced",
                f"{verdict.reason}; no violation over the stated domain: {where}, worst "
                f"{search.worst_text()}",
            )
        return Verdict(
            PARTLY,
            f"{verdict.reason}; no violation in the part searched: {where}, worst "
            f"{search.worst_text()}; the rest of the stated domain ({domain.describe()}) is "
            "neither searched nor proved",
        )
    fails = f"fails at {search.violations} of {search.evaluations} points searched ({where}); worst {search.worst_text()}"
    if confirmed is None:
        raise ValueError(
            f"the search {fails}: an independent exact computation must re-verify the violation "
            "before the claim is judged (pass confirmed=True or False)"
        )
    if not confirmed:
        raise ValueError(
            f"the search {fails}, but the independent exact computation does not confirm it: the "
            "margin and the re-verification disagree, so one of them is wrong (a margin computed on "
            "a cover of the stated object must be re-evaluated on the object itself)"
        )
    if proof is not None:
        raise ValueError(
            f"the search found {search.violations} violation(s) ({search.worst_text()}) of a claim "
            "stated with a proof: the proof or the computation is wrong"
        )
    if (
        verdict.status == "conditional"
    ):  # readings: the search speaks for the reading it searched only
        return Verdict(
            "conditional",
            f"{verdict.reason}; the search of the stated domain {fails}, confirmed by an "
            f"independent exact computation; {search.holding_text()}",
        )
    return Verdict(
        "not reproduced",
        f"{verdict.reason}; {fails}, confirmed by an independent exact computation; "
        f"{search.holding_text()}",
    )


def finding_kind(kind: str, status: str, domain=None) -> str:
    """The kind a claim is listed with: a quantified statement (a domain with parameters) that is not
    reproduced — shown false by explicit computation — and was registered as ``numerical`` is a
    ``false-statement``; a kind that already says what the failure is (a misprint, a version discrepancy,
    a proof gap, an experiment, an under-specified statement) is kept, and so is every other claim's. A claim
    registered as a ``false-statement`` that nothing in this build shows false (neither *not reproduced* nor
    *conditional*) is listed as ``numerical``."""
    check_kind(kind)
    if not isinstance(status, str) or status not in VERDICTS:
        raise ValueError(f"status must be one of the verdicts {VERDICTS}, got {status!r}")
    if domain is not None and not isinstance(getattr(domain, "is_point", None), bool):
        raise ValueError(f"domain must be a ClaimDomain or None, got {type(domain).__name__}")
    quantified = domain is not None and not domain.is_point
    if status == "not reproduced" and quantified and kind == "numerical":
        return "false-statement"
    if kind == "false-statement" and status not in ("not reproduced", "conditional"):
        return "numerical"  # nothing was shown false (in this build, with these parameters)
    return kind
