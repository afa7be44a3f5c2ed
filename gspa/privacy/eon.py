r"""Liu et al.'s "Echo of Neighbors" (EoN) amplification for personalized budgets, re-derived.

Source: Y. Liu, S. Zhao, L. Xiong, Y. Liu, H. Chen, "Echo of neighbors: privacy amplification for
personalized private federated learning with shuffle model", AAAI 2023. The paper's body was not accessible
here; the definitions below are read from its public code (github.com/yixuanLL/EoN, commit 996a4cc,
``privAmp/computeamplification_perS.py``: ``probEoN``, ``deltacomp``, ``onestep``), and their code is not
used. EoN adapts Feldman–McMillan–Talwar's clone pair to users with their own budgets εᵢ:

* the most liberal user (ε₁ = max εᵢ) differs; its report carries the bit of log-odds ε₁;
* user i "echoes" (is a clone) with probability :math:`q_i = \frac{1}{n}\sum_j t_{ij}` over all n users,
  :math:`t_{ij} = \frac{\varepsilon_i (1 - e^{-\varepsilon_j})}{\varepsilon_j (1 - e^{-\varepsilon_i})}
  e^{-\max(\varepsilon_i, \varepsilon_j)}` (with one budget ε₀ every qᵢ is e^(−ε₀), FMT21's clone
  probability);
* the number C of echoes among the others is taken to be normal, with mean :math:`\mu = \sum_{i \ne 1} q_i`
  and variance :math:`\sigma^2 = \sum_{i \ne 1}\sum_j \frac{t_{ij}}{n}\big(1 - \frac{t_{ij}}{n}\big)`, and
  δ(ε) sums FMT's hockey-stick divergence given C = c against that normal law (their code weighs blocks of
  100 counts by the larger δ of each block's ends; :class:`EonApproximation` uses blocks of one count).

So EoN's number is an **approximation** (a central-limit law for a count, and no error term), not a
certified bound; the book sets it beside gspa's certified upper and lower bounds. Not a paper item of GSPA.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from gspa.util import validate as V

WINDOW = 40.0     # EonApproximation: the normal law is summed over mu ± WINDOW sigma


def _pair_sums(eps: np.ndarray, power: int) -> np.ndarray:
    """For each i: Σ_j t_ij^power over all j, in O(n log n). With a = ε/(1 − e^(−ε)) and b = 1/a,
    t_ij = a_i b_j e^(−max(ε_i, ε_j)), so the sum is a_i^p (e^(−p ε_i) Σ_{ε_j ≤ ε_i} b_j^p
    + Σ_{ε_j > ε_i} b_j^p e^(−p ε_j)): prefix and suffix sums over the budgets sorted."""
    a = eps / -np.expm1(-eps)
    e_s = np.sort(eps)
    b_s = (-np.expm1(-e_s) / e_s) ** power
    low = np.concatenate([[0.0], np.cumsum(b_s)])                                  # low[k] = Σ_{m<k}
    high = np.concatenate([np.cumsum((b_s * np.exp(-power * e_s))[::-1])[::-1], [0.0]])   # high[k] = Σ_{m≥k}
    k = np.searchsorted(e_s, eps, side="right")                                     # #{j: ε_j ≤ ε_i}
    return a ** power * (np.exp(-power * eps) * low[k] + high[k])


def echo_probabilities(eps) -> np.ndarray:
    """EoN's echo probability qᵢ of every user (module docstring), for budgets ``eps`` (1-d, positive, at
    most 700 each)."""
    eps = V.real("eps", eps, low=0.0, high=700.0, low_open=True, ndim=1)
    if eps.size < 2:
        raise ValueError(f"eps must hold at least 2 users, got {eps.size}")
    return _pair_sums(eps, 1) / eps.size


@dataclass(frozen=True)
class EonApproximation:
    """EoN's δ(ε) for budgets ``eps``: FMT's clone pair (the differing user's bit of log-odds max εᵢ) with a
    normal law N(μ, σ²) of the echo count (module docstring), summed over single counts within ±40σ. An
    approximation, not a bound."""
    eps: np.ndarray

    def __post_init__(self):
        e = V.real("eps", self.eps, low=0.0, high=700.0, low_open=True, ndim=1)
        if e.size < 2:
            raise ValueError(f"eps must hold at least 2 users, got {e.size}")
        object.__setattr__(self, "eps", e)

    def moments(self) -> tuple[float, float]:
        """(μ, σ) of the echo count among the users other than the most liberal one."""
        n, j = self.eps.size, int(np.argmax(self.eps))
        s1, s2 = _pair_sums(self.eps, 1), _pair_sums(self.eps, 2)
        mu = (s1.sum() - s1[j]) / n
        var = mu - (s2.sum() - s2[j]) / n**2
        return float(mu), float(np.sqrt(max(var, 0.0)))

    def delta(self, eps):
        """EoN's δ at ``eps`` (a scalar or an array)."""
        from gspa.privacy.accountant import _hockey_upper
        e_arr = V.nonnegative("eps", eps)
        mu, sd = self.moments()
        n = self.eps.size
        c = np.arange(max(0, int(mu - WINDOW * sd - 1)), min(n - 1, int(mu + WINDOW * sd + 1)) + 1)
        w = special.ndtr((c + 0.5 - mu) / sd) - special.ndtr((c - 0.5 - mu) / sd) if sd > 0 else (c == round(mu)) * 1.0
        L = float(self.eps.max())
        out = np.array([float(np.sum(w * _hockey_upper(float(e), c, L))) if e < L else 0.0 for e in e_arr.ravel()])
        return out.reshape(e_arr.shape) if e_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """The smallest ε with EoN's δ(ε) ≤ ``delta`` (bisection)."""
        from gspa.privacy.accountant import _invert
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return _invert(lambda e: self.delta(e), delta, float(self.eps.max()))
