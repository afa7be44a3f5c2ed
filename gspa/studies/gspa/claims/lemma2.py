"""The claims of chapter gspa/lemma2 (Lemma 2) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Readings
from gspa.claims.table import Claim, table
from gspa.studies.gspa.claims.common import DELTA0, EPS0

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


CLAIMS = table(LEMMA2)
