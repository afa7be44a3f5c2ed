"""LaplaceBands, the Laplace mechanism's bound with personalized budgets: clones across budgets (the weight
and its proof's steps), the cover of every differing user and every pair of inputs, and the binned protocol with
interior inputs that the bound must stay above."""

import math

import numpy as np
import pytest

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as PAIRS


@pytest.mark.parametrize("u, w", [(0.05, 0.05), (0.3, 1.0), (1.0, 1.0), (0.5, 4.0), (2.0, 2.5)])
@pytest.mark.parametrize("x0, x1", [(0.0, 1.0), (0.0, 0.1), (0.45, 0.55), (0.3, 0.9), (1.0, 0.2)])
def test_laplace_cross_budget_weight_is_the_smallest_ratio_and_is_attained(u, w, x0, x1):
    """Step 1 across budgets: for u <= w, min over inputs x of [0, 1] and reports y of
    f_x(y)/(f_{x⁰}(y) + f_{x¹}(y)) (budget u for f_x, w for the pair) is at least
    τ(u, w, d) = (u/w) e^{-u}/(1 + e^{-wd}), with equality when the pair touches an end; the pair's clone
    weight (``parameters``) is 2τ rounded down."""
    d = abs(x1 - x0)
    tau = (u / w) * math.exp(-u) / (1 + math.exp(-w * d))
    x = np.linspace(0.0, 1.0, 101)[:, None]
    y = np.concatenate([np.linspace(-40.0, 41.0, 4001), np.linspace(-0.5, 1.5, 2001)])[None, :]
    f = lambda b, c: (b / 2) * np.exp(-b * np.abs(y - c))  # noqa: E731
    ratio = f(u, x) / (f(w, x0) + f(w, x1))
    assert ratio.min() >= tau * (1 - 1e-12)
    if min(x0, x1) == 0.0 or max(x0, x1) == 1.0:
        assert ratio.min() == pytest.approx(tau, rel=1e-6)
    bands = PAIRS.LaplaceBands(np.array(sorted({u, w})), np.array([1, 1] if u < w else [2]))
    L, q, _ = bands.parameters(0, bands.values.size - 1, d, d)
    assert 2 * tau * (1 - 1e-13) <= q[0] <= 2 * tau and w * d <= L <= w


def test_laplace_more_liberal_users_give_no_clones():
    """With u > w the other user's tails fall faster than the pair's: the ratio tends to 0 far out, so no
    positive weight is valid, and a band's pair takes clones only from budgets up to its lowest one."""
    u, w = 1.2, 1.0
    y = np.array([10.0, 50.0, 200.0])
    ratio = (u / 2) * np.exp(-u * (y - 0.0)) / ((w / 2) * (np.exp(-w * y) + np.exp(-w * (y - 1))))
    assert ratio[-1] < 1e-15 and np.all(np.diff(ratio) < 0)
    bands = PAIRS.LaplaceBands(np.array([0.5, 1.0, 1.2]), np.array([3, 4, 5]))
    _, q, counts = bands.parameters(1, 2, 0.5, 1.0)
    assert q.size == 2 and list(counts) == [3, 4]  # budgets 0.5 and 1.0, not 1.2
    assert (
        bands.pair(1, 2, 0.5, 1.0).clones.n_users == 6
    )  # one fewer: the differing user may be one


@pytest.mark.parametrize(
    "values, counts",
    [([0.2, 0.6, 0.9, 1.5], [30, 1, 20, 40]), ([1.0, 1.02, 1.04, 1.5], [1, 60, 60, 9])],
)
def test_laplace_band_pairs_dominate_their_cells(values, counts):
    """Step 2: a node's pair (budgets w_lo .. w_hi, distances a .. b) lies above the pair of every
    differing budget and distance in it (delta rises with L, falls with clone weights); so does its core
    pair above every cell's core pair (the second case: a crowd just above the band's lowest budget), but
    for the floors of their reveal probabilities."""
    bands = PAIRS.LaplaceBands(np.array(values), np.array(counts))
    grid = np.linspace(0.0, 1.5, 7)
    for core in (None, *PAIRS.CORE_TAILS):
        node = bands.pair(1, 3, 0.5, 0.9, core=core).delta(grid)
        for lo in (1, 2, 3):
            for dd in (0.5, 0.7, 0.9):
                cell = bands.pair(lo, lo, dd, dd, core=core).delta(grid)
                # each core pair has its own M, so its own floor p <= e^-tail
                floor = 2 * np.exp(-core) if core is not None else 1e-300
                assert np.all(cell <= node * (1 + 1e-12) + floor), (lo, dd, core)


@pytest.mark.parametrize(
    "values, counts",
    [([0.05, 0.4, 1.0, 2.0], [1, 25, 1, 60]), ([0.01, 0.3, 0.35, 1.5, 1.6], [1, 1, 2, 300, 1])],
)
def test_laplace_bands_branch_and_bound_is_the_largest_cell(values, counts):
    """Step 3: the branch and bound gives the largest delta over every (budget, distance interval) cell
    (the second case's worst cell is a user with a budget of 0.3 and one clone-giving user below it),
    and epsilon(delta) is a point where the whole cover's delta is at most the target; one common
    budget gives LaplaceCover's numbers."""
    values, counts = np.array(values), np.array(counts)
    bands = PAIRS.LaplaceBands(values, counts)
    d = bands._edges()
    for e in (0.0, 0.04, 0.2, 0.3, 0.9):
        every = max(
            float(bands._node((i, i, j, j + 1)).delta(e))
            for i in range(values.size)
            for j in range(d.size - 1)
        )
        assert bands.delta(e) == every
    for target in (1e-3, 1e-6):
        e = bands.epsilon(target)
        assert bands.delta(e) <= target and bands.delta(e * (1 - 1e-6)) > target * 0.999
    cover, same = PAIRS.LaplaceCover(1.0, 40), PAIRS.LaplaceBands(np.array([1.0]), np.array([41]))
    assert np.array_equal(cover.delta(np.linspace(0, 1, 9)), same.delta(np.linspace(0, 1, 9)))


@pytest.mark.parametrize("tail", PAIRS.CORE_TAILS)
@pytest.mark.parametrize("u, w", [(1.02, 1.0), (1.3, 1.0), (0.6, 0.5), (2.0, 0.05), (0.5, 1.0)])
@pytest.mark.parametrize("x0, x1", [(0.0, 1.0), (0.2, 0.3), (0.45, 0.55), (0.3, 0.9)])
def test_core_weight_is_below_the_smallest_ratio_on_the_core(u, w, x0, x1, tail):
    """The core pair's step: on I = [c - M, c + M] (c the inputs' midpoint) every input x of [0, 1] of a user
    with budget u, also above w, has f_x >= τ̃/(1 - p) (f⁰ + f¹), p the mass of either input's report outside
    I (the same for both); the core pair's clone probability is 2τ̃ rounded down and its reveal probability p
    rounded up."""
    d, c = abs(x1 - x0), 0.5 * (x0 + x1)
    bands = PAIRS.LaplaceBands(np.array(sorted({u, w})), np.array([1, 1] if u != w else [2]))
    i = int(np.searchsorted(bands.values, w))
    L, q, _, p = bands.core_parameters(i, i, d, d, tail)
    half = 0.5 * w * d
    M = max(1.0, (tail + half) / w)
    f = lambda b, at, y: (b / 2) * np.exp(-b * np.abs(y - at))  # noqa: E731
    y = np.concatenate([np.linspace(c - M, c + M, 20001), np.linspace(-0.5, 1.5, 2001)])[None, :]
    x = np.linspace(0.0, 1.0, 101)[:, None]
    ratio = (f(u, x, y) / (f(w, x0, y) + f(w, x1, y))).min()
    tilde = q[list(bands.values).index(u)] / 2 / (1 - p)
    assert tilde <= ratio * (1 + 1e-9) and L >= w * d
    outside = 0.5 * np.exp(-w * (M - 0.5 * d)) + 0.5 * np.exp(-w * (M + 0.5 * d))
    assert outside <= p <= outside * (1 + 1e-12)
    if u > w and (x0, x1) == (
        0.0,
        1.0,
    ):  # attained where the other user sits at the far end of I's side
        assert tilde == pytest.approx(min(ratio, tilde / (1 - p)), rel=1e-3)


@pytest.mark.parametrize("tail", PAIRS.CORE_TAILS)
def test_a_nodes_core_weight_holds_for_every_budget_and_distance_in_it(tail):
    """A node's core pair (budgets w_lo .. w_hi, distances a .. b) with its own M: for every differing budget w
    and distance d in it and every other budget u, τ̃/(1 - p) of the node is below the smallest ratio on the core
    I of that w and d (the exponent takes w_lo, the ratio w_hi, τ the distance a)."""
    values, counts = np.array([1.0, 1.1, 1.2, 1.5]), np.array([1, 1, 1, 1])
    bands = PAIRS.LaplaceBands(values, counts)
    a, b = 0.5, 0.9
    _, q, _, p = bands.core_parameters(0, 1, a, b, tail)
    M = max(1.0, (tail + 0.5 * values[1] * b) / values[0])
    f = lambda s, at, y: (s / 2) * np.exp(-s * np.abs(y - at))  # noqa: E731
    x = np.linspace(0.0, 1.0, 51)[:, None]
    for w in values[:2]:
        for d in (a, 0.7, b):
            for x0 in (0.0, 0.5 - d / 2, 1.0 - d):
                c = x0 + d / 2
                y = np.concatenate([np.linspace(c - M, c + M, 8001), np.linspace(-0.5, 1.5, 801)])
                below = f(w, x0, y[None, :]) + f(w, x0 + d, y[None, :])
                for u, qu in zip(values, q):
                    ratio = (f(u, x, y[None, :]) / below).min()
                    assert qu / 2 / (1 - p) <= ratio * (1 + 1e-9), (w, d, x0, u)


def test_the_core_gives_the_smallest_budget_clones_from_those_just_above():
    """A lone user just below a crowd has no clones below it: the plain cover leaves it at its own ε₀. The
    core pair takes the crowd as clones, and the bound drops far below ε₀ (the continuous protocol's event
    for that user stays below it: the case (1.0, 1.02, 300) of the next test but one)."""
    budgets = np.array([1.0] + [1.02] * 300)
    bound = A.personalized_pair(budgets, randomizer="laplace")
    lone = PAIRS.LaplaceBands(*np.unique(budgets, return_counts=True))
    plain = max(lone.pair(0, 0, a, b).epsilon(1e-6) for a, b in zip(lone._d[:-1], lone._d[1:]))
    assert plain > 0.99 and bound.epsilon(1e-6) < 0.5


def test_a_short_core_amplifies_a_lone_user_below_a_crowd_a_fifth_above():
    """One user with budget 1 among 10⁵ with budget 1.2: the core of tail e^-40 keeps few clones of the crowd
    (their density falls like e^-(0.2 M) towards its ends), and the bound stays near that user's own ε₀; the
    shorter cores take many more, and the bound at δ = 10⁻⁶ falls to a few times the crowd's own."""
    bound = PAIRS.LaplaceBands(np.array([1.0, 1.2]), np.array([1, 10**5]))
    longest = max(
        bound.pair(0, 0, a, b, core=PAIRS.CORE_TAILS[-1]).epsilon(1e-6)
        for a, b in zip(bound._edges()[:-1], bound._edges()[1:])
    )
    crowd = A.personalized_pair(np.array([1.2]), randomizer="laplace", counts=np.array([10**5 + 1]))
    assert longest > 0.9 and bound.epsilon(1e-6) < 10 * crowd.epsilon(1e-6)


def test_laplace_bands_amplify_distinct_budgets():
    """With all-distinct budgets every user has clones from the users below it: at 10⁴ users with budgets
    U(0.01, 2) the bound is far below the most liberal user's local profile (no amplification, what a
    within-group bound gives), and at least the most liberal user's own cell."""
    eps = np.random.default_rng(3).uniform(0.01, 2.0, 10_000)
    bound = PAIRS.LaplaceBands(*np.unique(eps, return_counts=True))
    alone = PAIRS.LaplaceCover(float(eps.max()), 0).pair(1.0, 1.0)
    top = bound.values.size - 1
    e = bound.epsilon(1e-6)
    assert e < 0.1 * alone.epsilon(1e-6)
    assert e >= bound.pair(top, top, 1.0, 1.0).epsilon(1e-6) * (1 - 4e-9)


def _laplace_binned_truth(budgets, inputs, edges, grid, differing=None):
    """The exact delta(eps) of the shuffled Laplace protocol observed through the bins ``edges``, maximised
    over every differing user (or the one at index ``differing``), every pair of its inputs and every
    assignment of the others' inputs from ``inputs`` (binning is a post-processing: a lower bound on the
    continuous protocol's delta)."""
    import itertools

    from gspa.privacy.exact import enumeration as BF

    n, best = len(budgets), np.zeros(grid.size)
    for j in range(n) if differing is None else [differing]:
        others = [i for i in range(n) if i != j]
        for xs in itertools.product(inputs, repeat=n - 1):
            base = [BF.laplace_binned_row(budgets[i], x, edges) for i, x in zip(others, xs)]
            for x0, x1 in itertools.combinations(inputs, 2):
                P = BF.histogram_law(base + [BF.laplace_binned_row(budgets[j], x0, edges)])
                Q = BF.histogram_law(base + [BF.laplace_binned_row(budgets[j], x1, edges)])
                keep = (P > 0) | (Q > 0)
                best = np.maximum(best, BF._hockey_both(P[keep], Q[keep], grid))
    return best


@pytest.mark.parametrize(
    "budgets",
    [[0.3, 1.0, 2.0], [2.0, 2.0, 0.5], [1.0, 1.0, 1.0], [0.05, 1.5, 1.5], [1.0, 1.03, 1.03]],
)
def test_laplace_bands_above_the_binned_protocol_with_interior_inputs(budgets):
    """The ground truth the upper bound must stay above: three users with these budgets, inputs anywhere
    in {0, 0.3, 0.5, 1} (interior pairs too), reports in 7 bins."""
    grid = np.linspace(0.0, max(budgets) + 0.5, 13)
    edges = np.array([-0.5, 0.0, 0.3, 0.5, 0.7, 1.0, 1.5])
    truth = _laplace_binned_truth(budgets, (0.0, 0.3, 0.5, 1.0), edges, grid)
    up = A.personalized_pair(budgets, randomizer="laplace").delta(grid)
    assert np.all(up >= truth - 1e-12), (grid[up < truth - 1e-12], up, truth)
    assert truth.max() > 0.05  # the check has teeth


@pytest.mark.parametrize("budgets", [[4.0, 4.0], [0.5, 4.0, 4.0]])
def test_the_most_liberal_users_own_report_caps_the_bound_above_the_binned_protocol(budgets):
    """A few users with large budgets: the shuffle amplifies little, the clone cover lies above the most
    liberal user's own Laplace profile, and the bound is that profile (``LaplaceLocal``), still above the
    exact protocol seen through 7 bins, with every user differing and inputs in {0, 0.3, 0.5, 1}."""
    grid = np.linspace(0.0, max(budgets), 9)
    edges = np.array([-0.5, 0.0, 0.3, 0.5, 0.7, 1.0, 1.5])
    truth = _laplace_binned_truth(budgets, (0.0, 0.3, 0.5, 1.0), edges, grid)
    up = A.personalized_pair(budgets, randomizer="laplace").delta(grid)
    assert np.all(up >= truth - 1e-12), (grid[up < truth - 1e-12], up, truth)
    cover = PAIRS.LaplaceBands(*np.unique(budgets, return_counts=True)).delta(grid)
    assert (
        np.all(up[:-1] < 0.95 * cover[:-1]) and truth.max() > 0.6
    )  # the cap decides, and is tested


@pytest.mark.parametrize("tail", PAIRS.CORE_TAILS)
def test_every_core_pair_is_above_the_binned_protocol_of_its_differing_user(tail):
    """Each core pair, of every tail (a short core is taken only where many users lie just above, beyond what
    enumeration reaches, so it is forced here): the user with budget 1 differing among two with 1.2, its
    pairs over every distance interval against the exact protocol with that user differing."""
    budgets = [1.0, 1.2, 1.2]
    grid = np.linspace(0.0, 1.5, 13)
    edges = np.array([-0.5, 0.0, 0.3, 0.5, 0.7, 1.0, 1.5])
    truth = _laplace_binned_truth(budgets, (0.0, 0.3, 0.5, 1.0), edges, grid, differing=0)
    bands = PAIRS.LaplaceBands(*np.unique(budgets, return_counts=True))
    d = bands._edges()
    up = np.max(
        [bands.pair(0, 0, a, b, core=tail).delta(grid) for a, b in zip(d[:-1], d[1:])], axis=0
    )
    assert np.all(up >= truth - 1e-12), (grid[up < truth - 1e-12], up, truth)
    assert truth.max() > 0.05


@pytest.mark.parametrize(
    "w, u, others",
    [
        (1.0, 0.5, 50),
        (1.0, 1.0, 200),
        (2.0, 1.0, 1000),
        (0.3, 1.0, 100),
        (1.0, 0.9, 10),
        (1.0, 1.02, 300),
    ],
)
def test_laplace_bands_above_the_continuous_protocols_max_event(w, u, others):
    """The continuous protocol itself, not a binned one: the events {largest report > t} are functions of the
    shuffled reports and their probabilities are exact (``laplace_max_event``), a certified lower bound on
    δ(ε) of the real protocol; the bound stays above it, for a user of budget w holding 0 or 1 and
    ``others`` users of budget u all holding 0 or all holding 1. (A necessary check: with a lone
    conservative user among few others the event reaches a third to a quarter of the bound.)"""
    from gspa.studies.gspa.estimation import laplace_max_event

    eps_u = np.array([w] + [u] * others)
    bound = A.personalized_pair(eps_u, randomizer="laplace")
    t = np.linspace(-5.0, 6.0 + 40.0 / min(w, u), 2001)
    lows = []
    for e in (0.0, 0.05, 0.2, 0.5):
        low = max(
            laplace_max_event(eps_u, np.full(eps_u.size, x), 0, a, 1.0 - a, e, t)[0]
            for x in (0.0, 1.0)
            for a in (0.0, 1.0)
        )
        assert bound.delta(e) >= low, (e, bound.delta(e), low)
        lows.append(low)
    # not vacuous (the event is weak with many clones: within 10 % of the bound only for few)
    assert max(lows) > 0.0


@pytest.mark.parametrize(
    "budgets", [[5e-324, 1e-323], [2.3e-308, 1.0, 1.0], [1e-310, 1.0], [5e-324, 5e-324, 20.0]]
)
def test_budgets_near_the_smallest_double_keep_the_core_finite_and_above_the_protocol(budgets):
    """Where (tail + w b/2)/w overflows (a budget below about 1e-300) the core's half-width stops at
    ``MAX_HALF_WIDTH``, and where a budget over the node's top budget does, the ratio stops at ``MAX_RATIO``:
    the cover is computed without overflow or NaN (warnings are errors here), and stays above the exact
    protocol seen through 7 bins."""
    import warnings

    grid = np.linspace(0.0, max(budgets) + 0.5, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        up = PAIRS.LaplaceBands(*np.unique(budgets, return_counts=True)).delta(grid)
    assert np.all((up >= 0) & (up <= 1)), up
    edges = np.array([-0.5, 0.0, 0.3, 0.5, 0.7, 1.0, 1.5])
    truth = _laplace_binned_truth(budgets, (0.0, 0.3, 0.5, 1.0), edges, grid)
    assert np.all(up >= truth - 1e-12), (grid[up < truth - 1e-12], up, truth)
    assert PAIRS._core_half_width(budgets[0], budgets[-1], 1.0, 16.0) == PAIRS.MAX_HALF_WIDTH
