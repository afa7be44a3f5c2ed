"""EoN (Liu et al., AAAI 2023) re-derived (gspa.privacy.eon): its echo probabilities, its value with one
budget, and where its number is or is not a bound."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gspa.privacy import accountant as A
from gspa.privacy import eon


def _t(eps):
    a = eps / -np.expm1(-eps)
    return a[:, None] / a[None, :] * np.exp(-np.maximum(eps[:, None], eps[None, :]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.05, 0.3, 0.3, 1.0, 2.5]) | st.floats(0.01, 5.0), min_size=2, max_size=40))
def test_echo_probabilities_are_the_pairwise_average(budgets):
    """The O(n log n) sums equal the O(n²) definition (ties included)."""
    eps = np.array(budgets)
    assert np.allclose(eon.echo_probabilities(eps), _t(eps).mean(axis=1), rtol=1e-12)
    mu, sd = eon.EonApproximation(eps).moments()
    j = int(np.argmax(eps))
    t = np.delete(_t(eps), j, axis=0) / eps.size
    assert mu == pytest.approx(t.sum(), rel=1e-12) and sd ** 2 == pytest.approx((t * (1 - t)).sum(), rel=1e-10)


def test_one_budget_is_fmt21():
    """With one budget every echo probability is e^(−ε₀) and the normal law approximates FMT21's binomial:
    EoN's ε within 0.5 % of gspa's (exact) FMT21 pair."""
    assert np.allclose(eon.echo_probabilities(np.full(9, 0.8)), np.exp(-0.8), rtol=1e-14)
    for e0, n in ((1.0, 10**4), (0.5, 10**3), (2.0, 10**5)):
        ours = A.fmt21_pair(e0, n).epsilon(1e-6)
        assert eon.EonApproximation(np.full(n, e0)).epsilon(1e-6) == pytest.approx(ours, rel=5e-3)


def test_above_the_certified_bound_for_binary_rr_but_below_the_truth_for_laplace():
    """Binary RR with budgets U(0.05, 1): EoN's ε lies above gspa's certified upper bound (so it is a bound
    there). Laplace with one user at 0.1 among users at 1: at EoN's ε a certified lower bound on the real
    protocol's δ is far above EoN's δ, so EoN's number does not bound that protocol."""
    from gspa.studies.gspa.estimation import laplace_max_event
    eps = np.random.default_rng(0).uniform(0.05, 1.0, 10**4)
    assert eon.EonApproximation(eps).epsilon(1e-8) > A.personalized_pair(eps, reduction="cells").epsilon(1e-8)
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
