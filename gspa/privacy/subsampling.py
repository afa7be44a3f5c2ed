"""Privacy amplification by subsampling (FLAME Lemma 4; Balle, Barthe and Gaboardi, NeurIPS 2018 — BBG18).

* :func:`subsample_wor` — FLAME Lemma 4 (BBG18, sampling m of n records *without replacement*, the
  replace-one relation on both sides): an (eps, delta)-DP mechanism on m records becomes
  (log(1 + (m/n)(e^eps - 1)), (m/n) delta)-DP on n records.
* :func:`subsample_poisson` — Poisson sampling with rate q, the add/remove relation (BBG18):
  (log(1 + q (e^eps - 1)), q delta).
* :class:`Subsampled` — the same statement for a whole privacy curve: if the base bound gives
  delta(eps) at every eps, the subsampled mechanism has delta'(eps') = q delta(log(1 + (e^eps' - 1)/q)).
  The result is an object with ``delta``/``epsilon`` that :func:`gspa.privacy.composition.compose`
  consumes (for the replace relation with sampling without replacement, q = m/n).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V
from gspa.privacy.clones import U, gamma


def _amplify(eps, delta, q):
    return float(np.log1p(q * np.expm1(eps))), float(q * delta)


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
        eps_arr = V.nonnegative("eps", eps)
        inner = np.log1p(np.expm1(eps_arr) / self.q) * (1 - 8 * U)
        out = np.minimum(1.0, self.q * np.asarray(self.base.delta(inner), dtype=float) * (1 + gamma(4)))
        return out if eps_arr.ndim else float(out)

    def epsilon(self, delta: float) -> float:
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        if delta / self.q >= 1.0:
            return 0.0
        e = self.base.epsilon(delta / (self.q * (1 + gamma(4))))
        return float(np.log1p(self.q * np.expm1(e)) * (1 + 8 * U)) if np.isfinite(e) else float("inf")


def subsampled_pair(base, m, n) -> Subsampled:
    """The curve of ``base`` (a mechanism on m records, replace relation) after sampling m of n records
    without replacement (FLAME Lemma 4 at every eps)."""
    n = V.integer("n", n, low=1)
    m = V.integer("m", m, low=1, high=n)
    return Subsampled(base, m / n, f"subsampled m = {m} of n = {n}: {getattr(base, 'scope', '')}")
