"""The accountant chapter's computations (gspa.studies.accountant.using_checks) on small instances: each
against the library's functions it runs, the bounds on their sides of the enumerated truth, and bad
arguments refused with a ValueError."""

import math

import numpy as np
import pytest

from gspa.privacy.shuffle import accountant, pairs
from gspa.privacy.shuffle import lower as lower_bounds
from gspa.studies.accountant import using_checks as U


def test_methods_at_lists_each_method_with_its_epsilon():
    eps_i = np.random.default_rng(1).uniform(0.01, 2.0, size=200)
    rows = dict(U.methods_at(eps_i, 1e-6))
    assert len(rows) == 6
    upper = rows["upper, binary RR (differing user keeps its budget)"]
    assert upper == accountant.personalized_pair(
        eps_i, None, "randomized", reduction="clones"
    ).epsilon(1e-6)
    assert rows["lower, binary RR (explicit data sets)"] <= upper
    assert upper <= rows["upper, binary RR, proof's pair (revealing)"]
    fmt21 = rows["upper, binary RR through FMT21's clones at ε₀ = max εᵢ"]
    assert fmt21 == pairs.fmt21_pair(eps_i.max(), 200).epsilon(1e-6)
    with pytest.raises(ValueError):
        U.methods_at([0.5, np.nan], 1e-6)
    with pytest.raises(ValueError):
        U.methods_at(eps_i, 0.0)


def test_krr_against_enumeration_keeps_the_blanket_pair_above_the_truth():
    (row,) = U.krr_against_enumeration((((0.5, 1.0, 1.5), 3),), np.linspace(0.0, 2.0, 9))
    assert row["k"] == 3 and row["budgets"] == "[0.5 1.  1.5]"
    assert row["smallest bound − truth"] >= -row["error allowance"]
    assert 1.0 - 1e-9 <= row["largest bound / truth"] < 10.0
    with pytest.raises(ValueError):
        U.krr_against_enumeration((((0.5, 1.0), 1),))


def test_krr_gain_is_the_ratio_of_the_two_randomizers():
    (row,) = U.krr_gain([100], eps0=1.0, k=10, delta=1e-6)
    one, n = np.array([1.0]), np.array([100])
    binary = accountant.personalized_pair(one, counts=n, reduction="clones").epsilon(1e-6)
    blanket = accountant.personalized_pair(one, randomizer="k-rr", k=10, counts=n).epsilon(1e-6)
    assert (row["binary RR"], row["10-RR, blanket pair"]) == (binary, blanket)
    assert row["blanket / binary"] == blanket / binary < 1.0  # ten symbols hide more than two
    with pytest.raises(ValueError):
        U.krr_gain([0])


def test_rounds_table_names_a_column_per_row_of_the_report():
    calls = []

    def account(budgets, counts, *, delta, eps, rounds, baselines):
        calls.append((budgets.size, int(counts.sum()), delta, eps, rounds, baselines))
        return {
            "rows": [
                {"kind": "upper bound", "method": "certified upper bound (cells)", "value": rounds},
                {
                    "kind": "upper bound",
                    "method": "certified upper bound (x, clone pair)",
                    "value": 9,
                },
                {"kind": "lower bound", "method": "explicit data sets", "value": 0.5},
            ]
        }

    rows = U.rounds_table(account, 30, [1, 3], seed=2)
    both = {"certified upper bound, clone pair": 9, "lower bound": 0.5}
    assert rows == [
        {"rounds T": 1, "certified upper bound": 1} | both,
        {"rounds T": 3, "certified upper bound": 3} | both,
    ]  # the default's row keeps its name; the clone pair's is its own column
    assert calls == [(30, 30, 1e-6, None, 1, False), (30, 30, 1e-6, None, 3, False)]
    with pytest.raises(ValueError):
        U.rounds_table("not a function", 30, [2])


def test_pld_composition_dominates_the_certified_round():
    out = U.pld_composition(20, 2, 2.0, 0.1, seed=0)
    assert len(out["rows"]) == 8 and out["seconds"] >= 0.0
    eps = out["eps"]
    budgets = np.random.default_rng(0).uniform(0.01, 2.0, size=20)
    certified = accountant.personalized_pair(
        budgets, None, "randomized", reduction="clones"
    ).epsilon(1e-6)
    assert eps["one_gspa"] == certified <= eps["one_dp"]
    assert eps["T_dp"] >= eps["one_dp"] and eps["all"] >= eps["T_dp"]
    assert out["rows"][-1] == (
        "2 shuffle rounds + 2 subsampled Gaussian steps",
        "dp_accounting",
        eps["all"],
    )
    with pytest.raises(ValueError):
        U.pld_composition(20, 2, 2.0, 0.0)


def test_cells_against_enumeration_keeps_the_cell_bound_above_the_truth():
    (row,) = U.cells_against_enumeration(((0.5, 1.0, 1.5),))
    assert row["bound − truth, smallest"] >= 0.0 and row["bound / truth, median"] >= 1.0


def test_cells_every_data_set_brackets_the_exact_worst_case():
    from gspa.privacy.exact.enumeration import every_data_set_epsilon

    (row,) = U.cells_every_data_set((1.0,), 50, 1e-6)
    exact, m = every_data_set_epsilon(1.0, 50, 1e-6)
    assert (row["exact, every data set"], row["worst m"]) == (exact, m)
    assert 1 - 1e-8 <= row["cells / exact"] <= row["clone pair / exact"]
    lower = lower_bounds.lower_bound(np.array([1.0]), counts=np.array([50])).epsilon(1e-6)
    assert math.isclose(row["lower bound / exact"], lower / exact) and lower <= exact * (1 + 1e-8)
    with pytest.raises(ValueError):
        U.cells_every_data_set((1.0,), 0)


def test_quaternary_against_enumeration_brackets_the_truth():
    (row,) = U.quaternary_against_enumeration((([0.5, 1.0, 1.5], [0.0, 0.1, 0.0]),))
    assert row["budgets εᵢ"] == "[0.5, 1.0, 1.5]" and row["δᵢ"] == "[0.0, 0.1, 0.0]"
    assert row["upper_margin"] >= 0.0 and row["lower_margin"] >= 0.0


def test_laplace_against_continuous_keeps_the_bound_above_the_bracket(monkeypatch):
    (row,) = U.laplace_against_continuous(((1.0, 1.0), (1.0, 1.0, 1.0)), max_users=2)
    assert row["budgets εᵢ"] == "(1.0, 1.0)" and row["margin"] >= 0.0 and row["ratio"] >= 1.0
    assert 0.0 < row["width"] < 0.1 * row["max_low"]

    class Half:  # a "bound" at half the true one must be refused
        def __init__(self, pair):
            self.pair = pair

        def delta(self, eps):
            return 0.5 * np.asarray(self.pair.delta(eps))

    real = accountant.personalized_pair
    monkeypatch.setattr(accountant, "personalized_pair", lambda *a, **k: Half(real(*a, **k)))
    with pytest.raises(AssertionError):
        U.laplace_against_continuous(((1.0, 1.0),))
