"""The claims of chapter gspa/mechanisms (the mechanisms) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Holds, Readings
from gspa.claims.table import Claim, table
from gspa.studies.gspa.margins import LEMMA4_MECHANISMS


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
    "prelim-laplace-vs-gaussian": Claim(
        "The Laplace mechanism provides stronger privacy but may introduce larger errors, while the "
        "Gaussian mechanism is more suitable for accurate results",
        "Privacy Tools, before Definition 4 (both copies)",
        "under-specified",
        Readings(
            Holds(
                "at the same ε, Laplace (eq. (7)) has the smaller δ and the larger RMS error than the "
                "Gaussian of eq. (8) at Table 3's δ"
            ),
            what="query dimension d (ℓ2 sensitivity 1, ℓ1 sensitivity √d)",
        ),
        domain=ClaimDomain.point(
            "the two mechanisms at one budget and Table 3's δ = 10⁻⁵, for a scalar query (Algorithms "
            "1–2) and a 60-dimensional one (Algorithm 3's PCA inputs); the sentence names no query"
        ),
    ),
}


CLAIMS = table(MECHANISMS)
