"""The reduced pairs of the shuffle accountant: Theorem 1's pair of clone counts (eqs. (12)–(13)) with Lemma 1's
clone weights, the blanket pair of k-ary randomized response, and FMT21's and FMT23's common-budget pairs.
Derivations: the accountant chapter (book/chapters/accountant/using) and the declarations in gspa.privacy.randomizers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special

from gspa.privacy.basics.fdp import gdp_epsilon, gdp_mu
from gspa.privacy.basics.hypothesis import tradeoff_curve
from gspa.privacy.basics.mechanisms import laplace_delta
from gspa.privacy.numerics import (
    LINEAR_MAX_EPS,
    TINY,
    U,
    TailTable,
    cell_thresholds,
    gamma,
    halves,
    hockey_cells,
    hockey_upper,
    invert,
)
from gspa.privacy.profiles import BestOf, Profile
from gspa.privacy.shuffle.clones import CloneLaw, binomial_part, clone_law
from gspa.util import validate as V

KARY_GAP = 1e-3  # KaryPair: its sum over m is refined until its upper and lower bounds agree so
KARY_TAIL = 1e-14  # KaryPair: each far tail of W(m, .) with at most this mass is bounded as one run
KARY_TAIL_SHARE = 1e-6  # ... unless that bound is more than this share of the column's sum
KARY_RUN = 80_000  # KaryPair: runs of 1 + t/KARY_RUN counts t (one count each below 80 000)
MAX_OUTCOMES = 5e6  # ReducedPair.tradeoff enumerates at most this many outcomes
_ROUND_DOWN = (
    1.0 - 8 * U
)  # clone probabilities are rounded down by this factor (fewer clones: safe)


@dataclass(frozen=True)
class ReducedPair(Profile):
    """One reduced pair (see :mod:`gspa.privacy.shuffle.accountant`). ``log_odds`` L of the differing user's own
    bit (inf: revealing), ``weight`` the probability of its clone-type report, ``delta_n`` the
    probability of its revealing event.

    Paper items: Theorem 1's reduced pair (rho_0, rho_1), eqs. (12)–(13), with the clone weights of
    Lemma 1, eq. (11); ``log_odds = inf`` is the pair (rho'_0, rho'_1) of eq. (17) that the paper's proof
    analyses."""

    clones: CloneLaw
    log_odds: float = np.inf
    weight: float = 1.0
    delta_n: float = 0.0
    scope: str = ""
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        V.real("log_odds", self.log_odds, low=0.0)
        V.probability("weight", self.weight)
        V.probability("delta_n", self.delta_n, open_high=True)

    def _delta1(self, e: float) -> float:
        if (
            np.isfinite(self.log_odds) and e >= self.log_odds
        ):  # likelihood ratios <= e^L: delta_n exactly
            return self.delta_n
        if np.isinf(e) and np.isinf(self.log_odds):
            H = lambda m: (
                0.5 ** np.asarray(m, dtype=float)
            )  # only the revealing outcome a = m + 1 counts
        else:
            H = lambda m: hockey_upper(e, m, self.log_odds)
        return float(self._with_reveal(self.clones.upper(H)))

    def _with_reveal(self, upper):
        """The delta given the clone law's bound ``upper`` on E[H(M)]: times the clone-type weight, then the
        differing user's reveal (probability delta_n) mixed in."""
        x = np.minimum(1.0, self.weight * (upper + TINY) * (1 + gamma(2)))
        return np.minimum(1.0, (x + self.delta_n * (1.0 - x)) * (1 + gamma(3)))

    def delta(self, eps):
        """Certified upper bound on delta(eps); at several finite eps, the clone law's bound for each is
        refined as alone, with the evaluations of every eps batched (:meth:`CloneLaw.upper_rows`), and kept
        (two compositions of the pair read it at many of the same nodes)."""
        eps_arr = V.nonnegative("eps", eps)
        flat = eps_arr.ravel()
        rows = np.flatnonzero(flat < self.log_odds) if np.isfinite(flat).all() else []
        if len(rows) < 2:
            return super().delta(eps)
        out = np.full(flat.size, self.delta_n)  # at or above the top: delta_n exactly
        known = self._cache.setdefault("delta", {})  # eps -> delta (each eps's value is its own)
        if len(known) > 10**5:  # bounded memory: start afresh
            known.clear()
        e = np.array(sorted({float(x) for x in flat[rows]} - known.keys()))
        if e.size:
            H = lambda r, m: hockey_upper(e[r], m, self.log_odds)
            known.update(
                zip(e.tolist(), self._with_reveal(self.clones.upper_rows(H, e.size)).tolist())
            )
        out[rows] = [known[float(x)] for x in flat[rows]]
        return out.reshape(eps_arr.shape)

    def _top(self) -> float:
        return self.log_odds

    def _gaussian_guess(self, delta: float) -> float | None:
        """A starting point for the root-finder: the pair's Gaussian approximation, mu = 2 tanh(L/2) /
        sqrt(mean clone count) (Lemma 3's formula with the differing user's signal 2q - 1)."""
        m = self.clones.mean
        if m < 10 or delta <= self.delta_n:
            return None
        mu = (
            2.0 * (np.tanh(self.log_odds / 2.0) if np.isfinite(self.log_odds) else 1.0) / np.sqrt(m)
        )
        target = min(0.5, (delta - self.delta_n) / max(self.weight, 1e-300))
        return gdp_epsilon(target, mu) if mu > 0 else None

    def pmfs(self):
        """The two distributions over observed outcomes as flat probability vectors (for small n;
        uses the computed clone law renormalised, so it is exact only up to the law's error):
        outcome (m, a) = m clones plus the differing user, a of the m + 1 reports equal to 0; then a
        'no information' outcome (probability 1 - weight) and the two revealing outcomes."""
        from scipy.stats import binom

        q = float(special.expit(self.log_odds)) if np.isfinite(self.log_odds) else 1.0
        w = self.clones.pmf / self.clones.pmf.sum()
        P0, P1 = [], []
        for mm, ww in zip(self.clones.support, w):
            a = np.arange(mm + 2)
            b_prev, b_here = binom.pmf(a - 1, mm, 0.5), binom.pmf(a, mm, 0.5)
            P0.append(ww * (q * b_prev + (1 - q) * b_here))
            P1.append(ww * ((1 - q) * b_prev + q * b_here))
        s = 1 - self.delta_n
        P0 = np.concatenate(P0) * s * self.weight
        P1 = np.concatenate(P1) * s * self.weight
        rest = [s * (1 - self.weight)]
        return (
            np.concatenate([P0, rest, [self.delta_n, 0.0]]),
            np.concatenate([P1, rest, [0.0, self.delta_n]]),
        )

    def tradeoff(self, alpha):
        """Trade-off curve T(rho_0, rho_1)(alpha) of the pair (enumerates outcomes: n up to ~1e4; for more
        users use :meth:`certified_tradeoff`)."""
        outcomes = float(np.sum(self.clones.support + 2.0))
        if outcomes > MAX_OUTCOMES:
            raise ValueError(
                f"the pair has {outcomes:.3g} outcomes (at most {MAX_OUTCOMES:.0e} are enumerated); "
                "use certified_tradeoff(alpha)"
            )
        return tradeoff_curve(*self.pmfs(), alpha)


#: LaplaceCover: the distances d of the differing user's two inputs are covered by LAPLACE_COVER intervals
#: [d_j, d_{j+1}], d_j = 1 - (1 - j/J)^3 (finest next to d = 1, where the worst pair lies)
LAPLACE_COVER = 48
#: LaplaceBands.epsilon: rounds of "invert the worst cell found" before the cover's delta is inverted
LAPLACE_ROUNDS = 8
#: LaplaceBands' core pairs: the differing user's reports farther than M from its inputs' midpoint are counted
#: as revealed, M set so that this happens with probability at most e^-t, one pair for each t
CORE_TAILS = (16.0, 24.0, 40.0)
#: a core pair is read where its mean clone count is at least 10 % above the plain pair's, and a shorter core
#: where its count is at least twice that of every pair read before it
CORE_GAIN, SHORT_CORE_GAIN = 0.1, 1.0


#: the largest core half-width: any M >= 1 gives a valid pair (the reveal probability is computed for the M
#: used), so below budgets of about 1e-300, where (tail + w_hi b/2)/w_lo would overflow, the core stops here
#: (and nearly every report is counted as revealed); and the largest ratio u/w_hi of a budget to a node's
#: top budget that the clone weights use (a smaller clone weight is valid too), where it would overflow
MAX_HALF_WIDTH = MAX_RATIO = 2.0**1000


def _core_half_width(w_lo: float, w_hi: float, b: float, tail: float) -> float:
    """M, the core's half-width for a node of budgets w_lo .. w_hi and distances up to b: (tail + w_hi b/2)/w_lo,
    at least 1 and at most ``MAX_HALF_WIDTH``."""
    reach = tail + 0.5 * w_hi * b
    return max(1.0, reach / w_lo) if reach < w_lo * MAX_HALF_WIDTH else MAX_HALF_WIDTH


def _core_clones(u: np.ndarray, w_lo: float, w_hi: float, a: float, b: float, tail: float):
    """(clone probability of each budget ``u``, reveal probability p): :meth:`LaplaceBands.core_parameters`
    for a node of budgets w_lo .. w_hi and distances a .. b."""
    half = 0.5 * w_hi * b
    M = _core_half_width(w_lo, w_hi, b, tail)
    arg = w_lo * M  # p = e^-arg cosh(w_hi b / 2): each exponent errs by a relative 2u at most
    p = min(1.0, float(np.exp(-arg) * np.cosh(half)) * (1 + 4 * U * (8 + arg + half)))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = np.where(u > 0, np.minimum(u / w_hi, MAX_RATIO), 0.0)  # u / w_hi below its cap
    tau = ratio * np.exp(-u) / (1.0 + np.exp(-w_hi * a))
    far = u * (1.0 - 0.5 * a) + np.maximum(u - w_lo, 0.0) * M  # the end of the core
    end = ratio * np.exp(-far) / (2.0 * np.cosh(half))
    end = end * np.maximum(0.0, 1 - 4 * U * (8 + far + half))  # far may be inf (then end is 0)
    # up to w_lo the ratio does not fall outwards: tau holds; above, the end of the core may be lower
    tau = np.where(u <= w_lo, tau, np.minimum(tau, end))
    q = np.minimum(1.0, 2.0 * (1.0 - p) * tau) * _ROUND_DOWN
    return np.where(q > 1e-300, q, 0.0), float(np.nextafter(p, 2.0))


def _laplace_edges() -> np.ndarray:
    """The distance cover's edges d_j = 1 - (1 - j/J)^3, J = ``LAPLACE_COVER``."""
    d = 1.0 - (1.0 - np.arange(LAPLACE_COVER + 1) / LAPLACE_COVER) ** 3
    d[-1] = 1.0
    return d


@dataclass(frozen=True)
class LaplaceCover(Profile):
    r"""The Laplace mechanism x + Lap(1/v) on inputs in [0, 1], ``others`` further users with the same budget
    v: one bound for every pair of inputs (x⁰, x¹) of the differing user.

    For inputs at distance :math:`d = |x^1 - x^0|` the two densities f⁰, f¹ are (v d)-DP, so
    :math:`Q^b = (e^{vd} f^b - f^{1-b})/(e^{vd} - 1)` are densities with
    :math:`f^b = q\,Q^b + (1 - q)\,Q^{1-b}`, :math:`q = e^{vd}/(1 + e^{vd})`: log-odds L = v d. Every other
    user's density at any input x of [0, 1] is at least :math:`\tau_d (Q^0 + Q^1) = \tau_d (f^0 + f^1)` with
    :math:`\tau_d = 1/(e^v + e^{v(1-d)})`: for each report y, :math:`f_x(y)` is smallest at the end of
    [0, 1] farther from y, and :math:`|y - x| - |y - x^b| \le |x - x^b|`, so
    :math:`f_x/(f^0 + f^1) \ge 1/(e^{va} + e^{vb})` with a, b that end's distances to x⁰ and x¹
    (:math:`|a - b| = d`, both at most 1), which is at least :math:`\tau_d` (equal when the pair touches an
    end of [0, 1]). So each other user is a clone of Q⁰ or of Q¹ with probability :math:`\tau_d` each: the
    pair :class:`ReducedPair` with L = v d and clone probability :math:`2\tau_d`. At d = 1 it is the pair of
    Lemma 1's weight :math:`1/(1 + e^v)`; a smaller d gives fewer clones and a smaller L, so no distance
    obviously dominates.

    The cover: δ of a reduced pair rises with L and falls as the clone probability rises (a smaller L, or one
    more clone, is a post-processing), and :math:`\tau_d` rises with d, so on an interval [a, b] of
    distances the pair with L = v b and clone probability :math:`2\tau_a` dominates every distance in it.
    The bound is the largest δ of those pairs over the ``LAPLACE_COVER`` intervals; it is found by
    :class:`LaplaceBands`' branch and bound with this one budget, over unions of neighbouring intervals (a
    union's pair dominates its intervals' pairs, so a union whose certified δ is at most the largest found
    is not split: valid whatever the computed values; at most the largest over every interval, and equal
    to it in the tests). Every probability is rounded to the side that weakens privacy."""

    v: float
    others: int
    scope: str = ""

    def __post_init__(self):
        V.real("v", self.v, low=0.0)
        V.integer("others", self.others, low=0)

    def _edges(self) -> np.ndarray:
        return _laplace_edges()

    def parameters(self, a: float, b: float) -> tuple[float, float]:
        r"""(log-odds, clone probability) of the pair that dominates every distance in [a, b]: v b (rounded
        up, at most v) and :math:`2\tau_a = 2e^{-v}/(1 + e^{-va})` (rounded down)."""
        v = self.v
        q = min(1.0, 2.0 * np.exp(-v) / (1.0 + np.exp(-v * a))) * _ROUND_DOWN
        q = q if q > 1e-300 else 0.0  # a subnormal would not round down: no clones (safe)
        return min(v * b * (1 + 4 * U), v), q

    def pair(self, a: float, b: float) -> ReducedPair:
        """The pair that dominates every distance in [a, b] (:meth:`parameters`)."""
        L, q = self.parameters(a, b)
        clones = clone_law(values=np.array([q]), counts=np.array([self.others]))
        return ReducedPair(clones, L, 1.0, 0.0, f"{self.scope}, inputs {a:.3g} to {b:.3g} apart")

    @cached_property
    def _bands(self) -> LaplaceBands:
        return LaplaceBands(
            np.array([float(self.v)]), np.array([self.others + 1]), scope=self.scope
        )

    def _delta1(self, e: float) -> float:
        return self._bands._delta1(e)

    def epsilon(self, delta: float) -> float:
        """An eps (rounded up) whose certified delta(eps) is <= ``delta`` (:meth:`LaplaceBands.epsilon`
        with this one budget: the pair next to d = 1 is inverted first, the usual worst case)."""
        return self._bands.epsilon(delta)

    def _top(self) -> float:
        return self.v

    def _gaussian_guess(self, delta: float) -> float | None:
        return self._bands._gaussian_guess(delta)


@dataclass(frozen=True)
class LaplaceLocal(Profile):
    r"""The Laplace mechanism before the shuffle: the most liberal user's own report, x + Lap(1/v) with v the
    largest budget, :math:`\delta(\varepsilon) = 1 - e^{(\varepsilon - v)/2}` below v and 0 from v on (the
    exact profile of inputs at distance 1, :func:`gspa.privacy.basics.mechanisms.laplace_delta`).

    Why it bounds the shuffled protocol. The shuffled reports are a function of the differing user's report
    and of the other users' reports, which do not depend on its input: a post-processing of its report with
    independent randomness. So for every differing user, of budget u, and inputs at distance d ≤ 1, the
    protocol's δ(ε) is at most that of its own report, :math:`1 - e^{(\varepsilon - u d)/2}`, which grows
    with u d and so is at most the value at u d = v. It is the smaller bound where the shuffle amplifies
    little (a few users of large budgets).

    Round-off (of :func:`~gspa.privacy.basics.mechanisms.laplace_delta`, which computes it): ε - v is
    rounded once, the halving is exact, and expm1 is within an ulp; the logarithmic
    slope of :math:`1 - e^{x}` in x is at most 1 for x < 0, so the computed value is within a relative
    :math:`\gamma_3` of the exact one, and :math:`1 + \gamma_8` (with ``TINY`` for underflow) covers it,
    with an ulp to spare: the result is at least the exact value rounded up."""

    v: float
    scope: str = ""

    def __post_init__(self):
        V.real("v", self.v, low=0.0)

    def _delta1(self, e: float) -> float:
        if not e < self.v:
            return 0.0  # pure v-DP from v on
        # laplace_delta is 0 where (e - v)/2 rounds to -0.0 (e - v the least subnormal): TINY covers it
        return min(1.0, float(laplace_delta(e, self.v)) * (1 + gamma(8)) + TINY)

    def _top(self) -> float:
        return self.v

    def _gaussian_guess(self, delta: float) -> float | None:
        return None


@dataclass(frozen=True, eq=False)
class LaplaceBands(Profile):
    r"""The Laplace mechanism x + Lap(1/vᵢ) on inputs in [0, 1] with personalized budgets: one bound for every
    choice of the differing user and every pair of its inputs (x⁰, x¹), with clones from users of every
    budget up to the differing user's (and, on a core around its inputs, above it).

    **Clones across budgets.** Let the differing user have budget w and inputs at distance
    :math:`d = |x^1 - x^0|`, and another user budget u ≤ w and any input of [0, 1]. Then
    :math:`f_i \ge \tau(u, w, d)\,(f^0 + f^1)` with

    .. math:: \tau(u, w, d) = \frac{u}{w}\,\frac{e^{-u}}{1 + e^{-wd}}.

    Proof: at a report y the other user's density is smallest at the end of [0, 1] farther from y, at
    distance :math:`D(y) = \max(|y|, |y - 1|)`; the logarithm of :math:`\tfrac{u}{w} e^{-uD(y)} / (e^{-w|y - x^0|}
    + e^{-w|y - x^1|})` is concave between the breakpoints 1/2, x⁰ and x¹ (a linear function minus a
    log-sum-exp of linear functions), and beyond the outer ones it does not fall outwards when u ≤ w, so its
    infimum is at a breakpoint: at y = x¹ (or x⁰) it is at least :math:`\tfrac{u}{w}e^{-u}/(1 + e^{-wd})`
    since D ≤ 1, equal when the pair touches an end and the other user sits at the other end; at y = 1/2
    the denominator is at most :math:`1 + e^{-wd}` (by convexity when 1/2 lies between x⁰ and x¹, as it
    falls away from the pair otherwise). With u = w it is
    :class:`LaplaceCover`'s :math:`\tau_d`. With u > w the other user's tails fall faster than the pair's, so it gives
    no clones here (τ = 0; the core pair below takes it). As in :class:`LaplaceCover`, the pair's densities are (w d)-DP, so for any L ≥ w d
    they split as :math:`f^b = q Q^b + (1 - q) Q^{1-b}` with :math:`Q^0 + Q^1 = f^0 + f^1`, and each other
    user is a clone of Q⁰ or Q¹ with probability τ each, users' τ may differ (the clone count has the same
    law under both inputs): the :class:`ReducedPair` with log-odds L.

    **The cover.** τ falls as w rises (:math:`w(1 + e^{-wa})` rises with w) and rises with d. So for differing
    users with budgets in a band :math:`[w_{lo}, w_{hi}]` and distances in :math:`[a, b]`, the pair with
    :math:`L = w_{hi} b`, clones from the users with budget at most :math:`w_{lo}` (less the one with the
    largest clone probability: the differing user may be among them, and the pool less that user is, user by
    user after matching, below the pool less the differing user) at :math:`\tau(u, w_{hi}, a)` dominates every
    choice in it: L ≥ w d is valid outright, and δ falls as any clone probability rises (a post-processing turns
    a non-clone into a clone with probability :math:`(p' - p)/(1 - p)` and adds a fair coin to the count of 0s).
    The bound is the largest δ over the cells (one distinct budget) × (one of ``LAPLACE_COVER`` distance
    intervals), found by branch and bound over bands of neighbouring budgets and unions of neighbouring
    intervals: a node is dropped only when its certified δ, which bounds every cell in it, is at most the
    largest found, so the result is at least every cell's δ whatever rounding the computed values carry (sound),
    and at most the largest over all cells (tight, as the tests check). A node is split along the dimension that
    adds the more to its L: budgets (:math:`(w_{hi} - w_{lo})\,b`) or distances (:math:`w_{hi} (b - a)`). One
    common budget gives exactly :class:`LaplaceCover`'s pairs and bound.

    **Clones from users with larger budgets: the core.** A user with budget u > w has lighter tails than the
    pair, so τ = 0 above; that leaves the users with the smallest budgets, who have no one below them, at their
    own ε₀, which can exceed the most liberal user's amplified ε when there are many users. Cut the
    differing user's report to the core :math:`I = [c - M, c + M]` around its inputs' midpoint c (M ≥ 1, so
    :math:`I \supseteq [0, 1]`): by symmetry about c the report leaves I with the same probability
    :math:`p = e^{-wM}\cosh(wd/2)` under both inputs, so for any event S

    .. math:: P^0(S) - e^{\epsilon} P^1(S) \le (1 - p)\,(\tilde P^0(S) - e^{\epsilon} \tilde P^1(S)) + p,

    with :math:`\tilde P` the protocol in which the differing user's report is conditioned on I: the pair with
    reveal probability p (``delta_n``). Its densities :math:`g^b = f^b 1_I/(1 - p)` are still (w d)-DP, and another user
    of budget u at any input has :math:`f_i \ge \tilde\tau\,(g^0 + g^1)` on I with

    .. math:: \tilde\tau = (1 - p)\,\min\Big(\tau(u, w, d),\
              \frac{u}{w}\,\frac{e^{-u(1 - d/2)}\,e^{-(u - w) M}}{2\cosh(wd/2)}\Big) \quad (u > w)

    and :math:`\tilde\tau = (1 - p)\,\tau(u, w, d)` for u ≤ w:
    the logarithm of :math:`\tfrac{u}{w} e^{-uD(y)}/(e^{-w|y - x^0|} + e^{-w|y - x^1|})` is concave between the
    breakpoints, where τ bounds it as above for any u, and on the outer pieces it falls outwards only when
    u > w, down to the ends of I, where :math:`D(y) \le M + 1 - d/2` and the denominator is
    :math:`2e^{-wM}\cosh(wd/2)`. On a node every factor is taken at its worst: :math:`p` at
    :math:`(w_{lo}, b)` with :math:`w_{hi}` in the cosh, the minimum with :math:`w_{hi}` in the ratio and cosh,
    :math:`w_{lo}` in the exponent :math:`-(u - w_{lo}) M` and as the split between the two cases, a in
    :math:`e^{-u(1 - a/2)}`; every user is a
    clone (less the one with the largest probability). M is :math:`(t + w_{hi} b/2)/w_{lo}` (at least 1), so
    :math:`p \le e^{-t}`, for each t of ``CORE_TAILS`` (16, 24, 40) (below budgets of about 1e-300 M stops at
    ``MAX_HALF_WIDTH`` and p, computed for that M, may reach 1; u/w stops at ``MAX_RATIO``, which only lowers
    the clone weights): a shorter core counts more reports as
    revealed (p is its pair's floor) but takes more clones from the users above (:math:`e^{-(u - w)M}`), so
    the shortest serves δ down to about :math:`e^{-16}` and the longer ones smaller δ. A node whose band lies
    below the largest budget takes the best of its plain pair and its core pairs, from the longest tail down
    each whose mean clone count is at least ``CORE_GAIN`` (10 %) above the plain pair's and, for a shorter
    one, at least twice that of each pair taken before it (so the bound never has a core's floor); elsewhere
    the plain pair (a choice of speed: each pair alone is valid). Where it matters: one user of budget 1 among
    10⁵ of budget 1.2 stays near its own ε₀ with the longest core alone, and is amplified with the shortest
    (``tests/privacy/test_laplace_bands.py``).

    ``reveal`` (the revealing variant): the distance interval [1, 1] is added with L = inf (the
    differing user's clone-type component at d = 1 revealed). Clone laws are cached per node (they do not
    depend on ε). Every probability is rounded to the side that weakens privacy."""

    values: np.ndarray  # the distinct budgets, ascending
    counts: np.ndarray  # the number of users with each
    reveal: bool = False
    scope: str = ""
    _laws: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _d: np.ndarray = field(init=False, repr=False, compare=False)  # the distance edges (_edges)

    def __post_init__(self):
        values = V.finite("values", self.values, low=0.0, ndim=1)
        counts = np.asarray(self.counts)
        if (
            values.size == 0
            or counts.shape != values.shape
            or not np.issubdtype(counts.dtype, np.integer)
            or np.any(counts < 1)
            or np.any(np.diff(values) <= 0)
        ):
            raise ValueError(
                "values must be distinct increasing budgets with one count each, got "
                f"{values!r:.80} and {counts!r:.80}"
            )
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "counts", np.asarray(counts, dtype=np.int64))
        d = _laplace_edges()
        object.__setattr__(self, "_d", np.append(d, 1.0) if self.reveal else d)

    def _edges(self) -> np.ndarray:
        return self._d

    def parameters(self, lo: int, hi: int, a: float, b: float):
        r"""(log-odds, clone probabilities, their counts) of the pair that dominates every differing user
        with budget in ``values[lo] .. values[hi]`` and every distance in :math:`[a, b]`:
        :math:`L = w_{hi} b` (rounded up, at most :math:`w_{hi}`), and the clone probability
        :math:`2\tau(u, w_{hi}, a)` (rounded down) of every budget u up to ``values[lo]``, one user fewer
        with the largest of them."""
        w, u = float(self.values[hi]), self.values[: lo + 1]
        ratio = u / w if w > 0 else np.zeros_like(u)  # budget 0: no clones, L = 0
        q = np.minimum(1.0, 2.0 * ratio * np.exp(-u) / (1.0 + np.exp(-w * a))) * _ROUND_DOWN
        q = np.where(q > 1e-300, q, 0.0)  # a subnormal would not round down: no clones (safe)
        return min(w * b * (1 + 4 * U), w), q, self.counts[: lo + 1]

    def core_parameters(self, lo: int, hi: int, a: float, b: float, tail: float = CORE_TAILS[-1]):
        r"""(log-odds, clone probabilities of every budget, their counts, reveal probability p) of the core
        pair over the same node whose reports leave the core with probability at most e^-``tail``:
        :math:`2\tilde\tau` (rounded down) for every budget, p rounded up."""
        w_hi = float(self.values[hi])
        q, p = _core_clones(self.values, float(self.values[lo]), w_hi, a, b, tail)
        return min(w_hi * b * (1 + 4 * U), w_hi), q, self.counts, p

    def pair(
        self, lo: int, hi: int, a: float, b: float, reveal: bool = False, core: float | None = None
    ) -> ReducedPair:
        """The pair of :meth:`parameters` (``reveal``: with L = inf; ``core``: a tail, the pair of
        :meth:`core_parameters` with that tail)."""
        if core is not None:
            L, q, counts, reveal_p = self.core_parameters(lo, hi, a, b, core)
        else:
            (L, q, counts), reveal_p = self.parameters(lo, hi, a, b), 0.0
        key = (lo, hi, a, b, core)
        if key not in self._laws:
            self._laws[key] = _others(q, counts)
        w = (self.values[lo], self.values[hi])
        where = f"budgets {w[0]:.3g} to {w[1]:.3g}, inputs {a:.3g} to {b:.3g} apart"
        where += f", reports cut to a core (tail e^-{core:g})" if core is not None else ""
        return ReducedPair(
            self._laws[key], np.inf if reveal else L, 1.0, reveal_p, f"{self.scope}, {where}"
        )

    def _args(self, node) -> tuple:
        """The node's arguments of :meth:`pair`: its budgets, distances and whether it is revealed."""
        lo, hi, j, k = node
        d = self._edges()
        return lo, hi, d[j], d[k], self.reveal and k == d.size - 1

    def _node(self, node):
        """The node's bound: its pair, or where core pairs may help (``_cores``) the best of them all."""
        args = self._args(node)
        cores = self._cores(*args[:4])
        if not cores:
            return self.pair(*args)
        pairs = (self.pair(*args), *(self.pair(*args, core=t) for t in cores))
        return BestOf(pairs, self.scope)

    def _node_delta(self, node, e: float, best: float = -1.0) -> float:
        """The node's certified δ at e: of a cell (one budget band, one distance interval), the best of its
        pairs; of a larger node, the better of its plain pair and its first core pair, enough to drop it or
        split it (a choice of speed). The core pairs are read only while the smallest δ so far exceeds
        ``best`` (otherwise the node is dropped either way)."""
        args = self._args(node)
        lo, hi, j, k = node
        x = float(self.pair(*args).delta(e))
        cores = self._cores(*args[:4])
        for t in cores if lo == hi and k - j == 1 else cores[:1]:  # the longest tail first
            if x <= best:
                break
            x = min(x, float(self.pair(*args, core=t).delta(e)))
        return x

    def _cores(self, lo: int, hi: int, a: float, b: float) -> tuple:
        """The tails of ``CORE_TAILS`` whose core pairs a node reads, for a node with a positive budget and
        budgets above it: from the longest tail down, each whose mean clone count exceeds the plain pair's by
        ``CORE_GAIN`` and that of every core taken before it by ``SHORT_CORE_GAIN`` (a choice of speed: each
        pair alone is valid; a core matters where few budgets lie below, a shorter one where many budgets lie
        just above)."""
        if lo == self.values.size - 1 or self.values[lo] <= 0:
            return ()
        key = ("cores", lo, hi, a, b)
        if key not in self._laws:
            most = float(np.dot(self.parameters(lo, hi, a, b)[1], self.counts[: lo + 1]))
            w_lo, w_hi = float(self.values[lo]), float(self.values[hi])
            first, *shorter = sorted(CORE_TAILS, reverse=True)
            q = self.core_parameters(lo, hi, a, b, first)[1]
            mean = float(q @ self.counts)
            taken = [first] if mean > (1.0 + CORE_GAIN) * most else []
            most = max(most, mean)
            below = float(q[: lo + 1] @ self.counts[: lo + 1])
            for t in shorter:  # what a shorter core adds comes from the budgets just above w_lo
                # beyond w_lo + first/M a budget's weight on the core is below e^-first: left out of the count
                M = _core_half_width(w_lo, w_hi, b, t)
                j = int(np.searchsorted(self.values, w_lo + first / M, "right"))
                near = _core_clones(self.values[lo + 1 : j], w_lo, w_hi, a, b, t)[0]
                mean = below + float(near @ self.counts[lo + 1 : j])
                if mean > (1.0 + (SHORT_CORE_GAIN if taken else CORE_GAIN)) * most:
                    taken.append(t)
                    most = mean
            self._laws[key] = tuple(taken)
        return self._laws[key]

    def _search(self, e: float, seeds) -> tuple[float, tuple]:
        """(the largest δ(e) over the cells, a cell where it is reached), by branch and bound from the
        cells ``seeds``."""
        d, top = self._edges(), self.values.size - 1
        best, where = max((self._node_delta(s, e), s) for s in seeds)
        # the nodes still to look at: bands of budgets lo .. hi, unions of intervals j .. k - 1
        todo = [(0, top, 0, d.size - 1)]
        while todo:
            lo, hi, j, k = node = todo.pop()
            x = self._node_delta(node, e, best)
            if x <= best:
                continue
            if lo == hi and k - j == 1:
                best, where = x, node
            elif lo < hi and (
                k - j == 1
                or (self.values[hi] - self.values[lo]) * d[k] >= self.values[hi] * (d[k] - d[j])
            ):
                mid = (lo + hi) // 2
                todo += [(lo, mid, j, k), (mid + 1, hi, j, k)]
            else:
                todo += [(lo, hi, j, (j + k) // 2), (lo, hi, (j + k) // 2, k)]
        return best, where

    def _seeds(self) -> list:
        """The cells of the largest and the smallest budget next to d = 1 (the first has the most
        clones, the second the fewest): where the largest δ usually lies."""
        J, top = self._edges().size - 1, self.values.size - 1
        return [(i, i, J - 1, J) for i in sorted({0, top})]

    def _delta1(self, e: float) -> float:
        return self._search(e, self._seeds())[0]

    def epsilon(self, delta: float) -> float:
        """An eps (rounded up) whose certified delta(eps) is <= ``delta``: the seed cells' pairs are inverted
        first, then, while the cover's δ at that eps exceeds ``delta``, the pair of the cell where it does
        (its eps is larger, so this ends; after ``LAPLACE_ROUNDS`` rounds the cover's δ is inverted). The
        result is an eps where the whole cover's δ is at most ``delta``, within the last pair's
        root-finding tolerance of the smallest such eps on that pair."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        seeds = self._seeds()
        e = max(self._node(s).epsilon(delta) for s in seeds)
        for _ in range(LAPLACE_ROUNDS):
            if not np.isfinite(e):
                return e
            x, where = self._search(e, seeds)
            if x <= delta:
                return e
            seeds.append(where)
            e = max(e, self._node(where).epsilon(delta))
        return super().epsilon(delta)

    def _top(self) -> float:
        return np.inf if self.reveal else float(self.values[-1])

    def _gaussian_guess(self, delta: float) -> float | None:
        top = self.values.size - 1
        return self.pair(top, top, 1.0, 1.0)._gaussian_guess(delta)


@dataclass(frozen=True)
class KaryPair(Profile):
    r"""The blanket pair of shuffled k-ary randomized response (k ≥ 3), personalized budgets.

    k-RR with budget εᵢ reports its input with probability 1 − gᵢ and otherwise a uniform symbol of the
    k (its *blanket*), :math:`g_i = k/(e^{\epsilon_i} + k - 1)`. Given which users drew from their blanket,
    the others' reports are their inputs (known to the observer) or uniform draws, and the differing
    user's report is its input or a uniform draw — one report either way, so whether it drew from its
    blanket stays hidden among the M blanket draws of the others. The observer learns at most (M, T, A):
    the number M of the others' blanket draws, the number T of the M + 1 reports in {x₀, x₁} (the
    differing user's two inputs; the other k − 2 symbols are uniform given T, whatever the input), and
    the number A of them equal to x₀. Given (M, T) = (m, t), A is the binary case's binomial pair
    (``hockey_upper``) with t − 1 clones and a differing bit of signal
    :math:`r(m, t) = (1 - g_n)\,t / ((1 - g_n)\,t + g_n (m + 1)\,p)`, p = 2/k, with weight
    :math:`W(m, t) = (1 - g_n)\,\mathrm{Bin}(t - 1; m, p) + g_n\,\mathrm{Bin}(t; m + 1, p)`, so

    .. math:: \delta(\epsilon) = \sum_m P(M = m)\, G_m(\epsilon), \qquad
              G_m(\epsilon) = \sum_t W(m, t)\, H_{t-1}\big(\epsilon; \log\tfrac{1 + r}{1 - r}\big).

    :math:`G_m` decreases in m (one more blanket draw is a post-processing), so :meth:`CloneLaw.upper`
    bounds the sum; the differing user with the largest budget (the smallest :math:`g_n`: its pair with a
    larger g is a post-processing, mix its report with a uniform one) paired with the others' law without
    the user of the largest g dominates every choice of who differs. For k = 2 it is the binary pair
    (t = m + 1, :math:`r = \tanh(\epsilon_n/2)`). Every probability is rounded to the side that weakens
    privacy; each :math:`G_m` counts the cut binomial tails and the binomials' relative errors
    (``gspa.privacy.shuffle.clones.binomial_part``).

    How it is summed: every count t on its own up to 80 000 reports (``KARY_RUN``), runs of 1 + t/80 000
    counts above; on a run [t₁, t₂] the term is at most :math:`H_{t_1-1}(\epsilon; L(m, t_2))` (H falls
    as t grows and rises with L, which grows with t), close above the count-by-count sum (the tests hold
    runs of two at 10⁶ users within 10⁻³ of it, relatively). The far tails of
    W(m, ·), each of mass at most 10⁻¹⁴ (``KARY_TAIL``), are one run each, unless that run's bound
    exceeds 10⁻⁶ of the column's sum (at tiny δ): then the column is summed count by count. The cells
    of every m one evaluation needs go through one vectorised call
    (``gspa.privacy.numerics.hockey_cells``) whose binomial tails are computed once per count and
    threshold and kept for the next ε of the root search (``TailTable``); ``epsilon`` starts from a
    recalibrated Gaussian guess. ``benchmarks/accounting.py`` times an ε(δ) at 10³–10⁶ users and ε₀ in
    [0.1, 8].

    It gives the observer
    M, which the real protocol may hide (when the others' inputs coincide with blanket draws): exhaustive
    enumeration of the shuffled protocol (tests) finds it above the truth everywhere, equal to it at many
    points; with one common budget at most 1.35 times it in δ (the tests: n ≤ 5), more with personalized
    budgets, where the worst differing user is paired with the fewest blanket draws of any choice."""

    clones: CloneLaw  # the number M of the other users' blanket draws
    blanket_n: float  # the differing user's blanket probability (rounded down)
    k: int
    eps_n: float  # the differing user's budget: the pair is eps_n-DP
    scope: str = ""
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def _column(self, m: int, trim: bool = True):
        """What G_m needs at every eps (cached), per run of counts [t1, t2]: t1 - 1 (the clones), the
        sum of the upper bounds on W(m, t) over the run, L(m, t2) rounded up and its expit; then the
        mass of W outside the window, the window's size, and which runs are far tails (``trim``;
        otherwise the tails are counted like the rest)."""
        hit = self._cache.get(("column", m, trim))
        if hit is not None:
            return hit
        p = 2.0 / self.k
        b1, b2 = self._binomial(m), self._binomial(m + 1)
        # p = 2/k is rounded once: each binomial entry of the window then errs by a relative
        # (count (1/p + 1/(1 - p)) + 2) u at most, counted with the binomials' own errors
        slack = gamma(int((m + 1) * (1 / p + 1 / (1 - p))) + 2)
        t_lo = max(min(b1.offset + 1, b2.offset), 1)
        t_hi = max(b1.offset + b1.width, b2.offset + b2.width - 1)
        g, keep = self.blanket_n, 1.0 - self.blanket_n
        w = np.zeros(t_hi - t_lo + 1)  # upper bounds on W(m, t), t = t_lo .. t_hi
        for part, shift, weight in (
            (b1, 1, keep),
            (b2, 0, g),
        ):  # Bin(t - 1; m, p), Bin(t; m + 1, p)
            j = max(t_lo - part.offset - shift, 0)  # t = 0 (no report in {x0, x1}) is left out
            i = part.offset + shift + j - t_lo
            w[i : i + part.width - j] += weight * part.pmf[j:] / (1.0 - part.rho - slack)
        outside = keep * b1.tau / (1.0 - b1.rho) + g * b2.tau / (1.0 - b2.rho)
        # runs of counts: the far tails of W (mass at most KARY_TAIL each) are one run each, the rest
        # runs of 1 + t/KARY_RUN counts; on a run [t1, t2] the term H_{t-1}(e; L(m, t)) is at most
        # H_{t1-1}(e; L(m, t2)) (H falls as t grows, rises with L, and L grows with t)
        i1 = int(np.searchsorted(np.cumsum(w), KARY_TAIL, side="right")) if trim else 0
        i2 = w.size - (
            int(np.searchsorted(np.cumsum(w[::-1]), KARY_TAIL, side="right")) if trim else 0
        )
        step = 1 + (t_lo + w.size // 2) // KARY_RUN
        edges = np.arange(i1, i2, step)
        edges = np.concatenate([[0] if i1 > 0 else [], edges, [i2] if i2 < w.size else []])
        edges = edges.astype(np.int64)
        last = t_lo + np.append(edges[1:], w.size) - 1
        L = self._log_odds(m, last)
        cells = np.stack([np.add.reduceat(w, edges), L, special.expit(L)])  # run sums on their own
        far = np.array([0] * (i1 > 0) + [edges.size - 1] * (i2 < w.size), dtype=np.int64)
        self._cache["column", m, trim] = hit = (t_lo + edges - 1, cells, outside, w.size, far)
        return hit

    def _binomial(self, count: int):
        """binomial_part(count, 2/k), cached (neighbouring columns share one)."""
        hit = self._cache.get(("binomial", count))
        if hit is None:
            hit = self._cache["binomial", count] = binomial_part(count, 2.0 / self.k)
        return hit

    def _log_odds(self, m, t) -> np.ndarray:
        """L(m, t) = log((1 + r)/(1 - r)) of the signal r(m, t), rounded up (broadcast over m and t)."""
        p, g = 2.0 / self.k, self.blanket_n
        keep = 1.0 - g
        logodds = lambda r: (np.log1p(r) - np.log1p(-r)) * (1 + gamma(8))  # log((1+r)/(1-r)), up
        with np.errstate(divide="ignore"):
            r = np.minimum(
                keep * t / (keep * t + g * (m + 1.0) * p) * (1 + gamma(8)), 1.0
            )  # rounded up
            top = logodds(
                min(keep / (keep + g * p) * (1 + gamma(8)), 1.0)
            )  # r(m, t) <= r(m, m + 1)
            return np.minimum(logodds(r), top)

    def _tails(self, e: float):
        """A memo of the binomial tails the G_m of the clone law's support need at e (each computed once
        for all the calls of one eps): for each count c the thresholds lie between those of the
        support's largest and smallest m (L(m, c + 1) falls as m grows, and the threshold with it
        rises); None when the bands would be wide (then each call computes its own)."""
        if e > LINEAR_MAX_EPS:
            return None
        lo_m = self.clones.offset
        hi_m = lo_m + self.clones.pmf.size - 1
        c_lo, c_hi = self._column(lo_m)[0][0], self._column(hi_m)[0][-1]
        c = np.arange(c_lo, c_hi + 1)
        with np.errstate(invalid="ignore"):
            x_lo = np.nan_to_num(cell_thresholds(e, c, self._log_odds(lo_m, c + 1)), nan=0.0)
            x_hi = np.nan_to_num(cell_thresholds(e, c, self._log_odds(hi_m, c + 1)), nan=c + 1.0)
        lo = np.floor(np.clip(x_lo, 0, c + 1.0)).astype(np.int64) - 1  # a0 - 2 = floor(x) - 1
        hi = np.floor(np.clip(x_hi, 0, c + 1.0)).astype(np.int64) + 2  # a0 + 1
        if np.maximum(hi - lo + 1, 0).sum() > 16 * c.size:
            return None
        table = TailTable(int(c_lo), lo, hi)
        last = self._cache.get("tails")  # the last eps's table: most entries recur near the root
        if last is not None:
            table.seed(last)
        self._cache["tails"] = table
        return table

    def _given(self, e: float, ms, tails=None, trim: bool = True) -> np.ndarray:
        """Upper bounds on G_m(e) for each count m of ``ms``, from the runs of :meth:`_column` (one
        vectorised hockey-stick call for all of them). A column whose far tails' runs give more than
        KARY_TAIL_SHARE of its sum (at tiny deltas) is summed again with every count on its own."""
        ms = np.atleast_1d(ms)
        cols = [self._column(int(m), trim) for m in ms]
        clones = np.concatenate([c[0] for c in cols])
        w, L, q = np.concatenate([c[1] for c in cols], axis=1)
        terms = w * hockey_cells(e, clones, L, q, tails)
        starts = np.cumsum([0] + [c[0].size for c in cols[:-1]])
        sums = np.add.reduceat(terms, starts)
        # each column's run sums, products and sum
        rounding = np.array([1 + gamma(3 * c[3] + 4) for c in cols])
        total = np.minimum((sums * rounding + np.array([c[2] for c in cols])) * (1 + gamma(4)), 1.0)
        if trim:
            owner = np.concatenate([np.full(c[4].size, j) for j, c in enumerate(cols)])
            far = np.concatenate([starts[j] + c[4] for j, c in enumerate(cols)])
            share = np.bincount(owner, terms[far], minlength=len(cols))
            redo = np.flatnonzero(share > KARY_TAIL_SHARE * sums)
            if redo.size:
                total[redo] = self._given(e, ms[redo], tails, trim=False)
        return total

    def _delta1(self, e: float) -> float:
        if e >= self.eps_n:  # the shuffle of eps_n-LDP reports is eps_n-DP (a post-processing)
            return 0.0
        tails = self._tails(e)
        G = lambda ms: self._given(e, ms, tails)
        return min(1.0, (self.clones.upper(G, KARY_GAP) + TINY) * (1 + gamma(2)))

    def _top(self) -> float:
        return self.eps_n

    def epsilon(self, delta: float) -> float:
        """Smallest eps (rounded up) whose certified delta(eps) is <= ``delta``; inf if none is. The
        root-finder starts from the Gaussian guess recalibrated by one evaluation (the mu whose GDP
        profile passes through the pair's delta there: within 10⁻⁵ of the root in the bulk) and tries
        a narrow bracket around it first; the answer does not depend on the start beyond the
        root-finder's tolerance."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        guess = self._gaussian_guess(delta)
        if guess is None or not 0.0 < guess < self.eps_n:
            return super().epsilon(delta)
        there = self._delta1(guess)
        if not 0.0 < there < 1.0:
            return super().epsilon(delta)
        recalibrated = gdp_epsilon(delta, gdp_mu(guess, there))
        # the recalibrated guess errs by about twice the square of its move (measured): a bracket
        # four times that wide first, then the usual ones
        move = abs(recalibrated / guess - 1.0)
        spreads = sorted({1.0 + min(max(8.0 * move**2, 1e-9), 0.5), 1.02, 1.5})
        return invert(self._delta1, delta, self.eps_n, guess=recalibrated, spreads=tuple(spreads))

    def _gaussian_guess(self, delta: float) -> float | None:
        """Starting point for the root-finder: mu = 2 r / sqrt(mean of T), r = 1 - g over 1 - g + g p (g = blanket_n)
        (the signal at t = (m + 1) p), T about p times the mean blanket count."""
        mean_t = self.clones.mean * 2.0 / self.k
        if mean_t < 10:
            return None
        keep = 1.0 - self.blanket_n
        mu = 2.0 * keep / (keep + self.blanket_n) / np.sqrt(mean_t)
        return gdp_epsilon(min(0.5, delta), mu) if mu > 0 else None


def _kary_pair(eps, k: int, counts=None) -> KaryPair:
    """:class:`KaryPair` for budgets ``eps`` (or a histogram with ``counts``) of k-ary randomized response."""
    eps_n = float(np.max(eps))
    blanket = lambda e: (
        k * np.exp(-e) / (1.0 + (k - 1) * np.exp(-e))
    )  # k/(e^eps + k - 1), no overflow
    g = halves(lambda e: np.minimum(blanket(e), 1.0) * _ROUND_DOWN, np.asarray(eps, dtype=float))
    g_n = float(min(1.0, blanket(eps_n))) * _ROUND_DOWN
    return KaryPair(
        _others(g, counts),
        g_n,
        k,
        eps_n,
        f"shuffled {k}-ary randomized response with personalized budgets (blanket pair)",
    )


def clone_probability(eps, delta=None):
    """p_i = (1 - delta_i)/(1 + e^{eps_i}) of Lemma 1, eq. (11), as the paper states it (for binary
    randomized response and Lemma 4's quaternary randomizer it is the valid clone weight t_i)."""
    eps = V.nonnegative("eps", eps)
    delta = (
        np.zeros_like(eps)
        if delta is None
        else V.real("delta", delta, low=0.0, high=1.0, high_open=True)
    )
    return (1.0 - delta) * special.expit(-eps)


def _krr_terms(eps, eps_n: float, k: int, lam: float):
    """(weight, clone probabilities 2 t_i) of the k-RR decomposition with spread lambda (see the module
    docstring), computed without overflow."""
    en = np.exp(-eps_n)
    weight = (en + 1.0 + lam * (k - 2) * en) / (1.0 + (k - 1) * en) * (1 + gamma(8))
    zn_p = 1.0 + lam * (k - 2) * special.expit(-eps_n)  # Z_n p
    ei = np.exp(-np.asarray(eps, dtype=float))
    q = 2.0 * zn_p * ei / (1.0 + (k - 1) * ei)
    return min(weight, 1.0), np.minimum(q, 1.0) * _ROUND_DOWN


def _others(q, counts=None):
    """The clone law of the n - 1 users other than the differing one, who is taken to be a user with the
    largest clone probability (the fewest clones remain: the worst case). ``counts``: None for one entry
    of ``q`` per user, else the number of users with each entry."""
    if counts is None:  # per-user budgets: q is our own array, reordered in place
        j = int(np.argmax(q))
        q[j], q[-1] = q[-1], q[j]
        return clone_law(q[:-1], overwrite=True)
    counts = counts.copy()
    counts[int(np.argmax(q))] -= 1
    values, inverse = np.unique(
        q, return_inverse=True
    )  # equal probabilities merged, as histogram() does
    merged = np.bincount(inverse, weights=counts).astype(np.int64)
    keep = merged > 0
    return clone_law(values=values[keep], counts=merged[keep])


def clone_pair(eps0: float, n: int, clone_prob: float) -> ReducedPair:
    """Common budget eps0: n - 1 other users, each a clone with probability ``clone_prob``; the
    differing user keeps its eps0 randomization (q = e^eps0/(1 + e^eps0)). The clone count is one
    binomial: no FFT, relative errors only.

    Paper items: Theorem 1's reduced pair with one common clone probability (the setting of FMT21,
    which :func:`fmt21_pair` and :func:`fmt23_pair` instantiate)."""
    eps0 = V.nonnegative("eps0", eps0, scalar=True)
    n = V.integer("n", n, low=2)
    clone_prob = V.probability("clone_prob", clone_prob, scalar=True) * _ROUND_DOWN
    return ReducedPair(
        clone_law(values=np.array([clone_prob]), counts=np.array([n - 1])), eps0, 1.0, 0.0
    )


def fmt21_pair(eps0: float, n: int) -> ReducedPair:
    """FMT21 ("Hiding among the clones", FOCS 2021), the numerical bound: clone probability e^-eps0.
    Valid when every report comes from one common eps0-LDP randomizer (their Theorem 3.1, non-adaptive
    and adaptive; in the adaptive case the randomizer may change with the step but not with the user).
    With user-tied budgets it holds only if every user's output law dominates e^-eps0 times every
    other's: binary randomized response with eps0 = max eps_i, not Laplace."""
    eps0 = V.nonnegative("eps0", eps0, scalar=True)
    pair = clone_pair(eps0, n, float(np.exp(-eps0)))
    return ReducedPair(pair.clones, pair.log_odds, 1.0, 0.0, "a common eps0-LDP randomizer (FMT21)")


def fmt23_pair(eps0: float, n: int) -> ReducedPair:
    """FMT23 ("Stronger privacy amplification by shuffling", SODA 2023): clone probability
    2/(e^eps0 + 1). After the published erratum this holds for a restricted class of randomizers (binary
    and k-ary randomized response among them), not for every eps0-LDP randomizer."""
    eps0 = V.nonnegative("eps0", eps0, scalar=True)
    pair = clone_pair(eps0, n, float(2.0 * special.expit(-eps0)))
    return ReducedPair(
        pair.clones, pair.log_odds, 1.0, 0.0, "randomized response, common budget (FMT23)"
    )
