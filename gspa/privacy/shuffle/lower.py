"""Certified lower bounds on shuffled protocols: explicit pairs of neighbouring data sets whose exact delta(eps),
with every error subtracted, brackets the certified upper bounds from below (binary and k-ary randomized
response, Lemma 4's quaternary randomizer, Laplace thresholded or windowed). Not a paper item.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from scipy import special

from gspa.privacy import randomizers
from gspa.privacy.numerics import SF_REL, U, gamma, invert
from gspa.privacy.profiles import VARIANTS, Combined, check_budgets, check_histogram
from gspa.privacy.shuffle.outcomes import MASS_REL
from gspa.privacy.shuffle.clones import (
    TOL,
    _bernstein_halfwidth,
    CloneLaw,
    Part,
    _direct_rows,
    _fft_rows,
    clone_law,
    convolve,
    sum_and_difference,
)
from gspa.util import validate as V


class _Lower:
    """What a certified lower bound offers, given its ``_delta1(eps)`` and ``_top()`` (an eps from which its
    delta is 0, unless a reveal keeps it above 0 everywhere)."""

    def delta(self, eps):
        """Certified lower bound on the protocol's δ(ε)."""
        eps_arr = V.nonnegative("eps", eps)
        out = np.array([self._delta1(float(e)) for e in eps_arr.ravel()])
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """Certified lower bound on the protocol's ε(δ): the largest ε (rounded down) at which this pair
        still has δ(ε) > ``delta`` (0 if none; inf if a reveal alone exceeds it)."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        if self._delta1(np.inf) > delta:
            return float("inf")
        return invert(self._delta1, delta, self._top(), upper=False)


@dataclass(frozen=True)
class LowerBound(_Lower):
    """A certified *lower* bound on the privacy profile of shuffled binary randomized response, from
    one explicit pair of neighbouring data sets: the other users' inputs are fixed, user j's input is
    0 or 1. The shuffled reports are equivalent to the number of 1s, C = S + (user j's report), where
    S (the others' 1s) is a Poisson-binomial law computed with certified tail bounds
    (:meth:`gspa.privacy.CloneLaw.tail_bounds`); any threshold event {C >= t} or {C <= t} gives
    delta(eps) >= P(event | one input) - e^eps P(event | the other), with every error subtracted.
    The likelihood ratio is monotone in C (S is log-concave), so thresholds are the optimal events.

    ``reveal`` (Lemma 4's quaternary randomizer, the others all holding 0): with this probability user j
    reveals input 1 in a symbol that no other report can carry (a flag F), so the events are
    {C >= t or F} and {C <= t - 1, no F}; under input 0 its reveal is taken as a 0 (a post-processing).

    ``k`` >= 3 (k-ary randomized response, the others all holding x⁰, user j x⁰ or x¹): a report counts as
    a 1 when it is not x⁰ (a post-processing), so user j reports a 1 with probability (k − 1)/(exp(ε) + k − 1)
    on x⁰ and (exp(ε) + k − 2)/(exp(ε) + k − 1) on x¹ (ε = ``eps_j``; k = 2 is binary randomized response). Its
    likelihood ratios are exp(ε) (a 0) and (exp(ε) + k − 2)/(k − 1) <= exp(ε) (a 1), so δ(ε) = 0 from ε = ``eps_j``."""

    others: CloneLaw
    eps_j: float
    extra: float  # TV bound for the round-off of the report probabilities themselves
    description: str = ""
    reveal: float = 0.0
    k: int = 2
    reports: tuple = ()  # (a0, z0, a1, z1) given directly (the Laplace window count), else from eps_j and k

    def _reports(self) -> tuple[float, float, float, float]:
        """(a0, z0, a1, z1): user j's probabilities of a 1 and of a 0 on inputs 0 and 1, without the flag,
        each as its own quotient of exp(−ε) (within a relative 8u, so a small one, such as z1 at a large ε,
        is not the difference of two numbers near 1); or ``reports``, when given (each within a relative 8u)."""
        if self.reports:
            return self.reports
        # a budget above MAX_BUDGET is taken as MAX_BUDGET (a smaller budget's rows are mixtures of the larger's,
        # so the pair's delta can only shrink): e^-eps stays a normal number
        w, r, m = float(np.exp(-min(self.eps_j, MAX_BUDGET))), self.reveal, self.k - 1
        d = 1.0 + m * w  # under input 0 a reveal is a 0
        a0, z0 = (1 - r) * m * w / d, (1.0 + r * m * w) / d
        return a0, z0, (1 - r) * (1.0 + (m - 1) * w) / d, (1 - r) * w / d

    def _delta1(self, e: float) -> float:
        if e > MAX_BUDGET:  # e^e would not be computed: the flag's event alone (valid at any eps)
            return self.reveal * (1 - gamma(4))
        lo, hi = self.others.tail_bounds()
        lo = np.concatenate([[lo[0]], lo, [0.0]]) - self.extra  # S(>= offset - 1 + i)
        hi = np.concatenate([[1.0], hi, [min(1.0, hi[-1])]]) + self.extra
        lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
        # S(<= offset - 2 + i), summed from the left (not 1 - S(>=): a small one keeps its relative accuracy);
        # below the support only the cut tails and the rounding of the report probabilities can put mass
        h_lo, h_hi = self.others.head_bounds()
        rho, _, e_hi = self.others.error_model()
        below = min(1.0, e_hi / (1 - rho))
        h_lo = np.clip(np.concatenate([[0.0, 0.0], h_lo]) - self.extra, 0.0, 1.0)
        h_hi = np.clip(np.concatenate([[below, below], h_hi]) + self.extra, 0.0, 1.0)
        r = self.reveal
        a0, z0, a1, z1 = self._reports()
        # for t = offset .. offset + width: P_b(C >= t, no flag) = z_b S(>= t) + a_b S(>= t - 1) and
        # P_b(C <= t - 1, no flag) = z_b S(<= t - 1) + a_b S(<= t - 2)
        up1_lo = z1 * lo[1:] + a1 * lo[:-1]
        up0_hi = z0 * hi[1:] + a0 * hi[:-1]
        down0_lo = z0 * h_lo[1:] + a0 * h_lo[:-1]
        down1_hi = z1 * h_hi[1:] + a1 * h_hi[:-1]
        ee = np.exp(e)
        cands = [r * (1 - gamma(4))]  # {F}: never under input 0
        # {C >= t or F}; {C <= t - 1}: each probability a sum of products of positive numbers, within a
        # relative gamma(16) of its value
        for pos, neg in ((r + up1_lo, up0_hi), (down0_lo, down1_hi)):
            with np.errstate(over="ignore", invalid="ignore"):
                v = np.where(neg > 0, pos - ee * neg, pos) - gamma(16) * (
                    pos + np.where(neg > 0, ee * neg, 0.0)
                )
            cands.append(np.nanmax(v))
        return float(max(max(cands), 0.0))

    def _top(self) -> float:
        return self.eps_j


#: the largest budget and eps the lower bounds compute with (e^700 is a normal number, e^-700 too)
MAX_BUDGET = 700.0


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
    with np.errstate(divide="ignore", invalid="ignore"):  # p = 0: the union bound's 0 is kept
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

    scope = (
        "shuffled Laplace mechanism on [0, 1], reports thresholded at 1/2 or counted in a window (with one "
        "budget, also binned finely), explicit neighbouring data sets"
    )

    def flip(self, e, d=0.0):
        return 0.5 * np.exp(-0.5 * e)

    def keep(self, e, d=0.0):
        return 1.0 - self.flip(e, d)

    def budget(self, e, d=0.0):
        with np.errstate(over="ignore"):  # beyond e = 1419 the budget is inf (LowerBound caps it)
            return float(np.log1p(2.0 * np.expm1(0.5 * e)) * (1.0 - 1e-12))


#: the windows [t, u] the Laplace lower bound may count reports in; it certifies the one whose count separates the
#: differing user's two inputs best in the normal approximation (any window gives a valid bound)
WINDOW_STARTS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
WINDOW_ENDS = (1.05, 1.1, 1.2, 1.5, 2.0, 3.0, 5.0, np.inf)


def _laplace_in_window(e, t: float, u: float, x: int, exp=np.exp, expm1=np.expm1):
    """(P(x + Lap(1/e) ∈ [t, u]), the complement) for an input x ∈ {0, 1} and 0 < t ≤ 1 ≤ u ≤ inf: sums and
    products of positive terms from ``exp`` and ``expm1`` (NumPy's, or mpmath's for :func:`_exact_in_window`), so
    even a small one keeps its relative accuracy, within :func:`_window_rel` u in floating point (the rounding of
    each exponent, at most a relative 2u of it, is what grows with e). u = inf: the right tail is wholly inside
    (also at e = 0, the limit of a flat law)."""
    far = np.isinf(u)
    if x == 0:  # the window lies right of the input: e^(-et) (1 - e^(-e(u - t))) / 2 <= 1/2
        inside = -0.5 * exp(-e * t) * (-1.0 if far else expm1(-e * (u - t)))
        return inside, 1.0 - inside
    left = e * (1.0 - t)  # the input inside: both tails' masses left out
    right_in, right_out = (-1.0, 0.0) if far else (expm1(-e * (u - 1.0)), exp(-e * (u - 1.0)))
    return -0.5 * (expm1(-left) + right_in), 0.5 * (exp(-left) + right_out)


def _window_rel(e: float, t: float, u: float) -> int:
    """The relative error, in units u, of :func:`_laplace_in_window`'s masses for budgets up to ``e``: exp and expm1
    within 1u each, the products and sums 1u each, and each exponent y within a relative 2u, which moves exp(−y)
    by a relative 2uy (expm1(−y) by at most 2u)."""
    reach = max(t, 1.0 - t, 0.0 if np.isinf(u) else u - 1.0)
    return 8 + int(np.ceil(2.0 * e * reach))


def _exact_in_window(e: float, t: float, u: float) -> tuple:
    """The differing user's four masses (inputs 0 and 1; inside, outside): :func:`_laplace_in_window` in 40-digit
    arithmetic, then rounded: each within a relative u for a budget e <= ``MAX_BUDGET`` (none is then below the
    normal range)."""
    import mpmath as mp

    with mp.workdps(40):
        masses = [_laplace_in_window(mp.mpf(e), t, u, x, mp.exp, mp.expm1) for x in (0, 1)]
        return tuple(float(p) for pair in masses for p in pair)


def _laplace_window(eps: np.ndarray, counts) -> LowerBound:
    r"""The count of reports in a window [t, u] (a post-processing of the shuffled reports), with the most liberal
    user (budget a) at 0 or 1 and every other user at 0: N = X + S with X ~ Bern(that user's mass in the window)
    and S the others' Poisson-binomial count (its law with certified tail bounds,
    :func:`gspa.privacy.shuffle.clones.clone_law`), so :class:`LowerBound` with these report probabilities
    (``reports``, in 40-digit arithmetic) is a lower bound on the protocol's δ(ε) (its events {N ≥ t'} and
    {N ≤ t' − 1}; the rounding of the others' masses, :func:`_window_rel`, counted in ``extra``), and δ(ε) = 0
    from ε = a. Unlike the threshold at
    1/2 it leaves out the far reports of users with small budgets, which hide nobody near 1. The window certified
    is the one of ``WINDOW_STARTS`` × ``WINDOW_ENDS`` with the largest (mass difference of that user) over (the
    standard deviation of S), computed on the budgets binned to 256 values when they are a vector (a choice, not
    part of the bound)."""
    j = int(np.argmax(eps))
    if counts is None:
        others, many = np.delete(eps, j), None
        if others.min() == others.max():
            values, weights = others[:1], np.array([others.size])
        else:
            weights, values = np.histogram(others, bins=256)
            values = 0.5 * (values[1:] + values[:-1])
    else:
        many = counts.copy()
        many[j] -= 1
        values, weights, others = eps, many, eps
    a = eps[j]
    score = []
    for t in WINDOW_STARTS:
        for u in WINDOW_ENDS:
            g, rest = _laplace_in_window(values, t, u, 0)
            signal = _laplace_in_window(a, t, u, 1)[0] - _laplace_in_window(a, t, u, 0)[0]
            score.append((signal / np.sqrt(max(float(np.sum(weights * g * rest)), 1e-300)), t, u))
    _, t, u = max(score)
    g, rel = _laplace_in_window(others, t, u, 0)[0], _window_rel(others.max(), t, u)
    # a mass below the normal range (at a budget below about 1e-307) may be off by 1e-300 more: counted per user
    if many is None:
        law = clone_law(g, drop=0.0)
        extra = gamma(rel) * float(g.sum()) + 1e-300 * g.size
    else:
        keep = many > 0
        law = clone_law(values=g[keep], counts=many[keep], drop=0.0)
        extra = _rounding_tv(g[keep], many[keep], rel) + 1e-300 * float(many.sum())
    where = f"user {j}" if many is None else f"a user with budget {a:g}"
    return LowerBound(
        law,
        float(a),
        extra,
        f"{where} differs, others all 0, reports in [{t:g}, {u:g}] counted",
        reports=_exact_in_window(a, t, u),
    )


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

    ``randomizer="k-rr"`` with ``k >= 3``: k-ary randomized response, the largest budget differs (x⁰ or x¹)
    and the others hold a third symbol (:class:`gspa.privacy.KaryLowerBound`; Wang et al.'s k-RR pair) or
    all hold x⁰ (reports counted as x⁰ or not, :class:`LowerBound` with ``k``); the larger bound is returned.
    The first is the larger at small budgets, the second at large ones, where every report being x⁰ is
    about exp(ε) times likelier when the differing user holds x⁰ (at k = 3, ε₀ = 8, 10⁴ users only the second
    brings the bracket within 1.001, ``tests/privacy/test_contract.py``). With one budget for every user it also takes both data sets seen through every count
    (:class:`KaryCountsLower`, where their box of counts is small enough: ``KARY_BOX_MAX``): the others' reports
    of the symbols nobody holds are noise the first two leave out (the largest gain is where the budget is large
    for the number of users; ``benchmarks/accounting.py`` prints the k-ary bracket).

    ``randomizer="laplace"``: x + Lap(1/εᵢ) on inputs in [0, 1]. Every report is thresholded at 1/2 (a
    post-processing): on inputs 0 and 1 that is binary randomized response with flip probability
    exp(−εᵢ/2)/2, i.e. budget ln(2 exp(εᵢ/2) − 1), whose lower bound above is a lower bound for shuffled
    Laplace (the differing user's thresholded budget rounded down: a smaller budget is a post-processing).
    It also counts the reports in a window [t, u] around 1, the others at 0, each with its own law
    (``_laplace_window``), and with several budgets scores each report by about the differing user's density at 1
    less at 0, over the users' mean density at 0, and sums the scores (:class:`LaplaceScoreLower`, for 2 to 10⁶
    users). With one budget v in [1e-8, 6] for at most 10⁷ users it also takes :class:`LaplaceLatticeLower` (the
    others at 0, each report in a bin, more bins as v grows) and returns the largest (beyond those ranges that
    bound is slow or, with its arithmetic lattice, weak); ``benchmarks/accounting.py`` prints the bracket it
    gives with the upper bound.

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
    if delta is not None and not spec.local_delta:
        raise ValueError(
            f"delta is only used with randomizer='quaternary', got delta with {randomizer!r}"
        )
    if k is not None and k > 2:
        return BestLower(
            (kary_lower_bound(eps, k, counts=counts), _kary_same_symbol(eps, k, counts))
            + _kary_common(eps, k, counts),
            f"shuffled {k}-ary randomized response, explicit neighbouring data sets",
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
        return BestLower(tuple(bounds) + _laplace_bounds(randomizer, variant, eps, None), scope)
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
    return BestLower(tuple(bounds) + _laplace_bounds(randomizer, variant, eps, counts), scope)


#: lower_bound("laplace") adds LaplaceLatticeLower for one budget in this range and at most this many users
LATTICE_BUDGETS, LATTICE_USERS = (1e-8, 6.0), 10**7


def _laplace_bounds(randomizer: str, variant: str, eps: np.ndarray, counts) -> tuple:
    """Laplace's further bounds, for the randomized variant: the window count (:func:`_laplace_window`); with one
    budget the lattice bound (:class:`LaplaceLatticeLower`) where it applies: a budget in ``LATTICE_BUDGETS``, at
    most ``LATTICE_USERS`` users; with several the score bound (:class:`LaplaceScoreLower`): positive budgets, 2 to
    ``SCORE_USERS`` users."""
    if randomizer != "laplace" or variant != "randomized":
        return ()
    lo, hi = LATTICE_BUDGETS
    n = eps.size if counts is None else int(counts.sum())
    # the window count wants the most liberal budget in (0, MAX_BUDGET]: at 0 there is nothing to see, and above,
    # its user's masses would leave the normal range (the thresholded pairs cover those budgets)
    window = (_laplace_window(eps, counts),) if 0 < eps.max() <= MAX_BUDGET else ()
    if eps.min() != eps.max():
        scored = 0 < eps.min() and eps.max() <= MAX_BUDGET and 2 <= n <= SCORE_USERS
        return window + ((laplace_score_lower(eps, counts),) if scored else ())
    if not lo <= eps[0] <= hi or n > LATTICE_USERS:
        return window
    return window + (laplace_lattice_lower(float(eps[0]), n),)


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
class KaryLowerBound(_Lower):
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
        if e >= self.eps_j or e > MAX_BUDGET:  # above MAX_BUDGET: 0, a valid lower bound
            return 0.0
        law = self.others
        c = law.support
        f = law.pmf
        en = float(np.exp(-min(self.eps_j, MAX_BUDGET)))  # as in LowerBound._reports
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

    def _top(self) -> float:
        return self.eps_j


def _others_of_largest(eps, counts, p_of):
    """Budgets (or a histogram) with the user of the largest budget differing: (its budget, the law of the
    others' count of reports whose probability each is ``p_of(their budgets)``, those probabilities and their
    numbers of users)."""
    if counts is None:
        eps, _ = check_budgets(eps)
        counts = np.ones(eps.size, dtype=np.int64)
    else:
        eps, _, counts = check_histogram(eps, None, counts)
    j = int(np.argmax(eps))
    counts = counts.copy()
    counts[j] -= 1
    values, inverse = np.unique(p_of(eps), return_inverse=True)
    merged = np.bincount(inverse, weights=counts).astype(np.int64)
    keep = merged > 0
    values, merged = values[keep], merged[keep]
    return float(eps[j]), clone_law(values=values, counts=merged, drop=0.0), values, merged


def kary_lower_bound(eps, k: int, *, counts=None) -> KaryLowerBound:
    """Certified lower bound for shuffled k-ary randomized response (k ≥ 3) with budgets ``eps`` (one
    per user, or ``counts[g]`` users with budget ``eps[g]``): the user with the largest budget differs,
    the others hold a third symbol (:class:`KaryLowerBound`). This is Wang et al.'s k-RR pair, personalized;
    with a common budget it is the value their code computes for k-RR."""
    k = V.integer("k", k, low=3)
    # P(report in {x0, x1}) of a user holding z
    top, law, values, merged = _others_of_largest(
        eps, counts, lambda e: 2.0 * np.exp(-e) / (1.0 + (k - 1) * np.exp(-e))
    )
    # each computed probability is within a relative 8u of the true one: a union bound on the others'
    # reports, plus the differing user's two probabilities
    extra = gamma(8) * (float((values * merged).sum()) + 2.0)
    return KaryLowerBound(
        law,
        top,
        k,
        extra,
        f"shuffled {k}-ary randomized response: a user with budget {top:g} differs, "
        "the others hold a third symbol",
    )


def _kary_same_symbol(eps, k: int, counts=None) -> LowerBound:
    """k-ary randomized response, the others all holding x⁰, the user with the largest budget x⁰ or x¹; a
    report counts as a 1 when it is not x⁰ (a post-processing), so the count is a Poisson-binomial law
    (:class:`LowerBound` with ``k``)."""
    # P(report not x0 | x0), within a relative 8u
    top, law, values, merged = _others_of_largest(
        eps, counts, lambda e: (k - 1) * np.exp(-e) / (1.0 + (k - 1) * np.exp(-e))
    )
    return LowerBound(
        law,
        top,
        _rounding_tv(values, merged, 8),
        f"shuffled {k}-ary randomized response: a user with budget {top:g} differs, the others hold "
        "its first symbol",
        k=k,
    )


#: KaryCountsLower: the box of counts holds at most this many cells (else ``lower_bound`` leaves the bound out),
#: each count's side of it spans its mean plus or minus KARY_BOX_SD standard deviations (more is left out), and
#: KARY_EVENTS evenly spaced thresholds of the sorted likelihood ratios are kept as the events tried
KARY_BOX_MAX, KARY_BOX_SD, KARY_EVENTS = 4_000_000, 7.0, 1 << 16
KARY_COUNTS_BUDGET = 30.0  # the largest common budget it takes (e^eps stays far from overflow)


def _kary_box(m: int, probs) -> list[tuple[int, int]]:
    """Each count's window (first, last) of :class:`KaryCountsLower`: the integers within ``KARY_BOX_SD``
    standard deviations (and 2) of its mean m pᵢ, inside [0, m + 1] (the differing user's report can add one to
    a count of the others' m reports)."""
    out = []
    for p in probs:
        sd = float(np.sqrt(m * p * (1.0 - p)))
        lo = max(0, int(np.floor(m * p - KARY_BOX_SD * sd)) - 2)
        out.append((lo, min(m + 1, int(np.ceil(m * p + KARY_BOX_SD * sd)) + 2)))
    return out


def _kary_classes(eps0: float, k: int, home: int):
    """(the others' probabilities of each class, the differing user's class laws under its inputs x⁰ and x¹:
    {class index, or None for the others' own symbol: probability}) for :class:`KaryCountsLower`."""
    w = float(np.exp(-eps0))
    d = 1.0 + (k - 1) * w
    p, q = 1.0 / d, w / d
    if home == 2:  # classes x0, x1, the k - 3 others
        rest = (k - 3) * q
        return (q, q, rest), ({0: p, 1: q, None: q, 2: rest}, {0: q, 1: p, None: q, 2: rest})
    rest = (k - 2) * q  # classes x1, the k - 2 others; x0 is the others' symbol
    return (q, rest), ({None: p, 0: q, 1: rest}, {None: q, 0: p, 1: rest})


def _kary_cells(eps0: float, n: int, k: int, home: int) -> float:
    """The number of cells of :class:`KaryCountsLower`'s box of counts."""
    classes, _ = _kary_classes(eps0, k, home)
    return float(np.prod([hi - lo + 1.0 for lo, hi in _kary_box(n - 1, classes)]))


@dataclass(frozen=True)
class KaryCountsLower(_Lower):
    """A certified lower bound on the privacy profile of shuffled k-ary randomized response with one budget
    ``eps0`` for all ``n`` users, from one pair of data sets seen through every count: the differing user holds
    x⁰ or x¹, every other user x² (``home=2``: Wang et al.'s data set) or x⁰ (``home=0``). The observer counts
    the reports of each symbol other than the others' own, those of the k − 3 (or k − 2) symbols nobody holds
    together (a post-processing of the shuffled histogram; under both inputs those symbols are exchangeable, so
    the total loses nothing). :class:`KaryLowerBound` counts x⁰ and x¹ only: it leaves out the others' reports of
    the symbols nobody holds, whose number tells the observer how many of the x² (or x⁰) reports are noise.

    The others' counts of the d classes (x⁰, x¹, the rest; or x¹, the rest) are a multinomial law, computed as a
    product of binomials (each count given the earlier ones) on a box of ``KARY_BOX_SD`` standard deviations
    around their means; the differing user adds one report. Any event E gives δ(ε) ≥ P(E | one input) −
    exp(ε) P(E | the other); the events tried are the sets of counts whose computed likelihood ratio lies above a
    threshold (``KARY_EVENTS`` thresholds, both directions), restricted to the counts whose law the box holds
    whole (a count at the box's lower side but above 0 is left out: the other input's law there needs the count
    below it). Counted: a relative ``outcomes.MASS_REL`` on each binomial mass and the effect of the rounded
    report probabilities on each mass (a relative exp((a + M θ/(1 − θ)) η) − 1 for Bin(a; M, θ) with θ rounded
    by a relative η), the products and mixtures (gamma), the running sums (gamma of their length), exp(ε) rounded
    up, and masses that underflow (1e-290 each)."""

    eps0: float
    n: int
    k: int
    home: int  # 2: the others hold a third symbol; 0: they hold the differing user's first symbol
    description: str = ""
    _cache: dict = dataclasses.field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self):
        V.real("eps0", self.eps0, low=0.0, high=KARY_COUNTS_BUDGET, scalar=True)
        V.integer("n", self.n, low=2)
        V.integer("k", self.k, low=3)
        if self.home not in (0, 2):
            raise ValueError(f"home must be 0 or 2 (the others' symbol), got {self.home!r}")
        if (cells := _kary_cells(self.eps0, self.n, self.k, self.home)) > KARY_BOX_MAX:
            raise ValueError(
                f"n = {self.n}, eps0 = {self.eps0:g}: the box of counts would hold {cells:.3g} cells "
                f"(at most KARY_BOX_MAX = {KARY_BOX_MAX:.0e})"
            )

    def _events(self):
        """Per direction (input 0 against 1, then 1 against 0): for each kept threshold's event E, a lower bound
        on P(E | that input) and an upper bound on P(E | the other) (computed once)."""
        if "events" in self._cache:
            return self._cache["events"]
        from scipy import stats

        m = self.n - 1
        classes, laws = _kary_classes(self.eps0, self.k, self.home)
        box = [np.arange(lo, hi + 1) for lo, hi in _kary_box(m, classes)]
        grids = np.meshgrid(*box, indexing="ij", sparse=True)
        O, used, done = 1.0, 0.0, 0.0
        param = 0.0  # the exponent of the rounded parameters' relative effect
        # relative error of each conditional probability (q, its quotients and sums)
        eta = gamma(12)
        for a, pc in zip(grids, classes):
            theta = min(pc / (1.0 - done), 1.0) if pc > 0 else 0.0
            count = m - used
            with np.errstate(invalid="ignore"):
                O = (
                    O
                    * np.nan_to_num(stats.binom.pmf(a, np.maximum(count, 0), theta))
                    * (count >= a)
                )
            param += (float(a.max()) + m * theta / max(1.0 - theta, 1e-300)) * eta * 1.01
            used, done = used + a, done + pc
        # per mass: each binomial, the rounded parameters, the product of d factors, the differing user's
        # probabilities and the mixture of its four classes
        rel = len(classes) * MASS_REL + float(np.expm1(param)) + gamma(2 * len(classes) + 12)
        # the differing user's report: its class shifts the counts up by one along that class's axis
        shifted = {None: O}
        for c in range(len(classes)):
            s = np.zeros_like(O)
            idx = [slice(None)] * O.ndim
            src = list(idx)
            idx[c], src[c] = slice(1, None), slice(None, -1)
            s[tuple(idx)] = O[tuple(src)]
            shifted[c] = s
        mix = [sum(v * shifted[c] for c, v in law.items() if v > 0) for law in laws]
        # the lowest count of a box side above 0 is left out: its law needs the count below
        keep = np.ones(O.shape, dtype=bool)
        for c, b in enumerate(box):
            if b[0] > 0:
                sl = [slice(None)] * O.ndim
                sl[c] = 0
                keep[tuple(sl)] = False
        P = [x[keep] for x in mix]
        cells = P[0].size
        out = []
        for a, b in ((0, 1), (1, 0)):
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(P[b] > 0, P[a] / P[b], np.inf)
            order = np.argsort(-ratio, kind="stable")
            ca, cb = np.cumsum(P[a][order]), np.cumsum(P[b][order])
            at = np.unique(np.linspace(0, cells - 1, min(cells, KARY_EVENTS)).astype(np.int64))
            lo_a = ca[at] * (1.0 - rel) * (1.0 - gamma(cells + 4))
            hi_b = cb[at] * (1.0 + rel) * (1.0 + gamma(cells + 4)) + 1e-290 * (at + 1.0)
            out.append((lo_a, hi_b))
        self._cache["events"] = out
        return out

    def _delta1(self, e: float) -> float:
        if e >= self.eps0:  # the pair is eps0-DP: 0 is a lower bound
            return 0.0
        ee = float(np.exp(e)) * (1.0 + gamma(2))
        best = 0.0
        for lo_a, hi_b in self._events():
            best = max(best, float(np.max(lo_a - ee * hi_b * (1.0 + gamma(2)))) * (1.0 - gamma(1)))
        return max(best, 0.0)

    def _top(self) -> float:
        return self.eps0


def _kary_common(eps, k: int, counts) -> tuple:
    """:func:`kary_counts_lower` where every user has one budget (validated as the other k-ary bounds do)."""
    if counts is None:
        eps, _ = check_budgets(eps)
        users = eps.size
    else:
        eps, _, counts = check_histogram(eps, None, counts)
        eps, users = eps[counts > 0], int(counts.sum())
    return kary_counts_lower(float(eps[0]), users, k) if np.all(eps == eps[0]) else ()


def kary_counts_lower(eps0: float, n: int, k: int) -> tuple:
    """:class:`KaryCountsLower` for both data sets (the others on a third symbol, on the first), each where its box
    of counts holds at most ``KARY_BOX_MAX`` cells and ``eps0`` is at most ``KARY_COUNTS_BUDGET``; () otherwise."""
    eps0 = V.real("eps0", eps0, low=0.0, scalar=True)
    n = V.integer("n", n, low=2)
    k = V.integer("k", k, low=3)
    if eps0 > KARY_COUNTS_BUDGET:
        return ()
    return tuple(
        KaryCountsLower(
            eps0,
            n,
            k,
            home,
            f"shuffled {k}-ary randomized response, one budget {eps0:g}: the others hold {who}, "
            "every count observed",
        )
        for home, who in ((2, "a third symbol"), (0, "the differing user's first symbol"))
        if _kary_cells(eps0, n, k, home) <= KARY_BOX_MAX
    )


#: LaplaceLatticeLower: the lattice of likelihood ratios has 40 sinh(v) steps between e^-v and e^v (a step of
#: about 0.05), at least 48 and at most 2048
LAPLACE_LATTICE = (48, 2048)


def _lattice_steps(v: float) -> int:
    lo, hi = LAPLACE_LATTICE
    return int(min(hi, max(lo, np.ceil(40.0 * np.sinh(min(v, 20.0))))))


def _laplace_lattice(v: float, steps: int):
    r"""Bins of the real line for :class:`LaplaceLatticeLower`: (-∞, 0), then bins of [0, 1], then (1, ∞).
    Returns (the edges of the bins of [0, 1]; the bins' probabilities under input 0, each within a relative
    gamma(12) of the exact value for these float edges; the lattice index of each bin rounded down and rounded
    up; the lattice's origin v0 and step h; a bound eta on |ratio − (v0 + m h)| over the bins whose two indices
    agree).

    On [0, 1] the densities under inputs 0 and 1 are (v/2) e^(−vy) and (v/2) e^(−v(1−y)), so a bin [a, b] has
    likelihood ratio exactly :math:`e^{v(a + b - 1)}`. Starting from a = 0, each bin aims at the next lattice
    point :math:`\ell_m = v_0 + m h` above :math:`e^{v(2a - 1)}` (its right edge b = 1 + ln(ℓ_m)/v − a); the
    last bin, cut at 1, is off the lattice and carries both roundings. The outer bins have ratios e^(∓v)
    exactly: indices 0 and ``steps``."""
    v0, vt = float(np.exp(-v)), float(np.exp(v))
    h = (vt - v0) / steps
    edges, idx = [0.0], []
    while True:
        a = edges[-1]
        r = float(np.exp(v * (2.0 * a - 1.0)))
        m = int(np.floor((r - v0) / h)) + 1
        while m < steps and v0 + m * h <= r * (1.0 + 1e-12):
            m += 1
        b = 1.0 + float(np.log(v0 + m * h)) / v - a if m < steps else 2.0
        if b >= 1.0 or b <= a:
            edges.append(1.0)
            break
        edges.append(b)
        idx.append(m)
    y = np.asarray(edges)
    a, b = y[:-1], y[1:]
    mid = -0.5 * np.exp(-v * a) * np.expm1(-v * (b - a))  # P(a < Y < b | input 0)
    ratio = np.exp(v * (a + b - 1.0))
    last = (float(ratio[-1]) - v0) / h
    lo = np.array([0] + idx + [int(np.floor(last * (1 - 1e-12)))] + [steps])
    hi = np.array([0] + idx + [min(int(np.ceil(last * (1 + 1e-12))), steps)] + [steps])
    probs = np.concatenate([[0.5], mid, [0.5 * vt**-1]])
    on = np.concatenate([[v0], ratio[:-1], [vt]])
    eta = (
        float(np.max(np.abs(on - (v0 + np.array([0] + idx + [steps]) * h))))
        + gamma(16 + int(8 * v)) * vt
    )
    return y, probs, lo, hi, v0, h, eta


def _cut(part: Part, step: int) -> Part:
    """``part`` cut to mean ± t, t from Bernstein's inequality for sums of independent variables with values in
    an interval of length ``step`` (so at most ``TOL`` of its mass is cut: counted in tau)."""
    t = step * float(
        _bernstein_halfwidth(part.var / step**2, TOL)
    )  # the bits' window, scaled to [0, step]
    lo = max(part.offset, int(np.floor(part.mean - t)))
    hi = min(part.offset + part.width - 1, int(np.ceil(part.mean + t)))
    if lo == part.offset and hi == part.offset + part.width - 1:
        return part
    pmf = part.pmf[lo - part.offset : hi - part.offset + 1].copy()
    return Part(lo, pmf, part.rho, part.eta, part.tau + TOL, part.low, part.mean, part.var)


def _power(part: Part, n: int, step: int) -> Part:
    """The law of the sum of n independent copies of ``part`` (values in [0, ``step``]), by binary powers with
    :func:`convolve`'s error bounds, each result cut to its Bernstein window (:func:`_cut`)."""
    out, base = None, part
    while n:
        if n & 1:
            out = base if out is None else _cut(convolve(out, base, trim=False), step)
        n >>= 1
        if n:
            base = _cut(convolve(base, base, trim=False), step)
    return out


@dataclass(frozen=True)
class LaplaceLatticeLower(_Lower):
    r"""A certified lower bound on the privacy profile of the shuffled Laplace mechanism x + Lap(1/v) on
    [0, 1], n users with one budget v: every other user holds 0, the differing user 0 or 1, and every report is
    put in a bin (a post-processing; bins: ``_laplace_lattice``).

    With the n users' bins :math:`K_j` and every bin's likelihood ratio :math:`\rho_k = P(k \mid 1)/P(k \mid 0)`, the
    histogram of bins has likelihood ratio :math:`S/n`, :math:`S = \sum_j \rho_{K_j}`, where under the data
    set with every user at 0 the :math:`K_j` are independent with the law of input 0. So

    .. math:: \delta_{1\|0}(\epsilon) = E_0\big[(S/n - e^\epsilon)_+\big], \qquad
              \delta_{0\|1}(\epsilon) = E_0\big[(1 - e^\epsilon S/n)_+\big],

    and the bins are chosen so that every ratio is a point :math:`v_0 + m h` of a lattice (but the last bin
    of [0, 1], whose index is rounded down for the first direction and up for the second): S is then
    :math:`n v_0 + hT` with T an integer sum of n independent copies, computed by FFT with
    ``gspa.privacy.shuffle.clones.convolve``'s certified errors. Subtracted: those errors, the relative error of
    the bins' probabilities, the ratios' distance to the lattice (``eta``) and the arithmetic of the sums.
    With all other users at 0 this is the binned protocol's δ less the last bin's rounding and the counted
    errors. The bins keep nearly all of a continuous report's χ² divergence (far more than reports thresholded
    at 1/2), but at large v and ε near v the last bin's rounding costs a large share of the continuous δ.
    Budgets v in [1e-8, 700] (below, e^v and e^-v are too close for a lattice; the cost grows with sinh(v) up to
    2048 steps, and with n)."""

    v: float
    n: int
    laws: tuple  # (law of T with the last bin rounded down, rounded up): Parts
    v0: float
    h: float
    eta: float
    description: str = ""

    def _delta1(self, e: float) -> float:
        if e >= self.v:
            return 0.0
        ee = float(np.exp(e))
        out = 0.0
        for law, sign in zip(self.laws, (1, -1)):
            t = law.offset + np.arange(law.width)
            s = self.v0 + self.h * t / self.n  # S/n on the lattice, within gamma(4) (v0 + h t / n)
            slack = gamma(8) * (s + ee) + self.eta * (1.0 + ee)
            g = s - ee - slack if sign > 0 else 1.0 - ee * s - slack
            g = np.maximum(g, 0.0)
            top = float(g.max()) if g.size else 0.0
            total = float((law.pmf * g).sum()) * (1 - gamma(law.width + 2))
            out = max(out, (total - law.eta * top) / (1.0 + law.rho))
        return max(out, 0.0)

    def _top(self) -> float:
        return self.v


def laplace_lattice_lower(v: float, n: int, steps: int | None = None) -> LaplaceLatticeLower:
    """:class:`LaplaceLatticeLower` for n users with budget v (``steps``: lattice steps, 2 to 4096; default
    ``LAPLACE_LATTICE``'s rule, 40 sinh(v) within [48, 2048])."""
    v = V.real("v", v, low=1e-8, high=700.0, scalar=True)
    n = V.integer("n", n, low=1)
    steps = _lattice_steps(v) if steps is None else V.integer("steps", steps, low=2, high=4096)
    _, probs, lo, hi, v0, h, eta = _laplace_lattice(v, steps)
    laws = []
    for idx in (lo, hi):
        pmf = np.zeros(steps + 1)
        np.add.at(pmf, idx, probs)
        support = np.arange(steps + 1)
        mean = float((pmf * support).sum())
        var = float((pmf * (support - mean) ** 2).sum())
        one = Part(0, pmf, gamma(12), 0.0, 0.0, 0, mean, var)
        laws.append(_power(one, n, steps))
    return LaplaceLatticeLower(
        v,
        n,
        tuple(laws),
        v0,
        h,
        eta,
        f"shuffled Laplace mechanism, {n} users with budget {v:g}: the others at 0, reports binned",
    )


#: LaplaceScoreLower: each report scored 0 .. SCORE_LEVELS, on bins of width 1/SCORE_BINS_PER_UNIT over
#: [-SCORE_REACH, 1 + SCORE_REACH] (and the two tails); at most SCORE_USERS users (one law per user)
SCORE_LEVELS, SCORE_BINS_PER_UNIT, SCORE_REACH, SCORE_USERS = 8, 40, 3.0, 10**6
_SCORE_DIRECT = 256  # the score sums are convolved directly while their laws are at most this wide
_SCORE_BLOCK = 1 << 16  # users per block when their score laws are computed


def _laplace_mass(w, a, b, x: float) -> np.ndarray:
    """P(x + Lap(1/w) ∈ [a, b]) for rates ``w`` (an array) and intervals a < b (arrays; a may be −inf, b inf),
    as products and sums of positive terms from exp and expm1: each within :func:`_score_rel` u of the true
    mass (or 1e-300 where it leaves the normal range)."""
    w, a, b = np.asarray(w, float)[:, None], np.asarray(a, float), np.asarray(b, float)
    with np.errstate(invalid="ignore", over="ignore"):
        # the mass of an interval of that length on one side of x, over the mass beyond its near end
        width = -np.expm1(-w * (b - a))
        right = 0.5 * np.exp(-w * np.where(a >= x, a - x, 0.0)) * width
        left = 0.5 * np.exp(-w * np.where(b <= x, x - b, 0.0)) * width
        inside = -0.5 * (np.expm1(-w * (x - a)) + np.expm1(-w * (b - x)))
    return np.where(a >= x, right, np.where(b <= x, left, inside))


def _score_rel(w_max: float) -> int:
    """The relative error, in units u, of :func:`_laplace_mass` on the score bins for rates up to ``w_max``: exp and
    expm1 within 1u each, products and sums 1u each, and each exponent w |y − x| within a relative 3u (the
    difference and the product), which moves exp by a relative 3u w |y − x| (expm1 of a negative argument by
    3u)."""
    return 10 + int(np.ceil(3.0 * w_max * (1.0 + SCORE_REACH)))


def _score_runs(eps: np.ndarray, weights: np.ndarray, a: float):
    """(edges, scores): the real line cut into runs of bins of equal score. A bin's score is the differing user's
    (budget ``a``) probability of it under input 1 less under input 0, over its mean probability under input 0
    among the users (budgets ``eps`` with ``weights``), mapped onto 0 .. SCORE_LEVELS and rounded. Why: with the
    others at 0, the shuffled reports' likelihood ratio is the posterior mean of f1(y)/f0(y) at the differing
    user's report, and with the posterior chance of report y about f0(y)/(n f̄(y)), f̄ the users' mean density,
    it is about A/B with A and B the sums of f1/f̄ and f0/f̄ over the reports: the sum of (f1 − f0)/f̄ is A − B,
    which orders the outcomes as A/B does near ratio 1. A choice only: any scores give a valid bound."""
    k = int(round(SCORE_BINS_PER_UNIT * (1.0 + 2.0 * SCORE_REACH)))
    edges = np.concatenate(
        [[-np.inf], np.linspace(-SCORE_REACH, 1.0 + SCORE_REACH, k + 1), [np.inf]]
    )
    mean = weights @ _laplace_mass(eps, edges[:-1], edges[1:], 0.0) / weights.sum()
    f1, f0 = (_laplace_mass([a], edges[:-1], edges[1:], x)[0] for x in (1.0, 0.0))
    g = np.where(mean > 0, (f1 - f0) / np.where(mean > 0, mean, 1.0), 0.0)
    spread = g.max() - g.min()
    score = np.rint(SCORE_LEVELS * (g - g.min()) / (spread if spread > 0 else 1.0)).astype(np.int64)
    start = np.concatenate([[0], np.flatnonzero(np.diff(score)) + 1])
    return np.append(edges[start], np.inf), score[start]


def _scoring(users: np.ndarray):
    """(a, others, edges, scores): the differing user's budget, the others' budgets (sorted: one order for a vector
    and its histogram) and the runs and scores of :func:`_score_runs`, from the budgets binned to 256 values."""
    users = np.sort(users)
    a, others = float(users[-1]), users[:-1]
    if others.min() == others.max():
        values, weights = np.array([others[0], a]), np.array([others.size, 1.0])
    else:
        weights, values = np.histogram(users, bins=256)
        values = 0.5 * (values[1:] + values[:-1])
    return (a, others, *_score_runs(values, weights.astype(float), a))


def _score_laws(w: np.ndarray, edges: np.ndarray, scores: np.ndarray, x: float) -> np.ndarray:
    """Row i: the law of the score of a report of x + Lap(1/w_i) (runs ``edges``/``scores``)."""
    out = np.zeros((w.size, SCORE_LEVELS + 1))
    for i in range(0, w.size, _SCORE_BLOCK):
        mass = _laplace_mass(w[i : i + _SCORE_BLOCK], edges[:-1], edges[1:], x)
        for s in np.unique(scores):
            out[i : i + _SCORE_BLOCK, s] = mass[:, scores == s].sum(axis=1)
    return out


def _lattice_sum(laws: np.ndarray, rel: float) -> Part:
    """The law of the sum of independent variables on 0 .. m, row i of ``laws`` the law of the i-th (each entry
    within a relative ``rel`` of the true one), as a :class:`gspa.privacy.shuffle.clones.Part`: a product tree,
    direct convolutions while the laws are at most ``_SCORE_DIRECT`` wide (relative error), then real FFTs of
    all rows at once (:func:`gspa.privacy.shuffle.clones._fft_rows`, Higham's bound per row; errors composed
    as in :func:`gspa.privacy.shuffle.clones.convolve`), each law cut after every FFT level to mean ± t, t from
    Bernstein's inequality for sums of variables in an interval of length m (``TOL`` counted per cut)."""
    m = laws.shape[1] - 1
    k = np.arange(m + 1)
    mean = laws @ k
    var = np.maximum(laws @ (k * k) - mean * mean, 0.0)
    rows, rho, end = laws, rel, np.full(laws.shape[0], m, np.int64)

    # an odd count gets one more row: a point mass at 0 (exact), whose numbers are 0
    def pad(x, fill):
        return np.concatenate([x, fill[None]]) if x.shape[0] % 2 else x

    def pairs(x):  # rows 2i and 2i + 1
        x = pad(x, np.eye(1, x.shape[1])[0])
        return x[0::2], x[1::2]

    def fold(x):  # per-row numbers of the pairs, summed
        x = pad(x, np.zeros((), x.dtype))
        return x[0::2] + x[1::2]

    while rows.shape[0] > 1 and rows.shape[1] <= _SCORE_DIRECT:
        width = rows.shape[1]
        rows = _direct_rows(*pairs(rows))
        rho = (1.0 + rho) ** 2 * (1.0 + gamma(width + 1)) - 1.0
        mean, var, end = fold(mean), fold(var), fold(end)
    count = rows.shape[0]
    offset = np.zeros(count, np.int64)
    eta, tau = np.zeros(count), np.zeros(count)
    while rows.shape[0] > 1:
        a, b = pairs(rows)
        ea = pad(eta, np.zeros(()))  # the point mass is exact
        out, err = _fft_rows(a, b, workers=2)
        eta = ea[0::2] * b.sum(axis=1) + ea[1::2] * np.maximum(a.sum(axis=1), 1.0 + rho) + err
        rho = 2.0 * rho + rho * rho
        offset, end, tau = fold(offset), fold(end), fold(tau)
        mean, var = fold(mean), fold(var)
        half = m * _bernstein_halfwidth(var / m**2, TOL) * (1 + 1e-9) + 1.0
        lo = np.maximum(offset, np.floor(mean - half).astype(np.int64))
        hi = np.minimum(end, np.ceil(mean + half).astype(np.int64))
        tau = tau + np.where((lo > offset) | (hi < end), TOL, 0.0)
        width = int((hi - lo).max()) + 1
        index = (lo - offset)[:, None] + np.arange(width)
        inside = index <= (hi - offset)[:, None]
        rows = np.where(
            inside, np.take_along_axis(out, np.minimum(index, out.shape[1] - 1), axis=1), 0.0
        )
        offset, end = lo, hi
    return Part(
        int(offset[0]),
        rows[0][: end[0] - offset[0] + 1],
        rho,
        float(eta[0]),
        float(tau[0]),
        0,
        float(mean[0]),
        float(var[0]),
    )


@dataclass(frozen=True)
class LaplaceScoreLower(_Lower):
    r"""A certified lower bound on the privacy profile of the shuffled Laplace mechanism
    :math:`x_i + \mathrm{Lap}(1/\varepsilon_i)` on [0, 1] with any budgets: the most liberal user (budget a) holds 0
    or 1, every other user 0, and the statistic is the total score :math:`S = \sum_s m(y_s)` of the shuffled reports,
    m an integer score of the report's bin (``_score_runs``: about the differing user's density at 1 less at 0, over
    the users' mean density at 0). S is a function of the shuffled reports, so the hockey-stick divergence of its
    two laws lies below the protocol's. Under both data sets :math:`S = T + X`, T the other users' total
    (independent, each with its own law, input 0: ``_lattice_sum``) and X the differing user's score (``reports``:
    its laws on inputs 0 and 1). For the event :math:`E = \{s : \hat P_1(s) > e^\varepsilon \hat P_0(s)\}` of the
    computed laws (any event is valid), and the reverse direction,
    :math:`\delta(\varepsilon) \ge P_1(E) - e^\varepsilon P_0(E)`, with
    :math:`P_1(E) \ge (\hat P_1(E)/(1 + r) - \eta)/(1 + \rho)` and
    :math:`P_0(E) \le (\hat P_0(E)/(1 - r) + \eta + \tau)/(1 - \rho)` (r: the relative error of the differing
    user's masses, each also within 1e-300 where it leaves the normal range; ρ, η, τ: T's relative, additive and
    cut errors, the true X summing to 1), the computed sums rounded against us. With one budget S is sufficient
    when the score is the likelihood ratio; with many, the weighting by the mean density is what lets the users
    with small budgets, whose reports land anywhere, count little (the window count weighs every report near 1
    alike). δ(ε) = 0 from ε = a."""

    others: Part  # the other users' total score
    reports: np.ndarray  # (2, SCORE_LEVELS + 1): the differing user's score laws on inputs 0 and 1
    rel: float  # their relative error
    budget: float
    description: str = ""

    def _delta1(self, e: float) -> float:
        if e >= self.budget:
            return 0.0
        ee = float(np.exp(e)) * (1 + 2 * U)
        T = self.others
        p = [np.convolve(T.pmf, x) for x in self.reports]  # direct: relative gamma(levels + 2)
        g = gamma(self.reports.shape[1] + T.width + 16)  # ... and the sums over E
        r = self.rel
        tiny = 1e-300 * self.reports.shape[1]  # the differing user's masses below the normal range
        out = 0.0
        for hi, lo in ((1, 0), (0, 1)):
            event = p[hi] > ee * p[lo]
            if not event.any():
                continue
            gain = (float(p[hi][event].sum()) * (1 - g) / (1 + r) - T.eta - tiny) / (1 + T.rho)
            loss = (float(p[lo][event].sum()) * (1 + g) / (1 - r) + T.eta + T.tau + tiny) / (
                1 - T.rho
            )
            out = max(out, (gain - ee * loss) * (1 - 8 * U) - 1e-300)
        return max(out, 0.0)

    def _top(self) -> float:
        return self.budget


def laplace_score_lower(eps, counts=None) -> LaplaceScoreLower:
    """:class:`LaplaceScoreLower` for budgets ``eps`` (or ``counts[g]`` users with budget ``eps[g]``): positive
    budgets of at most ``MAX_BUDGET``, at most ``SCORE_USERS`` users, at least two."""
    if counts is None:
        eps, _ = check_budgets(eps, None)
        users = eps
    else:
        eps, _, counts = check_histogram(eps, None, counts)
        users = np.repeat(eps, counts) if counts.sum() <= SCORE_USERS else None
    if users is None or not 2 <= users.size <= SCORE_USERS:
        n = eps.size if counts is None else int(counts.sum())
        raise ValueError(f"eps must hold 2 to {SCORE_USERS} users (counts included), got {n}")
    if not (0.0 < users.min() and users.max() <= MAX_BUDGET):
        raise ValueError(
            f"eps must lie in (0, {MAX_BUDGET}], got budgets {users.min():g} ... {users.max():g}"
        )
    a, others, edges, scores = _scoring(users)
    rel = gamma(_score_rel(a) + edges.size)
    law = _lattice_sum(_score_laws(others, edges, scores, 0.0), rel)
    # a mass below the normal range may be off by 1e-300: counted per user and score as total variation
    law = dataclasses.replace(law, eta=law.eta + 1e-300 * others.size * (SCORE_LEVELS + 1))
    reports = np.vstack([_score_laws(np.array([a]), edges, scores, x) for x in (0.0, 1.0)])
    return LaplaceScoreLower(
        law,
        reports,
        rel,
        a,
        f"the most liberal user (budget {a:g}) differs, others all 0, reports scored 0 .. {SCORE_LEVELS}",
    )
