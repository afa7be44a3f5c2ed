"""The peers chapter's computations (gspa.studies.accountant.peer_checks): each summary against the library's
functions it runs, recomputed here, and its arguments refused with a ValueError."""

import math

import numpy as np
import pytest

from gspa.privacy.exact import peers as exact_peers
from gspa.privacy.peers import variation
from gspa.studies.accountant import peer_checks as P


def test_lemma45_binary_margin_is_the_smallest_enumerated_margin_and_not_negative():
    got = P.lemma45_binary_margin((2, 3), (0.5, 2.0))
    margins = [exact_peers.lemma45_margin(n, 2, e0) for n in (2, 3) for e0 in (0.5, 2.0)]
    assert got == min(margins)
    assert got >= -1e-12  # binary randomized response has no third component: the pair is a bound


def test_lemma45_binary_margin_refuses_bad_arguments():
    with pytest.raises(ValueError):
        P.lemma45_binary_margin((2,), ())


def test_lemma45_at_scale_counts_and_confirms_the_worst_violation():
    out = P.lemma45_at_scale([1000], [3], [1.0, 7.0], delta=1e-6)
    v = {k: x for k, (x, _) in out["values"].items()}
    (row,) = out["rows"]
    assert (v["scale_tried"], v["scale_rows"]) == (2, 1)
    assert v["scale_violations"] == row["violations"] >= 1 and v["scale_rows_bad"] == 1
    assert v["scale_lower"] > v["scale_pair"]  # 40 digits: the data sets exceed the pair
    pair = variation.VariationRatioPair(*variation.parameters("k-rr", v["scale_eps0"], k=3), 1000)
    assert math.isclose(v["scale_pair"], float(pair.delta(v["scale_eps"])), rel_tol=1e-6)
    lam = 1000 / (math.exp(row["first_eps0"]) + 3 - 1)
    assert math.isclose(v["scale_lambda"], lam, rel_tol=1e-12)
    assert v["scale_d_lower"] > v["scale_d_pair"]
    assert out["text"].startswith("explicit data sets") and "ε(1e-06) ≥" in out["text"]
    assert f"≤ {lam:.0f} at the smallest ε₀ violated" in out["regime"]


def test_lemma45_at_scale_without_violation_says_none_found():
    out = P.lemma45_at_scale([1000], [3], [1.0], delta=1e-6)
    assert out["regime"] == "none found"
    assert out["text"] == "none found (n ∈ [1000], k ∈ [3], ε₀ ∈ [1.0])"
    assert "scale_n" not in out["values"] and out["values"]["scale_violations"][0] == 0


def test_lemma45_at_scale_refuses_bad_arguments():
    with pytest.raises(ValueError):
        P.lemma45_at_scale([1000], [1], [1.0])
    with pytest.raises(ValueError):
        P.lemma45_at_scale([1000], [3], [1.0], delta=0.0)


def test_scw_against_blanket_agrees_with_their_exact_expectation_from_above():
    from gspa.privacy.peers import parv

    grid = np.linspace(0.0, 2.0, 5)
    (row,) = P.scw_against_blanket([3], [1.0], [10], grid)
    theirs = parv.parv_delta(1.0, 3, 10, grid)
    assert row["points with δ > 1e-12"] == int((theirs > 1e-12).sum()) >= 1
    assert row["largest δ (theirs)"] == float(theirs.max())
    assert 0.0 <= row["gspa / theirs − 1, smallest"] <= row["gspa / theirs − 1, largest"] < 1e-9
    with pytest.raises(ValueError):
        P.scw_against_blanket([1], [1.0], [10], grid)
    with pytest.raises(ValueError):
        P.scw_against_blanket([3], [1.0], [10], [np.nan])


def test_binary_decomposition_divides_by_the_exact_worst_case():
    from gspa.privacy.exact.enumeration import every_data_set_epsilon
    from gspa.privacy.shuffle import pairs

    (row,) = P.binary_decomposition((1.0,), 50, delta=1e-6)
    exact, _ = every_data_set_epsilon(1.0, 50, 1e-6)
    assert row["exact (every data set)"] == exact
    blanket = pairs.fmt23_pair(1.0, 50).epsilon(1e-6) / exact
    assert row["blanket decomposition (FMT23 pair) / exact"] == blanket > 1.0
    assert 1 - 1e-8 <= row["cell bound / exact"] < blanket
    with pytest.raises(ValueError):
        P.binary_decomposition((1.0,), 0)


def test_clip_laplace_rows_cover_the_settings():
    rows = P.clip_laplace_rows([100], [2.0, 10.0], delta=1e-8)
    assert [r["setting"] for r in rows] == [
        "one at 0.1 among users at 1; the one at 0.1 differs",
        "one at 0.1 among users at 1; a user at 1 differs",
        "one at 2 among users at 0.05",
        "one at 10 among users at 0.05",
    ]
    assert all(r["n"] == 100 and r[P.CLIP_LOWER] >= 0.0 for r in rows)
    with pytest.raises(ValueError):
        P.clip_laplace_rows([100], [2.0], delta=0.0)


def _row(setting, n, low):
    return {"setting": setting, "n": n, "ε, EoN": 1.0, P.CLIP_LOWER: low}


def test_clip_laplace_summary_reads_the_rows():
    rows = [
        _row("one at 0.1 among users at 1; the one at 0.1 differs", 100, 3e-9),
        _row("one at 0.1 among users at 1; a user at 1 differs", 100, 5e-9),
        _row("one at 2 among users at 0.05", 100, 9e-9),
        _row("one at 10 among users at 0.05", 100, 4e-8),
        _row("one at 10 among users at 0.05", 1000, 7e-8),
    ]
    s = P.clip_laplace_summary(rows, [2.0, 10.0], delta=1e-8)
    assert s == {"tested_max": 5e-9, "fail_max": 7e-8, "fail_n": 1000, "hold_d": 2.0}
    s = P.clip_laplace_summary(rows[:3], [2.0, 10.0], delta=1e-8)
    assert (s["fail_max"], s["fail_n"], s["hold_d"]) == (0.0, 0, 10.0)
