"""The claims of chapter gspa/figure2 (Figure 2) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Holds, NotCheckable, Readings
from gspa.claims.table import Claim, table
from gspa.studies.gspa.domain_search import max_budget


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
    "any n; Figure 2 converts its μ to (ε, δ) by Fact 3 (both copies; copy 003 sums p over i ≤ n − 1, "
    "copy 000 over i ≤ n)",
)


#: the quantity the holding region of fig2-thm2-valid-rr is stated in
FIGURE2_DERIVED = {"max εᵢ": max_budget}
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
        follows_from="gspa.thm2-gdp-as-bound",
        because=r"if $G_\mu$ bounds the process's trade-off curve, every (ε, δ(ε)) that Fact 3 "
        r"reads from $G_\mu$ is a valid central guarantee",
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
    "abstract-lower-bound": Claim(
        "To strengthen the privacy guarantee, we improve the lower bound by utilizing hypothesis "
        "testing instead of relying on rough estimations like the Chernoff bound or Hoeffding's "
        "inequality (Theorem 2 is titled 'Enhanced Central Privacy Upper bound')",
        "Abstract; Theorem 2's title; Introduction ('lower privacy bounds that exceed that of "
        "existing results') (both copies)",
        "numerical",
        Compare(
            ">=",
            1.0,
            what="fraction of Figure 2's valid comparisons where Theorem 2's ε is below the closed-form "
            "baselines",
        ),
        note="'lower bound' (Abstract) and 'upper bound' (Theorem 2's title) describe one inequality: a lower "
        "bound on the trade-off function is an upper bound on ε. Read as a lower bound on ε the sentence could "
        "not hold (a valid lower bound never exceeds valid upper bounds) and could not strengthen a guarantee, "
        "so it is no reading; FMT21's numerical bound, which uses no concentration inequality, is compared in "
        "abstract-outperforms-existing",
        domain=ClaimDomain.point(
            "the improvement is Figure 2's comparison with the Chernoff/Hoeffding-based closed "
            "forms (Abstract, both copies)"
        ),
        follows_from="gspa.fig2-iii-outperform",
        because="the improvement the abstract names is Figure 2's comparison with the closed forms, "
        "judged on the same ratios",
    ),
    "conclusion-higher-accuracy": Claim(
        "GSPA achieves a higher accuracy while maintaining at least 33% privacy loss compared to existing "
        "methods (read with 'higher accuracy … compared to existing methods'; the 33% is conclusion-33pct)",
        "Conclusion (both copies)",
        "experiment",
        NotCheckable(
            "the paper reports the accuracy of no existing method: Figures 3 and 4 run GSPA's "
            "algorithms only, and the MNIST experiment 'does not focus on comparing with previous "
            "results'; the sentence names no method, task or privacy level to compare at (read as accuracy at "
            "matched central privacy it would follow from the tighter bound of fig2-iii-outperform, itself an "
            "approximation)"
        ),
        domain=ClaimDomain.point("the Conclusion's summary of the experiments (both copies)"),
    ),
    "fig4-constant-stronger-privacy": Claim(
        "the constant scenario (ε₀ = 0.5) offers a stronger privacy protection than U(0.01, 2) (Unif 2)",
        "Introduction; Utility of GSPA (Figure 4) (both copies)",
        "under-specified",
        Readings(
            Holds("the Constant scenario's budget is the smaller (its privacy the stronger)"),
            what="measure of a scenario's budget (the same as for fig4-unif3-larger-budget)",
        ),
        domain=ClaimDomain.point(
            "the two scenarios of Figure 4 (m = 100 clients, δ = 10⁻⁵, Table 3), the client budgets "
            "of its runs"
        ),
    ),
    "fig4-unif3-larger-budget": Claim(
        "Unif 3 exhibits the best accuracy, which aligns with expectations as it corresponds to a "
        "larger value of the privacy budget",
        "Utility of GSPA (Figure 4) (both copies)",
        "under-specified",
        Readings(
            Holds("Unif 3's budget is the largest of Figure 4's private scenarios"),
            what="measure of a scenario's budget",
        ),
        domain=ClaimDomain.point(
            "Figure 4's private scenarios (Table 2 and Unif 3 = U(0.5, 1); m = 100 clients, "
            "δ = 10⁻⁵), the client budgets of its runs"
        ),
    ),
}


CLAIMS = table(FIGURE2)
