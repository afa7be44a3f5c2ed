"""Cross-checks against Google's ``dp_accounting`` privacy-loss distributions (PLDs).

``dp_accounting`` rounds pessimistically (its deltas are upper bounds up to the discretisation),
so an exact value of ours should lie *below* its value and close to it. Used only to check gspa's
own formulas, never to replace them in the text.
"""
from __future__ import annotations

import numpy as np

from gspa.util import validate as V


_MAX_POINTS = 1e7   # dp_accounting's grid for a Gaussian PLD has about mu (mu + 20) / discretization points
_MAX_WORK = 5e8     # grid points times epsilons read off it (each reading sums over the whole grid)
_MAX_COMPOSED = 5e7  # T-fold self-composition: T times the loss range over the discretization
_MAX_OUTCOMES = 10**6
# mu, sensitivity and eps0 below 1e-6 put the noise scale near 1e6 and beyond (dp_accounting overflows
# near 1e200); the grid checks bound them from above.
_SCALE = dict(low=1e-6, high=1e6, scalar=True)


def _discretization(value) -> float:
    """dp_accounting's value discretization interval, in [1e-9, 1] (the book uses 1e-4 to 2e-3)."""
    return V.real("discretization", value, low=1e-9, high=1.0, scalar=True)


def _epsilons(eps, points: float):
    """eps >= 0 (inf allowed: the PLD's mass at infinity), at most _MAX_WORK / points of them."""
    eps = V.nonnegative("eps", eps)
    if eps.size * max(points, 1.0) > _MAX_WORK:
        raise ValueError(f"eps holds {eps.size} values to read off a grid of about {points:.2g} PLD points: "
                         f"at most {_MAX_WORK:.0e} point evaluations; give fewer eps values or a coarser discretization")
    return eps


def _check_grid(mu: float, discretization: float) -> float:
    discretization = _discretization(discretization)
    if mu * (mu + 20.0) / discretization > _MAX_POINTS:
        raise ValueError(f"mu = {mu:g} with discretization {discretization:g} needs about "
                         f"{mu * (mu + 20.0) / discretization:.2g} PLD points (at most {_MAX_POINTS:.0e}); "
                         "use a coarser discretization or a smaller mu")
    return discretization


def _pld():
    from dp_accounting.pld import privacy_loss_distribution
    return privacy_loss_distribution


def gaussian_delta(eps, mu, *, sensitivity=1, discretization=1e-4):
    """delta(eps) of the Gaussian mechanism with noise 1/mu (Fact 3's mu-GDP), from a PLD. mu and
    ``sensitivity`` in [1e-6, 1e6], ``discretization`` in [1e-9, 1], at most 1e7 grid points."""
    mu = V.real("mu", mu, **_SCALE)
    sensitivity = V.real("sensitivity", sensitivity, **_SCALE)
    discretization = _check_grid(mu * sensitivity, discretization)
    eps = _epsilons(eps, mu * sensitivity * (mu * sensitivity + 20.0) / discretization)
    pld = _pld().from_gaussian_mechanism(standard_deviation=1.0 / mu, sensitivity=sensitivity,
                                         value_discretization_interval=discretization)
    return np.array([pld.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(eps.shape)


def composed_gaussian_delta(eps, mus, *, discretization=1e-4):
    """delta(eps) of the composition of Gaussian mechanisms with noise 1/mu_i, by PLD composition: mus in
    [1e-6, 1e6], at most 10^4 of them, and at most 1e8 grid points summed over the compositions."""
    mus = V.real("mus", mus, low=1e-6, high=1e6, ndim=1, max_size=10**4)
    total = float(np.sqrt(np.sum(mus ** 2)))
    discretization = _check_grid(total, discretization)
    points = total * (total + 20.0) / discretization
    if mus.size * points > 1e8:
        raise ValueError(f"composing {mus.size} Gaussian PLDs of about {points:.2g} points each is more than 1e8 "
                         "point operations; use fewer mechanisms or a coarser discretization")
    eps = _epsilons(eps, points)
    plds = [_pld().from_gaussian_mechanism(standard_deviation=1.0 / m,
                                           value_discretization_interval=discretization) for m in mus]
    total = plds[0]
    for p in plds[1:]:
        total = total.compose(p)
    return np.array([total.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(eps.shape)


def gaussian_epsilon(delta, mu, *, discretization=1e-4):
    """eps(delta) of the Gaussian mechanism with noise 1/mu, from a PLD (mu in [1e-6, 1e6])."""
    mu = V.real("mu", mu, **_SCALE)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    discretization = _check_grid(mu, discretization)
    pld = _pld().from_gaussian_mechanism(standard_deviation=1.0 / mu,
                                         value_discretization_interval=discretization)
    return float(pld.get_epsilon_for_delta(delta))


def laplace_delta(eps, eps0, *, discretization=1e-4):
    """delta(eps) of the Laplace mechanism with scale 1/eps0 and sensitivity 1, from a PLD."""
    eps0 = V.real("eps0", eps0, **_SCALE)
    discretization = _discretization(discretization)
    if 2 * eps0 / discretization > _MAX_POINTS:     # the privacy loss spans [-eps0, eps0]
        raise ValueError(f"eps0 = {eps0:g} with discretization {discretization:g} needs about "
                         f"{2 * eps0 / discretization:.2g} PLD points (at most {_MAX_POINTS:.0e})")
    eps = _epsilons(eps, 2 * eps0 / discretization)
    pld = _pld().from_laplace_mechanism(1.0 / eps0, sensitivity=1.0,
                                        value_discretization_interval=discretization)
    return np.array([pld.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(eps.shape)


def _pmf_span(p, q, discretization):
    """Checked (p, q, discretization) and the number of grid points of their PLD: the range of the finite
    privacy losses log(p/q) over the discretization (at most 1e7), at most 10^6 outcomes."""
    from gspa.privacy.hypothesis import pmf_pair
    p, q = pmf_pair(p, q, atol=1e-6)
    if p.size > _MAX_OUTCOMES:
        raise ValueError(f"p and q may have at most {_MAX_OUTCOMES} outcomes, got {p.size}")
    discretization = _discretization(discretization)
    both = (p > 0) & (q > 0)
    loss = np.log(p[both]) - np.log(q[both])
    points = float(loss.max() - loss.min()) / discretization if loss.size else 0.0
    if points > _MAX_POINTS:
        raise ValueError(f"the privacy losses of p against q span {points * discretization:.3g}: about {points:.2g} "
                         f"PLD points at discretization {discretization:g} (at most {_MAX_POINTS:.0e})")
    return p, q, discretization, points


def _pld_from_pmfs(p, q, discretization: float):
    """Pessimistic PLD of P against Q (one direction) from probability vectors (checked by
    :func:`_pmf_span`); outcomes with zero probability under one distribution count as infinite privacy loss."""
    lp = {i: float(np.log(v)) for i, v in enumerate(np.asarray(p, float)) if v > 0}
    lq = {i: float(np.log(v)) for i, v in enumerate(np.asarray(q, float)) if v > 0}
    return _pld().from_two_probability_mass_functions(lp, lq, value_discretization_interval=discretization,
                                                      symmetric=False)


def pmf_pair_delta(eps, p, q, *, discretization=1e-4):
    """delta(eps) = max of both hockey-stick directions for two discrete distributions, from a PLD
    built with ``from_two_probability_mass_functions`` (pessimistic). At most 10^6 outcomes and 1e7 grid
    points (the losses' range over ``discretization``, in [1e-9, 1])."""
    p, q, discretization, points = _pmf_span(p, q, discretization)
    eps = _epsilons(eps, points)
    pld, pld_rev = _pld_from_pmfs(p, q, discretization), _pld_from_pmfs(q, p, discretization)
    out = [max(pld.get_delta_for_epsilon(float(e)), pld_rev.get_delta_for_epsilon(float(e)))
           for e in np.atleast_1d(eps)]
    return np.array(out).reshape(eps.shape)


def composed_pair_epsilon(P0, P1, T: int, delta: float, *, discretization=1e-3) -> float:
    """eps(delta) after T-fold composition of a discrete pair (e.g. the reduced pair of one epoch),
    through a pessimistic privacy-loss distribution. Both directions are composed; the larger eps is
    returned. Outcomes with zero probability under one distribution count as infinite privacy loss.
    T in [1, 10^6] with T times the losses' range over ``discretization`` at most 5e7 (the composed grid)."""
    T = V.integer("T", T, low=1, high=10**6)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    P0, P1, discretization, points = _pmf_span(P0, P1, discretization)
    if T * points > _MAX_COMPOSED:
        raise ValueError(f"T = {T} compositions of a PLD of about {points:.2g} points need about {T * points:.2g} "
                         f"(at most {_MAX_COMPOSED:.0e}); use fewer rounds or a coarser discretization")
    return float(max(_pld_from_pmfs(a, b, discretization).self_compose(T).get_epsilon_for_delta(delta)
                     for a, b in ((P0, P1), (P1, P0))))
