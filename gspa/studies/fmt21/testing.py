"""Uniformity testing in the local and shuffle models (the blog's "(Uniformity) Testing").

The blog (Canonne, "Privacy Doona", 2022, section "(Uniformity) Testing") states, for testing whether
p = u (uniform on [k]) or TV(p, u) > alpha with both errors at most 1/3:

* non-private: n = Theta(sqrt(k)/alpha^2)                                          [Paninski08];
* central DP:  n = Theta(sqrt(k)/alpha^2 + sqrt(k)/(alpha sqrt(eps)) + k^(1/3)/(alpha^(4/3) eps^(2/3))
  + 1/(alpha eps))                                                                 [ASZ18, ADR18];
* LDP, public coin, eq. (6):  k/(alpha^2 (e^eps - 1)^2) + k/(alpha^2 e^(eps/2)) + sqrt(k)/alpha^2;
* LDP, private coin, eq. (7): k^(3/2)/(alpha^2 (e^eps - 1)^2) + k^(3/2)/(alpha^2 e^eps) + sqrt(k)/alpha^2;
* shuffle, private coin (eq. (7) shuffled with eq. (5)'s eps_L):
  n = O(k^(3/4) sqrt(log(1/delta))/(alpha eps) + sqrt(k)/alpha^2);
* shuffle, public coin (eq. (6) shuffled): n = O(k^(2/3) log^(1/3)(1/delta)/(alpha^(4/3) eps^(2/3))
  + sqrt(k log(1/delta))/(alpha eps) + sqrt(k)/alpha^2).

Every rate here is evaluated with all its constants set to 1 (the blog's Theta/O hide them).

The tester simulated is private-coin: each user runs k-RR (:mod:`gspa.studies.fmt21.learning`) at the
largest eps_L the certified accountant allows for the central (eps, delta) with n users; the server
sees the shuffled reports, i.e. their counts Y, and computes the chi-square-type (collision) statistic
Z = sum_j ((Y_j - n/k)^2 - Y_j), whose mean is n^2 ||q - u||^2 - n ||q||^2 for report law q; it rejects
above a threshold calibrated by simulation under p = u (then q = u too). The alternative is the
perturbed-pairs distribution p_{2i}, p_{2i+1} = (1 ± 2 alpha)/k, at TV distance exactly alpha from u.
Since the users' samples are i.i.d., the reports are i.i.d. from q and their counts are exactly
Multinomial(n, q) (no per-user loop).

The limits are those of :mod:`gspa.studies.fmt21.learning`: the rates take k in [2, 10^15], alpha in
[1e-10, 1] (a TV distance; the alternative needs alpha <= 1/2), eps in [1e-8, 100], delta in (0, 1); a
simulation takes n <= 10^12 users and reps in [10, 10^6].
"""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V
from gspa.studies.fmt21.amplification import fitted_slope
from gspa.studies.fmt21.learning import (
    ALPHA_MIN,
    EPS_MAX,
    EPS_MIN,
    MAX_K,
    MAX_POINTS,
    MAX_SIM_USERS,
    MAX_USERS,
    certified_local_eps,
    krr_law,
    _delta,
    _eps,
    _eps_l,
    _reps,
    _rng,
)


def _kae(k, alpha, eps):
    """The rates' (k, alpha, eps), vectorised: k integers in [2, 1e15], alpha in [1e-10, 1], eps in [1e-8, 100]."""
    return (
        V.real("k", k, low=2, high=MAX_USERS),
        V.real("alpha", alpha, low=ALPHA_MIN, high=1.0),
        V.real("eps", eps, low=EPS_MIN, high=EPS_MAX),
    )


def _logd(delta):
    return np.log(1.0 / V.probability("delta", delta, open_low=True, open_high=True))


def rate_nonprivate(k, alpha):
    """sqrt(k)/alpha^2 [Paninski08], constants 1."""
    k, alpha, _ = _kae(k, alpha, 1.0)
    return np.sqrt(k) / alpha**2


def rate_central(k, alpha, eps):
    """The blog's central-DP rate, constants 1."""
    k, alpha, eps = _kae(k, alpha, eps)
    return (
        np.sqrt(k) / alpha**2
        + np.sqrt(k) / (alpha * np.sqrt(eps))
        + k ** (1 / 3) / (alpha ** (4 / 3) * eps ** (2 / 3))
        + 1.0 / (alpha * eps)
    )


def rate_eq6(k, alpha, eps):
    """Eq. (6), LDP public coin, constants 1."""
    k, alpha, eps = _kae(k, alpha, eps)
    return (
        k / (alpha**2 * np.expm1(eps) ** 2)
        + k / (alpha**2 * np.exp(eps / 2))
        + np.sqrt(k) / alpha**2
    )


def rate_eq7(k, alpha, eps):
    """Eq. (7), LDP private coin, constants 1."""
    k, alpha, eps = _kae(k, alpha, eps)
    return (
        k**1.5 / (alpha**2 * np.expm1(eps) ** 2)
        + k**1.5 / (alpha**2 * np.exp(eps))
        + np.sqrt(k) / alpha**2
    )


def rate_shuffle_private(k, alpha, eps, delta):
    """The blog's shuffle private-coin rate k^(3/4) sqrt(log(1/delta))/(alpha eps) + sqrt(k)/alpha^2, constants 1."""
    k, alpha, eps = _kae(k, alpha, eps)
    return k**0.75 * np.sqrt(_logd(delta)) / (alpha * eps) + np.sqrt(k) / alpha**2


def rate_shuffle_public(k, alpha, eps, delta):
    """The blog's shuffle public-coin rate, constants 1."""
    k, alpha, eps = _kae(k, alpha, eps)
    ld = _logd(delta)
    return (
        k ** (2 / 3) * ld ** (1 / 3) / (alpha ** (4 / 3) * eps ** (2 / 3))
        + np.sqrt(k * ld) / (alpha * eps)
        + np.sqrt(k) / alpha**2
    )


def perturbed_pairs(k, alpha):
    """p_{2i} = (1 + 2 alpha)/k, p_{2i+1} = (1 - 2 alpha)/k (k even in [2, MAX_K = 10^6], alpha in (0, 1/2]):
    TV(p, u) = alpha."""
    k = V.integer("k", k, low=2, high=MAX_K)
    if k % 2:
        raise ValueError(f"k must be even for the perturbed-pairs alternative, got {k}")
    alpha = float(V.real("alpha", alpha, low=0.0, high=0.5, low_open=True, scalar=True))
    return np.where(np.arange(k) % 2 == 0, 1.0 + 2.0 * alpha, 1.0 - 2.0 * alpha) / k


def statistic(counts):
    """Z = sum_j ((Y_j - n/k)^2 - Y_j) for each row of counts (finite, non-negative; the k >= 2 symbols last)."""
    y = V.finite("counts", counts, low=0.0)
    n = y.sum(-1, keepdims=True)
    return ((y - n / y.shape[-1]) ** 2 - y).sum(-1)


def power(n, k, alpha, eps, delta, reps, seed=0, level: float = 1 / 3, eps_l=None):
    """(power, threshold, eps_L) of the shuffled k-RR collision tester with n users: the threshold is the
    empirical (1 - level)-quantile of Z under p = u (``reps`` null runs), the power is the fraction of
    ``reps`` runs under the perturbed-pairs alternative with Z above it. eps_L: certified unless given.
    n in [2, 10^12]; k even in [2, 10^6]; alpha in (0, 1/2]; eps in [1e-8, 100] and delta in (0, 1) (used
    even when eps_l is given); reps in [10, 10^6]; level in (0, 1); eps_l None or
    in [1e-8, 60]."""
    n = V.integer("n", n, low=2, high=MAX_SIM_USERS)
    p = perturbed_pairs(k, alpha)
    k = p.size
    eps, delta, eps_l = _eps(eps), _delta(delta), _eps_l(eps_l)
    reps = _reps(reps, low=10)
    level = float(
        V.real("level", level, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True)
    )
    rng = _rng(seed)
    e = certified_local_eps(eps, delta, n, k) if eps_l is None else eps_l
    null = statistic(rng.multinomial(n, np.full(k, 1.0 / k), size=reps))
    alt = statistic(rng.multinomial(n, krr_law(p, e), size=reps))
    t = float(np.quantile(null, 1.0 - level))
    return float(np.mean(alt > t)), t, e


def needed_n(
    k,
    alpha,
    eps,
    delta,
    reps,
    seed=0,
    target: float = 2 / 3,
    n_lo: int = 4,
    n_hi: int = 10**9,
    steps: int = 24,
    eps_l=None,
):
    """The number of users at which the tester's power (at the null's 1/3 level) first reaches ``target``:
    bisection in log n between n_lo and n_hi (``steps`` halvings; each n simulated with a seed derived
    from ``seed`` and n). Returns (n, eps_L at n). n_hi must reach the target (else ValueError).
    ``eps_l``: a fixed local budget instead of the certified one (e.g. a large one: the non-private tester).
    Arguments as for :func:`power`; 2 <= n_lo < n_hi <= 10^12; target in (0, 1); steps in [1, 100]."""
    k = perturbed_pairs(k, alpha).size
    n_lo = V.integer("n_lo", n_lo, low=2, high=MAX_SIM_USERS - 1)
    n_hi = V.integer("n_hi", n_hi, low=n_lo + 1, high=MAX_SIM_USERS)
    target = float(
        V.real("target", target, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True)
    )
    seed, steps = V.integer("seed", seed, low=0), V.integer("steps", steps, low=1, high=100)
    eps, delta, eps_l = _eps(eps), _delta(delta), _eps_l(eps_l)
    reps = _reps(reps, low=10)
    pw = lambda n: power(
        n, k, alpha, eps, delta, reps, np.random.default_rng([seed, k, n]), eps_l=eps_l
    )
    if pw(n_hi)[0] < target:
        raise ValueError(
            f"n_hi = {n_hi} does not reach power {target:.3g} for k = {k}, alpha = {alpha}; raise n_hi"
        )
    lo, hi = n_lo, n_hi
    for _ in range(steps):
        if hi - lo <= 1:
            break
        mid = int(round(np.sqrt(lo * hi)))
        mid = min(max(mid, lo + 1), hi - 1)
        lo, hi = (mid, hi) if pw(mid)[0] < target else (lo, mid)
    return hi, (certified_local_eps(eps, delta, hi, k) if eps_l is None else float(eps_l))


def needed_table(k_values, alpha, eps, delta, reps, seed=0, **kw):
    """One row per k: measured n, certified eps_L there, and the blog's rates (constants 1). ``k_values``:
    1 to 100 even alphabet sizes; the other arguments (and ``kw``) as for :func:`needed_n`."""
    import pandas as pd

    k_values = [int(k) for k in V.real("k_values", k_values, ndim=1, max_size=100)]
    rows = []
    for k in k_values:
        n, e = needed_n(k, alpha, eps, delta, reps, seed, **kw)
        rows.append(
            {
                "k": int(k),
                "n": n,
                "eps_l": e,
                "shuffle_private": float(rate_shuffle_private(k, alpha, eps, delta)),
                "shuffle_public": float(rate_shuffle_public(k, alpha, eps, delta)),
                "eq7": float(rate_eq7(k, alpha, eps)),
                "central": float(rate_central(k, alpha, eps)),
                "nonprivate": float(rate_nonprivate(k, alpha)),
            }
        )
    return pd.DataFrame(rows)


def rate_krr_shuffled(k, alpha, eps, delta, n_hi: float = 1e15):
    """Not the blog's: the rate of *this* tester, k-RR plus the collision statistic, shuffled with eq. (5)'s
    eps_L (constants 1): the smallest n with n >= sqrt(k)/(alpha^2 pi^2), pi = k-RR's keep probability at
    eps_L(n) (the collision tester needs n^2 ||q - u||^2 >~ n ||q|| with ||q - u||^2 = 4 pi^2 alpha^2/k).
    For 1 << e^eps_L << k this is n ~ (k^(5/2) log^2(1/delta)/(alpha^2 eps^4))^(1/3): exponent 5/6 in k,
    not the 3/4 of an optimal private-coin LDP tester. Bisection in log n, vectorised over k.

    k: 1 to MAX_POINTS = 1000 integers in [2, 1e15]; alpha in [1e-10, 1]; eps in [1e-8, 100] (one each);
    delta in (0, 1); n_hi in [10, 1e15], which must satisfy the condition for every k (else ValueError)."""
    from gspa.studies.fmt21.learning import eq5_local_eps, keep_probability

    k, alpha, eps = _kae(k, alpha, eps)
    alpha, eps, delta = (
        float(V.real("alpha", alpha, scalar=True)),
        float(V.real("eps", eps, scalar=True)),
        _delta(delta),
    )
    k = np.atleast_1d(k)
    n_hi = V.real("n_hi", n_hi, low=10, high=MAX_USERS, scalar=True)
    pi_at = lambda n: np.array(
        [keep_probability(eq5_local_eps(eps, delta, max(x, 1.0)), kk) for x, kk in zip(n, k)]
    ).ravel()
    if np.any(
        np.full(k.shape, n_hi) < np.sqrt(k) / (alpha**2 * pi_at(np.full(k.shape, n_hi)) ** 2)
    ):
        raise ValueError(
            f"n_hi = {n_hi:g} is not enough for k up to {k.max():g}, alpha = {alpha}, eps = {eps}; raise n_hi"
        )
    lo, hi = np.zeros(k.shape), np.full(k.shape, np.log(n_hi))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        n = np.exp(mid)
        pi = pi_at(n)
        short = n < np.sqrt(k) / (alpha**2 * pi**2)
        lo, hi = np.where(short, mid, lo), np.where(short, hi, mid)
    return np.exp(hi)


def tester_n_approx(
    k,
    alpha,
    eps,
    delta,
    level: float = 1 / 3,
    target: float = 2 / 3,
    n_lo: int = 4,
    n_hi: int = 10**12,
):
    """Not the blog's: an approximation (Poissonized counts, normal statistic) of the n this tester needs,
    at the certified eps_L(n). With lambda_j = n q_j and m = n/k, Z has mean sum (lambda_j - m)^2 and
    variance sum 2 lambda_j^2 + 4 lambda_j (lambda_j - m)^2; the tester succeeds when the mean under the
    alternative exceeds z_(1-level) sd_null + z_target sd_alt. Smallest such n by bisection in log n
    (to 0.1 %; certified eps_L cached). k even in [2, 10^6]; alpha in (0, 1/2]; eps in [1e-8, 100]; delta in
    (0, 1); level and target in (0, 1); 2 <= n_lo < n_hi <= 10^12."""
    from scipy.stats import norm

    p = perturbed_pairs(k, alpha)
    k = p.size
    eps, delta = _eps(eps), _delta(delta)
    za = float(
        norm.ppf(
            1.0
            - V.real("level", level, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True)
        )
    )
    zb = float(
        norm.ppf(
            V.real("target", target, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True)
        )
    )
    n_lo = V.integer("n_lo", n_lo, low=2, high=MAX_SIM_USERS - 1)
    n_hi = V.integer("n_hi", n_hi, low=n_lo + 1, high=MAX_SIM_USERS)

    def ok(n):
        lam = n * krr_law(p, certified_local_eps(eps, delta, n, k))
        m = n / k
        mean = np.sum((lam - m) ** 2)
        return mean >= za * np.sqrt(2 * k * m**2) + zb * np.sqrt(
            np.sum(2 * lam**2 + 4 * lam * (lam - m) ** 2)
        )

    lo, hi = n_lo, n_hi
    if not ok(hi):
        raise ValueError(f"n_hi = {hi} is not enough for k = {k}, alpha = {alpha}; raise n_hi")
    while hi - lo > max(1.0, 1e-3 * lo):  # to 0.1 %
        mid = int(round(np.sqrt(lo * hi)))
        mid = min(max(mid, lo + 1), hi - 1)
        lo, hi = (mid, hi) if not ok(mid) else (lo, mid)
    return hi


# -- the testing chapter's table and fits (chapter fmt21/testing) ------------------------------------------

#: the predictions of the needed n whose exponents in k are compared with the measured one
PREDICTIONS = {"the blog's rate": "shuffle_private", "the tester's approximation": "approx"}


def needed_by_eps(k_values, alpha, eps_values, delta, reps, seed=0, steps: int = 14):
    """The blog's "(Uniformity) Testing" simulated: :func:`needed_table` for each central eps of ``eps_values``
    (seed ``seed + i`` for the i-th), with k-RR's own rate (:func:`rate_krr_shuffled`, column ``krr_rate``) and
    the tester's approximation (:func:`tester_n_approx`, column ``approx``) beside the measured n; one frame,
    column ``eps`` naming the budget."""
    import pandas as pd

    eps_values = V.real("eps_values", eps_values, ndim=1, max_size=MAX_POINTS)
    seed = V.integer("seed", seed, low=0, high=2**32 - 1 - eps_values.size)
    frames = []
    for i, eps in enumerate(eps_values):
        eps = float(eps)
        d = needed_table(k_values, alpha, eps, delta, reps, seed + i, steps=steps)
        d["krr_rate"] = rate_krr_shuffled(d.k.to_numpy(float), alpha, eps, delta)
        d["approx"] = [tester_n_approx(k, alpha, eps, delta) for k in d.k]
        frames.append(d.assign(eps=eps))
    return pd.concat(frames, ignore_index=True)


def exponent_fits(res):
    """Fitted exponents of n in k (the slope of log n against log k over the table's k), per central eps of a
    :func:`needed_by_eps` table: of the measured n, of the blog's private-coin rate and the tester's
    approximation (:data:`PREDICTIONS`), of k-RR's own rate, the blog's public-coin rate and eq. (7); and the
    measured exponent minus each prediction's, keyed ``"ε = <eps>, <prediction>"``."""
    import pandas as pd

    fits, diffs = [], {}
    for eps, d in res.groupby("eps", sort=False):
        row = {"eps": eps, "measured": fitted_slope(d.k, d.n)}
        for name, col in PREDICTIONS.items():
            row[name] = fitted_slope(d.k, d[col])
            diffs[f"ε = {eps:g}, {name}"] = row["measured"] - row[name]
        row["k-RR's rate with eq. (5)"] = fitted_slope(d.k, d.krr_rate)
        row["public coin (blog)"] = fitted_slope(d.k, d.shuffle_public)
        row["eq. (7), LDP"] = fitted_slope(d.k, d.eq7)
        fits.append(row)
    return pd.DataFrame(fits), diffs
