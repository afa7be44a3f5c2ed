"""FLAME's padded protocols as printed (one message per user): the linkage bounds of
gspa.studies.flame.linkage against exact computation on small instances."""

import math

import numpy as np
import pytest

from gspa.studies.flame import linkage as L

Q1 = L.bit_probability("rr", 1.0)


@pytest.mark.parametrize("k, n", [(2, 4), (3, 3), (4, 4), (2, 8)])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0])
def test_histogram_law_is_the_enumerated_multiset(k, n, eps):
    assert L.linked_delta_exact(k, Q1, eps, n) == pytest.approx(
        L.linked_delta_enumerated(k, Q1, eps, n), abs=1e-12
    )


@pytest.mark.parametrize("k, n", [(2, 4), (3, 3), (4, 4), (2, 8), (6, 10)])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0])
def test_threshold_bound_is_below_the_exact_delta(k, n, eps):
    exact = L.linked_delta_exact(k, Q1, eps, n)
    low, _ = L.linked_delta_lower(k, Q1, eps, 1, n - 1)  # one user, the rest blanket dummies
    assert low <= exact + 1e-12
    assert L.linked_delta_lower(k, Q1, eps, n, 0)[0] == pytest.approx(
        low, abs=1e-12
    )  # blanket users = dummies


def test_one_message_leaks_more_than_separate_shuffles():
    assert L.linked_delta_exact(4, Q1, 0.5, 4) > L.separate_delta_exact(4, Q1, 0.5, 4) + 5e-3
    for k, n in [(2, 4), (3, 3), (2, 8)]:
        assert L.separate_delta_exact(k, Q1, 0.5, n) <= L.linked_delta_exact(k, Q1, 0.5, n) + 1e-12


@pytest.mark.parametrize("others", ["blanket", "signed"])
def test_threshold_delta_recomputed_in_mpmath(others):
    for k, t, users, dummies, eps in [
        (5, 3, 4, 6, 0.5),
        (9, 7, 20, 50, 1.0),
        (157, 46, 1000, 15650, 2.2946),
    ]:
        a = L.threshold_delta(k, L.bit_probability("rr", 0.5), eps, t, users, dummies, others)
        b = L.threshold_delta_mp(k, 0.5, "rr", eps, t, users, dummies, others)
        assert b == pytest.approx(a, rel=1e-6, abs=1e-15)


def test_flame_settings_break_the_sampled_dimension_composition():
    v = L.dummy_messages(7850, 333, 157, 1000)
    assert v == 15650
    low, _ = L.linked_delta_lower(157, L.bit_probability("rr", 0.5), 1.563, 1000, v)
    assert low > 1000 * 5.01e-6  # far above delta_c at the repaired epsilon
    eps, t = L.linked_epsilon_lower(157, L.bit_probability("laplace", 0.5), 5.01e-6, 1000, v)
    assert eps > 5.0
    assert L.threshold_delta(157, L.bit_probability("laplace", 0.5), eps, t, 1000, v) > 5.01e-6


def test_laplace_bit_and_validation():
    assert L.bit_probability("laplace", 2.0) == pytest.approx(1 - 0.5 * math.exp(-1.0))
    with pytest.raises(ValueError, match="n l k"):
        L.dummy_messages(10, 1, 5, 10)
    assert L.dummy_messages(7, 3, 2, 4) == math.ceil((7 * 3 - 4 * 2) / 2)


def test_in_order_partition_takes_each_class_in_order():
    from gspa.studies.flame.protocols import partition_in_order

    y = np.repeat(np.arange(10), 5)
    x = np.arange(50, dtype=np.float32)[:, None] * np.ones((1, 784), dtype=np.float32)
    u = partition_in_order(x, y, 4, per_user=10, train_per_user=7)
    got = np.sort(np.concatenate([u.x[:, :, 0].ravel(), u.x_test[:, 0]]))
    want = np.sort([5 * c + i for c in range(10) for i in range(4)])  # first 4 images of each class
    assert np.array_equal(got, want)
    mine = list(range(10))  # user 0 holds classes 0..9, shuffled once after seed 7
    __import__("random").Random(7).shuffle(mine)
    assert u.y[0].tolist() == mine[:7]
    with pytest.raises(ValueError, match="class"):
        partition_in_order(x, y, 6)
