"""Lemma 4.5 at realistic sizes (gspa.privacy.peers.variation_scale): the explicit data sets' count law against the
enumerated histogram of the same data sets, against the enumerated protocol, against an independent
40-digit computation, and the violation of Wang et al.'s pair at n >= 1000."""

import numpy as np
import pytest

from gspa.privacy.exact import enumeration as BF
from gspa.privacy.exact import peers as EXP
from gspa.privacy.peers import variation as VR
from gspa.privacy.peers import variation_scale as VS


def _enumerated(n, k, eps0, grid):
    """δ of the two data sets from the full histogram of all k symbols (bruteforce.histogram_law), both
    directions."""
    rows = lambda x: [BF.krr_row(eps0, k, x)] + [BF.krr_row(eps0, k, 0)] * (n - 1)
    P, Q = BF.histogram_law(rows(0)), BF.histogram_law(rows(1))
    return BF.hockey_both(P, Q, np.asarray(grid, dtype=float))


@pytest.mark.parametrize(
    "n,k,eps0", [(2, 3, 0.575), (3, 3, 1.0), (4, 4, 2.0), (5, 3, 0.3), (3, 5, 3.0)]
)
def test_count_law_is_the_enumerated_histogram(n, k, eps0):
    """The counts of x⁰ and x¹ carry everything (the other symbols are uniform and alike under both data
    sets), so the lower bound equals the enumerated divergence of the full histograms, to round-off."""
    grid = np.linspace(0.0, eps0, 12, endpoint=False)
    ours = VS.same_symbol_delta(n, k, eps0, grid)
    full = _enumerated(n, k, eps0, grid)
    assert np.all(ours <= full + 1e-15)
    assert np.allclose(ours, full, rtol=0.0, atol=1e-10)  # the deduction: about 2 PMF_REL (1 + e^ε)


def test_below_the_enumerated_protocol_and_the_two_user_counterexample():
    grid = np.linspace(0.0, 1.5, 10, endpoint=False)
    for n, k in ((2, 3), (3, 4), (4, 3)):
        truth, err = BF.shuffled_profile("k-rr", np.full(n, 1.5), grid, k=k)
        assert np.all(VS.same_symbol_delta(n, k, 1.5, grid) <= truth + err)
    truth, pair = EXP.exact_gap(2, 3, 0.575, 0.5)
    assert VS.same_symbol_delta(2, 3, 0.575, 0.5) == pytest.approx(truth, rel=1e-9)
    assert VS.same_symbol_delta(2, 3, 0.575, 0.5) <= truth


@pytest.mark.parametrize(
    "n,k,eps0,e", [(1000, 3, 5.0, 4.5), (1000, 10, 7.0, 6.125), (300, 4, 2.0, 0.9)]
)
def test_agrees_with_the_independent_40_digit_computation(n, k, eps0, e):
    lower_mp, pair_mp = VS.mp_gap(n, k, eps0, e)
    lower = VS.same_symbol_delta(n, k, eps0, e)
    pair = VR.VariationRatioPair(*VR.parameters("k-rr", eps0, k=k), n).delta(e)
    assert lower <= lower_mp * (1 + 1e-12) + 1e-30  # certified: never above the exact value
    assert lower == pytest.approx(lower_mp, rel=1e-8, abs=1e-25)
    assert pair == pytest.approx(pair_mp, rel=1e-9, abs=1e-25)


def test_violation_at_a_thousand_users():
    """n = 1000 users of 3-RR with ε₀ = 5: the explicit data sets' δ(4.5) is more than twice the pair's."""
    g = VS.gap(1000, 3, 5.0)
    assert g["excess"] > 1e-5 and g["lower"] > 2 * g["pair"]
    lower_mp, pair_mp = VS.mp_gap(1000, 3, 5.0, g["eps"])
    assert lower_mp > 2 * pair_mp
    # in ε: at δ = 1e-6 the protocol's ε is at least 4.79, the pair says 4.59
    assert VS.epsilon(1000, 3, 5.0, 1e-6) > 1.04 * VR.VariationRatioPair(
        *VR.parameters("k-rr", 5.0, k=3), 1000
    ).epsilon(1e-6)


def test_no_violation_where_shuffling_amplifies():
    """n = 10^4, 10-RR, ε₀ = 1: the data sets are far below the pair (the pair is the worse data set)."""
    g = VS.gap(10_000, 10, 1.0, points=8)
    assert g["excess"] < 0
    assert VS.epsilon(10_000, 10, 1.0, 1e-6) < VR.VariationRatioPair(
        *VR.parameters("k-rr", 1.0, k=10), 10_000
    ).epsilon(1e-6)


def test_window_and_scan():
    w = VS.window(10_000, 3, 2.0, tail=1e-20)
    assert 0 <= w["outside"] <= 1e-20
    rows = VS.scan([1000], [3, 4], [5.0], points=8)
    assert [(r["n"], r["k"], r["eps0"]) for r in rows] == [(1000, 3, 5.0), (1000, 4, 5.0)]
    assert rows[0]["excess"] == VS.gap(1000, 3, 5.0, points=8)["excess"]


def test_bad_input():
    for call in (
        lambda: VS.same_symbol_delta(1, 3, 1.0, 0.5),
        lambda: VS.same_symbol_delta(10, 2, 1.0, 0.5),
        lambda: VS.same_symbol_delta(10, 3, 0.0, 0.5),
        lambda: VS.same_symbol_delta(10, 3, 1.0, -0.1),
        lambda: VS.same_symbol_delta(10**7, 3, 1.0, 0.5),
        lambda: VS.window(10, 3, 1.0, tail=0.5),
        lambda: VS.scan([1000.5], [3], [1.0]),
        lambda: VS.mp_gap(10**6, 3, 1.0, 0.5),
        lambda: VS.epsilon(100, 3, 1.0, 0.0),
        lambda: VS.gap(100, 3, 1.0, points=0),
    ):
        with pytest.raises(ValueError):
            call()


def test_summary():
    (row,) = VS.summary([1000], [3], [3.0, 5.0], points=16)
    assert (
        row["tried"],
        row["violations"],
        row["first_eps0"],
        row["eps0"],
        row["eps0_at_delta"],
    ) == (2, 1, 5.0, 5.0, 5.0)
    assert row["lower"] > row["pair"] and row["eps_lower"] > row["eps_pair"] + 0.1
    (row,) = VS.summary([10_000], [10], [1.0], points=4)
    assert row["violations"] == 0 and row["first_eps0"] is None and row["eps_lower"] is None
