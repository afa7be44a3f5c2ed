"""The computations of the FLAME accounting chapter (gspa.studies.flame.accounting): the experiments'
numbers against the authors' code and the book's paper build, Theorem 4's summary on a hand-made
table, the linkage bounds, the index posterior, Proposition 2 and the searches' margins."""

import math

import numpy as np
import pandas as pd
import pytest

from gspa.studies.flame import accounting as A
from gspa.studies.flame import analysis, domains
from gspa.studies.flame.claims import accounting as claims


def test_experiments_numbers_are_the_authors_and_the_papers():
    n = A.experiments_numbers()
    assert n["n_p"] == 333 and n["k"] == 157
    assert math.isclose(n["delta_c"], 0.01 / 1000**1.1, rel_tol=1e-12)
    flame, fixed = n["flame"], n["bbgn19"]
    # the paper's 0.91, 0.24 and 20.53 (Evaluations), as get_budget.py prints them
    assert abs(flame["simple"]["eps_c"] - 0.91) < 0.005
    assert abs(flame["double"]["eps_c"] - 0.237926) < 1e-5
    assert abs(flame["nosub"]["eps_c"] - 20.5352544) < 1e-4
    # the two readings of beta = 1/10 (the book's paper build) and BBGN19's corrected term (larger)
    assert math.isclose(flame["b10a"]["eps_c"], 0.6213495923329396, rel_tol=1e-12)
    assert math.isclose(flame["b10b"]["eps_c"], 3.728357327742808, rel_tol=1e-12)
    assert all(fixed[key]["eps_c"] > flame[key]["eps_c"] for key in flame)
    assert n["sampled"]["dims"] == 157 and math.isclose(n["sampled"]["eps_c"], 12.449286088987174)
    table = A.numbers_table(n)
    assert list(table["recomputed ε_c"]) == [flame[key]["eps_c"] for key, _, _ in A.NUMBERS_ROWS]
    assert list(table["corrected Bennett"]) == [fixed[key]["eps_c"] for key, _, _ in A.NUMBERS_ROWS]
    # the book's upper bound: SS-Simple's row only
    upper = list(table["upper bound"])
    assert upper[0] == n["upper"]["simple"]["eps_c"] and all(np.isnan(upper[1:]))


def test_ss_simple_upper_is_one_dimension_composed():
    """SS-Simple through the Laplace accountant: one dimension's eps at delta_c/(d + 1) is the cover's, above
    its certified lower bound (thresholded reports) and within 1 % of it at the experiments' eps_ld = 0.01
    and 1,000 users; the epoch's eps is the cover composed d times; one dimension is no composition, and more
    dimensions cost more; bad input is refused."""
    from gspa.privacy.shuffle.composition import compose
    from gspa.privacy.shuffle.lower import lower_bound
    from gspa.privacy.shuffle.pairs import LaplaceCover

    dc = 0.01 / 1000**1.1
    r = A.ss_simple_upper(0.01, 7850, 1000, dc)
    low = lower_bound(np.full(1000, 0.01), "laplace").epsilon(dc / 7851)
    assert low <= r["eps_cd"] <= 1.01 * low
    assert r["eps_c"] == compose(LaplaceCover(0.01, 999), 7850).epsilon(dc)
    assert r["eps_c"] < 0.91  # the paper's (0.91, 5e-6) lies above the bound
    one = A.ss_simple_upper(0.01, 1, 1000, dc)
    assert (
        one["eps_c"]
        == LaplaceCover(0.01, 999).epsilon(dc)
        < A.ss_simple_upper(0.01, 4, 1000, dc)["eps_c"]
    )


def test_theorem4_cases_and_summary():
    cases = A.theorem4_cases([8, 12], 6, [1.0], [1e-3, 1e-4], [[50, 333, 0.5, 5e-6, "exact"]])
    assert cases == [
        (8, 6, 1.0, 1e-3, "exact"),
        (8, 6, 1.0, 1e-4, "exact"),
        (12, 6, 1.0, 1e-3, "exact"),
        (12, 6, 1.0, 1e-4, "exact"),
        (50, 333, 0.5, 5e-6, "exact"),
    ]
    tiny = pd.DataFrame(
        {
            "d": [8, 12, 50, 1000],
            "n_p": [6, 6, 333, 454],
            "per dimension": ["exact", "exact", "exact", "eq5"],
            A.PAPER_RATIO: [0.5, 2.0, 110.0, 7.9],
            "all dims: true δ(ε_c)/δ_c": [1e-10, 2e-10, 3e-10, 0.0],
            "sampled dims: true δ(ε_c)/δ_c": [1e-6, 2e-6, 0.0, 0.0],
        }
    )
    s = A.theorem4_summary(tiny, 6)
    assert s["worst"] == {"paper": 110.0, "all dims": 3e-10, "sampled dims": 2e-6}
    assert (s["fails"], s["cases"], s["eq5_worst"], s["flame_like_worst"]) == (3, 4, 7.9, 110.0)
    assert (s["exact_cases"], s["exact_fails"], s["exact_worst"]) == (3, 2, 110.0)
    s = A.theorem4_summary(tiny.iloc[:2], 6)  # no eq. (5) and no larger instance: 0 by convention
    assert s["eq5_worst"] == 0.0 and s["flame_like_worst"] == 0.0


def test_theorem4_failures_are_the_failing_instances_as_searched_points():
    tiny = pd.DataFrame(
        {
            "d": [8, 12, 1000],
            "n_p": [6, 6, 454],
            "ε_lk": [1.0, 3.0, 1.0],
            "δ_c": [1e-2, 1e-2, 1e-6],
            A.PAPER_RATIO: [0.9, 1.7, 2.7],
        }
    )
    assert A.theorem4_failures(tiny) == [
        {"d": 12, "n_p": 6, "eps_lk": 3.0, "delta_c": 1e-2},
        {"d": 1000, "n_p": 454, "eps_lk": 1.0, "delta_c": 1e-6},
    ]
    assert A.theorem4_failures(tiny.iloc[:1]) == []


def test_theorem4_summary_on_the_real_table_finds_the_violation():
    tiny = analysis.theorem4_table(A.theorem4_cases([8, 16], 6, [1.0], [1e-3]))
    s = A.theorem4_summary(tiny, 6)
    assert s["fails"] >= 1 and s["worst"]["paper"] > 1  # Theorem 4 is false (flame-thm4)
    assert s["worst"]["sampled dims"] <= 1 and s["worst"]["all dims"] <= 1


def test_topk_overlap_and_the_searched_margins():
    same, overlap = A.random_topk_overlap(7850, 157, np.random.default_rng(0))
    assert same is False and 0 <= overlap < 157
    same, overlap = A.random_topk_overlap(5, 5, np.random.default_rng(0))
    assert same is True and overlap == 5  # k = d: every index is Top-k
    # beta below 1/d is lifted to k = 1
    assert A.topk_double_lifted_margin(2, 1e-4) == domains.topk_double_margin(2, 0.5)
    assert A.topk_double_worst(2, 1e-4) == (0, 1)
    margin, agree = A.overflow_search_margin()
    assert margin(4, 4.0) == pytest.approx(5e-6 - 1.0) and agree == [True]
    assert margin(10, 1.0) == 5e-6 and agree == [True, True]  # n_p = n: no overflow


def test_linkage_bounds_and_the_repair_claims():
    n = A.experiments_numbers()
    lk = A.linkage_bounds(n["delta_c"], n["n_p"], n["k"])
    # the book's paper build (certified lower bounds, each re-verified in 50 digits), up to the grid eps(delta)
    # returns (a relative step of 2^-27)
    assert lk["v"] == 15650
    assert math.isclose(lk["SS-Double"]["low"], 0.009548531021763776, rel_tol=2.0**-26)
    assert math.isclose(lk["SS-Topk"]["eps"], 2.2945993691682816, rel_tol=2.0**-26)
    assert math.isclose(lk["lap_eps"], 5.317638080758005, rel_tol=2.0**-26)
    decl = claims.CLAIMS["flame-topk-repair"]
    c = A.repair_claim(lk, "SS-Topk", n["delta_c"], decl.note)
    assert c["ours"][A.REPAIR_READINGS[0]] == pytest.approx(854.4816378474299)
    assert c["ours"][A.REPAIR_READINGS[1]] == 1.0
    assert decl.rule.judge(c["ours"], decl.paper).status == "conditional"
    assert c["note"].startswith(decl.note) and "at least 5.32" in c["note"]
    assert "threshold t = 46" in c["ours_text"]


def test_index_posterior_table_and_proposition2():
    rng = np.random.default_rng(0)
    sim = A.index_posterior_table(0.02, [1, 16], 20000, rng)
    assert list(sim["l"]) == [1, 16] and list(sim["1/l"]) == [1.0, 1 / 16]
    assert sim.loc[0, "posterior (simulated)"] == 1.0  # l = 1: every reported index is Top-k
    assert abs(sim.loc[1, "(simulated − 1/l) / s.e."]) < 4
    assert np.isinf(sim.loc[0, "ν(l) by Definition 3"])
    # one generator for all l, in order: the same draws as the simulations one by one
    rng, again = np.random.default_rng(1), np.random.default_rng(1)
    sim = A.index_posterior_table(0.02, [4, 8], 5000, rng)
    first = domains.index_posterior_simulated(785, 0.02, 4, 5000, again)
    second = domains.index_posterior_simulated(785, 0.02, 8, 5000, again)
    assert list(sim["posterior (simulated)"]) == [first[0], second[0]]
    assert A.prop2_holds(0.02) and A.prop2_holds(0.3)


def test_topk_dimension_against_the_separate_shuffle_and_theorem3():
    """One SS-Topk dimension: its δ is linkage's separate-shuffle δ with k = 1 (another implementation), the
    40-digit value agrees, ε_cd is Theorem 3's eq. (6) of the certified ε_ck, and at the paper's settings δ(ε_cd)
    exceeds δ_cd (the conclusion fails) while δ(ε_ck) stays below δ_cd/β."""
    from gspa.studies.flame import linkage

    for n_p, eps_lk, eps in ((50, 0.5, 0.01), (200, 2.0, 0.3), (2, 1.0, 0.0)):
        q = linkage.bit_probability("rr", eps_lk)
        want = linkage.separate_delta_exact(1, q, eps, n_p)
        got = A.topk_dimension(eps_lk, n_p, 0.1, 1e-6, eps_cd=eps)
        assert got["delta"] == pytest.approx(want, rel=1e-10, abs=1e-300)
        assert got["delta_mp"] == pytest.approx(want, rel=1e-10, abs=1e-300)
    r = A.topk_dimension(0.5, 333, 1 / 50, 1.6e-8)
    assert r["eps_cd"] == pytest.approx(analysis.theorem3(r["eps_ck"], 1 / 50), rel=1e-12)
    assert r["ratio"] > 1e5 and r["delta"] == pytest.approx(1.6e-8 * r["ratio"], rel=1e-12)
    assert 1.6e-8 < r["delta_at_ck"] <= 1.6e-8 / (1 / 50)  # the certified ε_ck holds at δ_cd/β
    with pytest.raises(ValueError, match="n_p"):
        A.topk_dimension(0.5, 1, 0.1, 1e-6)
