"""The cell bound for shuffled binary randomized response (gspa.privacy.shuffle.cells) against ground truth:
exhaustive enumeration of the real protocol (every differing user, every data set of the others) and,
with a common budget, every data set of up to a few hundred users."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from gspa.privacy.shuffle import cells as Cl
from gspa.privacy.exact.enumeration import compare_with_truth, shuffled_profile
from gspa.privacy.shuffle.clones import binomial_part


def _hockey(Z, t_v, grid):
    """Both directions of the hockey-stick divergence, by plain numpy, of Z + B(t_v) against Z + B(1 - t_v)."""
    P, Q = np.convolve(Z, [1 - t_v, t_v]), np.convolve(Z, [t_v, 1 - t_v])
    return np.array(
        [
            max(np.maximum(P - np.exp(e) * Q, 0).sum(), np.maximum(Q - np.exp(e) * P, 0).sum())
            for e in grid
        ]
    )


def _every_data_set(h, t_star, u, t_v, grid):
    """max over m in [0, h] (the number of 1s among h users of flip probability t_star) of the exact profile
    of the count of 1s, with u uniform bits added: the supremum that a CellPair bounds."""
    best = np.zeros(len(grid))
    for m in range(h + 1):
        Z = np.convolve(
            stats.binom.pmf(np.arange(h - m + 1), h - m, t_star),
            stats.binom.pmf(np.arange(m + 1), m, 1 - t_star),
        )
        Z = np.convolve(Z, stats.binom.pmf(np.arange(u + 1), u, 0.5))
        best = np.maximum(best, _hockey(Z, t_v, grid))
    return best


@settings(max_examples=25, deadline=None)
@given(
    eps=st.lists(st.floats(0.0, 3.0), min_size=2, max_size=6),
    cells=st.sampled_from([1, 2, 64]),
    variant=st.sampled_from(["randomized", "revealing"]),
)
def test_bound_on_the_enumerated_protocol(eps, cells, variant):
    """The cell bound lies above the real shuffled protocol's profile, enumerated over every differing
    user and every data set (the revealing variant covers more than the protocol, so it lies above too)."""
    eps = np.array(eps)
    grid = np.linspace(0.0, float(eps.max()) + 0.1, 9)
    res = compare_with_truth(Cl.cells_pair(eps, variant, cells=cells), "binary-rr", eps, grid)
    assert res["deficit"] <= 0.0


@pytest.mark.parametrize(
    "h,t_star,u,t_v", [(9, 0.2, 0, 0.1), (14, 0.3, 3, 0.05), (20, 0.12, 5, 0.0), (31, 0.4, 0, 0.25)]
)
def test_one_data_set_per_cell_is_exact(h, t_star, u, t_v):
    """With one value of m per cell no user is flexible: the bound is the supremum over every data set,
    up to the counted round-off — so a wrong direction, mirror or law would show here."""
    grid = np.linspace(0.0, 2.5, 11)
    truth = _every_data_set(h, t_star, u, t_v, grid)
    pair = Cl.CellPair(h, t_star, u, t_v, cells=h // 2 + 1)
    ours = pair.delta(grid)
    assert np.all(ours >= truth - 1e-15)
    assert np.all(ours <= truth * (1 + 1e-9) + 1e-12)


@pytest.mark.parametrize("cells", [1, 2, 3, 5])
def test_flexible_users_keep_the_bound(cells):
    h, t_star, u, t_v = 40, 0.25, 2, 0.15
    grid = np.linspace(0.0, 2.0, 9)
    truth = _every_data_set(h, t_star, u, t_v, grid)
    ours = Cl.CellPair(h, t_star, u, t_v, cells=cells).delta(grid)
    assert np.all(ours >= truth - 1e-15)


@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_common_budget_against_every_data_set(eps0):
    """n = 150 users with one budget: the bound against the exact maximum over all 150 data sets of the
    others (by exchangeability, the number of 1s), and within 10 % of it in delta where delta > 1e-8
    (below, the counted tails, ~3e-15, and the one flexible user per cell weigh more)."""
    n = 150
    t = 1.0 / (1.0 + np.exp(eps0))
    grid = np.linspace(0.05, eps0, 8)
    truth = _every_data_set(n - 1, t, 0, t, grid)
    ours = Cl.cells_pair(np.full(n, eps0)).delta(grid)
    assert np.all(ours >= truth - 1e-15)
    big = truth > 1e-8
    assert np.all(ours[big] <= 1.1 * truth[big])


def test_personalized_between_lower_bound_and_clone_pair():
    """10^4 users with budgets U(0.01, 2): the cell bound lies above the certified lower bound (an
    independent computation) and well below the clone pair."""
    eps = np.random.default_rng(3).uniform(0.01, 2.0, 10**4)
    ours = Cl.cells_pair(eps).epsilon(1e-6)
    lower = LB.lower_bound(eps).epsilon(1e-6)
    clones = A.personalized_pair(eps, reduction="clones").epsilon(1e-6)
    assert lower <= ours <= clones
    assert ours / lower <= 1.07 and clones / ours >= 1.05


def test_revealing_lower_bound_lies_below_the_revealing_upper_bounds():
    """The revealing variant's lower bound (the differing user reports its input in the clear) lies below
    both revealing upper bounds and above the randomized protocol's lower bound."""
    eps = np.random.default_rng(4).uniform(0.01, 2.0, 3000)
    lo = LB.lower_bound(eps, variant="revealing").epsilon(1e-6)
    assert LB.lower_bound(eps).epsilon(1e-6) < lo
    assert (
        lo
        <= Cl.cells_pair(eps, "revealing").epsilon(1e-6)
        <= A.personalized_pair(eps, None, "revealing", reduction="clones").epsilon(1e-6)
    )
    with pytest.raises(ValueError, match="variant"):
        LB.lower_bound(eps, "k-rr", k=3, variant="revealing")


def test_histogram_equals_per_user_arrays():
    values, counts = np.array([0.3, 1.0, 1.7]), np.array([400, 250, 350])
    levels = [0.8, 1.2]
    a = Cl.cells_pair(values, counts=counts, levels=levels).delta([0.1, 0.3])
    b = Cl.cells_pair(np.repeat(values, counts), levels=levels).delta([0.1, 0.3])
    assert np.allclose(a, b, rtol=1e-12, atol=0)


def test_personalized_pair_reduction_cells():
    eps = np.array([0.5, 1.0, 1.5, 1.0])
    pair = A.personalized_pair(eps, reduction="cells")
    cells, clones = pair.cells, pair.clones()  # the cell bound, and the clone pair (4 users: both)
    assert all(isinstance(p, Cl.CellPair) for p in cells.pairs)
    assert clones.delta(0.3) == A.personalized_pair(eps, reduction="clones").delta(0.3)
    grid = np.array([0.1, 0.5, 1.0, 1.4])
    assert np.array_equal(pair.delta(grid), np.minimum(cells.delta(grid), clones.delta(grid)))
    with pytest.raises(ValueError, match="reduction 'cells'"):
        A.personalized_pair(eps, reduction="cells", randomizer="laplace")


def test_hockey_both_matches_numpy():
    z = binomial_part(30, 0.3)
    full = np.zeros(z.offset + z.width)
    full[z.offset :] = z.pmf
    grid = [0.0, 0.2, 0.7]
    ours = np.array([Cl.hockey_both(z, 0.2, e) for e in grid])
    plain = _hockey(full, 0.2, grid)
    assert np.all(ours >= plain) and np.all(ours <= plain * (1 + 1e-12) + 1e-13)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"variant": "both"}, "variant"),
        ({"cells": 0}, "cells"),
        ({"levels": [-1.0]}, "levels"),
        ({"levels": [1e308]}, "levels"),
        ({"counts": [1, 2]}, "counts"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Cl.cells_pair(np.array([0.5, 1.0, 2.0]), **kwargs)


@pytest.mark.parametrize("rounds", [2, 3])
def test_composed_bound_on_the_enumerated_protocol(rounds):
    """T rounds of the cell bound (gspa.privacy.compose) against T enumerated runs of the protocol."""
    from gspa.privacy import compose

    eps = np.array([0.4, 1.1, 0.8, 1.5])
    grid = np.linspace(0.0, rounds * 1.5, 9)
    truth, err = shuffled_profile("binary-rr", eps, grid, rounds=rounds)
    ours = compose(Cl.cells_pair(eps), rounds).delta(grid)
    assert np.all(ours >= truth - err)


@pytest.mark.parametrize("n", [3, 5, 6])
def test_every_data_set_is_the_enumeration(n):
    """The common-budget ground truth (every number of 1s among the others) equals the per-user enumeration."""
    from gspa.privacy.exact.enumeration import every_data_set

    grid = np.linspace(0.0, 2.0, 9)
    ours, err, _ = every_data_set(1.3, n, grid)
    truth, terr = shuffled_profile("binary-rr", np.full(n, 1.3), grid)
    assert np.all(np.abs(ours - truth) <= err + terr)


@pytest.mark.parametrize("eps0", [1.0, 2.0])
def test_cells_against_every_data_set_of_a_thousand_users(eps0):
    """1000 users, one budget: the cell bound lies above the exact worst case over all data sets and within
    1 % of it in eps; the clone pair is 10 % or more above it."""
    from gspa.privacy.exact.enumeration import every_data_set, every_data_set_epsilon

    n = 1000
    grid = np.linspace(0.02, 0.5, 13)
    truth, err, _ = every_data_set(eps0, n, grid)
    pair = Cl.cells_pair(np.array([eps0]), counts=np.array([n]))
    assert np.all(pair.delta(grid) >= truth - err)
    exact, _ = every_data_set_epsilon(eps0, n, 1e-6)
    assert (
        exact * (1 - 1e-8) <= pair.epsilon(1e-6) <= 1.01 * exact
    )  # exact: bisection to a relative 1e-9
    assert (
        A.personalized_pair(np.array([eps0]), counts=np.array([n]), reduction="clones").epsilon(
            1e-6
        )
        >= 1.1 * exact
    )


def test_users_at_or_near_a_level_are_counted_on_their_certain_side():
    """Round-off (review of the cell bound): a user whose budget is a level must not be taken to be exactly
    at it — its true flip may lie below the computed one, and then it has a share in the clear. The level's
    flip is rounded down, so such a user is below the level with a share < 1 at it; a user whose computed
    flip lies within 8u above the level is counted above (level share t/t*, the rest in the clear)."""
    from gspa.privacy.shuffle import cells as CE
    from gspa.privacy.numerics import U
    from scipy import special

    eps = np.full(5, 0.7)
    ts = special.expit(-0.7) * (1 - 16 * U)
    nb, mb, vb, ma, va, mc, vc = CE._label_sums(eps, None, np.array([ts]))[0]
    assert nb == 5 and mb < 5 and vb > 0 and ma == 0 and mc == vc == 0
    near = np.array(
        [float(-special.logit(ts * (1 + 4 * U)))]
    )  # computed flip within 8u above the level
    t = special.expit(-near[0])
    assert ts <= t < ts * (1 + 8 * U)
    nb, mb, vb, ma, va, mc, vc = CE._label_sums(near, None, np.array([ts]))[0]
    assert nb == 0 and 0 < ma < 1
    pair = CE.cells_pair(np.full(50, 0.7), levels=[0.7]).pairs[0]
    assert (
        pair.flip < special.expit(-0.7) and pair.level == 49
    )  # rounded down; the 49 others below it


@settings(max_examples=25, deadline=None)
@given(
    eps=st.lists(st.floats(0.0, 3.0), min_size=2, max_size=5),
    data=st.data(),
    cells=st.sampled_from([1, 2, 64]),
    variant=st.sampled_from(["randomized", "revealing"]),
)
def test_quaternary_bound_and_lower_bound_on_the_enumerated_protocol(eps, data, cells, variant):
    """Lemma 4's quaternary randomizer (step 5): the cell bound lies above the enumerated protocol (every
    differing user, every data set, each user with its own delta_i) and the lower bound below it."""
    eps = np.array(eps)
    delta = np.array(data.draw(st.lists(st.floats(0.0, 0.4), min_size=eps.size, max_size=eps.size)))
    grid = np.linspace(0.0, float(eps.max()) + 0.1, 9)
    truth, err = shuffled_profile("quaternary", eps, grid, delta=delta)
    upper = np.asarray(
        A.personalized_pair(
            eps,
            delta,
            variant,
            randomizer="quaternary",
            reduction="cells",
        ).delta(grid)
    )
    assert np.all(upper >= truth - err)
    assert np.all(upper >= delta.max() * (1 - 1e-12))  # the differing user's reveal counts fully
    lower = np.asarray(LB.lower_bound(eps, "quaternary", delta=delta).delta(grid))
    assert np.all(lower <= truth + err)


def test_quaternary_without_delta_is_binary_and_its_reveal_is_counted():
    """delta_i = 0 gives the binary numbers exactly; a reveal above the target delta makes both bounds'
    eps infinite (the upper bound cannot hide it, the lower bound sees a symbol only input 1 sends)."""
    rng = np.random.default_rng(3)
    eps = rng.uniform(0.05, 2.0, 400)
    grid = [0.05, 0.2, 0.8]
    assert np.array_equal(
        Cl.cells_pair(eps, delta=np.zeros(400)).delta(grid), Cl.cells_pair(eps).delta(grid)
    )
    assert np.array_equal(
        LB.lower_bound(eps, "quaternary", delta=0.0).delta(grid), LB.lower_bound(eps).delta(grid)
    )
    values, counts = np.array([0.3, 1.0]), np.array([150, 250])
    assert np.array_equal(
        LB.lower_bound(values, "quaternary", delta=0.0, counts=counts).delta(grid),
        LB.lower_bound(values, counts=counts).delta(grid),
    )
    assert Cl.cells_pair(eps, delta=1e-4).epsilon(5e-5) == np.inf
    assert LB.lower_bound(eps, "quaternary", delta=1e-4).epsilon(5e-5) == np.inf
    up = Cl.cells_pair(eps, delta=1e-9).epsilon(
        1e-6
    )  # up to 3 of the 400 users may reveal: ~1 % in eps
    assert (
        LB.lower_bound(eps, "quaternary", delta=1e-9).epsilon(1e-6)
        <= up
        <= Cl.cells_pair(eps).epsilon(1e-6 - 1e-9) * 1.02
    )


class _Step:
    """A stand-in piece of RevealMix whose bound is a given number at every eps."""

    victim_flip, delta_n = 0.25, 0.0

    def __init__(self, value):
        self.value = value

    def _delta1(self, e):
        return self.value

    def _top(self):
        return np.log(3.0)


@pytest.mark.parametrize("seed", range(4))
def test_reveal_mix_is_the_expectation_over_the_reveal_count(seed):
    """With exact tail probabilities as its weights and a bound constant on each band of the count, the mixture
    is the expectation over the count itself (plus the tail beyond c_0 counted as 1): Abel's sum is an
    identity, so a dropped band, a misplaced weight or a wrong sign shows."""
    rng = np.random.default_rng(seed)
    n, p = 300, rng.uniform(0.02, 0.2)
    law = stats.binom(n, p)
    counts = np.sort(rng.choice(np.arange(int(law.ppf(0.01)), int(law.ppf(1 - 1e-9))), 4, False))[
        ::-1
    ]
    d = np.sort(rng.uniform(1e-4, 0.2, counts.size))[::-1]  # more reveals: a larger bound
    mix = Cl.RevealMix(tuple(map(_Step, d)), tuple(law.sf(counts[1:])), float(law.sf(counts[0])))
    r = np.arange(n + 1)
    band = np.searchsorted(-counts, -r, side="right")  # c_k < r <= c_(k-1): band k; r <= c_K: K + 1
    value = np.where(band == 0, 1.0, d[np.maximum(band - 1, 0)])
    exact = float(np.dot(law.pmf(r), value))
    got = mix._delta1(0.3)
    assert exact <= got <= exact + law.sf(counts[0]) * d[0] + 1e-12
    # computed bounds not ordered: each is raised to the largest after it (still a bound on its count)
    assert Cl.RevealMix((_Step(0.01), _Step(0.02)), (0.5,), 0.0)._delta1(0.3) >= 0.02
    assert Cl.RevealMix(tuple(map(_Step, d)), (), 0.0)._delta1(np.log(3.0)) == d[-1]  # the top


@pytest.mark.parametrize("reveal, users", [(0.02, 3000), (1e-3, 20000), (0.3, 500)])
def test_reveal_mix_weights_bound_the_exact_tails_and_the_mixture_gains(reveal, users):
    """One budget, every other user revealing with the same probability: the count in the clear is
    Binomial(users, reveal), and each weight is at least its exact tail beyond the piece's count. The mixture
    lies below the old bound (the count exceeded with probability 2^-50 alone) and above the bound with the
    mean count in the clear."""
    best = Cl.cells_pair(
        np.array([1.0]), delta=np.array([reveal]), counts=np.array([users]), victim=2.0
    )
    (mix,) = best.pairs
    law = stats.binom(users, reveal)
    assert isinstance(mix, Cl.RevealMix) and len(mix.pairs) == len(mix.weights) + 1 >= 3
    hb = mix.pairs[0].level + Cl._rare_count(
        users * reveal, users * reveal * (1 - reveal), Cl.TAIL, users
    )
    counts = [hb - piece.level for piece in mix.pairs]
    assert all(np.diff(counts) < 0) and law.sf(counts[0]) <= mix.tail
    assert all(law.sf(c) <= w for c, w in zip(counts[1:], mix.weights))
    first = mix.pairs[0]  # the old bound, with as many cells as its piece here
    old = Cl.CellPair(first.level, first.flip, 0, first.victim_flip, first.cells, 3 * Cl.TAIL)
    typical = Cl.CellPair(hb - int(law.mean()), first.flip, 0, first.victim_flip)
    at = typical.epsilon(1e-6)
    for e in (0.5 * at, at, 1.5 * at):
        assert typical._delta1(e) <= mix._delta1(e) <= old._delta1(e) * (1 + 1e-12)
    assert mix.epsilon(1e-6) < old.epsilon(1e-6)


def test_quaternary_histogram_lower_bound_equals_the_per_user_one_for_one_budget():
    """With one budget and one delta the histogram form's 'others all 0' data set is the per-user one."""
    per_user = LB.lower_bound(np.full(300, 0.8), "quaternary", delta=1e-3).delta([0.1, 0.3])
    hist = LB.lower_bound(np.array([0.8]), "quaternary", delta=1e-3, counts=np.array([300])).delta(
        [0.1, 0.3]
    )
    np.testing.assert_allclose(
        hist, per_user, rtol=1e-9, atol=1e-10
    )  # their round-off allowances differ


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(randomizer="binary-rr", delta=np.full(3, 1e-3)), "quaternary"),
        (dict(randomizer="k-rr", k=3), "quaternary"),
    ],
)
def test_cells_reduction_refuses_what_it_does_not_cover(kwargs, match):
    eps = np.array([0.5, 1.0, 2.0])
    delta = kwargs.pop("delta", None)
    with pytest.raises(ValueError, match=match):
        A.personalized_pair(eps, delta, reduction="cells", **kwargs)


def test_lower_bound_delta_only_for_quaternary():
    with pytest.raises(ValueError, match="delta is only used with randomizer='quaternary'"):
        LB.lower_bound(np.array([0.5, 1.0]), delta=1e-3)
    with pytest.raises(ValueError, match="delta"):
        LB.lower_bound(np.array([0.5, 1.0]), "quaternary", delta=1.5)


def test_quaternary_lower_bound_lets_the_largest_delta_differ_too():
    """When the user with the largest delta_i is not the most liberal one, its reveal alone can exceed the
    target delta: both bounds must then say eps = inf (per-user and histogram forms)."""
    eps = np.r_[2.0, np.full(99, 0.5)]
    delta = np.r_[0.0, 1e-4, np.zeros(98)]
    assert Cl.cells_pair(eps, delta=delta).epsilon(5e-5) == np.inf
    assert LB.lower_bound(eps, "quaternary", delta=delta).epsilon(5e-5) == np.inf
    values, counts = np.array([0.5, 2.0]), np.array([99, 1])
    assert (
        LB.lower_bound(values, "quaternary", delta=np.array([1e-4, 0.0]), counts=counts).epsilon(
            5e-5
        )
        == np.inf
    )
    assert (
        LB.lower_bound(values, "quaternary", delta=np.array([1e-4, 0.0]), counts=counts).epsilon(
            2e-4
        )
        < np.inf
    )


def test_huge_budgets_get_capped_default_levels_and_huge_counts_are_refused():
    """Budgets from about 745 up (1/(1 + e^eps) underflows): the default levels are kept at most 700, so the bound
    is computed (valid for any level); above 10^9 users the cell bound is refused with the limit named."""
    pair = Cl.cells_pair(np.array([800.0, 900.0, 1000.0]))
    assert 0.0 <= pair.delta(1.0) <= 1.0
    with pytest.raises(ValueError, match="at most 1e\\+09 users"):
        Cl.cells_pair(np.array([1.0]), counts=np.array([Cl.MAX_USERS + 1]))


def test_below_its_floor_the_cell_bound_gives_way_to_the_clone_pair():
    """At 10^6 users with budget 1 and delta = 1e-12 the cells alone resolve no finite eps
    below 1 (their counted tails put a floor near 5e-12 on delta), the clone pair gives 0.0072: the reduction
    answers the smaller, and its delta(eps) is non-increasing."""
    v, c = np.array([1.0]), np.array([10**6])
    alone = Cl.cells_pair(v, counts=c)
    both = A.personalized_pair(v, counts=c, reduction="cells")
    assert alone.epsilon(1e-12) >= 0.999
    assert (
        both.epsilon(1e-12)
        == A.personalized_pair(v, counts=c, reduction="clones").epsilon(1e-12)
        < 0.01
    )
    d = both.delta(np.linspace(0.0, 1.2, 25))
    assert np.all(np.diff(d) <= 0)


def _label_sums_by_user(eps, counts, flips, delta=None):
    """``_label_sums`` written user by user, straight from its docstring (the reference)."""
    from gspa.privacy.numerics import U
    from scipy import special

    w = np.ones(eps.size) if counts is None else np.asarray(counts, float)
    d = np.zeros(eps.size) if delta is None else delta
    out = np.zeros((flips.size, 7))
    for r, ts in enumerate(flips):
        for e, wj, dj in zip(eps, w, d):
            t = float(special.expit(-e))
            below = t >= ts * (1 + 8 * U)
            a = (0.5 - t * (1 - 8 * U)) / (0.5 - ts) if below else t * (1 - 8 * U) / ts
            a = min(max(a, 0.0), 1.0)
            a = min(max(a + dj * (1 - a) if below else a * (1 - dj), 0.0), 1.0)
            c = dj if below else 0.0
            row = (wj, wj * a, wj * a * (1 - a), 0, 0, wj * c, wj * c * (1 - c))
            out[r] += row if below else (0, 0, 0, wj * a, wj * a * (1 - a), 0, 0)
    return out


@settings(max_examples=40, deadline=None)
@given(
    eps=st.lists(st.floats(0.0, 6.0), min_size=1, max_size=30),
    data=st.data(),
)
def test_the_label_sums_are_those_of_each_user_added_up(eps, data):
    """The label sums (dot products with each side's indicator) against a loop over the users, with and
    without counts and reveals, at levels that fall between, on and beside the budgets."""
    eps = np.array(eps)
    counts = np.array(data.draw(st.lists(st.integers(1, 9), min_size=eps.size, max_size=eps.size)))
    delta = np.array(data.draw(st.lists(st.floats(0.0, 0.3), min_size=eps.size, max_size=eps.size)))
    from scipy import special

    flips = np.unique(np.concatenate([special.expit(-eps[:3]), [0.1, 0.3, 0.45]]))
    flips = flips[(flips > 0) & (flips < 0.5)]
    for c, d in ((None, None), (counts, None), (None, delta), (counts, delta)):
        got = Cl._label_sums(eps, c, flips, d)
        want = _label_sums_by_user(eps, c, flips, d)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 6), min_size=1, max_size=40), data=st.data())
def test_the_levels_and_the_user_who_leaves_are_the_sorted_ones(values, data):
    """``_quantiles`` without weights (a partition) and ``_smallest`` (linear) give what sorting gives:
    the order statistics ``ceil(q n) - 1`` and ``np.lexsort((d, eps))[0]``, ties and all."""
    v = np.array(values, float)
    d = np.array(data.draw(st.lists(st.integers(0, 2), min_size=v.size, max_size=v.size)), float)
    order = np.sort(v)
    idx = np.searchsorted(np.arange(1, v.size + 1), np.array(Cl.LEVELS) * v.size, side="left")
    assert np.array_equal(
        Cl._quantiles(v, None, Cl.LEVELS), np.unique(order[np.minimum(idx, v.size - 1)])
    )
    assert Cl._smallest(v, d) == int(np.lexsort((d, v))[0])


_LEVEL_CASES = [
    (np.random.default_rng(0).uniform(0.01, 2.0, 3000), None, "randomized"),
    (np.full(2000, 1.0), None, "randomized"),
    (np.random.default_rng(1).uniform(0.1, 3.0, 500), None, "revealing"),
    (np.full(4000, 0.5), np.full(4000, 1e-7), "randomized"),
]


@pytest.mark.parametrize("eps, delta, variant", _LEVEL_CASES)
def test_a_levels_eps_from_one_cell_is_the_whole_levels(eps, delta, variant):
    """CellPair.epsilon inverts one cell and checks every cell at the root: the eps of the whole level (the
    root search over the largest of all cells) to the root-finder's tolerance, and certified (the level's
    delta there is at most the target). So is the fallback, when the first cell is not the worst (here the
    first and last cells' laws are swapped), and the best of the levels is the smallest level's eps."""
    from gspa.privacy.profiles import Profile

    best = Cl.cells_pair(eps, variant, delta=delta)
    for target in (1e-3, 1e-6, 1e-9):
        each = []
        for pair in best.pairs:
            e = pair.epsilon(target)
            whole = Profile.epsilon(pair, target)
            each.append(whole)
            assert _same_root(e, whole) and (pair.delta(e) <= target or e == np.inf)
            assert pair._above(e * 0.999, target) == (pair.delta(e * 0.999) > target)
            for piece in pair.pairs if isinstance(pair, Cl.RevealMix) else (pair,):
                own = Profile.epsilon(piece, target)
                first, last = piece._starts()[0], piece._starts()[-1]
                swapped = Cl.CellPair(**{f: getattr(piece, f) for f in _FIELDS})
                swapped._laws.update({first: piece._law(last), last: piece._law(first)})
                e2 = swapped.epsilon(target)
                assert _same_root(e2, own) and (swapped.delta(e2) <= target or e2 == np.inf)
        assert best.epsilon(target) == min(p.epsilon(target) for p in best.pairs)
        assert _same_root(best.epsilon(target), min(each))


def _same_root(a: float, b: float) -> bool:
    """Equal to the root-finder's tolerance, or both infinite (delta below the floor)."""
    return a == b or abs(a - b) <= 1e-8 * b


_FIELDS = ("level", "flip", "uniform", "victim_flip", "cells", "tails", "scope", "delta_n")


def test_cells_first_consults_the_clone_pair_only_where_it_may_be_smaller():
    """reduction="cells" (CellsFirst): with at least CLONES_BELOW_USERS users and a target above
    CLONES_BELOW_DELTA, the cell bound alone answers and the clone pair is never built; below that target
    (the cells' floor) the clone pair answers; with few users the smaller of the two, always. Every eps is
    the inverse of delta: delta(eps) meets the target and a slightly smaller eps does not."""
    many = A.personalized_pair(
        np.array([0.3, 1.0]), counts=np.array([60_000, 60_000]), reduction="cells"
    )
    cells = Cl.cells_pair(np.array([0.3, 1.0]), counts=np.array([60_000, 60_000]))
    assert many.epsilon(1e-6) == cells.epsilon(1e-6) and "clones" not in many._built
    assert many.delta(0.002) == cells.delta(0.002) > 1e-6 and "clones" not in many._built
    for target in (1e-3, 1e-6, 1e-8, 1e-12, 1e-14):
        e = many.epsilon(target)
        assert np.isfinite(e) and many.delta(e) <= target < many.delta(e * (1 - 1e-6))
    assert "clones" in many._built  # the smallest targets needed it
    few = A.personalized_pair(np.random.default_rng(2).uniform(0.01, 2.0, 100), reduction="cells")
    clones = few.clones()
    for target in (1e-2, 1e-6):
        assert few.epsilon(target) == min(few.cells.epsilon(target), clones.epsilon(target))
    grid = np.array([0.0, 0.1, 0.5, 1.0])
    np.testing.assert_array_equal(
        few.delta(grid), np.minimum(few.cells.delta(grid), clones.delta(grid))
    )


class _Exp(PROF.Profile):
    """A toy certified profile delta(eps) = min(1, exp(-rate eps))."""

    def __init__(self, rate):
        self.rate = rate

    def _delta1(self, e):
        return float(min(1.0, np.exp(-self.rate * e)))

    def _top(self):
        return np.inf

    def _gaussian_guess(self, delta):
        return None


def test_cells_first_is_the_inverse_of_its_delta_where_the_clone_pair_is_much_smaller():
    """A clone pair far below the cells (toy profiles): below CLONES_BELOW_DELTA its delta counts only
    past the eps where the cells' delta reaches that value, so epsilon(delta) is that eps, not the clone
    pair's own (which delta(eps) would not meet)."""
    both = A.CellsFirst(_Exp(1.0), lambda: _Exp(3.0), 10**6)
    for target in (1e-3, 1e-9, 1e-12, 1e-20):
        e = both.epsilon(target)
        assert both.delta(e) <= target < both.delta(e * (1 - 1e-6))


def test_the_default_reduction_is_the_cell_bound_where_there_is_one():
    """reduction=None: the cell bound for binary RR and the quaternary randomizer, the clone pair above the
    cells' user limit (a histogram of 2e9 users), and the blanket pair for the others; malformed counts
    still get their own message."""
    from gspa.privacy.shuffle.pairs import KaryPair, ReducedPair

    eps = np.array([0.5, 1.0, 1.5])
    assert isinstance(A.personalized_pair(eps), A.CellsFirst)
    assert isinstance(A.personalized_pair(eps, 1e-6, randomizer="quaternary"), A.CellsFirst)
    assert isinstance(A.personalized_pair(eps, randomizer="k-rr", k=3), KaryPair)
    huge = A.personalized_pair(np.array([1.0]), counts=np.array([2 * Cl.MAX_USERS]))
    assert isinstance(huge, ReducedPair)
    with pytest.raises(ValueError, match="counts"):
        A.personalized_pair(np.array([1.0]), counts=["a"])


def test_cells_first_near_the_floor_the_revealing_variant_and_reveals():
    """Two cases an independent review found: in the revealing variant the cells' counted convolution error
    grows like e^eps, so their delta rises again past eps ~ 7 — past e0 the clone pair is consulted whatever
    the cells' value, and delta stays non-increasing; with Lemma 4's reveals the cells' floor is
    max delta_i, not 0 — the clone pair is consulted within 1e-9 of that floor, where the cells alone
    gave eps = L or inf."""
    grid = np.array([1.0, 3.0, 5.0, 10.0, 20.0, 30.0])
    eps = np.random.default_rng(0).uniform(0.01, 2.0, 10**5)
    rev = A.personalized_pair(eps, variant="revealing")
    d = np.asarray(rev.delta(grid))
    assert np.all(np.diff(d) <= 0) and d[-1] < 1e-15, d
    for variant in ("randomized", "revealing"):
        one = dict(randomizer="quaternary", counts=np.array([10**5]))
        quat = A.personalized_pair(np.array([1.0]), 1e-8, variant, **one)
        clones = A.personalized_pair(np.array([1.0]), 1e-8, variant, reduction="clones", **one)
        for target in (1.00001e-8, 1.001e-8, 1e-6):
            e = quat.epsilon(target)
            assert e <= clones.epsilon(target) and quat.delta(e) <= target
        assert quat.epsilon(1.00001e-8) < 0.1


@pytest.mark.slow
def test_rounds_of_the_default_are_the_smaller_of_the_composed_cells_and_clone_pair():
    """Over rounds the cells compose through their delta(eps) curve, which can be looser than the clone pair's
    own composition (its privacy-loss distribution), or tighter: the default keeps the smaller of the two."""
    from gspa.privacy.shuffle.composition import compose

    eps = np.random.default_rng(4).uniform(0.01, 2.0, 2000)
    first = A.personalized_pair(eps)
    both = A.personalized_pair(eps, rounds=20)
    for target in (1e-4, 1e-8):
        cells = compose(first, 20).epsilon(target)
        clones = compose(first.clones(), 20).epsilon(target)
        assert both.epsilon(target) == min(cells, clones)


@pytest.mark.slow
def test_rounds_of_the_default_at_many_users_compose_the_curve_that_takes_the_clone_pair():
    """From CLONES_BELOW_USERS users on, the default composes the cell curve that takes the clone pair where
    CellsFirst consults it, and not the clone pair a second time: no larger than the composed clone pair."""
    from gspa.privacy.shuffle.composition import compose

    eps = np.random.default_rng(5).uniform(0.01, 2.0, A.CLONES_BELOW_USERS)
    first = A.personalized_pair(eps)
    default = A.personalized_pair(eps, rounds=10)
    clones = compose(first.clones(), 10)
    for target in (1e-5, 1e-12):
        assert default.epsilon(target) == compose(first, 10).epsilon(target)
        assert default.epsilon(target) <= clones.epsilon(target)
