"""The enumerated outcomes of a reduced pair (gspa.privacy.shuffle.outcomes): the dominating clone-count measure,
the binomial masses' accuracy, and the enumerated privacy curve against the pair and the protocol."""

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import special, stats

from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as SP
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import clones as C
from gspa.privacy.shuffle import outcomes as O
from gspa.privacy.basics.hypothesis import hockey_stick


def _poisson_binomial(q):
    law = np.array([1.0])
    for x in q:
        law = np.convolve(law, [1 - x, x])
    return law


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 400), st.integers(0, 10**6), st.floats(0.01, 3.0))
def test_dominating_measure_bounds_every_decreasing_expectation(n, seed, scale):
    """E_nu[H] >= E[H(M)] for H = the indicator of {M < k} at every k (these generate all decreasing H),
    with M's law convolved sequentially; nu's mass is at least 1 and its excess is the counted error."""
    eps = np.random.default_rng(seed).uniform(0.01, scale, n)
    q = np.minimum(2 * special.expit(-eps), 1.0)
    law = C.clone_law(q)
    m, nu = O._dominating_measure(law)
    ref = _poisson_binomial(np.sort(q[q >= C.DROP]))
    assert nu.sum() >= 1 - 1e-15 and nu.sum() <= 1 + 1e-9
    ks = np.arange(ref.size + 1)
    below_nu = np.array([nu[m < k].sum() for k in ks])
    below_ref = np.concatenate([[0.0], np.cumsum(ref)])
    assert np.all(below_nu >= below_ref * (1 - 1e-12) - 1e-300)


def test_binomial_masses_are_within_the_allowance():
    """scipy's binomial pmf (Boost) at p = 1/2 against 40-digit mpmath, counts up to 10^6 within 8
    standard deviations of the mean and at the ends: the relative error stays below MASS_REL / 10."""
    mp.mp.dps = 40
    rng = np.random.default_rng(0)
    worst = 0.0
    for m in [1, 7, 10, 100, 1000, 10**4, 10**5, 10**6]:
        sd = int(4 * np.sqrt(m)) + 1
        for a in {0, m, m // 2, *(m // 2 + rng.integers(-sd, sd + 1, 12)).tolist()}:
            if 0 <= a <= m:
                v = stats.binom.pmf(a, m, 0.5)
                exact = mp.binomial(m, a) / mp.mpf(2) ** m
                if v > 0:
                    worst = max(worst, abs(float(mp.mpf(v) / exact) - 1))
    assert worst < O.MASS_REL / 10


PAIRS = {
    "personalized": lambda: A.personalized_pair(
        np.random.default_rng(1).uniform(0.05, 2.0, 60), reduction="clones"
    ),
    "revealing": lambda: A.personalized_pair(
        np.random.default_rng(2).uniform(0.05, 2.0, 60), variant="revealing", reduction="clones"
    ),
    "fmt21": lambda: SP.fmt21_pair(1.0, 80),
    "quaternary": lambda: A.personalized_pair(
        np.full(40, 0.7), np.full(40, 1e-4), randomizer="quaternary", reduction="clones"
    ),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_enumerated_curve_bounds_the_pair_and_is_tight(name):
    """Above the hockey-stick divergence of the pair's laws (pmfs), close to the pair's certified curve."""
    pair = PAIRS[name]()
    grid = (
        np.linspace(0.0, 3.0, 61) + 0.0123
    )  # not at L itself, where the pmfs' terms are round-off
    curve = O.Enumerated(pair)(grid)
    P0, P1 = pair.pmfs()
    for i, e in enumerate(grid):
        truth = max(hockey_stick(P0, P1, e), hockey_stick(P1, P0, e))
        assert curve[i] >= truth * (1 - 1e-9) - 1e-300
    cert = np.asarray(pair.delta(grid))
    assert np.all(
        curve <= cert * (1 + 1e-4) + 1e-25
    )  # (just below L the counted slack is relatively larger)


@pytest.mark.parametrize("seed", range(3))
def test_enumerated_curve_is_above_the_enumerated_protocol(seed):
    """The real shuffled protocol (binary randomized response, n = 6) against the enumerated curve."""
    eps = np.random.default_rng(seed).uniform(0.2, 1.5, 6)
    grid = np.linspace(0.0, 2.0, 41)
    truth, err = BF.shuffled_profile("binary-rr", eps, grid)
    for variant in PROF.VARIANTS:
        curve = O.Enumerated(A.personalized_pair(eps, variant=variant, reduction="clones"))(grid)
        assert np.all(truth - err <= curve)


def test_enumeration_refuses_too_many_outcomes_and_bad_eps(monkeypatch):
    pair = PAIRS["fmt21"]()
    with pytest.raises(ValueError, match="eps"):
        O.Enumerated(pair)(np.array([-1.0]))
    monkeypatch.setattr(O, "MAX_OUTCOMES", 10)
    with pytest.raises(ValueError, match="MAX_OUTCOMES"):
        O.Enumerated(pair)


@pytest.mark.parametrize("L", [14.0, 20.0, 35.0])
def test_enumerated_curve_holds_for_large_log_odds(L):
    """1 - q by subtraction loses u e^L (regression: at L = 35 the curve fell to 1e-300 against 1e-2); the
    node-by-node certified curve works in the log domain."""
    pair = SP.fmt21_pair(L, 3)
    grid = np.array([0.5, L / 2, L - 0.05, L - 0.01])
    assert np.all(O.Enumerated(pair)(grid) >= np.asarray(pair.delta(grid)) * (1 - 1e-9))


def _two_user_rr_delta(eps_users, rounds, e):
    """Exact delta(e) of shuffled binary randomized response, two users, user 0 differs (0 vs 1), user 1
    holds 0, ``rounds`` runs on the same data, in 60-digit arithmetic (both directions)."""
    mp.mp.dps = 60
    p = [mp.e ** mp.mpf(x) / (1 + mp.e ** mp.mpf(x)) for x in eps_users]  # P(report = input)

    def law(x0):
        r0 = [p[0], 1 - p[0]] if x0 == 0 else [1 - p[0], p[0]]  # P(report 0), P(report 1)
        r1 = [p[1], 1 - p[1]]
        one = [r0[0] * r1[0], r0[0] * r1[1] + r0[1] * r1[0], r0[1] * r1[1]]  # count of 1s: 0, 1, 2
        out = one
        for _ in range(rounds - 1):
            out = [a * b for a in out for b in one]
        return out

    P, Q = law(0), law(1)
    ee = mp.e ** mp.mpf(e)
    return float(
        max(
            sum(max(a - ee * b, 0) for a, b in zip(P, Q)),
            sum(max(b - ee * a, 0) for a, b in zip(P, Q)),
        )
    )


@pytest.mark.parametrize(
    "eps_users, e", [([35.0, 35.0], 69.9), ([29.0, 29.0], 57.97), ([3.0, 1.0], 3.5)]
)
def test_composed_bound_at_large_budgets_is_above_the_exact_protocol(eps_users, e):
    """Two rounds of two users: the composed certified bound against 60-digit enumeration (regression: the
    basic-composition branch read the enumerated curve, which fell below the truth at L = 35)."""
    truth = _two_user_rr_delta(eps_users, 2, e)
    assert A.personalized_pair(eps_users, rounds=2, reduction="clones").delta(e) >= truth * (
        1 - 1e-9
    )


def test_revealing_pair_at_eps_inf_counts_the_revealing_outcome():
    """delta(inf) of the revealing pair is E[2^-M] > 0 (regression: it returned about 1e-307), above the
    enumerated protocol's delta(inf), and the composed bound keeps it."""
    eps = [1.0, 2.0, 0.5]
    truth, err = BF.shuffled_profile("binary-rr", eps, [np.inf])
    pair = A.personalized_pair(eps, variant="revealing", reduction="clones")
    assert pair.delta(np.inf) >= truth[0] - err[0] and pair.delta(np.inf) > 0.01
    assert A.personalized_pair(eps, variant="revealing", rounds=3, reduction="clones").delta(
        np.inf
    ) >= pair.delta(np.inf)
