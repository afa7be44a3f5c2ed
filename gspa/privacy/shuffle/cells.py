"""Shuffled binary randomized response: the worst case over the other users' data, bounded cell by cell.
Not a paper item; the derivation is below and in the accountant chapter (book/chapters/accountant/using).

Not a paper item. The clone pair (:mod:`gspa.privacy.shuffle.accountant`) lets the observer learn how many
users sent a uniform bit; in the real protocol those bits fall among the others' reports, which are
bits too, so the clone pair is loose for binary randomized response (its eps is 1.15–1.3 times the
explicit lower bound's at 10^3–10^8 users). Here the other users' data are kept, and the supremum
over them is bounded directly. Everything below is an upper bound on the real protocol; the
derivation is the book's (accountant part, "The worst case over the data").

**The count.** With binary reports the shuffled output is the number S of 1s. The differing user
reports 1 with probability victim_flip under input 0 and 1 - victim_flip under input 1 (victim_flip = 1/(1 + e^L); L = inf in
the revealing variant), and every other user j with flip probability t_j = 1/(1 + e^eps_j).

**1. A level.** Fix a flip probability t* in (0, 1/2). Each other user's report is a mixture, with
weights that do not depend on its input, of: randomized response with flip probability t* (a "level"
report, weight a_j), a uniform bit (b_j) and its input itself (c_j): if t_j >= t*, a_j = (1/2 - t_j)
/ (1/2 - t*), b_j = 1 - a_j, c_j = 0; else a_j = t_j / t*, b_j = 0, c_j = 1 - a_j. Revealing who drew
which component can only help the observer (joint convexity of the hockey-stick divergence): inputs
sent in the clear are a known shift, u uniform bits add Binomial(u, 1/2), and the h level users with m
ones among their inputs add Bin(h - m, t*) + m - Bin(m, t*).

**2. Which counts.** Let F(h, u) be the supremum over m of delta. One more level user with a known
input is a post-processing (the observer can add its report), so F falls as users above the level
(t_j < t*) join it; a uniform bit is the even mixture of a level user's report under input 0 and under
input 1, so F does not fall when a user below the level (t_j >= t*) is a level user rather than a
uniform bit. With h_b, h_a the level users from below and above the level, h_b <= H_b and h_a >= H_a
except with probability ``tol`` each (Bernstein's inequality), and

    delta <= 2 tol + F(H_b + H_a, n_b - H_b)     (n_b: the users below the level).

**3. Cells.** F is a supremum over m in [0, h]; m and h - m are mirror images (flipping every input
turns S into its complement and swaps the two directions, which are both counted), so m <= h/2
suffices. A cell [m0, m0 + K]: m0 level users hold 1, K "flexible" ones hold anything, the rest 0.
Reveal whether each flexible user sent a uniform bit (probability 2 t*, else its input): the others
are a known shift, C ~ Bin(K, 2 t*) uniform bits are added, and more of them only add noise, so with
C >= C0 except with probability ``tol``,

    delta_cell <= tol + D(Bin(h - m0 - K, t*) + m0 - Bin(m0, t*) + Bin(C0 + u, 1/2)),

D the two-directional hockey-stick divergence of the differing user's two inputs added to that law.
The bound is the largest cell's; with K ~ n / (2 ``cells``) the flexible users are few and the cost is
``cells`` convolutions of binomial windows (``gspa.privacy.shuffle.clones.convolve``, certified errors).

**4. Who differs.** A user with a smaller budget differs less (its report is a mixture of the larger
budget's reports under the two inputs) and, among the others, is at least as much noise as any user
with a larger budget (the same mixture). So the most liberal user differs (L = max eps_i) and the
others are all users but one with the smallest budget.

**5. Lemma 4's quaternary randomizer** (user j reveals its input in a symbol of its own with
probability delta_j, else randomized response with eps_j; GSPA Lemma 4). Another user's reveal is one
more component in the clear, drawn first: below the level the labels are in the clear (delta_j), at the
level ((1 - delta_j) a_j) or uniform ((1 - delta_j) b_j); above it at the level ((1 - delta_j) a_j) or in
the clear. The reveals' own symbols tell the observer nothing once it knows who drew which component.
Since a report in the clear is worth at least a level report (the observer can add the level noise) and
a level report at least a uniform bit (step 2), the bound needs the number of uniform bits from below
and the number of users not in the clear from below the level and at it from above, each from below:
with h_b >= users below not sending a uniform bit and c_b >= users below in the clear (upper counts; c_b
from Bernstein's or, for rare reveals, Chernoff's bound exp(-mu) (e mu / k)^k) and h_a (a lower count), F(max(0, h_b - c_b + h_a), n_b - h_b) with three tails.
The number R of users below in the clear is not fixed at one tail: with upper counts c_0 > c_1 > ... > c_K
(P(R > c_k) <= p_k, p_0 = ``TAIL``; the tails ``REVEAL_TAILS``) and D_k the bound with c_k in the clear (F
does not fall as R grows, so D_(k-1) bounds F on the band c_k < R <= c_(k-1); the computed D_k are made
non-increasing in k by a running maximum, which keeps each a bound), E[F] <= p_0 + D_K + sum_k p_k (D_(k-1) - D_k)
(Abel summation of E[F] over the bands c_k < R <= c_(k-1); :class:`RevealMix`): the bound pays for the
reveals' typical count, not for a count exceeded with probability 2^-50 only. The differing user: its
report is a mixture with weight delta_n of a reveal (hockey-stick divergence at most 1) and of randomized
response, so by joint convexity delta <= delta_j + (1 - delta_j) B(eps_j) for the differing user j, B the
binary bound; B(eps_j) <= B(L) with L = max eps_i (step 4: randomized response at eps_j is a mixture of
that at L), and delta_j + (1 - delta_j) B(L) <= delta_n + (1 - delta_n) B(L) with delta_n = max delta_i
because B <= 1 — so one bound covers every differing user, even when the largest eps and the largest
delta belong to different users. (A post-processing of one report does not serve here: inside the
shuffle the observer cannot tell which report to post-process.) The user with the smallest budget (then
smallest delta) leaves the others, whose delta are first raised to at least its delta (fewer uniform and
level reports: the harmful way), so that it is at least as much noise as any user it replaces.

Any t* gives a valid bound; ``cells_pair`` tries several (quantiles of the budgets) and keeps the
smallest delta at each eps (:class:`gspa.privacy.BestOf`). With one common budget the level
is that budget and the bound is within about 0.5 % in eps of the explicit lower bound.

Scope: binary randomized response (delta_i = 0) and Lemma 4's quaternary randomizer (delta_i in [0, 1)),
any budgets. Counted: the tails of steps 2, 3 and 5 (three, four with delta_i > 0; ``TAIL`` = 2^-50
each, counted in full), the convolution errors (rho, eta, tau of ``gspa.privacy.shuffle.clones.Part``), the
arithmetic of the hockey-stick sums, and round-off in the budgets' flip probabilities (absorbed by rounding
the differing user's and the levels' flip probabilities down, counting a user within round-off of a level
above it, and padding the Bernstein means). With few users (below about 50) the Bernstein margins exceed
the label counts themselves: the bound stays valid but treats most users above a level as reporting in the
clear, and is loose there. Exhaustive enumeration of the
real protocol (:mod:`gspa.privacy.exact.enumeration`) and of every data set with a common budget are the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special

from gspa.privacy.profiles import (
    VARIANTS,
    BestOf,
    Profile,
    WorstOf,
    check_budgets,
    check_histogram,
)
from gspa.privacy.shuffle.clones import Part, _bernstein_halfwidth, binomial_part, convolve
from gspa.privacy.numerics import U, gamma, invert
from gspa.util import validate as V
from gspa.privacy.basics.fdp import gdp_epsilon

TAIL = 2.0**-50  # each of the three tails of step 2 and 3 (counted into delta)
#: step 5: the further tails of the reveal count mixed over (RevealMix)
REVEAL_TAILS = (1e-6, 1e-2, 0.5)
CELLS = 64  # default number of cells over m in [0, h/2]
MAX_CELLS = 4096
CELL_TRIES = 3  # CellPair.epsilon: cells inverted alone before the whole level is
LEVELS = (0.3, 0.5, 0.7, 0.85, 1.0)  # default levels: these quantiles of the budgets
LEVEL_MAX = 700.0  # default levels are kept at most this: 1/(1 + e^700) is a normal double (any level is valid)
MAX_USERS = 10**9  # the cost grows like sqrt(n) per cell (about 25 s at 10^8 users): refused above


def _mirror(p: Part, count: int) -> Part:
    """The law of count - X for X with law p (the errors are the same; they now live on all counts)."""
    return Part(
        count - (p.offset + p.width - 1),
        p.pmf[::-1].copy(),
        p.rho,
        p.eta,
        p.tau,
        0,
        count - p.mean,
        p.var,
    )


def hockey_both(Z: Part, victim_flip: float, eps: float) -> float:
    """Certified upper bound on max(H_{e^eps}(P || Q), H_{e^eps}(Q || P)) for P = Z + B(victim_flip), Q = Z +
    B(1 - victim_flip) (B(p): a bit that is 1 with probability p), from the computed law ``Z`` and its error
    bounds: true Z(k) <= (z(k) + e(k) + c(k)) / (1 - rho) and >= (z(k) - e(k)) / (1 + rho) with
    sum e <= eta, sum c <= tau. ``victim_flip`` in [0, 1/2], ``eps`` >= 0 finite."""
    if not isinstance(Z, Part):
        raise ValueError(f"Z must be a Part (binomial_part, convolve), got {Z!r:.80}")
    victim_flip = V.real("victim_flip", victim_flip, low=0.0, high=0.5, scalar=True)
    eps = V.real("eps", eps, low=0.0, high=700.0, scalar=True)
    return float(_CellLaw(Z, victim_flip)(np.array([eps]))[0])


class _CellLaw:
    """:func:`hockey_both` of one law at any array of finite eps in [0, 700] (checked by the callers).

    Each direction's terms are P(k) - e^eps Q(k) with P, Q rounded up and down from the law's bounds. They
    are sorted once by the ratio P/Q (largest first) with running sums of P and of Q, so at any eps the sum
    of the positive terms is P_c(j) - e^eps Q_c(j), j the number of ratios above e^eps: O(log width) per eps.

    Round-off. The terms as computed (at most six operations each, e^eps rounded down) differ from their
    exact values by gamma_6 (P + e^eps Q), at most 2 gamma_6 P for a term counted (its computed ratio is
    above e^eps, so e^eps Q <= (1 + u) P) or one left out whose exact value is positive (e^eps Q < P). The
    selection by computed ratios errs only on terms within a few u P of zero (about 7 u P). The running
    sums err by at most gamma_w of the sums they add, and their difference by u more, where e^eps Q_c <=
    (1 + u) P_c; in all at most (2 w + 19) u sum(P) <= 3 gamma(6 + w) sum(P) — free of e^eps (a bound
    growing with e^eps made delta(eps) rise to 1 from eps ~ 30). Then the additive errors of Z. (A second
    reader's check: 120,000 random laws against 200-bit arithmetic, at most 12 % of the allowance used.)"""

    def __init__(self, Z: Part, victim_flip: float):
        z = np.concatenate([[0.0], Z.pmf, [0.0]])
        up = z * ((1.0 + gamma(2)) / (1.0 - Z.rho))
        lo = z * ((1.0 - gamma(2)) / (1.0 + Z.rho))
        self.rho, self.eta, self.tau = Z.rho, Z.eta, Z.tau
        self.sides = []
        # a: P(report 1 | the input of P); the other input's is 1 - a
        for a in (victim_flip, 1.0 - victim_flip):
            b = 1.0 - a
            p_up = b * up[1:] + a * up[:-1]  # P(S = k) = (1 - a) Z(k) + a Z(k - 1)
            q_lo = a * lo[1:] + b * lo[:-1]
            ratio = np.divide(p_up, q_lo, out=np.full(p_up.size, np.inf), where=q_lo > 0)
            order = np.argsort(-ratio, kind="stable")
            arith = 3.0 * gamma(6 + p_up.size) * float(np.sum(p_up))
            self.sides.append(
                (
                    -ratio[order],  # ascending
                    np.concatenate([[0.0], np.cumsum(p_up[order])]),
                    np.concatenate([[0.0], np.cumsum(q_lo[order])]),
                    arith,
                )
            )

    def __call__(self, eps: np.ndarray) -> np.ndarray:
        ee = np.exp(eps) * (1.0 - gamma(2))  # lower bounds on e^eps
        ee_hi = np.exp(eps) * (1.0 + gamma(2))
        extra = (self.eta + self.tau) / (1.0 - self.rho) + ee_hi * self.eta / (1.0 + self.rho)
        best = np.zeros(eps.size)
        for neg_ratio, p_c, q_c, arith in self.sides:
            j = np.searchsorted(neg_ratio, -ee, side="left")  # the ratios above e^eps
            pos = np.maximum(p_c[j] - ee * q_c[j], 0.0)
            best = np.maximum(best, (pos + arith + extra) * (1.0 + gamma(4)))
        return np.minimum(best, 1.0)


def _upper_count(mean: float, var: float, tol: float, cap: int) -> int:
    """An integer that a sum of independent bits with this mean and variance exceeds with probability
    at most tol/2 (Bernstein), at most ``cap``."""
    return int(min(cap, np.ceil(mean + float(_bernstein_halfwidth(var, tol))) + 1))


def _rare_count(mean: float, var: float, tol: float, cap: int) -> int:
    """``_upper_count`` or, if smaller, the least k > mean with exp(-mean) (e mean / k)^k <= tol/2 (the
    Chernoff bound on P(X >= k) for a sum of independent bits with this mean): Bernstein's range term
    dominates for rare events such as the reveals of step 5."""
    if mean <= 0.0:
        return 0
    k_bern = _upper_count(mean, var, tol, cap)
    log_tail = lambda k: k * np.log(np.e * mean / k) - mean  # decreasing in k > mean
    lo, hi = int(np.floor(mean)) + 1, max(k_bern, int(np.floor(mean)) + 1)
    if log_tail(hi) > np.log(tol / 2):
        return k_bern
    while lo < hi:  # the least k with log_tail(k) <= log(tol/2)
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if log_tail(mid) > np.log(tol / 2) else (lo, mid)
    return int(min(k_bern, lo, cap))  # P(X > lo) <= P(X >= lo): one spare


def _lower_count(mean: float, var: float, tol: float) -> int:
    return int(max(0, np.floor(mean - float(_bernstein_halfwidth(var, tol))) - 1))


@dataclass(frozen=True)
class CellPair(Profile):
    """The cell bound of :mod:`gspa.privacy.shuffle.cells` for one level: ``level`` users of flip probability
    ``flip`` whose data the adversary chooses, ``uniform`` extra uniform bits, the differing user's
    flip probability ``victim_flip`` (0: revealing), ``cells`` cells, ``tails`` the tail mass already counted
    (steps 2 and 3 of the module text), ``delta_n`` the probability that the differing user reveals its
    input (Lemma 4's quaternary randomizer; step 5)."""

    level: int
    flip: float
    uniform: int
    victim_flip: float
    cells: int = CELLS
    tails: float = 0.0
    scope: str = ""
    delta_n: float = 0.0
    _laws: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        V.integer("level", self.level, low=0)
        V.real("flip", self.flip, low=0.0, high=0.5, low_open=True, high_open=True, scalar=True)
        V.integer("uniform", self.uniform, low=0)
        V.real("victim_flip", self.victim_flip, low=0.0, high=0.5, scalar=True)
        V.integer("cells", self.cells, low=1, high=MAX_CELLS)
        V.probability("tails", self.tails)
        V.probability("delta_n", self.delta_n, open_high=True)

    def _starts(self) -> range:
        """The first value m0 of each cell [m0, m0 + K] over m in [0, h/2]."""
        half = self.level // 2
        return range(0, half + 1, -(-(half + 1) // self.cells))  # ceil: values of m per cell

    def _law(self, m0: int) -> Part:
        """The law of the others' count of 1s in the cell that starts at ``m0`` (computed once)."""
        if m0 not in self._laws:
            h, ts, half, starts = self.level, self.flip, self.level // 2, self._starts()
            k = min(starts.step, half + 1 - m0) - 1  # the cell [m0, m0 + k]: k flexible users
            c0 = (
                _lower_count(2 * ts * k, 2 * ts * (1 - 2 * ts) * k * (1 + 1e-9) + 1e-9, TAIL)
                if k
                else 0
            )
            z = convolve(binomial_part(h - m0 - k, ts), _mirror(binomial_part(m0, ts), m0))
            self._laws[m0] = convolve(z, binomial_part(c0 + self.uniform, 0.5))
        return self._laws[m0]

    def _bound(self, m0: int) -> "_CellLaw":
        """The hockey-stick bound of the cell that starts at ``m0`` (built once)."""
        key = ("bound", m0)
        if key not in self._laws:
            self._laws[key] = _CellLaw(self._law(m0), self.victim_flip)
        return self._laws[key]

    def _delta1(self, e: float, starts=None) -> float:
        """The certified delta at one eps (:meth:`_delta_at`)."""
        return float(self._delta_at(np.array([e]), starts)[0])

    def _delta_at(self, eps: np.ndarray, starts=None, cells=None) -> np.ndarray:
        """The certified delta at each eps: the largest over the cells that start at ``starts`` (default:
        every cell; a few of them give a lower value, which only :meth:`epsilon` uses to find its root), or
        from the cells' largest bound ``cells`` at these eps when it is known."""
        top = (eps >= self._top()) & (self.victim_flip > 0)  # the revealing pair has no top
        finite = np.isfinite(eps) & ~top
        d = np.ones(eps.size)  # at eps = inf: 1 (only the revealing pair is searched up to inf)
        if finite.any():
            if cells is None:
                cells = np.max(self._cells_at(eps[finite], starts), axis=0)
            d[finite] = np.minimum(1.0, (cells + TAIL + self.tails) * (1.0 + gamma(3)))
        if self.delta_n != 0.0:
            d = np.minimum(1.0, (d + self.delta_n * (1.0 - d)) * (1.0 + gamma(3)))  # step 5
        # at or above the top every report is L-LDP (victim_flip rounded down: top >= L), so the shuffle is
        # L-DP: delta_n exactly (then delta = delta_n has a finite eps)
        d[top] = self.delta_n
        return d

    def _cells_at(self, eps: np.ndarray, starts=None) -> np.ndarray:
        """Each cell's bound on the hockey-stick divergence (rows) at each finite eps (columns)."""
        e = np.minimum(eps, 700.0)
        return np.array(
            [self._bound(m0)(e) for m0 in (self._starts() if starts is None else starts)]
        )

    def delta(self, eps):
        """Certified upper bound on delta(eps), every cell read once for all the eps."""
        eps_arr = V.nonnegative("eps", eps)
        d = self._delta_at(eps_arr.ravel())
        return d.reshape(eps_arr.shape) if eps_arr.ndim else float(d[0])

    def epsilon(self, delta: float) -> float:
        """The smallest eps (rounded up) whose certified delta is at most ``delta``, as
        ``Profile.epsilon`` finds it, with one cell in the root search: the first cell (m0
        = 0, the largest bound in every case measured) is inverted alone, and its eps is kept when the bound
        over every cell meets ``delta`` there (so it is certified, and no cell needs a smaller eps: each
        cell's delta is at most the level's). Otherwise the cell with the largest bound there is inverted
        next (at most ``CELL_TRIES`` cells), then the whole level."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        guess, worst = self._gaussian_guess(delta), [0]
        for _ in range(CELL_TRIES):
            e = invert(lambda x: self._delta1(x, worst), delta, self._top(), guess=guess)
            if not np.isfinite(e) or (self.victim_flip > 0 and e >= self._top()):
                return e  # no cell meets delta below the top, nor does the level; or delta is 0
            hs = self._cells_at(np.array([e]))[:, 0]
            if self._delta_at(np.array([e]), cells=hs.max(keepdims=True))[0] <= delta:
                return e
            worst, guess = [self._starts()[int(np.argmax(hs))]], e
        return super().epsilon(delta)

    def _probe(self, e: float) -> float:
        """The first cell's delta at ``e`` (a lower bound on the level's; it ranks levels)."""
        return self._delta1(e, [0])

    def _above(self, e: float, delta: float) -> bool:
        """Whether the certified delta at ``e`` exceeds ``delta``: cell by cell, the first cell first, and
        no further once one does (the cells' laws are computed as they are needed)."""
        if self.victim_flip > 0 and e >= self._top() or not np.isfinite(e):
            return self._delta1(e) > delta
        return any(self._delta1(e, [m0]) > delta for m0 in self._starts())

    def _top(self) -> float:
        return (
            float(np.log((1.0 - self.victim_flip) / self.victim_flip)) * (1 + 1e-12)
            if self.victim_flip > 0
            else np.inf
        )

    def _gaussian_guess(self, delta: float) -> float | None:
        m = 2.0 * self.flip * self.level + self.uniform
        if m < 10 or delta <= self.delta_n:
            return None
        mu = 2.0 * (1.0 - 2.0 * self.victim_flip) / np.sqrt(m)
        return gdp_epsilon(min(0.5, (delta - self.delta_n) / (1.0 - self.delta_n)), mu)


_CHUNK = 1 << 20  # users per chunk of the label sums (bounded memory at 10^8 users)


def _label_sums(eps, counts, flips: np.ndarray, delta=None) -> np.ndarray:
    """For each level t* (rows): users below it (t_j >= t*); the mean and variance of the number of users
    below it whose report is not a uniform bit (at the level or, with ``delta``, in the clear: h_b of step
    2), of the number above it at the level (h_a), and of the number below it in the clear (step 5; zero
    without ``delta``). The label probabilities take the flip probabilities' round-off (relative 8u) the
    harmful way: more level users below, fewer above. A user counts as below only when its computed flip
    exceeds t* by 8u (so its true flip is at least t*); one that might be above is counted above, with
    share a = t/t* at the level and the rest in the clear — valid either way, since a report in the clear
    or at the level t* can be turned into randomized response at any flip t >= t* (post-processing).
    ``counts`` None: one user per entry; ``delta`` None: all zero. Chunked: O(chunk) extra memory."""
    out = np.zeros((flips.size, 7))
    for lo in range(0, eps.size, _CHUNK):
        t = special.expit(-eps[lo : lo + _CHUNK])
        w = None if counts is None else counts[lo : lo + _CHUNK].astype(float)
        d = None if delta is None else delta[lo : lo + _CHUNK]
        t_lo = t * (1 - 8 * U)  # the true flip is at least this
        x = 0.5 - t_lo
        for r, ts in enumerate(flips):
            # certainly below the level (t is within 4u); the rest as above. The sums over each
            # side are dot products with its indicator (times the counts): no masked copies
            below = (t >= ts * (1 + 8 * U)).astype(float)
            side_b = below if w is None else below * w
            side_a = (1.0 - below) if w is None else (1.0 - below) * w
            a_b = np.clip(x / (0.5 - ts), 0.0, 1.0)  # the share at the level if below, if above
            a_a = np.clip(t_lo / ts, 0.0, 1.0)
            mc = vc = 0.0
            if d is not None:  # reveal first (delta), then randomized response (1 - delta)
                a_b = np.clip(a_b + d * (1.0 - a_b), 0.0, 1.0)
                a_a = np.clip(a_a * (1.0 - d), 0.0, 1.0)
                mc, vc = float(np.dot(d, side_b)), float(np.dot(d * (1.0 - d), side_b))
            out[r] += (
                float(np.sum(side_b)),
                np.dot(a_b, side_b),
                np.dot(a_b * (1.0 - a_b), side_b),
                np.dot(a_a, side_a),
                np.dot(a_a * (1.0 - a_a), side_a),
                mc,
                vc,
            )
    return out


def _smallest(eps: np.ndarray, d: np.ndarray) -> int:
    """The index of the smallest budget, ties broken by the smallest delta, then the first index (what
    ``np.lexsort((d, eps))[0]`` gives, in linear time)."""
    tied = np.flatnonzero(eps == eps.min())
    return int(tied[np.argmin(d[tied])])


def _quantiles(values: np.ndarray, weights, qs) -> np.ndarray:
    """The distinct weighted quantiles ``qs`` of ``values`` (weights None: one each)."""
    if weights is None:  # the order statistics alone: a partition, not a sort (cum[i] = i + 1)
        idx = np.minimum(
            np.ceil(np.asarray(qs) * values.size).astype(np.int64) - 1, values.size - 1
        )
        idx = np.maximum(idx, 0)
        return np.unique(np.partition(values, np.unique(idx))[idx])
    order = np.argsort(values)
    cum = np.cumsum(np.asarray(weights, float)[order])
    idx = np.searchsorted(cum, np.asarray(qs) * cum[-1], side="left")
    return np.unique(values[order][np.minimum(idx, values.size - 1)])


@dataclass(frozen=True, eq=False)
class RevealMix(Profile):
    r"""Step 5's mixture over the number R of users in the clear.

    ``pairs``: :math:`D_0, \dots, D_K`, the :class:`CellPair` with :math:`c_0 > c_1 > \dots > c_K` of them in
    the clear; ``weights``: :math:`p_1, \dots, p_K` with :math:`P(R > c_k) \le p_k`; ``tail``:
    :math:`p_0 \ge P(R > c_0)`. The bound F does not fall as R grows, so :math:`D_{k-1}` bounds it on the band
    :math:`c_k < R \le c_{k-1}`; with the computed bounds made non-increasing in k (each replaced by the largest
    of it and those after it, which keeps it a bound),

    .. math:: \delta \le p_0 + D_K + \sum_{k=1}^{K} p_k (D_{k-1} - D_k),

    Abel's summation of :math:`E[F] \le P(R > c_0) + \sum_k P(c_k < R \le c_{k-1}) D_{k-1} + P(R \le c_K) D_K`;
    the coefficients of the :math:`P(R > c_k)` are :math:`D_{k-1} - D_k \ge 0`, so their upper bounds serve. The
    sum of K + 2 non-negative terms of at most three operations each errs by at most a relative
    :math:`\gamma_{K+6}`. At or above the pieces' top every piece is exact (``delta_n``): so is the mixture."""

    pairs: tuple
    weights: tuple
    tail: float

    def _delta1(self, e: float) -> float:
        last = self.pairs[-1]
        if last.victim_flip > 0 and e >= last._top():
            return last._delta1(e)  # every report is L-LDP: delta_n exactly (each piece's value)
        d = np.array([p._delta1(e) for p in self.pairs])
        d = np.maximum.accumulate(d[::-1])[::-1]  # non-increasing in k
        mix = self.tail + d[-1] + float(np.dot(self.weights, d[:-1] - d[1:]))
        return min(1.0, mix * (1.0 + gamma(len(self.pairs) + 6)))

    @property
    def delta_n(self) -> float:
        """The differing user's reveal probability (the pieces', the mixture's floor)."""
        return self.pairs[-1].delta_n

    def _top(self) -> float:
        return self.pairs[-1]._top()

    def _gaussian_guess(self, delta: float) -> float | None:
        return self.pairs[-1]._gaussian_guess(delta)

    def _probe(self, e: float) -> float:
        """The last piece's first cell (a lower bound on the mixture: it ranks levels)."""
        return self.pairs[-1]._probe(e)

    def _above(self, e: float, delta: float) -> bool:
        return self.pairs[-1]._above(e, delta) or self._delta1(e) > delta


def _level_pair(
    sums, flip: float, victim_flip: float, cells: int, scope: str, delta_n: float = 0.0
) -> CellPair | RevealMix:
    """The bound of one level from its row of ``_label_sums`` (steps 2 and 5): a :class:`CellPair`, or with
    users in the clear the :class:`RevealMix` over their count."""
    nb, mb, vb, ma, va, mc, vc = sums
    n_b, pad = int(round(nb)), 1 + 1e-9
    hb = _upper_count(mb * pad + 1e-9, vb * pad + 1e-9, TAIL, n_b)
    ha = _lower_count(max(ma / pad - 1e-9, 0.0), va * pad + 1e-9, TAIL)
    piece = lambda hc: CellPair(
        max(0, hb - hc + ha), float(flip), n_b - hb, float(victim_flip), cells, 2 * TAIL, scope,
        delta_n=delta_n,
    )  # fmt: skip
    if mc <= 0:
        return piece(0)
    # users below the level in the clear: more than c_k of them with probability at most p_k / 2 (step 5)
    counts, weights = [_rare_count(mc * pad + 1e-9, vc * pad + 1e-9, TAIL, n_b)], []
    for p in REVEAL_TAILS:
        c = _rare_count(mc * pad + 1e-9, vc * pad + 1e-9, p, n_b)
        if c < counts[-1]:  # an equal count adds a zero term
            counts.append(c)
            weights.append(p / 2)
    return RevealMix(tuple(map(piece, counts)), tuple(weights), TAIL)


def cells_pair(
    eps,
    variant: str = "randomized",
    *,
    delta=None,
    counts=None,
    levels=None,
    cells: int = CELLS,
    victim: float | None = None,
):
    """Certified privacy profile of shuffled binary randomized response with budgets ``eps`` (or a
    histogram: ``counts[g]`` users with ``eps[g]``), the worst case over the other users' data bounded
    by cells (see :mod:`gspa.privacy.shuffle.cells`). ``delta`` (None: all 0): users' delta_i of Lemma 4's
    quaternary randomizer (step 5). ``levels``: the budgets eps* > 0 of the levels tried (default:
    quantiles 0.3, 0.5, 0.7, 0.85 and 1 of the budgets, at most 700); ``cells`` in [1, 4096]; at most
    10^9 users (``MAX_USERS``: its cost grows like the square root of n; above, use the clone pair).
    ``victim``: the differing user's budget when it is known and it never reveals its input (in the randomized
    variant; the revealing variant reveals it, as always); ``eps``, ``delta`` and ``counts`` are then the other
    users, all of them (steps 1-3 and 5 for that user, with delta_j = 0: step 4 is not needed). Returns a
    :class:`gspa.privacy.BestOf` of :class:`gspa.privacy.shuffle.cells.CellPair` (with users in the clear, of
    :class:`gspa.privacy.shuffle.cells.RevealMix`)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    cells = V.integer("cells", cells, low=1, high=MAX_CELLS)
    least = 2 if victim is None else 1  # users in all: the others and the differing user
    if counts is None:
        eps, d = check_budgets(eps, delta, least)
        c = None
    else:
        eps, d, c = check_histogram(eps, delta, counts, least)
    n = (eps.size if c is None else int(c.sum())) + (victim is not None)
    if n > MAX_USERS:
        raise ValueError(
            f"counts: the cell bound is computed for at most {MAX_USERS:.0e} users (its cost grows like "
            f"the square root of n, about 25 s at 10^8), got {n}; the clone pair "
            "(reduction='blanket') costs what its distinct budgets cost"
        )
    if victim is None:
        # the smallest budget (then delta) leaves the others: its contribution is subtracted from the sums
        j = _smallest(eps, d)
        L, delta_n = float(eps.max()), float(d.max())
        d = np.maximum(d, d[j]) if delta_n > 0 else None  # the others' delta at least its (step 5)
    else:  # the differing user is known and never reveals: the others are the users given
        L = V.real("victim", victim, low=0.0, high=np.inf, high_open=True, scalar=True)
        delta_n, d = 0.0, d if d.max() > 0 else None
    victim_flip = 0.0 if variant == "revealing" else float(special.expit(-L)) * (1 - 8 * U)
    if levels is None:  # quantiles of the budgets (any level is valid)
        step = max(1, eps.size // 10**6)
        levels = np.minimum(
            _quantiles(eps[::step], None if c is None else c[::step], LEVELS), LEVEL_MAX
        )
        levels = levels[special.expit(-levels) < 0.5]
        levels = levels if levels.size else np.array([1.0])
    levels = np.atleast_1d(V.real("levels", levels, low=0.0, low_open=True))
    flips = special.expit(-levels) * (
        1 - 16 * U
    )  # rounded down: a user whose budget is a level is below it
    flips = flips[(flips > 0.0) & (flips < 0.5)]
    if not flips.size:
        raise ValueError(f"levels must have a value with 0 < 1/(1 + e^level) < 1/2, got {levels!r}")
    sums = _label_sums(eps, c, flips, d)
    if victim is None:
        sums -= _label_sums(eps[j : j + 1], None, flips, None if d is None else d[j : j + 1])
        sums[:, 1:] = np.maximum(sums[:, 1:], 0.0)
    name = "binary randomized response" if d is None else "Lemma 4's quaternary randomizer"
    scope = f"shuffled {name}, worst case over the data by {cells} cells ({variant} pair)"
    pairs = tuple(
        _level_pair(row, ts, victim_flip, cells, scope, delta_n) for row, ts in zip(sums, flips)
    )
    return BestOf(pairs, scope)


#: LaplaceCells: the distance cover's edges (each interval costs one cell bound; the worst lies next to d = 1)
LAPLACE_CELL_EDGES = (0.0, 0.2, 0.35, 0.5, 0.6, 0.7, 0.8, 0.87, 0.93, 0.97, 0.99, 1.0)


@dataclass(frozen=True, eq=False)
class LaplaceCells(Profile):
    r"""The Laplace mechanism x + Lap(1/v) on inputs in [0, 1], ``users`` users with one budget v: the cell bound
    of shuffled binary randomized response, reached through a dominance that keeps each other user's report
    (not only its clone component) — every differing user, every pair of its inputs.

    **Each report as randomized response.** Let the differing user's inputs be :math:`x^0 < x^1`, d their
    distance, L = v d. Its densities are L-DP, so :math:`f^b = q\,Q^b + (1 - q)\,Q^{1-b}` with
    :math:`q = e^L/(1 + e^L)` and the densities :math:`Q^b = (e^L f^b - f^{1-b})/(e^L - 1)`: its report is
    randomized response with budget L on its input, each symbol b then drawn from :math:`Q^b`. Another user
    at x has :math:`f_x \ge a\,Q^0 + b\,Q^1` with :math:`a = K e^{-v|x - x^0|}`, :math:`b = K e^{-v|x - x^1|}`,
    :math:`K = 1/(1 + e^{-L})`. For x outside :math:`[x^0, x^1]`, say x < x⁰: :math:`a = qe^{-v(x^0 - x)}`,
    :math:`b = a e^{-L}`, so :math:`a Q^0 + b Q^1 = e^{-v(x^0 - x)} f^0 \le f_x` (the triangle inequality).
    For x inside: left of x⁰ and right of x¹ the two sides are equal, and on :math:`[x^0, x]` the difference
    :math:`f_x - aQ^0 - bQ^1` is :math:`(C - B)e^{vy} - A e^{-vy}` with A ≥ 0, zero at x⁰ and increasing since
    :math:`C - B \propto e^{v(x^1 - x)}\sinh L - \sinh(v(x - x^0)) \ge 0` (likewise on :math:`[x, x^1]`).
    Any smaller a and b keep the inequality (Q ≥ 0): cut the larger of the two down to :math:`e^\ell` times
    the smaller, for a budget ℓ ≤ v a₀ (a₀ the interval's smallest distance, below). With probability
    s(x) = a + b the other user is then randomized response with budget ℓ on some input bit (a ratio a/b
    inside :math:`[e^{-\ell}, e^\ell]` is a mixture of the two inputs), its symbol drawn from the same Q, and
    otherwise it draws from what is left of :math:`f_x`, which does not depend on the differing user's data.

    **How many take part.** Outside :math:`[x^0, x^1]` the ratio a/b is :math:`e^{L} \ge e^\ell`, so b is kept
    and :math:`s(x) = K e^{-v|x - x^{\mathrm{far}}|}(1 + e^\ell) \ge K e^{-v}(1 + e^\ell)` (the far input is within 1
    of x). Inside, where the ratio is cut, the same bound holds (the far input is within d ≤ 1); where it is
    not, :math:`a + b \ge 2\sqrt{ab} = 1/\cosh(L/2)`. So on an interval [a₀, b₀] of distances every other user
    takes part with probability at least

    .. math:: s = \min\big(1/\cosh(v b_0/2),\ e^{-v}(1 + e^\ell)/(1 + e^{-v a_0})\big),

    as randomized response with budget ℓ. ``parameters`` takes the smallest ℓ at which the second term reaches
    the first (more noise, as many users), at least 0 and below v a₀; with ℓ = v a₀ the second term is
    :math:`e^{-v(1 - a_0)}`, the participation of the others at budget L.

    **The bound.** The cell bound holds for an observer told which component every user drew (the module text,
    steps 1 and 5), so telling it who drew the rest, and their draws, only helps it. A user that takes part
    with probability s(x) ≥ s takes part with probability s, and otherwise (probability 1 − s) takes part
    with probability :math:`(s(x) - s)/(1 - s)` and draws from the rest of :math:`f_x` else. Told which users
    fall in that second case and their bits (a mixture's bit, drawn with odds a/b, not an input), the observer
    can draw all their reports itself (it knows their inputs), so it may as well see those bits in the clear:
    Lemma 4's reveal. So the shuffled reports are a post-processing of shuffled binary randomized response in
    which the differing user has budget L and never reveals and every other user
    has budget ℓ and reveals its input with probability 1 − s (Lemma 4's quaternary randomizer):
    :func:`cells_pair` with ``victim=L``. A larger L weakens the pair, so on an interval [a₀, b₀] the pair with
    L = v b₀ covers every distance in it; the bound is the largest over the intervals of ``LAPLACE_CELL_EDGES``
    (:class:`gspa.privacy.WorstOf`). Rounding: L up, ℓ below v a₀, s down (1 − s up). Not for the revealing variant
    (:class:`gspa.privacy.LaplaceBands` covers it)."""

    v: float
    users: int  # every user, the differing one included
    scope: str = ""
    MAX_USERS = MAX_USERS  # cells_pair's limit
    MAX_V = 30.0  # beyond, 1 - s rounds to 1 (the bound is 1 anyway): use LaplaceBands

    def __post_init__(self):
        V.real("v", self.v, low=0.0, high=self.MAX_V, low_open=True, scalar=True)
        V.integer("users", self.users, low=2, high=MAX_USERS)

    def parameters(self, a: float, b: float) -> tuple[float, float, float]:
        """(L, ℓ, reveal probability 1 − s) of the pair covering the distances in [a, b]: L = v b rounded up;
        ℓ the smallest budget at which s reaches the midpoint's 1/cosh(v b/2), at least 0 and below v a; s
        rounded down."""
        v = float(self.v)
        cap, k = 1.0 / float(np.cosh(0.5 * v * b)), 1.0 + float(np.exp(-v * a))  # k = 1/K at d = a
        ell = min(float(np.log(max(k * float(np.exp(v)) * cap - 1.0, 1.0))), v * a * (1 - 4 * U))
        s = min(cap, float(np.exp(-v)) * (1.0 + float(np.exp(ell))) / k) * (1 - 16 * U)
        return v * b * (1 + 4 * U), ell, float(np.nextafter(1.0 - s, 2.0))  # 1 - s rounded up

    @classmethod
    def applies(cls, v: float) -> bool:
        """Whether v is at most ``MAX_V`` (so every interval's pair takes part with probability above 2^-43)."""
        return 0.0 < float(v) <= cls.MAX_V

    def _pairs(self) -> tuple:
        if "pairs" not in self.__dict__:
            out = []
            for a, b in zip(LAPLACE_CELL_EDGES[:-1], LAPLACE_CELL_EDGES[1:]):
                L, ell, reveal = self.parameters(a, b)
                out.append(
                    cells_pair(
                        np.array([ell]),
                        delta=np.array([reveal]),
                        counts=np.array([self.users - 1]),
                        victim=L,
                    )
                )
            object.__setattr__(self, "pairs", WorstOf(tuple(out), self.scope))
        return self.__dict__["pairs"]

    def delta(self, eps):
        """Certified upper bound on δ(ε): the largest over the distance intervals."""
        return self._pairs().delta(eps)

    def _delta1(self, e: float) -> float:
        return float(self._pairs().delta(e))

    def epsilon(self, delta: float) -> float:
        """The largest of the intervals' ε(δ) (each rounded up)."""
        return self._pairs().epsilon(delta)

    def _top(self) -> float:
        return float(self.v)

    def _gaussian_guess(self, delta: float) -> float | None:
        return None
