"""The claims of chapter gspa/figure3 (Figure 3 and Theorem 3) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Holds, Readings
from gspa.claims.table import Claim, table


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
        Readings(_R2_LINEAR, what="reading of 'utility'"),
        note="judged under the same readings of 'utility' as the next sentence (intro-linear-epsc), on the "
        "simulated MAE of Figure 3's grid of f_C",
        domain=FIGURE3_POINT,
    ),
    "intro-linear-epsc": Claim(
        "as the privacy parameters of conservative users increase, utility demonstrates a positive "
        "linear relationship",
        "Introduction (summary of Figure 3)",
        "under-specified",
        Readings(_R2_LINEAR, what="reading of 'utility' and of the range of ε_C"),
        note="Figure 3, which the sentence summarizes, plots the MAE ('Impact of privacy parameter settings "
        r"on MAE'); the paper states no range of $\epsilon_C$. R² on the exact predicted MAE",
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
        follows_from="gspa.thm4-unbiased-any-matching",
        because="a matching of records to budgets drawn at random is one of the matchings the premise "
        "covers, averaged",
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
                1e-6,
                what="shortfall (shuffled reports: growth of the C eq. (15) needs over the n "
                "computed, minus 1; z alone: bound on sup_α (G_μ − T)/TV; 1e-6 for round-off)",
            ),
            what="reading of what Algorithm 1 releases",
        ),
        note="z alone: its exact trade-off curve (a shifted sum of Laplace variables, "
        "gspa.studies.gspa.laplace_mean) computed at the chapter's budgets only; the rest of the "
        "stated domain is not searched (few users with very unequal budgets cost minutes a point)",
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
            Compare(
                "<=", 1.0, what="the reading's measure (relative excess / 0.1, or the growth of C)"
            ),
            what="reading of 'approximately'",
        ),
        note="Algorithm 2 is shuffled binary randomized response, for which Lemma 1 holds; each reading "
        "is computed on the real protocol's explicit pair (the most liberal user differs, the others hold "
        "0); the failures sit where the other users' expected clone count Σpᵢ is small; where C may "
        "depend on the budgets, eq. (15) holds even with μ = 0 as soon as TV = O(1/√n), as for Theorem "
        "2's pair (gspa.thm2-eq15-mu), so that reading certifies nothing",
        domain=FIGURE3_BUDGETS,
        follows_from="gspa.thm2-approx-gdp",
        because="Algorithm 2 is a post-processing of Theorem 2's pair, eqs. (12)–(13) "
        "(gspa.thm1-dominance), so a C that serves eq. (15) for the pair serves Algorithm 2 (the "
        "finite-n reading, relative to each curve's own TV, is not shared)",
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


CLAIMS = table(FIGURE3)
