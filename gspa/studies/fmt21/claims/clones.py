"""The claims of chapter fmt21/clones (the clones) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Holds, NotCheckable
from gspa.claims.table import Claim, table
from gspa.studies.fmt21.claims.common import condition_domain


# -- the clones (chapter fmt21/clones) -------------------------------------------------------------


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
        domain=condition_domain(
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
        domain=condition_domain(
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
        follows_from="fmt21.blog-eq1-upper",
        because="the honest users' reports are eq. (1)'s protocol with 0.9n users; the malicious users'"
        " reports are independent of the honest users' data, so adding them is a post-"
        "processing",
    ),
    "blog-approximate-only": Claim(
        "this is inherently approximate DP: starting from pure LDP, shuffling ends with approximate "
        "shuffle DP ('that's how it is'): no pure ε below the local ε_L",
        "blog, 'The result of Feldman, McMillan, and Talwar', third remark",
        "numerical",
        Holds(
            "δ(ε) > 0 just below ε_L for shuffled binary randomized response (explicit lower bound; "
            "exhaustive enumeration agrees for n ≤ 6)"
        ),
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    0.01,
                    20.0,
                    stated=r"any pure $\varepsilon_L$-LDP randomizer",
                    closed_by=r"binary randomized response, $\varepsilon_L$ from 0.01 to 20",
                ),
                Param("n", 2, 10**9, scale="int", stated="any n", closed_by="up to 10⁹"),
            ),
            "'Here we started with pure LDP … and ended up with approximate Shuffle DP: this is not a "
            "mistake, that's how it is' (blog)",
        ),
        proof=r"for binary randomized response with $q = e^{\varepsilon_L}/(e^{\varepsilon_L} + 1)$, the "
        r"outcome 'n ones' has probability $q^n$ when every user holds 1 and $(1 - q)q^{n-1}$ when one of "
        r"them holds 0: a ratio of $e^{\varepsilon_L}$ at every n, so "
        r"$\delta(\varepsilon) \ge q^n(1 - e^{\varepsilon - \varepsilon_L}) > 0$ for every "
        r"$\varepsilon < \varepsilon_L$. The same event works for any randomizer whose $\varepsilon_L$ "
        "is attained at some output",
    ),
}


CLAIMS = table(CLONES)
