import math

import pytest
import torch

from gspa.experiments import mnist
from gspa.studies.flame import experiments as E
from gspa.studies.flame import protocols as P

torch.set_num_threads(1)


def test_figure_configurations_are_valid_and_vary_one_parameter():
    s5 = E.figure5()
    assert [s.label for s in s5][:3] == ["NP-FL", "DP-FL (0.24)", "DP-FL (20.53)"]
    for s in s5:
        P.check(s.protocol, s.params)
    topk = {s.label: s.params for s in s5 if s.protocol == "SS-Topk"}
    assert topk["SS-Topk"].n_p == 333 and topk["SS-Topk"].overflow == "drop"
    assert topk["SS-Topk (n/n_p = 1)"].n_p == 1000
    base = topk["SS-Topk"]
    s678 = E.figures678()
    assert {s.figure for s in s678} == {6, 7, 8}
    for s in s678:
        fields = {k for k in ("eps", "n_p", "beta") if getattr(s.params, k) != getattr(base, k)}
        assert fields <= {{"eps_lk": "eps", "n/n_p": "n_p", "beta": "beta"}[s.varied]}
    assert any(s.varied == "beta" and s.value == 0.1 for s in s678)
    assert any(s.varied == "n/n_p" and s.value == 3 and s.params == base for s in s678)


def test_paper_privacy_reproduces_the_authors_numbers():
    # get_budget.py of Rachelxuan11/FLAME prints these; the paper quotes 0.91, 0.24 and 20.53 (Evaluations)
    s = {x.label: x for x in E.figure5()}
    simple = E.paper_privacy("SS-Simple", s["SS-Simple"].params)
    double = E.paper_privacy("SS-Double", s["SS-Double"].params)
    nosub = E.paper_privacy("SS-Topk", s["SS-Topk"].params, subsampling=False)
    assert abs(simple["eps_epoch"] - 0.91) < 0.005
    assert abs(double["eps_epoch"] - 0.237926) < 1e-5  # the DP-FL budget of the README
    assert abs(nosub["eps_epoch"] - 20.5352544) < 1e-4
    assert (
        abs(double["delta_epoch"] - 5.01e-6) < 1e-8
        and double["eps_total"] == 2 * double["eps_epoch"]
    )
    # more padding -> more amplification
    p = s["SS-Topk"].params
    assert (
        E.paper_privacy("SS-Topk", E.scaled("SS-Topk", ratio=1))["eps_epoch"]
        < E.paper_privacy("SS-Topk", p)["eps_epoch"]
    )


def test_exact_privacy_of_the_gaussian_baselines():
    from gspa.privacy.basics import mechanisms as M

    s = {x.label: x for x in E.figure5()}
    p = s["DP-FL (0.24)"].params
    ex = E.exact_privacy("DP-FL", p, 5e-6)
    sigma = (2 * p.clip_l2 / p.eps) * math.sqrt(2 * math.log(1.25 / p.delta))
    assert abs(float(M.gaussian_delta(ex["eps_epoch"], sigma, 2 * p.clip_l2)) - 5e-6) < 1e-9
    assert (
        ex["eps_epoch"] < p.eps and ex["eps_epoch"] < ex["eps_total"] < 2 * p.eps
    )  # the classic calibration is conservative
    assert E.exact_privacy("SS-Double", s["SS-Double"].params, 5e-6)["eps_epoch"] == pytest.approx(
        78.5
    )
    assert math.isinf(E.exact_privacy("SS-Topk", s["SS-Topk"].params, 5e-6)["eps_epoch"])
    tab = E.privacy_table(E.figure5())
    assert len(tab) == 9 and not tab["paper eps/epoch"].isna().any()
    lap = tab.set_index("label").loc["LDP-FL (Laplace)"]  # the paper's ε-LDP baseline: pure, δ = 0
    assert lap["exact eps/epoch"] == pytest.approx(0.237926) and lap["paper delta/epoch"] == 0


def tiny_users():
    return P.users(E.scaled("NP-FL", n=50, n_users=100), mnist.synthetic(1400, 10, seed=0))


def test_tiny_runs_end_to_end_and_deterministic(tmp_path):
    u = tiny_users()
    sets = [s for s in E.figure5(n=50, n_users=100) if s.label in ("NP-FL", "SS-Topk", "SS-Double")]
    sets += [s for s in E.figures678(n=50, n_users=100, eps_lk=(1.0,), ratios=(2,), betas=(0.05,))]
    kw = dict(data=u, data_id="synthetic-test", progress=False)
    a = E.runs(sets, [0, 1], 3, cache_dir=tmp_path / "a", **kw)
    b = E.runs(sets, [0, 1], 3, cache_dir=tmp_path / "b", **kw)
    assert len(a) == len(sets) * 2 * 4
    assert a["accuracy"].tolist() == b["accuracy"].tolist()
    assert set(a.columns) >= {
        "figure",
        "label",
        "protocol",
        "seed",
        "round",
        "epoch",
        "accuracy",
        "dropped",
    }
    assert a[a["round"] == 3]["epoch"].eq(1.5).all()
    f = E.final(a)
    assert len(f) == len(sets) and (f["seeds"] == 2).all() and (f["min"] <= f["mean"]).all()
    assert f.set_index("label").loc["NP-FL", "mean"] > 0.5
    topk = a[a.label == "SS-Topk"].sort_values("round")
    curves = [topk[topk.seed == s]["accuracy"].tolist() for s in (0, 1)]
    assert (
        len(curves[0]) == 4 and curves[0] != curves[1]
    )  # seeds differ (300 test images: a round can tie)
    pc = E.percentages(f)
    assert set(pc) == {"topk-vs-double"}
    m = f.set_index("label")["mean"]
    assert pc["topk-vs-double"] == pytest.approx(100 * (m["SS-Topk"] - m["SS-Double"]))


def test_repeated_noise_reading_repeats_the_noise(tmp_path):
    u = tiny_users()
    p = E.scaled("DP-FL", n=50, n_users=100)
    a = E.run_repeated_noise("DP-FL", p, 0, 3, data=u, cache_dir=tmp_path, data_id="synthetic-test")
    b = E.run_repeated_noise(
        "DP-FL", p, 0, 3, data=u, cache_dir=tmp_path / "x", data_id="synthetic-test"
    )
    assert a == b and len(a) == 4
    fresh = E.runs(
        [E.Setting(5, "DP", "DP-FL", p)],
        [0],
        3,
        data=u,
        data_id="synthetic-test",
        cache_dir=tmp_path / "f",
        progress=False,
    )["accuracy"].tolist()
    assert fresh[:2] == a[:2] and fresh != a  # round 0 identical, later rounds differ


def test_paired_gain_is_per_seed_and_pairs_the_seeds():
    import pandas as pd

    acc = pd.DataFrame({"A": [0.8, 0.6], "B": [0.4, 0.5]}, index=[0, 1])
    assert E.paired_gain(acc, "A", "B").tolist() == pytest.approx([40.0, 10.0])
    assert E.paired_gain(acc, "A", "B", relative=True).tolist() == pytest.approx([100.0, 20.0])


def test_orderings_and_approaches_are_per_seed_and_threshold_free():
    import pandas as pd

    acc = pd.DataFrame(
        {"NP": [0.90, 0.92], "DP20": [0.89, 0.91], "TOPK": [0.80, 0.93], "LDP": [0.1, 0.2]}
    )
    o = E.orderings(acc, {"a": ("DP20", "LDP"), "b": ("DP20", "TOPK")})
    assert o == {"a": True, "b": False}  # b fails at seed 1 only
    r = E.approaches(acc, "DP20", "NP", "TOPK")
    assert r["closer to NP-FL"] and r["within range"]
    r2 = E.approaches(acc.assign(DP20=[0.86, 0.87]), "DP20", "NP", "TOPK")
    assert not r2["within range"] and not r2["closer to NP-FL"]
