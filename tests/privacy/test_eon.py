"""EoN (Liu et al., AAAI 2023) re-derived (gspa.privacy.peers.eon): its echo probabilities, its value with one
budget, and where its number is or is not a bound."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.peers import eon


def _t(eps):
    a = eps / -np.expm1(-eps)
    return a[:, None] / a[None, :] * np.exp(-np.maximum(eps[:, None], eps[None, :]))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from([0.05, 0.3, 0.3, 1.0, 2.5]) | st.floats(0.01, 5.0), min_size=2, max_size=40
    )
)
def test_echo_probabilities_are_the_pairwise_average(budgets):
    """The O(n log n) sums equal the O(n²) definition (ties included)."""
    eps = np.array(budgets)
    assert np.allclose(eon.echo_probabilities(eps), _t(eps).mean(axis=1), rtol=1e-12)
    mu, sd = eon.EonApproximation(eps).moments()
    j = int(np.argmax(eps))
    t = np.delete(_t(eps), j, axis=0) / eps.size
    assert mu == pytest.approx(t.sum(), rel=1e-12) and sd**2 == pytest.approx(
        (t * (1 - t)).sum(), rel=1e-10
    )


def test_one_budget_is_fmt21():
    """With one budget every echo probability is e^(−ε₀) and the normal law approximates FMT21's binomial:
    EoN's ε within 0.5 % of gspa's (exact) FMT21 pair."""
    assert np.allclose(eon.echo_probabilities(np.full(9, 0.8)), np.exp(-0.8), rtol=1e-14)
    for e0, n in ((1.0, 10**4), (0.5, 10**3), (2.0, 10**5)):
        ours = PAIRS.fmt21_pair(e0, n).epsilon(1e-6)
        assert eon.EonApproximation(np.full(n, e0)).epsilon(1e-6) == pytest.approx(ours, rel=5e-3)


def test_above_the_certified_bound_for_binary_rr_but_below_the_truth_for_laplace():
    """Binary RR with budgets U(0.05, 1): EoN's ε lies above gspa's certified upper bound (so it is a bound
    there). Laplace with one user at 0.1 among users at 1: at EoN's ε a certified lower bound on the real
    protocol's δ is far above EoN's δ, so EoN's number does not bound that protocol."""
    from gspa.studies.gspa.estimation import laplace_max_event

    eps = np.random.default_rng(0).uniform(0.05, 1.0, 10**4)
    assert eon.EonApproximation(eps).epsilon(1e-8) > A.personalized_pair(
        eps, reduction="cells"
    ).epsilon(1e-8)
    eps = np.full(10**4, 1.0)
    eps[0] = 0.1
    e = eon.EonApproximation(eps).epsilon(1e-8)
    low, _ = laplace_max_event(eps, np.zeros(eps.size), 0, 0.0, 1.0, e, np.linspace(0, 400, 2001))
    assert low > 1e5 * 1e-8


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 users"):
        eon.echo_probabilities([1.0])
    with pytest.raises(ValueError, match="eps"):
        eon.EonApproximation(np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="delta"):
        eon.EonApproximation(np.ones(5)).epsilon(0.0)


def test_clip_laplace_tail_matches_samples_and_is_eps_ldp():
    """The tail in closed form agrees with the inverse-CDF sampler (10^5 draws, 5 sigma), and the density ratio
    of two inputs never exceeds e^eps (finite differences of the tail), reaching it at y = C, u = ±C."""
    for u, e in ((1.0, 0.5), (-0.3, 3.0), (0.0, 10.0)):
        y = eon.clip_laplace_sample(np.full(10**5, u), e, seed=1)
        assert y.min() >= -1.0 and y.max() <= 1.0
        for t in (-0.8, 0.0, 0.7):
            p = eon.clip_laplace_tail(t, u, e)
            assert abs((y > t).mean() - p) < 5 * np.sqrt(p * (1 - p) / y.size) + 1e-9
    ys = np.linspace(-1, 1, 4001)
    us = np.linspace(-1, 1, 41)
    for e in (0.1, 1.0, 5.0):
        dens = -np.diff(eon.clip_laplace_tail(ys[:, None], us[None, :], e), axis=0)
        ratio = np.log(dens.max(axis=1) / dens.min(axis=1)).max()
        assert e * 0.99 < ratio <= e * (1 + 1e-6)


def test_clip_laplace_lower_is_a_lower_bound_on_a_small_protocol():
    """For n = 2, the count of reports above t is all a threshold test sees: its δ equals a direct
    computation (at eps = 0, the total variation), and at eps = eps_i there is nothing (the protocol is eps_i-DP)."""
    low, t = eon.clip_laplace_lower(2, 3.0, 3.0, 0.0, [0.0])
    p1, p0, p = (eon.clip_laplace_tail(0.0, u, 3.0) for u in (1.0, -1.0, -1.0))
    assert low == pytest.approx(
        abs(p1 - p0) * (1 + abs(1 - 2 * p)) / 2, abs=1e-14
    )  # TV of K's two laws
    assert eon.clip_laplace_lower(2, 3.0, 3.0, 3.0, np.linspace(-0.9, 0.99, 50))[0] == 0.0


def test_eon_under_its_own_mechanism():
    """The tested settings (one user at 0.1 among users at 1) are consistent with EoN's number under its
    Clip-Laplace mechanism, whichever user differs; one liberal user (eps 10) among 10^4 users at 0.05 is not,
    and the 40-digit recomputation confirms it."""
    assert eon.clip_laplace_margin(10**4, 0.1, 1.0) > 0.99
    assert eon.clip_laplace_margin(10**4, 1.0, 0.1) > 0.99
    assert eon.clip_laplace_margin(10**4, 10.0, 0.05) < -1.0
    assert eon.clip_laplace_confirmed(10**4, 10.0, 0.05)
    assert not eon.clip_laplace_confirmed(10**3, 2.0, 0.05)


def test_eon_epsilon_is_the_larger_reading_of_their_code():
    eps = np.append(8.0, np.full(999, 0.05))
    e1, e100 = eon.EonApproximation(eps).epsilon(1e-8), eon.EonApproximation(eps, 100).epsilon(1e-8)
    assert e100 > e1 and eon.eon_epsilon(eps, 1e-8) == e100
    assert (
        eon.eon_epsilon(np.array([1.0, 2.0, 3.0]), 1e-8) == 3.0
    )  # outside their regime: no amplification


def test_clip_bad_input():
    with pytest.raises(ValueError, match="eps"):
        eon.clip_laplace_tail(0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="t_grid"):
        eon.clip_laplace_lower(10, 1.0, 1.0, 0.5, [1.0])
    with pytest.raises(ValueError, match="n"):
        eon.clip_laplace_margin(1, 1.0, 1.0)
    with pytest.raises(ValueError, match="block"):
        eon.EonApproximation(np.ones(3), 0)
    with pytest.raises(ValueError, match="C"):
        eon.clip_laplace_sample([0.0], 1.0, C=-1.0)
