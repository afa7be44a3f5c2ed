"""The Theorem 1 and Theorem 2 chapters' computations (gspa.studies.gspa.theorem1, theorem2) and their claims
as declared in gspa.studies.gspa.claims: each function against an independent computation or a closed form."""

import inspect

import numpy as np
import pytest
from scipy import special

from gspa.privacy.basics import hypothesis as H
from gspa.privacy.shuffle import accountant as A
from gspa.studies.gspa import claims, margins
from gspa.studies.gspa import theorem1 as T1

ALPHA = np.linspace(0, 1, 501)


# -- Theorem 1 ---------------------------------------------------------------------------------------


def _count_laws_by_hand(x_others, eps_others, eps_j):
    """Laws of the number of reported 1s, D_0 (differing bit 0) and D_1 (bit 1), by convolving the users'
    Bernoulli reports one at a time (binary randomized response: keep the bit w.p. e^eps/(1 + e^eps))."""
    law = np.ones(1)
    for x, e in zip(x_others, eps_others):
        one = np.exp(e) / (1 + np.exp(e)) if x == 1 else 1 / (1 + np.exp(e))
        law = np.convolve(law, [1 - one, one])
    keep = np.exp(eps_j) / (1 + np.exp(eps_j))
    return np.convolve(law, [keep, 1 - keep]), np.convolve(law, [1 - keep, keep])


def test_own_pair_is_the_largest_budget_against_the_others_clones():
    eps = np.array([0.3, 2.0, 0.7, 1.1])
    j, own = T1.own_pair(eps)
    assert j == 1 and own.log_odds == 2.0
    # each other user is a clone with probability 2/(1 + e^eps_i) (Lemma 1's eq. (11), delta_i = 0)
    clones = 2 / (1 + np.exp(np.array([0.3, 0.7, 1.1])))
    assert own.clones.mean == pytest.approx(clones.sum(), rel=1e-12)
    assert np.allclose(
        own.clones.pmf,
        np.convolve(
            np.convolve([1 - clones[0], clones[0]], [1 - clones[1], clones[1]]),
            [1 - clones[2], clones[2]],
        ),
    )
    # the accountant's cover, valid for every differing user, promises no more privacy than this pair
    cover = A.personalized_pair(eps, None, "randomized")
    assert np.all(cover.tradeoff(ALPHA) <= own.tradeoff(ALPHA) + 1e-12)


def test_protocol_against_pair_rows_against_hand_computed_laws():
    eps = np.array([0.4, 1.5, 0.9])
    others = {"zeros": np.zeros(2, int), "mixed": np.array([1, 0])}
    res = T1.protocol_against_pair(eps, others, ALPHA)
    assert res["differing"] == 1 and [r["inputs of the others"] for r in res["rows"]] == list(
        others
    )
    _, own = T1.own_pair(eps)
    for row, x in zip(res["rows"], others.values()):
        P0, P1 = _count_laws_by_hand(x, [0.4, 0.9], 1.5)
        T = np.minimum(H.tradeoff_curve(P0, P1, ALPHA), H.tradeoff_curve(P1, P0, ALPHA))
        assert row["TV protocol"] == pytest.approx(0.5 * np.abs(P0 - P1).sum(), abs=1e-12)
        assert row["min_α (T_protocol − T_reduced)"] == pytest.approx(
            np.min(T - own.tradeoff(ALPHA)), abs=1e-12
        )
    # Theorem 1 holds for binary randomized response: the worst gap is round-off, and the smallest one
    assert (
        -1e-9 <= res["worst_gap"] <= min(r["min_α (T_protocol − T_reduced)"] for r in res["rows"])
    )


def test_others_inputs_are_the_four_data_sets_drawn_in_order():
    got = T1.others_inputs(6, np.random.default_rng(3))
    assert list(got) == ["others all 0", "others all 1", "others alternate", "others random"]
    assert got["others all 0"].tolist() == [0] * 5 and got["others all 1"].tolist() == [1] * 5
    assert got["others alternate"].tolist() == [0, 1, 0, 1, 0]
    assert got["others random"].tolist() == np.random.default_rng(3).integers(0, 2, 5).tolist()


def test_simulated_tests_match_the_exact_threshold_tests():
    eps = np.array([0.5, 1.0, 0.8, 1.2, 0.3])
    x = np.array([0, 1, 1, 0])
    reps = 40_000
    sim = T1.simulated_tests(eps, x, reps, np.random.default_rng(1), ALPHA)
    P0, P1 = _count_laws_by_hand(x, [0.5, 1.0, 0.8, 0.3], 1.2)
    thr = sim["thresholds"].astype(int)
    alpha_exact = np.array([P0[t:].sum() for t in thr])  # reject "bit 0" when the count is >= t
    beta_exact = np.array([P1[:t].sum() for t in thr])
    assert np.all(np.abs(sim["alpha_hat"] - alpha_exact) <= 5 * sim["se"] + 1e-12)
    assert np.all(np.abs(sim["beta_hat"] - beta_exact) <= 5 * sim["se"] + 1e-12)
    assert sim["excess_z"] < 5  # the simulated tests do not beat Theorem 1's pair
    _, own = T1.own_pair(eps)
    assert np.allclose(sim["slack_simulated"], sim["beta_hat"] - own.tradeoff(sim["alpha_hat"]))
    assert np.allclose(sim["slack_exact"], H.tradeoff_curve(P0, P1, ALPHA) - own.tradeoff(ALPHA))


def test_small_budgets_are_the_chapter_s_draws():
    rng = np.random.default_rng(6)
    first, slot = rng.uniform(0.01, 2.0, 4), rng.uniform(0.1, 1.5, 4)
    got = T1.small_budgets(4, 6)
    assert np.array_equal(got["random"], first) and np.array_equal(got["slot"], slot)
    assert got["one liberal"].tolist() == [2.0, 0.1, 0.1, 0.1]
    assert got["extreme"].tolist() == [0.0, 1e-9, 5.0, 50.0]
    assert T1.small_budgets(2, 6)["extreme"].tolist() == [0.0, 1e-9]


def test_enumeration_cases_certified_bounds_hold_and_the_binary_clone_probability_fails():
    grid = np.linspace(0, 4, 41)
    cases = T1.enumeration_cases(3, 6, grid)
    assert len(cases) == 3 * (2 * len(T1.ENUMERATED) + 1)
    wrong = [c for c in cases if c["pair"] == "binary clone probability (wrong)"]
    certified = [c for c in cases if c["pair"] != "binary clone probability (wrong)"]
    assert {c["pair"] for c in certified} == set(A.VARIANTS)
    assert max(c["deficit"] for c in certified) <= 1e-12
    assert max(c["deficit"] for c in wrong) > 0.01  # eq. (11) across budgets fails for 4-ary RR
    assert {c["randomizer"] for c in certified} == {
        "binary-rr",
        "k-rr k=3",
        "k-rr k=4",
        "quaternary",
    }


def test_shared_slot_the_printed_pair_misses_the_delta_event():
    grid = np.linspace(0, 4, 41)
    res = T1.shared_slot(3, 6, grid, delta=0.05)
    # the differing user's delta event is outcome A under one input and B under the other: delta(eps) >= delta
    assert np.all(res["truth"] >= 0.05 - 1e-12) and np.all(res["fixed"] >= 0.05 - 1e-12)
    assert res["shortfall"] >= 0.05 - np.min(res["printed"]) - 1e-9 > 0
    assert res["fixed_deficit"] <= 1e-12
    b = T1.small_budgets(3, 6)["slot"]
    spread = float(
        b.max() / b.min()
    )  # the same point, re-derived by the margin's independent check
    assert margins.thm1_delta_exact(3, b.max(), spread, 0.05, 0) > 0


def test_multibern_sum_gaps_closed_forms():
    eps = np.array([0.0, 1.0, 50.0])
    got = T1.multibern_sum_gaps(eps, delta=1e-5)
    assert got["copy 000"] <= 1e-15
    # copy 003: 2p + delta with p = (1 - delta)/(1 + e^eps) misses 1 by (1 - delta)(1 - 2/(1 + e^eps))
    assert got["copy 003"] == pytest.approx((1 - 1e-5) * np.tanh(25.0), rel=1e-12)
    assert T1.multibern_sum_gaps([0.0, 0.0], delta=0.3)["copy 003"] == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: T1.own_pair([1.0]), "eps"),
        (lambda: T1.others_inputs(1, np.random.default_rng(0)), "n"),
        (lambda: T1.others_inputs(5, 0), "rng"),
        (lambda: T1.protocol_against_pair([1.0, 2.0], {"a": [0, 2]}, ALPHA), "others"),
        (lambda: T1.protocol_against_pair([1.0, 2.0], {"a": [0]}, 1.5), "alpha"),
        (lambda: T1.simulated_tests([1.0, 2.0], [0], 0, np.random.default_rng(0), ALPHA), "reps"),
        (lambda: T1.small_budgets(7, 0), "n_small"),
        (lambda: T1.enumeration_cases(3, 0, [-1.0]), "eps_grid"),
        (lambda: T1.shared_slot(3, 0, None, delta=1.0), "delta"),
        (lambda: T1.multibern_sum_gaps([1.0, 1.0], delta=-0.1), "delta"),
    ],
)
def test_theorem1_functions_refuse_bad_arguments_by_name(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# -- the declared claims ------------------------------------------------------------------------------

SEARCHED = {
    "thm1-dominance": margins.thm1_binary_margin,
    "thm1-dominance-krr": margins.thm1_krr_margin,
    "thm1-dominance-delta": margins.thm1_delta_margin,
    "thm1-multibern": margins.multibern_sum_margin,
}


@pytest.mark.parametrize("id", sorted(SEARCHED))
def test_a_searched_claim_declares_the_domain_its_margin_takes(id):
    domain = claims.CLAIMS[id].domain
    assert [p.name for p in domain.params] == list(inspect.signature(SEARCHED[id]).parameters)
    point = {p.name: p.at(0.5) for p in domain.params}
    assert np.isfinite(SEARCHED[id](**point))


def test_theorem1_claims_are_declared_in_the_chapter_s_order():
    assert list(claims.THEOREM1) == [
        "thm1-dominance",
        "thm1-dominance-krr",
        "thm1-dominance-delta",
        "thm1-multibern",
    ]
    assert all(c.where.startswith("Theorem 1") for c in claims.THEOREM1.values())
