"""Su–Cheng–Wang's optimal-decomposition bound for k-RR (gspa.privacy.peers.parv), re-derived: its definition, its
equality with gspa's certified blanket pair, and its validity against exhaustive enumeration."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.exact import peers as EXP
from gspa.privacy.peers import parv

GRID = np.array([0.0, 0.02, 0.1, 0.3, 0.7, 1.5])


@pytest.mark.parametrize(
    "eps0, k, eps", [(1.0, 3, 0.2), (2.0, 10, 0.0), (0.3, 2, 0.1), (5.0, 50, 4.0)]
)
def test_the_random_variable_is_a_likelihood_ratio_difference(eps0, k, eps):
    """E[G] = sum over outputs of P − e^ε Q = 1 − e^ε, and the probabilities sum to 1."""
    values, probs = parv.kary_parv(eps0, k, eps)
    assert probs.sum() == pytest.approx(1.0, rel=1e-14) and np.all(probs >= 0)
    assert values @ probs == pytest.approx(-np.expm1(eps), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    "k, eps0, n", [(3, 1.0, 20), (10, 1.0, 50), (10, 2.0, 120), (4, 0.5, 60), (25, 3.0, 40)]
)
def test_equals_gspa_blanket_pair(k, eps0, n):
    """Their bound (exact expectation) is the δ of gspa's KaryPair with one budget: the certified pair is at
    most 1e-4 relatively above it and never below."""
    ours = np.asarray(
        A.personalized_pair(
            np.array([eps0]), None, randomizer="k-rr", k=k, counts=np.array([n])
        ).delta(GRID)
    )
    theirs = parv.parv_delta(eps0, k, n, GRID)
    assert np.all(ours >= theirs * (1 - 1e-12))
    big = theirs > 1e-12
    assert big.sum() >= 3 and np.all(ours[big] <= theirs[big] * (1 + 1e-4))


@pytest.mark.parametrize("eps0, n", [(0.5, 50), (1.0, 300), (3.0, 100)])
def test_binary_is_fmt23(eps0, n):
    theirs = parv.parv_delta(eps0, 2, n, GRID)
    ours = np.asarray(PAIRS.fmt23_pair(eps0, n).delta(GRID))
    big = theirs > 1e-12
    assert np.allclose(ours[big], theirs[big], rtol=1e-6)


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.integers(2, 5), st.floats(0.05, 4.0))
def test_bound_holds_above_the_enumerated_protocol(n, k, eps0):
    truth, err = BF.shuffled_profile("k-rr", np.full(n, eps0), GRID, k=k)
    theirs = parv.parv_delta(eps0, k, n, GRID)
    assert np.all(theirs * (1 + 1e-10) + 1e-15 >= truth - err)


def test_bad_input():
    with pytest.raises(ValueError, match="n must be"):
        parv.parv_delta(1.0, 3, parv.MAX_USERS + 1, 0.1)
    with pytest.raises(ValueError, match="k must be"):
        parv.kary_parv(1.0, 1, 0.1)
    with pytest.raises(ValueError, match="eps0"):
        parv.kary_parv(0.0, 3, 0.1)
    with pytest.raises(ValueError, match="eps \\+ eps0"):
        parv.kary_parv(400.0, 3, 400.0)


def test_margin_search_function():
    assert EXP.kary_margin(3, 3, 1.0) >= 0
    assert EXP.kary_margin(2, 2, 0.5, points=4) >= 0
