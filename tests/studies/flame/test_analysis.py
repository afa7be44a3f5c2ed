"""FLAME's accounting as stated (gspa.studies.flame.analysis): the experiments' numbers by the authors'
method, index privacy, and Theorem 4 on an exactly enumerated instance."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from gspa.studies.flame import analysis as F

DC = F.delta_c_code(1000)


def test_delta_c_is_the_papers_5e6():
    assert DC == pytest.approx(5.0119e-6, rel=1e-4)


def test_experiment_numbers_by_the_authors_method():
    assert F.ss_simple_epoch(0.01, 7850, 1000, DC)["eps_c"] == pytest.approx(0.91, abs=0.005)
    double = F.ss_double_epoch(0.5, 7850, 1 / 50, 333, DC)
    assert double["k"] == 157 and double["dims"] == 314
    assert double["eps_c"] == pytest.approx(0.237926, rel=1e-4)  # the authors' README: 0.237926
    nosub = F.ss_double_epoch(0.5, 7850, 1 / 50, 333, DC, subsampling=False)
    assert nosub["eps_c"] == pytest.approx(20.5352544, rel=1e-6)  # the authors' README: 20.5352544


def test_composition_is_theorem1():
    e, d = F.compose_dims(0.01, 1e-9, 100)
    assert d == pytest.approx(101e-9)
    assert e == pytest.approx(
        min(1.0, 0.01 * math.sqrt(200 * math.log(1e9)) + 100 * 0.01 * math.expm1(0.01))
    )
    assert F.compose_dims(0.5, 1e-9, 4)[0] == pytest.approx(2.0)  # basic composition is smaller


def test_index_privacy():
    assert F.theorem5_nu(333, 1000, 1 / 50) == (3.125, 16)
    assert F.nu_of_l(16, 1 / 50) == pytest.approx(3.125)
    assert F.nu_of_l(50, 1 / 50) == 1.0
    assert math.isinf(F.nu_of_l(1, 1 / 50))
    post = F.index_posterior(500, 1 / 50, 5, 400, np.random.default_rng(0))
    assert post == pytest.approx(1 / 5, abs=1e-12)
    with pytest.raises(ValueError, match="n_p"):
        F.theorem5_nu(10, 1000, 1 / 50)


def _brute(d, n_p, eps_lk, eps):
    """The tiny instance's δ(ε) by enumerating every vector of counts (independent of the multiset sum)."""
    c = np.arange(n_p + 1)
    null, rest = stats.binom.pmf(c, n_p, 0.5), stats.binom.pmf(c, n_p - 1, 0.5)
    shifted = np.concatenate([[0.0], rest[:-1]])
    q = math.exp(eps_lk) / (1 + math.exp(eps_lk))
    own = {0: q * rest + (1 - q) * shifted, 1: (1 - q) * rest + q * shifted}
    total = 0.0
    for vec in itertools.product(range(n_p + 1), repeat=d):
        P = {}
        for x in (0, 1):
            P[x] = (
                sum(
                    np.prod([own[x][v] if i == j else null[v] for i, v in enumerate(vec)])
                    for j in range(d)
                )
                / d
            )
        total += max(P[0] - math.exp(eps) * P[1], 0.0)
    return total


@pytest.mark.parametrize("d, n_p, eps_lk", [(2, 3, 1.0), (3, 4, 2.0), (4, 2, 0.5), (5, 4, 1.0)])
def test_tiny_profile_against_enumeration(d, n_p, eps_lk):
    for e in (0.0, 0.1, 0.5):
        assert F.tiny_double_profile(d, n_p, eps_lk, e) == pytest.approx(
            _brute(d, n_p, eps_lk, e), abs=1e-14
        )


def test_theorem4_fails_on_a_tiny_instance_and_the_other_readings_hold():
    r = F.theorem4_on_tiny(16, 6, 1.0, 1e-3)
    assert r["paper"]["true_delta"] > 2 * r["paper"]["delta_c"]
    for name in ("all dims", "sampled dims"):
        assert r[name]["true_delta"] <= r[name]["delta_c"]


def test_theorem4_fails_with_the_papers_own_eq5():
    # a second reader's counterexample: eq. (5) inside Lemma 1's range (eps_ck <= 1), d = 1000, n_p = 454
    r = F.theorem4_on_tiny(1000, 454, 1.0, 1e-6, per_dim="eq5")
    assert r["paper"]["true_delta"] > 2 * r["paper"]["delta_c"]
    assert set(r) == {"paper"}  # the other readings' eps_ck exceed 1 at their smaller delta
    r = F.theorem4_on_tiny(1000, 2000, 1.0, 1e-6, per_dim="eq5")
    assert r["sampled dims"]["true_delta"] <= r["sampled dims"]["delta_c"]


def test_what_cannot_be_computed_is_refused():
    with pytest.raises(ValueError, match="beta"):
        F.ss_double_epoch(0.5, 10, 0.01, 333, DC)  # k = floor(beta d) = 0 dimensions
    with pytest.raises(ValueError, match="n_p must be larger"):
        F.theorem4_on_tiny(16, 6, 1.0, 1e-3, per_dim="eq5")


# -- Theorems 2 and 3: one subsampled dimension computed exactly ---------------------------------------


def _brute_subsampled(n, n_s, eps_l, eps, other_bit):
    """Subsample n_s of n users without replacement (user 0 differs, the others hold ``other_bit``), each
    sampled user sends binary RR; the analyzer sees the count of 1s. Enumerates subsets and reports."""
    q = math.exp(eps_l) / (1 + math.exp(eps_l))
    subsets = list(itertools.combinations(range(n), n_s))
    law = {}
    for x0 in (0, 1):
        bits = [x0] + [other_bit] * (n - 1)
        P = np.zeros(n_s + 1)
        for sub in subsets:
            for out in itertools.product((0, 1), repeat=n_s):
                pr = np.prod([q if o == bits[u] else 1 - q for u, o in zip(sub, out)])
                P[sum(out)] += pr / len(subsets)
        law[x0] = P
    e = math.exp(eps)
    return max(np.maximum(law[0] - e * law[1], 0).sum(), np.maximum(law[1] - e * law[0], 0).sum())


@pytest.mark.parametrize(
    "n, n_s, eps_l, other_bit", [(4, 2, 1.0, 0), (5, 3, 0.7, 1), (6, 4, 2.0, 0), (3, 3, 1.0, 1)]
)
def test_subsampled_delta_against_enumeration(n, n_s, eps_l, other_bit):
    q = math.exp(eps_l) / (1 + math.exp(eps_l))
    p_other = q if other_bit else 1 - q
    for e in (0.0, 0.1, 0.4):
        ours = F.subsampled_rr_delta(n_s, n_s / n, eps_l, e, p_other)
        assert ours == pytest.approx(_brute_subsampled(n, n_s, eps_l, e, other_bit), abs=1e-14)


def test_subsampled_delta_padded_case_is_the_tiny_profile_at_beta_one():
    grid = np.array([0.0, 0.2, 0.9])
    assert F.subsampled_rr_delta(7, 1.0, 1.3, grid, 0.5) == pytest.approx(
        F.tiny_dimension_profile(7, 1.3, grid), abs=1e-15
    )


def test_subsampling_lowers_delta_and_theorem2_formula():
    full = F.subsampled_rr_delta(50, 1.0, 1.0, 0.2, 0.5)
    assert F.subsampled_rr_delta(50, 0.1, 1.0, 0.2, 0.5) < full
    e1, ecd, ok = F.theorem2(1.0, 1000, 0.5, 1e-6)
    assert ok and ecd == pytest.approx(math.log1p(0.5 * math.expm1(e1)))
    assert e1 == pytest.approx(math.sqrt(14 * math.log(2 * 0.5 / 1e-6) * (math.e + 1) / 999))
    with pytest.raises(ValueError, match="delta_cd"):
        F.theorem2(1.0, 1000, 1e-7, 1e-6)


def test_padded_std_simulation_matches_exact_and_estimate_is_unbiased():
    x = np.random.default_rng(0).random(40)
    sim = F.padded_mean_std(40, 160, 5, 0.3, x, 20000, np.random.default_rng(1))
    assert sim == pytest.approx(F.padded_mean_std_exact(40, 160, 5, 0.3, x), rel=0.03)
    # unbiased: expected sum of reports plugged into the estimator gives the mean
    g, b = 0.3, 5
    ex = ((1 - g) * (1 + x * (b - 1)) + g * (b + 1) / 2).sum() + (160 - 40) * (b + 1) / 2
    assert F.padded_mean(ex, 40, 160, b, g) == pytest.approx(x.mean())
    assert F.loglog_slope([1, 2, 4], [3, 3 * 2**0.5, 6]) == pytest.approx(0.5)


def test_shuffle_eps_lemma1_is_the_closed_form():
    # FLAME Lemma 1 with b = 2: sqrt(14 log(2/delta)(e^eps + 1)/(n - 1)), written out here
    e, n, dl = 0.3, 5000, 1e-7
    assert F.shuffle_eps(e, n, dl, "lemma1") == pytest.approx(
        math.sqrt(14 * math.log(2 / dl) * (math.exp(e) + 1) / (n - 1))
    )


def test_fig3_ratios_by_hand():
    d, n, n_p, beta, dc, e = 5000, 20000, 6000, 0.02, 1e-6, 0.2
    r = F.fig3_ratios([e], d, n, n_p, beta, dc)
    # SS-Simple: Lemma 1 at delta_c/(d+1), then min(basic, advanced) over d dimensions
    dcd = dc / (d + 1)
    ecd = math.sqrt(14 * math.log(2 / dcd) * (math.exp(e) + 1) / (n - 1))
    ec = min(d * ecd, ecd * math.sqrt(2 * d * math.log(1 / dcd)) + d * ecd * math.expm1(ecd))
    assert r["simple"][0] == pytest.approx(d * e / ec, rel=1e-12)
    assert bool(r["simple_ok"][0]) == (ecd <= 1)
    # SS-Double: k = 100, 2k dimensions, eq. (5) at delta_cd/beta, eq. (6), then composition
    k = 100
    dcd = dc / (2 * k + 1)
    eck = math.sqrt(14 * math.log(2 * beta / dcd) * (math.exp(e) + 1) / (n_p - 1))
    ecd = math.log(1 + beta * math.expm1(eck))
    ec = min(
        2 * k * ecd, ecd * math.sqrt(4 * k * math.log(1 / dcd)) + 2 * k * ecd * math.expm1(ecd)
    )
    assert r["double"][0] == pytest.approx(k * e / ec, rel=1e-12)
    assert bool(r["double_ok"][0]) == (eck <= 1)


def test_fig3_exact_one_dimension_is_the_pair_itself():
    from gspa.privacy.peers.blanket import blanket_pair

    r = F.fig3_exact([0.5], 1, 200, 50, 1.0, 1e-6)
    assert r["simple"][0] == pytest.approx(
        0.5 / blanket_pair(0.5, 2, 200, "header").epsilon(1e-6), rel=1e-9
    )
    assert r["double"][0] == pytest.approx(
        0.5 / blanket_pair(0.5, 2, 50, "header").epsilon(1e-6), rel=1e-9
    )
    many = F.fig3_exact([0.5], 100, 200, 50, 0.1, 1e-6)
    assert (
        many["simple"][0] > r["simple"][0]
    )  # composing d dimensions amplifies the ratio (sqrt(d) growth)


def test_equal_bits_profile_is_the_larger_of_the_two_data_sets():
    q = math.exp(1.0) / (1 + math.exp(1.0))
    both = [F.subsampled_rr_delta(50, 0.3, 1.0, 0.1, p) for p in (q, 1 - q)]
    assert F.subsampled_rr_delta_equal_bits(50, 0.3, 1.0, 0.1) == max(both)


def test_best_blanket_size_minimises_the_exact_std():
    x = np.random.default_rng(0).random(20)
    s, b, g = F.best_blanket_size(20, 2000, 1.0, 1e-3, x)
    assert g < 1 and s == F.padded_mean_std_exact(20, 2000, b, g, x)
    for bb in (b - 1, b + 1):
        gg = 14 * bb * math.log(2 / 1e-3) / (1999 * 1.0)
        if bb >= 2 and gg < 1:
            assert F.padded_mean_std_exact(20, 2000, bb, gg, x) >= s
    with pytest.raises(ValueError, match="n_p"):
        F.best_blanket_size(20, 30, 1.0, 1e-3, x)


def test_theorem4_table_has_a_row_per_case_and_leaves_out_readings_outside_lemma1():
    t = F.theorem4_table([(8, 6, 1.0, 1e-3, "exact"), (1000, 454, 1.0, 1e-6, "eq5")])
    assert t["d"].tolist() == [8, 1000] and t["per dimension"].tolist() == ["exact", "eq5"]
    r = F.theorem4_on_tiny(8, 6, 1.0, 1e-3)
    assert t.loc[0, "paper: true δ(ε_c)/δ_c"] == r["paper"]["true_delta"] / r["paper"]["delta_c"]
    assert t["all dims: ε_c"].isna().tolist() == [False, True]


@pytest.mark.parametrize("n_p, eps_lk", [(6, 1.0), (50, 0.5), (333, 0.5)])
def test_blanket_pair_covers_a_padded_dimension(n_p, eps_lk):
    # fig3_exact stands the certified pair of n_p binary-RR reporters in for one padded dimension of
    # SS-Double (the dummies are uniform bits, i.e. blanket draws): its delta must never be below the padded
    # dimension's exact delta (the user's report among n_p - 1 dummies, tiny_dimension_profile)
    from gspa.privacy.peers.blanket import blanket_pair

    pair = blanket_pair(eps_lk, 2, n_p, "header")
    grid = np.linspace(0.0, eps_lk, 25)
    assert np.all(pair.delta(grid) >= F.tiny_dimension_profile(n_p, eps_lk, grid) - 1e-15)


def test_infinite_eps_is_the_limit_of_the_profile():
    # blanket dummies give P1 full support: delta(inf) = 0, reached through the decreasing profile
    prof = F.subsampled_rr_delta(20, 0.5, 1.0, np.array([0.0, 1.0, 50.0, np.inf]), 0.5)
    assert np.all(np.diff(prof) <= 0) and prof[-1] == 0.0
    # eps_lk = 700 (q = 1 in floats): P1 is the shifted law, 0 at count 0, where P0 = 2^-(n_p - 1)
    assert F.tiny_dimension_profile(5, 700.0, np.inf) == pytest.approx(0.5**4, rel=1e-14)
    # and an array of eps for the equal-bits data sets is the elementwise larger of the two
    grid = np.array([0.1, 0.2])
    assert np.array_equal(
        F.subsampled_rr_delta_equal_bits(50, 0.3, 1.0, grid),
        [F.subsampled_rr_delta_equal_bits(50, 0.3, 1.0, e) for e in grid],
    )
