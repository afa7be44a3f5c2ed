"""The shared numerics' fast paths against their plain versions: deduplicated and memoised binomial tails, the
many-cell hockey-stick kernel, the root-finder's brackets, and the GDP recalibration KaryPair starts from."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gspa.privacy import numerics as NUM
from gspa.privacy.basics import fdp
from gspa.privacy.shuffle import pairs as PAIRS

pairs_ = st.lists(
    st.tuples(st.integers(0, 3000), st.integers(-5, 3005)), min_size=1, max_size=600
).map(lambda rows: (np.array([r[1] for r in rows]), np.array([r[0] for r in rows])))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(km=pairs_, repeat=st.integers(1, 4))
def test_tails_computed_once_are_the_same_tails(km, repeat):
    """binomial_sf_many gives binomial_sf's values bit for bit, through its table and through its sort."""
    k, m = (np.tile(x, repeat) for x in km)
    assert np.array_equal(NUM.binomial_sf_many(k, m), NUM.binomial_sf(k, m))


@pytest.mark.parametrize("seed", range(4))
def test_tails_of_few_counts_come_from_one_table(seed):
    """Many cells over a few counts (KaryPair's case): binomial_sf_many's table path, bit for bit."""
    rng = np.random.default_rng(seed)
    m = rng.integers(1000, 1012, 3000)
    k = m // 2 + rng.integers(-3, 4, m.size)
    assert np.array_equal(NUM.binomial_sf_many(k, m), NUM.binomial_sf(k, m))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(km=pairs_, c0=st.integers(0, 50), width=st.integers(0, 8), shift=st.integers(-3, 3))
def test_a_tail_table_gives_the_same_tails_inside_its_bands_and_out(km, c0, width, shift):
    """TailTable.pairs returns (S(a - 1), S(a)) bit for bit whether a pair lies in a band, straddles its edge
    or lies outside every band; a table seeded from another holds the same values."""
    a, m = km
    m = np.abs(m) % 200
    counts = np.arange(c0, c0 + 200)
    lo = counts // 2 + shift
    table = NUM.TailTable(c0, lo, lo + width)
    for _ in range(2):  # the second lookup reads the memo
        below, here = table.pairs(a, m)
        assert np.array_equal(below, NUM.binomial_sf(a - 1, m))
        assert np.array_equal(here, NUM.binomial_sf(a, m))
    other = NUM.TailTable(c0 + 3, lo + 1, lo + width + 1)
    other.seed(table)
    done = ~np.isnan(other.values)
    assert done.any() or not (~np.isnan(table.values)).any() or width == 0
    below, here = other.pairs(a, m)
    assert np.array_equal(below, NUM.binomial_sf(a - 1, m))
    assert np.array_equal(here, NUM.binomial_sf(a, m))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    eps=st.floats(0.0, 6.0),
    m=st.lists(st.integers(0, 5000), min_size=1, max_size=50),
    L=st.lists(st.floats(0.0, 12.0), min_size=1, max_size=50),
)
def test_the_many_cell_kernel_agrees_with_hockey_upper(eps, m, L):
    """hockey_cells (coefficients formed directly) and hockey_upper (in the log domain) are the same upper bound
    up to their allowances (10⁻¹² of each of the two terms whose difference H is, so 10⁻⁹ of H where the terms
    cancel a thousandfold); a cell whose log-odds is at most eps is 0 in both."""
    size = min(len(m), len(L))
    m, L = np.array(m[:size]), np.array(L[:size])
    q = 1.0 / (1.0 + np.exp(-L))
    cells, plain = NUM.hockey_cells(eps, m, L, q), NUM.hockey_upper(eps, m, L)
    assert np.all(cells[L <= eps] == 0) and np.all(plain[L <= eps] == 0)
    assert np.allclose(cells, plain, rtol=1e-9, atol=1e-300)


def test_the_many_cell_kernel_hands_huge_eps_to_hockey_upper():
    m, L = np.array([10, 20]), np.array([800.0, 900.0])
    got = NUM.hockey_cells(750.0, m, L, np.ones(2))
    assert np.array_equal(got, NUM.hockey_upper(750.0, m, L))


@pytest.mark.parametrize("eps, delta", [(0.01, 1e-6), (0.5, 1e-3), (3.0, 1e-12), (1e-4, 0.3)])
def test_gdp_mu_is_the_mu_through_a_point(eps, delta):
    mu = fdp.gdp_mu(eps, delta)
    assert fdp.gdp_delta(eps, mu) == pytest.approx(delta, rel=1e-10)


@pytest.mark.parametrize(
    "eps, delta", [(0.0, 1e-6), (-1.0, 1e-6), (np.nan, 1e-6), (1.0, 0.0), (1.0, 1.0), (1.0, np.inf)]
)
def test_gdp_mu_refuses_a_point_outside_its_domain(eps, delta):
    with pytest.raises(ValueError, match="eps|delta"):
        fdp.gdp_mu(eps, delta)


@pytest.mark.parametrize("spreads", [(1.02, 1.5), (1.0000001, 1.5), (1.3,), (2.0, 4.0)])
def test_the_root_does_not_depend_on_the_brackets_tried(spreads):
    pair = PAIRS.fmt21_pair(1.0, 5000)
    plain = pair.epsilon(1e-6)
    got = NUM.invert(pair._delta1, 1e-6, pair._top(), guess=0.9 * plain, spreads=spreads)
    assert got == pytest.approx(plain, rel=3e-9) and pair.delta(got) <= 1e-6


@pytest.mark.parametrize("n, eps0", [(1000, 1.0), (10**4, 6.0), (10**5, 0.3), (300, 8.0)])
def test_kary_epsilon_from_its_recalibrated_guess_is_the_root(n, eps0):
    """KaryPair.epsilon starts from the recalibrated Gaussian guess; the generic search (Profile.epsilon) finds
    the same eps to the root-finder's tolerance, and the certified delta there meets the target."""
    pair = PAIRS._kary_pair(np.array([eps0]), 10, np.array([n]))
    fast, generic = pair.epsilon(1e-6), PAIRS.Profile.epsilon(pair, 1e-6)
    assert fast == pytest.approx(generic, rel=3e-9)
    assert pair.delta(fast) <= 1e-6


def test_the_root_meets_the_target_where_logarithms_tie():
    """The review's case: delta one ulp above the target on a whole interval, where the logarithms of the two are
    equal. The search compares logarithms; the eps returned is checked against the target directly (and rounded
    up by doubling steps until it meets it, so past the interval)."""
    delta = 1e-6
    up = np.nextafter(delta, 1.0)
    fn = lambda e: delta * (1.5 - e) if e < 0.5 else (up if e < 2.0 else delta / 2)
    got = NUM.invert(fn, delta, 3.0, guess=0.6)
    assert fn(got) <= delta and 2.0 <= got <= 3.0
