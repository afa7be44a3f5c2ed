"""Theorem 3 read as a statement about Algorithm 1's output alone: the returned mean z.

Paper items: Theorem 3, Algorithm 1 (line 5: z = (1/n) Σ yᵢ, yᵢ = xᵢ + Lap(Δf/εᵢ)).

With the data scaled to sensitivity 1 (b_i = 1/ε_i), n·z is the data's sum plus S = Σᵢ Lᵢ, Lᵢ ~ Lap(bᵢ)
independent; on neighbouring data sets n·z is S + a and S + a + s with |s| ≤ 1, whichever user differs. S is
symmetric and log-concave (each Laplace density is), so the likelihood ratio of the shifted pair is monotone,
the most powerful tests are thresholds, and the trade-off curve is T(α) = F(F⁻¹(1 − α) − s), F the CDF of
S: the points (1 − F(x), F(x − s)) for real x. The largest shift, s = 1, gives the lowest curve.

F comes from the characteristic function φ(t) = ∏ᵢ 1/(1 + bᵢ² t²) (Gil-Pelaez):
F(x) = 1/2 + (1/π) ∫₀^∞ sin(t x) φ(t)/t dt, by composite Gauss–Legendre quadrature on [0, t_max]. The tail
beyond t_max is bounded: log(1 + b² t²) is concave in log t with slope at least 2c = 2b²t_max²/(1 + b²t_max²)
for t ≥ t_max, so φ(t) ≤ φ(t_max) (t_max/t)^{2C} with C = Σᵢ cᵢ, and ∫_{t_max}^∞ φ(t)/t dt ≤ φ(t_max)/(2C);
divided by π, that bounds the truncation error of every F(x). The quadrature's own error is estimated by
doubling the panels (not a proof); both are returned.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from gspa.util import validate as V

MAX_NODES = 10**6  # quadrature nodes of one CDF, to keep time bounded
_BLOCK = 2 * 10**7  # nodes × points evaluated at once
_GL = 16  # Gauss–Legendre nodes per panel


def _histogram(scales, counts):
    scales = V.real("scales", scales, low=1e-6, high=1e6, ndim=1, max_size=100)
    if counts is None:
        counts = np.ones(scales.size)
    counts = V.real("counts", counts, low=0.0, high=1e9, ndim=1, max_size=100)
    if counts.shape != scales.shape or not np.all(counts == np.round(counts)) or counts.sum() < 1:
        raise ValueError("counts must be whole numbers, one per scale, at least one user in all")
    return scales, counts


def _log_phi(t, scales, counts):
    return -(counts * np.log1p((scales * t[..., None]) ** 2)).sum(axis=-1)


def _t_max(scales, counts, tol):
    """The smallest t_max (doubling from 1/b_max) whose tail bound φ(t_max)/(2πC) is at most ``tol``."""
    t = 1.0 / scales.max()
    while True:
        c = (counts * (scales * t) ** 2 / (1 + (scales * t) ** 2)).sum()
        bound = np.exp(_log_phi(np.array([t]), scales, counts)[0]) / (2 * np.pi * c)
        if bound <= tol:
            return t, float(bound)
        t *= 2.0


def laplace_sum_cdf(x, scales, counts=None, tol: float = 1e-14) -> tuple[np.ndarray, float]:
    """CDF of S = Σ Lap(bᵢ) at the points ``x`` (any shape), ``counts[j]`` users of scale ``scales[j]``
    (at most 100 distinct scales in [1e-6, 1e6]). Returns (F, error): ``error`` is the truncation bound
    (at most ``tol``) plus the change of F when the quadrature's panels are doubled. Refused (ValueError)
    when the quadrature would need more than MAX_NODES nodes."""
    scales, counts = _histogram(scales, counts)
    tol = V.real("tol", tol, low=1e-16, high=1e-3, scalar=True)
    x = V.finite("x", x)
    xs = np.abs(x).ravel()
    t_max, trunc = _t_max(scales, counts, tol)
    # a panel spans at most a quarter period of sin(t·max|x|), 1/(4 b_max) and 1/sd (φ's scales)
    sd = np.sqrt(2 * (counts * scales**2).sum())
    width = min(np.pi / (2 * max(xs.max(initial=0.0), 1e-300)), 1 / (4 * scales.max()), 1 / sd)
    panels = int(np.ceil(t_max / width))
    if 2 * panels * _GL > MAX_NODES:
        raise ValueError(f"this CDF needs {2 * panels * _GL:,} quadrature nodes: over MAX_NODES")

    def integral(k):
        u, w = np.polynomial.legendre.leggauss(_GL)
        edges = np.linspace(0.0, t_max, k + 1)
        h = np.diff(edges)[:, None] / 2
        t = (edges[:-1, None] + h * (u + 1)).ravel()
        w = (h * w).ravel()
        g = w * np.exp(_log_phi(t, scales, counts)) / t  # Gauss–Legendre nodes are never 0
        out = np.empty(xs.size)
        step = max(1, _BLOCK // t.size)
        for i in range(0, xs.size, step):
            out[i : i + step] = np.sin(xs[i : i + step, None] * t) @ g
        return out / np.pi

    fine, coarse = integral(2 * panels), integral(panels)
    F = 0.5 + np.sign(x.ravel()) * fine
    return F.reshape(np.shape(x)), float(trunc + np.abs(fine - coarse).max(initial=0.0))


def shift_tradeoff(
    scales,
    counts=None,
    shift: float = 1.0,
    points: int = 2001,
    width: float = 12.0,
    tol: float = 1e-14,
):
    """The trade-off curve of (S, S + ``shift``), S = Σ Lap(bᵢ) (:func:`laplace_sum_cdf`), at ``points``
    thresholds x spread over ±``width`` standard deviations of S (and of the largest Laplace, so that its
    tail is covered): returns (alpha, beta, error) with alpha = 1 − F(x) decreasing and beta = F(x − shift),
    points of the exact curve up to ``error`` (:func:`laplace_sum_cdf`'s, with its ``tol``)."""
    scales, counts = _histogram(scales, counts)
    shift = V.real("shift", shift, low=0.0, high=1e6, scalar=True)
    points = V.integer("points", points, low=3, high=10**5)
    width = V.real("width", width, low=1.0, high=100.0, scalar=True)
    sd = np.sqrt(2 * (counts * scales**2).sum())
    half = width * max(sd, 3 * scales.max())
    x = np.linspace(-half, half + shift, points)
    F, err = laplace_sum_cdf(np.concatenate([x, x - shift]), scales, counts, tol)
    return 1 - F[:points], F[points:], err


def _chord_bound(a, g, t):
    """An upper bound on sup (G − T) over [a[0], a[-1]] from values at increasing points ``a``: G convex lies
    below its chords; T convex lies above the extensions of the chords of the neighbouring intervals. On
    interval i the bound is the largest of (chord of G) − max(left line, right line) at the interval's ends
    and where the two lines cross. The first and last intervals use the one neighbour they have."""
    da = np.diff(a)
    slope = np.diff(t) / da  # slope of T's chord on each interval
    best = np.max(g - t)
    for i in range(a.size - 1):
        lines = []
        if i > 0:
            lines.append(
                (slope[i - 1], a[i], t[i])
            )  # through (a_i, T_i) with the left chord's slope
        if i < a.size - 2:
            lines.append((slope[i + 1], a[i + 1], t[i + 1]))
        pts = [a[i], a[i + 1]]
        if len(lines) == 2 and slope[i + 1] != slope[i - 1]:
            (m1, x1, y1), (m2, x2, y2) = lines
            cross = (y2 - y1 + m1 * x1 - m2 * x2) / (m1 - m2)
            if a[i] < cross < a[i + 1]:
                pts.append(cross)
        for p in pts:
            gc = g[i] + (g[i + 1] - g[i]) * (p - a[i]) / da[i]
            low = max([m * (p - x) + y for m, x, y in lines], default=min(t[i], t[i + 1]))
            best = max(best, gc - low)
    return float(best)


def gdp_excess(
    scales, counts, mu: float, shift: float = 1.0, points: int = 2001, tol: float = 1e-14
) -> dict:
    """How far G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) rises above the exact trade-off curve T of (S, S + ``shift``):
    ``excess``, the largest G_μ − T at the computed points of T (:func:`shift_tradeoff`), and ``bound``, an
    upper bound on sup_α (G_μ − T): between computed points by convexity (:func:`_chord_bound`); below the
    smallest α computed, T ≥ 1 − e^{s/b_max}α since S + s against S is (s/b_max)-DP; above the largest,
    G_μ ≤ 1 − α. Both include the CDF's error. Also ``tv`` = F(s/2) − F(−s/2), the pair's total variation,
    and ``error``; ``tol`` as for :func:`laplace_sum_cdf`."""
    scales, counts = _histogram(scales, counts)
    mu = V.real("mu", mu, low=0.0, scalar=True)
    alpha, beta, err = shift_tradeoff(scales, counts, shift, points, tol=tol)
    # increasing α; where F saturates in floating point several x give one α: keep the smallest β there
    a, keep = np.unique(alpha, return_index=True)
    t = beta[keep]
    g = special.ndtr(special.ndtri(np.clip(1 - a, 0.0, 1.0)) - mu) if np.isfinite(mu) else 0 * a
    ends = [np.exp(shift / scales.max()) * a[0], 1 - a[-1]]
    Ftv, err_tv = laplace_sum_cdf(np.array([shift / 2]), scales, counts, tol)
    return {
        "excess": float(np.max(g - t) + err),
        "bound": float(max(_chord_bound(a, g, t), *ends) + err),
        "tv": float(2 * Ftv[0] - 1),
        "error": float(err + err_tv),
    }


def theorem3_mean_alone(n_values, eps_one: float, eps_rest: float) -> dict:
    """Theorem 3 read as a statement about the returned mean z alone, for Theorem 3's counterexample
    budgets: one user at ``eps_one`` among n − 1 at ``eps_rest`` (data scaled to sensitivity 1, budgets in
    [10^-3, 100]), for each n of ``n_values`` (3 to 10^6, at most 20): Theorem 3's μ, the pair's total
    variation and :func:`gdp_excess`'s bound on sup_α (G_μ − T) alone and over the total variation.
    Returns ``rows`` and ``worst``, the largest relative bound."""
    from gspa.studies.gspa.theorem2 import mu_theorem2

    n_values = V.real("n_values", n_values, low=3, high=10**6, ndim=1, max_size=20)
    eps_one = V.real("eps_one", eps_one, low=1e-3, high=100.0, scalar=True)
    eps_rest = V.real("eps_rest", eps_rest, low=1e-3, high=100.0, scalar=True)
    rows = []
    for n in n_values.astype(int).tolist():
        eps, counts = np.array([eps_one, eps_rest]), np.array([1, n - 1])
        mu = mu_theorem2(eps, counts=counts)
        r = gdp_excess(1 / eps, counts, mu)
        rows.append(
            {
                "n": n,
                "μ (Theorem 3)": mu,
                "TV": r["tv"],
                "sup (G_μ − T) ≤": r["bound"],
                "over TV": r["bound"] / r["tv"],
            }
        )
    return {"rows": rows, "worst": float(max(r["over TV"] for r in rows))}
