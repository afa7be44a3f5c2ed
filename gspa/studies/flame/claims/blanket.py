"""The claims of chapter flame/blanket (the blanket and Corollary 1) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Holds, Readings
from gspa.claims.table import Claim, table


# -- the blanket and Corollary 1 (chapter flame/blanket) -------------------------------------------

BLANKET_EPS_L = Param(
    "eps_l",
    1e-3,
    20.0,
    stated=r"$\varepsilon_l$ > 0: Algorithm 1 and Lemma 1 take any local budget",
    closed_by=r"[10⁻³, 20]: below, the blanket is nearly everything; above, $e^{\varepsilon_l}$ "
    "overflows the forms that matter",
)
BLANKET_B = Param(
    "b",
    2,
    200,
    scale="int",
    stated="b ≥ 2 integer (Algorithm 1's domain [b])",
    closed_by="up to 200 symbols, beyond any b a referee would choose for [0, 1]",
)
BLANKET_USERS = Param(
    "n",
    2,
    1_000_000,
    scale="int",
    stated="n ≥ 2 users (Lemma 1: any n under its condition)",
    closed_by="up to 10⁶ users per round",
)
BLANKET_DELTA = Param(
    "delta",
    1e-12,
    1e-2,
    stated="δ ∈ (0, 1)",
    closed_by="[10⁻¹², 10⁻²], the δ a referee would accept",
)
#: Lemma 1's domain with b = 2 only: the certified pair takes seconds to minutes for b > 2
BLANKET_LEMMA1_REGION = ClaimDomain(
    (BLANKET_EPS_L, BLANKET_USERS, BLANKET_DELTA, Param("b", 2, 2, scale="int")),
    stated="b = 2 only: the certified pair takes seconds to minutes for b > 2",
)
#: Corollary 1's domain where its condition holds at the tail's first n
BLANKET_COR1_REGION = ClaimDomain(
    (
        Param("eps_l", 1e-3, 4.0, stated="ε_l ≤ 4", closed_by="the condition holds at n = 10⁶"),
        BLANKET_DELTA,
    ),
    stated="ε_l ≤ 4 (the condition must hold at the tail's first n)",
)

BLANKET = {
    "flame-alg1-ldp": Claim(
        r"$R_{\gamma,b}$ with $\gamma = b/(e^{\varepsilon_l} + b - 1)$ satisfies $\varepsilon_l$-LDP "
        "(the γ of Lemma 1, used for Algorithm 1)",
        "Preliminaries, Algorithm 1 and Lemma 1",
        "misprint",
        Readings(
            Holds(
                "the exact LDP level of the randomizer's rows is at most ε_l, for every b on the grid"
            ),
            what="reading of Algorithm 1's domains",
        ),
        domain=ClaimDomain(
            (BLANKET_EPS_L, BLANKET_B),
            stated=r"Algorithm 1 with γ of Lemma 1, for any $\varepsilon_l$ > 0 and b ≥ 2 "
            "(Preliminaries)",
        ),
        note=r"searched: the header reading (the one that holds on the grid), margin "
        r"($\varepsilon_l$ − exact LDP level)/$\varepsilon_l$",
    ),
    "flame-eq1-unbiased": Claim(
        "eq. (1) de-biases the sum of the shuffled reports",
        "Preliminaries, eq. (1)",
        "misprint",
        Readings(
            Compare("<=", 1e-9, what="exact |E[z] − Σx| in standard deviations of z"),
            what="reading of Algorithm 1's domains",
        ),
        domain=ClaimDomain(
            (
                BLANKET_EPS_L,
                Param("b", 1, 200, scale="int", stated="b ≥ 1", closed_by="up to 200"),
                BLANKET_USERS,
                Param(
                    "x",
                    0.0,
                    1.0,
                    scale="linear",
                    stated=r"every $x_i$ ∈ [0, 1]",
                    closed_by=r"all users at one value x: each user's bias is affine in $x_i$, so "
                    "the extremes of [0, 1] give the largest |bias|",
                ),
            ),
            stated=r"eq. (1): the estimate of Σx for any inputs in [0, 1], any n, b and "
            r"$\varepsilon_l$ (Preliminaries)",
        ),
        note="searched: the BBGN19 reading (the one that holds on the grid), margin 10⁻⁹ − |bias| in "
        "standard deviations",
    ),
    "flame-numerical-tighter": Claim(
        "a tighter bound (a greater amplification) can be accessed with numerical evaluations",
        "Preliminaries, after Corollary 1",
        "numerical",
        Readings(
            Compare(
                "<=",
                1.0,
                what="largest ratio BBGN19's Bennett ε / Lemma 1's ε where Lemma 1's condition holds",
            ),
            what="version of the Bennett bound",
        ),
        domain=ClaimDomain(
            (BLANKET_EPS_L, BLANKET_USERS, BLANKET_DELTA),
            stated=r"Lemma 1 and BBGN19's numerical bound, any $\varepsilon_l$, n, δ (Preliminaries); "
            "b = 2",
        ),
        note="searched for b = 2 (the closed form's b enters both alike), margin 1 − Bennett/Lemma 1 "
        "for the worse of the two versions, where Lemma 1's condition holds (1 elsewhere)",
    ),
    "flame-lemma1": Claim(
        r"Lemma 1: $S \circ R^n$ is $(\varepsilon_c, \delta_c)$-DP with $\varepsilon_c = "
        r"\sqrt{14\log(2/\delta_c)(e^{\varepsilon_l} + b - 1)/(n - 1)}$ under its condition",
        "Preliminaries, Lemma 1",
        "numerical",
        Readings(
            Compare(
                ">=", 1.0, what="smallest ratio Lemma 1 / certified ε where the condition holds"
            ),
            what="reading of Algorithm 1's domains",
        ),
        domain=ClaimDomain(
            (BLANKET_EPS_L, BLANKET_USERS, BLANKET_DELTA, BLANKET_B),
            stated=r"Lemma 1: for any $\varepsilon_l$, b, n, $\delta_c$ satisfying its condition "
            "(Preliminaries)",
        ),
        note="searched: the header reading (b-ary randomized response), margin Lemma 1/certified − 1 "
        "where the condition holds (1 elsewhere)",
    ),
    "flame-bennett-valid": Claim(
        "the amplified ε of FLAME's experiments comes from BBGN19's numerical (Bennett) bound, an upper "
        "bound on the shuffled protocol's ε",
        "Evaluations, Privacy Amplification; FLAME's code flearn/counter/amplification_bounds.py "
        "(BennettExact)",
        "numerical",
        Compare(
            ">=",
            1.0,
            what="smallest ratio Bennett ε (FLAME's code) / certified lower bound on the real "
            "protocol's ε (b = 2)",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    1e-2,
                    10.0,
                    stated=r"$\varepsilon_l$ > 0 (the bound is offered for any budget)",
                    closed_by="[0.01, 10]",
                ),
                Param("n", 10, 1_000_000, scale="int", stated="n users", closed_by="10 to 10⁶"),
                BLANKET_DELTA,
            ),
            stated="BBGN19's numerical bound as FLAME's code computes it, offered as the protocol's ε "
            "for any budget, n and δ (Evaluations); b = 2, where a certified lower bound exists",
        ),
        note="cause: FLAME's code copies BBGN19's code from before its authors' fix "
        "(BorjaBalle/amplification-by-shuffling, commit 7994ad3, 2020-07-06, 'Fixed typo in Bennett "
        "bounds'); the corrected formula is above the lower bound at every grid point",
    ),
    "flame-cor1": Claim(
        r"Corollary 1: $\varepsilon_c = O\bigl((1 \wedge \varepsilon_l)\, e^{\varepsilon_l} "
        r"\sqrt{\log(1/\delta_c)/n}\bigr)$ for $\varepsilon_l \le \log(n/\log(1/\delta_c))/2$",
        "Preliminaries, Corollary 1",
        "numerical",
        Compare(
            "<=",
            0.1,
            what="largest log-log slope in n of certified ε / Corollary 1's rate over the last "
            "decade (an O() in n: the ratio must not grow)",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    1e-3,
                    20.0,
                    stated=r"any fixed $\varepsilon_l$ > 0 (the condition then holds for every "
                    "large n)",
                    closed_by="[10⁻³, 20]",
                ),
                BLANKET_DELTA,
            ),
            stated=r"Corollary 1: $\varepsilon_c$ = O(rate) as n → ∞ for $\varepsilon_l \le "
            r"\log(n/\log(1/\delta_c))/2$, any $\delta_c$ (Preliminaries); b = 2",
        ),
        note="an O() fixes no constant, so what is judged is that the ratio stays bounded as n grows "
        "(its slope over the last decade of n, tolerance stated before the run), not its size; "
        "searched: margin tolerance − slope; checked along n up to the largest n of the sweep, not "
        "proved",
    ),
    "flame-laplace-gamma": Claim(
        r"for a Laplace randomizer on [0, 1], $\gamma = e^{-\varepsilon_l/2}$",
        "Preliminaries, The Shuffle Model",
        "numerical",
        Compare(
            "<=",
            1e-6,
            what=r"largest relative gap between the integrated blanket mass and $e^{-\varepsilon_l/2}$",
        ),
        domain=ClaimDomain(
            (Param("eps_l", 1e-3, 50.0, stated=r"$\varepsilon_l$ > 0", closed_by="[10⁻³, 50]"),),
            stated=r"the Laplace randomizer on [0, 1], any $\varepsilon_l$ (Preliminaries, The "
            "Shuffle Model)",
        ),
    ),
}


CLAIMS = table(BLANKET)
