"""Cross-checks against Google's ``dp_accounting`` privacy-loss distributions (PLDs).

``dp_accounting`` rounds pessimistically (its deltas are upper bounds up to the discretisation),
so an exact value of ours should lie *below* its value and close to it. Used only to check gspa's
own formulas, never to replace them in the text.
"""
from __future__ import annotations

import numpy as np

from gspa.util import validate as V


_MAX_POINTS = 1e7   # dp_accounting's grid for a Gaussian PLD has about mu (mu + 20) / discretization points


def _check_grid(mu: float, discretization: float) -> float:
    discretization = V.positive("discretization", discretization, scalar=True)
    if mu * (mu + 20.0) / discretization > _MAX_POINTS:
        raise ValueError(f"mu = {mu:g} with discretization {discretization:g} needs about "
                         f"{mu * (mu + 20.0) / discretization:.2g} PLD points (at most {_MAX_POINTS:.0e}); "
                         "use a coarser discretization or a smaller mu")
    return discretization


def _pld():
    from dp_accounting.pld import privacy_loss_distribution
    return privacy_loss_distribution


def gaussian_delta(eps, mu, *, sensitivity=1, discretization=1e-4):
    """delta(eps) of the Gaussian mechanism with noise 1/mu (Fact 3's mu-GDP), from a PLD."""
    mu = V.positive("mu", mu, scalar=True)
    eps = V.nonnegative("eps", eps)
    discretization = _check_grid(mu * V.positive("sensitivity", sensitivity, scalar=True), discretization)
    pld = _pld().from_gaussian_mechanism(standard_deviation=1.0 / mu, sensitivity=sensitivity,
                                         value_discretization_interval=discretization)
    return np.array([pld.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(eps.shape)


def composed_gaussian_delta(eps, mus, *, discretization=1e-4):
    """delta(eps) of the composition of Gaussian mechanisms with noise 1/mu_i, by PLD composition."""
    mus = V.positive("mus", mus)
    if mus.ndim != 1 or mus.size == 0:
        raise ValueError(f"mus must be a non-empty 1-d array, got shape {mus.shape}")
    eps = V.nonnegative("eps", eps)
    discretization = _check_grid(float(np.sqrt(np.sum(mus ** 2))), discretization)
    plds = [_pld().from_gaussian_mechanism(standard_deviation=1.0 / m,
                                           value_discretization_interval=discretization) for m in mus]
    total = plds[0]
    for p in plds[1:]:
        total = total.compose(p)
    return np.array([total.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(eps.shape)


def gaussian_epsilon(delta, mu, *, discretization=1e-4):
    """eps(delta) of the Gaussian mechanism with noise 1/mu, from a PLD."""
    mu = V.positive("mu", mu, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    discretization = _check_grid(mu, discretization)
    pld = _pld().from_gaussian_mechanism(standard_deviation=1.0 / mu,
                                         value_discretization_interval=discretization)
    return float(pld.get_epsilon_for_delta(delta))


def laplace_delta(eps, eps0, *, discretization=1e-4):
    """delta(eps) of the Laplace mechanism with scale 1/eps0 and sensitivity 1, from a PLD."""
    eps0 = V.positive("eps0", eps0, scalar=True)
    eps = V.nonnegative("eps", eps)
    discretization = V.positive("discretization", discretization, scalar=True)
    if 2 * eps0 / discretization > _MAX_POINTS:     # the privacy loss spans [-eps0, eps0]
        raise ValueError(f"eps0 = {eps0:g} with discretization {discretization:g} needs about "
                         f"{2 * eps0 / discretization:.2g} PLD points (at most {_MAX_POINTS:.0e})")
    pld = _pld().from_laplace_mechanism(1.0 / eps0, sensitivity=1.0,
                                        value_discretization_interval=discretization)
    return np.array([pld.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(eps.shape)


def _pld_from_pmfs(p, q, discretization: float):
    """Pessimistic PLD of P against Q (one direction) from probability vectors; outcomes with zero
    probability under one distribution count as infinite privacy loss."""
    from gspa.privacy.hypothesis import pmf_pair
    p, q = pmf_pair(p, q, atol=1e-6)
    discretization = V.positive("discretization", discretization, scalar=True)
    lp = {i: float(np.log(v)) for i, v in enumerate(np.asarray(p, float)) if v > 0}
    lq = {i: float(np.log(v)) for i, v in enumerate(np.asarray(q, float)) if v > 0}
    return _pld().from_two_probability_mass_functions(lp, lq, value_discretization_interval=discretization,
                                                      symmetric=False)


def pmf_pair_delta(eps, p, q, *, discretization=1e-4):
    """delta(eps) = max of both hockey-stick directions for two discrete distributions, from a PLD
    built with ``from_two_probability_mass_functions`` (pessimistic)."""
    eps = V.nonnegative("eps", eps)
    pld, pld_rev = _pld_from_pmfs(p, q, discretization), _pld_from_pmfs(q, p, discretization)
    out = [max(pld.get_delta_for_epsilon(float(e)), pld_rev.get_delta_for_epsilon(float(e)))
           for e in np.atleast_1d(eps)]
    return np.array(out).reshape(eps.shape)


def composed_pair_epsilon(P0, P1, T: int, delta: float, *, discretization=1e-3) -> float:
    """eps(delta) after T-fold composition of a discrete pair (e.g. the reduced pair of one epoch),
    through a pessimistic privacy-loss distribution. Both directions are composed; the larger eps is
    returned. Outcomes with zero probability under one distribution count as infinite privacy loss."""
    T = V.integer("T", T, low=1)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    return float(max(_pld_from_pmfs(a, b, discretization).self_compose(T).get_epsilon_for_delta(delta)
                     for a, b in ((P0, P1), (P1, P0))))
