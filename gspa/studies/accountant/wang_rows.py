r"""Five more rows of Wang et al.'s parameter table (VLDB 2024; README of github.com/wangsw/PrivacyAmplification)
held against exact enumeration (chapter notebooks/accountant/peers.md): the k-subset mechanism on d options, local
hashing with length l, Hadamard response (K, s), basic RAPPOR and the Piecewise mechanism. Each row gives p = q = e^ε₀ and a β below
(e^ε₀ − 1)/(e^ε₀ + 1), so the differing user has a third component and the bound rests on their Lemma 4.5 where it
fails (:mod:`gspa.privacy.peers.variation`).

Each randomizer is a small matrix (row = input, column = output):

* **k-subset** (Wang et al. 2016; Ye and Barg 2018): the report is a k-subset S of the d options, with
  probability proportional to e^ε₀ if the input is in S and 1 otherwise; the table's β is
  (e^ε₀ − 1)(C(d−1, k−1) − C(d−2, k−2)) / (e^ε₀ C(d−1, k−1) + C(d−1, k)).
* **local hashing** (Wang et al. 2017): the user draws a hash h from a family uniformly and reports (h, y), y being
  l-ary randomized response on h(x); the table's β is (e^ε₀ − 1)/(e^ε₀ + l − 1). The family here: the l shifts
  h_j(x) = (x + j) mod l on the inputs 0, …, l − 1, so two inputs never collide and β is their exact total
  variation; with ``hashes`` = 2 the report space has 2l outputs.
* **RAPPOR** (Erlingsson et al. 2014; Duchi et al. 2013), basic form: the input's one-hot vector of d bits, each bit
  flipped independently with probability 1/(e^(ε₀/2) + 1); the table's β is (e^(ε₀/2) − 1)/(e^(ε₀/2) + 1).
* **Piecewise** (Wang et al., ICDE 2019) on [−1, 1], its continuous reports binned at the ends of the inputs'
  high-density intervals (:func:`piecewise`): binning is a post-processing, so the enumerated δ is a lower bound on
  the real protocol's and a violation still refutes the pair, as for the Laplace row; the table's β is 1 − e^(−ε₀/2).
* **Hadamard response** (Acharya, Sun and Zhang 2019), one block: K a power of 2, input x (1 ≤ x < K) stands for
  C_x, the columns where row x of the Sylvester Hadamard matrix is +1 (s = K/2 of them); the report is in C_x with
  probability s e^ε₀/(s e^ε₀ + K − s), uniform within and outside. The table's β is
  s(e^ε₀ − 1)/2/(s e^ε₀ + K − s): two sets C_x share s/2 columns.

For each, :func:`row_margin` is the smallest, over a grid of ε in [0, ε₀), of the pair's δ(ε) (raised by its
round-off allowance) minus the exhaustively enumerated protocol's δ(ε) less its round-off bound
(:func:`gspa.privacy.exact.enumeration.matrix_profile`: every pair of inputs of the differing user, every multiset
of the others'); negative means the pair is not a bound there. :func:`row_confirmed` recomputes a violation
independently in 40-digit arithmetic (mpmath): the protocol's δ summed over every report vector, the pair's from
its definition.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from gspa.privacy.exact.enumeration import matrix_profile
from gspa.privacy.exact.peers import _mp_gap
from gspa.privacy.peers.variation import PAIR_ABS, PAIR_REL, VariationRatioPair
from gspa.util import validate as V

ROWS = ("k-subset", "local-hash", "hadamard", "rappor", "piecewise")
#: the shapes enumerated (at most 6 inputs and 8 outputs, :func:`matrix_profile`), by row: (d, k), (l, hashes), K
SHAPES = {
    "k-subset": ((3, 2), (4, 2), (4, 3), (5, 4), (6, 5)),
    "local-hash": ((3, 1), (3, 2), (4, 2)),
    "hadamard": (4, 8),
    "rappor": (2, 3),
    "piecewise": (2, 3),
}


def _check_eps0(eps0) -> float:
    return V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)


def ksubset(eps0, d: int, k: int) -> tuple[np.ndarray, float]:
    """The k-subset mechanism on d options as a matrix (rows: inputs 0..d−1; columns: the k-subsets in
    lexicographic order) and the β of their table."""
    eps0 = _check_eps0(eps0)
    d = V.integer("d", d, low=2, high=12)
    k = V.integer("k", k, low=1, high=d - 1)
    subsets = list(itertools.combinations(range(d), k))
    e = np.exp(eps0)
    R = np.array([[e if x in S else 1.0 for S in subsets] for x in range(d)])
    R /= R.sum(axis=1, keepdims=True)
    lower = comb(d - 2, k - 2) if k >= 2 else 0
    beta = np.expm1(eps0) * (comb(d - 1, k - 1) - lower) / (e * comb(d - 1, k - 1) + comb(d - 1, k))
    return R, float(beta)


def local_hash(eps0, l: int, hashes: int) -> tuple[np.ndarray, float]:
    """Local hashing with length l and a family of ``hashes`` shifts h_j(x) = (x + j) mod l (j < hashes), drawn
    uniformly, on the inputs 0..l−1, as a matrix (columns: (h, y) for each hash h and symbol y), and the β of
    their table."""
    eps0 = _check_eps0(eps0)
    l = V.integer("l", l, low=2, high=8)
    hashes = V.integer("hashes", hashes, low=1, high=l)
    e = np.exp(eps0)
    R = np.array(
        [
            [
                (e if (x + j) % l == y else 1.0) / (e + l - 1) / hashes
                for j in range(hashes)
                for y in range(l)
            ]
            for x in range(l)
        ]
    )
    return R, float(np.expm1(eps0) / (e + l - 1))


def hadamard(eps0, K: int, inputs: int = 6) -> tuple[np.ndarray, float]:
    """Hadamard response with one block: K a power of 2, input x (1 ≤ x ≤ min(K − 1, ``inputs``)) reported in
    C_x (the +1 columns of row x of the Sylvester Hadamard matrix, s = K/2 of them) with probability
    s e^ε₀/(s e^ε₀ + K − s); the matrix and the β of their table."""
    eps0 = _check_eps0(eps0)
    K = V.integer("K", K, low=4, high=64)
    if K & (K - 1):
        raise ValueError(f"K must be a power of 2, got {K}")
    inputs = min(V.integer("inputs", inputs, low=2), K - 1)
    e, s = np.exp(eps0), K // 2
    R = np.where(_sylvester(K)[1 : inputs + 1] > 0, e, 1.0)
    R = R / R.sum(axis=1, keepdims=True)
    return R, float(s * np.expm1(eps0) / 2 / (s * e + K - s))


def rappor(eps0, d: int) -> tuple[np.ndarray, float]:
    """Basic RAPPOR (one-hot encoding, every bit flipped independently with probability 1/(e^(ε₀/2) + 1)) on d
    options as a matrix (columns: the 2^d bit vectors, bit j of column b being (b >> j) & 1), and the β of their
    table, (e^(ε₀/2) − 1)/(e^(ε₀/2) + 1)."""
    eps0 = _check_eps0(eps0)
    d = V.integer("d", d, low=2, high=6)
    e2 = np.exp(eps0 / 2)
    R = np.array(
        [
            [
                np.prod([e2 if (b >> j) & 1 == (j == x) else 1.0 for j in range(d)])
                for b in range(2**d)
            ]
            for x in range(d)
        ]
    )
    R /= R.sum(axis=1, keepdims=True)
    return R, float(np.expm1(eps0 / 2) / (e2 + 1))


#: the inputs of the Piecewise mechanism enumerated, by their number
PIECEWISE_INPUTS = {2: (-1, 1), 3: (-1, 0, 1)}


def _piecewise_bins(eps, xs, e, num):
    """The Piecewise mechanism's report laws on the inputs ``xs`` observed through the bins cut at every end of
    their high-density intervals (rows, in the number type ``num`` with exponential base ``e``)."""
    e2 = e ** (eps / 2)
    C = (e2 + 1) / (e2 - 1)
    p = (e**eps - e2) / (2 * e2 + 2)
    spans = [((C + 1) / 2 * num(x) - (C - 1) / 2, (C + 1) / 2 * num(x) + (C - 1) / 2) for x in xs]
    edges = sorted({-C, C, *(a for a, _ in spans), *(b for _, b in spans)})
    rows = []
    for lo, hi in spans:
        row = []
        for a, b in zip(edges[:-1], edges[1:]):
            inside = max(num(0), min(b, hi) - max(a, lo))
            row.append(p * inside + p / e**eps * (b - a - inside))
        rows.append(row)
    return rows


def piecewise(eps0, inputs: int) -> tuple[np.ndarray, float]:
    """The Piecewise mechanism on [−1, 1] (Wang et al., ICDE 2019: reports in [−C, C], C = (e^(ε₀/2) + 1)/(e^(ε₀/2) − 1),
    density p = (e^ε₀ − e^(ε₀/2))/(2e^(ε₀/2) + 2) on an interval of length C − 1 around the input, p/e^ε₀ elsewhere)
    on the inputs −1, 1 (``inputs`` = 2) or −1, 0, 1 (3), each report observed through the bins cut at the ends of
    those intervals — a post-processing, so the enumerated δ is a lower bound on the continuous protocol's — and
    the β of their table, 1 − e^(−ε₀/2) (the total variation between the inputs −1 and 1)."""
    eps0 = _check_eps0(eps0)
    inputs = V.integer("inputs", inputs, low=2, high=3)
    R = np.array(_piecewise_bins(eps0, PIECEWISE_INPUTS[inputs], np.e, float))
    return R / R.sum(axis=1, keepdims=True), float(-np.expm1(-eps0 / 2))


def _sylvester(K: int) -> np.ndarray:
    """The Sylvester Hadamard matrix of order K (a power of 2)."""
    H = np.array([[1]])
    while H.shape[0] < K:
        H = np.block([[H, H], [H, -H]])
    return H


def matrix(row: str, eps0, shape) -> tuple[np.ndarray, float]:
    """The randomizer of ``row`` (one of :data:`ROWS`) at ε₀ and its shape ((d, k), (l, hashes) or K) and the β
    of their table."""
    row = V.choice("row", row, ROWS)
    if row == "k-subset":
        return ksubset(eps0, *shape)
    if row == "local-hash":
        return local_hash(eps0, *shape)
    if row == "rappor":
        return rappor(eps0, int(shape))
    if row == "piecewise":
        return piecewise(eps0, int(shape))
    return hadamard(eps0, int(shape))


def total_variation(R) -> float:
    """The largest total variation between two rows of a randomizer matrix."""
    R = np.asarray(R, dtype=float)
    return float(max(0.5 * np.abs(a - b).sum() for a, b in itertools.combinations(R, 2)))


def _grid(eps0: float, points: int) -> np.ndarray:
    return np.linspace(0.0, eps0, points, endpoint=False)


def row_margin(row: str, n: int, eps0, shape, points: int = 16) -> float:
    """How far their pair (p = q = e^ε₀, the row's β) lies above n shuffled users of the row's randomizer: the
    smallest, over ``points`` values of ε in [0, ε₀), of the pair's δ(ε) raised by its round-off allowance
    (``PAIR_REL``, ``PAIR_ABS``) minus the enumerated protocol's δ(ε) less its round-off bound. Negative: the
    pair is not a bound there."""
    R, beta = matrix(row, eps0, shape)
    n = V.integer("n", n, low=2, high=4)
    points = V.integer("points", points, low=1, high=1000)
    grid = _grid(float(eps0), points)
    truth, err = matrix_profile(R, n, grid)
    p = float(np.exp(eps0))
    pair = VariationRatioPair(p, beta, p, n).delta(grid)
    return float(np.min(pair * (1 + PAIR_REL) + PAIR_ABS - (truth - err)))


def exact_gap(row: str, n: int, eps0, shape, e, digits: int = 40):
    """An independent computation in ``digits``-digit arithmetic (mpmath): (the protocol's largest δ(e) over the
    data sets "differing user on input 0 or 1, every other user on one input z" (each z), their pair's δ(e)), as
    arrays shaped like ``e``. The protocol sums over every report vector; the pair is built from its definition
    (C ~ Bin(n − 1, 2αp/q), A | C ~ Bin(C, 1/2), Δ = (1, 0), (0, 1), (0, 0) with probabilities pα, α,
    1 − (p + 1)α; α = β/(p − 1))."""
    import mpmath as mp

    R, _ = matrix(row, eps0, shape)  # checks the arguments; the mpmath rows are rebuilt below
    n = V.integer("n", n, low=2, high=4)
    e_arr = np.atleast_1d(V.real("e", e, low=0.0, high=50.0))
    digits = V.integer("digits", digits, low=16, high=1000)
    with mp.workdps(digits):
        E0 = mp.e ** mp.mpf(float(eps0))
        if row == "k-subset":
            d, k = shape
            cols = list(itertools.combinations(range(d), k))
            w = [[E0 if x in S else mp.mpf(1) for S in cols] for x in range(d)]
            num, den = (
                (E0 - 1)
                * (mp.binomial(d - 1, k - 1) - (mp.binomial(d - 2, k - 2) if k >= 2 else 0)),
                (E0 * mp.binomial(d - 1, k - 1) + mp.binomial(d - 1, k)),
            )
        elif row == "local-hash":
            l, hashes = shape
            w = [
                [E0 if (x + j) % l == y else mp.mpf(1) for j in range(hashes) for y in range(l)]
                for x in range(l)
            ]
            num, den = E0 - 1, E0 + l - 1
        elif row == "piecewise":
            w = _piecewise_bins(mp.mpf(float(eps0)), PIECEWISE_INPUTS[int(shape)], mp.e, mp.mpf)
            E2 = mp.e ** (mp.mpf(float(eps0)) / 2)
            num, den = 1 - 1 / E2, mp.mpf(1)
        elif row == "rappor":
            d, E2 = int(shape), mp.e ** (mp.mpf(float(eps0)) / 2)
            w = [
                [
                    mp.fprod(E2 if (b >> j) & 1 == (j == x) else 1 for j in range(d))
                    for b in range(2**d)
                ]
                for x in range(d)
            ]
            num, den = E2 - 1, E2 + 1
        else:
            K, s = int(shape), int(shape) // 2
            w = [[E0 if b > 0 else mp.mpf(1) for b in h] for h in _sylvester(K)[1 : len(R) + 1]]
            num, den = s * (E0 - 1) / 2, s * E0 + K - s
        rows = [[v / mp.fsum(r) for v in r] for r in w]
        # the protocol summed over every report vector and the pair from its definition, in mpmath
        # (gspa.privacy.exact.peers, as for k-ary randomized response); α = β/(p − 1), q = p
        return _mp_gap(
            n, rows.__getitem__, range(len(rows)), num / den / (E0 - 1), E0, E0, e_arr, digits
        )


def row_confirmed(row: str, n: int, eps0, shape, points: int = 16) -> bool:
    """Whether :func:`exact_gap` (40 digits, its own data sets and pair) finds the protocol's δ above the pair's
    at one of the points where :func:`row_margin` looks."""
    points = V.integer("points", points, low=1, high=1000)
    truth, pair = exact_gap(row, n, eps0, shape, _grid(_check_eps0(eps0), points))
    return bool(np.any(truth > pair * (1 + 1e-20)))


def margin_for(row: str):
    """The margin of ``row`` as a search calls it: keyword arguments n, eps0 and shape (a choice among
    :data:`SHAPES` written as text, e.g. "4,2")."""
    row = V.choice("row", row, ROWS)

    def margin(n, eps0, shape):
        return row_margin(row, n, eps0, parse_shape(row, shape))

    return margin


def confirm_for(row: str):
    """The independent re-verification of ``row``'s worst point (a dict with n, eps0, shape)."""
    row = V.choice("row", row, ROWS)
    return lambda w: row_confirmed(row, w["n"], w["eps0"], parse_shape(row, w["shape"]))


def shape_text(shape) -> str:
    """A shape as a search's choice shows it: "4,2" for (d, k) or (l, hashes), "8" for K."""
    return ",".join(str(v) for v in np.atleast_1d(shape))


def parse_shape(row: str, text: str):
    """The shape written by :func:`shape_text`, back as (d, k), (l, hashes), K or d."""
    vals = tuple(int(v) for v in str(text).split(","))
    return vals[0] if len(vals) == 1 else vals


#: the claims of the peers chapter checked here, by id: the row each is about
CLAIM_ROWS = {
    "wang-ksubset": "k-subset",
    "wang-local-hash": "local-hash",
    "wang-hadamard": "hadamard",
    "wang-rappor": "rappor",
    "wang-piecewise": "piecewise",
}


def table_beta_gap(eps0) -> float:
    """The largest gap, over the rows and shapes of :data:`SHAPES`, between the table's β and the exact largest
    total variation between two inputs of the mechanism's matrix at ε₀ (0 when every row's β is exact)."""
    eps0 = _check_eps0(eps0)
    return max(
        abs(total_variation(R) - b)
        for row, shapes in SHAPES.items()
        for sh in shapes
        for R, b in [matrix(row, eps0, sh)]
    )


def search_record(id: str, search) -> dict:
    """What the peers chapter glues and records for the search of claim ``id`` (a
    :class:`gspa.claims.domain.Search`): ``values`` (name → (value, format) for the chapter's ``publish``) and
    ``claim`` (the keyword arguments ``ours`` and ``ours_text`` of its record)."""
    text = (
        f"smallest margin found (the pair's δ minus the protocol's): {search.margin:.4g} "
        f"({search.violations} of {search.evaluations} points below 0)"
    )
    return {
        "values": {
            f"{id}_worst": (-search.margin, "{:.3g}"),
            f"{id}_bad": (search.violations, "{:d}"),
            f"{id}_points": (search.evaluations, "{:d}"),
        },
        "claim": {"ours": search.margin, "ours_text": text},
    }
