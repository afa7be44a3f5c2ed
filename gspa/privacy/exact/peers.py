"""Peers' reductions held against exact enumeration: Wang et al.'s Lemma 4.5 pair (k-ary randomized response,
binned Laplace, random randomizers; floating point and 40-digit mpmath) and Su–Cheng–Wang's k-ary bound, each a
margin (negative: not a bound) with its independent re-verification. The claims: the peers chapter (book/chapters/accountant/peers).
"""

from __future__ import annotations

import numpy as np

from gspa.privacy.exact.enumeration import laplace_binned_row, matrix_profile, shuffled_profile
from gspa.privacy.peers.parv import parv_delta
from gspa.privacy.peers.variation import PAIR_ABS, PAIR_REL, VariationRatioPair, parameters
from gspa.util import validate as V

MAX_EXACT = 6**5  # exact_gap, laplace_gap: report vectors enumerated (outputs^n)
LAPLACE_EDGES = (
    0.0,
    1.0,
)  # laplace_margin, laplace_gap: bins below, within and above the inputs' range [0, 1]


def _mp_histogram(rows):
    """The law of the multiset of reports of independent users (row i: user i's report law), summed over
    every report vector in mpmath; keys are the sorted report vectors."""
    import itertools
    from collections import defaultdict

    import mpmath as mp

    out = defaultdict(mp.mpf)
    for rep in itertools.product(*(range(len(r)) for r in rows)):
        pr = mp.mpf(1)
        for r, y in zip(rows, rep):
            pr *= r[y]
        out[tuple(sorted(rep))] += pr
    return out


def _mp_hockey(P, Q, Ee):
    """The larger of the two hockey-stick divergences at e^ε = ``Ee`` (mpmath)."""
    import mpmath as mp

    keys = set(P) | set(Q)
    return max(
        sum(max(mp.mpf(0), P[s] - Ee * Q[s]) for s in keys),
        sum(max(mp.mpf(0), Q[s] - Ee * P[s]) for s in keys),
    )


def _mp_pair(n: int, alpha, p, q):
    """Lemma 4.5's pair for n users from its definition, in mpmath: with α = β/(p − 1) (given: computed by
    the caller without cancellation), C ~ Bin(n − 1, 2αp/q), A | C ~ Bin(C, 1/2), Δ = (1, 0), (0, 1),
    (0, 0) with probabilities pα, α, 1 − (p + 1)α under P (pα and α swapped under Q)."""
    from collections import defaultdict

    import mpmath as mp

    own, other, r = p * alpha, alpha, 2 * alpha * p / q
    P, Q = defaultdict(mp.mpf), defaultdict(mp.mpf)
    for c in range(n):
        pc = mp.binomial(n - 1, c) * r**c * (1 - r) ** (n - 1 - c)
        for a in range(c + 1):
            w = pc * mp.binomial(c, a) / mp.mpf(2) ** c
            for (d0, d1), p0, p1 in (
                ((1, 0), own, other),
                ((0, 1), other, own),
                ((0, 0), 1 - own - other, 1 - own - other),
            ):
                P[(a + d0, c - a + d1)] += w * p0
                Q[(a + d0, c - a + d1)] += w * p1
    return P, Q


def _mp_gap(n: int, row, others, alpha, p, q, e_arr, digits: int):
    """(the protocol's largest δ(e) over the data sets "every other user holds d", d in ``others``, the
    differing user holding 0 or 1; the pair's δ(e)), in ``digits``-digit arithmetic, as float arrays
    shaped like ``e_arr``. ``row(x)`` is a report law on input x and (α, p, q) the pair's parameters, all
    in mpmath numbers."""
    import mpmath as mp

    with mp.workdps(digits):
        Ees = [mp.e ** mp.mpf(float(x)) for x in e_arr.ravel()]
        data = [
            (
                _mp_histogram([row(0)] + [row(d)] * (n - 1)),
                _mp_histogram([row(1)] + [row(d)] * (n - 1)),
            )
            for d in others
        ]
        truth = [max(_mp_hockey(P, Q, Ee) for P, Q in data) for Ee in Ees]
        P, Q = _mp_pair(n, alpha, p, q)
        pair = [_mp_hockey(P, Q, Ee) for Ee in Ees]
    truth, pair = (np.array([float(x) for x in v]).reshape(e_arr.shape) for v in (truth, pair))
    return (truth, pair) if e_arr.ndim else (float(truth), float(pair))


def exact_gap(n: int, k: int, eps0, e, digits: int = 40):
    """An independent check of a counterexample to Lemma 4.5, in ``digits``-digit arithmetic (mpmath),
    for n users of k-ary randomized response with the common budget ``eps0``: returns (the largest δ(e)
    of the shuffled protocol over three data sets of the other users — all on x⁰, all on x¹, all on a
    third symbol —, the pair's δ(e)), as floats, or as arrays when ``e`` is an array. The protocol's δ
    sums over every one of the kⁿ report vectors (at most ``MAX_EXACT``); the pair's over its outcomes
    (a, b) from its definition. Both directions of the hockey-stick divergence are taken for the protocol."""
    import mpmath as mp

    n, k = V.integer("n", n, low=2, high=8), V.integer("k", k, low=3, high=MAX_EXACT)
    if k**n > MAX_EXACT:
        raise ValueError(f"k^n must be at most {MAX_EXACT} report vectors, got k = {k}, n = {n}")
    eps0 = V.real("eps0", eps0, low=0.0, high=50.0, low_open=True, scalar=True)
    e_arr = V.real("e", e, low=0.0, high=50.0)
    digits = V.integer("digits", digits, low=16, high=1000)
    with mp.workdps(digits):
        E0 = mp.e ** mp.mpf(eps0)
        own, other = E0 / (E0 + k - 1), 1 / (E0 + k - 1)
        row = lambda x: [own if y == x else other for y in range(k)]
        return _mp_gap(n, row, (0, 1, 2), other, E0, E0, e_arr, digits)


def laplace_gap(n: int, eps0, e, digits: int = 40):
    """The same check for Wang et al.'s Laplace row (x + Lap(1/ε₀) on inputs in [0, 1]; p = q = e^ε₀,
    β = 1 − e^(−ε₀/2)): n users, the differing one holding 0 or 1, the others all 0 or all 1, each report
    observed through the bins of ``LAPLACE_EDGES`` (below 0, in [0, 1], above 1). Binning is a
    post-processing, so the first value is a *lower* bound on the continuous protocol's δ(e); where it
    exceeds the pair's δ(e) (the second), the pair is not a bound. Returns floats, or arrays for an array
    ``e``."""
    import mpmath as mp

    n = V.integer("n", n, low=2, high=8)
    if 3**n > MAX_EXACT:
        raise ValueError(f"3^n must be at most {MAX_EXACT} report vectors, got n = {n}")
    eps0 = V.real("eps0", eps0, low=0.0, high=50.0, low_open=True, scalar=True)
    e_arr = V.real("e", e, low=0.0, high=50.0)
    digits = V.integer("digits", digits, low=16, high=1000)
    with mp.workdps(digits):
        eps = mp.mpf(eps0)

        def cdf(t, x):  # P(x + Lap(1/eps) <= t)
            return mp.exp(eps * (t - x)) / 2 if t < x else 1 - mp.exp(-eps * (t - x)) / 2

        def row(x):
            c = [mp.mpf(0)] + [cdf(mp.mpf(t), x) for t in LAPLACE_EDGES] + [mp.mpf(1)]
            return [c[i + 1] - c[i] for i in range(len(c) - 1)]

        E0 = mp.e**eps
        return _mp_gap(n, row, (0, 1), -mp.expm1(-eps / 2) / mp.expm1(eps), E0, E0, e_arr, digits)


def _margin(bound, truth, err) -> float:
    """The smallest value of a peer's δ on a grid (``bound``, raised by the round-off allowance ``PAIR_REL``,
    ``PAIR_ABS`` of a floating-point evaluation) minus the enumerated protocol's δ less its round-off bound
    ``err``: negative only where the protocol is certainly above the peer's value."""
    return float(
        np.min(
            np.asarray(bound) * (1 + PAIR_REL) + PAIR_ABS - (np.asarray(truth) - np.asarray(err))
        )
    )


def lemma45_margin(n: int, k: int, eps0, points: int = 16) -> float:
    """How far Lemma 4.5's pair lies above the real protocol for n users of k-ary randomized response
    with the common budget ``eps0``: the smallest, over ``points`` values of e in [0, eps0), of the pair's
    δ(e) minus the exhaustively enumerated protocol's δ(e) less its round-off bound
    (:func:`gspa.privacy.exact.enumeration.shuffled_profile`), the pair's value raised by its round-off allowance
    (``PAIR_REL``, ``PAIR_ABS``). Negative: the pair is *not* a bound there."""
    n, k = V.integer("n", n, low=2, high=6), V.integer("k", k, low=2, high=8)
    eps0 = V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)
    points = V.integer("points", points, low=1, high=1000)
    grid = np.linspace(0.0, eps0, points, endpoint=False)
    truth, err = shuffled_profile("k-rr", np.full(n, eps0), grid, k=k)
    pair = VariationRatioPair(*parameters("k-rr", eps0, k=k), n).delta(grid)
    return _margin(pair, truth, err)


def lemma45_confirmed(n: int, k: int, eps0, points: int = 16) -> bool:
    """Whether :func:`exact_gap` (an independent computation in 40-digit arithmetic) finds the protocol's δ
    above the pair's at one of the points where :func:`lemma45_margin` looks."""
    points = V.integer("points", points, low=1, high=1000)
    eps0 = V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)
    truth, pair = exact_gap(n, k, eps0, np.linspace(0.0, eps0, points, endpoint=False))
    return bool(np.any(truth > pair * (1 + 1e-20)))


def laplace_rows(eps0, inputs=(0.0, 0.5, 1.0)) -> np.ndarray:
    """The law of x + Lap(1/ε₀) for each x in ``inputs`` (in [0, 1]) observed through the bins of ``LAPLACE_EDGES``: a
    randomizer matrix (row = input) for :func:`gspa.privacy.exact.enumeration.matrix_profile`."""
    eps0 = V.real("eps0", eps0, low=0.0, high=50.0, low_open=True, scalar=True)
    x = V.real("inputs", inputs, low=0.0, high=1.0)
    return np.array([laplace_binned_row(eps0, float(v), LAPLACE_EDGES) for v in x.ravel()])


def laplace_margin(n: int, eps0, points: int = 16) -> float:
    """How far Wang et al.'s pair for the Laplace mechanism on [0, 1] (:func:`parameters` ``"laplace"``)
    lies above n shuffled users of x + Lap(1/ε₀) observed through three bins (:func:`laplace_rows`, inputs
    0, 1/2, 1): the smallest, over ``points`` values of e in [0, ε₀), of the pair's δ(e) (raised by its
    round-off allowance) minus the enumerated binned protocol's δ(e) less its round-off bound
    (:func:`gspa.privacy.exact.enumeration.matrix_profile`). Binning is a post-processing, so the binned δ is at
    most the real protocol's: a negative margin means the pair is *not* a bound for shuffled Laplace."""
    n = V.integer("n", n, low=2, high=6)
    eps0 = V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)
    points = V.integer("points", points, low=1, high=1000)
    grid = np.linspace(0.0, eps0, points, endpoint=False)
    truth, err = matrix_profile(laplace_rows(eps0), n, grid)
    pair = VariationRatioPair(*parameters("laplace", eps0), n).delta(grid)
    return _margin(pair, truth, err)


def laplace_confirmed(n: int, eps0, points: int = 16) -> bool:
    """Whether :func:`laplace_gap` (40-digit arithmetic, its own bins and data sets) finds the binned
    protocol's δ above the pair's at one of the points where :func:`laplace_margin` looks."""
    points = V.integer("points", points, low=1, high=1000)
    eps0 = V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)
    truth, pair = laplace_gap(n, eps0, np.linspace(0.0, eps0, points, endpoint=False))
    return bool(np.any(truth > pair * (1 + 1e-20)))


def random_randomizer(inputs: int, outputs: int, eps0, seed: int) -> np.ndarray:
    """A random ``inputs`` x ``outputs`` randomizer near the extremes of ε₀-LDP (seeded): entry (x, y) is
    proportional to w_y e^(ε₀ b_xy), with w ~ Dirichlet(1, ..., 1) and b_xy fair coin flips except that the
    first row's first two are 0 and 1 and the second row's are the first's flipped, so most ratios between rows are 1 or e^(±ε₀). Its exact budget (the largest log-ratio, at most 2ε₀) is
    :func:`ldp_epsilon` of it."""
    inputs, outputs = (
        V.integer("inputs", inputs, low=2, high=6),
        V.integer("outputs", outputs, low=2, high=8),
    )
    eps0 = V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)
    rng = np.random.default_rng(V.integer("seed", seed, low=0))
    w = rng.dirichlet(np.ones(outputs))
    b = rng.integers(0, 2, size=(inputs, outputs))
    b[0, :2] = (0, 1)  # the first row is not constant (a constant row normalises to w) ...
    b[1] = 1 - b[0]  # ... and the second is its mirror: the two differ at every output
    R = w[None, :] * np.exp(eps0 * b)
    return R / R.sum(axis=1, keepdims=True)


def ldp_epsilon(R) -> float:
    """The local budget of a randomizer matrix: the largest log-ratio of two rows at one output."""
    R = V.probability("R", R)
    if R.ndim != 2 or np.any(R <= 0):
        raise ValueError(f"R must be a matrix with positive entries, got shape {R.shape}")
    L = np.log(R)
    return float((L.max(axis=0) - L.min(axis=0)).max())


def general_margin(n: int, outputs: int, eps0, seed: int, points: int = 12) -> float:
    """How far Wang et al.'s pair for "general mechanisms" (β = (e^ε − 1)/(e^ε + 1), p = q = e^ε, which is
    FMT23's clone pair) lies above the shuffle of n users of one random ε-LDP randomizer with three inputs
    (:func:`random_randomizer`; ε its exact budget): the smallest, over ``points`` values of e in [0, ε), of
    the pair's δ(e) minus the enumerated protocol's δ(e) less its round-off bound
    (:func:`gspa.privacy.exact.enumeration.matrix_profile`), the pair's value raised by its round-off allowance.
    Negative: the pair is not a bound for it."""
    points = V.integer("points", points, low=1, high=1000)
    R = random_randomizer(3, outputs, eps0, seed)
    eps = ldp_epsilon(R)
    if eps < 1e-9:  # every row the same: the protocol is 0-DP, and so is the pair
        return 0.0
    grid = np.linspace(0.0, eps, points, endpoint=False)
    truth, err = matrix_profile(R, n, grid)
    pair = VariationRatioPair(*parameters("general", eps), V.integer("n", n, low=2, high=6)).delta(
        grid
    )
    return _margin(pair, truth, err)


def kary_margin(n: int, k: int, eps0, points: int = 16) -> float:
    """How far their bound lies above n shuffled users of k-ary randomized response with the common budget
    ``eps0``: the smallest, over ``points`` values of e in [0, ε₀), of :func:`parv_delta` (raised by the
    round-off allowance of ``gspa.privacy.exact.peers._margin``) minus the exhaustively enumerated protocol's
    δ(e) less its round-off bound (:func:`gspa.privacy.exact.enumeration.shuffled_profile`). Negative: not a bound."""
    n, k = V.integer("n", n, low=2, high=6), V.integer("k", k, low=2, high=6)
    eps0 = V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)
    points = V.integer("points", points, low=1, high=1000)
    grid = np.linspace(0.0, eps0, points, endpoint=False)
    truth, err = shuffled_profile("k-rr", np.full(n, eps0), grid, k=k)
    return _margin(parv_delta(eps0, k, n, grid), truth, err)
