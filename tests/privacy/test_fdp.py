import numpy as np
import pytest

from gspa.privacy.interop import dpaccounting as dpa
from gspa.privacy.basics import fdp
from gspa.privacy.basics import hypothesis as H
from gspa.privacy.basics.mechanisms import quaternary_pmfs

ALPHA = np.linspace(0, 1, 501)


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 3.0])
def test_gdp_delta_matches_dp_accounting(mu):
    eps = np.linspace(0, 5, 11)
    ours = fdp.gdp_delta(eps, mu)
    ref = dpa.gaussian_delta(eps, mu)
    big = ours > 1e-10
    assert np.all(ref >= ours - 1e-12)  # the PLD is pessimistic
    assert np.allclose(ref[big], ours[big], rtol=1e-3)


@pytest.mark.parametrize("mu, delta", [(0.2, 1e-6), (1.0, 1e-5), (2.5, 1e-3)])
def test_gdp_epsilon_is_conservative_inverse(mu, delta):
    eps = fdp.gdp_epsilon(delta, mu)
    assert fdp.gdp_delta(eps, mu) <= delta
    assert fdp.gdp_delta(eps * (1 - 1e-9), mu) > delta * (1 - 1e-6)
    assert abs(eps - dpa.gaussian_epsilon(delta, mu)) < 1e-3


def test_gdp_delta_large_eps_does_not_overflow():
    assert fdp.gdp_delta(800.0, 1.0) == 0.0
    assert np.isfinite(fdp.gdp_delta(np.array([0.0, 50.0, 700.0]), 30.0)).all()


def test_gdp_epsilon_zero_when_already_private():
    assert fdp.gdp_epsilon(0.5, 0.01) == 0.0


@pytest.mark.parametrize("eps, delta", [(0.0, 0.1), (0.5, 1e-3), (2.0, 0.2)])
def test_f_eps_delta_is_quaternary_tradeoff(eps, delta):
    x0, x1 = quaternary_pmfs(eps, delta)
    assert np.allclose(
        H.tradeoff_curve(x0, x1, ALPHA), fdp.f_eps_delta(ALPHA, eps, delta), atol=1e-12
    )
    assert fdp.is_tradeoff_function(lambda a: fdp.f_eps_delta(a, eps, delta))["all"]


def test_printed_fact1_is_not_a_tradeoff_function_for_small_eps():
    assert not fdp.is_tradeoff_function(lambda a: fdp.f_eps_delta_as_printed(a, 0.5, 0.01))["all"]
    assert fdp.f_eps_delta_as_printed(1.0, 0.5, 0.01) > 0


def test_chain_bound_tight_for_gaussians_and_valid_for_pmfs():
    got = fdp.chain_bound(
        lambda a: fdp.gdp_tradeoff(a, 0.7), lambda a: fdp.gdp_tradeoff(a, 1.2), ALPHA
    )
    assert np.allclose(got, fdp.gdp_tradeoff(ALPHA, 1.9), atol=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(50):
        P, Q, R = (H.random_pmf(rng, 5) for _ in range(3))
        bound = fdp.chain_bound(
            lambda a: H.tradeoff_curve(P, Q, a), lambda a: H.tradeoff_curve(Q, R, a), ALPHA
        )
        assert np.all(H.tradeoff_curve(P, R, ALPHA) >= bound - 1e-12)


def test_composition_and_group():
    assert fdp.gdp_compose([3.0, 4.0]) == pytest.approx(5.0)
    assert fdp.gdp_group(0.5, 3) == pytest.approx(1.5)
    eps = np.array([0.5, 1.0, 2.0])
    assert np.allclose(
        dpa.composed_gaussian_delta(eps, [0.6, 0.8]), fdp.gdp_delta(eps, 1.0), rtol=1e-3
    )


def test_monte_carlo_delta_agrees_with_formula():
    rng = np.random.default_rng(1)
    eps = np.array([0.0, 0.5, 1.0])
    est, se = fdp.mc_gdp_delta(eps, 1.0, 200_000, rng)
    assert np.all(np.abs(est - fdp.gdp_delta(eps, 1.0)) <= 5 * se)


def test_is_tradeoff_function_detects_violations():
    assert not fdp.is_tradeoff_function(lambda a: 1 - a**2)["below_1_minus_alpha"]
    assert not fdp.is_tradeoff_function(
        lambda a: np.sqrt(np.clip(1 - a, 0, 1)) * 0 + (1 - a) ** 0.5 * 0.5
    )["convex"]


def test_inverse_tradeoff_and_the_symmetrised_printed_fact1():
    from gspa.privacy.basics import fdp

    a = np.linspace(0, 1, 501)
    for mu in (0.5, 2.0):  # G_mu is its own inverse
        g = lambda t, mu=mu: fdp.gdp_tradeoff(t, mu)
        assert np.allclose(fdp.inverse_tradeoff(g, a), g(a), atol=1e-4)
    for e, d in ((1.0, 0.01), (2.0, 0.1), (0.995, 0.005)):  # eps >= 1 - delta
        printed = lambda t: fdp.f_eps_delta_as_printed(t, e, d)
        sym = np.maximum(printed(a), fdp.inverse_tradeoff(printed, a))
        assert np.allclose(sym, fdp.f_eps_delta(a, e, d), atol=1e-4)


def test_trade_off_with_a_revealing_event_matches_enumeration():
    from gspa.privacy.basics import fdp
    from gspa.privacy.basics import hypothesis as H

    rng = np.random.default_rng(0)
    a = np.linspace(0, 1, 401)
    for dn in (0.0, 0.05, 0.3):
        P, Q = H.random_pmf(rng, 5), H.random_pmf(rng, 5)
        P2 = np.concatenate([(1 - dn) * P, [dn, 0.0]])
        Q2 = np.concatenate([(1 - dn) * Q, [0.0, dn]])
        T = fdp.with_revealing_event(lambda t: H.tradeoff_curve(P, Q, t), dn)
        assert np.allclose(T(a), H.tradeoff_curve(P2, Q2, a), atol=1e-12)


@pytest.mark.parametrize("mu", [2.6e-6, 1e-5, 3e-5])
def test_gdp_epsilon_tiny_mu_is_rounded_up_and_returns(mu):
    """With mu close to delta, delta(eps) cancels badly near the root; rounding up must still end (it
    once stepped one ulp at a time for ever) and give a certified eps."""
    from gspa.privacy.basics.fdp import gdp_delta, gdp_epsilon

    e = gdp_epsilon(1e-6, mu)
    assert gdp_delta(e, mu) <= 1e-6
    assert e < 10 * mu


def test_dpaccounting_refuses_bad_arguments_before_building_a_pld():
    with pytest.raises(ValueError, match="discretization"):
        dpa.gaussian_delta(0.5, 1.0, discretization=np.inf)
    with pytest.raises(ValueError, match="mu must lie in"):
        dpa.gaussian_epsilon(1e-6, 1e-300)
    with pytest.raises(ValueError, match="T must be an integer in"):
        dpa.composed_pair_epsilon([0.5, 0.5], [0.2, 0.8], 10**9, 1e-6)
    with pytest.raises(ValueError, match="compositions"):
        dpa.composed_pair_epsilon([0.5, 0.5], [0.2, 0.8], 10**6, 1e-6)
    with pytest.raises(ValueError, match="eps holds"):
        dpa.laplace_delta(np.zeros(30_000), 1.0)
    with pytest.raises(ValueError, match="PLD points"):
        dpa.pmf_pair_delta(0.5, [1 - 1e-300, 1e-300], [1e-300, 1 - 1e-300])


def test_delta_is_not_the_probability_that_the_privacy_loss_exceeds_eps():
    """Definition 1's sentence: delta(eps) <= P(L > eps) always (delta = E[(1 - e^{eps - L})_+]), strictly for mu-GDP,
    where the Monte Carlo frequency of L > eps agrees with gdp_loss_tail."""
    rng = np.random.default_rng(0)
    for mu in (0.3, 1.0, 3.0):
        eps = np.linspace(0.0, 4.0, 17)
        tail, delta = fdp.gdp_loss_tail(eps, mu), fdp.gdp_delta(eps, mu)
        assert np.all(delta <= tail + 1e-15) and np.all(delta[tail > 1e-6] < tail[tail > 1e-6])
        x = rng.normal(mu, 1.0, 200_000)
        L = mu * x - mu**2 / 2
        assert abs(np.mean(L > 0.5) - fdp.gdp_loss_tail(0.5, mu)) < 5e-3
    assert fdp.gdp_loss_tail(0.5, 1.0) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="mu"):
        fdp.gdp_loss_tail(0.5, 0.0)
