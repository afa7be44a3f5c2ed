"""The blanket pair of shuffled k-ary randomized response (accountant.KaryPair) against exhaustive
enumeration of the real protocol, and against the clone pairs it replaces."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle.composition import compose

GRID = np.linspace(0.0, 3.0, 25)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(k=st.integers(3, 5), eps=st.lists(st.floats(0.05, 3.0), min_size=2, max_size=4))
def test_an_upper_bound_on_the_real_protocol(k, eps):
    """Every differing user, every data set of the others, every pair of inputs (enumerated)."""
    eps = np.array(eps)
    truth, err = BF.shuffled_profile("k-rr", eps, GRID, k=k)
    bound = np.asarray(A.personalized_pair(eps, randomizer="k-rr", k=k).delta(GRID))
    assert np.all(bound >= truth - err), (bound - truth).min()


@pytest.mark.parametrize("n, k, eps0", [(4, 3, 1.0), (5, 4, 1.9), (4, 5, 0.6), (3, 6, 2.5)])
def test_close_to_the_truth_with_a_common_budget(n, k, eps0):
    """Revealing the number of blanket draws costs little: within 1.35 times the exact delta where the
    latter is above 1e-9, and equal to it at eps = 0."""
    truth, err = BF.shuffled_profile("k-rr", np.full(n, eps0), GRID, k=k)
    bound = np.asarray(A.personalized_pair(np.full(n, eps0), randomizer="k-rr", k=k).delta(GRID))
    live = truth > 1e-9
    assert np.all(bound >= truth - err)
    assert np.all(bound[live] <= 1.35 * truth[live]), np.max(bound[live] / truth[live])
    assert bound[0] == pytest.approx(truth[0], rel=1e-9)


def test_composed_rounds_bound_the_real_protocol():
    eps = np.array([0.8, 1.2, 1.5])
    truth, err = BF.shuffled_profile("k-rr", eps, GRID, k=3, rounds=2)
    bound = np.asarray(compose(A.personalized_pair(eps, randomizer="k-rr", k=3), 2).delta(GRID))
    assert np.all(bound >= truth - err)


@pytest.mark.parametrize("k", [3, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_never_looser_than_the_clone_pairs(k, seed):
    """Below the pairs it replaced (the clone pairs with lambda = 0 and 1, the second being the binary
    value) at every eps, for personalized budgets of 300 users, up to its sums' refinement gap (KARY_GAP:
    at eps = 0 the total variations of the two are within it)."""
    eps = np.random.default_rng(seed).uniform(0.2, 2.0, 300)
    grid = np.linspace(0.0, 1.0, 11)
    new = np.asarray(A.personalized_pair(eps, randomizer="k-rr", k=k).delta(grid))
    old = PROF.BestOf(
        tuple(
            PAIRS.ReducedPair(PAIRS._others(q, None), float(eps.max()), w, 0.0)
            for w, q in (PAIRS._krr_terms(eps, float(eps.max()), k, lam) for lam in (0.0, 1.0))
        )
    )
    assert np.all(new <= np.asarray(old.delta(grid)) * (1 + 2 * PAIRS.KARY_GAP))
    assert np.all(
        new[3:] < 0.9 * np.asarray(old.delta(grid))[3:]
    )  # and well below once eps is not tiny


def test_gains_what_k_ary_responses_hide():
    """With 10 symbols the shuffle hides more than with 2: at eps0 = 1, n = 1000, delta = 1e-6, the central
    eps is at most 0.56 times binary randomized response's (the signal-to-noise ratio of the two,
    sqrt((e + 1)/(e + 9)) = 0.563, is the large-n limit)."""
    eps = np.full(1000, 1.0)
    ten = A.personalized_pair(eps, randomizer="k-rr", k=10).epsilon(1e-6)
    two = A.personalized_pair(eps, randomizer="binary-rr", reduction="clones").epsilon(1e-6)
    assert ten <= 0.56 * two
    assert ten >= 0.45 * two  # and not absurdly small: the truth at this size is above it


def _exact_given(eps_n, k, m, e, digits=60):
    """G_m(e) of the blanket pair in 60-digit arithmetic, straight from its definition."""
    import mpmath as mp

    mp.mp.dps = digits
    eps_n, e = mp.mpf(eps_n), mp.mpf(e)
    g = k / (mp.exp(eps_n) + k - 1)
    p = mp.mpf(2) / k
    binom = lambda x, n: mp.binomial(n, x) * p**x * (1 - p) ** (n - x) if 0 <= x <= n else mp.mpf(0)
    total = mp.mpf(0)
    for t in range(1, m + 2):
        W = (1 - g) * binom(t - 1, m) + g * binom(t, m + 1)
        r = (1 - g) * t / ((1 - g) * t + g * (m + 1) * p)
        q = (1 + r) / 2
        H = mp.mpf(0)
        for a in range(t + 1):
            fair = lambda j: (
                mp.binomial(t - 1, j) / mp.mpf(2) ** (t - 1) if 0 <= j <= t - 1 else mp.mpf(0)
            )
            P0 = q * fair(a - 1) + (1 - q) * fair(a)
            P1 = (1 - q) * fair(a - 1) + q * fair(a)
            H += max(mp.mpf(0), P0 - mp.exp(e) * P1)
        total += W * H
    return total


@pytest.mark.parametrize(
    "eps_n, k, m, e",
    [(1.0, 6, 40, 0.99), (6.0, 6, 40, 5.94), (1.0, 10**8, 2, 0.9), (0.3, 100, 11, 0.297)],
)
def test_tiny_weights_are_not_lost(eps_n, k, m, e):
    """The independent review's finding: run masses formed as differences of running sums lost weights
    below u times the total (e.g. (2/k)^m), and the bound fell below the truth at delta ~ 1e-16 and less.
    Each G_m is compared with 60-digit arithmetic."""
    from gspa.privacy.shuffle.clones import clone_law

    g_n = k / (np.expm1(eps_n) + k) * PAIRS._ROUND_DOWN
    pair = PAIRS.KaryPair(clone_law(values=np.array([0.5]), counts=np.array([1])), g_n, k, eps_n)
    exact = float(_exact_given(eps_n, k, m, e))
    assert pair._given(e, m) >= exact
    assert pair._given(e, m) <= exact * (1 + 3 * PAIRS.KARY_GAP) + 1e-300


# -- the lower bound that sees every count (one budget) ------------------------------------------------------


def _exact_pair(eps0, n, k, home):
    """The exact laws of the shuffled histogram: the others on ``home``, the differing user on x0 or x1."""
    others = [BF.krr_row(eps0, k, home)] * (n - 1)
    return [BF.histogram_law(np.array(others + [BF.krr_row(eps0, k, x)])) for x in (0, 1)]


@pytest.mark.parametrize("home", [0, 2])
@pytest.mark.parametrize("k", [3, 4, 5])
@pytest.mark.parametrize("n, eps0", [(2, 1.0), (3, 3.0), (5, 0.3), (7, 6.0)])
def test_counts_lower_bound_is_the_exact_profile_of_its_data_set(n, eps0, k, home):
    """Below the enumerated protocol of its own data sets, and equal to it up to the counted errors: the counts
    it observes are sufficient."""
    from gspa.privacy.shuffle.lower import KaryCountsLower

    P0, P1 = _exact_pair(eps0, n, k, home)
    grid = np.linspace(0.0, 1.01 * eps0, 23)
    exact = BF.hockey_both(P0, P1, grid)
    ours = KaryCountsLower(eps0, n, k, home).delta(grid)
    assert np.all(ours <= exact), (grid, ours, exact)
    assert np.all(ours >= exact * (1 - 1e-5) - 1e-12), (grid, ours, exact)


@pytest.mark.parametrize("home", [0, 2])
def test_counts_lower_bound_holds_on_a_box_cut_on_both_sides(monkeypatch, home):
    """With the box cut to half a standard deviation around the means (every side above 0 for some count),
    the bound stays below the enumerated protocol, and above 0."""
    from gspa.privacy.shuffle import lower as LB

    monkeypatch.setattr(LB, "KARY_BOX_SD", 0.5)
    n, k, eps0 = 25, 4, 0.4
    bound = LB.KaryCountsLower(eps0, n, k, home)
    classes, _ = LB._kary_classes(eps0, k, home)
    assert all(lo > 0 for lo, _ in LB._kary_box(n - 1, classes))
    P0, P1 = _exact_pair(eps0, n, k, home)
    grid = np.linspace(0.0, eps0, 15)
    exact, ours = BF.hockey_both(P0, P1, grid), bound.delta(grid)
    assert np.all(ours <= exact) and ours.max() > 0.0, (ours, exact)


@pytest.mark.parametrize("eps0", [2.0, 3.0, 4.0])
def test_with_one_budget_the_counts_close_the_bracket(eps0):
    """10-ary RR, 10^3 users: the blanket pair within 1.001 of the lower bound, which the counts of x0 and x1
    alone leave at 1.0008-1.0023."""
    from gspa.privacy.shuffle import lower as LB

    eps = np.full(1000, eps0)
    up = A.personalized_pair(eps, randomizer="k-rr", k=10).epsilon(1e-6)
    assert up / LB.lower_bound(eps, "k-rr", k=10).epsilon(1e-6) <= 1.001
