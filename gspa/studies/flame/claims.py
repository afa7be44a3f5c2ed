"""FLAME's claims as data: for each claim its statement, place in the paper, kind, rule, paper value and
stated domain, one section per chapter; the chapters record them by id with the values they compute
(:meth:`gspa.book.results.Chapter.claim`); the computations they judge are in `domains`."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain
from gspa.claims.rules import Close, Holds, Readings
from gspa.claims.table import Claim, table


# -- the theorems and Figure 3 (chapter flame/theorems) --------------------------------------------

THEOREMS: dict = {}  # filled when the chapter moves its claims here


# -- the blanket and Corollary 1 (chapter flame/blanket) -------------------------------------------

BLANKET: dict = {}  # filled when the chapter moves its claims here


# -- the protocols' accounting (chapter flame/accounting) ------------------------------------------

ACCOUNTING: dict = {}  # filled when the chapter moves its claims here


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


# -- the federated runs (chapter flame/fl_utility) -------------------------------------------------

FL_UTILITY: dict = {}  # filled when the chapter moves its claims here


# -- the study's table ------------------------------------------------------------------------------

CLAIMS = table(THEOREMS, BLANKET, ACCOUNTING, FL_PARAMETERS, FL_UTILITY)
