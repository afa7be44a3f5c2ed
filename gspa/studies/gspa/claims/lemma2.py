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
        # an upper bound on the rate: any decay at least as fast as 1/√m (slope ≤ −1/2, 0.05 for the fit) holds
        Readings(
            Compare("<=", -0.45, what="slope of log TV against log m", loose=-0.35),
            what="reading of Q̃ and C",
        ),
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
        "false-statement",
        # "nearly O(1/n)" is an upper bound on the rate too: a decay at least as fast as 1/m holds
        Readings(
            Compare("<=", -0.9, what="slope of log distance against log m", loose=-0.75),
            what="distance between the clone counts and the normal",
        ),
        paper=-1.0,
        paper_text="−1 (O(1/n))",
        domain=LEMMA2_DOMAIN,
        note="every distance between the two laws decays like 1/√m, Lemma 2's own rate; the one quantity with "
        "slope −1 is eq. (14) with its misprinted quarter cells (lemma2-eq14-cell), which is 3/4 of the peak "
        "probability and decays like 1/m however close the laws are: not a reading of the rate",
    ),
    "lemma2-eq14-cell": Claim(
        "h(k₀, k₁) = G(k₀+½, k₁+½) − G(k₀+½, k₁) − G(k₀, k₁+½) + G(k₀, k₁) integrates the normal density "
        "'around' the point (k₀, k₁)",
        "Lemma 2, text before eq. (14) (both copies)",
        "misprint",
        Close(abs_tol=0.01),
        paper=1.0,
        paper_text="1 (cells around the lattice points tile the plane: their normal masses sum to 1)",
        domain=LEMMA2_DOMAIN,
        note="h integrates over the quarter cell [k₀, k₀+½] × [k₁, k₁+½], not around the point: the masses "
        "sum to about 1/4. 'Around that point' fixes the intended cell [k₀−½, k₀+½] × [k₁−½, k₁+½]",
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
}


CLAIMS = table(LEMMA2)
