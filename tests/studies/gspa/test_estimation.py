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
