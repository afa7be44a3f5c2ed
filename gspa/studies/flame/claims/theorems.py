"""The claims of chapter flame/theorems (the theorems, Proposition 1 and Lemmas 2–4) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Readings
from gspa.claims.table import Claim, table
from gspa.studies.flame.domains import THM2_DATA, THM3_DATA


# -- the theorems (chapter flame/theorems) -------------------------------------------------------


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
        follows_from="flame.flame-thm1-one-permutation",
        because="d separate shuffles are a post-processing of one shuffle of whole messages: permute "
        "each dimension's column afresh",
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
}


CLAIMS = table(THEOREMS)
