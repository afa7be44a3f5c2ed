"""The computations of the FLAME accounting chapter (book/chapters/flame/accounting; Liu et al., AAAI
2021: Theorems 1, 3-5, Definition 3, Proposition 2 and the privacy numbers of *Evaluations*): the
experiments' (ε_c, δ_c) as the authors' code computes them, Theorem 4 on instances computed exactly,
the linkage of the printed SS-Double and SS-Topk, the shuffler's posterior of a reported index, and the
searches' margins as the chapter runs them. The formulas themselves are in
:mod:`gspa.studies.flame.analysis`, :mod:`~gspa.studies.flame.domains` and
:mod:`~gspa.studies.flame.linkage`."""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V
from gspa.studies.flame import analysis, domains

#: the column of :func:`gspa.studies.flame.analysis.theorem4_table` that Theorem 4 is judged by
PAPER_RATIO = "paper: true δ(ε_c)/δ_c"

#: the rows of the experiments' numbers: key, what is computed, the paper's value and where
NUMBERS_ROWS = (
    ("simple", "SS-Simple, one epoch (ε_ld = 0.01, d = 7,850)", "(0.91, 5e-6), Evaluations"),
    (
        "double",
        "SS-Double/Topk, one epoch (ε_lk = 0.5, β = 1/50, n/n_p = 3)",
        "(0.24, 5e-6), Evaluations",
    ),
    ("nosub", "the same, subsampling not counted", "(20.53, 5e-6), Evaluations and footnote 2"),
    ("b10a", "β = 1/10, ε_l = 78.5 kept (ε_lk = 0.1)", "(2.348, 5e-6) per epoch, Evaluations"),
    ("b10b", "β = 1/10, ε_lk = 0.5 kept (ε_l = 392.5)", "(2.348, 5e-6) per epoch, Evaluations"),
)


def experiments_numbers() -> dict:
    """FLAME, Evaluations: the central (ε_c, δ_c) per epoch of the experiments' settings
    (:data:`gspa.studies.flame.analysis.PAPER`; δ_c = 0.01/n^1.1 and n_p = n/3 from the authors' code),
    by the authors' method (``"flame"``: the Bennett term as their code computes it) and with BBGN19's
    corrected Bennett term (``"bbgn19"``), each for SS-Simple (``simple``), SS-Double / SS-Topk
    (``double``), the same without subsampling (``nosub``, footnote 2's 20.53) and β = 1/10 keeping
    ε_l (``b10a``) or ε_lk (``b10b``); ``sampled``: the k sampled dimensions composed without
    subsampling (the reading of Theorem 4 with a proof); ``upper``: the book's upper bound for SS-Simple
    (:func:`ss_simple_upper`). Each entry is
    :func:`~gspa.studies.flame.analysis.ss_double_epoch`'s (or ``ss_simple_epoch``'s) record."""
    P = analysis.PAPER
    dc = analysis.delta_c_code(P["n"])
    n_p = int(P["n"] / P["n_over_np"])
    double = analysis.ss_double_epoch

    def readings(version: str) -> dict:
        return {
            "simple": analysis.ss_simple_epoch(P["eps_ld"], P["d"], P["n"], dc, version=version),
            "double": double(P["eps_lk"], P["d"], P["beta"], n_p, dc, version=version),
            "nosub": double(
                P["eps_lk"], P["d"], P["beta"], n_p, dc, subsampling=False, version=version
            ),
            "b10a": double(P["eps_l"] / int(P["d"] / 10), P["d"], 1 / 10, n_p, dc, version=version),
            "b10b": double(P["eps_lk"], P["d"], 1 / 10, n_p, dc, version=version),
        }

    flame = readings("flame")
    return {
        "delta_c": dc,
        "n_p": n_p,
        "k": flame["double"]["k"],
        "flame": flame,
        "bbgn19": readings("bbgn19"),
        "sampled": double(P["eps_lk"], P["d"], P["beta"], n_p, dc, subsampling=False, dims="k"),
        "upper": {"simple": ss_simple_upper(P["eps_ld"], P["d"], P["n"], dc)},
    }


def ss_simple_upper(eps_ld: float, d: int, n: int, delta_c: float) -> dict:
    """SS-Simple for one epoch through the book's Laplace accountant: each dimension is the shuffle of n
    reports x + Lap(1/ε_ld), x in [0, 1] (:class:`gspa.privacy.shuffle.pairs.LaplaceCover`, every pair of a
    user's inputs; certified against the continuous protocol), and the d dimensions — d
    independent shuffles of the same users — are composed through that bound's privacy profile
    (:func:`gspa.privacy.shuffle.composition.compose`) instead of Lemma 3. Returns ``eps_c`` at ``delta_c``,
    and ``eps_cd``, one dimension's ε at δ_c/(d + 1) (the dimension-level δ of the authors' code)."""
    from gspa.privacy.shuffle.composition import compose
    from gspa.privacy.shuffle.pairs import LaplaceCover

    eps_ld = V.real("eps_ld", eps_ld, low=0.0, high=analysis.MAX_EPS, low_open=True, scalar=True)
    d = V.integer("d", d, low=1, high=10**5)
    n = V.integer("n", n, low=2, high=domains.MAX_USERS)
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    one = LaplaceCover(eps_ld, n - 1, "SS-Simple, one dimension")
    return {
        "eps_cd": one.epsilon(delta_c / (d + 1)),
        "eps_c": compose(one, d).epsilon(delta_c),
        "delta_c": delta_c,
    }


def numbers_table(numbers: dict):
    """The experiments' numbers beside the paper's (:data:`NUMBERS_ROWS`): ε_c recomputed by the
    authors' method and with the corrected Bennett term, from :func:`experiments_numbers`, and the book's
    upper bound where it covers the protocol (SS-Simple, :func:`ss_simple_upper`; NaN elsewhere)."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "quantity": quantity,
                "paper": paper,
                "recomputed ε_c": numbers["flame"][key]["eps_c"],
                "corrected Bennett": numbers["bbgn19"][key]["eps_c"],
                "upper bound": numbers.get("upper", {}).get(key, {}).get("eps_c", np.nan),
            }
            for key, quantity, paper in NUMBERS_ROWS
        ]
    )


def theorem4_cases(tiny_d, tiny_np: int, tiny_eps, tiny_delta, larger=()) -> list:
    """FLAME, Theorems 3-4 on instances computed exactly: every (d, ``tiny_np``, ε_lk, δ_c) of the
    grids with the exact per-dimension guarantee, then the ``larger`` instances (d, n_p, ε_lk, δ_c,
    per-dimension guarantee); the cases of :func:`gspa.studies.flame.analysis.theorem4_table`."""
    cases = [(d, tiny_np, e, dt, "exact") for d in tiny_d for e in tiny_eps for dt in tiny_delta]
    return cases + [tuple(c) for c in larger]


def theorem4_summary(tiny, tiny_np: int) -> dict:
    """What the chapter reads off :func:`gspa.studies.flame.analysis.theorem4_table` (FLAME, Theorem 4
    and "generic for any local randomizer"): the largest true δ(ε_c)/δ_c of each reading (``worst``),
    the number of instances where the paper's chain fails (``fails``), the worst with eq. (5) as the
    per-dimension bound (``eq5_worst``) and on the larger exact instances (``flame_like_worst``; 0
    without such instances), and on the exact instances only (``exact_cases``, ``exact_fails``,
    ``exact_worst``)."""
    tiny_np = V.integer("tiny_np", tiny_np, low=2)
    ratio = tiny[PAPER_RATIO]
    eq5 = tiny[tiny["per dimension"] == "eq5"]
    exact = tiny[tiny["per dimension"] == "exact"]
    flame_like = exact[exact["n_p"] != tiny_np]
    return {
        "worst": {
            name: float(tiny[f"{name}: true δ(ε_c)/δ_c"].max())
            for name in ("paper", "all dims", "sampled dims")
        },
        "fails": int((ratio > 1).sum()),
        "cases": len(tiny),
        "eq5_worst": float(eq5[PAPER_RATIO].max()) if len(eq5) else 0.0,
        "flame_like_worst": float(flame_like[PAPER_RATIO].max()) if len(flame_like) else 0.0,
        "exact_cases": len(exact),
        "exact_fails": int((exact[PAPER_RATIO] > 1).sum()),
        "exact_worst": float(exact[PAPER_RATIO].max()),
    }


def theorem4_failures(tiny) -> list[dict]:
    """The instances of :func:`gspa.studies.flame.analysis.theorem4_table` where the paper's chain fails
    (true δ(ε_c)/δ_c > 1), as points of flame-thm4's searched parameters {"d", "n_p", "eps_lk",
    "delta_c"}: the chapter's own counterexamples, which the holding region of its search must leave out."""
    bad = tiny[tiny[PAPER_RATIO] > 1]
    return [
        {
            "d": int(r["d"]),
            "n_p": int(r["n_p"]),
            "eps_lk": float(r["ε_lk"]),
            "delta_c": float(r["δ_c"]),
        }
        for _, r in bad.iterrows()
    ]


def random_topk_overlap(d: int, k: int, rng) -> tuple[bool, int]:
    """FLAME, SS-Topk ("shares the same double amplification effect of SS-Double"): the Top-``k``
    index sets (by |x|) of two update vectors drawn from ``rng`` (standard normal, ``d`` values each):
    whether they are equal (the selection is deterministic given the data, so equal laws means equal
    sets) and how many indexes they share."""
    d = V.integer("d", d, low=1, high=10**7)
    k = V.integer("k", k, low=1, high=d)
    rng = V.generator("rng", rng)
    x, x2 = rng.normal(size=d), rng.normal(size=d)
    top, top2 = set(np.argsort(-np.abs(x))[:k]), set(np.argsort(-np.abs(x2))[:k])
    return top == top2, len(top & top2)


def topk_double_lifted_margin(d: int, beta: float) -> float:
    """:func:`gspa.studies.flame.domains.topk_double_margin` at β lifted to 1/d where β d < 1 (k ≥ 1
    is required; the searched domain reaches below)."""
    d = V.integer("d", d, low=2, high=domains.MAX_USERS)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    return domains.topk_double_margin(d, max(beta, 1 / d))


def topk_double_worst(d: int, beta: float) -> tuple[int, int]:
    """The re-verification of :func:`topk_double_lifted_margin`'s worst point (d, β): the number of
    indexes the protocol's own Top-k selection of (d, …, 1) and of its reverse share, and k."""
    from gspa.studies.flame.protocols import sample_size

    d = V.integer("d", d, low=2, high=domains.MAX_USERS)
    beta = max(V.probability("beta", beta, open_low=True, scalar=True), 1 / d)
    return domains.topk_double_confirm(d, beta), sample_size(beta, d)


def _dimension_delta(eps: float, n_p: int, q: float) -> float:
    """Exact δ(eps) of one dimension shuffled on its own: the differing user's bit (1 with probability q
    against 1 − q) among n_p − 1 uniform blanket bits; the analyzer sees the count of 1s."""
    from scipy import stats

    rest = stats.binom.pmf(np.arange(n_p), n_p - 1, 0.5)
    a, b = np.convolve(rest, [1 - q, q]), np.convolve(rest, [q, 1 - q])
    return float(np.maximum(a - np.exp(eps) * b, 0.0).sum())  # the pair is symmetric


def _dimension_delta_mp(eps: float, n_p: int, q: float) -> float:
    """:func:`_dimension_delta` in 40-digit arithmetic (mpmath), term by term from binomial coefficients."""
    import mpmath as mp

    with mp.workdps(40):
        q, e, m = mp.mpf(q), mp.e ** mp.mpf(eps), n_p - 1
        rest = [mp.binomial(m, j) / mp.mpf(2) ** m for j in range(m + 1)] + [mp.mpf(0)]
        total = mp.mpf(0)
        for c in range(n_p + 1):
            below = rest[c - 1] if c else mp.mpf(0)
            a, b = rest[c] * (1 - q) + below * q, rest[c] * q + below * (1 - q)
            total += max(a - e * b, mp.mpf(0))
        return float(total)


def topk_dimension(eps_lk: float, n_p: int, beta: float, delta_cd: float, eps_cd=None) -> dict:
    """SS-Topk's "same double amplification" (FLAME, SS-Topk's Privacy Analysis) on one dimension, shuffled on
    its own (the repaired reading): Theorem 3's randomizer R_γ,2 (binary randomized response at ``eps_lk``),
    the differing user's update +C against −C (the same Top-k, so its report is in the dimension under both
    data sets: nothing is subsampled) and no other user ranking the dimension (its n_p − 1 other messages
    blanket dummies). Theorem 3's ε_cd = log(1 + β(e^ε_ck − 1)) with ε_ck the dimension's certified ε at
    δ_ck = δ_cd/β (:func:`gspa.privacy.peers.blanket.blanket_pair`), or ``eps_cd`` if given (e.g. the
    experiments' number). Returns ``eps_ck``, ``eps_cd``, the exact ``delta`` of the pair at ε_cd, its
    40-digit recomputation ``delta_mp``, ``ratio`` = δ/δ_cd (> 1: the dimension is not (ε_cd, δ_cd)-DP),
    and ``delta_at_ck``, the pair's δ at ε_ck itself (no amplification by β claimed)."""
    from gspa.privacy.peers.blanket import blanket_pair
    from gspa.studies.flame import linkage

    eps_lk = V.real("eps_lk", eps_lk, low=0.0, low_open=True, high=analysis.MAX_EPS, scalar=True)
    n_p = V.integer("n_p", n_p, low=2, high=10**5)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    delta_cd = V.probability("delta_cd", delta_cd, open_low=True, open_high=True, scalar=True)
    eps_ck = blanket_pair(eps_lk, 2, n_p, "header").epsilon(min(delta_cd / beta, 1.0))
    if eps_cd is None:
        eps_cd = analysis.theorem3(eps_ck, beta)
    eps_cd = V.nonnegative("eps_cd", eps_cd, scalar=True)
    q = linkage.bit_probability("rr", eps_lk)
    delta = _dimension_delta(eps_cd, n_p, q)
    return {
        "eps_ck": float(eps_ck),
        "eps_cd": float(eps_cd),
        "delta": delta,
        "delta_mp": _dimension_delta_mp(eps_cd, n_p, q),
        "ratio": delta / delta_cd,
        "delta_at_ck": _dimension_delta(eps_ck, n_p, q),
    }


def overflow_search_margin():
    """FLAME, SS-Topk's overflow (Algorithm 3): the margin :func:`gspa.studies.flame.domains.
    overflow_margin` as a search calls it, and the list into which each call appends whether the
    independent count agreed (the search's confirmation). Returns (margin, agreements)."""
    agree: list[bool] = []

    def margin(n: int, n_over_np: float) -> float:
        m, ok = domains.overflow_margin(n, n_over_np)
        agree.append(ok)
        return m

    return margin, agree


def linkage_bounds(delta_c: float, n_p: int, k: int) -> dict:
    """FLAME, Algorithms 2-4 as printed (each user's values travel as one message): at the experiments'
    settings (:data:`gspa.studies.flame.analysis.PAPER`, Algorithm 1 with b = 2) the repair's ε_c (the
    certified pair of one dimension's ``n_p`` reports composed over ``k`` dimensions for SS-Double and
    2k for SS-Topk, at ``delta_c``), and for each the certified lower bound on the printed protocol's δ
    there (:func:`gspa.studies.flame.linkage.linked_delta_lower`, threshold t) re-verified in 50-digit
    arithmetic (a ValueError if the two disagree beyond 10⁻⁶ relative); with the experiments' Laplace
    randomizer, the printed protocol's ε at ``delta_c`` and δ at ε = 0.24."""
    from gspa.privacy.peers.blanket import blanket_pair
    from gspa.privacy.shuffle.composition import compose
    from gspa.studies.flame import linkage

    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    P = analysis.PAPER
    n_p = V.integer("n_p", n_p, low=2, high=P["n"])
    k = V.integer("k", k, low=1, high=P["d"] // 2)
    n_users = P["n"]
    v = linkage.dummy_messages(P["d"], n_p, k, n_users)
    pair = blanket_pair(P["eps_lk"], 2, n_p, "header")
    q_rr = linkage.bit_probability("rr", P["eps_lk"])
    q_lap = linkage.bit_probability("laplace", P["eps_lk"])
    out = {"v": v}
    for name, others, dims in (("SS-Double", "blanket", k), ("SS-Topk", "signed", 2 * k)):
        eps = compose(pair, dims).epsilon(delta_c)
        low, t = linkage.linked_delta_lower(k, q_rr, eps, n_users, v, others)
        again = linkage.threshold_delta_mp(k, P["eps_lk"], "rr", eps, t, n_users, v, others)
        if abs(again - low) > 1e-6 * low:
            raise ValueError(
                f"{name}: the linkage bound {low} and its 50-digit recomputation {again} disagree"
            )
        out[name] = {"eps": eps, "low": low, "t": t, "mp": again}
    out["lap_eps"], out["lap_t"] = linkage.linked_epsilon_lower(k, q_lap, delta_c, n_users, v)
    out["lap_024"] = linkage.linked_delta_lower(k, q_lap, 0.24, n_users, v)[0]
    return out


#: the two readings of the printed protocol's shuffler in the repair claims
REPAIR_READINGS = (
    "as printed (one message per user, dummy vectors)",
    "repaired (d separate per-dimension shuffles)",
)


def repair_claim(bounds: dict, name: str, delta_c: float, note: str) -> dict:
    """The repair claim of ``name`` ("SS-Double" or "SS-Topk") as the chapter records it: ``ours`` (δ/δ_c
    under each reading of the shuffler: the certified lower bound as printed, 1 repaired), ``ours_text``
    and the declared ``note`` with the Laplace randomizer's bounds appended (from
    :func:`linkage_bounds`)."""
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    b = bounds[name]
    text = (
        rf"at $\varepsilon_c$ = {b['eps']:.3f}: as printed, δ ≥ {b['low']:.3g} = "
        rf"{b['low'] / delta_c:,.0f} $\delta_c$ (certified lower bound, threshold t = {b['t']}; "
        rf"{b['mp']:.6g} in 50-digit arithmetic); repaired, δ ≤ $\delta_c$ (certified composition)"
    )
    laplace = (
        ". With the experiments' Laplace randomizer (each value reduced to [y > 1/2]) the printed "
        f"protocol's ε at δ_c is at least {bounds['lap_eps']:.2f} and its δ(0.24) at least "
        f"{bounds['lap_024']:.2g}"
    )
    return {
        "ours": {REPAIR_READINGS[0]: b["low"] / delta_c, REPAIR_READINGS[1]: 1.0},
        "ours_text": text,
        "note": note + laplace,
    }


def index_posterior_table(beta: float, index_l, users: int, rng, d: int = 785):
    """FLAME, Definition 3 before Algorithm 4 (Pr[I_j = 1 | K(j)] = 1/l): for each l of ``index_l`` in
    turn (one ``rng`` for all), the simulated posterior that a reported index is Top-k
    (:func:`gspa.studies.flame.domains.index_posterior_simulated`, ``users`` users, ``d`` dimensions),
    its standard error, 1/l, their difference in standard errors and the ν that Definition 3 gives."""
    import pandas as pd

    post = {
        l: domains.index_posterior_simulated(d, beta, l, users, rng) for l in index_l
    }  # in the order of index_l: the draws of one generator
    rows = []
    for l, (p, se) in post.items():
        rows.append(
            {
                "l": l,
                "posterior (simulated)": p,
                "standard error": se,
                "1/l": 1 / l,
                "(simulated − 1/l) / s.e.": (p - 1 / l) / se if se > 0 else 0.0,
                "ν(l) by Definition 3": analysis.nu_of_l(l, beta),
            }
        )
    return pd.DataFrame(rows)


def prop2_holds(beta: float) -> bool:
    """FLAME, Proposition 2 at ``beta``: ν(l) of Definition 3 is 1 at l = ⌈1/β⌉, at least 1 and at most
    1/β for l in [2, ⌈1/β⌉], and unbounded (no index privacy) at l = 1."""
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    top = int(np.ceil(1 / beta))
    finite = [analysis.nu_of_l(l, beta) for l in range(2, top + 1)]
    return bool(
        (not finite or min(finite) == 1.0)
        and analysis.nu_of_l(top, beta) == 1.0
        and (not finite or max(finite) <= 1 / beta)
        and np.isinf(analysis.nu_of_l(1, beta))
    )
