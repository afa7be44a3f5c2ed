"""The f-DP chapter's checks (gspa.studies.gspa.fdp_checks): each against what the paper's item says and a
planted violation it must see."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from gspa.studies.gspa import fdp_checks as F

ALPHA = np.linspace(0.0, 1.0, 1001)


def rng(seed=0):
    return np.random.default_rng(seed)


def test_table1_errors_exact_and_simulated():
    t1 = F.table1_errors(rng(), n_mc=200_000)
    assert t1["alpha"] == pytest.approx(1 / (1 + math.e), rel=1e-12)
    assert t1["beta"] == pytest.approx(1 / (1 + math.e), rel=1e-12)
    se = math.sqrt(t1["alpha"] * (1 - t1["alpha"]) / 200_000)
    assert abs(t1["alpha_sim"] - t1["alpha"]) < 5 * se and abs(t1["beta_sim"] - t1["beta"]) < 5 * se


def test_eq4_is_attained_by_the_best_test():
    gaps = F.eq4_gaps(rng(), n_pairs=30, support=5)
    assert gaps.shape == (30,) and np.abs(gaps).max() < 1e-12


def test_randomized_response_is_f_eps_0_and_the_printed_fact1_differs():
    rr = F.rr_tradeoff_curves(ALPHA, eps_values=[0.5, 2.0])
    assert rr["gap"] < 1e-12 and list(rr["curves"]) == [0.5, 2.0]
    e = 2.0  # written out: max{0, 1 − e^ε α, e^−ε (1 − α)}
    by_hand = np.maximum.reduce([0 * ALPHA, 1 - math.exp(e) * ALPHA, math.exp(-e) * (1 - ALPHA)])
    assert np.abs(rr["curves"][e] - by_hand).max() < 1e-12
    corrected, printed = F.fact1_curves(ALPHA, eps_values=[0.5], delta=0.05)[0.5]
    assert corrected[-1] == 0.0 and printed[-1] == pytest.approx(math.exp(-0.5) * 0.45)


def test_fact1_holds_for_the_quaternary_pair_and_random_pairs():
    assert F.fact1_quaternary_gap(ALPHA) < 1e-12
    pairs = F.fact1_random_pairs(rng(1), ALPHA, n_pairs=20, support=5)
    assert pairs["below"] > -1e-12 and pairs["roundtrip"] < 1e-12


def test_the_printed_eq19_is_no_tradeoff_function_below_1_minus_delta():
    printed = F.fact1_printed(ALPHA)
    assert printed["is_tradeoff"] == {0.1: False, 0.5: False, 0.9: False}
    assert printed["at_1"] == pytest.approx(math.exp(-0.5) * (1 - 0.01 - 0.5), rel=1e-12)
    assert printed["sym_gap"] < 1e-3


def test_post_processing_never_helps():
    assert F.fact2_worst(rng(2), ALPHA, n_pairs=20, support=5) > -1e-12


def test_fact3_profile_against_monte_carlo_and_pld():
    eps = np.linspace(0.0, 3.0, 7)
    f3 = F.fact3_profile(rng(3), ALPHA, eps, mu_values=[0.5, 1.0], n_mc=40_000, discretization=1e-3)
    assert f3["n_cmp"] > 0 and f3["worst_z"] < f3["z_crit"]
    assert f3["z_crit"] == pytest.approx(norm.isf(1e-3 / (2 * f3["n_cmp"])), rel=1e-9)
    assert f3["pld_rel"] < 1e-3 and f3["pld_below"] > -1e-12 and f3["emp"] < 0.05
    assert [c["mu"] for c in f3["curves"]] == [0.5, 1.0]
    assert np.allclose(f3["curves"][1]["G"], norm.cdf(norm.ppf(1 - ALPHA) - 1.0))


def test_fact3_composition_and_groups():
    comp = F.fact3_composition([0.5, 1.0, 2.0], eps_max=4.0, discretization=1e-3)
    assert comp["mu"] == pytest.approx(math.sqrt(0.25 + 1 + 4), rel=1e-15)
    assert comp["compose_rel"] < 1e-3 and comp["group_rel"] < 1e-3


def test_fact4_chain_holds_and_the_printed_form_is_vacuous():
    f4 = F.fact4_checks(rng(4), ALPHA, n_pairs=20, support=5, mu_values=[0.5, 1.0])
    assert f4["chain"] > -1e-12
    assert f4["printed"] <= 1e-12  # the printed conclusion never exceeds its hypothesis
    assert f4["gauss"] < 1e-9


def test_one_stream_in_the_chapters_order():
    a = F.eq4_gaps(rng(5), n_pairs=3, support=4)
    assert np.array_equal(a, F.eq4_gaps(rng(5), n_pairs=3, support=4))
    r = rng(5)
    F.table1_errors(r, n_mc=100)
    assert not np.array_equal(a, F.eq4_gaps(r, n_pairs=3, support=4))
