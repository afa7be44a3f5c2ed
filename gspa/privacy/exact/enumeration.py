"""Exact enumeration of small shuffled protocols: the ground truth behind the word "certified" (every differing
user, every data set, every pair of inputs). Used by the tests and the chapters; no module of the accountant imports it.

The shuffler outputs the multiset of the users' reports, i.e. the histogram of report symbols. For a
few users its law is computed exactly by dynamic programming over histograms, and the privacy
profile of the protocol,

    delta(eps) = max over the differing user j, the data of all other users and the pair of inputs
                 (x_j, x_j') of max(H_{e^eps}(P || P'), H_{e^eps}(P' || P)),

is the largest hockey-stick divergence over *every* pair of neighbouring data sets (replace one
user's input). Randomizers (each user i has its own budget):

* ``"k-rr"``: k-ary randomized response (``"binary-rr"`` is k = 2);
* ``"quaternary"``: Lemma 4's (eps_i, delta_i) randomizer on a binary input — with probability
  delta_i the report reveals the input (symbols A, B), otherwise it is binary randomized response;
* ``"laplace-binned"``: x + Lap(1/eps_i) on inputs {0, 1}, observed through a few bins. Binning is a
  post-processing, so this enumeration is a *lower* bound on the continuous protocol's delta: a
  certified upper bound for shuffled Laplace must lie above it. The continuous protocol itself (2 or 3
  users, inputs on a grid in [0, 1]) has :func:`laplace_profile`, which brackets its delta from both sides;
* ``"disjoint-rr"``: user i applies binary randomized response on output symbols of its own (2i, 2i + 1),
  so every report names its user: the member of the class ``randomizer="any-ldp"`` of the accountant
  (each user its own eps_i-LDP randomizer) that amplifies nothing.

**Variants** (``variant=``), as in :mod:`gspa.privacy.shuffle.accountant`: ``"randomized"`` is the protocol
itself; ``"revealing"`` is the protocol the accountant's revealing pair covers (its ``lower_bound(...,
variant="revealing")`` is a lower bound for it): the differing user reports its input *in the clear* —
its own randomizer run with budget eps = inf, on the same symbols as everyone else's reports (for the
quaternary randomizer it still sends its reveal symbol with probability delta_j; for the binned Laplace
mechanism its report is its input itself, binned) — while the other users randomize as before. Which
user differs is still every choice in turn: the revealing user is the differing one.

Floating point: every histogram cell is a sum of products of report probabilities, accumulated user
by user, so its relative error is at most gamma(n (k + 1) + 4n); a hockey-stick term
max(0, p - e^eps q) then errs by at most gamma(.)(p + e^eps q), and the sum by gamma(.)(1 + e^eps).
:func:`shuffled_profile` returns that bound with the value: a computed bound below
``value - error`` is *certainly* below the truth. Cost grows like n k^n: for n <= 6 users.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import special

from gspa.privacy.numerics import gamma, invert
from gspa.privacy.shuffle.clones import binomial_part
from gspa.util import validate as V


MAX_K = 4096  # krr_row: symbols


def krr_row(eps: float, k: int, x: int) -> np.ndarray:
    """k-ary randomized response: the input x w.p. e^eps/(e^eps + k - 1), each other symbol w.p.
    1/(e^eps + k - 1) (computed as e^-eps/(1 + (k-1)e^-eps): no overflow). ``eps`` in [0, inf],
    ``k`` in [2, MAX_K = 4096], ``x`` in {0, ..., k - 1}."""
    eps = V.nonnegative("eps", eps, scalar=True)
    k = V.integer("k", k, low=2, high=MAX_K)
    x = V.integer("x", x, low=0, high=k - 1)
    e = np.exp(-eps)
    row = np.full(k, e / (1.0 + (k - 1) * e))
    row[x] = 1.0 / (1.0 + (k - 1) * e)
    return row


def _quaternary_row(eps: float, delta: float, x: int) -> np.ndarray:
    """Lemma 4's randomizer over symbols (A, 0, 1, B): input 0 gives (delta, (1-delta)e^eps/(1+e^eps),
    (1-delta)/(1+e^eps), 0); input 1 the mirror image."""
    hi = (1.0 - delta) * special.expit(eps)
    lo = (1.0 - delta) * special.expit(-eps)
    return np.array([delta, hi, lo, 0.0]) if x == 0 else np.array([0.0, lo, hi, delta])


def laplace_binned_row(eps: float, x: float, edges) -> np.ndarray:
    """The law of x + Lap(1/eps) observed through the bins between ``edges`` (the outer bins reach +-inf): ``eps`` in
    (0, inf), ``x`` finite, ``edges`` a non-decreasing 1-d array of at most 10^6 values."""
    eps = V.real("eps", eps, low=0.0, high=np.inf, low_open=True, high_open=True, scalar=True)
    x = V.real("x", x, low_open=True, high_open=True, scalar=True)
    edges = V.real("edges", edges, ndim=1, max_size=10**6)
    if np.any(np.diff(edges) < 0):
        raise ValueError(f"edges must be non-decreasing, got {edges!r:.80}")
    return _laplace_binned_row(float(eps), float(x), edges)


def _laplace_binned_row(eps: float, x: float, edges) -> np.ndarray:
    e = np.concatenate([[-np.inf], np.asarray(edges, dtype=float), [np.inf]])
    cdf = np.where(
        e < x,
        0.5 * np.exp(eps * np.minimum(e - x, 0.0)),
        1.0 - 0.5 * np.exp(-eps * np.maximum(e - x, 0.0)),
    )
    return np.maximum(np.diff(cdf), 0.0)


def histogram_law(rows) -> np.ndarray:
    """Exact law of the histogram of independent reports (row i = user i's report distribution over
    s symbols), as a flat array over counts (c_0, ..., c_{s-1}) in base n + 1."""
    rows = V.real("rows", rows, low=0.0, ndim=2)
    if not rows.size:
        raise ValueError(f"rows must hold at least one user's report law, got shape {rows.shape}")
    return _histogram_laws(rows[:-1], rows[-1:])[0]


def _histogram_laws(base, lasts) -> list[np.ndarray]:
    """:func:`histogram_law` of ``base`` + [r] for each row r of ``lasts``, the law of ``base`` computed once
    (the same operations in the same order as for each list alone: the same numbers, bit for bit)."""
    base, lasts = np.asarray(base, dtype=float), np.asarray(lasts, dtype=float)
    n, s = len(base) + 1, lasts.shape[1]
    strides = (n + 1) ** np.arange(s)
    law = np.zeros((n + 1) ** s)
    law[0] = 1.0

    def add(law, r):
        new = np.zeros_like(law)
        for sym in range(s):
            if r[sym] > 0:
                st = int(strides[sym])
                new[st:] += r[sym] * law[:-st]
        return new

    for r in base:
        law = add(law, r)
    return [add(law, r) for r in lasts]


def hockey_both(P, Q, eps) -> np.ndarray:
    """max(H_{e^eps}(P || Q), H_{e^eps}(Q || P)) at each eps of a 1-d array, for two laws ``P``, ``Q`` over the
    same outcomes (nonnegative, of equal length); e^eps = inf (eps > 709) is exact too: only the outcomes the
    other law never produces count."""
    P = V.real("P", P, low=0.0, ndim=1)
    Q = V.real("Q", Q, low=0.0, ndim=1)
    V.same_length(P=P, Q=Q)
    eps = V.nonnegative("eps", eps)
    if eps.ndim != 1:
        raise ValueError(f"eps must be a 1-d array, got shape {eps.shape}")
    return _hockey_both(P, Q, eps)


def _hockey_both(P: np.ndarray, Q: np.ndarray, eps: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        e = np.exp(eps)[:, None]

    def one(A, B):
        with np.errstate(invalid="ignore"):
            return np.maximum(
                np.where(B[None, :] > 0, A[None, :] - e * B[None, :], A[None, :]), 0.0
            ).sum(axis=1)

    return np.maximum(one(P, Q), one(Q, P))


def _clear_binned_row(x: float, edges) -> np.ndarray:
    """The value x itself (no noise) observed through the bins between ``edges``, each bin (e_i, e_i+1]."""
    e = np.concatenate([[-np.inf], np.asarray(edges, dtype=float), [np.inf]])
    return np.diff((e >= x).astype(float))


def _disjoint_row(eps: float, i: int, n: int, x: int) -> np.ndarray:
    """User i of n: binary randomized response with budget eps on its own symbols (2i, 2i + 1)."""
    row = np.zeros(2 * n)
    row[2 * i : 2 * i + 2] = krr_row(eps, 2, x)
    return row


def _error(terms: int, grid: np.ndarray) -> np.ndarray:
    """gamma(terms) (1 + e^eps), the round-off bound of a hockey-stick sum (inf where e^eps overflows)."""
    with np.errstate(over="ignore"):
        return gamma(terms) * (1.0 + np.exp(grid))


def _rounds(law: np.ndarray, rounds: int) -> np.ndarray:
    """The joint law of ``rounds`` independent runs on the same data (flattened outer product)."""
    out = law
    for _ in range(rounds - 1):
        out = np.outer(out, law).ravel()
    return out


def shuffled_profile(
    randomizer: str,
    eps,
    eps_grid,
    delta=None,
    k: int | None = None,
    rounds: int = 1,
    variant: str = "randomized",
    differing: int | None = None,
):
    """The exact privacy profile of a small shuffled protocol: returns the pair (delta(eps) on ``eps_grid``,
    a bound on its floating-point error).

    Paper items: the ground truth for Theorem 1 (the reduced pair bounds the real shuffled protocol;
    ``"binary-rr"`` is Algorithm 2, ``"quaternary"`` Lemma 4's randomizer).

    ``rounds``: T independent runs of the protocol on the same data sets (1 to 3), their outputs
    observed together — the ground truth for :mod:`gspa.privacy.shuffle.composition`.

    ``variant``: ``"randomized"`` (the protocol) or ``"revealing"`` (the differing user reports its input in
    the clear, see the module text: the protocol the accountant's revealing variant covers).

    ``eps``: the users' budgets (n <= 6; n <= 4 for ``"disjoint-rr"``); ``delta``: their delta_i
    (``"quaternary"`` only); ``k``: the alphabet of ``"k-rr"``. The maximum runs over every differing user,
    every assignment of inputs to the others and every pair of inputs of the differing user (``differing``: that
    user only, an index into ``eps``)."""
    eps = V.nonnegative("eps", eps)
    if eps.ndim != 1 or not 2 <= eps.size <= 6:
        raise ValueError(
            f"eps must hold 2 to 6 users for exhaustive enumeration, got shape {eps.shape}"
        )
    grid = V.nonnegative("eps_grid", eps_grid).ravel()
    rounds = V.integer("rounds", rounds, low=1, high=3)
    if variant not in ("randomized", "revealing"):
        raise ValueError(f"variant must be 'randomized' or 'revealing', got {variant!r}")
    if delta is not None:
        delta = V.probability("delta", delta, open_high=True)
    if k is not None:
        k = V.integer("k", k, low=2, high=6)
    n = eps.size
    if differing is not None:
        differing = V.integer("differing", differing, low=0, high=n - 1)
    if randomizer in ("k-rr", "binary-rr"):
        k = 2 if randomizer == "binary-rr" else V.integer("k", k, low=2, high=6)
        alphabet = range(k)
        row = lambda i, x, e: krr_row(e, k, x)
        symbols = k
    elif randomizer == "laplace-binned":
        edges = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
        alphabet = range(2)
        row = lambda i, x, e: (
            _laplace_binned_row(e, float(x), edges)
            if np.isfinite(e)
            else _clear_binned_row(float(x), edges)
        )
        symbols = edges.size + 1
    elif randomizer == "quaternary":
        d = np.zeros(n) if delta is None else V.probability("delta", delta, open_high=True)
        if d.shape != eps.shape:
            raise ValueError(f"delta must have one value per user, got shape {d.shape}")
        alphabet = range(2)
        row = lambda i, x, e: _quaternary_row(e, float(d[i]), x)
        symbols = 4
    elif randomizer == "disjoint-rr":
        if n > 4:
            raise ValueError(f"eps must hold 2 to 4 users for randomizer 'disjoint-rr', got {n}")
        alphabet = range(2)
        row = lambda i, x, e: _disjoint_row(e, i, n, x)
        symbols = 2 * n
    else:
        raise ValueError(
            "randomizer must be 'binary-rr', 'k-rr', 'quaternary', 'laplace-binned' or 'disjoint-rr', "
            f"got {randomizer!r}"
        )
    mine = lambda j: (
        np.inf if variant == "revealing" else float(eps[j])
    )  # the differing user's budget
    best = np.zeros(grid.size)
    for j in range(n) if differing is None else [differing]:
        others = [i for i in range(n) if i != j]
        for xs in itertools.product(alphabet, repeat=n - 1):
            base = [row(i, x, float(eps[i])) for i, x in zip(others, xs)]
            laws = _histogram_laws(base, [row(j, x, mine(j)) for x in alphabet])
            for x0, x1 in itertools.combinations(alphabet, 2):
                P, Q = laws[x0], laws[x1]
                keep = (P > 0) | (Q > 0)  # the reachable histograms only
                P, Q = _rounds(P[keep], rounds), _rounds(Q[keep], rounds)
                best = np.maximum(best, _hockey_both(P, Q, grid))
    return best, _error(rounds * (8 * n * (symbols + 1) + 16), grid)


def matrix_profile(R, n: int, eps_grid):
    """The exact privacy profile of n users sharing one randomizer given as a matrix ``R`` (row x = the
    report law on input x; at most 6 inputs and 8 outputs), shuffled: the maximum over every pair of
    inputs of the differing user and every multiset of the others' inputs (one randomizer for all, so the
    order of the others does not matter). Returns (delta(eps) on ``eps_grid``, a bound on its
    floating-point error), as :func:`shuffled_profile` does."""
    R = V.probability("R", R)
    if R.ndim != 2 or not (2 <= R.shape[0] <= 6 and 2 <= R.shape[1] <= 8):
        raise ValueError(
            f"R must be a matrix with 2 to 6 inputs (rows) and 2 to 8 outputs, got shape {R.shape}"
        )
    if np.any(np.abs(R.sum(axis=1) - 1.0) > 1e-9):
        raise ValueError(f"each row of R must sum to 1, got row sums {R.sum(axis=1)}")
    n = V.integer("n", n, low=2, high=6)
    grid = V.nonnegative("eps_grid", eps_grid).ravel()
    best = np.zeros(grid.size)
    for xs in itertools.combinations_with_replacement(range(R.shape[0]), n - 1):
        laws = _histogram_laws([R[x] for x in xs], R)
        for x0, x1 in itertools.combinations(range(R.shape[0]), 2):
            P, Q = laws[x0], laws[x1]
            keep = (P > 0) | (Q > 0)
            best = np.maximum(best, _hockey_both(P[keep], Q[keep], grid))
    return best, _error(8 * n * (R.shape[1] + 1) + 16, grid)


def theorem1_pair_profile(eps, delta, eps_grid):
    """delta(eps) of Theorem 1's reduced pair (rho_0, rho_1) *as printed*, eqs. (12)–(13) with copy 000's
    MultiBern(p_i, p_i, 1 - 2 p_i), p_i = (1 - delta_i)/(1 + e^eps_i): every other user reports 0, 1 or
    2; the differing user n reports 0 / 1 w.p. (1 - delta_n) e^eps_n/(1 + e^eps_n) and
    (1 - delta_n)/(1 + e^eps_n) (swapped under D_1) and 2 with probability delta_n — the slot Delta_2
    that both hypotheses share. The observer sees the counts. Worst case over which user differs; exact
    enumeration (returns the value and its round-off bound like :func:`shuffled_profile`)."""
    eps = V.nonnegative("eps", eps)
    d = V.probability("delta", delta, open_high=True)
    if eps.ndim != 1 or d.shape != eps.shape or not 2 <= eps.size <= 12:
        raise ValueError(
            f"eps and delta must be equal-length arrays of 2 to 12 users, got {eps.shape}, {d.shape}"
        )
    grid = V.nonnegative("eps_grid", eps_grid).ravel()
    p = (1.0 - d) / (1.0 + np.exp(eps))
    best = np.zeros(grid.size)
    for j in range(eps.size):
        base = [np.array([p[i], p[i], 1.0 - 2.0 * p[i]]) for i in range(eps.size) if i != j]
        hi, lo = (1.0 - d[j]) / (1.0 + np.exp(-eps[j])), (1.0 - d[j]) / (1.0 + np.exp(eps[j]))
        P = histogram_law(base + [np.array([hi, lo, d[j]])])
        Q = histogram_law(base + [np.array([lo, hi, d[j]])])
        best = np.maximum(best, _hockey_both(P, Q, grid))
    return best, _error(8 * eps.size * 4 + 16, grid)


MAX_CHECK_EPS = (
    700.0  # above, e^eps overflows and the counted round-off gamma (1 + e^eps) is infinite
)


def _against_truth(randomizer, eps, eps_grid, delta, k, rounds=1, variant="randomized", **bounds):
    """The enumerated protocol's delta and its counted round-off on ``eps_grid`` (in [0, MAX_CHECK_EPS],
    where that round-off is finite: an infinite one would make every margin +inf and hide any violation),
    and each named bound's ``delta`` there as floats (a NaN is refused: a margin of NaN compares as neither
    side)."""
    for name, bound in bounds.items():
        V.function(f"{name}.delta", getattr(bound, "delta", None))
    grid = V.real("eps_grid", eps_grid, low=0.0, high=MAX_CHECK_EPS).ravel()
    truth, err = shuffled_profile(
        randomizer, eps, grid, delta=delta, k=k, rounds=rounds, variant=variant
    )
    values = []
    for name, bound in bounds.items():
        v = np.asarray(bound.delta(grid), dtype=float)
        if np.isnan(v).any():
            bad = float(grid[np.isnan(v).ravel()][0])
            raise ValueError(
                f"{name}.delta returned NaN at eps = {bad!r} (eps_grid); a bound must return numbers in [0, 1]"
            )
        values.append(v)
    return truth, err, values


def compare_with_truth(
    bound,
    randomizer: str,
    eps,
    eps_grid,
    delta=None,
    k: int | None = None,
    *,
    rounds: int = 1,
    variant: str = "randomized",
) -> dict:
    """How a bound object (with ``delta(eps)``) stands against the enumerated protocol: the largest
    amount by which it falls *certainly* below the truth (``deficit``, > 0 means it is not an upper
    bound), and the median ratio bound/truth where the truth exceeds 1e-9 (None if it nowhere does).
    ``eps_grid`` in [0, MAX_CHECK_EPS]; a bound returning NaN is refused; ``rounds`` and ``variant`` as for
    :func:`shuffled_profile`."""
    truth, err, (ours,) = _against_truth(
        randomizer, eps, eps_grid, delta, k, rounds, variant, bound=bound
    )
    big = truth > 1e-9
    return {
        "deficit": float(np.max(truth - err - ours)),
        "max_truth": float(truth.max()),
        "median_ratio": float(np.median(ours[big] / truth[big])) if big.any() else None,
    }


def bracket_check(
    upper,
    lower,
    randomizer: str,
    eps,
    eps_grid,
    delta=None,
    k: int | None = None,
    *,
    rounds: int = 1,
    variant: str = "randomized",
) -> dict:
    """How an upper and a lower bound (objects with ``delta(eps)``) stand around the enumerated protocol
    on ``eps_grid``: ``upper_margin`` = min(upper − truth) and ``lower_margin`` = min(truth − lower), each
    with the enumeration's counted round-off in the bound's favour, so a negative margin is a certain
    violation; ``max_truth`` is the largest enumerated delta. ``eps_grid`` in [0, MAX_CHECK_EPS] (above, the
    counted round-off is infinite and would hide a violation); a bound returning NaN is refused; ``rounds``
    and ``variant`` as for :func:`shuffled_profile`."""
    truth, err, (up, lo) = _against_truth(
        randomizer, eps, eps_grid, delta, k, rounds, variant, upper=upper, lower=lower
    )
    return {
        "upper_margin": float(np.min(up - truth + err)),
        "lower_margin": float(np.min(truth + err - lo)),
        "max_truth": float(truth.max()),
    }


MAX_COMMON_USERS = 2000  # every_data_set: O(n^2) memory, O(n^3) time


def _common_laws(eps0: float, n: int):
    """Rows m = 0 .. n - 1: the law of the n - 1 others' count of 1s when m of them hold 1 (one common
    budget eps0), from certified binomial windows (:func:`gspa.privacy.shuffle.clones.binomial_part`); returns
    (laws, relative error bound, additive error bound)."""
    t = float(special.expit(-eps0))
    laws = np.zeros((n, n))
    rel = add = 0.0
    for m in range(n):
        a, b = binomial_part(n - 1 - m, t), binomial_part(m, t)
        pa = np.zeros(n - m)
        pa[a.offset : a.offset + a.width] = a.pmf
        pb = np.zeros(m + 1)
        pb[b.offset : b.offset + b.width] = b.pmf
        laws[m] = np.convolve(pa, pb[::-1])  # m - Bin(m, t): the m holders of 1
        rel = max(rel, a.rho + b.rho + a.rho * b.rho + gamma(min(pa.size, pb.size) + 1))
        add = max(add, a.tau + b.tau)
    return laws, t, rel, add


def every_data_set(eps0: float, n: int, eps_grid):
    """The exact privacy profile of shuffled binary randomized response with one common budget ``eps0``
    for ``n`` users, over *every* data set: the others are exchangeable, so a data set is the number m of
    1s among the n - 1 others, and the count of 1s is Bin(n - 1 - m, t) + m - Bin(m, t) plus the differing
    user's bit (t = 1/(1 + e^eps0); by symmetry every user may differ). Returns (delta(eps) on
    ``eps_grid``, the largest over m and both directions; a bound on its numerical error; the m attaining
    it). ``n`` in [2, MAX_COMMON_USERS = 2000], ``eps0`` >= 0 finite.

    Not a paper item: the ground truth for the cell bound (:mod:`gspa.privacy.shuffle.cells`) at sizes the
    per-user enumeration cannot reach."""
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, scalar=True)
    n = V.integer("n", n, low=2, high=MAX_COMMON_USERS)
    grid = V.real("eps_grid", eps_grid, low=0.0, high=700.0).ravel()
    laws, t, rel, add = _common_laws(eps0, n)
    out = [_common_delta(laws, t, e) for e in grid]
    best, where = np.array([d for d, _ in out]), np.array([m for _, m in out])
    err = (rel + gamma(n + 8) + add) * (1.0 + np.exp(grid))
    return best, err, where


def _common_delta(laws, t: float, e: float):
    """(delta(e), the m attaining it): the largest over the rows of ``laws`` and both directions."""
    n = laws.shape[0]
    Z0 = np.concatenate([laws, np.zeros((n, 1))], axis=1)  # Z(k), k = 0 .. n
    Z1 = np.concatenate([np.zeros((n, 1)), laws], axis=1)  # Z(k - 1)
    ee, best, where = np.exp(e), 0.0, 0
    for a in (t, 1.0 - t):  # P(report 1) under the first input
        d = np.maximum((1 - a) * Z0 + a * Z1 - ee * (a * Z0 + (1 - a) * Z1), 0.0).sum(axis=1)
        m = int(np.argmax(d))
        if d[m] > best:
            best, where = float(d[m]), m
    return best, where


def every_data_set_epsilon(eps0: float, n: int, delta: float) -> tuple[float, int]:
    """eps(delta) of :func:`every_data_set` (the exact worst case over the data, found by bisection to a
    relative 1e-9; not rounded: the truth up to its numerical error) and the number of 1s among the others
    of a worst data set there. ``n`` in [2, 2000], ``delta`` in (0, 1)."""
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, scalar=True)
    n = V.integer("n", n, low=2, high=MAX_COMMON_USERS)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    laws, t, _, _ = _common_laws(eps0, n)
    e = invert(lambda x: _common_delta(laws, t, x)[0], delta, eps0)
    return float(e), _common_delta(laws, t, e)[1]


MAX_LAPLACE_CELLS = 10**7  # laplace_profile: ordered cells (bins^n) per data set


def _laplace_bins(eps: float, x: float, edges: np.ndarray) -> np.ndarray:
    """P(x + Lap(1/eps) in each bin), bins (-inf, e_0], (e_0, e_1], ..., (e_K, inf), for an x that is one of
    the ``edges``: every bin lies on one side of x, where the density is eps/2 e^(-eps |y - x|), and each
    probability is formed without cancellation (relative error a few ulps)."""
    lo = np.concatenate([[-np.inf], edges])
    hi = np.concatenate([edges, [np.inf]])
    near = np.where(hi <= x, x - hi, lo - x)  # distance from x to the bin's nearer end
    return -0.5 * np.exp(-eps * near) * np.expm1(-eps * (hi - lo))


def _laplace_local(eps: float, x0: float, x1: float, grid: np.ndarray) -> tuple[np.ndarray, float]:
    """delta(eps') of one Laplace report with budget eps for the inputs x0 < x1 at distance d = x1 - x0 (either
    direction): the privacy loss is eps d on y <= 0, eps (d - 2y) between and -eps d beyond d, so it exceeds
    eps' on y < t = (d - eps'/eps)/2 and delta = P_0(y < t) - e^eps' P_d(y < t) = 1 - e^((eps' - eps d)/2),
    exactly 0 for eps' >= eps d. Computed from the floats given with 1,200 bits, in which d and eps d are exact
    (two doubles of [0, 1] differ by a multiple of 2^-1074), so the test eps' < eps d is exact too; each value is
    rounded up: no round-off left to count. Returns (delta on ``grid``, eps d rounded up)."""
    import mpmath as mp

    with mp.workprec(1200):
        top = mp.mpf(eps) * (mp.mpf(x1) - mp.mpf(x0))
        values = [
            _rounded_up(-mp.expm1((mp.mpf(e) - top) / 2)) if mp.mpf(e) < top else 0.0 for e in grid
        ]
        return np.array(values), _rounded_up(top)


def _rounded_up(x) -> float:
    """The float nearest an mpmath number, one ulp up where that lies below it."""
    f = float(x)
    return f if f >= x else float(np.nextafter(f, np.inf))


def laplace_profile(
    eps, eps_grid, inputs=(0.0, 0.5, 1.0), *, inner=0.02, outer=0.05, grow=1.0, reach=30.0
):
    r"""The privacy profile of the *continuous* shuffled Laplace protocol (user :math:`i` reports
    :math:`x_i + \mathrm{Lap}(1/\varepsilon_i)`, inputs in [0, 1]) for 2 or 3 users, bracketed: returns
    ``(low, high)`` on ``eps_grid`` with :math:`\mathrm{low} \le \delta(\varepsilon) \le \mathrm{high}`, where
    :math:`\delta` is the largest hockey-stick divergence (both directions) over every differing user, every
    pair of its inputs from ``inputs`` and every assignment of the others' inputs from ``inputs``; each end
    carries its counted round-off on its own side. The ground truth for the Laplace upper bound
    (:class:`gspa.privacy.shuffle.pairs.LaplaceBands`), which covers the continuous reports.

    **Cells.** The real line is cut at the inputs, at steps of ``inner`` between the smallest and the largest
    input, and outside them at steps starting at ``outer`` and growing by the factor ``grow`` for ``reach``.
    The shuffled reports, put in a uniformly random order (a post-processing that loses nothing: sorting
    undoes it), fall in a cell :math:`C = B_1 \times \dots \times B_n` of bins, with the exact probabilities
    :math:`P_0(C)` and :math:`P_1(C)` under the two data sets.

    **low** is the hockey-stick divergence of these cell laws. The cells are a post-processing of the
    reports, so it lies below :math:`\delta`.

    **high.** No input lies inside a bin, so on a bin :math:`B` each user's density is :math:`c\,e^{g y}`
    with slope :math:`g = \pm\varepsilon_i` (+ left of its input, − right of it). Let :math:`r_B` be half the
    spread of these slopes over every user of both data sets, and :math:`\Lambda(C) = \sum_s r_{B_s} |B_s|`
    (infinite on an unbounded bin unless all slopes there are equal). Each term
    :math:`\prod_s f_{\pi(s)}(y_s)` of the shuffled density is, across :math:`C`, a factor common to every
    term and both data sets times a part that moves by at most :math:`e^{\pm\Lambda}`. So the likelihood
    ratio :math:`p_1/p_0` moves within :math:`C` by at most :math:`e^{2\Lambda}`, and stays within that factor
    of :math:`P_1(C)/P_0(C)`, a :math:`p_0`-weighted average of it. Hence
    :math:`\int_C (p_1 - e^{\varepsilon} p_0)_+ \le (P_1(C) - e^{\varepsilon - 2\Lambda(C)} P_0(C))_+`, and
    high sums that over the cells (both directions), with its counted round-off. It is then capped by the
    differing user's own Laplace pair at distance :math:`d = |x^1 - x^0|`, since the shuffled reports are a
    post-processing of its report: :math:`1 - e^{(\varepsilon - \varepsilon_j d)/2}`, exactly 0 for
    :math:`\varepsilon \ge \varepsilon_j d`, computed with 1,200 bits (in which :math:`\varepsilon_j d` is exact)
    and rounded up (no round-off of the sums is added to it).

    ``eps``: 2 or 3 budgets in (0, 700]; ``inputs``: 2 to 4 distinct values in [0, 1]; ``inner`` and
    ``outer`` in [0.001, 1]; ``grow`` in [1, 2]; ``reach`` in [1, 200]; at most ``MAX_LAPLACE_CELLS`` (10 million)
    ordered cells; ``eps_grid`` in [0, ``MAX_CHECK_EPS``]. Cost: one pass over the sorted cells per data set
    and grid point."""
    eps = V.real("eps", eps, low=0.0, high=700.0, low_open=True, ndim=1)
    if not 2 <= eps.size <= 3:
        raise ValueError(f"eps must hold 2 or 3 users, got {eps.size}")
    grid = V.real("eps_grid", eps_grid, low=0.0, high=MAX_CHECK_EPS).ravel()
    inputs = np.unique(V.probability("inputs", inputs, ndim=1))
    if not 2 <= inputs.size <= 4:
        raise ValueError(f"inputs must hold 2 to 4 distinct values, got {inputs.size}")
    inner = V.real("inner", inner, low=1e-3, high=1.0, scalar=True)
    outer = V.real("outer", outer, low=1e-3, high=1.0, scalar=True)
    reach = V.real("reach", reach, low=1.0, high=200.0, scalar=True)
    grow = V.real("grow", grow, low=1.0, high=2.0, scalar=True)
    a, b = float(inputs[0]), float(inputs[-1])
    count = (  # outer bins enough to pass ``reach``: outer (grow^m - 1)/(grow - 1) >= reach
        int(np.log1p(reach * (grow - 1.0) / outer) / np.log(grow)) + 2
        if grow > 1.0
        else int(np.ceil(reach / outer)) + 1
    )
    steps = np.cumsum(outer * grow ** np.arange(count))  # the outer edges' distances
    steps = steps[: np.searchsorted(steps, reach) + 1]
    edges = np.unique(np.concatenate([a - steps, np.arange(a, b, inner), inputs, b + steps]))
    n, bins = eps.size, edges.size + 1
    if bins**n > MAX_LAPLACE_CELLS:
        raise ValueError(
            f"inner = {inner}, outer = {outer}, grow = {grow} and reach = {reach} give {bins} bins, "
            f"{bins**n} cells for "
            f"{n} users; at most {MAX_LAPLACE_CELLS} are allowed (widen the steps or shorten the reach)"
        )
    mid = np.concatenate([[edges[0] - 1.0], 0.5 * (edges[1:] + edges[:-1]), [edges[-1] + 1.0]])
    width = np.concatenate([[np.inf], np.diff(edges), [np.inf]])
    idx = np.indices((bins,) * n).reshape(n, -1)
    idx = idx[:, np.all(idx[:-1] <= idx[1:], axis=0)]  # sorted cells, each for its arrangements
    mult = math.factorial(n) / np.array([1.0, 2.0, 6.0])[np.sum(idx[:-1] == idx[1:], axis=0)]
    low, high, top = np.zeros(grid.size), np.zeros(grid.size), 0.0
    err = _error(8 * (math.factorial(n) + n + 8), grid)
    for j in range(n):
        others = [i for i in range(n) if i != j]
        for xs in itertools.product(inputs, repeat=n - 1):
            users = [(eps[i], x) for i, x in zip(others, xs)]
            laws = {  # the cell law with the differing user at each input (each computed once)
                x: mult
                * _multiset_law([_laplace_bins(e, y, edges) for e, y in users + [(eps[j], x)]], idx)
                for x in inputs
            }
            for x0, x1 in itertools.combinations(inputs, 2):
                g = np.array(
                    [np.where(mid < x, e, -e) for e, x in users + [(eps[j], x0), (eps[j], x1)]]
                )
                r = 0.5 * (g.max(axis=0) - g.min(axis=0))
                lam = (r * np.where(r > 0, width, 0.0))[idx].sum(axis=0)  # r = 0: a common factor
                P0, P1 = laws[x0], laws[x1]
                local, t = _laplace_local(float(eps[j]), float(x0), float(x1), grid)
                top = max(top, t)
                for i, e in enumerate(grid):
                    low[i] = max(low[i], _hockey_shifted(P0, P1, e, 0.0))
                    cells = _hockey_shifted(P0, P1, e, 2.0 * lam) + err[i]
                    high[i] = max(high[i], min(local[i], cells))
    # at eps >= every data set's eps_j d (rounded up) the protocol is eps-DP: high is exactly 0 there
    return np.maximum(low - err, 0.0), np.where(grid < top, np.minimum(high, 1.0), 0.0)


def _multiset_law(rows, idx: np.ndarray) -> np.ndarray:
    """The law of independent reports (row i: user i's law over the bins) in a uniformly random order, at the
    ordered cells ``idx`` (one column per cell): the average over the orders of the products."""
    n = len(rows)
    out = sum(
        np.prod([rows[p][idx[s]] for s, p in enumerate(perm)], axis=0)
        for perm in itertools.permutations(range(n))
    )
    return out / math.factorial(n)


def _hockey_shifted(P: np.ndarray, Q: np.ndarray, e: float, shift) -> float:
    """The maximum over both directions of the sum of (A - e^(e - shift) B)_+ (shift may be an array, +inf allowed)."""
    f = np.exp(e - shift)
    return float(max(np.maximum(P - f * Q, 0.0).sum(), np.maximum(Q - f * P, 0.0).sum()))
