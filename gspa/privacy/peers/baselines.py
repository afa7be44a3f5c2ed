"""Published closed-form amplification bounds (the GSPA paper's Figure 2 and neighbours), each with its validity
conditions. Derivations and checks: the Figure 2 chapter (book/chapters/gspa/figure2).

Every function returns a :class:`Bound`: ``epsilon`` (central, for central ``delta``) when the
result's conditions hold, otherwise ``epsilon = None`` with ``valid = False`` and the reason. A
bound is never evaluated outside the conditions under which its paper proves it.
Personalized budgets are plugged in as eps0 = max_i eps_i for the uniform-budget results (as the
comparisons in the literature do).

Inputs: ``eps0`` in [0, inf], ``n`` an integer in [2, MAX_USERS = 10^18], ``delta`` in (0, 1); anything
else is a ``ValueError``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V

MAX_USERS = (
    10**18
)  # n of the closed forms (no cost; keeps n (e^eps0 + 1) and sqrt(n) finite floats)


@dataclass(frozen=True)
class Bound:
    """A peer's epsilon (None where it has none) and whether it is a valid bound, with the reason."""

    name: str
    epsilon: float | None
    valid: bool
    reason: str = ""

    def value_or_nan(self) -> float:
        """For plotting only: NaN where the bound is invalid (never use this for accounting)."""
        return float(self.epsilon) if self.valid else float("nan")


def _args(eps0, n, delta):
    eps0 = V.nonnegative("eps0", eps0, scalar=True)
    n = V.integer("n", n, low=2, high=MAX_USERS)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    return eps0, n, delta


def erlingsson19(eps0, n, delta) -> Bound:
    """Erlingsson et al. (SODA 2019), Cor. 5.3.1: eps = 12 eps0 sqrt(log(1/delta)/n), proven for
    eps0 <= 1/2, n >= 1000, delta <= 0.01; rejected when it exceeds eps0 (no amplification)."""
    eps0, n, delta = _args(eps0, n, delta)
    name = "Erlingsson19"
    if eps0 > 0.5:
        return Bound(name, None, False, f"needs eps0 <= 1/2, got {eps0:g}")
    if n < 1000:
        return Bound(name, None, False, f"needs n >= 1000, got {n}")
    if delta > 0.01:
        return Bound(name, None, False, f"needs delta <= 0.01, got {delta:g}")
    eps = 12.0 * eps0 * np.sqrt(np.log(1.0 / delta) / n)
    if eps > eps0:
        return Bound(name, None, False, f"bound {eps:.3g} exceeds eps0 = {eps0:g}")
    return Bound(name, float(eps), True)


def fmt21_closed(eps0, n, delta) -> Bound:
    """Feldman–McMillan–Talwar (FOCS 2021), Thm. 3.1 closed form, in the careful variant of the
    authors' code: a = 8 sqrt(e^eps0 log(4/delta)/n), c = 8 e^eps0/n, b = 1 - e^-eps0,
    d = 1 + e^(-eps0 - log(1 + a + c)), eps = log(1 + (b/d)(a + c));
    valid for eps0 <= log(n / (16 log(4/delta)))."""
    eps0, n, delta = _args(eps0, n, delta)
    name = "FMT21 (closed form)"
    lim = np.log(n / (16.0 * np.log(4.0 / delta)))
    if eps0 > lim:
        return Bound(name, None, False, f"needs eps0 <= log(n/(16 log(4/delta))) = {lim:.3g}")
    a = 8.0 * np.sqrt(np.exp(eps0) * np.log(4.0 / delta)) / np.sqrt(n)
    c = 8.0 * np.exp(eps0) / n
    e = np.log1p(a + c)
    b = -np.expm1(-eps0)
    d = 1.0 + np.exp(-eps0 - e)
    return Bound(name, float(np.log1p((b / d) * (a + c))), True)


def fmt21_blog(eps0, n, delta) -> Bound:
    """The same result as stated in the DifferentialPrivacy.org blog, eq. (1):
    eps = log(1 + 16 (e^eps0 - 1)/(e^eps0 + 1) sqrt(e^eps0 log(4/delta)/n)),
    for eps0 <= log(n / (16 log(2/delta)))."""
    eps0, n, delta = _args(eps0, n, delta)
    name = "FMT21 (blog eq. 1)"
    lim = np.log(n / (16.0 * np.log(2.0 / delta)))
    if eps0 > lim:
        return Bound(name, None, False, f"needs eps0 <= log(n/(16 log(2/delta))) = {lim:.3g}")
    t = np.tanh(eps0 / 2.0)
    return Bound(
        name, float(np.log1p(16.0 * t * np.sqrt(np.exp(eps0) * np.log(4.0 / delta) / n))), True
    )


def fmt23_closed(eps0, n, delta) -> Bound:
    """Feldman–McMillan–Talwar (SODA 2023) closed form: eps = log(1 + (e^eps0 - 1)
    (4 sqrt(2 log(4/delta)) / sqrt(n (e^eps0 + 1)) + 4/n)), for eps0 <= log(n/(8 log(2/delta))).
    After the published erratum it holds only for a restricted class of randomizers."""
    eps0, n, delta = _args(eps0, n, delta)
    name = "FMT23 (closed form)"
    lim = np.log(n / (8.0 * np.log(2.0 / delta)))
    if eps0 > lim:
        return Bound(name, None, False, f"needs eps0 <= log(n/(8 log(2/delta))) = {lim:.3g}")
    inner = 4.0 * np.sqrt(2.0 * np.log(4.0 / delta)) / np.sqrt(n * (np.exp(eps0) + 1.0)) + 4.0 / n
    return Bound(name, float(np.log1p(np.expm1(eps0) * inner)), True)


def liu23(eps, delta) -> Bound:
    """Liu et al. (AAAI 2023, "Echo"), personalized closed form, as computed by the authors' code:
    with user 1 = argmax eps, p_ij = (eps_i/eps_j) (1 - e^-eps_j)/(1 - e^-eps_i) e^-max(eps_i,eps_j) / n,
    E = sum over i != 1 and all j of p_ij; valid when E >= 16 log(4/delta); then
    eps = log(1 + (e^eps1 - 1)/(e^eps1 + 1) (8 sqrt(log(4/delta)/E) + 8/E)).
    The factors eps_i/(1 - e^-eps_i) and (1 - e^-eps_j)/eps_j tend to 1 as the budget tends to 0:
    the singularity at eps_i = 0 is removable and the limit is used there. O(n) via sums."""
    eps = V.real("eps", eps, low=0.0, high=np.inf, high_open=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    name = "Liu23"
    if eps.size < 2:
        raise ValueError(f"eps must hold at least 2 users, got {eps.size}")
    n = eps.size
    top = int(np.argmax(eps))
    with np.errstate(invalid="ignore", divide="ignore"):
        g = np.where(
            eps > 0, eps / -np.expm1(-np.where(eps > 0, eps, 1.0)), 1.0
        )  # eps_i/(1 - e^-eps_i) -> 1
    h = 1.0 / g  # (1 - e^-eps_j) / eps_j
    # sum_j h_j e^-max(eps_i, eps_j): sort once, split at eps_i
    order = np.argsort(eps)
    es, hs = eps[order], h[order]
    pre = np.concatenate([[0.0], np.cumsum(hs)])  # sum of h_j for eps_j <= ...
    suf = np.concatenate([np.cumsum((hs * np.exp(-es))[::-1])[::-1], [0.0]])
    k = np.searchsorted(es, eps, side="right")  # count of eps_j <= eps_i
    inner = np.exp(-eps) * pre[k] + suf[k]
    rows = g * inner / n
    E = float(rows.sum() - rows[top])
    lim = 16.0 * np.log(4.0 / delta)
    if E < lim:
        return Bound(name, None, False, f"needs E >= 16 log(4/delta) = {lim:.3g}, got E = {E:.3g}")
    e1 = float(eps[top])
    val = np.log1p(np.tanh(e1 / 2.0) * (8.0 * np.sqrt(np.log(4.0 / delta) / E) + 8.0 / E))
    return Bound(name, float(val), True)
