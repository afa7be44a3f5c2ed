"""Certified lower bounds on shuffled protocols: explicit pairs of neighbouring data sets whose exact delta(eps),
with every error subtracted, brackets the certified upper bounds from below (binary and k-ary randomized
response, Lemma 4's quaternary randomizer, Laplace thresholded). Not a paper item: the paper states upper bounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from gspa.privacy import randomizers
from gspa.privacy.numerics import SF_REL, gamma, invert
from gspa.privacy.profiles import VARIANTS, Combined, check_budgets, check_histogram
from gspa.privacy.shuffle.clones import CloneLaw, clone_law, sum_and_difference
from gspa.util import validate as V


@dataclass(frozen=True)
class LowerBound:
    """A certified *lower* bound on the privacy profile of shuffled binary randomized response, from
    one explicit pair of neighbouring data sets: the other users' inputs are fixed, user j's input is
    0 or 1. The shuffled reports are equivalent to the number of 1s, C = S + (user j's report), where
    S (the others' 1s) is a Poisson-binomial law computed with certified tail bounds
    (:meth:`gspa.privacy.CloneLaw.tail_bounds`); any threshold event {C >= t} or {C <= t} gives
    delta(eps) >= P(event | one input) - e^eps P(event | the other), with every error subtracted.
    The likelihood ratio is monotone in C (S is log-concave), so thresholds are the optimal events.

    ``reveal`` (Lemma 4's quaternary randomizer, the others all holding 0): with this probability user j
    reveals input 1 in a symbol that no other report can carry (a flag F), so the events are
    {C >= t or F} and {C <= t - 1, no F}; under input 0 its reveal is taken as a 0 (a post-processing)."""

    others: CloneLaw
    eps_j: float
    extra: float  # TV bound for the round-off of the report probabilities themselves
    description: str = ""
    reveal: float = 0.0

    def _delta1(self, e: float) -> float:
        lo, hi = self.others.tail_bounds()
        lo = np.concatenate([[lo[0]], lo, [0.0]]) - self.extra  # S(>= offset - 1 + i)
        hi = np.concatenate([[1.0], hi, [min(1.0, hi[-1])]]) + self.extra
        lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
        r = self.reveal
        a0 = float(special.expit(-self.eps_j)) * (1 - r)  # P(report 1 | x), no flag
        a1 = float(special.expit(self.eps_j)) * (1 - r)
        z0, z1 = 1 - a0, 1 - a1 - r  # P(report 0 | x), no flag
        # P_b(C >= t, no flag) = z_b S(>= t) + a_b S(>= t - 1), for t = offset .. offset + width
        up1_lo = z1 * lo[1:] + a1 * lo[:-1]
        up0_hi = z0 * hi[1:] + a0 * hi[:-1]
        ee = np.exp(min(e, 700.0))
        cands = [r * (1 - gamma(4))]  # {F}: never under input 0
        for pos, neg in (
            (r + up1_lo, up0_hi),
            (1.0 - up0_hi, (1.0 - r) - up1_lo),
        ):  # {C >= t or F}; {C <= t - 1}
            with np.errstate(over="ignore", invalid="ignore"):
                v = np.where(neg > 0, pos - ee * neg, pos) - gamma(16) * (
                    pos + np.where(neg > 0, ee * neg, 0.0)
                )
            cands.append(np.nanmax(v))
        return float(max(max(cands), 0.0))

    def delta(self, eps):
        """Certified lower bound on the protocol's delta(eps)."""
        eps_arr = V.nonnegative("eps", eps)
        out = np.array([self._delta1(float(e)) for e in eps_arr.ravel()])
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """Certified lower bound on the protocol's eps(delta): the largest eps (rounded down) at which
        this pair still has delta(eps) > ``delta`` (0 if none; inf if its reveal alone exceeds it)."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        if self._delta1(np.inf) > delta:
            return float("inf")
        return invert(self._delta1, delta, self.eps_j, upper=False)


class BestLower(Combined):
    """The largest of several lower bounds (each one valid, so their maximum is)."""

    _pick = (np.maximum, max)


def _rounding_tv(p, counts, rel: int = 4) -> float:
    """A bound on the total variation between the count of 1s with the computed report probabilities p
    (each within a relative ``rel`` u of the true one; 4 for scipy's expit) and with the true ones, for
    ``counts[g]`` users of probability ``p[g]``: per group the smaller of c |dp| (a union bound) and
    sqrt(c / 2) |dp| / sqrt(p (1 - p)) (Pinsker with KL(Bin(c, p') || Bin(c, p)) <= c dp^2 / (p (1 - p)),
    the chi-square bound), summed over the groups (TV of independent sums is subadditive). At 10^9
    users this is ~1e-11 where the union bound alone gives ~1e-7."""
    dp = gamma(rel + 1) * p
    with np.errstate(divide="ignore"):
        pinsker = np.sqrt(counts / 2.0) * dp / np.sqrt(p * (1.0 - p))
    return float(np.minimum(counts * dp, np.where(np.isfinite(pinsker), pinsker, np.inf)).sum()) * (
        1 + gamma(8)
    )


class _BinaryView:
    """How a lower bound sees a randomizer as binary randomized response on inputs 0 and 1 (a post-processing):
    binary randomized response itself."""

    scope = "shuffled binary randomized response, explicit neighbouring data sets"

    def flip(self, e, d=0.0):  # P(report 1 | input 0): expit(-e) (relative error <= 4u)
        return special.expit(-e) * (1.0 - d)

    def keep(self, e, d=0.0):  # P(report 1 | input 1)
        return special.expit(e)

    def budget(self, e, d=0.0):  # the differing user's budget as binary RR, rounded down
        return float(e)

    def differing(self, eps, d):  # the most liberal user
        return [int(np.argmax(eps))]


class _QuaternaryView(_BinaryView):
    """Lemma 4's randomizer: every reveal taken as its bit; flip probability (1 - d) expit(-e) (<= 6u)."""

    scope = "shuffled Lemma 4 quaternary randomizer, explicit neighbouring data sets"

    def keep(self, e, d=0.0):
        return 1.0 - self.flip(e, d)

    def budget(self, e, d=0.0):  # its reveal taken as its bit, rounded down
        if d == 0.0:
            return float(e)
        t = float(self.flip(e, d)) * (1.0 + gamma(8))
        return float(np.log((1.0 - t) / t) * (1.0 - 1e-12))

    def differing(self, eps, d):  # the most liberal user, and the one with the largest delta
        return sorted({int(np.lexsort((d, eps))[-1]), int(np.lexsort((eps, d))[-1])})


class _LaplaceView(_BinaryView):
    """x + Lap(1/e) thresholded at 1/2: flip probability e^(-e/2)/2 (<= 2u), budget ln(2 e^(e/2) - 1)."""

    scope = "shuffled Laplace mechanism on [0, 1], reports thresholded at 1/2, explicit neighbouring data sets"

    def flip(self, e, d=0.0):
        return 0.5 * np.exp(-0.5 * e)

    def keep(self, e, d=0.0):
        return 1.0 - self.flip(e, d)

    def budget(self, e, d=0.0):
        return float(np.log1p(2.0 * np.expm1(0.5 * e)) * (1.0 - 1e-12))


_VIEWS = {"binary-rr": _BinaryView(), "quaternary": _QuaternaryView(), "laplace": _LaplaceView()}


def lower_bound(
    eps,
    randomizer: str = "binary-rr",
    *,
    k: int | None = None,
    counts=None,
    variant: str = "randomized",
    delta=None,
):
    """Certified lower bounds on the privacy profile of shuffled binary randomized response with
    budgets ``eps`` (or the histogram ``counts[g]`` users with budget ``eps[g]``): the most liberal user
    differs, the others all hold 0 (equivalently all 1), or hold 0 and 1 in equal numbers within each
    budget (alternately in the order of their budgets — both data sets' laws come from one computation,
    ``gspa.privacy.shuffle.clones.sum_and_difference``; with a histogram, the odd user of a group holds 0);
    the larger bound is returned. Any explicit pair of data sets gives a valid lower bound, so the histogram form
    costs what the upper bound's does: it grows with the number of distinct budgets, not of users.
    Compare with :func:`personalized_pair` (upper).

    ``randomizer="k-rr"`` with ``k >= 3``: k-ary randomized response, the largest budget differs and the
    others hold a third symbol (:class:`gspa.privacy.KaryLowerBound`; Wang et al.'s k-RR
    pair).

    ``randomizer="laplace"``: x + Lap(1/εᵢ) on inputs in [0, 1]. Every report is thresholded at 1/2 (a
    post-processing): on inputs 0 and 1 that is binary randomized response with flip probability
    exp(−εᵢ/2)/2, i.e. budget ln(2 exp(εᵢ/2) − 1), whose lower bound above is a lower bound for shuffled
    Laplace (the differing user's thresholded budget rounded down: a smaller budget is a post-processing).

    ``randomizer="quaternary"`` with ``delta`` (Lemma 4's (εᵢ, δᵢ) randomizer: a reveal of the input in a
    symbol of its own with probability δᵢ, else binary randomized response): every other user's reveal is
    taken as its bit (a post-processing; flip probability (1 − δᵢ)/(1 + exp(εᵢ))); with the others all at 0
    the differing user's reveal of a 1 is a symbol nobody else sends (:class:`LowerBound`'s ``reveal``), with
    the others half at 1 its reveal is taken as its bit too. Both the most liberal user (largest εᵢ, then δᵢ)
    and the user with the largest δᵢ (then εᵢ) are tried as the differing user; the larger bound is returned.

    ``variant="revealing"`` (binary randomized response): the differing user reports its input in the clear
    (L = inf), the protocol that the revealing pair of :func:`personalized_pair` covers — a lower bound for
    that variant, to set its upper bounds against. There the user with the smallest budget differs (its
    budget is not used; the others are then the least noisy).

    Not a paper item: the paper states upper bounds only; this lower bound brackets the true value."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    spec = randomizers.get(randomizer)
    if variant not in spec.lower:
        takers = tuple(r.name for r in randomizers.RANDOMIZERS if variant in r.lower)
        raise ValueError(
            f"variant {variant!r} lower bounds are implemented for randomizers {takers}, got {randomizer!r}"
        )
    k = spec.check_k(k)
    if k is not None and k > 2:
        return kary_lower_bound(eps, k, counts=counts)
    if delta is not None and not spec.local_delta:
        raise ValueError(
            f"delta is only used with randomizer='quaternary', got delta with {randomizer!r}"
        )
    view = _VIEWS["binary-rr" if k == 2 else randomizer]
    scope = view.scope

    def victim(
        e, d, r
    ):  # the differing user's budget when its reveal r is a flag and the rest d - r a bit
        return np.inf if variant == "revealing" else view.budget(e, d - r)

    def differing(eps, d):
        if variant == "revealing":  # revealing: the user with the smallest budget (the others are
            return [int(np.argmin(eps))]  # then the least noise; its own budget does not matter)
        return view.differing(eps, d)

    bounds = []
    if counts is None:  # both data sets from one computation (sum_and_difference)
        eps, d = check_budgets(eps, delta)
        rel = 8 if np.any(d > 0) else 4  # relative error of the computed report probabilities
        for j in differing(eps, d):
            p = view.flip(eps, d)  # P(report 1 | input 0) of every user
            p[j] = p[-1]  # the differing user leaves (the order does not matter)
            p = p[:-1]
            extra = gamma(rel) * float(p.sum())
            laws = sum_and_difference(p, overwrite=True)
            names = ("others all 0", "others alternate 0, 1 in the order of their budgets")
            dj = float(d[j])
            bounds += [
                LowerBound(law, victim(eps[j], dj, r), extra, f"user {j} differs, {name}", r)
                for law, name, r in zip(laws, names, (dj, 0.0))
            ]
        return BestLower(tuple(bounds), scope)
    eps, d, counts = check_histogram(eps, delta, counts)
    rel = 8 if np.any(d > 0) else 4
    for j in differing(eps, d):
        c = counts.copy()
        c[j] -= 1  # the differing user leaves its group
        ones, zeros = c // 2, c - c // 2
        groups = {
            "others all 0": (np.zeros(eps.size), eps, d, c),
            "others half 0, half 1": (
                np.concatenate([np.zeros(eps.size), np.ones(eps.size)]),
                np.concatenate([eps, eps]),
                np.concatenate([d, d]),
                np.concatenate([zeros, ones]),
            ),
        }
        dj, where = (
            float(d[j]),
            f"a user with budget {eps[j]:g}" + (f", delta {d[j]:g}" if spec.local_delta else ""),
        )
        for (name, (x, e, dd, cnt)), r in zip(groups.items(), (dj, 0.0)):
            p1 = np.where(x == 1, view.keep(e, dd), view.flip(e, dd))
            keep = cnt > 0
            law, extra = (
                clone_law(values=p1[keep], counts=cnt[keep], drop=0.0),
                _rounding_tv(p1[keep], cnt[keep], rel),
            )
            bounds.append(
                LowerBound(law, victim(eps[j], dj, r), extra, f"{where} differs, {name}", r)
            )
    return BestLower(tuple(bounds), scope)


def _tail(c, t):
    """P(Bin(c, 1/2) >= t), elementwise (1 for t <= 0, 0 for t > c)."""
    c, t = np.broadcast_arrays(np.asarray(c, dtype=np.int64), np.asarray(t, dtype=np.int64))
    out = np.where(t <= 0, 1.0, 0.0)
    mid = (t >= 1) & (t <= c)
    out[mid] = special.bdtrc(t[mid] - 1, c[mid], 0.5)
    return out


def bracket_terms(e: float, c: np.ndarray, f: np.ndarray, hi: float, lo: float):
    """For the counts c of C (consecutive integers) with (approximate) probabilities f: the coefficients
    and tails of the bracket above, as (coefficient, tail) pairs over c. ``hi`` = pα, ``lo`` = α (the
    differing user's probabilities of its own and of the other symbol)."""
    ee = np.exp(e)
    rest = max(1.0 - hi - lo, 0.0)
    a1, a2, r = hi - ee * lo, lo - ee * hi, rest * (1.0 - ee)
    # threshold t_s for s = c and s = c + 1: the smallest x with
    # f(s-1) (2/s) ((a1 - a2) x + a2 s) + r f(s) > 0, from the ratio f(s)/f(s-1)
    s = np.concatenate([c, [c[-1] + 1]]).astype(float)
    fs = np.concatenate([f, [0.0]])
    fprev = np.concatenate([[0.0], f])
    with np.errstate(divide="ignore", invalid="ignore"):
        xstar = (-r * (fs / fprev) * s / 2.0 - a2 * s) / (a1 - a2)
    t = np.where(fprev > 0, np.floor(np.nan_to_num(xstar, nan=np.inf, posinf=np.inf)) + 1, s + 1)
    t = np.clip(t, 0, s + 1)
    t_c, t_next = t[:-1], t[1:]
    return ((a1, _tail(c, t_next - 1)), (a2, _tail(c, t_next)), (r, _tail(c, t_c)))


@dataclass(frozen=True)
class KaryLowerBound:
    """A certified lower bound on the privacy profile of shuffled k-ary randomized response (k ≥ 3):
    the differing user j (budget ``eps_j``) holds x⁰ or x¹, every other user a third symbol; the observer
    counts the reports of x⁰ and of x¹ (see the module docstring). ``others``: the law of the others'
    reports in {x⁰, x¹}; ``extra``: a bound on the total variation caused by rounding the report
    probabilities."""

    others: CloneLaw
    eps_j: float
    k: int
    extra: float
    description: str = ""

    def _delta1(self, e: float) -> float:
        if e >= self.eps_j:
            return 0.0
        law = self.others
        c = law.support
        f = law.pmf
        en = float(np.exp(-self.eps_j))
        hi, lo = 1.0 / (1.0 + (self.k - 1) * en), en / (1.0 + (self.k - 1) * en)
        h_lo = np.zeros(c.size)
        bound = 0.0
        for coef, tail in bracket_terms(e, c, f, hi, lo):
            up = tail * (1 + SF_REL) * (1 + gamma(4))
            down = tail * (1 - SF_REL) * (1 - gamma(4))
            h_lo += np.where(coef > 0, coef * down, coef * up) * (1 - np.sign(coef) * gamma(4))
            bound += abs(coef)
        rho, e_lo, e_hi = law.error_model()
        # w (1 + r) = w_hat + err: terms with h >= 0 divide by 1 + rho, negative ones by 1 - rho
        pos = float((f * np.maximum(h_lo, 0.0)).sum()) * (1 - gamma(c.size + 2)) / (1 + rho)
        neg = float((f * np.minimum(h_lo, 0.0)).sum()) * (1 + gamma(c.size + 2)) / (1 - rho)
        # the errors e and the rounding of the report probabilities (TV extra) move at most bound times
        # their mass; rounding of hi and lo themselves is in extra too
        # the coefficients hi - e^e lo, lo - e^e hi and rest (1 - e^e) are differences of rounded numbers: each errs
        # by gamma(4) times the sum of its parts' magnitudes, not its own (near e = 0 and equal probabilities they
        # cancel); the tails they multiply sum, weighted by f, to at most 1 each
        cancel = gamma(4) * 2.0 * (1.0 + float(np.exp(e))) / (1 - rho)
        value = pos + neg - (e_lo + e_hi) * bound / (1 - rho) - 2 * self.extra * bound - cancel
        return max(value, 0.0)

    def delta(self, eps):
        """Certified lower bound on the protocol's δ(ε)."""
        eps_arr = V.nonnegative("eps", eps)
        out = np.array([self._delta1(float(e)) for e in eps_arr.ravel()])
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """Certified lower bound on the protocol's ε(δ): the largest ε (rounded down) at which this pair
        still has δ(ε) > ``delta`` (0 if none)."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return invert(self._delta1, delta, self.eps_j, upper=False)


def kary_lower_bound(eps, k: int, *, counts=None) -> KaryLowerBound:
    """Certified lower bound for shuffled k-ary randomized response (k ≥ 3) with budgets ``eps`` (one
    per user, or ``counts[g]`` users with budget ``eps[g]``): the user with the largest budget differs,
    the others hold a third symbol (:class:`KaryLowerBound`). This is Wang et al.'s k-RR pair, personalized;
    with a common budget it is the value their code computes for k-RR."""
    k = V.integer("k", k, low=3)
    if counts is None:
        eps, _ = check_budgets(eps)
        counts = np.ones(eps.size, dtype=np.int64)
    else:
        eps, _, counts = check_histogram(eps, None, counts)
    j = int(np.argmax(eps))
    counts = counts.copy()
    counts[j] -= 1
    ei = np.exp(-eps)
    r = 2.0 * ei / (1.0 + (k - 1) * ei)  # P(report in {x0, x1}) of a user holding z
    values, inverse = np.unique(r, return_inverse=True)
    merged = np.bincount(inverse, weights=counts).astype(np.int64)
    keep = merged > 0
    law = clone_law(values=values[keep], counts=merged[keep], drop=0.0)
    # each computed probability is within a relative 8u of the true one: a union bound on the others'
    # reports, plus the differing user's two probabilities
    extra = gamma(8) * (float((values[keep] * merged[keep]).sum()) + 2.0)
    return KaryLowerBound(
        law,
        float(eps[j]),
        k,
        extra,
        f"shuffled {k}-ary randomized response: a user with budget {eps[j]:g} differs, "
        "the others hold a third symbol",
    )
