"""Lemma 1's clone decomposition of a local randomizer, computed by linear programming (eqs. (9)–(11)).
Derivation and checks: the Lemma 1 chapter (book/chapters/gspa/lemma1).

Paper items: Lemma 1, eqs. (9)–(11). For a randomizer R with finite output space and an eps-DP
pair of inputs (x0, x1), the decomposition asks for distributions Q^0, Q^1, W and a weight p with

    R(x0) = e^eps p Q^0 + p Q^1 + (1 - (1 + e^eps) p) W        (9)
    R(x1) = p Q^0 + e^eps p Q^1 + (1 - (1 + e^eps) p) W        (10)
    R(x)  >= p Q^0 + p Q^1   for every other input x           (11)

(the remainder of R(x) is its own component Q_i). The paper states (11) with p = 1/(1 + e^eps)
(delta = 0) for *every* eps-DP randomizer. Writing A = p Q^0 and B = p Q^1, the largest feasible p is
a linear program; :func:`max_clone_probability` solves it, so any randomizer can be checked. The
always-valid value from Feldman–McMillan–Talwar (2021) is p = e^{-eps}/2.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from gspa.util import validate as V

_SLACK = 1e-12  # constraints hold to this tolerance (round-off in the inputs' probabilities)
MAX_RATIOS = 2 * 10**7  # dp_epsilon: at most inputs^2 x outputs ratios (160 MB)
MAX_K = 4096  # randomized_response: a k x k matrix (128 MiB)
MAX_BINS = 10**6  # discrete_laplace_rows: bins per row
MAX_INPUTS = 1000  # discrete_laplace_rows: rows
MAX_CELLS = 10**7  # random_ldp_randomizer: inputs x outputs


def dp_epsilon(R: np.ndarray) -> float:
    """The smallest eps for which the randomizer with rows R[x] (distributions over outputs) is
    eps-DP: the largest log-ratio between rows (inf when supports differ). ``R`` is a non-empty 2-d
    array of probabilities with at most ``MAX_RATIOS`` (2e7) ratios inputs^2 x outputs."""
    R = _rows("R", R)
    if R.shape[0] ** 2 * R.shape[1] > MAX_RATIOS:
        raise ValueError(f"R must have inputs^2 x outputs <= {MAX_RATIOS}, got shape {R.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = R[:, None, :] / R[None, :, :]
    ratio = np.where((R[:, None, :] == 0) & (R[None, :, :] == 0), 1.0, ratio)
    return float(np.log(np.max(ratio)))


def _rows(name, R):
    """A non-empty 2-d array of probabilities (rows: distributions over outputs)."""
    return V.probability(name, np.atleast_2d(V.real(name, R)), ndim=2)


def max_clone_probability(R0, R1, others=(), eps: float | None = None):
    """Largest p for which eqs. (9)–(11) hold; returns (p, Q0, Q1) (Q's None when p = 0).

    ``R0``, ``R1``: output distributions on the differing inputs (at most 10^5 outputs); ``others``:
    output distributions of the other inputs (rows); ``eps``: the pair's budget (default: the
    smallest valid one, at most 700); a budget below it makes the program infeasible (ValueError)."""
    R0 = V.probability("R0", R0, ndim=1, max_size=10**5)
    R1 = V.probability("R1", R1, ndim=1)
    V.same_length(R0=R0, R1=R1)
    others = _rows("others", others) if np.size(others) else np.zeros((0, R0.size))
    if others.shape[1] != R0.size:
        raise ValueError(f"others must have rows of {R0.size} outputs, got shape {others.shape}")
    if eps is None:
        eps = dp_epsilon(np.vstack([R0, R1]))
    eps = V.real("eps", eps, low=0.0, high=700.0, scalar=True)  # e^eps stays finite
    k = R0.size
    e = np.exp(eps)
    c = -np.concatenate([np.ones(k), np.zeros(k)])  # maximise sum(A)
    D = np.hstack([(e - 1) * np.eye(k), -(e - 1) * np.eye(k)])  # (e-1)(A - B) = R0 - R1,
    A_ub = [D, -D, np.hstack([e * np.eye(k), np.eye(k)])]  # kept within _SLACK, and
    b_ub = [R0 - R1 + _SLACK, R1 - R0 + _SLACK, R0 + _SLACK]  # e A + B <= R0 (W >= 0)
    for Rx in others:  # A + B <= R(x)  (eq. (11))
        A_ub.append(np.hstack([np.eye(k), np.eye(k)]))
        b_ub.append(Rx + _SLACK)
    res = linprog(
        c,
        A_ub=np.vstack(A_ub),
        b_ub=np.concatenate(b_ub),
        bounds=[(0, None)] * (2 * k),
        method="highs",
    )
    if res.status == 2:
        raise ValueError(
            f"eps={eps!r} is below the pair's own level: R0, R1 are not eps-DP ({res.message})"
        )
    if res.status != 0:
        raise RuntimeError(f"linear program failed: {res.message}")
    A, B = res.x[:k], res.x[k:]
    p = float(A.sum())
    if p <= 0:
        return 0.0, None, None
    return p, A / p, B / p


def clone_weight(Rx, Q0, Q1) -> float:
    """Largest t with R(x) >= t (Q^0 + Q^1): the clone probability another user's randomizer
    (possibly with another budget) can offer for the differing user's Q^0, Q^1."""
    Rx = V.probability("Rx", Rx, ndim=1)
    S = V.probability("Q0", Q0, ndim=1) + V.probability("Q1", Q1, ndim=1)
    V.same_length(Rx=Rx, Q0_plus_Q1=S)
    pos = S > 0
    return float(np.min(Rx[pos] / S[pos])) if pos.any() else 0.0


def randomized_response(eps: float, k: int = 2) -> np.ndarray:
    """k-ary randomized response: rows = inputs, true value w.p. e^eps/(e^eps + k - 1).

    ``eps`` in [0, inf] (inf: the identity, no privacy); ``k`` in [2, MAX_K = 4096] (a k x k matrix)."""
    eps = V.nonnegative("eps", eps, scalar=True)
    k = V.integer("k", k, low=2, high=MAX_K)
    other = np.exp(-eps) / (1.0 + (k - 1) * np.exp(-eps))  # 1/(e^eps + k - 1) without overflow
    R = np.full((k, k), other)
    np.fill_diagonal(R, 1.0 / (1.0 + (k - 1) * np.exp(-eps)))
    return R


def discrete_laplace_rows(inputs, eps: float, width: float, bins: int) -> np.ndarray:
    """The Laplace mechanism x + Lap(1/eps) (sensitivity 1 on inputs in [0, 1]) observed through
    ``bins`` equal bins on [-width, 1 + width] with the two tails lumped into the end bins —
    a post-processing, so every divergence is a lower bound of the continuous one.

    ``inputs``: finite numbers (at most MAX_INPUTS = 1000); ``eps`` in (0, 1e6]; ``width`` finite and
    >= 0; ``bins`` in [2, MAX_BINS = 10^6]."""
    from scipy.stats import laplace

    inputs = V.finite("inputs", inputs, max_size=MAX_INPUTS)
    eps = V.real("eps", eps, low=0.0, low_open=True, high=1e6, scalar=True)
    width = V.finite("width", width, low=0.0, high=1e300, scalar=True)
    bins = V.integer("bins", bins, low=2, high=MAX_BINS)
    edges = np.linspace(-width, 1.0 + width, bins + 1)
    edges[0], edges[-1] = -np.inf, np.inf
    rows = []
    for x in np.atleast_1d(inputs):
        left = np.diff(laplace.cdf(edges, loc=x, scale=1.0 / eps))  # accurate below the centre
        right = -np.diff(laplace.sf(edges, loc=x, scale=1.0 / eps))  # accurate above it
        mid = 0.5 * (np.maximum(edges[:-1], -1e300) + np.minimum(edges[1:], 1e300))
        rows.append(np.where(mid < x, left, right))
    return np.array(rows)


def random_ldp_randomizer(rng, n_inputs: int, n_outputs: int, spread: float = 1.0) -> np.ndarray:
    """A random randomizer (rows = inputs) with log-probabilities spread over ``spread`` in [0, 700];
    ``n_inputs``, ``n_outputs`` >= 1 with at most MAX_CELLS = 10^7 cells."""
    rng = V.generator("rng", rng)
    n_inputs = V.integer("n_inputs", n_inputs, low=1, high=MAX_CELLS)
    n_outputs = V.integer("n_outputs", n_outputs, low=1, high=MAX_CELLS // n_inputs)
    spread = V.real("spread", spread, low=0.0, high=700.0, scalar=True)
    logits = rng.uniform(0.0, spread, size=(n_inputs, n_outputs))
    R = np.exp(logits)
    return R / R.sum(axis=1, keepdims=True)


def laplace_cross_clone_weight(eps_i: float, eps_n: float, width: float, bins: int) -> float:
    """Eq. (11) across budgets for the Laplace mechanism: the clone weight that a user with budget
    ``eps_i`` (inputs 0, 1/2, 1) can offer the differing user's components Q^0, Q^1 (budget
    ``eps_n``), outputs observed on [-width, 1 + width] in ``bins`` bins. Compare with 1/(1+e^eps_i).
    Budgets in (0, 1e6], ``bins`` in [2, 10^6] (:func:`discrete_laplace_rows`)."""
    for name, value in (("eps_i", eps_i), ("eps_n", eps_n)):
        V.real(name, value, low=0.0, low_open=True, high=1e6, scalar=True)
    Rn = discrete_laplace_rows([0.0, 1.0], eps_n, width, bins)
    _, Q0, Q1 = max_clone_probability(Rn[0], Rn[1], [], eps_n)
    return min(
        clone_weight(r, Q0, Q1) for r in discrete_laplace_rows([0.0, 0.5, 1.0], eps_i, width, bins)
    )
