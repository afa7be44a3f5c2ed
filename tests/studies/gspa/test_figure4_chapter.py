"""The Figure 4 chapter's computations (the end of gspa.studies.gspa.private_sgd) on made-up run records,
and its claims as declared in the study's table (gspa.studies.gspa.claims.figure4)."""

import math

import numpy as np
import pytest

from gspa.claims.domain import ClaimDomain
from gspa.privacy.basics.fdp import gdp_epsilon
from gspa.studies.gspa import domain_search, theorem2
from gspa.studies.gspa.claims import figure4 as claims
from gspa.studies.gspa import private_sgd as sgd

SCENARIOS = ["Unif 2", "Constant", "Unif 3", "Non-private"]
#: final accuracy (fraction) by scenario and seed of a made-up main set
FINAL = {
    "Unif 2": (0.80, 0.90),
    "Constant": (0.91, 0.92),
    "Unif 3": (0.93, 0.95),
    "Non-private": (0.97, 0.96),
}


def record(scenario, seed, final, epochs=3, budgets=(0.5, 1.0)):
    """A run record as run_one writes it, its accuracy rising linearly to ``final``."""
    return {
        "scenario": scenario,
        "seed": seed,
        "budgets": [None] * len(budgets) if scenario == "Non-private" else list(budgets),
        "accuracy": list(np.linspace(0.1, final, epochs)),
        "seconds": 1.0,
        "config": {},
    }


def records(final=FINAL, seeds=(0, 1)):
    return [record(s, seed, final[s][i]) for i, seed in enumerate(seeds) for s in final]


def test_noise_audit_is_line7_against_the_sensitivity_2c():
    cfg = sgd.Config()  # Table 3: C = 2, delta = 1e-5, m = 100
    audit = sgd.noise_audit(cfg, [0.5, 2.0], subset_size=600)
    scale = 2 * 2.0 * math.sqrt(2 * math.log(1.25 / 1e-5))
    np.testing.assert_allclose(audit["σᵢ for sensitivity 2C"], [scale / 0.5, scale / 2.0])
    np.testing.assert_allclose(audit["σᵢ, line 7"], [scale / 50.0, scale / 200.0])  # divided by m
    honest = audit["real εᵢ, σ for 2C"]
    assert np.all(honest <= [0.5, 2.0])  # eq. (8) is conservative at these budgets
    real = audit["real εᵢ, line 7's σ"]
    mu = 4.0 / audit["σᵢ, line 7"][0]  # sensitivity 2C over line 7's sigma
    assert real[0] == pytest.approx(gdp_epsilon(1e-5, mu)) and real[0] > 50
    per_example = audit["line 7's σ, one example replaced, per-example clipping"]
    assert np.all(per_example < honest)  # sensitivity 2C/600 against line 7's 2C/100
    # the rule the configuration runs with does not matter: both are audited
    other = sgd.noise_audit(sgd.Config(sigma_rule="client"), [0.5, 2.0], 600)
    for column, values in audit.items():
        np.testing.assert_array_equal(other[column], values)


def test_noise_audit_agrees_with_the_searched_margin():
    cfg, audit = sgd.Config(), sgd.noise_audit(sgd.Config(), [0.5], 600)
    margin = domain_search.thm5_client_ldp_margin(cfg, 0.5, 1e-5)
    assert margin == pytest.approx(0.5 - audit["real εᵢ, line 7's σ"][0])


def test_final_means_bands_and_rows():
    main = records()
    means = sgd.final_means(main, SCENARIOS)
    assert means["Unif 2"] == pytest.approx(85.0) and means["Non-private"] == pytest.approx(96.5)
    mean, lo, hi = sgd.accuracy_bands(main, ["Unif 3"])["Unif 3"]
    assert mean[-1] == pytest.approx(94.0) and lo[-1] == pytest.approx(93.0)
    assert hi[-1] == pytest.approx(95.0) and mean[0] == pytest.approx(10.0)
    rows = sgd.final_accuracy_rows({"main": main, "client σ": records(seeds=(0, 1))}, SCENARIOS)
    assert [r["scenario"] for r in rows] == SCENARIOS
    assert rows[0]["line 7's σ: per seed %"] == "80.00, 90.00"
    assert rows[0]["σ for the budgets: mean %"] == pytest.approx(85.0)
    assert rows[0]["mean budget per seed"] == "0.750, 0.750" and rows[3]["mean budget per seed"]
    assert rows[3]["mean budget per seed"] == "∞, ∞"
    assert "σ for the budgets: mean %" not in sgd.final_accuracy_rows({"main": main}, SCENARIOS)[0]


def test_readings_summary_compares_on_the_same_seeds():
    cfg = sgd.Config()
    sets = sgd.experiment_sets(
        cfg, SCENARIOS, [0, 1], calibrated=False, readings=["hidden100"], reading_seeds=[1]
    )
    other = {s: (0.5,) for s in SCENARIOS}
    runs = {"main": records(), "hidden100": records(other, seeds=(1,))}
    summary = sgd.readings_summary(runs, sets, SCENARIOS)
    assert summary["names"] == {"main": "main reading", "hidden100": "100 hidden units"}
    assert list(summary["table"]) == [
        "main reading, seeds 0, 1",
        "main reading, seeds 1",
        "100 hidden units, seeds 1",
    ]
    assert summary["table"]["main reading, seeds 1"]["Unif 2"] == pytest.approx(90.0)
    assert summary["final"]["main reading"]["Unif 2"] == pytest.approx(85.0)  # over its own seeds
    assert summary["final"]["100 hidden units"]["Constant"] == pytest.approx(50.0)
    # a reading seed the main reading did not run: no main column on the readings' seeds
    sets["hidden100"] = (sets["hidden100"][0], SCENARIOS, [1, 2])
    runs["hidden100"] = records({s: (0.5, 0.6) for s in SCENARIOS}, seeds=(1, 2))
    assert list(sgd.readings_summary(runs, sets, SCENARIOS)["table"]) == [
        "main reading, seeds 0, 1",
        "100 hidden units, seeds 1, 2",
    ]


def test_accuracy_claims_under_each_reading():
    final = {
        "main reading": {"Unif 2": 85.0, "Constant": 91.5, "Unif 3": 94.0, "Non-private": 96.5},
        "other": {"Unif 2": 70.0, "Constant": 60.0, "Unif 3": 65.0, "Non-private": 97.0},
    }
    acc = sgd.accuracy_claims(final, SCENARIOS, 96.78)
    assert list(acc) == [
        "fig4-96.78",
        "fig4-constant-94.8",
        "fig4-unif2-93.5",
        "fig4-constant-above-unif2",
        "fig4-unif3-best",
        "fig4-vanilla",
    ]
    assert acc["fig4-96.78"]["ours"] == {
        "non-private network / main reading": 96.5,
        "best private scenario (Unif 3) / main reading": 94.0,
        "non-private network / other": 97.0,
        "best private scenario (Unif 2) / other": 70.0,
    }
    assert acc["fig4-constant-above-unif2"]["ours"] == {"main reading": 6.5, "other": -10.0}
    assert acc["fig4-constant-above-unif2"]["ours_text"].startswith(
        "Constant − Unif 2: main reading: +6.50 points; other: -10.00 points"
    )
    assert acc["fig4-unif3-best"]["ours"] == {"main reading": True, "other": False}
    assert "other: Unif 2 (70.00 %)" in acc["fig4-unif3-best"]["ours_text"]
    vanilla = acc["fig4-vanilla"]["ours"]
    assert vanilla["96.78 % is the non-private network's / main reading"] == pytest.approx(0.28)
    assert vanilla["96.78 % is a private scenario's / other"] == pytest.approx(27.0)


def test_accuracy_claims_only_where_the_scenarios_allow_them():
    final = {"main reading": {"Constant": 91.0, "Unif 3": 93.0}}
    assert list(sgd.accuracy_claims(final, ["Constant", "Unif 3"], 96.78)) == ["fig4-unif3-best"]


def test_theorem5_rows_follow_theorem2_and_skip_the_nonprivate_runs():
    cfg = sgd.Config(epochs=4)
    main = [
        record("Constant", 0, 0.9, budgets=(0.5,) * 10),
        record("Non-private", 0, 0.97, budgets=(0.5,) * 10),
    ]
    (row,) = sgd.theorem5_rows(main, cfg, 1e-3)
    t5 = theorem2.theorem5(np.full(10, 0.5), np.full(10, 1e-5), 4, 1e-3)
    assert row["μ per epoch (Thm 2)"] == t5["mu"] and row["√T μ (Thm 5)"] == pytest.approx(
        2 * t5["mu"]
    )
    assert row["ε at δ = 0.001, Thm 5"] == t5["eps"]
    exact = row["ε at δ = 0.001, quaternary pair composed T times (if Lemma 1 held)"]
    assert 0 < exact < math.inf
    audit = sgd.noise_audit(cfg, [0.5], 600)["real εᵢ, line 7's σ"][0]
    assert row["largest real client ε per step, line 7's σ (audit)"] == pytest.approx(audit)


def test_theorem5_sum_readings_shrink_mu_with_more_reports():
    over = sgd.theorem5_sum_readings(100, 60_000, 0.5, 1e-5, 50, 1e-3)
    m, n = over["clients"], over["samples"]
    # Theorem 2's mu goes as 1/sqrt(sum of clone probabilities minus the largest)
    p = (1 - 1e-5) / (1 + math.exp(0.5))
    assert m["mu"] / n["mu"] == pytest.approx(math.sqrt((60_000 - 1) / (100 - 1)), rel=1e-9)
    assert m["mu"] == pytest.approx(math.sqrt(2 / (99 * p)), rel=1e-3)
    assert n["eps"] < m["eps"]


def test_order_readings_link_every_position_when_pi_is_drawn_once():
    cfg = sgd.Config(epochs=5, n_clients=10)
    out = sgd.order_readings(cfg, 100, [0, 1])
    assert out["fixed"] == {"linked": 10, "redrawn": False}
    assert out["reshuffle"]["redrawn"] and out["reshuffle"]["linked"] < 10
    assert list(out) == list(sgd.ORDER_LABELS)
    one = sgd.order_readings(sgd.Config(epochs=1, n_clients=10), 100, [0])
    assert one["reshuffle"] == {"linked": 10, "redrawn": False}  # one epoch: nothing redrawn


def test_the_declared_claims():
    """Section FIGURE4: every claim the chapter records is in its table, with a searched domain."""
    dotted = claims.FIGURE4_QUOTED
    assert all(claims.CLAIMS[i] is c for i, c in {**claims.FIGURE4, **dotted}.items())
    client = claims.FIGURE4["thm5-client-ldp"]
    params = [p.name for p in client.domain.params]
    assert params == ["eps", "delta"]  # the arguments of the searched margin after cfg
    for c in list(claims.FIGURE4.values()) + list(dotted.values()):
        assert isinstance(c.domain, ClaimDomain)
