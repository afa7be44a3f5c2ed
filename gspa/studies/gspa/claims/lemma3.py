"""The claims of chapter gspa/lemma3 (Lemma 3) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare
from gspa.claims.table import Claim, table


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
        "Proof of Theorem 2 (definition of ρ′₀, ρ′₁); text after Lemma 2 (p₀ for a common budget; both copies)",
        "misprint",
        Compare("<=", 1.0 + 1e-9, what="μ(proof's definitions) / μ(stated)"),
        paper=1.0,
        paper_text="1",
        domain=ClaimDomain(
            LEMMA3_BUDGETS,
            "the proof of Theorem 2's definitions for any budgets (both copies)",
        ),
        note="the stated μ follows Lemma 1/Lemma 3 (clone probability 2pᵢ); the proof's MultiBern halves it; "
        "the p₀ defined after Lemma 2 is the same definition at a common budget",
    ),
}


CLAIMS = table(LEMMA3)
