"""The f-DP chapter's checks of Table 1, eq. (4), Definition 3 and Facts 1–4 (the paper's appendix), each
computed from :mod:`gspa.privacy.basics.hypothesis` and :mod:`gspa.privacy.basics.fdp` and, for Fact 3,
against simulation and Google's dp-accounting. Random pairs of distributions come from the caller's
``rng``, drawn in the order the chapter uses them. The chapter: book/chapters/gspa/fdp."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri

from gspa.privacy.basics import fdp, hypothesis
from gspa.privacy.basics.mechanisms import quaternary_pmfs
from gspa.privacy.interop import dpaccounting as dpa
from gspa.util import validate as V

#: (ε, δ) of Lemma 4's quaternary pair checked against Fact 1's f_{ε,δ}
QUATERNARY_BUDGETS = ((0.1, 1e-3), (0.5, 1e-5), (1.0, 0.05), (2.0, 0.2))
#: (ε, δ) with ε ≥ 1 − δ where the printed eq. (19), symmetrised, is compared with f_{ε,δ}
SYMMETRISED_BUDGETS = ((0.99, 0.01), (1.0, 0.05), (2.0, 1e-5), (4.0, 0.2), (0.95, 0.05))


def _alpha(alpha) -> np.ndarray:
    return V.probability("alpha", alpha, ndim=1, max_size=10**6)


def _pairs(rng, n_pairs, support):
    rng = V.generator("rng", rng)
    n_pairs = V.integer("n_pairs", n_pairs, low=1, high=10**5)
    support = V.integer("support", support, low=2, high=1000)
    return rng, n_pairs, support


def table1_errors(rng, n_mc=20_000) -> dict:
    """Table 1 and eq. (3): the test 'reject H₀ when the report is 1' on binary randomized response with
    ε₀ = 1 (the true bit reported with probability e/(1 + e)): its exact type I and II errors (``alpha``,
    ``beta``) and their frequencies over ``n_mc`` simulated reports under each hypothesis."""
    rng = V.generator("rng", rng)
    n_mc = V.integer("n_mc", n_mc, low=1, high=10**8)
    p_true = np.e / (1 + np.e)
    U, W = np.array([p_true, 1 - p_true]), np.array([1 - p_true, p_true])  # H0: bit 0; H1: bit 1
    phi = np.array([0.0, 1.0])  # reject H0 when the report is 1
    a_exact, b_exact = hypothesis.test_errors(phi, U, W)
    reports0 = rng.random(n_mc) > p_true  # the report is 1 under H0 w.p. 1 - p_true
    reports1 = rng.random(n_mc) < p_true  # the report is 1 under H1 w.p. p_true
    return {
        "alpha": a_exact,
        "beta": b_exact,
        "alpha_sim": reports0.mean(),
        "beta_sim": 1 - reports1.mean(),
    }


def eq4_gaps(rng, n_pairs=300, support=6) -> np.ndarray:
    """Eq. (4), α + β ≥ 1 − TV(U, V): for ``n_pairs`` random pairs on ``support`` outcomes, the smallest
    α + β over all tests (the vertices of the exact trade-off polygon) minus 1 − TV."""
    rng, n_pairs, support = _pairs(rng, n_pairs, support)
    gaps = []
    for _ in range(n_pairs):
        P, Q = hypothesis.random_pmf(rng, support), hypothesis.random_pmf(rng, support)
        a_v, b_v = hypothesis.tradeoff_vertices(P, Q)
        gaps.append(np.min(a_v + b_v) - (1 - hypothesis.total_variation(P, Q)))
    return np.array(gaps)


def rr_tradeoff_curves(alpha, eps_values=(0.5, 1.0, 2.0)) -> dict:
    """Definition 3 with Fact 1: the exact trade-off curve of randomized response with budget ε, per ε in
    ``eps_values`` (``curves``), and the largest |T − f_{ε,0}| over them on ``alpha`` (``gap``)."""
    alpha = _alpha(alpha)
    eps_values = V.real("eps_values", eps_values, low=0.0, high=700.0, ndim=1, max_size=100)
    curves, gap = {}, 0.0
    for e in eps_values.tolist():
        p = np.exp(e) / (1 + np.exp(e))
        curves[e] = hypothesis.tradeoff_curve([p, 1 - p], [1 - p, p], alpha)
        gap = max(gap, np.abs(curves[e] - fdp.f_eps_delta(alpha, e, 0.0)).max())
    return {"curves": curves, "gap": gap}


def fact1_curves(alpha, eps_values=(0.5, 1.0), delta=0.05) -> dict:
    """Fact 1, eq. (19): per ε in ``eps_values``, f_{ε,δ} corrected and as printed (its last term
    e^−ε(1 − δ − ε)) on ``alpha``, as ``{ε: (corrected, printed)}``."""
    alpha = _alpha(alpha)
    eps_values = V.real("eps_values", eps_values, low=0.0, high=700.0, ndim=1, max_size=100)
    delta = V.probability("delta", delta, scalar=True)
    return {
        e: (fdp.f_eps_delta(alpha, e, delta), fdp.f_eps_delta_as_printed(alpha, e, delta))
        for e in eps_values.tolist()
    }


def fact1_quaternary_gap(alpha) -> float:
    """Fact 1: the largest |T(X₀, X₁) − f_{ε,δ}| on ``alpha`` for Lemma 4's quaternary pair at each (ε, δ)
    of :data:`QUATERNARY_BUDGETS` (f_{ε,δ} is that pair's trade-off curve)."""
    alpha = _alpha(alpha)
    quat_gap = 0.0
    for e, d in QUATERNARY_BUDGETS:
        X0, X1 = quaternary_pmfs(e, d)
        curve = hypothesis.tradeoff_curve(X0, X1, alpha)
        quat_gap = max(quat_gap, np.abs(curve - fdp.f_eps_delta(alpha, e, d)).max())
    return quat_gap


def fact1_random_pairs(rng, alpha, n_pairs=300, support=6) -> dict:
    """Fact 1 both ways on ``n_pairs`` random pairs, each with ε uniform in [0, 2] and δ(ε) its hockey-stick
    divergence (both orders): ``below``, the smallest min(T(P,Q), T(Q,P)) − f_{ε,δ(ε)} on ``alpha`` (⇒), and
    ``roundtrip``, the largest error of δ(ε) = sup_α[1 − T(α) − e^ε α] recovered from T (⇐)."""
    alpha = _alpha(alpha)
    rng, n_pairs, support = _pairs(rng, n_pairs, support)
    worst_below, worst_roundtrip = np.inf, 0.0
    for _ in range(n_pairs):
        P, Q = hypothesis.random_pmf(rng, support), hypothesis.random_pmf(rng, support)
        e = rng.uniform(0, 2)
        d = max(hypothesis.hockey_stick(P, Q, e), hypothesis.hockey_stick(Q, P, e))
        T = np.minimum(
            hypothesis.tradeoff_curve(P, Q, alpha), hypothesis.tradeoff_curve(Q, P, alpha)
        )
        worst_below = min(worst_below, np.min(T - fdp.f_eps_delta(alpha, e, d)))
        a_v, b_v = hypothesis.tradeoff_vertices(P, Q)
        worst_roundtrip = max(
            worst_roundtrip,
            abs(hypothesis.delta_from_tradeoff(a_v, b_v, e) - hypothesis.hockey_stick(Q, P, e)),
        )
    return {"below": worst_below, "roundtrip": worst_roundtrip}


def fact1_printed(alpha, eps_small=(0.1, 0.5, 0.9), delta_small=0.01) -> dict:
    """Eq. (19) as printed: whether it is a trade-off function at each ε in ``eps_small`` (ε < 1 − δ, with
    δ = ``delta_small``; ``is_tradeoff``), its value at α = 1 for ε = 0.5, δ = 0.01 (``at_1``), and for
    ε ≥ 1 − δ (:data:`SYMMETRISED_BUDGETS`) the largest |max(g, g⁻¹) − f_{ε,δ}| on ``alpha`` (``sym_gap``),
    g the printed function and g⁻¹ its numerical inverse."""
    alpha = _alpha(alpha)
    eps_small = V.real("eps_small", eps_small, low=0.0, high=700.0, ndim=1, max_size=100)
    delta_small = V.probability("delta_small", delta_small, scalar=True)
    printed = {
        e: fdp.is_tradeoff_function(lambda a, e=e: fdp.f_eps_delta_as_printed(a, e, delta_small))[
            "all"
        ]
        for e in eps_small.tolist()
    }
    sym_gap = 0.0  # eps >= 1 - delta: max(g, g^-1) against f
    for e, d in SYMMETRISED_BUDGETS:
        g = lambda a, e=e, d=d: fdp.f_eps_delta_as_printed(a, e, d)
        sym = np.maximum(g(alpha), fdp.inverse_tradeoff(g, alpha))
        sym_gap = max(sym_gap, float(np.abs(sym - fdp.f_eps_delta(alpha, e, d)).max()))
    at_1 = float(fdp.f_eps_delta_as_printed(1.0, 0.5, 0.01))
    return {"is_tradeoff": printed, "sym_gap": sym_gap, "at_1": at_1}


def fact2_worst(rng, alpha, n_pairs=300, support=6) -> float:
    """Fact 2 (post-processing): the smallest T(PK, QK) − T(P, Q) on ``alpha`` over ``n_pairs`` random
    pairs and random Markov kernels K to 2..support+2 outcomes."""
    alpha = _alpha(alpha)
    rng, n_pairs, support = _pairs(rng, n_pairs, support)
    worst_pp = np.inf
    for _ in range(n_pairs):
        P, Q = hypothesis.random_pmf(rng, support), hypothesis.random_pmf(rng, support)
        K = hypothesis.random_kernel(rng, support, int(rng.integers(2, support + 3)))
        after = hypothesis.tradeoff_curve(P @ K, Q @ K, alpha)
        worst_pp = min(worst_pp, np.min(after - hypothesis.tradeoff_curve(P, Q, alpha)))
    return worst_pp


def fact3_profile(
    rng, alpha, eps_grid, mu_values=(0.5, 1.0, 2.0), n_mc=20_000, discretization=1e-3
):
    """Fact 3's δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), per μ in ``mu_values`` on ``eps_grid``, checked
    three ways: against a Monte Carlo likelihood-ratio estimate from ``n_mc`` draws where δ(ε) ≥ 100/n_mc
    (``worst_z`` standard errors over ``n_cmp`` points, and ``z_crit``, the two-sided Bonferroni critical
    value for a family-wise level of 10⁻³); against dp-accounting's pessimistic PLD at ``discretization``
    (``pld_rel``, the largest relative gap where δ > 10⁻⁹, and ``pld_below``, min PLD − exact); and
    threshold tests on n_mc/4 simulated samples against G_μ (``emp``). ``curves``: per μ what the
    chapter plots."""
    rng = V.generator("rng", rng)
    alpha = _alpha(alpha)
    eps_grid = V.real("eps_grid", eps_grid, low=0.0, high=1e3, ndim=1, max_size=10**5)
    mu_values = V.real("mu_values", mu_values, low=1e-3, high=100.0, ndim=1, max_size=100)
    n_mc = V.integer("n_mc", n_mc, low=100, high=10**7)
    disc = V.real("discretization", discretization, low=1e-6, high=0.1, scalar=True)
    worst_z, worst_pld_rel, worst_pld_below, worst_emp, n_cmp = 0.0, 0.0, np.inf, 0.0, 0
    curves = []
    for mu in mu_values.tolist():
        exact = fdp.gdp_delta(eps_grid, mu)
        est, se = fdp.mc_gdp_delta(eps_grid, mu, n_mc, rng)
        ok = (se > 0) & (exact >= 100 / n_mc)  # at least ~100 expected events: the s.e. is reliable
        n_cmp += int(ok.sum())
        if ok.any():
            worst_z = max(worst_z, np.max(np.abs(est - exact)[ok] / se[ok]))
        ref = dpa.gaussian_delta(eps_grid, mu, discretization=disc)
        big = exact > 1e-9
        if big.any():
            worst_pld_rel = max(worst_pld_rel, np.max(np.abs(ref - exact)[big] / exact[big]))
        worst_pld_below = min(worst_pld_below, np.min(ref - exact))
        t = np.linspace(-3, mu + 3, 60)
        a_e, b_e = fdp.mc_gdp_tradeoff(mu, n_mc // 4, rng, t)
        worst_emp = max(worst_emp, np.max(np.abs(b_e - fdp.gdp_tradeoff(a_e, mu))))
        G = fdp.gdp_tradeoff(alpha, mu)
        curves.append({"mu": mu, "exact": exact, "est": est, "se": se, "a": a_e, "b": b_e, "G": G})
    z_crit = float(ndtri(1 - 1e-3 / (2 * max(n_cmp, 1))))  # two-sided, family-wise level 1e-3
    return {
        "worst_z": worst_z,
        "z_crit": z_crit,
        "n_cmp": n_cmp,
        "pld_rel": worst_pld_rel,
        "pld_below": worst_pld_below,
        "emp": worst_emp,
        "curves": curves,
    }


def fact3_composition(mu_values=(0.5, 1.0, 2.0), eps_max=4.0, discretization=1e-3, groups=(2, 3)):
    """Fact 3's composition and group privacy against dp-accounting on 9 values of ε in [0, eps_max]:
    ``mu`` = √Σμᵢ² for ``mu_values`` and ``compose_rel``, the largest relative gap of its δ(ε) to the composed
    Gaussian PLD; ``group_rel``, that of kμ (μ the first of ``mu_values``, k in ``groups``) to the PLD of a
    Gaussian mechanism with sensitivity k (gaps where δ > 10⁻⁹)."""
    mus = V.real("mu_values", mu_values, low=1e-3, high=100.0, ndim=1, max_size=100)
    eps_max = V.real("eps_max", eps_max, low=0.0, high=100.0, low_open=True, scalar=True)
    disc = V.real("discretization", discretization, low=1e-6, high=0.1, scalar=True)
    groups = [V.integer("groups", k, low=1, high=100) for k in np.atleast_1d(groups).tolist()]
    eps_c = np.linspace(0.0, eps_max, 9)
    comp_exact = fdp.gdp_delta(eps_c, fdp.gdp_compose(mus))
    comp_pld = dpa.composed_gaussian_delta(eps_c, mus, discretization=disc)
    big = comp_exact > 1e-9
    comp_rel = (
        float(np.max(np.abs(comp_pld - comp_exact)[big] / comp_exact[big])) if big.any() else 0.0
    )
    group_rel = 0.0
    mu0 = float(mus[0])
    for kgrp in groups:
        g_exact = fdp.gdp_delta(eps_c, fdp.gdp_group(mu0, kgrp))
        g_pld = dpa.gaussian_delta(eps_c, mu0, sensitivity=kgrp, discretization=disc)
        b = g_exact > 1e-9
        if b.any():
            group_rel = max(group_rel, float(np.max(np.abs(g_pld - g_exact)[b] / g_exact[b])))
    return {"mu": fdp.gdp_compose(mus), "compose_rel": comp_rel, "group_rel": group_rel}


def fact4_checks(rng, alpha, n_pairs=300, support=6, mu_values=(0.5, 1.0, 2.0)) -> dict:
    """Fact 4 on ``n_pairs`` random triples P, Q, R: ``chain``, the smallest T(P,R) − g(1 − f(α)) with
    f = T(P,Q), g = T(Q,R) (the form the proof of Theorem 2 uses), and ``printed``, the largest
    g(1 − f(α)) − f(α) (how far the printed conclusion exceeds its own hypothesis); ``gauss``, the largest
    |G_μ₂(1 − G_μ₁(α)) − G_{μ₁+μ₂}(α)| over pairs of ``mu_values`` (the rule is tight for Gaussians)."""
    alpha = _alpha(alpha)
    rng, n_pairs, support = _pairs(rng, n_pairs, support)
    mus = V.real("mu_values", mu_values, low=0.0, high=100.0, ndim=1, max_size=100).tolist()
    worst_chain, worst_printed = np.inf, -np.inf
    for _ in range(n_pairs):
        P, Q, R = (hypothesis.random_pmf(rng, support) for _ in range(3))
        f = lambda a: hypothesis.tradeoff_curve(P, Q, a)
        g = lambda a: hypothesis.tradeoff_curve(Q, R, a)
        chain = fdp.chain_bound(f, g, alpha)
        worst_chain = min(worst_chain, np.min(hypothesis.tradeoff_curve(P, R, alpha) - chain))
        worst_printed = max(worst_printed, np.max(chain - f(alpha)))
    gauss_tight = max(
        np.abs(
            fdp.chain_bound(
                lambda a: fdp.gdp_tradeoff(a, m1), lambda a: fdp.gdp_tradeoff(a, m2), alpha
            )
            - fdp.gdp_tradeoff(alpha, m1 + m2)
        ).max()
        for m1 in mus
        for m2 in mus
    )
    return {"chain": worst_chain, "printed": worst_printed, "gauss": gauss_tight}
