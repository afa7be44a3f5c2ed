"""The regimes chapter's grid, ratios and fits (gspa.studies.fmt21.amplification: regime_grid,
approximation_ratios, regime_summary, sqrt_n_fits), each against a direct computation."""

import numpy as np
import pytest

from gspa.studies.fmt21 import amplification as A


@pytest.fixture(scope="module")
def grid():
    eps, n = A.regime_grid(0.01, 8.0, 4, 3, 7, 3)
    return eps, n, A.compare(eps, n, [1e-6])


def test_regime_grid_is_log_spaced_and_whole():
    eps, n = A.regime_grid(0.01, 10.0, 4, 3, 5, 5)
    assert np.allclose(eps, [0.01, 0.1, 1.0, 10.0])
    assert list(n) == [1000, 3162, 10000, 31623, 100000]
    assert list(A.regime_grid(0.1, 1.0, 3, 1, 1.05, 5)[1]) == [10, 11]  # repeats dropped


def test_approximation_ratios_cell_by_cell(grid):
    eps, n, res = grid
    out = A.approximation_ratios(res, 0.1)
    assert out["valid"].shape == (eps.size, n.size)
    for (a, r), v in ((k, v) for k, v in out.items() if k != "valid"):
        for i, j in np.ndindex(v["ratio"].shape):
            row = res[(res.eps_l == eps[i]) & (res.n == n[j])].iloc[0]
            assert row.eq1_valid == out["valid"][i, j]
            want = row[a] / row[r] if row[r] > 0 else np.nan
            assert v["ratio"][i, j] == pytest.approx(want, nan_ok=True)
        ok = [abs(x - 1) <= 0.1 for x in v["ratio"][out["valid"]]]
        assert v["share"] == pytest.approx(np.mean(ok))
    assert out[("small", "eq1")]["ratio"][0, -1] == pytest.approx(1.0, abs=0.01)  # eps_L = 0.01


def test_regime_summary_reads_the_grid(grid):
    _, _, res = grid
    s = A.regime_summary(res)
    assert s["grid_points"] == len(res) and s["zero_points"] == int((res.exact == 0).sum())
    big = res[(res.eps_l >= 5) & res.eq1_valid & res.fmt21_valid]
    want = np.median(np.expm1(big.eq2) / np.expm1(big.eq1_large))
    assert s["lead_eq1"] == pytest.approx(want) and s["lead_eq1"] == pytest.approx(0.5, rel=0.02)
    assert s["lead_fmt21"] == pytest.approx(1.0, rel=0.05)
    assert 1.0 <= s["eq3_over_eq2_min"] <= s["eq3_over_eq2_max"]  # eq. (3) never below eq. (2)
    assert 0.99 < s["small_ratio_min"] <= s["small_ratio_max"] < 1.01
    with pytest.raises(ValueError, match="no point with eps_L >= 5"):
        A.regime_summary(res[res.eps_l < 5])


def test_sqrt_n_fits_against_the_fitted_slope():
    ns = [10**4, 10**5, 10**6]
    fits, curves = A.sqrt_n_fits([0.1, 1.0], ns, 1e-6)
    for fit in fits.itertuples():
        ex, e1 = curves[fit.eps_l]
        assert list(ex) == [A.exact_epsilon(fit.eps_l, n, 1e-6) for n in ns]
        assert fit.slope_exact == pytest.approx(A.fitted_slope(ns, ex))
        assert fit.slope_eq1 == pytest.approx(A.fitted_slope(ns, e1))
        assert (fit.exact_first, fit.exact_last) == (ex[0], ex[-1])
    assert fits.slope_eq1.iloc[0] == pytest.approx(
        -0.5, abs=0.01
    )  # eq. (1) ~ n^(-1/2) at small eps_L
    assert fits.slope_exact.iloc[0] <= -0.5  # the exact value falls at least as fast
