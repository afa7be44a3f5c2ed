r"""A statement of the blog (Canonne 2022, on FMT21) outside its numbered equations, checked (chapter
notebooks/fmt21/clones.md): "this is inherently approximate DP" ('The result of FMT21', third remark) — shuffling
pure ε_L-LDP reports gives approximate DP only, no pure ε below ε_L.

For binary randomized response the data sets "everyone holds 1" and "one user holds 0, the others 1" give the
outcome "n ones" probabilities qⁿ and (1 − q)qⁿ⁻¹, q = e^ε_L/(e^ε_L + 1), whose ratio is e^ε_L at every n, so
δ(ε) ≥ qⁿ(1 − e^(ε − ε_L)) > 0 for every ε < ε_L (:func:`pure_floor_log_delta`, in logarithms so that no n
underflows it); :func:`enumeration_agrees` holds it against exhaustive enumeration for small n.
"""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V


def pure_floor_log_delta(eps_l, n, eps):
    """log of the lower bound qⁿ(1 − e^(ε − ε_L)) on δ(ε) of n users shuffling binary randomized response with
    budget ε_L (the outcome "n ones" on the data sets "all 1" and "one 0, the rest 1"); finite for every ε < ε_L,
    −inf at ε ≥ ε_L."""
    eps_l = V.real("eps_l", eps_l, low=0.0, high=700.0, low_open=True)
    n = V.real("n", n, low=1.0, high=1e300)
    eps = V.nonnegative("eps", eps)
    logq = -np.logaddexp(0.0, -eps_l)  # log(e^ε_L/(e^ε_L + 1))
    gap = eps - eps_l
    with np.errstate(divide="ignore"):
        return np.where(gap < 0, n * logq + np.log(-np.expm1(np.minimum(gap, 0.0))), -np.inf)


def enumeration_agrees(eps_l, n: int) -> bool:
    """Whether the exactly enumerated shuffled binary randomized response (n users, budget ε_L;
    :func:`gspa.privacy.exact.enumeration.shuffled_profile`) has δ(ε) at least the explicit floor of
    :func:`pure_floor_log_delta` less its round-off bound at ε = ε_L(1 − 2^−j), j = 1..30, and δ(ε_L) within its
    round-off bound of 0."""
    from gspa.privacy.exact.enumeration import shuffled_profile

    eps_l = V.real("eps_l", eps_l, low=0.0, high=20.0, low_open=True, scalar=True)
    n = V.integer("n", n, low=2, high=8)
    grid = eps_l * (1 - 0.5 ** np.arange(1, 31))
    delta, err = shuffled_profile("binary-rr", np.full(n, eps_l), np.append(grid, eps_l))
    err = np.broadcast_to(err, delta.shape)
    floor = np.exp(pure_floor_log_delta(eps_l, n, grid))
    return bool(np.all(delta[:-1] >= floor - err[:-1]) and delta[-1] <= err[-1])


def approximate_margin(eps_l, n) -> float:
    """The claim "no pure ε below ε_L" at (ε_L, n) as a search's margin: 1 where δ(ε) > 0 just below ε_L
    (ε = ε_L(1 − 10⁻⁶)) by the explicit lower bound (:func:`pure_floor_log_delta`) and, for n ≤ 6, where the
    exhaustive enumeration agrees with that bound (:func:`enumeration_agrees`); −1 otherwise."""
    eps_l = V.real("eps_l", eps_l, low=0.0, high=20.0, low_open=True, scalar=True)
    n = V.integer("n", n, low=2, high=10**12)
    ok = bool(np.isfinite(pure_floor_log_delta(eps_l, n, eps_l * (1 - 1e-6))))
    if n <= 6:
        ok = ok and enumeration_agrees(eps_l, n)
    return 1.0 if ok else -1.0
