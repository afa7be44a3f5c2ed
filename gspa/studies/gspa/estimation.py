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

from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V
from gspa.privacy.basics.mechanisms import rr_probabilities

GROUPS = ("conservative", "moderate", "liberal")
MAX_USERS = 10**8  # users n of one data set or budget vector (800 MB of floats)
MAX_CELLS = 10**8  # numbers drawn at once: reps * n (Figure 3 uses 1000 * 10^4 = 10^7)
MAX_VALUE = 1e50  # |data|, |low|, |high|, sd; budgets at least 1/MAX_VALUE (so (high-low)/eps squared stays finite)


def _clip_range(low, high):
    """The clipping range [low, high]: finite, within MAX_VALUE."""
    low = V.finite("low", low, low=-MAX_VALUE, high=MAX_VALUE, scalar=True)
    high = V.finite("high", high, low=-MAX_VALUE, high=MAX_VALUE, scalar=True)
    return low, high


def _budgets(budgets, ndim=None):
    """Per-user budgets in [1/MAX_VALUE, inf]."""
    return V.real("budgets", budgets, low=1.0 / MAX_VALUE, ndim=ndim, max_size=MAX_USERS)


def _cells(n, reps, low=1):
    """n users and reps repetitions."""
    return V.integer("n", n, low=2, high=MAX_USERS), V.integer(
        "reps", reps, low=low, high=MAX_CELLS
    )


def group_budgets(n: int, fractions, budgets) -> np.ndarray:
    """Per-user budgets for the three groups: round(f_g n) users get eps_g (the liberal group takes
    the remainder). ``n`` in [2, MAX_USERS = 10^8]; ``fractions`` must lie in [0, 1] and sum to 1;
    budgets at least 1e-50."""
    n = V.integer("n", n, low=2, high=MAX_USERS)
    f = V.probability("fractions", fractions)
    e = _budgets(budgets)
    counts = np.round(f[:2] * n).astype(int)
    counts = np.append(counts, n - counts.sum())
    return np.repeat(e, counts)


def clipped_normal_data(
    n: int, reps: int, rng, mean: float, sd: float, low: float, high: float
) -> np.ndarray:
    """(reps, n) samples of N(mean, sd^2) clipped into [low, high] (Figure 3's synthetic data).
    ``n`` at least 2, ``reps`` at least 1, reps * n at most MAX_CELLS = 10^8; ``mean``, ``sd`` > 0,
    ``low`` < ``high`` finite within MAX_VALUE = 1e50 in size; ``rng`` a ``numpy.random.Generator``."""
    n, reps = _cells(n, reps)
    rng = V.generator("rng", rng)
    mean, sd, low, high = _normal_data(mean, sd, low, high)
    return np.clip(rng.normal(mean, sd, size=(reps, n)), low, high)


def _normal_data(mean, sd, low, high):
    """The law of the clipped normal data: finite mean, sd in (0, MAX_VALUE], the clipping range."""
    mean = V.finite("mean", mean, low=-MAX_VALUE, high=MAX_VALUE, scalar=True)
    sd = V.real("sd", sd, low=0.0, low_open=True, high=MAX_VALUE, scalar=True)
    return (mean, sd, *_clip_range(low, high))


def mean_estimation_errors(x: np.ndarray, budgets, low: float, high: float, rng) -> np.ndarray:
    """Algorithm 1, every repetition at once: y_i = x_i + Lap((high - low)/eps_i), z = mean(y);
    returns z - mean(x) per repetition. The sensitivity of one clipped value is high - low.
    ``x`` a (reps, n) array (at most MAX_CELLS = 10^8 numbers), ``budgets`` n values at least 1e-50,
    ``low`` < ``high`` within 1e50 in size, ``rng`` a ``numpy.random.Generator``."""
    x = V.finite("x", x, low=-MAX_VALUE, high=MAX_VALUE, ndim=2, max_size=MAX_CELLS)
    budgets = _budgets(budgets, ndim=1)
    low, high = _clip_range(low, high)
    rng = V.generator("rng", rng)
    scale = (high - low) / budgets
    noise = rng.laplace(0.0, 1.0, size=x.shape) * scale
    return noise.mean(axis=1)  # z - mean(x) = mean of the noise


def mean_error_sd(budgets, low: float, high: float) -> float:
    """Exact standard deviation of z - mean(x) in Algorithm 1: sqrt(sum 2 b_i^2)/n, b_i = (high-low)/eps_i.
    ``budgets`` a non-empty 1-d array of values at least 1e-50, ``low`` < ``high`` within 1e50 in size."""
    low, high = _clip_range(low, high)
    budgets = _budgets(budgets, ndim=1)
    b = (high - low) / budgets
    return float(np.sqrt(2.0 * np.sum(b * b)) / b.size)


def binary_data(n: int, c: float) -> np.ndarray:
    """n records with exactly round(c n) ones (density c), Figure 3's frequency data; n in [2, 10^8]."""
    n = V.integer("n", n, low=2, high=MAX_USERS)
    c = V.probability("c", c, scalar=True)
    x = np.zeros(n, dtype=np.int8)
    x[: int(round(c * n))] = 1
    return x


def frequency_estimates(
    x: np.ndarray, budgets, reps: int, rng, assignment: str = "random"
) -> np.ndarray:
    """Algorithm 2, every repetition at once; returns z = (A - B)/(n - 2B) per repetition.

    ``assignment='random'``: records are matched to budgets at random in every repetition (data
    independent of privacy preferences); ``'fixed'``: record i always has budget i.

    ``x`` n >= 2 bits (0 or 1) and ``budgets`` n values at least 1e-50, ``reps`` at least 1 with
    reps * n at most MAX_CELLS = 10^8, ``rng`` a ``numpy.random.Generator``. The denominator
    n - 2B = sum_i tanh(eps_i/2) must be at least 1e-9 n (a mean budget above about 2e-9): below
    that the subtraction leaves mostly rounding error."""
    budgets = _budgets(budgets, ndim=1)
    V.real("x", x, ndim=1)
    x = np.asarray(x)
    V.same_length(x=x, budgets=budgets)
    _, reps = _cells(x.size, reps)
    rng = V.generator("rng", rng)
    if assignment == "random":
        xs = rng.permuted(np.tile(x, (reps, 1)), axis=1)
    else:
        xs = np.broadcast_to(x, (reps, x.size))
    keep = rr_probabilities(budgets)  # P(report = true bit)
    p_one = np.where(xs == 1, keep, 1.0 - keep)
    A = (rng.random(xs.shape) < p_one).sum(axis=1)
    B = np.sum(1.0 - keep)
    if not x.size - 2.0 * B >= 1e-9 * x.size:
        raise ValueError(
            f"budgets are too small: the estimator divides by n - 2B = {x.size - 2.0 * B:.3g}, "
            f"which must be at least 1e-9 n = {1e-9 * x.size:.3g}"
        )
    return (A - B) / (x.size - 2.0 * B)


def frequency_moments(x, budgets):
    """Exact mean and variance of z for a fixed matching of records to budgets:
    E z = sum x_i w_i / sum w_i with w_i = tanh(eps_i/2) (a weighted density: equal to c when the
    data do not depend on the budgets), Var z = sum e^eps_i/(1+e^eps_i)^2 / (sum w_i)^2."""
    budgets = V.positive("budgets", budgets)
    x = np.asarray(x, dtype=float)
    w = np.tanh(budgets / 2.0)
    keep = rr_probabilities(budgets)  # e^eps/(1+e^eps)^2 = keep (1 - keep)
    return float(x @ w / w.sum()), float(np.sum(keep * (1.0 - keep)) / w.sum() ** 2)


def mae_summary(errors: np.ndarray) -> dict:
    """Mean absolute error with a normal 95% confidence interval over the repetitions.
    ``errors``: at least two finite numbers within 1e150 in size."""
    a = np.abs(V.finite("errors", errors, low=-1e150, high=1e150).ravel())
    if a.size < 2:
        raise ValueError(
            f"errors needs at least two repetitions for a confidence interval, got {a.size}"
        )
    half = 1.96 * a.std(ddof=1) / np.sqrt(a.size)
    return {
        "mae": float(a.mean()),
        "ci_low": float(a.mean() - half),
        "ci_high": float(a.mean() + half),
    }


def frequency_variance_random(x, budgets) -> float:
    """Exact Var z when records are matched to budgets uniformly at random (assignment='random'):
    E[Var(z | matching)] + Var(E[z | matching]); the second term is the variance of a weighted
    sample drawn without replacement, k(n-k)/(n(n-1)) * sum (w_i - w_bar)^2 / (sum w)^2."""
    _, within = frequency_moments(x, budgets)  # the same for every matching
    x = np.asarray(x, dtype=float)
    n, k = x.size, x.sum()
    w = np.tanh(V.positive("budgets", budgets) / 2.0)
    between = k * (n - k) / (n * (n - 1.0)) * np.sum((w - w.mean()) ** 2) / w.sum() ** 2
    return float(within + between)


def sweep(
    kind: str,
    values,
    *,
    n: int,
    fractions,
    budgets,
    reps: int,
    seed: int,
    data_mean=50.0,
    data_sd=10.0,
    low=20.0,
    high=80.0,
    c=0.7,
    vary: str = "f_C",
):
    """Figure 3: MAE of Algorithm 1 (``kind='mean'``) or 2 (``'frequency'``) as the conservative
    fraction f_C (``vary='f_C'``, f_L fixed, f_M = 1 - f_L - f_C) or the conservative budget eps_C
    (``vary='eps_C'``) takes ``values``. One data set (common random numbers) for all points; per
    point, all ``reps`` repetitions at once. Returns rows with the MAE, its 95% CI, the exact
    prediction and the budgets used.

    ``values``: a non-empty 1-d array of at most 10^4 fractions (each f_C with f_C + f_L <= 1) or
    budgets (at least 1e-50); ``reps`` at least 2 with reps * n at most MAX_CELLS = 10^8; ``seed`` a
    non-negative integer; the data's law as for :func:`clipped_normal_data`, ``c`` in [0, 1]; the
    starting ``fractions`` and ``budgets`` as for :func:`group_budgets`."""
    from gspa.util.progress import bar as tqdm

    values = V.real(
        "values",
        values,
        ndim=1,
        max_size=10**4,
        low=0.0 if vary == "f_C" else 1.0 / MAX_VALUE,
        high=1.0 if vary == "f_C" else np.inf,
    )
    n, reps = _cells(n, reps, low=2)
    c = V.probability("c", c, scalar=True)
    rng = np.random.default_rng(V.integer("seed", seed, low=0))
    f0, e0 = np.asarray(fractions, float), np.asarray(budgets, float)
    x = (
        clipped_normal_data(n, reps, rng, data_mean, data_sd, low, high)
        if kind == "mean"
        else binary_data(n, c)
    )
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
            predicted = mean_error_sd(b, low, high) * np.sqrt(2.0 / np.pi)  # E|N(0, s^2)| (CLT)
        else:
            err = frequency_estimates(x, b, reps, rng) - c
            predicted = np.sqrt(frequency_variance_random(x, b)) * np.sqrt(2.0 / np.pi)
        rows.append(
            {
                vary: float(v),
                **mae_summary(err),
                "predicted_mae": float(predicted),
                "bias": float(np.mean(err)),
                "bias_se": float(np.std(err, ddof=1) / np.sqrt(reps)),
                "budgets": b,
            }
        )
    return rows


def _laplace_log_cdf(t, x, eps):
    """log P(x + Lap(1/eps) <= t), stable in both tails."""
    d = t - x
    with np.errstate(over="ignore"):
        return np.where(
            d >= 0,
            np.log1p(-0.5 * np.exp(-eps * np.maximum(d, 0.0))),
            np.log(0.5) + eps * np.minimum(d, 0.0),
        )


def laplace_max_event(eps_users, x, j: int, x_j0: float, x_j1: float, eps: float, t_grid):
    """A certified lower bound on delta(eps) of the shuffled reports y_i = x_i + Lap(1/eps_i)
    (Algorithm 1 with data scaled to sensitivity 1), from the events {max_i y_i > t} and
    {max_i y_i <= t}, for the neighbouring data sets where user j holds ``x_j0`` or ``x_j1``.

    Both events are functions of the shuffled multiset (a post-processing), and their probabilities
    are exact: P(max <= t) = prod_i F_i(t) with Laplace CDFs, evaluated in the log domain with users
    grouped by (input, budget). Returns (largest lower bound over ``t_grid``, the t attaining it); a
    rounding allowance of gamma(n + 8) relative is subtracted.

    ``eps_users`` n >= 1 budgets in (0, 1e50] (n at most MAX_USERS = 10^8) and ``x`` n inputs; the
    inputs, ``x_j0``, ``x_j1`` and ``t_grid`` finite within 1e50 in size; ``eps`` in [0, 700] (e^eps
    finite)."""
    eps_users = V.real(
        "eps_users", eps_users, low=0.0, low_open=True, high=MAX_VALUE, ndim=1, max_size=MAX_USERS
    )
    x = V.finite("x", x, low=-MAX_VALUE, high=MAX_VALUE)
    V.same_length(eps_users=eps_users, x=x)
    j = V.integer("j", j, low=0, high=eps_users.size - 1)
    x_j0 = V.finite("x_j0", x_j0, low=-MAX_VALUE, high=MAX_VALUE, scalar=True)
    x_j1 = V.finite("x_j1", x_j1, low=-MAX_VALUE, high=MAX_VALUE, scalar=True)
    eps = V.real("eps", eps, low=0.0, high=700.0, scalar=True)
    t = V.finite("t_grid", t_grid, low=-MAX_VALUE, high=MAX_VALUE).ravel()
    others = np.delete(np.stack([x, eps_users], axis=1), j, axis=0)
    pairs, counts = np.unique(others, axis=0, return_counts=True)
    base = np.zeros(t.size)
    for (xi, ei), c in zip(pairs, counts):
        base += c * _laplace_log_cdf(t, xi, ei)
    L0 = base + _laplace_log_cdf(t, x_j0, eps_users[j])
    L1 = base + _laplace_log_cdf(t, x_j1, eps_users[j])
    e = np.exp(eps)
    allow = (eps_users.size + 8) * np.finfo(float).eps
    above = (-np.expm1(L1)) - e * (-np.expm1(L0))  # {max > t}: data set 1 against 0
    below = np.exp(L0) - e * np.exp(L1)  # {max <= t}: data set 0 against 1
    vals = np.maximum(above, below) - allow * (1 + e)
    k = int(np.argmax(vals))
    return float(max(vals[k], 0.0)), float(t[k])


# -- Figure 3's runs, Theorem 3's counterexample, the algorithms' outputs (chapter gspa/figure3) --

#: Figure 3's grids (10 points each): the conservative fraction f_C and the conservative budget eps_C
F_C_VALUES = (0.01, 0.0644, 0.1189, 0.1733, 0.2278, 0.2822, 0.3367, 0.3911, 0.4456, 0.5)
EPS_C_VALUES = (0.05, 0.1556, 0.2611, 0.3667, 0.4722, 0.5778, 0.6833, 0.7889, 0.8944, 1.0)


@dataclass(frozen=True)
class Figure3Runs:
    """Figure 3 (a)–(d) (:func:`figure3_runs`): ``frames[(kind, vary)]`` holds one row per point of
    Algorithm 1 (``kind`` 'mean') or 2 ('frequency') as f_C or eps_C varies (``vary`` 'f_C' or
    'eps_C'): the simulated MAE with its 95% CI, the exact prediction, the bias and its standard
    error, the budgets, and the central privacy of
    :func:`gspa.studies.gspa.comparison.privacy_summary`."""

    frames: dict

    def trends(self) -> dict:
        """The trends of Figure 3 (Mean Estimation) and the Introduction's 'linear': per panel,
        Spearman's rank correlation ``rho`` of the MAE with the varied quantity and the R² (``r2``)
        of a straight-line fit."""
        from scipy import stats

        rho, r2 = {}, {}
        for key, df in self.frames.items():
            rho[key] = float(stats.spearmanr(df[key[1]], df.mae).statistic)
            r2[key] = float(stats.linregress(df[key[1]], df.mae).rvalue ** 2)
        return {"rho": rho, "r2": r2}

    def bias_z(self, level: float = 1e-3) -> dict:
        """'z is an unbiased estimator of c' (after Theorem 4): over the frequency points, the
        largest |mean(z) − c| in standard errors (``zmax``) and the Bonferroni critical value at
        family-wise ``level`` in (0, 1) (``z_crit``) for that many points (``points``)."""
        from scipy import stats

        level = V.real(
            "level", level, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True
        )
        zs = []
        for key in [k for k in self.frames if k[0] == "frequency"]:
            df = self.frames[key]
            zs += list(np.abs(df.bias) / df.bias_se)
        return {
            "zmax": float(np.max(zs)),
            "z_crit": float(stats.norm.isf(level / (2 * len(zs)))),
            "points": len(zs),
        }


def epsc_linearity(eps_c_values, n: int, fractions, budgets, low=20.0, high=80.0, c=0.7) -> dict:
    """The Introduction's 'as the privacy parameters of conservative users increase, utility demonstrates a
    positive linear relationship', on the exact predicted MAE (sqrt(2/π) times the estimator's standard
    deviation, as :func:`sweep` predicts it) of Algorithms 1 ('mean') and 2 ('frequency') at each conservative
    budget of ``eps_c_values`` (at least 3, at most 10^4; other arguments as for :func:`sweep`): the R² of a
    straight line through utility read as the error MAE (``mae``; Figure 3 plots it) and as the precision
    1/MAE (``precision``), per algorithm."""
    from scipy import stats

    values = V.real("eps_c_values", eps_c_values, ndim=1, max_size=10**4, low=1.0 / MAX_VALUE)
    if values.size < 3:
        raise ValueError(
            f"eps_c_values must hold at least 3 budgets to fit a line, got {values.size}"
        )
    n = V.integer("n", n, low=2, high=10**7)
    x = binary_data(n, V.probability("c", c, scalar=True))
    out = {"mae": {}, "precision": {}}
    for kind in ("mean", "frequency"):
        mae = []
        for v in values:
            e = np.asarray(budgets, float).copy()
            e[0] = v
            b = group_budgets(n, fractions, e)
            sd = (
                mean_error_sd(b, low, high)
                if kind == "mean"
                else np.sqrt(frequency_variance_random(x, b))
            )
            mae.append(sd * np.sqrt(2.0 / np.pi))
        mae = np.array(mae)
        out["mae"][kind] = float(stats.linregress(values, mae).rvalue ** 2)
        out["precision"][kind] = float(stats.linregress(values, 1 / mae).rvalue ** 2)
    return out


def figure3_runs(
    n: int,
    fractions,
    budgets,
    reps: int,
    seed: int,
    f_c_values=F_C_VALUES,
    eps_c_values=EPS_C_VALUES,
    data_mean: float = 50.0,
    data_sd: float = 10.0,
    low: float = 20.0,
    high: float = 80.0,
    c: float = 0.7,
    central_delta: float = 1e-6,
) -> Figure3Runs:
    """Figure 3 (a)–(d): :func:`sweep` for Algorithms 1 and 2 over ``f_c_values`` and
    ``eps_c_values`` (each run with ``seed``), with the central privacy of every point at
    ``central_delta`` in (0, 1): Theorem 2's μ and ε, and an upper bound on ε (Laplace with clones from
    users of budgets up to the differing user's for Algorithm 1; binary randomized response for Algorithm 2;
    both certified). Arguments as
    for :func:`sweep`."""
    import pandas as pd

    from gspa.studies.gspa.comparison import privacy_summary

    central_delta = V.real(
        "central_delta",
        central_delta,
        low=0.0,
        high=1.0,
        low_open=True,
        high_open=True,
        scalar=True,
    )
    V.real("f_c_values", f_c_values, ndim=1, max_size=10**4, low=0.0, high=1.0)
    V.real("eps_c_values", eps_c_values, ndim=1, max_size=10**4, low=1.0 / MAX_VALUE)
    common = {"n": n, "fractions": fractions, "budgets": budgets, "reps": reps, "seed": seed}
    common.update(data_mean=data_mean, data_sd=data_sd, low=low, high=high, c=c)
    frames = {}
    for kind in ("mean", "frequency"):
        for vary, vals in (("f_C", f_c_values), ("eps_C", eps_c_values)):
            df = pd.DataFrame(sweep(kind, vals, vary=vary, **common))
            how = "laplace" if kind == "mean" else "rr"
            priv = [privacy_summary(b, central_delta, how) for b in df.budgets]
            for key in ("mu", "eps_theorem", "eps_certified", "certified_by"):
                df[key] = [p[key] for p in priv]
            frames[(kind, vary)] = df
    return Figure3Runs(frames)


def theorem3_counterexample(
    n_values, eps_one: float = 0.1, eps_rest: float = 1.0, eps: float = 0.05, points: int = 4001
) -> dict:
    """Theorem 3 (Algorithm 1 'approximately preserves μ-GDP') against an exact event of shuffled
    Laplace reports: one user at ``eps_one`` holding 0 or 1 among n − 1 users at ``eps_rest``
    holding 0 (data scaled to sensitivity 1; budgets in [10^-6, 100]). For each n of ``n_values`` (3
    to 10^7, at most 20 of them): Theorem 3's μ, the δ(``eps``) it allows (Fact 3), the δ of the
    best event {max yᵢ > t} on ``points`` thresholds t ∈ [0, 40/eps_one] (:func:`laplace_max_event`,
    a certified lower bound), the certified upper bound on δ(``eps``) of the same protocol
    (:func:`gspa.privacy.shuffle.accountant.personalized_pair` with ``randomizer="laplace"``; an
    AssertionError if it falls below the event) and the constant that eq. (15) would need there,
    C = (δ_event − δ_μ)√(n − 1)/(1 + e^ε).

    Returns ``rows`` (one dict per n), ``c_growth`` (C at the largest n over C at the smallest),
    ``c_slope`` and ``d_slope`` (fitted exponents of C and δ_event in n; None where some value is
    not positive or fewer than two n are given), and ``mu_z``, a Gaussian approximation (not a
    certificate) of the μ of the returned mean z alone at the largest n."""
    from gspa.privacy.basics.fdp import gdp_delta
    from gspa.privacy.shuffle.accountant import personalized_pair
    from gspa.studies.gspa.theorem2 import mu_theorem2

    n_values = V.real("n_values", n_values, low=3, high=10**7, ndim=1, max_size=20)
    eps_one = V.real("eps_one", eps_one, low=1e-6, high=100.0, scalar=True)
    eps_rest = V.real("eps_rest", eps_rest, low=1e-6, high=100.0, scalar=True)
    eps = V.real("eps", eps, low=0.0, high=700.0, scalar=True)
    points = V.integer("points", points, low=2, high=10**6)
    grid = np.linspace(0, 40 / eps_one, points)
    rows = []
    for m in n_values.astype(int).tolist():
        eps_u = np.full(m, eps_rest)
        eps_u[0] = eps_one
        d_event, t_best = laplace_max_event(eps_u, np.zeros(m), 0, 0.0, 1.0, eps, grid)
        mu3 = mu_theorem2(eps_u)
        d_mu = float(gdp_delta(eps, mu3))
        values = np.unique([eps_one, eps_rest])
        counts = np.where(values == eps_one, 1, 0) + np.where(values == eps_rest, m - 1, 0)
        upper = personalized_pair(values, randomizer="laplace", counts=counts).delta(eps)
        if upper < d_event:
            raise AssertionError(f"the certified upper bound {upper} is below the event {d_event}")
        rows.append(
            {
                "n": m,
                "μ (Theorem 3)": mu3,
                "δ allowed by μ": d_mu,
                "δ ≥ (max event)": d_event,
                "δ ≤ (certified)": float(upper),
                "at t": t_best,
                "C needed": (d_event - d_mu) * np.sqrt(m - 1) / (1 + np.exp(eps)),
            }
        )
    n = np.array([r["n"] for r in rows], dtype=float)
    C = np.array([r["C needed"] for r in rows])
    d = np.array([r["δ ≥ (max event)"] for r in rows])
    fit = lambda y: (
        float(np.polyfit(np.log(n), np.log(y), 1)[0])
        if np.unique(n).size >= 2 and np.all(y > 0)
        else None
    )
    return {
        "rows": rows,
        "c_growth": float(C[-1] / C[0]) if C[0] > 0 else None,
        "c_slope": fit(C),
        "d_slope": fit(d),
        "mu_z": float(1 / np.sqrt(2 / eps_one**2 + 2 * (n[-1] - 1) / eps_rest**2)),
    }


def algorithm_outputs(
    n: int,
    fractions,
    budgets,
    seed: int,
    c: float = 0.7,
    data_mean: float = 50.0,
    data_sd: float = 10.0,
    low: float = 20.0,
    high: float = 80.0,
) -> dict:
    """One run of each algorithm at the three-group budgets (:func:`group_budgets`), as printed
    ('Output: z ∈ ℕ', Algorithms 1 and 2): ``z_mean``, Algorithm 1's z on clipped normal data, and
    ``z_freq``, Algorithm 2's z on data of density ``c``; and Figure 1's separate shuffle of budgets
    and reports: Algorithm 2's z from one set of reports with the budgets linked to them
    (``z_linked``) and with the budgets shuffled by a second, independent permutation
    (``z_separate``). Arguments as for :func:`sweep` (``seed`` drives every draw)."""
    seed = V.integer("seed", seed, low=0)
    b = group_budgets(n, fractions, budgets)
    c = V.probability("c", c, scalar=True)
    rng = np.random.default_rng(seed)
    x_mean = clipped_normal_data(n, 1, rng, data_mean, data_sd, low, high)
    z_mean = float(x_mean.mean() + mean_estimation_errors(x_mean, b, low, high, rng)[0])
    x_bits, keep = binary_data(n, c), rr_probabilities(b)
    z_freq = float(frequency_estimates(x_bits, b, 1, np.random.default_rng(seed))[0])
    A_once = float(np.sum(rng.random(n) < np.where(x_bits == 1, keep, 1 - keep)))
    z_linked, z_separate = (
        float((A_once - np.sum(1 - k)) / (n - 2 * np.sum(1 - k)))
        for k in (keep, rng.permutation(keep))
    )
    return {"z_mean": z_mean, "z_freq": z_freq, "z_linked": z_linked, "z_separate": z_separate}
