"""Rules that turn a computed value into a verdict on a claim of the paper.

A verdict is never typed by hand: it is what a stated rule returns for the value computed in the
same build. The five verdicts:

* ``reproduced``      — the rule's strict test passes (under every reading of the claim checked);
* ``conditional``     — the claim holds under some of the stated readings of an ambiguous or
                        under-specified statement and not under others (:class:`Readings` says which);
* ``differs``         — the strict test fails but a stated looser test passes (same direction,
                        different size);
* ``not reproduced``  — both fail (under every reading checked);
* ``not checkable``   — the paper gives nothing the code can compare with (the reason says why).

Every claim also has a *kind* (:data:`KINDS`), chosen when the claim is registered: what sort of
statement it is, or what sort of finding a failure of it is, so that a reader can tell a misprint from
a broken theorem.
"""
from __future__ import annotations

import math
import operator
from dataclasses import asdict, dataclass

VERDICTS = ("reproduced", "conditional", "differs", "not reproduced", "not checkable")

#: The kinds of finding. ``misprint``: a typo whose intended form is clear from the rest of the paper;
#: ``version-discrepancy``: the two text copies of the paper differ; ``proof-gap``: a statement that may
#: be true but whose proof does not establish it; ``false-statement``: a statement shown false by an
#: explicit computation; ``numerical``: a formula or number checked by computation; ``experiment``: a
#: measured result rerun; ``under-specified``: the paper leaves out what the result depends on.
KINDS = ("misprint", "version-discrepancy", "proof-gap", "false-statement", "numerical", "experiment",
         "under-specified")


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
            s += (f" (else 'differs' if ≤ {self.loose_abs or 0:g} + "
                  f"{self.loose_rel or 0:g}·|paper|)")
        return s

    def judge(self, ours, paper=None):
        if paper is None:
            raise ValueError("Close needs the paper's value")
        o, p = _num(ours), _num(paper)
        gap = abs(o - p)
        if gap <= self.abs_tol + self.rel_tol * abs(p):
            return Verdict("reproduced", f"ours {_fmt(o)} vs paper {_fmt(p)}: gap {gap:.3g} within tolerance")
        if self.loose_rel is not None or self.loose_abs is not None:
            if gap <= (self.loose_abs or 0.0) + (self.loose_rel or 0.0) * abs(p):
                return Verdict("differs", f"ours {_fmt(o)} vs paper {_fmt(p)}: gap {gap:.3g} "
                                          "outside the strict but inside the loose tolerance")
        return Verdict("not reproduced", f"ours {_fmt(o)} vs paper {_fmt(p)}: gap {gap:.3g} outside tolerance")


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
            return Verdict("differs", f"{self.what} = {_fmt(o)} fails {self.op} {self.threshold:g} "
                                      f"but meets {self.op} {self.loose:g}")
        return Verdict("not reproduced", f"{self.what} = {_fmt(o)} fails {self.op} {self.threshold:g}")


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

    ``ours`` is a mapping reading -> value (the same ``paper`` value for all). Verdict:
    ``reproduced`` if the strict test passes under every reading, ``conditional`` if it passes under
    some but not all (the reason names them), otherwise the best verdict of the rule over the
    readings (``differs`` or ``not reproduced``)."""
    rule: Rule
    what: str = "reading"

    def describe(self):
        return f"{self.rule.describe()}, under each {self.what}"

    def judge(self, ours, paper=None):
        if not isinstance(ours, dict) or not ours:
            raise ValueError(f"Readings needs a non-empty mapping {self.what} -> value, got {ours!r}")
        verdicts = {k: self.rule.judge(v, paper) for k, v in ours.items()}
        ok = [k for k, v in verdicts.items() if v.status == "reproduced"]
        detail = "; ".join(f"{k}: {v.status} ({v.reason})" for k, v in verdicts.items())
        if len(ok) == len(verdicts):
            return Verdict("reproduced", detail)
        if ok:
            return Verdict("conditional", f"holds under {', '.join(ok)} only — {detail}")
        best = "differs" if any(v.status == "differs" for v in verdicts.values()) else "not reproduced"
        return Verdict(best, detail)
