"""The claims of chapter flame/fl_parameters (Figure 8's parameters) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain
from gspa.claims.rules import Close, Holds, Readings
from gspa.claims.table import Claim, table


# -- Figure 8's parameters (chapter flame/fl_parameters) -------------------------------------------

FIGURES678_POINT = ClaimDomain.point(
    "the experiment over its figure's grid at the paper's other settings (Evaluations, Figures 6–8)"
)
FIGURES678_RULE = Holds(
    "the mean final accuracy rises at every step of the grid and, for every seed, the largest value "
    "beats the smallest"
)
VARIANT_PARAMETERS = "Evaluations, Comparison under Variant Parameters"

FL_PARAMETERS = {
    "fl-eps-lk-order": Claim(
        "a larger local privacy budget for each dimension leads to higher testing accuracy",
        f"{VARIANT_PARAMETERS}, 1) (Figure 6)",
        "experiment",
        FIGURES678_RULE,
        domain=FIGURES678_POINT,
    ),
    "fl-ratio-order": Claim(
        "the higher ratio of n/n_p implies less additional noise injected by dummy padding (better "
        "accuracy)",
        f"{VARIANT_PARAMETERS}, 2) (Figure 7)",
        "experiment",
        FIGURES678_RULE,
        domain=FIGURES678_POINT,
    ),
    "fl-beta-order": Claim(
        "larger β implies better utility",
        f"{VARIANT_PARAMETERS}, 3) (Figure 8)",
        "experiment",
        FIGURES678_RULE,
        domain=FIGURES678_POINT,
    ),
    "fl-np-vs-topk-beta": Claim(
        "with β = 1/10 SS-Topk loses only 1.48% accuracy compared with NP-FL (2 epochs)",
        f"Abstract; {VARIANT_PARAMETERS}, 3)",
        "experiment",
        # the chapter passes its own tolerances (percent_tol, percent_loose); these are its defaults
        Readings(Close(abs_tol=5.0, loose_abs=15.0), what="reading of %"),
        paper=1.48,
        paper_text="1.48 %",
        domain=ClaimDomain.point("the experiment at β = 1/10, 2 epochs (Abstract; Evaluations)"),
    ),
}


CLAIMS = table(FL_PARAMETERS)
