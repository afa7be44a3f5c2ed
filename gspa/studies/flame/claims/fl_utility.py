"""The claims of chapter flame/fl_utility (the federated runs) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain
from gspa.claims.rules import Close, Holds, Readings
from gspa.claims.table import Claim, table


# -- the federated runs (chapter flame/fl_utility) -------------------------------------------------


def gain_rule(tol: float = 5.0, loose: float = 15.0) -> Readings:
    """The rule of FLAME's percentage gains (Figure 5): within ``tol`` accuracy points (or percent) of
    the paper's value under a reading, else "differs" within ``loose``; the chapter passes its own."""
    from gspa.util import validate as V

    tol = V.real("tol", tol, low=0.0, low_open=True, high=1e6, scalar=True)
    loose = V.real("loose", loose, low=0.0, low_open=True, high=1e6, scalar=True)
    return Readings(
        Close(abs_tol=tol, loose_abs=loose),
        what=r"reading of %, of SS-Topk's $n_p$ and of the noise",
    )


FIGURE5_POINT = ClaimDomain.point("the experiment at its stated settings (Evaluations, Figure 5)")
FIGURE5_GAIN_POINT = ClaimDomain.point(
    "the experiment at its stated settings (Evaluations, Figure 5; the rest from the authors' code)"
)
DP_LDP = "Evaluations, Comparison with DP/LDP-FL"
OUR_PROTOCOLS = "Evaluations, Comparison of Our Protocols"
NP_READING = r"reading of SS-Topk's $n_p$"

FL_UTILITY = {
    "fl-topk-vs-ldp": Claim(
        "SS-Topk improves the testing accuracy by 60.7% over LDP-FL",
        f"Abstract; {DP_LDP}",
        "experiment",
        gain_rule(),
        paper=60.7,
        paper_text="+60.7 %",
        note="LDP-FL read as each baseline the paper names (Evaluations: Gaussian for (ε, δ)-LDP, "
        "Laplace for ε-LDP); each reading's name ends with the baseline",
        domain=FIGURE5_GAIN_POINT,
    ),
    "fl-topk-vs-dp": Claim(
        "under the same central privacy (0.24, 5e-6)-DP, SS-Topk achieves a higher accuracy than "
        "DP-FL by 33.94%",
        f"Abstract; {DP_LDP}",
        "experiment",
        gain_rule(),
        paper=33.94,
        paper_text="+33.94 %",
        domain=FIGURE5_GAIN_POINT,
    ),
    "fl-double-vs-simple": Claim(
        "compared with SS-Simple, SS-Double improves the testing accuracy by 4.07%",
        OUR_PROTOCOLS,
        "experiment",
        gain_rule(),
        paper=4.07,
        paper_text="+4.07 %",
        domain=FIGURE5_GAIN_POINT,
    ),
    "fl-topk-vs-double": Claim(
        "compared with SS-Double, SS-Topk boosts the utility by 55.5%",
        OUR_PROTOCOLS,
        "experiment",
        gain_rule(),
        paper=55.5,
        paper_text="+55.5 %",
        domain=FIGURE5_GAIN_POINT,
    ),
    "fl-dp20-above-topk": Claim(
        "DP-FL (20.53, 5e-6) has higher testing accuracy than SS-Topk",
        DP_LDP,
        "experiment",
        Readings(
            Holds("DP-FL (20.53)'s final accuracy exceeds SS-Topk's for every seed"),
            what=NP_READING,
        ),
        domain=FIGURE5_POINT,
    ),
    "fl-simple-above-ldp": Claim(
        "even the baseline SS-Simple performs better than LDP-FL",
        f"{DP_LDP} (Figure 5)",
        "experiment",
        Readings(
            Holds("SS-Simple's final accuracy exceeds LDP-FL's for every seed"),
            what="LDP-FL baseline the paper names (Gaussian, Laplace)",
        ),
        domain=FIGURE5_POINT,
    ),
    "fl-double-below-dp": Claim(
        "SS-Double cannot exceed the performance of DP-FL (0.24, 5e-6)-DP",
        f"{DP_LDP}, 1) (Figure 5)",
        "experiment",
        Holds("SS-Double's final accuracy is at most DP-FL (0.24)'s for every seed"),
        domain=FIGURE5_POINT,
    ),
    "fl-topk-above-dp": Claim(
        "SS-Topk can exceed the performance of DP-FL (0.24, 5e-6)-DP",
        f"{DP_LDP}, 1) (Figure 5)",
        "experiment",
        Readings(
            Holds("SS-Topk's final accuracy exceeds DP-FL (0.24)'s for every seed"),
            what=NP_READING,
        ),
        domain=FIGURE5_POINT,
    ),
    "fl-dp20-approaches-np": Claim(
        "DP-FL (20.53, 5e-6) approaches the non-private version",
        f"{DP_LDP} (Figure 5)",
        "under-specified",
        Readings(
            Holds("the reading's comparison holds for the means over seeds"),
            what="reading of 'approaches'",
        ),
        domain=FIGURE5_POINT,
        note="'approaches' names no size; two readings, neither with a threshold chosen by the book",
    ),
}


CLAIMS = table(FL_UTILITY)
