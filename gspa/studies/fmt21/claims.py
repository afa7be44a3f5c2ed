"""Feldman–McMillan–Talwar's claims (as told by Canonne's blog post) as data: for each claim its statement, place in the paper, kind, rule, paper value and
stated domain, one section per chapter; the chapters record them by id with the values they compute
(:meth:`gspa.book.results.Chapter.claim`); the computations they judge are in `amplification`, `testing` and `learning`."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Holds, NotCheckable, Readings
from gspa.claims.table import Claim, table
from gspa.studies.fmt21 import amplification, learning


# -- the clones (chapter fmt21/clones) -------------------------------------------------------------


def _condition_domain(stated: str, **kw) -> ClaimDomain:
    """Eq. (1)'s whole condition region (:func:`amplification.condition_params`), with the blog's words."""
    return ClaimDomain(tuple(Param(**p) for p in amplification.condition_params(**kw)), stated)


EPS_L = Param(
    "eps_l",
    0.01,
    10.0,
    stated=r"any $\varepsilon_L$ ('it's OK, still LDP!')",
    closed_by=r"$\varepsilon_L$ from 0.01 to 10",
)
#: the part of the appended-index remark's domain that is enumerated exactly
CLONES_INDEX_REGION = ClaimDomain(
    (Param("eps_l", 0.01, 10.0), Param("users", 2, 4, scale="int")),
    "binary randomized response, n ≤ 4 users: the protocol is enumerated exactly, 2ⁿ input sets",
)
#: the part of footnote 2's domain that is enumerated exactly
CLONES_MALICIOUS_REGION = ClaimDomain(
    (
        Param("eps_l", 0.01, 10.0),
        Param("honest", 2, 4, scale="int"),
        Param("malicious", 1, 3, scale="int"),
    ),
    "binary randomized response, at most 4 honest and 3 malicious users, enumerated exactly",
)

CLONES = {
    "blog-eq1-upper": Claim(
        r"shuffling gives (ε, δ)-shuffle DP for any (ε, δ) satisfying eq. (1), as long as "
        r"$n \gg e^{\varepsilon_L}\log(1/\delta)$",
        "blog, eq. (1)",
        "numerical",
        Compare(
            ">=",
            0.0,
            what="smallest 1 − certified exact ε / eq. (1) over eq. (1)'s condition region",
        ),
        paper_text="eq. (1) ≥ the exact ε of the clone reduction",
        domain=_condition_domain(
            "'for any pair (ε, δ) which satisfies (1) as long as n ≫ e^ε_L log(1/δ)' (blog, eq. (1)); "
            "all n users share one ε_L-LDP randomizer"
        ),
    ),
    "blog-eq1-vs-fmt21": Claim(
        r"eq. (1) is FMT21's bound (constant 16 where FMT21's closed form has 8 plus a term "
        r"$8e^{\varepsilon_L}/n$)",
        "blog, eq. (1); FMT21's public code (closedformanalysis)",
        "numerical",
        Compare(
            ">=",
            0.0,
            what="smallest 1 − FMT21's closed form (their code) / eq. (1) where both conditions hold",
        ),
        paper_text="eq. (1) no smaller than FMT21's closed form (a conservative simplification)",
        domain=_condition_domain(
            "'What the main theorem of [FMT21] is saying ... can be stated as follows' (blog, before "
            "eq. (1)); compared where FMT21's code's condition holds, ε_L ≤ log(n/(16 log(4/δ))), the "
            "stricter of the two",
            log_arg=4.0,
        ),
    ),
    "fmt21-closed-form-code": Claim(
        "FMT21's closed form as their public code computes it (README example: n = 100,000, ε₀ = 4, "
        "δ = 10⁻⁶, the README prints `eps is at most 0.5378040242374512`)",
        "FMT21's code, README.md (apple/ml-shuffling-amplification, commit 993d285)",
        "numerical",
        Holds("our transcription of the code's formula gives the README's value to 1e-12 relative"),
        paper_text="`0.5378040242374512` (printed)",
        domain=ClaimDomain.point("the README's one example (n = 100,000, ε₀ = 4, δ = 10⁻⁶)"),
    ),
    "gspa-fmt22-closed-form": Claim(
        "the GSPA paper's FMT21 baseline (its citation key [FMT22], Figure 2): FMT21's closed form as "
        "the paper prints it, against the authors' code",
        "GSPA paper, 'Comparison with Existing Results' (003 and 000 alike)",
        "under-specified",
        NotCheckable(
            "neither copy of the GSPA paper prints FMT21's closed form or its condition: both name FMT21 "
            "(as [FMT22], their key) only as a baseline of Figure 2 ('Baseline bounds of privacy "
            "amplification effect include ... [FMT22]'), so which formula its curve uses cannot be read "
            "from the text; the printed form that can be checked is the blog's eq. (1) (claim "
            "blog-eq1-vs-fmt21)"
        ),
        domain=ClaimDomain.point("the formula behind one curve of Figure 2"),
    ),
    "blog-index-no-amplification": Claim(
        "the randomizer of user i could just append i to the message (still LDP), and then shuffling "
        "achieves exactly nothing",
        "blog, 'The result of Feldman, McMillan, and Talwar', first remark",
        "numerical",
        Holds(
            "the shuffled protocol's exact δ(ε) equals the local randomizer's δ(ε) within the counted "
            "round-off, at every ε of the grid"
        ),
        domain=ClaimDomain(
            (
                EPS_L,
                Param(
                    "users",
                    2,
                    10**6,
                    scale="int",
                    stated="any number of users n ≥ 2",
                    closed_by="n up to 10⁶",
                ),
            ),
            "'the randomizer of user i could just append i to the message ... and then shuffling "
            "achieves exactly nothing' (blog, after eq. (1)): any ε_L-LDP randomizer, any n",
        ),
        proof="with the index appended, sorting the shuffled messages by index gives back (y₁, …, yₙ) "
        "in order, and shuffling that tuple gives back the shuffled messages in law: each is a "
        "post-processing of the other, so they have the same privacy profile; a change of user i's "
        r"input changes only yᵢ = (i, R(xᵢ)), so that profile is R's own, for every n and every "
        r"$\varepsilon_L$-LDP randomizer R",
    ),
    "blog-malicious": Claim(
        "if 10% of users are malicious, the remaining 90% still get the amplification guarantee of (1), "
        "but with 0.9n instead of n",
        "blog, footnote 2",
        "numerical",
        Holds(
            "the enumerated profile with malicious users equals the honest users' alone, and eq. (1) at "
            "the honest count bounds the certified ε wherever its condition holds"
        ),
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    0.01,
                    10.0,
                    stated=r"any $\varepsilon_L$",
                    closed_by=r"$\varepsilon_L$ from 0.01 to 10",
                ),
                Param(
                    "honest",
                    2,
                    10**6,
                    scale="int",
                    stated="(1 − f) n honest users, any n",
                    closed_by="up to 10⁶",
                ),
                Param(
                    "malicious",
                    1,
                    10**5,
                    scale="int",
                    stated="a fraction f of the users ('10%')",
                    closed_by="up to 10⁵",
                ),
            ),
            "'if 10% of users are malicious, the remaining 90% still get the privacy amplification "
            "guarantee of (1), but with 0.9n instead of n' (blog, footnote 2); the bound of (1) at the "
            "honest count is claim blog-eq1-upper, searched over its whole region",
        ),
        proof="the malicious users' reports do not depend on the honest users' inputs or reports (sent "
        "at the same time); the analyzer's view is then the honest users' shuffled reports with those "
        "reports added and everything shuffled again, a post-processing, so its privacy profile is at "
        "most that of the shuffle of the (1 − f)n honest users — with equality when the adversary knows "
        "the malicious reports (it removes them), the worst case, which the enumeration computes — for "
        "every n; eq. (1) at that count bounds it wherever its condition holds (claim blog-eq1-upper, "
        "searched over its whole region)",
    ),
}


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
        domain=_condition_domain(
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
        domain=_condition_domain(
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


# -- the testing view (chapter fmt21/testing) ------------------------------------------------------


def _rate_domain(stated: str, **kw) -> ClaimDomain:
    """The domain of one of the blog's rate statements (:func:`learning.rate_params`), with its words."""
    return ClaimDomain(tuple(Param(**p) for p in learning.rate_params(**kw)), stated)


TESTING = {
    "blog-testing-rate": Claim(
        r"it suffices to have $n \gtrsim k^{3/4}\sqrt{\log(1/\delta)}/(\alpha\varepsilon) + "
        r"\sqrt{k}/\alpha^2$ [private coin, shuffling an optimal LDP tester, eq. (7), with "
        r"$\varepsilon_L$ from eq. (5)]",
        "blog, section '(Uniformity) Testing', after eq. (7)",
        "numerical",
        NotCheckable(
            "the rate is that of an optimal private-coin LDP tester shuffled; the chapter simulates k-RR "
            "with a collision statistic, an optimal private-coin tester only where e^ε_L ≳ k, which the "
            "certified budgets do not reach for the larger alphabets, and no optimal tester (e.g. RAPPOR "
            "with a χ² statistic) is simulated; the rate is an O statement whose constants the blog does "
            "not give."
        ),
        domain=_rate_domain(
            "'it suffices that the sample complexity (number of users) n satisfies n ≳ "
            "k^(3/4)√log(1/δ)/(αε) + √k/α²' (blog, '(Uniformity) Testing'): every k, α, ε, δ"
        ),
    ),
    "krr-tester-rate": Claim(
        "the tester simulated (k-RR at the certified local budget, collision statistic, shuffled) needs n "
        "growing with k as its own rate predicts — the blog's recipe (the LDP tester's complexity at the "
        "local budget shuffling allows) applied to k-RR",
        "the chapter's tester and its approximation (gspa.studies.fmt21.testing.tester_n_approx); the "
        "recipe: blog, '(Uniformity) Testing'",
        "numerical",
        Close(abs_tol=0.05),
        paper=0.0,
        paper_text="difference of exponents 0",
        note=r"k-RR's own rate, not the blog's: for $1 \ll e^{\varepsilon_L} \ll k$ it is "
        r"$k^{5/2}/(\alpha^2e^{2\varepsilon_L})$ where eq. (7) has $k^{3/2}/(\alpha^2e^{\varepsilon_L})$",
        domain=_rate_domain(
            "the tester simulated, at every k, α, ε, δ; simulated at the chapter's α, ε and k only"
        ),
    ),
}


# -- learning (chapter fmt21/learning) -------------------------------------------------------------

LEARNING = {
    "blog-thesis-learning": Claim(
        "we immediately get a sample complexity O(k/α² + k√log(1/δ)/(αε)) in the shuffle DP model, "
        "which (ignoring the √log(1/δ)) matches the one in the central DP setting — taking an optimal "
        "LDP algorithm and just shuffling the messages immediately gives an optimal shuffle DP algorithm",
        "blog, section 'Learning', after eq. (5), and its tl;dr",
        "numerical",
        NotCheckable(
            "the statement is about shuffling an optimal LDP learner (the algorithm behind eq. (4)); the "
            "chapter simulates k-RR, which is an optimal LDP learner only where e^ε_L ≳ k, and no optimal "
            "learner (Hadamard response, subset selection) at the other budgets; the rates are Θ/O "
            "statements whose constants the blog does not give."
        ),
        domain=_rate_domain(
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
        domain=_rate_domain(
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
        domain=_rate_domain(
            "'we will choose ε_L ≈ ε√(n/log(1/δ)) or e^ε_L ≈ ε²·n/log(1/δ), depending on whether "
            "ε²n/log(1/δ) ≥ 1' (blog, eq. (5)): every ε, δ and n; fitted at the chapter's ε, δ, k and n "
            "ranges only",
            names=("eps", "delta", "n"),
        ),
    ),
}


# -- the study's table ------------------------------------------------------------------------------

CLAIMS = table(CLONES, REGIMES, TESTING, LEARNING)
