"""Lemma 3's Gaussian trade-off, checked: its closed forms (the Mahalanobis distance 4/Σpᵢ and the printed
Σ⁻¹) against linear algebra over random budgets, the trade-off G_μ against simulated likelihood-ratio
tests, and the proof of Theorem 2's second definition of pᵢ. The chapter: book/chapters/gspa/lemma3."""

from __future__ import annotations

import numpy as np

from gspa.privacy.basics import fdp
from gspa.studies.gspa import clt, theorem2
from gspa.util import validate as V

#: the budgets of the chapter's random users: εᵢ uniform in [EPS_LOW, EPS_HIGH], δᵢ in [0, DELTA_HIGH]
EPS_LOW, EPS_HIGH, DELTA_HIGH = 0.01, 2.0, 1e-3


def _sigma(p: np.ndarray) -> np.ndarray:
    """Σ of Lemma 3: the summed covariances of MultiBern(pᵢ/2, pᵢ/2, 1 − pᵢ)'s two counts."""
    a, b = np.sum(p / 2 * (1 - p / 2)), -np.sum(p**2 / 4)
    return np.array([[a, b], [b, a]])


def closed_form_errors(n_users, rng, n_random=200) -> dict:
    """Lemma 3 and its proof: for ``n_random`` random budget vectors of ``n_users`` users (εᵢ uniform in
    [0.01, 2], δᵢ in [0, 10⁻³], drawn from ``rng`` in that order), the largest relative errors of the
    closed form 4/Σpᵢ of the Mahalanobis distance (``maha``, against :func:`clt.mahalanobis_lemma3`) and of
    Σ⁻¹ as printed in the proof (``inverse``, against numpy's inverse), with pᵢ = 2(1 − δᵢ)/(1 + e^εᵢ)."""
    n_users = V.integer("n_users", n_users, low=2, high=10**6)
    n_random = V.integer("n_random", n_random, low=1, high=10**4)
    rng = V.generator("rng", rng)
    rel_maha, rel_inv = 0.0, 0.0
    for _ in range(n_random):
        eps = rng.uniform(EPS_LOW, EPS_HIGH, size=n_users)
        dl = rng.uniform(0, DELTA_HIGH, size=n_users)
        p = 2 * (1 - dl) / (1 + np.exp(eps))
        maha = clt.mahalanobis_lemma3(p)
        rel_maha = max(rel_maha, abs(maha - 4 / p.sum()) / maha)
        inv = np.linalg.inv(_sigma(p))
        rel_inv = max(rel_inv, np.abs(inv - clt.sigma_inverse_printed(p)).max() / np.abs(inv).max())
    return {"maha": float(rel_maha), "inverse": float(rel_inv)}


def simulated_tradeoff(n_users, rng, n_mc=200_000, thresholds=25) -> dict:
    """Lemma 3's conclusion T(N(μ₀,Σ), N(μ₁,Σ)) = G_μ with μ = 2/√Σpᵢ, simulated: ``n_users`` budgets εᵢ
    uniform in [0.01, 2] (δᵢ = 0) drawn from ``rng``, ``n_mc`` samples of each Gaussian projected on the
    likelihood-ratio direction Σ⁻¹(μ₁ − μ₀), and ``thresholds`` tests at quantiles 0.01..0.99 of the
    first sample. Returns the budgets ``eps``, ``mu`` and ``gap``, the largest |β̂ − G_μ(α̂)|."""
    n_users = V.integer("n_users", n_users, low=2, high=10**6)
    n_mc = V.integer("n_mc", n_mc, low=100, high=10**7)
    thresholds = V.integer("thresholds", thresholds, low=1, high=1000)
    rng = V.generator("rng", rng)
    eps = rng.uniform(EPS_LOW, EPS_HIGH, size=n_users)
    p = 2 / (1 + np.exp(eps))
    cov = _sigma(p)
    mu0 = np.array([1.0, 0.0]) + p.sum() / 2
    mu1 = np.array([0.0, 1.0]) + p.sum() / 2
    w = np.linalg.solve(cov, mu1 - mu0)  # the likelihood ratio's direction
    x0 = rng.multivariate_normal(mu0, cov, size=n_mc) @ w
    x1 = rng.multivariate_normal(mu1, cov, size=n_mc) @ w
    t = np.quantile(x0, np.linspace(0.01, 0.99, thresholds))
    alpha_hat = (x0[None, :] > t[:, None]).mean(axis=1)
    beta_hat = (x1[None, :] <= t[:, None]).mean(axis=1)
    mu = theorem2.mu_lemma3(p)
    gap = float(np.max(np.abs(beta_hat - fdp.gdp_tradeoff(alpha_hat, mu))))
    return {"eps": eps, "mu": mu, "gap": gap}


def proof_p_ratio(eps_users) -> float:
    """The proof of Theorem 2 sets pᵢ = (1 − δᵢ)/(1 + e^εᵢ) (here δᵢ = 0) in MultiBern(pᵢ/2, pᵢ/2, 1 − pᵢ):
    Lemma 3's μ = 2/√Σpᵢ with those pᵢ over the stated μ = √(2/Σpᵢ) (Theorem 2); √2 for every budget."""
    eps = V.real("eps_users", eps_users, low=0.0, high=700.0, ndim=1)
    p_thm = 1 / (1 + np.exp(eps))
    mu_stated = float(np.sqrt(2 / p_thm.sum()))  # Theorem 2's formula over these users
    return theorem2.mu_lemma3(p_thm) / mu_stated  # Lemma 3's formula fed with the proof's pᵢ
