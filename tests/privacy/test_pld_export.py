"""gspa.privacy.interop.dpaccounting.to_pld: a dp_accounting PLD that dominates a certified pair.

What is checked: the PLD's delta(eps) is never below gspa's certified delta(eps) on eps in [0, 10] (binary
randomized response, randomized and revealing, the quaternary randomizer, FMT21 and FMT23 pairs); it lies
above the exact delta of the pair's enumerated laws, alone and composed twice (where gspa's own composition
lies above it too: the two composed bounds are different upper bounds, neither below the other everywhere,
and they agree to 1 % in eps); it is not loose (eps at delta = 1e-6 within 1 % of gspa's); it composes with
dp_accounting's Gaussian mechanism; merging outcomes does not change it beyond one grid step; bad inputs
are refused with a ValueError naming the parameter.
"""

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

import gspa  # noqa: E402
from gspa.privacy.interop import dpaccounting as D  # noqa: E402
from gspa.privacy.shuffle.pairs import ReducedPair  # noqa: E402

EPS = np.linspace(0.0, 10.0, 81)
BUDGETS = np.array([0.5, 1.0, 2.0, 1.5] * 5)  # 20 users


def _pairs():
    return {
        "binary-rr": gspa.personalized_pair(BUDGETS, reduction="clones"),
        "binary-rr revealing": gspa.personalized_pair(
            BUDGETS, variant="revealing", reduction="clones"
        ),
        "binary-rr 300 users": gspa.personalized_pair(
            np.linspace(0.2, 2.0, 300), reduction="clones"
        ),
        "quaternary": gspa.personalized_pair(
            BUDGETS, 1e-4, randomizer="quaternary", reduction="clones"
        ),
        "fmt21 n=1000": gspa.fmt21_pair(1.0, 1000),
        "fmt21 eps0=3": gspa.fmt21_pair(3.0, 200),
        "fmt23 n=500": gspa.fmt23_pair(2.0, 500),
    }


def _deltas(pld, eps):
    return np.array([pld.get_delta_for_epsilon(float(e)) for e in eps])


def _below(lower, upper, rel=1e-9, atol=1e-300):
    """Where ``upper`` falls below ``lower`` by more than float round-off (and below ``atol``)."""
    return upper < lower * (1 - rel) - atol


@pytest.mark.parametrize("name", list(_pairs()))
def test_pld_dominates_certified_delta(name):
    pair = _pairs()[name]
    pld = D.to_pld(pair, value_discretization_interval=1e-4)
    ours, certified = _deltas(pld, EPS), np.asarray(pair.delta(EPS))
    bad = _below(certified, ours)
    assert not bad.any(), (name, EPS[bad], ours[bad], certified[bad])


def _exact_delta(P, Q, eps):
    """max of both hockey-stick divergences of two probability vectors."""
    return np.array(
        [
            max(np.maximum(P - np.exp(e) * Q, 0).sum(), np.maximum(Q - np.exp(e) * P, 0).sum())
            for e in eps
        ]
    )


def test_pld_lies_above_the_enumerated_pair_and_agrees_with_from_pmfs():
    """Against the pair's own laws (ReducedPair.pmfs, the computed clone law) converted by dp_accounting's
    from_two_probability_mass_functions outcome by outcome: the two are within one grid step (float noise
    puts some losses that are exactly 0 one step up in the plain conversion, so either may be the larger),
    and ours is never below the exact delta of the laws."""
    pair = _pairs()["binary-rr"]
    P, Q = pair.pmfs()
    ref = D._pld_from_pmfs(P, Q, 1e-4), D._pld_from_pmfs(Q, P, 1e-4)
    pld = D.to_pld(pair, value_discretization_interval=1e-4)
    ref_next = np.maximum(_deltas(ref[0], EPS + 1e-4), _deltas(ref[1], EPS + 1e-4))
    assert not _below(ref_next, _deltas(pld, EPS)).any()
    assert not _below(_exact_delta(P, Q, EPS), _deltas(pld, EPS)).any()
    for delta in (1e-3, 1e-6, 1e-9):
        assert (
            abs(pld.get_epsilon_for_delta(delta) - max(r.get_epsilon_for_delta(delta) for r in ref))
            <= 1.01e-4
        )


@pytest.mark.parametrize("name", ["binary-rr", "fmt21 n=1000", "binary-rr revealing"])
def test_merging_outcomes_keeps_the_pld(name):
    """Outcomes merged by their grid points give the same PLD as the outcome-by-outcome conversion (a loss
    that lands on a grid point may round to the next one in one of them: one grid step in eps)."""
    pair, h = _pairs()[name], 1e-3
    merged, plain = D._to_pld(pair, h, True), D._to_pld(pair, h, False)
    for delta in (1e-2, 1e-4, 1e-6, 1e-9):
        a, b = merged.get_epsilon_for_delta(delta), plain.get_epsilon_for_delta(delta)
        assert a == b or abs(a - b) <= 1.01 * h
    assert (
        np.allclose(_deltas(merged, EPS[::4]), _deltas(plain, EPS[::4]), rtol=0.01, atol=1e-300)
        or not _below(_deltas(plain, EPS + h), _deltas(merged, EPS)).any()
    )


def test_pld_is_not_loose():
    """At a fine grid the PLD's eps at delta = 1e-6 is within 1 % of gspa's certified eps, and not below it
    (up to the root-finder's tolerance of gspa's eps, 2e-9 relative)."""
    for pair in (
        gspa.fmt21_pair(1.0, 1000),
        gspa.personalized_pair(np.linspace(0.2, 2.0, 300), reduction="clones"),
    ):
        ours, certified = (
            D.to_pld(pair, value_discretization_interval=1e-4).get_epsilon_for_delta(1e-6),
            pair.epsilon(1e-6),
        )
        assert certified * (1 - 1e-8) <= ours <= 1.01 * certified, (ours, certified)


def test_infinite_losses_go_to_the_mass_at_infinity():
    """The quaternary pair's delta_n and the revealing pair's report: delta(eps) never falls below them."""
    quat = _pairs()["quaternary"]
    assert D.to_pld(quat).get_delta_for_epsilon(50.0) >= 1e-4
    rev = _pairs()["binary-rr revealing"]
    pld = D.to_pld(rev)
    assert pld.get_delta_for_epsilon(50.0) > 0 and pld.get_epsilon_for_delta(1e-6) == np.inf
    assert rev.epsilon(1e-6) == np.inf


@pytest.mark.parametrize("name", ["binary-rr", "fmt21 eps0=3"])
def test_two_fold_composition_against_enumeration_and_gspa(name):
    """pld.compose(pld) lies above the exact 2-fold delta of the enumerated pair; so does gspa's compose(pair, 2)
    (different upper bounds: neither is below the other at every eps); their eps at 1e-6 agree to 1 %.
    to_pld of the Composed pair is the same self-composition."""
    pair = _pairs()[name]
    pld = D.to_pld(pair, value_discretization_interval=1e-4)
    two = pld.compose(pld)
    P, Q = pair.pmfs()
    P2, Q2 = np.outer(P, P).ravel(), np.outer(Q, Q).ravel()
    exact = _exact_delta(P2, Q2, EPS)  # its sums carry float noise ~1e-19 where delta is 0
    assert not _below(exact, _deltas(two, EPS), atol=1e-15).any()
    composed = gspa.compose(pair, 2)
    assert not _below(exact, np.asarray(composed.delta(EPS)), atol=1e-15).any()
    assert abs(two.get_epsilon_for_delta(1e-6) - composed.epsilon(1e-6)) <= 0.01 * composed.epsilon(
        1e-6
    )
    via = D.to_pld(composed, value_discretization_interval=1e-4)
    assert np.allclose(_deltas(via, EPS), _deltas(two, EPS), rtol=1e-9, atol=1e-15)


def test_composes_with_a_gaussian_mechanism():
    """A shuffle round then a Gaussian mechanism (sigma = 2, subsampled with probability 0.1 or not):
    dp_accounting composes them; the result's delta(eps) is at least each part's."""
    from dp_accounting.pld import privacy_loss_distribution as pld_lib

    h = 1e-4
    shuffle = D.to_pld(gspa.fmt21_pair(1.0, 1000), value_discretization_interval=h)
    for q in (1.0, 0.1):
        gauss = pld_lib.from_gaussian_mechanism(
            2.0, sampling_prob=q, value_discretization_interval=h
        )
        both = shuffle.compose(gauss)
        eps = np.linspace(0.0, 5.0, 21)
        d = _deltas(both, eps)
        assert np.all(np.isfinite(d))
        assert np.all(d >= _deltas(shuffle, eps) * (1 - 1e-9)) and np.all(
            d >= _deltas(gauss, eps) * (1 - 1e-9)
        )


@pytest.mark.parametrize(
    "bad", [0, -1.0, 2.0, float("nan"), float("inf"), True, "x", None, [1e-4, 1e-3]]
)
def test_refuses_a_bad_interval(bad):
    with pytest.raises(ValueError, match="value_discretization_interval"):
        D.to_pld(gspa.fmt21_pair(1.0, 10), value_discretization_interval=bad)


def test_refuses_what_it_cannot_convert():
    for bad in ("fmt21", gspa.lower_bound(BUDGETS), gspa.BestOf((gspa.lower_bound(BUDGETS),))):
        with pytest.raises(ValueError, match="pair must be a certified upper bound"):
            D.to_pld(bad)
    with pytest.raises(ValueError, match="got a lower bound"):
        D.to_pld(gspa.lower_bound(BUDGETS))
    with pytest.raises(ValueError, match="pair.base .of a Composed pair of 2 rounds"):
        D.to_pld(gspa.compose(gspa.lower_bound(BUDGETS), 2))


SMALL = [0.3, 0.8, 1.2, 0.5]


def _curve_bounds():
    """Bounds known through their privacy curve only (no pair of laws)."""
    return {
        "cells (the default)": gspa.personalized_pair(SMALL),
        "k-rr, k = 3": gspa.personalized_pair(SMALL, randomizer="k-rr", k=3),
        "laplace": gspa.personalized_pair(SMALL, randomizer="laplace"),
        "best of": gspa.BestOf((gspa.fmt21_pair(1.0, 10), gspa.fmt23_pair(1.0, 10))),
        "worst of": gspa.WorstOf((gspa.fmt21_pair(1.0, 10), gspa.fmt21_pair(0.5, 10))),
    }


@pytest.mark.parametrize("name", list(_curve_bounds()))
def test_curve_pld_dominates_the_bound(name):
    """The connect-the-dots PLD of a bound known by its curve: the lower convex hull (in e^eps) of the bound
    at the nodes, so not below the bound where the bound is convex in e^eps, as these are (where it is
    not, e.g. the cell bound near 1e-12 at 1e5 users, it cuts below the bound, never below the protocol)."""
    bound = _curve_bounds()[name]
    ours, certified = _deltas(D.to_pld(bound), EPS), np.asarray(bound.delta(EPS))
    bad = _below(certified, ours)
    assert not bad.any(), (name, EPS[bad], ours[bad], certified[bad])
    big = certified > 1e-6
    assert np.all(ours[big] <= certified[big] * 1.05 + 1e-4)  # and close (the nodes' spacing)


@pytest.mark.parametrize(
    "randomizer, delta, k",
    [("binary-rr", None, None), ("quaternary", [0.01, 0.02, 0.0, 0.0], None), ("k-rr", None, 3)],
)
def test_curve_pld_composed_is_above_the_enumerated_protocol(randomizer, delta, k):
    """Two runs of the real shuffled protocol, enumerated exactly, against dp_accounting's two-fold
    composition of the default bound's PLD."""
    from gspa.privacy.exact import enumeration as BF

    grid = np.linspace(0.0, 3.0, 31)
    eps = SMALL[:3] if k else SMALL
    delta = None if delta is None else delta[: len(eps)]
    truth, err = BF.shuffled_profile(randomizer, eps, grid, delta=delta, k=k, rounds=2)
    bound = gspa.personalized_pair(eps, delta, randomizer=randomizer, k=k)
    ours = _deltas(D.to_pld(bound).self_compose(2), grid)
    assert np.max(truth - err - ours) <= 0.0
    via = _deltas(D.to_pld(gspa.compose(bound, 2)), grid)  # a Composed bound: the same PLD composed
    assert np.allclose(via, ours, rtol=1e-9, atol=1e-15)
    # the default of rounds=2 (for binary RR and quaternary: a BestOf of two composed bounds)
    default = gspa.personalized_pair(eps, delta, randomizer=randomizer, k=k, rounds=2)
    assert np.max(truth - err - _deltas(D.to_pld(default), grid)) <= 0.0


def test_refuses_sizes_before_building():
    """Too many outcomes (10^6 users) and too many grid points are refused at once, naming the limit."""
    import time

    t = time.perf_counter()
    with pytest.raises(ValueError, match="MAX_PLD_OUTCOMES"):
        D.to_pld(gspa.fmt21_pair(1.0, 10**6))
    assert time.perf_counter() - t < 20
    with pytest.raises(ValueError, match="value_discretization_interval = 1e-09.*grid points"):
        D.to_pld(
            gspa.personalized_pair(np.array([40.0, 40.0, 40.0]), reduction="clones"),
            value_discretization_interval=1e-9,
        )
    with pytest.raises(ValueError, match="rounds"):
        D.to_pld(gspa.compose(gspa.fmt21_pair(1.0, 100), 1000), value_discretization_interval=1e-6)
    assert isinstance(gspa.fmt21_pair(1.0, 10), ReducedPair)


def test_exported():
    assert gspa.to_pld is D.to_pld and "to_pld" in gspa.privacy.__all__
