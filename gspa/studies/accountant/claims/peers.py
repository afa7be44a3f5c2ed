"""The claims of chapter accountant/peers (the peers) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare
from gspa.claims.table import Claim, table
from gspa.studies.accountant import wang_rows


# -- the peers (chapter accountant/peers) ----------------------------------------------------------

ANY_N = Param("n", 2, 10**6, "int", stated="any number of users", closed_by="n ≤ 10⁶")
ANY_EPS0 = Param("eps0", 0.01, 20.0, stated="any ε₀ > 0", closed_by="ε₀ ∈ [0.01, 20]")
#: the smallest margin of a bound over an enumerated protocol, as a rule: negative is a counterexample
_MARGIN = "smallest margin, {} minus the enumerated {} (round-off counted)"

LEMMA45_STATED = (
    "'for any … randomizer satisfying the (p, β, q)-variation-ratio property' (Lemma 4.5; k-RR's "
    "parameters from their table)"
)
LEMMA45_DOMAIN = ClaimDomain(
    (
        ANY_N,
        Param(
            "k",
            3,
            10**3,
            "int",
            stated="k-ary randomized response, any k (their parameter table)",
            closed_by="3 ≤ k ≤ 1000 (k = 2 has no third component)",
        ),
        ANY_EPS0,
    ),
    LEMMA45_STATED,
)
#: exhaustive enumeration: small n, k
LEMMA45_REGION = ClaimDomain(
    (Param("n", 2, 4, "int"), Param("k", 3, 6, "int"), Param("eps0", 0.05, 5.0)), LEMMA45_STATED
)
#: the note of wang-lemma45, completed by the chapter with the regime where it fails at realistic sizes
LEMMA45_NOTE = (
    "holds where there is no third component ((p + 1)α = 1: binary randomized response, where it is "
    "FMT23's pair); for k-RR with k ≥ 3 it fails at realistic sizes where amplification is weak "
    "({regime}), and the pair is a lower bound on the protocol (a data set; section 'What their k-RR "
    "number is')"
)

LAPLACE_STATED = (
    "'Laplace mechanism for [0,1]' row of their parameter table, with Lemma 4.5 (any number of users, "
    "any ε₀)"
)
#: binned enumeration: small n
LAPLACE_REGION = ClaimDomain((Param("n", 2, 6, "int"), Param("eps0", 0.05, 5.0)), LAPLACE_STATED)

GENERAL_STATED = (
    "'general mechanisms' row of their parameter table (any ε₀-LDP randomizer); FMT23 Lemma 3.2 "
    "before its erratum"
)
GENERAL_SEEDS = Param(
    "seed",
    1,
    10**6,
    "int",
    stated="every ε₀-LDP randomizer",
    closed_by="random near-extreme randomizers with 3 inputs (random_randomizer), one per seed",
)
#: exhaustive enumeration: small n only
GENERAL_REGION = ClaimDomain(
    (
        Param("n", 2, 4, "int"),
        Param("outputs", 2, 8, "int"),
        Param("eps0", 0.1, 5.0),
        GENERAL_SEEDS,
    ),
    GENERAL_STATED,
)

SCW_STATED = "their k-RR bound (the blanket decomposition's, evaluated by FFT) for any number of users and any ε₀"
#: exhaustive enumeration: small n, k
SCW_REGION = ClaimDomain(
    (Param("n", 2, 4, "int"), Param("k", 2, 5, "int"), Param("eps0", 0.05, 5.0)), SCW_STATED
)

#: the rows k-subset, local hash and Hadamard response: the shapes enumerated (matrix_profile: at most 6 inputs and
#: 8 outputs), by claim id
WANG_ROW_SHAPES = {
    id: tuple(wang_rows.shape_text(s) for s in wang_rows.SHAPES[row])
    for id, row in wang_rows.CLAIM_ROWS.items()
}
#: exhaustive enumeration: two or three users
WANG_ROW_REGIONS = {
    id: ClaimDomain(
        (
            Param("n", 2, 3, "int"),
            Param("eps0", 0.05, 5.0),
            Param("shape", scale="choice", choices=shapes),
        ),
        f"their parameter table's row ({id}) with Lemma 4.5",
    )
    for id, shapes in WANG_ROW_SHAPES.items()
}

PEERS = {
    "wang-lemma45": Claim(
        "For every randomizer with the (p, β, q) variation-ratio property, the shuffled output is a "
        "post-processing of the pair (A + Δ₀, C − A + Δ₁) vs (A + Δ₁, C − A + Δ₀), so the pair's δ(ε) "
        "bounds the protocol's",
        "Wang et al., VLDB 2024, Lemma 4.5 (proof: appendix C of appendix.pdf, "
        "github.com/wangsw/PrivacyAmplification)",
        "false-statement",
        Compare(">=", 0.0, what=_MARGIN.format("the pair's δ(e)", "protocol's")),
        domain=LEMMA45_DOMAIN,
        note=LEMMA45_NOTE.format(regime="see the chapter"),
    ),
    "wang-laplace": Claim(
        r"For the Laplace mechanism on [0, 1] (x + Lap(1/ε₀)), the shuffled protocol's δ(ε) is at most "
        r"that of their pair with $p = q = e^{\varepsilon_0}$, $\beta = 1 - e^{-\varepsilon_0/2}$",
        "Wang et al., VLDB 2024, parameter table (README of github.com/wangsw/PrivacyAmplification, "
        "'Laplace mechanism for [0,1]') with Lemma 4.5",
        "false-statement",
        Compare(">=", 0.0, what=_MARGIN.format("the pair's δ(e)", "binned protocol's")),
        domain=ClaimDomain((ANY_N, ANY_EPS0), LAPLACE_STATED),
        note="the parameters are right; Lemma 4.5 fails for them (a third component). At large n no "
        "lower bound gspa has reaches their value (next table)",
        follows_from="accountant.wang-lemma45",
        because="the mechanism has the property with the row's (p, β, q): an instance of Lemma 4.5",
    ),
    "wang-general": Claim(
        r"For every ε₀-LDP randomizer, the shuffled protocol's δ(ε) is at most that of their pair with "
        r"$\beta = (e^{\varepsilon_0} - 1)/(e^{\varepsilon_0} + 1)$, $p = q = e^{\varepsilon_0}$ (FMT23's "
        r"clone pair, clone probability $2/(e^{\varepsilon_0} + 1)$)",
        "Wang et al., VLDB 2024, parameter table ('general mechanisms') with Lemmas 4.4–4.6; FMT23 "
        "(SODA 2023), Lemma 3.2, restricted by its erratum",
        "proof-gap",
        Compare(">=", 0.0, what=_MARGIN.format("the pair's δ(e)", "protocol's")),
        domain=ClaimDomain(
            (
                ANY_N,
                Param(
                    "outputs",
                    2,
                    10**3,
                    "int",
                    stated="any output space",
                    closed_by="up to 1000 outputs",
                ),
                ANY_EPS0,
                GENERAL_SEEDS,
            ),
            GENERAL_STATED,
        ),
        note="the proof passes through Lemma 4.5 with a third component, where it is false; no "
        "counterexample to the bound itself was found",
        follows_from="accountant.wang-lemma45",
        because=r"an ε₀-LDP randomizer has the property with $p = q = e^{\varepsilon_0}$ and its "
        r"own total variation $\beta_0 \le (e^{\varepsilon_0} - 1)/(e^{\varepsilon_0} + 1)$; "
        r"Lemma 4.5 at $\beta_0$, then their Lemma 4.6 (thinning) to the row's β, give the row",
    ),
    "scw-kary": Claim(
        r"For k-ary randomized response, $\delta(\varepsilon) = \mathbb{E}[(\sum_i G_i)_+]/n$ with their "
        r"random variable G bounds the shuffled protocol's δ(ε)",
        "Su, Cheng, Wang, S&P 2026 (arXiv 2504.07414), the FFT upper bound; G for k-RR from their public "
        "code (mechanisms.py, commit d3b769d)",
        "numerical",
        Compare(">=", 0.0, what=_MARGIN.format("their δ(e)", "protocol's")),
        domain=ClaimDomain(
            (
                ANY_N,
                Param(
                    "k",
                    2,
                    10**3,
                    "int",
                    stated="k-ary randomized response",
                    closed_by="2 ≤ k ≤ 1000",
                ),
                ANY_EPS0,
            ),
            SCW_STATED,
        ),
        note="the expectation equals the δ of gspa's blanket pair KaryPair, whose reduction is derived "
        "in its docstring",
    ),
    **{
        f"wang-{row}": Claim(
            f"For {what}, the shuffled protocol's δ(ε) is at most that of their pair with "
            rf"$p = q = e^{{\varepsilon_0}}$, {beta}",
            "Wang et al., VLDB 2024, parameter table (README of github.com/wangsw/PrivacyAmplification, "
            f"'{label}') with Lemma 4.5",
            "false-statement",
            Compare(">=", 0.0, what=_MARGIN.format("the pair's δ(e)", "protocol's")),
            domain=ClaimDomain(
                (ANY_N, ANY_EPS0, Param("shape", scale="choice", choices=shapes, stated=stated)),
                f"'{label}' row of their parameter table, with Lemma 4.5 (any n, any ε₀, {stated})",
            ),
            note="the row's β is the exact largest total variation of the mechanism (checked); the "
            "bound rests on Lemma 4.5 with a third component, where it fails (wang-lemma45). The "
            "counterexamples are at n ≤ 3 users (enumerated exactly); for larger n the same data sets "
            "break the pair only at ever smaller δ, so they say nothing about the table's n = 10⁶ at a "
            "realistic δ (wang-lemma45 covers large n); for local hashing the worst shape, one shift "
            "hash onto 3 values, is 3-ary randomized response",
            follows_from="accountant.wang-lemma45",
            because="the mechanism has the property with the row's (p, β, q): an instance of Lemma 4.5",
        )
        for row, what, beta, label, shapes, stated in (
            (
                "ksubset",
                "the k-subset mechanism on d options",
                r"$\beta = (e^{\varepsilon_0} - 1)(\binom{d-1}{k-1} - \binom{d-2}{k-2})/"
                r"(e^{\varepsilon_0}\binom{d-1}{k-1} + \binom{d-1}{k})$",
                "k-subset mechanism on d options",
                WANG_ROW_SHAPES["wang-ksubset"],
                "any d and k (enumerated: (d, k) as listed)",
            ),
            (
                "local-hash",
                "local hashing with length l",
                r"$\beta = (e^{\varepsilon_0} - 1)/(e^{\varepsilon_0} + l - 1)$",
                "local hash with length l",
                WANG_ROW_SHAPES["wang-local-hash"],
                "any l ≥ 3 and hash family (enumerated: (l, number of shift hashes) as listed)",
            ),
            (
                "hadamard",
                "Hadamard response (K, s) with one block (s = K/2)",
                r"$\beta = s(e^{\varepsilon_0} - 1)/2/(s e^{\varepsilon_0} + K - s)$",
                "Hadamard response (K,s)",
                WANG_ROW_SHAPES["wang-hadamard"],
                "any K (enumerated: K = 4, 8, s = K/2)",
            ),
            (
                "rappor",
                "basic RAPPOR on d options",
                r"$\beta = (e^{\varepsilon_0/2} - 1)/(e^{\varepsilon_0/2} + 1)$",
                "binary RR (RAPPOR) on d options",
                WANG_ROW_SHAPES["wang-rappor"],
                "any d (enumerated: d = 2, 3)",
            ),
            (
                "piecewise",
                "the Piecewise mechanism on [−1, 1]",
                r"$\beta = 1 - e^{-\varepsilon_0/2}$",
                "Piecewise mechanism for [-1,1]",
                WANG_ROW_SHAPES["wang-piecewise"],
                "any inputs in [−1, 1] (enumerated: the inputs −1, 1 or −1, 0, 1, reports binned — a "
                "lower bound on the continuous protocol)",
            ),
        )
    },
}


CLAIMS = table(PEERS)
