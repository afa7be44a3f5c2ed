"""The accountant's study (gspa.studies.accountant): what the chapters 'Using the accountant' and 'The
accountant against its peers' and benchmarks/accounting.py measure, on sizes small enough for a test."""

import os

import numpy as np
import pytest

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs
from gspa.studies.accountant import brackets, speed, timing


def test_timing_helpers():
    out, seconds = timing.timed(lambda: sum(range(1000)), repeats=3)
    assert out == 499500 and 0 <= seconds < 5
    arr, seconds, peak = timing.measure(lambda: np.ones(2**20))  # 8 MiB of float64
    assert arr.size == 2**20 and peak >= 7.9
    assert timing.peak_rss_mib() > 10
    assert timing.isolated(os.getpid) != os.getpid()


def test_the_reference_agrees_with_the_accountant():
    """The slow, obvious delta(eps) (sequential convolution, outcome-by-outcome sum) is the revealing pair's."""
    users = np.random.default_rng(3).uniform(0.01, 2.0, 60)
    for eps in (0.1, 0.5, 1.5):
        fast = A.personalized_pair(users, None, "revealing", reduction="clones").delta(eps)
        assert speed.reference_delta(users, eps) == pytest.approx(fast, rel=1e-9, abs=1e-15)


def test_scaling_rows_and_their_reference():
    rows = speed.scaling([3], seed=1, progress=False, details=True)
    (row,) = rows
    assert row["n"] == 1000 and row["users"].size == 1000 and row["rss_MiB"] > 0
    assert row["epsilon_at_delta"] == A.personalized_pair(
        row["users"], None, "revealing", reduction="clones"
    ).epsilon(1e-6)
    ref = speed.against_reference(row)
    assert ref["diff_delta"] < 1e-9 and ref["diff_at_epsilon"] < 1e-9 and ref["speedup"] > 0


def test_fitted_exponent():
    rows = [{"n": n, "seconds_epsilon": 1e-9 * n**1.5} for n in (10**4, 10**5, 10**6, 10**7)]
    assert speed.fitted_exponent(rows) == pytest.approx(1.5)
    assert np.isnan(speed.fitted_exponent(rows[:2]))  # one point from 1e5 on: no slope


def test_histogram_and_fmt21_rows_are_the_accountants_numbers():
    h = speed.histogram_case(n_users=10**5, distinct=20, seed=2)
    rng = np.random.default_rng(2)
    values = rng.uniform(0.01, 2.0, size=20)
    counts = rng.multinomial(10**5, np.full(20, 1 / 20)).astype(np.int64)
    assert h["epsilon_at_delta"] == A.personalized_pair(
        values, None, "revealing", counts=counts, reduction="clones"
    ).epsilon(1e-6)
    (f,) = speed.fmt21_table(ns=(1000,), eps0s=(1.0,))
    assert f["epsilon_at_delta"] == pairs.fmt21_pair(1.0, 1000).epsilon(1e-6)


@pytest.mark.slow
def test_upper_bounds_lie_above_lower_bounds():
    (row,) = brackets.bracket([3], seed=0, progress=False, repeats=2)
    for gap in ("gap_randomized", "gap_revealing", "gap_cells", "gap_cells_revealing"):
        assert row[gap] >= 1.0, gap
    rows = brackets.kary_bracket(10, [1.0], [200], personalized_users=[200], progress=False)
    assert [r["eps0"] for r in rows] == [1.0, None]  # the common budget, then U(0.01, 2)
    for r in rows:
        assert r["ratio"] >= 1.0
    laplace = brackets.bracket_rows(
        "laplace", [1.0], [200], personalized_users=[200], progress=False
    )
    assert [r["budgets"] for r in laplace] == ["ε₀ = 1", "U(0.01, 2)"]
    assert all(r["eps_upper"] >= r["eps_lower"] > 0 for r in laplace)
    for r in brackets.quaternary_bracket([300], delta_i=1e-8):
        assert (
            min(r["eps_clones"], r["eps_cells"]) >= r["eps_lower"] > 0
        )  # two upper bounds, one lower
    for r in brackets.laplace_bracket([1.0], [200]):
        assert r["eps_upper"] >= r["eps_lower"] > 0
    (g,) = brackets.general_rows([1.0], [1000])
    assert g["gspa_over_wang"] == g["eps_gspa"] / g["eps_wang"] and g[
        "eps_gspa"
    ] == pairs.fmt21_pair(1.0, 1000).epsilon(1e-6)


def test_laplace_rr_floor_lies_under_every_randomized_response_reduction():
    """The floor is a lower bound on shuffled binary randomized response with budget eps0, close to its exact worst
    case over the data (every data set enumerated); LaplaceCells, which reduces every report to that randomized
    response, lies above it; at eps0 = 1 it is more than 1.10 times the Laplace lower bound (so
    benchmarks/accounting.py's target cannot be met through randomized response), and above the Gaussian
    approximation's ratio of the two mu (the ratio of the eps at a fixed delta is larger), within 5 % of it."""
    from gspa.privacy.exact.enumeration import every_data_set_epsilon
    from gspa.privacy.shuffle.cells import LaplaceCells

    truth, _ = every_data_set_epsilon(1.0, 1000, 1e-6)
    floor = brackets.laplace_rr_floor(1.0, 1000)
    assert 0.99 * truth <= floor <= truth
    assert LaplaceCells(1.0, 10**4).epsilon(1e-6) >= brackets.laplace_rr_floor(1.0, 10**4)
    (row,) = brackets.laplace_bracket([1.0], [10**5])
    assert row["upper_over_lower"] >= row["floor_over_lower"] > 1.10
    mu_ratio = brackets.laplace_rr_mu_ratio(1.0)
    assert mu_ratio < row["floor_over_lower"] < 1.05 * mu_ratio


@pytest.mark.parametrize("eps0", [0.05, 1.0, 3.0])
def test_laplace_rr_mu_ratio_is_the_square_root_of_the_two_chi_squares(eps0):
    """Both chi-square divergences summed or integrated directly (quadrature on the pieces between the inputs):
    randomized response's two report laws, and the Laplace densities of inputs 1 against 0."""
    from scipy import integrate

    p = np.exp(eps0) / (1.0 + np.exp(eps0))
    rr = (2 * p - 1) ** 2 / p + (1 - 2 * p) ** 2 / (1 - p)

    def f(y, x):
        return 0.5 * eps0 * np.exp(-eps0 * abs(y - x))

    def g(y):
        return (f(y, 1.0) - f(y, 0.0)) ** 2 / f(y, 0.0)

    far = 80.0 / eps0  # beyond, the integrand is below e^-80 of its largest value
    lap = sum(
        integrate.quad(g, a, b, epsabs=0, epsrel=1e-12, limit=200)[0]
        for a, b in ((-far, 0.0), (0.0, 1.0), (1.0, 1.0 + far))
    )
    assert brackets.laplace_rr_mu_ratio(eps0) == pytest.approx(np.sqrt(rr / lap), rel=1e-8)
    assert brackets.laplace_rr_mu_ratio(0.0) == 1.0


def test_eon_rows_take_the_laplace_lower_bound_from_the_caller():
    calls = []

    def lower(eps_users, x, j, x0, x1, eps, grid):
        calls.append((eps_users.size, j, x0, x1))
        return 0.25, 1.0

    binary, laplace = brackets.eon_rows([200], lower, 1e-8, seed=0)
    assert calls == [(200, 0, 0.0, 1.0)] and laplace[0]["delta_lower"] == 0.25
    assert binary[0]["eps_upper"] >= binary[0]["eps_lower"]
    with pytest.raises(ValueError, match="laplace_lower"):
        brackets.eon_rows([200], None)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: speed.scaling([3, 12], progress=False), "exponents"),
        (lambda: speed.scaling([3], delta=0.0, progress=False), "delta"),
        (lambda: speed.histogram_case(n_users=-5), "n_users"),
        (lambda: speed.fmt21_table(ns=(1000,), eps0s=(float("nan"),)), "eps0s"),
        (lambda: speed.composition_vs_dpaccounting(n=100, rounds=(True,)), "rounds"),
        (lambda: speed.reference_delta([0.5, 1.0], -1.0), "eps"),
        (lambda: brackets.bracket(iter([3])), "exponents"),
        (lambda: brackets.bracket([3], repeats=0), "repeats"),
        (lambda: brackets.kary_bracket(1, [1.0], [100]), "k"),
        (lambda: brackets.quaternary_bracket([100], delta_i=2.0), "delta_i"),
        (lambda: brackets.laplace_bracket([1.0], [100.5]), "users"),
        (lambda: brackets.laplace_rr_floor(1.0, 1), r"n must be an integer in \[2"),
        (lambda: brackets.laplace_rr_floor(1.0, 100, delta=1.0), "delta"),
        (lambda: brackets.laplace_rr_mu_ratio(-1.0), "eps0"),
        (lambda: brackets.general_rows("1", [100]), "eps0_values"),
        (lambda: brackets.eon_rows([100], lambda *a: (0.0, 0.0), seed=-1), "seed"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this system")
def test_one_core_pins_every_thread_and_gives_the_cpus_back():
    """The k-RR time targets are one core's: inside the block every thread of the process (the accountant's
    helper thread too) runs on one CPU; after it, each has the CPUs it had."""
    from gspa.privacy.numerics import halves

    halves(np.sqrt, np.ones(1000))  # the helper thread exists
    tasks = lambda: [int(t) for t in os.listdir("/proc/self/task")]
    before = {t: os.sched_getaffinity(t) for t in tasks()}
    with timing.one_core():
        assert all(len(os.sched_getaffinity(t)) == 1 for t in tasks())
    assert {t: os.sched_getaffinity(t) for t in before} == before


def test_noisier_others_cost_privacy():
    """One user at budget 1 and 999 at 0.01: gspa's certified lower bound of that protocol lies below its
    certified upper bound and above gspa's certified upper bound of the protocol where all 1,000 have budget 1."""
    (row,) = brackets.laplace_noisier_others(1.0, 0.01, [1000])
    assert row["eps_lower"] <= row["eps_upper"]
    assert row["eps_lower"] > 2 * row["eps_one_budget_upper"]


def test_the_chapter_s_conclusion_follows_the_rows():
    import pandas as pd

    rows = pd.DataFrame([{"eps_lower": 0.11, "eps_one_budget_upper": 0.04}] * 2)
    assert brackets.noisier_conclusion(rows).startswith("In every row")
    rows.loc[1, "eps_one_budget_upper"] = 0.2
    assert brackets.noisier_conclusion(rows).startswith("In some rows (not all)")
    rows["eps_one_budget_upper"] = 0.2
    assert brackets.noisier_conclusion(rows).startswith("At these settings")


def test_the_clone_floor_is_the_largest_budgets_own_cell_and_lies_under_the_upper_bound():
    """Budgets U(0.01, 2): the clone floor is the ε of the largest budget's pair at distance 1 with the attained
    weights of every other user; the cover's cell there (the pool less the user of the largest weight) is at
    least it, so is the upper bound, and the lower bound lies below."""
    (row,) = brackets.laplace_personal_bracket([3000], 1e-6, seed=2)
    budgets = np.random.default_rng(2).uniform(0.01, 2.0, size=3000)
    values, counts = np.unique(budgets, return_counts=True)
    cell = pairs.LaplaceBands(values, counts).pair(values.size - 1, values.size - 1, 1.0, 1.0)
    tau = 2 * (values / values[-1]) * np.exp(-values) / (1 + np.exp(-values[-1]))
    assert cell.log_odds == pytest.approx(values[-1], rel=1e-12)
    assert cell.clones.mean == pytest.approx(tau.sum() - tau.max(), rel=1e-9)
    floor = pairs.ReducedPair(
        pairs.clone_law(values=tau, counts=np.append(counts[:-1], 0)), values[-1]
    )
    assert row["eps_clone_floor"] == floor.epsilon(1e-6) <= cell.epsilon(1e-6)
    assert row["eps_lower"] < row["eps_clone_floor"] <= row["eps_upper"]
    assert row["upper_over_floor"] == row["eps_upper"] / row["eps_clone_floor"]
