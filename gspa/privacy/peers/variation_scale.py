r"""Lemma 4.5 of Wang et al. at realistic sizes: an explicit pair of data sets whose exact δ(ε) exceeds the pair's.
Derivations and checks: the peers chapter (book/chapters/accountant/peers).

:mod:`gspa.privacy.peers.variation` shows by exhaustive enumeration that Wang et al.'s reduced pair (VLDB 2024,
Lemma 4.5) is below the shuffled k-ary randomized response protocol for a few users. Enumeration stops at
n ≈ 6; this module follows one explicit pair of neighbouring data sets to any n.

**The data sets.** n users of k-ary randomized response (k ≥ 3) with one budget ε₀; the differing user holds
x⁰ or x¹, and the m = n − 1 others all hold x⁰ (the data sets of the two-user counterexample). With
q = 1/(e^ε₀ + k − 1), each other user reports x⁰ with probability p₀ = e^ε₀ q, x¹ with q, another symbol with
r = (k − 2)q. The observer counts the reports of x⁰ (a) and of x¹ (b) and lumps the rest: a post-processing
of the shuffled output, so the hockey-stick divergence of the two count laws is a *lower* bound on the
protocol's δ(ε). The others' counts (A, B) are multinomial, B ~ Bin(m, q) and A | B ~ Bin(m − B, p₀/(1 − q)),
with law M, and the differing user adds (1, 0), (0, 1) or (0, 0):

.. math:: P(a, b) = p_0 M(a-1, b) + q\,M(a, b-1) + r\,M(a, b), \qquad
          Q(a, b) = q\,M(a-1, b) + p_0 M(a, b-1) + r\,M(a, b).

**Certified lower bound.** M is evaluated on a window of (a, b) whose outside mass is at most ``tail`` (a union
bound on the two binomial marginals, A ~ Bin(m, p₀), B ~ Bin(m, q)); the cells outside are dropped, so the
computed P̂ ≤ P and Q̂ ≤ Q cellwise (up to round-off). For the event S = {P̂ > e^ε Q̂},

.. math:: \delta(\varepsilon) \ge P(S) - e^\varepsilon Q(S) \ge \hat P(S)(1 - \rho) - e^\varepsilon\,(\hat Q(S)(1 + \rho) + t),

t the outside mass and ρ the relative error of a computed cell (``PMF_REL`` on each binomial probability from
scipy, plus the floating-point operations and the sum, Higham's γ). Both directions of the divergence are
taken (the data sets are not symmetric). :func:`mp_gap` recomputes one point independently in mpmath (the
multinomial from its formula, and Wang et al.'s pair from its definition rather than from
``VariationRatioPair``'s threshold sums), each rounded to its safe side.

Not a paper item of GSPA: a check of a peer's published reduction.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from gspa.util import validate as V
from gspa.privacy.numerics import gamma, invert
from gspa.privacy.peers.variation import PAIR_ABS, PAIR_REL, VariationRatioPair, parameters

PMF_REL = 1e-11  # relative allowance on each binomial probability computed by scipy.stats.binom.pmf
TAIL = 1e-24  # default mass allowed outside the window
MAX_CELLS = 4 * 10**7  # window cells (rows of the count of x¹ times columns of the count of x⁰)
BLOCK = 128  # rows of the window handled at once (memory)
MAX_USERS = 10**7


def _probs(eps0: float, k: int) -> tuple[float, float, float, float]:
    """(p₀, q, r, p₀/(1 − q)) of k-RR with budget ``eps0``, computed without overflow."""
    en = float(np.exp(-eps0))
    q = en / (1.0 + (k - 1) * en)
    p0 = 1.0 / (1.0 + (k - 1) * en)
    return p0, q, (k - 2) * q, 1.0 / (1.0 + (k - 2) * en)


def _range(m: int, p: float, pbar: float, tail: float) -> tuple[int, int, float]:
    """[lo, hi] holding all but ``tail``/4 of Bin(m, p) (``tail``/8 each side); and the mass outside,
    from lower tails only (scipy's binomial isf and sf are unreliable far out: the upper tail of Bin(m, p) is
    the lower tail of m minus it, Bin(m, 1 − p); ``pbar`` = 1 − p, computed by the caller without cancellation)."""
    lo = max(int(stats.binom.ppf(tail / 8, m, p)) - 1, 0)
    hi = min(m - int(stats.binom.ppf(tail / 8, m, pbar)) + 1, m)
    out = float(stats.binom.cdf(lo - 1, m, p)) if lo > 0 else 0.0
    out += float(stats.binom.cdf(m - hi - 1, m, pbar)) if hi < m else 0.0
    return lo, hi, out


def window(n: int, k: int, eps0, tail: float = TAIL) -> dict:
    """The window of the others' counts for :func:`same_symbol_delta`: ``a`` (x⁰) and ``b`` (x¹) ranges, the
    number of cells and ``outside``, an upper bound on the mass of the others' count law outside it (at most
    about ``tail``)."""
    n = V.integer("n", n, low=2, high=MAX_USERS)
    k = V.integer("k", k, low=3, high=10**6)
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, low_open=True, scalar=True)
    tail = V.real("tail", tail, low=1e-300, high=1e-3, scalar=True)
    p0, q, r, _ = _probs(eps0, k)
    m = n - 1
    alo, ahi, aout = _range(m, p0, (k - 1) * q, tail)
    blo, bhi, bout = _range(m, q, p0 + r, tail)
    cells = (ahi - alo + 1) * (bhi - blo + 1)
    return {
        "a": (alo, ahi),
        "b": (blo, bhi),
        "cells": cells,
        "outside": min(1.0, 2.0 * (aout + bout)),
    }


def _rows(m: int, q: float, pc: float, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """M(a, b) for rows b and columns a (the multinomial law of the others' counts; 0 outside its support)."""
    return stats.binom.pmf(b, m, q)[:, None] * stats.binom.pmf(a[None, :], m - b[:, None], pc)


def same_symbol_delta(n: int, k: int, eps0, eps, tail: float = TAIL):
    """Certified lower bound on the δ(ε) of n shuffled users of k-ary randomized response (k ≥ 3, one budget
    ``eps0``): the hockey-stick divergence (larger direction) of the counts of x⁰ and x¹ when the differing
    user holds x⁰ or x¹ and every other user holds x⁰, every error counted against it (module docstring).
    ``eps`` a number or an array (at most 10⁴ values)."""
    W = window(n, k, eps0, tail)
    eps0 = float(eps0)
    e_arr = V.real("eps", eps, low=0.0, high=700.0, max_size=10000)
    if W["cells"] > MAX_CELLS:
        raise ValueError(
            f"the window has {W['cells']} cells, at most MAX_CELLS = {MAX_CELLS} are allowed "
            f"(n = {n}, k = {k}, eps0 = {eps0:g}); raise tail or lower n"
        )
    p0, q, r, pc = _probs(eps0, int(k))
    m = int(n) - 1
    (alo, ahi), (blo, bhi) = W["a"], W["b"]
    a = np.arange(alo, ahi + 1)
    E = np.exp(e_arr.ravel())
    sums = np.zeros((4, E.size))  # P(S), Q(S) for S = {P > E Q}; Q(S'), P(S') for S' = {Q > E P}
    prev = np.zeros(a.size)  # M at row b - 1 (0 below the window)
    for start in range(blo, bhi + 2, BLOCK):
        b = np.arange(start, min(start + BLOCK, bhi + 2))
        M = _rows(m, q, pc, a, b)
        M[b > bhi] = 0.0  # the row bhi + 1 is outside the window: only shifted mass lands there
        Mprev = np.vstack([prev[None, :], M[:-1]])  # M(a, b - 1)
        zero = np.zeros((b.size, 1))
        Mleft = np.hstack([zero, M])  # M(a - 1, b) on columns alo .. ahi + 1
        Mdown = np.hstack([Mprev, zero])
        Mhere = np.hstack([M, zero])
        P = p0 * Mleft + q * Mdown + r * Mhere
        Q = q * Mleft + p0 * Mdown + r * Mhere
        for i, ee in enumerate(E):
            s = P > ee * Q
            sums[0, i] += P[s].sum()
            sums[1, i] += Q[s].sum()
            s = Q > ee * P
            sums[2, i] += Q[s].sum()
            sums[3, i] += P[s].sum()
        prev = M[-1]
    cells = (a.size + 1) * (bhi - blo + 2)
    rho = 2 * PMF_REL + gamma(24) + gamma(cells + 8)
    out = np.maximum(sums[[0, 2]] * (1 - rho) - E * (sums[[1, 3]] * (1 + rho) + W["outside"]), 0.0)
    out = out.max(axis=0) * (1 - gamma(4))
    return out.reshape(e_arr.shape) if e_arr.ndim else float(out[0])


def gap(n: int, k: int, eps0, points: int = 40, tail: float = TAIL) -> dict:
    """The largest excess, over ``points`` values of e in [0, ε₀), of :func:`same_symbol_delta` (a certified
    lower bound on the protocol's δ) over Wang et al.'s pair's δ(e) raised by its round-off allowance
    (``PAIR_REL``, ``PAIR_ABS`` of :mod:`gspa.privacy.peers.variation`): a dict with ``eps`` (where), ``lower``,
    ``pair`` and ``excess`` (positive: the pair is below the protocol there)."""
    points = V.integer("points", points, low=1, high=10000)
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, low_open=True, scalar=True)
    grid = np.linspace(0.0, eps0, points, endpoint=False)
    lower = same_symbol_delta(n, k, eps0, grid, tail)
    pair = VariationRatioPair(*parameters("k-rr", eps0, k=k), int(n)).delta(grid)
    excess = lower - (pair * (1 + PAIR_REL) + PAIR_ABS)
    i = int(np.argmax(excess))
    return {
        "n": int(n),
        "k": int(k),
        "eps0": eps0,
        "eps": float(grid[i]),
        "lower": float(lower[i]),
        "pair": float(pair[i]),
        "excess": float(excess[i]),
    }


def scan(
    n_values=(1000, 10000),
    k_values=(3,),
    eps0_values=(5.0, 7.0),
    points: int = 40,
    tail: float = TAIL,
) -> list[dict]:
    """:func:`gap` for every combination of ``n_values`` × ``k_values`` × ``eps0_values`` (lists of at most 20
    values each), in that order."""
    users = V.real("n_values", n_values, low=2, high=MAX_USERS, ndim=1, max_size=20)
    ks = V.real("k_values", k_values, low=3, high=10**6, ndim=1, max_size=20)
    eps0s = V.real(
        "eps0_values", eps0_values, low=0.0, high=700.0, low_open=True, ndim=1, max_size=20
    )
    for name, v in (("n_values", users), ("k_values", ks)):
        if np.any(v != np.round(v)):
            raise ValueError(f"{name} must hold integers, got {v.tolist()!r}")
    for n in users:  # every window checked before any work
        for k in ks:
            for e0 in eps0s:
                cells = window(int(n), int(k), float(e0), tail)["cells"]
                if cells > MAX_CELLS:
                    raise ValueError(
                        f"the window of n = {int(n)}, k = {int(k)}, eps0 = {e0:g} has {cells} cells, "
                        f"at most MAX_CELLS = {MAX_CELLS}"
                    )
    return [gap(int(n), int(k), float(e0), points, tail) for n in users for k in ks for e0 in eps0s]


def mp_gap(n: int, k: int, eps0, e, digits: int = 40, sds: int = 40) -> tuple[float, float]:
    """An independent recomputation at one point, in ``digits``-digit arithmetic (mpmath): (a lower bound on
    the data sets' δ(e), an upper bound on Wang et al.'s pair's δ(e)), as floats rounded toward their safe
    sides. The data sets' law is the multinomial from its formula on the cells within ``sds`` standard
    deviations of the mean of each count, the outside mass (1 minus the window's, in ``digits`` digits)
    counted against it; the pair's is summed from its definition (C ~ Bin(n − 1, 2αp/q), A | C ~ Bin(C, 1/2),
    Δ) over C within ``sds`` standard deviations, the rest of C's mass added to it. Cost: the cells of
    both windows (at most 2·10⁵ and 5·10⁵)."""
    import mpmath as mp

    n = V.integer("n", n, low=2, high=MAX_USERS)
    k = V.integer("k", k, low=3, high=10**6)
    eps0 = V.real("eps0", eps0, low=0.0, high=50.0, low_open=True, scalar=True)
    e = V.real("e", e, low=0.0, high=50.0, scalar=True)
    digits = V.integer("digits", digits, low=20, high=200)
    sds = V.integer("sds", sds, low=5, high=200)
    m = n - 1
    with mp.workdps(digits):
        E0, Ee = mp.exp(mp.mpf(eps0)), mp.exp(mp.mpf(e))
        q = 1 / (E0 + k - 1)
        p0, r = E0 * q, (k - 2) * q

        def span(p):
            mu, sd = m * p, mp.sqrt(m * p * (1 - p))
            return max(0, int(mp.floor(mu - sds * sd)) - 1), min(m, int(mp.ceil(mu + sds * sd)) + 1)

        (alo, ahi), (blo, bhi) = span(p0), span(q)
        # Wang et al.'s pair: alpha = beta/(p - 1) = q, own = p alpha = p0, clone probability 2 alpha p/q = 2q
        rc = 2 * q
        clo, chi = span(rc)
        if (chi - clo + 1) * (chi + 1) > 5 * 10**5:
            raise ValueError(
                f"the pair's window is too large (n = {n}, k = {k}, eps0 = {eps0:g}): lower sds"
            )
        if (ahi - alo + 1) * (bhi - blo + 1) > 2 * 10**5:
            raise ValueError(
                f"the data sets' window has {(ahi - alo + 1) * (bhi - blo + 1)} cells, at most 2*10^5 "
                f"(n = {n}, k = {k}, eps0 = {eps0:g}, sds = {sds}): lower sds"
            )
        memo = {}

        def lf(i):  # log i!
            if i not in memo:
                memo[i] = mp.loggamma(i + 1)
            return memo[i]

        lp0, lq, lr = mp.log(p0), mp.log(q), mp.log(r)
        M = {}
        for b in range(blo, bhi + 1):
            for a in range(alo, min(ahi, m - b) + 1):
                c = m - a - b
                M[(a, b)] = mp.exp(lf(m) - lf(a) - lf(b) - lf(c) + a * lp0 + b * lq + c * lr)
        outside = max(mp.mpf(0), 1 - mp.fsum(M.values()))
        get = lambda a, b: M.get((a, b), mp.mpf(0))
        P, Q = {}, {}
        for b in range(blo, bhi + 2):
            for a in range(alo, ahi + 2):
                x, y, z = get(a - 1, b), get(a, b - 1), get(a, b)
                P[(a, b)], Q[(a, b)] = p0 * x + q * y + r * z, q * x + p0 * y + r * z

        def lower(X, Y):
            S = [c for c in X if X[c] > Ee * Y[c]]
            return mp.fsum(X[c] for c in S) - Ee * (mp.fsum(Y[c] for c in S) + outside)

        truth = max(lower(P, Q), lower(Q, P), mp.mpf(0))
        lrc, l1rc, l2 = mp.log(rc), mp.log(1 - rc), mp.log(2)
        WP, WQ = {}, {}
        kept = mp.mpf(0)
        for c in range(clo, chi + 1):
            fc = mp.exp(lf(m) - lf(c) - lf(m - c) + c * lrc + (m - c) * l1rc)
            kept += fc
            for a in range(c + 1):
                w = fc * mp.exp(lf(c) - lf(a) - lf(c - a) - c * l2)
                for (d0, d1), u, v in (((1, 0), p0, q), ((0, 1), q, p0), ((0, 0), r, r)):
                    key = (a + d0, c - a + d1)
                    WP[key] = WP.get(key, mp.mpf(0)) + w * u
                    WQ[key] = WQ.get(key, mp.mpf(0)) + w * v
        pair = mp.fsum(max(mp.mpf(0), WP[c] - Ee * WQ[c]) for c in WP) + max(mp.mpf(0), 1 - kept)
        lo = float(truth * (1 - mp.mpf(10) ** (-digits // 2)))
        hi = float(pair * (1 + mp.mpf(10) ** (-digits // 2)))
        return float(np.nextafter(lo, -np.inf)) if lo > 0 else 0.0, float(np.nextafter(hi, np.inf))


def epsilon(n: int, k: int, eps0, delta: float, tail: float = TAIL) -> float:
    """Certified lower bound on the protocol's ε(δ) from the same data sets: the largest ε (rounded down) at
    which :func:`same_symbol_delta` still exceeds ``delta`` (0 if none)."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, low_open=True, scalar=True)
    window(n, k, eps0, tail)
    return invert(lambda e: same_symbol_delta(n, k, eps0, e, tail), delta, eps0, upper=False)


def summary(
    n_values=(1000, 10000),
    k_values=(3,),
    eps0_values=(5.0, 7.0),
    delta: float = 1e-6,
    points: int = 40,
    tail: float = TAIL,
) -> list[dict]:
    """One row per (n, k): :func:`scan` over ``eps0_values`` summarised — how many ε₀ show a violation
    (``excess`` > 0) and the smallest such ε₀; the largest violation in δ (its ``eps0``, ``eps``, the data
    sets' certified δ ``lower``, the pair's δ ``pair``; with no violation, the smallest shortfall); and, over
    the ε₀ with a violation, the largest excess in ε at ``delta``: ``eps_lower`` (:func:`epsilon`, a lower
    bound on the protocol's ε(δ)) minus ``eps_pair`` (the pair's ε(δ)), at ``eps0_at_delta`` (None where
    none; ``first_eps0`` too)."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    rows = scan(n_values, k_values, eps0_values, points, tail)
    out = []
    for n in dict.fromkeys(r["n"] for r in rows):
        for k in dict.fromkeys(r["k"] for r in rows):
            mine = [r for r in rows if r["n"] == n and r["k"] == k]
            bad = [r for r in mine if r["excess"] > 0]
            w = max(mine, key=lambda r: r["excess"])
            row = {
                "n": n,
                "k": k,
                "tried": len(mine),
                "violations": len(bad),
                "first_eps0": min(r["eps0"] for r in bad) if bad else None,
                "eps0": w["eps0"],
                "eps": w["eps"],
                "lower": w["lower"],
                "pair": w["pair"],
                "excess": w["excess"],
                "eps0_at_delta": None,
                "eps_lower": None,
                "eps_pair": None,
            }
            for r in bad:
                lo = epsilon(n, k, r["eps0"], delta, tail)
                hi = VariationRatioPair(*parameters("k-rr", r["eps0"], k=k), n).epsilon(delta)
                if lo > hi and (
                    row["eps_lower"] is None or lo - hi > row["eps_lower"] - row["eps_pair"]
                ):
                    row.update(eps0_at_delta=r["eps0"], eps_lower=lo, eps_pair=hi)
            out.append(row)
    return out
