"""The clones chapter's tables (gspa.studies.fmt21.amplification: eq1_ratios, index_table, personalized_mix,
malicious_gap, malicious_cost), each against an independent computation."""

import math

import numpy as np
import pytest

from gspa.privacy import fmt21_pair, personalized_pair
from gspa.privacy.basics.mechanisms import rr_delta
from gspa.privacy.peers import baselines
from gspa.studies.fmt21 import amplification as A


@pytest.fixture(scope="module")
def grid():
    return A.compare([0.5, 2.0, 6.0], [10_000, 10**6], [1e-6])


def test_eq1_ratios_summarize_the_grid(grid):
    res, s = A.eq1_ratios(grid)
    assert np.allclose(res.ratio_eq1, res.eq1 / res.exact)
    valid = [
        r.eq1 / r.exact
        for r in res.itertuples()
        if baselines.fmt21_blog(r.eps_l, r.n, r.delta).valid
    ]
    both = [
        (r.fmt21 / r.exact, r.eq1 / r.fmt21)
        for r in res.itertuples()
        if baselines.fmt21_blog(r.eps_l, r.n, r.delta).valid
        and baselines.fmt21_closed(r.eps_l, r.n, r.delta).valid
    ]
    assert s["n_grid"] == 6 and s["n_valid"] == len(valid) < 6  # eps_L = 6 fails at n = 10^4
    assert s["eq1_ratio_min"] == pytest.approx(min(valid))
    assert s["eq1_ratio_max"] == pytest.approx(max(valid))
    assert s["eq1_ratio_median"] == pytest.approx(float(np.median(valid)))
    assert s["fmt21_ratio_median"] == pytest.approx(float(np.median([b[0] for b in both])))
    assert s["eq1_over_fmt21_min"] == pytest.approx(min(b[1] for b in both))
    assert s["eq1_over_fmt21_max"] == pytest.approx(max(b[1] for b in both))
    # eq. (1) bounds the exact value, and lies between FMT21's closed form and twice it
    assert 1 < s["eq1_ratio_min"] and 1 <= s["eq1_over_fmt21_min"] <= s["eq1_over_fmt21_max"] <= 2


def test_eq1_ratios_needs_a_point_where_both_conditions_hold(grid):
    with pytest.raises(ValueError, match="no point where both"):
        A.eq1_ratios(grid.assign(fmt21_valid=False))


def test_index_table_equals_the_local_randomizer():
    table, gap = A.index_table(1.5, 3, points=7)
    assert list(table.columns) == ["eps", "local", "indexed", "shuffled"]
    assert np.allclose(table.eps, np.linspace(0, 1.5, 7))
    assert np.allclose(table.local, np.maximum(rr_delta(table.eps.to_numpy(), 1.5), 0))
    assert gap <= 0 and np.allclose(table.indexed, table.local, atol=1e-12)
    assert table.shuffled[0] < table.indexed[0] - 0.05  # without the index, shuffling helps


def test_personalized_mix_against_the_accountant():
    mix, ratio = A.personalized_mix(1001, [1.0, 3.0], [1e-5, 1e-7, 1e-6])
    assert list(mix.delta) == [1e-7, 1e-6, 1e-5]
    counts = np.array([500, 501])
    for r in mix.itertuples():
        assert r.binary == personalized_pair([1.0, 3.0], counts=counts, reduction="clones").epsilon(
            r.delta
        )
        lap = personalized_pair([1.0, 3.0], counts=counts, randomizer="laplace")
        assert r.laplace == lap.epsilon(r.delta)
        assert r.fmt21 == fmt21_pair(3.0, 1001).epsilon(r.delta)
    assert (mix.laplace > mix.binary).all()  # Laplace hides only within its budget group
    assert ratio == pytest.approx(float(np.median(mix.laplace / mix.binary)))


def test_malicious_gap_is_the_removal_of_their_reports():
    assert A.malicious_gap(1.0, 2, 1) <= 0
    assert A.malicious_gap(0.5, 3, 2, points=5) <= 0


def test_malicious_cost_counts_the_honest_users():
    mal, s = A.malicious_cost([0.5, 1.0], [2, 1000, 10**5], 1e-6, fraction=0.1)
    assert len(mal) == 4  # n = 2 leaves one honest user: skipped
    for r in mal.itertuples():
        assert r.honest == math.floor(0.9 * r.n)
        assert getattr(r, "_5") == A.exact_epsilon(r.eps_l, r.honest, 1e-6)  # exact, honest only
        assert r.cost == pytest.approx(getattr(r, "_5") / getattr(r, "_4"))
        b = baselines.fmt21_blog(r.eps_l, r.honest, 1e-6)
        assert r.valid == b.valid and r.eq1 == A.eq1(r.eps_l, r.honest, 1e-6)
        assert not b.valid or r.eq1 == b.epsilon
    assert (mal.cost > 1).all()  # fewer honest users, less privacy
    assert s["cost_sqrt"] == pytest.approx(1 / math.sqrt(0.9))
    assert s["cost_median"] == pytest.approx(float(mal.cost.median()))
    assert s["valid_points"] == int(mal.valid.sum()) and s["eq1_bounds"]
    with pytest.raises(ValueError, match="no n in n_values"):
        A.malicious_cost([1.0], [2, 3], 1e-6, fraction=0.5)


def test_malicious_cost_judges_eq1_where_valid_only():
    mal, s = A.malicious_cost([8.0], [1000], 1e-6)
    assert not mal.valid.any() and s["valid_points"] == 0 and s["eq1_bounds"]
    assert (mal.eq1 < mal["exact, honest only"]).all()  # eq. (1) fails outside its condition
