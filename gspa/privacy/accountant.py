"""Certified privacy accounting for the shuffle model: reduced pairs of clone counts.

Paper items: Lemma 1 (eqs. (9)–(11), the clone decomposition), Lemma 4 (the quaternary pair),
Theorem 1 (eqs. (12)–(13), the shuffled output is a post-processing of the counts of 0s and 1s),
eqs. (16)–(17) (the differing user's own report). The construction is Feldman–McMillan–Talwar's
("Hiding among the clones", FOCS 2021) extended to personalized budgets and to a differing user
whose report is not always a clone-type report.

**The pair.** The differing user n reports, under input x^b, a clone-type report with probability
``weight`` (then its own bit with probability q = e^L/(1 + e^L), the other with 1 - q), a report that
is the same under both inputs otherwise, and with probability delta_n a report that reveals its
input. Every other user i is a clone of Q^0 or of Q^1 with probability t_i each; M ~ sum_i
Bernoulli(2 t_i) counts the clones (:mod:`gspa.privacy.clones`), and given M = m, the count of 0s among
the clone reports is Binomial(m, 1/2). The observer learns (at most) the counts, so

    delta(eps) = delta_n + (1 - delta_n) * weight * E[H_M(eps; L)],

where H_m is the hockey-stick divergence of the binomial pair with m clones (:func:`_hockey_upper`).
Conditioning on whether the differing user's report is clone-type is free because that event has
the same probability under both inputs and leaves the clone counts' law unchanged.

**Randomizers** (``randomizer=``) — what the number certifies, for a shuffle of n users, each with
its own budget, the worst case over the differing user and over the other users' data:

* ``"binary-rr"``: binary randomized response with budget eps_i (Algorithm 2). t_i = 1/(1 + e^eps_i),
  L = max eps_i, weight 1. delta_i must be 0.
* ``"k-rr"`` (needs ``k``): k-ary randomized response. By default (``reduction="blanket"``, randomized
  variant) the blanket pair :class:`KaryPair`: each user's report is its input or, with probability
  g_i = k/(e^eps_i + k - 1), a uniform symbol, and the differing user's blanket draw stays hidden among
  the others'. With ``reduction="clones"``, the clone decompositions: the differing user's clone
  components can put weight on the k - 2 other symbols (lambda in [0, 1]); with lambda = 0 they are the
  two symbols themselves (weight (1 + e^eps_n)/(e^eps_n + k - 1), t_i = 1/(e^eps_i + k - 1)); with
  lambda = 1 they spread (weight 1, t_i = (e^eps_n + k - 1)/((e^eps_i + k - 1)(1 + e^eps_n))). Both are
  valid; the smaller delta at each eps is returned (faster, looser: it reveals whether the differing
  user's report is one of the two symbols). delta_i must be 0. For k = 2 this is ``"binary-rr"``.
* ``"quaternary"``: Lemma 4's extremal (eps_i, delta_i) randomizer on a binary input: with
  probability delta_i it reveals the input, otherwise it is binary randomized response with eps_i.
  t_i = (1 - delta_i)/(1 + e^eps_i), delta_n = max delta_i.
* ``"laplace"``: the Laplace mechanism x + Lap(1/eps_i) on inputs of range 1 (Algorithm 1 after
  scaling by the sensitivity). Across budgets Lemma 1's eq. (11) fails (a more liberal user's noise
  has lighter tails), so clones are taken only from users with the *same* budget: with a common
  eps, eqs. (9)–(10) force Q^0 + Q^1 = R(0) + R(1), and f_x(y) >= (f_0(y) + f_1(y))/(1 + e^eps) for
  every x in [0, 1] and every y (equality in the tails; in between, with u = max(y, 1 - y),
  (1 + e^eps) e^{-eps u} >= e^{-eps u} + e^{-eps (1 - u)} because 1 - u + (1 - u) >= 0). The bound is
  the largest, over the budget values, of the pair of that group's users.
  That is the pair of inputs (0, 1). A pair (x^0, x^1) at distance d < 1 gets less clone weight: down to
  e^{-eps (1 - d)}/(1 + e^{eps d}) < 1/(1 + e^eps) (Lemma 1 chapter), so eq. (11) fails there. Repair: that
  pair is (eps d)-DP, so its own decomposition (L = eps d, t_i = e^{-eps (1 - d)}/(1 + e^{eps d})) is valid,
  and its delta lies below the (eps, 1/(1 + e^eps)) pair's — checked on a grid of (eps, d, n, eps') and
  against the enumerated binned protocol at interior pairs (tests/privacy/test_accountant.py), not proved.

* ``"any-ldp"``: every user i has *its own* εᵢ-LDP randomizer, any at all. Then the shuffle can amplify
  nothing: users whose randomizers have disjoint output sets are identified by their reports, so the
  central profile is the differing user's local one, and the worst εᵢ-LDP randomizer is binary randomized
  response (every (ε, 0)-DP pair lies above its trade-off curve). The pair is that: no clones, L = max εᵢ —
  exact, not only a bound, for this class. Users who share *one* ε₀-LDP randomizer are covered by
  :func:`fmt21_pair` instead.

Any other randomizer is refused with a ``ValueError``: the paper's Lemma 1 claims eq. (11) for every
randomizer, but it fails in general (see the Lemma 1 chapter). :func:`fmt21_pair` covers the shuffle
of n reports from one *common* eps0-LDP randomizer (or step randomizers applied to shuffled data, as
in Definition 6); with user-tied budgets it holds only when every user's output law dominates
e^-eps0 times every other user's — true for binary randomized response with eps0 = max eps_i, false
for Laplace (the Figure 3 chapter's Theorem 3 counterexample exceeds it by orders of magnitude).

**Variants.** ``"randomized"`` keeps the differing user's own randomization (L = its budget);
``"revealing"`` lets its clone-type report reveal its input (L = inf), which is the pair the paper's
proof analyses (rho'_0, rho'_1 of eq. (17)); it is weaker but valid. For binary randomized response and
Lemma 4's quaternary randomizer the clone-type component is the input itself, so the revealing pair also
covers the protocol in which the differing user reports its input in the clear (enumerated by
``gspa.privacy.bruteforce.shuffled_profile(..., variant="revealing")``; ``lower_bound(..., variant="revealing")``
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
(:meth:`gspa.privacy.clones.CloneLaw.upper`), a relative allowance ``SF_REL`` on every binomial tail (Boost's
regularized incomplete beta through scipy; the largest relative error measured against 30-digit
mpmath over a grid of counts up to 10^9 is 5.3e-14, see ``tests/test_accountant.py``), the
arithmetic of the per-count formula, underflow (``TINY``), and epsilon(delta) is rounded up. The
one ingredient that is measured rather than proven is the accuracy of Boost's incomplete beta
function: the numbers are certified modulo that measured accuracy. The exhaustive enumeration of the
real shuffled protocols in :mod:`gspa.privacy.bruteforce` is the test that these numbers are bounds on the
protocol, not only on the pair.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from gspa.util import validate as V
from gspa.privacy.clones import CloneLaw, U, binomial_part, clone_law, gamma, sum_and_difference

VARIANTS = ("randomized", "revealing")
RANDOMIZERS = ("binary-rr", "k-rr", "quaternary", "laplace", "any-ldp")
REDUCTIONS = ("blanket", "clones", "cells")
SF_REL = 1e-12          # relative allowance on each binomial tail (measured max 5.3e-14, see above)
TINY = 2.0 ** -1020     # covers every term that underflowed (their weights sum to at most 1)
KARY_GAP = 1e-3         # KaryPair: its sums are refined until their upper and lower bounds agree so
MAX_OUTCOMES = 5e6      # ReducedPair.tradeoff enumerates at most this many outcomes
_ROUND_DOWN = 1.0 - 8 * U   # clone probabilities are rounded down by this factor (fewer clones: safe)


_SPLIT_MIN = 256                   # arrays at least this long are split in two halves (two cores)
_POOL = {}                         # process id -> its one-thread pool (a forked child makes its own)


def _halves(f, *arrays):
    """f applied elementwise to 1-d arrays, the second half on a helper thread (numpy's and scipy's
    ufuncs release the GIL): the result is the same array as f(*arrays), computed on two cores."""
    n = arrays[0].size
    if n < _SPLIT_MIN:
        return f(*arrays)
    h = n // 2
    pool = _POOL.get(os.getpid())
    if pool is None:
        pool = _POOL[os.getpid()] = ThreadPoolExecutor(1)
    second = pool.submit(f, *(x[h:] for x in arrays))
    first = f(*(x[:h] for x in arrays))
    return np.concatenate([first, second.result()])


def _sf(k, m):
    """P(X >= k) for X ~ Binomial(m, 1/2), vectorised: 1 for k <= 0, 0 for k > m, otherwise
    I_{1/2}(k, m - k + 1) evaluated as Boost's ``betaincc(m - k + 1, k, 1/2)``."""
    k, m = np.broadcast_arrays(np.asarray(k, np.int64), np.asarray(m, np.int64))
    inside = (k >= 1) & (k <= m)
    kk, mm = np.where(inside, k, 1), np.where(inside, m, 1)
    a, b = (mm - kk + 1).astype(float).ravel(), kk.astype(float).ravel()
    out = _halves(lambda x, y: special.betaincc(x, y, 0.5), a, b).reshape(k.shape)
    return np.where(k <= 0, 1.0, np.where(k > m, 0.0, out))


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def _hockey_upper(eps: float, m, log_odds) -> np.ndarray:
    """Upper bounds on H_m(eps) = sum_a max(0, P0(a|m) - e^eps P1(a|m)), where a counts the 0-reports
    among m clones (each 0 or 1 with probability 1/2) and the differing user's report (its bit with
    probability q = expit(log_odds)); P1 swaps q and 1 - q. ``log_odds = inf``: the report reveals.
    ``log_odds`` is one value or an array broadcast with ``m`` (one per count).

    The likelihood ratio increases in a, so H_m = c1 S(a0 - 1) - c2 S(a0) for the threshold a0, with
    S the binomial tail, c1 = q - e^eps (1 - q), c2 = e^eps q - (1 - q). The coefficients are formed in
    the log domain (no overflow for budgets up to 1e6 and more); the threshold is computed in floating
    point, so a0 - 1, a0 and a0 + 1 are all evaluated (each is a lower bound of the supremum) and the
    largest upper bound is kept. H_m = 0 exactly for eps >= log_odds (the pair is then log_odds-DP)."""
    m, L = np.broadcast_arrays(np.asarray(m, dtype=np.int64), np.asarray(log_odds, dtype=float))
    out = np.zeros(m.shape)
    live = eps < L
    if not live.any():
        return out
    m, L = m[live], L[live]
    fin = np.isfinite(L)
    Lf = np.where(fin, L, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):     # the masked branches only
        lq = np.where(fin, -np.log1p(np.exp(-Lf)), 0.0)                     # log q
        log_c1 = np.where(fin, np.log(-np.expm1(eps - Lf)), 0.0)
        log_c2 = np.where(fin, eps + np.log(-np.expm1(-Lf - eps)), float(eps))
    x = (m + 1.0) * special.expit(log_c2 - log_c1)          # threshold: ratio a/(m-a+1) > c2/c1
    a0 = np.floor(x).astype(np.int64) + 1
    # x carries a relative rounding error of a few u: a0 is certain unless x is that close to an
    # integer; there the neighbouring thresholds a0 - 1 and a0 + 1 are evaluated too (each gives a
    # lower bound on the supremum, so the largest upper bound covers the true threshold)
    frac = x - np.floor(x)
    unsure = np.minimum(frac, 1.0 - frac) <= 64 * U * np.maximum(x, 1.0)
    allow = SF_REL + gamma(12)

    def bound(t, mm, c1, c2):
        tails = _sf(np.concatenate([t - 1, t]), np.concatenate([mm, mm]))    # both tails in one call
        pos = np.exp(c1 + _log(tails[:t.size]))
        neg = np.exp(c2 + _log(tails[t.size:]))
        with np.errstate(invalid="ignore", over="ignore"):
            up = np.where(neg >= pos, 0.0, pos * (1 + allow) - neg * (1 - allow))
        return np.maximum(up, 0.0)

    best = bound(a0, m, log_c1, log_c2)
    if unsure.any():
        u_ = unsure
        args = (m[u_], log_c1[u_], log_c2[u_])
        best[u_] = np.maximum.reduce([best[u_], bound(a0[u_] - 1, *args), bound(a0[u_] + 1, *args)])
    out[live] = np.exp(lq) * best * (1 + gamma(2))
    return out


MAX_NODES = 10**4   # certified_tradeoff: eps nodes (one delta evaluation each)


def map_delta(delta1, eps):
    """delta1 (a function of one eps >= 0) over a scalar or an array of eps, validated."""
    delta1 = V.function("delta1", delta1)
    eps_arr = V.nonnegative("eps", eps)
    out = np.array([delta1(float(e)) for e in eps_arr.ravel()])
    return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])


class _Profile:
    """What every certified pair offers, given its ``_delta1(eps)`` (a certified delta at one eps), its
    ``_top()`` (an eps where delta reaches its floor) and ``_gaussian_guess(delta)``."""

    def delta(self, eps):
        """Certified upper bound on delta(eps) (both directions of the pair agree by symmetry)."""
        return map_delta(self._delta1, eps)

    def epsilon(self, delta: float) -> float:
        """Smallest eps (rounded up) whose certified delta(eps) is <= ``delta``; inf if none is."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return _invert(self._delta1, delta, self._top(), guess=self._gaussian_guess(delta))

    def certified_tradeoff(self, alpha, nodes: int = 256):
        """A certified lower bound on the pair's trade-off curve (an f-DP guarantee) from its certified
        privacy profile at ``nodes`` values of eps (the function ``certified_tradeoff`` of
        ``gspa.privacy.accountant``), for any number of users."""
        return certified_tradeoff(self, alpha, nodes)


@dataclass(frozen=True)
class ReducedPair(_Profile):
    """One reduced pair (see :mod:`gspa.privacy.accountant`). ``log_odds`` L of the differing user's own
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

    def __post_init__(self):
        V.real("log_odds", self.log_odds, low=0.0)
        V.probability("weight", self.weight)
        V.probability("delta_n", self.delta_n, open_high=True)

    def _delta1(self, e: float) -> float:
        if np.isinf(e) and np.isinf(self.log_odds):
            H = lambda m: 0.5 ** np.asarray(m, dtype=float)   # only the revealing outcome a = m + 1 counts
        else:
            H = lambda m: _hockey_upper(e, m, self.log_odds)
        x = min(1.0, self.weight * (self.clones.upper(H) + TINY) * (1 + gamma(2)))
        return min(1.0, (x + self.delta_n * (1.0 - x)) * (1 + gamma(3)))

    def _top(self) -> float:
        return self.log_odds

    def _gaussian_guess(self, delta: float) -> float | None:
        """A starting point for the root-finder: the pair's Gaussian approximation, mu = 2 tanh(L/2) /
        sqrt(mean clone count) (Lemma 3's formula with the differing user's signal 2q - 1)."""
        from gspa.privacy.fdp import gdp_epsilon
        m = self.clones.mean
        if m < 10 or delta <= self.delta_n:
            return None
        mu = 2.0 * (np.tanh(self.log_odds / 2.0) if np.isfinite(self.log_odds) else 1.0) / np.sqrt(m)
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
        s = (1 - self.delta_n)
        P0 = np.concatenate(P0) * s * self.weight
        P1 = np.concatenate(P1) * s * self.weight
        rest = [s * (1 - self.weight)]
        return (np.concatenate([P0, rest, [self.delta_n, 0.0]]), np.concatenate([P1, rest, [0.0, self.delta_n]]))

    def tradeoff(self, alpha):
        """Trade-off curve T(rho_0, rho_1)(alpha) of the pair (enumerates outcomes: n up to ~1e4; for more
        users use :meth:`certified_tradeoff`)."""
        from gspa.privacy.hypothesis import tradeoff_curve
        outcomes = float(np.sum(self.clones.support + 2.0))
        if outcomes > MAX_OUTCOMES:
            raise ValueError(f"the pair has {outcomes:.3g} outcomes (at most {MAX_OUTCOMES:.0e} are enumerated); "
                             "use certified_tradeoff(alpha)")
        return tradeoff_curve(*self.pmfs(), alpha)


@dataclass(frozen=True)
class KaryPair(_Profile):
    r"""The blanket pair of shuffled k-ary randomized response (k ≥ 3), personalized budgets.

    k-RR with budget εᵢ reports its input with probability 1 − gᵢ and otherwise a uniform symbol of the
    k (its *blanket*), :math:`g_i = k/(e^{\epsilon_i} + k - 1)`. Given which users drew from their blanket,
    the others' reports are their inputs (known to the observer) or uniform draws, and the differing
    user's report is its input or a uniform draw — one report either way, so whether it drew from its
    blanket stays hidden among the M blanket draws of the others. The observer learns at most (M, T, A):
    the number M of the others' blanket draws, the number T of the M + 1 reports in {x₀, x₁} (the
    differing user's two inputs; the other k − 2 symbols are uniform given T, whatever the input), and
    the number A of them equal to x₀. Given (M, T) = (m, t), A is the binary case's binomial pair
    (``_hockey_upper``) with t − 1 clones and a differing bit of signal
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
    (``gspa.privacy.clones.binomial_part``) and sums every run of counts on its own. It gives the observer
    M, which the real protocol may hide (when the others' inputs coincide with blanket draws): exhaustive
    enumeration of the shuffled protocol (tests) finds it above the truth everywhere, equal to it at many
    points; with one common budget at most about 1.35 times it in δ (n ≤ 5), more with personalized
    budgets, where the worst differing user is paired with the fewest blanket draws of any choice."""
    clones: CloneLaw            # the number M of the other users' blanket draws
    blanket_n: float            # the differing user's blanket probability (rounded down)
    k: int
    eps_n: float                # the differing user's budget: the pair is eps_n-DP
    scope: str = ""

    def _given(self, e: float, m: int) -> float:
        """Upper bound on G_m(e). The counts t are grouped in runs: on a run [t1, t2] the term
        H_{t-1}(e; L(m, t)) is at most H_{t1-1}(e; L(m, t2)) and at least H_{t2-1}(e; L(m, t1)) (H falls
        as t grows, rises with L, and L grows with t); runs are halved until the two sums agree to
        ``KARY_GAP`` (relative) or each run is one count."""
        p = 2.0 / self.k
        b1, b2 = binomial_part(int(m), p), binomial_part(int(m) + 1, p)
        # p = 2/k is rounded once: each binomial entry of the window then errs by a relative
        # (count (1/p + 1/(1 - p)) + 2) u at most, counted with the binomials' own errors
        slack = gamma(int((m + 1) * (1 / p + 1 / (1 - p))) + 2)
        t_lo = max(min(b1.offset + 1, b2.offset), 1)
        t_hi = max(b1.offset + b1.width, b2.offset + b2.width - 1)
        t = np.arange(t_lo, t_hi + 1)
        def at(part, counts):                                  # part's pmf at counts, 0 outside its window
            i = counts - part.offset
            ok = (i >= 0) & (i < part.width)
            out = np.zeros(counts.size)
            out[ok] = part.pmf[i[ok]]
            return out

        w1, w2 = at(b1, t - 1), at(b2, t)
        g, keep = self.blanket_n, 1.0 - self.blanket_n
        w = keep * w1 / (1.0 - b1.rho - slack) + g * w2 / (1.0 - b2.rho - slack)   # upper bounds on W(m, t)
        logodds = lambda r: (np.log1p(r) - np.log1p(-r)) * (1 + gamma(8))            # log((1+r)/(1-r)), up
        with np.errstate(divide="ignore"):
            r = np.minimum(keep * t / (keep * t + g * (m + 1.0) * p) * (1 + gamma(8)), 1.0)   # rounded up
            top = logodds(min(keep / (keep + g * p) * (1 + gamma(8)), 1.0))        # r(m, t) <= r(m, m + 1)
            L = np.minimum(logodds(r), top)
        edges = np.unique(np.linspace(0, t.size, min(32, t.size) + 1).astype(np.int64))
        while True:                                            # runs with a large gap are halved
            a, b = edges[:-1], edges[1:] - 1                   # run j: t[a_j] .. t[b_j]
            mass = np.add.reduceat(w, a)                       # each run summed on its own: a difference
                                                               # of running sums would lose the tiny ones
            up = mass * _hockey_upper(e, t[a] - 1, L[b])
            gap = up - mass * _hockey_upper(e, t[b] - 1, L[a])
            upper = float(up.sum())
            split = (gap > 0.25 * KARY_GAP * upper / a.size) & (b > a)
            if gap.sum() <= KARY_GAP * upper or not split.any():
                break
            edges = np.union1d(edges, a[split] + (b[split] - a[split] + 1) // 2)
        upper *= 1 + gamma(2 * t.size + 4)                     # the run sums and the dot product
        total = upper + keep * b1.tau / (1.0 - b1.rho) + g * b2.tau / (1.0 - b2.rho)
        return min(total * (1 + gamma(4)), 1.0)

    def _delta1(self, e: float) -> float:
        if e >= self.eps_n:       # the shuffle of eps_n-LDP reports is eps_n-DP (a post-processing)
            return 0.0
        G = lambda ms: np.array([self._given(e, int(mm)) for mm in np.atleast_1d(ms)])
        return min(1.0, (self.clones.upper(G, KARY_GAP) + TINY) * (1 + gamma(2)))

    def _top(self) -> float:
        return self.eps_n

    def _gaussian_guess(self, delta: float) -> float | None:
        """Starting point for the root-finder: mu = 2 r / sqrt(mean of T), r = 1 - g over 1 - g + g p (g = blanket_n)
        (the signal at t = (m + 1) p), T about p times the mean blanket count."""
        from gspa.privacy.fdp import gdp_epsilon
        mean_t = self.clones.mean * 2.0 / self.k
        if mean_t < 10:
            return None
        keep = 1.0 - self.blanket_n
        mu = 2.0 * keep / (keep + self.blanket_n) / np.sqrt(mean_t)
        return gdp_epsilon(min(0.5, delta), mu) if mu > 0 else None


def _kary_pair(eps, k: int, counts=None) -> KaryPair:
    """:class:`KaryPair` for budgets ``eps`` (or a histogram with ``counts``) of k-ary randomized response."""
    eps_n = float(np.max(eps))
    blanket = lambda e: k * np.exp(-e) / (1.0 + (k - 1) * np.exp(-e))      # k/(e^eps + k - 1), no overflow
    g = _halves(lambda e: np.minimum(blanket(e), 1.0) * _ROUND_DOWN, np.asarray(eps, dtype=float))
    g_n = float(min(1.0, blanket(eps_n))) * _ROUND_DOWN
    return KaryPair(_others(g, counts), g_n, k, eps_n,
                    f"shuffled {k}-ary randomized response with personalized budgets (blanket pair)")


@dataclass(frozen=True)
class _Combined:
    """Several bounds for one protocol, combined pointwise: ``_pick`` (array, scalar) chooses among them."""
    pairs: tuple
    scope: str = ""
    _pick = (np.maximum, max)

    def delta(self, eps):
        """The combined bound on delta(eps), pointwise: the smallest of the bounds for :class:`BestOf`,
        the largest for :class:`WorstOf` and :class:`BestLower`."""
        arr, one = self._pick
        return arr.reduce([np.asarray(p.delta(eps), dtype=float) for p in self.pairs]) \
            if np.ndim(eps) else one(p.delta(eps) for p in self.pairs)

    def epsilon(self, delta: float) -> float:
        """The combined eps(delta): the smallest of the bounds' values for :class:`BestOf`, the largest
        for :class:`WorstOf` and :class:`BestLower`."""
        return self._pick[1](p.epsilon(delta) for p in self.pairs)


    def certified_tradeoff(self, alpha, nodes: int = 256):
        """A certified lower bound on the protocol's trade-off curve (see the function
        ``certified_tradeoff`` of ``gspa.privacy.accountant``)."""
        return certified_tradeoff(self, alpha, nodes)


def certified_tradeoff(bound, alpha, nodes: int = 256):
    """f-DP from a certified (eps, delta(eps)) bound without enumerating outcomes: delta is evaluated at
    ``nodes`` equally spaced eps in [0, eps_top] (eps_top: where the bound reaches 1e-16, or its floor)
    and :func:`gspa.privacy.fdp.tradeoff_from_profile` takes the largest f_{eps, delta(eps)}. Every
    delta(eps) bounds both directions of the neighbouring relation (the pairs here are symmetric), so the
    result lies below the true trade-off curve of the protocol; against exact enumeration (tests) it is
    within about 1e-3 with 256 nodes. Cost: ``nodes`` + ~20 evaluations of delta, so ``nodes`` is in
    [2, MAX_NODES = 10^4]; ``bound`` is any object with ``delta(eps)`` and ``epsilon(delta)``."""
    from gspa.privacy.fdp import tradeoff_from_profile
    if not (callable(getattr(bound, "delta", None)) and callable(getattr(bound, "epsilon", None))):
        raise ValueError(f"bound must have delta(eps) and epsilon(delta) methods, got {bound!r:.80}")
    V.probability("alpha", alpha)
    nodes = V.integer("nodes", nodes, low=2, high=MAX_NODES)
    top = bound.epsilon(1e-16)
    if not np.isfinite(top):                    # the floor (e.g. delta_n) is above 1e-16
        top = float(getattr(bound, "log_odds", np.inf))
        top = top if np.isfinite(top) else 50.0
    eps = np.linspace(0.0, max(top, 1e-6), nodes)
    return tradeoff_from_profile(alpha, eps, np.asarray(bound.delta(eps), dtype=float))


class WorstOf(_Combined):
    """The differing user is one of several kinds, each covered by its own valid pair: delta(eps) is
    the largest of their bounds (the adversary chooses who differs)."""
    _pick = (np.maximum, max)


class BestOf(_Combined):
    """Several valid pairs for the same protocol: delta(eps) is the smallest of their bounds."""
    _pick = (np.minimum, min)


def _illinois(g, lo: float, hi: float, glo: float, ghi: float, rtol: float = 1e-9) -> float:
    """Root of g on [lo, hi] with g(lo) > 0 >= g(hi), by the Illinois variant of regula falsi (reuses
    the known end values; superlinear for smooth g). Returns a point within rtol of the root."""
    side = 0
    for _ in range(200):
        if hi - lo <= rtol * hi:
            break
        x = hi - ghi * (hi - lo) / (ghi - glo) if np.isfinite(glo) and glo != ghi else 0.5 * (lo + hi)
        if not lo < x < hi:
            x = 0.5 * (lo + hi)
        gx = g(x)
        if gx > 0:
            lo, glo = x, gx
            if side == -1:
                ghi *= 0.5
            side = -1
        else:
            hi, ghi = x, gx
            if side == 1:
                glo *= 0.5
            side = 1
    return hi


def _invert(delta_fn, delta: float, top: float, *, upper: bool = True, guess: float | None = None) -> float:
    """Invert a non-increasing delta(eps). ``upper``: the smallest eps with delta_fn(eps) <= delta,
    rounded up (inf if none; ``top`` is where delta_fn reaches its floor, inf if unknown). Otherwise:
    the largest eps with delta_fn(eps) > delta, rounded down (0 if none) — for lower bounds.
    ``guess``, if given, is tried first as a narrow bracket [guess/1.5, 1.5 guess]; when it straddles
    the root, monotonicity makes the checks at 0 and at ``top`` unnecessary (it only saves
    evaluations: the answer does not depend on it beyond the root-finder's tolerance)."""
    cache = {}
    fn = delta_fn

    def delta_fn(e):                          # memoised: the search revisits points near the root
        if e not in cache:
            cache[e] = fn(e)
        return cache[e]

    g = lambda e: float(np.log(max(delta_fn(e), 1e-320)) - np.log(delta))   # > 0 below the root
    lo = hi = None
    if guess is not None and np.isfinite(guess) and guess > 0:
        for w in (1.02, 1.5):                 # a tight bracket first (the guess is usually close)
            a, b = guess / w, w * guess if not np.isfinite(top) else min(w * guess, float(top))
            if a < b and g(a) > 0 and g(b) <= 0:
                lo, hi, glo, ghi = a, b, g(a), g(b)
                break
    if lo is None:
        if delta_fn(0.0) <= delta:
            return 0.0
        lo, hi = 0.0, (float(top) if np.isfinite(top) else 1.0)
        if not np.isfinite(top):
            while delta_fn(hi) > delta:
                hi *= 2.0
                if hi > 1e7:
                    return float("inf") if upper else hi
        elif delta_fn(hi) > delta:           # the floor (delta_n, or the counted errors) is above delta
            return float("inf") if upper else hi
        glo, ghi = g(lo), g(hi)
    eps = _illinois(g, lo, hi, glo, ghi)
    step = max(abs(eps), 1e-300) * 2e-9                  # the root-finder's tolerance
    if upper:
        while eps < hi and delta_fn(eps) > delta:        # round up until the bound meets the target
            eps, step = eps + step, 2.0 * step
        return float(min(eps, hi))                        # delta_fn(hi) <= delta was checked
    while eps > lo and delta_fn(eps) <= delta:            # round down until the lower bound exceeds it
        eps, step = max(eps - step, lo), 2.0 * step
    return float(eps)


# -- budgets and randomizers ------------------------------------------------------------------------

def check_budgets(eps, delta=None):
    """Validate personalized budgets: a 1-d array of at least two eps_i >= 0 (finite), and delta_i in
    [0, 1) (None: all 0; a scalar: the same for every user)."""
    if isinstance(eps, (bool, np.bool_)) or (isinstance(eps, (list, tuple)) and any(isinstance(x, (bool, np.bool_)) for x in eps)):
        raise ValueError(f"eps must be real budgets, got booleans {eps!r}")
    eps = V.real("eps", eps, low=0.0, high=np.inf, high_open=True)
    if eps.ndim != 1:
        raise ValueError(f"eps must be a 1-d array of per-user budgets, got shape {eps.shape}")
    if eps.size < 2:
        raise ValueError(f"eps must hold at least 2 users, got {eps.size}")
    if delta is None:
        delta = np.zeros(eps.shape)             # calloc: no pages written for a large array
    else:
        delta = V.real("delta", delta, low=0.0, high=1.0, high_open=True)
        if delta.ndim == 0:
            delta = np.full_like(eps, float(delta))
    V.same_length(eps=eps, delta=delta)
    return eps, delta


def check_histogram(eps, delta, counts):
    """Validate budgets given as a histogram: ``eps[j]`` (and ``delta[j]``; None: 0, a scalar: the same
    for all) is the budget of ``counts[j]`` >= 1 users, at least two users in all."""
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.dtype.kind not in "iu" or counts.size == 0 or np.any(counts < 1):
        raise ValueError(f"counts must be a non-empty 1-d array of integers >= 1, got {counts!r}")
    counts = counts.astype(np.int64)
    eps = V.real("eps", eps, low=0.0, high=np.inf, high_open=True)
    if eps.shape != counts.shape:
        raise ValueError(f"eps and counts must be 1-d of the same length, got shapes {eps.shape} and {counts.shape}")
    if int(counts.sum()) < 2:
        raise ValueError(f"counts must add up to at least 2 users, got {int(counts.sum())}")
    delta = np.zeros_like(eps) if delta is None else V.real("delta", delta, low=0.0, high=1.0, high_open=True)
    delta = np.full_like(eps, float(delta)) if delta.ndim == 0 else delta
    V.same_length(eps=eps, delta=delta)
    return eps, delta, counts


def clone_probability(eps, delta=None):
    """p_i = (1 - delta_i)/(1 + e^{eps_i}) of Lemma 1, eq. (11), as the paper states it (for binary
    randomized response and Lemma 4's quaternary randomizer it is the valid clone weight t_i)."""
    eps = V.nonnegative("eps", eps)
    delta = np.zeros_like(eps) if delta is None else V.real("delta", delta, low=0.0, high=1.0, high_open=True)
    return (1.0 - delta) * special.expit(-eps)


def _krr_terms(eps, eps_n: float, k: int, lam: float):
    """(weight, clone probabilities 2 t_i) of the k-RR decomposition with spread lambda (see the module
    docstring), computed without overflow."""
    en = np.exp(-eps_n)
    weight = (en + 1.0 + lam * (k - 2) * en) / (1.0 + (k - 1) * en) * (1 + gamma(8))
    zn_p = 1.0 + lam * (k - 2) * special.expit(-eps_n)              # Z_n p
    ei = np.exp(-np.asarray(eps, dtype=float))
    q = 2.0 * zn_p * ei / (1.0 + (k - 1) * ei)
    return min(weight, 1.0), np.minimum(q, 1.0) * _ROUND_DOWN


def personalized_pair(eps, delta=None, variant: str = "randomized", *, randomizer: str = "binary-rr",
                      k: int | None = None, counts=None, rounds: int = 1, reduction: str = "blanket"):
    """A certified reduced pair for the shuffle of n users with local budgets (eps_i, delta_i) that
    covers every choice of the differing user and every data set (see :mod:`gspa.privacy.accountant` for
    the randomizers, the variants and what is counted). Returns an object with ``delta(eps)`` and
    ``epsilon(delta)``.

    ``counts``: budgets given as a histogram — ``eps[j]`` (and ``delta[j]``) is the budget of
    ``counts[j]`` users, n = sum(counts) — so the cost grows with the number of distinct budgets, not
    of users. The result equals that of the per-user arrays ``np.repeat(eps, counts)``.

    ``rounds``: T runs of the shuffle on the same data (each user randomizes afresh every round),
    composed through the pair's privacy-loss distribution (:mod:`gspa.privacy.composition`).

    ``reduction``: ``"blanket"`` (default) or ``"clones"``. For k-ary randomized response with k >= 3 in
    the randomized variant, ``"blanket"`` is :class:`KaryPair` (tighter: it hides whether the differing
    user's report came from its blanket; about 1 to 20 s for eps(delta) against milliseconds) and
    ``"clones"`` the better of the two clone decompositions; for every other randomizer and variant the
    two names give the same clone pair. ``"cells"`` (binary randomized response and Lemma 4's quaternary
    randomizer): the worst case over the other users' data bounded cell by cell
    (:func:`gspa.privacy.cells.cells_pair`; within 0.5 % of the lower bound with a common budget, about 4 %
    with budgets U(0.01, 2) at 10^6 users, where the clone pair is 15–30 % above it).

    Paper items: Theorem 1 (eqs. (12)–(13), the shuffled output is a post-processing of the reduced
    pair) with Lemma 1's clone weights (eq. (11)), certified where eq. (11) holds (binary and k-ary
    randomized response, Lemma 4's quaternary randomizer, Laplace within equal budgets); the
    differing user's own report (eqs. (16)–(17)); Lemma 4 for ``randomizer="quaternary"``; with
    ``rounds`` > 1, the certified counterpart of Theorem 5."""
    from gspa.privacy.composition import compose
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    if reduction == "cells":
        if randomizer not in ("binary-rr", "quaternary") or k is not None:
            raise ValueError(f"reduction 'cells' is for randomizers 'binary-rr' and 'quaternary', got {randomizer!r}")
        if randomizer == "binary-rr" and delta is not None and np.any(np.asarray(delta, dtype=float) != 0):
            raise ValueError("reduction 'cells' with 'binary-rr' needs delta_i = 0; got nonzero delta (for "
                             "delta_i > 0 use randomizer='quaternary')")
        from gspa.privacy.cells import cells_pair
        return compose(cells_pair(eps, variant, delta=delta, counts=counts), rounds)
    return compose(_single_round(eps, delta, variant, randomizer, k, counts, reduction), rounds)


def _single_round(eps, delta, variant, randomizer, k, counts, reduction="blanket"):
    if counts is not None:
        eps, delta, counts = check_histogram(eps, delta, counts)
    else:
        eps, delta = check_budgets(eps, delta)          # counts stays None: one entry per user
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if randomizer not in RANDOMIZERS:
        raise ValueError(
            f"randomizer must be one of {RANDOMIZERS}, got {randomizer!r}: the clone decomposition "
            "(Lemma 1, eq. (11)) is certified only for these; fmt21_pair(eps0, n) covers a common eps0-LDP "
            "randomizer shared by all users, not user-tied personalized ones")
    if randomizer == "k-rr":
        if k is None or isinstance(k, bool):
            raise ValueError("randomizer 'k-rr' needs the alphabet size k (an integer >= 2)")
        k = V.integer("k", k, low=2)
    elif k is not None:
        raise ValueError(f"k is only used with randomizer='k-rr', got k={k!r} with {randomizer!r}")
    if randomizer in ("binary-rr", "k-rr", "laplace", "any-ldp") and np.any(delta > 0):
        raise ValueError(f"randomizer {randomizer!r} is (eps_i, 0)-LDP but delta has values up to "
                         f"{delta.max():g}; for delta_i > 0 use randomizer='quaternary' (Lemma 4's "
                         "(eps_i, delta_i) randomizer)")
    eps_n, delta_n = float(eps.max()), float(delta.max())
    L = np.inf if variant == "revealing" else eps_n
    if randomizer == "any-ldp":                  # no amplification: the most liberal user's local profile
        return ReducedPair(clone_law(values=np.array([0.5]), counts=np.array([0])), L, 1.0, 0.0,
                           "any eps_i-LDP randomizer per user: no amplification (reports may identify their users)")
    if randomizer == "laplace":
        if counts is None:
            values, counts = np.unique(eps, return_counts=True)
        else:
            values, inverse = np.unique(eps, return_inverse=True)
            counts = np.bincount(inverse, weights=counts).astype(np.int64)
        pairs = []
        for v, c in zip(values, counts):          # the differing user's group: clones from its other members
            q = min(1.0, 2.0 * float(special.expit(-v))) * _ROUND_DOWN
            clones = clone_law(values=np.array([q]), counts=np.array([c - 1]))
            pairs.append(ReducedPair(clones, np.inf if variant == "revealing" else float(v), 1.0, 0.0,
                                     f"shuffled Laplace, the {c} users with budget {v:g}"))
        return WorstOf(tuple(pairs), f"shuffled Laplace mechanism with personalized budgets ({variant} pair; "
                                      "clones only within a budget group)")
    if randomizer == "k-rr" and k > 2 and variant == "randomized" and reduction == "blanket":
        return _kary_pair(eps, k, counts)
    if randomizer == "k-rr" and k > 2:
        lams = (1.0,) if variant == "revealing" else (0.0, 1.0)
        pairs = []
        for lam in lams:
            weight, q = _krr_terms(eps, eps_n, k, lam)
            weight = 1.0 if variant == "revealing" else weight
            pairs.append(ReducedPair(_others(q, counts), L, weight, 0.0,
                                     f"shuffled {k}-ary randomized response, lambda = {lam:g}"))
        scope = f"shuffled {k}-ary randomized response with personalized budgets ({variant} pair)"
        return pairs[0] if len(pairs) == 1 else BestOf(tuple(pairs), scope)
    q = _halves(lambda e, d: np.minimum(2.0 * clone_probability(e, d), 1.0) * _ROUND_DOWN, eps, delta)
    name = "binary randomized response" if randomizer != "quaternary" else "Lemma 4's quaternary randomizer"
    return ReducedPair(_others(q, counts), L, 1.0, delta_n,
                       f"shuffled {name} with personalized budgets ({variant} pair)")


def _others(q, counts=None):
    """The clone law of the n - 1 users other than the differing one, who is taken to be a user with the
    largest clone probability (the fewest clones remain: the worst case). ``counts``: None for one entry
    of ``q`` per user, else the number of users with each entry."""
    if counts is None:                    # per-user budgets: q is our own array, reordered in place
        j = int(np.argmax(q))
        q[j], q[-1] = q[-1], q[j]
        return clone_law(q[:-1], overwrite=True)
    counts = counts.copy()
    counts[int(np.argmax(q))] -= 1
    values, inverse = np.unique(q, return_inverse=True)        # equal probabilities merged, as histogram() does
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
    return ReducedPair(clone_law(values=np.array([clone_prob]), counts=np.array([n - 1])), eps0, 1.0, 0.0)


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
    return ReducedPair(pair.clones, pair.log_odds, 1.0, 0.0, "randomized response, common budget (FMT23)")


# -- lower bounds: explicit neighbouring data sets of the real protocol ------------------------------

@dataclass(frozen=True)
class LowerBound:
    """A certified *lower* bound on the privacy profile of shuffled binary randomized response, from
    one explicit pair of neighbouring data sets: the other users' inputs are fixed, user j's input is
    0 or 1. The shuffled reports are equivalent to the number of 1s, C = S + (user j's report), where
    S (the others' 1s) is a Poisson-binomial law computed with certified tail bounds
    (:meth:`gspa.privacy.CloneLaw.tail_bounds`); any threshold event {C >= t} or {C <= t} gives
    delta(eps) >= P(event | one input) - e^eps P(event | the other), with every error subtracted.
    The likelihood ratio is monotone in C (S is log-concave), so thresholds are the optimal events.

    ``reveal`` (Lemma 4's quaternary randomizer, the others all holding 0): with this probability user j
    reveals input 1 in a symbol that no other report can carry (a flag F), so the events are
    {C >= t or F} and {C <= t - 1, no F}; under input 0 its reveal is taken as a 0 (a post-processing)."""
    others: CloneLaw
    eps_j: float
    extra: float            # TV bound for the round-off of the report probabilities themselves
    description: str = ""
    reveal: float = 0.0

    def _delta1(self, e: float) -> float:
        lo, hi = self.others.tail_bounds()
        lo = np.concatenate([[lo[0]], lo, [0.0]]) - self.extra            # S(>= offset - 1 + i)
        hi = np.concatenate([[1.0], hi, [min(1.0, hi[-1])]]) + self.extra
        lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
        r = self.reveal
        a0 = float(special.expit(-self.eps_j)) * (1 - r)                   # P(report 1 | x), no flag
        a1 = float(special.expit(self.eps_j)) * (1 - r)
        z0, z1 = 1 - a0, 1 - a1 - r                                        # P(report 0 | x), no flag
        # P_b(C >= t, no flag) = z_b S(>= t) + a_b S(>= t - 1), for t = offset .. offset + width
        up1_lo = z1 * lo[1:] + a1 * lo[:-1]
        up0_hi = z0 * hi[1:] + a0 * hi[:-1]
        ee = np.exp(min(e, 700.0))
        cands = [r * (1 - gamma(4))]                                       # {F}: never under input 0
        for pos, neg in ((r + up1_lo, up0_hi), (1.0 - up0_hi, (1.0 - r) - up1_lo)):   # {C >= t or F}; {C <= t - 1}
            with np.errstate(over="ignore", invalid="ignore"):
                v = np.where(neg > 0, pos - ee * neg, pos) - gamma(16) * (pos + np.where(neg > 0, ee * neg, 0.0))
            cands.append(np.nanmax(v))
        return float(max(max(cands), 0.0))

    def delta(self, eps):
        """Certified lower bound on the protocol's delta(eps)."""
        eps_arr = V.nonnegative("eps", eps)
        out = np.array([self._delta1(float(e)) for e in eps_arr.ravel()])
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """Certified lower bound on the protocol's eps(delta): the largest eps (rounded down) at which
        this pair still has delta(eps) > ``delta`` (0 if none; inf if its reveal alone exceeds it)."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        if self._delta1(np.inf) > delta:
            return float("inf")
        return _invert(self._delta1, delta, self.eps_j, upper=False)


class BestLower(_Combined):
    """The largest of several lower bounds (each one valid, so their maximum is)."""
    _pick = (np.maximum, max)


def _rounding_tv(p, counts, rel: int = 4) -> float:
    """A bound on the total variation between the count of 1s with the computed report probabilities p
    (each within a relative ``rel`` u of the true one; 4 for scipy's expit) and with the true ones, for
    ``counts[g]`` users of probability ``p[g]``: per group the smaller of c |dp| (a union bound) and
    sqrt(c / 2) |dp| / sqrt(p (1 - p)) (Pinsker with KL(Bin(c, p') || Bin(c, p)) <= c dp^2 / (p (1 - p)),
    the chi-square bound), summed over the groups (TV of independent sums is subadditive). At 10^9
    users this is ~1e-11 where the union bound alone gives ~1e-7."""
    dp = gamma(rel + 1) * p
    with np.errstate(divide="ignore"):
        pinsker = np.sqrt(counts / 2.0) * dp / np.sqrt(p * (1.0 - p))
    return float(np.minimum(counts * dp, np.where(np.isfinite(pinsker), pinsker, np.inf)).sum()) * (1 + gamma(8))


def lower_bound(eps, randomizer: str = "binary-rr", *, k: int | None = None, counts=None,
                variant: str = "randomized", delta=None):
    """Certified lower bounds on the privacy profile of shuffled binary randomized response with
    budgets ``eps`` (or the histogram ``counts[g]`` users with budget ``eps[g]``): the most liberal user
    differs, the others all hold 0 (equivalently all 1), or hold 0 and 1 in equal numbers within each
    budget (alternately in the order of their budgets — both data sets' laws come from one computation,
    ``gspa.privacy.clones.sum_and_difference``; with a histogram, the odd user of a group holds 0);
    the larger bound is returned. Any explicit pair of data sets gives a valid lower bound, so the histogram form
    costs what the upper bound's does: it grows with the number of distinct budgets, not of users.
    Compare with :func:`personalized_pair` (upper).

    ``randomizer="k-rr"`` with ``k >= 3``: k-ary randomized response, the largest budget differs and the
    others hold a third symbol (:class:`gspa.privacy.KaryLowerBound`; Wang et al.'s k-RR
    pair).

    ``randomizer="laplace"``: x + Lap(1/εᵢ) on inputs in [0, 1]. Every report is thresholded at 1/2 (a
    post-processing): on inputs 0 and 1 that is binary randomized response with flip probability
    exp(−εᵢ/2)/2, i.e. budget ln(2 exp(εᵢ/2) − 1), whose lower bound above is a lower bound for shuffled
    Laplace (the differing user's thresholded budget rounded down: a smaller budget is a post-processing).

    ``randomizer="quaternary"`` with ``delta`` (Lemma 4's (εᵢ, δᵢ) randomizer: a reveal of the input in a
    symbol of its own with probability δᵢ, else binary randomized response): every other user's reveal is
    taken as its bit (a post-processing; flip probability (1 − δᵢ)/(1 + exp(εᵢ))); with the others all at 0
    the differing user's reveal of a 1 is a symbol nobody else sends (:class:`LowerBound`'s ``reveal``), with
    the others half at 1 its reveal is taken as its bit too. Both the most liberal user (largest εᵢ, then δᵢ)
    and the user with the largest δᵢ (then εᵢ) are tried as the differing user; the larger bound is returned.

    ``variant="revealing"`` (binary randomized response): the differing user reports its input in the clear
    (L = inf), the protocol that the revealing pair of :func:`personalized_pair` covers — a lower bound for
    that variant, to set its upper bounds against. There the user with the smallest budget differs (its
    budget is not used; the others are then the least noisy).

    Not a paper item: the paper states upper bounds only; this lower bound brackets the true value."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if variant == "revealing" and randomizer != "binary-rr":
        raise ValueError(f"variant 'revealing' lower bounds are for randomizer 'binary-rr', got {randomizer!r}")
    if randomizer == "k-rr":
        if k is None or isinstance(k, bool):
            raise ValueError("randomizer 'k-rr' needs the alphabet size k (an integer >= 2)")
        k = V.integer("k", k, low=2)
        if k > 2:
            from gspa.privacy.variation import kary_lower_bound
            return kary_lower_bound(eps, k, counts=counts)
    elif randomizer not in ("binary-rr", "laplace", "quaternary"):
        raise ValueError(f"lower bounds are implemented for randomizers 'binary-rr', 'k-rr', 'laplace' and "
                         f"'quaternary', got {randomizer!r}")
    elif k is not None:
        raise ValueError(f"k is only used with randomizer='k-rr', got k={k!r}")
    laplace, quaternary = randomizer == "laplace", randomizer == "quaternary"
    if delta is not None and not quaternary:
        raise ValueError(f"delta is only used with randomizer='quaternary', got delta with {randomizer!r}")
    scope = ("shuffled Laplace mechanism on [0, 1], reports thresholded at 1/2, explicit neighbouring data sets"
             if laplace else f"shuffled {'Lemma 4 quaternary randomizer' if quaternary else 'binary randomized response'}"
             ", explicit neighbouring data sets")

    def flip(e, d=0.0):     # P(report 1 | input 0): e^(-e/2)/2 (relative error <= 2u), (1 - d) expit(-e) (<= 6u)
        return 0.5 * np.exp(-0.5 * e) if laplace else special.expit(-e) * (1.0 - d)

    def budget(e, d=0.0):   # the differing user's budget as binary RR (its reveal taken as its bit), rounded down
        if laplace:
            return float(np.log1p(2.0 * np.expm1(0.5 * e)) * (1.0 - 1e-12))
        if d == 0.0:
            return float(e)
        t = float(flip(e, d)) * (1.0 + gamma(8))
        return float(np.log((1.0 - t) / t) * (1.0 - 1e-12))

    def victim(e, d, r):    # the differing user's budget when its reveal r is a flag and the rest d - r a bit
        return np.inf if variant == "revealing" else budget(e, d - r)

    def differing(eps, d):  # the most liberal user; for the quaternary randomizer also the largest delta's;
        if variant == "revealing":          # revealing: the user with the smallest budget (the others are
            return [int(np.argmin(eps))]    # then the least noise; its own budget does not matter)
        if not quaternary:
            return [int(np.argmax(eps))]
        return sorted({int(np.lexsort((d, eps))[-1]), int(np.lexsort((eps, d))[-1])})

    bounds = []
    if counts is None:                              # both data sets from one computation (sum_and_difference)
        eps, d = check_budgets(eps, delta)
        rel = 8 if np.any(d > 0) else 4             # relative error of the computed report probabilities
        for j in differing(eps, d):
            p = flip(eps, d)                        # P(report 1 | input 0) of every user
            p[j] = p[-1]                            # the differing user leaves (the order does not matter)
            p = p[:-1]
            extra = gamma(rel) * float(p.sum())
            laws = sum_and_difference(p, overwrite=True)
            names = ("others all 0", "others alternate 0, 1 in the order of their budgets")
            dj = float(d[j])
            bounds += [LowerBound(law, victim(eps[j], dj, r), extra, f"user {j} differs, {name}", r)
                       for law, name, r in zip(laws, names, (dj, 0.0))]
        return BestLower(tuple(bounds), scope)
    eps, d, counts = check_histogram(eps, delta, counts)
    rel = 8 if np.any(d > 0) else 4
    for j in differing(eps, d):
        c = counts.copy()
        c[j] -= 1                                                 # the differing user leaves its group
        ones, zeros = c // 2, c - c // 2
        groups = {"others all 0": (np.zeros(eps.size), eps, d, c),
                  "others half 0, half 1": (np.concatenate([np.zeros(eps.size), np.ones(eps.size)]),
                                            np.concatenate([eps, eps]), np.concatenate([d, d]),
                                            np.concatenate([zeros, ones]))}
        dj, where = float(d[j]), f"a user with budget {eps[j]:g}" + (f", delta {d[j]:g}" if quaternary else "")
        for (name, (x, e, dd, cnt)), r in zip(groups.items(), (dj, 0.0)):
            p1 = np.where(x == 1, 1.0 - flip(e, dd) if laplace or quaternary else special.expit(e), flip(e, dd))
            keep = cnt > 0
            law, extra = clone_law(values=p1[keep], counts=cnt[keep], drop=0.0), _rounding_tv(p1[keep], cnt[keep], rel)
            bounds.append(LowerBound(law, victim(eps[j], dj, r), extra, f"{where} differs, {name}", r))
    return BestLower(tuple(bounds), scope)
