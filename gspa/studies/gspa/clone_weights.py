"""Lemma 1's clone decomposition, checked: eqs. (9)–(10) in the two copies of the paper, the shared δ
component, and the largest clone weight eq. (11) allows for the paper's randomizers (common and personalized
budgets, any pair of Laplace inputs) and for random ε-LDP randomizers, by linear programming
(:mod:`gspa.privacy.basics.decomposition`). The chapter: book/chapters/gspa/lemma1."""

from __future__ import annotations

import numpy as np
import pandas as pd

from gspa.privacy.basics import decomposition
from gspa.privacy.basics.mechanisms import quaternary_pmfs
from gspa.studies.gspa import margins
from gspa.util import validate as V

#: the other inputs of the binned Laplace mechanism besides the differing user's 0 and 1
LAPLACE_OTHER_INPUTS = (0.25, 0.5, 0.75)


def _eps_values(eps_values) -> np.ndarray:
    return V.real(
        "eps_values", eps_values, low=0.0, high=50.0, low_open=True, ndim=1, max_size=1000
    )


def eq9_10_gaps(eps=1.0) -> dict:
    """Lemma 1, eqs. (9)–(10) with δ = 0 for binary randomized response (Q₁⁰, Q₁¹ the point masses on 0
    and 1): the largest gap between each copy's printed right-hand sides and the true outputs R(0), R(1).
    Copy 003 prints (10) equal to (9); copy 000 (the LaTeX source) swaps the weights in (10)."""
    e = V.real("eps", eps, low=0.0, high=700.0, low_open=True, scalar=True)
    R = decomposition.randomized_response(e, 2)
    w_hi, w_lo = np.exp(e) / (1 + np.exp(e)), 1 / (1 + np.exp(e))
    rhs = {
        "copy 003": (np.array([w_hi, w_lo]), np.array([w_hi, w_lo])),  # (9) and (10) identical
        "copy 000": (
            np.array([w_hi, w_lo]),
            np.array([w_lo, w_hi]),
        ),  # (10) with the weights swapped
    }
    return {
        copy: float(max(np.abs(r0 - R[0]).max(), np.abs(r1 - R[1]).max()))
        for copy, (r0, r1) in rhs.items()
    }


def delta_shared_tv(eps=1.0, delta=0.05) -> dict:
    """Lemma 1's eqs. (9)–(10) give the δ part a common component Q₁, so they allow
    TV(R(x₁⁰), R(x₁¹)) ≤ (1 − δ) tanh(ε/2) (``allowed``); Lemma 4's own (ε, δ) randomizer has ``tv`` =
    δ + (1 − δ) tanh(ε/2)."""
    e = V.real("eps", eps, low=0.0, high=700.0, low_open=True, scalar=True)
    d = V.probability("delta", delta, scalar=True, open_high=True)
    X0, X1 = quaternary_pmfs(e, d)
    return {"tv": 0.5 * float(np.abs(X0 - X1).sum()), "allowed": (1 - d) * np.tanh(e / 2)}


def common_budget_table(eps_values, k_values, laplace_width=12.0, laplace_bins=400) -> pd.DataFrame:
    """Lemma 1, eq. (11) for the paper's randomizers with a common budget and the differing user's inputs
    0 and 1: per ε, the largest feasible clone probability of k-ary randomized response (each k) and of the
    Laplace mechanism (observed in ``laplace_bins`` bins on [−width/ε, 1 + width/ε], other inputs 0.25, 0.5,
    0.75), against the paper's 1/(1 + e^ε) and FMT21's e^−ε/2 (columns ``ratio to paper``...)."""
    eps_values = _eps_values(eps_values)
    k_values = [
        V.integer("k_values", k, low=2, high=1000) for k in np.atleast_1d(k_values).tolist()
    ]
    width = V.real("laplace_width", laplace_width, low=0.0, high=1e4, low_open=True, scalar=True)
    bins = V.integer("laplace_bins", laplace_bins, low=4, high=10**5)
    rows = []
    for e in eps_values.tolist():
        for k in k_values:
            R = decomposition.randomized_response(e, k)
            p, _, _ = decomposition.max_clone_probability(R[0], R[1], R[2:], e)
            rows.append({"randomizer": f"{k}-ary RR", "ε": e, "largest p": p})
        inputs = [0.0, 1.0, *LAPLACE_OTHER_INPUTS]
        RL = decomposition.discrete_laplace_rows(inputs, e, width / e, bins)
        p, _, _ = decomposition.max_clone_probability(RL[0], RL[1], RL[2:], e)
        rows.append({"randomizer": "Laplace (binned)", "ε": e, "largest p": p})
    tab = pd.DataFrame(rows)
    tab["paper 1/(1+e^ε)"] = 1 / (1 + np.exp(tab["ε"]))
    tab["FMT21 e^−ε/2"] = np.exp(-tab["ε"]) / 2
    tab["ratio to paper"] = tab["largest p"] / tab["paper 1/(1+e^ε)"]
    return tab


def laplace_pair_table(eps_values, gaps=(1.0, 0.5, 0.1, 0.001)) -> pd.DataFrame:
    """Lemma 1 'for any n+1 inputs' with the Laplace mechanism: per ε and distance |x¹ − x⁰| of the
    differing user's pair, the smallest clone weight over the pair's position and the other input
    (:func:`margins.laplace_worst_pair_weight`, closed form), the paper's 1/(1 + e^ε), their ``ratio``, and
    the weight of the pair (0, gap) against the input 1 re-checked on a grid of outputs."""
    eps_values = _eps_values(eps_values)
    gaps = V.real("gaps", gaps, low=0.0, high=1.0, low_open=True, ndim=1, max_size=100)
    rows = []
    for e in eps_values.tolist():
        for gap in gaps.tolist():
            w = margins.laplace_worst_pair_weight(e, gap)
            rows.append(
                {
                    "ε": e,
                    "|x¹ − x⁰|": gap,
                    "smallest weight over pairs and xᵢ": w,
                    "paper 1/(1+e^ε)": 1 / (1 + np.exp(e)),
                    "ratio": w * (1 + np.exp(e)),
                    "grid re-check": margins.laplace_pair_clone_exact(e, 0.0, gap, 1.0),
                }
            )
    return pd.DataFrame(rows)


def random_ldp_ratios(rng, n_random=100, n_inputs=4, n_outputs=5, spread=2.0) -> dict:
    """Lemma 1, eq. (11) for every ε-LDP randomizer? ``n_random`` random randomizers
    (:func:`decomposition.random_ldp_randomizer`, drawn from ``rng``), ε their exact LDP budget: the
    largest feasible clone probability over the paper's 1/(1 + e^ε) (``paper``) and over FMT21's
    e^−ε/2 (``fmt21``), one entry per randomizer."""
    rng = V.generator("rng", rng)
    n_random = V.integer("n_random", n_random, low=1, high=10**4)
    n_inputs = V.integer("n_inputs", n_inputs, low=2, high=100)
    n_outputs = V.integer("n_outputs", n_outputs, low=2, high=100)
    spread = V.real("spread", spread, low=0.0, high=50.0, low_open=True, scalar=True)
    ratios, fmt_ratios = [], []
    for _ in range(n_random):
        R = decomposition.random_ldp_randomizer(rng, n_inputs, n_outputs, spread=spread)
        e = decomposition.dp_epsilon(R)
        p, _, _ = decomposition.max_clone_probability(R[0], R[1], R[2:], e)
        ratios.append(p * (1 + np.exp(e)))
        fmt_ratios.append(p / (np.exp(-e) / 2))
    return {"paper": np.array(ratios), "fmt21": np.array(fmt_ratios)}


def personalized_table(eps_n=0.5, eps_i_values=(0.1, 0.25, 0.5, 1.0, 2.0), ks=(2, 3, 4)) -> dict:
    """Lemma 1, eq. (11) across personalized budgets: the differing user's budget ``eps_n``, another
    user's ``eps_i``; per eps_i the clone weight that user's k-ary randomized response (each k in ``ks``)
    and Laplace mechanism (exact, whole line: 0 when εᵢ > εₙ) offer for the differing user's components,
    against the paper's pᵢ = 1/(1 + e^εᵢ). Returns the ``table`` and, per randomizer, the smallest
    weight / pᵢ (``ratios``, keyed by the table's column)."""
    eps_n = V.real("eps_n", eps_n, low=0.0, high=50.0, low_open=True, scalar=True)
    eps_i_values = _eps_values(eps_i_values).tolist()
    ks = [V.integer("ks", k, low=2, high=100) for k in np.atleast_1d(ks).tolist()]
    rows = []
    for eps_i in eps_i_values:
        row = {"εᵢ": eps_i, "paper pᵢ": 1 / (1 + np.exp(eps_i))}
        for k in ks:
            Rn = decomposition.randomized_response(eps_n, k)
            _, Q0, Q1 = decomposition.max_clone_probability(Rn[0], Rn[1], [], eps_n)
            row[f"{k}-RR weight"] = min(
                decomposition.clone_weight(r, Q0, Q1)
                for r in decomposition.randomized_response(eps_i, k)
            )
        row["Laplace weight"] = margins.laplace_clone_weight(eps_i, eps_n)
        rows.append(row)
    pers = pd.DataFrame(rows)
    columns = [f"{k}-RR weight" for k in ks] + ["Laplace weight"]
    return {
        "table": pers,
        "ratios": {c: float((pers[c] / pers["paper pᵢ"]).min()) for c in columns},
    }
