"""The accountant checked and compared (chapter notebooks/accountant/using.md): its methods side by side,
k-ary randomized response's blanket pair and the cell bound and Lemma 4's quaternary randomizer against
exhaustive enumeration, the Laplace bound against the continuous protocol's bracketed delta, composition over rounds and in dp_accounting. The library (gspa.privacy) computes
each number; these functions run the chapter's cases and refuse an instance where a certified bound falls on
the wrong side of the truth (AssertionError)."""

from __future__ import annotations

import time

import numpy as np

from gspa.studies.accountant.arguments import check
from gspa.util import validate as V

#: k-ary randomized response instances enumerated exhaustively: (budgets, k)
KRR_CASES = (
    ((1.0, 1.0, 1.0, 1.0), 4),
    ((0.6, 0.6, 0.6), 5),
    ((0.3, 1.2, 2.5), 3),
    ((0.8, 1.5, 2.0, 0.4), 4),
)
#: binary randomized response instances for the cell bound: budgets
CELLS_CASES = (
    (0.3, 1.2, 2.5, 0.8),
    (1.0, 1.0, 1.0, 1.0, 1.0),
    (0.05, 0.6, 1.7, 2.9, 1.1, 0.4),
)
#: Lemma 4's quaternary randomizer: (budgets εᵢ, local δᵢ)
QUATERNARY_CASES = (
    ([0.3, 1.2, 2.5, 0.8], [0.05, 0.0, 0.2, 0.01]),
    ([1.0] * 5, [0.02] * 5),
    ([0.05, 0.6, 1.7, 2.9, 1.1], [0.3, 0.0, 0.0, 0.1, 0.05]),
    ([2.0, 0.4, 0.4, 0.4], [0.0, 0.3, 0.0, 0.0]),
)


def _budgets(name: str, b, high: float = 100.0) -> np.ndarray:
    return V.real(name, b, low=1e-6, high=high, ndim=1)


def methods_at(eps_i, delta: float = 1e-6) -> list[tuple[str, float]]:
    """The accountant's methods on one set of personalized budgets ``eps_i`` (1-d, in (0, 100]): ε at
    ``delta`` of the certified upper bound for binary randomized response (randomized and revealing
    variants, the latter the GSPA paper's Theorem 1 pair), the certified lower bound, 4-ary randomized
    response, FMT21's clones at the largest budget and the Laplace mechanism, as (method, ε) rows."""
    eps_i = _budgets("eps_i", eps_i)
    check(delta=delta)
    from gspa.privacy.shuffle import accountant, pairs
    from gspa.privacy.shuffle import lower as lower_bounds

    pair = accountant.personalized_pair
    return [
        (
            "upper, binary RR (differing user keeps its budget)",
            pair(eps_i, None, "randomized").epsilon(delta),
        ),
        ("lower, binary RR (explicit data sets)", lower_bounds.lower_bound(eps_i).epsilon(delta)),
        (
            "upper, binary RR, proof's pair (revealing)",
            pair(eps_i, None, "revealing", reduction="clones").epsilon(delta),
        ),
        ("upper, 4-ary RR", pair(eps_i, None, randomizer="k-rr", k=4).epsilon(delta)),
        (
            "upper, binary RR through FMT21's clones at ε₀ = max εᵢ",
            pairs.fmt21_pair(eps_i.max(), eps_i.size).epsilon(delta),
        ),
        (
            "upper, Laplace (clones from budgets up to the differing user's)",
            pair(eps_i, None, randomizer="laplace").epsilon(delta),
        ),
    ]


def krr_against_enumeration(cases=KRR_CASES, grid=None) -> list[dict]:
    """k-ary randomized response's blanket pair (``personalized_pair(..., randomizer="k-rr")``) against the
    exhaustively enumerated shuffled protocol (:func:`gspa.privacy.exact.enumeration.shuffled_profile`) at
    each ε of ``grid`` (default: 25 values in [0, 3]), for each (budgets, k) of ``cases``: the smallest
    bound − truth, the enumeration's error allowance and the largest bound / truth where the truth exceeds
    10⁻⁹. An AssertionError when the bound is below the truth by more than the allowance."""
    from gspa.privacy.exact import enumeration
    from gspa.privacy.shuffle import accountant

    grid = np.linspace(0.0, 3.0, 25) if grid is None else grid
    grid = V.real("grid", grid, low=0.0, high=700.0, ndim=1)
    rows = []
    for b, k in cases:
        b, k = _budgets("budgets", b), V.integer("k", k, low=2, high=10)
        truth, err = enumeration.shuffled_profile("k-rr", b, grid, k=k)
        bound = np.asarray(accountant.personalized_pair(b, randomizer="k-rr", k=k).delta(grid))
        live = truth > 1e-9
        rows.append(
            {
                "budgets": np.array2string(b, precision=2),
                "k": k,
                "smallest bound − truth": float((bound - truth).min()),
                "error allowance": float(err.max()),
                "largest bound / truth": float(np.max(bound[live] / truth[live])),
            }
        )
    if any(r["smallest bound − truth"] < -r["error allowance"] for r in rows):
        raise AssertionError(f"the blanket pair is below the truth: {rows}")
    return rows


def krr_gain(users, eps0: float = 1.0, k: int = 10, delta: float = 1e-6) -> list[dict]:
    """Central ε at ``delta`` with one common local budget ``eps0``: k-ary randomized response by its blanket
    pair and by clone pairs, against binary randomized response, for each n of ``users``; ``blanket /
    binary`` is their ratio."""
    check(users=users, eps0=eps0, k=k, delta=delta)
    from gspa.privacy.shuffle import accountant

    rows = []
    for n in users:
        one, count = np.array([eps0]), np.array([n])
        blanket = accountant.personalized_pair(one, randomizer="k-rr", k=k, counts=count)
        clones = accountant.personalized_pair(
            one, randomizer="k-rr", k=k, counts=count, reduction="clones"
        )
        binary = accountant.personalized_pair(one, counts=count, reduction="clones").epsilon(delta)
        e = blanket.epsilon(delta)
        rows.append(
            {
                "n": n,
                f"{k}-RR, blanket pair": e,
                f"{k}-RR, clone pairs": clones.epsilon(delta),
                "binary RR": binary,
                "blanket / binary": e / binary,
            }
        )
    return rows


def rounds_table(account, users: int, rounds_values, seed: int = 0, delta: float = 1e-6):
    """ε at ``delta`` after T runs of the shuffle on the same data, for T in ``rounds_values`` (one of them at
    least 2): ``users`` users with budgets U(0.01, 2) drawn with ``seed``, as ``gspa account --rounds T``
    reports it (``account``: :func:`gspa.cli.account.account`, passed by the chapter since a study does not
    import the command line): one column per row of its report (the certified composed bound by method,
    the lower bound, the approximation, advanced composition)."""
    check(users=[users], rounds=rounds_values, seed=seed, delta=delta)
    account = V.function("account", account)
    budgets = np.random.default_rng(seed).uniform(0.01, 2.0, size=users)
    rows = []
    for T in rounds_values:
        res = account(
            budgets,
            np.ones(users, dtype=np.int64),
            delta=delta,
            eps=None,
            rounds=T,
            baselines=False,
        )
        rows.append({"rounds T": T} | {_column(r): r["value"] for r in res["rows"]})
    return rows


def _column(row: dict) -> str:
    """A report row's column: its kind, or for an upper bound its method (Theorem 1's clone pair named)."""
    if row["kind"] != "upper bound":
        return row["kind"]
    return row["method"].split(" (")[0] + (", clone pair" if "clone pair" in row["method"] else "")


def pld_composition(
    users: int,
    rounds: int,
    sigma: float,
    sampling: float,
    seed: int = 0,
    interval: float = 1e-4,
    delta: float = 1e-6,
) -> dict:
    """A certified shuffle round composed in Google's dp_accounting: ``users`` users of binary randomized
    response with budgets U(0.01, 2) (``seed``), exported by :func:`gspa.privacy.interop.dpaccounting.to_pld`
    on the grid ``interval``, composed ``rounds`` times and with the Gaussian mechanism of noise multiplier
    ``sigma`` (once, and ``rounds`` times Poisson-subsampled with probability ``sampling``). Returns ``rows``
    (what is composed, by what, ε at ``delta``), ``seconds`` (building the PLD) and ``eps`` (one_gspa,
    one_dp, T_gspa, T_dp, all). An AssertionError when the PLD's ε is below the certified one's."""
    check(users=[users], rounds=[rounds], seed=seed, interval=interval, delta=delta)
    sigma = V.real("sigma", sigma, low=1e-3, high=1e6, scalar=True)
    sampling = V.probability("sampling", sampling, open_low=True, scalar=True)
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    from gspa.privacy.interop.dpaccounting import to_pld
    from gspa.privacy.shuffle import accountant
    from gspa.privacy.shuffle.composition import compose

    budgets = np.random.default_rng(seed).uniform(0.01, 2.0, size=users)
    pair = accountant.personalized_pair(budgets, None, "randomized", reduction="clones")
    t0 = time.perf_counter()
    pld_1 = to_pld(pair, value_discretization_interval=interval)
    seconds = time.perf_counter() - t0
    pld_T = pld_1.self_compose(rounds)
    gauss = pld_lib.from_gaussian_mechanism(sigma, value_discretization_interval=interval)
    gauss_sub = pld_lib.from_gaussian_mechanism(
        sigma, sampling_prob=sampling, value_discretization_interval=interval
    ).self_compose(rounds)
    T = f"{rounds} shuffle rounds"
    rows = [
        ("one shuffle round", "gspa (certified)", pair.epsilon(delta)),
        ("one shuffle round", "dp_accounting (to_pld)", pld_1.get_epsilon_for_delta(delta)),
        (T, "gspa.compose (certified)", compose(pair, rounds).epsilon(delta)),
        (T, "dp_accounting (self_compose)", pld_T.get_epsilon_for_delta(delta)),
        (f"Gaussian mechanism, σ = {sigma:g}", "dp_accounting", gauss.get_epsilon_for_delta(delta)),
        (
            f"{T} + Gaussian mechanism",
            "dp_accounting",
            pld_T.compose(gauss).get_epsilon_for_delta(delta),
        ),
        (
            f"{rounds} subsampled Gaussian steps (q = {sampling:g})",
            "dp_accounting",
            gauss_sub.get_epsilon_for_delta(delta),
        ),
        (
            f"{T} + {rounds} subsampled Gaussian steps",
            "dp_accounting",
            pld_T.compose(gauss_sub).get_epsilon_for_delta(delta),
        ),
    ]
    if not rows[1][2] >= rows[0][2] * (1 - 1e-8):
        raise AssertionError(f"the PLD's eps {rows[1][2]} is below the certified {rows[0][2]}")
    eps = dict(zip(("one_gspa", "one_dp", "T_gspa", "T_dp"), (r[2] for r in rows)))
    return {"rows": rows, "seconds": seconds, "eps": eps | {"all": rows[-1][2]}}


def cells_against_enumeration(cases=CELLS_CASES) -> list[dict]:
    """The cell bound (:func:`gspa.privacy.shuffle.cells.cells_pair`) for binary randomized response against
    exhaustive enumeration of the shuffled protocol (every differing user, every data set; 25 values of ε
    in [0, max budget]) for each budget vector of ``cases`` (at most 8 users): the smallest bound − truth
    and the median bound / truth. An AssertionError when the bound is below the truth."""
    from gspa.privacy.exact import enumeration
    from gspa.privacy.shuffle.cells import cells_pair

    rows = []
    for b in cases:
        b = _budgets("budgets", b, high=20.0)
        res = enumeration.compare_with_truth(
            cells_pair(b), "binary-rr", b, np.linspace(0.0, b.max(), 25)
        )
        rows.append(
            {
                "budgets": np.array2string(b, precision=2),
                "bound − truth, smallest": -res["deficit"],
                "bound / truth, median": res["median_ratio"],
            }
        )
    if any(r["bound − truth, smallest"] < 0 for r in rows):
        raise AssertionError(f"the cell bound is below the enumerated truth: {rows}")
    return rows


def cells_every_data_set(eps0_values=(0.5, 1.0, 2.0, 4.0), users: int = 1000, delta=1e-6):
    """Binary randomized response, ``users`` users with one budget ε₀ (each of ``eps0_values``): the exact ε
    at ``delta`` over every data set (:func:`gspa.privacy.exact.enumeration.every_data_set_epsilon`, with the
    number m of 1s among the others at a worst one), and the cell bound, the clone pair and the certified
    lower bound as multiples of it. An AssertionError when the cell bound is below it (the exact ε is found
    by bisection to a relative 1e-9)."""
    check(eps0_values=eps0_values, users=[users], delta=delta)
    from gspa.privacy.exact import enumeration
    from gspa.privacy.shuffle import accountant
    from gspa.privacy.shuffle import lower as lower_bounds
    from gspa.privacy.shuffle.cells import cells_pair

    rows = []
    for e0 in eps0_values:
        exact, m_worst = enumeration.every_data_set_epsilon(e0, users, delta)
        one, counts = np.array([e0]), np.array([users])
        rows.append(
            {
                "ε₀": e0,
                "exact, every data set": exact,
                "worst m": m_worst,
                "cells / exact": cells_pair(one, counts=counts).epsilon(delta) / exact,
                "clone pair / exact": accountant.personalized_pair(
                    one, counts=counts, reduction="clones"
                ).epsilon(delta)
                / exact,
                "lower bound / exact": lower_bounds.lower_bound(one, counts=counts).epsilon(delta)
                / exact,
            }
        )
    if any(r["cells / exact"] < 1 - 1e-8 for r in rows):
        raise AssertionError(f"the cell bound is below the exact worst case: {rows}")
    return rows


#: the Laplace mechanism against the continuous protocol: budgets (2 or 3 users)
LAPLACE_CASES = ((0.3, 1.0), (2.0, 1.9), (1.0, 1.0, 0.8))
#: laplace_profile's cells for 2 and for 3 users
LAPLACE_CELLS = {
    2: dict(inner=0.005, outer=0.01, grow=1.02, reach=60.0),
    3: dict(inner=0.025, outer=0.04, grow=1.08, reach=20.0),
}


def laplace_against_continuous(
    cases=LAPLACE_CASES, inputs=(0.0, 0.3, 1.0), max_users: int = 3
) -> list[dict]:
    """The Laplace mechanism's upper bound against the continuous shuffled protocol: for each budget vector of
    ``cases`` with at most ``max_users`` users (2 or 3), :func:`gspa.privacy.exact.laplace_profile` brackets
    the protocol's delta (every differing user, every pair of inputs and assignment of the others' inputs from
    ``inputs``, 11 values of ε in [0, max budget]); returns the smallest bound − upper end (>= 0: the bound is proved above the truth
    there), the smallest bound / upper end where the upper end is positive, the widest bracket and the
    largest lower end. An AssertionError when the bound falls below the bracket's upper end."""
    from gspa.privacy.exact import enumeration
    from gspa.privacy.shuffle import accountant

    rows = []
    for b in [c for c in cases if len(c) <= max_users]:
        eps = _budgets("budgets", b, high=20.0)
        grid = np.linspace(0.0, float(eps.max()), 11)
        low, high = enumeration.laplace_profile(eps, grid, inputs, **LAPLACE_CELLS[eps.size])
        up = np.asarray(accountant.personalized_pair(eps, randomizer="laplace").delta(grid))
        rows.append(
            {
                "budgets εᵢ": str(b),
                "margin": float(np.min(up - high)),
                "ratio": float(np.min(up[high > 0] / high[high > 0])),
                "width": float(np.max(high - low)),
                "max_low": float(low.max()),
            }
        )
    if any(r["margin"] < 0 for r in rows):
        raise AssertionError(
            f"the Laplace bound falls below the continuous protocol's delta: {rows}"
        )
    return rows


def quaternary_against_enumeration(cases=QUATERNARY_CASES) -> list[dict]:
    """Lemma 4's quaternary randomizer (GSPA paper, the extremal (εᵢ, δᵢ) randomizer): its cell bound and its
    certified lower bound against exhaustive enumeration of the shuffled protocol
    (:func:`gspa.privacy.exact.enumeration.bracket_check`, every differing user and data set, 25 values of ε
    in [0, max budget]) for each (budgets, δᵢ) of ``cases``: the smallest upper − truth and truth − lower.
    An AssertionError when either bound is on the wrong side."""
    from gspa.privacy.exact import enumeration
    from gspa.privacy.shuffle import accountant
    from gspa.privacy.shuffle import lower as lower_bounds

    rows = []
    for b, d in cases:
        eps, deltas = (
            _budgets("budgets", b, high=20.0),
            V.real("deltas", d, low=0.0, high=0.5, ndim=1),
        )
        upper = accountant.personalized_pair(
            eps, deltas, randomizer="quaternary", reduction="cells"
        )
        lower = lower_bounds.lower_bound(eps, "quaternary", delta=deltas)
        grid = np.linspace(0.0, max(b), 25)
        rows.append(
            {
                "budgets εᵢ": str(b),
                "δᵢ": str(d),
                **enumeration.bracket_check(upper, lower, "quaternary", eps, grid, delta=deltas),
            }
        )
    if any(r["upper_margin"] < 0 or r["lower_margin"] < 0 for r in rows):
        raise AssertionError(
            f"a quaternary bound is on the wrong side of the enumerated truth: {rows}"
        )
    return rows
