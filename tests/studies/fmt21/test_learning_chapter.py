"""The learning chapter's grids, curves and summaries (gspa.studies.fmt21.learning: log_grid, scaled_rates,
thesis_summary, largest_n_ratios, eq4_note_table, k_spread), each against a direct computation."""

import numpy as np
import pytest

from gspa.studies.fmt21 import learning as L


@pytest.fixture(scope="module")
def sim():
    n = L.log_grid(2.5, 5.0, 5)
    grid = L.tv_grid([1.0], [10, 100], n, 1e-6, 20, 0)
    weak = L.tv_grid([1.0], [10, 100], n, 1e-6, 20, 1, models=("central",), central_divisor=3.7)
    return grid, L.thesis_table(grid, 1e-6, weak)


def test_log_grid_is_whole_and_log_spaced():
    assert list(L.log_grid(2.0, 4.0, 3)) == [100, 1000, 10000]
    assert list(L.log_grid(1.0, 1.05, 5)) == [10, 11]  # repeats dropped


def test_scaled_rates_meet_the_curves_at_the_largest_n(sim):
    grid, _ = sim
    c = L.scaled_rates(grid, 1e-6)
    assert (c.index == grid.index).all() and (c["mean"] == grid["mean"]).all()
    for (eps, k, model), g in c.groupby(["eps", "k", "model"]):
        assert g.rate.iloc[-1] == pytest.approx(g["mean"].iloc[-1])  # met at the largest n
        a = L.invert_rate(L.RATES[model](k, eps, 1e-6), g.n.to_numpy(float))
        assert np.allclose(g.rate / a, g.rate.iloc[-1] / a[-1])  # one factor per curve
        if model == "shuffle":
            want = np.minimum(L.krr_tv_approx(g.n.to_numpy(float), k, g.eps_l.to_numpy(float)), 1)
            assert np.allclose(g.krr, want)
        else:
            assert g.krr.isna().all()


def test_thesis_summary_reads_the_table(sim):
    _, table = sim
    s = L.thesis_summary(table)
    readings = list(L.READINGS)
    for i, r in enumerate(readings, start=1):
        judged = table[(table.reading == r)].dropna(subset=["slope_shuffle"])
        if len(judged):
            assert s["miss"][f"miss_{i}"] == L.excess(table, "shuffle", r) == s["by_reading"][r]
            bad = judged[~judged.shuffle_matches.astype(bool)]
            assert s["texts"][f"fails_{i}"].count("(ε =") == len(bad)
        else:
            assert s["texts"][f"miss_{i}"].startswith("not judged")
            assert s["texts"][f"fails_{i}"] == "not judged"
    t1 = table[table.reading == readings[0]].dropna(subset=["slope_shuffle"])
    assert s["worst"].ratio_shuffle == t1.ratio_shuffle.max()
    assert s["local_least_miss"] == L.least_excess(table, "local", readings[0])


def test_largest_n_ratios(sim):
    grid, _ = sim
    r = L.largest_n_ratios(grid)
    top = grid[grid.n == grid.n.max()]
    mean = lambda m, k: float(top[(top.model == m) & (top.k == k)]["mean"].iloc[0])
    assert r["largest_n"] == 100000
    assert r["shuffle_over_central"] == pytest.approx(
        max(mean("shuffle", k) / mean("central", k) for k in (10, 100))
    )
    assert r["local_over_central"] == pytest.approx(
        min(mean("local", k) / mean("central", k) for k in (10, 100))
    )


def test_eq4_note_table_is_off_by_k():
    t = L.eq4_note_table([2, 1000], [0.01])
    assert list(t.k) == [2, 1000]
    assert np.allclose(t["first term / note (k)"], t.k, rtol=0.02)  # ≈ k: the note's k should be k²
    assert np.allclose(t["first term / note with k²"], 1.0, atol=0.02)


def test_k_spread_is_the_largest_move_of_the_certified_budget(monkeypatch):
    d = [
        abs(L.certified_local_eps(1.0, 1e-6, n, k) - L.certified_local_eps(1.0, 1e-6, n, 100))
        for n in (1000, 10**5)
        for k in (10, 1000)
    ]
    assert L.k_spread(1.0, 1e-6, [1000, 10**5], [10, 1000], 100) == max(d)
    assert L.k_spread(1.0, 1e-6, [1000], [100], 100) == 0.0
    # the certified budget does not move with k at these delta: a stand-in that does
    monkeypatch.setattr(L, "certified_local_eps", lambda eps, delta, n, k: np.log(n) + k / 1000)
    assert L.k_spread(1.0, 1e-6, [1000, 10**5], [10, 300, 1000], 100) == pytest.approx(0.9)
