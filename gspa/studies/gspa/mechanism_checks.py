"""The Mechanisms chapter's computations (book/chapters/gspa/mechanisms): Definition 4's Laplace profile
held against quadrature and ``dp-accounting``, Definition 5's Gaussian calibration (eq. (8)) at the chapter's
budgets, and Lemma 4's quaternary pair held above the exact profiles of the mechanisms the paper uses.

The profiles themselves are the library's (:mod:`gspa.privacy.basics.mechanisms`); the margins that search
the claims' stated domains are in :mod:`gspa.studies.gspa.margins`."""

from __future__ import annotations

import math

import numpy as np

from gspa.privacy.basics import mechanisms as M
from gspa.privacy.interop import dpaccounting as dpa
from gspa.studies.gspa import margins
from gspa.util import validate as V

#: largest budget the chapter's checks take (the searches' domains stop at 20)
MAX_EPS = 50.0
#: the budgets below this are left out of the Laplace checks: the quadrature's window 60/ε₀ and the PLD's
#: 2ε₀/discretization points both degrade there
LAPLACE_MIN_EPS = 0.1


def _budgets(name, values) -> np.ndarray:
    return np.atleast_1d(V.real(name, values, low=0.0, high=MAX_EPS, low_open=True))


def _grid(eps_grid) -> np.ndarray:
    return np.atleast_1d(V.finite("eps_grid", eps_grid, low=0.0))


def laplace_checks(eps_values, pld_discretization: float = 1e-4) -> dict:
    """Definition 4, eq. (7): the Laplace mechanism with scale Δ/ε₀ is ε₀-DP. For every budget ε₀ ≥ 0.1 of
    ``eps_values``, its exact profile δ(ε) = max(0, 1 − e^{(ε−ε₀)/2}) at 7 points of [0, 1.5 ε₀] against
    numerical integration (:func:`gspa.studies.gspa.margins.laplace_delta_quadrature`) and against
    ``dp-accounting``'s PLD with interval ``pld_discretization`` (in [1e-6, 0.1]). Returns the largest
    gaps ``quad`` and ``pld`` and the largest exact δ(ε₀), ``pure`` (0 when Definition 4 holds); all 0
    when no budget is at least 0.1."""
    eps_values = _budgets("eps_values", eps_values)
    pld_discretization = V.real(
        "pld_discretization", pld_discretization, low=1e-6, high=0.1, scalar=True
    )
    quad, pld, pure = 0.0, 0.0, 0.0
    for eps0 in eps_values[eps_values >= LAPLACE_MIN_EPS]:
        es = np.linspace(0, 1.5 * eps0, 7)
        exact = M.laplace_delta(es, eps0)
        gaps = (abs(margins.laplace_delta_quadrature(e, eps0) - d) for e, d in zip(es, exact))
        quad = max(quad, max(gaps))
        by_pld = dpa.laplace_delta(es, eps0, discretization=pld_discretization)
        pld = max(pld, np.max(np.abs(by_pld - exact)))
        pure = max(pure, float(M.laplace_delta(eps0, eps0)))
    return {"quad": quad, "pld": pld, "pure": pure}


def calibration_rows(eps_values, delta: float) -> list[dict]:
    """Definition 5, eq. (8) at the budgets ``eps_values`` and local ``delta``: one row per ε with eq. (8)'s
    σ, the exact δ(ε) of the Gaussian mechanism at that σ (Fact 3 with μ = Δ/σ), whether it is at most
    δ, the smallest σ that suffices (analytic calibration, Balle–Wang 2018) and eq. (8)'s noise overhead
    σ₈/σ* (sensitivity Δ = 1; both σ scale with Δ)."""
    eps_values = _budgets("eps_values", eps_values)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    rows = []
    for e in eps_values:
        s_classic = float(M.gaussian_sigma_classic(e, delta))
        s_exact = M.gaussian_sigma_exact(e, delta)
        rows.append(
            {
                "ε": e,
                "σ eq. (8)": s_classic,
                "exact δ(ε) at that σ": float(M.gaussian_delta(e, s_classic)),
                "holds": bool(M.classic_calibration_holds(e, delta)),
                "smallest σ (analytic)": s_exact,
                "noise overhead σ₈/σ*": s_classic / s_exact,
            }
        )
    return rows


def calibration_limits(delta_values) -> np.ndarray:
    """Definition 5, eq. (8): for each δ of ``delta_values``, the largest ε up to which eq. (8)'s σ gives
    (ε′, δ)-DP for every ε′ ≤ ε (:func:`gspa.privacy.basics.mechanisms.classic_calibration_limit`)."""
    deltas = np.atleast_1d(
        V.probability("delta_values", delta_values, open_low=True, open_high=True)
    )
    return np.array([M.classic_calibration_limit(d) for d in deltas])


def calibration_failures(delta_values, step: float = 1e-3) -> list[dict]:
    """Definition 5, eq. (8): for each δ of ``delta_values``, the point just beyond the limit of
    :func:`calibration_limits` — ε = limit·(1 + ``step``), ``step`` in (0, 0.1] — where eq. (8)'s σ no
    longer gives (ε, δ)-DP, as {"eps", "delta"} (the chapter's own counterexamples, which the holding
    region of its search must leave out). Each is checked to fail by
    :func:`gspa.studies.gspa.margins.gaussian_calibration_margin`; a δ whose limit is beyond 50 has none."""
    step = V.real("step", step, low=0.0, high=0.1, low_open=True, scalar=True)
    deltas = np.atleast_1d(
        V.probability("delta_values", delta_values, open_low=True, open_high=True)
    )
    points = []
    for d, limit in zip(deltas, calibration_limits(deltas)):
        if not math.isfinite(limit) or limit * (1 + step) > MAX_EPS:
            continue
        point = {"eps": float(limit * (1 + step)), "delta": float(d)}
        if margins.gaussian_calibration_margin(**point) >= 0:
            raise ValueError(f"eq. (8) holds at {point}, just beyond its limit: the limit is wrong")
        points.append(point)
    return points


def calibrated_profiles(eps_grid, eps_values, delta: float) -> dict:
    """Definition 5: the exact profile δ(ε) over ``eps_grid`` of the Gaussian mechanism with eq. (8)'s σ
    for each target budget of ``eps_values`` at ``delta`` (sensitivity 1): target ε -> array."""
    grid, eps_values = _grid(eps_grid), _budgets("eps_values", eps_values)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    return {
        e: M.gaussian_delta(grid, float(M.gaussian_sigma_classic(e, delta))) for e in eps_values
    }


def _lemma4_profiles(grid, e, delta, k):
    """(mechanism's profile, the quaternary pair's it must lie below) at budget e, for Lemma 4's check:
    randomized response and Laplace are (e, 0)-DP, both Gaussian calibrations (e, delta)-DP."""
    quat = M.quaternary_delta(grid, e, delta)
    quat0 = M.quaternary_delta(grid, e, 0.0)
    return {
        "binary randomized response": (M.rr_delta(grid, e), quat0),
        f"{k}-ary randomized response": (M.krr_delta(grid, e, k), quat0),
        "Laplace": (M.laplace_delta(grid, e), quat0),
        "Gaussian, eq. (8)": (
            M.gaussian_delta(grid, float(M.gaussian_sigma_classic(e, delta))),
            quat,
        ),
        "Gaussian, exact calibration": (
            M.gaussian_delta(grid, M.gaussian_sigma_exact(e, delta)),
            quat,
        ),
    }


def lemma4_excess(eps_grid, eps_values, delta: float, k: int) -> dict:
    """Lemma 4 (Kairouz–Oh–Viswanath 2015): every (εᵢ, δᵢ)-DP randomizer is a post-processing of the
    quaternary pair, so its profile lies below δᵢ + (1 − δᵢ) max{0, e^εᵢ − e^ε}/(1 + e^εᵢ) at every ε. For
    binary and ``k``-ary randomized response, Laplace (δᵢ = 0) and the Gaussian mechanism with eq. (8)'s and
    the exact calibration (δᵢ = ``delta``), at every budget of ``eps_values``: mechanism -> the largest
    excess max over budgets and ``eps_grid`` of δ_mech(ε) − δ_quat(ε) (≤ 0 where Lemma 4 holds)."""
    grid, eps_values = _grid(eps_grid), _budgets("eps_values", eps_values)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    k = V.integer("k", k, low=2, high=10**6)
    worst = {}
    for e in eps_values:
        for name, (prof, q) in _lemma4_profiles(grid, e, delta, k).items():
            worst[name] = max(worst.get(name, -np.inf), float(np.max(prof - q)))
    return worst


def lemma4_profiles(eps_grid, eps_i: float, delta: float) -> dict:
    """Lemma 4's picture at one budget ``eps_i``: the profiles over ``eps_grid`` of the quaternary pair with
    δᵢ = ``delta``, binary randomized response, Laplace and the exactly calibrated Gaussian (label -> array)."""
    grid = _grid(eps_grid)
    eps_i = V.real("eps_i", eps_i, low=0.0, high=MAX_EPS, low_open=True, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    return {
        f"quaternary pair (δᵢ = {delta:g})": M.quaternary_delta(grid, eps_i, delta),
        "binary randomized response": M.rr_delta(grid, eps_i),
        "Laplace": M.laplace_delta(grid, eps_i),
        "Gaussian, exact calibration": M.gaussian_delta(grid, M.gaussian_sigma_exact(eps_i, delta)),
    }


#: the noise vectors one comparison of :func:`laplace_vs_gaussian` draws at most (draws × dimension)
MAX_NOISE_VALUES = 10**8


def laplace_vs_gaussian(dims, eps: float, delta: float, n_draws: int, seed: int) -> list[dict]:
    """The Preliminaries' "the Laplace mechanism provides stronger privacy but may introduce larger errors,
    while the Gaussian mechanism is more suitable for accurate results", at one budget: for each query
    dimension d of ``dims`` (in [1, 10^4]), a query with ℓ2 sensitivity 1 and hence ℓ1 sensitivity up to √d
    (an ℓ2-clipped vector, as Algorithm 3's gradients), Laplace noise of eq. (7) with scale √d/ε against
    Gaussian noise of eq. (8) at (ε, δ). One row per d: each mechanism's exact δ at ε (Laplace: 0, it is
    ε-DP), its root-mean-square ℓ2 error in closed form (Laplace √(2d)·√d/ε, Gaussian √d·σ) and from
    ``n_draws`` sampled noise vectors (seeded by ``seed``), and whether both halves of the sentence hold:
    Laplace the stronger privacy (smaller δ at ε) and the larger error."""
    dims = [V.integer("d", d, low=1, high=10**4) for d in np.atleast_1d(dims)]
    eps = V.real("eps", eps, low=0.0, high=MAX_EPS, low_open=True, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    n_draws = V.integer("n_draws", n_draws, low=100, high=MAX_NOISE_VALUES)
    if n_draws * max(dims) > MAX_NOISE_VALUES:
        raise ValueError(
            f"n_draws * max(dims) must be at most {MAX_NOISE_VALUES}, got {n_draws * max(dims)}"
        )
    rng = np.random.default_rng(V.integer("seed", seed, low=0))
    sigma = float(M.gaussian_sigma_classic(eps, delta))
    rows = []
    for d in dims:
        scale = float(M.laplace_scale(eps, sensitivity=math.sqrt(d)))
        lap = rng.laplace(0.0, scale, size=(n_draws, d))
        gauss = rng.normal(0.0, sigma, size=(n_draws, d))
        lap_rms, gauss_rms = math.sqrt(2 * d) * scale, math.sqrt(d) * sigma
        sampled = math.sqrt(np.mean(np.sum(gauss**2, axis=1)) / np.mean(np.sum(lap**2, axis=1)))
        d_lap = float(M.laplace_delta(eps, eps))  # the scale √d/ε meets ℓ1 sensitivity √d
        d_gauss = float(M.gaussian_delta(eps, sigma))
        rows.append(
            {
                "d": d,
                "δ at ε, Laplace": d_lap,
                "δ at ε, Gaussian eq. (8)": d_gauss,
                "RMS error, Laplace": lap_rms,
                "RMS error, Gaussian": gauss_rms,
                "ratio Gaussian/Laplace": gauss_rms / lap_rms,
                "ratio, sampled": sampled,
                "Laplace: stronger privacy and larger error": d_lap < d_gauss
                and lap_rms > gauss_rms,
            }
        )
    return rows
