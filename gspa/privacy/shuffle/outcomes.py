"""The observed outcomes of a reduced pair, enumerated: a dominating pair with explicit masses (small n), for
composition and the dp_accounting export. Checks: the accountant chapter (book/chapters/accountant/using).

A :class:`~gspa.privacy.shuffle.pairs.ReducedPair` emits the outcome (m, a) — m clones, a of the m + 1
clone-type reports equal to 0 — with probability w(m) [q b_m(a - 1) + (1 - q) b_m(a)] under one input
(q and 1 - q swapped under the other), b_m the Binomial(m, 1/2) pmf, plus a 'no information' outcome and
the revealing outcomes (see :mod:`gspa.privacy.shuffle.accountant`). Enumerating them needs the law w of the
clone count M, which is only known up to certified error bounds, and a cut of each binomial:

* w is replaced by a law *stochastically smaller* than the true one, built from the certified lower
  bounds on its upper tails (:meth:`~gspa.privacy.shuffle.clones.CloneLaw.tail_bounds`), the missing mass put at
  zero clones; clone counts of mass below ``TAIL`` go to zero clones as well. Fewer clones is a worse
  pair (one more clone is a post-processing), so this pair dominates the one with the true law;
* each binomial is cut to [m/2 - t, m/2 + t], where Hoeffding's bound leaves at most ``TAIL`` outside;
  that mass is counted as revealing in both directions.

Used by :func:`gspa.privacy.interop.dpaccounting.to_pld` (the pair handed to ``dp_accounting``) and by
:class:`Enumerated` (the pair's privacy curve at many eps at once, for :mod:`gspa.privacy.shuffle.composition`).
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

from gspa.util import validate as V
from gspa.privacy.numerics import U, gamma
from gspa.privacy.shuffle.pairs import ReducedPair

TAIL = 1e-30  # mass cut from the clone law and from each binomial, moved to the worst case
MAX_OUTCOMES = 5 * 10**6
MASS_REL = 1e-10  # relative error allowed on each binomial pmf (Boost through scipy; the largest
# measured against 40-digit mpmath up to m = 10^7 is 3.3e-12, tests/privacy)


def _clone_weights(law):
    """(m, w): clone counts and the masses of a law stochastically below ``law``'s true one (see the
    module text); w sums to 1 up to rounding, the rest of the mass at m = 0."""
    lower, _ = law.tail_bounds()  # certified P(M >= offset + j) from below
    tails = np.minimum.accumulate(np.clip(lower, 0.0, 1.0))
    w = tails - np.append(tails[1:], 0.0)
    m = law.support.astype(np.int64)
    keep = w >= TAIL
    m, w = m[keep], w[keep]
    w0 = max(0.0, 1.0 - float(w.sum()))
    if w0 > 0:
        if m.size and m[0] == 0:
            w = w.copy()
            w[0] += w0
        else:
            m, w = np.concatenate([[0], m]), np.concatenate([[w0], w])
    return m, w


def _windows(m, w):
    """(lo, hi, lost): the counts a = lo .. hi of Binomial(m, 1/2) kept (outside, Hoeffding leaves at most
    ``TAIL``: 2 exp(-2 t^2 / m) = TAIL) and an upper bound on the mass cut, over all m with weights w."""
    t = np.sqrt(m * np.log(2.0 / TAIL) / 2.0)
    lo = np.maximum(0, np.ceil(m / 2.0 - t)).astype(np.int64)
    hi = np.minimum(m, np.floor(m / 2.0 + t)).astype(np.int64)
    cut = (lo > 0) | (hi < m)
    return lo, hi, float(np.sum(w[cut])) * TAIL * 1.01


def _dominating_measure(law):
    """(m, nu): a measure on clone counts with E_nu[H] >= E[H(M)] for the true clone count M and every
    decreasing H >= 0 — the measure whose expectation :meth:`~gspa.privacy.shuffle.clones.CloneLaw.upper`
    bounds E[H(M)] by: the computed law, each half's error mass spread like the other half's computed
    law from the lowest count where that error lives, the final convolution's error at the support's
    first count (or its relative error), all divided by the halves' (1 - rho). Its total mass is at
    least 1. Entries below ``TAIL`` are moved to the lowest count (the worst). Unlike
    :func:`_clone_weights` it charges the law's computed error where it can lie, not at zero clones."""
    terms = []  # (first count, masses)
    if len(law.halves) == 1:
        p = law.halves[0]
        terms += [(law.offset, law.pmf), (p.low, np.array([p.eta + p.tau]))]
        scale = 1.0 / (1.0 - p.rho)
    else:
        A, B = law.halves
        kind, f = law.fresh
        if kind == "rel":
            terms.append((law.offset, law.pmf / (1.0 - f)))
        else:
            terms += [(law.offset, law.pmf), (law.offset, np.array([f]))]
        eA, eB = A.eta + A.tau, B.eta + B.tau
        terms += [
            (B.offset + A.low, eA * B.pmf),
            (A.offset + B.low, eB * A.pmf),
            (A.low + B.low, np.array([eA * eB])),
        ]
        scale = 1.0 / ((1.0 - A.rho) * (1.0 - B.rho))
    first = min(t[0] for t in terms)
    last = max(t[0] + t[1].size for t in terms)
    nu = np.zeros(last - first)
    for start, masses in terms:
        nu[start - first : start - first + masses.size] += masses
    nu *= scale * (1 + gamma(8))
    m = first + np.arange(nu.size)
    small = nu < TAIL
    if small.any() and not small.all():
        moved = float(nu[small].sum())
        nu[small] = 0.0
        nu[0] += moved * (1 + gamma(nu.size))  # the lowest count: the worst
    keep = nu > 0
    return m[keep], nu[keep]


def _check(pair):
    if not isinstance(pair, ReducedPair):
        raise ValueError(
            f"pair must be a ReducedPair (personalized_pair with 'binary-rr' or 'quaternary', "
            f"fmt21_pair, fmt23_pair, clone_pair), got {pair!r:.80}"
        )
    return pair


def count(pair) -> int:
    """The number of finite outcomes :class:`Enumerated` enumerates for ``pair`` (a ReducedPair)."""
    m, w = _dominating_measure(_check(pair).clones)
    lo, hi, _ = _windows(m, w)
    return int(np.sum(hi - lo + 2))


def _enumerated(pair) -> "Enumerated":
    """``Enumerated(pair)``, built once per pair (kept with it)."""
    if "enumerated" not in pair._cache:
        pair._cache["enumerated"] = Enumerated(pair)
    return pair._cache["enumerated"]


class Enumerated:
    """Certified upper bounds on the privacy curve delta(eps) of ``pair`` (a ReducedPair) from its
    enumerated outcomes, for many eps at once (``curve(eps)``, eps a 1-d array >= 0): with the clone
    counts weighted by :func:`_dominating_measure` and the binomials cut as in the module text, the sum
    over outcomes of (P0 - e^eps P1)_+ = E_nu[H_m(eps)] >= E[H_M(eps)] (both directions; the larger is
    returned), from running sums over the outcomes sorted by privacy loss (built once).

    For eps >= L (the differing user's log-odds) only the mass at +inf counts: every outcome's likelihood
    ratio lies in [e^-L, e^L]. Counted: the revealing and cut masses (at +inf), a relative error ``MASS_REL`` on every binomial mass
    and the error of the computed losses (both on the outcomes whose loss may exceed eps), the rounding
    of the running sums (gamma(outcomes + 8) of the sums' terms), and mass that underflows (at most
    1e-300 per outcome). At most ``MAX_OUTCOMES`` outcomes (ValueError)."""

    one_pass = True  # every eps read from the same sorted sums: many nodes cost little

    def __init__(self, pair):
        m, w = _dominating_measure(_check(pair).clones)
        lo, hi, lost = _windows(m, w)
        sizes = hi - lo + 2  # a = lo .. hi + 1
        total = self.outcomes = int(sizes.sum())
        if total > MAX_OUTCOMES:
            raise ValueError(
                f"pair: about {total:.3g} outcomes to enumerate (at most MAX_OUTCOMES = "
                f"{MAX_OUTCOMES:.0e})"
            )
        # q and 1 - q each from its own expit (1 - q by subtraction loses u e^L, more than MASS_REL for L > 14)
        q, q1 = (
            (float(special.expit(pair.log_odds)), float(special.expit(-pair.log_odds)))
            if np.isfinite(pair.log_odds)
            else (1.0, 0.0)
        )
        mm = np.repeat(m, sizes)
        a = np.repeat(lo - np.cumsum(sizes) + sizes, sizes) + np.arange(total)
        ww = np.repeat(w, sizes) * (pair.weight * (1.0 - pair.delta_n))
        b_prev, b_here = stats.binom.pmf(a - 1, mm, 0.5), stats.binom.pmf(a, mm, 0.5)
        P0 = ww * (q * b_prev + q1 * b_here)
        P1 = ww * (q1 * b_prev + q * b_here)
        inf = lost + pair.delta_n + total * 1e-300  # the cut tails, the revealing event, underflow
        self.max_loss = float(pair.log_odds)  # every finite outcome's |loss| is at most L
        self._sides = []
        for X, Y in ((P0, P1), (P1, P0)):
            only = (Y == 0) & (X > 0)  # X-only outcomes: infinite loss
            fin = (X > 0) & (Y > 0)
            loss = np.log(X[fin]) - np.log(Y[fin])
            order = np.argsort(loss)[::-1]  # largest first
            self._sides.append(
                (
                    float(X[only].sum()) * (1 + MASS_REL + gamma(total)) + inf,
                    -loss[order],
                    np.cumsum(X[fin][order]),
                    np.cumsum(Y[fin][order]),
                )
            )

    def __call__(self, eps) -> np.ndarray:
        """Delta at each ``eps`` of a 1-d array."""
        eps = V.nonnegative("eps", eps)
        if eps.ndim != 1:
            raise ValueError(f"eps must be a 1-d array, got shape {eps.shape}")
        ee = np.exp(np.minimum(eps, 700.0))
        # the outcomes whose true loss may exceed eps: computed loss > eps - eta (the masses' relative
        # error r moves a loss by at most 2r; each logarithm errs by u |log| <= 745 u, the difference by
        # u |loss|)
        eta = 2 * MASS_REL + U * (4 * 745.0 + 64 * (1.0 + np.minimum(eps, 1e300)))
        out = np.zeros(eps.size)
        for inf, neg_loss, cx, cy in self._sides:

            def sums(e):  # running sums over the losses > e
                k = np.searchsorted(neg_loss, -e, "left")
                return [
                    np.where(k > 0, c[np.maximum(k - 1, 0)], 0.0)
                    if c.size
                    else np.zeros(np.shape(e))
                    for c in (cx, cy)
                ]  # no finite outcome: every report reveals

            (A, B), (A2, B2) = sums(eps), sums(eps - eta)
            slack = (MASS_REL + eta + gamma(self.outcomes + 8)) * (A2 + ee * B2)
            finite = np.where(eps >= self.max_loss, 0.0, np.maximum(A - ee * B, 0.0) + slack)
            out = np.maximum(out, inf + finite)
        return np.minimum(out * (1 + gamma(4)), 1.0)

    @property
    def floor(self) -> float:
        """The curve's value at eps >= every finite loss: its mass at +inf."""
        return max(side[0] for side in self._sides) * (1 + gamma(4))
