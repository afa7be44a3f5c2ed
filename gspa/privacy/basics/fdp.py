"""Functional differential privacy (f-DP) and Gaussian DP: Definition 3 and Facts 1–4 (Dong, Roth and Su 2022).
Derivations and checks: the f-DP chapter (book/chapters/gspa/fdp).

Paper items: Definition 3 (f-DP), Fact 1 (eq. (19), (eps, delta)-DP as f-DP), Fact 2
(post-processing), Fact 3 (mu-GDP, its (eps, delta(eps)) profile, group privacy and composition),
Fact 4 (a chain rule for trade-off functions). All facts are due to Dong, Roth and Su (2022).

Conventions: a trade-off function f maps a type I error alpha in [0, 1] to the smallest type II
error beta; larger f means more privacy. ``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special

from gspa.privacy.basics.hypothesis import _exp_times
from gspa.util import validate as V

__all__ = [
    "f_eps_delta",
    "f_eps_delta_as_printed",
    "gdp_tradeoff",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_compose",
    "gdp_group",
    "chain_bound",
    "is_tradeoff_function",
    "mc_gdp_delta",
    "mc_gdp_tradeoff",
    "inverse_tradeoff",
    "with_revealing_event",
    "tradeoff_from_profile",
]


MAX_GRID = 10**7  # grid points of is_tradeoff_function and inverse_tradeoff (80 MB each)
MAX_SAMPLES = 10**7  # Monte Carlo samples of mc_gdp_delta and mc_gdp_tradeoff
MAX_MC_CELLS = 5 * 10**7  # mc_gdp_delta: eps values x samples (400 MB per temporary)


def f_eps_delta(alpha, eps, delta):
    """Fact 1, eq. (19), corrected: f_{eps,delta}(alpha) = max{0, 1-delta-e^eps alpha, e^-eps (1-delta-alpha)}.

    (eps, delta)-DP is equivalent to f_{eps,delta}-DP (Dong–Roth–Su 2022, Prop. 2.5). ``eps`` may
    be inf (no privacy beyond delta: f = (1 - delta) at alpha = 0, else 0)."""
    alpha = V.probability("alpha", alpha)
    eps = V.nonnegative("eps", eps)
    delta = V.probability("delta", delta)
    return np.maximum.reduce(
        [
            np.zeros_like(alpha * eps * delta),
            1.0 - delta - _exp_times(eps, alpha),
            np.exp(-eps) * (1.0 - delta - alpha),
        ]
    )


def f_eps_delta_as_printed(alpha, eps, delta):
    """Fact 1, eq. (19) exactly as printed in the paper: its third term is e^-eps (1 - delta - eps).

    Kept only to show the misprint: this function is not a trade-off function (it is positive at
    alpha = 1 and exceeds 1 - alpha there). Use :func:`f_eps_delta`. ``eps`` must be finite."""
    alpha = V.probability("alpha", alpha)
    eps = V.finite("eps", eps, low=0.0)
    delta = V.probability("delta", delta)
    return np.maximum.reduce(
        [
            np.zeros_like(alpha * eps * delta),
            1.0 - delta - _exp_times(eps, alpha),
            np.exp(-eps) * (1.0 - delta - eps) + 0.0 * alpha,
        ]
    )


def gdp_tradeoff(alpha, mu):
    r"""The trade-off function :math:`G_\mu` of μ-GDP at type I error ``alpha`` (Fact 3).

    .. math:: G_\mu(\alpha) = T(N(0,1), N(\mu,1))(\alpha) = \Phi(\Phi^{-1}(1-\alpha) - \mu)

    ``mu = inf`` (no privacy: the two laws are told apart without error) gives 0 for every alpha."""
    alpha = V.probability("alpha", alpha)
    mu = V.nonnegative("mu", mu)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(mu), 0.0, special.ndtr(special.ndtri(1.0 - alpha) - mu))


def gdp_delta(eps, mu):
    r"""The privacy profile delta(eps) of a mu-GDP mechanism (Fact 3): it is (eps, delta(eps))-DP for
    every eps >= 0, and no smaller delta holds.

    .. math:: \delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^{\varepsilon}\,\Phi(-\varepsilon/\mu - \mu/2)

    The second term is evaluated as exp(eps + log Phi(.)) so that large eps does not overflow."""
    eps = V.nonnegative("eps", eps)
    mu = V.nonnegative("mu", mu)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = -eps / mu + mu / 2.0
        b = -eps / mu - mu / 2.0
        d = special.ndtr(a) - np.exp(eps + special.log_ndtr(b))
    d = np.where(mu == 0, 0.0, d)
    d = np.where(
        np.isinf(eps), np.where(np.isinf(mu), 1.0, 0.0), d
    )  # eps = inf: no loss exceeds it
    d = np.where(np.isinf(mu) & np.isfinite(eps), 1.0, d)  # mu = inf: blatantly non-private
    return np.maximum(d, 0.0)


def gdp_loss_tail(eps, mu):
    """P(L > eps) for the privacy loss L = log(dP/dQ) of mu-GDP's pair P = N(mu, 1), Q = N(0, 1) under P:
    L ~ N(mu^2/2, mu^2), so P(L > eps) = Phi(mu/2 - eps/mu). Definition 1's sentence reads delta as this
    probability; delta(eps) of Fact 3 is E_P[(1 - e^{eps - L})_+], never above it and usually below.
    ``eps`` >= 0 (array or number), ``mu`` > 0."""
    eps = V.nonnegative("eps", eps)
    mu = V.positive("mu", mu, scalar=True)
    with np.errstate(
        over="ignore"
    ):  # eps/mu beyond the largest double: the tail is 0, exactly what ndtr(-inf) gives
        out = special.ndtr(mu / 2.0 - eps / mu)
    return out if np.ndim(out) else float(out)


def gdp_epsilon(delta, mu):
    """Smallest eps >= 0 with gdp_delta(eps, mu) <= delta (Fact 3 inverted).

    Solved by root finding and then rounded *up* (by doubling steps of ulps) until the returned eps
    certifiably satisfies the inequality in floating point, so it is never optimistic."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    mu = V.nonnegative("mu", mu, scalar=True)
    if math.isinf(mu):
        return math.inf  # delta(eps) = 1 for every finite eps
    if gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = max(1.0, mu * mu)
    while gdp_delta(hi, mu) > delta:
        hi *= 2.0
    eps = optimize.brentq(lambda e: gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-14, rtol=1e-14)
    step = float(np.spacing(eps))  # round up by 1, 2, 4, ... ulps: the root-finder's eps can
    while gdp_delta(eps, mu) > delta:  # sit in a band where cancellation keeps delta just above
        eps, step = eps + step, 2.0 * step  # the target for very many ulps (tiny mu)
    return float(eps)


def gdp_mu(eps, delta) -> float:
    """The mu whose mu-GDP profile passes through (eps, delta): gdp_delta(eps, mu) = delta (it rises
    with mu). ``eps`` in (0, 1e6], ``delta`` in [1e-300, 1). Found by root-finding on log mu to 1e-13;
    where gdp_delta itself loses accuracy (delta near 1e-300 with a tiny eps) the profile through the
    result can miss delta by a few per cent — KaryPair uses it only as a starting point."""
    eps = V.real("eps", eps, low=0.0, high=1e6, low_open=True, scalar=True)
    delta = V.probability("delta", delta, open_high=True, scalar=True)
    if delta < 1e-300:
        raise ValueError(f"delta = {delta!r}: gdp_mu needs delta in [1e-300, 1)")
    f = lambda lm: float(np.log(max(gdp_delta(eps, math.exp(lm)), 1e-320)) - math.log(delta))
    lo, hi = -1.0, 1.0
    while f(lo) > 0:  # delta(eps) -> 0 as mu -> 0 (eps > 0): ends
        lo -= 2.0
    while f(hi) < 0:  # delta(eps) -> 1 as mu grows: ends
        hi += 2.0
    return math.exp(optimize.brentq(f, lo, hi, xtol=1e-13, rtol=1e-13))


def gdp_compose(mus) -> float:
    r"""Fact 3: the composition of mu_i-GDP mechanisms is :math:`\sqrt{\sum_i \mu_i^2}`-GDP (inf if one
    mu_i is, or if the sum overflows)."""
    mus = V.nonnegative("mus", mus)
    with np.errstate(over="ignore"):
        return float(np.sqrt(np.sum(np.square(mus))))


def gdp_group(mu, k) -> float:
    """Fact 3: a mu-GDP mechanism is k*mu-GDP for groups of size k."""
    mu = V.nonnegative("mu", mu, scalar=True)
    k = V.integer("k", k, low=1)
    return k * mu


def chain_bound(f, g, alpha):
    """Fact 4 (as used in the proof of Theorem 2): if T(P, Q) >= f and T(Q, R) >= g then
    T(P, R)(alpha) >= g(1 - f(alpha)).

    The paper prints the hypothesis as ``T(P, R) >= f``; with that hypothesis the conclusion is
    implied trivially (g(1 - f(alpha)) <= f(alpha) for every trade-off function g), see the f-DP
    chapter. ``f`` and ``g`` are callables on [0, 1]."""
    f, g = V.function("f", f), V.function("g", g)
    alpha = V.probability("alpha", alpha)
    inner = np.clip(1.0 - np.asarray(f(alpha), dtype=float), 0.0, 1.0)
    return np.asarray(g(inner), dtype=float)


def is_tradeoff_function(f, *, grid=2001, tol=1e-9) -> dict:
    """Check the defining properties of a trade-off function (Dong–Roth–Su 2022, Prop. 2.2):
    convex, continuous, non-increasing and f(alpha) <= 1 - alpha on [0, 1].

    Returns a dict of booleans (one per property) plus ``all``. ``grid`` in [3, MAX_GRID = 10^7]
    points, ``tol`` finite and >= 0."""
    f = V.function("f", f)
    grid = V.integer("grid", grid, low=3, high=MAX_GRID)
    tol = V.finite("tol", tol, low=0.0, scalar=True)
    a = np.linspace(0.0, 1.0, grid)
    y = np.asarray(f(a), dtype=float)
    d1 = np.diff(y)
    d2 = np.diff(y, 2)
    res = {
        "non_increasing": bool(np.all(d1 <= tol)),
        "convex": bool(np.all(d2 >= -tol)),
        "below_1_minus_alpha": bool(np.all(y <= 1.0 - a + tol)),
        "in_unit_interval": bool(np.all((y >= -tol) & (y <= 1.0 + tol))),
    }
    res["all"] = all(res.values())
    return res


def mc_gdp_delta(eps, mu, n, rng):
    """Monte Carlo estimate of the hockey-stick divergence between N(mu,1) and N(0,1).

    Uses the likelihood-ratio representation delta(eps) = E_P[(1 - e^{eps - L})_+] with
    L = mu X - mu^2/2, X ~ N(mu, 1). Returns (estimate, standard error) arrays over ``eps``.
    ``mu`` finite (at most 1e150, so that mu^2 is finite); ``n`` in [2, MAX_SAMPLES = 10^7] with at
    most MAX_MC_CELLS = 5e7 values of eps times n."""
    eps = V.nonnegative("eps", eps)
    mu = V.finite("mu", mu, low=0.0, high=1e150, scalar=True)
    n = V.integer("n", n, low=2, high=min(MAX_SAMPLES, MAX_MC_CELLS // max(eps.size, 1)))
    rng = V.generator("rng", rng)
    x = rng.normal(mu, 1.0, size=n)
    L = mu * x - mu * mu / 2.0
    with np.errstate(over="ignore", invalid="ignore"):  # e^(eps - L) = inf: the term is 0
        vals = np.maximum(1.0 - np.exp(np.subtract.outer(np.atleast_1d(eps), L)), 0.0)
    est = vals.mean(axis=1)
    se = vals.std(axis=1, ddof=1) / np.sqrt(n)
    return est.reshape(eps.shape), se.reshape(eps.shape)


def mc_gdp_tradeoff(mu, n, rng, thresholds):
    """Empirical errors of likelihood-ratio (threshold) tests between N(0,1) and N(mu,1).

    Rejects H0: N(0,1) when X > t. Returns (alpha_hat, beta_hat) arrays over ``thresholds`` (numbers,
    infinities allowed). ``mu`` finite; ``n`` in [2, MAX_SAMPLES = 10^7]."""
    mu = V.finite("mu", mu, low=0.0, scalar=True)
    n = V.integer("n", n, low=2, high=MAX_SAMPLES)
    rng = V.generator("rng", rng)
    t = V.real("thresholds", thresholds)
    x0 = np.sort(rng.normal(0.0, 1.0, size=n))
    x1 = np.sort(rng.normal(mu, 1.0, size=n))
    alpha = 1.0 - np.searchsorted(x0, t, side="right") / n
    beta = np.searchsorted(x1, t, side="right") / n
    return alpha, beta


def inverse_tradeoff(f, alpha, *, grid: int = 200_001):
    """f^{-1}(alpha) = inf{t in [0, 1] : f(t) <= alpha} for a non-increasing f on [0, 1]
    (Dong–Roth–Su 2022, Lemma A.2: T(Q, P) = T(P, Q)^{-1}). Under a *symmetric* neighbouring relation
    (Definition 1: replace one record) a mechanism that is f-DP is also f^{-1}-DP, hence
    max(f, f^{-1})-DP. Evaluated on a fine grid with linear interpolation (exact for the piecewise
    linear functions of Fact 1 up to the grid's rounding). ``grid`` in [3, MAX_GRID = 10^7]."""
    f = V.function("f", f)
    alpha = V.probability("alpha", alpha)
    grid = V.integer("grid", grid, low=3, high=MAX_GRID)
    t = np.linspace(0.0, 1.0, grid)
    y = np.asarray(f(t), dtype=float)
    # the smallest t with f(t) <= alpha: interpolate t as a function of the (non-increasing) f
    ys, ts = y[::-1], t[::-1]
    ys = np.maximum.accumulate(ys)  # non-decreasing for np.interp
    out = np.interp(alpha, ys, ts, left=1.0, right=0.0)
    return np.where(alpha >= y[0], 0.0, out)


def with_revealing_event(tradeoff, delta_n: float):
    """Trade-off function of the pair delta_n * A + (1 - delta_n) * P', delta_n * B + (1 - delta_n) * Q',
    where A and B are outcomes only one hypothesis produces (Lemma 4's distinguishing event):
    T(alpha) = (1 - delta_n) T'(alpha / (1 - delta_n)) for alpha <= 1 - delta_n, and 0 beyond.

    (The most powerful tests reject on B first — no type I error, power delta_n — then follow the
    tests of (P', Q') on the remaining mass, and accept on A last.) ``tradeoff`` is T' = T(P', Q')."""
    tradeoff = V.function("tradeoff", tradeoff)
    delta_n = V.probability("delta_n", delta_n, open_high=True, scalar=True)

    def T(alpha):
        alpha = V.probability("alpha", alpha)
        inner = np.minimum(alpha / (1.0 - delta_n), 1.0)
        return np.where(
            alpha <= 1.0 - delta_n, (1.0 - delta_n) * np.asarray(tradeoff(inner), dtype=float), 0.0
        )

    return T


def tradeoff_from_profile(alpha, eps_nodes, delta_nodes):
    """The trade-off function implied by a privacy profile: max over the nodes k of f_{eps_k, delta_k}(alpha).

    A mechanism that is (eps_k, delta_k)-DP for every k is f_{eps_k, delta_k}-DP for every k (Fact 1), hence
    f-DP for their pointwise maximum (Dong–Roth–Su 2022, Prop. 2.12, restricted to the nodes). With
    delta_k upper bounds on the true profile the result is a lower bound on the true (symmetric) trade-off
    curve; with the exact profile it converges to that curve as the nodes fill [0, inf) — without
    enumerating outcomes. Round-off is counted: each term is lowered by 8 u (1 + e^eps alpha), so the
    floating-point result stays below the exact maximum of the given nodes."""
    alpha = V.probability("alpha", alpha)
    eps_nodes = V.nonnegative("eps_nodes", eps_nodes)
    delta_nodes = V.probability("delta_nodes", delta_nodes)
    if eps_nodes.ndim != 1 or eps_nodes.shape != delta_nodes.shape or eps_nodes.size == 0:
        raise ValueError(
            f"eps_nodes and delta_nodes must be 1-d of the same non-zero length, got shapes "
            f"{eps_nodes.shape} and {delta_nodes.shape}"
        )
    a = np.atleast_1d(alpha).ravel()[:, None]
    e, d = eps_nodes[None, :], delta_nodes[None, :]
    ea = np.exp(e) * a
    slack = 8 * np.finfo(float).eps * (1.0 + ea)
    f = np.maximum(1.0 - d - ea, np.exp(-e) * (1.0 - d - a)) - slack
    out = np.maximum(f.max(axis=1), 0.0)
    return out.reshape(np.shape(alpha)) if np.ndim(alpha) else float(out[0])
