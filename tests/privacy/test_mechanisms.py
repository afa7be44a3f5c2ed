import numpy as np
import pytest
from scipy import integrate, stats

from gspa.privacy.basics import hypothesis as H
from gspa.privacy.basics import mechanisms as M


@pytest.mark.parametrize("eps0, eps", [(0.5, 0.0), (1.0, 0.3), (2.0, 1.5), (1.0, 1.2)])
def test_laplace_profile_matches_integration(eps0, eps):
    p = stats.laplace(0, 1 / eps0).pdf
    q = stats.laplace(1, 1 / eps0).pdf
    num = integrate.quad(
        lambda x: max(p(x) - np.exp(eps) * q(x), 0), -80 / eps0, 80 / eps0, points=[0, 1], limit=400
    )[0]
    assert M.laplace_delta(eps, eps0) == pytest.approx(num, abs=1e-8)


def test_krr_profile_matches_hockey_stick():
    for k in (2, 3, 7):
        e0 = 1.3
        hi = np.exp(e0) / (np.exp(e0) + k - 1)
        lo = 1 / (np.exp(e0) + k - 1)
        P = np.array([hi, lo] + [lo] * (k - 2))
        Q = np.array([lo, hi] + [lo] * (k - 2))
        for e in (0.0, 0.5, 1.3, 2.0):
            assert M.krr_delta(e, e0, k) == pytest.approx(H.hockey_stick(P, Q, e), abs=1e-14)


def test_quaternary_profile_matches_pmfs():
    x0, x1 = M.quaternary_pmfs(0.8, 0.01)
    for e in (0.0, 0.4, 0.8, 1.5):
        assert M.quaternary_delta(e, 0.8, 0.01) == pytest.approx(
            H.hockey_stick(x0, x1, e), abs=1e-14
        )


def test_gaussian_calibrations():
    sig = M.gaussian_sigma_exact(1.0, 1e-5)
    assert M.gaussian_delta(1.0, sig) <= 1e-5
    assert M.gaussian_delta(1.0, sig * (1 - 1e-6)) > 1e-5
    assert M.gaussian_sigma_classic(1.0, 1e-5) > sig  # eq. (8) over-noises
    lim = M.classic_calibration_limit(1e-5)
    assert 2.0 < lim < 20.0
    assert M.classic_calibration_holds(lim * 0.999, 1e-5)
    assert not M.classic_calibration_holds(lim * 1.01, 1e-5)


@pytest.mark.parametrize("e", [0.01, 0.5, 2.0])
def test_lemma4_dominance(e):
    grid = np.linspace(0, 5, 101)
    quat0 = M.quaternary_delta(grid, e, 0.0)
    assert np.all(M.rr_delta(grid, e) <= quat0 + 1e-15)
    assert np.all(M.laplace_delta(grid, e) <= quat0 + 1e-15)
    sig = M.gaussian_sigma_exact(e, 1e-5)
    assert np.all(M.gaussian_delta(grid, sig) <= M.quaternary_delta(grid, e, 1e-5) + 1e-15)
