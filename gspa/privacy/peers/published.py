"""Numbers published by others for the shuffle model, and the accountant checked against them, one row per case.
Shown in the peers chapter (book/chapters/accountant/peers).

Each check names its source, quotes the number(s) and states the rule; :func:`cross_checks` runs them
all and returns one row per case (used by ``tests/privacy/test_published.py`` and by the accountant
chapter of the book, which shows the table computed in its build).

Three sources were found in public material:

* **FMT21's code** — github.com/apple/ml-shuffling-amplification, commit
  993d285a546114bf8c70c33d053dca322a755707 (README.md, example.py, computeamplification.py). Its
  ``numericalanalysis(n, eps0, delta, T, step, upperbound)`` bounds the eps of the clone pair of
  FMT21 (clone probability e^-eps0, C ~ Bin(n - 1, e^-eps0): n counts the differing user; the
  differing user keeps its eps0 randomization; replacement neighbours; natural log) by a binary
  search of T steps on [0, top] (top = the closed form when it applies, else eps0) over a delta
  computed on blocks of ``step`` clone counts. ``upperbound=True`` returns an eps whose delta is below
  the target (so the exact eps is <= it); ``upperbound=False`` returns r with delta_lower(r - res) >=
  target, res = top / 2^T (so the exact eps is >= r - res).
* **Koskela, Heikkilä, Honkela**, "Numerical accounting in the shuffle model of differential
  privacy" (TMLR 2023; arXiv 2106.00477, first titled "Tight accounting in the shuffle model of
  differential privacy"), the data behind their Figure 1, github.com/DPBayes/numerical-shuffler-
  experiments, commit 75068f330d06f6abb3f2554944880237d6a63784,
  clones_comparison_fig1/pickles/deltas_pld.p (PLD / Fourier accountant) and deltas_feldman{,2,3,4}.p
  (Rényi DP), produced by delta_shuffler_fa.py and delta_shuffler_renyi.py (the same files are in
  DPBayes/PLD-Accountant, commit 7a53ecf, fourier_accountant/experimental_shufflers/). Setting: n = 10^4,
  eps0 = 4, eps on numpy.linspace(0.1, 1.0, 60), n_c = 1..4 compositions. Their pair has
  p = 2/(1 + e^eps0) (each other user a clone w.p. p, 0 or 1 w.p. 1/2) and the differing user's bit
  kept w.p. e^eps0/(1 + e^eps0) (their p2 = 1, so the third term vanishes): this is exactly
  ``fmt23_pair(4, 10**4)``. Their PLD puts each atom at the right end of its grid cell (dx = 4e-6):
  an upper bound on delta, measured 1.2e-4 (relative) above the exact value at n_c = 1.
* **Wang et al.**, "Privacy amplification via shuffling: unified, simplified, and tightened"
  (VLDB 2024, arXiv 2304.05007), code github.com/wangsw/PrivacyAmplification, commit
  34ca048932dc1f211d1d1a3b1e642088c4b8390a, unifiedamplification.py. No table of numbers was found
  in the stored copies of the paper; the values below were computed by running their public code
  (from /tmp, not copied here): ``amplificationUB`` / ``amplificationLB(p, beta, q, q, n, delta, T=20)``
  with the parameters of their ``computeUBParameters`` for randomized response (p = q = e^eps0,
  beta = (e^eps0 - 1)/(e^eps0 + 1)) and for k-ary RR (beta = (e^eps0 - 1)/(e^eps0 + k - 1)). Their
  upper bound includes their slack (+ tol n on delta); their lower bound is a lower bound on the eps
  of their reduced pair. For binary randomized response that pair (FMT23's clone pair) is not tight —
  their appendix I says so of "randomized response on 2 options", and the exact worst case over every
  data set (:func:`gspa.privacy.exact.enumeration.every_data_set`) lies below it — so their lower value bounds
  their pair, not the protocol; for k-ary randomized response with k >= 3 their pair is what one data set
  of the protocol shows, a lower bound on the protocol (the peers chapter).

Values marked "FMT21's code's method" / "Wang's code" are outputs of those programs run by us at
settings chosen by us (the README's example is the only value printed by FMT21 themselves).
"""

from __future__ import annotations

import numpy as np

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.peers import baselines as B
from gspa.privacy.shuffle.composition import compose

REL = 1e-9  # our epsilon(delta) is rounded up with a relative tolerance of about this size

# apple/ml-shuffling-amplification README.md ("Getting Started"), example.py's defaults n = 100000, eps0 = 4,
# delta = 1e-6, T = 10, step = 100: "... for eps between 0.1675385583317841 and 0.172790550755978" and
# "According to our closed form analysis ... eps is at most 0.5378040242374512" (re-run by us: same digits).
FMT21_README = dict(
    n=100_000,
    eps0=4.0,
    delta=1e-6,
    T=10,
    lower=0.1675385583317841,
    upper=0.172790550755978,
    closed=0.5378040242374512,
)

# (n, eps0, delta, T, step, lower, upper, res = top / 2^T) from computeamplification.numericalanalysis
FMT21_CODE = [
    (1000, 0.5, 1e-6, 10, 100, 0.06834064706050094, 0.07488042189882638, 0.0003269887419162724),
    (1000, 0.5, 1e-6, 20, 10, 0.07024669764692497, 0.0718107512190987, 3.1932494327760977e-07),
    (10000, 1.0, 1e-6, 10, 100, 0.05284923662178562, 0.0535326319229294, 0.00022779843371459316),
    (10000, 1.0, 1e-6, 20, 10, 0.05297003208028857, 0.0549681624822656, 2.2245940792440738e-07),
    (10000, 2.0, 1e-6, 10, 100, 0.1523615148592729, 0.15900815812494584, 0.0005112802512056137),
    (10000, 2.0, 1e-6, 20, 10, 0.1547706234648072, 0.15918690649401968, 4.992971203179822e-07),
    (10000, 4.0, 1e-6, 10, 100, 0.5703125, 0.890625, 0.00390625),
    (10000, 4.0, 1e-6, 20, 10, 0.5925521850585938, 0.6208229064941406, 3.814697265625e-06),
    (100000, 1.0, 1e-6, 10, 100, 0.015293304744409705, 0.015513881255146383, 7.352550357889282e-05),
    (100000, 1.0, 1e-6, 20, 10, 0.015281098361979616, 0.01611350184146214, 7.180224958876252e-08),
    (100000, 2.0, 1e-8, 10, 100, 0.05866608712742116, 0.05908663255485787, 0.00021027271371835542),
    (100000, 2.0, 1e-8, 20, 10, 0.058752742484051185, 0.06026366692500788, 2.0534444699058147e-07),
    (100000, 4.0, 1e-6, 20, 10, 0.16954549645247463, 0.1751216352840992, 5.128898851751816e-07),
    (1000000, 3.0, 1e-8, 10, 100, 0.03569105250720507, 0.036089093984980586, 0.0001326804925918404),
    (1000000, 3.0, 1e-8, 20, 10, 0.03557988076634197, 0.03667345826387629, 1.2957079354671914e-07),
    (1000000, 5.0, 1e-6, 10, 100, 0.0861804190831273, 0.08992739382587196, 0.0003122478952287221),
    (1000000, 5.0, 1e-6, 20, 10, 0.086466138104445, 0.09012468326748621, 3.049295851842989e-07),
]

KHH_EPS_INDEX = [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 59]  # into linspace(0.1, 1.0, 60)
KHH_PLD = {  # deltas_pld.p, real parts (imaginary parts <= 5e-17), rows n_c = 1..4
    1: [
        0.00920948955229734,
        0.0018983153632061015,
        0.00025586137374278994,
        2.229751417600448e-05,
        1.2621309363156461e-06,
        4.716481046176134e-08,
        1.1937672203740086e-09,
        2.1126342240160324e-11,
        2.7118478781078514e-13,
        2.6269568205773714e-15,
        2.001510567375001e-17,
        1.2509368510514611e-19,
        1.923331926873077e-21,
    ],
    2: [
        0.02177465254622706,
        0.008378401701645288,
        0.0026223065520671767,
        0.0006595443462181341,
        0.00013225329775138644,
        2.1050257268650743e-05,
        2.655325361007269e-06,
        2.656560038816778e-07,
        2.1135081848500994e-08,
        1.3427698023757507e-09,
        6.849873537881571e-11,
        2.8246091398966835e-12,
        1.9021609204005981e-13,
    ],
    3: [
        0.03288261759745628,
        0.016009035458658654,
        0.00681770066104924,
        0.002518648168229511,
        0.0008020191073841613,
        0.0002191068606884381,
        5.1188062123177105e-05,
        1.0205357457259486e-05,
        1.7344867924861863e-06,
        2.512429110582441e-07,
        3.103109257903238e-08,
        3.271444507976909e-09,
        4.83099799957752e-10,
    ],
    4: [
        0.04279018649103021,
        0.02368419463588772,
        0.011882012933407673,
        0.005370510849504286,
        0.002176207281254359,
        0.0007874912407071994,
        0.00025370764753331244,
        7.260557360943363e-05,
        1.8426229916197544e-05,
        4.142359081279937e-06,
        8.243585553472479e-07,
        1.4518540189740773e-07,
        3.314190123382294e-08,
    ],
}
KHH_RDP = {  # deltas_feldman.p, deltas_feldman2.p, ... (Rényi DP of the same pair, converted)
    1: [
        0.02182993456880868,
        0.005921348835567392,
        0.0010453416948067438,
        0.00011768531175666368,
        8.477455605846855e-06,
        3.9831674612112527e-07,
        1.25637464753838e-08,
        2.755357044159678e-10,
        4.365072370984467e-12,
        5.220982114964798e-14,
        5.374064586092519e-16,
        5.2358605015491395e-18,
        1.2662786474849555e-19,
    ],
    2: [
        0.04936282600892695,
        0.02329475222052706,
        0.008999475061192627,
        0.002785715727754581,
        0.0006830764575866939,
        0.00013201253129827836,
        2.0078936372753403e-05,
        2.4058046354757224e-06,
        2.2772023880317553e-07,
        1.7104598114201496e-08,
        1.0257893278216045e-09,
        4.9508556954547995e-11,
        3.774747887470095e-12,
    ],
    3: [
        0.07431074318974033,
        0.04292266595124568,
        0.021940987995895368,
        0.009734368399478392,
        0.003710068443940733,
        0.0012077001112184218,
        0.00033465492143715605,
        7.879850687169956e-05,
        1.5753972287849943e-05,
        2.674287791796658e-06,
        3.856764614517868e-07,
        4.7137346671664e-08,
        7.81000029465583e-09,
    ],
    4: [
        0.09707201757011934,
        0.06286984113248194,
        0.037200848637935095,
        0.019730145271544527,
        0.009474526336162008,
        0.004021004026912032,
        0.001529490083047212,
        0.0005100244277546503,
        0.00015108674204821336,
        3.959216847703262e-05,
        9.090058098541948e-06,
        1.8517086990245617e-06,
        4.721686677454203e-07,
    ],
}
KHH_EPS = np.linspace(0.1, 1.0, 60)[KHH_EPS_INDEX]

# (n, eps0, delta, lower, upper) from amplificationLB / amplificationUB with T = 20, binary RR
WANG_RR = [
    (1000, 1.0, 1e-6, 0.14867019653320312, 0.14867115020751953),
    (10000, 1.0, 1e-6, 0.04320526123046875, 0.04320716857910156),
    (10000, 4.0, 1e-6, 0.4108085632324219, 0.4108161926269531),
    (100000, 2.0, 1e-8, 0.043674468994140625, 0.04389190673828125),
    (100000, 4.0, 1e-6, 0.11815261840820312, 0.1181640625),
]

# (k, n, eps0, delta, lower, upper) from amplificationLB / amplificationUB with T = 20, k-ary RR
WANG_KRR = [
    (4, 10000, 2.0, 1e-6, 0.10195159912109375, 0.10195541381835938),
    (10, 10000, 3.0, 1e-6, 0.18974876403808594, 0.18975448608398438),
    (10, 100000, 1.0, 1e-8, 0.009217262268066406, 0.009270668029785156),
]


def _row(source, setting, theirs, ours, ok, rule):
    return {
        "source": source,
        "setting": setting,
        "theirs": theirs,
        "ours": float(ours),
        "holds": bool(ok),
        "rule": rule,
    }


def fmt21_checks():
    """FMT21's README example and their code's method at other settings (same pair as ``fmt21_pair``).
    Rule: lower - res <= ours <= upper (1 + 1e-9); res is the binary search's resolution top / 2^T."""
    r = FMT21_README
    ours = PAIRS.fmt21_pair(r["eps0"], r["n"]).epsilon(r["delta"])
    res = r["closed"] / 2 ** r["T"]
    rows = [
        _row(
            "FMT21 README",
            f"n = {r['n']:,}, ε₀ = {r['eps0']:g}, δ = {r['delta']:g}",
            f"ε ∈ [{r['lower']:.5f}, {r['upper']:.5f}]",
            ours,
            r["lower"] - res <= ours <= r["upper"] * (1 + REL),
            "lower − res ≤ ours ≤ upper",
        )
    ]
    for n, eps0, delta, T, step, lo, hi, res in FMT21_CODE:
        ours = PAIRS.fmt21_pair(eps0, n).epsilon(delta)
        rows.append(
            _row(
                "FMT21 code (run by us)",
                f"n = {n:,}, ε₀ = {eps0:g}, δ = {delta:g}, T = {T}",
                f"ε ∈ [{lo:.5f}, {hi:.5f}]",
                ours,
                lo - res <= ours <= hi * (1 + REL),
                "lower − res ≤ ours ≤ upper",
            )
        )
    return rows


def fmt21_closed_check():
    """FMT21's README closed form, reproduced by ``baselines.fmt21_closed`` to 1e-12 relative."""
    r = FMT21_README
    got = B.fmt21_closed(r["eps0"], r["n"], r["delta"])
    return _row(
        "FMT21 README",
        f"closed form, n = {r['n']:,}, ε₀ = {r['eps0']:g}, δ = {r['delta']:g}",
        f"{r['closed']:.10f}",
        got.epsilon,
        got.valid and abs(got.epsilon / r["closed"] - 1) <= 1e-12,
        "|ours / theirs − 1| ≤ 1e-12",
    )


def koskela_checks(rounds: int):
    """Koskela–Heikkilä–Honkela's Figure 1 data, delta(eps) of ``fmt23_pair(4, 10**4)`` composed ``rounds``
    times. One round: their PLD rounds atoms up (an upper bound 3.6e-5 to 1.4e-4 relative above the exact
    value); ours is certified and nearly exact up to an absolute floor of about 5e-20.
    Rule: theirs (1 - 5e-4) <= ours <= theirs (1 + 1e-9) + 1e-18. Several rounds: their FFT composition is
    not certified; ours adds an FFT round-off allowance (~5e-13) and rounds losses up to a 250-node lattice.
    Rule: theirs (1 - 1e-3) <= ours <= theirs (1 + 1e-2) + 1e-11. Rényi DP (their looser accountant for the
    same pair): ours <= theirs."""
    pair = PAIRS.fmt23_pair(4.0, 10_000)
    if rounds > 1:
        pair = compose(pair, rounds)
    rows = []
    for e, pld, rdp in zip(KHH_EPS, KHH_PLD[rounds], KHH_RDP[rounds]):
        ours = pair.delta(float(e))
        if rounds == 1:
            ok, rule = (
                pld * (1 - 5e-4) <= ours <= pld * (1 + REL) + 1e-18,
                "PLD (1 − 5e-4) ≤ ours ≤ PLD + 1e-18",
            )
        else:
            ok, rule = (
                pld * (1 - 1e-3) <= ours <= pld * (1 + 1e-2) + 1e-11,
                "PLD (1 − 1e-3) ≤ ours ≤ PLD (1 + 1e-2) + 1e-11",
            )
        rows.append(
            _row(
                "Koskela et al., Fig. 1 data",
                f"n = 10⁴, ε₀ = 4, {rounds} round(s), ε = {e:.3f}",
                f"δ = {pld:.4e} (PLD), {rdp:.4e} (RDP)",
                ours,
                ok and ours <= rdp,
                rule + ", ours ≤ RDP",
            )
        )
    return rows


def wang_checks():
    """Wang et al.'s code (T = 20): binary RR, where their reduced pair is the FMT23 clone pair; rule
    lower <= ours <= upper (1 + 1e-9), for ``fmt23_pair`` and for ``personalized_pair`` with a common
    budget and ``reduction="clones"``; the cell bound (``reduction="cells"``, the worst case over the data) lies *below* their lower
    value, above our certified lower bound: their pair is not tight for binary RR (their appendix I). k-ary RR: their lower bound bounds the protocol, so ours >= lower; with the blanket pair
    (:class:`gspa.privacy.shuffle.pairs.KaryPair`, the default) the rule is ours <= upper (1 + 2 KARY_GAP), as
    tight as theirs up to the refinement gap of its sums; the clone pair (``reduction="clones"``) is shown
    beside it, looser (it reveals whether the differing user's report is one of the two distinguished
    symbols), with the regression guard ours <= 2 upper."""
    rows = []
    for n, eps0, delta, lo, hi in WANG_RR:
        for name, pair in (
            ("fmt23_pair", PAIRS.fmt23_pair(eps0, n)),
            (
                "personalized_pair, clone pair",
                A.personalized_pair(np.array([eps0]), counts=np.array([n]), reduction="clones"),
            ),
        ):
            ours = pair.epsilon(delta)
            rows.append(
                _row(
                    "Wang et al. code (run by us)",
                    f"binary RR ({name}), n = {n:,}, ε₀ = {eps0:g}, δ = {delta:g}",
                    f"ε ∈ [{lo:.5f}, {hi:.5f}]",
                    ours,
                    lo <= ours <= hi * (1 + REL),
                    "lower ≤ ours ≤ upper",
                )
            )
        one = (np.array([eps0]), np.array([n]))
        cells = A.personalized_pair(one[0], counts=one[1], reduction="cells").epsilon(delta)
        floor = LB.lower_bound(one[0], counts=one[1]).epsilon(delta)
        rows.append(
            _row(
                "Wang et al. code (run by us)",
                f"binary RR (cell bound), n = {n:,}, ε₀ = {eps0:g}, δ = {delta:g}",
                f"ε ∈ [{lo:.5f}, {hi:.5f}]",
                cells,
                floor <= cells < lo,
                f"our lower bound ({floor:.5f}) ≤ ours < their lower: their pair is not tight for binary RR",
            )
        )
    for k, n, eps0, delta, lo, hi in WANG_KRR:
        for reduction, top, rule in (
            ("blanket", 1 + 2 * PAIRS.KARY_GAP, "lower ≤ ours ≤ upper (1 + 2·10⁻³)"),
            ("clones", 2.0, "lower ≤ ours ≤ 2 upper"),
        ):
            ours = A.personalized_pair(
                np.array([eps0]), randomizer="k-rr", k=k, counts=np.array([n]), reduction=reduction
            ).epsilon(delta)
            rows.append(
                _row(
                    "Wang et al. code (run by us)",
                    f"{k}-ary RR ({reduction} pair), n = {n:,}, ε₀ = {eps0:g}, δ = {delta:g}",
                    f"ε ∈ [{lo:.5f}, {hi:.5f}]",
                    ours,
                    lo <= ours <= top * hi,
                    f"{rule} (ours / upper = {ours / hi:.4f})",
                )
            )
    return rows


def cross_checks():
    """Every case above, one row each: source, setting, their value(s), ours, whether the rule holds, the rule."""
    rows = fmt21_checks() + [fmt21_closed_check()]
    for rounds in (1, 2, 3, 4):
        rows += koskela_checks(rounds)
    return rows + wang_checks()
