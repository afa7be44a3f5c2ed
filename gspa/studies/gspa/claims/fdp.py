"""The claims of chapter gspa/fdp (f-DP) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Holds, Readings
from gspa.claims.table import Claim, table


# -- f-DP (chapter gspa/fdp) -----------------------------------------------------------------------


ANY_PAIR = (
    Param(
        "k",
        2,
        64,
        "int",
        stated="any finite support (pairs of distributions)",
        closed_by="k <= 64 outcomes",
    ),
    Param(
        "conc",
        0.02,
        20.0,
        stated="any distributions",
        closed_by="Dirichlet concentration: near-deterministic (0.02) to near-uniform (20)",
    ),
    Param(
        "seed",
        0,
        10**6,
        "linear",
        stated="any distributions",
        closed_by="seed of the random pair",
    ),
)
FDP_EPS = Param("eps", 1e-3, 10.0, stated="ε ≥ 0 (Fact 1)", closed_by="ε ∈ [0.001, 10]")
FDP_DELTA = Param(
    "delta",
    1e-10,
    0.9,
    stated="δ ∈ [0, 1) (Fact 1)",
    closed_by="δ ∈ [1e-10, 0.9] (log scale)",
)
FDP_MU = Param("mu", 0.01, 20.0, stated="μ > 0 (Fact 3)", closed_by="μ ∈ [0.01, 20]")
FDP_EPS3 = Param(
    "eps",
    0.0,
    30.0,
    "linear",
    stated="'for all ε ≥ 0' (Fact 3)",
    closed_by="ε ∈ [0, 30]",
)
FACT3_DOMAIN = ClaimDomain(
    (FDP_MU, FDP_EPS3),
    "'μ-GDP iff (ε, δ(ε))-DP for all ε ≥ 0', any μ > 0 (Fact 3, both copies)",
)
#: the part of Fact 3's composition domain where dp-accounting's composition is affordable
FACT3_COMPOSITION_REGION = ClaimDomain(
    (
        Param("n", 1, 6, "int"),
        Param("mu_max", 0.05, 2.0),
        Param("seed", 0, 10**6, "linear"),
    ),
    "dp-accounting's composition is affordable here",
)


def fact3_mc_rule(z_crit: float = 4.40, n_cmp: int = 93) -> Compare:
    """Fact 3 against Monte Carlo: the largest deviation in standard errors must stay below the two-sided
    Bonferroni critical value ``z_crit`` of the chapter's ``n_cmp`` points (family-wise level 1e-3). The
    defaults are the paper profile's (the chapter passes its own run's)."""
    from gspa.util import validate as V

    z_crit = V.real("z_crit", z_crit, low=0.0, high=100.0, low_open=True, scalar=True)
    n_cmp = V.integer("n_cmp", n_cmp, low=1, high=10**9)
    return Compare(
        "<=",
        z_crit,
        what="max |formula − MC| / s.e. (Bonferroni critical value, family-wise level 1e-3, "
        f"{n_cmp} points)",
    )


FDP = {
    "eq4-tv-bound": Claim(
        "$\\alpha_\\phi + \\beta_\\phi$ ≥ 1 − TV(U, V) for every rejection rule",
        "Privacy Tools, eq. (4)",
        "numerical",
        Compare(">=", -1e-12, what="min over tests of α+β−(1−TV)"),
        domain=ClaimDomain(
            ANY_PAIR,
            "'for every rejection rule' and any pair U, V (eq. (4), both copies)",
        ),
    ),
    "def3-rr-is-f-eps": Claim(
        "(ε,0)-DP randomized response is $f_{\\varepsilon,0}$-DP (Definition 3 with Fact 1)",
        "Definition 3, eq. (6); Fact 1",
        "numerical",
        Compare(
            "<=",
            1e-12,
            what="$\\max_\\alpha$ |$T_{\\mathrm{RR}}(\\alpha)$ − $f_{\\varepsilon,0}(\\alpha)$|",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "eps",
                    1e-3,
                    20.0,
                    stated="ε ≥ 0 (Definition 3, Fact 1)",
                    closed_by=r"ε ∈ [0.001, 20]: beyond, $e^{\epsilon}$ overflows nothing but δ-curves "
                    "are flat",
                ),
            ),
            "randomized response with any budget ε (Definition 3 with Fact 1, both copies)",
        ),
    ),
    "fact1-equivalence": Claim(
        "(ε, δ)-DP is equivalent to $f_{\\varepsilon,\\delta}$-DP (with the corrected third term)",
        "Appendix, Fact 1, eq. (19)",
        "numerical",
        Holds(
            "T(quaternary) = $f_{\\varepsilon,\\delta}$, T ≥ $f_{\\varepsilon,\\delta}(\\varepsilon)$ for "
            "random pairs, and δ(ε) recovered from T (all to 1e-12)"
        ),
        domain=ClaimDomain(
            (FDP_EPS, FDP_DELTA) + ANY_PAIR,
            "(ε, δ)-DP ⇔ $f_{\\varepsilon,\\delta}$-DP for every ε ≥ 0, δ ∈ [0, 1] and every mechanism "
            "(Fact 1, both copies)",
        ),
    ),
    "fact1-as-printed": Claim(
        r"$f_{\epsilon,\delta} = \max\{0, 1 - \delta - e^{\epsilon}\alpha, e^{-\epsilon}(1 - \delta - "
        r"\epsilon)\}$ is the trade-off function equivalent to (ε, δ)-DP (as printed in both copies), for "
        "ε < 1 − δ",
        "Appendix, Fact 1, eq. (19)",
        "misprint",
        Holds("the printed eq. (19) is a trade-off function for ε ∈ {0.1, 0.5, 0.9}, δ = 0.01"),
        domain=ClaimDomain(
            (
                FDP_DELTA,
                Param(
                    "frac",
                    1e-3,
                    0.999,
                    "linear",
                    stated="ε < 1 − δ (the range where the printed last term is positive)",
                    closed_by="ε = frac·(1 − δ)",
                ),
            ),
            "eq. (19) as printed in both copies, for ε < 1 − δ",
        ),
        note=r"misprint: the last term should be $e^{-\epsilon}(1 - \delta - \alpha)$; see Errata",
    ),
    "fact1-printed-large-eps": Claim(
        "(ε, δ)-DP is equivalent to f-DP with eq. (19) as printed, for ε ≥ 1 − δ",
        "Appendix, Fact 1, eq. (19); Definition 1 (symmetric neighbours)",
        "numerical",
        Compare(
            "<=",
            1e-3,
            what="max |symmetrised printed eq. (19) − $f_{\\varepsilon,\\delta}$|",
        ),
        domain=ClaimDomain(
            (
                FDP_DELTA,
                Param(
                    "excess",
                    1e-6,
                    20.0,
                    stated="ε ≥ 1 − δ",
                    closed_by="ε = 1 − δ + excess, excess ∈ [1e-6, 20]",
                ),
            ),
            "eq. (19) as printed, ε ≥ 1 − δ, δ ∈ [0, 1)",
        ),
        note=r"the printed form reduces to $\max\{0, 1 - \delta - e^{\epsilon}\alpha\}$; with symmetric "
        "neighbours this is equivalent",
    ),
    "fact2-post-processing": Claim(
        "f-DP is preserved under post-processing",
        "Appendix, Fact 2",
        "numerical",
        Compare(">=", -1e-12, what="min of T(KP,KQ) − T(P,Q)"),
        domain=ClaimDomain(
            ANY_PAIR[:1]
            + (
                Param(
                    "m",
                    2,
                    64,
                    "int",
                    stated="any post-processing",
                    closed_by="kernels to m ≤ 64 outcomes",
                ),
            )
            + ANY_PAIR[1:],
            "'its post-processing Proc ∘ M is also f-DP' for any mechanism and any Proc (Fact 2, both "
            "copies)",
        ),
    ),
    "fact3-delta-mc": Claim(
        r"μ-GDP ⇔ (ε, δ(ε))-DP with $\delta(\epsilon) = \Phi(-\epsilon/\mu + \mu/2) - "
        r"e^{\epsilon}\Phi(-\epsilon/\mu - \mu/2)$",
        "Appendix, Fact 3",
        "numerical",
        fact3_mc_rule(),  # the paper profile's critical value; the chapter passes its own
        domain=FACT3_DOMAIN,
    ),
    "fact3-delta-pld": Claim(
        "δ(ε) of Fact 3 agrees with an independent accountant (dp-accounting PLD)",
        "Appendix, Fact 3",
        "numerical",
        Compare("<=", 1e-3, what="max relative gap to the pessimistic PLD"),
        domain=FACT3_DOMAIN,
    ),
    "fact3-composition": Claim(
        r"the n-fold composition of $\mu_i$-GDP mechanisms is $\sqrt{\mu_1^2 + \dots + \mu_n^2}$-GDP",
        "Appendix, Fact 3",
        "numerical",
        Compare("<=", 1e-3, what="max relative gap"),
        domain=ClaimDomain(
            (
                Param(
                    "n",
                    1,
                    10**4,
                    "int",
                    stated="'the n-fold composition' (any n)",
                    closed_by="n ≤ 10,000",
                ),
                Param(
                    "mu_max",
                    0.01,
                    20.0,
                    stated=r"any $\mu_i$ > 0",
                    closed_by=r"$\mu_i$ ∈ [0.05 $\mu_{\max}$, $\mu_{\max}$], $\mu_{\max}$ ≤ 20",
                ),
                Param(
                    "seed",
                    0,
                    10**6,
                    "linear",
                    stated=r"any $\mu_i$",
                    closed_by=r"seed of the $\mu_i$",
                ),
            ),
            r"'the n-fold composition of $\mu_i$-GDP mechanisms is $\sqrt{\mu_1^2 + \dots + "
            r"\mu_n^2}$-GDP' (Fact 3, both copies)",
        ),
        proof="composing fᵢ-DP mechanisms gives f₁ ⊗ … ⊗ fₙ-DP (the composition theorem of f-DP, Dong, "
        "Roth and Su); G_μᵢ is the test of N(0, 1) against N(μᵢ, 1), so the tensor product is the test of "
        "N(0, Iₙ) against N(μ⃗, Iₙ), and a rotation taking μ⃗ to (‖μ⃗‖, 0, …, 0) keeps N(0, Iₙ) and reduces "
        "it to one coordinate: G with ‖μ⃗‖ = sqrt(μ₁² + … + μₙ²), for every n (the theorem covers adaptive "
        "composition; the computation checks non-adaptive Gaussian mechanisms, n ≤ 6)",
        note="Theorem 5 applies Fact 3 to rounds that are only approximately μ-GDP (Theorem 2), which "
        "Fact 3 does not cover: that is Theorem 5's matter, not this fact's",
    ),
    "fact3-group": Claim(
        "a μ-GDP mechanism is kμ-GDP for groups of size k",
        "Appendix, Fact 3",
        "numerical",
        Compare("<=", 1e-3, what="max relative gap"),
        domain=ClaimDomain(
            (
                FDP_MU,
                Param(
                    "k",
                    1,
                    1000,
                    "int",
                    stated="groups of size k (any k ≥ 1)",
                    closed_by="k ≤ 1000",
                ),
                FDP_EPS3,
            ),
            "'kμ-GDP for groups of size k' (Fact 3, both copies)",
        ),
        follows_from="gspa.fact4-chain",
        because=r"$G_a(1 - G_b(\alpha)) = G_{a+b}(\alpha)$, so the chain rule applied k − 1 times "
        r"along a group of size k (k neighbouring steps) gives $G_{k\mu}$",
    ),
    "fact4-chain": Claim(
        "if T(P,Q) ≥ f and T(Q,R) ≥ g then T(P,R) ≥ g(1 − f(α)) (the form used in Theorem 2's proof)",
        "Appendix, Fact 4; proof of Theorem 2",
        "numerical",
        Compare(">=", -1e-12, what="min over α and random triples of T(P,R) − g(1 − f(α))"),
        domain=ClaimDomain(
            ANY_PAIR, "any P, Q, R (Fact 4 in the form the proof of Theorem 2 uses)"
        ),
    ),
    "fact4-as-printed": Claim(
        "Fact 4 as printed (Suppose T(P,R) ≥ f, T(Q,R) ≥ g, then T(P,R) ≥ f∘g = g(1 − f(α))) yields the "
        "step T(ρ′₀, Q) ≥ F(α) of Theorem 2's proof",
        "Appendix, Fact 4; proof of Theorem 2",
        "misprint",
        Compare(
            ">",
            1e-12,
            what="how far the printed conclusion exceeds its own hypothesis, max g(1−f) − f",
        ),
        domain=ClaimDomain(ANY_PAIR, "Fact 4 as printed, any P, Q, R (both copies)"),
        note="true but vacuous as printed; the proof of Theorem 2 needs T(P,Q) ≥ f — see Errata",
    ),
    "def1-delta-meaning": Claim(
        "δ … describes the probability of privacy leakage exceeding ε",
        "Definition 1 (both copies)",
        "under-specified",
        Readings(
            Compare("<=", 1.0, what="P(L > ε)/δ(ε) (first reading), δ(ε)/P(L > ε) (second)"),
            what="reading of 'describes'",
        ),
        note="δ(ε) = E[(1 − exp(ε − L))₊] ≤ P(L > ε) for every mechanism (the integrand is at most the "
        "indicator), so the second reading holds in general",
    ),
}


CLAIMS = table(FDP)
