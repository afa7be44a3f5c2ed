"""Shared numerics of the certified bounds: the rounding model (unit round-off, Higham's gamma_k), binomial
tails with their counted allowance, the binomial pair's hockey-stick divergence, and inversion eps(delta).
Why each allowance suffices: the accountant chapter (book/chapters/accountant/using) and ARCHITECTURE.md.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy import special

from gspa.util import validate as V

U = np.finfo(float).eps / 2  # unit round-off
SF_REL = (
    1e-12  # relative allowance on each binomial tail: Boost's incomplete beta through scipy, whose
)
# largest relative error against 30-digit mpmath up to 10^9 counts is 5.3e-14 (measured,
# tests/privacy/test_accountant.py): the one ingredient measured rather than proven
TINY = 2.0**-1020  # covers every term that underflowed (their weights sum to at most 1)


def gamma(k: int) -> float:
    """Higham's gamma_k = k u / (1 - k u): the relative error bound of k floating-point operations,
    for an integer k in [0, 2^50] (k u < 1)."""
    k = V.integer("k", k, low=0, high=2**50)
    return k * U / (1.0 - k * U)


_SPLIT_MIN = 256  # arrays at least this long are split in two halves (two cores)
_POOL = {}  # process id -> its one-thread pool (a forked child makes its own)


def halves(f, *arrays):
    """The function f applied elementwise to 1-d arrays, the second half on a helper thread (numpy's and scipy's
    ufuncs release the GIL): the result is the same array as f(*arrays), computed on two cores."""
    n = arrays[0].size
    if n < _SPLIT_MIN:
        return f(*arrays)
    h = n // 2
    pool = _POOL.get(os.getpid())
    if pool is None:
        pool = _POOL[os.getpid()] = ThreadPoolExecutor(1)
    second = pool.submit(f, *(x[h:] for x in arrays))
    first = f(*(x[:h] for x in arrays))
    return np.concatenate([first, second.result()])


def binomial_sf(k, m):
    """P(X >= k) for X ~ Binomial(m, 1/2), vectorised: 1 for k <= 0, 0 for k > m, otherwise
    I_{1/2}(k, m - k + 1) evaluated as Boost's ``betaincc(m - k + 1, k, 1/2)``."""
    k, m = np.broadcast_arrays(np.asarray(k, np.int64), np.asarray(m, np.int64))
    inside = (k >= 1) & (k <= m)
    kk, mm = np.where(inside, k, 1), np.where(inside, m, 1)
    a, b = (mm - kk + 1).astype(float).ravel(), kk.astype(float).ravel()
    out = halves(lambda x, y: special.betaincc(x, y, 0.5), a, b).reshape(k.shape)
    return np.where(k <= 0, 1.0, np.where(k > m, 0.0, out))


def binomial_sf_many(k, m):
    """:func:`binomial_sf` for 1-d arrays ``k`` and ``m`` in which many (k, m) pairs repeat: each distinct
    pair is computed once (the same values, bit for bit). Pairs are looked up in a table over each count's
    range of k when that table is small (the usual case: thresholds near a count's middle), else sorted."""
    k, m = np.asarray(k, np.int64), np.asarray(m, np.int64)
    if k.size < _SPLIT_MIN:
        return binomial_sf(k, m)
    m0 = int(m.min())
    span = int(m.max()) - m0 + 1
    if span <= k.size:
        lo = np.full(span, np.iinfo(np.int64).max)
        hi = np.full(span, np.iinfo(np.int64).min)
        np.minimum.at(lo, m - m0, k)
        np.maximum.at(hi, m - m0, k)
        if int(np.where(hi >= lo, hi - lo + 1, 0).sum()) <= k.size:
            table = TailTable(m0, lo, hi)
            table.fill()
            return table.values[table._locate(k, m)[0]]
    k0, k_span = int(k.min()), int(k.max()) - int(k.min()) + 1
    if span * k_span < 2**62:  # one integer key per pair: a 1-d sort (much faster than pairs' rows)
        keys, inverse = np.unique((m - m0) * k_span + (k - k0), return_inverse=True)
        return binomial_sf(keys % k_span + k0, keys // k_span + m0)[inverse.ravel()]
    pairs, inverse = np.unique(np.stack([m, k]), axis=1, return_inverse=True)
    return binomial_sf(pairs[1], pairs[0])[inverse.ravel()]


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


#: the relative allowance on each of a threshold's two terms: the binomial tail's measured error and the
#: arithmetic of the coefficients (at most 12 roundings)
TAIL_ALLOW = SF_REL + gamma(12)


def _largest(bound, x, m, c1, c2, pairs):
    """The hockey-stick bound at the threshold a0 = floor(x) + 1 of each cell: ``bound(S(a0 - 1),
    S(a0), c1, c2)`` with ``pairs(a, m)`` giving (S(a - 1), S(a)). x carries a relative rounding
    error of a few u: a0 is certain unless x is that close to an integer; there the neighbouring
    thresholds a0 - 1 and a0 + 1 are evaluated too (each gives a lower bound on the supremum, so the
    largest upper bound covers the true threshold)."""
    a0 = np.floor(x).astype(np.int64) + 1
    frac = x - np.floor(x)
    unsure = np.flatnonzero(np.minimum(frac, 1.0 - frac) <= 64 * U * np.maximum(x, 1.0))
    S0, S1 = pairs(a0, m)
    best = bound(S0, S1, c1, c2)
    if unsure.size:
        u, mu, d1, d2 = a0[unsure], m[unsure], c1[unsure], c2[unsure]
        below, above = pairs(u - 1, mu)[0], pairs(u + 1, mu)[1]
        best[unsure] = np.maximum.reduce(
            [best[unsure], bound(below, S0[unsure], d1, d2), bound(S1[unsure], above, d1, d2)]
        )
    return best


def hockey_upper(eps: float, m, log_odds) -> np.ndarray:
    """Upper bounds on H_m(eps) = sum_a max(0, P0(a|m) - e^eps P1(a|m)), where a counts the 0-reports
    among m clones (each 0 or 1 with probability 1/2) and the differing user's report (its bit with
    probability q = expit(log_odds)); P1 swaps q and 1 - q. ``log_odds = inf``: the report reveals.
    ``log_odds`` is one value or an array broadcast with ``m`` (one per count).

    The likelihood ratio increases in a, so H_m = c1 S(a0 - 1) - c2 S(a0) for the threshold a0, with
    S the binomial tail, c1 = q - e^eps (1 - q), c2 = e^eps q - (1 - q). The coefficients are formed in
    the log domain (no overflow for budgets up to 1e6 and more), where rounding is absolute: each term
    carries, besides ``TAIL_ALLOW``, the relative error that exp makes of it (:func:`_log_term`). The
    threshold is computed in floating point, so a0 - 1, a0 and a0 + 1 are all evaluated (each is a lower
    bound of the supremum) and the largest upper bound is kept. H_m = 0 exactly for eps >= log_odds (the
    pair is then log_odds-DP).
    ``eps`` may be an array too, broadcast with ``m`` and ``log_odds``."""
    m, L, eps = np.broadcast_arrays(
        np.asarray(m, dtype=np.int64), np.asarray(log_odds, dtype=float), np.asarray(eps, float)
    )
    out = np.zeros(m.shape)
    live = eps < L
    if not live.any():
        return out
    m, L, eps = m[live], L[live], eps[live]
    fin = np.isfinite(L)
    Lf = np.where(fin, L, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # the masked branches only
        lq = np.where(fin, -np.log1p(np.exp(-Lf)), 0.0)  # log q
        log_c1 = np.where(fin, np.log(-np.expm1(eps - Lf)), 0.0)
        log_v2 = np.where(fin, np.log(-np.expm1(-Lf - eps)), 0.0)
        log_c2 = eps + log_v2
    x = (m + 1.0) * special.expit(log_c2 - log_c1)  # threshold: ratio a/(m-a+1) > c2/c1
    # each log coefficient beside the absolute rounding error of forming it, in units of u (_log_term)
    c1 = np.stack([log_c1, 2 * np.abs(log_c1)], axis=-1)
    c2 = np.stack([log_c2, 2 * np.abs(log_v2) + np.abs(log_c2)], axis=-1)

    def bound(lo, hi, c1, c2):  # the bound at threshold t from S(t - 1) = lo and S(t) = hi
        (pos, a1), (neg, a2) = _log_term(c1, lo), _log_term(c2, hi)
        with np.errstate(invalid="ignore", over="ignore"):  # neg = inf: the bound is 0
            up = pos * (1 + TAIL_ALLOW + a1) - neg * (1 - TAIL_ALLOW - a2)
        return np.maximum(up, 0.0)

    best = _largest(bound, x, m, c1, c2, _sf_pairs)
    # exp(log q): log q within 4u absolutely (|log q| <= log 2), exp's ulp, two products: gamma(8)
    out[live] = np.exp(lq) * best * (1 + gamma(8))
    return out


def _log_term(coefficient, tail):
    """(c S, its relative allowance for the log domain) for a log coefficient given as ``[log c, e]``, e the
    absolute rounding error of forming log c in units of u, and a binomial tail S (:func:`hockey_upper`). A
    logarithm's rounding is absolute: within one ulp, at most 2u of its size; the sum log c + log S adds u of
    its size; exp turns an absolute error E of its argument into a relative one, at most expm1(E), and adds
    its own ulp (2u). Counted twice over: 2 expm1(2E) + 4u. A tail 0 gives 0 exactly."""
    log_c, err = coefficient[..., 0], coefficient[..., 1]
    log_tail = _log(tail)
    with np.errstate(invalid="ignore"):  # log S = -inf: allowance 0
        z = log_c + log_tail
        E = U * (err + 2 * np.abs(log_tail) + np.abs(z))
        allow = np.where(tail > 0, 2 * np.expm1(2 * E) + 4 * U, 0.0)
    return np.exp(z), allow


LINEAR_MAX_EPS = 700.0  # hockey_cells works with e^eps directly up to this eps (a normal double)


class TailTable:
    """:func:`binomial_sf` memoised over bands: for each count c0 + j (j < len(lo)), the k with
    lo[j] <= k <= hi[j] (an empty band where hi < lo). Each entry is computed the first time it is
    looked up; pairs outside the bands are computed on the spot (the same values either way)."""

    def __init__(self, c0: int, lo: np.ndarray, hi: np.ndarray):
        self.c0, self.lo = int(c0), np.asarray(lo, np.int64)
        width = np.maximum(np.asarray(hi, np.int64) - self.lo + 1, 0)
        self.width, self.start = width, np.concatenate([[0], np.cumsum(width)[:-1]])
        self.values = np.full(int(width.sum()), np.nan)

    def _locate(self, k: np.ndarray, m: np.ndarray, span: int = 1):
        """Flat positions of the pairs (k, m) in the table, and which pairs lie in it together with
        the span - 1 entries after them."""
        row = m - self.c0
        inside = (row >= 0) & (row < self.lo.size)
        row = np.where(inside, row, 0)
        i = k - self.lo[row]
        inside &= (i >= 0) & (i + span <= self.width[row])
        return np.where(inside, self.start[row] + i, 0), inside

    def _entries(self):
        """The pairs (k, m) of every entry, in the table's order."""
        rows = np.repeat(np.arange(self.lo.size), self.width)
        return np.arange(self.values.size) - self.start[rows] + self.lo[rows], rows + self.c0

    def fill(self) -> None:
        """Compute every entry now (one call)."""
        self.values = binomial_sf(*self._entries())

    def seed(self, other: "TailTable") -> None:
        """Take the entries ``other`` has computed for pairs this table holds (the same values)."""
        at, inside = other._locate(*self._entries())
        self.values[inside] = other.values[at[inside]]

    def pairs(self, a: np.ndarray, m: np.ndarray):
        """(S(a - 1), S(a)) for each (a, m), S the tail of Binomial(m, 1/2)."""
        at, inside = self._locate(a - 1, m, 2)
        lo, hi = self.values[at], self.values[at + 1]
        new = np.flatnonzero((np.isnan(lo) | np.isnan(hi)) & inside)
        if new.size:  # first lookups: each entry computed once
            where = np.concatenate([at[new], at[new] + 1])
            fill, first = np.unique(where, return_index=True)
            k, mm = np.concatenate([a[new] - 1, a[new]]), np.concatenate([m[new], m[new]])
            self.values[fill] = binomial_sf(k[first], mm[first])
            lo[new], hi[new] = self.values[at[new]], self.values[at[new] + 1]
        if not inside.all():
            miss = np.flatnonzero(~inside)
            lo[miss], hi[miss] = _sf_pairs(a[miss], m[miss])
        return lo, hi


def _sf_pairs(a, m):
    """(S(a - 1), S(a)) for each (a, m) with :func:`binomial_sf_many`."""
    both = binomial_sf_many(np.concatenate([a - 1, a]), np.concatenate([m, m]))
    return both[: a.size], both[a.size :]


def _coefficients(eps: float, log_odds):
    """c1/q = -expm1(eps - L) and c2/q = e^eps (-expm1(-L - eps)) of :func:`hockey_upper`."""
    return -np.expm1(eps - log_odds), float(np.exp(eps)) * -np.expm1(-log_odds - eps)


def _threshold(m, e1, e2):
    """The point x with a0 = floor(x) + 1: the likelihood ratio a/(m - a + 1) exceeds c2/c1 from a0 on."""
    return (m + 1.0) * (e2 / (e1 + e2))


def cell_thresholds(eps: float, m, log_odds) -> np.ndarray:
    """The real threshold x of :func:`hockey_upper` (a0 = floor(x) + 1) for eps <= ``LINEAR_MAX_EPS``
    and log-odds above eps: x = (m + 1) c2 / (c1 + c2)."""
    return _threshold(m, *_coefficients(eps, log_odds))


def hockey_cells(
    eps: float, m: np.ndarray, log_odds: np.ndarray, q: np.ndarray, tails=None
) -> np.ndarray:
    """:func:`hockey_upper` for many cells at once, with each cell's q = expit(log_odds) given (as
    computed once by the caller, within a relative 4u) and eps at most ``LINEAR_MAX_EPS``: the same
    threshold and the same two tails, with the coefficients c1 = q (-expm1(eps - L)) and
    c2 = q e^eps (-expm1(-L - eps)) formed directly (no logarithms: fewer operations than
    :func:`hockey_upper` counts, so its allowance covers them). Tails shared by cells are computed
    once, or looked up in ``tails`` (a :class:`TailTable`) when given. Above ``LINEAR_MAX_EPS`` it is
    :func:`hockey_upper`."""
    if eps > LINEAR_MAX_EPS:
        return hockey_upper(eps, m, log_odds)
    live = eps < log_odds  # elsewhere H = 0 exactly (the pair is then log_odds-DP)
    if not live.all():
        out, live = np.zeros(m.shape), np.flatnonzero(live)
        if live.size:
            out[live] = hockey_cells(eps, m[live], log_odds[live], q[live], tails)
        return out
    e1, e2 = _coefficients(eps, log_odds)  # c1 / q and c2 / q
    x = _threshold(m, e1, e2)

    def bound(lo, hi, c1, c2):  # the bound at threshold t from S(t - 1) = lo and S(t) = hi
        pos, neg = c1 * lo, c2 * hi
        up = pos * (1 + TAIL_ALLOW) - neg * (1 - TAIL_ALLOW)
        return np.where(neg >= pos, 0.0, np.maximum(up, 0.0))

    return (
        q
        * _largest(bound, x, m, e1, e2, _sf_pairs if tails is None else tails.pairs)
        * (1 + gamma(6))
    )


def map_delta(delta1, eps):
    """delta1 (a function of one eps >= 0) over a scalar or an array of eps, validated."""
    delta1 = V.function("delta1", delta1)
    eps_arr = V.nonnegative("eps", eps)
    out = np.array([delta1(float(e)) for e in eps_arr.ravel()])
    return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])


def _illinois(g, lo: float, hi: float, glo: float, ghi: float, rtol: float = 1e-9) -> float:
    """Root of g on [lo, hi] with g(lo) > 0 >= g(hi), by the Illinois variant of regula falsi (reuses
    the known end values; superlinear for smooth g). Returns a point within rtol of the root."""
    side = 0
    for _ in range(200):
        if hi - lo <= rtol * hi:
            break
        x = (
            hi - ghi * (hi - lo) / (ghi - glo)
            if np.isfinite(glo) and glo != ghi
            else 0.5 * (lo + hi)
        )
        if not lo < x < hi:
            x = 0.5 * (lo + hi)
        # at least a quarter of the tolerance from either end (the bracket is wider than the tolerance
        # here): when the estimate is that close to an end, one evaluation either closes the bracket or
        # moves that end by a quarter of the tolerance
        near = 0.25 * rtol * hi
        x = min(max(x, lo + near), hi - near)
        gx = g(x)
        if gx > 0:
            lo, glo = x, gx
            if side == -1:
                ghi *= 0.5
            side = -1
        else:
            hi, ghi = x, gx
            if side == 1:
                glo *= 0.5
            side = 1
    return hi


def invert(
    delta_fn,
    delta: float,
    top: float,
    *,
    upper: bool = True,
    guess: float | None = None,
    spreads: tuple = (1.02, 1.5),
) -> float:
    """Invert a non-increasing delta(eps). ``upper``: the smallest eps with delta_fn(eps) <= delta,
    rounded up (inf if none; ``top`` is where delta_fn reaches its floor, inf if unknown). Otherwise:
    the largest eps with delta_fn(eps) > delta, rounded down (0 if none) — for lower bounds.
    ``guess``, if given, is tried first as brackets [guess/w, w guess] for w in ``spreads``; when one straddles
    the root, monotonicity makes the checks at 0 and at ``top`` unnecessary (it only saves
    evaluations: the answer does not depend on it beyond the root-finder's tolerance)."""
    cache = {}
    fn = delta_fn

    def delta_fn(e):  # memoised: the search revisits points near the root
        if e not in cache:
            cache[e] = fn(e)
        return cache[e]

    g = lambda e: float(np.log(max(delta_fn(e), 1e-320)) - np.log(delta))  # > 0 below the root
    lo = hi = None
    if guess is not None and np.isfinite(guess) and guess > 0:
        for w in spreads:  # a tight bracket first (the guess is usually close)
            a, b = guess / w, w * guess if not np.isfinite(top) else min(w * guess, float(top))
            if a < b and g(a) > 0 and g(b) <= 0:
                lo, hi, glo, ghi = a, b, g(a), g(b)
                break
    if lo is None:
        if delta_fn(0.0) <= delta:
            return 0.0
        lo, hi = 0.0, (float(top) if np.isfinite(top) else 1.0)
        if not np.isfinite(top):
            while delta_fn(hi) > delta:
                hi *= 2.0
                if hi > 1e7:
                    return float("inf") if upper else hi
        elif delta_fn(hi) > delta:  # the floor (delta_n, or the counted errors) is above delta
            return float("inf") if upper else hi
        glo, ghi = g(lo), g(hi)
    eps = _illinois(g, lo, hi, glo, ghi)
    # The answer is a point of a fixed grid (GRID_BITS-bit mantissas, a relative step of at most 2^-27, about
    # twice the root-finder's tolerance), compared directly (the search compares logarithms): for an upper
    # bound the smallest grid point with delta_fn <= delta, for a lower bound the largest with delta_fn > delta,
    # found from the search's point by doubling steps and bisection on the grid. Where delta_fn is
    # non-increasing that point does not depend on the search, so eps(delta) is non-increasing in delta.
    ok = lambda i: delta_fn(min(_grid_value(i), top)) <= delta
    first = _first_true(ok, _grid_index(eps, up=upper), _grid_index(top, up=True))
    if upper:
        return float("inf") if first is None else float(min(_grid_value(first), top))
    return float(max(_grid_value(first - 1) if first is not None else top, lo))


GRID_BITS = 28  # the mantissa bits of the points invert returns
_BINADE = 1 << (GRID_BITS - 1)  # grid points per binade
_OFFSET = 1100  # binary exponents from -1074 up: indices from 1 (0 is the point 0)


def _grid_index(x: float, up: bool) -> int:
    """The index of the grid point at or above (``up``) or at or below ``x`` >= 0 (inf: the last index)."""
    if not np.isfinite(x):
        return (1024 + _OFFSET + 1) * _BINADE
    if x <= 0.0:
        return 0
    f, e = np.frexp(float(x))
    m = np.ldexp(f, GRID_BITS)
    m = int(np.ceil(m) if up else np.floor(m))
    if m == 2 * _BINADE:  # rounded up to the next binade
        m, e = _BINADE, e + 1
    return (int(e) + _OFFSET) * _BINADE + (m - _BINADE)


def _grid_value(i: int) -> float:
    """The grid point of index ``i`` (0 for 0)."""
    if i <= 0:
        return 0.0
    e, m = divmod(i, _BINADE)
    return float(np.ldexp(float(_BINADE + m), e - _OFFSET - GRID_BITS))


def _first_true(ok, start: int, last: int) -> int | None:
    """The smallest index j in [0, last] with ok(j), for ok non-decreasing (False, then True), searched from
    ``start`` by doubling steps and then bisection; None if ok(last) is False."""
    start = min(max(start, 0), last)
    if ok(start):
        hi, step = start, 1
        while hi > 0 and ok(lo := max(hi - step, 0)):
            hi, step = lo, 2 * step
        if hi == 0:
            return 0
        lo = max(hi - step, 0)  # ok(lo) is False
    else:
        lo, step = start, 1
        while True:
            if lo == last:
                return None
            hi = min(lo + step, last)
            if ok(hi):
                break
            lo, step = hi, 2 * step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi
