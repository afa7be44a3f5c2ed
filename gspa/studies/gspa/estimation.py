"""Mean and frequency estimation with personalized budgets (Algorithms 1 and 2, Figure 3).

Paper items: Algorithm 1 (Laplace mean estimation), Algorithm 2 (randomized-response frequency
estimation, estimator z = (A - B)/(n - 2B)), Theorems 3 and 4, Figure 3 (a)–(d), and the users'
three privacy groups (conservative / moderate / liberal, fractions 0.54 / 0.37 / 0.09 after
Acquisti and Grossklags 2005).

All Monte Carlo studies run every repetition at once (arrays of shape (reps, n)). The shuffle of
Algorithms 1–2 permutes the reports; sums and counts do not depend on the order, so the utility
simulations leave it out (the Theorem 1 chapter simulates it explicitly).
"""
from __future__ import annotations

import numpy as np

from gspa.util import validate as V
from gspa.privacy.mechanisms import rr_probabilities

GROUPS = ("conservative", "moderate", "liberal")


def group_budgets(n: int, fractions, budgets) -> np.ndarray:
    """Per-user budgets for the three groups: round(f_g n) users get eps_g (the liberal group takes
    the remainder). ``fractions`` must lie in [0, 1] and sum to 1; budgets must be > 0."""
    n = V.integer("n", n, low=2)
    f = V.probability("fractions", fractions)
    e = V.positive("budgets", budgets)
    if f.shape != (3,) or e.shape != (3,):
        raise ValueError(f"fractions and budgets need one value per group {GROUPS}, got shapes {f.shape}, {e.shape}")
    if abs(f.sum() - 1.0) > 1e-9:
        raise ValueError(f"fractions must sum to 1, got {f.tolist()} (sum {f.sum():.6g})")
    counts = np.round(f[:2] * n).astype(int)
    counts = np.append(counts, n - counts.sum())
    if counts[-1] < 0:
        raise ValueError(f"fractions {f.tolist()} leave no users for the last group")
    return np.repeat(e, counts)


def clipped_normal_data(n: int, reps: int, rng, mean: float, sd: float, low: float, high: float) -> np.ndarray:
    """(reps, n) samples of N(mean, sd^2) clipped into [low, high] (Figure 3's synthetic data)."""
    n = V.integer("n", n, low=2)
    reps = V.integer("reps", reps, low=1)
    sd = V.positive("sd", sd, scalar=True)
    low, high = V.real("low", low, scalar=True), V.real("high", high, scalar=True)
    if not low < high:
        raise ValueError(f"the clipping range needs low < high, got low = {low:g}, high = {high:g}")
    return np.clip(rng.normal(mean, sd, size=(reps, n)), low, high)


def mean_estimation_errors(x: np.ndarray, budgets, low: float, high: float, rng) -> np.ndarray:
    """Algorithm 1, every repetition at once: y_i = x_i + Lap((high - low)/eps_i), z = mean(y);
    returns z - mean(x) per repetition. The sensitivity of one clipped value is high - low."""
    budgets = V.positive("budgets", budgets)
    if not low < high:
        raise ValueError(f"the clipping range needs low < high, got low = {low:g}, high = {high:g}")
    scale = (high - low) / budgets
    noise = rng.laplace(0.0, 1.0, size=x.shape) * scale
    return noise.mean(axis=1)             # z - mean(x) = mean of the noise


def mean_error_sd(budgets, low: float, high: float) -> float:
    """Exact standard deviation of z - mean(x) in Algorithm 1: sqrt(sum 2 b_i^2)/n, b_i = (high-low)/eps_i."""
    low, high = V.real("low", low, scalar=True), V.real("high", high, scalar=True)
    if not low < high:
        raise ValueError(f"the clipping range needs low < high, got low = {low:g}, high = {high:g}")
    budgets = V.positive("budgets", budgets)
    if budgets.ndim != 1:
        raise ValueError(f"budgets must be a 1-d array, got shape {budgets.shape}")
    b = (high - low) / budgets
    return float(np.sqrt(2.0 * np.sum(b * b)) / b.size)


def binary_data(n: int, c: float) -> np.ndarray:
    """n records with exactly round(c n) ones (density c), Figure 3's frequency data."""
    n = V.integer("n", n, low=2)
    c = V.probability("c", c, scalar=True)
    x = np.zeros(n, dtype=np.int8)
    x[: int(round(c * n))] = 1
    return x


def frequency_estimates(x: np.ndarray, budgets, reps: int, rng, assignment: str = "random") -> np.ndarray:
    """Algorithm 2, every repetition at once; returns z = (A - B)/(n - 2B) per repetition.

    ``assignment='random'``: records are matched to budgets at random in every repetition (data
    independent of privacy preferences); ``'fixed'``: record i always has budget i."""
    budgets = V.positive("budgets", budgets)
    reps = V.integer("reps", reps, low=1)
    x = np.asarray(x)
    V.same_length(x=x, budgets=budgets)
    if assignment == "random":
        xs = rng.permuted(np.tile(x, (reps, 1)), axis=1)
    elif assignment == "fixed":
        xs = np.broadcast_to(x, (reps, x.size))
    else:
        raise ValueError(f"assignment must be 'random' or 'fixed', got {assignment!r}")
    keep = rr_probabilities(budgets)                                  # P(report = true bit)
    p_one = np.where(xs == 1, keep, 1.0 - keep)
    A = (rng.random(xs.shape) < p_one).sum(axis=1)
    B = np.sum(1.0 - keep)
    return (A - B) / (x.size - 2.0 * B)


def frequency_moments(x, budgets):
    """Exact mean and variance of z for a fixed matching of records to budgets:
    E z = sum x_i w_i / sum w_i with w_i = tanh(eps_i/2) (a weighted density: equal to c when the
    data do not depend on the budgets), Var z = sum e^eps_i/(1+e^eps_i)^2 / (sum w_i)^2."""
    budgets = V.positive("budgets", budgets)
    x = np.asarray(x, dtype=float)
    w = np.tanh(budgets / 2.0)
    keep = rr_probabilities(budgets)                 # e^eps/(1+e^eps)^2 = keep (1 - keep)
    return float(x @ w / w.sum()), float(np.sum(keep * (1.0 - keep)) / w.sum() ** 2)


def mae_summary(errors: np.ndarray) -> dict:
    """Mean absolute error with a normal 95% confidence interval over the repetitions."""
    a = np.abs(np.asarray(errors, dtype=float))
    half = 1.96 * a.std(ddof=1) / np.sqrt(a.size)
    return {"mae": float(a.mean()), "ci_low": float(a.mean() - half), "ci_high": float(a.mean() + half)}


def frequency_variance_random(x, budgets) -> float:
    """Exact Var z when records are matched to budgets uniformly at random (assignment='random'):
    E[Var(z | matching)] + Var(E[z | matching]); the second term is the variance of a weighted
    sample drawn without replacement, k(n-k)/(n(n-1)) * sum (w_i - w_bar)^2 / (sum w)^2."""
    _, within = frequency_moments(x, budgets)        # the same for every matching
    x = np.asarray(x, dtype=float)
    n, k = x.size, x.sum()
    w = np.tanh(V.positive("budgets", budgets) / 2.0)
    between = k * (n - k) / (n * (n - 1.0)) * np.sum((w - w.mean()) ** 2) / w.sum() ** 2
    return float(within + between)


def sweep(kind: str, values, *, n: int, fractions, budgets, reps: int, seed: int,
          data_mean=50.0, data_sd=10.0, low=20.0, high=80.0, c=0.7, vary: str = "f_C"):
    """Figure 3: MAE of Algorithm 1 (``kind='mean'``) or 2 (``'frequency'``) as the conservative
    fraction f_C (``vary='f_C'``, f_L fixed, f_M = 1 - f_L - f_C) or the conservative budget eps_C
    (``vary='eps_C'``) takes ``values``. One data set (common random numbers) for all points; per
    point, all ``reps`` repetitions at once. Returns rows with the MAE, its 95% CI, the exact
    prediction and the budgets used."""
    from tqdm.auto import tqdm
    if kind not in ("mean", "frequency"):
        raise ValueError(f"kind must be 'mean' or 'frequency', got {kind!r}")
    if vary not in ("f_C", "eps_C"):
        raise ValueError(f"vary must be 'f_C' or 'eps_C', got {vary!r}")
    rng = np.random.default_rng(seed)
    f0, e0 = np.asarray(fractions, float), np.asarray(budgets, float)
    x = (clipped_normal_data(n, reps, rng, data_mean, data_sd, low, high) if kind == "mean"
         else binary_data(n, c))
    rows = []
    for v in tqdm(list(values), desc=f"Figure 3 {kind} vs {vary}", leave=False):
        f, e = f0.copy(), e0.copy()
        if vary == "f_C":
            f = np.array([v, 1.0 - f0[2] - v, f0[2]])
        else:
            e[0] = v
        b = group_budgets(n, f, e)
        if kind == "mean":
            err = mean_estimation_errors(x, b, low, high, rng)
            predicted = mean_error_sd(b, low, high) * np.sqrt(2.0 / np.pi)   # E|N(0, s^2)| (CLT)
        else:
            err = frequency_estimates(x, b, reps, rng) - c
            predicted = np.sqrt(frequency_variance_random(x, b)) * np.sqrt(2.0 / np.pi)
        rows.append({vary: float(v), **mae_summary(err), "predicted_mae": float(predicted),
                     "bias": float(np.mean(err)), "bias_se": float(np.std(err, ddof=1) / np.sqrt(reps)),
                     "budgets": b})
    return rows


def _laplace_log_cdf(t, x, eps):
    """log P(x + Lap(1/eps) <= t), stable in both tails."""
    d = t - x
    with np.errstate(over="ignore"):
        return np.where(d >= 0, np.log1p(-0.5 * np.exp(-eps * np.maximum(d, 0.0))),
                        np.log(0.5) + eps * np.minimum(d, 0.0))


def laplace_max_event(eps_users, x, j: int, x_j0: float, x_j1: float, eps: float, t_grid):
    """A certified lower bound on delta(eps) of the shuffled reports y_i = x_i + Lap(1/eps_i)
    (Algorithm 1 with data scaled to sensitivity 1), from the events {max_i y_i > t} and
    {max_i y_i <= t}, for the neighbouring data sets where user j holds ``x_j0`` or ``x_j1``.

    Both events are functions of the shuffled multiset (a post-processing), and their probabilities
    are exact: P(max <= t) = prod_i F_i(t) with Laplace CDFs, evaluated in the log domain with users
    grouped by (input, budget). Returns (largest lower bound over ``t_grid``, the t attaining it); a
    rounding allowance of gamma(n + 8) relative is subtracted."""
    eps_users = V.positive("eps_users", eps_users)
    x = np.asarray(x, dtype=float)
    V.same_length(eps_users=eps_users, x=x)
    j = V.integer("j", j, low=0, high=eps_users.size - 1)
    eps = V.nonnegative("eps", eps, scalar=True)
    t = V.real("t_grid", t_grid).ravel()
    others = np.delete(np.stack([x, eps_users], axis=1), j, axis=0)
    pairs, counts = np.unique(others, axis=0, return_counts=True)
    base = np.zeros(t.size)
    for (xi, ei), c in zip(pairs, counts):
        base += c * _laplace_log_cdf(t, xi, ei)
    L0 = base + _laplace_log_cdf(t, x_j0, eps_users[j])
    L1 = base + _laplace_log_cdf(t, x_j1, eps_users[j])
    e = np.exp(eps)
    allow = (eps_users.size + 8) * np.finfo(float).eps
    above = (-np.expm1(L1)) - e * (-np.expm1(L0))          # {max > t}: data set 1 against 0
    below = np.exp(L0) - e * np.exp(L1)                     # {max <= t}: data set 0 against 1
    vals = np.maximum(above, below) - allow * (1 + e)
    k = int(np.argmax(vals))
    return float(max(vals[k], 0.0)), float(t[k])
