"""FLAME's margins over the stated domains (gspa.studies.flame.domains): each negative at a known
counterexample and non-negative at a known good point, and the independent re-verifications."""

import math

import numpy as np
import pytest

from gspa.studies.flame import domains as D


def test_ldp_margin_header_holds_printed_fails():
    assert D.alg1_ldp_margin(1.0, 5, "header") >= 0
    assert D.alg1_ldp_margin(1.0, 5, "balle") < 0
    assert D.alg1_ldp_margin(1.0, 5, "printed") == -math.inf


def test_eq1_margin_balle_unbiased_printed_biased():
    assert D.eq1_bias_margin(1.0, 10, 200, 0.3, "balle") >= 0
    assert D.eq1_bias_margin(1.0, 10, 200, 0.3, "printed") < 0


def test_lemma1_holds_and_is_vacuous_outside_its_condition():
    assert D.lemma1_margin(0.5, 100_000, 1e-6) > 0
    assert D.lemma1_margin(3.0, 100, 1e-6) == D.VACUOUS


def test_bennett_below_the_lower_bound_is_confirmed_by_the_exact_delta():
    assert D.bennett_valid_margin(1.0, 100_000, 1e-8) < 0  # FLAME's copy
    eps, true = D.bennett_true_delta(1.0, 100_000, 1e-8)
    assert true > 1e-8  # exact δ at its ε exceeds the target
    assert D.bennett_valid_margin(1.0, 100_000, 1e-8, version="bbgn19") >= 0


def test_theorem4_violation_confirmed_in_high_precision():
    assert D.theorem4_margin(50, 333, 0.5, 5e-6) < 0
    c = D.theorem4_confirm(50, 333, 0.5, 5e-6)
    assert c["ratio"] == pytest.approx(1 - D.theorem4_margin(50, 333, 0.5, 5e-6), rel=1e-6)
    assert c["ratio"] > 1


def test_topk_selection_depends_on_the_data():
    assert D.topk_double_margin(7850, 0.02) == -1.0
    assert D.topk_double_margin(10, 1.0) == 0.0  # k = d: one set only
    assert D.topk_double_confirm(7850, 0.02) == 0


def test_prop2_and_def3_hold():
    for beta in (1e-3, 0.02, 0.3, 1.0):
        assert D.prop2_margin(beta) >= 0
    p, se = D.index_posterior_simulated(785, 0.02, 4, 20_000, np.random.default_rng(0))
    assert se > 0 and abs(p - 0.25) < 5 * se  # a real estimate, not 1/l by construction
    assert p != 0.25


def test_overflow_abort_is_data_dependent_for_topk_only():
    r = D.overflow_abort_delta(8, D.overflow_dims(8, 3), 3)
    assert r["topk_abort"] == (1.0, 0.0) and r["topk_law"] == (1.0, 0.0) and r["topk_delta"] == 1.0
    assert (
        r["drop_delta"] == 0.0
    )  # dropping the excess: every dimension shows n_p values under both
    assert r["double_overflow"] == pytest.approx(0.4488525390625)  # enumeration of 4^8 placements
    assert D.overflow_margin(100, 1.0) == (5e-6, True)  # n_p = n: nothing can overflow
    assert D.overflow_margin(8, 2.5)[0] < 0
    # nothing overflows: refused, not a vacuous 'probability 0 and 0'
    with pytest.raises(ValueError, match="n_p"):
        D.overflow_abort_delta(8, D.overflow_dims(8, 8), 8)


def test_fig3_double_upper_is_above_the_certified_lower_bound():
    from gspa.studies.flame.analysis import fig3_exact

    up = D.fig3_double_upper([0.5], 785, 50, 0.02, 1e-6)
    low = fig3_exact([0.5], 785, 100, 50, 0.02, 1e-6)["double"]
    assert up[0] >= low[0]


def test_theorem_margins_hold_at_good_points():
    assert D.theorem2_margin(1.0, 1000, 0.5, 1e-6) >= 0
    assert D.theorem3_margin(1.0, 3000, 0.1, 1e-6) >= 0
    assert D.lemma4_margin(1000, 10, 1.0, 1e-6) >= 0
    assert D.theorem3_margin(1.0, 3000, 0.1, 0.5) == D.VACUOUS  # δ_cd ≥ 2β: outside the theorem


def _brute_whole(n, d, eps_ld, eps):
    """An independent enumeration (itertools, dicts) of SS-Simple as printed: the multiset of report vectors."""
    import itertools
    from collections import defaultdict

    q = math.exp(eps_ld) / (1 + math.exp(eps_ld))
    vecs = list(itertools.product((0, 1), repeat=d))

    def law(first):
        xs = [first] + [(0,) * d] * (n - 1)
        out = defaultdict(float)
        for ys in itertools.product(vecs, repeat=n):
            out[tuple(sorted(ys))] += math.prod(
                q if a == b else 1 - q for x, y in zip(xs, ys) for a, b in zip(x, y)
            )
        return out

    p, r = law((0,) * d), law((1,) * d)
    keys = set(p) | set(r)
    return max(
        sum(max(0.0, p.get(k, 0) - math.exp(eps) * r.get(k, 0)) for k in keys),
        sum(max(0.0, r.get(k, 0) - math.exp(eps) * p.get(k, 0)) for k in keys),
    )


@pytest.mark.parametrize("n,d,eps_ld,eps", [(2, 2, 1.0, 0.3), (3, 3, 1.0, 1.0), (4, 2, 2.0, 0.5)])
def test_one_permutation_of_whole_messages_is_enumerated_exactly(n, d, eps_ld, eps):
    r = D.whole_vector_delta(n, d, eps_ld, eps)
    assert r["whole"] == pytest.approx(_brute_whole(n, d, eps_ld, eps), abs=1e-12)
    assert r["whole"] >= r["independent"] - 1e-12  # linking the reports can only reveal more
    if d == 1:
        assert r["whole"] == pytest.approx(r["independent"])


def test_one_permutation_leaks_more_but_theorem1_holds_where_enumerated():
    r = D.whole_vector_delta(3, 3, 1.0, 1.0)
    assert r["whole"] == pytest.approx(0.2586, abs=1e-4) and r["independent"] == pytest.approx(
        0.1863, abs=1e-4
    )
    # the per-dimension guarantee is the worst case over the others' bits, so at least one data set's δ
    assert (
        D.one_dimension_delta(4, 1.0, 0.5) >= D.whole_vector_delta(4, 1, 1.0, 0.5)["whole"] - 1e-12
    )
    assert D.one_permutation_margin(3, 3, 1.0, 0.5) > 0  # small n: within eqs. (2)-(3)


@pytest.mark.parametrize(
    "n,d,eps_ld,eps", [(3, 3, 1.0, 1.0), (4, 2, 2.0, 0.5), (5, 3, 1.5, 0.3), (2, 1, 0.7, 0.0)]
)
def test_count_histogram_is_sufficient_for_the_whole_vector_pair(n, d, eps_ld, eps):
    """Three computations of the printed protocol's δ agree: every tuple of report vectors, every histogram of
    the reports' counts of 1s (likelihood-ratio formula), and the histogram's laws built user by user."""
    full = D.whole_vector_delta(n, d, eps_ld, eps)["whole"]
    assert D.whole_vector_delta_counts(n, d, eps_ld, eps) == pytest.approx(full, abs=1e-12)
    assert D.whole_vector_delta_sequential(n, d, eps_ld, eps) == pytest.approx(full, abs=1e-12)


def test_theorem1_fails_for_one_permutation_with_more_users():
    """A second reader's counterexample: eps_ld = 2, n = 14, d = 3, eps_cd = 0.57 (delta_cd 0.137): the printed
    protocol's delta at Theorem 1's eps_c = 1.71 is 0.5606 > (d + 1) delta_cd = 0.5479."""
    assert D.one_permutation_margin(14, 3, 2.0, 0.285) == pytest.approx(
        1 - 0.5606 / 0.5479, abs=2e-3
    )
    assert D.one_permutation_confirm(14, 3, 2.0, 0.285) is True
    assert D.one_permutation_confirm(3, 3, 1.0, 0.5) is False


def test_theorem_margins_move_and_agree_with_the_delta_form():
    """The margins of Theorems 2-3 are 1 − exact ε / stated ε: strictly inside (0, 1) where the theorem
    speaks (they move with the parameters), and ε ≤ ε_cd exactly when δ(ε_cd) ≤ δ_cd."""
    from gspa.studies.flame import analysis as F

    a, b = D.theorem2_margin(1.0, 1000, 0.5, 1e-6), D.theorem2_margin(1.0, 4000, 0.5, 1e-6)
    assert 0 < a < 1 and 0 < b < 1 and a != b
    m3 = D.theorem3_margin(1.0, 3000, 0.1, 1e-6)
    assert 0 < m3 < 1
    # the exact ε at δ against the δ profile: δ at that ε is within δ, δ just below it is not
    e = F.subsampled_rr_epsilon(500, 0.3, 1.0, 1e-6, 0.5)
    assert (
        F.subsampled_rr_delta(500, 0.3, 1.0, e, 0.5)
        <= 1e-6
        < F.subsampled_rr_delta(500, 0.3, 1.0, 0.999 * e, 0.5)
    )
    with pytest.raises(ValueError, match="data"):
        D.theorem2_margin(
            1.0, 1000, 0.5, 1e-6, data="any data set"
        )  # no margin claims the worst case


def test_cor1_is_judged_as_a_rate_not_a_constant():
    # the ratio falls (or stays) along n: a non-positive tail slope, whatever its size
    assert D.cor1_tail_slope(1.0, 1e-6, 10**6) <= 0.05
    assert D.cor1_margin(1.0, 1e-6, 0.1, 10**6) > 0
    assert D.cor1_ratio(8.0, 1000, 1e-6)[1] is False  # outside the condition
    with pytest.raises(ValueError, match="condition"):
        D.cor1_tail_slope(8.0, 1e-6, 10**4)


def test_theorem5_agrees_with_definition3():
    assert D.theorem5_def3_margin(3.0, 1 / 50) == 0.0  # the paper's ν = 3.125, l = 16
    assert D.theorem5_def3_margin(1000.0, 1 / 50) == D.VACUOUS  # l < 2: no finite ν by Definition 3
