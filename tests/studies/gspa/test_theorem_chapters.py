"""The Theorem 1 and Theorem 2 chapters' computations (gspa.studies.gspa.theorem1, theorem2) and their claims
as declared in gspa.studies.gspa.claims (theorem1, theorem2): each function against an independent computation or a closed form."""

import inspect

import numpy as np
import pytest

from gspa.privacy.basics import fdp
from gspa.privacy.basics import hypothesis as H
from gspa.privacy.shuffle import accountant as A
from gspa.studies.gspa import domain_search, margins
from gspa.studies.gspa.claims import all_claims
from gspa.studies.gspa.claims import theorem2 as claims
from gspa.studies.gspa import theorem1 as T1
from gspa.studies.gspa import theorem2 as T2
from gspa.studies.gspa.scenarios import budgets

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
    cover = A.personalized_pair(eps, None, "randomized", reduction="clones")
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


def _proc_by_enumeration(eps_others, x_others, eps_j):
    """proc(rho_b) by listing every outcome: each other user a 0-clone, a 1-clone or kept (its own bit), the
    differing user's report; rho_b = (u, v, k) tallied; proc's K drawn from the kept sets of size k, weighted
    by their probabilities."""
    import itertools

    q = 1 / (1 + np.exp(np.asarray(eps_others)))
    qn = 1 / (1 + np.exp(eps_j))
    m = len(q)
    kept_sets = {}  # k -> {set of kept users: probability}
    rho = [{}, {}]
    for roles in itertools.product((0, 1, 2), repeat=m):  # 0/1: a clone reporting it, 2: kept
        p = np.prod([q[i] if r < 2 else 1 - 2 * q[i] for i, r in enumerate(roles)])
        K = frozenset(i for i, r in enumerate(roles) if r == 2)
        kept_sets.setdefault(len(K), {}).setdefault(K, 0.0)
        kept_sets[len(K)][K] += p
        for b, own_one in ((0, qn), (1, 1 - qn)):
            for own, w in ((0, 1 - own_one), (1, own_one)):
                u = roles.count(0) + (own == 0)
                key = (u, roles.count(1) + (own == 1), len(K))
                rho[b][key] = rho[b].get(key, 0.0) + p * w
    laws = []
    for b in (0, 1):
        law = np.zeros(m + 2)
        for (u, v, k), p in rho[b].items():
            total = sum(kept_sets[k].values())
            for K, pk in kept_sets[k].items():
                law[v + sum(x_others[i] for i in K)] += p * pk / total
        laws.append(law)
    return laws


def test_proc_of_pair_against_enumeration_and_the_protocol():
    """Theorem 1's post-processing of (rho_0, rho_1) for binary randomized response: its laws equal those of
    every outcome listed (3^(n-1) roles) and the protocol's own count laws (the proof's identity)."""
    rng = np.random.default_rng(3)
    for m in (1, 3, 5):
        eps_o, x, eps_j = rng.uniform(0, 3, m), rng.integers(0, 2, m), float(rng.uniform(0, 3))
        got = T1.proc_of_pair(eps_o, x, eps_j)
        for a, b in zip(got, _proc_by_enumeration(eps_o, x, eps_j)):
            assert np.max(np.abs(a - b)) < 1e-14
        for a, b in zip(got, _count_laws_by_hand(x, eps_o, eps_j)):
            assert np.max(np.abs(a - b)) < 1e-14
    eps = budgets("Unif 2", 60, np.random.default_rng(1))
    res = T1.proof_postprocessing(eps, T1.others_inputs(60, np.random.default_rng(2)))
    assert len(res["rows"]) == 4 and res["worst"] < 1e-14 and res["decomposition"] < 1e-14


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


def test_own_pair_needs_two_users():
    with pytest.raises(ValueError, match="eps"):
        T1.own_pair([1.0])


# -- the declared claims ------------------------------------------------------------------------------

SEARCHED = {
    "thm1-dominance": margins.thm1_binary_margin,
    "thm1-dominance-krr": margins.thm1_krr_margin,
    "thm1-dominance-delta": margins.thm1_delta_margin,
    "thm1-multibern": margins.multibern_sum_margin,
}


@pytest.mark.parametrize("id", sorted(SEARCHED))
def test_a_searched_claim_declares_the_domain_its_margin_takes(id):
    domain = all_claims()[id].domain
    assert [p.name for p in domain.params] == list(inspect.signature(SEARCHED[id]).parameters)
    point = {p.name: p.at(0.5) for p in domain.params}
    assert np.isfinite(SEARCHED[id](**point))


# -- Theorem 2 ---------------------------------------------------------------------------------------


def test_alpha_grid_is_the_linear_and_log_grids_merged():
    a = T2.alpha_grid(3)
    expected = sorted(set([0.0, 0.5, 1.0]) | set(np.logspace(-10, 0, 500).tolist()))
    assert a.tolist() == expected  # sorted, 1.0 once
    assert a[0] == 0.0 and a[1] == 1e-10 and a[-1] == 1.0


def test_scenario_grid_draws_each_budget_vector_afresh_and_keeps_the_revealing_curve():
    alpha, eps_grid = np.linspace(0, 1, 201), np.linspace(0, 1.5, 7)
    got = T2.scenario_grid(["Unif 1", "Constant"], [30, 60], 4, alpha, eps_grid)
    assert [(r["scenario"], r["n"]) for r in got["rows"]] == [
        ("Unif 1", 30),
        ("Unif 1", 60),
        ("Constant", 30),
        ("Constant", 60),
    ]
    e = budgets("Unif 1", 60, np.random.default_rng(4), repeat=60)
    row, _ = T2.against_exact(e, alpha, eps_grid)
    assert got["rows"][1] == {"scenario": "Unif 1"} | row
    c = got["curves"][("Unif 1", 60)]
    T_rev = A.personalized_pair(e, None, "revealing", reduction="clones").tradeoff(alpha)
    assert np.allclose(c["excess"], fdp.gdp_tradeoff(alpha, c["mu"]) - T_rev, atol=1e-12)
    assert c["mu"] == T2.mu_theorem2(e) and c["delta_gdp"].shape == eps_grid.shape


def _row(scenario, rev, tv, C, C0, ratio=1.0):
    return {
        "scenario": scenario,
        "max (G_mu − T), revealing": rev,
        "max (G_mu − T), randomized": rev / 2,
        "max (G_mu − T), real RR": rev / 4,
        "C = c·sqrt(n−1)": C,
        "TV (proof's pair)": tv,
        "C with μ = 0": C0,
        "max δ_exact/δ_GDP": ratio,
    }


def test_grid_summary_reads_maxima_ratios_and_growth_per_scenario():
    rows = [
        _row("a", 0.02, 0.5, 1.0, 2.0, ratio=1.5),
        _row("a", 0.01, 0.05, 3.0, 3.0),
        _row("b", 0.0, 0.4, 0.0, 1.0),
        _row("b", 0.03, 0.6, 5.0, 5.0, ratio=0.9),
    ]
    s = T2.grid_summary(rows)
    assert s["worst_excess"] == 0.03 and s["worst_ratio"] == 1.5
    assert s["excess"] == {
        "the proof's pair ρ′ (revealing)": 0.03,
        "Theorem 1's pair (randomized)": 0.015,
        "real shuffled binary RR": 0.0075,
    }
    assert s["rel_excess"] == pytest.approx(0.2)  # 0.01 / 0.05
    assert s["C_max"] == 5.0 and s["C0_max"] == 5.0
    # scenario b's C starts at 0 and becomes positive: it grew without bound (it counted as 0 before, which
    # would have called a C that appears as n grows bounded)
    assert s["C_growth"] == float("inf")
    assert s["C0_growth"] == 5.0  # scenario b: 5/1
    assert T2.grid_summary(rows[:2])["C_growth"] == 3.0  # scenario a: 3/1


def _histogram_law_by_hand(rows):
    """The law of the count vector of independent users with 3 outcomes each, as a dict."""
    law = {(0, 0, 0): 1.0}
    for r in rows:
        nxt = {}
        for k, pr in law.items():
            for o in range(3):
                key = tuple(k[i] + (i == o) for i in range(3))
                nxt[key] = nxt.get(key, 0.0) + pr * r[o]
        law = nxt
    return law


def test_eq17_gaps_against_laws_enumerated_by_hand():
    n, dn, e_o, e_n = 3, 0.1, 0.7, 2.0
    a = np.linspace(0, 1, 401)
    p, q = 1 / (1 + np.exp(e_o)), np.exp(e_n) / (1 + np.exp(e_n))
    base = [[p, p, 1 - 2 * p]] * (n - 1)
    last = {
        "P": [(1 - dn) * q, (1 - dn) * (1 - q), dn],
        "Q": [(1 - dn) * (1 - q), (1 - dn) * q, dn],
        "Pp": [1.0, 0.0, 0.0],
        "Qp": [0.0, 1.0, 0.0],
    }
    laws = {k: _histogram_law_by_hand(base + [v]) for k, v in last.items()}
    keys = sorted(set().union(*laws.values()))
    P, Q, Pp, Qp = (np.array([laws[k].get(x, 0.0) for x in keys]) for k in ("P", "Q", "Pp", "Qp"))
    T = np.minimum(H.tradeoff_curve(P, Q, a), H.tradeoff_curve(Q, P, a))
    Tp = np.maximum(H.tradeoff_curve(Pp, Qp, a), H.tradeoff_curve(Qp, Pp, a))
    gap = dn * (1 - a) + (1 - dn) * Tp - T
    got = T2.eq17_gaps([(n, dn, e_o, e_n)], a)
    assert got["mix_hi"] == pytest.approx(gap.max(), abs=1e-12)
    assert got["mix_lo"] == pytest.approx(gap.min(), abs=1e-12)


def test_eq17_is_false_both_ways_on_the_chapter_s_pairs_and_the_revealing_formula_holds():
    got = T2.eq17_gaps()
    assert got["mix_lo"] < -0.01 and got["mix_hi"] > 0.01
    assert got["rev_gap"] < 1e-12


def test_delta_event_margin_is_minus_the_conditional_tv():
    for eps_n, delta_n in [(0.5, 0.1), (8.0, 1e-9), (1e-3, 0.5)]:
        assert domain_search.delta_event_margin(eps_n, delta_n) == -domain_search.delta_event_tv(
            eps_n, delta_n
        )
        assert domain_search.delta_event_margin(eps_n, delta_n) == 0.0  # Δ = (0, 0, 1) under both


def test_theorem2_claims_declare_the_searched_domains():
    stated, region = claims.THEOREM2_DOMAIN, claims.THEOREM2_REGION
    assert (
        [p.name for p in region.params]
        == [p.name for p in stated.params]
        == ["n", "f", "eps_lo", "eps_hi"]
    )
    assert region.params[0].high == 2000 and stated.params[0].high == 10**6
    assert region.params[1:] == stated.params[1:]
    for margin in (domain_search.thm2_approx_margin, domain_search.gdp_bound_margin):
        point = {p.name: p.at(0.3) for p in region.params}
        assert np.isfinite(margin(**point))
    assert claims.THEOREM2_DERIVED["max εᵢ"](n=10, f=0.5, eps_lo=0.2, eps_hi=3.0) == 3.0
    eq16 = claims.CLAIMS["eq17-delta-event"].domain
    assert [p.name for p in eq16.params] == list(
        inspect.signature(domain_search.delta_event_margin).parameters
    )


def test_each_users_chance_of_landing_in_k_is_its_own_with_personalized_budgets():
    from gspa.studies.gspa import theorem1

    same = theorem1.k_chances([0.5, 0.5, 0.5])
    assert np.allclose(same, same[0]) and same[0] == pytest.approx(
        np.tanh(0.25)
    )  # 1 - 2/(1 + e^0.5)
    mixed = theorem1.k_chances([0.1, 1.0, 2.0])
    assert np.all(np.diff(mixed) > 0)  # a larger budget keeps its own bit more often


@pytest.mark.parametrize(
    "cid, faster, slower", [("lemma2-rate", -1.0, -0.3), ("nearly-1-over-n", -1.5, -0.5)]
)
def test_lemma2_s_rates_are_upper_bounds_so_a_faster_decay_holds(cid, faster, slower):
    """Lemma 2's C/√m and the text's "nearly O(1/n)" bound the rate from above: a fitted slope below the
    stated one meets them, a slope above it does not (the rule is one-sided)."""
    decl = all_claims()[cid if cid.startswith("lemma2") else f"lemma2-{cid}"]
    assert decl.rule.judge({"a": faster}, decl.paper).status == "reproduced"
    assert decl.rule.judge({"a": slower}, decl.paper).status == "not reproduced"
