"""The GSPA paper's claims as data: for each claim its statement, place in the paper, kind, rule, paper
value and stated domain, one section per chapter; the chapters record them by id with the values they
compute (:meth:`gspa.book.results.Chapter.claim`), and the margins that search their domains are in `margins`
and `domain_search`."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Close, Compare, Readings
from gspa.claims.table import Claim, table

# -- common parameters of the stated domains -------------------------------------------------------------

EPS0 = Param(
    "eps0",
    1e-2,
    10.0,
    stated="any common budget ε₀ ('without loss of generality', text after Lemma 2)",
    closed_by="ε₀ ∈ [0.01, 10]",
)
DELTA0 = Param(
    "delta0",
    0.0,
    0.5,
    "linear",
    stated="δ₀ = O(1/n) (text after Lemma 2), δᵢ ∈ [0, 1)",
    closed_by="δ₀ ∈ [0, 0.5]",
)

# -- Lemma 2 (chapter gspa/lemma2) ------------------------------------------------------------------------

LEMMA2_DOMAIN = ClaimDomain(
    (
        EPS0,
        DELTA0,
        Param(
            "m",
            1,
            10**5,
            "int",
            stated="any number of users m ≥ 1 (Lemma 2)",
            closed_by="m ≤ 100,000",
        ),
    ),
    "Lemma 2: MultiBern(pᵢ/2, pᵢ/2, 1 − pᵢ) summed over any m users; eq. (14) and the text after it for the "
    "common budget (both copies)",
)
#: the part of Lemma 2's domain where eq. (14)'s exact lattice law costs at most seconds
LEMMA2_EQ14_REGION = ClaimDomain(
    (EPS0, DELTA0, Param("m", 10, 1000, "int")),
    "m ≤ 1000: the exact lattice law costs seconds beyond",
)

LEMMA2 = {
    "lemma2-rate": Claim(
        "‖P̃ − Q̃‖_TV ≤ C/√m, Q̃ the corresponding normal distribution",
        "Lemma 2",
        "under-specified",
        Readings(Close(abs_tol=0.05, loose_abs=0.15), what="reading of Q̃ and C"),
        paper=-0.5,
        paper_text="−1/2 (O(1/√m))",
        domain=LEMMA2_DOMAIN,
        note="false as stated (mutually singular laws), and false for any C independent of the pᵢ (few "
        "clones); true for the normal rounded to unit cells with C depending on the budget, which repairs "
        "the proof of Theorem 2",
    ),
    "lemma2-nearly-1-over-n": Claim(
        "the convergence rate in Lemma 2 is nearly O(1/n) and can be negligible in numerical analysis",
        "Comparison with Existing Results (text before Table 2)",
        "under-specified",
        Readings(Close(abs_tol=0.1, loose_abs=0.25), what="reading of the distance"),
        paper=-1.0,
        paper_text="−1 (O(1/n))",
        domain=LEMMA2_DOMAIN,
    ),
    "lemma2-eq14-is-tv": Claim(
        "‖P̃ − Q̃‖_TV = sup over (k₀, k₁) of |P(ξ₀ = k₀, ξ₁ = k₁) − h(k₀, k₁)|",
        "Lemma 2, eq. (14)",
        "false-statement",
        Compare(
            "<=",
            1.5,
            what="max over m of TV / eq. (14) as printed (equal quantities would give 1)",
            loose=3.0,
        ),
        domain=LEMMA2_DOMAIN,
    ),
    "lemma2-p0-definition": Claim(
        r"with εᵢ = ε₀, δᵢ = δ₀: $p_0 = (1-\delta_0)/(1+e^{\epsilon_0})$ is Lemma 2's pᵢ (the clone probability "
        r"of MultiBern(pᵢ/2, pᵢ/2, 1−pᵢ), Lemma 3's $p_i = 2(1-\delta_i)/(1+e^{\epsilon_i})$)",
        "text after Lemma 2 (before eq. (14)); Lemma 3; proof of Theorem 2",
        "misprint",
        Compare("<=", 1e-12, what="|p₀ / pᵢ(Lemma 3) − 1|"),
        domain=ClaimDomain(
            (EPS0, DELTA0),
            "'assume εᵢ = ε₀, δᵢ = δ₀ = O(1/n), then p₀ = (1−δ₀)/(1+e^ε₀)' (text "
            "after Lemma 2, both copies)",
        ),
        note="a third definition of p: equals the proof of Theorem 2's pᵢ and half of Lemma 3's; consistent "
        "only if read as the per-side probability pᵢ/2",
    ),
}

# -- f-DP (chapter gspa/fdp) -----------------------------------------------------------------------

FDP: dict = {}  # filled when the chapter moves its claims here


# -- Lemma 1 (chapter gspa/lemma1) -----------------------------------------------------------------

LEMMA1: dict = {}  # filled when the chapter moves its claims here


# -- Lemma 3 (chapter gspa/lemma3) -----------------------------------------------------------------

LEMMA3: dict = {}  # filled when the chapter moves its claims here


# -- the mechanisms (chapter gspa/mechanisms) ------------------------------------------------------

MECHANISMS: dict = {}  # filled when the chapter moves its claims here


# -- Theorem 1 (chapter gspa/theorem1) -------------------------------------------------------------

#: the exhaustively enumerated protocols' users, and the personalized budgets searched there
THM1_SMALL_N = Param(
    "n", 2, 4, "int", stated="any n", closed_by="n ≤ 4 users: exhaustive enumeration"
)
THM1_EPS_MAX = Param(
    "eps_max",
    1e-2,
    10.0,
    stated="any personalized budgets εᵢ",
    closed_by=r"user 0 at $\epsilon_{\max}$ ≤ 10",
)
THM1_SPREAD = Param(
    "spread",
    1.0,
    1000.0,
    stated="any personalized budgets εᵢ",
    closed_by=r"the others log-uniform in [$\epsilon_{\max}$/spread, $\epsilon_{\max}$], "
    "spread ≤ 1000",
)
THM1_SEED = Param(
    "seed", 0, 10**6, "linear", stated="any budgets", closed_by="seed of the others' budgets"
)

THEOREM1 = {
    "thm1-dominance": Claim(
        "the shuffled PLDP process is a post-processing of the reduced pair (ρ₀, ρ₁): "
        "T(A(D₀), A(D₁)) ≥ T(ρ₀, ρ₁) — checked for binary randomized response with personalized "
        "budgets and δᵢ = 0 (Algorithm 2)",
        "Theorem 1",
        "numerical",
        Compare(">=", -1e-9, what="min_α (T_protocol − T_reduced)"),
        domain=ClaimDomain(
            (
                Param(
                    "n",
                    2,
                    2000,
                    "int",
                    stated="any n (Theorem 1: D₀, D₁ ∈ Dⁿ)",
                    closed_by="n ≤ 2000",
                ),
                Param(
                    "eps_max",
                    1e-2,
                    10.0,
                    stated="any personalized budgets εᵢ",
                    closed_by=r"εᵢ uniform in [$\epsilon_{\max}/100$, $\epsilon_{\max}$], "
                    r"$\epsilon_{\max}$ ≤ 10",
                ),
                Param(
                    "seed",
                    0,
                    10**6,
                    "linear",
                    stated="any budgets, differing user and inputs",
                    closed_by="seed of the budgets, the differing user and the others' bits",
                ),
            ),
            "'for arbitrary two neighboring datasets D₀, D₁ ∈ Dⁿ' of a shuffled PLDP process "
            "(Theorem 1, both copies); here binary randomized response, δᵢ = 0",
        ),
    ),
    "thm1-dominance-krr": Claim(
        r"the shuffled PLDP process is a post-processing of (ρ₀, ρ₁), whose V has clone "
        r"probabilities $(1-\delta_i)/(1+e^{\epsilon_i})$ whatever the randomizer — checked for 4-ary "
        r"randomized response with personalized budgets, δᵢ = 0",
        "Theorem 1, eqs. (12)–(13)",
        "false-statement",
        Compare(
            "<=",
            0.0,
            what=r"max over ε of $\delta_{\mathrm{protocol}} - \delta_{\mathrm{pair}}$ "
            "(round-off subtracted)",
        ),
        domain=ClaimDomain(
            (
                THM1_SMALL_N,
                Param(
                    "k",
                    3,
                    4,
                    "int",
                    stated="any randomizer; here k-ary randomized response",
                    closed_by="k ∈ {3, 4}",
                ),
                THM1_EPS_MAX,
                THM1_SPREAD,
                THM1_SEED,
            ),
            "Theorem 1 for any shuffled PLDP process, with eq. (11)'s binary clone probabilities "
            "(both copies)",
        ),
        note="Lemma 1's eq. (11) fails across budgets for k ≥ 3; the accountant's k-rr pair holds",
    ),
    "thm1-dominance-delta": Claim(
        "for (εᵢ, δᵢ)-PLDP randomizers the shuffled process is a post-processing of (ρ₀, ρ₁) with "
        "Δ₂ ~ Bern(δₙ) in the shared third coordinate",
        "Theorem 1, eqs. (12)–(13); proof of Theorem 1",
        "false-statement",
        Compare(
            "<=",
            0.0,
            what=r"max over ε of $\delta_{\mathrm{protocol}} - \delta_{\mathrm{pair}}$ "
            "(round-off of both subtracted)",
        ),
        domain=ClaimDomain(
            (
                THM1_SMALL_N,
                THM1_EPS_MAX,
                THM1_SPREAD,
                Param(
                    "delta",
                    1e-8,
                    0.5,
                    stated="δᵢ ∈ (0, 1)",
                    closed_by="δᵢ ∈ [1e-8, 0.5] (log scale), all equal",
                ),
                THM1_SEED,
            ),
            "Theorem 1 with δᵢ > 0 and Δ₂ ~ Bern(δₙ) in the shared slot (both copies)",
        ),
        note="the δₙ event is distinguishing (Lemma 4's A/B); it must count fully into δ, so "
        "δ(ε) ≥ max δᵢ",
    ),
    "thm1-multibern": Claim(
        r"V = Σ MultiBern($(1-\delta_i)/(1+e^{\epsilon_i})$, $(1-\delta_i)/(1+e^{\epsilon_i})$, ·), "
        "a d-dimensional Bernoulli with parameters summing to 1",
        "Theorem 1",
        "version-discrepancy",
        Readings(Compare("<=", 1e-12, what="max |Σ parameters − 1|"), what="copy of the paper"),
        domain=ClaimDomain(
            (
                Param("eps", 1e-3, 20.0, stated="any εᵢ", closed_by="εᵢ ∈ [0.001, 20]"),
                Param(
                    "delta",
                    0.0,
                    0.9,
                    "linear",
                    stated="any δᵢ ∈ [0, 1)",
                    closed_by="δᵢ ∈ [0, 0.9]",
                ),
            ),
            "V = Σ MultiBern(·) for any budgets (Theorem 1; copy 000's reading searched)",
        ),
        note=r"copy 003 prints δᵢ as the third parameter; copy 000 prints "
        r"$1 - 2(1-\delta_i)/(1+e^{\epsilon_i})$",
    ),
}


# -- Theorems 2-5 (chapter gspa/theorem2) ----------------------------------------------------------

THEOREM2: dict = {}  # filled when the chapter moves its claims here


# -- Figure 2 (chapter gspa/figure2) ---------------------------------------------------------------

FIGURE2: dict = {}  # filled when the chapter moves its claims here


# -- Figure 3 and Theorem 3 (chapter gspa/figure3) -------------------------------------------------

FIGURE3: dict = {}  # filled when the chapter moves its claims here


# -- Figure 4 and Algorithm 3 (chapter gspa/figure4) -----------------------------------------------

FIGURE4: dict = {}  # filled when the chapter moves its claims here


# -- the study's table ------------------------------------------------------------------------------------

CLAIMS = table(
    LEMMA2, FDP, LEMMA1, LEMMA3, MECHANISMS, THEOREM1, THEOREM2, FIGURE2, FIGURE3, FIGURE4
)
