"""Properties of the accountant on random inputs (seeded sampling: deterministic and bounded in time,
no extra dependency), including the extreme budgets and deltas of the reliability review.

For every sampled case: delta(eps) is non-increasing in eps, epsilon(delta) is non-increasing in
delta, results are finite or inf but never NaN, delta never falls below max delta_i, adding users
(with budgets no larger than the current maximum, so that the worst differing user is unchanged)
never increases delta, and on small n the bound is never below exhaustive enumeration."""

import numpy as np
import pytest

from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.exact import enumeration as BF

EXTREME_EPS = [0.0, 1e-9, 0.01, 0.5, 2.0, 36.7, 50.0, 700.0, 1e6]
DELTAS = [1e-300, 1e-12, 1e-6, 1e-3, 0.5]
EPS_GRID = np.array([0.0, 1e-6, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 36.7, 40.0, 60.0, 800.0, 2e6])


def case(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.choice([2, 3, 7, 50, 400]))
    mix = rng.random()
    eps = np.where(rng.random(n) < mix, rng.choice(EXTREME_EPS, n), rng.uniform(0.0, 3.0, n))
    randomizer = ["binary-rr", "k-rr", "quaternary"][seed % 3]
    k = int(rng.choice([3, 5])) if randomizer == "k-rr" else None
    delta = rng.choice([0.0, 1e-12, 1e-5, 0.01], n) if randomizer == "quaternary" else None
    variant = PROF.VARIANTS[(seed // 3) % 2]
    return eps, delta, variant, randomizer, k


@pytest.mark.parametrize("seed", range(36))
@pytest.mark.parametrize("default", [True, False], ids=["default", "clones"])
def test_monotone_never_nan_and_above_max_delta(seed, default):
    eps, delta, variant, randomizer, k = case(seed)
    reduction = None if default else _clones(randomizer)
    pair = A.personalized_pair(eps, delta, variant, randomizer=randomizer, k=k, reduction=reduction)
    d = np.asarray(pair.delta(EPS_GRID))
    assert not np.isnan(d).any() and np.all((0 <= d) & (d <= 1))
    assert np.all(np.diff(d) <= 1e-15), d
    floor = 0.0 if delta is None else float(np.max(delta))
    assert np.all(d >= floor)
    e = [pair.epsilon(x) for x in DELTAS]
    assert not np.isnan(e).any()
    assert all(a >= b * (1 - 1e-12) for a, b in zip(e, e[1:])), e
    for x, ex in zip(DELTAS, e):
        assert (x <= floor and ex == np.inf) or (
            x > floor and np.isfinite(ex) or variant == "revealing"
        )
        if np.isfinite(ex):
            assert pair.delta(ex) <= x
    # the local randomizer's own budget is never exceeded by the randomized pair (shuffling cannot hurt)
    if variant == "randomized" and floor == 0.0:
        assert e[-1] <= eps.max() + 1e-12


def _clones(randomizer):
    """The reduction the properties below were proved for: the clone pair where the default is the cells."""
    return "clones" if randomizer in ("binary-rr", "quaternary") else None


@pytest.mark.parametrize("seed", range(12))
def test_adding_users_never_makes_anyone_less_private(seed):
    eps, delta, variant, randomizer, k = case(seed)
    rng = np.random.default_rng(1000 + seed)
    extra = rng.uniform(0.0, eps.max(), size=int(rng.integers(1, 40)))
    d_extra = None if delta is None else rng.choice(delta, extra.size)
    bigger = A.personalized_pair(
        np.concatenate([eps, extra]),
        None if delta is None else np.concatenate([delta, d_extra]),
        variant,
        randomizer=randomizer,
        k=k,
        reduction=_clones(randomizer),
    )
    small = A.personalized_pair(
        eps, delta, variant, randomizer=randomizer, k=k, reduction=_clones(randomizer)
    )
    a, b = np.asarray(bigger.delta(EPS_GRID)), np.asarray(small.delta(EPS_GRID))
    assert np.all(a <= b * (1 + 1e-9) + 1e-300), (a, b)


@pytest.mark.parametrize("seed", range(9))
def test_random_small_cases_are_above_enumeration(seed):
    eps, delta, variant, randomizer, k = case(seed)
    eps = eps[:4] if eps.size >= 2 else eps
    if eps.size < 2:
        eps = np.append(eps, 0.5)
    delta = None if delta is None else delta[: eps.size]
    grid = EPS_GRID[EPS_GRID < 100]
    truth, err = BF.shuffled_profile(randomizer, eps, grid, delta=delta, k=k)
    ours = np.asarray(
        A.personalized_pair(eps, delta, variant, randomizer=randomizer, k=k).delta(grid)
    )  # the default
    assert np.all(ours >= truth - err)
    ours = np.asarray(
        A.personalized_pair(
            eps, delta, variant, randomizer=randomizer, k=k, reduction=_clones(randomizer)
        ).delta(grid)
    )
    assert np.all(ours >= truth - err)


class _Step(PROF.Profile):
    """A toy profile delta(eps) = exp(-rate eps), with a Gaussian guess that can mislead and a count of
    its root searches."""

    def __init__(self, rate, guess=None, probe=False):
        self.rate, self.guess, self.searches = rate, guess, 0
        if probe:
            self._probe = lambda e: self._delta1(e)

    def _delta1(self, e):
        return float(np.exp(-self.rate * e))

    def _top(self):
        return np.inf

    def _gaussian_guess(self, delta):
        return self.guess

    def epsilon(self, delta):
        self.searches += 1
        return super().epsilon(delta)


@pytest.mark.parametrize("probe", [False, True])
def test_the_best_of_several_pairs_is_the_smallest_eps_whatever_is_tried_first(probe):
    """BestOf.epsilon inverts the pair with the smallest guess (or probe) first and then only the pairs
    whose delta at that eps is at most the target: the result is the smallest of all the pairs' eps,
    whichever pair the guesses put first (here they put the worst first, the best first, or say nothing),
    and a pair whose delta there is above the target is not searched."""
    for guesses in ((5.0, 1.0, 3.0), (1.0, 5.0, 3.0), (None, None, None), (None, 2.0, 1.0)):
        pairs = [_Step(r, g, probe) for r, g in zip((1.0, 3.0, 2.0), guesses)]
        best = PROF.BestOf(tuple(pairs))
        for target in (1e-2, 1e-6):
            want = min(p.epsilon(target) for p in pairs)
            for p in pairs:
                p.searches = 0
            assert best.epsilon(target) == want
            assert pairs[0].searches == 0 or guesses[0] in (
                1.0,
                None,
            )  # the worst: checked, not searched
