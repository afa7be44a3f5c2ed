r"""Wang et al.'s variation-ratio reduction, re-derived: what it claims, where it fails, and the certified
lower bound it gives for shuffled k-ary randomized response.

Source: S. Wang et al., "Privacy amplification via shuffling: unified, simplified, and tightened",
VLDB 2024 (arXiv 2304.05007); the statements below are read from the appendix and the README of their
public code (github.com/wangsw/PrivacyAmplification, commit 34ca048: appendix.pdf, Lemmas 4.4–4.5,
Theorem 4.8; the parameter table of README.md). Their code is not used here.

**Their pair.** A randomizer has the (p, β, q) *variation-ratio* property when, for the differing user's
two inputs, max(R(x⁰)(y), R(x¹)(y)) ≤ p min(R(x⁰)(y), R(x¹)(y)), the total variation is at most β, and
every other user's law is at least 1/q times either of them. With α = β/(p − 1) and r = αp/q, their
Lemma 4.5 states that the shuffled output is a post-processing of the pair

.. math:: P = (A + \Delta_0,\; C - A + \Delta_1), \qquad Q = (A + \Delta_1,\; C - A + \Delta_0),

C ~ Bin(n − 1, 2r), A | C ~ Bin(C, 1/2), and (Δ₀, Δ₁) = (1, 0), (0, 1), (0, 0) with probabilities pα, α,
1 − (p + 1)α (:class:`VariationRatioPair` evaluates it exactly; their parameters for each randomizer:
:func:`parameters`).

**Where it fails.** When (p + 1)α < 1 the differing user has a third component (Δ = (0, 0): for k-ary
randomized response, a report on one of the k − 2 other symbols). Their proof (appendix C) labels the
other users' residual reports with distinct symbols and, given the pair's value (a, b), puts the
differing user's residual back with a probability that depends on a + b only; but given (a, b) the
chance that the differing user's report was residual depends on a and b separately and on its input,
so the post-processing does not reproduce the protocol. Exhaustive enumeration
(:func:`gspa.privacy.bruteforce.shuffled_profile`) confirms that the statement is false: for shuffled
3-ary randomized response with two users, ε₀ = 0.575, the data sets (x⁰, x⁰) and (x¹, x⁰) have
δ(0.5) = 0.0160 while the pair gives 0.0090. It stays false at realistic sizes where shuffling amplifies
little (:mod:`gspa.privacy.variation_scale` follows the same data sets to any n exactly). With (p + 1)α = 1
(binary randomized response; their
"general mechanisms" row, β = (e^ε − 1)/(e^ε + 1)) there is no residual and the pair is FMT23's clone pair
(:func:`gspa.privacy.accountant.fmt23_pair`).

**What it is instead: a lower bound for k-RR.** For k-ary randomized response with k ≥ 3, take every
other user's input to be a symbol z outside {x⁰, x¹}. User i then reports x⁰ or x¹ with probability
1/(e^εᵢ + k − 1) each, and the differing user j reports its input with probability e^εⱼ/(e^εⱼ + k − 1)
and the other of the two with 1/(e^εⱼ + k − 1). The numbers of x⁰ and of x¹ in the shuffled output (a
post-processing of it) are then *exactly* the pair above, with C the Poisson-binomial count of the
others' reports in {x⁰, x¹} — their second inequality in appendix C. So their k-RR value is a lower bound
on the protocol's δ, and no valid upper bound can be smaller; :func:`kary_lower_bound` computes it with
every error subtracted (personalized budgets allowed).

**The hockey-stick sum.** With f the law of C and B_m(x) = Bin(x; m, 1/2), the pair's probability of
(x, s − x) is B_s(x) [f(s − 1)(2/s)(pα x + α(s − x)) + (1 − (p + 1)α) f(s)] under P (pα and α swapped
under Q), so {P > e^ε Q} ∩ {x + y = s} is {x ≥ t_s} (the bracket is linear in x) and

.. math:: \delta(\epsilon) = \sum_c f(c)\,\big[(p\alpha - e^\epsilon\alpha)\,S_c(t_{c+1} - 1)
          + (\alpha - e^\epsilon p\alpha)\,S_c(t_{c+1}) + (1 - (p+1)\alpha)(1 - e^\epsilon)\,S_c(t_c)\big],

S_c(t) = P(Bin(c, 1/2) ≥ t). Any thresholds give a valid lower bound (they define an event); the
optimal ones give δ exactly. The pair is symmetric (Q is P with the coordinates swapped), so one
direction suffices.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from gspa.util import validate as V
from gspa.privacy.clones import CloneLaw, clone_law, gamma

RANDOMIZERS = ("binary-rr", "k-rr", "laplace", "general")
SF_REL = 1e-12      # relative allowance on each binomial tail (as in gspa.privacy.accountant)
WINDOW = 40.0       # VariationRatioPair: the binomial law of C is summed over mean ± WINDOW sd
PAIR_REL, PAIR_ABS = 1e-10, 1e-15   # margins: allowance for VariationRatioPair's own (uncounted) round-off


def parameters(randomizer: str, eps0, k: int | None = None) -> tuple[float, float, float]:
    """(p, β, q) of Wang et al.'s parameter table (README of their code): p = q = e^ε₀ throughout;
    β = (e^ε₀ − 1)/(e^ε₀ + 1) for ``"binary-rr"`` and ``"general"`` (any ε₀-LDP randomizer),
    (e^ε₀ − 1)/(e^ε₀ + k − 1) for ``"k-rr"``, 1 − e^(−ε₀/2) for ``"laplace"`` (inputs in [0, 1])."""
    if randomizer not in RANDOMIZERS:
        raise ValueError(f"randomizer must be one of {RANDOMIZERS}, got {randomizer!r}")
    eps0 = V.real("eps0", eps0, low=0.0, high=700.0, low_open=True, scalar=True)
    p = float(np.exp(eps0))
    if randomizer == "k-rr":
        if k is None or isinstance(k, bool):
            raise ValueError("randomizer 'k-rr' needs the alphabet size k (an integer >= 2)")
        k = V.integer("k", k, low=2)
        return p, float(np.expm1(eps0) / (p + k - 1)), p
    if k is not None:
        raise ValueError(f"k is only used with randomizer='k-rr', got k={k!r} with {randomizer!r}")
    beta = -float(np.expm1(-eps0 / 2)) if randomizer == "laplace" else float(np.tanh(eps0 / 2))
    return p, beta, p


def _tail(c, t):
    """P(Bin(c, 1/2) >= t), elementwise (1 for t <= 0, 0 for t > c)."""
    c, t = np.broadcast_arrays(np.asarray(c, dtype=np.int64), np.asarray(t, dtype=np.int64))
    out = np.where(t <= 0, 1.0, 0.0)
    mid = (t >= 1) & (t <= c)
    out[mid] = special.bdtrc(t[mid] - 1, c[mid], 0.5)
    return out


def _terms(e: float, c: np.ndarray, f: np.ndarray, hi: float, lo: float):
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
class VariationRatioPair:
    """Wang et al.'s reduced pair (Lemma 4.5) for parameters (p, β, q) and n users, evaluated exactly in
    floating point (relative error about 1e-12; not rounded to a certified side). It is **not** a valid
    bound on the shuffled protocol when (p + 1)β/(p − 1) < 1 (see the module docstring: k-ary randomized
    response with k ≥ 3 is a counterexample); for k-RR it is a lower bound on the protocol.

    Not a paper item of GSPA: a peer's published reduction, re-derived."""
    p: float
    beta: float
    q: float
    n: int

    def __post_init__(self):
        V.real("p", self.p, low=1.0, high=1e300, low_open=True, scalar=True)
        V.real("beta", self.beta, low=0.0, high=1.0, low_open=True, scalar=True)
        V.real("q", self.q, low=1.0, high=1e300, scalar=True)
        V.integer("n", self.n, low=2)
        alpha = self.beta / (self.p - 1.0)
        if (self.p + 1.0) * alpha > 1.0 + 1e-12:
            raise ValueError(f"beta must be at most (p - 1)/(p + 1) = {(self.p - 1) / (self.p + 1):.6g} "
                             f"(the total variation of a p-ratio pair), got {self.beta!r}")
        if 2.0 * alpha * self.p / self.q > 1.0:
            raise ValueError(f"q must be at least 2 beta p/(p - 1) = {2 * alpha * self.p:.6g}, got {self.q!r}")

    def delta(self, eps):
        """The pair's δ(ε) (both directions of the hockey-stick divergence are equal)."""
        eps_arr = V.nonnegative("eps", eps)
        alpha = self.beta / (self.p - 1.0)
        prob = 2.0 * alpha * self.p / self.q
        m = self.n - 1
        mean, sd = m * prob, np.sqrt(m * prob * (1 - prob))
        c = np.arange(max(0, int(mean - WINDOW * sd - 2)), min(m, int(mean + WINDOW * sd + 2)) + 1)
        f = stats.binom.pmf(c, m, prob)
        out = np.array([0.0 if e >= np.log(self.p) else
                        max(0.0, float(sum(coef * (f * tail).sum()
                                           for coef, tail in _terms(float(e), c, f, alpha * self.p, alpha))))
                        for e in eps_arr.ravel()])
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """The smallest ε with δ(ε) ≤ ``delta`` (to 1e-9 relative)."""
        from gspa.privacy.accountant import _invert
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return _invert(lambda e: self.delta(e), delta, float(np.log(self.p)))


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
        for coef, tail in _terms(e, c, f, hi, lo):
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
        value = pos + neg - (e_lo + e_hi) * bound / (1 - rho) - 2 * self.extra * bound
        return max(value, 0.0)

    def delta(self, eps):
        """Certified lower bound on the protocol's δ(ε)."""
        eps_arr = V.nonnegative("eps", eps)
        out = np.array([self._delta1(float(e)) for e in eps_arr.ravel()])
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """Certified lower bound on the protocol's ε(δ): the largest ε (rounded down) at which this pair
        still has δ(ε) > ``delta`` (0 if none)."""
        from gspa.privacy.accountant import _invert
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return _invert(self._delta1, delta, self.eps_j, upper=False)


def kary_lower_bound(eps, k: int, *, counts=None) -> KaryLowerBound:
    """Certified lower bound for shuffled k-ary randomized response (k ≥ 3) with budgets ``eps`` (one
    per user, or ``counts[g]`` users with budget ``eps[g]``): the user with the largest budget differs,
    the others hold a third symbol (:class:`KaryLowerBound`). This is Wang et al.'s k-RR pair, personalized;
    with a common budget it is the value their code computes for k-RR."""
    from gspa.privacy.accountant import check_budgets, check_histogram
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
    r = 2.0 * ei / (1.0 + (k - 1) * ei)                 # P(report in {x0, x1}) of a user holding z
    values, inverse = np.unique(r, return_inverse=True)
    merged = np.bincount(inverse, weights=counts).astype(np.int64)
    keep = merged > 0
    law = clone_law(values=values[keep], counts=merged[keep], drop=0.0)
    # each computed probability is within a relative 8u of the true one: a union bound on the others'
    # reports, plus the differing user's two probabilities
    extra = gamma(8) * (float((values[keep] * merged[keep]).sum()) + 2.0)
    return KaryLowerBound(law, float(eps[j]), k, extra,
                          f"shuffled {k}-ary randomized response: a user with budget {eps[j]:g} differs, "
                          "the others hold a third symbol")


MAX_EXACT = 6 ** 5      # exact_gap, laplace_gap: report vectors enumerated (outputs^n)
LAPLACE_EDGES = (0.0, 1.0)   # laplace_margin, laplace_gap: bins below, within and above the inputs' range [0, 1]


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
    return max(sum(max(mp.mpf(0), P[s] - Ee * Q[s]) for s in keys),
               sum(max(mp.mpf(0), Q[s] - Ee * P[s]) for s in keys))


def _mp_pair(n: int, alpha, p, q):
    """Lemma 4.5's pair for n users from its definition, in mpmath: with α = β/(p − 1) (given: computed by
    the caller without cancellation), C ~ Bin(n − 1, 2αp/q), A | C ~ Bin(C, 1/2), Δ = (1, 0), (0, 1),
    (0, 0) with probabilities pα, α, 1 − (p + 1)α under P (pα and α swapped under Q)."""
    from collections import defaultdict

    import mpmath as mp
    own, other, r = p * alpha, alpha, 2 * alpha * p / q
    P, Q = defaultdict(mp.mpf), defaultdict(mp.mpf)
    for c in range(n):
        pc = mp.binomial(n - 1, c) * r ** c * (1 - r) ** (n - 1 - c)
        for a in range(c + 1):
            w = pc * mp.binomial(c, a) / mp.mpf(2) ** c
            for (d0, d1), p0, p1 in (((1, 0), own, other), ((0, 1), other, own),
                                     ((0, 0), 1 - own - other, 1 - own - other)):
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
        data = [(_mp_histogram([row(0)] + [row(d)] * (n - 1)), _mp_histogram([row(1)] + [row(d)] * (n - 1)))
                for d in others]
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
    if k ** n > MAX_EXACT:
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
    if 3 ** n > MAX_EXACT:
        raise ValueError(f"3^n must be at most {MAX_EXACT} report vectors, got n = {n}")
    eps0 = V.real("eps0", eps0, low=0.0, high=50.0, low_open=True, scalar=True)
    e_arr = V.real("e", e, low=0.0, high=50.0)
    digits = V.integer("digits", digits, low=16, high=1000)
    with mp.workdps(digits):
        eps = mp.mpf(eps0)

        def cdf(t, x):                       # P(x + Lap(1/eps) <= t)
            return mp.exp(eps * (t - x)) / 2 if t < x else 1 - mp.exp(-eps * (t - x)) / 2

        def row(x):
            c = [mp.mpf(0)] + [cdf(mp.mpf(t), x) for t in LAPLACE_EDGES] + [mp.mpf(1)]
            return [c[i + 1] - c[i] for i in range(len(c) - 1)]

        E0 = mp.e ** eps
        return _mp_gap(n, row, (0, 1), -mp.expm1(-eps / 2) / mp.expm1(eps), E0, E0, e_arr, digits)


def _margin(bound, truth, err) -> float:
    """The smallest value of a peer's δ on a grid (``bound``, raised by the round-off allowance ``PAIR_REL``,
    ``PAIR_ABS`` of a floating-point evaluation) minus the enumerated protocol's δ less its round-off bound
    ``err``: negative only where the protocol is certainly above the peer's value."""
    return float(np.min(np.asarray(bound) * (1 + PAIR_REL) + PAIR_ABS - (np.asarray(truth) - np.asarray(err))))


def lemma45_margin(n: int, k: int, eps0, points: int = 16) -> float:
    """How far Lemma 4.5's pair lies above the real protocol for n users of k-ary randomized response
    with the common budget ``eps0``: the smallest, over ``points`` values of e in [0, eps0), of the pair's
    δ(e) minus the exhaustively enumerated protocol's δ(e) less its round-off bound
    (:func:`gspa.privacy.bruteforce.shuffled_profile`), the pair's value raised by its round-off allowance
    (``PAIR_REL``, ``PAIR_ABS``). Negative: the pair is *not* a bound there."""
    from gspa.privacy.bruteforce import shuffled_profile
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
    """x + Lap(1/ε₀) for each x in ``inputs`` (in [0, 1]) observed through the bins of ``LAPLACE_EDGES``: a
    randomizer matrix (row = input) for :func:`gspa.privacy.bruteforce.matrix_profile`."""
    from gspa.privacy.bruteforce import _laplace_binned_row
    eps0 = V.real("eps0", eps0, low=0.0, high=50.0, low_open=True, scalar=True)
    x = V.real("inputs", inputs, low=0.0, high=1.0)
    return np.array([_laplace_binned_row(eps0, float(v), LAPLACE_EDGES) for v in x.ravel()])


def laplace_margin(n: int, eps0, points: int = 16) -> float:
    """How far Wang et al.'s pair for the Laplace mechanism on [0, 1] (:func:`parameters` ``"laplace"``)
    lies above n shuffled users of x + Lap(1/ε₀) observed through three bins (:func:`laplace_rows`, inputs
    0, 1/2, 1): the smallest, over ``points`` values of e in [0, ε₀), of the pair's δ(e) (raised by its
    round-off allowance) minus the enumerated binned protocol's δ(e) less its round-off bound
    (:func:`gspa.privacy.bruteforce.matrix_profile`). Binning is a post-processing, so the binned δ is at
    most the real protocol's: a negative margin means the pair is *not* a bound for shuffled Laplace."""
    from gspa.privacy.bruteforce import matrix_profile
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
    inputs, outputs = V.integer("inputs", inputs, low=2, high=6), V.integer("outputs", outputs, low=2, high=8)
    eps0 = V.real("eps0", eps0, low=0.0, high=20.0, low_open=True, scalar=True)
    rng = np.random.default_rng(V.integer("seed", seed, low=0))
    w = rng.dirichlet(np.ones(outputs))
    b = rng.integers(0, 2, size=(inputs, outputs))
    b[0, :2] = (0, 1)              # the first row is not constant (a constant row normalises to w) ...
    b[1] = 1 - b[0]                # ... and the second is its mirror: the two differ at every output
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
    (:func:`gspa.privacy.bruteforce.matrix_profile`), the pair's value raised by its round-off allowance.
    Negative: the pair is not a bound for it."""
    from gspa.privacy.bruteforce import matrix_profile
    points = V.integer("points", points, low=1, high=1000)
    R = random_randomizer(3, outputs, eps0, seed)
    eps = ldp_epsilon(R)
    if eps < 1e-9:                 # every row the same: the protocol is 0-DP, and so is the pair
        return 0.0
    grid = np.linspace(0.0, eps, points, endpoint=False)
    truth, err = matrix_profile(R, n, grid)
    pair = VariationRatioPair(*parameters("general", eps), V.integer("n", n, low=2, high=6)).delta(grid)
    return _margin(pair, truth, err)
