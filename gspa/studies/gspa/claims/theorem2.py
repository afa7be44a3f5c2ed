"""The claims of chapter gspa/theorem2 (Theorems 2-5) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Readings
from gspa.claims.table import Claim, table
from gspa.studies.gspa.domain_search import EXCESS_TOL, max_budget


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
        "budgets, any n (both copies; copy 003 sums p over i ≤ n − 1, copy 000 over i ≤ n)",
    )


#: Theorem 2's stated domain (two-level budgets for binary randomized response)
THEOREM2_DOMAIN = _theorem2_domain(10**6)
#: the part of it searched: n ≤ 2,000 (the pair's exact law costs the square of the clone count)
THEOREM2_REGION = _theorem2_domain(2000)
#: what a searched point of Theorem 2's domain says beyond its coordinates: its largest budget
THEOREM2_DERIVED = {"max εᵢ": max_budget}
#: eq. (16)'s event for the differing user's budget
EQ16_DOMAIN = ClaimDomain(
    (
        Param("eps_n", 1e-3, 20.0, "log", stated="εₙ > 0", closed_by="εₙ ∈ [10⁻³, 20]"),
        Param("delta_n", 1e-12, 0.5, "log", stated="δₙ ∈ (0, 1)", closed_by="δₙ ∈ [10⁻¹², 0.5]"),
    ),
    stated="eq. (16) for the differing user's budget (εₙ, δₙ), any values (proof of Theorem 2, both "
    "copies)",
)
#: the tolerance of G_μ over the real protocol's curve, relative to its TV: the margin's own
THEOREM2_EXCESS_TOL = EXCESS_TOL
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
        follows_from="gspa.thm2-approx-gdp",
        because="the paper defines 'approximately μ-GDP' by eq. (15) itself, so each reading of the one"
        " is the same reading of the other",
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


CLAIMS = table(THEOREM2)
