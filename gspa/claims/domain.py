"""The domain a claim is stated for, and the search for its worst case there.

A paper states most claims broadly — "for any budgets", "for all n ≥ 2" — while a chapter computes on the
inputs it chose, usually the paper's figure grid. A verdict may only speak for the inputs that were
checked, so every claim records

* its :class:`ClaimDomain`: the parameters its statement quantifies over, each with the range the paper states
  (``stated``) and, where the paper leaves a range open, how the book closes it as a referee would
  (``closed_by``); a claim about a single number (a table entry, a value at the paper's settings) has
  :meth:`ClaimDomain.point`;
* a :class:`Search` from :func:`worst_case`: the region searched (the whole closed domain, or the part
  the chapter can afford), the number of evaluations, the worst point and its *margin* (``>= 0``: the claim
  holds there; ``< 0``: it fails there, by that much in the claim's own units).

:func:`gspa.claims.rules.over_domain` turns these into the verdict the ledger shows: *reproduced* only
where the search covered the stated domain and found no violation.

The search is reproducible (a seed and a fixed evaluation budget): a coarse grid in each parameter's
natural scale (log for budgets and sizes), points of a scrambled Sobol sequence, then local refinement (Nelder–Mead in the unit
cube of the transformed coordinates) from the worst points found.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

SCALES = ("log", "linear", "int", "choice")
MAX_BUDGET = 100_000


def _fmt(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    if isinstance(x, (float, np.floating)):
        return (
            "∞" if math.isinf(x) and x > 0 else ("−∞" if math.isinf(x) else f"{float(x) + 0.0:.4g}")
        )
    return str(x)


_GREEK = {
    "eps": ("ε", r"\varepsilon"),
    "delta": ("δ", r"\delta"),
    "alpha": ("α", r"\alpha"),
    "beta": ("β", r"\beta"),
    "mu": ("μ", r"\mu"),
    "xi": ("ξ", r"\xi"),
    "sigma": ("σ", r"\sigma"),
    "gamma": ("γ", r"\gamma"),
    "lambda": ("λ", r"\lambda"),
}
_DIGITS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_WORDS = {"max": r"{\max}", "min": r"{\min}", "lo": r"{\mathrm{lo}}", "hi": r"{\mathrm{hi}}"}


def _symbol(name: str) -> str:
    r"""How a parameter's name shows on the page: the symbol it stands for where it is one (``eps`` ε,
    ``eps0`` ε₀, ``eps_l`` $\varepsilon_l$, ``n_p`` $n_p$, ``delta_max`` $\delta_{\max}$, ``delta_prime`` δ′),
    else the name itself (``seed``, ``n_share``, ``ratio_m``)."""
    base, _, sub = name.partition("_")
    digits = ""
    if not sub and base[-1:].isdigit() and base.rstrip("0123456789") in _GREEK:
        base, digits = base.rstrip("0123456789"), base[len(base.rstrip("0123456789")) :]
    greek = _GREEK.get(base)
    if not (greek or (len(base) == 1 and base.isalpha())):
        return name
    if digits:
        return greek[0] + digits.translate(_DIGITS)
    if not sub:
        return greek[0] if greek else name
    if sub == "prime":
        return (greek[0] if greek else base) + "′"
    if not sub.isalnum() or (len(sub) > 3 and sub not in _WORDS) or (not greek and len(sub) > 2):
        return name
    index = _WORDS.get(sub) or (
        sub if len(sub) == 1 else ("{%s}" % sub if len(sub) == 2 else r"{\mathrm{%s}}" % sub)
    )
    return f"${greek[1] if greek else base}_{index}$"


def _found(where: str) -> str:
    return f" ({where})" if where else ""


def _point_text(pt: dict) -> str:
    return ", ".join(f"{_symbol(k)} = {_fmt(v)}" for k, v in pt.items())


@dataclass(frozen=True)
class Param:
    """One quantified parameter: ``name`` (as the claim's margin function takes it), its range
    [``low``, ``high``] and ``scale`` (``log``: searched in log scale, e.g. budgets and sizes; ``linear``;
    ``int``: whole numbers in log scale; ``choice``: one of ``choices``). ``stated`` is how the paper
    states the range, with where; ``closed_by`` how the book closes a range the paper leaves open (or
    narrows one it cannot compute over), and why."""

    name: str
    low: float = 0.0
    high: float = 1.0
    scale: str = "log"
    choices: tuple = ()
    stated: str = ""
    closed_by: str = ""

    def __post_init__(self):
        if not self.name or not isinstance(self.name, str):
            raise ValueError(f"Param name must be a non-empty string, got {self.name!r}")
        if self.scale not in SCALES:
            raise ValueError(
                f"Param {self.name!r}: scale must be one of {SCALES}, got {self.scale!r}"
            )
        if self.scale == "choice":
            if not self.choices:
                raise ValueError(f"Param {self.name!r}: a 'choice' parameter needs choices")
            return
        lo, hi = float(self.low), float(self.high)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
            raise ValueError(
                f"Param {self.name!r}: the searched range must be finite with low <= high, "
                f"got [{self.low!r}, {self.high!r}] (state an open range in 'stated', close it here)"
            )
        if self.scale in ("log", "int") and lo <= 0:
            raise ValueError(
                f"Param {self.name!r}: a {self.scale}-scale range needs low > 0, got {self.low!r}"
            )

    # unit-cube coordinates ------------------------------------------------------------------------
    def at(self, u: float):
        """The value at unit coordinate u in [0, 1]."""
        u = min(1.0, max(0.0, float(u)))
        if self.scale == "choice":
            return self.choices[min(len(self.choices) - 1, int(u * len(self.choices)))]
        lo, hi = float(self.low), float(self.high)
        if self.scale == "linear":
            return min(hi, lo + u * (hi - lo))
        x = min(hi, max(lo, math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo)))))
        return int(round(x)) if self.scale == "int" else x

    def grid(self, k: int) -> list[float]:
        """k unit coordinates spread over the range (all choices for a choice parameter)."""
        if self.scale == "choice":
            return [(i + 0.5) / len(self.choices) for i in range(len(self.choices))]
        if self.low == self.high:
            return [0.0]
        return list(np.linspace(0.0, 1.0, max(2, k)))

    @property
    def symbol(self) -> str:
        """The parameter's name as the page shows it (ε, $\varepsilon_l$, $n_p$; see :func:`_symbol`)."""
        return _symbol(self.name)

    def region(self) -> str:
        if self.scale == "choice":
            return f"{self.symbol} ∈ {{{', '.join(map(str, self.choices))}}}"
        if self.low == self.high:
            return f"{self.symbol} = {_fmt(self.at(0.0))}"
        return f"{self.symbol} ∈ [{_fmt(self.at(0.0))}, {_fmt(self.at(1.0))}]" + (
            " (log scale)" if self.scale != "linear" else ""
        )

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "low": None if self.scale == "choice" else float(self.low),
            "high": None if self.scale == "choice" else float(self.high),
            "scale": self.scale,
            "choices": [str(c) for c in self.choices],
            "stated": self.stated,
            "closed_by": self.closed_by,
        }


@dataclass(frozen=True)
class ClaimDomain:
    """What a claim quantifies over: its parameters, and ``stated``, the paper's words of quantification
    and where they stand (in both text copies where they exist)."""

    params: tuple = ()
    stated: str = ""

    def __post_init__(self):
        object.__setattr__(self, "params", tuple(self.params))
        for p in self.params:
            if not isinstance(p, Param):
                raise ValueError(f"ClaimDomain params must be Param objects, got {p!r}")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"ClaimDomain has repeated parameter names {names}")
        if not self.stated:
            raise ValueError(
                "ClaimDomain needs 'stated': the paper's words of quantification and where they stand"
            )

    @classmethod
    def point(cls, stated: str) -> "ClaimDomain":
        """A statement about one value (a table entry, a number at the paper's settings): nothing is
        quantified, so computing that value covers it."""
        return cls((), stated)

    @property
    def is_point(self) -> bool:
        return not self.params

    def describe(self) -> str:
        if self.is_point:
            return f"a single value ({self.stated})"
        return "; ".join(p.region() for p in self.params)

    def as_dict(self) -> dict:
        return {
            "stated": self.stated,
            "params": [p.as_dict() for p in self.params],
            "text": self.describe(),
        }


@dataclass(frozen=True)
class Search:
    """What :func:`worst_case` did: the ``region`` searched (a :class:`ClaimDomain` over the searched ranges),
    the number of ``evaluations``, the ``worst`` point and its ``margin``, how many evaluated points
    violate the claim (``violations``; margin < 0) and the ``seed``. ``covers`` says whether the region is
    the whole (closed) stated domain."""

    region: ClaimDomain
    evaluations: int
    worst: dict
    margin: float
    violations: int
    seed: int
    covers: bool
    points: list = field(
        default_factory=list, repr=False, compare=False
    )  # every (point, margin) evaluated
    derived: tuple = field(
        default=(), repr=False, compare=False
    )  # (name, function of a point) for holding_text
    failures: tuple = field(
        default=(), repr=False, compare=False
    )  # (point, where) found failing by the chapter outside the search (with_failures)

    def with_failures(self, points, where: str) -> "Search":
        """This search, with ``points`` — each a dict of the searched parameters (or, where the search
        names derived quantities, of those) at which the chapter found the claim failing outside the
        search: on its own grid or tables, or an off-grid counterexample — added to the failures that
        :meth:`holding_text` keeps out of the region it names. ``where`` says where they were found
        (e.g. "the off-grid case"), for the reason to name them. The evaluations and violations of the
        search itself are unchanged. Calls chain; no point is a no-op."""
        if not isinstance(where, str) or not where.strip():
            raise ValueError(f"where must say where the failures were found, got {where!r}")
        if isinstance(points, dict) or not isinstance(points, (list, tuple)):
            raise ValueError(
                f"points must be a list of parameter dicts, got {type(points).__name__}"
            )
        names = [p.name for p in self.region.params]
        derived = [name for name, _ in self.derived]
        added = []
        for pt in points:
            if not isinstance(pt, dict):
                raise ValueError(f"a failing point must be a dict of parameter values, got {pt!r}")
            if not (set(names) <= set(pt) or (derived and set(derived) <= set(pt))):
                need = " or ".join(
                    ", ".join(group) for group in (names, derived) if group
                )  # fmt: skip
                raise ValueError(f"the failing point {pt} must give {need}")
            added.append((dict(pt), where.strip()))
        return replace(self, failures=self.failures + tuple(added))

    def violating(self, where=None) -> list[dict]:
        """The points where the claim fails (margin < 0), worst first; with ``where(point) -> bool``, only
        those it accepts (e.g. the ones small enough for an exact computation to re-verify)."""
        return [
            pt
            for pt, m in sorted(self.points, key=lambda t: t[1])
            if m < 0 and (where is None or where(pt))
        ]

    def holding_text(self) -> str:
        """Where the claim still holds among the points searched, as one stated rule finds it: for each
        parameter, the searched points below the smallest (or above the largest) value at which a failure
        is known all hold; the side with the most points is named, with where the first failure comes (for
        a choice parameter, the choices at which nothing fails). The failures known are the violations
        the search found and those the chapter found elsewhere (:meth:`with_failures`): the region named
        contains none of them. Where every side of every parameter holds one, it says "no simple region"
        and names the chapter's failures."""
        names = {name for name, _ in self.derived}

        def extra(pt):
            if names <= set(pt) and not {p.name for p in self.region.params} <= set(pt):
                return pt  # a failure the chapter gives by its derived quantities
            return pt | {name: float(fn(**pt)) for name, fn in self.derived}

        bad = [(extra(pt), "") for pt, m in self.points if m < 0]
        bad += [(extra(pt), where) for pt, where in self.failures]
        good = [extra(pt) for pt, m in self.points if m >= 0]
        if not good:
            return "no searched point holds"
        best = None
        # quantities derived from a point (e.g. the largest budget) say more than a labelled coordinate whose
        # role another labelling of the same input can swap; when given, they alone are used
        named = [Param(name, 1.0, 1.0, "linear") for name, _ in self.derived] or self.region.params
        for p in named:
            if p.scale == "choice":
                failing = {str(pt[p.name]) for pt, _ in bad}
                ok = [c for c in p.choices if str(c) not in failing]
                n = sum(str(pt[p.name]) in map(str, ok) for pt in good)
                if ok and n and (best is None or n > best[0]):
                    best = (n, f"{p.symbol} ∈ {{{', '.join(map(str, ok))}}}", "")
                continue
            at = sorted(((float(pt[p.name]), where) for pt, where in bad), key=lambda t: t[0])
            (lo, lo_where), (hi, hi_where) = at[0], at[-1]
            below = [float(pt[p.name]) for pt in good if float(pt[p.name]) < lo]
            above = [float(pt[p.name]) for pt in good if float(pt[p.name]) > hi]
            if below and (best is None or len(below) > best[0]):
                best = (
                    len(below),
                    f"{p.symbol} ≤ {_fmt(max(below))}",
                    f"; the first violation at {p.symbol} = {_fmt(lo)}" + _found(lo_where),
                )
            if above and (best is None or len(above) > best[0]):
                best = (
                    len(above),
                    f"{p.symbol} ≥ {_fmt(min(above))}",
                    f"; the last violation at {p.symbol} = {_fmt(hi)}" + _found(hi_where),
                )
        wheres = list(dict.fromkeys(where for _, where in self.failures))
        if best is None:
            text = (
                f"no simple region: it holds at {len(good)} of the {len(self.points)} points searched, "
                "but every range of one parameter contains a failure"
            )
            if self.failures:
                shown = "; ".join(f"{_point_text(pt)} ({where})" for pt, where in self.failures[:3])
                more = len(self.failures) - 3
                text += f" — it also fails at {shown}" + (f" and {more} more" if more > 0 else "")
            return text
        n, part, edge = best
        also, k = "", len(self.failures)
        if k and not all(f"({w})" in edge for w in wheres):  # the edge may name them already
            which = "the failing point" if k == 1 else f"the {k} failing points"
            also = (
                f"; it excludes {which} the chapter found beyond the search ({', '.join(wheres)})"
            )
        return (
            f"holds at every searched point with {part} ({n} of {len(self.points)} points){edge}{also} — a "
            "description of the points searched, not a proof for that region"
        )

    def worst_text(self) -> str:
        at = ", ".join(f"{_symbol(k)} = {_fmt(v)}" for k, v in self.worst.items())
        return f"margin {_fmt(self.margin)} at {at}" if at else f"margin {_fmt(self.margin)}"

    def as_dict(self) -> dict:
        return {
            "region": self.region.describe(),
            "evaluations": self.evaluations,
            "worst": {
                k: (v if isinstance(v, (str, int)) else float(v)) for k, v in self.worst.items()
            },
            "worst_text": self.worst_text(),
            "margin": float(self.margin),
            "violations": self.violations,
            "seed": self.seed,
            "covers": self.covers,
        }


def _value(margin, point: dict) -> float:
    m = float(margin(**point))
    if math.isnan(m):
        raise ValueError(f"the claim's margin is NaN at {point}; refusing to search over it")
    return m


def worst_case(
    margin,
    domain: ClaimDomain,
    *,
    budget: int = 200,
    seed: int = 0,
    region: ClaimDomain | None = None,
    refine: bool = True,
    progress: bool = False,
    derived: dict | None = None,
) -> Search:
    """Search ``region`` (default: the whole ``domain``) for the point where ``margin(**point)`` is
    smallest, with at most ``budget`` evaluations: about 40 % on a grid (the same number of values per
    parameter, in each one's scale), 30 % at the points of a scrambled Sobol sequence (``seed``), the rest refining the three worst
    points found by Nelder–Mead in the unit cube of the searched ranges (choices held fixed). Returns a
    :class:`Search`; ``covers`` is true when ``region`` is the stated domain itself. ``derived`` names
    quantities computed from a point (e.g. ``{"max εᵢ": lambda n, f, eps_lo, eps_hi: max(eps_lo, eps_hi)}``)
    that :meth:`Search.holding_text` may use to say where the claim still holds."""
    from gspa.util import validate as V

    budget = V.integer("budget", budget, low=1, high=MAX_BUDGET)
    seed = V.integer("seed", seed, low=0)
    if not isinstance(domain, ClaimDomain):
        raise ValueError(f"domain must be a ClaimDomain, got {domain!r}")
    reg = domain if region is None else region
    if not isinstance(reg, ClaimDomain) or [p.name for p in reg.params] != [
        p.name for p in domain.params
    ]:
        raise ValueError(
            "region must be a ClaimDomain over the same parameters as domain, in the same order"
        )
    covers = region is None or all(
        (a.scale == "choice" and set(b.choices) >= set(a.choices))
        or (a.scale != "choice" and b.low <= a.low and b.high >= a.high)
        for a, b in zip(domain.params, reg.params)
    )
    params = reg.params
    seen: list[tuple[dict, float]] = []

    def ev(u) -> float:
        if len(seen) >= budget:
            raise _Spent
        point = {p.name: p.at(x) for p, x in zip(params, u)}
        m = _value(margin, point)
        seen.append((point, m))
        return m

    if not params:
        ev([])
    else:
        d = len(params)
        numeric = [p for p in params if p.scale != "choice"]
        per = max(
            2,
            int(
                math.floor(
                    (
                        0.4
                        * budget
                        / max(1, np.prod([len(p.choices) for p in params if p.scale == "choice"]))
                    )
                    ** (1 / max(1, len(numeric)))
                )
            ),
        )
        axes = [p.grid(per) for p in params]
        grid = np.array(np.meshgrid(*axes, indexing="ij")).reshape(d, -1).T
        rng = np.random.default_rng(seed)
        if len(grid) > budget:
            grid = grid[rng.choice(len(grid), budget, replace=False)]
        for u in grid:
            ev(u)
        n_rand = max(0, min(budget - len(seen), int(0.3 * budget)))
        if n_rand:
            from scipy.stats import qmc

            # a scrambled Sobol sequence: spread over the cube far more evenly than independent draws, so
            # thin regions (a narrow band of one parameter) are less likely to be missed; seeded
            # the first n_rand points of a 2^m-point sequence: the same points as .random(n_rand), without
            # scipy's warning that a count other than a power of 2 loses the balance properties
            m = max(0, math.ceil(math.log2(n_rand)))
            for u in qmc.Sobol(d, scramble=True, seed=rng).random_base2(m)[:n_rand]:
                ev(u)
        left = budget - len(seen)
        if refine and numeric and left > 0:
            from scipy.optimize import minimize

            starts = sorted(range(len(seen)), key=lambda i: seen[i][1])[:3]
            units = [[_unit(p, seen[i][0][p.name]) for p in params] for i in starts]
            for j, u0 in enumerate(units):
                maxfev = (budget - len(seen)) // (len(units) - j)
                if maxfev < d + 2:
                    break
                fixed = {
                    k: u0[k] for k, p in enumerate(params) if p.scale == "choice" or p.low == p.high
                }
                free = [k for k in range(d) if k not in fixed]

                def f(x, fixed=fixed, free=free):
                    u = np.empty(d)
                    for k, v in fixed.items():
                        u[k] = v
                    u[free] = np.clip(x, 0.0, 1.0)
                    return ev(u)

                try:
                    minimize(
                        f,
                        np.array([u0[k] for k in free]),
                        method="Nelder-Mead",
                        options={"maxfev": maxfev, "xatol": 1e-4, "fatol": 0.0},
                    )
                except _Spent:
                    break
    worst_point, worst = min(seen, key=lambda t: t[1])
    return Search(
        reg,
        len(seen),
        worst_point,
        worst,
        sum(m < 0 for _, m in seen),
        seed,
        covers,
        seen,
        tuple((derived or {}).items()),
    )


class _Spent(Exception):
    """The evaluation budget is used up (raised inside the optimizer to stop it exactly there)."""


def _unit(p: Param, value) -> float:
    """The unit coordinate of ``value`` (inverse of :meth:`Param.at`)."""
    if p.scale == "choice":
        return (p.choices.index(value) + 0.5) / len(p.choices)
    lo, hi = float(p.low), float(p.high)
    if lo == hi:
        return 0.0
    if p.scale == "linear":
        return (float(value) - lo) / (hi - lo)
    return (math.log(float(value)) - math.log(lo)) / (math.log(hi) - math.log(lo))
