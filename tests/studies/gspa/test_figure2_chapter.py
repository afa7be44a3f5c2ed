"""The Figure 2 chapter's computations (gspa.studies.gspa.comparison): Theorem 2 against the
certified interval of binary randomized response, the slopes of result (ii), the reductions of
result (iii) and the Conclusion's 33%, the extreme budgets of result (i), each on inputs whose
answer is known."""

import numpy as np
import pandas as pd
import pytest

from gspa.studies.gspa import comparison as C
from gspa.studies.gspa.theorem2 import epsilon_theorem2, mu_theorem2


def hand_grid(wide_rows, n_values=(1000, 2000), scenarios=("Constant",)):
    """A Figure2Grid from hand-written values: ``wide_rows`` maps a method to its values in grid
    order."""
    index = pd.MultiIndex.from_product([scenarios, n_values], names=["scenario", "n"])
    wide = pd.DataFrame(wide_rows, index=index).rename_axis(columns="method")
    tidy = wide.stack(future_stack=True).rename("epsilon").reset_index()
    return C.Figure2Grid(tuple(scenarios), tuple(n_values), 1e-4, 0, 1000, tidy, wide)


def test_rr_validity_classifies_each_point_against_the_certified_interval():
    g = hand_grid(
        {
            C.THM2: [3.0, 1.0, 0.5, 2.0],
            C.LOWER_RR: [1.0, 0.8, 0.6, 1.0],
            C.UPPER_RR: [2.0, 1.5, 0.7, 2.0],
        },
        n_values=(1000, 2000, 3000, 4000),
    )
    v = g.rr_validity()
    assert list(v["status"]) == ["valid", "undecided", "too small", "valid"]
    assert v["valid_frac"] == 0.5 and v["too_small"] == 1
    assert v["margin_min"] == pytest.approx(1 / 1.5)
    assert v["margin_median"] == pytest.approx(np.median([1.5, 1 / 1.5, 0.5 / 0.7, 1.0]))
    assert v["sandwich_gap"] == pytest.approx(2.0)


def test_slopes_recover_a_power_law_and_pick_the_worst_scenario():
    n = np.array([1000.0, 2000.0, 4000.0, 8000.0])
    rows = {C.THM2: np.r_[3 * n**-0.5, 2 * n**-0.2], C.UPPER_RR: np.r_[n**-1.0, n**-0.5]}
    g = hand_grid(rows, n_values=tuple(int(x) for x in n), scenarios=("Unif 1", "Unif 2"))
    s = g.slopes()
    assert s["table"].loc["Unif 1", C.THM2] == pytest.approx(-0.5)
    assert s["table"].loc["Unif 2", C.UPPER_RR] == pytest.approx(-0.5)
    assert s["table"].loc["Unif 1", C.UPPER_RR] == pytest.approx(-1.0)
    assert s["worst"] == pytest.approx(-0.2)  # the Theorem 2 slope farthest from -1/2


def test_mu_slopes_follow_theorem2_on_the_grid_budgets():
    g = hand_grid({C.THM2: [1.0, 1.0]}, n_values=(1000, 4000), scenarios=("Constant",))
    mus = [mu_theorem2(np.full(n, 0.5)) for n in (1000, 4000)]
    expected = np.polyfit(np.log([1000, 4000]), np.log(mus), 1)[0]
    m = g.mu_slopes()
    assert m["slopes"]["Constant"] == pytest.approx(expected, rel=1e-12)
    assert m["worst"] == pytest.approx(-0.5, abs=1e-3)  # μ ∝ (n - 1)^(-1/2) for a common budget


def test_reductions_count_wins_only_where_a_baseline_is_valid():
    g = hand_grid(
        {
            C.THM2: [1.0, 1.0, 1.0],
            "Liu23": [2.0, 0.5, np.nan],  # a win (reduction 1/2), a loss (reduction -1), invalid
            "FMT21 (closed form)": [4.0, 1.25, 10.0],  # reductions 3/4, 1/5, 9/10
            "Erlingsson19": [np.nan, np.nan, np.nan],
            C.UPPER_ANY: [0.5, 2.0, 3.0],
        },
        n_values=(1000, 2000, 3000),
    )
    r = g.reductions()
    assert (r["wins"], r["total"]) == (4, 5) and r["frac"] == pytest.approx(0.8)
    assert r["frac_above"] == pytest.approx(0.2)  # the one loss; ties would count in neither
    assert r["per_n"].to_dict() == pytest.approx({1000: 0.5, 2000: -1.0, 3000: 0.9})
    assert r["readings"] == pytest.approx(
        {
            "every valid point of the grid": -1.0,
            "every valid point at n = 3,000": 0.9,
            "the median valid point": 0.5,
        }
    )
    assert list(r["below"].index) == [2000]
    assert r["cross"] == "below 33% at 1 of the 3 values of n (n = 2,000)"
    assert r["frac_numerical"] == pytest.approx(2 / 3)


def test_figure2_grid_holds_every_method_and_agrees_with_sweep():
    g = C.figure2_grid(["Constant", "Unif 1"], [1000, 2000], 1e-4, 1, repeat=100)
    assert g.scenarios == ("Constant", "Unif 1") and g.n_values == (1000, 2000)
    assert set(g.wide.columns) == set(C.METHODS) and g.wide.shape == (4, len(C.METHODS))
    thm2 = epsilon_theorem2(np.full(2000, 0.5), delta=1e-4)
    assert g.wide.loc[("Constant", 2000), C.THM2] == pytest.approx(thm2, rel=1e-12)
    v = g.rr_validity()
    assert (g.wide[C.LOWER_RR] <= g.wide[C.UPPER_RR]).all() and 0 <= v["valid_frac"] <= 1


def test_one_liberal_user_is_bracketed_and_theorem2_falls_below():
    case = C.one_liberal_user(5.0, 0.5, 99, 1e-6)
    b = np.append(np.full(99, 0.5), 5.0)
    assert case["thm2"] == pytest.approx(epsilon_theorem2(b, delta=1e-6), rel=1e-12)
    assert 0 < case["lower"] <= case["upper"] <= 5.0  # shuffling never costs more than the local ε
    assert case["thm2"] < case["lower"]  # the chapter's off-grid finding


def test_extreme_budgets_theorem2_exceeds_the_trivial_bound_when_all_are_tiny():
    e = C.extreme_budgets(1e-4, 1, 0.01, 1000)
    assert e["thm2_flat"] > 0.01  # worse than no amplification at all
    assert e["exact_flat"] <= 0.01  # the certified ε never exceeds max εᵢ
    assert e["thm2_flat"] == pytest.approx(epsilon_theorem2(np.full(1000, 0.01), delta=1e-4))
    assert e["liu_zero"].valid and 0 < e["zero_max"] <= 1.0  # Liu23's limit at εᵢ = 0 is a number
    assert np.isfinite(e["thm2_zero"])


def test_the_holding_region_of_the_search_is_in_the_largest_budget_actually_present():
    """fig2-thm2-valid-rr's region is stated in max εᵢ: where round(f n) = n every user is at ε_lo, so
    ε_hi, absent from the budgets, must not count (it would move a failure there out of the region)."""
    from gspa.studies.gspa.claims.figure2 import FIGURE2_DERIVED

    biggest = FIGURE2_DERIVED["max εᵢ"]
    assert biggest(n=100, f=1.0, eps_lo=0.5, eps_hi=20.0, delta=1e-6) == 0.5
    assert biggest(n=100, f=0.999, eps_lo=0.5, eps_hi=20.0, delta=1e-6) == 0.5  # rounds to 100
    assert biggest(n=100, f=0.99, eps_lo=0.5, eps_hi=5.0, delta=1e-6) == 5.0  # the off-grid case
    assert biggest(n=100, f=1e-6, eps_lo=3.0, eps_hi=1.0, delta=1e-6) == 3.0  # at least one at ε_lo


def test_figure4_budgets_are_the_runs_budgets_measured_three_ways():
    from gspa.studies.gspa.private_sgd import scenario_budgets

    rows = C.figure4_budgets(["Constant", "Unif 2"], [0, 1], 100, 1e-5)
    assert [r["scenario"] for r in rows] == ["Constant", "Unif 2"]
    const, unif2 = rows
    assert const["mean εᵢ"] == pytest.approx(0.5)
    assert const["mean 1/εᵢ (line 7's σ ∝ 1/εᵢ)"] == pytest.approx(2.0)
    assert const["μ per shuffle (Theorem 2)"] == pytest.approx(
        mu_theorem2([0.5] * 100, [1e-5] * 100)
    )
    draws = [
        scenario_budgets("Unif 2", s, 100) for s in (0, 1)
    ]  # the same draws as Figure 4's runs
    assert unif2["mean εᵢ"] == pytest.approx(np.mean([b.mean() for b in draws]))
    assert unif2["mean 1/εᵢ (line 7's σ ∝ 1/εᵢ)"] == pytest.approx(
        np.mean([(1 / b).mean() for b in draws])
    )
    mus = [mu_theorem2(b, np.full(100, 1e-5)) for b in draws]
    assert unif2["μ per shuffle (Theorem 2)"] == pytest.approx(np.mean(mus))


def test_figure4_budgets_order_the_scenarios_as_their_laws_do():
    rows = {r["scenario"]: r for r in C.figure4_budgets(C.FIGURE4_SCENARIOS, [0, 1, 2], 100, 1e-5)}
    mean = {k: r["mean εᵢ"] for k, r in rows.items()}
    inv = {k: r["mean 1/εᵢ (line 7's σ ∝ 1/εᵢ)"] for k, r in rows.items()}
    # U(0.01, 2) has mean about 1, U(0.5, 1) 0.75; E[1/ε] is ln(2)/0.5 ≈ 1.39 for U(0.5, 1), ≈ 2.7 for U(0.01, 2)
    assert max(mean, key=mean.get) == "Unif 2" and mean["Unif 3"] == pytest.approx(0.75, abs=0.05)
    assert min(inv, key=inv.get) == "Unif 3" and inv["Unif 3"] == pytest.approx(
        np.log(2) / 0.5, abs=0.1
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(scenario_names=["Unif 9"]),
        dict(seeds=[]),
        dict(n_clients=1),
        dict(delta_local=1.0),
    ],
)
def test_figure4_budgets_refuse_bad_input(kwargs):
    args = dict(scenario_names=["Constant"], seeds=[0], n_clients=100, delta_local=1e-5) | kwargs
    with pytest.raises(ValueError):
        C.figure4_budgets(**args)
