"""The Laplace mechanism as randomized response inside the cell bound (``gspa.privacy.shuffle.cells.LaplaceCells``):
the dominance it rests on, checked on grids of inputs and reports; the bound above the continuous protocol's
certified upper end (``gspa.privacy.exact.laplace_profile``) and above the certified lower bound at realistic sizes;
the accountant taking the better of it and LaplaceBands; ``cells_pair`` with a known differing user (``victim``)
above the exact protocol of that user."""

import numpy as np
import pytest

from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from gspa.privacy.shuffle.cells import LAPLACE_CELL_EDGES, LaplaceCells, cells_pair

Y = np.concatenate(
    [np.linspace(-25.0, -0.001, 400), np.linspace(0.0, 1.0, 1001), np.linspace(1.001, 26.0, 400)]
)


def _weights(v, x0, x1, x, ell=np.inf):
    """The docstring's (a, b) for another user at x and the pair x0 < x1: K e^{-v|x - x0|} and K e^{-v|x - x1|},
    K = 1/(1 + e^{-L}), the larger cut down to e^ell times the smaller."""
    K = 1.0 / (1.0 + np.exp(-v * (x1 - x0)))
    a, b = K * np.exp(-v * abs(x - x0)), K * np.exp(-v * abs(x - x1))
    return min(a, np.exp(ell) * b), min(b, np.exp(ell) * a)


@pytest.mark.parametrize("v", [0.3, 1.0, 2.0, 4.0])
def test_every_other_user_is_randomized_response_with_the_stated_probability(v):
    """For pairs of inputs in each distance interval and other users anywhere in [0, 1]: a Q0 + b Q1 <= f_x at
    every report, a/b within [e^-ell, e^ell] (randomized response with budget ell), and a + b at least the
    interval's 1 - reveal with L at least v d (``LaplaceCells.parameters``); the smallest a + b over the others
    reaches s (no slack in the lemma)."""
    cells = LaplaceCells(v, 10)
    f = lambda x: 0.5 * v * np.exp(-v * np.abs(Y - x))
    for lo, hi in zip(LAPLACE_CELL_EDGES[:-1], LAPLACE_CELL_EDGES[1:]):
        L_cover, ell, reveal = cells.parameters(lo, hi)
        assert 0.0 <= ell <= v * lo
        for d in np.linspace(max(lo, 1e-3), hi, 4):
            for x0 in np.linspace(0.0, 1.0 - d, 3):
                x1 = x0 + d
                L = v * d
                assert L <= L_cover
                Q0 = (np.exp(L) * f(x0) - f(x1)) / np.expm1(L)
                Q1 = (np.exp(L) * f(x1) - f(x0)) / np.expm1(L)
                least = np.inf
                for x in np.linspace(0.0, 1.0, 41):
                    a, b = _weights(v, x0, x1, x, ell)
                    assert np.all(a * Q0 + b * Q1 <= f(x) * (1 + 1e-9) + 1e-300), (v, x0, x1, x)
                    assert np.exp(-ell) * (1 - 1e-12) <= a / b <= np.exp(ell) * (1 + 1e-12)
                    least = min(least, a + b)
                assert least >= (1.0 - reveal) * (1 - 1e-12), (v, d, x0, least, 1 - reveal)
        # the interval's s is reached: at d = lo with the pair at an end and the other user at the far end, or at
        # d = hi with the other user at the pair's midpoint
        ends = [(max(lo, 1e-15), 1.0), (hi, 0.5 * hi)]
        reached = min(sum(_weights(v, 0.0, d, x, ell)) for d, x in ends)
        assert reached == pytest.approx(1.0 - reveal, rel=1e-9)


@pytest.mark.parametrize(
    "budgets, cells",
    [
        ((1.0, 1.0), dict(inner=0.005, outer=0.01, grow=1.02, reach=60.0)),
        ((2.0, 2.0), dict(inner=0.005, outer=0.01, grow=1.02, reach=60.0)),
        ((1.0, 1.0, 1.0), dict(inner=0.02, outer=1.0, reach=1.0)),
        ((0.3, 0.3, 0.3), dict(inner=0.02, outer=1.0, reach=1.0)),
    ],
)
def test_laplace_cells_is_above_the_continuous_protocol(budgets, cells):
    """Above the upper end of the continuous protocol's bracket (every differing user, every pair of inputs
    in {0, 0.3, 1}, every assignment of the others' inputs): at these data sets the bound is proved by
    computation."""
    v = budgets[0]
    grid = np.linspace(0.0, v, 11)
    _, high = BF.laplace_profile(budgets, grid, (0.0, 0.3, 1.0), **cells)
    assert np.all(LaplaceCells(v, len(budgets)).delta(grid) >= high)


@pytest.mark.parametrize("v", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("n", [1000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_laplace_cells_at_realistic_sizes(v, n):
    """Above the certified lower bound, and the accountant's Laplace bound with one budget is the smaller of it
    and LaplaceBands (at eps0 = 1 and 10^5 users the cells, about 1.18 times the lower bound against 1.40)."""
    hist = dict(counts=np.array([n]))
    cells = LaplaceCells(v, n)
    bound = A.personalized_pair(np.array([v]), None, randomizer="laplace", **hist)
    bands = bound.pairs[0]
    lower = LB.lower_bound(np.array([v]), "laplace", **hist)
    for delta in (1e-4, 1e-6, 1e-9):
        e = cells.epsilon(delta)
        assert lower.epsilon(delta) < e
        assert bound.epsilon(delta) == pytest.approx(min(e, bands.epsilon(delta)), rel=1e-9)
    if v == 1.0 and n == 100_000:
        assert cells.epsilon(1e-6) < 0.92 * bands.epsilon(1e-6)


@pytest.mark.parametrize(
    "victim, others, reveal",
    [(1.0, (1.0, 1.0, 1.0), 0.3), (2.0, (1.5, 1.5, 1.5, 1.5), 0.35), (1.0, (0.5, 2.0, 0.0), 0.2)],
)
def test_a_known_differing_user_is_bounded_above_its_exact_protocol(victim, others, reveal):
    """``cells_pair(..., victim=L)``: the differing user (budget L, never in the clear) against the other users as
    given (Lemma 4's randomizer, each in the clear with probability ``reveal``), above the exact profile of
    that user differing (every data set of the others, both its inputs), budgets below and above L among them."""
    grid = np.linspace(0.0, 2.0, 9)
    budgets = np.array([victim, *others])
    deltas = np.array([0.0, *[reveal] * len(others)])
    exact, err = BF.shuffled_profile("quaternary", budgets, grid, deltas, differing=0)
    bound = cells_pair(np.array(others), delta=np.full(len(others), reveal), victim=victim)
    assert np.all(bound.delta(grid) >= exact - err)
    assert np.any(exact > 0.05)  # not a vacuous comparison


def test_a_known_differing_user_is_refused_out_of_range():
    for bad in (-1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="victim"):
            cells_pair(np.array([1.0]), counts=np.array([9]), victim=bad)


@pytest.mark.parametrize(
    "kwargs, name",
    [(dict(v=0.0, users=10), "v"), (dict(v=40.0, users=10), "v"), (dict(v=1.0, users=1), "users")],
)
def test_bad_input_is_refused(kwargs, name):
    with pytest.raises(ValueError, match=name):
        LaplaceCells(**kwargs)


def test_each_interval_is_the_quaternary_cell_bound_with_its_parameters():
    """The intervals' pairs are the cell bound of randomized response where the differing user has budget L and
    never reveals and every other user has budget ell and reveals with probability 1 - s (what the lemma above
    licenses), built here anew."""
    v, n, grid = 1.5, 5000, np.linspace(0.0, 1.5, 7)
    bound = LaplaceCells(v, n)
    pairs = bound._pairs().pairs
    assert len(pairs) == len(LAPLACE_CELL_EDGES) - 1
    for pair, lo, hi in zip(pairs, LAPLACE_CELL_EDGES[:-1], LAPLACE_CELL_EDGES[1:]):
        L, ell, reveal = bound.parameters(lo, hi)
        again = cells_pair(
            np.array([ell]), delta=np.array([reveal]), counts=np.array([n - 1]), victim=L
        )
        assert np.array_equal(pair.delta(grid), again.delta(grid))
    assert np.array_equal(bound.delta(grid), np.max([p.delta(grid) for p in pairs], axis=0))


def test_the_accountant_keeps_laplace_bands_beyond_the_cell_bound():
    """More users than the cell bound takes, or a budget beyond LaplaceCells.MAX_V: LaplaceBands without the
    cells (no error; an independent review found the first raising)."""
    for v, users in [(1.0, 2 * 10**9), (40.0, 100)]:
        bound = A.personalized_pair(
            np.array([v]), None, randomizer="laplace", counts=np.array([users])
        )
        kinds = {type(p).__name__ for p in bound.pairs}
        assert kinds == {"LaplaceBands", "LaplaceLocal"} and np.isfinite(bound.epsilon(1e-6))
