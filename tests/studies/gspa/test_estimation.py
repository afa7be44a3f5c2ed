import numpy as np
import pytest

from gspa.studies.gspa import estimation as E


def test_group_budgets_counts():
    b = E.group_budgets(100, [0.54, 0.37, 0.09], [0.1, 0.5, 1.0])
    assert (b == 0.1).sum() == 54 and (b == 0.5).sum() == 37 and (b == 1.0).sum() == 9


def test_mean_error_matches_exact_sd():
    rng = np.random.default_rng(1)
    b = E.group_budgets(2000, [0.54, 0.37, 0.09], [0.1, 0.5, 1.0])
    x = E.clipped_normal_data(2000, 4000, rng, 50, 10, 20, 80)
    err = E.mean_estimation_errors(x, b, 20, 80, rng)
    assert np.std(err) == pytest.approx(E.mean_error_sd(b, 20, 80), rel=0.05)
    assert abs(err.mean()) < 4 * np.std(err) / np.sqrt(err.size)


def test_frequency_estimator_moments():
    rng = np.random.default_rng(2)
    b = E.group_budgets(1000, [0.54, 0.37, 0.09], [0.1, 0.5, 1.0])
    x = E.binary_data(1000, 0.7)
    z = E.frequency_estimates(x, b, 20_000, rng, assignment="fixed")
    ez, vz = E.frequency_moments(x, b)
    assert z.mean() == pytest.approx(ez, abs=4 * np.sqrt(vz / z.size))
    assert z.var() == pytest.approx(vz, rel=0.05)
    zr = E.frequency_estimates(x, b, 20_000, rng, assignment="random")
    assert zr.mean() == pytest.approx(0.7, abs=4 * zr.std() / np.sqrt(zr.size))
    assert zr.var() == pytest.approx(E.frequency_variance_random(x, b), rel=0.05)


def test_epsc_linearity_fits_the_error_and_the_precision():
    """One conservative group only: the mean's MAE is proportional to 1/ε_C, so its precision is exactly a
    line in ε_C (R² 1) and the error is not."""
    grid = [0.1, 0.2, 0.4, 0.8]
    r = E.epsc_linearity(grid, 1000, [1.0, 0.0, 0.0], [0.1, 0.5, 1.0])
    assert r["precision"]["mean"] == pytest.approx(1.0, abs=1e-12)
    assert r["mae"]["mean"] < 0.9
    with pytest.raises(ValueError, match="at least 3"):
        E.epsc_linearity([0.1, 0.2], 1000, [1.0, 0.0, 0.0], [0.1, 0.5, 1.0])
