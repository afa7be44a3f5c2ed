"""Theorems 2 and 4 and the claims built on them (Figure 2, eq. (17), the introduction's trends), searched over
two-level budget vectors, and the exact re-verification of a violation by direct convolution.

The paper states Theorems 2 and 4 for any budgets (eps_i, delta_i) and any n. The searches here run over
*two-level* budget vectors — a fraction ``f`` of the n users at ``eps_lo``, the rest at ``eps_hi`` — which
contain the homogeneous case (f = 1), one user apart from all others (f n = 1) and every split between.
Each ``*_margin`` returns a float: >= 0 where the claim holds at that point, < 0 where it fails, in the
claim's units (see :func:`gspa.claims.domain.worst_case`).

Ground truth for shuffled binary randomized response (Algorithm 2) is the certified interval
[:func:`gspa.lower_bound`, :func:`gspa.personalized_pair`]; a violation found with the lower bound is
re-verified by :func:`rr_exact_delta`, which computes the exact count laws of one explicit pair of
neighbouring data sets by direct convolution of binomial laws (scipy), a code path independent of
:mod:`gspa.privacy.shuffle.clones` that the certified bounds use.
"""

from __future__ import annotations

import numpy as np
from scipy import signal, special, stats

from gspa.util import validate as V
from gspa.privacy.shuffle.lower import lower_bound
from gspa.privacy.basics.fdp import gdp_epsilon, gdp_tradeoff
from gspa.privacy.basics.hypothesis import hockey_stick, tradeoff_curve
from gspa.studies.gspa.theorem2 import eq15_shift, mu_theorem2

# Limits of the arguments (the searches' domains lie well inside: n <= 10**6, eps in [1e-3, 20]).
MAX_USERS = 10**7  # the exact laws cost time and memory in proportion to the number of users
MAX_EPS = 100.0


def _budget(name, value):
    return V.real(name, value, low=0.0, high=MAX_EPS, low_open=True, scalar=True)


def _histogram(values, counts):
    """(values, counts) of a budget histogram checked: values in (0, MAX_EPS], counts non-negative
    integers, one per value, summing to 2..MAX_USERS."""
    values = V.real("values", values, low=0.0, high=MAX_EPS, low_open=True, ndim=1)
    c = V.real("counts", counts, low=0.0, high=MAX_USERS)
    if c.shape != values.shape or not np.all(c == np.round(c)) or not 2 <= c.sum() <= MAX_USERS:
        raise ValueError(
            f"counts must be non-negative integers, one per budget, summing to 2..{MAX_USERS}; "
            f"got {counts!r}"
        )
    return values, c.astype(np.int64)


def two_level(n, f, eps_lo, eps_hi) -> tuple[np.ndarray, np.ndarray]:
    """Budget histogram of n users: k = round(f n), clipped to [1, n], users at ``eps_lo`` and n - k at
    ``eps_hi``; returns (values, counts) with empty groups dropped."""
    n = V.integer("n", n, low=2, high=MAX_USERS)
    f = V.probability("f", f, scalar=True)
    eps_lo, eps_hi = _budget("eps_lo", eps_lo), _budget("eps_hi", eps_hi)
    k = int(min(n, max(1, round(f * n))))
    values, counts = np.array([eps_lo, eps_hi]), np.array([k, n - k])
    keep = counts > 0
    return values[keep], counts[keep]


def max_budget(n, f, eps_lo, eps_hi, **_) -> float:
    """The largest budget of a searched budget vector (:func:`two_level`): both levels, or ``eps_lo``
    alone where round(f n) = n puts every user there. A holding region is stated in it."""
    return float(max(two_level(n, f, eps_lo, eps_hi)[0]))


def rr_neighbour_laws(values, counts) -> tuple[np.ndarray, np.ndarray]:
    """Exact laws of the number of reported 1s of shuffled binary randomized response on the pair of
    neighbouring data sets where a most liberal user's bit is 0 or 1 and every other user holds 0
    (Algorithm 2, lines 1-9; the count of 1s is sufficient for the shuffled reports). Each budget
    group's count is a binomial law (scipy.stats.binom, cut where its tails fall below 1e-300), the
    groups are convolved (scipy.signal.fftconvolve, negatives of round-off clipped). Returns (P0, P1)
    aligned over the same counts."""
    values, counts = _histogram(values, counts)
    j = int(np.argmax(values))
    counts[j] -= 1
    law, offset = np.ones(1), 0
    for e, c in zip(values, counts):
        if c == 0:
            continue
        p = float(special.expit(-e))  # P(report 1 | bit 0)
        lo, hi = stats.binom.isf(1.0 - 1e-300, c, p), stats.binom.isf(1e-300, c, p)
        lo = int(max(0, np.nan_to_num(lo) - 1))
        hi = int(min(c, np.nan_to_num(hi, nan=c) + 1))
        k = np.arange(lo, hi + 1)
        law = (
            np.clip(signal.fftconvolve(law, stats.binom.pmf(k, c, p)), 0.0, None)
            if law.size > 1 or k.size > 1
            else law * stats.binom.pmf(k, c, p)
        )
        offset += lo
    law = law / law.sum()
    a0, a1 = float(special.expit(-values[j])), float(special.expit(values[j]))
    P0 = np.concatenate([law * (1 - a0), [0.0]]) + np.concatenate([[0.0], law * a0])
    P1 = np.concatenate([law * (1 - a1), [0.0]]) + np.concatenate([[0.0], law * a1])
    return P0, P1


def rr_exact_delta(values, counts, eps) -> float:
    """delta(eps) of the explicit pair of :func:`rr_neighbour_laws` (both directions): a lower bound on
    the shuffled protocol's delta(eps), computed independently of the certified bounds."""
    P0, P1 = rr_neighbour_laws(values, counts)
    return float(max(hockey_stick(P0, P1, eps), hockey_stick(P1, P0, eps)))


def thm2_validity_margin(n, f, eps_lo, eps_hi, delta) -> float:
    """Figure 2's use of Theorem 2 as a bound, for binary randomized response: Theorem 2's central eps
    (Fact 3 at ``delta``) minus the certified lower bound on the real protocol's eps(delta)
    (:func:`gspa.lower_bound`). Negative: Theorem 2's eps is provably too small there."""
    values, counts = two_level(n, f, eps_lo, eps_hi)
    thm2 = gdp_epsilon(delta, mu_theorem2(values, counts=counts))
    return float(thm2 - lower_bound(values, counts=counts).epsilon(delta))


def thm2_violation_confirmed(n, f, eps_lo, eps_hi, delta) -> dict:
    """Re-verify a violation of :func:`thm2_validity_margin` independently: the exact delta of the
    explicit neighbouring pair (:func:`rr_exact_delta`) at Theorem 2's eps. If it exceeds ``delta``, the
    protocol's eps(delta) is larger than Theorem 2's: the claimed bound is false there."""
    values, counts = two_level(n, f, eps_lo, eps_hi)
    thm2 = gdp_epsilon(delta, mu_theorem2(values, counts=counts))
    d = rr_exact_delta(values, counts, thm2)
    return {
        "eps_theorem2": float(thm2),
        "exact_delta_at_it": d,
        "delta": float(delta),
        "confirmed": bool(d > delta),
    }


def _relative_excess(P0, P1, mu, alpha=None) -> float:
    """sup over alpha of (G_mu - T) / TV for the pair (P0, P1), T the min of both directions."""
    if alpha is None:
        alpha = np.unique(np.concatenate([np.linspace(0, 1, 2001), np.logspace(-12, 0, 400)]))
    T = np.minimum(tradeoff_curve(P0, P1, alpha), tradeoff_curve(P1, P0, alpha))
    tv = float(np.max(1.0 - alpha - T))
    excess = float(np.max(gdp_tradeoff(alpha, mu) - T))
    return excess / tv if tv > 0 else (0.0 if excess <= 0 else np.inf)


def gdp_relative_excess(values, counts) -> float:
    """sup over alpha of (G_mu - T_real) divided by the total variation of the real pair, where mu is
    Theorems 2 and 4's and T_real the exact trade-off curve of the explicit neighbouring pair of shuffled
    binary randomized response (:func:`rr_neighbour_laws`; min of both directions). The protocol's curve
    lies below T_real, so a positive excess means G_mu claims more privacy than Algorithm 2 has."""
    return _relative_excess(*rr_neighbour_laws(values, counts), mu_theorem2(values, counts=counts))


def gdp_relative_excess_clones(values, counts) -> float:
    """:func:`gdp_relative_excess` recomputed with the count laws of :func:`gspa.privacy.shuffle.protocol.neighbouring_laws`
    (certified Poisson-binomial laws of :mod:`gspa.privacy.shuffle.clones`, per user): the independent check of a
    violation found with the binomial convolution."""
    from gspa.privacy.shuffle.protocol import neighbouring_laws

    values, counts = _histogram(values, counts)
    eps = np.repeat(values, counts)
    j = int(np.argmax(eps))
    P0, P1 = neighbouring_laws(np.zeros(eps.size - 1, int), np.delete(eps, j), eps[j])
    return _relative_excess(P0, P1, mu_theorem2(values, counts=counts))


#: Relative excess below which G_mu and an exact curve count as equal (round-off of the exact laws is ~1e-14).
EXCESS_TOL = 1e-9


def gdp_bound_margin(n, f, eps_lo, eps_hi) -> float:
    """G_mu of Theorem 2 used as the privacy guarantee itself (Figure 2; the Abstract): ``EXCESS_TOL`` minus the
    relative excess of :func:`gdp_relative_excess` over the real shuffled binary randomized response's explicit
    pair of neighbours. Negative: mu-GDP claims more privacy than Algorithm 2 has there."""
    return float(EXCESS_TOL - gdp_relative_excess(*two_level(n, f, eps_lo, eps_hi)))


def gdp_bound_confirm(n, f, eps_lo, eps_hi) -> bool:
    """Independent re-check of a violation of :func:`gdp_bound_margin` with the certified per-user count laws
    (:func:`gdp_relative_excess_clones`)."""
    return bool(gdp_relative_excess_clones(*two_level(n, f, eps_lo, eps_hi)) > EXCESS_TOL)


def rr_eq15_constant(values, counts, alpha) -> float:
    """Eq. (15)'s constant for Theorem 4 on Algorithm 2 itself: C = c sqrt(n - 1), c the smallest shift with
    T_real >= G_mu(alpha + c) - c on the grid ``alpha`` (:func:`gspa.studies.gspa.theorem2.eq15_shift`), mu
    Theorem 4's and T_real the min of both directions of the real protocol's pair (:func:`rr_neighbour_laws`)."""
    values, counts = _histogram(values, counts)
    P0, P1 = rr_neighbour_laws(values, counts)
    alpha = V.probability("alpha", alpha, ndim=1)
    T = np.minimum(tradeoff_curve(P0, P1, alpha), tradeoff_curve(P1, P0, alpha))
    c = eq15_shift(T, alpha, mu_theorem2(values, counts=counts))
    return float(c * np.sqrt(counts.sum() - 1))


def thm4_eq15_rows(n_values, alpha, fractions, budgets, clones: float = 1.0) -> list[dict]:
    """Eq. (15)'s constant for Algorithm 2 (:func:`rr_eq15_constant`) as n grows, for each n of ``n_values``
    (3 to 10^6): with the budget ``budgets[i]`` held by a share ``fractions[i]`` of the users (Figure 3's
    groups, C allowed to depend on the budgets' distribution) and along the family that leaves few clones
    (every user at eps = log(n/``clones`` - 1), so that n p stays ``clones``: one C for all budgets)."""
    from gspa.studies.gspa.estimation import group_budgets

    clones = V.real("clones", clones, low=0.0, low_open=True, high=1e3, scalar=True)
    rows = []
    for n in np.atleast_1d(n_values).tolist():
        n = V.integer("n_values", n, low=max(3, int(2 * clones) + 1), high=10**6)
        values, counts = np.unique(group_budgets(n, fractions, budgets), return_counts=True)
        rows.append(
            {
                "n": n,
                "C, Figure 3's budgets": rr_eq15_constant(values, counts, alpha),
                "C, few clones": rr_eq15_constant([np.log(n / clones - 1.0)], [n], alpha),
            }
        )
    return rows


def thm4_margin(n, f, eps_lo, eps_hi, tol: float = 0.1) -> float:
    """Theorem 4 ('Algorithm 2 approximately preserves mu-GDP') read as the book reads Theorem 2's
    'approximately' (chapter Theorem 2, claim thm2-approx-gdp): ``tol`` minus the relative excess of
    :func:`gdp_relative_excess`."""
    tol = V.finite("tol", tol, low=0.0, scalar=True)
    return float(tol - gdp_relative_excess(*two_level(n, f, eps_lo, eps_hi)))


def _sd(kind, n, f_c, eps_c, eps_m, eps_l, f_l):
    """Exact standard deviation of Algorithm 1's (kind 'mean', data range 1) or Algorithm 2's (kind
    'frequency', density 1/2, records matched to budgets at random) error for three budget groups."""
    from gspa.studies.gspa import estimation as E

    b = E.group_budgets(int(n), [f_c, 1.0 - f_l - f_c, f_l], [eps_c, eps_m, eps_l])
    if kind == "mean":
        return E.mean_error_sd(b, 0.0, 1.0)
    return float(np.sqrt(E.frequency_variance_random(E.binary_data(int(n), 0.5), b)))


def _trend_args(n, f_c, eps_c, ratio_m, ratio_l):
    """The checked arguments of the Figure 3 trend margins (f_L = 0.09 leaves f_C <= 0.91)."""
    return (
        V.integer("n", n, low=2, high=MAX_USERS),
        V.real("f_c", f_c, low=0.0, high=0.91, scalar=True),
        V.real("eps_c", eps_c, low=1e-6, high=MAX_EPS, scalar=True),
        V.real("ratio_m", ratio_m, low=1e-3, high=1e3, scalar=True),
        V.real("ratio_l", ratio_l, low=1e-3, high=1e3, scalar=True),
    )


def fc_trend_margin(n, f_c, eps_c, ratio_m, ratio_l, step: float = 0.01) -> float:
    """Figure 3 (a), (c): 'an increase in the proportion of conservative users leads to a decrease in
    estimation accuracy'. The exact error sd of both algorithms at f_C + ``step`` relative to f_C (f_L =
    0.09, eps_M = ratio_m eps_C, eps_L = ratio_l eps_M); the smaller relative increase of the two
    (>= 0: the error does not fall)."""
    n, f_c, eps_c, ratio_m, ratio_l = _trend_args(n, f_c, eps_c, ratio_m, ratio_l)
    step = V.real("step", step, low=0.0, high=1.0, low_open=True, scalar=True)
    eps_m, f_l = eps_c * ratio_m, 0.09
    out = []
    for kind in ("mean", "frequency"):
        a, b = (
            _sd(kind, n, x, eps_c, eps_m, eps_m * ratio_l, f_l)
            for x in (f_c, min(f_c + step, 1 - f_l))
        )
        out.append((b - a) / a if a > 0 else b - a)
    return float(min(out))


def epsc_trend_margin(n, f_c, eps_c, ratio_m, ratio_l, step: float = 1.05) -> float:
    """Figure 3 (b), (d): 'increasing privacy budget is beneficial for improving accuracy'. The relative
    fall of the exact error sd of both algorithms when eps_C grows by the factor ``step`` (the others'
    budgets fixed at eps_M = ratio_m eps_C, eps_L = ratio_l eps_M); the smaller of the two (>= 0: the
    error does not grow)."""
    n, f_c, eps_c, ratio_m, ratio_l = _trend_args(n, f_c, eps_c, ratio_m, ratio_l)
    step = V.real("step", step, low=1e-3, high=1e3, scalar=True)
    eps_m, f_l = eps_c * ratio_m, 0.09
    out = []
    for kind in ("mean", "frequency"):
        a, b = (_sd(kind, n, f_c, e, eps_m, eps_m * ratio_l, f_l) for e in (eps_c, eps_c * step))
        out.append((a - b) / a if a > 0 else a - b)
    return float(min(out))


def thm2_approx_excess(n, f, eps_lo, eps_hi) -> dict:
    """sup over alpha of (G_mu - T) / TV for the pair Theorem 2 states, rho_0 and rho_1 of eqs. (12)-(13)
    (:func:`gspa.studies.gspa.theorem2.theorem1_pair`), for each candidate differing user of the two-level
    budgets — one at ``eps_lo`` and one at ``eps_hi`` — with the others' clones as they are: the statement's
    own object for an actual differing user, not the accountant's cover. Returns {budget: excess}."""
    from gspa.studies.gspa.theorem2 import theorem1_pair

    values, counts = two_level(n, f, eps_lo, eps_hi)
    mu = mu_theorem2(values, counts=counts)
    return {
        float(values[j]): _relative_excess(*theorem1_pair(values, counts=counts, differing=j), mu)
        for j in range(values.size)
    }


def thm2_approx_margin(n, f, eps_lo, eps_hi, tol: float = 0.1) -> float:
    """Theorem 2's 'approximately mu-GDP' as the Theorem 2 chapter reads it (claim thm2-approx-gdp):
    ``tol`` minus the largest relative excess of :func:`thm2_approx_excess` over the candidate differing users
    (the theorem is stated for every differing user, so one that fails is a counterexample). (The proof's
    intermediate pair, whose differing user reveals its input, has T(0) = 1 - prod_i (1 - p_i) < 1 = G_mu(0):
    an excess at alpha = 0 that says nothing about the theorem's own pair.)"""
    tol = V.finite("tol", tol, low=0.0, scalar=True)
    return float(tol - max(thm2_approx_excess(n, f, eps_lo, eps_hi).values()))


def delta_event_tv(eps_n, delta_n) -> float:
    """Eq. (16) given Delta_2 = 1: the law of (Delta_0, Delta_1, Delta_2) conditioned on the delta_n
    event, under the two data sets of eqs. (12)-(13) (the differing user's budget eps_n enters only the
    other two outcomes); returns their total variation (0: indistinguishable)."""
    eps_n = V.positive("eps_n", eps_n, scalar=True)
    delta_n = V.probability("delta_n", delta_n, open_low=True, scalar=True)
    q = float(special.expit(eps_n))
    rows = [
        np.array([(1 - delta_n) * q, (1 - delta_n) * (1 - q), delta_n]),
        np.array([(1 - delta_n) * (1 - q), (1 - delta_n) * q, delta_n]),
    ]
    cond = [np.where(np.arange(3) == 2, r, 0.0) / r[2] for r in rows]
    return float(0.5 * np.abs(cond[0] - cond[1]).sum())


def thm2_approx_confirm(n, f, eps_lo, eps_hi, tol: float = 0.1, max_n: int = 3000) -> bool | None:
    """Re-verify a violation of :func:`thm2_approx_margin` independently: the law of the others' (0s, 1s) in
    eqs. (12)-(13) from the multinomial probability function of each budget group in closed form, the two
    groups convolved in two dimensions (scipy.signal.fftconvolve, round-off clipped) — not the clone-count
    decomposition the margin uses — then the differing user's own bit by randomized response, for each
    candidate differing user (one of each budget). True when the excess exceeds ``tol`` for one of them. None
    above ``max_n`` users (the arrays grow as n²)."""
    from gspa.studies.gspa.clt import trinomial_pmf

    tol = V.finite("tol", tol, low=0.0, scalar=True)
    max_n = V.integer("max_n", max_n, low=2, high=5000)
    values, counts = two_level(n, f, eps_lo, eps_hi)
    if counts.sum() > max_n:
        return None
    mu = mu_theorem2(values, counts=counts)
    for j in range(values.size):
        others = counts.copy()
        others[j] -= 1
        law = np.ones((1, 1))
        for e, c in zip(values, others):
            if c:
                law = np.clip(
                    signal.fftconvolve(law, trinomial_pmf(int(c), float(special.expit(-e)))),
                    0.0,
                    None,
                )
        law = law / law.sum()
        r = float(special.expit(values[j]))
        zero, one = (
            np.pad(law, ((1, 0), (0, 1))),
            np.pad(law, ((0, 1), (1, 0))),
        )  # one more 0, one more 1
        P0, P1 = (r * zero + (1 - r) * one).ravel(), ((1 - r) * zero + r * one).ravel()
        if _relative_excess(P0, P1, mu) > tol:
            return True
    return False


def _line7(cfg, eps, delta):
    """(eps, cfg read with Algorithm 3's line-7 sigma and local delta ``delta``), checked."""
    import dataclasses

    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    return _budget("eps", eps), dataclasses.replace(cfg, sigma_rule="paper", delta=delta)


def thm5_client_ldp_margin(cfg, eps, delta) -> float:
    """Proof of Theorem 5: "client j satisfies (eps_j, delta_j)-LDP" with Algorithm 3's line-7 noise, for any
    budget. Margin eps_j - (the eps the released step g~ + b really has at delta_j), from
    :func:`gspa.studies.gspa.private_sgd.client_epsilon` (sensitivity 2C, the inverted Gaussian profile);
    ``cfg`` is the run's configuration, read with line 7's sigma and local delta ``delta``."""
    from gspa.studies.gspa.private_sgd import client_epsilon

    eps, line7 = _line7(cfg, eps, delta)
    return float(eps - client_epsilon(line7, [eps])[0])


def thm5_client_ldp_confirmed(cfg, eps, delta) -> bool:
    """Independent re-check of a violation of :func:`thm5_client_ldp_margin`: the exact delta of the Gaussian
    mechanism with line 7's sigma and sensitivity 2C at eps_j (closed form of Balle–Wang 2018,
    :func:`gspa.privacy.basics.mechanisms.gaussian_delta`, not the inversion the margin uses) exceeds delta_j."""
    from gspa.privacy.basics.mechanisms import gaussian_delta

    eps, line7 = _line7(cfg, eps, delta)
    sigma = float(line7.sigma([eps])[0])
    return bool(gaussian_delta(eps, sigma, 2.0 * cfg.clip) > delta)


def delta_event_margin(eps_n, delta_n) -> float:
    """The margin of eq. (16)'s "when Delta_2 = 1, rho_0 and rho_1 are indistinguishable" at the differing
    user's budget (eps_n, delta_n): minus the total variation given Delta_2 = 1 (:func:`delta_event_tv`); 0
    where the claim holds."""
    return -delta_event_tv(eps_n, delta_n)
