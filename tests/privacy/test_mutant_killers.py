"""Targeted tests for the planted mutants of tests/mutants.py that the contract test cannot see: errors that move a
certified number by less than the exhaustive enumeration resolves, but move it to the wrong side of the truth."""

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from gspa.privacy import numerics as NUM
from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as PAIRS


def _exact_hockey(eps: float, m: int, L: float) -> mpmath.mpf:
    """H_m(eps; L) of the binomial pair at 40 digits, from its definition: sum over a of
    max(0, P0(a) - e^eps P1(a)), a the number of 0s among the m clones and the differing user's report."""
    mpmath.mp.dps = 40
    q, r = (1 / (1 + mpmath.exp(s * mpmath.mpf(L))) for s in (-1, 1))  # r = 1 - q, formed directly
    ee = mpmath.exp(mpmath.mpf(eps))
    total = mpmath.mpf(0)
    for a in range(m + 2):
        b_prev = mpmath.binomial(m, a - 1) / mpmath.mpf(2) ** m if a >= 1 else 0
        b_here = mpmath.binomial(m, a) / mpmath.mpf(2) ** m if a <= m else 0
        p0, p1 = q * b_prev + r * b_here, r * b_prev + q * b_here
        total += max(mpmath.mpf(0), p0 - ee * p1)
    return total


@pytest.mark.parametrize(
    "eps, m, L", [(0.1, 40, 1.0), (0.5, 200, 2.0), (0.05, 1000, 0.7), (1.0, 9, 3.0)]
)
def test_hockey_bound_carries_its_allowance(eps, m, L):
    """The certified H_m lies above the exact one by at least half its counted allowance (SF_REL on each tail):
    an allowance dropped (or halved) leaves it within round-off of the exact value, on either side."""
    exact = _exact_hockey(eps, m, L)
    got = float(NUM.hockey_upper(eps, np.array([m]), L)[0])
    assert exact > 0
    assert mpmath.mpf(got) >= exact * (1 + 0.5 * NUM.SF_REL), (got, exact)
    assert mpmath.mpf(got) <= exact * (1 + 1e-9)


@pytest.mark.parametrize("eps, m, L", [(5.0, 1000, 10.0), (6.0, 900, 8.0)])
def test_hockey_bound_counts_the_log_domain_round_off(eps, m, L):
    """In a deep tail (S about 10^-280) the logarithms' rounding is absolute, so exp(log c + log S) carries a
    relative error of order u |log S|, beyond SF_REL's measured allowance for the tails. The certified H_m lies
    above the exact one by at least 0.9 of (SF_REL + 8u |log S|) on each of its two terms (the least that
    ``_log_term`` allows): an allowance without the log domain's part leaves it at SF_REL."""
    mpmath.mp.dps = 40
    q = 1 / (1 + mpmath.exp(-mpmath.mpf(L)))
    ee = mpmath.exp(mpmath.mpf(eps))
    c1, c2 = q - ee * (1 - q), ee * q - (1 - q)
    pmf = [mpmath.binomial(m, a) / mpmath.mpf(2) ** m for a in range(m + 1)]
    tail = lambda a: mpmath.fsum(pmf[max(a, 0) :])  # noqa: E731
    a0 = next(a for a in range(m + 2) if a * c1 > (m - a + 1) * c2)  # where the ratio passes c2/c1
    pos, neg = c1 * tail(a0 - 1), c2 * tail(a0)
    exact = _exact_hockey(eps, m, L)
    assert abs(pos - neg - exact) < exact * mpmath.mpf(10) ** -30  # the threshold's closed form
    got = float(NUM.hockey_upper(eps, np.array([m]), L)[0])
    log_part = 8 * NUM.U * abs(float(mpmath.log(tail(a0))))
    assert log_part > 0.5 * NUM.SF_REL  # a deep tail indeed
    need = 0.9 * (pos + neg) * (NUM.SF_REL + log_part)
    assert mpmath.mpf(got) - exact >= need, (got, exact, need)
    assert mpmath.mpf(got) <= exact * (1 + 1e-9)


@pytest.mark.parametrize(
    "make",
    [
        lambda: PAIRS.fmt21_pair(1.0, 500),
        lambda: A.personalized_pair(np.linspace(0.2, 2.0, 300), reduction="clones"),
        lambda: A.personalized_pair(np.linspace(0.2, 2.0, 300), reduction="cells"),
        lambda: A.personalized_pair(np.full(50, 1.0), randomizer="k-rr", k=4),
    ],
    ids=["fmt21", "binary", "cells", "kary"],
)
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_epsilon_is_on_the_certified_side(make, delta):
    """epsilon(delta) is a point where the certified delta(eps) is at most delta (rounded up, never down)."""
    pair = make()
    eps = pair.epsilon(delta)
    assert np.isfinite(eps) and pair.delta(eps) <= delta


@pytest.mark.parametrize("eps0, n", [(0.5, 3), (1.0, 10), (2.0, 1000)])
def test_laplace_with_a_common_budget_is_the_clone_pair_of_the_other_users(eps0, n):
    """Laplace, one budget: for inputs at distance 1 the differing user's n - 1 group mates are clones w.p.
    2/(1 + e^eps0) each (the declaration's argument), the pair of FMT23's clone probability; one clone more
    would be a smaller delta. The bound, a cover of every distance, lies above that pair and within 10⁻³."""
    grid = np.array([0.05, 0.2, 0.5, 1.0])
    full = A.personalized_pair(np.full(n, eps0), randomizer="laplace")
    bound = full.pairs[0]  # one budget: the better of LaplaceBands and LaplaceCells
    assert isinstance(bound, PAIRS.LaplaceBands) and np.all(full.delta(grid) <= bound.delta(grid))
    fmt23 = PAIRS.fmt23_pair(eps0, n).delta(grid)
    assert np.allclose(bound.pair(0, 0, 1.0, 1.0).delta(grid), fmt23, rtol=1e-12, atol=0)
    ours = bound.delta(grid)
    assert np.all(ours >= fmt23) and np.all(ours <= fmt23 * (1 + 1e-3))
    d = bound._edges()  # the interval next to d = 1 is covered: fewer clones than at d = 1
    assert np.all(ours >= bound.pair(0, 0, d[-2], 1.0).delta(grid))


@pytest.mark.parametrize("k", [3, 5, 10])
def test_kary_clone_weights_are_the_declared_ones(k):
    """k-RR's two clone decompositions (gspa.privacy.randomizers: lambda = 0 and 1) have the declared weights
    and clone probabilities 2 t_i, up to the rounding down that only removes clones."""
    eps = np.array([0.1, 0.7, 1.5, 3.0])
    en = float(eps.max())
    for lam, weight, t in [
        (0.0, (1 + np.exp(en)) / (np.exp(en) + k - 1), 1 / (np.exp(eps) + k - 1)),
        (1.0, 1.0, (np.exp(en) + k - 1) / ((np.exp(eps) + k - 1) * (1 + np.exp(en)))),
    ]:
        w, q = PAIRS._krr_terms(eps, en, k, lam)
        assert w == pytest.approx(weight, rel=1e-12)
        assert np.allclose(q, 2 * t, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    "eps, m, L", [(0.1, 40, 1.0), (0.5, 200, 2.0), (0.05, 1000, 0.7), (1.0, 9, 3.0)]
)
def test_hockey_cells_carry_the_same_allowance(eps, m, L):
    """The many-cell kernel KaryPair uses (coefficients formed directly, q given) lies above the exact H_m by
    at least half its allowance and within 1e-9 of it, like hockey_upper."""
    exact = _exact_hockey(eps, m, L)
    L_ = np.array([float(L)])
    got = float(NUM.hockey_cells(eps, np.array([m]), L_, 1 / (1 + np.exp(-L_)))[0])
    assert mpmath.mpf(got) >= exact * (1 + 0.5 * NUM.SF_REL), (got, exact)
    assert mpmath.mpf(got) <= exact * (1 + 1e-9)


def _kary_given_count_by_count(pair, e: float, m: int) -> float:
    """G_m(e) of the blanket pair summed over every count t on its own, with scipy's binomial pmf for W(m, t) and
    the signal r(m, t) in plain floating point (an oracle for the runs of counts)."""
    from scipy import stats

    p, g = 2.0 / pair.k, pair.blanket_n
    t = np.arange(1, m + 2)
    W = (1 - g) * stats.binom.pmf(t - 1, m, p) + g * stats.binom.pmf(t, m + 1, p)
    keep = W > 1e-40
    t, W = t[keep], W[keep]
    r = (1 - g) * t / ((1 - g) * t + g * (m + 1.0) * p)
    return float((W * NUM.hockey_upper(e, t - 1, np.log1p(r) - np.log1p(-r))).sum())


@pytest.mark.parametrize("eps0, e", [(1.0, 0.0022), (4.0, 0.03)])
def test_kary_runs_of_counts_bound_each_count(eps0, e):
    """Above 80 000 reports the blanket pair sums runs of counts [t1, t2], each bounded by H_{t1-1}(e; L(m, t2)):
    the sum lies above the count-by-count sum (by about 10⁻⁴ here, runs of two) — a run bounded at its last count,
    or with its first count's signal, falls below it."""
    pair = PAIRS._kary_pair(np.array([eps0]), 10, np.array([10**6]))
    m = 500_000
    assert pair._column(m)[0][2] - pair._column(m)[0][1] == 2  # runs of two counts
    got, oracle = float(pair._given(e, [m])[0]), _kary_given_count_by_count(pair, e, m)
    assert oracle * (1 - 1e-7) <= got <= oracle * (1 + 1e-3), got / oracle


def test_laplace_least_liberal_users_and_every_distance_count():
    """The Laplace cover takes every differing user: a user with a tiny budget has no clones (every other
    budget is larger) and its local profile, at eps just below its budget, is above the amplified bound of
    the others; and every distance: the pair at d = 0.5 is below the bound."""
    eps = np.concatenate([[0.05], np.full(5000, 0.5)])
    bound = A.personalized_pair(eps, randomizer="laplace")
    bands = PAIRS.LaplaceBands(*np.unique(eps, return_counts=True))
    lone = PAIRS.LaplaceCover(0.05, 0).pair(1.0, 1.0)
    assert bound.delta(0.04) >= lone.delta(0.04) > 0.0
    assert bound.delta(0.04) > 1e6 * bands.pair(1, 1, 1.0, 1.0).delta(0.04)
    for lo, dd in ((0, 0.5), (1, 0.5), (1, 0.02)):
        grid = np.array([0.0, 0.01, 0.2])
        assert np.all(bands.pair(lo, lo, dd, dd).delta(grid) <= bound.delta(grid) * (1 + 1e-12))


@settings(max_examples=300, deadline=None)
@given(v=st.floats(0.0, 800.0), share=st.floats(0.0, 1.0))
@example(v=1.0, share=0.9)  # the rounded profile alone is below the exact value here
@example(
    v=5e-324, share=0.0
)  # (e - v)/2 rounds to -0.0 (an independent review found it returning 0)
def test_the_local_laplace_profile_is_above_its_exact_value(v, share):
    """``LaplaceLocal``'s δ(ε) = 1 - e^((ε - v)/2), with its round-off counted, is at least the exact value
    (1,200 bits) and within 10⁻¹⁴ of it (or of ``TINY``)."""
    e = v * share
    mpmath.mp.prec = 1200  # e - v exact
    exact = max(mpmath.mpf(0), -mpmath.expm1((mpmath.mpf(e) - mpmath.mpf(v)) / 2))
    got = PAIRS.LaplaceLocal(v).delta(e)
    assert got >= exact and got <= exact * (1 + mpmath.mpf(1e-14)) + mpmath.mpf(1e-300)


def test_worst_of_takes_the_largest():
    """WorstOf (several kinds of differing user, each with its own pair) is the largest of its bounds."""
    a, b = PAIRS.clone_pair(1.0, 10, 0.3), PAIRS.clone_pair(3.0, 10, 0.1)
    both = PROF.WorstOf((a, b))
    grid = np.array([0.0, 0.5, 1.0])
    assert np.array_equal(both.delta(grid), np.maximum(a.delta(grid), b.delta(grid)))
    assert both.epsilon(1e-3) == max(a.epsilon(1e-3), b.epsilon(1e-3))
