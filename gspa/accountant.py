"""Exact privacy accounting for the reduced pair of Theorem 1 (certified upper bounds).

Paper items: Lemma 1 (eqs. (9)–(11): the clone decomposition), Theorem 1 (eqs. (12)–(13): the
shuffled output is a post-processing of the counts of 0s and 1s), eqs. (16)–(17) (the differing
user's own report).

**The pair.** Let M be the number of clones among the other users (M ~ sum of Bernoulli(2 p_i),
p_i = (1 - delta_i)/(1 + e^{eps_i}); see :mod:`gspa.clones`); given M = m, the number of clone
reports equal to 0 is Binomial(m, 1/2). The differing user reports 0 under D0 with probability q
(and 1 with probability 1 - q), the other way round under D1, except that with probability delta_n
its report is perfectly distinguishing (outcomes A and B of Lemma 4's quaternary pair). We observe
the counts (A, B) of 0s and 1s. For each m the hockey-stick divergence is a difference of two
binomial tails, so

    delta(eps) = delta_n + (1 - delta_n) * sum_m P(M = m) H_m(eps; q)   (+ the counted errors).

Two variants, both exposed:

* ``"revealing"`` — q = 1, delta_n = 0: the differing user's report reveals its input, which is what
  the paper's Lemma 3 and eq. (17) analyse (rho'_0 = (1,0,0)' + V). Every randomizer of the
  differing user is a post-processing of its input, so this bound holds whatever (eps_n, delta_n).
* ``"randomized"`` — q = e^{eps_n}/(1 + e^{eps_n}) and the delta_n event distinguishing. Eq. (17)
  instead treats the delta_n event as *indistinguishable* (T = 1 - alpha): that is wrong, because in
  Lemma 4's quaternary decomposition the delta mass sits on A under one input and on B under the
  other. Theorem 1's ``Delta_2`` outcome must count fully into delta.

**Which user differs.** With personalized budgets the worst case over the differing user j is
covered rigorously: delta_j(eps) is monotone in the clone law (more clones are a post-processing of
fewer — add an independent fair coin), in q (randomized response with a larger budget dominates a
smaller one) and in delta_j. So dropping the user with the largest p from the clones and pairing it
with the largest eps_j and delta_j over all users gives one pair that dominates every j.

Every delta returned here is an upper bound for the pair: truncated clone mass and FFT round-off
(:class:`gspa.clones.CloneCount`) are added, and epsilon(delta) is rounded up.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from . import _validate as V
from .clones import CloneCount, clone_count

VARIANTS = ("revealing", "randomized")


def clone_probability(eps, delta):
    """p_i = (1 - delta_i) / (1 + e^{eps_i}) of Lemma 1, eq. (11): the probability that user i
    reports a clone of Q^0 (and, equally, of Q^1)."""
    eps = V.nonnegative("eps", eps)
    delta = V.real("delta", delta, low=0.0, high=1.0, high_open=True)
    return (1.0 - delta) * special.expit(-eps)


def _binom_sf(k, m):
    """P(X >= k) for X ~ Binomial(m, 1/2), vectorised; exactly 1 for k <= 0 and 0 for k > m."""
    k = np.asarray(k, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    inside = (k > 0) & (k <= m)
    kk = np.where(inside, k - 1, 0)
    mm = np.where(inside, m, 1)
    out = special.bdtrc(kk, mm, 0.5)              # P(X > k - 1)
    return np.where(k <= 0, 1.0, np.where(k > m, 0.0, out))


def hockey_per_count(eps: float, m: np.ndarray, q: float) -> np.ndarray:
    """H_m(eps; q) = sum_a max(0, P0(a | m) - e^eps P1(a | m)) for the count a of 0-reports, where
    P0(a | m) = q Bin(a - 1; m) + (1 - q) Bin(a; m) and P1 swaps q and 1 - q (Bin = Binomial(m, 1/2)).

    The likelihood ratio P0/P1 increases in a, so the positive part is a tail {a >= a0}:
    H_m = q S(a0 - 1) + (1 - q) S(a0) - e^eps [(1 - q) S(a0 - 1) + q S(a0)],  S(k) = P(X >= k)."""
    m = np.asarray(m, dtype=np.int64)
    e = np.exp(eps)
    if q <= 0.5 or q * 1.0 <= e * (1.0 - q):
        return np.zeros(m.shape)            # eps >= eps_n: the pair is pure eps_n-DP, nothing left
    # r_a = Bin(a-1)/Bin(a) = a / (m - a + 1); condition q r + 1 - q > e ((1-q) r + q)  <=>  r > R
    R = (e * q - (1.0 - q)) / (q - e * (1.0 - q))
    a0 = np.floor(R * (m + 1.0) / (1.0 + R)).astype(np.int64) + 1
    s1, s0 = _binom_sf(a0 - 1, m), _binom_sf(a0, m)
    h = q * s1 + (1.0 - q) * s0 - e * ((1.0 - q) * s1 + q * s0)
    return np.maximum(h, 0.0)


@dataclass(frozen=True)
class ReducedPair:
    """The reduced pair of Theorem 1 for one differing user (or a pair dominating all of them)."""
    clones: CloneCount
    q: float = 1.0          # probability that the differing user's report equals its input bit
    delta_n: float = 0.0    # probability of the differing user's distinguishing event

    def delta(self, eps) -> np.ndarray | float:
        """Certified upper bound on the hockey-stick divergence at eps (both directions agree)."""
        eps_arr = V.nonnegative("eps", eps)
        m = self.clones.support
        w = self.clones.pmf
        out = np.empty(eps_arr.size)
        for i, e in enumerate(eps_arr.ravel()):
            h = hockey_per_count(float(e), m, self.q)
            out[i] = self.delta_n + (1.0 - self.delta_n) * (float(w @ h) + self.clones.error)
        out = np.minimum(out, 1.0)
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """Smallest eps (rounded up) with delta(eps) <= delta; inf if no eps reaches it."""
        delta = float(V.probability("delta", delta, open_low=True, open_high=True))
        if self.delta(0.0) <= delta:
            return 0.0
        floor_ = self.delta_n + (1.0 - self.delta_n) * self.clones.error
        if floor_ >= delta:
            return float("inf")
        hi = 1.0
        while self.delta(hi) > delta:
            hi *= 2.0
            if hi > 1e4:
                return float("inf")
        eps = optimize.brentq(lambda e: self.delta(e) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12)
        while self.delta(eps) > delta:
            eps = float(np.nextafter(eps, np.inf)) + 1e-13
        return float(eps)

    def pmfs(self):
        """The two distributions over observed (m, a) as flat probability vectors (for small n):
        outcome (m, a) = m clones plus the differing user, a of the m + 1 reports equal to 0.
        The distinguishing delta_n event is appended as two extra outcomes; each vector sums to 1."""
        from scipy.stats import binom
        m = self.clones.support
        w = self.clones.pmf / self.clones.pmf.sum()
        P0, P1 = [], []
        for mm, ww in zip(m, w):
            a = np.arange(mm + 2)
            b_prev = binom.pmf(a - 1, mm, 0.5)
            b_here = binom.pmf(a, mm, 0.5)
            P0.append(ww * (self.q * b_prev + (1 - self.q) * b_here))
            P1.append(ww * ((1 - self.q) * b_prev + self.q * b_here))
        P0 = np.concatenate(P0) * (1 - self.delta_n)
        P1 = np.concatenate(P1) * (1 - self.delta_n)
        return (np.concatenate([P0, [self.delta_n, 0.0]]), np.concatenate([P1, [0.0, self.delta_n]]))

    def tradeoff(self, alpha):
        """Exact trade-off curve T(rho_0, rho_1)(alpha) (enumerates outcomes: for n up to ~1e4)."""
        from .hypothesis import tradeoff_curve
        return tradeoff_curve(*self.pmfs(), alpha)


def check_budgets(eps, delta=None):
    """Validate personalized budgets: eps_i >= 0 finite, delta_i in [0, 1), at least two users."""
    eps = V.real("eps", eps, low=0.0, high=np.inf, high_open=True)
    if eps.ndim == 0:
        raise ValueError("eps must be a 1-d array of per-user budgets, got a scalar")
    if eps.size < 2:
        raise ValueError(f"eps must hold at least 2 users, got {eps.size}")
    if delta is None:
        delta = np.zeros_like(eps)
    else:
        delta = V.real("delta", delta, low=0.0, high=1.0, high_open=True)
        if delta.ndim == 0:
            delta = np.full_like(eps, float(delta))
    V.same_length(eps=eps, delta=delta)
    return eps, delta


def personalized_pair(eps, delta=None, variant: str = "revealing", *, tol: float = 1e-18) -> ReducedPair:
    """A reduced pair that dominates the shuffled protocol for *every* choice of differing user.

    ``eps``, ``delta``: per-user local budgets (eps_i, delta_i). See the module docstring for the
    two variants and the worst-case argument."""
    eps, delta = check_budgets(eps, delta)
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    p = clone_probability(eps, delta)
    drop = int(np.argmax(p))
    others = np.delete(2.0 * p, drop)
    clones = clone_count(others, tol=tol)
    if variant == "revealing":
        return ReducedPair(clones, 1.0, 0.0)
    return ReducedPair(clones, float(special.expit(eps.max())), float(delta.max()))


def clone_pair(eps0: float, n: int, clone_prob: float, *, tol: float = 1e-18) -> ReducedPair:
    """Uniform eps0-LDP randomizers with a given clone probability (Feldman–McMillan–Talwar):
    n - 1 others each a clone w.p. ``clone_prob``; the differing user keeps its eps0 randomization
    (q = e^eps0 / (1 + e^eps0))."""
    eps0 = float(V.nonnegative("eps0", eps0))
    n = V.integer("n", n, low=2)
    clone_prob = float(V.probability("clone_prob", clone_prob))
    return ReducedPair(clone_count(np.full(n - 1, clone_prob), tol=tol), float(special.expit(eps0)), 0.0)


def fmt21_pair(eps0: float, n: int) -> ReducedPair:
    """FMT21 ("Hiding among the clones", FOCS 2021), numerical bound: clone probability e^{-eps0}.
    Valid for any eps0-LDP randomizer (their Theorem 3.1 for the non-adaptive and adaptive cases)."""
    return clone_pair(eps0, n, float(np.exp(-V.nonnegative("eps0", eps0))))


def fmt23_pair(eps0: float, n: int) -> ReducedPair:
    """FMT23 ("Stronger privacy amplification by shuffling", SODA 2023): clone probability
    2/(e^{eps0} + 1). After the published erratum this holds for a restricted class of randomizers
    (e.g. binary and k-ary randomized response), not for every eps0-LDP randomizer."""
    eps0 = float(V.nonnegative("eps0", eps0))
    return clone_pair(eps0, n, float(2.0 * special.expit(-eps0)))
