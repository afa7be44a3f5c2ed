"""Distribution learning over k symbols in the local, shuffle and central models (the blog's "Learning").

The blog (Canonne, "Privacy Doona", 2022, section "Learning") states three sample complexities for
learning a distribution p over [k] to total variation alpha from n i.i.d. samples, one per user:

* central (eps, delta)-DP:  n = Theta(k/alpha^2 + k/(alpha eps))   [DHS15];
* local eps-LDP, eq. (4):   n = Theta(k^2/(alpha^2 (e^eps - 1)^2) + k^2/(alpha^2 e^eps) + k/alpha^2)   [ASZ19];
* shuffle, by shuffling an optimal LDP algorithm with eps_L chosen by eq. (5),
  eps_L ~ eps sqrt(n/log(1/delta)) if eps^2 n/log(1/delta) < 1, else e^eps_L ~ eps^2 n/log(1/delta):
  n = O(k/alpha^2 + k sqrt(log(1/delta))/(alpha eps)) — "matches the one in the central DP setting".

Here the three models are simulated with one concrete algorithm each:

* **local**: k-ary randomized response (k-RR) at eps_L = eps, the unbiased frequency estimator,
  then the Euclidean projection onto the probability simplex (sort-based; Held–Wolfe–Crowder 1974,
  Duchi et al. 2008);
* **shuffle**: the same k-RR at the *largest* eps_L whose shuffle the certified accountant
  (:func:`gspa.privacy.shuffle.accountant.personalized_pair`, ``randomizer="k-rr"``, one common budget) certifies
  (eps, delta)-DP, found by bisection on eps_L (:func:`certified_local_eps`); the blog's eq. (5)
  value is :func:`eq5_local_eps`;
* **central**: the Laplace histogram, counts + Lap(2/eps) per symbol (L1 sensitivity 2 when one user's
  sample is replaced, the neighbouring relation of the shuffle accountant), divided by n and
  projected the same way; it is (eps, 0)-DP, hence (eps, delta)-DP.

k-RR with budget e reports the true symbol with probability e^e/(e^e + k - 1) and each other symbol
with probability 1/(e^e + k - 1); equivalently, it keeps the symbol with probability
pi = (e^e - 1)/(e^e + k - 1) and otherwise reports a uniform symbol of [k]. That second form gives the
exact count-level sampler :func:`krr_counts` (given the true counts: a binomial per symbol for the kept
reports plus one uniform multinomial for the rest), so no loop over users is needed.

Note (not the blog's statement, a property of k-RR): its error is about
sqrt(k/n) (e^e + k - 1)/(e^e - 1) / 2 in TV, i.e. n ~ k (e^e + k)^2/(alpha^2 (e^e - 1)^2), which
meets eq. (4) only when e^e >~ k; below that, k-RR is *not* an optimal LDP algorithm (eq. (4) needs
Hadamard response, subset selection or similar).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from gspa.util import validate as V
from gspa.privacy.shuffle.accountant import personalized_pair
from gspa.studies.fmt21.amplification import fitted_slope

MODELS = ("local", "shuffle", "central")
EPS_L_MAX = 60.0  # the bisection for the certified eps_L never goes above this
MAX_USERS = 1e15  # largest n (or k) of the closed forms; the book's n and k stay below 10^9
# Limits of the simulations and of the rates: far above the book's settings (n <= 10^9,
# k <= 10^4 in the chapters' declared domains), they keep every rate a finite float.
EPS_MIN, EPS_MAX = (
    1e-8,
    100.0,
)  # central eps of the rates and simulations (eq. (5)'s eps is <= 100 too)
ALPHA_MIN, ALPHA_MAX = (
    1e-10,
    1e10,
)  # accuracy alpha at which the rates are evaluated (see rate_local)
MAX_SIM_USERS = 10**12  # n of one simulated run (the accountant certifies up to 10^13)
MAX_K = 10**6  # alphabet size of a simulation (the rates take up to MAX_USERS)
MAX_REPS = 10**6  # repetitions of one simulation
MAX_POINTS = 1000  # values of n (or eps, k) one call loops over


# -- k-ary randomized response --------------------------------------------------------------------


def _k(k) -> int:
    return V.integer("k", k, low=2)


def _eps(eps, name="eps"):
    """A central budget eps in [EPS_MIN, EPS_MAX] = [1e-8, 100]."""
    return float(V.real(name, eps, low=EPS_MIN, high=EPS_MAX, scalar=True))


def _delta(delta) -> float:
    return float(V.probability("delta", delta, open_low=True, open_high=True, scalar=True))


def _eps_l(eps_l):
    """A local budget given instead of the certified one: None or in [1e-8, EPS_L_MAX]."""
    return (
        None
        if eps_l is None
        else float(V.real("eps_l", eps_l, low=EPS_MIN, high=EPS_L_MAX, scalar=True))
    )


def _reps(reps, low=1) -> int:
    return V.integer("reps", reps, low=low, high=MAX_REPS)


def _n_list(name, values, *, distinct=1):
    """A list of integers (a scalar counts as one value); a slope needs ``distinct`` different ones."""
    out = [
        V.integer(name, v, low=2, high=MAX_SIM_USERS)
        for v in np.atleast_1d(np.asarray(values, dtype=object))
    ]
    if len(set(out)) < distinct:
        raise ValueError(f"{name} must hold at least {distinct} different values, got {out}")
    return out


def keep_probability(eps_l, k):
    """pi = (e^eps_L - 1)/(e^eps_L + k - 1): k-RR keeps the true symbol with probability pi and otherwise
    reports a uniform symbol (computed without overflow for large eps_L)."""
    eps_l = V.nonnegative("eps_l", eps_l)
    k = _k(k)
    return -np.expm1(-eps_l) / (1.0 + (k - 1) * np.exp(-eps_l))


def krr_law(p, eps_l):
    """Output law of k-RR with budget eps_L on inputs drawn from p (rows of ``p`` are distributions):
    q = pi p + (1 - pi)/k."""
    p = _distribution(p)
    k = p.shape[-1]
    pi = keep_probability(eps_l, k)
    return pi * p + (1.0 - pi) / k


def _distribution(p):
    return V.real("p", p, low=0.0, high=1.0)


def _rng(seed):
    return (
        seed
        if isinstance(seed, np.random.Generator)
        else np.random.default_rng(V.integer("seed", seed, low=0))
    )


def krr_counts(counts, eps_l, seed=0):
    """Exact sampler of the k-RR report counts given the true counts (last axis: the k symbols; any
    leading axes are independent repetitions): each user keeps its symbol with probability pi
    (Binomial(counts_j, pi) kept reports of symbol j) and otherwise reports a uniform symbol
    (Multinomial(n - kept, uniform)). Same law as running k-RR user by user (:func:`krr_per_user`)."""
    counts = np.asarray(counts)
    k = _k(counts.shape[-1])
    rng = _rng(seed)
    pi = float(keep_probability(V.nonnegative("eps_l", eps_l, scalar=True), k))
    kept = rng.binomial(counts, pi)
    rest = counts.sum(-1) - kept.sum(-1)
    return kept + rng.multinomial(rest, np.full(k, 1.0 / k))


def krr_per_user(x, eps_l, k, seed=0):
    """Reference implementation: k-RR applied to each user's symbol ``x`` (integers in [0, k)) separately
    (for tests of :func:`krr_counts`; it loops over nothing but is per-user in memory)."""
    k = _k(k)
    x = np.asarray(x)
    e = float(V.nonnegative("eps_l", eps_l, scalar=True))
    rng = _rng(seed)
    stay = (
        rng.random(x.shape) < np.exp(e) / (np.exp(e) + k - 1) if e < 700 else np.ones(x.shape, bool)
    )
    other = rng.integers(0, k - 1, size=x.shape)  # a uniform symbol among the k - 1 others
    other = other + (other >= x)
    return np.where(stay, x, other)


def unbiased_estimate(report_counts, eps_l):
    """The unbiased frequency estimator of k-RR: p_hat = (Y/n - (1 - pi)/k)/pi (rows of counts)."""
    y = V.finite("report_counts", report_counts, low=0.0)
    k = _k(y.shape[-1])
    n = y.sum(-1, keepdims=True)
    pi = keep_probability(eps_l, k)
    return (y / n - (1.0 - pi) / k) / pi


def project_simplex(v):
    """Euclidean projection of each row of ``v`` onto the probability simplex (the sort-based algorithm
    of Held, Wolfe and Crowder 1974; Duchi, Shalev-Shwartz, Singer and Chandra 2008), vectorised."""
    v = V.real("v", v)
    k = v.shape[-1]
    u = -np.sort(-v, axis=-1)
    css = np.cumsum(u, axis=-1) - 1.0
    idx = np.arange(1, k + 1)
    cond = u - css / idx > 0
    rho = k - 1 - np.argmax(cond[..., ::-1], axis=-1)  # last index where cond holds
    theta = np.take_along_axis(css, rho[..., None], -1) / (rho[..., None] + 1.0)
    return np.maximum(v - theta, 0.0)


def tv(p, q):
    """Total variation distance, half the L1 distance of the last axis."""
    p, q = (
        V.real(name, v, low=0.0, high=1.0 + 1e-9) for name, v in (("p", p), ("q", q))
    )  # round-off allowed
    return 0.5 * np.abs(p - q).sum(-1)


# -- the local budget of the shuffle model --------------------------------------------------------------


def krr_shuffle_pair(eps_l, n, k):
    """The accountant's certified pair for n users sharing k-RR with budget eps_L (one common budget): the
    clone pair (``reduction="clones"``). The chapter inverts it by bisection thousands of times, which the
    tighter blanket pair (:class:`gspa.privacy.shuffle.pairs.KaryPair`, tens of milliseconds per
    evaluation) would make take minutes to hours; the certified eps_L is therefore conservative (smaller than the blanket pair's), which
    only makes the shuffle model's errors here larger than they need be."""
    eps_l = float(V.nonnegative("eps_l", eps_l, scalar=True))
    n, k = V.integer("n", n, low=2), _k(k)
    if k == 2:
        return personalized_pair(
            np.array([eps_l]), randomizer="binary-rr", counts=np.array([n]), reduction="clones"
        )
    return personalized_pair(
        np.array([eps_l]), randomizer="k-rr", k=k, counts=np.array([n]), reduction="clones"
    )


@lru_cache(maxsize=8192)
def _certified(eps, delta, n, k, rel_tol):
    ok = lambda e: krr_shuffle_pair(e, n, k).delta(eps) <= delta
    lo = eps  # shuffling an eps-LDP protocol is eps-DP: always certified
    if not ok(lo):
        raise ValueError(
            f"the accountant does not certify eps_L = eps = {eps} (delta({eps}) > {delta})"
        )
    hi = max(2.0 * eps, 1.0)
    while ok(hi):
        lo, hi = hi, 2.0 * hi
        if hi > EPS_L_MAX:
            return EPS_L_MAX if ok(EPS_L_MAX) else lo
    while hi - lo > rel_tol * lo:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    while (
        krr_shuffle_pair(lo, n, k).epsilon(delta) > eps
    ):  # epsilon() rounds up: stay on the safe side
        lo *= 1.0 - rel_tol
    return lo


def certified_local_eps(eps, delta, n, k, rel_tol: float = 1e-4) -> float:
    """The largest local budget eps_L (to relative accuracy ``rel_tol``, rounded down) such that the
    shuffle of n users' k-RR reports at eps_L is certified (eps, delta)-DP by the accountant: bisection
    on eps_L with the certified delta(eps) <= delta (monotone in eps_L), then a check that the pair's
    epsilon(delta) <= eps. Cached. At least eps (no amplification needed)."""
    eps = float(V.positive("eps", eps, scalar=True))
    delta = float(V.probability("delta", delta, open_low=True, open_high=True, scalar=True))
    n, k = V.integer("n", n, low=2), _k(k)
    rel_tol = float(V.real("rel_tol", rel_tol, low=1e-12, high=0.1, scalar=True))
    return _certified(eps, delta, n, k, rel_tol)


def eq5_local_eps(eps, delta, n):
    """The blog's eq. (5) with its constants set to 1: eps_L = eps sqrt(n/log(1/delta)) if
    eps^2 n/log(1/delta) < 1, else eps_L = log(eps^2 n/log(1/delta)). Vectorised in n."""
    eps = V.real("eps", eps, low=0.0, high=100.0, low_open=True, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    n = V.real("n", n, low=1.0, high=MAX_USERS)
    r = eps**2 * n / np.log(1.0 / delta)
    return np.where(r >= 1.0, np.log(np.maximum(r, 1.0)), eps * np.sqrt(n / np.log(1.0 / delta)))


# -- the blog's rates ---------------------------------------------------------------------------------


def _rate_args(k, alpha, eps):
    """The rates' (k, alpha, eps), vectorised: k integers in [2, MAX_USERS = 1e15]; alpha in
    [ALPHA_MIN, ALPHA_MAX] = [1e-10, 1e10], not only the TV distances of [0, 1]: :func:`invert_rate` reads a
    rate as an error against n and evaluates it at any alpha > 0 (the chapter's small n give alpha > 1);
    eps in [EPS_MIN, EPS_MAX] = [1e-8, 100]. Every rate is then a finite positive float."""
    return (
        V.real("k", k, low=2, high=MAX_USERS),
        V.real("alpha", alpha, low=ALPHA_MIN, high=ALPHA_MAX),
        V.real("eps", eps, low=EPS_MIN, high=EPS_MAX),
    )


def rate_local(k, alpha, eps):
    """Eq. (4) with constants 1: k^2/(alpha^2 (e^eps - 1)^2) + k^2/(alpha^2 e^eps) + k/alpha^2
    (arguments as in :func:`_rate_args`)."""
    k, alpha, eps = _rate_args(k, alpha, eps)
    return k**2 / (alpha**2 * np.expm1(eps) ** 2) + k**2 / (alpha**2 * np.exp(eps)) + k / alpha**2


def rate_central(k, alpha, eps):
    """The blog's central rate [DHS15] with constants 1: k/alpha^2 + k/(alpha eps) (arguments as in
    :func:`_rate_args`)."""
    k, alpha, eps = _rate_args(k, alpha, eps)
    return k / alpha**2 + k / (alpha * eps)


def rate_shuffle(k, alpha, eps, delta):
    """The blog's shuffle rate with constants 1: k/alpha^2 + k sqrt(log(1/delta))/(alpha eps) (arguments as
    in :func:`_rate_args`, delta in (0, 1))."""
    k, alpha, eps = _rate_args(k, alpha, eps)
    delta = V.probability("delta", delta, open_low=True, open_high=True)
    return k / alpha**2 + k * np.sqrt(np.log(1.0 / delta)) / (alpha * eps)


def invert_rate(rate, n, alpha_lo: float = 1e-8, alpha_hi: float = 1e3):
    """The alpha at which ``rate(alpha)`` (decreasing in alpha) equals n, by bisection in log alpha,
    vectorised over n: a sample complexity read as an error against n. ``n`` in [1, MAX_USERS = 1e15]
    (at most 10^6 values); alpha_lo < alpha_hi in [ALPHA_MIN, ALPHA_MAX] = [1e-10, 1e10] (the range the
    rates here accept); the result is alpha_lo or alpha_hi where n is outside the rate's range there."""
    rate = V.function("rate", rate)
    n = V.real("n", n, low=1.0, high=MAX_USERS, max_size=10**6)
    alpha_lo = V.real("alpha_lo", alpha_lo, low=ALPHA_MIN, high=ALPHA_MAX, scalar=True)
    alpha_hi = V.real("alpha_hi", alpha_hi, low=ALPHA_MIN, high=ALPHA_MAX, scalar=True)
    lo, hi = np.full(n.shape, np.log(alpha_lo)), np.full(n.shape, np.log(alpha_hi))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        r = V.real("rate(alpha)", rate(np.exp(mid)))  # NaN (or a non-number) refused
        big = r > n  # rate above n: alpha too small
        lo, hi = np.where(big, mid, lo), np.where(big, hi, mid)
    return np.exp(0.5 * (lo + hi))


# -- the simulation ------------------------------------------------------------------------------------


def estimate(model, p, n, eps, delta, reps, seed=0, eps_l=None):
    """``reps`` independent runs of one model; returns (estimates (reps, k), the local budget used or
    None). ``eps_l`` overrides the shuffle model's certified budget (e.g. eq. (5)'s).

    ``model`` one of :data:`MODELS`; ``p`` a distribution over k in [2, MAX_K = 10^6] symbols; n in
    [2, MAX_SIM_USERS = 10^12]; eps in [1e-8, 100] and delta in (0, 1) (both checked whatever the model);
    reps in [1, 10^6]; ``eps_l`` None or in [1e-8, EPS_L_MAX]."""
    model = V.choice("model", model, MODELS)
    p = _distribution(p)
    k, n = p.size, V.integer("n", n, low=2, high=MAX_SIM_USERS)
    eps, delta, eps_l = _eps(eps), _delta(delta), _eps_l(eps_l)
    reps = _reps(reps)
    rng = _rng(seed)
    true = rng.multinomial(n, p, size=reps)
    if model == "central":
        noisy = true + rng.laplace(0.0, 2.0 / eps, size=true.shape)
        return project_simplex(noisy / n), None
    if model == "local":
        e = eps
    else:
        e = certified_local_eps(eps, delta, n, k) if eps_l is None else eps_l
    return project_simplex(unbiased_estimate(krr_counts(true, e, rng), e)), e


def tv_curve(p, n_values, eps, delta, reps, seed=0, models=MODELS, z: float = 1.96):
    """Mean TV error (with a normal-approximation band mean ± z·sd/sqrt(reps)) against n for each model.
    Rows: model, n, k, eps_l, mean, lo, hi; ``eps_l`` is inf for the central model (the users send their
    samples as they are). The seed of each (model, n) is derived from ``seed``.

    Arguments as for :func:`estimate`; ``n_values``: 1 to MAX_POINTS = 1000 values of n; ``models`` a
    non-empty selection of :data:`MODELS`; ``z`` in [0, 10]."""
    import pandas as pd

    p = _distribution(p)
    n_values = _n_list("n_values", n_values)
    eps, delta, reps = _eps(eps), _delta(delta), _reps(reps)
    seed, models = V.integer("seed", seed, low=0), tuple(models)
    z = float(V.real("z", z, low=0.0, high=10.0, scalar=True))
    rows = []
    for mi, model in enumerate(models):
        for ni, n in enumerate(n_values):
            rng = np.random.default_rng([seed, mi, ni, p.size])
            est, e = estimate(model, p, n, eps, delta, reps, rng)
            err = tv(est, p)
            half = z * err.std(ddof=1) / np.sqrt(reps) if reps > 1 else 0.0
            rows.append(
                {
                    "model": model,
                    "n": n,
                    "k": p.size,
                    "eps_l": np.inf if e is None else e,
                    "mean": err.mean(),
                    "lo": err.mean() - half,
                    "hi": err.mean() + half,
                }
            )
    return pd.DataFrame(rows)


def slopes(curve, by=("model", "k")):
    """Fitted exponent (log-log least squares) of mean TV against n for each group of a
    :func:`tv_curve` frame."""
    import pandas as pd

    out = [
        {
            **dict(zip(by, key if isinstance(key, tuple) else (key,))),
            "slope": fitted_slope(g.n, g["mean"]),
        }
        for key, g in curve.groupby(list(by))
    ]
    return pd.DataFrame(out)


def local_eps_table(eps, delta, n_values, k):
    """Certified eps_L and eq. (5)'s eps_L for each n (one k)."""
    import pandas as pd

    n_values = [V.integer("n", n, low=2) for n in np.atleast_1d(n_values)]
    cert = np.array([certified_local_eps(eps, delta, n, k) for n in n_values])
    return pd.DataFrame(
        {"n": n_values, "k": k, "certified": cert, "eq5": eq5_local_eps(eps, delta, n_values)}
    )


def krr_tv_approx(n, k, eps_l):
    """Approximation (normal, no projection, uniform p) of k-RR's mean TV error:
    sqrt(k/(2 pi n)) (e^eps_L + k - 1)/(e^eps_L - 1) · sqrt(1 - 1/k) — k-RR's own rate, labelled as an
    approximation; it meets eq. (4) only for e^eps_L >~ k."""
    n = V.real("n", n, low=1.0, high=MAX_USERS)
    eps_l = V.real("eps_l", eps_l, low=0.0, high=EPS_L_MAX, low_open=True)
    k = V.integer("k", k, low=2, high=MAX_USERS)
    return np.sqrt(k / (2 * np.pi * n)) * np.sqrt(1 - 1 / k) / keep_probability(eps_l, k)


def tv_grid(
    eps_values, k_values, n_values, delta, reps, seed=0, models=MODELS, central_divisor: float = 1.0
):
    """:func:`tv_curve` for uniform p over k symbols, for every central eps and every k (column ``eps``
    added); the local model runs at eps_L = eps. ``central_divisor``: the central model runs at
    eps/central_divisor (the column ``eps`` still holds eps).

    ``eps_values``: 1 to 100 budgets in [1e-8, 100]; ``k_values``: 1 to 100 alphabet sizes;
    ``central_divisor`` in [1, 10^4] (with ``models=("central",)``); the rest as for :func:`tv_curve`."""
    import pandas as pd

    div = float(V.real("central_divisor", central_divisor, low=1.0, high=1e4, scalar=True))
    models = tuple(models)
    eps_values = V.real("eps_values", eps_values, low=EPS_MIN, high=EPS_MAX, ndim=1, max_size=100)
    k_values = V.real("k_values", k_values, ndim=1, max_size=100)
    k_values = [int(k) for k in k_values]
    n_values, delta, seed = (
        _n_list("n_values", n_values),
        _delta(delta),
        V.integer("seed", seed, low=0),
    )
    reps = _reps(reps)
    out = []
    for i, eps in enumerate(eps_values):
        for k in k_values:
            out.append(
                tv_curve(
                    np.full(k, 1.0 / k),
                    n_values,
                    eps / div,
                    delta,
                    reps,
                    seed=seed + 1000 * i,
                    models=models,
                ).assign(eps=float(eps))
            )
    return pd.concat(out, ignore_index=True)


READINGS = {
    "every n, central at ε": "every n where the central TV ≤ central_max; |slope − central's| ≤ slope_tol and "
    "shuffle/central within [1/ratio_tol, ratio_tol], ratio_tol = √log(1/δ) (the factor the blog ignores)",
    "every n, central at ε/√log(1/δ)": "the blog's 'ignoring the √log(1/δ)': central run at ε/√log(1/δ); same range and "
    "slope test, ratio within [1/const_tol, const_tol]",
    "k-RR optimal range, central at ε": "only n with e^ε_L ≥ k (certified ε_L), where k-RR is an optimal LDP algorithm; "
    "tests as in the first reading",
}


def _two_sided(r):
    return float(np.max(np.maximum(r, 1.0 / r)))


def thesis_table(
    grid,
    delta,
    weak=None,
    slope_tol: float = 0.1,
    const_tol: float = 3.0,
    central_max: float = 0.5,
    min_points: int = 3,
):
    """The blog's thesis for learning ("shuffling an optimal LDP algorithm gives an optimal shuffle DP
    algorithm", i.e. the shuffle error matches the central one) tested on a :func:`tv_grid` frame, for
    each (eps, k) and each reading in :data:`READINGS` (``weak``: the central model at
    eps/sqrt(log(1/delta)), from ``tv_grid(..., models=("central",), central_divisor=...)``; without it
    that reading is skipped). Columns: the range of n used, fitted exponents, the largest two-sided
    ratios max(r, 1/r) of shuffle and of local against the reference, and ``shuffle_matches`` /
    ``local_matches`` (None, and the slopes and ratios NaN, when fewer than ``min_points`` n are in range:
    that row is not judged).

    ``grid`` (and ``weak``, or None) a frame with the columns of :func:`tv_grid` (``grid`` holding the three
    models); delta in (0, 1); ``slope_tol`` in (0, 10]; ``const_tol`` in [1, 10^6]; ``central_max`` in
    (0, 1] (a TV distance); ``min_points`` an integer in [2, 10^6]."""
    import pandas as pd

    delta = _delta(delta)
    slope_tol = float(
        V.real("slope_tol", slope_tol, low=0.0, high=10.0, low_open=True, scalar=True)
    )
    const_tol = float(V.real("const_tol", const_tol, low=1.0, high=1e6, scalar=True))
    central_max = float(
        V.real("central_max", central_max, low=0.0, high=1.0, low_open=True, scalar=True)
    )
    min_points = V.integer("min_points", min_points, low=2, high=10**6)
    root = float(np.sqrt(np.log(1.0 / delta)))
    rows = []
    for (eps, k), g in grid.groupby(["eps", "k"]):
        piv = g.pivot(index="n", columns="model", values="mean").sort_index()
        el = g[g.model == "shuffle"].set_index("n").eps_l.reindex(piv.index).astype(float)
        cases = {
            "every n, central at ε": (piv.central, piv.central <= central_max, root),
            "k-RR optimal range, central at ε": (
                piv.central,
                (piv.central <= central_max) & (np.exp(el) >= k),
                root,
            ),
        }
        if weak is not None:
            w = (
                weak[(weak.eps == eps) & (weak.k == k) & (weak.model == "central")]
                .set_index("n")["mean"]
                .reindex(piv.index)
            )
            cases["every n, central at ε/√log(1/δ)"] = (w, w <= central_max, const_tol)
        for reading, (ref, m, tol) in cases.items():
            m = m.values & np.isfinite(ref.values)
            n, ref = piv.index.values[m], ref.values[m]
            row = {
                "eps": eps,
                "k": k,
                "reading": reading,
                "points": int(m.sum()),
                "n_from": n.min() if n.size else np.nan,
                "n_to": n.max() if n.size else np.nan,
                "ratio_tol": tol,
            }
            if n.size >= min_points:
                s_ref = fitted_slope(n, ref)
                s = {mod: fitted_slope(n, piv[mod].values[m]) for mod in ("local", "shuffle")}
                r_sh, r_lo = (
                    _two_sided(piv.shuffle.values[m] / ref),
                    _two_sided(piv.local.values[m] / ref),
                )
                row.update(
                    slope_ref=s_ref,
                    slope_shuffle=s["shuffle"],
                    slope_local=s["local"],
                    ratio_shuffle=r_sh,
                    ratio_local=r_lo,
                    shuffle_matches=bool(abs(s["shuffle"] - s_ref) <= slope_tol and r_sh <= tol),
                    local_matches=bool(abs(s["local"] - s_ref) <= slope_tol and r_lo <= tol),
                )
            else:
                row.update(
                    slope_ref=np.nan,
                    slope_shuffle=np.nan,
                    slope_local=np.nan,
                    ratio_shuffle=np.nan,
                    ratio_local=np.nan,
                    shuffle_matches=None,
                    local_matches=None,
                )
            rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["slope_tol"] = float(slope_tol)
    return out


def misses(table, which: str = "shuffle", reading: str | None = None) -> np.ndarray:
    """The normalised miss of each judged (eps, k) row of a :func:`thesis_table` (of one reading):
    max(|slope − reference slope|/slope_tol, ratio/ratio_tol); <= 1 exactly when that row matches."""
    tol = float(table.attrs.get("slope_tol", 0.1))
    t = table if reading is None else table[table.reading == reading]
    t = t.dropna(subset=[f"slope_{which}"])
    if t.empty:
        raise ValueError(f"no row of reading {reading!r} has enough points to judge")
    return np.maximum(
        np.abs(t[f"slope_{which}"] - t.slope_ref) / tol, t[f"ratio_{which}"] / t.ratio_tol
    ).to_numpy()


def excess(table, which: str = "shuffle", reading: str | None = None) -> float:
    """The largest normalised miss (:func:`misses`): <= 1 means every row matches."""
    return float(np.max(misses(table, which, reading)))


def least_excess(table, which: str = "local", reading: str | None = None) -> float:
    """The smallest normalised miss (:func:`misses`): > 1 means no row matches (used to show that the
    local model does *not* match the central one)."""
    return float(np.min(misses(table, which, reading)))


def eq5_slopes(eps, delta, n_values, k):
    """Fitted slopes of the certified eps_L against n, in the form of eq. (5)'s case for those n: where
    eps^2 n/log(1/delta) >= 1, the slope of eps_L against ln n (eq. (5): 1, since e^eps_L ~ n); where it is
    < 1, the slope of ln eps_L against ln n (eq. (5): 1/2). Returns (case, slope, eq. (5)'s slope); the
    n must all be in one case. eps in [1e-8, 100], delta in (0, 1), ``n_values`` 2 to MAX_POINTS = 1000
    values in [2, MAX_SIM_USERS = 10^12], at least two of them different, k >= 2."""
    eps, delta, k = _eps(eps), _delta(delta), _k(k)
    n_values = _n_list("n_values", n_values, distinct=2)
    t = local_eps_table(eps, delta, n_values, k)
    r = eps**2 * t.n / np.log(1.0 / delta)
    if (r >= 1).all():
        return "large", float(np.polyfit(np.log(t.n), t.certified, 1)[0]), 1.0
    if (r < 1).all():
        return "small", fitted_slope(t.n, t.certified), 0.5
    raise ValueError(
        "n_values straddle eq. (5)'s two cases (eps^2 n/log(1/delta) = 1); give n on one side"
    )


def _note_point(k, alpha, eps):
    """(k, alpha, eps) of the note after eq. (4), checked (the book searches k <= 10^6, alpha >= 10^-3,
    eps in [10^-4, 0.1])."""
    return (
        V.integer("k", k, low=2, high=10**9),
        V.real("alpha", alpha, low=1e-6, high=1.0, scalar=True),
        V.real("eps", eps, low=1e-8, high=50.0, scalar=True),
    )


def eq4_note_margin(k, alpha, eps, power: int = 1, tol: float = 0.1) -> float:
    """The blog's note after eq. (4): "the first term is just k/(alpha^2 eps^2) for small eps".
    tol - |first / note - 1|, with first = k^2/(alpha^2 (e^eps - 1)^2) (eq. (4)'s first term, [ASZ19])
    and note = k^power/(alpha^2 eps^2): power 1 as printed, 2 the form the first term has. >= 0: the
    note is within ``tol`` (relative) of the term at (k, alpha, eps)."""
    k, alpha, eps = _note_point(k, alpha, eps)
    power, tol = (
        V.integer("power", power, low=1, high=2),
        V.finite("tol", tol, low=0.0, scalar=True),
    )
    first = k**2 / (alpha**2 * np.expm1(eps) ** 2)
    note = float(k) ** int(power) / (alpha**2 * eps**2)
    return float(tol - abs(first / note - 1.0))


def eq4_note_ratio_exact(k, alpha, eps) -> float:
    """first term / note as printed, in 50-digit arithmetic (mpmath), written apart from
    :func:`eq4_note_margin` to re-verify a violation it finds: k eps^2/(e^eps - 1)^2."""
    import mpmath as mp

    k, alpha, eps = _note_point(k, alpha, eps)
    with mp.workdps(50):
        a, e = mp.mpf(alpha), mp.mpf(eps)
        first = mp.mpf(int(k)) ** 2 / (a**2 * mp.expm1(e) ** 2)
        return float(first / (mp.mpf(int(k)) / (a**2 * e**2)))


def rate_params(names=("k", "alpha", "eps", "delta")) -> list[dict]:
    """The parameters (keyword arguments of :class:`gspa.claims.domain.Param`) of the blog's sample-complexity
    statements ("Learning", "(Uniformity) Testing", eq. (5)): stated for every alphabet size k, accuracy
    alpha, central eps, delta and number of users n (``names`` picks those the statement quantifies
    over), closed by the book as a referee would."""
    params = [
        dict(
            name="k",
            low=2,
            high=10**6,
            scale="int",
            stated="a discrete domain of size k, any k ≥ 2",
            closed_by="k up to 10⁶",
        ),
        dict(
            name="alpha",
            low=1e-3,
            high=0.5,
            stated="any accuracy α (TV distance)",
            closed_by="α from 10⁻³ to 1/2",
        ),
        dict(
            name="eps",
            low=1e-2,
            high=10.0,
            stated="any central ε (both regimes of eq. (5))",
            closed_by="ε from 0.01 to 10",
        ),
        dict(
            name="delta",
            low=1e-12,
            high=1e-2,
            stated="any small δ > 0",
            closed_by="δ from 10⁻¹² to 10⁻²",
        ),
        dict(
            name="n",
            low=10,
            high=10**9,
            scale="int",
            stated="every number of users n",
            closed_by="n from 10 to 10⁹",
        ),
    ]
    by_name = {p["name"]: p for p in params}
    return [by_name[x] for x in names]


# -- the learning chapter's grids, curves and summaries (chapter fmt21/learning) ---------------------------


def log_grid(lo_exp=2.5, hi_exp=8.0, n_points=12) -> np.ndarray:
    """``n_points`` whole numbers log-spaced from 10^lo_exp to 10^hi_exp (rounded, repeats dropped): the n of
    the chapter's simulations and eq. (5) checks. Exponents in [1, 9], lo_exp < hi_exp; n_points in [2, 1000]."""
    lo = V.real("lo_exp", lo_exp, low=1.0, high=9.0, scalar=True)
    hi = V.real("hi_exp", hi_exp, low=lo, high=9.0, low_open=True, scalar=True)
    n_points = V.integer("n_points", n_points, low=2, high=MAX_POINTS)
    return np.unique(np.round(np.logspace(lo, hi, n_points)).astype(int))


RATES = {
    "local": lambda k, eps, delta: lambda a: rate_local(k, a, eps),
    "shuffle": lambda k, eps, delta: lambda a: rate_shuffle(k, a, eps, delta),
    "central": lambda k, eps, delta: lambda a: rate_central(k, a, eps),
}


def scaled_rates(grid, delta):
    """The dashed and dotted curves of the learning figure, for a :func:`tv_grid` frame: column ``rate``, the
    blog's rate of each row's model (central, eq. (4), shuffle) inverted to an error against n
    (:func:`invert_rate`, constants 1) and multiplied by one factor per (eps, k, model) so that it meets the
    mean error at the largest n; column ``krr``, k-RR's own approximate error at the certified eps_L
    (:func:`krr_tv_approx`, capped at 1) in the shuffle rows (NaN elsewhere)."""
    import pandas as pd

    delta = _delta(delta)
    parts = []
    for (eps, k, model), g in grid.groupby(["eps", "k", "model"], sort=False):
        a = invert_rate(RATES[model](k, eps, delta), g.n.to_numpy(float))
        g = g.assign(rate=a * (g["mean"].iloc[-1] / a[-1]), krr=np.nan)
        if model == "shuffle":
            eps_l = g.eps_l.to_numpy(float)
            g["krr"] = np.minimum(krr_tv_approx(g.n.to_numpy(float), k, eps_l), 1.0)
        parts.append(g)
    return pd.concat(parts).loc[grid.index]


def thesis_summary(table) -> dict:
    """What the learning chapter reads off a :func:`thesis_table`, by reading (numbered 1, 2, 3 in the order of
    :data:`READINGS`): ``miss`` the largest normalised miss of the shuffle model (:func:`excess`) of each
    judged reading; ``texts`` for each reading the (eps, k) where the shuffle model misses (``fails_i``) and,
    for a reading not judged, that it was not (``miss_i``); ``local_least_miss`` the local model's smallest
    normalised miss under the first reading; ``worst`` the row of the first reading where the shuffle model's
    error ratio peaks; ``by_reading`` the largest miss keyed by reading."""
    readings = [r for r in READINGS if table[table.reading == r].slope_shuffle.notna().any()]
    by_reading = {r: excess(table, "shuffle", r) for r in readings}
    judged = table.dropna(subset=["slope_shuffle"])
    miss, texts = {}, {}
    for idx, r in enumerate(READINGS, start=1):
        if r in by_reading:
            miss[f"miss_{idx}"] = by_reading[r]
        else:
            texts[f"miss_{idx}"] = "not judged (fewer than 3 n in range)"
        bad = judged[(judged.reading == r) & ~judged.shuffle_matches.astype(bool)]
        text = ", ".join(f"(ε = {e:g}, k = {k})" for e, k in zip(bad.eps, bad.k)) or "none"
        texts[f"fails_{idx}"] = text if r in by_reading else "not judged"
    first = next(iter(READINGS))
    t1 = table[(table.reading == first)].dropna(subset=["slope_shuffle"])
    if t1.empty:
        raise ValueError(f"no row of reading {first!r} has enough points to judge")
    return {
        "miss": miss,
        "texts": texts,
        "local_least_miss": least_excess(table, "local", first),
        "worst": t1.loc[t1.ratio_shuffle.idxmax()],
        "by_reading": by_reading,
    }


def largest_n_ratios(grid) -> dict:
    """At the largest n of a :func:`tv_grid` frame: that n, the largest ratio of the shuffled error to the
    central one and the smallest ratio of the local error to the central one, over (eps, k)."""
    big = grid[grid.n == grid.n.max()].pivot_table(
        index=["eps", "k"], columns="model", values="mean"
    )
    return {
        "largest_n": int(grid.n.max()),
        "shuffle_over_central": float((big.shuffle / big.central).max()),
        "local_over_central": float((big.local / big.central).min()),
    }


def eq4_note_table(k_values=(2, 10, 1000), eps_values=(0.01, 0.1)):
    """The blog's note after eq. (4) at a few points, in 50-digit arithmetic (:func:`eq4_note_ratio_exact`,
    alpha = 1, which cancels): eq. (4)'s first term over the note's k/(alpha^2 eps^2), and over k^2/(alpha^2
    eps^2), one row per (k, eps)."""
    import pandas as pd

    ks = [int(k) for k in V.real("k_values", k_values, ndim=1, max_size=100)]
    eps_values = V.real(
        "eps_values", eps_values, low=0.0, high=1.0, low_open=True, ndim=1, max_size=100
    )
    rows = []
    for k, e in ((k, float(e)) for k in ks for e in eps_values):
        r = eq4_note_ratio_exact(k, 1.0, e)
        rows.append(
            {"k": k, "ε": e, "first term / note (k)": r, "first term / note with k²": r / k}
        )
    return pd.DataFrame(rows)


def k_spread(eps, delta, n_values, k_values, k) -> float:
    """How much the certified local budget (:func:`certified_local_eps`) moves with the alphabet size: the
    largest |eps_L(n, k') - eps_L(n, k)| over n in ``n_values`` and k' in ``k_values``."""
    n_values = _n_list("n_values", n_values)
    ks = V.real("k_values", k_values, ndim=1, max_size=100)
    return max(
        abs(
            certified_local_eps(eps, delta, int(n), int(kk))
            - certified_local_eps(eps, delta, int(n), k)
        )
        for n in n_values
        for kk in ks
    )


# -- the algebra of plugging eq. (5) into eqs. (4), (6), (7) ----------------------------------------------

#: the LDP rates the blog plugs eq. (5) into, constants 1, as (first, second, s, third) of
#: first/(e^eps_L - 1)^2 + second/e^(s eps_L) + third, each a function of (k, alpha)
LDP_RATES = {
    "eq. (4)": lambda k, a: (k**2 / a**2, k**2 / a**2, 1.0, k / a**2),
    "eq. (7)": lambda k, a: (k**1.5 / a**2, k**1.5 / a**2, 1.0, np.sqrt(k) / a**2),
    "eq. (6)": lambda k, a: (k / a**2, k / a**2, 0.5, np.sqrt(k) / a**2),
}
#: the two readings of eq. (5)'s second case: as printed, e^eps_L = eps^2 n/log(1/delta) (eps_L near 0 just
#: above the cases' boundary), or e^eps_L = e eps^2 n/log(1/delta), eps_L >= 1 as the blog says of that case
EQ5_READINGS = ("as printed", "eps_L ≥ 1 in the second case")


def plugged_rate(rate: str, k, alpha, eps, delta) -> float:
    """The blog's result of plugging eq. (5) into ``rate`` (constants 1): eq. (4): k sqrt(L)/(alpha eps) +
    k/alpha^2; eq. (7): k^(3/4) sqrt(L)/(alpha eps) + sqrt(k)/alpha^2; eq. (6): k^(2/3) L^(1/3)/(alpha^(4/3)
    eps^(2/3)) + sqrt(k L)/(alpha eps) + sqrt(k)/alpha^2, with L = log(1/delta)."""
    V.choice("rate", rate, tuple(LDP_RATES))
    k, alpha, eps = _rate_args(k, alpha, eps)
    L = np.log(1.0 / _delta(delta))
    if rate == "eq. (4)":
        return float(k * np.sqrt(L) / (alpha * eps) + k / alpha**2)
    if rate == "eq. (7)":
        return float(k**0.75 * np.sqrt(L) / (alpha * eps) + np.sqrt(k) / alpha**2)
    return float(
        k ** (2 / 3) * L ** (1 / 3) / (alpha ** (4 / 3) * eps ** (2 / 3))
        + np.sqrt(k * L) / (alpha * eps)
        + np.sqrt(k) / alpha**2
    )


def _plug_eps_l(n, eps, L, reading):
    t = eps**2 * n / L
    second = np.log(np.maximum(t, 1.0)) + (reading != EQ5_READINGS[0])
    return np.where(t < 1.0, np.sqrt(t), second)


def _plug_grid(eps, L):
    """Values of n: log-spaced from 1 to 10^16 and dense on both sides of the cases' boundary L/eps^2."""
    n0 = L / eps**2
    near = np.logspace(-12, -0.01, 300)
    return np.unique(np.concatenate([np.logspace(0, 16, 6000), n0 * (1 + near), n0 * (1 - near)]))


def plugged_n(
    rate: str, k, alpha, eps, delta, reading: str = EQ5_READINGS[0]
) -> tuple[float, float]:
    """The sample complexity that plugging eq. (5) (``reading`` of :data:`EQ5_READINGS`) into ``rate`` gives,
    constants 1: the smallest n of a dense grid (:func:`_plug_grid`) from which on every n meets n >=
    rate(eps_L(n)), and the largest n of the grid that fails it (0 if none), a witness for
    :func:`plugged_fails_exact`."""
    V.choice("rate", rate, tuple(LDP_RATES))
    V.choice("reading", reading, EQ5_READINGS)
    k, alpha, eps = (float(x) for x in _rate_args(k, alpha, eps))
    L = float(np.log(1.0 / _delta(delta)))
    c1, c2, s, c3 = LDP_RATES[rate](k, alpha)
    grid = _plug_grid(eps, L)
    e = _plug_eps_l(grid, eps, L, reading)
    with np.errstate(divide="ignore", over="ignore"):
        need = c1 / np.expm1(e) ** 2 + c2 * np.exp(-s * e) + c3
    bad = np.nonzero(grid < need)[0]
    if bad.size and bad[-1] == grid.size - 1:
        raise ValueError(
            f"{rate} is not met by n up to 10^16 at k = {k}, alpha = {alpha}, eps = {eps}"
        )
    return (float(grid[bad[-1] + 1]), float(grid[bad[-1]])) if bad.size else (float(grid[0]), 0.0)


def plugging_margin(k, alpha, eps, delta, rate: str, reading: str, factor: float = 10.0) -> float:
    """log(factor) − |log(plugged n / the blog's result)|: >= 0 where the blog's algebra holds within the
    constant ``factor`` (the referee's: the blog ignores constants) (:func:`plugged_n`, :func:`plugged_rate`)."""
    factor = V.real("factor", factor, low=1.0, scalar=True)
    n_star = plugged_n(rate, k, alpha, eps, delta, reading)[0]
    return float(np.log(factor) - abs(np.log(n_star / plugged_rate(rate, k, alpha, eps, delta))))


def plugged_fails_exact(rate: str, k, alpha, eps, delta, reading: str, n) -> bool:
    """Whether n < rate(eps_L(n)) at ``n``, in 50-digit arithmetic (mpmath): re-verifies a witness of
    :func:`plugged_n` independently of its numpy path."""
    import mpmath as mp

    V.choice("rate", rate, tuple(LDP_RATES))
    V.choice("reading", reading, EQ5_READINGS)
    with mp.workdps(50):
        k, a, e, n = (mp.mpf(float(x)) for x in (k, alpha, eps, n))
        L = mp.log(1 / mp.mpf(float(delta)))
        t = e**2 * n / L
        if t < 1:
            el = mp.sqrt(t)
        else:
            el = mp.log(t) + (0 if reading == EQ5_READINGS[0] else 1)
        c1, c2, s, c3 = LDP_RATES[rate](k, a)
        need = (c1 / mp.expm1(el) ** 2 if el > 0 else mp.inf) + c2 * mp.e ** (-s * el) + c3
        return bool(n < need)


def plugging_check(domain, rates, budget: int, seed: int, factor: float = 10.0) -> dict:
    """The algebra claims' searches: for each reading of :data:`EQ5_READINGS` and each rate of ``rates`` (keys
    of :data:`LDP_RATES`), the worst case of :func:`plugging_margin` over ``domain`` (a
    :class:`gspa.claims.domain.ClaimDomain` over k, alpha, eps, delta). Returns ``margins`` (reading -> the
    smallest margin over the rates), ``searches`` (reading -> that search), ``rate`` (reading -> its rate),
    ``worst`` (the reading with the smallest margin), and where that search found a violation, ``witness``
    (the point, the plugged n, the blog's n and the largest failing n) and ``confirmed``: that failing n
    exceeds ``factor`` times the blog's n and fails in 50-digit arithmetic (:func:`plugged_fails_exact`)."""
    from gspa.claims.domain import worst_case

    rates = [V.choice("rates", r, tuple(LDP_RATES)) for r in rates]
    margins, searches, which = {}, {}, {}
    for reading in EQ5_READINGS:
        found = {
            r: worst_case(
                lambda r=r, **pt: plugging_margin(**pt, rate=r, reading=reading, factor=factor),
                domain,
                budget=budget,
                seed=seed,
            )
            for r in rates
        }
        which[reading] = min(found, key=lambda r: found[r].margin)
        searches[reading] = found[which[reading]]
        margins[reading] = float(searches[reading].margin)
    worst = min(margins, key=margins.get)
    out = {"margins": margins, "searches": searches, "rate": which, "worst": worst}
    s = searches[worst]
    if s.violations:
        r, pt = which[worst], s.worst
        n_star, n_bad = plugged_n(r, **pt, reading=worst)
        blog = plugged_rate(r, **pt)
        out["witness"] = {"point": pt, "n": n_star, "blog": blog, "failing": n_bad}
        out["confirmed"] = bool(
            n_bad > factor * blog and plugged_fails_exact(r, **pt, reading=worst, n=n_bad)
        )
    return out
