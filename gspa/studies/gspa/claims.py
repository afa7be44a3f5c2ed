"""The GSPA paper's claims as data: for each claim its statement, place in the paper, kind, rule, paper
value and stated domain, one section per chapter; the chapters record them by id with the values they
compute (:meth:`gspa.book.results.Chapter.claim`), and the margins that search their domains are in `margins`
and `domain_search`."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Readings
from gspa.claims.table import Claim, table

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

FDP: dict = {}  # filled when the chapter moves its claims here


# -- Lemma 1 (chapter gspa/lemma1) -----------------------------------------------------------------

LEMMA1: dict = {}  # filled when the chapter moves its claims here


# -- Lemma 3 (chapter gspa/lemma3) -----------------------------------------------------------------

LEMMA3: dict = {}  # filled when the chapter moves its claims here


# -- the mechanisms (chapter gspa/mechanisms) ------------------------------------------------------

# this section's own import (kept inside the section while the chapters' sections are filled in parallel)
from gspa.studies.gspa.margins import LEMMA4_MECHANISMS  # noqa: E402

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

THEOREM1: dict = {}  # filled when the chapter moves its claims here


# -- Theorems 2-5 (chapter gspa/theorem2) ----------------------------------------------------------

THEOREM2: dict = {}  # filled when the chapter moves its claims here


# -- Figure 2 (chapter gspa/figure2) ---------------------------------------------------------------

FIGURE2: dict = {}  # filled when the chapter moves its claims here


# -- Figure 3 and Theorem 3 (chapter gspa/figure3) -------------------------------------------------

FIGURE3: dict = {}  # filled when the chapter moves its claims here


# -- Figure 4 and Algorithm 3 (chapter gspa/figure4) -----------------------------------------------

# this section's own import (kept inside the section while the chapters' sections are filled in parallel)
from gspa.claims.rules import Holds  # noqa: E402

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
