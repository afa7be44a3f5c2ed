"""The window-count lower bound for the shuffled Laplace mechanism with any budgets
(``gspa.privacy.shuffle.lower._laplace_window``, one of ``lower_bound(eps, "laplace")``'s bounds): equal to the
divergence of the count it describes, computed independently (scipy's Laplace law, the count's law by direct
convolution); below the continuous protocol's certified upper end (``gspa.privacy.exact.laplace_profile``);
above the threshold at 1/2 where budgets differ widely, below the certified upper bound."""

import re

import numpy as np
import pytest
from scipy import stats

from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB


def _count_delta(eps, counts, description: str, grid) -> np.ndarray:
    """δ(ε) of the window count the bound describes (its window read from ``description``), both directions,
    over every event: the most liberal user at 0 or 1, everyone else at 0, each report in the window with
    scipy's Laplace probability, the count's law by convolving the users' Bernoulli laws one by one."""
    t, u = (float(x) for x in re.search(r"reports in \[([^,]+), ([^\]]+)\]", description).groups())
    eps = np.repeat(eps, counts)
    j = int(np.argmax(eps))

    def mass(e, x):
        law = stats.laplace(loc=x, scale=1.0 / e)
        return law.cdf(u) - law.cdf(t)

    others = np.ones(1)
    for e in np.delete(eps, j):
        g = mass(e, 0.0)
        others = np.convolve(others, [1.0 - g, g])
    laws = [np.convolve(others, [1.0 - mass(eps[j], x), mass(eps[j], x)]) for x in (0.0, 1.0)]
    return BF.hockey_both(*laws, np.asarray(grid))


def _window(eps, counts=None):
    (bound,) = [
        b
        for b in LB.lower_bound(eps, "laplace", counts=counts).pairs
        if "reports in" in b.description
    ]
    return bound


@pytest.mark.parametrize(
    "eps, counts, gap",
    [
        ((1.0, 0.3), None, 0.03),
        ((2.0, 0.5, 1.0), None, 0.03),
        ((1.0, 0.01), (1, 40), 1e-9),
        ((1.5, 0.2, 0.9), (2, 30, 20), 1e-9),
        (tuple(np.random.default_rng(3).uniform(0.01, 2.0, 300)), None, 1e-9),
    ],
)
def test_window_bound_is_the_count_it_describes(eps, counts, gap):
    """Vector and histogram forms, 2 to 300 users: the bound is never above the count's divergence, at every ε
    from 0 to the differing user's budget, and equals it to round-off (its threshold events are the optimal
    ones, the count's likelihood ratio being monotone) — but for 2 or 3 users, where it takes the count's
    largest value as possibly above the others' computed law (a cut tail), which costs it up to ``gap``; and
    it has something to say."""
    eps = np.array(eps)
    bound = _window(eps, None if counts is None else np.array(counts))
    grid = np.linspace(0.0, eps.max(), 25)
    ours = bound.delta(grid)
    truth = _count_delta(
        eps, np.ones(eps.size, int) if counts is None else counts, bound.description, grid
    )
    assert np.all(ours <= truth + 1e-12), (grid, ours, truth)
    assert np.all(truth - ours <= gap), (grid, ours, truth)
    assert truth[0] > 0.03


@pytest.mark.parametrize("budgets", [(1.0, 0.3), (0.5, 2.0), (2.0, 0.05)])
def test_window_bound_is_below_the_continuous_protocol(budgets):
    """Two users with distinct budgets: the whole Laplace lower bound, window count included, lies below the
    certified upper end of the continuous protocol's δ(ε) (``laplace_profile``: every differing user and pair
    of inputs in {0, 1}), and the window count alone is close to its lower end."""
    grid = np.linspace(0.0, max(budgets), 9)
    low, high = BF.laplace_profile(
        budgets, grid, (0.0, 1.0), inner=0.01, outer=0.02, grow=1.03, reach=40.0
    )
    ours = LB.lower_bound(np.array(budgets), "laplace").delta(grid)
    assert np.all(ours <= high), (grid, ours, high)
    assert _window(np.array(budgets)).delta(0.0) >= 0.5 * low[0]


def test_window_count_serves_where_budgets_differ():
    """Budgets U(0.01, 2), 10⁴ users: the window count is above the threshold at 1/2 (the users with small
    budgets spread their reports far from the window), and the lower bound (which also takes the score bound)
    stays below the certified upper bound."""
    eps = np.random.default_rng(0).uniform(0.01, 2.0, 10**4)
    best = LB.lower_bound(eps, "laplace")
    window = _window(eps).epsilon(1e-6)
    thresholds = [b for b in best.pairs if isinstance(b, LB.LowerBound) and not b.reports]
    assert window > 1.1 * max(b.epsilon(1e-6) for b in thresholds)
    assert (
        window <= best.epsilon(1e-6) < A.personalized_pair(eps, randomizer="laplace").epsilon(1e-6)
    )


def test_window_masses_keep_their_relative_accuracy():
    """The masses ``_laplace_in_window`` computes, against mpmath at 40 digits, for budgets from 10⁻⁸ to 700
    and every window: within the relative error ``_window_rel`` allows (the others' masses' allowance in the
    bound), also where a mass is tiny."""
    import mpmath as mp

    for e in (1e-8, 1e-3, 0.5, 2.0, 30.0, 700.0):
        for t in LB.WINDOW_STARTS:
            for u in LB.WINDOW_ENDS:
                rel = LB._window_rel(e, t, u) * 2.0**-53
                for x in (0, 1):
                    got = LB._laplace_in_window(e, t, u, x)
                    with mp.workdps(40):  # the masses outside the window, no cancellation
                        E, T = mp.mpf(e), mp.mpf(t)
                        U = mp.inf if np.isinf(u) else mp.mpf(u)
                        if x == 0:
                            inside = (mp.exp(-E * T) - mp.exp(-E * U)) / 2
                            outside = 1 - inside
                        else:
                            outside = (mp.exp(-E * (1 - T)) + mp.exp(-E * (U - 1))) / 2
                            inside = 1 - outside
                        for ours, true in zip(got, (inside, outside)):
                            assert abs(mp.mpf(float(ours)) - true) <= rel * true, (e, t, u, x, ours)


def test_window_bound_at_the_ends_of_the_budgets():
    """A tiny largest budget: the protocol is 10⁻³⁴-DP, so δ(10⁻⁹) = 0, and δ(0) is at most the differing user's
    own total variation, about 10⁻³⁴ times a tiny mass (its input-1 mass is a sum, not 1 minus a number near 1,
    which once put 6e-42 here). Budgets above ``MAX_BUDGET``: no window count (its masses would leave the normal
    range), the thresholded pairs answer, as before it."""
    tiny = LB.lower_bound(np.array([1e-34, 1e-34 / 3]), "laplace")
    assert tiny.delta(1e-9) == 0.0 and tiny.delta(0.0) < 1e-60
    for eps, counts in (([1e15, 1e15], None), ([1e15, 1.0], [1, 1])):
        bound = LB.lower_bound(np.array(eps), "laplace", counts=counts and np.array(counts))
        assert not any("reports in" in b.description for b in bound.pairs)
        assert bound.epsilon(1e-6) > 30
