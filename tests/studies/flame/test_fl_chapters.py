"""The computations of FLAME's experiment chapters (flame/fl_utility, flame/fl_parameters) on small
hand-made tables whose answers are known: final accuracies, Figures 6-8's trends and drops, the loss
at β = 1/10, the gains under their readings."""

import math

import numpy as np
import pandas as pd
import pytest

from gspa.studies.flame import experiments as E
from gspa.studies.flame import utility as U


def _table(finals: dict, rounds: int = 2) -> pd.DataFrame:
    """A runs table whose accuracy at the last round is ``finals[label][seed]`` (0.1 before)."""
    rows = []
    for label, accs in finals.items():
        for seed, a in enumerate(accs):
            for t in range(rounds + 1):
                rows.append(
                    {
                        "label": label,
                        "seed": seed,
                        "round": t,
                        "accuracy": a if t == rounds else 0.1,
                    }
                )
    return pd.DataFrame(rows)


def _grid_settings():
    s678 = E.figures678(n=100, n_users=600, eps_lk=[0.5, 2.0], ratios=[1, 3], betas=[0.02, 0.1])
    return s678


def test_final_accuracy_reads_the_last_round_one_column_per_label():
    acc = U.final_accuracy(_table({"A": [0.5, 0.6], "B": [0.7, 0.8]}))
    assert list(acc.columns) == ["A", "B"] and list(acc.index) == [0, 1]
    assert acc.loc[1, "A"] == 0.6 and acc.loc[0, "B"] == 0.7


def test_parameter_grids_trends_and_drops():
    settings = _grid_settings()
    labels = [s.label for s in settings]
    # eps_lk rises for both seeds; n/n_p: the mean rises but seed 1 falls; beta falls
    finals = dict(
        zip(labels, [[0.5, 0.5], [0.6, 0.6], [0.5, 0.7], [0.7, 0.6], [0.8, 0.8], [0.6, 0.7]])
    )
    acc = U.final_accuracy(_table(finals))
    summary = pd.DataFrame({"label": labels, "dropped": [0, 0, 5, 9, 3, 3]})
    g = U.parameter_grids(acc, settings, summary)
    assert list(g) == ["eps_lk", "n/n_p", "beta"]
    assert g["eps_lk"]["trend"] == {"mean increasing": True, "every seed: last above first": True}
    assert g["n/n_p"]["trend"] == {"mean increasing": True, "every seed: last above first": False}
    assert g["beta"]["trend"]["mean increasing"] is False
    assert np.allclose(g["n/n_p"]["mean"], [0.6, 0.65]) and list(g["beta"]["values"]) == [0.02, 0.1]
    assert U.trend_claim(g["eps_lk"])["ours"] is True and U.trend_claim(g["n/n_p"])["ours"] is False
    assert U.trend_claim(g["eps_lk"])["ours_text"] == (
        "mean final accuracy 0.500 → 0.600; mean increasing: yes, every seed: last above first: yes"
    )
    assert U.largest_drop(g["n/n_p"]) == (9.0, 3.0)
    assert U.largest_drop(g["beta"]) == (3.0, 0.02)  # the first of equal drops
    with pytest.raises(ValueError, match="no run of Figure"):
        U.parameter_grids(acc, settings[:2], summary)


def test_loss_at_beta_in_points_and_percent():
    settings = _grid_settings()
    b10 = [s.label for s in settings if s.varied == "beta" and s.value == 0.1][0]
    acc = pd.DataFrame({"NP-FL": [0.9, 0.8], b10: [0.88, 0.76]})
    loss = U.loss_at_beta(acc, settings, beta=0.1)
    assert loss["label"] == b10
    assert math.isclose(loss["points"], 3.0) and math.isclose(loss["min"], 2.0)
    assert math.isclose(loss["max"], 4.0)
    assert math.isclose(loss["relative"], (2 / 0.9 + 4 / 0.8) / 2)
    with pytest.raises(ValueError, match="must contain 0.05"):
        U.loss_at_beta(acc, settings, beta=0.05)


def test_gain_readings_and_difference_text():
    acc = pd.DataFrame(
        {"SS-Topk": [0.8, 0.9], "O": [0.7, 0.7], "LDP": [0.4, 0.5], "SS-Double": [0.5, 0.5]}
    )
    rep = pd.DataFrame({"SS-Topk": [0.6, 0.6], "LDP": [0.3, 0.3], "SS-Double": [0.2, 0.4]})
    rows, r = U.gain_readings(acc, rep, "O", {"tl": ("SS-Topk", "LDP")}, {"tl": 60.7})
    assert list(r["tl"]) == [
        "points, fresh noise, paper n_p",
        "points, fresh noise, n_p = n",
        "points, repeated noise",
        "relative, fresh noise, paper n_p",
        "relative, fresh noise, n_p = n",
        "relative, repeated noise",
    ]
    assert math.isclose(r["tl"]["points, fresh noise, paper n_p"], 40.0)
    assert math.isclose(r["tl"]["points, fresh noise, n_p = n"], 25.0)
    assert math.isclose(r["tl"]["points, repeated noise"], 30.0)
    assert math.isclose(r["tl"]["relative, fresh noise, paper n_p"], (0.4 / 0.4 + 0.4 / 0.5) * 50)
    assert (
        len(rows) == 6 and rows[0]["paper"] == 60.7 and rows[0]["ours (min)"] == pytest.approx(40)
    )
    # a baseline that is not SS-Topk has no n_p = n reading
    _, r2 = U.gain_readings(acc, rep, "O", {"dd": ("SS-Double", "LDP")})
    assert len(r2["dd"]) == 4
    assert U.difference_text(acc, "SS-Topk", "LDP") == (
        "SS-Topk − LDP = +40.0 points (mean; per seed +40.0, +40.0)"
    )


def test_epsilon_with_the_local_budget_kept_is_the_authors_accounting_at_eps_l_over_k():
    # β = 1/10 of d = 7,850: k = 785 and ε_lk = 78.5 / 785 = 0.1
    p = E.scaled("SS-Topk", 1000, 6000, beta=0.1, eps=0.1)
    want = E.paper_privacy("SS-Topk", p, 2)["eps_epoch"]
    assert E.epoch_epsilon_fixed_local(1000, 6000, beta=0.1, epochs=2) == want
    assert math.isclose(want, 0.6213495923329396, rel_tol=1e-12)  # the book's paper build


def test_figure5_means_shares_and_differences():
    labels = list(U.FIGURE5_LABELS.values()) + ["SS-Topk (n/n_p = 1)"]
    summary = pd.DataFrame({"label": labels, "mean": np.linspace(0.1, 0.8, len(labels))})
    m = U.figure5_means(summary, "SS-Topk (n/n_p = 1)")
    assert m["np"] == pytest.approx(0.1) and m["topk_other"] == pytest.approx(0.8)
    assert list(m) == [*U.FIGURE5_LABELS, "topk_other"]
    # 12 rounds of 1000 users, k = 157 reports each at beta = 1/50: 1884 dropped values are 0.1 %
    assert U.dropped_share(1884.0, 12, 1000, 0.02) == pytest.approx(0.1)
    acc = pd.DataFrame({"A": [0.5, 0.7], "B": [0.4, 0.5]})
    assert U.mean_points(acc, "A", "B") == pytest.approx(15.0)
    assert U.mean_points(acc, "B", "A") == pytest.approx(-15.0)


def test_gain_values_and_claims_name_every_reading():
    acc = pd.DataFrame(
        {"SS-Topk": [0.8], "O": [0.7], "LDP-FL (Gaussian)": [0.4], "SS-Simple": [0.3]}
    )
    acc = acc.assign(**{"SS-Double": [0.35]})
    rep = acc * 0.5
    pairs = {
        "topk-vs-ldp": E.GAIN_PAIRS["topk-vs-ldp"],
        "double-vs-simple": E.GAIN_PAIRS["double-vs-simple"],
    }
    _, readings = U.gain_readings(acc, rep, "O", pairs)
    v = U.gain_values(readings)
    assert v == pytest.approx(
        {"tl_main": 40.0, "tl_quirk": 20.0, "tl_other": 30.0, "ds_main": 5.0, "ds_quirk": 2.5}
    )
    c = U.gain_claim(readings["double-vs-simple"])
    assert c["ours"] is readings["double-vs-simple"]
    assert c["ours_text"].startswith(
        "points, fresh noise, paper n_p: +5.0; points, repeated noise: +2.5"
    )


def test_by_variant_names_each_reading_with_its_ldp_baseline():
    """FLAME's "LDP-FL" read as the Gaussian and the Laplace baseline: every reading kept, named by both."""
    got = U.by_variant({"Gaussian": {"points": 1.0, "relative": 2.0}, "Laplace": {"points": 3.0}})
    assert got == {"points (Gaussian)": 1.0, "relative (Gaussian)": 2.0, "points (Laplace)": 3.0}
    assert U.by_variant({"Gaussian": True, "Laplace": False}) == {
        "LDP-FL (Gaussian)": True,
        "LDP-FL (Laplace)": False,
    }
    with pytest.raises(ValueError, match="keys"):
        U.by_variant({"Gaussian": 1.0})
    s = {x.label: x for x in E.figure5()}
    assert s["LDP-FL (Laplace)"].params.mechanism == "laplace"
    assert s["LDP-FL (Gaussian)"].params.mechanism == "gaussian"
    assert set(U.LDP_VARIANTS.values()) <= set(s) and set(U.LDP_VARIANTS.values()) <= set(
        U.FIGURE5_LABELS.values()
    )
