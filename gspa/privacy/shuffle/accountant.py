"""The shuffle accountant's entry point: a certified privacy profile for n users with personalized budgets,
any declared randomizer (gspa.privacy.randomizers), either variant, any reduction, over one or more rounds.
Derivations: the accountant chapter (book/chapters/accountant/using) and each randomizer's declaration.

**The pair.** The differing user n reports, under input x^b, a clone-type report with probability
``weight`` (then its own bit with probability q = e^L/(1 + e^L), the other with 1 - q), a report that
is the same under both inputs otherwise, and with probability delta_n a report that reveals its
input. Every other user i is a clone of Q^0 or of Q^1 with probability t_i each; M ~ sum_i
Bernoulli(2 t_i) counts the clones (:mod:`gspa.privacy.shuffle.clones`), and given M = m, the count of 0s among
the clone reports is Binomial(m, 1/2). The observer learns (at most) the counts, so

    delta(eps) = delta_n + (1 - delta_n) * weight * E[H_M(eps; L)],

where H_m is the hockey-stick divergence of the binomial pair with m clones (:func:`gspa.privacy.numerics.hockey_upper`).
Conditioning on whether the differing user's report is clone-type is free because that event has
the same probability under both inputs and leaves the clone counts' law unchanged.


**Variants.** ``"randomized"`` keeps the differing user's own randomization (L = its budget);
``"revealing"`` lets its clone-type report reveal its input (L = inf), which is the pair the paper's
proof analyses (rho'_0, rho'_1 of eq. (17)); it is weaker but valid. For binary randomized response and
Lemma 4's quaternary randomizer the clone-type component is the input itself, so the revealing pair also
covers the protocol in which the differing user reports its input in the clear (enumerated by
``gspa.privacy.exact.shuffled_profile(..., variant="revealing")``; ``lower_bound(..., variant="revealing")``
is a lower bound for it). For k-ary randomized response (lambda = 1: the component is the input w.p.
(1 + e^eps_n)/(e^eps_n + k - 1), else one of the k - 2 other symbols) and Laplace it is not, and k-ary RR's
revealing pair lies below that clear protocol (tests/privacy/test_contract.py): there it covers the
randomized protocol only. In both variants, delta_n = max delta_i
counts fully: the delta event emits an outcome that no clone emits (eq. (17) treats it as
indistinguishable, which is wrong), so delta(eps) >= max delta_i always.

**Which user differs.** delta(eps) above is monotone in the clone law (one more clone is a
post-processing), in L, in weight (for the families here weight grows with eps_n) and in delta_n; the
t_i shrink as eps_n grows. So pairing the largest budget and largest delta_i with the clone law of all
users but the one with the largest clone probability gives one pair that dominates every choice.

**What is counted.** Every delta returned is an upper bound for the pair: the clone law's errors
(:meth:`gspa.privacy.shuffle.clones.CloneLaw.upper`), a relative allowance ``SF_REL`` on every binomial tail (Boost's
regularized incomplete beta through scipy; the largest relative error measured against 30-digit
mpmath over a grid of counts up to 10^9 is 5.3e-14, see ``tests/privacy/test_accountant.py``), the
arithmetic of the per-count formula, underflow (``TINY``), and epsilon(delta) is rounded up. The
one ingredient that is measured rather than proven is the accuracy of Boost's incomplete beta
function: the numbers are certified modulo that measured accuracy. The exhaustive enumeration of the
real shuffled protocols in :mod:`gspa.privacy.exact` is the test that these numbers are bounds on the
protocol, not only on the pair.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gspa.privacy import randomizers
from gspa.privacy.numerics import halves
from gspa.privacy.profiles import (
    VARIANTS,
    BestOf,
    certified_tradeoff,
    check_budgets,
    check_histogram,
)
from gspa.privacy.shuffle.cells import MAX_USERS as CELLS_MAX_USERS
from gspa.privacy.shuffle.cells import LaplaceCells, cells_pair
from gspa.privacy.shuffle.clones import clone_law
from gspa.privacy.shuffle.composition import compose
from gspa.util import validate as V
from gspa.privacy.shuffle.pairs import (
    _ROUND_DOWN,
    LaplaceBands,
    LaplaceLocal,
    ReducedPair,
    _kary_pair,
    _krr_terms,
    _others,
    clone_probability,
)


def personalized_pair(
    eps,
    delta=None,
    variant: str = "randomized",
    *,
    randomizer: str = "binary-rr",
    k: int | None = None,
    counts=None,
    rounds: int = 1,
    reduction: str | None = None,
):
    """A certified reduced pair for the shuffle of n users with local budgets (eps_i, delta_i) that
    covers every choice of the differing user and every data set. ``randomizer``: one of the declarations of
    :mod:`gspa.privacy.randomizers` (``gspa.privacy.randomizers.NAMES``; each says what it covers and why).
    Returns an object with ``delta(eps)`` and ``epsilon(delta)``.

    ``counts``: budgets given as a histogram — ``eps[j]`` (and ``delta[j]``) is the budget of
    ``counts[j]`` users, n = sum(counts) — so the cost grows with the number of distinct budgets and the
    square roots of their counts, not with n (a histogram whose sum of sqrt(counts[j]) exceeds
    ``gspa.privacy.profiles.HISTOGRAM_SPREAD_MAX`` is refused: memory grows with that sum). The result equals that
    of the per-user arrays ``np.repeat(eps, counts)``.

    ``rounds``: T runs of the shuffle on the same data (each user randomizes afresh every round),
    composed through the pair's privacy-loss distribution (:mod:`gspa.privacy.shuffle.composition`); with
    ``reduction="cells"`` the smaller of the composed cells (through their delta(eps) curve, which takes the
    clone pair where ``CellsFirst`` consults it) and the composed clone pair, and from
    ``CLONES_BELOW_USERS`` = 10^5 users on the composed curve alone: there the composed clone pair was the
    larger in every case measured (10^5 and 10^6 users; budgets 0.5, 2 and U(0.01, 2); both variants; T = 2,
    10, 100; delta = 1e-5 ... 1e-14), and reading it would double the time — a choice of speed, not a claim.

    ``reduction``: None (default: ``"cells"`` for binary randomized response and Lemma 4's quaternary
    randomizer, the clone pair above ``gspa.privacy.shuffle.cells.MAX_USERS`` users; ``"blanket"`` for the
    others), ``"blanket"``, ``"clones"`` or ``"cells"``. For k-ary randomized response with k >= 3 in the
    randomized variant, ``"blanket"`` is :class:`KaryPair` (tighter: it hides whether the differing user's
    report came from its blanket; slower than the clone pairs, ``benchmarks/accounting.py`` times both) and
    ``"clones"`` the better of the two clone decompositions; for every other randomizer and variant the two
    names give the same clone pair (Theorem 1's reduction). ``"cells"`` (binary randomized response and Lemma 4's
    quaternary randomizer): the worst case over the other users' data bounded cell by cell
    (:func:`gspa.privacy.shuffle.cells.cells_pair`; the accountant chapter sets it against the lower bound and the
    exact worst case, and the clone pair likewise), with the clone pair
    where it may be the smaller (``gspa.privacy.shuffle.accountant.CellsFirst``: with few users, and near the cells' floor of about
    10^-12–10^-11, set by their counted tails; the clone pair's lies near 10^-22).

    Paper items: Theorem 1 (eqs. (12)–(13), the shuffled output is a post-processing of the reduced
    pair) with Lemma 1's clone weights (eq. (11)) where they hold (binary and k-ary randomized response,
    Lemma 4's quaternary randomizer; Laplace has its own, smaller weights across budgets, tested against
    the continuous protocol, :func:`gspa.privacy.exact.laplace_profile`), certified for each; the
    differing user's own report (eqs. (16)–(17)); Lemma 4 for ``randomizer="quaternary"``; with
    ``rounds`` > 1, the certified counterpart of Theorem 5."""
    spec = randomizers.get(randomizer)
    if (
        reduction is None
    ):  # the randomizer's tightest, or the clone pair where the cells are refused
        reduction = spec.default_reduction
        if reduction == "cells" and _users(eps, counts) > CELLS_MAX_USERS:
            reduction = "clones"
    spec.check_reduction(reduction)
    if reduction == "cells":
        spec.check_k(k)
        spec.check_delta(delta)
        cells = cells_pair(eps, variant, delta=delta, counts=counts)
        clones = lambda: _single_round(eps, delta, variant, spec, k, counts, "clones")
        first = CellsFirst(cells, clones, _users(eps, counts))
        if rounds == 1:
            return first
        if first.users >= CLONES_BELOW_USERS:
            # the curve composed already takes the clone pair where CellsFirst consults it
            return compose(first, rounds)
        # over rounds, the cells' curve is composed through its delta(eps) alone, which can be looser than
        # the clone pair's own composition (its privacy-loss distribution): both are valid, keep the smaller
        return BestOf(
            (compose(first, rounds), compose(first.clones(), rounds)),
            f"{first.scope}, {rounds} rounds: the smaller of the two composed",
        )
    return compose(_single_round(eps, delta, variant, spec, k, counts, reduction), rounds)


def _users(eps, counts) -> int:
    """The number of users, or 0 when the input is malformed (its validation then says why)."""
    if counts is None:
        return int(np.size(eps))
    c = np.asarray(counts)
    return int(np.sum(c, dtype=np.int64)) if c.dtype.kind in "iu" else 0


CLONES_BELOW_USERS = 10**5  # CellsFirst: below this many users the clone pair is always consulted
CLONES_BELOW_DELTA = 1e-9  # ... and at any count where the cell bound's delta is at most this


@dataclass(frozen=True)
class CellsFirst:
    """The pair of ``reduction="cells"``.

    The cell bound (:func:`gspa.privacy.shuffle.cells.cells_pair`), and the clone pair
    (built only when it is consulted) where it may be the smaller. With e0 the smallest eps at which the
    cells' delta is within ``CLONES_BELOW_DELTA`` of its floor (delta_n = max delta_i: near there the cells'
    counted tails, about 1e-12 to 1e-11, dominate it, and its counted convolution error grows like e^eps
    in the revealing variant) — and e0 = 0 with fewer than ``CLONES_BELOW_USERS`` users (where Bernstein's
    margins can make the cells the looser, and both are fast; e0 = inf if the cells never come that near) —

    delta(eps) = cells(eps) for eps < e0;  min(cells(eps), clones(eps), cells(e0)) for eps >= e0.

    Each is a valid bound on the same protocol (the true delta does not increase with eps, so cells(e0)
    bounds it past e0), so the value is; :meth:`epsilon` is its inverse. Below e0 the cells were the smaller
    at every point measured (the accountant benchmark), so the clone pair is not built there: that is a
    choice of speed, not a claim."""

    cells: BestOf
    clones_of: object  # a function of no arguments that builds the clone pair
    users: int
    _built: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def scope(self) -> str:
        """What the bound covers."""
        return f"{self.cells.scope}, or the clone pair where it may be smaller"

    def clones(self):
        """The clone pair (built once, when first needed)."""
        if "clones" not in self._built:
            self._built["clones"] = self.clones_of()
        return self._built["clones"]

    def _near_floor(self) -> float:
        """The cells' delta_n (0 for binary randomized response) plus ``CLONES_BELOW_DELTA``."""
        levels = getattr(self.cells, "pairs", ())
        return max((getattr(p, "delta_n", 0.0) for p in levels), default=0.0) + CLONES_BELOW_DELTA

    def _from(self) -> tuple[float, float]:
        """(e0, cells(e0)), computed once: where the clone pair starts to be consulted."""
        if "from" not in self._built:
            e0, cap = 0.0, 1.0
            if self.users >= CLONES_BELOW_USERS and self._near_floor() < 1.0:
                e0 = self.cells.epsilon(self._near_floor())
                cap = float(self.cells.delta(e0)) if np.isfinite(e0) else 1.0  # inf: never
            self._built["from"] = (e0, cap)
        return self._built["from"]

    def delta(self, eps):
        """The certified delta(eps) described above (a scalar or an array like ``eps``)."""
        return self._delta(eps, lambda e: self.clones().delta(e))

    def with_clones(self, read):
        """:meth:`delta` at a 1-d array of eps with the clone pair's delta read as ``read(pair)(eps)`` (another
        certified evaluation of the same pair; composition reads it from its enumerated outcomes)."""
        clones = read(self.clones())
        curve = lambda eps: self._delta(np.asarray(eps, dtype=float), clones)
        curve.one_pass = getattr(
            clones, "one_pass", False
        )  # the cells read every eps in one pass too
        return curve

    def _delta(self, eps, clones_delta):
        d = np.asarray(self.cells.delta(eps), dtype=float)
        e0, cap = self._from()
        at = np.atleast_1d(np.asarray(eps, dtype=float))
        both = at >= e0
        if both.any():
            flat = np.atleast_1d(d).copy()
            clones = np.atleast_1d(clones_delta(at[both]))
            flat[both] = np.minimum(np.minimum(flat[both], clones), cap)
            d = flat.reshape(d.shape)
        return d if d.ndim else float(d)

    def epsilon(self, delta: float) -> float:
        """The smallest eps (rounded up) where :meth:`delta` is at most ``delta``: the cells' eps when it lies
        below e0 (always when ``delta`` is above their floor's neighbourhood: then e0 is not computed),
        else the smaller of the cells' and the clone pair's, and at least e0."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        e = self.cells.epsilon(delta)
        if self.users >= CLONES_BELOW_USERS and delta > self._near_floor():
            return e  # the cells' delta falls below delta before it nears its floor: e < e0
        e0, _ = self._from()
        if e <= e0 and e0 > 0:
            return e
        return max(e0, min(e, self.clones().epsilon(delta)))

    def certified_tradeoff(self, alpha, nodes: int = 256):
        """A certified lower bound on the protocol's trade-off curve (see the function
        ``certified_tradeoff`` of ``gspa.privacy.shuffle.accountant``)."""
        return certified_tradeoff(self, alpha, nodes)


def _single_round(eps, delta, variant, spec, k, counts, reduction="blanket"):
    if counts is not None:
        eps, delta, counts = check_histogram(eps, delta, counts)
    else:
        eps, delta = check_budgets(eps, delta)  # counts stays None: one entry per user
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    k = spec.check_k(k)
    spec.check_delta(delta)
    return _PAIRS[spec.name](
        eps, delta, variant, counts, k=k, reduction=reduction, title=spec.title
    )


def _no_amplification(eps, delta, variant, counts, **_):
    """any-ldp: no clones, the most liberal user's local profile."""
    L = np.inf if variant == "revealing" else float(eps.max())
    return ReducedPair(
        clone_law(values=np.array([0.5]), counts=np.array([0])),
        L,
        1.0,
        0.0,
        "any eps_i-LDP randomizer per user: no amplification (reports may identify their users)",
    )


def _laplace_pairs(eps, delta, variant, counts, **_):
    """Laplace: one bound for every differing user and every pair of its inputs, each user with clones
    from every user whose budget is at most its own, and on a core around its inputs from those above
    (:class:`gspa.privacy.shuffle.pairs.LaplaceBands`); with
    one budget (randomized variant) also every report as randomized response and the cell bound
    (:class:`gspa.privacy.shuffle.cells.LaplaceCells`); for the randomized variant also the most liberal
    user's own report (:class:`gspa.privacy.shuffle.pairs.LaplaceLocal`); the smallest of them.
    The revealing variant adds the pairs that reveal the clone-type component at d = 1 (L = inf; the cover
    holds every other distance)."""
    if counts is None:
        values, counts = np.unique(eps, return_counts=True)
    else:
        values, inverse = np.unique(eps, return_inverse=True)
        counts = np.bincount(inverse, weights=counts).astype(np.int64)
        values, counts = values[counts > 0], counts[counts > 0]
    scope = (
        f"shuffled Laplace mechanism with personalized budgets ({variant} pair; clones from "
        "every user with a budget at most the differing user's; every pair of inputs covered)"
    )
    bands = LaplaceBands(values, counts, reveal=variant == "revealing", scope=scope)
    if variant == "revealing":
        return bands
    local = LaplaceLocal(
        float(values[-1]), "the most liberal user's own Laplace report, before the shuffle"
    )
    users = int(counts.sum())
    if (
        values.size > 1
        or not 2 <= users <= LaplaceCells.MAX_USERS
        or not LaplaceCells.applies(values[0])
    ):
        return BestOf(
            (bands, local),
            "shuffled Laplace mechanism: the better of the clone bound and no shuffle",
        )
    cells = LaplaceCells(
        float(values[0]),
        users,
        scope="shuffled Laplace mechanism with one budget (each report as randomized response, the worst "
        "case over the data bounded by cells; every pair of inputs covered)",
    )
    return BestOf(
        (bands, cells, local),
        "shuffled Laplace mechanism with one budget: the best of three bounds",
    )


def _kary_pairs(eps, delta, variant, counts, *, k, reduction, title):
    """k-RR, k >= 3: the blanket pair (randomized, 'blanket') or the better of the clone decompositions."""
    if k == 2:
        return _clone_pair(eps, delta, variant, counts, title="binary randomized response")
    if variant == "randomized" and reduction == "blanket":
        return _kary_pair(eps, k, counts)
    eps_n = float(eps.max())
    L = np.inf if variant == "revealing" else eps_n
    pairs = []
    for lam in (1.0,) if variant == "revealing" else (0.0, 1.0):
        weight, q = _krr_terms(eps, eps_n, k, lam)
        weight = 1.0 if variant == "revealing" else weight
        pairs.append(
            ReducedPair(
                _others(q, counts),
                L,
                weight,
                0.0,
                f"shuffled {k}-ary randomized response, lambda = {lam:g}",
            )
        )
    scope = f"shuffled {k}-ary randomized response with personalized budgets ({variant} pair)"
    return pairs[0] if len(pairs) == 1 else BestOf(tuple(pairs), scope)


def _clone_pair(eps, delta, variant, counts, *, title, **_):
    """Binary RR and Lemma 4's quaternary randomizer: t_i = (1 - delta_i)/(1 + e^eps_i), delta_n = max delta_i."""
    L = np.inf if variant == "revealing" else float(eps.max())
    q = halves(
        lambda e, d: np.minimum(2.0 * clone_probability(e, d), 1.0) * _ROUND_DOWN, eps, delta
    )
    return ReducedPair(
        _others(q, counts),
        L,
        1.0,
        float(delta.max()),
        f"shuffled {title} with personalized budgets ({variant} pair)",
    )


_PAIRS = {
    "binary-rr": _clone_pair,
    "quaternary": _clone_pair,
    "k-rr": _kary_pairs,
    "laplace": _laplace_pairs,
    "any-ldp": _no_amplification,
}  # one per declaration of gspa.privacy.randomizers (a test checks)
