"""The Lemma 1 chapter's computations (gspa.studies.gspa.clone_weights), each against a closed form the
chapter's text derives."""

import math

import numpy as np
import pytest

from gspa.studies.gspa import clone_weights as CW


def test_eqs_9_10_copy_000_is_right_and_copy_003_misses_by_tanh():
    for eps in (0.3, 1.0, 4.0):
        gap = CW.eq9_10_gaps(eps)
        assert gap["copy 000"] < 1e-15
        assert gap["copy 003"] == pytest.approx(math.tanh(eps / 2), rel=1e-12)


def test_lemma4s_randomizer_exceeds_what_the_shared_delta_allows_by_delta():
    for eps, delta in ((1.0, 0.05), (0.2, 0.3)):
        tv = CW.delta_shared_tv(eps, delta)
        assert tv["allowed"] == pytest.approx((1 - delta) * math.tanh(eps / 2), rel=1e-12)
        assert tv["tv"] - tv["allowed"] == pytest.approx(delta, rel=1e-9)


def test_common_budget_randomizers_reach_the_papers_p_for_inputs_0_and_1():
    tab = CW.common_budget_table([0.5, 2.0], [2, 3], laplace_width=12.0, laplace_bins=120)
    assert list(tab["randomizer"]) == ["2-ary RR", "3-ary RR", "Laplace (binned)"] * 2
    assert np.allclose(tab["paper 1/(1+e^ε)"], 1 / (1 + np.exp(tab["ε"])), rtol=1e-15)
    assert np.allclose(tab["FMT21 e^−ε/2"], np.exp(-tab["ε"]) / 2, rtol=1e-15)
    assert np.allclose(tab["ratio to paper"], tab["largest p"] * (1 + np.exp(tab["ε"])), rtol=1e-12)
    binary = tab[tab["randomizer"] == "2-ary RR"]
    assert np.allclose(binary["ratio to paper"], 1.0, atol=1e-7)
    assert (tab["ratio to paper"] >= 1 - 1e-6).all()


def test_laplace_pairs_closer_than_1_lose_clone_weight():
    lap = CW.laplace_pair_table([1.0], gaps=[1.0, 0.5, 0.1])
    ratio = dict(zip(lap["|x¹ − x⁰|"], lap["ratio"]))
    assert ratio[1.0] == pytest.approx(1.0, rel=1e-12)
    for d in (0.5, 0.1):  # e^{-ε(1-d)}/(1+e^{εd}) over 1/(1+e^ε)
        assert ratio[d] == pytest.approx(math.exp(-(1 - d)) * (1 + math.e) / (1 + math.exp(d)))
    # the pair (0, d) against the input 1, solved on a grid of outputs, over the paper's weight
    assert np.allclose(lap["grid re-check"], lap["ratio"], rtol=1e-3)


def test_random_randomizers_break_the_papers_p_but_not_fmt21s():
    r = CW.random_ldp_ratios(np.random.default_rng(11), n_random=40, n_inputs=4, n_outputs=5)
    assert r["paper"].shape == r["fmt21"].shape == (40,)
    assert r["fmt21"].min() >= 1 - 1e-9
    assert r["paper"].min() < 1 - 1e-3
    again = CW.random_ldp_ratios(np.random.default_rng(11), n_random=40, n_inputs=4, n_outputs=5)
    assert np.array_equal(r["paper"], again["paper"])


def test_personalized_weights_match_the_closed_forms():
    eps_n, eps_i = 0.5, [0.1, 0.5, 2.0]
    pers = CW.personalized_table(eps_n=eps_n, eps_i_values=eps_i, ks=(2, 3))
    tab = pers["table"]
    assert np.allclose(tab["2-RR weight"], tab["paper pᵢ"], rtol=1e-9)  # binary: the paper's pᵢ
    z = lambda e, k: math.exp(e) + k - 1
    for e, w in zip(eps_i, tab["3-RR weight"]):
        expected = z(eps_n, 3) / (z(e, 3) * (1 + math.exp(eps_n)))
        assert w == pytest.approx(expected, rel=1e-7)
    laplace = dict(zip(eps_i, tab["Laplace weight"]))
    assert laplace[2.0] == 0.0  # a more liberal user: lighter tails
    assert laplace[0.1] == pytest.approx(0.2 * math.exp(0.4) / (1 + math.exp(0.5)), rel=1e-9)
    assert set(pers["ratios"]) == {"2-RR weight", "3-RR weight", "Laplace weight"}
    assert pers["ratios"]["2-RR weight"] == pytest.approx(1.0, abs=1e-9)
    assert pers["ratios"]["3-RR weight"] < 0.99 and pers["ratios"]["Laplace weight"] == 0.0
