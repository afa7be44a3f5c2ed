"""Speed and memory of the exact accountant (:mod:`gspa.privacy.shuffle.accountant`), measured in the build of the
chapter that prints them (notebooks/accountant/using.md) and by benchmarks/accounting.py.

The reference is deliberately straightforward: the clone law by n sequential convolutions (O(n^2)) and
the hockey-stick divergence summed outcome by outcome.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as reduced_pairs
from gspa.studies.accountant.arguments import check
from gspa.studies.accountant.timing import measure, peak_rss_mib, timed


def reference_delta(eps_users, eps: float) -> float:
    """delta(eps) of the revealing pair for all-distinct budgets, computed the slow, obvious way."""
    check(eps=eps)
    p = special.expit(-np.asarray(eps_users, dtype=float))
    law = np.array([1.0])
    for x in np.delete(2 * p, int(np.argmax(p))):
        law = np.convolve(law, [1 - x, x])
    e, total = np.exp(eps), 0.0
    for m in np.flatnonzero(law > 0):
        a = np.arange(m + 2)
        lg = special.gammaln(m + 1) - m * np.log(2)
        with np.errstate(invalid="ignore"):
            prev = np.where(
                a >= 1, np.exp(lg - special.gammaln(a) - special.gammaln(m + 2 - a)), 0.0
            )
            here = np.where(
                a <= m,
                np.exp(lg - special.gammaln(a + 1) - special.gammaln(np.maximum(m + 1 - a, 1))),
                0.0,
            )
        total += law[m] * np.maximum(prev - e * here, 0.0).sum()
    return float(total)


def _eps_run(users, delta):
    pair = A.personalized_pair(users, None, "revealing", reduction="clones")
    return pair, pair.epsilon(delta)


def scaling(
    exponents,
    eps: float = 0.5,
    delta: float = 1e-6,
    seed: int = 0,
    progress: bool = True,
    repeats: int = 1,
    details: bool = False,
):
    """Time and peak memory of delta(eps) and eps(delta) for n = 10^k users with budgets U(0.01, 2),
    each including the construction of the clone law. ``repeats``: the smallest time of that many runs
    (for n <= 10^6; larger n run once). ``peak_MiB`` is the tracemalloc peak of a separate run of
    eps(delta) (buffers allocated by the computation, not the budgets array). ``details`` adds
    ``rss_MiB``, the process's peak resident memory after the runs of that n (everything: the
    interpreter, the budgets array, and every earlier, smaller n)."""
    check(exponents=exponents, eps=eps, delta=delta, seed=seed, repeats=repeats)
    from gspa.util.progress import bar as tqdm

    rng = np.random.default_rng(seed)
    rows = []
    for k in tqdm(list(exponents), desc="accountant scaling", disable=not progress, leave=False):
        n = 10 ** int(k)
        users = rng.uniform(0.01, 2.0, size=n)
        reps = repeats if n <= 10**6 else 1
        d, t_d = timed(
            lambda: A.personalized_pair(users, None, "revealing", reduction="clones").delta(eps),
            reps,
        )
        (pair, e), t_e = timed(lambda: _eps_run(users, delta), reps)
        rss = peak_rss_mib()
        _, _, peak = measure(lambda: _eps_run(users, delta))
        row = {
            "n": n,
            "delta_at_eps": d,
            "seconds_delta": t_d,
            "epsilon_at_delta": e,
            "seconds_epsilon": t_e,
            "peak_MiB": peak,
            "counted_error": pair.clones.error_l1,
            "users": users,
        }
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


def histogram_case(
    n_users: int = 10**9, distinct: int = 1000, delta: float = 1e-6, seed: int = 0, repeats: int = 1
) -> dict:
    """eps(delta) for budgets given as a histogram: ``distinct`` budgets U(0.01, 2), n_users users
    spread over them by a multinomial draw (variant 'revealing'), with its time and tracemalloc peak."""
    check(n_users=n_users, distinct=distinct, delta=delta, seed=seed, repeats=repeats)
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.01, 2.0, size=distinct)
    counts = rng.multinomial(n_users, np.full(distinct, 1.0 / distinct)).astype(np.int64)
    run = lambda: A.personalized_pair(
        values, None, "revealing", counts=counts, reduction="clones"
    ).epsilon(delta)
    e, t = timed(run, repeats)
    _, _, peak = measure(run)
    return {
        "n": n_users,
        "distinct": distinct,
        "epsilon_at_delta": e,
        "seconds_epsilon": t,
        "peak_MiB": peak,
    }


def fmt21_table(
    ns=(10**5, 10**6, 10**7), eps0s=(0.5, 1.0, 4.0), delta: float = 1e-6, repeats: int = 1
):
    """eps(delta) of FMT21's common-budget pair (:func:`gspa.privacy.fmt21_pair`) with its time."""
    check(ns=ns, eps0s=eps0s, delta=delta, repeats=repeats)
    rows = []
    for n in ns:
        for e0 in eps0s:
            e, t = timed(lambda: reduced_pairs.fmt21_pair(e0, n).epsilon(delta), repeats)
            rows.append({"n": n, "eps0": e0, "epsilon_at_delta": e, "seconds_epsilon": t})
    return rows


def against_reference(row, eps: float = 0.5) -> dict:
    """Reference vs fast for one scaling row: both numbers, their differences, times and speed-up."""
    check(eps=eps)
    users = row["users"]
    ref, t_ref, _ = measure(lambda: reference_delta(users, eps))
    ref_e = reference_delta(users, row["epsilon_at_delta"])
    fast_e = A.personalized_pair(users, None, "revealing", reduction="clones").delta(
        row["epsilon_at_delta"]
    )
    return {
        "n": row["n"],
        "diff_delta": abs(ref - row["delta_at_eps"]),
        "diff_at_epsilon": abs(ref_e - fast_e),
        "seconds_reference": t_ref,
        "speedup": t_ref / row["seconds_delta"],
    }


def composition_vs_dpaccounting(
    n: int = 1000,
    rounds=(10, 100, 1000),
    delta: float = 1e-8,
    seed: int = 0,
    repeats: int = 3,
    interval: float = 1e-4,
):
    """T-fold composition of the same certified pair by gspa (:func:`gspa.privacy.compose`) and by
    dp_accounting (``to_pld(pair)`` on its grid ``interval``, ``self_compose(T)``,
    ``get_epsilon_for_delta``): eps(delta) and the smallest wall-clock time of ``repeats`` runs of each,
    construction included, after one warm-up run of each (imports). Pairs: personalized binary RR with
    budgets U(0.01, 2) (randomized variant) and FMT21's pair at eps0 = 1."""
    check(n=n, rounds=rounds, delta=delta, seed=seed, repeats=repeats, interval=interval)
    from gspa.privacy.shuffle.composition import compose
    from gspa.privacy.interop.dpaccounting import to_pld

    users = np.random.default_rng(seed).uniform(0.01, 2.0, size=n)
    pairs = {
        "personalized binary RR": A.personalized_pair(users, reduction="clones"),
        "FMT21 pair, eps0 = 1": reduced_pairs.fmt21_pair(1.0, n),
    }
    warm = reduced_pairs.fmt21_pair(1.0, 100)
    compose(warm, 2).epsilon(delta)
    to_pld(warm, value_discretization_interval=interval).self_compose(2).get_epsilon_for_delta(
        delta
    )
    rows = []
    for name, pair in pairs.items():
        for T in rounds:
            ours, t_ours = timed(lambda: compose(pair, T).epsilon(delta), repeats)
            theirs, t_theirs = timed(
                lambda: (
                    to_pld(pair, value_discretization_interval=interval)
                    .self_compose(T)
                    .get_epsilon_for_delta(delta)
                ),
                repeats,
            )
            rows.append(
                {
                    "pair": name,
                    "n": n,
                    "rounds": T,
                    "eps_gspa": ours,
                    "seconds_gspa": t_ours,
                    "eps_dp_accounting": theirs,
                    "seconds_dp_accounting": t_theirs,
                }
            )
    return rows
