r"""Liu et al.'s "Echo of Neighbors" (EoN) amplification for personalized budgets, re-derived, and its Clip-Laplace
mechanism. Derivations and checks: the EoN chapter (book/chapters/accountant/eon).

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

EoN's own randomizer, the Clip-Laplace mechanism named in its abstract, is defined below as their code samples
it (input clipped to [-C, C], Laplace of scale 2C/ε conditioned on [-C, C]); :func:`clip_laplace_margin`
judges EoN's number against a certified lower bound on that shuffled protocol (:func:`clip_laplace_lower`),
and :func:`clip_laplace_confirmed` re-verifies a violation in 40-digit arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from gspa.util import validate as V
from gspa.privacy.numerics import hockey_upper, invert

WINDOW = 40.0  # EonApproximation: the normal law is summed over mu ± WINDOW sigma


def _pair_sums(eps: np.ndarray, power: int) -> np.ndarray:
    """For each i: Σ_j t_ij^power over all j, in O(n log n). With a = ε/(1 − e^(−ε)) and b = 1/a,
    t_ij = a_i b_j e^(−max(ε_i, ε_j)), so the sum is a_i^p (e^(−p ε_i) Σ_{ε_j ≤ ε_i} b_j^p
    + Σ_{ε_j > ε_i} b_j^p e^(−p ε_j)): prefix and suffix sums over the budgets sorted."""
    a = eps / -np.expm1(-eps)
    e_s = np.sort(eps)
    b_s = (-np.expm1(-e_s) / e_s) ** power
    low = np.concatenate([[0.0], np.cumsum(b_s)])  # low[k] = Σ_{m<k}
    high = np.concatenate(
        [np.cumsum((b_s * np.exp(-power * e_s))[::-1])[::-1], [0.0]]
    )  # high[k] = Σ_{m≥k}
    k = np.searchsorted(e_s, eps, side="right")  # #{j: ε_j ≤ ε_i}
    return a**power * (np.exp(-power * eps) * low[k] + high[k])


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
    approximation, not a bound. ``block`` > 1 weighs blocks of that many counts (boundaries at ⌈μ⌉ + j·block)
    by the divergence at the block's worse end, as their code does with blocks of 100 (a larger ε)."""

    eps: np.ndarray
    block: int = 1

    def __post_init__(self):
        e = V.real("eps", self.eps, low=0.0, high=700.0, low_open=True, ndim=1)
        if e.size < 2:
            raise ValueError(f"eps must hold at least 2 users, got {e.size}")
        object.__setattr__(self, "eps", e)
        object.__setattr__(self, "block", V.integer("block", self.block, low=1, high=10**6))

    def moments(self) -> tuple[float, float]:
        """(μ, σ) of the echo count among the users other than the most liberal one."""
        n, j = self.eps.size, int(np.argmax(self.eps))
        s1, s2 = _pair_sums(self.eps, 1), _pair_sums(self.eps, 2)
        mu = (s1.sum() - s1[j]) / n
        var = mu - (s2.sum() - s2[j]) / n**2
        return float(mu), float(np.sqrt(max(var, 0.0)))

    def delta(self, eps):
        """EoN's δ at ``eps`` (a scalar or an array)."""
        e_arr = V.nonnegative("eps", eps)
        mu, sd = self.moments()
        n = self.eps.size
        c = np.arange(max(0, int(mu - WINDOW * sd - 1)), min(n - 1, int(mu + WINDOW * sd + 1)) + 1)
        w = (
            special.ndtr((c + 0.5 - mu) / sd) - special.ndtr((c - 0.5 - mu) / sd)
            if sd > 0
            else (c == round(mu)) * 1.0
        )
        L = float(self.eps.max())
        if self.block > 1:  # block index of each count; a block is worth its worst end's divergence
            blk = np.floor((c - np.ceil(mu)) / self.block).astype(np.int64)
            _, first, inv = np.unique(blk, return_index=True, return_inverse=True)
            last = np.append(first[1:] - 1, c.size - 1)

            def _sum(h):
                return float(np.sum(np.bincount(inv, weights=w) * np.maximum(h[first], h[last])))
        else:

            def _sum(h):
                return float(np.sum(w * h))

        out = np.array(
            [_sum(hockey_upper(float(e), c, L)) if e < L else 0.0 for e in e_arr.ravel()]
        )
        return out.reshape(e_arr.shape) if e_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """The smallest ε with EoN's δ(ε) ≤ ``delta`` (bisection)."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return invert(lambda e: self.delta(e), delta, float(self.eps.max()))


# ---------------------------------------------------------------------------------------------------------
# EoN's own randomizer: the Clip-Laplace mechanism
# ---------------------------------------------------------------------------------------------------------
# Named in EoN's abstract ("Neighbor Divergence and Clip-Laplace Mechanism"); defined here as their public
# code samples it (github.com/yixuanLL/EoN, commit 996a4cc, perS/flearn/utils/privacy_utils.py:
# clip_randomizer_clipLap and clip_laplace): the input is clipped to [-C, C], then the report is drawn from
# the Laplace law of centre u and scale b = 2C/eps *conditioned* on [-C, C] (inverse CDF restricted to that
# interval): density exp(-|y - u|/b) / (2 b S(u)) on [-C, C], with S(u) = 1 - e^{-(C-u)/b}/2 - e^{-(C+u)/b}/2.
# Its local budget is exactly eps: the log-ratio (|y - u'| - |y - u|)/b + log S(u') - log S(u) is largest at
# y = C, u = C, u' = -C (S' <= S/b), where it is 2C/b = eps.

MAX_CLIP_USERS = 10**6  # clip_laplace_lower: users (binomial laws of up to 10^6 counts)


def _clip_tail(t, u, eps):
    """P(report > t) for input u, budget eps, C = 1 (arrays broadcast; t, u in [-1, 1])."""
    t, u, eps = np.broadcast_arrays(
        np.asarray(t, float), np.asarray(u, float), np.asarray(eps, float)
    )
    b = 2.0 / eps
    hi, lo = np.exp(-(1.0 - u) / b), np.exp(-(1.0 + u) / b)
    s = 1.0 - 0.5 * hi - 0.5 * lo
    above = 0.5 * np.exp(-np.abs(t - u) / b) - 0.5 * hi  # t >= u: mass in (t, 1]
    below = s - (0.5 * np.exp(-np.abs(u - t) / b) - 0.5 * lo)  # t < u: S minus the mass in [-1, t]
    return np.clip(np.where(t >= u, above, below) / s, 0.0, 1.0)


def clip_laplace_tail(y, u, eps, C: float = 1.0):
    """P(Y > y) for EoN's Clip-Laplace report Y of input ``u`` (clipped to [-C, C]) with budget ``eps``
    (the section comment above): ``y`` and ``u`` finite (broadcast), ``eps`` in [1e-6, 700], ``C`` > 0
    (below 1e-6 the law is uniform on [-C, C] to double precision and the normaliser cancels)."""
    C = V.real("C", C, low=0.0, high=1e300, low_open=True, scalar=True)
    eps = V.real("eps", eps, low=1e-6, high=700.0)
    t = V.finite("y", y, low=-1e300, high=1e300)
    u = V.finite("u", u, low=-1e300, high=1e300)
    tt, uu = np.clip(t / C, -1.0, 1.0), np.clip(u / C, -1.0, 1.0)
    out = np.where(t / C < -1.0, 1.0, np.where(t / C >= 1.0, 0.0, _clip_tail(tt, uu, eps)))
    return float(out) if out.ndim == 0 else out


def clip_laplace_sample(u, eps, C: float = 1.0, seed: int = 0) -> np.ndarray:
    """Draw EoN's Clip-Laplace reports for inputs ``u`` (1-d, finite) with budgets ``eps`` (broadcast, in
    [1e-6, 700]) on [-C, C], by the inverse CDF restricted to [-C, C]; ``seed`` a non-negative integer."""
    C = V.real("C", C, low=0.0, high=1e300, low_open=True, scalar=True)
    u = np.clip(V.finite("u", u, low=-1e300, high=1e300, ndim=1) / C, -1.0, 1.0)
    eps = V.real("eps", eps, low=1e-6, high=700.0)
    seed = V.integer("seed", seed, low=0, high=2**32 - 1)
    u, eps = np.broadcast_arrays(u, eps)
    b = 2.0 / eps
    f_lo = 0.5 * np.exp(-(1.0 + u) / b)  # CDF of Laplace(u, b) at -1
    f_hi = 1.0 - 0.5 * np.exp(-(1.0 - u) / b)  # ... at +1
    v = f_lo + (f_hi - f_lo) * np.random.default_rng(seed).uniform(size=u.shape)
    y = np.where(v < 0.5, u + b * np.log(2.0 * v), u - b * np.log(2.0 * (1.0 - v)))
    return C * np.clip(y, -1.0, 1.0)


def clip_laplace_lower(
    n: int, eps_d: float, eps_o: float, eps: float, t_grid
) -> tuple[float, float]:
    """A certified lower bound on δ(``eps``) of the shuffled Clip-Laplace reports of ``n`` users: one user of
    budget ``eps_d`` holds C or -C (the two neighbouring data sets), the n - 1 others have budget ``eps_o``
    and input -C. The number K of reports above a threshold t is a function of the shuffled multiset (a
    post-processing), and its two laws are exact: a Bernoulli for the differing user plus Bin(n - 1, p).
    Returns (the largest hockey-stick divergence of K's laws, in either direction, over ``t_grid`` (in units
    of C, inside (-1, 1)), less a rounding allowance of (n + 8)·u·(1 + e^eps); the t attaining it).

    ``n`` in [2, 10^6]; ``eps_d``, ``eps_o`` in [1e-6, 700]; ``eps`` in [0, 700]."""
    n = V.integer("n", n, low=2, high=MAX_CLIP_USERS)
    eps_d = V.real("eps_d", eps_d, low=1e-6, high=700.0, scalar=True)
    eps_o = V.real("eps_o", eps_o, low=1e-6, high=700.0, scalar=True)
    eps = V.real("eps", eps, low=0.0, high=700.0, scalar=True)
    t = V.real("t_grid", t_grid, low=-1.0, high=1.0, low_open=True, high_open=True).ravel()
    if t.size == 0:
        raise ValueError("t_grid must hold at least one point, got an empty array")
    from scipy import stats

    e = np.exp(eps)
    k = np.arange(n)
    allow = (n + 8) * np.finfo(float).eps * (1.0 + e)
    best, where = 0.0, float(t[0])
    for ti in t:
        base = stats.binom.pmf(k[:-1], n - 1, _clip_tail(ti, -1.0, eps_o))
        p1, p0 = float(_clip_tail(ti, 1.0, eps_d)), float(_clip_tail(ti, -1.0, eps_d))
        P = np.append(base * (1 - p1), 0.0) + np.insert(base * p1, 0, 0.0)
        Q = np.append(base * (1 - p0), 0.0) + np.insert(base * p0, 0, 0.0)
        d = max(np.maximum(P - e * Q, 0.0).sum(), np.maximum(Q - e * P, 0.0).sum()) - allow
        if d > best:
            best, where = float(d), float(ti)
    return best, where


CODE_BLOCK = 100  # their code's block of counts


def eon_epsilon(eps, delta: float) -> float:
    """EoN's ε(``delta``) for budgets ``eps`` as favourably to EoN as their code allows: the larger of
    :class:`EonApproximation` with single counts and with their code's blocks of 100; and the largest budget
    (no amplification claimed) outside their code's regime μ ≥ 16 log(4/δ) (``numericalanalysis`` returns
    ε₁ there). ``eps`` 1-d, at least 2 users, in (0, 700]; ``delta`` in (0, 1)."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    one = EonApproximation(eps)
    mu, _ = one.moments()
    if mu < 16.0 * np.log(4.0 / delta):
        return float(one.eps.max())
    return max(one.epsilon(delta), EonApproximation(one.eps, CODE_BLOCK).epsilon(delta))


def clip_laplace_margin(
    n: int, eps_d: float, eps_o: float, delta: float = 1e-8, thresholds: int = 120
) -> float:
    """1 − L/``delta``, where L is the certified lower bound :func:`clip_laplace_lower` on the shuffled
    Clip-Laplace protocol's δ at EoN's ε (:func:`eon_epsilon`) — one user of budget ``eps_d`` differs, the
    other n − 1 have budget ``eps_o`` — over ``thresholds`` thresholds in [−0.9, 0.999]·C. Negative: the
    protocol's δ exceeds ``delta`` at EoN's ε, so EoN's number is not a bound there. ``n`` in [2, 10^6];
    budgets in (0, 700]; ``delta`` in (0, 1); ``thresholds`` in [1, 10^4]."""
    n = V.integer("n", n, low=2, high=MAX_CLIP_USERS)
    eps_d = V.real("eps_d", eps_d, low=1e-6, high=700.0, scalar=True)
    eps_o = V.real("eps_o", eps_o, low=1e-6, high=700.0, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    thresholds = V.integer("thresholds", thresholds, low=1, high=10**4)
    e = eon_epsilon(np.append(eps_d, np.full(n - 1, eps_o)), delta)
    low, _ = clip_laplace_lower(n, eps_d, eps_o, e, np.linspace(-0.9, 0.999, thresholds))
    return 1.0 - low / delta


def clip_laplace_confirmed(
    n: int, eps_d: float, eps_o: float, delta: float = 1e-8, thresholds: int = 120, dps: int = 40
) -> bool:
    """Re-verify a violation of :func:`clip_laplace_margin` independently: at EoN's ε and the threshold the
    float search chose, the laws of the count K are recomputed in ``dps``-digit arithmetic (mpmath: the
    report probabilities from the truncated Laplace law's closed form, the binomial by its recurrence) and
    their hockey-stick divergence compared with ``delta``. True when it exceeds ``delta``. Arguments as for
    :func:`clip_laplace_margin`; ``dps`` in [20, 200]."""
    import mpmath as mp

    n = V.integer("n", n, low=2, high=MAX_CLIP_USERS)
    eps_d = V.real("eps_d", eps_d, low=1e-6, high=700.0, scalar=True)
    eps_o = V.real("eps_o", eps_o, low=1e-6, high=700.0, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    thresholds = V.integer("thresholds", thresholds, low=1, high=10**4)
    dps = V.integer("dps", dps, low=20, high=200)
    e = eon_epsilon(np.append(eps_d, np.full(n - 1, eps_o)), delta)
    _, t = clip_laplace_lower(n, eps_d, eps_o, e, np.linspace(-0.9, 0.999, thresholds))
    with mp.workdps(dps):

        def tail(u, ep):  # P(Y > t), C = 1, t in (-1, 1)
            b, T, U = 2 / mp.mpf(ep), mp.mpf(t), mp.mpf(u)
            s = 1 - mp.exp(-(1 - U) / b) / 2 - mp.exp(-(1 + U) / b) / 2
            m = (
                mp.exp(-(T - U) / b) / 2 - mp.exp(-(1 - U) / b) / 2
                if T >= U
                else s - (mp.exp(-(U - T) / b) / 2 - mp.exp(-(1 + U) / b) / 2)
            )
            return m / s

        p, p1, p0, E = tail(-1, eps_o), tail(1, eps_d), tail(-1, eps_d), mp.exp(mp.mpf(e))
        base, term = [], (1 - p) ** (n - 1)
        for k in range(n):
            base.append(term)
            term = term * (n - 1 - k) / (k + 1) * p / (1 - p)
        P = [base[k] * (1 - p1) + (base[k - 1] * p1 if k else 0) for k in range(n)] + [
            base[-1] * p1
        ]
        Q = [base[k] * (1 - p0) + (base[k - 1] * p0 if k else 0) for k in range(n)] + [
            base[-1] * p0
        ]
        d = max(
            mp.fsum(max(a - E * c, 0) for a, c in zip(P, Q)),
            mp.fsum(max(c - E * a, 0) for a, c in zip(P, Q)),
        )
        return bool(d > delta)
