"""The claims of chapter gspa/lemma1 (Lemma 1) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Readings
from gspa.claims.table import Claim, table
from gspa.studies.gspa.margins import PERSONALIZED_RANDOMIZERS


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
        follows_from="gspa.lemma1-eq11-general",
        because=r"randomized response and Laplace with a common budget and δ = 0 are (ε, δ)-PLDP "
        r"randomizers, and $p_i$ is then $1/(1 + e^{\varepsilon})$",
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


CLAIMS = table(LEMMA1)
