"""What FLAME's experiment chapters read off the federated runs (Liu et al., AAAI 2021, section
*Evaluations*): the final accuracy per seed, Figures 6-8's trends over their grids, the paper's
percentages under their readings, and the texts the claims quote. The runs themselves are
:func:`gspa.studies.flame.experiments.runs`; the chapters are flame/fl_utility (Figure 5) and
flame/fl_parameters (Figures 6-8)."""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V

#: Figures 6-8: the parameter each varies, its axis label and the axis scale of the figure
FIGURES678 = {
    6: ("eps_lk", "ε_lk (budget of one reported dimension)", "log"),
    7: ("n/n_p", "n / n_p", "linear"),
    8: ("beta", "β = k / d", "log"),
}

#: Figure 5's final accuracies published by the chapter (value name -> run label)
FIGURE5_LABELS = {
    "np": "NP-FL",
    "dp": "DP-FL (0.24)",
    "dp20": "DP-FL (20.53)",
    "ldp": "LDP-FL (Gaussian)",
    "ldp_laplace": "LDP-FL (Laplace)",
    "simple": "SS-Simple",
    "double": "SS-Double",
    "topk": "SS-Topk",
}

#: the readings of the paper's percentages: (name, frame, label of the better protocol) per variant
FRESH, OTHER_NP, REPEATED = "fresh noise, paper n_p", "fresh noise, n_p = n", "repeated noise"


def final_accuracy(table):
    """FLAME, Evaluations (Figures 5-8 read at the last round): the test accuracy after the last round
    of ``table`` (:func:`gspa.studies.flame.experiments.runs`), one row per seed and one column per
    label (seeds paired)."""
    last = table[table["round"] == table["round"].max()]
    return last.pivot(index="seed", columns="label", values="accuracy")


def parameter_grids(acc, settings, summary) -> dict:
    """FLAME, Figures 6-8 ("Impact of ε_lk", "of n/n_p", "of β = k/d"): for each varied parameter
    (``eps_lk``, ``n/n_p``, ``beta``) the grid's values and labels, the final accuracy over seeds
    (mean, min, max per grid point), the two trends the paper's orderings are judged by ("mean
    increasing": the mean rises at every step; "every seed: last above first") and the values the
    padding dropped per run (``summary``: :func:`gspa.studies.flame.experiments.final`). ``acc``: one
    row per seed, one column per label (:func:`final_accuracy`)."""
    settings = list(settings)
    out = {}
    for figure, (var, xlabel, scale) in FIGURES678.items():
        part = [s for s in settings if s.figure == figure]
        if not part:
            raise ValueError(f"settings hold no run of Figure {figure} (varying {var})")
        cols = [s.label for s in part]
        per_seed = acc[cols].values  # (seeds, grid)
        mean = acc[cols].mean().values
        out[var] = {
            "figure": figure,
            "xlabel": xlabel,
            "scale": scale,
            "values": np.array([s.value for s in part]),
            "labels": cols,
            "mean": mean,
            "min": acc[cols].min().values,
            "max": acc[cols].max().values,
            "trend": {
                "mean increasing": bool(np.all(np.diff(mean) > 0)),
                "every seed: last above first": bool(np.all(per_seed[:, -1] > per_seed[:, 0])),
            },
            "dropped": summary.set_index("label").loc[cols, "dropped"].values,
        }
    return out


def trend_text(grid: dict) -> str:
    """The claim text of one of Figures 6-8's orderings: the mean final accuracy along the grid and
    whether each trend of :func:`parameter_grids` holds."""
    means = " → ".join(f"{m:.3f}" for m in grid["mean"])
    trends = ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in grid["trend"].items())
    return f"mean final accuracy {means}; {trends}"


def trend_claim(grid: dict) -> dict:
    """One of FLAME's orderings over Figures 6-8 (Evaluations, Comparison under Variant Parameters) as
    a claim's values: ``ours`` (both trends of :func:`parameter_grids` hold) and ``ours_text``."""
    text = trend_text(grid)
    return {"ours": all(grid["trend"].values()), "ours_text": text}


def largest_drop(grid: dict) -> tuple[float, float]:
    """(dropped values, grid value): the most values SS-Topk's padding dropped per run along one of
    Figures 7-8's grids, and where (the first such point)."""
    drop = dict(zip(grid["values"], grid["dropped"]))
    return float(max(drop.values())), float(max(drop, key=drop.get))


def loss_at_beta(acc, settings, beta: float = 0.1, baseline: str = "NP-FL") -> dict:
    """FLAME, Abstract and Evaluations ("with β = 1/10 … only 1.48% loss compared with NP-FL"): the
    loss of Figure 8's run at ``beta`` against ``baseline`` per seed, in accuracy points (mean, min,
    max) and relative in % (mean). A ValueError when Figure 8's grid lacks ``beta``."""
    settings = list(settings)
    beta = V.real("beta", beta, low=0.0, high=1.0, scalar=True)
    labs = [s.label for s in settings if s.varied == "beta" and s.value == beta]
    if not labs:
        grid = [s.value for s in settings if s.varied == "beta"]
        raise ValueError(
            f"Figure 8's betas must contain {beta:g} for the paper's claim, got {grid}"
        )
    pts = (acc[baseline] - acc[labs[0]]) * 100
    rel = (acc[baseline] - acc[labs[0]]) / acc[baseline] * 100
    return {
        "label": labs[0],
        "points": float(pts.mean()),
        "relative": float(rel.mean()),
        "min": float(pts.min()),
        "max": float(pts.max()),
    }


def difference_text(acc, a: str, b: str) -> str:
    """``a − b = +x.x points (mean; per seed …)``: the final-accuracy difference of two runs (seeds
    paired), as the ordering claims of FLAME's Figure 5 quote it."""
    diff = acc[a] - acc[b]
    seeds = ", ".join(f"{v * 100:+.1f}" for v in diff)
    return f"{a} − {b} = {diff.mean() * 100:+.1f} points (mean; per seed {seeds})"


def gain_readings(acc, acc_repeated, other: str, pairs: dict, paper: dict | None = None) -> tuple:
    """FLAME, Abstract and Evaluations: the paper's percentage gains of final accuracy under every
    reading — "%" as accuracy points or relative, SS-Topk at the paper's n_p or at ``other`` (its run
    at n_p = n), fresh noise (``acc``) or the authors' repeated noise (``acc_repeated``). ``pairs``:
    claim key -> (better, baseline); ``paper``: claim key -> the paper's value (a column of the rows).
    Returns (rows, readings): one row per (claim, reading) with the mean, min and max of the per-seed
    gain, and per claim key the mean gain by reading."""
    from gspa.studies.flame.experiments import paired_gain

    rows, readings = [], {}
    for key, (a, b) in pairs.items():
        variants = [(FRESH, acc, a)] + ([(OTHER_NP, acc, other)] if a == "SS-Topk" else [])
        variants.append((REPEATED, acc_repeated, a))
        readings[key] = {}
        for rel in (False, True):
            for vname, frame, better in variants:
                g = paired_gain(frame, better, b, rel)
                name = ("relative" if rel else "points") + ", " + vname
                readings[key][name] = float(g.mean())
                rows.append(
                    {
                        "claim": f"{a} over {b}",
                        "reading": name,
                        **({"paper": paper[key]} if paper else {}),
                        "ours (mean)": float(g.mean()),
                        "ours (min)": float(g.min()),
                        "ours (max)": float(g.max()),
                    }
                )
    return rows, readings


def figure5_means(summary, other: str) -> dict:
    """FLAME, Figure 5: the mean final accuracy over seeds of each run (named as in
    :data:`FIGURE5_LABELS`, and ``topk_other`` for SS-Topk's run at n_p = n, label ``other``)."""
    m = summary.set_index("label")
    labels = {**FIGURE5_LABELS, "topk_other": other}
    return {key: float(m.loc[label, "mean"]) for key, label in labels.items()}


def dropped_share(dropped: float, rounds: int, n: int, beta: float, d: int = 7850) -> float:
    """The share in % of SS-Topk's Top-k reports that its padding dropped (FLAME, Algorithm 3 cannot
    pad a dimension holding more than n_p values; the book drops the excess): ``dropped`` values per
    run over ``rounds`` rounds of ``n`` users, each reporting k = ⌊``beta`` d⌋ values."""
    from gspa.studies.flame.protocols import sample_size

    dropped = V.real("dropped", dropped, low=0.0, scalar=True)
    rounds = V.integer("rounds", rounds, low=1, high=10**6)
    n, d = V.integer("n", n, low=1, high=10**9), V.integer("d", d, low=1, high=10**9)
    return dropped / (rounds * n * sample_size(beta, d)) * 100


def mean_points(acc, a: str, b: str) -> float:
    """The mean over seeds of run ``a``'s final accuracy minus run ``b``'s, in accuracy points (x 100;
    FLAME, Evaluations, the orderings of Figure 5)."""
    return float((acc[a] - acc[b]).mean() * 100)


#: short names of the paper's gains for the chapter's values (gain_<short>_<reading>)
GAIN_SHORT = {
    "topk-vs-ldp": "tl",
    "topk-vs-ldp-laplace": "tll",
    "topk-vs-dp": "td",
    "double-vs-simple": "ds",
    "topk-vs-double": "tdd",
}


def gain_values(readings: dict) -> dict:
    """The gains in accuracy points that FLAME's Figure 5 chapter quotes, keyed ``<short>_main`` (fresh
    noise, paper n_p), ``<short>_quirk`` (repeated noise) and ``<short>_other`` (n_p = n, SS-Topk
    only), from :func:`gain_readings`'s readings; ``<short>`` from :data:`GAIN_SHORT`."""
    out = {}
    for key, r in readings.items():
        s = GAIN_SHORT[key]
        out[f"{s}_main"] = r[f"points, {FRESH}"]
        out[f"{s}_quirk"] = r[f"points, {REPEATED}"]
        if f"points, {OTHER_NP}" in r:
            out[f"{s}_other"] = r[f"points, {OTHER_NP}"]
    return out


def gain_claim(reading: dict) -> dict:
    """One of FLAME's percentage gains as a claim's values: ``ours`` (the mean gain by reading, one
    entry of :func:`gain_readings`'s readings) and ``ours_text``."""
    text = "; ".join(f"{k}: {v:+.1f}" for k, v in reading.items())
    return {"ours": reading, "ours_text": text}


#: the two LDP-FL baselines FLAME names (Evaluations: Gaussian for (ε, δ)-LDP, Laplace for ε-LDP)
LDP_VARIANTS = {"Gaussian": "LDP-FL (Gaussian)", "Laplace": "LDP-FL (Laplace)"}


def by_variant(values: dict) -> dict:
    """FLAME's "LDP-FL" read as each baseline it names: ``values`` maps a variant of :data:`LDP_VARIANTS` to a
    dict of readings (or to one value); returns one dict with the variant appended to each reading's name."""
    if set(values) != set(LDP_VARIANTS):
        raise ValueError(f"values must have the keys {sorted(LDP_VARIANTS)}, got {sorted(values)}")
    out = {}
    for variant, v in values.items():
        items = v.items() if isinstance(v, dict) else [("LDP-FL", v)]
        out.update({f"{name} ({variant})": x for name, x in items})
    return out
