"""Distribution learning in the local, shuffle and central models (gspa.studies.fmt21.learning)."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gspa.studies.fmt21 import learning as L


def _exact_count_pmf(true_counts, eps_l):
    """Exact law of the k-RR report counts given the true counts, by enumerating every report tuple."""
    k = len(true_counts)
    x = np.repeat(np.arange(k), true_counts)
    e = np.exp(eps_l)
    row = lambda s: np.where(np.arange(k) == s, e, 1.0) / (e + k - 1)
    pmf = {}
    for ys in itertools.product(range(k), repeat=x.size):
        pr = np.prod([row(s)[y] for s, y in zip(x, ys)])
        key = tuple(np.bincount(ys, minlength=k))
        pmf[key] = pmf.get(key, 0.0) + pr
    return pmf


def _gof_pvalue(samples, pmf):
    keys = list(pmf)
    idx = {key: i for i, key in enumerate(keys)}
    obs = np.bincount([idx[tuple(r)] for r in samples], minlength=len(keys))
    exp = np.array([pmf[key] for key in keys]) * len(samples)
    return stats.chisquare(obs, exp).pvalue


@pytest.mark.parametrize("true_counts,eps_l", [([2, 1, 1], 1.0), ([3, 0, 1, 1], 0.3)])
def test_count_sampler_and_per_user_match_exact_law(true_counts, eps_l):
    pmf = _exact_count_pmf(true_counts, eps_l)
    assert sum(pmf.values()) == pytest.approx(1.0)
    reps, k = 20000, len(true_counts)
    fast = L.krr_counts(np.tile(true_counts, (reps, 1)), eps_l, seed=1)
    x = np.tile(np.repeat(np.arange(k), true_counts), (reps, 1))
    slow = np.stack([np.bincount(r, minlength=k) for r in L.krr_per_user(x, eps_l, k, seed=2)])
    assert _gof_pvalue(fast, pmf) > 1e-3
    assert _gof_pvalue(slow, pmf) > 1e-3
    wrong = L.krr_counts(np.tile(true_counts, (reps, 1)), eps_l + 0.5, seed=1)  # the test can fail
    assert _gof_pvalue(wrong, pmf) < 1e-6


def test_count_sampler_keeps_n():
    c = np.array([[5, 0, 7], [0, 0, 12]])
    assert (L.krr_counts(c, 2.0, seed=3).sum(-1) == 12).all()


def test_estimator_is_unbiased_exactly_and_by_simulation():
    p = np.array([0.5, 0.3, 0.15, 0.05])
    for e in (0.2, 1.0, 5.0):
        assert L.unbiased_estimate(1000 * L.krr_law(p, e), e) == pytest.approx(p, abs=1e-12)
    e, n, reps = 1.0, 200, 40000
    rng = np.random.default_rng(4)
    est = L.unbiased_estimate(L.krr_counts(rng.multinomial(n, p, size=reps), e, rng), e)
    se = est.std(0) / np.sqrt(reps)
    assert np.all(np.abs(est.mean(0) - p) < 4 * se)


def test_projection_is_the_euclidean_projection():
    rng = np.random.default_rng(5)
    v = rng.normal(0, 1, size=(200, 7))
    x = L.project_simplex(v)
    assert np.allclose(x.sum(-1), 1.0) and (x >= 0).all()
    theta = (v - x)[np.arange(200), np.argmax(x, -1)]  # KKT: v - x = theta on the support,
    on = x > 1e-12  # v <= theta off it
    assert np.allclose(np.where(on, v - x, theta[:, None]), theta[:, None])
    assert np.all(np.where(on, True, v <= theta[:, None] + 1e-12))
    p = np.array([[0.2, 0.8]])
    assert L.project_simplex(p) == pytest.approx(p)


@pytest.mark.parametrize(
    "eps,delta,n,k", [(1.0, 1e-6, 10_000, 10), (0.2, 1e-6, 100_000, 100), (0.5, 1e-5, 500, 3)]
)
def test_certified_local_eps_certifies_and_is_largest(eps, delta, n, k):
    el = L.certified_local_eps(eps, delta, n, k)
    assert el > eps
    assert L.krr_shuffle_pair(el, n, k).epsilon(delta) <= eps
    assert (
        L.krr_shuffle_pair(el * (1 + 1e-3), n, k).delta(eps) > delta
    )  # a bit more is not certified


def test_certified_local_eps_grows_with_n_and_eq5():
    a, b = L.certified_local_eps(1.0, 1e-6, 1000, 10), L.certified_local_eps(1.0, 1e-6, 100_000, 10)
    assert b > a
    r = 1.0 * 1000 / np.log(1e6)
    assert L.eq5_local_eps(1.0, 1e-6, 1000) == pytest.approx(np.log(r))
    assert L.eq5_local_eps(0.01, 1e-6, 1000) == pytest.approx(0.01 * np.sqrt(1000 / np.log(1e6)))


def test_rates_and_inversion():
    assert L.rate_local(10, 0.1, 1.0) == pytest.approx(
        100 / (0.01 * np.expm1(1) ** 2) + 100 / (0.01 * np.e) + 1000
    )
    assert L.rate_shuffle(10, 0.1, 1.0, 1e-6) == pytest.approx(1000 + 100 * np.sqrt(np.log(1e6)))
    n = np.array([1e3, 1e5])
    a = L.invert_rate(lambda al: L.rate_central(10, al, 1.0), n)
    assert L.rate_central(10, a, 1.0) == pytest.approx(n, rel=1e-9)


def test_slopes_recover_known_exponent():
    n = np.array([100, 1000, 10_000, 100_000])
    df = pd.DataFrame({"model": "x", "k": 5, "n": n, "mean": 3.0 * n**-0.7})
    assert L.slopes(df).slope.iloc[0] == pytest.approx(-0.7)


def test_local_rate_of_krr_matches_simulation():
    p = np.full(50, 1 / 50)
    c = L.tv_curve(p, [2_000_000], 1.0, 1e-6, 400, seed=6, models=("local",))
    approx = L.krr_tv_approx(2_000_000, 50, 1.0)
    assert c["mean"].iloc[0] == pytest.approx(approx, rel=0.1)  # projection lowers it a little


def test_tv_curve_is_reproducible_and_orders_models():
    p = np.full(20, 1 / 20)
    a = L.tv_curve(p, [3000, 30_000], 1.0, 1e-6, 50, seed=7)
    b = L.tv_curve(p, [3000, 30_000], 1.0, 1e-6, 50, seed=7)
    pd.testing.assert_frame_equal(a, b)
    m = a.set_index(["model", "n"])["mean"]
    assert m["central", 30_000] < m["local", 30_000] and m["shuffle", 30_000] < m["local", 30_000]


def test_thesis_table_judges_a_known_case():
    n = np.array([1000, 10_000, 100_000, 1_000_000])
    rows = []
    for model, c, s in [("central", 1.0, -0.5), ("shuffle", 2.0, -0.5), ("local", 50.0, -0.3)]:
        rows += [
            {
                "model": model,
                "n": x,
                "k": 10,
                "eps": 1.0,
                "eps_l": 20.0 if model == "shuffle" else None,
                "mean": c * x**s / 10,
            }
            for x in n
        ]
    t = L.thesis_table(pd.DataFrame(rows), 1e-6, central_max=1.0)
    first = "every n, central at ε"
    row = t[t.reading == first].iloc[0]
    assert row.slope_shuffle == pytest.approx(-0.5) and row.ratio_shuffle == pytest.approx(2.0)
    assert row.shuffle_matches and not row.local_matches
    assert L.excess(t, "shuffle", first) == pytest.approx(2.0 / np.sqrt(np.log(1e6)))
    assert L.least_excess(t, "local", first) > 1


# -- the note after eq. (4) and the stated domains -------------------------------------------------


def test_eq4_note_as_printed_fails_by_the_factor_k_and_holds_with_k_squared():
    for k in (2, 10, 1000):
        assert L.eq4_note_margin(k, 0.1, 1e-3) < 0  # as printed: off by about k
        assert L.eq4_note_ratio_exact(k, 0.1, 1e-3) == pytest.approx(k, rel=2e-3)
        assert L.eq4_note_margin(k, 0.1, 1e-3, power=2) > 0.09  # with k^2: within 0.1 %
    assert L.eq4_note_margin(2, 0.5, 1.0, power=2) < 0  # not small eps: the expansion fails
    r = L.eq4_note_ratio_exact(7, 0.3, 0.05)
    assert abs(r - 1) == pytest.approx(0.1 - L.eq4_note_margin(7, 0.3, 0.05), rel=1e-12)


def test_rate_params_picks_the_named_parameters():
    d = L.rate_params(names=("eps", "delta", "n"))
    assert [p["name"] for p in d] == ["eps", "delta", "n"]
    assert [p["name"] for p in L.rate_params()] == ["k", "alpha", "eps", "delta"]


def test_eq5_slopes_needs_two_different_n():
    with pytest.raises(ValueError, match="different"):
        L.eq5_slopes(1.0, 1e-6, [1000, 1000], 10)


def test_rates_take_alpha_above_one_and_central_rows_have_infinite_local_budget():
    assert L.rate_central(10, 30.0, 1.0) == pytest.approx(10 / 900 + 10 / 30)  # invert_rate's range
    c = L.tv_curve([0.5, 0.5], [100], 1.0, 1e-6, 5, models=("central", "local"))
    assert c.set_index("model").eps_l.to_dict() == {"central": np.inf, "local": 1.0}


def _n_star_by_hand(k, alpha, eps, delta, second_plus):
    """The plugged sample complexity of eq. (4) on the integers 1 … 10^6, written out: eq. (5)'s eps_L
    (second case log t + second_plus), the last integer failing n >= eq. (4), plus one."""
    L = math.log(1 / delta)
    last_bad = 0
    for n in range(1, 10**6):
        t = eps**2 * n / L
        e = math.sqrt(t) if t < 1 else math.log(t) + second_plus
        need = (
            (k**2 / (alpha**2 * math.expm1(e) ** 2) if e > 0 else math.inf)
            + k**2 / (alpha**2 * math.exp(e))
            + k / alpha**2
        )
        if n < need:
            last_bad = n
    return last_bad + 1


def test_plugged_n_against_the_integers_and_the_blog_s_closed_forms():
    """plugged_n (a log grid) against every integer n; the two readings of eq. (5)'s second case; the blog's
    results at one point; a failing n re-verified in 50 digits."""
    k, alpha, eps, delta = 5, 0.3, 0.05, 1e-6
    for reading, plus in zip(L.EQ5_READINGS, (0, 1)):
        n_star, n_bad = L.plugged_n("eq. (4)", k, alpha, eps, delta, reading)
        assert n_star == pytest.approx(_n_star_by_hand(k, alpha, eps, delta, plus), rel=0.01)
        assert n_bad < n_star and L.plugged_fails_exact(
            "eq. (4)", k, alpha, eps, delta, reading, n_bad
        )
        assert not L.plugged_fails_exact("eq. (4)", k, alpha, eps, delta, reading, 1.02 * n_star)
    lg = math.log(1e6)
    assert L.plugged_rate("eq. (4)", k, alpha, eps, delta) == pytest.approx(
        k * math.sqrt(lg) / (alpha * eps) + k / alpha**2
    )
    assert L.plugged_rate("eq. (7)", k, alpha, eps, delta) == pytest.approx(
        k**0.75 * math.sqrt(lg) / (alpha * eps) + math.sqrt(k) / alpha**2
    )
    assert L.plugged_rate("eq. (6)", 8, 1.0, 1.0, math.exp(-27)) == pytest.approx(
        4 * 3 + math.sqrt(216) + math.sqrt(8)
    )
    # as printed, n* cannot fall below the boundary log(1/δ)/ε² between eq. (5)'s cases
    assert L.plugged_n("eq. (4)", 2, 0.5, 0.01, 1e-12)[0] > math.log(1e12) / 0.01**2
    assert L.plugging_margin(2, 0.5, 0.01, 1e-12, "eq. (4)", L.EQ5_READINGS[0]) < 0
    assert L.plugging_margin(2, 0.5, 0.01, 1e-12, "eq. (4)", L.EQ5_READINGS[1]) > 0
    with pytest.raises(ValueError, match="rate"):
        L.plugged_n("eq. (5)", k, alpha, eps, delta)
