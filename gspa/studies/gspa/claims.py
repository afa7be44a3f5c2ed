"""The GSPA paper's claims as data: for each claim its statement, place in the paper, kind, rule, paper
value and stated domain, one section per chapter; the chapters record them by id with the values they
compute (:meth:`gspa.book.results.Chapter.claim`), and the margins that search their domains are in `margins`
and `domain_search`."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Holds, NotCheckable, Readings
from gspa.claims.table import Claim, table
from gspa.studies.gspa.margins import LEMMA4_MECHANISMS, PERSONALIZED_RANDOMIZERS

# -- common parameters of the stated domains -------------------------------------------------------------

EPS0 = Param(
    "eps0",
    1e-2,
    10.0,
    stated="any common budget ε₀ ('without loss of generality', text after Lemma 2)",
    closed_by="ε₀ ∈ [0.01, 10]",
)
DELTA0 = Param(
    "delta0",
    0.0,
    0.5,
    "linear",
    stated="δ₀ = O(1/n) (text after Lemma 2), δᵢ ∈ [0, 1)",
    closed_by="δ₀ ∈ [0, 0.5]",
)

# -- Lemma 2 (chapter gspa/lemma2) ------------------------------------------------------------------------

LEMMA2_DOMAIN = ClaimDomain(
    (
        EPS0,
        DELTA0,
        Param(
            "m",
            1,
            10**5,
            "int",
            stated="any number of users m ≥ 1 (Lemma 2)",
            closed_by="m ≤ 100,000",
        ),
    ),
    "Lemma 2: MultiBern(pᵢ/2, pᵢ/2, 1 − pᵢ) summed over any m users; eq. (14) and the text after it for the "
    "common budget (both copies)",
)
#: the part of Lemma 2's domain where eq. (14)'s exact lattice law costs at most seconds
LEMMA2_EQ14_REGION = ClaimDomain(
    (EPS0, DELTA0, Param("m", 10, 1000, "int")),
    "m ≤ 1000: the exact lattice law costs seconds beyond",
)

LEMMA2 = {
    "lemma2-rate": Claim(
        "‖P̃ − Q̃‖_TV ≤ C/√m, Q̃ the corresponding normal distribution",
        "Lemma 2",
        "under-specified",
        Readings(Close(abs_tol=0.05, loose_abs=0.15), what="reading of Q̃ and C"),
        paper=-0.5,
        paper_text="−1/2 (O(1/√m))",
        domain=LEMMA2_DOMAIN,
        note="false as stated (mutually singular laws), and false for any C independent of the pᵢ (few "
        "clones); true for the normal rounded to unit cells with C depending on the budget, which repairs "
        "the proof of Theorem 2",
    ),
    "lemma2-nearly-1-over-n": Claim(
        "the convergence rate in Lemma 2 is nearly O(1/n) and can be negligible in numerical analysis",
        "Comparison with Existing Results (text before Table 2)",
        "under-specified",
        Readings(Close(abs_tol=0.1, loose_abs=0.25), what="reading of the distance"),
        paper=-1.0,
        paper_text="−1 (O(1/n))",
        domain=LEMMA2_DOMAIN,
    ),
    "lemma2-eq14-is-tv": Claim(
        "‖P̃ − Q̃‖_TV = sup over (k₀, k₁) of |P(ξ₀ = k₀, ξ₁ = k₁) − h(k₀, k₁)|",
        "Lemma 2, eq. (14)",
        "false-statement",
        Compare(
            "<=",
            1.5,
            what="max over m of TV / eq. (14) as printed (equal quantities would give 1)",
            loose=3.0,
        ),
        domain=LEMMA2_DOMAIN,
    ),
    "lemma2-p0-definition": Claim(
        r"with εᵢ = ε₀, δᵢ = δ₀: $p_0 = (1-\delta_0)/(1+e^{\epsilon_0})$ is Lemma 2's pᵢ (the clone probability "
        r"of MultiBern(pᵢ/2, pᵢ/2, 1−pᵢ), Lemma 3's $p_i = 2(1-\delta_i)/(1+e^{\epsilon_i})$)",
        "text after Lemma 2 (before eq. (14)); Lemma 3; proof of Theorem 2",
        "misprint",
        Compare("<=", 1e-12, what="|p₀ / pᵢ(Lemma 3) − 1|"),
        domain=ClaimDomain(
            (EPS0, DELTA0),
            "'assume εᵢ = ε₀, δᵢ = δ₀ = O(1/n), then p₀ = (1−δ₀)/(1+e^ε₀)' (text "
            "after Lemma 2, both copies)",
        ),
        note="a third definition of p: equals the proof of Theorem 2's pᵢ and half of Lemma 3's; consistent "
        "only if read as the per-side probability pᵢ/2",
    ),
}

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


# -- Lemma 1 (chapter gspa/lemma1) -----------------------------------------------------------------


LEMMA1_EPS = Param(
    "eps",
    1e-3,
    10.0,
    stated="any εᵢ (Lemma 1: '(εᵢ, δᵢ)-PLDP')",
    closed_by="ε ∈ [0.001, 10]",
)


def _unit(name, stated, closed=""):
    return Param(name, 0.0, 1.0, "linear", stated=stated, closed_by=closed)


#: the domain of the search for the worst margin of the Laplace repair of the accountant (a value of the
#: chapter, not a claim of the paper)
LEMMA1_LAPLACE_REPAIR = ClaimDomain(
    (
        Param("eps", 0.05, 8.0, stated="ε"),
        Param("gap", 0.02, 1.0, "linear", stated="d"),
        Param("n", 2, 10**4, "int", stated="users"),
        Param("frac", 0.0, 1.0, "linear", stated="ε′/ε"),
    ),
    "accountant repair",
)

LEMMA1 = {
    "lemma1-eq9-10": Claim(
        r"$R(x_1^0) = (1-\delta)e^{\epsilon}/(1+e^{\epsilon})\, Q_1^0 + (1-\delta)/(1+e^{\epsilon})\, Q_1^1 "
        r"+ \delta Q_1$ and $R(x_1^1)$ as printed in eq. (10)",
        "Lemma 1, eqs. (9)–(10)",
        "version-discrepancy",
        Readings(
            Compare("<=", 1e-12, what="largest |printed right-hand side − R(x)|"),
            what="copy of the paper",
        ),
        domain=ClaimDomain(
            (LEMMA1_EPS,),
            "eqs. (9)–(10) for any (εᵢ, δᵢ)-PLDP randomizer; here copy 000's reading on binary "
            "randomized response (δ = 0)",
        ),
        note="copy 003 prints (10) equal to (9); copy 000 (from the LaTeX source) prints the correct (10)",
    ),
    "lemma1-delta-shared": Claim(
        "for an (εᵢ, δᵢ)-PLDP randomizer, R(x₁⁰) and R(x₁¹) decompose as in eqs. (9)–(10), with the δᵢ "
        "part a common component Q₁ (both copies)",
        "Lemma 1, eqs. (9)–(10) and its proof (W₁ = R′(x₁⁰)|M = R′(x₁¹)|M)",
        "false-statement",
        Compare(
            "<=",
            1e-12,
            what="TV of Lemma 4's randomizer − the largest TV eqs. (9)–(10) allow",
        ),
        domain=ClaimDomain(
            (
                LEMMA1_EPS,
                Param(
                    "delta",
                    0.0,
                    0.9,
                    "linear",
                    stated="δᵢ ∈ [0, 1) (Lemma 1)",
                    closed_by="δᵢ ∈ [0, 0.9]",
                ),
            ),
            "'Given an (εᵢ, δᵢ)-PLDP adaptive process … for any n+1 inputs' (Lemma 1, both copies)",
        ),
        note="the δ event is distinguishing (A vs B); Theorem 1 inherits the shared slot",
    ),
    "lemma1-rr-laplace": Claim(
        r"eq. (11) with $p_i = 1/(1+e^{\epsilon_i})$ for the randomizers the paper uses (randomized "
        r"response, Laplace), all users with the same budget, for any n+1 inputs",
        "Lemma 1, eq. (11); Algorithms 1–2",
        "numerical",
        Compare(">=", 1 - 1e-6, what="largest feasible p over the paper's p"),
        domain=ClaimDomain(
            (
                LEMMA1_EPS,
                Param(
                    "k",
                    2,
                    20,
                    "int",
                    stated="k-ary randomized response (Algorithm 2: k = 2)",
                    closed_by="k ≤ 20",
                ),
                Param(
                    "randomizer",
                    scale="choice",
                    choices=("k-ary RR", "Laplace"),
                    stated="the paper's randomizers (Algorithms 1–2)",
                ),
                _unit(
                    "lower",
                    "any x₁⁰, x₁¹ ∈ [0, 1] (Laplace; 'for any n+1 inputs')",
                    "the pair's position: x₁⁰ = lower·(1 − gap)",
                ),
                Param(
                    "gap",
                    1e-3,
                    1.0,
                    stated="|x₁¹ − x₁⁰| ∈ (0, 1] (Theorem 1: D₀, D₁ distinct at one point)",
                    closed_by="gap ≥ 0.001",
                ),
                _unit("xi", "any other input xᵢ ∈ [0, 1] (Laplace)"),
            ),
            "eq. (11) for the paper's randomizers with a common budget, any ε, any n+1 inputs",
        ),
        note="holds for k-ary randomized response and for Laplace pairs at distance 1; fails for Laplace "
        "pairs closer than 1",
    ),
    "lemma1-eq11-general": Claim(
        r"for any (εᵢ, δᵢ)-PLDP randomizer R, R(xᵢ) = pᵢQ₁⁰ + pᵢQ₁¹ + (1−2pᵢ)Qᵢ with "
        r"$p_i = (1-\delta_i)/(1+e^{\epsilon_i})$",
        "Lemma 1, eq. (11)",
        "false-statement",
        Compare(
            ">=",
            1 - 1e-6,
            what="min over random randomizers of largest feasible p / paper's p",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "n_inputs",
                    3,
                    8,
                    "int",
                    stated="any input space",
                    closed_by="3 to 8 inputs",
                ),
                Param(
                    "n_outputs",
                    2,
                    12,
                    "int",
                    stated="any output space",
                    closed_by="2 to 12 outputs",
                ),
                Param(
                    "spread",
                    0.05,
                    5.0,
                    stated="any randomizer",
                    closed_by="log-probabilities spread over [0, spread]",
                ),
                Param(
                    "seed",
                    0,
                    10**6,
                    "linear",
                    stated="any randomizer",
                    closed_by="seed of the random randomizer",
                ),
            ),
            "'for any n+1 inputs' and any (εᵢ, δᵢ)-PLDP randomizer (Lemma 1, eq. (11), both copies)",
        ),
        note=r"counterexamples found by linear programming; FMT21's $e^{-\epsilon}/2$ is always feasible",
    ),
    "lemma1-personalized": Claim(
        r"eq. (11) holds with $p_i = 1/(1+e^{\epsilon_i})$ when users have different budgets (the PLDP "
        r"setting)",
        "Lemma 1, eq. (11); Definition 6",
        "false-statement",
        Compare(">=", 1 - 1e-6, what="min over randomizers and budgets of clone weight / pᵢ"),
        domain=ClaimDomain(
            (
                Param(
                    "eps_i",
                    1e-2,
                    10.0,
                    stated="any budgets εᵢ (PLDP)",
                    closed_by="εᵢ ∈ [0.01, 10]",
                ),
                Param(
                    "eps_n",
                    1e-2,
                    10.0,
                    stated="any budget εₙ of the differing user",
                    closed_by="εₙ ∈ [0.01, 10]",
                ),
                Param(
                    "randomizer",
                    scale="choice",
                    choices=PERSONALIZED_RANDOMIZERS,
                    stated="the paper's randomizers",
                ),
            ),
            "eq. (11) with pᵢ = 1/(1+e^εᵢ) for users with different budgets (Lemma 1 with Definition 6 / "
            "Algorithms 1–2)",
        ),
        note="holds for binary randomized response only; fails for k-ary randomized response (k ≥ 3) and "
        "Laplace",
    ),
}


# -- Lemma 3 (chapter gspa/lemma3) -----------------------------------------------------------------

LEMMA3_BUDGETS = (
    Param(
        "n",
        2,
        10**5,
        "int",
        stated="any number of users n ≥ 2 (Lemma 3: sums over i = 1..n−1)",
        closed_by="n ≤ 100,000",
    ),
    Param(
        "eps_max",
        1e-2,
        20.0,
        stated="any budgets εᵢ > 0",
        closed_by=r"εᵢ uniform in [$\epsilon_{\max}/100$, $\epsilon_{\max}$], $\epsilon_{\max}$ ≤ 20",
    ),
    Param(
        "delta_max",
        1e-12,
        0.9,
        stated="any δᵢ ∈ [0, 1)",
        closed_by=r"δᵢ uniform in [0, $\delta_{\max}$], $\delta_{\max}$ ≤ 0.9",
    ),
    Param(
        "seed",
        0,
        10**6,
        "linear",
        stated="any budget vector",
        closed_by="seed of the budgets",
    ),
)

LEMMA3 = {
    "lemma3-closed-form": Claim(
        "(μ₁ − μ₀)′Σ⁻¹(μ₁ − μ₀) = 4/Σpᵢ, so T(N(μ₀,Σ), N(μ₁,Σ)) = Φ(Φ⁻¹(1−α) − 2/√Σpᵢ)",
        "Lemma 3 and its proof",
        "numerical",
        Compare("<=", 1e-10, what="largest relative error of the closed forms"),
        domain=ClaimDomain(
            LEMMA3_BUDGETS, "Lemma 3 for any budgets (εᵢ, δᵢ), i = 1..n−1 (both copies)"
        ),
    ),
    "thm2-proof-p-definition": Claim(
        r"with $p_i = (1-\delta_i)/(1+e^{\epsilon_i})$ and MultiBern(pᵢ/2, pᵢ/2, 1−pᵢ), μ = sqrt(2/Σpᵢ)",
        "Proof of Theorem 2 (definition of ρ′₀, ρ′₁)",
        "misprint",
        Compare("<=", 1.0 + 1e-9, what="μ(proof's definitions) / μ(stated)"),
        paper=1.0,
        paper_text="1",
        domain=ClaimDomain(
            LEMMA3_BUDGETS,
            "the proof of Theorem 2's definitions for any budgets (both copies)",
        ),
        note="the stated μ follows Lemma 1/Lemma 3 (clone probability 2pᵢ); the proof's MultiBern halves it",
    ),
}


# -- the mechanisms (chapter gspa/mechanisms) ------------------------------------------------------


LAPLACE_DOMAIN = ClaimDomain(
    (
        Param(
            "eps0",
            1e-3,
            20.0,
            stated="any privacy parameter ε > 0 (Definition 4)",
            closed_by="ε ∈ [0.001, 20]",
        ),
    ),
    "'privacy parameter ε … preserves ε-DP', any ε > 0 and sensitivity Δ (Definition 4, both copies; Δ "
    "scales out)",
)
GAUSSIAN_CALIBRATION_DOMAIN = ClaimDomain(
    (
        Param(
            "eps",
            1e-3,
            20.0,
            stated="'privacy parameter ε', no range (Definition 5, both copies)",
            closed_by="ε ∈ [0.001, 20]",
        ),
        Param(
            "delta",
            1e-12,
            0.5,
            stated="δ, no range (Definition 5, both copies)",
            closed_by="δ ∈ [1e-12, 0.5] (log scale)",
        ),
    ),
    "'… preserves (ε, δ)-DP' with no range on ε or δ (Definition 5, eq. (8), both copies; Dwork–Roth "
    "prove it for ε < 1)",
)
LEMMA4_DOMAIN = ClaimDomain(
    (
        Param("eps", 1e-3, 10.0, stated="any εᵢ ≥ 0 (Lemma 4)", closed_by="εᵢ ∈ [0.001, 10]"),
        Param(
            "delta", 1e-12, 0.5, stated="any δᵢ ∈ [0, 1)", closed_by="δᵢ ∈ [1e-12, 0.5] (log scale)"
        ),
        Param(
            "mechanism",
            scale="choice",
            choices=LEMMA4_MECHANISMS,
            stated="'an (εᵢ, δᵢ)-DP local randomizer' (any)",
            closed_by="randomized response (binary, k-ary), Laplace, exactly calibrated Gaussian, random "
            "discrete pairs",
        ),
        Param(
            "k",
            2,
            32,
            "int",
            stated="any output space",
            closed_by="k ≤ 32 outputs (k-ary RR, random pairs)",
        ),
        Param(
            "seed", 0, 10**6, "linear", stated="any randomizer", closed_by="seed of the random pair"
        ),
    ),
    "'Let R be an (εᵢ, δᵢ)-DP local randomizer and x₀, x₁ ∈ D' (Lemma 4, Appendix, both copies)",
)

MECHANISMS = {
    "def4-laplace-pure": Claim(
        "Q(D) + Lap(Δ/ε) preserves ε-DP",
        "Definition 4, eq. (7)",
        "numerical",
        Compare("<=", 0.0, what="exact δ at ε = ε₀"),
        domain=LAPLACE_DOMAIN,
    ),
    "def5-gaussian-calibration": Claim(
        "N(0, 2 log(1.25/δ)Δ²/ε²) preserves (ε, δ)-DP (used with ε up to 2, δ = 10⁻⁵)",
        "Definition 5, eq. (8); Table 3",
        "numerical",
        Compare(">=", 2.0, what="largest ε for which eq. (8) gives (ε, δ)-DP"),
        paper=2.0,
        paper_text="ε ∈ [0.01, 2]",
        domain=GAUSSIAN_CALIBRATION_DOMAIN,
    ),
    "lemma4-dominance": Claim(
        r"every $(\epsilon_i, \delta_i)$-DP randomizer is a post-processing of the quaternary pair "
        "(X̃₀, X̃₁)",
        "Appendix, Lemma 4 (KOV15)",
        "numerical",
        Compare(
            "<=",
            1e-12,
            what=r"$\max_\epsilon (\delta_{\mathrm{mech}}(\epsilon) - \delta_{\mathrm{quat}}(\epsilon))$",
        ),
        domain=LEMMA4_DOMAIN,
    ),
}


# -- Theorem 1 (chapter gspa/theorem1) -------------------------------------------------------------

#: the exhaustively enumerated protocols' users, and the personalized budgets searched there
THM1_SMALL_N = Param(
    "n", 2, 4, "int", stated="any n", closed_by="n ≤ 4 users: exhaustive enumeration"
)
THM1_EPS_MAX = Param(
    "eps_max",
    1e-2,
    10.0,
    stated="any personalized budgets εᵢ",
    closed_by=r"user 0 at $\epsilon_{\max}$ ≤ 10",
)
THM1_SPREAD = Param(
    "spread",
    1.0,
    1000.0,
    stated="any personalized budgets εᵢ",
    closed_by=r"the others log-uniform in [$\epsilon_{\max}$/spread, $\epsilon_{\max}$], "
    "spread ≤ 1000",
)
THM1_SEED = Param(
    "seed", 0, 10**6, "linear", stated="any budgets", closed_by="seed of the others' budgets"
)

THEOREM1 = {
    "thm1-dominance": Claim(
        "the shuffled PLDP process is a post-processing of the reduced pair (ρ₀, ρ₁): "
        "T(A(D₀), A(D₁)) ≥ T(ρ₀, ρ₁) — checked for binary randomized response with personalized "
        "budgets and δᵢ = 0 (Algorithm 2)",
        "Theorem 1",
        "numerical",
        Compare(">=", -1e-9, what="min_α (T_protocol − T_reduced)"),
        domain=ClaimDomain(
            (
                Param(
                    "n",
                    2,
                    2000,
                    "int",
                    stated="any n (Theorem 1: D₀, D₁ ∈ Dⁿ)",
                    closed_by="n ≤ 2000",
                ),
                Param(
                    "eps_max",
                    1e-2,
                    10.0,
                    stated="any personalized budgets εᵢ",
                    closed_by=r"εᵢ uniform in [$\epsilon_{\max}/100$, $\epsilon_{\max}$], "
                    r"$\epsilon_{\max}$ ≤ 10",
                ),
                Param(
                    "seed",
                    0,
                    10**6,
                    "linear",
                    stated="any budgets, differing user and inputs",
                    closed_by="seed of the budgets, the differing user and the others' bits",
                ),
            ),
            "'for arbitrary two neighboring datasets D₀, D₁ ∈ Dⁿ' of a shuffled PLDP process "
            "(Theorem 1, both copies); here binary randomized response, δᵢ = 0",
        ),
    ),
    "thm1-dominance-krr": Claim(
        r"the shuffled PLDP process is a post-processing of (ρ₀, ρ₁), whose V has clone "
        r"probabilities $(1-\delta_i)/(1+e^{\epsilon_i})$ whatever the randomizer — checked for 4-ary "
        r"randomized response with personalized budgets, δᵢ = 0",
        "Theorem 1, eqs. (12)–(13)",
        "false-statement",
        Compare(
            "<=",
            0.0,
            what=r"max over ε of $\delta_{\mathrm{protocol}} - \delta_{\mathrm{pair}}$ "
            "(round-off subtracted)",
        ),
        domain=ClaimDomain(
            (
                THM1_SMALL_N,
                Param(
                    "k",
                    3,
                    4,
                    "int",
                    stated="any randomizer; here k-ary randomized response",
                    closed_by="k ∈ {3, 4}",
                ),
                THM1_EPS_MAX,
                THM1_SPREAD,
                THM1_SEED,
            ),
            "Theorem 1 for any shuffled PLDP process, with eq. (11)'s binary clone probabilities "
            "(both copies)",
        ),
        note="Lemma 1's eq. (11) fails across budgets for k ≥ 3; the accountant's k-rr pair holds",
    ),
    "thm1-dominance-delta": Claim(
        "for (εᵢ, δᵢ)-PLDP randomizers the shuffled process is a post-processing of (ρ₀, ρ₁) with "
        "Δ₂ ~ Bern(δₙ) in the shared third coordinate",
        "Theorem 1, eqs. (12)–(13); proof of Theorem 1",
        "false-statement",
        Compare(
            "<=",
            0.0,
            what=r"max over ε of $\delta_{\mathrm{protocol}} - \delta_{\mathrm{pair}}$ "
            "(round-off of both subtracted)",
        ),
        domain=ClaimDomain(
            (
                THM1_SMALL_N,
                THM1_EPS_MAX,
                THM1_SPREAD,
                Param(
                    "delta",
                    1e-8,
                    0.5,
                    stated="δᵢ ∈ (0, 1)",
                    closed_by="δᵢ ∈ [1e-8, 0.5] (log scale), all equal",
                ),
                THM1_SEED,
            ),
            "Theorem 1 with δᵢ > 0 and Δ₂ ~ Bern(δₙ) in the shared slot (both copies)",
        ),
        note="the δₙ event is distinguishing (Lemma 4's A/B); it must count fully into δ, so "
        "δ(ε) ≥ max δᵢ",
    ),
    "thm1-multibern": Claim(
        r"V = Σ MultiBern($(1-\delta_i)/(1+e^{\epsilon_i})$, $(1-\delta_i)/(1+e^{\epsilon_i})$, ·), "
        "a d-dimensional Bernoulli with parameters summing to 1",
        "Theorem 1",
        "version-discrepancy",
        Readings(Compare("<=", 1e-12, what="max |Σ parameters − 1|"), what="copy of the paper"),
        domain=ClaimDomain(
            (
                Param("eps", 1e-3, 20.0, stated="any εᵢ", closed_by="εᵢ ∈ [0.001, 20]"),
                Param(
                    "delta",
                    0.0,
                    0.9,
                    "linear",
                    stated="any δᵢ ∈ [0, 1)",
                    closed_by="δᵢ ∈ [0, 0.9]",
                ),
            ),
            "V = Σ MultiBern(·) for any budgets (Theorem 1; copy 000's reading searched)",
        ),
        note=r"copy 003 prints δᵢ as the third parameter; copy 000 prints "
        r"$1 - 2(1-\delta_i)/(1+e^{\epsilon_i})$",
    ),
}


# -- Theorems 2-5 (chapter gspa/theorem2) ----------------------------------------------------------


def _theorem2_domain(n_high: int) -> ClaimDomain:
    """Theorem 2's stated domain, its n searched up to ``n_high`` (the parameters' texts are the stated
    domain's)."""
    return ClaimDomain(
        (
            Param(
                "n",
                2,
                n_high,
                "int",
                stated="n users, any n (Theorem 2, both copies)",
                closed_by="n from 2 to 10⁶",
            ),
            Param(
                "f",
                1e-6,
                1.0,
                "log",
                stated="any budgets (εᵢ, δᵢ) of the PLDP process; checked for binary randomized "
                "response (δᵢ = 0)",
                closed_by=r"two-level budget vectors: round(f n) users (at least 1) at "
                r"$\epsilon_{\mathrm{lo}}$, the rest at $\epsilon_{\mathrm{hi}}$",
            ),
            Param("eps_lo", 1e-3, 20.0, "log", stated="εᵢ > 0", closed_by="εᵢ ∈ [10⁻³, 20]"),
            Param("eps_hi", 1e-3, 20.0, "log", stated="εᵢ > 0", closed_by="εᵢ ∈ [10⁻³, 20]"),
        ),
        stated="Theorem 2: 'Assume ρ₀ and ρ₁ are defined in equations (12) and (13)' — any personalized "
        "budgets, any n (both copies; 003 sums p over i ≤ n − 1, 000 over i ≤ n)",
    )


#: Theorem 2's stated domain (two-level budgets for binary randomized response)
THEOREM2_DOMAIN = _theorem2_domain(10**6)
#: the part of it searched: n ≤ 2,000 (the pair's exact law costs the square of the clone count)
THEOREM2_REGION = _theorem2_domain(2000)
#: what a searched point of Theorem 2's domain says beyond its coordinates: its largest budget
THEOREM2_DERIVED = {"max εᵢ": lambda n, f, eps_lo, eps_hi: max(eps_lo, eps_hi)}
#: eq. (16)'s event for the differing user's budget
EQ16_DOMAIN = ClaimDomain(
    (
        Param("eps_n", 1e-3, 20.0, "log", stated="εₙ > 0", closed_by="εₙ ∈ [10⁻³, 20]"),
        Param("delta_n", 1e-12, 0.5, "log", stated="δₙ ∈ (0, 1)", closed_by="δₙ ∈ [10⁻¹², 0.5]"),
    ),
    stated="eq. (16) for the differing user's budget (εₙ, δₙ), any values (proof of Theorem 2, both "
    "copies)",
)
#: the tolerance of G_μ over the real protocol's curve, relative to its TV (domain_search.EXCESS_TOL)
THEOREM2_EXCESS_TOL = 1e-9
#: the judgement of G_μ used as a bound (Figure 2 and the Abstract), and why
THEOREM2_BOUND = dict(
    kind="numerical",
    rule=Compare("<=", THEOREM2_EXCESS_TOL, what="largest sup_α (G_μ − T_real)/TV found"),
    note="T_real: the exact curve of one explicit pair of neighbouring data sets (the most liberal user "
    "differs, the others hold 0), which the protocol's curve lies below; re-verified with the "
    "certified per-user count laws",
    domain=THEOREM2_DOMAIN,
)

THEOREM2 = {
    "thm2-gdp-as-bound": Claim(
        "Figure 2 reports G_μ (via Fact 3) as the privacy guarantee of the shuffled process",
        "Comparison with Existing Results; Figure 2",
        **THEOREM2_BOUND,
    ),
    "abstract-no-inaccuracies": Claim(
        "μ-GDP with Theorem 2's μ 'allows us to avoid the limitations and potential "
        "inaccuracies associated with inequality estimations'",
        "Abstract",
        **THEOREM2_BOUND,
    ),
    "thm2-eq15": Claim(
        "there exists C > 0 such that T(ρ₀, ρ₁) ≥ G_μ(α + C/√(n−1)) − C/√(n−1)",
        "Theorem 2, eq. (15)",
        "under-specified",
        Readings(
            Compare("<=", 1.0, what="C(largest n) / C(smallest n) (one C serves every n)"),
            what="reading of 'there exists C'",
        ),
        note="the paper does not say what C may depend on; along the family the required C grows "
        "like √n (the pair tends to a fixed non-Gaussian limit), so no C independent of the budgets "
        "exists",
        domain=THEOREM2_DOMAIN,
    ),
    "thm2-approx-gdp": Claim(
        "the shuffled (εᵢ, δᵢ)-PLDP process approximately preserves μ-GDP, "
        "μ = sqrt(2/(Σpᵢ − max pᵢ)) — checked for binary randomized response (δᵢ = 0) on the "
        "theorem's own pair, eqs. (12)–(13)",
        "Theorem 2 ('we refer to it as approximately following the μ-GDP': eq. (15)); Abstract",
        "under-specified",
        Readings(
            Compare(
                "<=", 1.0, what="the reading's measure (relative excess / 0.1, or the growth of C)"
            ),
            what="reading of 'approximately'",
        ),
        note="the paper defines 'approximately' by eq. (15), whose C is unspecified; the search "
        "(n ≤ 2,000) evaluates the pair for each actual differing user (one of each budget) and "
        "speaks for the finite-n reading; for personalized Laplace budgets see the Figure 3 chapter",
        domain=THEOREM2_DOMAIN,
    ),
    "thm2-eq15-mu": Claim(
        "eq. (15), with its unspecified constant C, establishes the privacy level μ of Theorem 2",
        "Theorem 2, eq. (15)",
        "under-specified",
        Compare(
            ">=",
            3.0,
            what="C needed with μ = 0 at the largest n / at the smallest n (bounded: eq. (15) "
            "says nothing about μ)",
        ),
        note="any pair with TV = O(1/√n) satisfies eq. (15) for every μ; only G_μ itself (c = 0), "
        "as Figure 2 uses it, constrains μ",
        domain=THEOREM2_DOMAIN,
    ),
    "eq17-delta-event": Claim(
        "When Δ₂ = 1, ρ₀ and ρ₁ are indistinguishable: T(ρ₀, ρ₁)|Δ₂=1 = 1 − α",
        "Proof of Theorem 2, eqs. (16)–(17)",
        "numerical",
        Compare("<=", 0.0, what="TV given Δ₂ = 1 (0 = indistinguishable)"),
        note="true for Theorem 1's pair; the error is Theorem 1's reduction of Lemma 4's A/B events "
        "(thm1-dominance-delta)",
        domain=EQ16_DOMAIN,
    ),
    "eq17-equality": Claim(
        "T(ρ₀, ρ₁) = δₙ(1 − α) + (1 − δₙ) T_symm(ρ′₀, ρ′₁)",
        "Proof of Theorem 2, eq. (17)",
        "proof-gap",
        Compare("<=", 1e-9, what="max over α and pairs of |right-hand side − T(ρ₀, ρ₁)|"),
        note="false in both directions; the proof's conclusion T ≥ f still follows by convexity",
        domain=ClaimDomain(
            (
                Param("n", 2, 10**6, "int", stated="any n"),
                Param("eps_i", 1e-3, 20.0, "log", stated="any budgets"),
                Param("delta_n", 1e-12, 0.5, "log", stated="δₙ ∈ (0, 1)"),
            ),
            stated="eq. (17) as an identity for any budgets (proof of Theorem 2, both copies); "
            "counterexamples by exact enumeration",
        ),
    ),
}


# -- Figure 2 (chapter gspa/figure2) ---------------------------------------------------------------

#: Figure 2's own numerical results, at the paper's settings
FIGURE2_POINT = ClaimDomain.point(
    "Figure 2's own numerical results: the four budget distributions of Table 2, n from 10³ to "
    "10⁴, central δ = 10⁻⁴ ('The numerical results demonstrate the following results', both copies)"
)
#: Theorem 2 as Figure 2 uses it: any personalized budgets, any n, μ converted by Fact 3
FIGURE2_BUDGETS = ClaimDomain(
    (
        Param(
            "n",
            2,
            10**6,
            "int",
            stated="n users, any n (Theorem 2, both copies)",
            closed_by="n from 2 to 10⁶",
        ),
        Param(
            "f",
            1e-6,
            1.0,
            "log",
            stated="any budgets εᵢ (Theorem 2 quantifies over none: 'the (εᵢ, δᵢ)-PLDP process')",
            closed_by=r"two-level budget vectors: round(f n) users (at least 1) at "
            r"$\epsilon_{\mathrm{lo}}$, the rest at $\epsilon_{\mathrm{hi}}$; f log-scaled so that "
            "one user apart is searched",
        ),
        Param(
            "eps_lo",
            1e-3,
            20.0,
            "log",
            stated="εᵢ > 0 (Definitions 2 and 6)",
            closed_by="εᵢ ∈ [10⁻³, 20]",
        ),
        Param("eps_hi", 1e-3, 20.0, "log", stated="εᵢ > 0", closed_by="εᵢ ∈ [10⁻³, 20]"),
        Param(
            "delta",
            1e-10,
            1e-2,
            "log",
            stated="central δ via Fact 3 (Figure 2 uses 10⁻⁴)",
            closed_by="δ ∈ [10⁻¹⁰, 10⁻²]",
        ),
    ),
    stated="Theorem 2 for 'the (εᵢ, δᵢ)-PLDP adaptive process' with any personalized budgets and "
    "any n; Figure 2 converts its μ to (ε, δ) by Fact 3 (both copies; 003 sums p over i ≤ n − 1, "
    "000 over i ≤ n)",
)
#: what the book computes for Erlingsson et al.'s condition (the claim's text, not a run's value)
FIGURE2_ERLINGSSON19_AS_IMPLEMENTED = (
    "the book implements Erlingsson et al.'s bound (gspa.privacy.peers.baselines.erlingsson19, "
    "their Cor. 5.3.1) under ε₀ ≤ 1/2, n ≥ 1000, central δ ≤ 0.01 for an ε₀-LDP (δ₀ = 0) "
    "randomizer, as public implementations state them; it agrees with the Introduction on ε₀ and "
    "δ₀ and adds n and δ, which the Introduction omits"
)

FIGURE2 = {
    "fig2-thm2-valid-rr": Claim(
        "Theorem 2's ε via Fact 3, as Figure 2 uses it, is a valid central ε of the shuffled "
        "process for any budgets — checked for binary randomized response (Algorithm 2's "
        "randomizer)",
        "Comparison with Existing Results; Figure 2",
        "numerical",
        Compare(
            "<=",
            0,
            what="points of Figure 2's grid and the off-grid case where Theorem 2's ε is below the "
            "certified lower bound",
        ),
        note="G_μ ignores the differing user's own randomization and the scarcity of clones when "
        "Σpᵢ is small; search margin = Theorem 2's ε − certified lower ε",
        domain=FIGURE2_BUDGETS,
    ),
    "fig2-i-extreme-budgets": Claim(
        "Our bound is suitable for extreme privacy budgets (while [Liu23] required each εᵢ not "
        "close to zero)",
        "Comparison with Existing Results, result (i); Figure 2",
        "numerical",
        Readings(
            Compare("<=", 1.0, what="Theorem 2's ε / the trivial bound maxᵢ εᵢ"),
            what="reading of 'extreme budgets'",
        ),
        note="Liu23's singularity at εᵢ = 0 is removable, so the contrast with Liu23 does not hold "
        "either way",
        domain=FIGURE2_POINT,
    ),
    "fig2-ii-sqrt-n": Claim(
        "As n increases, the amplification effect also increases proportionally to the square root "
        "of n",
        "Comparison with Existing Results, result (ii); Figure 2",
        "numerical",
        Readings(Close(abs_tol=0.05, loose_abs=0.15), what="measure of the amplification"),
        paper=-0.5,
        paper_text="−1/2",
        domain=FIGURE2_POINT,
    ),
    "fig2-iii-outperform": Claim(
        "Our privacy bounds significantly outperform [Liu23, FMT22, Erlingsson19] in all current "
        "scenarios, even when the privacy parameters are the same (the paper's citation keys; its "
        "[FMT22] is FMT21)",
        "Comparison with Existing Results, result (iii); Figure 2",
        "numerical",
        Compare(
            ">=",
            1.0,
            what="fraction of valid (scenario, n, baseline) points where Theorem 2's ε is smaller",
        ),
        domain=FIGURE2_POINT,
    ),
    "conclusion-33pct": Claim(
        "GSPA achieves ... at least 33% [less] privacy loss compared to existing methods",
        "Conclusion",
        "under-specified",
        Readings(
            Compare(">=", 0.33, what="reduction 1 − ε_GSPA/ε_baseline"),
            what="reading of 'at least'",
        ),
        paper=0.33,
        paper_text="≥ 33%",
        domain=ClaimDomain.point(
            "the comparison of Figure 2, which the Conclusion summarises ('GSPA achieves ... at "
            "least 33%', both copies)"
        ),
    ),
    "abstract-outperforms-existing": Claim(
        "Extensive comparative evaluations clearly show that our approach outperforms existing "
        "methods in achieving strong central privacy guarantees",
        "Abstract; Figure 2",
        "under-specified",
        Readings(
            Compare(
                ">=", 1.0, what="fraction of valid grid points where Theorem 2's ε is the smaller"
            ),
            what="reading of 'existing methods'",
        ),
        note="the paper compares only with closed forms; FMT21's numerical bound is part of the "
        "same cited work",
        domain=ClaimDomain.point(
            "the 'extensive comparative evaluations' are Figure 2's (Abstract, both copies)"
        ),
    ),
    "intro-erlingsson-condition": Claim(
        "Erlingsson et al. 2019 assumes 0 < ε₀ < 1/2 and δ₀ = 0",
        "Introduction (both copies)",
        "numerical",
        NotCheckable(
            "Erlingsson et al.'s own text is not among the book's sources (/work/shared/paper "
            "holds GSPA, FMT21's exposition and FLAME), so their condition can only be taken from "
            "secondary sources, not verified; the condition is a premise of their proof, not a "
            "numerical property the book could compute"
        ),
        domain=ClaimDomain.point(
            "a statement about another paper's hypothesis (Introduction, both copies: '0 < ε₀ < "
            "1/2 and δ₀ = 0')"
        ),
    ),
}


# -- Figure 3 and Theorem 3 (chapter gspa/figure3) -------------------------------------------------

#: Figure 3's own settings
FIGURE3_POINT = ClaimDomain.point(
    "Figure 3's settings: n = 10,000, 1,000 repetitions, f_L = 0.09, f_C from 0.01 to 0.5, ε_L = "
    "1, ε_M = 0.5 (Mean Estimation, both copies)"
)
#: Theorem 4 for any budget set: two-level budget vectors, as Figure 2's search of Theorem 2
FIGURE3_BUDGETS = ClaimDomain(
    (
        Param("n", 2, 10**6, "int", stated="n users, any n", closed_by="n from 2 to 10⁶"),
        Param(
            "f",
            1e-6,
            1.0,
            "log",
            stated="any privacy budget set S = {ε₁, …, εₙ}",
            closed_by=r"two-level budget vectors: round(f n) users (at least 1) at "
            r"$\epsilon_{\mathrm{lo}}$, the rest at $\epsilon_{\mathrm{hi}}$; f log-scaled so that "
            "one user apart is searched",
        ),
        Param("eps_lo", 1e-3, 20.0, "log", stated="εᵢ > 0", closed_by="εᵢ ∈ [10⁻³, 20]"),
        Param("eps_hi", 1e-3, 20.0, "log", stated="εᵢ > 0", closed_by="εᵢ ∈ [10⁻³, 20]"),
    ),
    stated="Theorem 4: 'Algorithm 2 approximately preserves μ-GDP for each user' for any budget "
    "set S (δᵢ = 0 for randomized response; both copies)",
)
#: the trends of Figure 3 as general effects of the conservative fraction and budget
FIGURE3_TRENDS = ClaimDomain(
    (
        Param(
            "n",
            10,
            10**6,
            "int",
            stated="n users (the experiment uses 10,000)",
            closed_by="n from 10 to 10⁶",
        ),
        Param(
            "f_c",
            0.0,
            0.9,
            "linear",
            stated="f_C varied from 0.01 to 0.5 with f_L = 0.09 fixed",
            closed_by="f_C ∈ [0, 0.9] (f_M = 0.91 − f_C ≥ 0.01)",
        ),
        Param(
            "eps_c",
            1e-3,
            20.0,
            "log",
            stated=r"$\epsilon_C$ > 0 (default 0.1)",
            closed_by=r"$\epsilon_C$ ∈ [10⁻³, 20]",
        ),
        Param(
            "ratio_m",
            1.0,
            100.0,
            "log",
            stated=r"conservative users have the smallest budget: $\epsilon_M$ ≥ $\epsilon_C$ "
            "(default 5×)",
            closed_by=r"$\epsilon_M/\epsilon_C$ ∈ [1, 100]",
        ),
        Param(
            "ratio_l",
            1.0,
            100.0,
            "log",
            stated=r"liberal users the largest: $\epsilon_L$ ≥ $\epsilon_M$ (default 2×)",
            closed_by=r"$\epsilon_L/\epsilon_M$ ∈ [1, 100]",
        ),
    ),
    stated="the trends of Figure 3 stated as general effects of the conservative fraction and "
    "budget (Mean Estimation, both copies); searched on the exact error standard deviation of "
    "Algorithms 1 and 2",
)
_R2_LINEAR = Compare(">=", 0.98, what="min R² of a linear fit", loose=0.9)

FIGURE3 = {
    "fig3-fc-less-accuracy": Claim(
        "an increase in the proportion of conservative users leads to a decrease in estimation "
        "accuracy",
        "Mean Estimation; Figure 3 (a), (c)",
        "experiment",
        Compare(">=", 0.9, what="min Spearman ρ(MAE, f_C)"),
        note="search margin: relative increase of the exact error sd of both algorithms when f_C "
        "grows by 0.01",
        domain=FIGURE3_TRENDS,
    ),
    "fig3-epsc-more-accuracy": Claim(
        "increasing privacy budget is beneficial for improving accuracy",
        "Mean Estimation; Figure 3 (b), (d)",
        "experiment",
        Compare("<=", -0.9, what=r"max Spearman ρ(MAE, $\epsilon_C$)"),
        note=r"search margin: relative fall of the exact error sd of both algorithms when "
        r"$\epsilon_C$ grows by 5 %",
        domain=FIGURE3_TRENDS,
    ),
    "intro-linear-fc": Claim(
        "the more conservative users there are, the less utility is observed, showing a negative "
        "linear relationship",
        "Introduction (summary of Figure 3)",
        "experiment",
        _R2_LINEAR,
        domain=FIGURE3_POINT,
    ),
    "intro-linear-epsc": Claim(
        "as the privacy parameters of conservative users increase, utility demonstrates a positive "
        "linear relationship",
        "Introduction (summary of Figure 3)",
        "under-specified",
        _R2_LINEAR,
        note=r"depends on the range of $\epsilon_C$, which the paper does not state "
        "(0.05 to 1 here)",
        domain=FIGURE3_POINT,
    ),
    "thm4-unbiased": Claim(
        "z is an unbiased estimator of c, E(z) = c",
        "Frequency estimation (after Theorem 4)",
        "numerical",
        # the critical value at Figure 3's 20 frequency points; the chapter sets its own
        Compare(
            "<=",
            4.0556269811224,
            what="max |mean(z) − c| / s.e. (Bonferroni, family-wise level 1e-3)",
        ),
        domain=ClaimDomain.point(
            "simulated at Figure 3's settings with records matched to budgets at random; exactly, "
            "E z = Σ xᵢwᵢ/Σ wᵢ, which averages to c over a random matching for any budgets (the "
            "next claim covers dependent matchings)"
        ),
    ),
    "thm4-unbiased-any-matching": Claim(
        "z is unbiased for c whatever the users' budgets (no condition stated)",
        "Frequency estimation (after Theorem 4)",
        "under-specified",
        Compare("<=", 1e-3, what="|E z − c| when budgets and data are dependent"),
        paper=0.0,
        domain=ClaimDomain(
            (
                Param("c", 0.0, 1.0, "linear", stated="density c ∈ [0, 1]"),
                Param(
                    "matching",
                    scale="choice",
                    choices=("any",),
                    stated="any matching of records to budgets (no condition stated)",
                ),
            ),
            stated="'z is an unbiased estimator of c' with no condition (after Theorem 4, both "
            "copies)",
        ),
    ),
    "thm3-laplace-gdp": Claim(
        "Algorithm 1 approximately preserves μ-GDP for each user, μ = sqrt(2/(Σpᵢ − max pᵢ)) (any "
        "personalized budgets)",
        "Theorem 3 and its proof; Figure 1 (the aggregator receives the shuffled reports)",
        "under-specified",
        Readings(
            Compare(
                "<=",
                1.0,
                what="C needed at the largest n / C needed at the smallest n (one C must serve "
                "every n)",
            ),
            what="reading of what Algorithm 1 releases",
        ),
        note="if only the returned mean z is released the max event is not observable; the chapter "
        "gives a Gaussian approximation of z's μ against Theorem 3's",
        domain=ClaimDomain(
            (
                Param("n", 3, 10**6, "int", stated="n users"),
                Param("eps_i", 1e-3, 20.0, "log", stated="any personalized budgets"),
            ),
            stated="Theorem 3: 'Algorithm 1 approximately preserves μ-GDP for each user' for any "
            "budget set S (both copies)",
        ),
    ),
    "thm4-rr-gdp": Claim(
        "Algorithm 2 approximately preserves μ-GDP for each user, μ = sqrt(2/(Σpᵢ − max pᵢ)) (any "
        "personalized budgets)",
        "Theorem 4 (both copies); its proof 'is the same as Theorem 3'",
        "under-specified",
        Readings(
            Compare("<=", 1.0, what="sup_α (G_μ − T_real) / TV over 0.1"),
            what="reading of 'approximately'",
        ),
        note="Algorithm 2 is shuffled binary randomized response, for which Lemma 1 holds; the "
        "failure is the Gaussian approximation where the expected clone count Σpᵢ is small; eq. "
        "(15)'s reading is judged for Theorem 2's own pair in the Theorem 2 chapter (thm2-eq15), "
        "not for the real protocol here",
        domain=FIGURE3_BUDGETS,
    ),
    "alg12-output-natural": Claim(
        "Output: z ∈ ℕ",
        "Algorithms 1 and 2 (both copies)",
        "misprint",
        Holds("both outputs are natural numbers"),
        note="z is a real number: a mean (Algorithm 1) and a density estimate (Algorithm 2)",
        domain=FIGURE3_POINT,
    ),
    "fig1-separate-shuffle": Claim(
        "privacy parameters (εᵢ, δᵢ) and each client's output are shuffled separately",
        "Figure 1 (caption)",
        "numerical",
        Compare("<=", 1e-9, what="|z (budgets linked) − z (budgets shuffled separately)|"),
        note="the algorithms need only the multiset of budgets; the book's accountant assumes "
        "budgets known and tied to users, a view of which the separate shuffle is a "
        "post-processing",
        domain=FIGURE3_POINT,
    ),
}


# -- Figure 4 and Algorithm 3 (chapter gspa/figure4) -----------------------------------------------


#: "for arbitrary j ∈ [m], client j satisfies (εⱼ, δⱼ)-LDP": every budget and local δ of client j
THM5_CLIENT_DOMAIN = ClaimDomain(
    (
        Param(
            "eps",
            1e-3,
            20.0,
            "log",
            stated="εⱼ > 0, any budget of client j",
            closed_by="εⱼ ∈ [10⁻³, 20]",
        ),
        Param("delta", 1e-12, 1e-2, "log", stated="δⱼ ∈ (0, 1)", closed_by="δⱼ ∈ [10⁻¹², 10⁻²]"),
    ),
    "Proof of Theorem 5: 'for arbitrary j ∈ [m], client j satisfies (εⱼ, δⱼ)-LDP' (both copies)",
)
FIGURE4_POINT = ClaimDomain.point(
    "Figure 4 and the text's accuracies at Table 3's settings (MNIST, m = 100 clients, 50 epochs)"
)
#: the budget of Table 2's Constant scenario, at which the audit of line 7 is quoted
CONSTANT_EPS = 0.5
#: the readings of Algorithm 3 an accuracy claim is judged under (one Readings rule each)
_ALGORITHM3 = "reading of Algorithm 3"

#: Figure 4's accuracies as the paper quotes them (ids with the paper's number: gspa.fig4-96.78)
FIGURE4_QUOTED = {
    "fig4-96.78": Claim(
        "our approach achieves an accuracy of 96.78% on the test dataset after approximately 50 epochs",
        "Parameter Selection; Figure 4",
        "under-specified",
        Readings(
            Close(abs_tol=0.5, loose_abs=2.0),
            what="reading (which network; which reading of Algorithm 3)",
        ),
        paper=96.78,
        paper_text="96.78 %",
        domain=FIGURE4_POINT,
    ),
    "fig4-constant-94.8": Claim(
        "Constant scenario (ε = 0.5): test accuracy 94.8%",
        "Introduction; Figure 4",
        "under-specified",
        Readings(Close(abs_tol=1.0, loose_abs=3.0), what=_ALGORITHM3),
        paper=94.8,
        paper_text="94.8 %",
        domain=FIGURE4_POINT,
    ),
    "fig4-unif2-93.5": Claim(
        "U(0.01, 2) scenario: test accuracy 93.5%",
        "Introduction; Figure 4",
        "under-specified",
        Readings(Close(abs_tol=1.0, loose_abs=3.0), what=_ALGORITHM3),
        paper=93.5,
        paper_text="93.5 %",
        domain=FIGURE4_POINT,
    ),
}

FIGURE4 = {
    "thm5-client-ldp": Claim(
        "For arbitrary j ∈ [m], client j satisfies (εⱼ, δⱼ)-LDP before sending to the shuffler by the "
        "definition of Gaussian mechanism",
        "Proof of Theorem 5; Algorithm 3 lines 7 and 12–14 (both copies)",
        "false-statement",
        Compare(
            "<=", CONSTANT_EPS * (1 + 1e-9), what="real client ε of a nominal 0.5 (line 7's σ)"
        ),
        paper=CONSTANT_EPS,
        paper_text=f"ε = {CONSTANT_EPS:g}",
        domain=THM5_CLIENT_DOMAIN,
    ),
    "fig4-constant-above-unif2": Claim(
        "despite offering stronger privacy, the Constant scenario (ε₀ = 0.5) is more accurate than "
        "U(0.01, 2)",
        "Introduction; Utility of GSPA",
        "experiment",
        Readings(
            Compare(">", 0.0, what="mean final accuracy of Constant minus Unif 2 (points)"),
            what=_ALGORITHM3,
        ),
        domain=FIGURE4_POINT,
    ),
    "fig4-unif3-best": Claim(
        "Unif 3 exhibits the best accuracy",
        "Utility of GSPA",
        "experiment",
        Readings(
            Holds("Unif 3 has the highest mean final accuracy among the private scenarios"),
            what=_ALGORITHM3,
        ),
        domain=FIGURE4_POINT,
    ),
    "fig4-vanilla": Claim(
        "this result is consistent with the findings of a vanilla neural network trained on the same "
        "MNIST dataset",
        "Parameter Selection",
        "experiment",
        Readings(
            Compare("<=", 1.0, what="accuracy gap to the non-private run (points)", loose=3.0),
            what="reading (what 96.78 % is; which reading of Algorithm 3)",
        ),
        domain=FIGURE4_POINT,
    ),
    "thm5-sum-over-n": Claim(
        r"$\mu = \sqrt{2 / (\sum_{i=1}^{n} \frac{1-\delta_i}{1+e^{\varepsilon_i}} - \max_i "
        r"\frac{1-\delta_i}{1+e^{\varepsilon_i}})}$, with Table 3's n = 60,000",
        "Theorem 5 and its proof (both copies); Algorithm 3's input (n budgets); Table 3",
        "under-specified",
        Readings(
            Holds(
                "the sum in Theorem 5 runs over the reports that one shuffle mixes (Theorem 2's "
                "premise)"
            ),
            what="reading of n in Theorem 5",
        ),
        domain=ClaimDomain.point(
            "Theorem 5 with Table 3's n = 60,000 and m = 100 (a reading of one printed formula)"
        ),
    ),
    "thm5-composition-fixed-pi": Claim(
        "combined with Fact 3, it holds √T μ-GDP under T-fold composition (each epoch a separate "
        "shuffle with Theorem 2's μ)",
        "Proof of Theorem 5; Algorithm 3 lines 3–4 (both copies)",
        "proof-gap",
        Readings(
            Holds(
                "the client order is drawn afresh for every epoch, so that the T epochs are "
                "independent shuffles that Fact 3 may compose (checked on "
                "gspa.studies.gspa.private_sgd.schedule)"
            ),
            what="reading of Algorithm 3's order",
        ),
        note="With one π the right model is one shuffle of each client's T composed reports, which "
        "neither Theorem 2 nor Fact 3 covers. With π redrawn every epoch this step would hold.",
        domain=ClaimDomain.point(
            "Algorithm 3 as printed: π drawn once (line 3), before the epoch loop (both copies)"
        ),
    ),
}


# -- the study's table ------------------------------------------------------------------------------------

CLAIMS = table(
    LEMMA2,
    FDP,
    LEMMA1,
    LEMMA3,
    MECHANISMS,
    THEOREM1,
    THEOREM2,
    FIGURE2,
    FIGURE3,
    FIGURE4,
    FIGURE4_QUOTED,
)
