r"""Su–Cheng–Wang's optimal-decomposition bound for shuffled k-ary randomized response, re-derived.
Derivations and checks: the peers chapter (book/chapters/accountant/peers).

Source: P. Su, H. Cheng, P. Wang, "Decomposition-based optimal bounds for privacy amplification via
shuffling" (IEEE S&P 2026, arXiv 2504.07414). Their abstract states that among all decompositions of the
local randomizer into a part shared by every user and a part of its own, the privacy blanket's
(Balle et al., CRYPTO 2019) is optimal, and that its bound is computed by FFT from a *generalized privacy
amplification random variable*. The definitions below are read from the public code of the paper
(github.com/Optimal-amplification-bound/Decomposition-Based-Optimal-Bounds-for-Shuffle-DP, commit d3b769d:
``mechanisms.py``, the k-RR class; ``amplification_bounds.py``, ``FFTbound``); their code is not used here.

**The bound.** Extend the outputs by a dummy symbol ⊥ and let W put γ/k on each of the k symbols and 1 − γ
on ⊥, γ = k/(e^ε₀ + k − 1) (the blanket: k-RR reports a uniform symbol with probability γ). With P and Q
the differing user's report laws on inputs x⁰ and x¹ (zero on ⊥), G = (P(Y) − e^ε Q(Y))/W(Y), Y ~ W, takes
the values

.. math:: 1 - e^{\varepsilon + \varepsilon_0},\quad 1 - e^{\varepsilon},\quad 0,\quad e^{\varepsilon_0} - e^{\varepsilon}

with probabilities 1, k − 2, e^ε₀ − 1 and 1, over e^ε₀ + k − 1 (Y = x¹, another symbol, ⊥, x⁰), and

.. math:: \delta(\varepsilon) = \frac{1}{n}\,\mathbb{E}\Big[\Big(\sum_{i=1}^{n} G_i\Big)_+\Big]

for n i.i.d. copies. Their code evaluates the expectation by FFT after rounding each value *up* to a grid of
step (e^ε₀ − 1)/1200 (pessimistic), then clamps negative probabilities to 0 and renormalises, in floating
point without a bound on the FFT's round-off, and floors δ at 10⁻¹¹ — an estimate of the bound, not a
certified value. :func:`parv_delta` evaluates the same expectation exactly (a sum over the counts of the
three non-zero values) for a few hundred users.

**What it is in gspa.** The value equals δ of gspa's blanket pair for k-RR
(:class:`gspa.privacy.shuffle.pairs.KaryPair` with one budget), which is certified (every error counted,
rounded up); for k = 2 it is FMT23's clone pair (:func:`gspa.privacy.shuffle.pairs.fmt23_pair`). Their lower
bound (``FFTLowerBound``) uses the data set of :func:`gspa.privacy.shuffle.lower.kary_lower_bound` (the others
on a third symbol). Not a paper item of GSPA: a peer's bound, re-derived.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from gspa.util import validate as V

MAX_USERS = 400  # parv_delta: the sum over counts costs O(n^3)


def kary_parv(eps0, k: int, eps) -> tuple[np.ndarray, np.ndarray]:
    """Su–Cheng–Wang's random variable G for k-ary randomized response with budget ``eps0`` at ``eps``:
    (values, probabilities), in the order Y = x¹, another symbol, the dummy ⊥, x⁰ (module docstring)."""
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, low_open=True, scalar=True)
    k = V.integer("k", k, low=2, high=10**6)
    eps = V.real("eps", eps, low=0.0, high=700.0, scalar=True)
    if eps + eps0 > 700.0:
        raise ValueError(
            f"eps + eps0 must be at most 700 (e^(eps + eps0) overflows), got {eps + eps0:g}"
        )
    values = np.array([-np.expm1(eps + eps0), -np.expm1(eps), 0.0, np.exp(eps0) - np.exp(eps)])
    probs = np.array([1.0, k - 2.0, np.expm1(eps0), 1.0]) / (np.exp(eps0) + k - 1.0)
    return values, probs


def parv_delta(eps0, k: int, n: int, eps):
    """δ(ε) = E[(G₁ + … + Gₙ)₊]/n of :func:`kary_parv`, summed exactly over the counts (a, b, c) of the
    values 1 − exp(ε + ε₀), 1 − exp(ε) and exp(ε₀) − exp(ε) (multinomial in log space; floating point, relative error
    about 1e-12 — a peer's bound evaluated, not a certified one). ``n`` users, 2 ≤ n ≤ ``MAX_USERS``;
    ``eps`` a scalar or an array."""
    n = V.integer("n", n, low=2, high=MAX_USERS)
    eps_arr = V.real("eps", eps, low=0.0, high=700.0)
    a = np.arange(n + 1)
    b, c = np.meshgrid(a, a, indexing="ij")
    out = []
    for e in eps_arr.ravel():
        values, probs = kary_parv(eps0, k, float(e))
        with np.errstate(divide="ignore"):
            lp = np.log(probs)
        total = 0.0
        for na in range(n + 1):  # count of x¹; b: other symbols; c: x⁰; the rest ⊥
            rest = n - na - b - c
            ok = rest >= 0
            if k == 2:
                ok &= b == 0
            s = na * values[0] + b * values[1] + c * values[3]
            ok &= s > 0
            if not ok.any():
                continue
            bb, cc, rr = b[ok], c[ok], rest[ok]
            logm = (
                special.gammaln(n + 1)
                - special.gammaln(na + 1)
                - special.gammaln(bb + 1)
                - special.gammaln(cc + 1)
                - special.gammaln(rr + 1)
            )
            with np.errstate(invalid="ignore"):
                lpr = (
                    logm
                    + na * lp[0]
                    + cc * lp[3]
                    + np.where(bb > 0, bb * lp[1], 0.0)
                    + np.where(rr > 0, rr * lp[2], 0.0)
                )
            total += float(np.sum(np.exp(lpr) * s[ok]))
        out.append(total / n)
    out = np.array(out)
    return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])
