"""The paper's bound: Theorem 2 (and Lemma 3, Theorems 3–5), with its conversions.

Theorem 2: the shuffled (eps_i, delta_i)-PLDP process is *approximately* mu-GDP with

    mu = sqrt(2 / (sum_i p_i - max_i p_i)),   p_i = (1 - delta_i) / (1 + e^{eps_i}).

"Approximately" is the paper's word: eq. (15) only gives T >= G_mu(alpha + C/sqrt(n-1)) - C/sqrt(n-1)
with an unspecified constant C, so the numbers below are *approximations*, not certified bounds (the
exact accountant is :mod:`gspa.privacy.shuffle.accountant`). Theorem 5 composes T rounds into sqrt(T) mu.
"""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V
from gspa.privacy.profiles import check_budgets, check_histogram
from gspa.privacy.shuffle.pairs import clone_probability
from gspa.privacy.basics.fdp import gdp_epsilon, gdp_tradeoff

MAX_T = 10**15  # rounds of Theorem 5 (sqrt(T) mu, exact integers as floats)


def mu_theorem2(eps, delta=None, *, counts=None) -> float:
    """mu of Theorem 2 (also of Theorems 3 and 4) for per-user budgets (eps_i, delta_i); with
    ``counts``, ``eps[j]`` (and ``delta[j]``) is the budget of ``counts[j]`` users."""
    if counts is None:
        eps, delta = check_budgets(eps, delta)
        counts = np.ones(eps.size)
    else:
        eps, delta, counts = check_histogram(eps, delta, counts)
    p = clone_probability(eps, delta)
    denom = float((np.asarray(counts, dtype=float) * p).sum() - p.max())
    if denom <= 0:
        return float("inf")
    return float(np.sqrt(2.0 / denom))


def mu_lemma3(p_lemma3) -> float:
    """Lemma 3's Mahalanobis distance 2 / sqrt(sum p_i) with p_i = 2(1 - delta_i)/(1 + e^{eps_i})
    (the sum over the n - 1 users other than the differing one)."""
    p = V.probability("p_lemma3", p_lemma3, ndim=1)
    total = p.sum()
    return float(2.0 / np.sqrt(total)) if total > 0 else float("inf")  # no clone: no amplification


def mu_compose(mu, T) -> float:
    """Theorem 5: T rounds of a mu-GDP shuffled mechanism are sqrt(T) mu-GDP (Fact 3); T in [1, 10^15]."""
    mu = V.nonnegative("mu", mu, scalar=True)
    T = V.integer("T", T, low=1, high=MAX_T)
    return float(np.sqrt(T) * mu)


def epsilon_theorem2(eps, delta_local=None, *, delta: float) -> float:
    """Central epsilon at central ``delta`` from Theorem 2's mu via Fact 3 (as the paper's Figure 2).

    An approximation: Theorem 2 is 'approximately mu-GDP'."""
    return gdp_epsilon(delta, mu_theorem2(eps, delta_local))


def gdp_excess(exact_curve: np.ndarray, alpha: np.ndarray, mu: float) -> np.ndarray:
    """G_mu(alpha) - T_exact(alpha): where positive, mu-GDP claims more privacy than the pair has,
    i.e. the approximation is *not* a guarantee there."""
    T, alpha = _curve(exact_curve, alpha)
    return gdp_tradeoff(alpha, mu) - T


def _curve(exact_curve, alpha):
    """(exact_curve, alpha) as arrays of values in [0, 1] of one shape (or alpha one number)."""
    return V.probability("exact_curve", exact_curve), V.probability("alpha", alpha)


def eq15_shift(
    exact_curve: np.ndarray, alpha: np.ndarray, mu: float, *, tol: float = 1e-10
) -> float:
    """The smallest c >= 0 with T_exact(alpha) >= G_mu(alpha + c) - c on the alpha grid (eq. (15)
    with c = C / sqrt(n - 1)); found by bisection, rounded up to ``tol`` in [1e-15, 0.5] (a smaller
    tol would never be reached: the floats near 1 are 1.1e-16 apart)."""
    T, alpha = _curve(exact_curve, alpha)
    mu = V.nonnegative("mu", mu, scalar=True)
    tol = V.real("tol", tol, low=1e-15, high=0.5, scalar=True)

    def ok(c):
        shifted = np.minimum(alpha + c, 1.0)
        return bool(np.all(T >= gdp_tradeoff(shifted, mu) - c - 1e-13))

    if ok(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return float(hi)


def eq15_few_clones(n_values, alpha: np.ndarray, clones: float = 1.0) -> list[dict]:
    """Eq. (15)'s "there exists C" along the family of inputs that leaves few clones: n users at the common
    budget eps = log(n/``clones`` - 1), so that each side's expected clone count n p stays ``clones`` while n
    grows (mu of Theorem 2 stays about sqrt(2/clones)). Per n: eps, mu, the smallest shift c with
    T >= G_mu(alpha + c) - c on ``alpha`` for Theorem 1's own pair (:func:`theorem1_pair`, both directions) and
    the constant it requires, C = c sqrt(n - 1). A C independent of the budgets must bound C along the family."""
    from gspa.privacy.basics import hypothesis as H

    clones = V.real("clones", clones, low=0.0, low_open=True, high=1e3, scalar=True)
    n_values = [
        V.integer("n_values", n, low=2, high=10**9) for n in np.atleast_1d(n_values).tolist()
    ]
    if any(n <= 2 * clones for n in n_values):
        raise ValueError(
            f"n_values must all exceed 2 clones = {2 * clones:g} (a positive budget), got {n_values}"
        )
    alpha = V.probability("alpha", alpha, ndim=1)
    rows = []
    for n in n_values:
        eps = float(np.log(n / clones - 1.0))
        P0, P1 = theorem1_pair([eps], counts=np.array([n]))
        T = np.minimum(H.tradeoff_curve(P0, P1, alpha), H.tradeoff_curve(P1, P0, alpha))
        mu = mu_theorem2([eps], counts=np.array([n]))
        c = eq15_shift(T, alpha, mu)
        rows.append({"n": n, "eps": eps, "mu": mu, "c": c, "C": c * float(np.sqrt(n - 1))})
    return rows


def theorem5(eps_clients, delta_local, T: int, central_delta: float) -> dict:
    """Theorem 5 for Algorithm 3: per-epoch mu (Theorem 2 over the clients), sqrt(T) mu, and its eps
    at ``central_delta`` (Fact 3). Approximations, like Theorem 2."""
    mu = mu_theorem2(eps_clients, delta_local)
    muT = mu_compose(mu, T)
    return {"mu": mu, "mu_T": muT, "eps": gdp_epsilon(central_delta, muT)}


#: Mass below which the law of the clone count is cut (a cut changes every trade-off value by at most this).
CLONE_TAIL = 1e-300


def theorem1_pair(
    eps, delta=None, *, counts=None, differing: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pair (rho_0, rho_1) of Theorem 1, eqs. (12)-(13), for one actual differing user: the laws of the
    numbers of reported 0s and 1s when user ``differing`` (an index into ``eps``; with ``counts``, one user of
    that budget group; default: a most liberal user) reports (Delta_0, Delta_1, Delta_2) with Delta_2 ~
    Bern(delta), Delta_0 ~ Bin(1 - Delta_2, e^eps/(1 + e^eps)), and every *other* user i reports
    MultiBern(p_i, p_i, 1 - 2 p_i), p_i = (1 - delta_i)/(1 + e^{eps_i}) (the third parameter as copy 000
    prints it, so that the three sum to 1; copy 003's ``delta_i`` would not).

    This is the statement's own object, not the accountant's certified cover (:func:`gspa.personalized_pair`,
    which pairs the largest budget with the clones of everybody else). Outcomes are (m, a): m reports that
    are 0 or 1, a of them 0; returned flat, (P0, P1) over the same outcomes. The clone count's law is cut
    where its tail falls below :data:`CLONE_TAIL`. Cost grows as the square of the largest clone count kept
    (a few thousand users with small budgets)."""
    from scipy import stats

    if counts is None:
        eps, delta = check_budgets(eps, delta)
        counts = np.ones(eps.size, dtype=np.int64)
    else:
        eps, delta, counts = check_histogram(eps, delta, counts)
    j = (
        int(np.argmax(eps))
        if differing is None
        else V.integer("differing", differing, low=0, high=eps.size - 1)
    )
    others = counts.copy()
    others[j] -= 1
    clone = 2.0 * clone_probability(
        eps, delta
    )  # each other user is a clone (a 0 or a 1) w.p. 2 p_i
    law = np.ones(1)
    for q, c in zip(clone, others):
        if c == 0:
            continue
        k = np.arange(int(c) + 1)
        law = np.convolve(law, stats.binom.pmf(k, int(c), min(float(q), 1.0)))
        keep = np.nonzero(law > CLONE_TAIL * law.max())[0]
        law = law[: keep[-1] + 1]
    law = np.clip(law, 0.0, None)
    law /= law.sum()
    M = law.size  # clone counts 0 .. M - 1; with the differing user, m up to M
    m = np.repeat(np.arange(M + 1), np.arange(M + 1) + 1)
    a = np.concatenate([np.arange(mm + 1) for mm in range(M + 1)])

    def part(shift0):
        """P(m, a) when the differing user adds one 0 (shift0 = 1) or one 1 (0), or nothing (None)."""
        c = m - (0 if shift0 is None else 1)
        aa = a - (1 if shift0 == 1 else 0)
        ok = (c >= 0) & (c < M) & (aa >= 0) & (aa <= c)
        out = np.zeros(m.size)
        out[ok] = law[c[ok]] * stats.binom.pmf(aa[ok], c[ok], 0.5)
        return out

    zero, one, none = part(1), part(0), part(None)
    r = float(np.exp(-np.logaddexp(0.0, -eps[j])))  # e^eps/(1 + e^eps)
    dn = float(delta[j])
    P0 = (1 - dn) * (r * zero + (1 - r) * one) + dn * none
    P1 = (1 - dn) * ((1 - r) * zero + r * one) + dn * none
    return P0, P1


def against_exact(eps, alpha: np.ndarray, eps_grid: np.ndarray) -> tuple[dict, tuple]:
    """Theorem 2's G_mu for one budget vector against the exact curves (the Theorem 2 chapter's table):
    the proof's pair (the differing user reveals, eq. (17)), Theorem 1's own pair for a most liberal
    differing user (:func:`theorem1_pair`), and the real shuffled binary randomized response with the
    others' inputs all 0 and the most liberal user differing. Returns (the table row, the curves (mu, T_revealing, T_randomized,
    delta_exact, delta_gdp) for the figure). Needs n small enough to enumerate outcomes (~1e4)."""
    from gspa.privacy.basics import fdp
    from gspa.privacy.basics import hypothesis as H
    from gspa.privacy.shuffle import protocol as PR
    from gspa.privacy.shuffle.accountant import personalized_pair

    eps, _ = check_budgets(eps)
    eps_grid = np.atleast_1d(V.nonnegative("eps_grid", eps_grid))
    n = eps.size
    mu = mu_theorem2(eps)
    rev = personalized_pair(eps, None, "revealing", reduction="clones")
    T_rev = rev.tradeoff(alpha)
    Q0, Q1 = theorem1_pair(eps)
    T_ran = np.minimum(H.tradeoff_curve(Q0, Q1, alpha), H.tradeoff_curve(Q1, Q0, alpha))
    j = int(np.argmax(eps))
    P0, P1 = PR.neighbouring_laws(np.zeros(n - 1, int), np.delete(eps, j), eps[j])
    T_real = np.minimum(H.tradeoff_curve(P0, P1, alpha), H.tradeoff_curve(P1, P0, alpha))
    c = eq15_shift(T_rev, alpha, mu)
    d_exact, d_gdp = rev.delta(eps_grid), fdp.gdp_delta(eps_grid, mu)
    keep = d_gdp > 1e-9
    tv = float(np.max(1 - alpha - T_rev))
    row = {
        "n": n,
        "mu": mu,
        "max (G_mu − T), revealing": gdp_excess(T_rev, alpha, mu).max(),
        "max (G_mu − T), randomized": gdp_excess(T_ran, alpha, mu).max(),
        "max (G_mu − T), real RR": gdp_excess(T_real, alpha, mu).max(),
        "smallest c of eq. (15)": c,
        "C = c·sqrt(n−1)": c * np.sqrt(n - 1),
        "TV (proof's pair)": tv,
        "C with μ = 0": tv / 2 * np.sqrt(n - 1),
        "max δ_exact/δ_GDP": float(np.max(d_exact[keep] / d_gdp[keep])),
    }
    return row, (mu, T_rev, T_ran, d_exact, d_gdp)


# ------------------------------------------------------------------------------ Theorem 2 chapter
#: users per budget vector of scenario_grid (the chapter's range; the exact laws cost seconds
#: beyond 10^4)
MAX_GRID_USERS = 10**5


def alpha_grid(n_alpha: int) -> np.ndarray:
    """The Theorem 2 chapter's grid of type I errors: ``n_alpha`` equally spaced points of [0, 1]
    (at least 3, at most 10^6) and 500 log-spaced points from 1e-10 to 1, sorted, without repeats
    (G_mu rises steeply near alpha = 0)."""
    n_alpha = V.integer("n_alpha", n_alpha, low=3, high=10**6)
    return np.unique(np.concatenate([np.linspace(0, 1, n_alpha), np.logspace(-10, 0, 500)]))


def scenario_grid(scenario_names, n_values, seed: int, alpha, eps_grid) -> dict:
    """Theorem 2's G_mu against the exact curves (:func:`against_exact`) for each of Table 2's
    scenarios in ``scenario_names`` and each n of ``n_values`` (3 to :data:`MAX_GRID_USERS` users),
    the budgets drawn from ``numpy.random.default_rng(seed)`` afresh for each (scenario, n), at most
    1,000 of them tiled to n (Figure 2's convention). Returns ``rows`` (the table, one row per
    (scenario, n), the scenario first) and ``curves``: per (scenario, n), Theorem 2's ``mu``,
    ``excess`` (G_mu - T of the proof's revealing pair on ``alpha``), and ``delta_exact`` and
    ``delta_gdp`` (the pair's delta(eps) and Fact 3's on ``eps_grid``)."""
    from gspa.studies.gspa.scenarios import SCENARIOS, budgets

    names = [V.choice("scenario_names", s, SCENARIOS) for s in scenario_names]
    n_values = [
        V.integer("n_values", n, low=3, high=MAX_GRID_USERS)
        for n in np.atleast_1d(n_values).tolist()
    ]
    seed = V.integer("seed", seed, low=0)
    alpha = V.probability("alpha", alpha, ndim=1)
    eps_grid = V.real("eps_grid", eps_grid, low=0.0, high=1e3, ndim=1)
    rows, curves = [], {}
    for s in names:
        for n in n_values:
            e = budgets(s, n, np.random.default_rng(seed), repeat=min(1000, n))
            row, (mu, T_rev, _, d_exact, d_gdp) = against_exact(e, alpha, eps_grid)
            rows.append({"scenario": s} | row)
            curves[(s, n)] = {
                "mu": mu,
                "excess": gdp_excess(T_rev, alpha, mu),
                "delta_exact": d_exact,
                "delta_gdp": d_gdp,
            }
    return {"rows": rows, "curves": curves}


def growth(constants) -> float:
    """How much eq. (15)'s constant grows with n: C at the largest n over C at the smallest (values in the
    order of n); 0 where C is 0 throughout, inf where it starts at 0 and becomes positive."""
    c = np.asarray(constants, dtype=float)
    if c[0] > 0:
        return float(c[-1] / c[0])
    return 0.0 if c[-1] == 0 else float("inf")


def _growth(rows, column) -> float:
    """The largest :func:`growth` of ``column`` over the scenarios (each scenario's rows in the order of n)."""
    by = {}
    for r in rows:
        by.setdefault(r["scenario"], []).append(r[column])
    return max(growth(v) for v in by.values())


def grid_summary(rows) -> dict:
    """What the Theorem 2 chapter reads off :func:`scenario_grid`'s rows: the largest excess of G_mu
    over the proof's revealing pair (``worst_excess``) and relative to that pair's TV
    (``rel_excess``); the largest excess over each exact curve (``excess``: revealing, Theorem 1's
    own pair, the real shuffled binary randomized response); the largest ratio of the exact
    delta(eps) to Fact 3's (``worst_ratio``); eq. (15)'s constant C (``C_max``) and its growth from
    the smallest n to the largest, the largest over the scenarios (``C_growth``; 0 where C vanishes
    at the smallest n); and the same for the C that eq. (15) needs with mu = 0 (``C0_max``,
    ``C0_growth``)."""
    col = lambda c: np.array([r[c] for r in rows], dtype=float)
    rev = col("max (G_mu − T), revealing")
    return {
        "worst_excess": float(rev.max()),
        "worst_ratio": float(col("max δ_exact/δ_GDP").max()),
        "excess": {
            "the proof's pair ρ′ (revealing)": float(rev.max()),
            "Theorem 1's pair (randomized)": float(col("max (G_mu − T), randomized").max()),
            "real shuffled binary RR": float(col("max (G_mu − T), real RR").max()),
        },
        "rel_excess": float((rev / col("TV (proof's pair)")).max()),
        "C_max": float(col("C = c·sqrt(n−1)").max()),
        "C_growth": _growth(rows, "C = c·sqrt(n−1)"),
        "C0_max": float(col("C with μ = 0").max()),
        "C0_growth": _growth(rows, "C with μ = 0"),
    }


#: eq. (17)'s small exact pairs: (users, delta_n, the others' budget, the differing user's budget)
EQ17_SETTINGS = (
    (4, 0.05, 0.8, 1.2),
    (6, 0.2, 0.5, 1.0),
    (4, 0.2, 4.0, 3.0),
    (4, 0.05, 2.0, 8.0),
    (6, 0.01, 1.0, 8.0),
)
MAX_EQ17_USERS = 12  # users of one exactly enumerated pair of eq. (17)


def eq17_gaps(settings=EQ17_SETTINGS, alpha=None) -> dict:
    """Eq. (17) of the proof of Theorem 2 on small exact pairs, for each setting (users n, delta_n,
    the others' budget, the differing user's budget; n in [2, 12], delta_n in (0, 1), budgets in
    [0, 50]): the n - 1 others report MultiBern(p, p, 1 - 2p), p = 1/(1 + e^eps), and the differing
    user as in eqs. (12)-(13) with its delta_n event in the shared third coordinate. On the ``alpha``
    grid (default 2,001 points of [0, 1]): ``mix_hi`` and ``mix_lo``, the largest and smallest value
    of eq. (17)'s right-hand side delta_n (1 - alpha) + (1 - delta_n) T_symm(rho'_0, rho'_1) minus
    the exact curve T(rho_0, rho_1) (an identity would give 0 and 0); and ``rev_gap``, the largest
    distance between :func:`gspa.privacy.basics.fdp.with_revealing_event` and the exact curve of the
    pair whose delta_n event is distinguishing (outcome A only under D_0, B only under D_1)."""
    from scipy import special

    from gspa.privacy.basics import fdp
    from gspa.privacy.basics import hypothesis as H
    from gspa.privacy.exact import enumeration

    a = np.linspace(0, 1, 2001) if alpha is None else V.probability("alpha", alpha, ndim=1)
    checked = []
    for s in settings:
        checked.append(
            (
                V.integer("settings n", s[0], low=2, high=MAX_EQ17_USERS),
                V.probability("settings delta_n", s[1], open_low=True, open_high=True, scalar=True),
                V.real("settings eps", s[2], low=0.0, high=50.0, scalar=True),
                V.real("settings eps_n", s[3], low=0.0, high=50.0, scalar=True),
            )
        )
    tradeoff = lambda P, Q, t: np.minimum(H.tradeoff_curve(P, Q, t), H.tradeoff_curve(Q, P, t))
    mix_hi, mix_lo, rev_gap = -np.inf, np.inf, 0.0
    for n17, dn, e_o, e_n in checked:
        p = np.full(n17 - 1, 1 / (1 + np.exp(e_o)))
        q = special.expit(e_n)
        base = [np.array([pi, pi, 1 - 2 * pi]) for pi in p]
        P = enumeration.histogram_law(base + [np.array([(1 - dn) * q, (1 - dn) * (1 - q), dn])])
        Q = enumeration.histogram_law(base + [np.array([(1 - dn) * (1 - q), (1 - dn) * q, dn])])
        Pp = enumeration.histogram_law(base + [np.array([1.0, 0, 0])])
        Qp = enumeration.histogram_law(base + [np.array([0, 1.0, 0])])
        Tp = np.maximum(H.tradeoff_curve(Pp, Qp, a), H.tradeoff_curve(Qp, Pp, a))
        gap = dn * (1 - a) + (1 - dn) * Tp - tradeoff(P, Q, a)
        mix_hi, mix_lo = max(mix_hi, float(gap.max())), min(mix_lo, float(gap.min()))
        # the distinguishing version: append outcomes A (only under D0) and B (only under D1)
        Pd, Qd = (
            np.concatenate([(1 - dn) * Pp, [dn, 0.0]]),
            np.concatenate([(1 - dn) * Qp, [0.0, dn]]),
        )
        revealing = fdp.with_revealing_event(lambda t: H.tradeoff_curve(Pp, Qp, t), dn)(a)
        rev_gap = max(rev_gap, float(np.max(np.abs(revealing - H.tradeoff_curve(Pd, Qd, a)))))
    return {"mix_hi": mix_hi, "mix_lo": mix_lo, "rev_gap": rev_gap}
