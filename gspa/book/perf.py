"""Measurements of the exact accountant's speed and memory (used by benchmarks/accounting.py and by
the book's accountant chapter, so the figures the book prints are measured in that build).

Times are wall-clock times of untraced runs (tracemalloc slows Python code down, so memory is
measured in a separate run of the same computation). The reference is deliberately
straightforward: the clone law by n sequential convolutions (O(n^2)) and the hockey-stick divergence
summed outcome by outcome.
"""
from __future__ import annotations

import resource
import time
import tracemalloc

import numpy as np
from scipy import special

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from gspa.privacy.shuffle import pairs as PAIRS


def measure(fn):
    """(result, seconds, peak MiB traced by tracemalloc — numpy reports its buffers to it)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, dt, peak / 2**20


def timed(fn, repeats: int = 1):
    """(result of the last run, smallest wall-clock seconds over ``repeats`` untraced runs)."""
    best = np.inf
    for _ in range(max(int(repeats), 1)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def peak_rss_mib() -> float:
    """The largest resident set size of this process so far, in MiB: Linux's VmHWM (the high-water mark
    of this address space, fresh after exec) where there is one, else ``ru_maxrss`` (which Linux carries
    over from the parent across fork and exec, so a spawned child would report its parent's peak)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1]) / 1024.0           # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


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


def _eps_run(users, delta):
    pair = A.personalized_pair(users, None, "revealing")
    return pair, pair.epsilon(delta)


def scaling(exponents, eps: float = 0.5, delta: float = 1e-6, seed: int = 0, progress: bool = True,
            repeats: int = 1, details: bool = False):
    """Time and peak memory of delta(eps) and eps(delta) for n = 10^k users with budgets U(0.01, 2),
    each including the construction of the clone law. ``repeats``: the smallest time of that many runs
    (for n <= 10^6; larger n run once). ``peak_MiB`` is the tracemalloc peak of a separate run of
    eps(delta) (buffers allocated by the computation, not the budgets array). ``details`` adds
    ``rss_MiB``, the process's peak resident memory after the runs of that n (everything: the
    interpreter, the budgets array, and every earlier, smaller n)."""
    from tqdm.auto import tqdm
    rng = np.random.default_rng(seed)
    rows = []
    for k in tqdm(list(exponents), desc="accountant scaling", disable=not progress, leave=False):
        n = 10 ** int(k)
        users = rng.uniform(0.01, 2.0, size=n)
        reps = repeats if n <= 10**6 else 1
        d, t_d = timed(lambda: A.personalized_pair(users, None, "revealing").delta(eps), reps)
        (pair, e), t_e = timed(lambda: _eps_run(users, delta), reps)
        rss = peak_rss_mib()
        _, _, peak = measure(lambda: _eps_run(users, delta))
        row = {"n": n, "delta_at_eps": d, "seconds_delta": t_d, "epsilon_at_delta": e,
               "seconds_epsilon": t_e, "peak_MiB": peak, "counted_error": pair.clones.error_l1,
               "users": users}
        if details:
            row["rss_MiB"] = rss
        rows.append(row)
    return rows


def fitted_exponent(rows, key: str = "seconds_epsilon", min_n: int = 10**5) -> float:
    """Slope of log(time) against log(n) by least squares over the rows with n >= ``min_n`` (below,
    fixed costs dominate): 1 is linear growth; n log n shows as about 1.05-1.1 over 1e5..1e8."""
    pts = [(np.log(r["n"]), np.log(r[key])) for r in rows if r["n"] >= min_n]
    if len(pts) < 2:
        return float("nan")
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def histogram_case(n_users: int = 10**9, distinct: int = 1000, delta: float = 1e-6, seed: int = 0,
                   repeats: int = 1) -> dict:
    """eps(delta) for budgets given as a histogram: ``distinct`` budgets U(0.01, 2), n_users users
    spread over them by a multinomial draw (variant 'revealing'), with its time and tracemalloc peak."""
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.01, 2.0, size=distinct)
    counts = rng.multinomial(n_users, np.full(distinct, 1.0 / distinct)).astype(np.int64)
    run = lambda: A.personalized_pair(values, None, "revealing", counts=counts).epsilon(delta)
    e, t = timed(run, repeats)
    _, _, peak = measure(run)
    return {"n": n_users, "distinct": distinct, "epsilon_at_delta": e, "seconds_epsilon": t, "peak_MiB": peak}


def fmt21_table(ns=(10**5, 10**6, 10**7), eps0s=(0.5, 1.0, 4.0), delta: float = 1e-6, repeats: int = 1):
    """eps(delta) of FMT21's common-budget pair (:func:`gspa.privacy.fmt21_pair`) with its time."""
    rows = []
    for n in ns:
        for e0 in eps0s:
            e, t = timed(lambda: PAIRS.fmt21_pair(e0, n).epsilon(delta), repeats)
            rows.append({"n": n, "eps0": e0, "epsilon_at_delta": e, "seconds_epsilon": t})
    return rows


def against_reference(row, eps: float = 0.5) -> dict:
    """Reference vs fast for one scaling row: both numbers, their differences, times and speed-up."""
    users = row["users"]
    ref, t_ref, _ = measure(lambda: reference_delta(users, eps))
    ref_e = reference_delta(users, row["epsilon_at_delta"])
    fast_e = A.personalized_pair(users, None, "revealing").delta(row["epsilon_at_delta"])
    return {"n": row["n"], "diff_delta": abs(ref - row["delta_at_eps"]), "diff_at_epsilon": abs(ref_e - fast_e),
            "seconds_reference": t_ref, "speedup": t_ref / row["seconds_delta"]}


class _AsExact:
    """A clone law whose computed pmf is taken as exact (no error bounds): for a diagnostic, not a bound."""

    def __init__(self, law):
        self._tails = np.cumsum(law.pmf[::-1])[::-1]

    def tail_bounds(self):
        return self._tails, self._tails


def _uncounted(lower, delta: float) -> float:
    """The lower bound's eps(delta) with its counted round-off left out (the computed laws taken as exact):
    NOT a bound; it shows how much of the lower bound's distance to the upper one is error accounting."""
    import dataclasses
    loose = [dataclasses.replace(b, others=_AsExact(b.others), extra=0.0) for b in lower.pairs]
    return max(b.epsilon(delta) for b in loose)


def _bracket_run(n: int, seed: int, delta: float, which: str):
    """One timed run of one bound, built from scratch: the clone pair (``"randomized"``, ``"revealing"``),
    the cell bound (``"cells"``, ``"cells-revealing"``) or the lower bound (``"lower"``, ``"lower-revealing"``);
    returns (eps, seconds, peak RSS of this process in MiB, and for the lower bound its uncounted eps)."""
    users = np.random.default_rng(seed).uniform(0.01, 2.0, size=n)
    variant = "revealing" if which.endswith("revealing") else "randomized"
    t0 = time.perf_counter()
    if which.startswith("lower"):
        bound = LB.lower_bound(users, variant=variant)
    else:
        bound = A.personalized_pair(users, None, variant, reduction="cells" if which.startswith("cells") else "blanket")
    e = bound.epsilon(delta)
    seconds, rss = time.perf_counter() - t0, peak_rss_mib()
    return e, seconds, rss, (_uncounted(bound, delta) if which == "lower" else np.nan)


def isolated(fn, *args):
    """``fn(*args)`` in a fresh (spawned) process, so that its peak resident memory is its own."""
    import multiprocessing as mp
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


BRACKET_RUNS = ("randomized", "revealing", "cells", "cells-revealing", "lower", "lower-revealing")


def bracket(exponents, delta: float = 1e-6, seed: int = 0, progress: bool = True):
    """The certified upper bounds — the clone pair and the cell bound (:mod:`gspa.privacy.shuffle.cells`), each in
    the randomized and the revealing variant — against the certified lower bounds of the same variant, for
    n = 10^k users with budgets U(0.01, 2): eps(delta) of each (``eps_<run>``, runs ``BRACKET_RUNS``), the
    ratios upper / lower (``gap_randomized``, ``gap_revealing`` for the clone pair, ``gap_cells``,
    ``gap_cells_revealing``), and the wall-clock seconds and peak RSS (MiB) of each run, each in its own
    fresh process (construction included; the budgets array itself, 8n bytes, is in every process's peak).
    ``gap_uncounted``: the clone pair over the lower bound's value with its counted round-off left out — a
    diagnostic, not a bound."""
    from tqdm.auto import tqdm
    rows = []
    for k in tqdm(list(exponents), desc="upper and lower bounds", disable=not progress, leave=False):
        n = 10 ** int(k)
        row = {"n": n}
        for which in BRACKET_RUNS:
            e, t, rss, loose = isolated(_bracket_run, n, seed, delta, which)
            key = which.replace("-", "_")
            row.update({f"eps_{key}": e, f"seconds_{key}": t, f"rss_{key}": rss})
            if which == "lower":
                row["eps_lower_uncounted"] = loose
        row["gap_randomized"] = row["eps_randomized"] / row["eps_lower"]
        row["gap_revealing"] = row["eps_revealing"] / row["eps_lower_revealing"]
        row["gap_cells"] = row["eps_cells"] / row["eps_lower"]
        row["gap_cells_revealing"] = row["eps_cells_revealing"] / row["eps_lower_revealing"]
        row["gap_uncounted"] = row["eps_randomized"] / row["eps_lower_uncounted"]
        rows.append(row)
    return rows


def composition_vs_dpaccounting(n: int = 1000, rounds=(10, 100, 1000), delta: float = 1e-8, seed: int = 0,
                                repeats: int = 3, interval: float = 1e-4):
    """T-fold composition of the same certified pair by gspa (:func:`gspa.privacy.compose`) and by
    dp_accounting (``to_pld(pair)`` on its grid ``interval``, ``self_compose(T)``,
    ``get_epsilon_for_delta``): eps(delta) and the smallest wall-clock time of ``repeats`` runs of each,
    construction included, after one warm-up run of each (imports). Pairs: personalized binary RR with
    budgets U(0.01, 2) (randomized variant) and FMT21's pair at eps0 = 1."""
    from gspa.privacy.shuffle.composition import compose
    from gspa.privacy.interop.dpaccounting import to_pld
    users = np.random.default_rng(seed).uniform(0.01, 2.0, size=n)
    pairs = {"personalized binary RR": A.personalized_pair(users), "FMT21 pair, eps0 = 1": PAIRS.fmt21_pair(1.0, n)}
    warm = PAIRS.fmt21_pair(1.0, 100)
    compose(warm, 2).epsilon(delta)
    to_pld(warm, value_discretization_interval=interval).self_compose(2).get_epsilon_for_delta(delta)
    rows = []
    for name, pair in pairs.items():
        for T in rounds:
            ours, t_ours = timed(lambda: compose(pair, T).epsilon(delta), repeats)
            theirs, t_theirs = timed(lambda: to_pld(pair, value_discretization_interval=interval)
                                     .self_compose(T).get_epsilon_for_delta(delta), repeats)
            rows.append({"pair": name, "n": n, "rounds": T, "eps_gspa": ours, "seconds_gspa": t_ours,
                         "eps_dp_accounting": theirs, "seconds_dp_accounting": t_theirs})
    return rows


def kary_bracket(k: int, eps0_values, users, delta: float = 1e-6, personalized_users=(), seed: int = 0,
                 progress: bool = True):
    """Shuffled k-ary randomized response: the certified upper bound (the blanket pair,
    :class:`gspa.privacy.shuffle.pairs.KaryPair`) against the certified lower bound
    (:func:`gspa.privacy.shuffle.lower.kary_lower_bound`, which with a common budget is Wang et al.'s k-RR
    value): eps(delta) of each, the ratio, and the seconds of each (construction included). Rows for a
    common budget eps0 and n users, then for n users with budgets U(0.01, 2) (``personalized_users``)."""
    from tqdm.auto import tqdm
    from gspa.privacy.shuffle.lower import kary_lower_bound
    cases = [(f"ε₀ = {e0:g}", np.array([float(e0)]), np.array([int(n)])) for e0 in eps0_values for n in users]
    rng = np.random.default_rng(seed)
    cases += [("U(0.01, 2)", rng.uniform(0.01, 2.0, size=int(n)), None) for n in personalized_users]
    rows = []
    for name, eps, counts in tqdm(cases, desc="k-RR upper and lower", disable=not progress, leave=False):
        up, t_up = timed(lambda: A.personalized_pair(eps, randomizer="k-rr", k=k, counts=counts).epsilon(delta))
        lo, t_lo = timed(lambda: kary_lower_bound(eps, k, counts=counts).epsilon(delta))
        rows.append({"budgets": name, "n": int(eps.size if counts is None else counts.sum()), "eps_upper": up,
                     "eps_lower": lo, "ratio": up / lo if lo > 0 else float("inf"), "seconds_upper": t_up,
                     "seconds_lower": t_lo})
    return rows


def general_rows(eps0_values, users, delta: float = 1e-6):
    """Any ε₀-LDP randomizer shared by n users: Wang et al.'s value for general mechanisms
    (:func:`gspa.privacy.peers.variation.parameters` ``"general"``, FMT23's clone pair; its proof has a gap, see
    :func:`gspa.privacy.exact.peers.general_margin` — not used by gspa) beside gspa's bound for this class,
    :func:`gspa.privacy.shuffle.pairs.fmt21_pair`, as eps(delta), and their ratio."""
    from gspa.privacy.peers.variation import VariationRatioPair, parameters
    rows = []
    for e0 in eps0_values:
        for n in users:
            ours = PAIRS.fmt21_pair(float(e0), int(n)).epsilon(delta)
            theirs = VariationRatioPair(*parameters("general", float(e0)), int(n)).epsilon(delta)
            rows.append({"eps0": float(e0), "n": int(n), "eps_gspa": ours, "eps_wang": theirs,
                         "gspa_over_wang": ours / theirs})
    return rows


def quaternary_bracket(users, delta_i: float = 1e-8, delta: float = 1e-6, eps0: float = 1.0, seed: int = 0):
    """Lemma 4's quaternary randomizer (reveal with probability δᵢ, else binary randomized response): eps(delta)
    of the clone pair and of the cell bound (:func:`gspa.privacy.shuffle.cells.cells_pair` with ``delta``; both
    certified upper bounds) and of the certified lower bound (:func:`gspa.privacy.shuffle.lower.lower_bound`
    ``"quaternary"``), and cells / lower, for n users with one budget ε₀ and δᵢ, then with budgets
    U(0.01, 2) and δᵢ ~ U(0, 2 δᵢ) (seconds of the cell bound included)."""
    rng = np.random.default_rng(seed)
    rows = []
    for common, name in ((True, f"ε₀ = {eps0:g}, δᵢ = {delta_i:g}"), (False, f"U(0.01, 2), δᵢ ~ U(0, {2 * delta_i:g})")):
        for n in users:
            eps = np.full(int(n), float(eps0)) if common else rng.uniform(0.01, 2.0, int(n))
            d = np.full(int(n), float(delta_i)) if common else rng.uniform(0.0, 2 * float(delta_i), int(n))
            clones = A.personalized_pair(eps, d, randomizer="quaternary").epsilon(delta)
            cells, t = timed(lambda: A.personalized_pair(eps, d, randomizer="quaternary",
                                                         reduction="cells").epsilon(delta))
            lower = LB.lower_bound(eps, "quaternary", delta=d).epsilon(delta)
            rows.append({"budgets": name, "common": common, "n": int(n), "eps_clones": clones, "eps_cells": cells, "eps_lower": lower,
                         "ratio": cells / lower if lower > 0 else float("inf"), "seconds_cells": t})
    return rows


def laplace_bracket(eps0_values, users, delta: float = 1e-6):
    """The shuffled Laplace mechanism (x + Lap(1/ε₀) on [0, 1], n users with one budget): Wang et al.'s
    variation-ratio value (:func:`gspa.privacy.peers.variation.parameters` ``"laplace"`` — not a valid bound, see
    :func:`gspa.privacy.exact.peers.laplace_margin`), gspa's certified upper bound
    (:func:`gspa.privacy.shuffle.accountant.personalized_pair` ``randomizer="laplace"``) and certified lower bound
    (:func:`gspa.privacy.shuffle.lower.lower_bound` ``"laplace"``: reports thresholded at 1/2), as eps(delta)."""
    from gspa.privacy.peers.variation import VariationRatioPair, parameters
    rows = []
    for e0 in eps0_values:
        for n in users:
            hist = dict(counts=np.array([int(n)]))
            up = A.personalized_pair(np.array([float(e0)]), None, randomizer="laplace", **hist).epsilon(delta)
            lo = LB.lower_bound(np.array([float(e0)]), "laplace", **hist).epsilon(delta)
            theirs = VariationRatioPair(*parameters("laplace", float(e0)), int(n)).epsilon(delta)
            rows.append({"eps0": float(e0), "n": int(n), "eps_wang": theirs, "eps_upper": up, "eps_lower": lo,
                         "upper_over_wang": up / theirs, "upper_over_lower": up / lo if lo > 0 else float("inf")})
    return rows


def eon_rows(users, delta: float = 1e-8, seed: int = 0):
    """EoN (:class:`gspa.privacy.peers.eon.EonApproximation`, an approximation) beside gspa's certified bounds on
    the settings of EoN's public code (budgets U(0.05, 1), δ = 10⁻⁸): for binary randomized response, ε of
    EoN, of the cell bound (upper) and of the lower bound, and the cell bound's δ at EoN's ε; for the Laplace mechanism with one user at 0.1
    among users at 1, EoN's ε and a certified lower bound on the real protocol's δ at that ε
    (:func:`gspa.studies.gspa.estimation.laplace_max_event`, the conservative user differing)."""
    from gspa.privacy.peers.eon import EonApproximation
    from gspa.studies.gspa.estimation import laplace_max_event
    rng = np.random.default_rng(seed)
    binary, laplace = [], []
    for n in users:
        eps = rng.uniform(0.05, 1.0, size=int(n))
        e, cells = EonApproximation(eps).epsilon(delta), A.personalized_pair(eps, reduction="cells")
        binary.append({"n": int(n), "eps_eon": e, "eps_upper": cells.epsilon(delta),
                       "eps_lower": LB.lower_bound(eps).epsilon(delta), "delta_upper": float(cells.delta(e))})
        tied = np.full(int(n), 1.0)
        tied[0] = 0.1
        e = EonApproximation(tied).epsilon(delta)
        low, _ = laplace_max_event(tied, np.zeros(tied.size), 0, 0.0, 1.0, e, np.linspace(0.0, 400.0, 2001))
        laplace.append({"n": int(n), "eps_eon": e, "delta_lower": low})
    return binary, laplace
