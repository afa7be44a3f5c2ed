"""Uniformity testing in the shuffle model (gspa.studies.fmt21.testing)."""

import numpy as np
import pytest

from gspa.studies.fmt21 import testing as T
from gspa.studies.fmt21.amplification import fitted_slope
from gspa.studies.fmt21.learning import krr_law


def test_perturbed_pairs_is_at_distance_alpha():
    for k, a in [(2, 0.1), (10, 0.25), (100, 0.5)]:
        p = T.perturbed_pairs(k, a)
        assert p.sum() == pytest.approx(1.0) and 0.5 * np.abs(p - 1 / k).sum() == pytest.approx(a)


def test_statistic_mean_formula():
    k, n, reps = 6, 300, 40000
    q = krr_law(T.perturbed_pairs(k, 0.3), 1.5)
    z = T.statistic(np.random.default_rng(1).multinomial(n, q, size=reps))
    mean = n**2 * np.sum((q - 1 / k) ** 2) - n * np.sum(q**2)
    assert abs(z.mean() - mean) < 4 * z.std() / np.sqrt(reps)


def test_threshold_calibration_and_power_grow_with_n():
    pw_small, t, _ = T.power(50, 16, 0.25, 1.0, 1e-6, 4000, seed=2)
    pw_big, _, _ = T.power(200_000, 16, 0.25, 1.0, 1e-6, 4000, seed=3)
    assert pw_small < 0.5 and pw_big > 0.99
    null = T.statistic(np.random.default_rng(4).multinomial(50, np.full(16, 1 / 16), size=20000))
    assert np.mean(null > t) == pytest.approx(1 / 3, abs=0.03)  # calibrated type-I error


def test_nonprivate_tester_scales_like_sqrt_k():
    ks = [16, 256]
    ns = [T.needed_n(k, 0.25, 1.0, 1e-6, 2000, seed=5, steps=16, eps_l=60.0)[0] for k in ks]
    assert fitted_slope(ks, ns) == pytest.approx(0.5, abs=0.1)


def test_needed_n_uses_certified_budget_and_is_reproducible():
    a = T.needed_n(16, 0.25, 1.0, 1e-6, 1000, seed=6, steps=12)
    b = T.needed_n(16, 0.25, 1.0, 1e-6, 1000, seed=6, steps=12)
    assert a == b and a[1] > 1.0
    with pytest.raises(ValueError, match="n_hi"):
        T.needed_n(16, 0.25, 1.0, 1e-6, 200, seed=6, n_hi=20)


def test_rates_constants_one():
    k, a, e, d = 100.0, 0.1, 1.0, 1e-6
    assert T.rate_eq7(k, a, e) == pytest.approx(
        1000 / (0.01 * np.expm1(1) ** 2) + 1000 / (0.01 * np.e) + 10 / 0.01
    )
    assert T.rate_eq6(k, a, e) == pytest.approx(
        100 / (0.01 * np.expm1(1) ** 2) + 100 / (0.01 * np.exp(0.5)) + 10 / 0.01
    )
    assert T.rate_shuffle_private(k, a, e, d) == pytest.approx(
        100**0.75 * np.sqrt(np.log(1e6)) / 0.1 + 1000
    )
    ks = np.array([1e6, 1e8])  # privacy term dominates: exponent 3/4
    assert fitted_slope(ks, T.rate_shuffle_private(ks, 0.5, 0.01, d)) == pytest.approx(
        0.75, abs=0.01
    )


def test_krr_own_rate_has_exponent_five_sixths():
    ks = np.array([1e6, 1e7])  # 1 << e^eps_L << k
    r = T.rate_krr_shuffled(ks, 0.5, 0.05, 1e-6)
    assert fitted_slope(ks, r) == pytest.approx(5 / 6, abs=0.03)


def test_what_the_tester_cannot_compute_is_refused():
    with pytest.raises(ValueError, match="even"):
        T.perturbed_pairs(5, 0.1)  # the perturbed pairs need an even k
    with pytest.raises(ValueError, match="n_hi"):
        T.rate_krr_shuffled([16.0], 0.25, 1.0, 1e-6, n_hi=100.0)  # the bisection's top too low


def test_tester_approximation_predicts_simulation():
    sim, _ = T.needed_n(64, 0.25, 1.0, 1e-6, 2000, seed=8, steps=16)
    approx = T.tester_n_approx(64, 0.25, 1.0, 1e-6)
    assert sim == pytest.approx(approx, rel=0.1)


# -- the chapter's table and fits (needed_by_eps, exponent_fits) -------------------------------------------


@pytest.fixture(scope="module")
def by_eps():
    return T.needed_by_eps([8, 16, 32], 0.25, [1.0, 0.5], 1e-6, 60, seed=3, steps=6)


@pytest.mark.slow
def test_needed_by_eps_stacks_one_table_per_budget(by_eps):
    assert list(by_eps.eps) == [1.0] * 3 + [0.5] * 3
    for i, eps in enumerate([1.0, 0.5]):
        d = by_eps[by_eps.eps == eps].reset_index(drop=True)
        want = T.needed_table([8, 16, 32], 0.25, eps, 1e-6, 60, 3 + i, steps=6)
        assert (d[want.columns] == want).all().all()  # seed + i for the i-th budget
        assert list(d.krr_rate) == list(
            T.rate_krr_shuffled(np.array([8.0, 16, 32]), 0.25, eps, 1e-6)
        )
        assert list(d.approx) == [T.tester_n_approx(k, 0.25, eps, 1e-6) for k in (8, 16, 32)]


@pytest.mark.slow
def test_exponent_fits_are_slopes_in_k(by_eps):
    fits, diffs = T.exponent_fits(by_eps)
    assert list(fits.eps) == [1.0, 0.5]
    for row in fits.itertuples(index=False):
        d = by_eps[by_eps.eps == row.eps]
        assert row.measured == pytest.approx(fitted_slope(d.k, d.n))
        assert row[2] == pytest.approx(fitted_slope(d.k, d.shuffle_private))  # the blog's rate
        assert row[3] == pytest.approx(fitted_slope(d.k, d.approx))  # the tester's approximation
        assert row[4] == pytest.approx(fitted_slope(d.k, d.krr_rate))
        for name, j in (("the blog's rate", 2), ("the tester's approximation", 3)):
            assert diffs[f"ε = {row.eps:g}, {name}"] == pytest.approx(row.measured - row[j])
