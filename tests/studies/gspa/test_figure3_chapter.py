"""The Figure 3 chapter's computations (gspa.studies.gspa.estimation): the four panels with their
privacy columns, the trends and the bias test, Theorem 3's counterexample table and the algorithms'
outputs, each against an independent computation or a case whose answer is known."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gspa.privacy.basics.fdp import gdp_delta
from gspa.privacy.shuffle import accountant as A
from gspa.studies.gspa import estimation as E
from gspa.studies.gspa.theorem2 import mu_theorem2

SMALL = dict(n=400, fractions=[0.54, 0.37, 0.09], budgets=[0.1, 0.5, 1.0], reps=200, seed=3)


def test_figure3_runs_are_the_sweeps_with_their_privacy():
    runs = E.figure3_runs(**SMALL, f_c_values=[0.01, 0.5], eps_c_values=[0.1, 1.0])
    assert list(runs.frames) == [
        ("mean", "f_C"),
        ("mean", "eps_C"),
        ("frequency", "f_C"),
        ("frequency", "eps_C"),
    ]
    direct = pd.DataFrame(E.sweep("frequency", [0.1, 1.0], vary="eps_C", **SMALL))
    got = runs.frames[("frequency", "eps_C")]
    assert got.mae.tolist() == direct.mae.tolist()  # the same seed, the same draws
    for (kind, vary), df in runs.frames.items():
        assert len(df) == 2 and vary in df
        mus = [mu_theorem2(b) for b in df.budgets]
        assert df.mu.tolist() == pytest.approx(mus, rel=1e-12)
        assert (df.eps_certified > 0).all()
        assert set(df.certified_by) == {
            "Laplace, clones from budgets up to the differing user's (certified)"
            if kind == "mean"
            else "binary RR pair (certified)"
        }
        # the simulated MAE follows the exact prediction (200 repetitions: within 25 %)
        assert np.allclose(df.mae, df.predicted_mae, rtol=0.25)


def hand_runs(mae_f, mae_e, bias=(0.0, 0.0), se=(1.0, 1.0)):
    frame = lambda vary, mae: pd.DataFrame(
        {vary: np.arange(1.0, len(mae) + 1), "mae": mae, "bias": list(bias), "bias_se": list(se)}
    )
    return E.Figure3Runs(
        {
            ("mean", "f_C"): frame("f_C", mae_f),
            ("frequency", "eps_C"): frame("eps_C", mae_e),
        }
    )


def test_trends_give_rank_correlation_and_linearity():
    t = hand_runs([1.0, 2.0], [3.0, 1.0]).trends()
    assert t["rho"] == pytest.approx({("mean", "f_C"): 1.0, ("frequency", "eps_C"): -1.0})
    assert t["r2"] == pytest.approx({("mean", "f_C"): 1.0, ("frequency", "eps_C"): 1.0})
    runs = E.Figure3Runs(
        {("mean", "eps_C"): pd.DataFrame({"eps_C": [1, 2, 3], "mae": [9, 4, 3.5]})}
    )
    t = runs.trends()
    assert t["rho"][("mean", "eps_C")] == pytest.approx(-1.0)
    assert t["r2"][("mean", "eps_C")] == pytest.approx(
        stats.pearsonr([1, 2, 3], [9, 4, 3.5]).statistic ** 2
    )
    assert t["r2"][("mean", "eps_C")] < 0.9  # convex, not a line


def test_bias_z_uses_the_frequency_points_only_with_bonferroni():
    runs = hand_runs([1.0, 2.0], [3.0, 1.0], bias=(0.3, -0.8), se=(0.1, 0.2))
    b = runs.bias_z(level=1e-3)
    assert b["points"] == 2  # the mean panel's bias is not z's
    assert b["zmax"] == pytest.approx(4.0)
    assert b["z_crit"] == pytest.approx(stats.norm.isf(1e-3 / 4))


def test_theorem3_counterexample_needs_a_growing_constant():
    t = E.theorem3_counterexample([10_000, 100_000], 0.1, 1.0, 0.05)
    for r in t["rows"]:
        m = r["n"]
        eps_u = np.r_[0.1, np.full(m - 1, 1.0)]
        assert r["μ (Theorem 3)"] == pytest.approx(mu_theorem2(eps_u), rel=1e-12)
        assert r["δ allowed by μ"] == pytest.approx(gdp_delta(0.05, mu_theorem2(eps_u)), rel=1e-12)
        assert r["δ ≥ (max event)"] > r["δ allowed by μ"] > 0
        # the certified upper bound of the same protocol brackets the event from above
        upper = A.personalized_pair(eps_u, randomizer="laplace").delta(0.05)
        assert r["δ ≤ (certified)"] == pytest.approx(upper, rel=1e-12)
        assert r["δ ≤ (certified)"] >= r["δ ≥ (max event)"]
        needed = (r["δ ≥ (max event)"] - r["δ allowed by μ"]) * np.sqrt(m - 1) / (1 + np.exp(0.05))
        assert r["C needed"] == pytest.approx(needed, rel=1e-12)
    first, last = t["rows"][0]["C needed"], t["rows"][-1]["C needed"]
    assert t["c_growth"] == pytest.approx(last / first) and t["c_growth"] > 1.5  # no constant works
    assert t["c_slope"] == pytest.approx(np.log(last / first) / np.log(10))
    assert -0.2 < t["d_slope"] < 0  # the event's δ decays slowly (about n^(-ε_C))
    # μ of the returned mean alone: its sensitivity 1/n over the sd of the mean's Laplace noise
    b = np.r_[0.1, np.full(100_000 - 1, 1.0)]
    assert t["mu_z"] == pytest.approx(1 / 100_000 / E.mean_error_sd(b, 0.0, 1.0), rel=1e-12)


def test_theorem3_counterexample_fits_only_what_it_can():
    t = E.theorem3_counterexample([1000], 0.1, 1.0, 0.05)
    assert t["c_slope"] is None and t["d_slope"] is None and len(t["rows"]) == 1


def test_algorithm_outputs_are_real_numbers_and_the_separate_shuffle_changes_nothing():
    z = E.algorithm_outputs(2000, [0.54, 0.37, 0.09], [0.1, 0.5, 1.0], 7)
    b = E.group_budgets(2000, [0.54, 0.37, 0.09], [0.1, 0.5, 1.0])
    direct = E.frequency_estimates(E.binary_data(2000, 0.7), b, 1, np.random.default_rng(7))[0]
    assert z["z_freq"] == direct
    sd = E.mean_error_sd(b, 20.0, 80.0)
    assert abs(z["z_mean"] - 50.0) < 6 * sd + 1.0  # the data's mean is about 50
    assert not float(z["z_mean"]).is_integer()
    assert abs(z["z_linked"] - z["z_separate"]) <= 1e-9  # only the multiset of budgets matters
    # the reports come from the records as ordered (the 1s held by the conservative users)
    ez, var = E.frequency_moments(E.binary_data(2000, 0.7), b)
    assert abs(z["z_linked"] - ez) < 5 * np.sqrt(var)
