"""FLAME's claims as data: for each claim its statement, place in the paper, kind, rule, paper value and
stated domain, one section per chapter; the chapters record them by id with the values they compute
(:meth:`gspa.book.results.Chapter.claim`); the computations they judge are in `domains`."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Holds, NotCheckable, Readings
from gspa.claims.table import Claim, table
from gspa.studies.flame.domains import THM2_DATA, THM3_DATA


# -- the theorems and Figure 3 (chapter flame/theorems) --------------------------------------------


def _eps_param(name, what="ε > 0"):
    return Param(name, 1e-3, 10.0, stated=what, closed_by="[10⁻³, 10]")


def _delta_param(name):
    return Param(name, 1e-12, 1e-2, stated=f"{name} ∈ (0, 1)", closed_by="[10⁻¹², 10⁻²]")


def _size_param(name, what, low=2):
    return Param(name, low, 1_000_000, scale="int", stated=what, closed_by="up to 10⁶")


THEOREMS_BETA = Param("beta", 1e-3, 1.0, stated="β ∈ (0, 1]", closed_by="β ≥ 10⁻³")
#: why the claims that compose over dimensions or runs are not searched
THEOREMS_COMPOSE_NOTE = (
    "not searched: each point needs an exact composition over up to d (or T) runs, seconds to "
    "minutes each; checked on the chapter's grid"
)
THEOREMS_PERM_DOMAIN = ClaimDomain(
    (
        Param("n", 2, 1_000_000, scale="int", stated="n users, any n", closed_by="up to 10⁶"),
        Param("d", 1, 100_000, scale="int", stated="any d", closed_by="up to 10⁵"),
        Param("eps_ld", 0.05, 6.0, stated=r"$\varepsilon_{ld}$ > 0", closed_by="[0.05, 6]"),
        Param(
            "eps_cd_frac",
            0.05,
            1.0,
            scale="linear",
            stated=r"any per-dimension $\varepsilon_{cd}$ ($\delta_{cd}$ its exact δ)",
            closed_by=r"$\varepsilon_{cd}$ from 0.05 $\varepsilon_{ld}$ to $\varepsilon_{ld}$",
        ),
    ),
    stated="Theorem 1 for SS-Simple as printed: Algorithm 2 lines 10–15 (one message per user with "
    "all d reports; Shuffle permutes the n messages), any neighbouring data sets",
)
#: computed exactly through the histogram of the reports' counts of 1s: n ≤ 40, d ≤ 4 (the others all
#: 0, the differing user all 0 against all 1)
THEOREMS_PERM_REGION = ClaimDomain(
    (Param("n", 2, 40, scale="int"), Param("d", 1, 4, scale="int"))
    + THEOREMS_PERM_DOMAIN.params[2:],
    THEOREMS_PERM_DOMAIN.stated,
)


def _over_data(params: tuple, choices, any_data: str, stated: str, region: str):
    """A theorem's stated domain — ``params`` and any data set of ``choices`` — and the region searched:
    the first data set only (``region`` says which)."""
    data = Param(
        "data", 0, 0, scale="choice", choices=choices, stated=any_data, closed_by="every data set"
    )
    first = Param("data", 0, 0, scale="choice", choices=choices[:1])
    return ClaimDomain(params + (data,), stated=stated), ClaimDomain(
        params + (first,), stated=region
    )


#: Theorem 2's domain, and the data sets with the other users' bits all equal (searched)
_T2_DOMAIN, THEOREMS_T2_REGION = _over_data(
    (
        _eps_param("eps_l"),
        _size_param("n_s", "n_s ≥ 2 sampled users"),
        THEOREMS_BETA,
        _delta_param("delta_cd"),
    ),
    THM2_DATA,
    "any data set of the n users",
    r"Theorem 2: for any $\varepsilon_l$, $n_s$, β = $n_s/n$ ∈ (0, 1], $\delta_{cd}$ < 2β and "
    "any data set (Privacy Analysis of SS-Double)",
    "the data sets with the other users' bits all equal",
)
#: Theorem 3's domain, and the data set with no other user's report in the dimension (searched)
_T3_DOMAIN, THEOREMS_T3_REGION = _over_data(
    (
        _eps_param("eps_lk"),
        _size_param("n_p", "n_p ≥ 2 padded messages"),
        THEOREMS_BETA,
        _delta_param("delta_cd"),
    ),
    THM3_DATA,
    "any data set (other users' real reports in the dimension included)",
    r"Theorem 3: for any $\varepsilon_{lk}$, $n_p$, β ∈ (0, 1], $\delta_{cd}$ < 2β and any data "
    "set (Privacy Analysis of SS-Double)",
    "no other user's report in the dimension",
)
_T_PARAM = Param("T", 1, 100_000, scale="int", stated="any T ≥ 1", closed_by="up to 10⁵")
_LEMMA1_CONDITION_NOTE = (
    "margin 1 − exact ε at $\\delta_{cd}$ / {what}'s $\\varepsilon_{cd}$ where Lemma 1's condition "
    "holds (1 elsewhere)"
)

THEOREMS = {
    "flame-thm1": Claim(
        "SS-Simple satisfies $(\\varepsilon_c, \\delta_c)$-DP with eqs. (2)–(3) for per-dimension "
        "$(\\varepsilon_{cd}, \\delta_{cd})$",
        "FLAME, Theorem 1",
        "numerical",
        Compare(
            "<=",
            1.0,
            what=r"largest ratio of the exact composed ε at $\delta_c$ to Theorem 1's $\varepsilon_c$",
        ),
        paper=1.0,
        paper_text=r"exact ε ≤ Theorem 1's $\varepsilon_c$",
        domain=ClaimDomain(
            (
                _eps_param("eps_ld", "ε_ld > 0"),
                Param("d", 1, 100_000, scale="int", stated="any d ≥ 1", closed_by="up to 10⁵"),
                _size_param("n", "n ≥ 2 users"),
                _delta_param("delta_c"),
            ),
            stated=r"Theorem 1: SS-Simple for any per-dimension $(\varepsilon_{cd}, \delta_{cd})$, d "
            "and δ' (Privacy Analysis of SS-Simple)",
        ),
        note=THEOREMS_COMPOSE_NOTE,
    ),
    "flame-thm1-one-permutation": Claim(
        "Theorem 1 holds for SS-Simple as printed, in which one permutation of the users' whole "
        "messages (all d reports each) replaces d separate shuffles",
        "FLAME, Algorithm 2 lines 10–15, SS-Simple's Shuffle ('generates a permutation π and outputs "
        "m_π(i)'), Theorem 1",
        "false-statement",
        Compare(
            ">=", 0.0, what=r"smallest 1 − $\delta(\varepsilon_c)/\delta_c$ of the printed protocol"
        ),
        paper_text=r"δ of the printed protocol at $\varepsilon_c$ ≤ $\delta_c$",
        domain=THEOREMS_PERM_DOMAIN,
        note="the proof composes the d dimensions by Lemmas 2–3, which compose separate mechanisms; "
        "with one permutation each user's d reports stay linked, and the report vector that looks like "
        "all 1 gives the differing user away as d grows; eqs. (2)–(3) hold for d separate shuffles "
        "(claim flame-thm1), which the paper does not print. The violation is re-verified by building "
        "the two laws of the count histogram user by user (whole_vector_delta_sequential). Found by a "
        "second reader",
    ),
    "flame-cor2": Claim(
        r"at a fixed per-dimension budget, SS-Simple's $\varepsilon_c$ grows as $\sqrt{d}\log(d/\delta_c)$",
        "FLAME, Corollary 2 and 'Limitation of SS-Simple'",
        "numerical",
        Close(abs_tol=0.1),
        paper=0.0,
        domain=ClaimDomain(
            (
                _eps_param("eps_ld", r"$\varepsilon_l/d$ > 0"),
                _size_param("n", "n users"),
                _delta_param("delta_c"),
            ),
            stated=r"Corollary 2: a rate in d for any $\varepsilon_l/d$, n and $\delta_c$ (Privacy "
            "Analysis of SS-Simple)",
        ),
        note=r"the value judged is the fitted exponent minus the corollary's; the amplification ratio "
        r"$\varepsilon_l/\varepsilon_c$ still grows with d at a fixed $\varepsilon_{ld}$; "
        + THEOREMS_COMPOSE_NOTE,
    ),
    "flame-thm2": Claim(
        "one dimension subsampled without replacement and shuffled satisfies "
        "$(\\varepsilon_{cd}, \\delta_{cd})$-DP with eq. (4)",
        "FLAME, Theorem 2",
        "numerical",
        Readings(
            Compare("<=", 1.0, what=r"largest true $\delta(\varepsilon_{cd})/\delta_{cd}$"),
            what="per-dimension guarantee",
        ),
        paper=1.0,
        paper_text=r"true $\delta(\varepsilon_{cd})$ ≤ $\delta_{cd}$",
        domain=_T2_DOMAIN,
        note=r"the data sets with the others' bits all equal only (a lower bound on the worst case "
        r"over data sets): evidence, not a proof; neighbours by replacement; searched: eq. (4) as "
        "stated, " + _LEMMA1_CONDITION_NOTE.replace("{what}", "eq. (4)"),
    ),
    "flame-thm3": Claim(
        "one padded dimension of SS-Double with sampling rate β satisfies "
        "$(\\varepsilon_{cd}, \\delta_{cd})$-DP with eqs. (5)–(6)",
        "FLAME, Theorem 3",
        "numerical",
        Readings(
            Compare("<=", 1.0, what=r"largest true $\delta(\varepsilon_{cd})/\delta_{cd}$"),
            what=r"per-dimension $\varepsilon_{ck}$",
        ),
        paper=1.0,
        paper_text=r"true $\delta(\varepsilon_{cd})$ ≤ $\delta_{cd}$",
        domain=_T3_DOMAIN,
        note=r"one dimension only; composing it over dimensions (Theorem 4) fails, see the accounting "
        "chapter; only the data set with no other user's report in the dimension (dummies only: the "
        "most favourable one, since real reports carry less noise than dummies); searched: eqs. "
        "(5)–(6) as stated, " + _LEMMA1_CONDITION_NOTE.replace("{what}", "eqs. (5)–(6)"),
    ),
    "flame-prop1": Claim(
        "the std of SS-Double's estimated mean per dimension is "
        "$O(n_p^{1/6}\\log^{1/3}(1/\\delta_{ck})/(n_s\\varepsilon_{ck}^{2/3}))$",
        "FLAME, Proposition 1",
        "numerical",
        Readings(
            Compare(
                "<=",
                0.1,
                what="fitted exponent of $n_p$ minus the reading's (an O(): growing slower is allowed)",
            ),
            what="reading of what is held fixed",
        ),
        paper=0.0,
        paper_text=r"exponent of $n_p$: 1/6 ($\varepsilon_{ck}$ fixed) or 1/2 ($\varepsilon_{lk}$ "
        "fixed, eq. (5))",
        domain=ClaimDomain(
            (
                _size_param("n_s", r"$n_s$ sampled users"),
                _eps_param("eps_ck", r"$\varepsilon_{ck}$ ∈ (0, 1]"),
                _delta_param("delta_ck"),
            ),
            stated=r"Proposition 1: a rate in $n_p$ for any $n_s$, $\varepsilon_{ck}$, $\delta_{ck}$ "
            "(Utility Analysis of SS-Double)",
        ),
        note=r"the value judged is the fitted exponent minus the reading's; the $n_p - n_s$ dummies are "
        r"pure blanket noise of variance about 1/12 each, so at fixed $\varepsilon_{ck}$ the std grows "
        r"as $n_p^{1/2}$ for $n_p$ ≫ $n_s$",
    ),
    "flame-lemma2": Claim(
        "T-fold composition of ε-DP mechanisms is Tε-DP (basic composition)",
        "FLAME, Lemma 2",
        "numerical",
        Readings(
            Compare("<=", 1.0, what="largest ratio of the exact composed ε to Lemma 2's"),
            what="form of Lemma 2",
        ),
        paper=1.0,
        paper_text="exact composed ε ≤ Tε",
        domain=ClaimDomain(
            (_eps_param("eps"), _T_PARAM),
            stated="Lemma 2: any ε-DP mechanisms, any T (Preliminaries)",
        ),
    ),
    "flame-lemma3": Claim(
        "T-fold composition of $(\\varepsilon, \\delta)$-DP mechanisms is "
        "$(\\sqrt{2T\\ln(1/\\delta')}\\varepsilon + T\\varepsilon(e^\\varepsilon - 1), T\\delta + "
        "\\delta')$-DP",
        "FLAME, Lemma 3",
        "numerical",
        Readings(
            Compare("<=", 1.0, what="largest ratio of the exact composed ε to Lemma 3's"),
            what="per-run (ε, δ)",
        ),
        paper=1.0,
        paper_text="exact composed ε at Tδ + δ' ≤ Lemma 3's ε",
        domain=ClaimDomain(
            (_eps_param("eps"), _delta_param("delta"), _T_PARAM, _delta_param("delta_prime")),
            stated="Lemma 3: any (ε, δ)-DP mechanisms, any T and δ' (Preliminaries)",
        ),
    ),
    "flame-lemma4": Claim(
        "sampling m of n records without replacement gives "
        "$(\\log(1 + (m/n)(e^\\varepsilon - 1)), (m/n)\\delta)$-DP",
        "FLAME, Lemma 4",
        "numerical",
        Compare("<=", 1.0, what="largest ratio of the exact δ to Lemma 4's"),
        paper=1.0,
        paper_text="exact δ at Lemma 4's ε ≤ (m/n)δ",
        domain=ClaimDomain(
            (
                Param(
                    "m",
                    2,
                    100_000,
                    scale="int",
                    stated="any m ≥ 1 sampled records",
                    closed_by="2 to 10⁵",
                ),
                Param("n_over_m", 1.0, 1000.0, stated="n ≥ m records", closed_by="n/m ≤ 1,000"),
                _eps_param("eps"),
                _delta_param("delta"),
            ),
            stated="Lemma 4: any (ε, δ)-DP mechanism on m records and any n ≥ m (Preliminaries)",
        ),
        note="one data set per instance (the others' bits all equal): evidence, not a proof; "
        "replacement neighbours; searched: margin 1 − exact δ/((m/n)δ) on the shuffle of m binary "
        "reports",
    ),
    "flame-cor3": Claim(
        r"at fixed β and per-dimension budget, the $\varepsilon_c$ of eqs. (5)–(6) composed by "
        r"Theorem 4 scales as eq. (7) in $n_p$ and d",
        "FLAME, Corollary 3, eq. (7)",
        "numerical",
        Compare(
            "<=",
            0.1,
            what="largest fitted exponent minus eq. (7)'s, over $n_p$ and d (an O(): falling faster "
            "in $n_p$ or growing slower in d is allowed)",
        ),
        paper=0.0,
        domain=ClaimDomain(
            (
                _eps_param("eps_lk", r"$\varepsilon_l/(\beta d)$ > 0"),
                THEOREMS_BETA,
                _delta_param("delta_c"),
            ),
            stated=r"Corollary 3: a rate in $n_p$ and d for any $\varepsilon_l$, β and $\delta_c$ "
            "(Privacy Analysis of SS-Double)",
        ),
        note=r"eq. (7) is an upper-bound rate (O), so the formula meets it when it falls at least as "
        r"fast in $n_p$ and grows at most as fast in d; the value judged is the larger excess of a "
        r"fitted exponent over eq. (7)'s; a statement about the formula only — Theorem 4 itself fails "
        r"(flame-thm4); not searched: a rate over grids of $n_p$ and d",
    ),
    "flame-fig3-proven-simple-larger": Claim(
        "recomputed with certified accounting under the experiments' settings, SS-Simple's proven "
        "amplification ratio ε_l/ε_c is the larger one (this book, Figure 3's section)",
        "this book's recomputation of FLAME Figure 3",
        "under-specified",
        Readings(
            Holds(
                "the ratios compared are proven for the protocol read so, and SS-Simple's is the "
                "larger at every budget computed"
            ),
            what="reading of the shuffler",
        ),
        paper_text="a proven ratio for each protocol, SS-Simple's the larger",
        note="the printed lower bounds are certified (gspa.studies.flame.linkage: one pair of data "
        "sets, the view reduced to a threshold count of messages; re-verified in 50-digit arithmetic "
        "at the first failing budget); the separate-shuffle ratios are certified by exact composition "
        "(gspa.studies.flame.analysis.fig3_exact)",
    ),
}


# -- the blanket and Corollary 1 (chapter flame/blanket) -------------------------------------------

BLANKET_EPS_L = Param(
    "eps_l",
    1e-3,
    20.0,
    stated=r"$\varepsilon_l$ > 0: Algorithm 1 and Lemma 1 take any local budget",
    closed_by=r"[10⁻³, 20]: below, the blanket is nearly everything; above, $e^{\varepsilon_l}$ "
    "overflows the forms that matter",
)
BLANKET_B = Param(
    "b",
    2,
    200,
    scale="int",
    stated="b ≥ 2 integer (Algorithm 1's domain [b])",
    closed_by="up to 200 symbols, beyond any b a referee would choose for [0, 1]",
)
BLANKET_USERS = Param(
    "n",
    2,
    1_000_000,
    scale="int",
    stated="n ≥ 2 users (Lemma 1: any n under its condition)",
    closed_by="up to 10⁶ users per round",
)
BLANKET_DELTA = Param(
    "delta",
    1e-12,
    1e-2,
    stated="δ ∈ (0, 1)",
    closed_by="[10⁻¹², 10⁻²], the δ a referee would accept",
)
#: Lemma 1's domain with b = 2 only: the certified pair takes seconds to minutes for b > 2
BLANKET_LEMMA1_REGION = ClaimDomain(
    (BLANKET_EPS_L, BLANKET_USERS, BLANKET_DELTA, Param("b", 2, 2, scale="int")),
    stated="b = 2 only: the certified pair takes seconds to minutes for b > 2",
)
#: Corollary 1's domain where its condition holds at the tail's first n
BLANKET_COR1_REGION = ClaimDomain(
    (
        Param("eps_l", 1e-3, 4.0, stated="ε_l ≤ 4", closed_by="the condition holds at n = 10⁶"),
        BLANKET_DELTA,
    ),
    stated="ε_l ≤ 4 (the condition must hold at the tail's first n)",
)

BLANKET = {
    "flame-alg1-ldp": Claim(
        r"$R_{\gamma,b}$ with $\gamma = b/(e^{\varepsilon_l} + b - 1)$ satisfies $\varepsilon_l$-LDP "
        "(the γ of Lemma 1, used for Algorithm 1)",
        "Preliminaries, Algorithm 1 and Lemma 1",
        "misprint",
        Readings(
            Holds(
                "the exact LDP level of the randomizer's rows is at most ε_l, for every b on the grid"
            ),
            what="reading of Algorithm 1's domains",
        ),
        domain=ClaimDomain(
            (BLANKET_EPS_L, BLANKET_B),
            stated=r"Algorithm 1 with γ of Lemma 1, for any $\varepsilon_l$ > 0 and b ≥ 2 "
            "(Preliminaries)",
        ),
        note=r"searched: the header reading (the one that holds on the grid), margin "
        r"($\varepsilon_l$ − exact LDP level)/$\varepsilon_l$",
    ),
    "flame-eq1-unbiased": Claim(
        "eq. (1) de-biases the sum of the shuffled reports",
        "Preliminaries, eq. (1)",
        "misprint",
        Readings(
            Compare("<=", 1e-9, what="exact |E[z] − Σx| in standard deviations of z"),
            what="reading of Algorithm 1's domains",
        ),
        domain=ClaimDomain(
            (
                BLANKET_EPS_L,
                Param("b", 1, 200, scale="int", stated="b ≥ 1", closed_by="up to 200"),
                BLANKET_USERS,
                Param(
                    "x",
                    0.0,
                    1.0,
                    scale="linear",
                    stated=r"every $x_i$ ∈ [0, 1]",
                    closed_by=r"all users at one value x: each user's bias is affine in $x_i$, so "
                    "the extremes of [0, 1] give the largest |bias|",
                ),
            ),
            stated=r"eq. (1): the estimate of Σx for any inputs in [0, 1], any n, b and "
            r"$\varepsilon_l$ (Preliminaries)",
        ),
        note="searched: the BBGN19 reading (the one that holds on the grid), margin 10⁻⁹ − |bias| in "
        "standard deviations",
    ),
    "flame-numerical-tighter": Claim(
        "a tighter bound (a greater amplification) can be accessed with numerical evaluations",
        "Preliminaries, after Corollary 1",
        "numerical",
        Readings(
            Compare(
                "<=",
                1.0,
                what="largest ratio BBGN19's Bennett ε / Lemma 1's ε where Lemma 1's condition holds",
            ),
            what="version of the Bennett bound",
        ),
        domain=ClaimDomain(
            (BLANKET_EPS_L, BLANKET_USERS, BLANKET_DELTA),
            stated=r"Lemma 1 and BBGN19's numerical bound, any $\varepsilon_l$, n, δ (Preliminaries); "
            "b = 2",
        ),
        note="searched for b = 2 (the closed form's b enters both alike), margin 1 − Bennett/Lemma 1 "
        "for the worse of the two versions, where Lemma 1's condition holds (1 elsewhere)",
    ),
    "flame-lemma1": Claim(
        r"Lemma 1: $S \circ R^n$ is $(\varepsilon_c, \delta_c)$-DP with $\varepsilon_c = "
        r"\sqrt{14\log(2/\delta_c)(e^{\varepsilon_l} + b - 1)/(n - 1)}$ under its condition",
        "Preliminaries, Lemma 1",
        "numerical",
        Readings(
            Compare(
                ">=", 1.0, what="smallest ratio Lemma 1 / certified ε where the condition holds"
            ),
            what="reading of Algorithm 1's domains",
        ),
        domain=ClaimDomain(
            (BLANKET_EPS_L, BLANKET_USERS, BLANKET_DELTA, BLANKET_B),
            stated=r"Lemma 1: for any $\varepsilon_l$, b, n, $\delta_c$ satisfying its condition "
            "(Preliminaries)",
        ),
        note="searched: the header reading (b-ary randomized response), margin Lemma 1/certified − 1 "
        "where the condition holds (1 elsewhere)",
    ),
    "flame-bennett-valid": Claim(
        "the amplified ε of FLAME's experiments comes from BBGN19's numerical (Bennett) bound, an upper "
        "bound on the shuffled protocol's ε",
        "Evaluations, Privacy Amplification; FLAME's code flearn/counter/amplification_bounds.py "
        "(BennettExact)",
        "numerical",
        Compare(
            ">=",
            1.0,
            what="smallest ratio Bennett ε (FLAME's code) / certified lower bound on the real "
            "protocol's ε (b = 2)",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    1e-2,
                    10.0,
                    stated=r"$\varepsilon_l$ > 0 (the bound is offered for any budget)",
                    closed_by="[0.01, 10]",
                ),
                Param("n", 10, 1_000_000, scale="int", stated="n users", closed_by="10 to 10⁶"),
                BLANKET_DELTA,
            ),
            stated="BBGN19's numerical bound as FLAME's code computes it, offered as the protocol's ε "
            "for any budget, n and δ (Evaluations); b = 2, where a certified lower bound exists",
        ),
        note="cause: FLAME's code copies BBGN19's code from before its authors' fix "
        "(BorjaBalle/amplification-by-shuffling, commit 7994ad3, 2020-07-06, 'Fixed typo in Bennett "
        "bounds'); the corrected formula is above the lower bound at every grid point",
    ),
    "flame-cor1": Claim(
        r"Corollary 1: $\varepsilon_c = O\bigl((1 \wedge \varepsilon_l)\, e^{\varepsilon_l} "
        r"\sqrt{\log(1/\delta_c)/n}\bigr)$ for $\varepsilon_l \le \log(n/\log(1/\delta_c))/2$",
        "Preliminaries, Corollary 1",
        "numerical",
        Compare(
            "<=",
            0.1,
            what="largest log-log slope in n of certified ε / Corollary 1's rate over the last "
            "decade (an O() in n: the ratio must not grow)",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "eps_l",
                    1e-3,
                    20.0,
                    stated=r"any fixed $\varepsilon_l$ > 0 (the condition then holds for every "
                    "large n)",
                    closed_by="[10⁻³, 20]",
                ),
                BLANKET_DELTA,
            ),
            stated=r"Corollary 1: $\varepsilon_c$ = O(rate) as n → ∞ for $\varepsilon_l \le "
            r"\log(n/\log(1/\delta_c))/2$, any $\delta_c$ (Preliminaries); b = 2",
        ),
        note="an O() fixes no constant, so what is judged is that the ratio stays bounded as n grows "
        "(its slope over the last decade of n, tolerance stated before the run), not its size; "
        "searched: margin tolerance − slope; checked along n up to the largest n of the sweep, not "
        "proved",
    ),
    "flame-laplace-gamma": Claim(
        r"for a Laplace randomizer on [0, 1], $\gamma = e^{-\varepsilon_l/2}$",
        "Preliminaries, The Shuffle Model",
        "numerical",
        Compare(
            "<=",
            1e-6,
            what=r"largest relative gap between the integrated blanket mass and $e^{-\varepsilon_l/2}$",
        ),
        domain=ClaimDomain(
            (Param("eps_l", 1e-3, 50.0, stated=r"$\varepsilon_l$ > 0", closed_by="[10⁻³, 50]"),),
            stated=r"the Laplace randomizer on [0, 1], any $\varepsilon_l$ (Preliminaries, The "
            "Shuffle Model)",
        ),
    ),
}


# -- the protocols' accounting (chapter flame/accounting) ------------------------------------------


AT_PAPER = (
    "the paper's settings (d = 7,850, n = 1,000, δ_c = 5·10⁻⁶; the rest from the authors' code)"
)
EVALUATIONS = "FLAME, Evaluations, 'Comparison of Our Protocols'"
BENNETT_NOTE = (
    "arithmetic reproduced; that it is a valid bound is not established: its per-dimension ε is "
    "FLAME's copy of the Bennett bound, which falls below the certified lower bound on the real "
    "protocol's ε (flame-bennett-valid); "
)
#: β = k/d, the sampling rate of SS-Double (and of Algorithm 4's reported indexes)
BETA_PARAM = Param(
    "beta", 1e-3, 1.0, stated="β = k/d ∈ (0, 1]", closed_by="β ≥ 10⁻³ (l runs up to ⌈1/β⌉)"
)
#: a user's replacement changes which k of d dimensions it reports: the printed SS-Double and SS-Topk
REPAIR_POINT = ClaimDomain.point(
    "the experiments' settings (n = 1,000, d = 7,850, k = 157, n_p = 333, ε_lk = 0.5, "
    "δ_c = 0.01/n^1.1) with Algorithm 1 at b = 2"
)
REPAIR_RULE = Readings(
    Compare(
        "<=",
        1.0,
        what=r"δ($\varepsilon_c$)/$\delta_c$ (a certified lower bound as printed, the certified "
        "upper bound repaired)",
    ),
    what="reading of the shuffler",
)
REPAIR_NOTE = (
    "the printed reading's value is a certified lower bound on one explicit pair of neighbouring "
    "data sets, re-verified in 50-digit arithmetic by another route (gspa.studies.flame.linkage); "
    "the repaired reading holds by the proof in the text"
)
REPAIR_STATEMENT = (
    r"{} is $(\varepsilon_c, \delta_c)$-DP with $\varepsilon_c$ the exact composition of one "
    r"dimension's shuffle guarantee over {} dimensions, without amplification by subsampling (the "
    "repair the book calls valid by a short proof; footnote 2's reasoning for SS-Topk)"
)
FIG3_RULE = NotCheckable(
    "the figure's n, b, δ, per-dimension budgets and β are stated neither in the paper nor in the "
    "authors' code"
)
FIG3_POINT = ClaimDomain.point("Figure 3 at d = 75,755; its other settings unstated")

#: FLAME's numbers as claims whose ids carry the paper's value (``flame-eps-simple-0.91``: ids the
#: ledger and the errata page already use)
ACCOUNTING_QUOTED = {
    "flame-eps-simple-0.91": Claim(
        r"the arithmetic of SS-Simple's accounting (the per-dimension Bennett ε as FLAME's code "
        r"computes it, then Theorem 1) gives 0.91 for one epoch with $\varepsilon_{ld}$ = 0.01 — "
        "the paper states it as a (0.91, 5·10⁻⁶)-DP guarantee",
        EVALUATIONS,
        "numerical",
        Close(abs_tol=0.005),
        paper=0.91,
        domain=ClaimDomain.point(AT_PAPER),
        # the chapter adds what BBGN19's corrected Bennett term gives
        note=BENNETT_NOTE,
    ),
    "flame-eps-double-0.24": Claim(
        r"the arithmetic of SS-Double's and SS-Topk's accounting (Bennett ε as FLAME's code "
        r"computes it, Theorems 3 and 4) gives 0.24 for one epoch with $\varepsilon_{lk}$ = 0.5 — "
        "the paper states it as a (0.24, 5·10⁻⁶)-DP guarantee",
        EVALUATIONS,
        "numerical",
        Close(abs_tol=0.005),
        paper=0.24,
        domain=ClaimDomain.point(AT_PAPER),
        note="arithmetic reproduced; the formula is not a valid bound: Theorem 4 is false "
        "(flame-thm4), its per-dimension ε is FLAME's copy of the Bennett bound "
        "(flame-bennett-valid), and for SS-Topk neither subsampling (flame-topk-double) nor the "
        "overflow (flame-topk-overflow) is accounted for",
    ),
    "flame-eps-nosub-20.53": Claim(
        "the arithmetic of SS-Topk's accounting counting only the amplification by shuffling "
        "(Bennett ε as FLAME's code computes it, composed over 2k dimensions) gives 20.53 — the "
        "paper states it as a (20.53, 5·10⁻⁶)-DP guarantee",
        "FLAME, Evaluations, 'Comparison with DP/LDP-FL', footnote 2",
        "numerical",
        Close(abs_tol=0.01),
        paper=20.53,
        domain=ClaimDomain.point(AT_PAPER),
        note="arithmetic reproduced; the formula is not a valid bound: its per-dimension ε is "
        "FLAME's copy of the Bennett bound (flame-bennett-valid), and an overflowing dimension's "
        "abort is not accounted for (flame-topk-overflow); the composition over 2k dimensions has "
        "a proof for separate per-dimension shuffles only, not for the printed protocol, which "
        "sends each user's values as one message (flame-topk-repair)",
    ),
    "flame-eps-beta-2.348": Claim(
        "with β = 1/10, (2.348, 5·10⁻⁶)-DP per epoch",
        "FLAME, Evaluations, 'Comparison under Variant Parameters'",
        "under-specified",
        Readings(Close(abs_tol=0.01), what="reading of which budget β = 1/10 keeps"),
        paper=2.348,
        domain=ClaimDomain.point(AT_PAPER + ", β = 1/10"),
        note="arithmetic of the same formulas; not a valid bound either way (flame-thm4, "
        "flame-bennett-valid)",
    ),
    "flame-nu-3.125": Claim(
        "with Theorem 5 and n/n_p = 3, the maximum index privacy is ν = 3.125 with l = 16",
        EVALUATIONS,
        "numerical",
        Close(abs_tol=1e-9),
        paper=3.125,
        domain=ClaimDomain.point("Theorem 5 at n/n_p = 3, β = 1/50 (Evaluations)"),
    ),
}

ACCOUNTING = {
    "flame-thm4": Claim(
        r"SS-Double satisfies $(\varepsilon_c, \delta_c)$-DP with $\varepsilon_{cd}$ of Theorem 3 "
        r"composed over 2βd dimensions, $\delta_c$ = $\delta_{cd}$(2βd + 1)",
        "FLAME, Theorems 3 and 4",
        "false-statement",
        Compare(
            "<=", 1.0, what=r"largest true $\delta(\varepsilon_c)/\delta_c$ over the instances"
        ),
        paper=1.0,
        paper_text=r"true δ ≤ $\delta_c$",
        domain=ClaimDomain(
            (
                Param(
                    "d",
                    2,
                    200,
                    scale="int",
                    stated="any d with β = k/d (here k = 1, β = 1/d)",
                    closed_by="d ≤ 200, β ≥ 0.005",
                ),
                Param(
                    "n_p",
                    2,
                    2000,
                    scale="int",
                    stated=r"any padded size $n_p$",
                    closed_by=r"$n_p$ ≤ 2,000",
                ),
                Param(
                    "eps_lk",
                    0.01,
                    10.0,
                    stated=r"any $\varepsilon_{lk}$ > 0",
                    closed_by="[0.01, 10]",
                ),
                Param(
                    "delta_c", 1e-10, 0.1, stated=r"$\delta_c$ ∈ (0, 1)", closed_by="[10⁻¹⁰, 0.1]"
                ),
            ),
            stated=r"Theorems 3–4: SS-Double is $(\varepsilon_c, \delta_c)$-DP for any "
            r"$\varepsilon_{lk}$, β, $n_p$ and $\delta_c$ (Privacy Analysis of SS-Double)",
        ),
        note=r"the sampled dimensions without subsampling (valid by a proof for separate "
        r"per-dimension shuffles; with k = 1 the printed protocol is one) hold on every instance; "
        r"composing the subsampled $\varepsilon_{cd}$ over all d dimensions (no proof) also holds on "
        r"every instance here. Checked by a second reader with independent code. Searched: the "
        r"k = 1 instance, margin 1 − true $\delta(\varepsilon_c)/\delta_c$; the worst point "
        r"re-verified in 50-digit arithmetic.",
    ),
    "flame-topk-double": Claim(
        r"Given $n_p$, SS-Topk shares the same double amplification effect of SS-Double",
        "FLAME, 'SS-Topk', Privacy Analysis",
        "false-statement",
        Holds(
            "Algorithm 4's choice of the user's real indexes has the same law under neighbouring "
            "data sets (what Lemma 4's subsampling needs)"
        ),
        domain=ClaimDomain(
            (
                Param(
                    "d",
                    2,
                    100_000,
                    scale="int",
                    stated="any model dimension d",
                    closed_by="up to 10⁵",
                ),
                Param(
                    "beta",
                    1e-4,
                    1.0,
                    stated="β = k/d ∈ (0, 1]",
                    closed_by="β ≥ 10⁻⁴ (k ≥ 1 is required; points with k = 0 are lifted to k = 1)",
                ),
            ),
            stated=r"'Given $n_p$, SS-Topk shares the same double amplification effect of "
            r"SS-Double', for any d and β (Privacy Analysis of SS-Topk)",
        ),
        note="searched: margin |Top-k(x) ∩ Top-k(x')|/k − 1 for x = (d, …, 1) and its reverse; the "
        "worst point re-verified with the protocol's own selection (torch top-k)",
    ),
    "flame-topk-overflow": Claim(
        r"SS-Topk (Algorithm 4, padded by Algorithm 3) is $(\varepsilon_c, \delta_c)$-DP against "
        r"the analyzer, with $\delta_c$ = 5·10⁻⁶, although Algorithm 3 cannot pad a dimension that "
        r"more than $n_p$ users rank in their Top-k (line 3 then gives $n_{n,j}$ < 0)",
        "FLAME, Algorithm 3 and Privacy Analysis of SS-Topk (the overflow is not discussed)",
        "under-specified",
        Compare("<=", 5e-6, what="δ of the abort event between two neighbouring data sets (k = 1)"),
        paper=5e-6,
        paper_text="δ ≤ 5·10⁻⁶",
        domain=ClaimDomain(
            (
                Param(
                    "n", 4, 5000, scale="int", stated="n users per round", closed_by="4 to 5,000"
                ),
                Param(
                    "n_over_np",
                    1.0,
                    10.0,
                    scale="linear",
                    stated="n/n_p ≥ 1 (the paper's 'ratio of n/n_p'; 3 in the experiments)",
                    closed_by="[1, 10], Figure 7's range and beyond",
                ),
            ),
            stated=r"SS-Topk with Algorithm 3's padding is $(\varepsilon_c, \delta_c)$-DP against "
            r"the analyzer for any n and $n_p$ (Privacy Analysis of SS-Topk; $\delta_c$ = 5·10⁻⁶)",
        ),
        note="the verdict is for the algorithm as printed; every reading that keeps all real values "
        "leaks the overflow through the sizes the analyzer sees (a second reader's: run literally, "
        "line 7 keeps a dimension with a negative count among those to pad, so the v dummies fall "
        "short and some dimension shows fewer than n_p values; clamped at 0, the overflowing "
        "dimension shows n_p + 1): δ = 1 again. Only dropping the excess, which the paper does not "
        "state, hides the sizes for k = 1, and then a dimension's share of real values depends on "
        "the data, so that reading's privacy is not established either. SS-Double's overflow does "
        "not depend on the data (same probability under both data sets); the violation is "
        "re-verified by counting each dimension's Top-1 users (bincount), independent of the "
        "shuffler's code",
    ),
    "flame-double-repair": Claim(
        REPAIR_STATEMENT.format("SS-Double", "its k sampled"),
        "this book's repair of FLAME Theorem 4; FLAME Algorithms 2–4",
        "under-specified",
        REPAIR_RULE,
        paper=1.0,
        paper_text=r"δ($\varepsilon_c$) ≤ $\delta_c$",
        domain=REPAIR_POINT,
        # the chapter adds the bounds with the experiments' Laplace randomizer
        note=REPAIR_NOTE,
    ),
    "flame-topk-repair": Claim(
        REPAIR_STATEMENT.format("SS-Topk", "the 2k Top-k"),
        "this book's repair of FLAME Theorem 4; FLAME Algorithms 2–4 and footnote 2",
        "under-specified",
        REPAIR_RULE,
        paper=1.0,
        paper_text=r"δ($\varepsilon_c$) ≤ $\delta_c$",
        domain=REPAIR_POINT,
        note=REPAIR_NOTE + " on data sets where no dimension overflows (flame-topk-overflow)",
    ),
    "flame-def3-posterior": Claim(
        r"if each user reports lk indexes of which k are Top-k, Pr[$I_j$ = 1 | K(j)] = 1/l",
        "FLAME, before Algorithm 4",
        "numerical",
        Compare(
            "<=",
            4.0,
            what="largest |simulated posterior − 1/l| in standard errors of the simulation",
        ),
        domain=ClaimDomain(
            (
                Param(
                    "l",
                    1,
                    1000,
                    scale="int",
                    stated="l ≥ 1 reports per Top-k index, lk ≤ d",
                    closed_by="l ≤ 1,000, cut to ⌊d/k⌋",
                ),
                BETA_PARAM,
            ),
            stated="Definition 3 / Algorithm 4: for any l and β (before Algorithm 4)",
        ),
        note="a simulation of one fixed index over independent users (the fraction of Top-k among "
        "all reported indexes is k/(lk) = 1/l for every draw, a count rather than a simulation); "
        "margin 4 − |z| over the search, no refinement (the margin is noisy)",
    ),
    "flame-prop2": Claim(
        "1 ≤ ν ≤ 1/β; ν = 1 at l = ⌈1/β⌉; no index privacy at l = 1",
        "FLAME, Proposition 2",
        "numerical",
        Holds(
            "ν(l) from Definition 3 is 1 at l = ⌈1/β⌉, at most 1/β for l ≥ 2, and unbounded at "
            "l = 1"
        ),
        domain=ClaimDomain((BETA_PARAM,), stated="Proposition 2: for any β ∈ (0, 1] and l ≥ 1"),
        note="searched: every l in [2, ⌈1/β⌉] at each β, margin the smallest of ν − 1, "
        "β(1/β − ν) and −|ν(⌈1/β⌉) − 1| (l = 1 at the chapter's β)",
    ),
    "flame-nu-def3": Claim(
        "the maximum index privacy ν = 3.125 of Theorem 5 (n/n_p = 3, l = 16) is the ν of "
        "Definition 3 for Algorithm 4",
        "FLAME, Definition 3, Theorem 5 and Evaluations (Comparison of Our Protocols)",
        "numerical",
        Close(rel_tol=1e-12),
        # paper: Theorem 5's ν at the experiments' n/n_p and β, computed by the chapter
        domain=ClaimDomain(
            (
                Param("n_over_np", 1.0, 100.0, stated="n/n_p ≥ 1", closed_by="[1, 100]"),
                BETA_PARAM,
            ),
            stated="Theorem 5 and Definition 3: any n, n_p and β (Privacy Analysis of SS-Topk)",
        ),
        note="searched: margin −|ν(Theorem 5) − ν(Definition 3 at l = ⌊n_p/(nβ)⌋)|/ν(Definition "
        "3), n = 1,000; vacuous where that l is below 2",
    ),
    "flame-fig9-10": Claim(
        "Figures 9 and 10: the overall amplification under various $\\varepsilon_l$ and d (Bennett "
        "bound, Laplace mechanism)",
        "FLAME, Evaluations, Privacy Amplification, Figures 9–10",
        "under-specified",
        NotCheckable(
            "the figures are images whose values are not in the text, and the authors' code has "
            "no script that draws them"
        ),
        domain=ClaimDomain.point("Figures 9 and 10"),
    ),
    "flame-generic-randomizer": Claim(
        "Theorems 1 and 4 (and Corollaries 2, 3) are generic for any local randomizer whose "
        "per-dimension amplification bound is derived in closed form or numerically",
        "FLAME, Evaluations, Privacy Amplification (after Figures 9–10)",
        "false-statement",
        Compare(
            "<=",
            1.0,
            what=r"largest true $\delta(\varepsilon_c)/\delta_c$ of Theorem 4 with a valid (exact) "
            "per-dimension bound",
        ),
        paper=1.0,
        paper_text=r"true δ ≤ $\delta_c$ for any randomizer given a valid per-dimension bound",
        note="Theorem 1's composition of d separate shuffles is generic (advanced composition; "
        "claim flame-thm1); Theorem 4 is not: the same instances as flame-thm4, with the exact "
        "per-dimension guarantee only (the best valid one)",
    ),
    "flame-fig3-ratio-simple": Claim(
        r"at d = 75,755 the amplification ratio $\varepsilon_l/\varepsilon_c$ is ×2.55 (SS-Simple)",
        "FLAME, Figure 3 and the text after it",
        "under-specified",
        FIG3_RULE,
        paper=2.55,
        domain=FIG3_POINT,
    ),
    "flame-fig3-ratio-double": Claim(
        r"at d = 75,755 the amplification ratio $\varepsilon_l/\varepsilon_c$ is ×137.36 "
        "(SS-Double)",
        "FLAME, Figure 3 and the text after it",
        "under-specified",
        FIG3_RULE,
        paper=137.36,
        domain=FIG3_POINT,
    ),
}


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
        Holds("SS-Simple's final accuracy exceeds LDP-FL's (Gaussian) for every seed"),
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


# -- the study's table ------------------------------------------------------------------------------

CLAIMS = table(THEOREMS, BLANKET, ACCOUNTING, ACCOUNTING_QUOTED, FL_PARAMETERS, FL_UTILITY)
