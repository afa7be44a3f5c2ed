"""The Mechanisms chapter's computations (gspa.studies.gspa.mechanism_checks) and its claims as declared
in the study's table (gspa.studies.gspa.claims.mechanisms)."""

import inspect
import math

import numpy as np
import pytest

from gspa.privacy.basics import mechanisms as M
from gspa.studies.gspa import margins
from gspa.studies.gspa.claims import mechanisms as claims
from gspa.studies.gspa import mechanism_checks as checks

GRID = np.linspace(0.0, 10.0, 201)
LAPLACE = M.laplace_delta  # the library's profile, before a test replaces it


def wrong_laplace(eps, eps0):
    """The profile of a Laplace mechanism with twice the budget: not eps0-DP."""
    return LAPLACE(eps, 2 * eps0)


def test_laplace_checks_find_the_closed_form_exact():
    lap = checks.laplace_checks([0.5, 2.0])
    assert lap["pure"] == 0.0
    assert 0.0 <= lap["quad"] < 1e-10
    assert 0.0 < lap["pld"] < 1e-9  # a PLD is discretised: not exact, but close


def test_laplace_checks_skip_budgets_below_a_tenth():
    assert checks.laplace_checks([0.01, 0.05]) == {"quad": 0.0, "pld": 0.0, "pure": 0.0}


def test_laplace_checks_see_a_wrong_profile(monkeypatch):
    monkeypatch.setattr(checks.M, "laplace_delta", wrong_laplace)
    lap = checks.laplace_checks([1.0])
    assert lap["quad"] > 0.1 and lap["pld"] > 0.1


def test_calibration_rows_are_eq8_and_the_exact_calibration():
    rows = checks.calibration_rows([0.5, 1.0, 2.0], 1e-5)
    assert [r["ε"] for r in rows] == [0.5, 1.0, 2.0]
    for r in rows:
        e = r["ε"]
        assert r["σ eq. (8)"] == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / e, rel=1e-12)
        assert r["exact δ(ε) at that σ"] <= 1e-5 and r["holds"]
        s = r["smallest σ (analytic)"]
        assert M.gaussian_delta(e, s) <= 1e-5 < M.gaussian_delta(e, 0.999 * s)  # the smallest
        assert r["noise overhead σ₈/σ*"] == pytest.approx(r["σ eq. (8)"] / s)
        assert r["noise overhead σ₈/σ*"] > 1.0


def test_calibration_rows_report_a_failure_of_eq8():
    (row,) = checks.calibration_rows([20.0], 1e-2)  # beyond eq. (8)'s limit at this delta
    assert not row["holds"] and row["exact δ(ε) at that σ"] > 1e-2
    assert row["noise overhead σ₈/σ*"] < 1.0  # eq. (8) adds too little noise there


def test_calibration_limits_bracket_where_eq8_starts_failing():
    limits = checks.calibration_limits([1e-8, 1e-5, 1e-2])
    assert np.all(np.diff(limits) < 0)  # the largest valid eps falls as delta grows
    for d, lim in zip([1e-8, 1e-5, 1e-2], limits):
        assert M.classic_calibration_holds(0.99 * lim, d)
        assert not M.classic_calibration_holds(1.01 * lim, d)
    assert 2.0 < limits[1] < 20.0  # at the paper's delta, beyond its largest budget


def test_calibration_failures_lie_just_beyond_the_limits_and_fail():
    points = checks.calibration_failures([1e-5, 1e-2, 0.5])
    assert [p["delta"] for p in points] == [1e-5, 1e-2, 0.5]
    for p, lim in zip(points, checks.calibration_limits([1e-5, 1e-2, 0.5])):
        assert lim < p["eps"] <= 1.001 * lim + 1e-12
        assert margins.gaussian_calibration_margin(**p) < 0
    assert 4.4 < points[-1]["eps"] < 4.5  # δ = 0.5: eq. (8) fails beyond ε ≈ 4.47
    with pytest.raises(ValueError, match="step"):
        checks.calibration_failures([1e-5], step=0.0)


def test_calibration_failures_refuse_a_limit_where_eq8_still_holds(monkeypatch):
    monkeypatch.setattr(checks, "calibration_limits", lambda deltas: np.full(len(deltas), 1.0))
    with pytest.raises(ValueError, match="the limit is wrong"):
        checks.calibration_failures([1e-5])


def test_calibrated_profiles_meet_their_targets():
    profiles = checks.calibrated_profiles(GRID, [0.5, 1.0, 2.0], 1e-5)
    assert list(profiles) == [0.5, 1.0, 2.0]
    for e, prof in profiles.items():
        assert prof.shape == GRID.shape and np.all(np.diff(prof) <= 0)
        assert np.interp(e, GRID, prof) <= 1e-5 * 1.5  # at its target eps, about delta or less


def test_lemma4_excess_holds_and_is_tight():
    excess = checks.lemma4_excess(GRID, [0.5, 1.0, 2.0], 1e-5, 4)
    assert list(excess) == [
        "binary randomized response",
        "4-ary randomized response",
        "Laplace",
        "Gaussian, eq. (8)",
        "Gaussian, exact calibration",
    ]
    assert max(excess.values()) <= 1e-12
    # tight where it should be: binary RR is the quaternary pair's middle, the exact Gaussian meets delta
    assert excess["binary randomized response"] > -1e-12
    assert excess["Gaussian, exact calibration"] > -1e-9


def test_lemma4_excess_sees_a_randomizer_above_the_pair(monkeypatch):
    # Laplace with twice the budget is not (eps, 0)-DP: the check must report it above the pair
    monkeypatch.setattr(checks.M, "laplace_delta", wrong_laplace)
    assert checks.lemma4_excess(GRID, [1.0], 1e-5, 4)["Laplace"] > 0.01


def test_lemma4_profiles_lie_below_the_quaternary_pair():
    profiles = checks.lemma4_profiles(GRID, 1.0, 1e-5)
    (quat_name, quat), *others = profiles.items()
    assert quat_name == "quaternary pair (δᵢ = 1e-05)"
    for _, prof in others:
        assert np.all(prof <= quat + 1e-12)


def test_the_declared_claims_name_the_margins_arguments():
    """Each declared domain's parameters are the arguments of the margin that searches it."""
    for id, margin in (
        ("def4-laplace-pure", margins.laplace_pure_margin),
        ("def5-gaussian-calibration", margins.gaussian_calibration_margin),
        ("lemma4-dominance", margins.lemma4_margin),
    ):
        declared = claims.CLAIMS[id]
        assert declared is claims.MECHANISMS[id]
        names = [p.name for p in declared.domain.params]
        assert names == list(inspect.signature(margin).parameters), id
    assert claims.MECHANISMS["def5-gaussian-calibration"].paper == 2.0  # the paper's largest budget


def test_laplace_vs_gaussian_errors_cross_at_log_of_1_25_over_delta():
    delta = 1e-5
    rows = checks.laplace_vs_gaussian([1, 11, 12, 60], 0.7, delta, 4000, seed=0)
    ratio = {r["d"]: r["ratio Gaussian/Laplace"] for r in rows}
    for d in ratio:  # RMS ℓ2 errors: Gaussian √d σ against Laplace √(2d) √d/ε
        assert ratio[d] == pytest.approx(math.sqrt(math.log(1.25 / delta) / d))
    assert [r["Laplace: stronger privacy and larger error"] for r in rows] == [
        False,
        False,
        True,
        True,
    ]
    for r in rows:
        assert r["δ at ε, Laplace"] == 0.0 < r["δ at ε, Gaussian eq. (8)"]
        assert r["ratio, sampled"] == pytest.approx(r["ratio Gaussian/Laplace"], rel=0.05)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(dims=[0]),
        dict(eps=0.0),
        dict(delta=1.0),
        dict(n_draws=10),
        dict(dims=[10**4], n_draws=10**5),
    ],
)
def test_laplace_vs_gaussian_refuses_bad_input(kwargs):
    args = dict(dims=[1], eps=1.0, delta=1e-5, n_draws=1000, seed=0) | kwargs
    with pytest.raises(ValueError):
        checks.laplace_vs_gaussian(**args)
