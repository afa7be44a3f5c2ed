"""The claims of chapter flame/figure3 (Figure 3 recomputed, and the statements outside the numbered
results: the introduction's rates, DP-FL's calibration, Theorem 5's optimality, ν and the accuracy) as data:
for each its statement, place in the paper, kind, rule, paper value and stated domain
(:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Holds, Readings
from gspa.claims.table import Claim, table

BETA = Param("beta", 1e-3, 1.0, stated="β ∈ (0, 1]", closed_by="β ≥ 10⁻³")

FIGURE3 = {
    "flame-fig3-proven-simple-larger": Claim(
        "recomputed with certified accounting under the experiments' settings, SS-Simple's proven "
        "amplification ratio ε_l/ε_c is the larger one (this book, Figure 3's section)",
        "this book's recomputation of FLAME Figure 3",
        "under-specified",
        Readings(
            Holds(
                "the ratios compared are proven for the protocol read so, and SS-Simple's is the "
                "larger at every budget computed"
            ),
            what="reading of the shuffler",
        ),
        paper_text="a proven ratio for each protocol, SS-Simple's the larger",
        note="the printed lower bounds are certified (gspa.studies.flame.linkage: one pair of data "
        "sets, the view reduced to a threshold count of messages; re-verified in 50-digit arithmetic "
        "at the first failing budget); the separate-shuffle ratios are certified by exact composition "
        "(gspa.studies.flame.analysis.fig3_exact)",
    ),
    "flame-intro-error": Claim(
        r"for a bit summation over n users with budget ε, the error of DP can achieve O(1/ε), whereas "
        r"the error of LDP is bounded by Ω(√n) (Chan, Shi and Song 2012)",
        "FLAME, Introduction, second paragraph",
        "numerical",
        Readings(
            Holds(
                "the simulated errors' fitted exponents are within the chapter's tolerance of the "
                "rates: the curator's (Laplace on the sum) 0 in n and −1 in ε, the local one's "
                "(de-biased binary randomized response) 1/2 in n"
            ),
            what="part of the statement",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "n", 2, 1_000_000, "int", stated="any number of users n", closed_by="up to 10⁶"
                ),
                Param("eps", 1e-3, 10.0, stated="any budget ε > 0", closed_by="[10⁻³, 10]"),
            ),
            stated="Introduction: the bit summation task over n users with budget ε",
        ),
        note="the two standard mechanisms attain the rates (achievability); the lower bound Ω(√n) for "
        "every ε-LDP protocol is Chan, Shi and Song's theorem, not computed here; checked on the "
        "chapter's grid of n and ε only",
    ),
    "flame-dpfl-gaussian": Claim(
        r"the Gaussian mechanism with $\sigma = \Delta_2\sqrt{2\ln(1.25/\delta_c)}/\varepsilon_c$ "
        r"gives $(\varepsilon_c, \delta_c)$-DP to DP-FL, as used for its baselines $(0.24, 5\cdot"
        r"10^{-6})$ and $(20.53, 5\cdot 10^{-6})$",
        "FLAME, Related Works, 'FL in the Curator Model'; Evaluations, the DP-FL baselines",
        "numerical",
        Compare(
            "<=",
            1.0,
            what=r"largest exact δ at $\varepsilon_c$ over $\delta_c$, over the two baselines",
        ),
        paper=1.0,
        paper_text="(ε_c, δ_c)-DP at both baselines",
        domain=ClaimDomain.point("the two DP-FL baselines of the Evaluations, δ_c = 5·10⁻⁶"),
        note="the classical calibration is proven for ε_c < 1 (Dwork and Roth 2014, Theorem A.1); the "
        "exact δ is that of Gaussian DP with μ = ε_c/√(2 ln(1.25/δ_c)) (GSPA Fact 3)",
        follows_from="gspa.def5-gaussian-calibration",
        because="DP-FL's noise is eq. (8)'s calibration, σ = Δ√(2 ln(1.25/δ))/ε, and eq. (8) states "
        "no range of ε: its two budgets are instances",
    ),
    "flame-thm5-strongest": Claim(
        r"Theorem 5: given $K_\nu^\beta$ and $n_p$, the strongest index privacy the protocol allows "
        r"for each user is $\nu = \max\{1, 1/(\lfloor n_p/(n\beta)\rfloor\beta)\}$",
        "FLAME, Theorem 5 (and 'the maximum index privacy that the protocol allows', Evaluations)",
        "under-specified",
        Readings(
            Holds(
                "Theorem 5's ν is the smallest ν of Definition 3 over the l that the reading allows"
            ),
            what="reading of which l the protocol allows",
        ),
        domain=ClaimDomain(
            (
                Param("n_over_np", 1.0, 100.0, stated="any n_p ≤ n", closed_by="n/n_p ∈ [1, 100]"),
                BETA,
            ),
            stated=r"Theorem 5: any protocol $K_\nu^\beta$ with padding size $n_p$",
        ),
        note="on average (n l β ≤ n_p, the condition the floor encodes) it is the minimum; as a "
        "padding that Algorithm 3 can carry out, it is not: at the paper's setting the counts around "
        "the average exceed n_p in some dimension in almost every round, even with the Top-k sets "
        "spread evenly (the most favourable data); checked on the chapter's grid and at the paper's "
        "setting only",
    ),
    "flame-nu-accuracy": Claim(
        r"given $n_p$, n and β, ν does not affect the accuracy of the mean estimation because the "
        r"number of dummy values is fixed",
        "FLAME, SS-Topk, Privacy Analysis (before Theorem 5)",
        "under-specified",
        Readings(
            Holds(
                "l leaves the estimate alone: the same mean squared error at the l compared (no "
                "overflow possible), or the same chance that the round can be padded at all (the "
                "paper's n_p)"
            ),
            what="reading of the padding",
        ),
        domain=ClaimDomain(
            (
                Param("l", 1, 50, "int", stated="any valid l (any ν)", closed_by="l ≤ 50"),
                BETA,
            ),
            stated="SS-Topk with given n_p, n and β",
        ),
        note="while every dimension can be padded the analyzer's view does not depend on l (user-sent "
        "and shuffler-sent blanket values have one law); l decides whether it can be padded: at "
        "the paper's n_p, Theorem 5's l = 16 overflows in almost every round where l = 1 does not "
        "(Top-k spread evenly)",
    ),
}


CLAIMS = table(FIGURE3)
