"""Lemma 2 (Berry–Esseen) and Lemma 3: the Gaussian approximation of the clone counts.

Paper items: Lemma 2, eq. (14), Lemma 3 (and its proof), the proof of Theorem 2.

(xi_0, xi_1) = sum over m users of MultiBern(p/2, p/2, 1 - p); with all p equal its law is exact:
M ~ Binomial(m, p) clones, and xi_0 | M ~ Binomial(M, 1/2). Lemma 2 compares it with the normal
law of the same mean and covariance, integrated over lattice cells. Eq. (14) prints the cell as
[k, k + 1/2]^2 (a quarter of the unit cell around k) and calls the supremum of the pointwise
differences a total-variation distance; :func:`lemma2_distances` computes that printed quantity,
the same with the unit cell [k - 1/2, k + 1/2]^2, the true TV distance and the Kolmogorov distance.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from gspa.util import validate as V


MAX_M = 10**15  # users m of the lattice law
MAX_NODES = 1000  # normal_rectangles: Gauss-Legendre nodes


def _m(m) -> int:
    return V.integer("m", m, low=1, high=MAX_M)


def multibern_moments(p, m: int):
    """Mean and covariance of (xi_0, xi_1) for m users with MultiBern(p/2, p/2, 1 - p) each."""
    p = V.probability("p", p, scalar=True)
    m = _m(m)
    mean = np.array([m * p / 2, m * p / 2])
    var, cov = m * (p / 2) * (1 - p / 2), -m * p * p / 4
    return mean, np.array([[var, cov], [cov, var]])


def lattice_pmf(p, m: int, k0, k1):
    """Exact P(xi_0 = k0, xi_1 = k1) on a grid (k0, k1 arrays broadcast): ``p`` in [0, 1], ``m`` in
    [1, MAX_M = 10^15], k0 and k1 integer-valued (negative counts have probability 0)."""
    p = V.probability("p", p, scalar=True)
    m = _m(m)
    k0, k1 = np.broadcast_arrays(V.finite("k0", k0), V.finite("k1", k1))
    tot = k0 + k1
    return stats.binom.pmf(tot, m, p) * stats.binom.pmf(k0, tot, 0.5)


def trinomial_pmf(c: int, q: float) -> np.ndarray:
    """Law of (number of 0s, number of 1s) of ``c`` users each reporting 0 with probability ``q``, 1 with
    probability ``q`` and 2 otherwise, as a (c + 1) x (c + 1) array from the multinomial probability function in
    closed form (log-gamma; 0 log 0 = 0) — not the clone split of :func:`lattice_pmf`, so either can check the
    other. ``c`` in [0, 5000], ``q`` in [0, 1/2]."""
    c = V.integer("c", c, low=0, high=5000)
    q = V.real("q", q, low=0.0, high=0.5, scalar=True)
    a, b = np.meshgrid(np.arange(c + 1), np.arange(c + 1), indexing="ij")
    rest = c - a - b
    ok = rest >= 0
    ar, br, rr = a[ok], b[ok], rest[ok]
    log = (
        special.gammaln(c + 1)
        - special.gammaln(ar + 1)
        - special.gammaln(br + 1)
        - special.gammaln(rr + 1)
    )
    with np.errstate(divide="ignore"):
        lq, lr = np.log(q), np.log1p(-2 * q)
    for k, lp in ((ar + br, lq), (rr, lr)):  # k log p with 0 log 0 = 0
        used = k > 0
        log[used] += k[used] * lp
    out = np.zeros((c + 1, c + 1))
    out[ok] = np.exp(log)
    return out


def normal_rectangles(mean, cov, a0, b0, a1, b1, nodes: int = 8):
    """P(a0 <= X0 <= b0, a1 <= X1 <= b1) for X ~ N(mean, cov), vectorised over rectangles:
    Gauss–Legendre over X0 of the density times the conditional normal probability of X1.
    ``mean`` a 2-vector in [-1e50, 1e50], ``cov`` a positive definite 2 x 2 matrix with entries in
    [-1e100, 1e100] and variances at least 1e-100, the rectangles' ends in [-1e50, 1e50], ``nodes`` in [1, MAX_NODES = 1000]."""
    mean = V.real("mean", mean, low=-1e50, high=1e50, ndim=1)
    cov = V.real("cov", cov, low=-1e100, high=1e100, ndim=2)
    if not (
        cov[0, 0] >= 1e-100
        and cov[1, 1] >= 1e-100
        and cov[0, 1] == cov[1, 0]
        and cov[0, 1] ** 2 < cov[0, 0] * cov[1, 1]
    ):
        raise ValueError(
            f"cov must be a symmetric positive definite 2 x 2 matrix, got {cov.tolist()}"
        )
    nodes = V.integer("nodes", nodes, low=1, high=MAX_NODES)
    ends = [
        V.real(name, v, low=-1e50, high=1e50)
        for name, v in (("a0", a0), ("b0", b0), ("a1", a1), ("b1", b1))
    ]
    a0, b0, a1, b1 = ends
    s0, s1 = np.sqrt(cov[0, 0]), np.sqrt(cov[1, 1])
    rho = cov[0, 1] / (s0 * s1)
    sc = s1 * np.sqrt(1 - rho * rho)
    t, w = np.polynomial.legendre.leggauss(nodes)
    a0, b0, a1, b1 = (np.asarray(v, dtype=float)[..., None] for v in (a0, b0, a1, b1))
    x = 0.5 * (b0 - a0) * t + 0.5 * (b0 + a0)
    dens = stats.norm.pdf(x, mean[0], s0)
    mc = mean[1] + rho * s1 / s0 * (x - mean[0])
    inner = special.ndtr((b1 - mc) / sc) - special.ndtr((a1 - mc) / sc)
    return (0.5 * (b0 - a0) * (dens * inner * w)).sum(axis=-1)


def lemma2_distances(p, m: int, width: float = 9.0) -> dict:
    """The distances of eq. (14) between the exact lattice law and its normal approximation.

    Returns ``printed`` (sup |P - h| with eq. (14)'s cells [k, k+1/2]^2), ``sup_unit_cell`` (the same
    with unit cells), ``printed_mass`` (the sum of eq. (14)'s h over the grid: about 1/4, where the normal
    masses of cells that tile the plane sum to 1), ``tv`` (1/2 sum |P - h_unit| plus the normal mass outside
    the grid) and ``kolmogorov``, sup over x in R^2 of |P(xi <= x) - G(x)| with G the continuous normal's distribution
    function (the metric of the classical Berry–Esseen theorem; finite, unlike the total variation to the
    continuous law). P(xi <= x) is constant on each cell [k0, k0+1) x [k1, k1+1) while G increases in both
    coordinates, so the supremum over a cell is at its corners k or k + (1, 1); G at the corners is the
    cumulated normal mass of unit cells from ``width`` sd below the mean (the mass below, under that
    tail, is left out).

    The grid has (2 width sd + 1)^2 cells, sd the clone count's standard deviation: ``width`` is in
    (0, 40]; p in (0, 1]."""
    width = V.real("width", width, low=0.0, low_open=True, high=40.0, scalar=True)
    V.probability("p", p, open_low=True, scalar=True)  # p = 0: no clones, no distance to take
    mean, cov = multibern_moments(p, m)
    sd = np.sqrt(cov[0, 0])
    lo = max(int(np.floor(mean[0] - width * sd)), 0)
    hi = int(np.ceil(mean[0] + width * sd))
    k = np.arange(lo, hi + 1)
    K0, K1 = np.meshgrid(k, k, indexing="ij")
    P = lattice_pmf(p, m, K0, K1)
    h_printed = normal_rectangles(mean, cov, K0, K0 + 0.5, K1, K1 + 0.5)
    h_unit = normal_rectangles(mean, cov, K0 - 0.5, K0 + 0.5, K1 - 0.5, K1 + 0.5)
    outside = max(0.0, 1.0 - h_unit.sum())
    low = int(
        np.floor(mean[0] - width * sd)
    )  # the normal's grid, below the counts' where that is < 0
    c = np.arange(low, hi + 2)  # corners: G(c0, c1) for c in low..hi+1
    C0, C1 = np.meshgrid(c, c, indexing="ij")
    G = normal_rectangles(mean, cov, C0 - 1, C0, C1 - 1, C1).cumsum(0).cumsum(1)
    F = np.zeros((c.size - 1, c.size - 1))  # P(xi <= k) for k in low..hi: 0 below the counts' grid
    F[lo - low :, lo - low :] = P.cumsum(0).cumsum(1)
    kolmogorov = max(np.abs(F - G[:-1, :-1]).max(), np.abs(F - G[1:, 1:]).max())
    return {
        "printed": float(np.abs(P - h_printed).max()),
        "sup_unit_cell": float(np.abs(P - h_unit).max()),
        "tv": float(0.5 * (np.abs(P - h_unit).sum() + outside + max(0.0, 1.0 - P.sum()))),
        "kolmogorov": float(kolmogorov),
        "printed_mass": float(h_printed.sum()),
    }


def eq14_printed_leading(p, m: int) -> float:
    """The leading term of eq. (14) as printed, 3 / (4 pi m p sqrt(1 - p)), for p in (0, 1).

    Eq. (14)'s h(k) is the normal mass of the quarter cell [k0, k0 + 1/2] x [k1, k1 + 1/2], about a quarter of
    the density at k; the lattice probability P(k) is about the whole density at k (local limit theorem, error
    O(m^(-3/2))). So |P(k) - h(k)| is about 3/4 of the density, largest at the mean, where the density is
    1 / (2 pi sqrt(det Sigma)) with det Sigma = m^2 (p/2)^2 (1 - p) (:func:`multibern_moments`). The printed
    quantity is therefore 3/4 of the peak probability: it decays like 1/m whether or not the lattice law is
    close to the normal one."""
    p = V.probability("p", p, open_low=True, open_high=True, scalar=True)
    return float(3.0 / (4.0 * np.pi * _m(m) * p * np.sqrt(1.0 - p)))


def few_clones_rate(m_values, clones: float = 2.0) -> list[dict]:
    """Lemma 2's "there exists C" along the family of inputs that leaves few clones: m users, each a clone with
    probability p = ``clones``/m, so that the expected number of clones stays ``clones`` while m grows. Per m:
    the clone probability p, the total variation ``tv`` to the normal rounded to the lattice
    (:func:`lemma2_distances`) and the constant it requires, ``C`` = tv·sqrt(m). A C that serves every m and
    every p must bound C along the family; it grows like sqrt(m) (the law tends to a Poisson-type law, not
    to a normal one)."""
    clones = V.real("clones", clones, low=0.0, low_open=True, high=1e4, scalar=True)
    m_values = [_m(m) for m in np.atleast_1d(m_values).tolist()]
    rows = []
    for m in m_values:
        tv = lemma2_distances(clones / m, m)["tv"]
        rows.append({"m": m, "p": clones / m, "tv": tv, "C": tv * float(np.sqrt(m))})
    return rows


def loglog_slope(x, y) -> float:
    """The least-squares slope of log y against log x (a rate: y ~ x^slope); x, y positive, two points at least."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.size < 2 or (x <= 0).any() or (y <= 0).any():
        raise ValueError(
            f"x and y must be positive and of one length >= 2, got {x.size} and {y.size} values"
        )
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def lemma2_rates(eps0: float, delta0: float, m_values, few_m, few_clones: float = 2.0) -> dict:
    """Lemma 2's chapter in one call: at a common budget (ε₀, δ₀) (each user a clone with Lemma 3's
    p = 2(1 − δ₀)/(1 + e^ε₀)), the distances of :func:`lemma2_distances` per m in ``m_values``
    (``rows``), the few-clones family of :func:`few_clones_rate` (``few``), and the log-log ``slopes`` of
    each distance in m (``printed``, ``sup_unit_cell``, ``tv``, ``kolmogorov``, and ``few`` for the family's
    total variation)."""
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, scalar=True)
    delta0 = V.real("delta0", delta0, low=0.0, high=1.0, high_open=True, scalar=True)
    p = 2 * (1 - delta0) / (1 + np.exp(eps0))
    rows = [
        {"m": m, **lemma2_distances(p, m)}
        for m in [_m(m) for m in np.atleast_1d(m_values).tolist()]
    ]
    few = few_clones_rate(few_m, clones=few_clones)
    slopes = {
        c: loglog_slope([r["m"] for r in rows], [r[c] for r in rows])
        for c in ("printed", "sup_unit_cell", "tv", "kolmogorov")
    }
    slopes["few"] = loglog_slope([r["m"] for r in few], [r["tv"] for r in few])
    return {"p": float(p), "rows": rows, "few": few, "slopes": slopes}


def mahalanobis_lemma3(p_lemma3) -> float:
    """(mu_1 - mu_0)' Sigma^{-1} (mu_1 - mu_0) for Lemma 3's Gaussians, by linear algebra (not by
    the closed form), with mu_1 - mu_0 = (-1, 1) and Sigma = sum of the per-user covariances."""
    p = V.probability("p_lemma3", p_lemma3)
    a = np.sum(p / 2 * (1 - p / 2))
    b = -np.sum(p * p / 4)
    S = np.array([[a, b], [b, a]])
    d = np.array([-1.0, 1.0])
    return float(d @ np.linalg.solve(S, d))


def sigma_inverse_printed(p_lemma3) -> np.ndarray:
    """Sigma^{-1} as printed in the proof of Lemma 3: [[2v1 - v2, v2], [v2, 2v1 - v2]] / (v1^2 - v1 v2)."""
    p = V.probability("p_lemma3", p_lemma3, ndim=1)
    v1, v2 = p.sum(), (p * p).sum()
    den = v1 * v1 - v1 * v2
    if not den > 0:
        raise ValueError(
            f"p_lemma3 gives a singular Sigma (v1^2 - v1 v2 = {den:g}): some p_i must lie in (0, 1)"
        )
    return np.array([[2 * v1 - v2, v2], [v2, 2 * v1 - v2]]) / den
