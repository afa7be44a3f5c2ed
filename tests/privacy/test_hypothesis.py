import itertools

import numpy as np
import pytest

from gspa.privacy.basics import hypothesis as H

ALPHA = np.linspace(0, 1, 401)


def all_deterministic_tests(k):
    return [np.array(bits, float) for bits in itertools.product([0, 1], repeat=k)]


@pytest.mark.parametrize("seed", range(5))
def test_tradeoff_curve_is_lower_envelope_of_all_tests(seed):
    rng = np.random.default_rng(seed)
    P, Q = H.random_pmf(rng, 5), H.random_pmf(rng, 5)
    curve = H.tradeoff_curve(P, Q, ALPHA)
    for phi in all_deterministic_tests(5):
        a, b = H.test_errors(phi, P, Q)
        assert b >= H.tradeoff_curve(P, Q, a) - 1e-12  # no test beats the curve
    # the curve is convex, non-increasing, below 1 - alpha
    assert np.all(np.diff(curve) <= 1e-12)
    assert np.all(np.diff(curve, 2) >= -1e-9)
    assert np.all(curve <= 1 - ALPHA + 1e-12)


def test_min_alpha_plus_beta_is_one_minus_tv():
    rng = np.random.default_rng(3)
    for _ in range(20):
        P, Q = H.random_pmf(rng, 6), H.random_pmf(rng, 6)
        a, b = H.tradeoff_vertices(P, Q)
        assert np.min(a + b) == pytest.approx(1 - H.total_variation(P, Q), abs=1e-12)


def test_hockey_stick_brute_force_and_tradeoff_duality():
    rng = np.random.default_rng(4)
    for _ in range(20):
        P, Q = H.random_pmf(rng, 6), H.random_pmf(rng, 6)
        for e in (0.0, 0.3, 1.7):
            brute = max(
                sum(P[list(S)]) - np.exp(e) * sum(Q[list(S)])
                for r in range(7)
                for S in itertools.combinations(range(6), r)
            )
            assert H.hockey_stick(P, Q, e) == pytest.approx(max(brute, 0.0), abs=1e-12)
            a, b = H.tradeoff_vertices(P, Q)
            assert H.delta_from_tradeoff(a, b, e) == pytest.approx(
                H.hockey_stick(Q, P, e), abs=1e-12
            )


def test_disjoint_supports_are_perfectly_distinguishable():
    assert np.allclose(H.tradeoff_curve([1, 0], [0, 1], ALPHA), 0.0)
    assert H.total_variation([1, 0], [0, 1]) == 1.0
