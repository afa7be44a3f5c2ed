r"""Wang et al.'s variation-ratio reduction (VLDB 2024), re-derived: what it claims and where it fails.
Derivations and checks: the peers chapter (book/chapters/accountant/peers).

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
(:func:`gspa.privacy.exact.enumeration.shuffled_profile`) confirms that the statement is false: for shuffled
3-ary randomized response with two users, ε₀ = 0.575, the data sets (x⁰, x⁰) and (x¹, x⁰) have
δ(0.5) = 0.0160 while the pair gives 0.0090. It stays false at realistic sizes where shuffling amplifies
little (:mod:`gspa.privacy.peers.variation_scale` follows the same data sets to any n exactly). With (p + 1)α = 1
(binary randomized response; their
"general mechanisms" row, β = (e^ε − 1)/(e^ε + 1)) there is no residual and the pair is FMT23's clone pair
(:func:`gspa.privacy.shuffle.pairs.fmt23_pair`).

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
from scipy import stats

from gspa.privacy.numerics import invert
from gspa.privacy.shuffle.lower import bracket_terms
from gspa.util import validate as V

RANDOMIZERS = ("binary-rr", "k-rr", "laplace", "general")
WINDOW = 40.0  # VariationRatioPair: the binomial law of C is summed over mean ± WINDOW sd
PAIR_REL, PAIR_ABS = (
    1e-10,
    1e-15,
)  # margins: allowance for VariationRatioPair's own (uncounted) round-off


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
            raise ValueError(
                f"beta must be at most (p - 1)/(p + 1) = {(self.p - 1) / (self.p + 1):.6g} "
                f"(the total variation of a p-ratio pair), got {self.beta!r}"
            )
        if 2.0 * alpha * self.p / self.q > 1.0:
            raise ValueError(
                f"q must be at least 2 beta p/(p - 1) = {2 * alpha * self.p:.6g}, got {self.q!r}"
            )

    def delta(self, eps):
        """The pair's δ(ε) (both directions of the hockey-stick divergence are equal)."""
        eps_arr = V.nonnegative("eps", eps)
        alpha = self.beta / (self.p - 1.0)
        prob = 2.0 * alpha * self.p / self.q
        m = self.n - 1
        mean, sd = m * prob, np.sqrt(m * prob * (1 - prob))
        c = np.arange(max(0, int(mean - WINDOW * sd - 2)), min(m, int(mean + WINDOW * sd + 2)) + 1)
        f = stats.binom.pmf(c, m, prob)
        out = np.array(
            [
                0.0
                if e >= np.log(self.p)
                else max(
                    0.0,
                    float(
                        sum(
                            coef * (f * tail).sum()
                            for coef, tail in bracket_terms(float(e), c, f, alpha * self.p, alpha)
                        )
                    ),
                )
                for e in eps_arr.ravel()
            ]
        )
        return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])

    def epsilon(self, delta: float) -> float:
        """The smallest ε with δ(ε) ≤ ``delta`` (to 1e-9 relative)."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return invert(lambda e: self.delta(e), delta, float(np.log(self.p)))
