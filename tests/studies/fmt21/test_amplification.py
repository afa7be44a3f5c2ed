"""The FMT21 part's study of eq. (1) and its regimes (gspa.studies.fmt21.amplification)."""

import math

import numpy as np
import pytest

from gspa.privacy.exact import shuffled_profile
from gspa.privacy.peers import baselines
from gspa.privacy.basics.mechanisms import rr_delta
from gspa.studies.fmt21 import amplification as A


@pytest.mark.parametrize(
    "eps_l,n,delta", [(0.5, 10_000, 1e-6), (4.0, 10**6, 1e-8), (1.0, 1000, 1e-5)]
)
def test_eq1_is_the_baseline_where_valid(eps_l, n, delta):
    b = baselines.fmt21_blog(eps_l, n, delta)
    assert b.valid
    assert A.eq1(eps_l, n, delta) == pytest.approx(b.epsilon, rel=1e-12)


def test_small_eps_is_the_first_order_expansion_of_eq1():
    ratios = [A.small_eps(e, 10**5, 1e-6) / A.eq1(e, 10**5, 1e-6) for e in (1e-1, 1e-2, 1e-3)]
    assert abs(ratios[-1] - 1) < 1e-3
    assert abs(ratios[0] - 1) > abs(ratios[-1] - 1)  # the error shrinks with eps_L


def test_eq2_has_fmt21s_constant_not_eq1s():
    e, n, d = 9.0, 10**8, 1e-6
    inside = lambda v: np.expm1(v)
    assert inside(A.eq2(e, n, d)) / inside(A.eq1_large_limit(e, n, d)) == pytest.approx(
        0.5, rel=1e-9
    )
    assert inside(A.eq2(e, n, d)) / inside(
        baselines.fmt21_closed(e, n, d).epsilon
    ) == pytest.approx(1.0, rel=0.05)


def test_eq3_is_eq2_for_small_argument():
    assert A.eq3(1.0, 10**9, 1e-6) == pytest.approx(A.eq2(1.0, 10**9, 1e-6), rel=1e-3)


def test_compare_table_and_exact_below_eq1():
    df = A.compare([0.5, 2.0], [10_000], [1e-6])
    assert list(df.eps_l) == [0.5, 2.0] and df.eq1_valid.all()
    assert (df.exact < df.eq1).all() and (df.exact < df.fmt21).all()
    assert (df.exact > 0).all()


def test_fitted_slope_recovers_power():
    x = np.array([10.0, 100.0, 1000.0])
    assert A.fitted_slope(x, 3 * x**-0.5) == pytest.approx(-0.5)


@pytest.mark.parametrize("n", [2, 3])
def test_index_appended_gives_no_amplification(n):
    grid = np.linspace(0, 1.5, 7)
    d, err = A.indexed_rr_profile(1.5, n, grid)
    assert np.all(np.abs(d - rr_delta(grid, 1.5)) <= err)
    plain, _ = shuffled_profile("binary-rr", [1.5] * n, grid)
    assert plain[0] < d[0] - 0.05  # without the index, shuffling helps


def test_malicious_users_are_removed():
    grid = np.linspace(0, 1.0, 5)
    d, err = A.malicious_profile(1.0, 2, 2, grid)
    honest, err2 = shuffled_profile("binary-rr", [1.0, 1.0], grid)
    assert np.all(np.abs(d - honest) <= err + err2)


# -- margins over the stated domain ----------------------------------------------------------------


def test_condition_point_lies_in_the_condition_and_reaches_its_edge():
    for n_share, s, d in [(1.5, 1.0, 1e-2), (1e6, 1.0, 1e-12), (50.0, 0.3, 1e-6)]:
        e, n = A.condition_point(n_share, s, d)
        assert e <= np.log(n / (16 * np.log(2 / d)))
        assert n <= n_share * 16 * np.log(2 / d) + 1
    e, n = A.condition_point(1e4, 1.0, 1e-6)
    assert e == pytest.approx(np.log(1e4))


def test_eq1_upper_margin_holds_where_eq1_is_loose_and_fails_for_a_halved_bound(monkeypatch):
    assert A.eq1_upper_margin(1e4, 1.0, 1e-6) > 0.5
    # a bound four times smaller than eq. (1)'s term falls below the exact value: the margin can fail
    monkeypatch.setattr(
        A, "eq1", lambda e, n, d: float(np.log1p(np.expm1(A.small_eps(e, n, d)) / 8))
    )
    assert A.eq1_upper_margin(1e4, 0.5, 1e-6) < 0


def test_closed_form_margin_positive_and_refuses_outside_codes_condition():
    assert A.closed_vs_eq1_margin(1.01, 1.0, 1e-2) > 0.1
    e, n = A.condition_point(1e3, 1.0, 1e-6)  # eq. (1)'s condition, not the code's
    assert not baselines.fmt21_closed(e, n, 1e-6).valid
    assert A.closed_vs_eq1_margin(1e3, 1.0, 1e-6) >= 0


def test_enumeration_margins_hold():
    assert A.index_margin(1.0, 3) >= 0
    assert A.malicious_margin(1.0, 2, 1) >= 0


def test_expansion_margins():
    assert A.small_eps_margin(1e-3, 1.0, 1e-6) >= 0
    assert A.small_eps_margin(0.5, 1.0, 1e-6) < 0.5  # the relative error grows with eps_L
    m = A.eq2_margins(1e4, 1.0, 1e-6)
    assert m["eq1"] < 0 < m["fmt21"]  # eq. (2) is FMT21's expansion, not eq. (1)'s
    assert A.eq3_margin(1e6, 1e-3, 1e-6) >= 0  # x small: log(1 + x) = x
    assert A.eq3_margin(1e6, 1.0, 1e-2) > 0  # at the condition's edge x is about 2: error x/2 < x
    assert A.eq3_within(1e6, 1.0, 1e-2) < 0  # ... but eq. (3) is then not within 10 % of eq. (2)
    e, n = A.condition_point(1e6, 1.0, 1e-2, eps_floor=1.0)
    assert A.eq3_ratio_exact(e, n, 1e-2) == pytest.approx(
        A.eq3(e, n, 1e-2) / A.eq2(e, n, 1e-2), rel=1e-12
    )
    assert A.eq3_argument(e, n, 1e-2) == pytest.approx(A.eq3(e, n, 1e-2), rel=1e-12)


def test_eq3_error_is_at_most_half_its_argument():
    for share in (1e-3, 0.3, 1.0):
        for delta in (1e-12, 1e-2):
            e, n = A.condition_point(10.0, share, delta, eps_floor=1.0)
            x = A.eq3_argument(e, n, delta)
            assert 0 <= A.eq3(e, n, delta) / A.eq2(e, n, delta) - 1 <= x / 2


def test_eq3_bound_check_closed_forms():
    """The proof's inequality at x = 1 and near 0 (gap x³/12, below double round-off), and the grid's minimum."""
    one = A.eq3_bound_check([1.0])
    assert one["inequality"] == pytest.approx(math.log(2) - 2 / 3, rel=1e-12)
    assert one["lower"] == pytest.approx(1 / math.log(2) - 1, rel=1e-12)
    assert one["upper"] == pytest.approx(0.5 - (1 / math.log(2) - 1), rel=1e-12)
    assert A.eq3_bound_check([1e-6])["inequality"] == pytest.approx(1e-18 / 12, rel=1e-5)
    assert A.eq3_bound_check([1e-6, 1.0, 50.0])["upper"] == A.eq3_bound_check([1e-6])["upper"]
    with pytest.raises(ValueError, match="positive"):
        A.eq3_bound_check([0.0, 1.0])


def test_eq2_ratio_exact_tends_to_one_half():
    e, n = A.condition_point(1e4, 1.0, 1e-6, log_arg=4.0, eps_floor=A.LARGE_EPS)
    r = A.eq2_ratio_exact(e, n, 1e-6)
    assert r == pytest.approx(1 / (2 * math.tanh(e / 2)), rel=1e-12)
    assert r == pytest.approx(0.5, abs=1e-3)
    assert A.eq2_margins(1e4, 1.0, 1e-6)["eq1"] == pytest.approx(0.05 - abs(r - 1), abs=1e-9)


def test_sqrt_n_margin_first_order_in_eps_l():
    assert A.sqrt_n_margin(0.05, 10.0, 1e-6, which="exact") >= 0
    s = A.sqrt_n_slope(0.1, A.condition_point(1.0 + 1e-9, 1.0, 1e-2)[1], 1e-2, which="eq1")
    assert s > -0.48  # eq. (1) falls more slowly near its condition's edge ...
    assert A.sqrt_n_margin(0.1, 1.0, 1e-2, which="eq1") > 0  # ... by less than eps_L: first order
    assert A.sqrt_n_margin(1e-3, 1e4, 1e-6, which="eq1") >= 0
    assert A.sqrt_n_margin(1e-3, 1.0, 1e-2, which="eq1") < 1e-3
    assert A.sqrt_n_slope(0.01, 10**6, 1e-6, which="eq1") == pytest.approx(-0.5, abs=1e-3)


def test_largest_slope_reads_the_search_points():
    pts = [
        (
            {"eps_l": 0.1, "n_share": 1.0, "delta": 1e-2},
            A.sqrt_n_margin(0.1, 1.0, 1e-2, which="eq1"),
        ),
        (
            {"eps_l": 1e-3, "n_share": 1e4, "delta": 1e-6},
            A.sqrt_n_margin(1e-3, 1e4, 1e-6, which="eq1"),
        ),
        ({"eps_l": 0.01, "n_share": 1.0, "delta": 1e-6}, 1.0),
    ]
    s, pt = A.largest_slope(pts)
    n = int(np.ceil(1.0 * np.exp(0.1) * 16.0 * np.log(2.0 / 1e-2)))
    assert s == pytest.approx(A.sqrt_n_slope(0.1, n, 1e-2, which="eq1"), abs=1e-12)
    assert pt["eps_l"] == 0.1
    assert math.isnan(A.largest_slope(pts[2:])[0])
