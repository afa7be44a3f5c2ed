import numpy as np
import pytest
from scipy import stats

from gspa.studies.gspa import clt
from gspa.privacy.shuffle import protocol as PR


def test_simulated_counts_follow_the_exact_law():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, 40)
    eps = rng.uniform(0.1, 2, 40)
    law = PR.count_law(x, eps)
    counts = PR.simulate_counts(x, eps, 50_000, rng)
    exp = np.zeros(41)
    exp[law.offset : law.offset + law.pmf.size] = law.pmf
    obs = np.bincount(counts, minlength=41)
    keep = exp * counts.size > 20
    chi2 = ((obs[keep] - counts.size * exp[keep]) ** 2 / (counts.size * exp[keep])).sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4
    with pytest.raises(ValueError, match="only 0 and 1"):
        PR.report_one_probability([0, 2], [1.0, 1.0])


def test_lattice_pmf_and_normal_rectangles():
    k = np.arange(0, 60)
    K0, K1 = np.meshgrid(k, k, indexing="ij")
    assert clt.lattice_pmf(0.4, 50, K0, K1).sum() == pytest.approx(1.0, abs=1e-12)
    mean, cov = clt.multibern_moments(0.4, 50)
    sd = np.sqrt(cov[0, 0])
    lo, hi = mean[0] - 10 * sd, mean[0] + 10 * sd
    whole = clt.normal_rectangles(mean, cov, lo, hi, lo, hi, nodes=64)
    assert float(whole) == pytest.approx(1.0, abs=1e-6)
    # independent check of one rectangle against scipy's bivariate normal cdf
    a = clt.normal_rectangles(mean, cov, 8.0, 11.0, 9.0, 12.0)
    F = stats.multivariate_normal(mean, cov).cdf
    ref = F([11, 12]) - F([8, 12]) - F([11, 9]) + F([8, 9])
    assert float(a) == pytest.approx(ref, abs=1e-6)


def test_lemma3_closed_forms():
    p = np.random.default_rng(1).uniform(0, 0.9, 100)
    assert clt.mahalanobis_lemma3(p) == pytest.approx(4 / p.sum(), rel=1e-12)
    a, b = np.sum(p / 2 * (1 - p / 2)), -np.sum(p * p / 4)
    assert np.allclose(np.linalg.inv([[a, b], [b, a]]), clt.sigma_inverse_printed(p), rtol=1e-10)


def test_tv_rate_is_half():
    tv = [clt.lemma2_distances(0.4, m)["tv"] for m in (100, 400, 1600)]
    slope = np.polyfit(np.log([100, 400, 1600]), np.log(tv), 1)[0]
    assert -0.6 < slope < -0.4


def test_loglog_slope_recovers_a_power_law():
    x = np.array([10.0, 100.0, 1000.0])
    assert clt.loglog_slope(x, 3.0 * x**-0.5) == pytest.approx(-0.5, abs=1e-12)
    with pytest.raises(ValueError):
        clt.loglog_slope([1.0], [1.0])
    with pytest.raises(ValueError):
        clt.loglog_slope([1.0, 2.0], [0.0, 1.0])


def test_lemma2_rates_is_the_chapter_s_table_and_slopes():
    r = clt.lemma2_rates(0.5, 0.0, [10, 100, 1000], [10, 100], few_clones=2.0)
    p = 2 / (1 + np.exp(0.5))
    assert r["p"] == pytest.approx(p)
    assert r["rows"][1] == {"m": 100, **clt.lemma2_distances(p, 100)}
    ms, tv = [10, 100, 1000], [row["tv"] for row in r["rows"]]
    assert r["slopes"]["tv"] == pytest.approx(clt.loglog_slope(ms, tv))
    assert -0.7 < r["slopes"]["tv"] < -0.3  # Lemma 2's 1/sqrt(m), read with the rounded normal


def test_kolmogorov_distance_is_the_supremum_over_the_plane():
    """Independent: the lattice law from the multinomial formula, the normal CDF from scipy, and the supremum
    over each cell [k, k+1)^2 as the worse of its lower corner and the limit at its upper corner."""
    # at (0.4, 30) the normal puts mass 7e-4 below -1, where the counts have none; at (0.9, 10) the supremum
    # is at the cells' upper corners
    for p, m in ((0.4, 30), (0.9, 10)):
        got = clt.lemma2_distances(p, m)["kolmogorov"]
        mean, cov = clt.multibern_moments(p, m)
        F = clt.trinomial_pmf(m, p / 2).cumsum(0).cumsum(1)
        c = np.arange(m + 2)
        C0, C1 = np.meshgrid(c, c, indexing="ij")
        normal = stats.multivariate_normal(mean, cov, abseps=1e-10, releps=1e-10)
        G = normal.cdf(np.stack([C0, C1], -1))
        ref = max(np.abs(F - G[:-1, :-1]).max(), np.abs(F - G[1:, 1:]).max())
        assert got == pytest.approx(ref, abs=1e-6)
        assert ref > 0.05  # a lattice jump of order 1/sqrt(m): the check is not of two zeros


def test_eq14_printed_is_three_quarters_of_the_peak_and_its_cells_carry_a_quarter():
    for p, m in ((0.4, 3000), (0.75, 10_000)):
        d = clt.lemma2_distances(p, m)
        assert d["printed"] / clt.eq14_printed_leading(p, m) == pytest.approx(1.0, abs=2e-3)
        assert d["printed_mass"] == pytest.approx(0.25, abs=1e-3)
    with pytest.raises(ValueError, match="p"):
        clt.eq14_printed_leading(1.0, 10)
