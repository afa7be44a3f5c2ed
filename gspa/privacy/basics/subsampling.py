"""Privacy amplification by subsampling (FLAME Lemma 4; Balle, Barthe and Gaboardi, NeurIPS 2018 — BBG18), also
for whole privacy curves. Derivations and checks: the FLAME accounting chapter (book/chapters/flame/accounting).

* :func:`subsample_wor` — FLAME Lemma 4 (BBG18, sampling m of n records *without replacement*, the
  replace-one relation on both sides): an (eps, delta)-DP mechanism on m records becomes
  (log(1 + (m/n)(e^eps - 1)), (m/n) delta)-DP on n records.
* :func:`subsample_poisson` — Poisson sampling with rate q, the add/remove relation (BBG18):
  (log(1 + q (e^eps - 1)), q delta).
* :class:`Subsampled` — the same statement for a whole privacy curve: if the base bound gives
  delta(eps) at every eps, the subsampled mechanism has delta'(eps') = q delta(log(1 + (e^eps' - 1)/q)).
  The result is an object with ``delta``/``epsilon`` that :func:`gspa.privacy.shuffle.composition.compose`
  consumes (for the replace relation with sampling without replacement, q = m/n).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V
from gspa.privacy.numerics import U, gamma


def amplify_epsilon(eps, c, inverse: bool = False):
    """log(1 + c (e^eps - 1)) elementwise (``inverse``: log(1 + (e^eps - 1)/c)), for eps in [0, inf] and
    c in [1e-300, 1e300]: the subsampled epsilon of BBG18 (c = q) and its inverse. Above eps = 700,
    where e^eps overflows, the equal form eps + log(c) + log1p((1/c - 1) e^-eps) is used."""
    eps = V.nonnegative("eps", eps)
    c = V.real("c", c, low=1e-300, high=1e300, scalar=True)
    inverse = V.boolean("inverse", inverse)
    big = eps > 700.0
    with np.errstate(over="ignore"):
        e1 = np.expm1(np.where(big, 0.0, eps))
        small = np.log1p(e1 / c if inverse else c * e1)
        k = 1.0 / c if inverse else c
        at = np.where(big, eps, 701.0)
        large = at + np.log(k) + np.log1p((1.0 / k - 1.0) * np.exp(-at))
    out = np.where(big, large, small)
    return float(out) if out.ndim == 0 else out


def _amplify(eps, delta, q):
    return amplify_epsilon(eps, q), float(q * delta)


def subsample_wor(eps, delta, m, n) -> tuple[float, float]:
    """FLAME Lemma 4: (log(1 + (m/n)(e^eps - 1)), (m/n) delta), for 1 <= m <= n."""
    eps = V.nonnegative("eps", eps, scalar=True)
    delta = V.probability("delta", delta, scalar=True)
    n = V.integer("n", n, low=1)
    m = V.integer("m", m, low=1, high=n)
    return _amplify(eps, delta, m / n)


def subsample_poisson(eps, delta, q) -> tuple[float, float]:
    """Poisson subsampling with rate q in (0, 1] (add/remove relation): (log(1 + q(e^eps - 1)), q delta)."""
    eps = V.nonnegative("eps", eps, scalar=True)
    delta = V.probability("delta", delta, scalar=True)
    q = V.probability("q", q, open_low=True, scalar=True)
    return _amplify(eps, delta, q)


@dataclass(frozen=True)
class Subsampled:
    """A subsampled privacy curve: delta'(eps') = q base.delta(log(1 + (e^eps' - 1)/q)), rounded up (the
    base is evaluated a few ulps below the exact eps, where its delta is no smaller)."""

    base: object
    q: float
    scope: str = ""

    def __post_init__(self):
        V.probability("q", self.q, open_low=True)

    def delta(self, eps):
        """A certified upper bound on delta at ``eps`` (a number or an array)."""
        eps_arr = V.nonnegative("eps", eps)
        inner = np.asarray(amplify_epsilon(eps_arr, self.q, inverse=True)) * (1 - 8 * U)
        out = np.minimum(
            1.0, self.q * np.asarray(self.base.delta(inner), dtype=float) * (1 + gamma(4))
        )
        return out if eps_arr.ndim else float(out)

    def epsilon(self, delta: float) -> float:
        """A certified upper bound on the smallest eps with delta(eps) <= ``delta``."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        if delta / self.q >= 1.0:
            return 0.0
        e = self.base.epsilon(delta / (self.q * (1 + gamma(4))))
        return amplify_epsilon(e, self.q) * (1 + 8 * U)


def subsampled_pair(base, m, n) -> Subsampled:
    """The curve of ``base`` (a mechanism on m records, replace relation) after sampling m of n records
    without replacement (FLAME Lemma 4 at every eps). ``base`` needs ``delta(eps)`` and ``epsilon(delta)``."""
    for method in ("delta", "epsilon"):
        V.function(f"base.{method}", getattr(base, method, None))
    n = V.integer("n", n, low=1)
    m = V.integer("m", m, low=1, high=n)
    return Subsampled(base, m / n, f"subsampled m = {m} of n = {n}: {getattr(base, 'scope', '')}")
