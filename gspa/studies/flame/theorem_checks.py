"""The computations of the FLAME theorems and Figure 3 chapters (book/chapters/flame/theorems, figure3), one
function per check:
Theorem 1 against the exact composition, Corollary 2's and Corollary 3's exponents, Theorems 2 and 3 on one
dimension computed exactly, Proposition 1's simulated noise, Lemmas 2–4 against exact composition and
subsampling, and Figure 3's curves, the search for a reading that reproduces its two ratios, and the
ε_c behind its proven ratios against certified lower bounds on the printed protocols. Each returns plain
rows (lists of dicts) or small dicts; the claims they feed are declared in
:mod:`gspa.studies.flame.claims.theorems` and :mod:`~gspa.studies.flame.claims.figure3`.

Paper: Liu, Cao, Chen, Guo, Yoshikawa, "FLAME: Differentially Private Federated Learning in the Shuffle
Model" (AAAI 2021), Privacy Analysis of SS-Simple and SS-Double, Preliminaries (Lemmas 2–4), Figure 3.
"""

from __future__ import annotations

import numpy as np

from gspa.studies.flame import analysis
from gspa.util import validate as V

MAX_USERS = 10**6  # users, sampled users, padded messages
MAX_D = 10**6  # dimensions
MAX_T = 10**5  # composed runs


def _values(name, value, check):
    """The values of a list, each read by ``check(name, v)``."""
    return [check(name, v) for v in value]


def _eps(name, value):
    """A budget in [10⁻⁶, 50]."""
    return float(V.real(name, value, low=1e-6, high=50.0, scalar=True))


def _delta(name, value):
    return float(V.real(name, value, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True))


def _beta(name, value):
    return float(V.real(name, value, low=1e-6, high=1.0, scalar=True))


def _size(name, value, high=MAX_USERS, low=2):
    return V.integer(name, value, low=low, high=high)


def _dim(name, value):
    return _size(name, value, high=MAX_D, low=1)


def theorem1_table(eps_ld_values, d_values, n_users: int, delta_c: float) -> list[dict]:
    """FLAME Theorem 1 (eqs. (2)–(3)) for SS-Simple with d separate per-dimension shuffles of ``n_users``
    binary reports (budget ε_ld each, :func:`gspa.privacy.peers.blanket.blanket_pair`): per (ε_ld, d) the
    certified ε_cd at δ_c/(d + 1), Theorem 1's ε_c from it (:func:`gspa.studies.flame.analysis.compose_dims`),
    the ε at δ_c of the exact d-fold composition of the same profile
    (:func:`gspa.privacy.shuffle.composition.compose`), their ratio and ε_l/ε_c = dε_ld/exact."""
    from gspa.privacy.peers.blanket import blanket_pair
    from gspa.privacy.shuffle.composition import compose

    es = _values("eps_ld_values", eps_ld_values, _eps)
    ds = _values("d_values", d_values, lambda name, v: _size(name, v, high=MAX_T, low=1))
    n, delta_c = _size("n_users", n_users), _delta("delta_c", delta_c)
    rows = []
    for e in es:
        pair = blanket_pair(e, 2, n, "header")
        for d in ds:
            dcd = delta_c / (d + 1)
            ecd = pair.epsilon(dcd)
            thm, _ = analysis.compose_dims(ecd, dcd, d)
            exact = compose(pair, d).epsilon(delta_c)
            rows.append(
                {
                    "ε_ld": e,
                    "d": d,
                    "ε_cd at δ_c/(d+1)": ecd,
                    "Theorem 1 ε_c": thm,
                    "exact composition ε_c": exact,
                    "exact / Theorem 1": exact / thm,
                    "ε_l/ε_c (exact)": d * e / exact,
                }
            )
    return rows


def _column(rows, name, where=None):
    return np.array([r[name] for r in rows if where is None or where(r)], dtype=float)


def corollary2_slopes(theorem1_rows, delta_c: float) -> dict:
    """FLAME Corollary 2 read at a fixed per-dimension budget: the log-log slope in d of
    √d log(d/δ_c) on the d of :func:`theorem1_table`'s rows (``shape``), and per ε_ld the fitted exponent
    in d of the exact composed ε_c (``fits``), of Theorem 1's ε_c (``fits_t1``) and of the ratio
    ε_l/ε_c (``ratio``); ``gap``: the fitted exponent farthest from ``shape``, minus ``shape``. Every
    ε_ld needs the same d, at least two of them."""
    rows = theorem1_rows
    delta_c = _delta("delta_c", delta_c)
    es = list(dict.fromkeys(r["ε_ld"] for r in rows))
    ds = _column(rows, "d", lambda r: r["ε_ld"] == es[0])
    shape = analysis.loglog_slope(ds, np.sqrt(ds) * np.log(ds / delta_c))

    def fit(col):
        return {
            e: analysis.loglog_slope(ds, _column(rows, col, lambda r: r["ε_ld"] == e)) for e in es
        }

    fits = fit("exact composition ε_c")
    gap = max(fits.values(), key=lambda v: abs(v - shape)) - shape
    return {
        "shape": shape,
        "fits": fits,
        "fits_t1": fit("Theorem 1 ε_c"),
        "ratio": fit("ε_l/ε_c (exact)"),
        "gap": gap,
    }


def theorem2_table(thm2_cases, thm_eps, delta_cd: float) -> list[dict]:
    """FLAME Theorem 2 (eq. (4)) on one dimension subsampled without replacement (n_s of n users, β = n_s/n)
    and shuffled, computed exactly for the data sets with the other users' bits all equal
    (:func:`gspa.studies.flame.analysis.subsampled_rr_delta_equal_bits`): per (n_s, n) of ``thm2_cases``
    and local budget, whether Lemma 1's condition holds, eq. (4)'s ε_cd and the true δ there over δ_cd,
    the same two steps with the certified ε' of the shuffle (:func:`gspa.privacy.peers.blanket.blanket_pair`)
    in place of Lemma 1's closed form, and the exact ε at δ_cd."""
    from gspa.privacy.peers.blanket import blanket_pair

    cases = list(thm2_cases)
    es = _values("thm_eps", thm_eps, _eps)
    delta_cd = _delta("delta_cd", delta_cd)
    rows = []
    for case in cases:
        n_s, n = _size("n_s", case[0]), _size("n", case[1])
        beta = n_s / n
        for e in es:

            def prof(z, n_s=n_s, beta=beta, e=e):
                return analysis.subsampled_rr_delta_equal_bits(n_s, beta, e, z)

            e1, ecd, ok = analysis.theorem2(e, n_s, beta, delta_cd)
            e1x = blanket_pair(e, 2, n_s, "header").epsilon(delta_cd / beta)
            ecdx = analysis.theorem3(e1x, beta)
            rows.append(
                {
                    "n_s": n_s,
                    "n": n,
                    "β": beta,
                    "ε_l": e,
                    "Lemma 1 condition": ok,
                    "eq. (4) ε_cd": ecd,
                    "eq. (4): δ(ε_cd)/δ_cd": prof(ecd) / delta_cd,
                    "certified ε' → ε_cd": ecdx,
                    "certified ε': δ(ε_cd)/δ_cd": prof(ecdx) / delta_cd,
                    "exact ε at δ_cd": analysis.tiny_epsilon(prof, delta_cd, e),
                }
            )
    return rows


def theorem3_table(thm3_np, thm3_beta, thm_eps, delta_cd: float) -> list[dict]:
    """FLAME Theorem 3 (eqs. (5)–(6)) on one padded dimension of SS-Double: n_p messages, the user's
    report present with probability β beside blanket dummies, computed exactly
    (:func:`gspa.studies.flame.analysis.subsampled_rr_delta` with the others uniform): per (n_p, β, ε_lk)
    whether eq. (5)'s ε_ck ≤ 1, eq. (5)'s ε_ck, the exact ε_ck of the padded shuffle at δ_cd/β, the true δ
    at the ε_cd of eqs. (5)–(6) and at eq. (6) with the exact ε_ck, over δ_cd, eqs. (5)–(6)'s ε_cd and the
    exact ε at δ_cd."""
    nps = _values("thm3_np", thm3_np, _size)
    betas = _values("thm3_beta", thm3_beta, _beta)
    es = _values("thm_eps", thm_eps, _eps)
    delta_cd = _delta("delta_cd", delta_cd)
    rows = []
    for n_p in nps:
        for beta in betas:
            for e in es:

                def prof(z, n_p=n_p, beta=beta, e=e):
                    return analysis.subsampled_rr_delta(n_p, beta, e, z, 0.5)

                e5, ecd, ok = analysis.theorem2(e, n_p, beta, delta_cd)
                eckx = analysis.tiny_epsilon(
                    lambda z, n_p=n_p, e=e: analysis.tiny_dimension_profile(n_p, e, z),
                    delta_cd / beta,
                    e,
                )
                ecdx = analysis.theorem3(eckx, beta)
                rows.append(
                    {
                        "n_p": n_p,
                        "β": beta,
                        "ε_lk": e,
                        "eq. (5) ε_ck ≤ 1": ok,
                        "eq. (5) ε_ck": e5,
                        "exact ε_ck": eckx,
                        "eqs. (5)–(6): δ(ε_cd)/δ_cd": prof(ecd) / delta_cd,
                        "exact ε_ck, eq. (6): δ(ε_cd)/δ_cd": prof(ecdx) / delta_cd,
                        "eqs. (5)–(6) ε_cd": ecd,
                        "exact ε at δ_cd": analysis.tiny_epsilon(prof, delta_cd, e),
                    }
                )
    return rows


def proposition1_table(
    prop_ns: int,
    prop_ratios,
    eps_ck: float,
    delta_ck: float,
    eps_lk: float,
    reps: int,
    seed: int,
) -> dict:
    """FLAME Proposition 1: the standard deviation of SS-Double's padded estimate of one dimension's mean
    (``prop_ns`` real reports, seeded uniform inputs, n_p − n_s uniform dummies), simulated with ``reps``
    runs per n_p = ratio · n_s (:func:`gspa.studies.flame.analysis.padded_mean_std`) under two readings:
    ε_ck fixed (b and γ chosen best, :func:`gspa.studies.flame.analysis.best_blanket_size`) and ε_lk fixed
    (b = 2, γ of Algorithm 1). Returns ``rows`` (per n_p: b, γ, both standard deviations and eq. (5)'s
    ε_ck) and the fitted exponents of n_p (``fit_ck``, ``fit_lk``)."""
    from gspa.privacy.peers.blanket import blanket_gamma

    n_s = _size("prop_ns", prop_ns, high=10_000)
    ratios = _values("prop_ratios", prop_ratios, lambda name, v: _size(name, v, high=1000, low=1))
    eps_ck, eps_lk = _eps("eps_ck", eps_ck), _eps("eps_lk", eps_lk)
    delta_ck = _delta("delta_ck", delta_ck)
    reps = _size("reps", reps, high=100_000)
    seed = V.integer("seed", seed, low=0, high=2**32 - 1)
    rng = np.random.default_rng(seed)
    x = rng.random(n_s)
    nps = np.array([int(r * n_s) for r in ratios])
    rows = []
    for n_p in nps:
        _, b_a, g_a = analysis.best_blanket_size(n_s, n_p, eps_ck, delta_ck, x)
        g_b = float(blanket_gamma(eps_lk, 2))
        rows.append(
            {
                "n_p": n_p,
                "n_p/n_s": n_p / n_s,
                "b (ε_ck fixed)": b_a,
                "γ (ε_ck fixed)": g_a,
                "std, ε_ck fixed": analysis.padded_mean_std(n_s, n_p, b_a, g_a, x, reps, rng),
                "std, ε_lk fixed": analysis.padded_mean_std(n_s, n_p, 2, g_b, x, reps, rng),
                "eq. (5) ε_ck (ε_lk fixed)": analysis.lemma1_eps_ck(eps_lk, n_p, delta_ck)[0],
            }
        )
    n_ps = [r["n_p"] for r in rows]
    return {
        "rows": rows,
        "fit_ck": analysis.loglog_slope(n_ps, [r["std, ε_ck fixed"] for r in rows]),
        "fit_lk": analysis.loglog_slope(n_ps, [r["std, ε_lk fixed"] for r in rows]),
    }


def lemmas23_table(lemma_eps: float, lemma_n: int, lemma_T, lemma_delta: float) -> dict:
    """FLAME Lemmas 2 and 3 (basic and advanced composition) applied to the shuffle of ``lemma_n`` binary
    reports with local budget ``lemma_eps`` (certified, :func:`gspa.privacy.peers.blanket.blanket_pair`),
    against its exact T-fold composition (:func:`gspa.privacy.shuffle.composition.compose`): per T the
    lemmas' ε in the δ = 0 and (ε, δ) forms (the run's ε at δ = ``lemma_delta``, δ' = ``lemma_delta``)
    and the exact composed ε at the lemmas' δ. Returns ``rows``, the run's ε at δ (``e_run``) and the
    largest ratio exact/lemma per form (``lemma2``, ``lemma3``)."""
    from gspa.privacy.peers.blanket import blanket_pair
    from gspa.privacy.shuffle.composition import advanced, basic, compose

    eps, n = _eps("lemma_eps", lemma_eps), _size("lemma_n", lemma_n)
    ts = _values("lemma_T", lemma_T, lambda name, v: _size(name, v, high=MAX_T, low=1))
    delta = _delta("lemma_delta", lemma_delta)
    pair = blanket_pair(eps, 2, n, "header")
    e_run = pair.epsilon(delta)
    rows = []
    for T in ts:
        c = compose(pair, T)
        e2_pure, _ = basic(eps, 0.0, T)
        e2, d2 = basic(e_run, delta, T)
        e3_pure, d3_pure = advanced(eps, 0.0, T, delta)
        e3, d3 = advanced(e_run, delta, T, delta)
        rows.append(
            {
                "T": T,
                "Lemma 2 (δ = 0): Tε": e2_pure,
                "exact ε at δ": c.epsilon(delta),
                "Lemma 2 (ε, δ): Tε": e2,
                "exact ε at Tδ": c.epsilon(d2),
                "Lemma 3 (δ = 0): ε": e3_pure,
                "exact ε at δ'": c.epsilon(d3_pure),
                "Lemma 3 (ε, δ): ε": e3,
                "exact ε at Tδ + δ'": c.epsilon(d3),
            }
        )

    def worst(exact, lemma):
        return float(max(r[exact] / r[lemma] for r in rows))

    return {
        "rows": rows,
        "e_run": e_run,
        "lemma2": {
            "δ = 0 (as stated)": worst("exact ε at δ", "Lemma 2 (δ = 0): Tε"),
            "(ε, δ) form": worst("exact ε at Tδ", "Lemma 2 (ε, δ): Tε"),
        },
        "lemma3": {
            "δ = 0": worst("exact ε at δ'", "Lemma 3 (δ = 0): ε"),
            "ε at δ": worst("exact ε at Tδ + δ'", "Lemma 3 (ε, δ): ε"),
        },
    }


def lemma4_table(lemma4_cases, lemma_eps: float, lemma_delta: float) -> list[dict]:
    """FLAME Lemma 4 (sampling m of n records without replacement,
    :func:`gspa.privacy.basics.subsampling.subsample_wor`) applied to the certified ε at ``lemma_delta`` of
    the shuffle of m binary reports: per (m, n) of ``lemma4_cases`` the lemma's (ε, δ) and the exact δ at
    its ε of the subsampled mechanism for the data sets with the others' bits all equal
    (:func:`gspa.studies.flame.analysis.subsampled_rr_delta_equal_bits`), and their ratio."""
    from gspa.privacy.basics.subsampling import subsample_wor
    from gspa.privacy.peers.blanket import blanket_pair

    cases = list(lemma4_cases)
    eps, delta = _eps("lemma_eps", lemma_eps), _delta("lemma_delta", lemma_delta)
    rows = []
    for case in cases:
        m, n = _size("m", case[0], low=1), _size("n", case[1], high=10**7, low=1)
        e_m = blanket_pair(eps, 2, m, "header").epsilon(delta)
        e4, d4 = subsample_wor(e_m, delta, m, n)
        true = analysis.subsampled_rr_delta_equal_bits(m, m / n, eps, e4)
        rows.append(
            {
                "m": m,
                "n": n,
                "ε on m records": e_m,
                "Lemma 4 ε": e4,
                "Lemma 4 δ": d4,
                "exact δ at Lemma 4's ε": true,
                "exact / Lemma 4 δ": true / d4,
            }
        )
    return rows


def corollary3_table(cor3_d, cor3_np, eps_lk: float, beta: float, delta_c: float) -> dict:
    """FLAME Corollary 3 (eq. (7)) as a statement about the formula: SS-Double's ε_c by eqs. (5)–(6) with
    Lemma 1's closed form and Theorem 4's composition over 2k dimensions, k = ⌊βd⌋
    (:func:`gspa.studies.flame.analysis.ss_double_epoch`, ``version="lemma1"``), on the grid of d and n_p at a
    fixed per-dimension budget. Returns ``rows`` (per d and n_p: k, eq. (5)'s ε_ck, eq. (6)'s ε_cd,
    Theorem 4's ε_c), the fitted exponents in n_p per d (``fit_np``) and in d per n_p (``fit_d``), the
    slope of eq. (7)'s d-factor √(d log(βd/δ_c) log(β²d/δ_c)) on the grid (``shape_d``), the exponents in
    n_p between the two largest n_p per d (``last``), ``excess`` (the largest fitted exponent minus eq.
    (7)'s) and the largest ε_ck (``eck_max``). ValueError where eq. (5)'s ε_ck exceeds 1 (outside Lemma
    1's condition)."""
    ds = _values("cor3_d", cor3_d, _dim)
    nps = _values("cor3_np", cor3_np, lambda name, v: _size(name, v, high=10**7))
    eps_lk, beta, delta_c = _eps("eps_lk", eps_lk), _beta("beta", beta), _delta("delta_c", delta_c)
    rows = []
    for d in ds:
        for n_p in nps:
            r = analysis.ss_double_epoch(eps_lk, d, beta, n_p, delta_c, version="lemma1")
            rows.append(
                {
                    "d": d,
                    "n_p": n_p,
                    "k": r["k"],
                    "eq. (5) ε_ck": r["eps_ck"],
                    "ε_ck ≤ 1": r["eps_ck"] <= 1.0,
                    "eq. (6) ε_cd": r["eps_cd"],
                    "Theorem 4 ε_c": r["eps_c"],
                }
            )
    if not all(r["ε_ck ≤ 1"] for r in rows):
        raise ValueError(
            "an instance of cor3_np/cor3_d is outside Lemma 1's condition (eps_ck > 1); take larger n_p"
        )

    def eps_c(where):
        return _column(rows, "Theorem 4 ε_c", where)

    fit_np = {d: analysis.loglog_slope(nps, eps_c(lambda r, d=d: r["d"] == d)) for d in ds}
    fit_d = {
        n_p: analysis.loglog_slope(ds, eps_c(lambda r, n_p=n_p: r["n_p"] == n_p)) for n_p in nps
    }
    ks = _column(rows, "k", lambda r: r["n_p"] == nps[0])
    dd = ks / beta  # d as βd = k (exact multiples on the grid)
    shape_d = analysis.loglog_slope(
        ds, np.sqrt(dd * np.log(ks / delta_c) * np.log(beta * ks / delta_c))
    )
    last = [analysis.loglog_slope(nps[-2:], eps_c(lambda r, d=d: r["d"] == d)[-2:]) for d in ds]
    excess = max(max(v + 0.5 for v in fit_np.values()), max(v - shape_d for v in fit_d.values()))
    return {
        "rows": rows,
        "fit_np": fit_np,
        "fit_d": fit_d,
        "shape_d": shape_d,
        "last": last,
        "excess": excess,
        "eck_max": float(max(r["eq. (5) ε_ck"] for r in rows)),
    }


def _paper_ratio_budget(xs, curves, args, key, target):
    """The per-dimension budget where ``curves[key]`` crosses ``target`` between two neighbouring points of
    ``xs`` at which Lemma 1's condition holds (brentq on :func:`gspa.studies.flame.analysis.fig3_ratios`),
    and the ratios there; (nan, None) where it does not cross."""
    from scipy.optimize import brentq

    v, ok = curves[key] - target, curves[key + "_ok"]
    hit = np.flatnonzero(ok[:-1] & ok[1:] & (v[:-1] * v[1:] < 0))
    if not hit.size:
        return float("nan"), None
    x = brentq(
        lambda e: analysis.fig3_ratios([e], *args)[key][0] - target, xs[hit[0]], xs[hit[0] + 1]
    )
    return x, analysis.fig3_ratios([x], *args)


def figure3_search(
    eps_dim,
    d: int,
    fig3_grid_n,
    fig3_grid_delta,
    beta: float,
    paper_simple: float,
    paper_double: float,
) -> dict:
    """FLAME Figure 3 (the text after it: ratios ×2.55 for SS-Simple and ×137.36 for SS-Double, settings
    not stated): for each n of ``fig3_grid_n`` (n_p = ⌊n/3⌋) and δ_c of ``fig3_grid_delta``, the curves of
    :func:`gspa.studies.flame.analysis.fig3_ratios` over ``eps_dim`` (``curves``, keyed by (n, δ_c)) and a
    row (``rows``): the largest ratio of each protocol where Lemma 1's condition holds, the per-dimension
    budget where each protocol's ratio equals the paper's (brentq between grid points) and the other
    protocol's ratio there. NaN marks a setting with no such budget (or no point within the condition)."""
    eps_dim = np.asarray(
        V.real("eps_dim", eps_dim, low=0.0, low_open=True, max_size=10_000)
    ).ravel()
    ns = _values("fig3_grid_n", fig3_grid_n, lambda name, v: _size(name, v, low=6))
    dcs = _values("fig3_grid_delta", fig3_grid_delta, _delta)
    paper = {"simple": V.positive("paper_simple", paper_simple, scalar=True)}
    paper["double"] = V.positive("paper_double", paper_double, scalar=True)
    rows, curves = [], {}
    for n in ns:
        for dc in dcs:
            args = (d, n, n // 3, beta, dc)
            r = curves[(n, dc)] = analysis.fig3_ratios(eps_dim, *args)
            row = {"n": n, "n_p": n // 3, "δ_c": dc}
            for key in ("simple", "double"):
                ok = r[key + "_ok"]
                best = float(r[key][ok].max()) if ok.any() else float("nan")
                row[f"max SS-{key.capitalize()} ratio"] = best
            for key, other in (("simple", "double"), ("double", "simple")):
                x, at = _paper_ratio_budget(eps_dim, r, args, key, paper[key])
                row[f"ε per dim. where {key} = ×{paper[key]}"] = x
                there = at is not None and at[other + "_ok"][0]
                row[f"{other} there"] = float(at[other][0]) if there else float("nan")
            rows.append(row)
    return {"rows": rows, "curves": curves}


def figure3_printed(
    eps_dim, simple, double, d: int, n: int, n_p: int, beta: float, delta_c: float
) -> dict:
    """FLAME Figure 3's proven ratios against the protocols as printed (one message per user; SS-Double
    with v dummy vectors of k, :func:`gspa.studies.flame.linkage.dummy_messages`): per budget of
    ``eps_dim``, the ε_c behind the certified ratios ``simple`` and ``double`` of
    :func:`gspa.studies.flame.analysis.fig3_exact` (dε/ratio, kε/ratio) and certified lower bounds on the
    printed protocols' ε_c at δ_c (:func:`gspa.studies.flame.linkage.linked_epsilon_lower`, binary
    randomized response). Returns ``rows`` and, at the first budget where SS-Simple's proven ε_c is below
    the printed protocol's lower bound, the lower bound's δ recomputed in 50-digit arithmetic
    (``delta_mp``; None where there is no such budget). ValueError where the two computations of that δ
    disagree."""
    from gspa.studies.flame import linkage
    from gspa.studies.flame.protocols import sample_size

    eps_dim = np.asarray(V.real("eps_dim", eps_dim, low=1e-6, high=50.0, max_size=100)).ravel()
    simple = np.asarray(V.positive("simple", simple)).ravel()
    double = np.asarray(V.positive("double", double)).ravel()
    d, n = _dim("d", d), _size("n", n, high=10**7)
    n_p, delta_c = _size("n_p", n_p, high=10**7), _delta("delta_c", delta_c)
    k = sample_size(beta, d)
    v = linkage.dummy_messages(d, n_p, k, n)
    rows = []
    for i, e in enumerate(eps_dim.tolist()):
        q = linkage.bit_probability("rr", e)
        rows.append(
            {
                "ε_ld = ε_lk": e,
                "SS-Simple: proven ε_c": d * e / simple[i],
                "SS-Simple as printed: ε_c ≥": linkage.linked_epsilon_lower(d, q, delta_c, n, 0)[0],
                "SS-Double: proven ε_c": k * e / double[i],
                "SS-Double as printed: ε_c ≥": linkage.linked_epsilon_lower(k, q, delta_c, n, v)[0],
            }
        )
    bad = [r for r in rows if r["SS-Simple: proven ε_c"] < r["SS-Simple as printed: ε_c ≥"]]
    delta_mp = None
    if bad:  # re-verify in 50-digit arithmetic at the first such budget
        e_bad, eps_c_bad = float(bad[0]["ε_ld = ε_lk"]), float(bad[0]["SS-Simple: proven ε_c"])
        q = linkage.bit_probability("rr", e_bad)
        low, t = linkage.linked_delta_lower(d, q, eps_c_bad, n, 0)
        delta_mp = linkage.threshold_delta_mp(d, e_bad, "rr", eps_c_bad, t, n, 0)
        if not (delta_mp > delta_c and abs(delta_mp - low) <= 1e-6 * low):
            raise ValueError(
                f"the linkage bound {low} and its 50-digit recomputation {delta_mp} disagree"
            )
    return {"rows": rows, "delta_mp": delta_mp}
