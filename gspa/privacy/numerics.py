"""Shared numerics of the certified bounds: the rounding model (unit round-off, Higham's gamma_k), binomial
tails with their counted allowance, the binomial pair's hockey-stick divergence, and inversion eps(delta).
Why each allowance suffices: the accountant chapter (book/chapters/accountant/using) and ARCHITECTURE.md.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import special

from gspa.util import validate as V

U = np.finfo(float).eps / 2  # unit round-off
SF_REL = (
    1e-12  # relative allowance on each binomial tail: Boost's incomplete beta through scipy, whose
)
# largest relative error against 30-digit mpmath up to 10^9 counts is 5.3e-14 (measured,
# tests/privacy/test_accountant.py): the one ingredient measured rather than proven
TINY = 2.0**-1020  # covers every term that underflowed (their weights sum to at most 1)


def gamma(k: int) -> float:
    """Higham's gamma_k = k u / (1 - k u): the relative error bound of k floating-point operations,
    for an integer k in [0, 2^50] (k u < 1)."""
    k = V.integer("k", k, low=0, high=2**50)
    return k * U / (1.0 - k * U)


_SPLIT_MIN = 256  # arrays at least this long are split in two halves (two cores)
_POOL = {}  # process id -> its one-thread pool (a forked child makes its own)


def halves(f, *arrays):
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


def binomial_sf(k, m):
    """P(X >= k) for X ~ Binomial(m, 1/2), vectorised: 1 for k <= 0, 0 for k > m, otherwise
    I_{1/2}(k, m - k + 1) evaluated as Boost's ``betaincc(m - k + 1, k, 1/2)``."""
    k, m = np.broadcast_arrays(np.asarray(k, np.int64), np.asarray(m, np.int64))
    inside = (k >= 1) & (k <= m)
    kk, mm = np.where(inside, k, 1), np.where(inside, m, 1)
    a, b = (mm - kk + 1).astype(float).ravel(), kk.astype(float).ravel()
    out = halves(lambda x, y: special.betaincc(x, y, 0.5), a, b).reshape(k.shape)
    return np.where(k <= 0, 1.0, np.where(k > m, 0.0, out))


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def hockey_upper(eps: float, m, log_odds) -> np.ndarray:
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
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # the masked branches only
        lq = np.where(fin, -np.log1p(np.exp(-Lf)), 0.0)  # log q
        log_c1 = np.where(fin, np.log(-np.expm1(eps - Lf)), 0.0)
        log_c2 = np.where(fin, eps + np.log(-np.expm1(-Lf - eps)), float(eps))
    x = (m + 1.0) * special.expit(log_c2 - log_c1)  # threshold: ratio a/(m-a+1) > c2/c1
    a0 = np.floor(x).astype(np.int64) + 1
    # x carries a relative rounding error of a few u: a0 is certain unless x is that close to an
    # integer; there the neighbouring thresholds a0 - 1 and a0 + 1 are evaluated too (each gives a
    # lower bound on the supremum, so the largest upper bound covers the true threshold)
    frac = x - np.floor(x)
    unsure = np.minimum(frac, 1.0 - frac) <= 64 * U * np.maximum(x, 1.0)
    allow = SF_REL + gamma(12)

    def bound(t, mm, c1, c2):
        tails = binomial_sf(
            np.concatenate([t - 1, t]), np.concatenate([mm, mm])
        )  # both tails in one call
        pos = np.exp(c1 + _log(tails[: t.size]))
        neg = np.exp(c2 + _log(tails[t.size :]))
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


def map_delta(delta1, eps):
    """delta1 (a function of one eps >= 0) over a scalar or an array of eps, validated."""
    delta1 = V.function("delta1", delta1)
    eps_arr = V.nonnegative("eps", eps)
    out = np.array([delta1(float(e)) for e in eps_arr.ravel()])
    return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])


def _illinois(g, lo: float, hi: float, glo: float, ghi: float, rtol: float = 1e-9) -> float:
    """Root of g on [lo, hi] with g(lo) > 0 >= g(hi), by the Illinois variant of regula falsi (reuses
    the known end values; superlinear for smooth g). Returns a point within rtol of the root."""
    side = 0
    for _ in range(200):
        if hi - lo <= rtol * hi:
            break
        x = (
            hi - ghi * (hi - lo) / (ghi - glo)
            if np.isfinite(glo) and glo != ghi
            else 0.5 * (lo + hi)
        )
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


def invert(
    delta_fn, delta: float, top: float, *, upper: bool = True, guess: float | None = None
) -> float:
    """Invert a non-increasing delta(eps). ``upper``: the smallest eps with delta_fn(eps) <= delta,
    rounded up (inf if none; ``top`` is where delta_fn reaches its floor, inf if unknown). Otherwise:
    the largest eps with delta_fn(eps) > delta, rounded down (0 if none) — for lower bounds.
    ``guess``, if given, is tried first as a narrow bracket [guess/1.5, 1.5 guess]; when it straddles
    the root, monotonicity makes the checks at 0 and at ``top`` unnecessary (it only saves
    evaluations: the answer does not depend on it beyond the root-finder's tolerance)."""
    cache = {}
    fn = delta_fn

    def delta_fn(e):  # memoised: the search revisits points near the root
        if e not in cache:
            cache[e] = fn(e)
        return cache[e]

    g = lambda e: float(np.log(max(delta_fn(e), 1e-320)) - np.log(delta))  # > 0 below the root
    lo = hi = None
    if guess is not None and np.isfinite(guess) and guess > 0:
        for w in (1.02, 1.5):  # a tight bracket first (the guess is usually close)
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
        elif delta_fn(hi) > delta:  # the floor (delta_n, or the counted errors) is above delta
            return float("inf") if upper else hi
        glo, ghi = g(lo), g(hi)
    eps = _illinois(g, lo, hi, glo, ghi)
    step = max(abs(eps), 1e-300) * 2e-9  # the root-finder's tolerance
    if upper:
        while eps < hi and delta_fn(eps) > delta:  # round up until the bound meets the target
            eps, step = eps + step, 2.0 * step
        return float(min(eps, hi))  # delta_fn(hi) <= delta was checked
    while eps > lo and delta_fn(eps) <= delta:  # round down until the lower bound exceeds it
        eps, step = max(eps - step, lo), 2.0 * step
    return float(eps)
