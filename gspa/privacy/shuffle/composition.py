"""Certified composition over rounds: T runs of a shuffled protocol on the same data (the certified counterpart
of Theorem 5). Checks: the accountant chapter (book/chapters/accountant/using).

Used by ``personalized_pair(..., rounds=T)`` and ``gspa account --rounds T``; the comparison points are
Theorem 5 of the GSPA paper (T-fold μ-GDP composes into √T·μ, Fact 3 — an approximation here, since
Theorem 2 is one) and advanced composition (Dwork–Rothblum–Vadhan 2010; Dwork–Roth 2014, Thm. 3.20).

**Method.** A one-round bound ``delta(eps)`` (certified, the same in both directions of the
neighbouring relation, as every pair of :mod:`gspa.privacy.shuffle.accountant` is) is read at the nodes
eps_k = k h, k = 0..K — for a ReducedPair with at most ``ENUMERATE_MAX`` outcomes from its enumerated
outcomes, all nodes in one pass (:class:`gspa.privacy.shuffle.outcomes.Enumerated`), else node by node and
only where the hull below needs them (:func:`_read_nodes`; any subset of the nodes gives a bound). As a
function of x = e^eps the hockey-stick divergence of any pair is convex, so the lower convex hull of the
points (x_k, delta(eps_k)), with (0, 1) and the mirror nodes eps < 0 (delta(-e) = 1 - e^-e + e^-e
delta(e) for a symmetric bound), lies above the true curve of the protocol. A piecewise-linear convex
curve is itself the privacy curve of a privacy-loss distribution (PLD) omega with atoms at the hull's
vertices (loss k h, mass x_k times the change of slope) and an atom at +inf (mass delta(eps_K)): this is
the "connect the dots" construction of Doroshenko, Ghazi, Kamath, Kumar and Manurangsi (PoPETs 2022),
written here from its idea. The protocol is then f-DP for the trade-off function of omega's pair, and
by the composition theorem of f-DP (Dong, Roth and Su 2022, Thm. 3.2; adaptive rounds included) T
rounds are dominated by the T-fold product, whose privacy curve is

    delta_T(eps) = 1 - (1 - omega_inf)^T + sum_s omega^{*T}(s) (1 - e^{eps - s})_+ .

omega^{*T} is computed by repeated squaring (:func:`power`: at most 2 log2 T convolutions), each
convolution direct while it has at most ``DIRECT_MAX`` products, else by real FFTs, and
after each one both tails are cut where they hold at most ``CUT`` = 2^-52: the top to +inf, the bottom
moved up onto the first kept loss. Both moves make the measure stochastically larger, which can only
raise delta_T (it grows with every loss), so the cut lattice stays a bound while its width grows like
sqrt(T), not T.

**What is counted** (:class:`Lattice`). The one-round bound's own certificate; the hull's masses are
computed in long double and each is lowered by its error bound with the removed mass moved to +inf
(this can only raise the curve), then the curve is checked at every vertex against the one-round
bound; the round-off of each convolution — direct: every entry a sum of non-negative products, so
within a relative gamma_{w+1} of its exact value whatever the order of the sum (w products at most),
a relative error that stays relative through later convolutions and reaches delta_T in proportion to
it; FFT: the a-priori bound of :func:`gspa.privacy.shuffle.clones._fft_rows` (Higham, *Accuracy and
Stability of Numerical Algorithms*, 2002, Thm. 24.2), an absolute error — propagated through the
squarings and added to delta_T, as is the mass cut to +inf. An FFT's error is absolute and spread over
the whole lattice, so at a large eps (a small delta) it would set delta_T's floor: each FFT convolution
is therefore also computed tilted — both inputs weighted by e^{theta s}, which commutes with convolution —
its upper tail taken from there, and the absolute error is also counted weighted by e^{theta s}
(:class:`Lattice`), so that above a loss s it is at most e^{-theta s} times that sum: the tail's round-off
stays in proportion to the tail (theta about the Chernoff exponent of the T-fold losses at delta = e^-25,
``LOG_DELTA``; delta_T takes the smaller of the two counts). The
FFT bound is the one ingredient quoted rather than proven for pocketfft: the numbers are certified
modulo it, as the one-round numbers are modulo Boost's incomplete beta. Brute-force enumeration of the
composed protocol (small n, T = 2, 3) and long-double direct convolution check the result
(``tests/privacy/test_composition.py``).

**Beyond the lattice.** The lattice value carries its counted error and its mass at +inf (``floor``), so
it cannot go below them. Where a smaller delta is asked (or a larger eps), the composed bound is the
best of the valid ones: basic composition of the one-round bound (T eps_1(delta/T); at delta_1 = 0 this is
T max eps_i for the shuffle of eps_i-LDP reports) and advanced composition; each is a theorem applied to the
certified one-round curve, so the minimum is certified too. It is infinite only where every one is, e.g.
when the one-round curve has a floor (local delta_i > 0, the revealing variant).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V
from gspa.privacy.numerics import gamma, invert, U
from gspa.privacy.shuffle.clones import _fft_rows, _fft_size
from gspa.privacy.shuffle import outcomes
from gspa.privacy.shuffle.pairs import ReducedPair
from gspa.privacy.shuffle.outcomes import Enumerated

NODES = 250  # default number of nodes on [0, eps_top], node by node (1000 moves eps by < 0.02 %)
ENUMERATED_NODES = (
    1000  # the default for a curve read at all nodes in one pass (enumerated outcomes)
)
TOP_DELTA = (
    1e-18  # eps_top: the first node where the one-round delta is this small (or stops falling)
)
MAX_LATTICE = 1 << 24  # the composed lattice's size cap (memory: 16 M doubles)
MAX_ROUNDS = 100_000
MAX_T = 10**15  # rounds of the closed forms (basic, advanced): integers exact as floats
CUT = 2.0**-52  # mass cut at each tail after each convolution (counted: see Lattice)
ENUMERATE_MAX = 10**6  # one-round curves by enumeration up to this many outcomes
DIRECT_MAX = 1 << 22  # convolutions of at most this many products are direct (relative error)
READ_START = 16  # node by node, the curve is first read at every (K // READ_START)-th node
# ... and then in full between two read nodes where their chord may lie this far (relative) above it
READ_RTOL = 1e-6
# the composed lattice's error bound is tilted for delta about e^-LOG_DELTA (see Composed)
LOG_DELTA = 25.0


def _top(curve) -> float:
    """Where the one-round curve (a function of an array of eps) has (nearly) vanished or reached its
    floor: the first of 1e-3, 2e-3, 4e-3, ... where it is at most TOP_DELTA or stops falling."""
    grid = np.concatenate([[0.0], 1e-3 * 2.0 ** np.arange(31)])  # up to about 2^20
    d = np.asarray(curve(grid), dtype=float)
    stop = (d[1:] <= TOP_DELTA) | (d[1:] >= d[:-1] * (1.0 - 1e-9))
    return float(grid[1:][np.argmax(stop)] if stop.any() else grid[-1])


def _one_round_curve(base):
    """The one-round curve at an array of eps: enumerated outcomes of a ReducedPair (small n: all nodes in
    one pass, :class:`gspa.privacy.shuffle.outcomes.Enumerated`), a bound that consults a clone pair
    (``with_clones``) reading that pair the same way, else ``base.delta``."""
    if isinstance(base, ReducedPair) and outcomes.count(base) <= ENUMERATE_MAX:
        return outcomes._enumerated(base)
    if callable(getattr(base, "with_clones", None)):
        return base.with_clones(_one_round_curve)
    return lambda eps: np.asarray(base.delta(eps), dtype=float)


def _default_nodes(curve) -> int:
    """The nodes a one-round curve is read at by default: ``ENUMERATED_NODES`` where it reads every eps in
    one pass (``curve.one_pass``), else ``NODES``."""
    return ENUMERATED_NODES if getattr(curve, "one_pass", False) else NODES


def _read_nodes(curve, K: int, h: float) -> tuple[np.ndarray, np.ndarray]:
    """(at, values): the one-round curve read at the nodes ``at`` (integers in 0..K, 0 and K among them)
    of the lattice k h — every node where the curve reads every eps in one pass (``curve.one_pass``),
    else only where the hull of :func:`_dominating_pld` needs them. Any subset of nodes gives a valid
    bound there: between two read nodes the hull runs on or above their chord in x = e^eps, which lies
    above the protocol's curve (convex in x, below both values). The reading starts from every
    ``K // READ_START``-th node and then reads every node of an interval between read nodes where, at a
    node inside it, the chord could lie above the curve by more than ``READ_RTOL`` times its value plus
    ``TOP_DELTA``, judged from the two neighbouring chords extended into the interval (a convex curve lies
    above both), or lies below one of them (the values read are not convex there: a bound that changes
    form). That judgement uses the values read as if exact; it decides only which nodes are read, never
    what the bound is."""
    read = lambda k: np.asarray(curve(h * k), dtype=float).reshape(-1)
    if getattr(curve, "one_pass", False):
        at = np.arange(K + 1)
        return at, read(at)
    at = np.unique(np.append(np.arange(0, K + 1, max(1, K // READ_START)), K))
    values = read(at)
    while True:
        k = np.setdiff1d(np.arange(K + 1), at)  # the nodes not read
        if k.size == 0:
            return at, values
        i = np.searchsorted(at, k) - 1  # the interval of each
        d = np.minimum.accumulate(np.minimum(values, 1.0)).astype(np.longdouble)
        # beyond long double's range (eps above about 11,000) the chords overflow: those nodes are not refined
        with np.errstate(over="ignore", invalid="ignore"):
            x = np.exp(h * at.astype(np.longdouble))
            xk = np.exp(h * k.astype(np.longdouble))
            slope = np.diff(d) / np.diff(x)
            chord = d[i] + slope[i] * (xk - x[i])
            left = np.where(i > 0, d[i] + slope[np.maximum(i - 1, 0)] * (xk - x[i]), 0.0)
            nxt = np.minimum(i + 1, slope.size - 1)
            right = np.where(i + 1 < slope.size, d[i + 1] + slope[nxt] * (xk - x[i + 1]), 0.0)
            gap = np.abs(chord - np.maximum(np.maximum(left, right), 0.0))
            split = np.unique(i[gap > READ_RTOL * d[i + 1] + TOP_DELTA])
        if split.size == 0:
            return at, values
        new = k[np.isin(i, split)]  # every node inside: one more call, not one per halving
        at, values = np.concatenate([at, new]), np.concatenate([values, read(new)])
        order = np.argsort(at)
        at, values = at[order], values[order]


def _hull(x, y):
    """Indices of the lower convex hull of points sorted by x (Andrew's monotone chain, long double)."""
    idx = []
    for i in range(len(x)):
        while len(idx) >= 2:
            a, b = idx[-2], idx[-1]
            if (y[b] - y[a]) * (x[i] - x[a]) >= (y[i] - y[a]) * (
                x[b] - x[a]
            ):  # b is not below chord a-i
                idx.pop()
            else:
                break
        idx.append(i)
    return np.array(idx)


@dataclass(frozen=True)
class Lattice:
    """A sub-probability measure of privacy losses on the lattice s = (lo + j) h (``f[j]``) with a mass at
    +inf, as computed: the exact measure's entries are f_E[j] = g[j] + a[j] with |g[j] - f[j]| <= rel f[j],
    its mass at +inf is inf_E <= inf + a_inf, and ``err`` bounds a_inf + sum_j |a[j]| (``rel``: the relative
    error of direct convolutions; ``err``: the rest). The exact measure is the one the same operations give
    in exact arithmetic (with the cuts at the same places); it dominates the protocol's privacy-loss
    distribution, so delta(eps) <= inf + (1 + rel) sum_s f(s) (1 - e^{eps - s})_+ + err (:meth:`value`).

    With ``theta`` > 0 (per lattice step) the absolute error is also bounded where it lies: ``err_inf``
    bounds a_inf and ``tilt`` is the log of a bound on sum_j |a[j]| e^{theta (lo + j)}, so the error above
    a loss s = (lo + j) h is at most e^{tilt - theta (lo + j)} — the FFT round-off of the upper tail,
    which sets delta at a large eps, stays relative to that tail (:func:`_convolve`)."""

    lo: int
    f: np.ndarray
    err: float
    inf: float
    rel: float = 0.0
    theta: float = 0.0
    tilt: float = -np.inf
    err_inf: float = 0.0

    def __post_init__(self):
        V.integer("lo", self.lo)
        f = V.nonnegative("f", self.f)
        if f.ndim != 1 or f.size == 0:
            raise ValueError(f"f must be a non-empty 1-d array, got shape {f.shape}")
        V.real("err", self.err, low=0.0, scalar=True)
        V.probability("inf", self.inf, scalar=True)
        V.real("rel", self.rel, low=0.0, high=1e-3, scalar=True)
        V.real("theta", self.theta, low=0.0, scalar=True)
        if self.theta != _exact_theta(self.theta):
            raise ValueError(
                f"theta must have at most {THETA_BITS} significant bits (theta m exact), got {self.theta!r}: "
                f"use _exact_theta({self.theta!r}) = {_exact_theta(self.theta)!r}"
            )
        if np.isnan(self.tilt) or self.tilt == np.inf:
            raise ValueError(f"tilt must be a real number or -inf, got {self.tilt!r}")
        V.real("err_inf", self.err_inf, low=0.0, scalar=True)
        if self.theta > 0 and self.err > 0 and self.tilt == -np.inf:
            raise ValueError(
                f"a tilted lattice (theta = {self.theta}) with a counted error (err = {self.err}) needs its "
                "tilted bound (tilt) too"
            )

    def value(self, h: float, eps) -> np.ndarray:
        """The certified delta(eps) of the measure on losses (lo + j) h at each eps (at most 1)."""
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        curve = _lattice_curve(self.f, self.lo, h, eps)
        err = np.full(eps.size, self.err)
        if self.theta > 0:  # the error above eps by the tilted bound (theta eps / h rounded down)
            with np.errstate(over="ignore"):
                above = np.exp(self.tilt - self.theta * (eps / h) * (1 - 4 * U) + LOG_SLACK)
            err = np.minimum(err, (self.err_inf + above) * (1 + gamma(2)))
        return np.minimum((self.inf + (1.0 + self.rel) * curve + err) * (1 + gamma(4)), 1.0)


#: every log-domain sum of the tilted error bound, and every exp of one, is raised by this (a relative 1e-8):
#: it covers the rounding of the few operations on logs of at most about 10^6 in size (each within 10^6 u,
#: about 2e-10)
LOG_SLACK = 1e-8


THETA_BITS = 20  # a tilt's significant bits: theta m is then exact for every index |m| < 2^33


def _exact_theta(theta: float) -> float:
    """The largest float at most ``theta`` (>= 0) with at most ``THETA_BITS`` significant bits: the tilting
    exponents theta m are exact for every lattice index m, so a tilting factor errs only by exp's own ulp."""
    m, e = np.frexp(float(theta))
    return float(np.ldexp(np.floor(np.ldexp(m, THETA_BITS)), int(e) - THETA_BITS))


def _log_sum(*logs) -> float:
    """log(sum(exp(logs))), rounded up (:data:`LOG_SLACK`); -inf for no mass."""
    top = max(logs)
    if top == -np.inf or top == np.inf:
        return float(top)
    return float(top + np.log(sum(np.exp(x - top) for x in logs))) + LOG_SLACK


def _tilted(f: np.ndarray, theta: float) -> np.ndarray:
    """f[j] e^{theta (j - top)} (top = the last index): every factor at most 1, so nothing overflows."""
    with np.errstate(under="ignore"):
        return f * np.exp(theta * (np.arange(f.size) - (f.size - 1.0)))


def _log_mass(tilted: np.ndarray, top: int, theta: float) -> float:
    """log(sum_j f[j] e^{theta (start + j)}), rounded up, from ``tilted`` = :func:`_tilted` of f and
    ``top`` = start + its last index: the sum, its gamma, 2^-1022 for each term that may have underflowed,
    and :data:`LOG_SLACK`."""
    total = float(tilted.sum())
    total = total * (1 + gamma(tilted.size + 8)) + tilted.size * 2.0**-1022 if total > 0 else 0.0
    with np.errstate(divide="ignore"):  # no mass: -inf
        return float(np.log(total)) + theta * top + LOG_SLACK


def _log_norm2(start: int, stop: int, theta: float) -> float:
    """The log of sqrt(sum_{k=start}^{stop-1} e^{2 theta k}), rounded up (a geometric sum in closed form): the
    tilted L1 of an error of L2 norm 1 spread over those indices is at most its exp (Cauchy-Schwarz);
    -inf for an empty range."""
    if stop <= start:
        return -np.inf
    x, r = 2 * theta * (stop - start), 2 * theta
    return 0.5 * (2 * theta * start + _log_expm1(x) - _log_expm1(r)) + LOG_SLACK


def _log_expm1(y: float) -> float:
    """log(e^y - 1) for y > 0, without overflow (large y) or cancellation (small y)."""
    return float(y + np.log1p(-np.exp(-y))) if y > 1 else float(np.log(np.expm1(y)))


def _cut(x: Lattice) -> Lattice:
    """Cut both tails where they hold at most ``CUT``: the top entries go to +inf, the bottom entries are
    moved up onto the first kept entry. Both moves make the measure stochastically larger (safe, as
    delta(eps) grows with every loss); the error on the moved entries moves with them (a sum of entries
    within a relative ``rel`` is too), and ``err`` gains the rounding of the moved mass's sum and, for the
    mass moved to +inf, its relative error (+inf carries none). The tilted bound: the errors moved to +inf
    join ``err_inf`` (at most e^{tilt - theta i} for i the first index cut, or ``err``); those moved up
    weigh e^{theta (lo + j)} at their new place (``err`` bounds them)."""
    f = x.f
    if f.size < 3:
        return x
    top = np.cumsum(f[::-1])
    k = min(int(np.searchsorted(top, CUT, "right")), f.size - 2)  # entries dropped at the top
    bottom = np.cumsum(f[: f.size - k])
    j = min(int(np.searchsorted(bottom, CUT, "right")), f.size - k - 1)  # entries moved up
    if j == 0 and k == 0:
        return x
    kept = f[j : f.size - k].copy()
    err, tilt, err_inf, th = x.err, x.tilt, x.err_inf, x.theta
    if j:
        kept[0] += bottom[j - 1]  # the moved mass: a running sum (gamma(j)) and one addition
        moved = (1 + x.rel) * gamma(j + 2) * float(kept[0])
        if th > 0:
            with np.errstate(divide="ignore"):
                tilt = _log_sum(tilt, np.log(x.err + moved) + th * (x.lo + j))
        err = (err + moved) * (1 + gamma(2))
    dropped = float(top[k - 1]) * (1 + gamma(k + 1)) if k else 0.0
    if k:
        with np.errstate(over="ignore"):
            at = x.tilt - th * (x.lo + f.size - k) + LOG_SLACK  # the first index cut
            errors = min(x.err, float(np.exp(at))) if th > 0 else x.err
        err_inf = (err_inf + x.rel * dropped + errors) * (1 + gamma(3))
    err = (err + x.rel * dropped) * (1 + gamma(2))
    inf = min(1.0, (x.inf + dropped) * (1 + gamma(2)))
    return Lattice(x.lo + j, kept, err, inf, x.rel, th, tilt, err_inf)


def _splice(e_p: float, e_t: float, n: int, theta: float) -> int:
    """Where :func:`_tilted_fft` starts taking the tilted FFT: the first entry k whose untilted tilted error
    E_t e^{theta (n - 1 - k)} is at most E_p / 16 (so the plain L1 bound grows by a sixteenth at most)."""
    with np.errstate(divide="ignore"):
        reach = (np.log(e_p / e_t) - np.log(16.0)) / theta if e_t > 0 else np.inf
    reach = min(reach, 700.0 / theta)  # the untilting factor e^{theta (n - 1 - k)} stays finite
    return int(np.clip(np.ceil(n - 1 - reach), 0, n))


def _tilted_fft(a: Lattice, b: Lattice, ta: np.ndarray, tb: np.ndarray):
    """The FFT convolution of ``a.f`` and ``b.f``, plain and tilted (each input times e^{theta (i - top)},
    at most 1, so nothing overflows), spliced where the tilted one's error, untilted, becomes the smaller:
    (out, rel, err_l1, log tilted error). The plain FFT errs by at most E_p in L2 (L1 / sqrt(n),
    :func:`gspa.privacy.shuffle.clones._fft_rows`), spread anywhere; the tilted one by E_t in L2, in tilted
    units, so by E_t e^{theta (n - 1 - k)} at entry k once untilted. Entries from k* on, where that is below
    E_p, are taken from the tilted one: their L1 error is at most E_t |e^{theta (n - 1 - k)}|_2 over them,
    the others' at most E_p sqrt(k*) (and the whole plain bound); their tilted L1, weights
    e^{theta (lo + k)}, at most E_p |e^{theta (lo + k)}|_2 over k < k* and e^{theta (lo + n - 1)} times the
    tilted one's L1 bound. The exponents theta m are exact (:func:`_exact_theta`), so a tilting factor is within
    exp's ulp (counted as 4 u) and a tilted input within gamma(5) of its exact value; one that underflows errs
    by at most 2^-1074 (an absolute error in tilted units, counted). With the untilting factor and product
    (gamma(5)), a spliced entry is within a relative gamma(16) of the exact convolution."""
    th, na, nb = a.theta, a.f.size, b.f.size  # ta, tb: the tilted inputs (:func:`_tilted`)
    n = na + nb - 1
    rows, l1 = _fft_rows(np.stack([a.f, ta]), np.stack([b.f, tb]), workers=2)
    # Higham's bound assumes no underflow: an operation of the transforms that underflows errs by at most
    # 2^-1074 absolutely; n N 2^-1022 (N the transform size) covers them all, in L1 and so in L2, in each row
    under = n * _fft_size(n) * 2.0**-1022
    tiny = 2.0**-1074 * (na * float(tb.sum()) + nb * float(ta.sum()) + na * nb * 2.0**-1074) + under
    l1_p, l1_t = float(l1[0]) + under, (float(l1[1]) + tiny) * (1 + gamma(2))
    e_p, e_t = (
        float(l1[0]) / np.sqrt(n) + under,
        (float(l1[1]) / np.sqrt(n) + tiny) * (1 + gamma(2)),
    )
    first = _splice(e_p, e_t, n, th)
    up = rows[1, first:] * np.exp(th * (n - 1.0 - np.arange(first, n)))  # at most e^700 (_splice)
    out = np.concatenate([rows[0, :first], up])
    high = float(np.exp(np.log(e_t) + _log_norm2(0, n - first, th)))  # 0 when nothing is spliced
    err_l1 = min(l1_p, e_p * np.sqrt(first)) + high
    low_tilt = np.log(e_p) + _log_norm2(a.lo + b.lo, a.lo + b.lo + first, th)
    high_tilt = -np.inf  # nothing spliced
    if first < n:
        high_tilt = np.log(min(l1_t, e_t * np.sqrt(n - first))) + th * (a.lo + b.lo + n - 1)
    tilt = _log_sum(low_tilt, high_tilt)
    return out, gamma(16), err_l1 * (1 + gamma(4)), tilt


def _convolve(a: Lattice, b: Lattice) -> Lattice:
    """The measure of the sum of two independent losses (the composition of two rounds), cut at both tails:
    direct while it has at most ``DIRECT_MAX`` products, else by real FFTs with their round-off bound
    (:func:`gspa.privacy.shuffle.clones._fft_rows`, Higham Thm. 24.2) — with ``theta`` > 0 a tilted FFT
    too, for the upper tail (:func:`_tilted_fft`).

    Errors. With f_E = g + e for each input (g within a relative rel of f, sum |e| <= err), the exact
    convolution is g_a * g_b + e_a * f_E,b + g_a * e_b: the first within a relative (1 + rel_a)(1 + rel_b) - 1
    of f_a * f_b (every term non-negative), the others of mass at most err_a (f_E,b is a sub-probability)
    and (1 + rel_a) |f_a| err_b; b's error at +inf reaches the sum's +inf mass times 1 - inf_a <= 1, so b's
    error counts with the larger of 1 and (1 + rel_a) |f_a| + err_a. A direct entry is a sum of at most
    w = min(widths) non-negative products, within gamma_{w+1} of its exact value in any order of summation
    (a product that underflows errs by at most 2^-1021 absolutely, counted per product); an FFT errs
    absolutely (its bound). inf = inf_a + inf_b - inf_a inf_b (increasing in both, so upper bounds
    compose), and its error a_inf at most a_inf,a + a_inf,b (``err_inf``). The tilted bound (weights
    e^{theta i}, multiplicative under convolution): tilt_a M_E,b + (1 + rel_a) M_a tilt_b + the fresh
    error's, with M the tilted mass and M_E,b <= (1 + rel_b) M_b + tilt_b."""
    if a.theta != b.theta:
        raise ValueError(f"the two lattices are tilted differently ({a.theta} and {b.theta})")
    th = a.theta
    mass_a = float(a.f.sum()) * (1 + gamma(a.f.size + 1))
    err = a.err + max((1 + a.rel) * mass_a + a.err, 1.0) * b.err
    both = a.rel + b.rel + a.rel * b.rel  # (1 + rel_a)(1 + rel_b) - 1, every term positive
    products = a.f.size * b.f.size
    fresh_tilt = -np.inf
    if th > 0:
        ta, tb = _tilted(a.f, th), _tilted(b.f, th)
    if products <= DIRECT_MAX:
        out = np.convolve(a.f, b.f)
        g = gamma(min(a.f.size, b.f.size) + 1)
        rel = (both + g) / (1 - g)  # (1 + both) / (1 - g) - 1
        under = (1 + rel) * products * 2.0**-1021  # underflow: a product and an addition each
        err += under
        if th > 0:
            fresh_tilt = np.log(under) + th * (a.lo + b.lo + out.size - 1)
    elif th > 0:
        out, extra, fresh, fresh_tilt = _tilted_fft(a, b, ta, tb)
        rel = both + extra + both * extra
        err += (1 + rel) * fresh
        fresh_tilt += np.log1p(rel)
    else:
        rows, err_fft = _fft_rows(a.f[None, :], b.f[None, :], workers=2)
        out, rel = rows[0], both
        err += (1 + rel) * float(err_fft[0])
    inf = min(1.0, (a.inf + b.inf - a.inf * b.inf) * (1 + gamma(4)))
    tilt = -np.inf
    if th > 0:
        m_a = _log_mass(ta, a.lo + a.f.size - 1, th)
        m_b = _log_mass(tb, b.lo + b.f.size - 1, th)
        tilt = _log_sum(
            a.tilt + _log_sum(np.log1p(b.rel) + m_b, b.tilt),
            np.log1p(a.rel) + m_a + b.tilt,
            fresh_tilt,
        )
    lat = Lattice(
        a.lo + b.lo,
        out,
        err * (1 + gamma(8)),
        inf,
        rel * (1 + gamma(8)),
        th,
        tilt,
        (a.err_inf + b.err_inf) * (1 + gamma(2)),
    )
    return _cut(lat)


def power(x: Lattice, rounds: int) -> Lattice:
    """The ``rounds``-fold composition of ``x`` by repeated squaring (2 log2(rounds) convolutions at
    most), the tails cut after each step."""
    if not isinstance(x, Lattice):
        raise ValueError(f"x must be a Lattice, got {x!r:.80}")
    rounds = V.integer("rounds", rounds, low=1, high=MAX_ROUNDS)
    out = None
    while True:
        if rounds & 1:
            out = x if out is None else _convolve(out, x)
        rounds >>= 1
        if not rounds:
            return out
        x = _convolve(x, x)


def _lattice_curve(f, lo: int, h: float, eps) -> np.ndarray:
    """sum_s f(s) (1 - e^{eps - s})_+ over the lattice losses s = (lo + j) h, for each eps, rounded up."""
    s = (lo + np.arange(f.size)) * h
    # each computed loss errs by u |s| at most, which moves (1 - e^{eps - s})_+ by at most u |s| per unit mass
    shift = 2 * U * float(np.max(np.abs(s))) * float(f.sum())
    out = []
    for e in np.atleast_1d(eps):
        first = int(np.searchsorted(s, e, "right"))
        out.append(
            float(np.dot(f[first:], -np.expm1(e - s[first:]))) * (1 + gamma(f.size - first + 4))
            + shift
        )
    return np.array(out)


def _dominating_pld(values: np.ndarray, h: float, at: np.ndarray) -> tuple[np.ndarray, float]:
    """(omega, omega_inf): a privacy-loss distribution on the losses j h, j = -K .. K (``omega[j + K]``),
    with a mass at +inf, whose privacy curve is the lower convex hull (in e^eps) of the certified one-round
    curve (the same in both directions) read at the nodes ``at`` h (``values``; ``at`` increasing integers
    from 0 to K; see :func:`_read_nodes`): the
    "connect the dots" construction of the module text. It lies above the protocol's curve
    (convex in e^eps, below every node's value) and on the certified curve at the hull's vertices, and it
    can lie below the certified curve between them where that is not convex. Its masses are rounded down
    and the rest put at +inf; the result is checked against the curve at the hull's vertices."""
    at = np.asarray(at)
    if at[0] != 0 or at.size != values.size:
        raise ValueError(f"at must start at node 0 and give one node per value, got {at[:3]}...")
    K = int(at[-1])
    eps_pos = h * at
    # the true curve does not increase in eps, so its running minimum is a bound too (and a bound
    # whose counted errors grow with e^eps in the far tail would otherwise break the hull's masses)
    d_pos = np.minimum.accumulate(np.minimum(values, 1.0))
    ld = np.longdouble
    e_pos = eps_pos.astype(ld)
    x_neg = np.exp(-e_pos[:0:-1])  # x at -K h .. -h
    d_neg = (
        1 - x_neg + x_neg * d_pos[:0:-1].astype(ld)
    )  # the mirror (the reverse direction's bound)
    x = np.concatenate([[ld(0)], x_neg, np.exp(e_pos)])
    y = np.concatenate([[ld(1)], d_neg, d_pos.astype(ld)])
    y = np.minimum(y, 1)
    lattice = np.concatenate([[0], -at[:0:-1], at])  # its lattice index
    v = _hull(x, y)
    xv, yv = x[v], y[v]
    slopes = np.diff(yv) / np.diff(xv)  # between consecutive vertices
    right = np.append(slopes[1:], ld(0))  # after the last vertex: flat
    mass = xv[1:] * (right - slopes)  # at vertices 1.. (vertex 0 is x = 0)
    # error bound of each mass (long double: unit round-off ul): slopes err <= 4 ul |slope|, products 2 ul
    ul = ld(np.finfo(ld).eps) / 2
    err = xv[1:] * (np.abs(right) + np.abs(slopes)) * 8 * ul + np.abs(mass) * 4 * ul
    mass = np.maximum(mass - err, 0)
    omega = np.zeros(2 * K + 1)
    np.add.at(omega, lattice[v[1:]] + K, mass.astype(float) * (1 - 4 * U))  # rounded down: safe
    omega_inf = min(1.0 - float(np.sum(omega.astype(ld))) * (1 - 4 * U) + 4 * U, 1.0)  # rounded up
    # the curve of omega must pass through (or above) the one-round bound at the hull's vertices, where
    # the hull touches it (it does by construction; this guards the arithmetic, with a relative
    # tolerance of 1e-9 for the evaluation's own rounding)
    vertex = lattice[v[1:]][lattice[v[1:]] >= 0]  # the hull's vertices at eps >= 0
    ours = omega_inf + _lattice_curve(omega, -K, h, h * vertex)
    bound = d_pos[np.searchsorted(at, vertex)]
    bad = ours < bound * (1 - 1e-9) - 1e-300
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ArithmeticError(
            f"internal: the one-round PLD's curve falls below the bound at eps = {h * vertex[i]:g} "
            f"({ours[i]:.3e} < {bound[i]:.3e})"
        )
    return omega, omega_inf


class Composed:
    """T rounds of a protocol whose one-round privacy curve is bounded by ``base.delta`` (see
    :mod:`gspa.privacy.shuffle.composition`). ``delta(eps)`` and ``epsilon(delta)`` are certified upper bounds for
    the T-fold (adaptive) composition; ``step`` is the lattice step h of the privacy losses."""

    def __init__(self, base, rounds: int, *, nodes: int | None = None):
        self.base = base
        self.rounds = V.integer("rounds", rounds, low=1, high=MAX_ROUNDS)
        nodes = None if nodes is None else V.integer("nodes", nodes, low=8, high=100_000)
        self.scope = f"{self.rounds} rounds of: {getattr(base, 'scope', '')}".rstrip(": ")
        curve = self._one_round = _one_round_curve(base)
        top = self._top1 = _top(curve)
        K = nodes or _default_nodes(curve)
        while 2 * K * self.rounds + 1 > MAX_LATTICE and K > 8:
            K //= 2  # a coarser lattice (pessimistic, still valid)
        self.step = top / K
        self._at, self._nodes = _read_nodes(curve, K, self.step)
        self.omega, self.omega_inf = _dominating_pld(self._nodes, self.step, self._at)
        self.K = K
        self._compose()

    def _epsilon1(self, delta: float) -> float:
        """The one-round eps(delta): inverted on the enumerated curve where there is one, else ``base``'s."""
        if isinstance(self._one_round, Enumerated) and delta > 1e6 * self._one_round.floor:
            e = invert(lambda e: float(self._one_round(np.array([e]))[0]), delta, self._top1)
            if np.isfinite(e):  # else the curve stops above delta before its top: base's own bound
                return e
        return float(self.base.epsilon(delta))

    def _compose(self):
        # the tilt (per unit of loss): sqrt(LOG_DELTA / (T mean loss)), about the Chernoff exponent of the
        # T-fold losses at delta = e^-LOG_DELTA (Gaussian approximation), per step at most 10^6 over the
        # lattice's widest reach (T K steps each way), so that the logs of the tilted bound stay within
        # what LOG_SLACK covers
        s = (np.arange(self.omega.size) - self.K) * self.step
        mean = max(float(np.dot(self.omega, s)), 1e-300)
        theta = _exact_theta(
            min(
                np.sqrt(LOG_DELTA / (self.rounds * mean)) * self.step,
                1e6 / (2 * self.K * self.rounds + 1),
            )
        )
        one = Lattice(-self.K, self.omega, 0.0, self.omega_inf, theta=theta)
        self.composed = power(one, self.rounds)

    @property
    def floor(self) -> float:
        """The composed lattice value's floor: its mass at +inf plus its counted error there."""
        return float(self.composed.value(self.step, [np.inf])[0])

    def delta(self, eps):
        """Certified upper bound on the composed delta(eps): the smaller of the lattice composition's value
        and basic composition's T·delta_1(eps/T) (T runs of an (eps/T, delta_1)-DP mechanism are
        (eps, T delta_1)-DP; Dwork–Roth 2014, Thm. 3.16), which is the tighter one beyond the lattice, where
        the lattice value is floored by its mass at +inf and its counted error."""
        eps_arr = V.nonnegative("eps", eps)
        flat = eps_arr.ravel()
        vals = self.composed.value(self.step, flat)
        one = self._one_round(flat / self.rounds)
        floor = getattr(self._one_round, "floor", None)
        if floor is not None:  # an enumerated curve: base's own bound where it sits near its floor
            near = one <= 1e6 * floor
            if near.any():
                one[near] = np.minimum(
                    one[near], np.asarray(self.base.delta(flat[near] / self.rounds), dtype=float)
                )
        basic_vals = np.minimum(self.rounds * one * (1 + gamma(2)), 1.0)
        vals = np.minimum(vals, basic_vals)
        return vals.reshape(eps_arr.shape) if eps_arr.ndim else float(vals[0])

    def _lattice_delta(self, eps: float) -> float:
        """The lattice composition's certified delta at one eps (without basic composition)."""
        return float(self.composed.value(self.step, [eps])[0])

    def _one(self, eps: float) -> float:
        """The one-round delta at ``eps``: the smaller of the two curves :meth:`_epsilon1` may invert (the
        enumerated one, where there is one, and ``base``'s)."""
        value = float(self.base.delta(eps))
        if isinstance(self._one_round, Enumerated):
            value = min(value, float(self._one_round(np.array([eps]))[0]))
        return value

    def _one_at_most(self, eps: float, share: float) -> bool:
        """Whether the one-round delta at ``eps`` (:meth:`_one`) is at most ``share``, read only where the
        curve at a read node at least a step above ``eps`` (a nearer one may round below it) is not already above
        ``share`` (a non-increasing curve is then above it at ``eps`` too). It decides only whether basic or
        advanced composition is tried; what either gives is certified."""
        # the first node read at least a step above eps
        j = int(np.searchsorted(self._at, eps / self.step + 1.0))
        if j < self._at.size and self._nodes[j] > share:
            return False
        return self._one(eps) <= share

    def epsilon(self, delta: float) -> float:
        """Smallest certified eps (rounded up) for the composed ``delta``: the best of the FFT composition
        (inverted), basic composition T·eps_1(delta/T) and advanced composition of eps_1(delta/(2T)) with
        slack delta/2 (Dwork–Roth 2014, Thms. 3.16 and 3.20), each valid on its own; inf only where every
        one is (a one-round curve that never reaches delta/T, e.g. a floor delta_i > 0). Basic and
        advanced composition are inverted only where the one-round delta at the eps_1 that would match
        the lattice's eps is at most their share of ``delta`` (else, the one-round curve being
        non-increasing, neither can be smaller)."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        T = self.rounds
        top = max(
            (self.composed.lo + self.composed.f.size) * self.step, 0.0
        )  # < 0: every finite loss cut away
        c = self.composed
        if c.theta > 0:  # the tilted error bound falls on beyond the lattice: to delta / 1000 there
            top = max(top, self.step * (c.tilt - np.log(delta * 1e-3)) / c.theta)
        fft = (
            float("inf")
            if self._lattice_delta(top) > delta
            else invert(self._lattice_delta, delta, top)
        )
        best = fft
        if not np.isfinite(fft) or self._one_at_most(fft / (T * (1 + 4 * U)), delta / T):
            e1 = self._epsilon1(delta / T) if delta / T > 0 else float("inf")
            best = min(best, T * e1 * (1 + 4 * U) if np.isfinite(e1) else float("inf"))
        slack = delta / (2 * T)
        if slack > 0 and (
            not np.isfinite(best) or self._one_at_most(_advanced_root(best, T, delta), slack)
        ):
            e_adv = self._epsilon1(slack)
            if np.isfinite(e_adv):
                best = min(best, advanced_composition(e_adv, slack, T, delta / 2)[0] * (1 + 8 * U))
        return float(best)


def _advanced_root(eps: float, rounds: int, delta: float) -> float:
    """The largest eps_1 whose advanced composition (slack delta/2, rounded up as in ``Composed.epsilon``)
    is at most ``eps`` — an eps_1 above it gives more than ``eps`` (the formula increases in eps_1)."""
    f = lambda e: advanced_composition(e, 0.0, rounds, delta / 2)[0] * (1 + 8 * U)
    lo, hi = 0.0, max(eps, 1e-300)
    if f(hi) <= eps:
        return hi
    for _ in range(200):  # bisection to the float resolution
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if f(mid) <= eps else (lo, mid)
    return hi


def compose(base, rounds: int, *, nodes: int | None = None):
    """T rounds of ``base`` (an object with a certified, direction-symmetric ``delta(eps)``): returns
    ``base`` itself for one round, else a :class:`Composed` bound. ``base`` needs ``delta`` and
    ``epsilon`` methods; ``rounds`` in [1, MAX_ROUNDS = 10^5]; ``nodes`` in [8, 10^5] (default: 1000 for a
    one-round curve read at every node in one pass — a clone pair's enumerated outcomes, the cell bound
    with such a clone pair — else 250).

    Paper items: the certified counterpart of Theorem 5, which composes Theorem 2's approximate mu by
    Fact 3 into sqrt(T) mu."""
    for method in ("delta", "epsilon"):
        V.function(f"base.{method}", getattr(base, method, None))
    rounds = V.integer("rounds", rounds, low=1, high=MAX_ROUNDS)
    nodes = None if nodes is None else V.integer("nodes", nodes, low=8, high=100_000)
    return base if rounds == 1 else Composed(base, rounds, nodes=nodes)


def advanced_composition(eps0: float, delta0: float, rounds: int, delta_slack: float):
    """(eps, delta) of T rounds of an (eps0, delta0)-DP mechanism by the advanced composition theorem
    (Dwork–Roth 2014, Thm. 3.20): eps = sqrt(2 T ln(1/delta')) eps0 + T eps0 (e^eps0 - 1),
    delta = T delta0 + delta'. ``rounds`` in [1, MAX_T = 10^15]; eps = inf where it exceeds the floats."""
    eps0 = V.real("eps0", eps0, low=0.0, scalar=True)
    delta0 = V.probability("delta0", delta0, scalar=True)
    rounds = V.integer("rounds", rounds, low=1, high=MAX_T)
    delta_slack = V.probability(
        "delta_slack", delta_slack, open_low=True, open_high=True, scalar=True
    )
    with np.errstate(over="ignore"):
        eps = np.sqrt(2 * rounds * np.log(1 / delta_slack)) * eps0 + rounds * eps0 * np.expm1(eps0)
    return float(eps), float(min(1.0, rounds * delta0 + delta_slack))


def basic(eps: float, delta: float, t: int):
    """FLAME Lemma 2 (basic composition; Dwork–Roth 2014, Thm. 3.16): t rounds of (eps, delta)-DP are
    (t eps, t delta)-DP (FLAME states the pure case delta = 0). ``t`` in [1, MAX_T = 10^15]."""
    eps = V.real("eps", eps, low=0.0, scalar=True)
    delta = V.probability("delta", delta, scalar=True)
    t = V.integer("t", t, low=1, high=MAX_T)
    return float(t * eps), float(min(1.0, t * delta))


def advanced(eps: float, delta: float, t: int, delta_prime: float):
    """FLAME Lemma 3 as printed: (sqrt(2 t ln(1/delta')) eps + t eps (e^eps - 1), t delta + delta').
    It is the same formula as Dwork–Rothblum–Vadhan 2010 / Dwork–Roth 2014 Thm. 3.20
    (:func:`advanced_composition`)."""
    return advanced_composition(eps, delta, t, delta_prime)
