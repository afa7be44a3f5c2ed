"""The claims of chapter gspa/theorem1 (Theorem 1) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Readings
from gspa.claims.table import Claim, table


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
        proof="with qᵢ = 1/(1 + e^εᵢ), binary randomized response is Rᵢ(x) = qᵢδ₀ + qᵢδ₁ + (1 − 2qᵢ)δₓ: "
        "each other user reports 0, 1 or its own bit as Mᵢ ~ MultiBern(qᵢ, qᵢ, 1 − 2qᵢ) says, "
        "independently, and the differing user (bit 0 on D₀, 1 on D₁; the other order swaps the "
        "symbols) reports its bit with probability e^εₙ/(1 + e^εₙ), the Δ₀ of eqs. (12)–(13). So "
        "ρᵦ = (u, v, k) counts the 0s and 1s reported by the clones and user n, and the k users who "
        "report their own bit. Given ρᵦ, the set K of those users has the law of {i : Mᵢ = 2} given "
        "|K| = k, whatever b (a clone's report is a fair bit, whoever the clones are), so proc(u, v, k): "
        "draw K so, output the shuffled reports u 0s, v 1s and xᵢ for i ∈ K, has proc(ρᵦ) = A(Dᵦ). "
        "Post-processing cannot lower a trade-off curve: T(A(D₀), A(D₁)) = T(proc(ρ₀), proc(ρ₁)) ≥ "
        "T(ρ₀, ρ₁), for every n, every budgets and every data set",
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
    "thm1-proof-equal-chance": Claim(
        "The probability of being included in K is identical for each i ∈ {2, …, n}, and slightly smaller "
        "for the first user",
        "Proof of Theorem 1 (both copies)",
        "proof-gap",
        Compare(
            "<=", 1e-12, what="largest difference between two other users' chances of landing in K"
        ),
        note="true with one budget (the setting of FMT21, whose proof this sentence follows); with "
        r"personalized budgets user i lands in K with probability $1 - 2p_i$, "
        r"$p_i = 1/(1+e^{\varepsilon_i})$, which differs from user to user. What the proof needs, that K "
        "does not depend on b, still holds",
        domain=ClaimDomain.point("the chapter's budget vector (a Table 2 scenario, n users)"),
    ),
}


CLAIMS = table(THEOREM1)
