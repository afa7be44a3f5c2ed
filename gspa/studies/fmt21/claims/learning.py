"""The claims of chapter fmt21/learning (learning) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, NotCheckable
from gspa.claims.table import Claim, table
from gspa.studies.fmt21.claims.common import plugging_rule, rate_domain

# -- learning (chapter fmt21/learning) -------------------------------------------------------------

LEARNING = {
    "blog-learning-algebra": Claim(
        r"plugging eq. (5) back in eq. (4), the condition on n becomes "
        r"$n \gtrsim k\sqrt{\log(1/\delta)}/(\alpha\varepsilon) + k/\alpha^2$ (the algebra, constants ignored)",
        "blog, section 'Learning', after eq. (5)",
        "numerical",
        plugging_rule("eq. (4)"),
        paper_text="the same n up to a constant factor",
        note="the optimality of the result is the separate claim blog-thesis-learning",
        domain=rate_domain(
            "'Plugging that back in (4) ... the condition on n becomes n ≳ k√log(1/δ)/(αε) + k/α²' "
            "(blog, 'Learning'): every k, α, ε, δ"
        ),
    ),
    "blog-thesis-learning": Claim(
        "the sample complexity O(k/α² + k√log(1/δ)/(αε)) that shuffling gives is optimal: "
        "(ignoring the √log(1/δ)) it matches the one in the central DP setting — taking an optimal "
        "LDP algorithm and just shuffling the messages immediately gives an optimal shuffle DP "
        "algorithm (the optimality; the algebra is blog-learning-algebra)",
        "blog, section 'Learning', after eq. (5), and its tl;dr",
        "numerical",
        NotCheckable(
            "the statement is about shuffling an optimal LDP learner (the algorithm behind eq. (4)); the "
            "chapter simulates k-RR, which is an optimal LDP learner only where e^ε_L ≳ k, and no optimal "
            "learner (Hadamard response, subset selection) at the other budgets; the rates are Θ/O "
            "statements whose constants the blog does not give."
        ),
        domain=rate_domain(
            "'We immediately get a sample complexity O(k/α² + k√log(1/δ)/(αε)) in the shuffle DP model, "
            "which ... matches the one in the central DP setting' (blog, 'Learning'): every k, α, ε, δ"
        ),
    ),
    "blog-thesis-learning-local": Claim(
        r"the local model's complexity, eq. (4), $k^2/(\alpha^2(e^\varepsilon-1)^2) + "
        r"k^2/(\alpha^2 e^\varepsilon) + k/\alpha^2$, is worse than the central one (the gain of "
        "shuffling)",
        "blog, eq. (4) against the central rate [DHS15]",
        "numerical",
        NotCheckable(
            "eq. (4) is the sample complexity of an optimal LDP learner [ASZ19]; the chapter's local model "
            "is k-RR at ε_L = ε, not an optimal LDP learner where e^ε < k, so there its distance from the "
            "central error says nothing about eq. (4)"
        ),
        domain=rate_domain(
            "eq. (4) '[is] necessary and sufficient [ASZ19]' and the central rate [DHS15] (blog, "
            "'Learning'): every k, α, ε"
        ),
    ),
    "blog-eq4-note": Claim(
        "note that the first term [of eq. (4)] is just k/(α²ε²) for small ε",
        "blog, 'Learning', after eq. (4)",
        "misprint",
        Compare(">=", 0.0, what="smallest 0.1 − |first term / note − 1| over the domain"),
        paper_text="first term = k/(α²ε²) (1 + o(1)) as ε → 0",
        note="the first term is k²/(α²ε²) for small ε: the note's k should be k²",
        domain=ClaimDomain(
            (
                Param(
                    "k",
                    2,
                    10**6,
                    scale="int",
                    stated="a discrete domain of size k (blog, 'Learning')",
                    closed_by="k up to 10⁶",
                ),
                Param("alpha", 1e-3, 1.0, stated="any accuracy α", closed_by="α from 10⁻³ to 1"),
                Param("eps", 1e-4, 0.1, stated="'for small ε'", closed_by="ε from 10⁻⁴ to 0.1"),
            ),
            "'(note that the first term is just k/(α²ε²) for small ε)' (blog, after eq. (4)): every k, "
            "α, small ε",
        ),
    ),
    "blog-eq5-scaling": Claim(
        r"ignoring pesky constants we will choose $\varepsilon_L \approx \varepsilon\sqrt{n/\log(1/\delta)}$ "
        r"or $e^{\varepsilon_L} \approx \varepsilon^2 n/\log(1/\delta)$, depending on whether "
        r"$\varepsilon^2 n/\log(1/\delta) \ge 1$",
        "blog, eq. (5)",
        "numerical",
        Compare(
            "<=",
            0.1,
            what="the larger |fitted slope / eq. (5)'s − 1| of its two cases (both must hold)",
        ),
        paper_text="ratio 1 in both cases",
        note="compares the n-dependence only; eq. (5) drops the constants",
        domain=rate_domain(
            "'we will choose ε_L ≈ ε√(n/log(1/δ)) or e^ε_L ≈ ε²·n/log(1/δ), depending on whether "
            "ε²n/log(1/δ) ≥ 1' (blog, eq. (5)): every ε, δ and n; fitted at the chapter's ε, δ, k and n "
            "ranges only",
            names=("eps", "delta", "n"),
        ),
    ),
}


CLAIMS = table(LEARNING)
