import numpy as np
import pytest

from gspa.privacy.basics import decomposition as D


@pytest.mark.parametrize("eps, k", [(0.3, 2), (1.0, 3), (2.0, 6)])
def test_randomized_response_reaches_the_papers_clone_probability(eps, k):
    R = D.randomized_response(eps, k)
    p, Q0, Q1 = D.max_clone_probability(R[0], R[1], R[2:], eps)
    assert p == pytest.approx(1 / (1 + np.exp(eps)), rel=1e-9)
    e = np.exp(eps)
    W = R[0] - p * (e * Q0 + Q1)  # eq. (9) remainder
    assert np.all(W >= -1e-9)
    assert np.allclose(R[1], p * (Q0 + e * Q1) + W, atol=1e-9)  # eq. (10) with the same W
    for r in R[2:]:
        assert np.all(r - p * (Q0 + Q1) >= -1e-9)  # eq. (11)


def test_random_randomizers_can_fall_short_but_fmt21_is_always_feasible():
    rng = np.random.default_rng(0)
    ratios, fmt = [], []
    for _ in range(60):
        R = D.random_ldp_randomizer(rng, 4, 5, 2.0)
        e = D.dp_epsilon(R)
        p, _, _ = D.max_clone_probability(R[0], R[1], R[2:], e)
        ratios.append(p * (1 + np.exp(e)))
        fmt.append(p / (np.exp(-e) / 2))
    assert min(ratios) < 0.95  # a counterexample to eq. (11) with p = 1/(1+e^eps)
    assert min(fmt) >= 1 - 1e-9  # Feldman-McMillan-Talwar's e^-eps/2 always works


def test_dp_epsilon_and_clone_weight():
    R = D.randomized_response(1.0, 2)
    assert D.dp_epsilon(R) == pytest.approx(1.0)
    assert D.clone_weight(D.randomized_response(2.0, 2)[0], [1, 0], [0, 1]) == pytest.approx(
        1 / (1 + np.exp(2.0))
    )


def test_binned_laplace_is_accurate_in_the_tails():
    rows = D.discrete_laplace_rows([0.0, 1.0], 2.0, 30.0, 200)
    assert np.allclose(rows.sum(axis=1), 1.0)
    assert rows.min() > 0  # no underflow to zero in the far bins


def test_laplace_cross_budget_clone_weight():
    same = D.laplace_cross_clone_weight(0.5, 0.5, 8.0, 200)
    assert same == pytest.approx(1 / (1 + np.exp(0.5)), rel=1e-3)
    assert D.laplace_cross_clone_weight(2.0, 0.5, 32.0, 400) < 1e-6
