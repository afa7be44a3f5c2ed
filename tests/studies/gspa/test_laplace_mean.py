import numpy as np
import pytest

from gspa.studies.gspa import laplace_mean as L


def _laplace_tradeoff(alpha, eps):
    """The trade-off curve of Lap(b) against Lap(b) shifted by s, eps = s/b, in closed form."""
    a = np.asarray(alpha)
    e = np.exp(-eps)
    return np.where(
        a < e / 2, 1 - a / e, np.where(a <= 0.5, e / (4 * np.maximum(a, 1e-300)), e * (1 - a))
    )


def test_one_laplace_cdf_and_tradeoff_in_closed_form():
    x = np.linspace(-20, 20, 41)
    F, err = L.laplace_sum_cdf(x, [2.0], tol=1e-6)
    ref = np.where(x < 0, 0.5 * np.exp(x / 2), 1 - 0.5 * np.exp(-x / 2))
    assert np.abs(F - ref).max() <= err < 1e-5
    alpha, beta, err = L.shift_tradeoff([2.0], shift=1.0, points=41, tol=1e-6)
    assert np.abs(beta - _laplace_tradeoff(alpha, 0.5)).max() <= 2 * err


def test_two_equal_laplaces_cdf_in_closed_form():
    x = np.linspace(-30, 30, 61)
    F, err = L.laplace_sum_cdf(x, [2.0], [2], tol=1e-11)
    tail = 0.25 * (2 + np.abs(x) / 2) * np.exp(-np.abs(x) / 2)  # P(S > |x|) for S = Lap(2) + Lap(2)
    assert np.abs(F - np.where(x < 0, tail, 1 - tail)).max() <= err < 1e-9


def test_gdp_excess_sees_a_gaussian_curve_above_the_laplace_one_and_none_below():
    # S = Lap(1) + Lap(1) shifted by 1: T(1/2) = F(-1) = (3/4)e^-1 = 0.28 while G_0.1(1/2) = 0.46
    above = L.gdp_excess([1.0], [2], mu=0.1, points=201, tol=1e-9)
    assert above["excess"] > 0.18 and above["bound"] >= above["excess"]
    below = L.gdp_excess([1.0], [2], mu=3.0, points=201, tol=1e-9)
    assert below["bound"] < 1e-7
    tail = 0.25 * 2.5 * np.exp(-0.5)  # P(S > 1/2) in closed form
    assert below["tv"] == pytest.approx(1 - 2 * tail, abs=1e-8)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="counts"):
        L.laplace_sum_cdf([0.0], [1.0, 2.0], [1])
    with pytest.raises(ValueError, match="MAX_NODES"):
        L.laplace_sum_cdf([100.0], [1.0])  # one Laplace to 1e-14: its φ decays too slowly


def test_chord_bound_covers_a_supremum_between_the_computed_points():
    # G = 1 − α and T = (1 − √α)², both convex: G − T = 2√α − 2α peaks at 1/2, at α = 1/4, between points
    a = np.array([0.0, 0.01, 0.64, 1.0])
    g, t = 1 - a, (1 - np.sqrt(a)) ** 2
    assert np.max(g - t) < 0.33
    assert L._chord_bound(a, g, t) >= 0.5
