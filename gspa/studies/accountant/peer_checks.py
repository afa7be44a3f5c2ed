"""Peers' reductions checked (chapters notebooks/accountant/peers.md and eon.md): Wang et al.'s Lemma 4.5 for binary
randomized response and at realistic sizes, Su–Cheng–Wang's k-ary bound beside gspa's blanket pair, the best
decomposition of binary randomized response against the exact worst case, and EoN's number under its own
Clip-Laplace mechanism. The library's functions (gspa.privacy.peers, gspa.privacy.exact) compute each case;
these functions run the chapter's grids of cases and summarise them."""

from __future__ import annotations

import math

import numpy as np

from gspa.studies.accountant.arguments import check


def lemma45_binary_margin(ns=(2, 3, 4, 5, 6), eps0_values=(0.1, 1.0, 3.0)) -> float:
    """Wang et al. (VLDB 2024), Lemma 4.5 for binary randomized response (k = 2, no third component): the
    smallest margin, the pair's δ minus the exhaustively enumerated protocol's, over ``ns`` users (each in
    [2, 8]) and local budgets ``eps0_values`` (in (0, 100]). Not negative when the lemma holds there."""
    check(ns=ns, eps0_values=eps0_values)
    ns, eps0_values = list(ns), list(eps0_values)
    from gspa.privacy.exact import peers as exact_peers

    return min(exact_peers.lemma45_margin(n, 2, e0) for n in ns for e0 in eps0_values)


def _confirm(n: int, k: int, eps0: float, e: float) -> tuple[float, float]:
    """Wang et al.'s Lemma 4.5 violation at (n, k, ε₀, ε) recomputed in 40 digits: (protocol's δ lower bound,
    the pair's δ)."""
    from gspa.privacy.peers import variation_scale

    return variation_scale.mp_gap(n, k, eps0, e)


def lemma45_at_scale(users, ks, eps0_values, delta: float = 1e-6) -> dict:
    """Wang et al.'s Lemma 4.5 at realistic sizes (:func:`gspa.privacy.peers.variation_scale.summary`: one
    explicit pair of data sets of k-ary randomized response, a certified lower bound on the protocol's δ(ε),
    against the pair's) for ``users`` × ``ks`` × ``eps0_values``, and what the chapter says of it. Returns
    ``rows`` (the summary), ``values`` (glue name → (value, format)): the counts of violations, and where
    there are some the largest one in δ and in ε at ``delta``, each recomputed in 40-digit arithmetic
    (:func:`gspa.privacy.peers.variation_scale.mp_gap`; an AssertionError when it does not confirm it);
    ``regime`` (where the violations lie: the largest expected number of others reporting x¹,
    n/(e^ε₀ + k − 1), at the smallest ε₀ violated) and ``text`` (the finding, for the claim)."""
    check(users=users, ks=ks, eps0_values=eps0_values, delta=delta)
    from gspa.privacy.peers import variation_scale

    rows = variation_scale.summary(users, ks, eps0_values, delta)
    bad = [r for r in rows if r["violations"] > 0]
    values = {
        "scale_delta": (delta, "{:g}"),
        "scale_violations": (sum(r["violations"] for r in rows), "{:d}"),
        "scale_tried": (sum(r["tried"] for r in rows), "{:d}"),
        "scale_rows": (len(rows), "{:d}"),
        "scale_rows_bad": (len(bad), "{:d}"),
    }
    if not bad:
        text = f"none found (n ∈ {list(users)}, k ∈ {list(ks)}, ε₀ ∈ {list(eps0_values)})"
        return {"rows": rows, "values": values, "regime": "none found", "text": text}
    lam = max(r["n"] / (float(np.exp(r["first_eps0"])) + r["k"] - 1) for r in bad)
    regime = (
        f"n/(e^ε₀ + k − 1) ≤ {lam:.0f} at the smallest ε₀ violated; none at smaller ε₀ beyond the "
        "round-off allowance"
    )
    w = max(rows, key=lambda r: r["excess"])
    lo, hi = _confirm(int(w["n"]), int(w["k"]), float(w["eps0"]), float(w["eps"]))
    if not lo > hi:
        raise AssertionError(
            f"the 40-digit recomputation does not confirm the violation at {w}: {lo} <= {hi}"
        )
    values |= {
        "scale_n": (int(w["n"]), "{:d}"),
        "scale_k": (int(w["k"]), "{:d}"),
        "scale_eps0": (float(w["eps0"]), "{:g}"),
        "scale_eps": (float(w["eps"]), "{:.4g}"),
        "scale_lower": (lo, "{:.4g}"),
        "scale_pair": (hi, "{:.3g}"),
        "scale_lambda": (lam, "{:.0f}"),
    }
    text = (
        f"explicit data sets, exact count law: n = {int(w['n'])}, {int(w['k'])}-RR, ε₀ = "
        f"{w['eps0']:g}: δ({w['eps']:.4g}) ≥ {lo:.4g} against the pair's {hi:.3g} (40 digits)"
    )
    in_eps = [r for r in rows if r["eps_lower"] is not None]
    if in_eps:
        d = max(in_eps, key=lambda r: r["eps_lower"] - r["eps_pair"])
        mid = 0.5 * (float(d["eps_lower"]) + float(d["eps_pair"]))
        lo_d, hi_d = _confirm(int(d["n"]), int(d["k"]), float(d["eps0_at_delta"]), mid)
        if not lo_d > delta >= hi_d:
            raise AssertionError(
                f"40 digits do not confirm the violation in ε at {d}: {lo_d}, {hi_d} at ε = {mid}"
            )
        values |= {
            "scale_d_n": (int(d["n"]), "{:d}"),
            "scale_d_k": (int(d["k"]), "{:d}"),
            "scale_d_eps0": (float(d["eps0_at_delta"]), "{:g}"),
            "scale_d_lower": (float(d["eps_lower"]), "{:.3f}"),
            "scale_d_pair": (float(d["eps_pair"]), "{:.3f}"),
        }
        text += (
            f"; ε({delta:g}) ≥ {d['eps_lower']:.3f} against the pair's {d['eps_pair']:.3f} for n = "
            f"{int(d['n'])}, {int(d['k'])}-RR, ε₀ = {d['eps0_at_delta']:g}"
        )
    return {"rows": rows, "values": values, "regime": regime, "text": text}


def scw_against_blanket(ks, eps0_values, users, grid) -> list[dict]:
    """Su, Cheng and Wang (S&P 2026), their k-ary randomized response bound evaluated exactly
    (:func:`gspa.privacy.peers.parv.parv_delta`) against gspa's certified blanket pair at each ε of ``grid``,
    for every k of ``ks`` (in [2, 10^4]), ε₀ of ``eps0_values`` and n of ``users``: per case the number of
    points where their δ exceeds 10⁻¹², their largest δ, and the smallest and largest gspa / theirs − 1
    there."""
    check(ks=ks, eps0_values=eps0_values, users=users)
    from gspa.privacy.peers import parv
    from gspa.privacy.shuffle import accountant
    from gspa.util import validate as V

    grid = V.real("grid", grid, low=0.0, high=700.0, ndim=1)
    rows = []
    for k in ks:
        for e0 in eps0_values:
            for n in users:
                theirs = parv.parv_delta(e0, k, n, grid)
                ours = np.asarray(
                    accountant.personalized_pair(
                        np.array([e0]), None, randomizer="k-rr", k=k, counts=np.array([n])
                    ).delta(grid)
                )
                big = theirs > 1e-12
                rows.append(
                    {
                        "k": k,
                        "ε₀": e0,
                        "n": n,
                        "points with δ > 1e-12": int(big.sum()),
                        "largest δ (theirs)": float(theirs.max()),
                        "gspa / theirs − 1, smallest": float((ours[big] / theirs[big] - 1).min()),
                        "gspa / theirs − 1, largest": float((ours[big] / theirs[big] - 1).max()),
                    }
                )
    return rows


def binary_decomposition(eps0_values, users: int, delta: float = 1e-6) -> list[dict]:
    """Binary randomized response, ``users`` users with one budget ε₀ (each of ``eps0_values``): the exact ε at
    ``delta`` over every data set (:func:`gspa.privacy.exact.enumeration.every_data_set_epsilon`), and the
    best decomposition (FMT23's pair, also Wang et al.'s) and gspa's cell bound as multiples of it. An
    AssertionError when an upper bound is below the exact worst case (found by bisection to 1e-9)."""
    check(eps0_values=eps0_values, users=[users], delta=delta)
    from gspa.privacy.exact.enumeration import every_data_set_epsilon
    from gspa.privacy.shuffle import accountant, pairs

    rows = []
    for e0 in eps0_values:
        exact, _ = every_data_set_epsilon(e0, users, delta)
        hist = (np.array([e0]), np.array([users]))
        blanket = pairs.fmt23_pair(e0, users).epsilon(delta)
        cells = accountant.personalized_pair(hist[0], counts=hist[1], reduction="cells")
        rows.append(
            {
                "ε₀": e0,
                "exact (every data set)": exact,
                "blanket decomposition (FMT23 pair) / exact": blanket / exact,
                "cell bound / exact": cells.epsilon(delta) / exact,
            }
        )
    if any(
        r["cell bound / exact"] < 1 - 1e-8
        or r["blanket decomposition (FMT23 pair) / exact"] < 1 - 1e-8
        for r in rows
    ):
        raise AssertionError(f"an upper bound is below the exact worst case: {rows}")
    return rows


#: the column of :func:`clip_laplace_rows` with the certified lower bound on δ at EoN's ε
CLIP_LOWER = "δ lower bound at EoN's ε"


def clip_laplace_rows(users, liberal, delta: float = 1e-8) -> list[dict]:
    """Liu et al. ("Echo of neighbors", AAAI 2023) under their own Clip-Laplace mechanism: EoN's ε at
    ``delta`` (:func:`gspa.privacy.peers.eon.eon_epsilon`) and a certified lower bound on the shuffled
    protocol's δ at that ε (:func:`gspa.privacy.peers.eon.clip_laplace_margin`), for n of ``users`` (in
    [100, 10^6]) in the tested setting (one user at 0.1 among users at 1, either one differing) and with one
    liberal user at each budget of ``liberal`` among users at 0.05."""
    check(users=users, eps0_values=liberal, delta=delta)
    from gspa.privacy.peers import eon

    settings = [
        ("one at 0.1 among users at 1; the one at 0.1 differs", 0.1, 1.0),
        ("one at 0.1 among users at 1; a user at 1 differs", 1.0, 0.1),
    ]
    settings += [(f"one at {d:g} among users at 0.05", d, 0.05) for d in liberal]
    return [
        {
            "setting": name,
            "n": int(n),
            "ε, EoN": eon.eon_epsilon(np.append(d, np.full(int(n) - 1, o)), delta),
            CLIP_LOWER: (1 - eon.clip_laplace_margin(int(n), d, o, delta)) * delta,
        }
        for name, d, o in settings
        for n in users
    ]


def clip_laplace_summary(rows: list[dict], liberal, delta: float = 1e-8) -> dict:
    """What :func:`clip_laplace_rows` shows: ``tested_max`` (the largest lower bound in the tested setting,
    users at 1), ``fail_max`` and ``fail_n`` (the largest lower bound above ``delta`` and its n; 0 when
    none), ``hold_d`` (the largest liberal budget at which EoN's number holds at every n; NaN when none)."""
    check(eps0_values=liberal, delta=delta)
    tested = [r[CLIP_LOWER] for r in rows if "among users at 1" in r["setting"]]
    fails = [r for r in rows if r[CLIP_LOWER] > delta]
    worst = max(fails, key=lambda r: r[CLIP_LOWER]) if fails else None
    failed = {r["setting"] for r in fails}
    held = [d for d in liberal if f"one at {d:g} among users at 0.05" not in failed]
    return {
        "tested_max": float(max(tested)),
        "fail_max": float(worst[CLIP_LOWER]) if worst else 0.0,
        "fail_n": int(worst["n"]) if worst else 0,
        "hold_d": max(held) if held else math.nan,
    }
