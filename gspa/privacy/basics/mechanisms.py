"""Local randomizers and their exact privacy profiles: Laplace, Gaussian, randomized response, Lemma 4's pair.
Derivations and checks: the mechanisms chapter (book/chapters/gspa/mechanisms).

Paper items: Definition 4 (Laplace mechanism, eq. (7)), Definition 5 (Gaussian mechanism, eq. (8)),
Lemma 4 (Kairouz–Oh–Viswanath 2015: every (eps_i, delta_i)-DP randomizer is a post-processing of a
quaternary pair), and the binary randomized response used in Algorithm 2.

A *privacy profile* is delta(eps) = sup over neighbouring inputs of the hockey-stick divergence
H_{e^eps}(M(x) || M(x')); a mechanism is (eps, delta)-DP iff delta >= delta(eps). The profiles here
are exact closed forms (the Gaussian one is Fact 3 with mu = sensitivity / sigma).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, special

from gspa.util import validate as V
from gspa.privacy.basics.fdp import gdp_delta

__all__ = [
    "laplace_scale",
    "laplace_delta",
    "gaussian_sigma_classic",
    "gaussian_delta",
    "gaussian_sigma_exact",
    "classic_calibration_holds",
    "classic_calibration_limit",
    "rr_probabilities",
    "rr_delta",
    "krr_delta",
    "quaternary_pmfs",
    "quaternary_delta",
]


def laplace_scale(eps, sensitivity=1.0):
    """Definition 4, eq. (7): the Laplace scale Delta / eps giving eps-DP (inf if it overflows).
    ``sensitivity`` finite and > 0."""
    eps = V.positive("eps", eps)
    sensitivity = V.finite("sensitivity", sensitivity, low=0.0, low_open=True)
    with np.errstate(over="ignore"):
        return sensitivity / eps


def laplace_delta(eps, eps0):
    """Exact privacy profile of the Laplace mechanism with scale Delta / eps0:
    delta(eps) = max(0, 1 - exp((eps - eps0) / 2)).  It is 0 for eps >= eps0 (pure eps0-DP)."""
    eps = V.nonnegative("eps", eps)
    eps0 = V.nonnegative("eps0", eps0)
    with np.errstate(over="ignore"):  # e^(large) = inf: delta is 0 there
        return np.maximum(0.0, -np.expm1((eps - eps0) / 2.0))


def gaussian_sigma_classic(eps, delta, sensitivity=1.0):
    """Definition 5, eq. (8): sigma = Delta * sqrt(2 log(1.25/delta)) / eps.

    Dwork–Roth (2014, Thm. A.1) prove (eps, delta)-DP with this sigma only for eps < 1; see
    :func:`classic_calibration_limit` for where it actually holds."""
    eps = V.positive("eps", eps)
    delta = V.probability("delta", delta, open_low=True, open_high=True)
    sensitivity = V.finite("sensitivity", sensitivity, low=0.0, low_open=True)
    with np.errstate(over="ignore"):  # inf if it overflows
        return sensitivity * np.sqrt(2.0 * np.log(1.25 / delta)) / eps


def gaussian_delta(eps, sigma, sensitivity=1.0):
    """Exact privacy profile of the Gaussian mechanism (Balle–Wang 2018): Fact 3 with mu = Delta/sigma."""
    sigma = V.positive("sigma", sigma)
    sensitivity = V.positive("sensitivity", sensitivity)
    return gdp_delta(eps, sensitivity / sigma)


def gaussian_sigma_exact(eps, delta, sensitivity=1.0) -> float:
    """Smallest sigma for which the Gaussian mechanism is exactly (eps, delta)-DP (analytic calibration,
    Balle–Wang 2018), rounded up so that gaussian_delta(eps, sigma) <= delta holds in floating point.
    ``eps`` in (0, 1e6], ``sensitivity`` in (0, 1e100] (so that the search for sigma stays finite)."""
    eps = V.real("eps", eps, low=0.0, low_open=True, high=1e6, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    sensitivity = V.real(
        "sensitivity", sensitivity, low=0.0, low_open=True, high=1e100, scalar=True
    )

    def excess(log_sigma):
        return gaussian_delta(eps, np.exp(log_sigma), sensitivity) - delta

    lo, hi = np.log(sensitivity) - 10.0, np.log(sensitivity) + 10.0
    while excess(lo) < 0:
        lo -= 10.0
    while excess(hi) > 0:
        hi += 10.0
    log_sigma = optimize.brentq(excess, lo, hi, xtol=1e-14)
    sigma = float(np.exp(log_sigma))
    while gaussian_delta(eps, sigma, sensitivity) > delta:
        sigma = np.nextafter(sigma, np.inf)
    return float(sigma)


def classic_calibration_holds(eps, delta) -> np.ndarray:
    """Does sigma of eq. (8) really give (eps, delta)-DP? Compares the exact delta(eps) with delta."""
    eps = V.positive("eps", eps)
    delta = V.probability("delta", delta, open_low=True, open_high=True)
    sigma = gaussian_sigma_classic(eps, delta)
    return gaussian_delta(eps, sigma) <= delta


def classic_calibration_limit(delta, *, eps_max=50.0, grid=4000) -> float:
    """The largest eps such that eq. (8)'s sigma gives (eps', delta)-DP for every eps' <= eps.

    Scans eps on a fine grid for the first failure, then refines the crossing by bisection; the
    returned value is rounded *down* so that calibration is certified to hold below it. ``eps_max`` in
    (1e-3, 1e6], ``grid`` in [2, 10^5] points (one profile evaluation each)."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    eps_max = V.real("eps_max", eps_max, low=1e-3, low_open=True, high=1e6, scalar=True)
    grid = V.integer("grid", grid, low=2, high=10**5)
    c = np.sqrt(2.0 * np.log(1.25 / delta))

    def excess(e):
        return float(gdp_delta(e, e / c)) - delta

    eps = np.linspace(1e-3, eps_max, grid)
    bad = np.array([excess(e) > 0 for e in eps])
    if not bad.any():
        return float("inf")
    k = int(np.argmax(bad))
    if k == 0:
        return 0.0
    root = optimize.brentq(excess, eps[k - 1], eps[k], xtol=1e-12)
    while excess(root) > 0:
        root = np.nextafter(root, 0.0)
    return float(root)


def rr_probabilities(eps0):
    """Binary randomized response (Algorithm 2, lines 2-6): report the true bit w.p. e^eps0/(1+e^eps0)."""
    eps0 = V.nonnegative("eps0", eps0)
    return special.expit(eps0)


def rr_delta(eps, eps0):
    """Exact privacy profile of binary randomized response: max(0, e^eps0 - e^eps) / (1 + e^eps0)."""
    return krr_delta(eps, eps0, 2)


def krr_delta(eps, eps0, k):
    """Exact privacy profile of k-ary randomized response (true value w.p. e^eps0/(e^eps0 + k - 1)):
    delta(eps) = max(0, e^eps0 - e^eps) / (e^eps0 + k - 1)."""
    eps = V.nonnegative("eps", eps)
    eps0 = V.nonnegative("eps0", eps0)
    k = V.integer("k", k, low=2)
    # (e^eps0 - e^eps)/(e^eps0 + k - 1), written without overflow for large budgets
    return np.maximum(0.0, -np.expm1(np.minimum(eps - eps0, 0.0))) / (
        1.0 + (k - 1.0) * np.exp(-eps0)
    )


def quaternary_pmfs(eps_i, delta_i):
    """Lemma 4: the quaternary pair (X~0, X~1) over outcomes (A, 0, 1, B) that dominates every
    (eps_i, delta_i)-DP randomizer:
    X~0 = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0), X~1 its mirror image."""
    eps_i = V.nonnegative("eps_i", eps_i, scalar=True)
    delta_i = V.probability("delta_i", delta_i, scalar=True)
    hi = (1.0 - delta_i) * special.expit(eps_i)
    lo = (1.0 - delta_i) * special.expit(-eps_i)
    x0 = np.array([delta_i, hi, lo, 0.0])
    x1 = np.array([0.0, lo, hi, delta_i])
    return x0, x1


def quaternary_delta(eps, eps_i, delta_i):
    """Privacy profile of the quaternary pair of Lemma 4:
    delta(eps) = delta_i + (1 - delta_i) max(0, e^eps_i - e^eps) / (1 + e^eps_i)."""
    eps = V.nonnegative("eps", eps)
    eps_i = V.nonnegative("eps_i", eps_i)
    delta_i = V.probability("delta_i", delta_i)
    return delta_i + (1.0 - delta_i) * np.maximum(
        0.0, -np.expm1(np.minimum(eps - eps_i, 0.0))
    ) * special.expit(eps_i)
