"""FLAME's statements outside its numbered lemmas (gspa.studies.flame.remarks)."""

import math

import numpy as np
import pytest
from scipy import stats

from gspa.studies.flame import analysis
from gspa.studies.flame import remarks as R


def test_bit_sum_rates_and_their_exact_values():
    out = R.bit_sum_errors([100, 10000], [0.5, 2.0], 3000, seed=1)
    t = out["table"]
    assert np.allclose(t.curator, t.curator_exact, rtol=0.08)
    assert np.allclose(t.local, t.local_exact, rtol=0.08)
    assert R.rates_hold(out["fits"], 0.1)
    # a curator whose error grew as n^0.1 would be refused
    bad = dict(out["fits"], curator_in_n=[0.1])
    assert not R.rates_hold(bad, 0.05)


def test_dpfl_exact_delta_against_the_gaussian_formula_in_mpmath():
    import mpmath as mp

    for eps in (0.24, 20.53):
        mu = mp.mpf(eps) / mp.sqrt(2 * mp.log(mp.mpf(1.25) / mp.mpf(5e-6)))
        ref = mp.ncdf(-eps / mu + mu / 2) - mp.e**eps * mp.ncdf(-eps / mu - mu / 2)
        assert R.dpfl_exact_delta(eps, 5e-6) == pytest.approx(float(ref), rel=1e-8)
    assert R.dpfl_exact_delta(0.24, 5e-6) < 5e-6 < R.dpfl_exact_delta(20.53, 5e-6)


def test_overflow_bounds_bracket_a_simulation_and_order_in_l():
    # small instance: n = 60 users, d = 30, k = 3, Top-k spread evenly (6 per dimension), l = 4, n_p = 32
    n, d, k, n_p, l = 60, 30, 3, 32, 4
    lo, up = R.overflow_bounds(n, d, k, n_p, l)
    assert 0.05 < lo < up < 0.5  # a real bracket here
    rng = np.random.default_rng(0)
    # each dimension in 6 users' Top-k
    top = np.array([[(3 * i + j) % d for j in range(k)] for i in range(n)])
    assert np.all(np.bincount(top.ravel(), minlength=d) == n * k // d)
    rest = np.array([np.setdiff1d(np.arange(d), t) for t in top])  # (n, d - k)
    runs, m = 3000, k * (l - 1)
    # uniform m-subsets of each user's other dimensions
    pick = np.argsort(rng.random((runs, n, d - k)), axis=2)[..., :m]
    fakes = np.take_along_axis(np.broadcast_to(rest, (runs, n, d - k)), pick, axis=2)
    counts = np.stack([np.bincount(f.ravel(), minlength=d) for f in fakes]) + np.bincount(
        top.ravel(), minlength=d
    )
    p = float((counts.max(axis=1) > n_p).mean())
    se = math.sqrt(p * (1 - p) / runs)
    assert lo - 4 * se <= p <= up + 4 * se
    # more reported indexes, more overflow
    assert R.overflow_bounds(n, d, k, n_p, 2)[1] <= R.overflow_bounds(n, d, k, n_p, 6)[0]


def test_overflow_bounds_single_dimension_is_exact():
    # d - k = 1 other dimension ... use d = 2, k = 1: one dimension per user is Top, the other is the blanket one
    lo, up = R.overflow_bounds(10, 2, 1, 7, 2)  # each dimension: 5 Top + Bin(5, 1) fakes = 10 > 7
    assert lo == up == 1.0
    lo, up = R.overflow_bounds(10, 3, 1, 4, 1)  # l = 1: no fakes; ⌈10/3⌉ = 4 ≤ 4
    assert lo == up == 0.0 and str(lo) == "0.0"  # not -0.0 (printed "-0" in the chapter's table)
    assert R.overflow_at_l1(up) == "no overflow is possible at l = 1"
    # l = 1: ⌈10/3⌉ = 4 > 3 Top-k reports in one dimension
    lo, up = R.overflow_bounds(10, 3, 1, 3, 1)
    assert lo == up == 1.0 and R.overflow_at_l1(up) == "an overflow is certain at l = 1"
    # the union bound is exact when only one dimension can overflow
    single = float(stats.binom.sf(4 - 3, 10 - 3, 1 / 2))
    assert R.overflow_bounds(10, 3, 1, 4, 2)[1] >= single


def test_theorem5_at_the_paper_setting_and_on_average():
    nu5, l5 = analysis.theorem5_nu(333, 1000, 0.02)
    assert (nu5, l5) == (3.125, 16)
    s = R.strongest_padded_l(1000, 7850, 157, 333, 0.5)
    assert s["l_ok"] is not None and s["l_bad"] is not None
    assert s["l_ok"] < s["l_bad"] <= l5  # Theorem 5's l cannot be padded
    assert s["nu_bad_minus_one"] > nu5
    assert R.theorem5_on_average([2, 3, 5], [0.01, 0.02, 0.1]) == 0.0


def test_accuracy_by_l_same_law_without_overflow():
    out = R.accuracy_by_l([1, 3], 40, 60, 0.1, 0.5, 40, seed=0)
    assert out["z"] < 4.0
    assert set(out["mse"]) == {1, 3}


def test_bad_input():
    with pytest.raises(ValueError, match="k"):
        R.overflow_bounds(10, 5, 5, 4, 1)
    with pytest.raises(ValueError, match="delta_c"):
        R.dpfl_exact_delta(1.0, 1.5)
    with pytest.raises(ValueError, match="two distinct"):
        R.bit_sum_errors([100], [1.0, 2.0], 10, 0)


def test_padded_log10_is_the_lower_bounds_complement():
    lo, _ = R.overflow_bounds(60, 30, 3, 32, 4)
    assert 1 - 10 ** R.padded_log10(60, 30, 3, 32, 4) == pytest.approx(lo, rel=1e-12)
    # the paper's l = 16: padding all but impossible
    assert R.padded_log10(1000, 7850, 157, 333, 16) < -600


def test_the_chapter_records():
    t5 = R.theorem5_padding(1000, 7850, 0.02, 3, 0.5, [2, 3], [0.02, 0.1])
    assert (t5["l5"], t5["n_p"], t5["k"]) == (16, 333, 157)
    assert list(t5["ours"].values()) == [True, False]
    assert set(t5["table"]["l"]) == {1, 13, 15, 16}
    rec = R.accuracy_claim({"mse": {1: (1.0, 0.1), 4: (1.0, 0.1)}, "z": 0.5}, 4.0, t5)
    assert list(rec["ours"].values()) == [True, False]
    fits = {"curator_in_n": [0.01], "local_in_n": [0.49], "curator_in_eps": [-1.02]}
    intro = R.intro_claim(fits, 0.05)
    assert intro["values"]["cur_eps"] == pytest.approx(0.02)
    assert list(intro["ours"].values()) == [True, None]
    dp = R.dpfl_claim([0.24, 20.53], 5e-6)
    assert dp["ours"] == pytest.approx(R.dpfl_exact_delta(20.53, 5e-6) / 5e-6)
