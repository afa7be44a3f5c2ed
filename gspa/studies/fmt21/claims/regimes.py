"""The claims of chapter fmt21/regimes (the regimes) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Readings
from gspa.claims.table import Claim, table
from gspa.studies.fmt21 import amplification
from gspa.studies.fmt21.claims.common import condition_domain

# -- the regimes (chapter fmt21/regimes) -----------------------------------------------------------

#: δ over eq. (1)'s condition region (the third parameter of :func:`amplification.condition_params`)
DELTA_CONDITION = Param(**amplification.condition_params()[2])

REGIMES = {
    "blog-small-eps": Claim(
        r"if $\varepsilon_L$ ≪ 1, a first-order Taylor expansion [of eq. (1)] shows "
        r"$\varepsilon \approx \varepsilon_L \cdot 8\sqrt{\log(4/\delta)/n}$",
        "blog, text after eq. (1)",
        "numerical",
        Compare(">=", 0.0, what=r"smallest $\varepsilon_L$ − |expansion / eq. (1) − 1|"),
        paper_text=r"relative error at most of first order in $\varepsilon_L$ (≤ $\varepsilon_L$)",
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    1e-4,
                    0.1,
                    stated=r"'if we start with $\varepsilon_L$ ≪ 1' (blog, after eq. (1))",
                    closed_by=r"$\varepsilon_L$ from 10⁻⁴ to 0.1 (≪ 1 read as at most 0.1)",
                ),
                Param(
                    "n_share",
                    1.0,
                    amplification.N_SHARE_MAX,
                    stated=r"$n \gg e^{\varepsilon_L}\log(1/\delta)$ (eq. (1)'s condition)",
                    closed_by=r"$n/(16 e^{\varepsilon_L}\log(2/\delta))$ from 1 (the smallest n the "
                    "condition allows) to 10⁶",
                ),
                DELTA_CONDITION,
            ),
            "'If we start with ε_L ≪ 1 ... a first-order Taylor expansion shows that we get "
            "ε ≈ ε_L·8√(log(4/δ)/n)' (blog, after eq. (1)); an expansion: its relative error must vanish "
            "to first order in ε_L, for every n and δ in eq. (1)'s condition",
        ),
    ),
    "blog-eq2-expansion": Claim(
        r"if $\varepsilon_L$ ≫ 1, another Taylor expansion [of eq. (1)] shows "
        r"$\varepsilon \approx \log\bigl(1 + 8\sqrt{e^{\varepsilon_L}\log(4/\delta)/n}\bigr)$",
        "blog, eq. (2)",
        "misprint",
        Compare(
            ">=",
            0.0,
            what="smallest 0.05 − |x₂/x₁ − 1| over the domain (x₁, x₂: the terms inside the logarithms "
            "of eqs. (1) and (2))",
        ),
        paper_text="x₂/x₁ → 1 as ε_L grows (within 5 %)",
        domain=condition_domain(
            "'What happens if we start with ... ε_L ≫ 1? Another Taylor expansion ... shows us that, "
            f"then, (2)' (blog, eq. (2)); ε_L ≫ 1 read as ε_L ≥ {amplification.LARGE_EPS:g}, every n and "
            "δ where FMT21's closed form applies (ε_L ≤ log(n/(16 log(4/δ))))",
            log_arg=4.0,
            eps_floor=amplification.LARGE_EPS,
        ),
    ),
    "blog-eq3": Claim(
        r"or, put differently [log(1 + x) ≈ x in eq. (2)], "
        r"$\varepsilon \approx 8 e^{\varepsilon_L/2}\sqrt{\log(4/\delta)/n}$",
        "blog, eq. (3)",
        "numerical",
        Compare(
            ">=",
            0.0,
            what=r"smallest x − |eq. (3)/eq. (2) − 1|, x = 8√($e^{\varepsilon_L}$ log(4/δ)/n) (the error "
            "of a first-order expansion in x is at most of order x; the constant 1 is the referee's)",
        ),
        paper_text="eq. (3) = eq. (2) to first order in x = 8√(e^ε_L log(4/δ)/n)",
        domain=condition_domain(
            "'or, put differently, (3)' (blog, eq. (3)): the same regime as eq. (2), ε_L ≫ 1, read "
            "generously as ε_L ≥ 1, every n and δ in eq. (1)'s condition",
            eps_floor=1.0,
        ),
        proof="for x ≥ 0, log(1 + x) ≥ 2x/(2 + x): both sides vanish at 0 and the derivative of their "
        "difference is x²/((1 + x)(2 + x)²) ≥ 0; so 0 ≤ eq. (3)/eq. (2) − 1 = x/log(1 + x) − 1 ≤ x/2 < x "
        "at every point of the region",
    ),
    "blog-sqrt-n": Claim(
        r"[for $\varepsilon_L$ ≪ 1] shuffling improved our privacy parameter by a factor √n",
        "blog, text after eq. (1)",
        "numerical",
        Readings(
            Compare(
                ">=",
                0.0,
                what=r"smallest $\varepsilon_L$ − |s + 1/2| (eq. (1)) or $\varepsilon_L$ − (s + 1/2) "
                r"(exact), s the slope of log ε against log n over a decade (first order in "
                r"$\varepsilon_L$, the constant 1 the referee's)",
            ),
            what="reading of 'our privacy parameter'",
        ),
        paper_text=r"slope −1/2 to first order in $\varepsilon_L$ (the expansion it is read from)",
        note="the exact ε falls faster than 1/√n at a fixed δ while δ is not small against the "
        "privacy-loss scale (δ ≈ μ·g(ε/μ)); "
        r"eq. (1) = log(1 + x) falls more slowly than $x \propto n^{-1/2}$ where x is not small, i.e. "
        "near its condition's boundary; the search shown is that of the reading with the smaller margin",
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    1e-3,
                    0.1,
                    stated=r"'if we start with $\varepsilon_L$ ≪ 1' (blog, after eq. (1))",
                    closed_by=r"$\varepsilon_L$ from 10⁻³ to 0.1",
                ),
                Param(
                    "n_share",
                    1.0,
                    1e5,
                    stated="any n in eq. (1)'s condition",
                    closed_by=r"$n/(16 e^{\varepsilon_L}\log(2/\delta))$ from 1 (smallest n allowed) to "
                    "10⁵, slope measured over [n, 10 n]",
                ),
                DELTA_CONDITION,
            ),
            "'shuffling improved our privacy parameter by a factor √n' (blog, after eq. (1)): for "
            "ε_L ≪ 1, every n and δ where eq. (1) applies; the factor is read as a slope of log ε against "
            "log n over each decade [n, 10 n] of −1/2 to first order in ε_L, the order of the expansion it "
            "is read from (at most −1/2 to that order for the exact value)",
        ),
    ),
}


CLAIMS = table(REGIMES)
