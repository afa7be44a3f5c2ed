"""The claims of chapter fmt21/testing (the testing view) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.rules import Close, NotCheckable
from gspa.claims.table import Claim, table
from gspa.studies.fmt21.claims.common import plugging_rule, rate_domain


# -- the testing view (chapter fmt21/testing) ------------------------------------------------------


TESTING = {
    "blog-testing-algebra": Claim(
        r"plugging eq. (5) in eq. (7) gives $n \gtrsim k^{3/4}\sqrt{\log(1/\delta)}/(\alpha\varepsilon) + "
        r"\sqrt{k}/\alpha^2$ (private coin), and in eq. (6) "
        r"$k^{2/3}\log^{1/3}(1/\delta)/(\alpha^{4/3}\varepsilon^{2/3}) + \sqrt{k\log(1/\delta)}/(\alpha\varepsilon) "
        r"+ \sqrt{k}/\alpha^2$ (public coin) — the algebra, constants ignored",
        "blog, section '(Uniformity) Testing', after eq. (7)",
        "numerical",
        plugging_rule("eqs. (7) and (6)"),
        paper_text="the same n up to a constant factor",
        note="that these rates are those of an optimal tester is the separate claim blog-testing-rate",
        domain=rate_domain(
            "'Plugging this back in (7) ... it suffices to have n ≳ k^(3/4)√log(1/δ)/(αε) + √k/α²', "
            "and the same with (6) (blog, '(Uniformity) Testing'): every k, α, ε, δ"
        ),
    ),
    "blog-testing-rate": Claim(
        r"shuffling an optimal private-coin LDP tester (eq. (7)) at eq. (5)'s $\varepsilon_L$ suffices with "
        r"$n \gtrsim k^{3/4}\sqrt{\log(1/\delta)}/(\alpha\varepsilon) + \sqrt{k}/\alpha^2$, a rate the blog "
        r"believes tight (the tester's optimality; the algebra is blog-testing-algebra)",
        "blog, section '(Uniformity) Testing', after eq. (7)",
        "numerical",
        NotCheckable(
            "the rate is that of an optimal private-coin LDP tester shuffled; the chapter simulates k-RR "
            "with a collision statistic, an optimal private-coin tester only where e^ε_L ≳ k, which the "
            "certified budgets do not reach for the larger alphabets, and no optimal tester (e.g. RAPPOR "
            "with a χ² statistic) is simulated; the rate is an O statement whose constants the blog does "
            "not give."
        ),
        domain=rate_domain(
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
        domain=rate_domain(
            "the tester simulated, at every k, α, ε, δ; simulated at the chapter's α, ε and k only"
        ),
    ),
}


CLAIMS = table(TESTING)
