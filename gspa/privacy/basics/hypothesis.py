"""Privacy as hypothesis testing: type I/II errors, trade-off curves, hockey-stick divergence (Table 1, eqs. (3)–(5)).
Derivations and checks: the f-DP chapter (book/chapters/gspa/fdp).

Paper items: Table 1 (error types), eq. (3) (``alpha_phi = E_U[phi]``, ``beta_phi = 1 - E_V[phi]``),
eq. (4) (``alpha + beta >= 1 - TV(U, V)``), eq. (5) (the trade-off function ``T(U, V)``).

All functions here work on *discrete* pairs of distributions given as probability vectors over a
common finite outcome space. For such pairs the Neyman–Pearson lemma makes ``T(U, V)`` exact and
piecewise linear: reject the outcomes with the largest likelihood ratio ``v/u`` first, randomising
on the boundary outcome.
"""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V

__all__ = [
    "pmf_pair",
    "total_variation",
    "tradeoff_vertices",
    "tradeoff_curve",
    "hockey_stick",
    "delta_from_tradeoff",
    "test_errors",
]


MAX_RANDOM = 10**7  # numbers drawn by random_pmf and random_kernel


def _exp_times(eps, x):
    """e^eps x, taken as 0 where x = 0 (also for eps = inf) and inf where it overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(x == 0, 0.0, np.exp(eps) * x)


def pmf_pair(p, q, *, atol=1e-9):
    """Validate two probability vectors over the same outcomes (sums within ``atol`` in [0, 1] of 1);
    return them as float arrays."""
    atol = V.probability("atol", atol, scalar=True)
    p = V.real("p", p, low=0.0)
    q = V.real("q", q, low=0.0)
    if p.ndim != 1 or p.shape != q.shape:
        raise ValueError(
            f"p and q must be 1-d arrays of equal length, got shapes {p.shape} and {q.shape}"
        )
    for name, arr in (("p", p), ("q", q)):
        if abs(arr.sum() - 1.0) > atol:
            raise ValueError(f"{name} must sum to 1 (within {atol:g}), got sum {arr.sum()!r}")
    return p, q


def total_variation(p, q) -> float:
    """TV(U, V) = sup_A |U(A) - V(A)| = (1/2) * sum |u - v| (eq. (4))."""
    p, q = pmf_pair(p, q)
    return 0.5 * float(np.abs(p - q).sum())


def test_errors(phi, p, q):
    """Type I and type II errors of a (randomised) rejection rule ``phi`` in [0, 1] (eq. (3), Table 1).

    H0: the data come from U (``p``); H1: from V (``q``). ``alpha = E_U[phi]`` is the probability of
    rejecting a true H0; ``beta = 1 - E_V[phi]`` the probability of accepting a false H0."""
    p, q = pmf_pair(p, q)
    phi = V.probability("phi", phi)
    if phi.shape != p.shape:
        raise ValueError(f"phi must have the shape of p {p.shape}, got {phi.shape}")
    # clip: floating-point sums of probabilities can exceed 1 by an ulp
    return float(np.clip(phi @ p, 0.0, 1.0)), float(np.clip(1.0 - phi @ q, 0.0, 1.0))


def tradeoff_vertices(p, q):
    """Vertices ``(alpha_k, beta_k)`` of the exact trade-off curve T(P, Q) of eq. (5).

    Outcomes are sorted by likelihood ratio q/p, largest first (q > 0 = p counts as +inf); the
    optimal tests reject the first k outcomes, and randomisation fills the segments between
    vertices. The returned arrays start at (alpha, beta) = (0, 1) and end at alpha = 1."""
    p, q = pmf_pair(p, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        logr = np.where(q > 0, np.log(q) - np.log(np.where(p > 0, p, 1.0)), -np.inf)
    logr = np.where((p == 0) & (q > 0), np.inf, logr)
    order = np.argsort(-logr, kind="stable")
    alpha = np.concatenate([[0.0], np.cumsum(p[order])])
    beta = np.concatenate([[1.0], 1.0 - np.cumsum(q[order])])
    alpha = np.clip(alpha, 0.0, 1.0)
    beta = np.clip(beta, 0.0, 1.0)
    # equal alphas (outcomes with p == 0): keep the lowest beta, i.e. the last occurrence
    last = np.concatenate([alpha[1:] != alpha[:-1], [True]])
    return alpha[last], beta[last]


def tradeoff_curve(p, q, alpha):
    """Exact T(P, Q)(alpha) for discrete P (null) and Q (alternative), eq. (5)."""
    alpha = V.probability("alpha", alpha)
    a, b = tradeoff_vertices(p, q)
    if a[-1] < 1.0:  # rounding: extend to alpha = 1
        a = np.append(a, 1.0)
        b = np.append(b, 0.0)
    return np.interp(alpha, a, b)


def hockey_stick(p, q, eps):
    """Hockey-stick divergence ``H_{e^eps}(P || Q) = sum_x max(0, p(x) - e^eps q(x))``.

    P is (eps, delta)-indistinguishable from Q in the direction P -> Q iff delta >= this value.
    Computed as a sum of non-negative terms (no cancellation). ``eps`` in [0, inf] may be an array."""
    p, q = pmf_pair(p, q)
    eps = V.nonnegative("eps", eps)
    out = np.array([np.maximum(p - _exp_times(e, q), 0.0).sum() for e in eps.ravel()])
    return out.reshape(eps.shape) if eps.ndim else float(out[0])


def delta_from_tradeoff(alpha, beta, eps):
    """delta(eps) = sup_alpha [1 - f(alpha) - e^eps alpha] for a curve given by its vertices.

    For a piecewise-linear convex trade-off curve the supremum is attained at a vertex, so this is
    exact on exact vertices (the primal-dual view of f-DP, Dong–Roth–Su 2022, Prop. 2.12).
    ``eps`` in [0, inf] may be an array."""
    alpha = V.probability("alpha", alpha)
    beta = V.probability("beta", beta)
    eps = V.nonnegative("eps", eps)
    vals = [float(np.max(1.0 - beta - _exp_times(e, alpha))) for e in eps.ravel()]
    out = np.maximum(np.array(vals), 0.0)
    return out.reshape(eps.shape) if eps.ndim else float(out[0])


def random_pmf(rng, k: int, size: int | None = None, zero_prob: float = 0.2):
    """Random probability vector(s) over k outcomes (Dirichlet(1/2)), with some exact zeros so that
    the checks also cover outcomes only one hypothesis can produce. ``k`` >= 2 and ``size`` >= 1 (or
    None: one vector) with at most MAX_RANDOM = 10^7 numbers; ``zero_prob`` in [0, 1]."""
    rng = V.generator("rng", rng)
    k = V.integer("k", k, low=2, high=MAX_RANDOM)
    if size is not None:
        size = V.integer("size", size, low=1, high=MAX_RANDOM // k)
    zero_prob = V.probability("zero_prob", zero_prob, scalar=True)
    shape = (k,) if size is None else (size, k)
    w = rng.dirichlet(np.full(k, 0.5), size=size)
    w = np.where(rng.random(shape) < zero_prob, 0.0, w)
    w[..., 0] += w.sum(axis=-1) == 0  # never all zero
    return w / w.sum(axis=-1, keepdims=True)


def random_kernel(rng, k: int, m: int):
    """A random Markov kernel from k outcomes to m outcomes (rows sum to 1): a post-processing.
    ``k`` >= 1 and ``m`` >= 2 with k m <= MAX_RANDOM = 10^7."""
    k = V.integer("k", k, low=1, high=MAX_RANDOM)
    return random_pmf(rng, m, size=k, zero_prob=0.0)
