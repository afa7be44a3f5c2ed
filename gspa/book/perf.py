"""Measurements of the exact accountant's speed and memory (used by benchmarks/accounting.py and by
the book's accountant chapter, so the figures the book prints are measured in that build).

The reference is deliberately straightforward: the clone law by n sequential convolutions (O(n^2))
and the hockey-stick divergence summed outcome by outcome.
"""
from __future__ import annotations

import time
import tracemalloc

import numpy as np
from scipy import special

from gspa.privacy import accountant as A


def measure(fn):
    """(result, seconds, peak MiB traced by tracemalloc — numpy reports its buffers to it)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, dt, peak / 2**20


def reference_delta(eps_users, eps: float) -> float:
    """delta(eps) of the revealing pair for all-distinct budgets, computed the slow, obvious way."""
    p = special.expit(-np.asarray(eps_users, dtype=float))
    law = np.array([1.0])
    for x in np.delete(2 * p, int(np.argmax(p))):
        law = np.convolve(law, [1 - x, x])
    e, total = np.exp(eps), 0.0
    for m in np.flatnonzero(law > 0):
        a = np.arange(m + 2)
        lg = special.gammaln(m + 1) - m * np.log(2)
        with np.errstate(invalid="ignore"):
            prev = np.where(a >= 1, np.exp(lg - special.gammaln(a) - special.gammaln(m + 2 - a)), 0.0)
            here = np.where(a <= m, np.exp(lg - special.gammaln(a + 1) - special.gammaln(np.maximum(m + 1 - a, 1))), 0.0)
        total += law[m] * np.maximum(prev - e * here, 0.0).sum()
    return float(total)


def scaling(exponents, eps: float = 0.5, delta: float = 1e-6, seed: int = 0, progress: bool = True):
    """Time and peak memory of delta(eps) and eps(delta) for n = 10^k users with budgets U(0.01, 2)."""
    from tqdm.auto import tqdm
    rng = np.random.default_rng(seed)
    rows = []
    for k in tqdm(list(exponents), desc="accountant scaling", disable=not progress, leave=False):
        n = 10 ** int(k)
        users = rng.uniform(0.01, 2.0, size=n)
        d, t_d, _ = measure(lambda: A.personalized_pair(users, None, "revealing").delta(eps))
        (pair, e), t_e, peak = measure(
            lambda: (lambda pr: (pr, pr.epsilon(delta)))(A.personalized_pair(users, None, "revealing")))
        rows.append({"n": n, "delta_at_eps": d, "seconds_delta": t_d, "epsilon_at_delta": e,
                     "seconds_epsilon": t_e, "peak_MiB": peak, "counted_error": pair.clones.error_l1,
                     "users": users})
    return rows


def against_reference(row, eps: float = 0.5) -> dict:
    """Reference vs fast for one scaling row: both numbers, their differences, times and speed-up."""
    users = row["users"]
    ref, t_ref, _ = measure(lambda: reference_delta(users, eps))
    ref_e = reference_delta(users, row["epsilon_at_delta"])
    fast_e = A.personalized_pair(users, None, "revealing").delta(row["epsilon_at_delta"])
    return {"n": row["n"], "diff_delta": abs(ref - row["delta_at_eps"]), "diff_at_epsilon": abs(ref_e - fast_e),
            "seconds_reference": t_ref, "speedup": t_ref / row["seconds_delta"]}
