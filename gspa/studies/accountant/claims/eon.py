"""The claims of chapter accountant/eon (Echo of Neighbors' personalized bound) as data: for each its
statement, place in the paper, kind, rule, paper value and stated domain (:class:`gspa.claims.table.Claim`);
the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Readings
from gspa.claims.table import Claim, table

CLIP_STATED = (
    "EoN's personalized bound for its Clip-Laplace randomizer: any n users with any budgets εᵢ in their "
    "code's regime (μ ≥ 16 log(4/δ)), δ of their code"
)
CLIP_REGION = ClaimDomain(
    (Param("n", 100, 20000, "int"), Param("eps_d", 0.01, 10.0), Param("eps_o", 0.01, 10.0)),
    CLIP_STATED,
)

EON = {
    "eon-clip-laplace": Claim(
        "Under EoN's own Clip-Laplace randomizer, EoN's ε(δ) bounds the shuffle of n users with budgets εᵢ",
        "Liu et al., AAAI 2023 ('Echo of neighbors'): the mechanism named in the abstract, as sampled by "
        "their public code (github.com/yixuanLL/EoN, perS/flearn/utils/privacy_utils.py, clip_laplace); "
        "the bound as computed by privAmp/computeamplification_perS.py",
        "numerical",
        Compare(
            ">=",
            0.0,
            what="smallest margin, 1 − (certified lower bound on the Clip-Laplace protocol's δ at EoN's "
            "ε)/δ",
        ),
        domain=ClaimDomain(
            (
                Param("n", 100, 10**6, "int", stated="any number of users", closed_by="n ≤ 10⁶"),
                Param(
                    "eps_d",
                    0.01,
                    10.0,
                    stated="the differing user's budget, any εᵢ > 0",
                    closed_by="εᵢ ∈ [0.01, 10]",
                ),
                Param(
                    "eps_o",
                    0.01,
                    10.0,
                    stated="the other users' budgets, any",
                    closed_by="the others share one budget in [0.01, 10] (two-level profiles)",
                ),
            ),
            CLIP_STATED,
        ),
        note="consistent with EoN's number at the tested settings; fails where one liberal user differs "
        "among many conservative ones: EoN's echo probability averages over all users' budgets, so the "
        "conservative users count as echoes of the liberal one",
    ),
    "eon-personalized": Claim(
        "EoN's ε(δ) bounds the shuffle of n users whose randomizers are εᵢ-LDP (personalized budgets)",
        "Liu et al., AAAI 2023 ('Echo of neighbors'), as computed by their public code "
        "(github.com/yixuanLL/EoN, privAmp/computeamplification_perS.py); the theorem's wording was not "
        "accessible here",
        "under-specified",
        Readings(
            Compare(
                ">=",
                0.0,
                what="smallest margin, 1 − (certified lower bound on the protocol's δ at EoN's ε)/δ "
                "(< 0: a counterexample)",
            ),
            what="randomizer",
        ),
        note="for binary randomized response (not a reading of EoN's mechanism) EoN's ε lies above "
        "gspa's certified bound; the number is a normal approximation without an error term",
    ),
}


CLAIMS = table(EON)
