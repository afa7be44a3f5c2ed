"""The clone law's fast paths (blocked product tree, batched balanced merges, long runs as binomial
parts, in-place sorting, threaded evaluation): they must agree with straightforward computations
within the counted errors and stay upper bounds on the exhaustively enumerated protocols. The block
sizes are made tiny here so that small n goes through every path."""

import numpy as np
import pytest
from scipy import special, stats

from gspa.privacy import numerics as NUM
from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import clones as C

SMALL = {  # constants that push a handful of users through blocks, FFT levels, batches and runs
    "tiny": {"_DIRECT_MAX": 2, "_BLOCK": 4, "_BINOMIAL_MIN": 2, "_BATCH": 1},
    "fft": {"_DIRECT_MAX": 2, "_BLOCK": 64, "_BINOMIAL_MIN": 3, "_BATCH": 2},
    "serial": {"_DIRECT_MAX": 4, "_BLOCK": 8, "_BINOMIAL_MIN": 2, "_WORKERS": 1},
}


def _patch(monkeypatch, config):
    for name, value in SMALL[config].items():
        monkeypatch.setattr(C, name, value)


def poisson_binomial(q):
    law = np.array([1.0])
    for x in q:
        law = np.convolve(law, [1 - x, x])
    return law


def reference_expectation(q, eps, L):
    """E[H_M(eps)] from the sequentially convolved law and Boost's binomial pmf, term by term."""
    law = poisson_binomial(q)
    qq = 1.0 if np.isinf(L) else special.expit(L)
    e, total = np.exp(eps), 0.0
    for m in np.flatnonzero(law > 0):
        a = np.arange(m + 2)
        prev, here = stats.binom.pmf(a - 1, m, 0.5), stats.binom.pmf(a, m, 0.5)
        P0, P1 = qq * prev + (1 - qq) * here, (1 - qq) * prev + qq * here
        total += law[m] * np.maximum(P0 - e * P1, 0.0).sum()
    return total


@pytest.mark.parametrize("direct_max", [2, 4, 64])
@pytest.mark.parametrize("size", [1, 2, 3, 63, 64, 1000, 3000])
def test_block_law_is_within_its_counted_error(monkeypatch, direct_max, size):
    """One block of the product tree against sequential convolution: the L1 distance on the kept
    window plus the mass outside it is at most rho + eta + tau (plus the reference's own round-off)."""
    monkeypatch.setattr(C, "_DIRECT_MAX", direct_max)
    q = np.sort(2 * special.expit(-np.random.default_rng(size).uniform(0.01, 2.0, size=size)))
    p = C._bernoulli_block(q, C.TOL)
    ref = poisson_binomial(q)
    window = ref[p.offset : p.offset + p.width]
    assert p.offset >= 0 and p.offset + p.width <= size + 1
    assert np.all(p.pmf >= 0)
    gap = np.abs(p.pmf - window).sum() + (ref.sum() - window.sum())
    assert gap <= p.rho + p.eta + p.tau + 1e-13 * size
    assert p.mean == pytest.approx(q.sum()) and p.var == pytest.approx((q * (1 - q)).sum())


def test_top_entry_dropped_by_the_zero_slot_is_exactly_zero():
    q = np.full(63, 0.999)  # the law's top entry (all clones) is not negligible
    p = C._bernoulli_block(q, C.TOL)
    assert p.offset + p.width - 1 == 63 and p.pmf[-1] == pytest.approx(0.999**63, rel=1e-12)


@pytest.mark.parametrize("config", list(SMALL))
@pytest.mark.parametrize("n", [40, 700])
def test_blocked_law_brackets_the_reference(monkeypatch, config, n):
    """The whole law through the small-block paths: upper >= reference >= lower, and close."""
    _patch(monkeypatch, config)
    rng = np.random.default_rng(n)
    eps = np.concatenate([rng.uniform(0.01, 2.0, size=n), np.full(n // 4, 0.7), np.full(3, 1.3)])
    q = np.minimum(2 * special.expit(-eps), 1.0)
    law = C.clone_law(q)
    for e, L in [(0.1, 1.9), (0.3, np.inf), (1.0, np.inf)]:
        ref = reference_expectation(q, e, L)
        up = law.upper(lambda m: NUM.hockey_upper(e, m, L))
        lo = law.lower(lambda m: NUM.hockey_upper(e, m, L) * (1 - 2e-12))
        assert lo <= ref * (1 + 1e-9) and up >= ref * (1 - 1e-9), (e, L, lo, ref, up)
        assert up <= ref * (1 + 1e-5) + law.error_l1  # tight up to the counted errors


@pytest.mark.parametrize("config", list(SMALL))
def test_blocked_and_default_paths_agree(monkeypatch, config):
    rng = np.random.default_rng(5)
    eps = rng.uniform(0.01, 2.0, size=3000)
    default = A.personalized_pair(eps, None, "revealing", reduction="clones")
    _patch(monkeypatch, config)
    small = A.personalized_pair(eps, None, "revealing", reduction="clones")
    for e in (0.05, 0.2):
        err = default.clones.error_l1 + small.clones.error_l1
        assert small.delta(e) == pytest.approx(default.delta(e), rel=1e-6, abs=err)


def _budgets(seed, n):
    rng = np.random.default_rng(seed)
    if seed % 2:
        return rng.choice([0.01, 0.3, 1.0, 2.0], size=n)  # repeated budgets: runs
    return rng.uniform(0.01, 2.0, size=n)


@pytest.mark.parametrize("config", list(SMALL))
@pytest.mark.parametrize("variant", PROF.VARIANTS)
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [5, 6])
def test_small_block_paths_bound_the_enumerated_protocol(monkeypatch, config, variant, seed, n):
    _patch(monkeypatch, config)
    eps = _budgets(seed, n)
    grid = np.linspace(0.0, 3.0, 16)
    truth, err = BF.shuffled_profile("binary-rr", eps, grid)
    ours = np.asarray(A.personalized_pair(eps, None, variant, reduction="clones").delta(grid))
    assert np.all(ours >= truth - err), (grid[ours < truth - err], ours, truth)


@pytest.mark.parametrize("config", ["tiny", "fft"])
def test_histogram_with_long_runs_equals_per_user(monkeypatch, config):
    _patch(monkeypatch, config)
    values, counts = np.array([0.2, 0.7, 1.5, 1.9]), np.array([9, 4, 1, 6])
    per_user = A.personalized_pair(np.repeat(values, counts), None, "revealing", reduction="clones")
    hist = A.personalized_pair(values, None, "revealing", counts=counts, reduction="clones")
    for e in (0.1, 0.5, 1.0):
        assert hist.delta(e) == pytest.approx(float(per_user.delta(e)), rel=1e-12, abs=1e-300)


def test_runs_split_the_sorted_users():
    monkey = C._BINOMIAL_MIN
    s = np.sort(
        np.concatenate(
            [
                np.full(monkey, 0.3),
                np.full(monkey + 5, 0.6),
                (np.arange(1, 50) + 0.5) / 100.0,
                np.full(monkey - 1, 0.9),
                [0.95, 0.95],
            ]
        )
    )
    others, values, counts = C._runs(s)
    assert list(values) == [0.3, 0.6] and list(counts) == [monkey, monkey + 5]
    rebuilt = np.sort(np.concatenate([others, np.repeat(values, counts)]))
    assert np.array_equal(rebuilt, s) and np.all(np.diff(others) >= 0)


@pytest.mark.parametrize("counts", [[3, 1, 4, 1, 5], [1, 1], [10, 1], [1, 10], [2, 2, 2]])
def test_user_split_matches_group_split(counts):
    values = np.array([0.1, 0.25, 0.4, 0.8, 0.95])[: len(counts)]
    counts = np.array(counts)
    (va, ca), _ = C._split(values, counts)
    assert C._split_users(np.repeat(values, counts)) == int(ca.sum())


def test_batched_combine_matches_sequential_convolution():
    rng = np.random.default_rng(2)
    parts = [
        C.binomial_part(int(c), float(v))
        for v, c in zip(rng.uniform(0.05, 0.95, 37), rng.integers(1, 3000, 37))
    ]
    parts += [C._bernoulli_block(rng.uniform(0.1, 0.9, 500), C.TOL)]
    batched = C._combine(parts, C.TOL)
    seq = parts[0]
    for p in parts[1:]:
        seq = C.convolve(seq, p, C.TOL)
    lo, hi = (
        max(seq.offset, batched.offset),
        min(seq.offset + seq.width, batched.offset + batched.width),
    )
    a = batched.pmf[lo - batched.offset : hi - batched.offset]
    b = seq.pmf[lo - seq.offset : hi - seq.offset]
    gap = np.abs(a - b).sum() + (1 - a.sum()) + (1 - b.sum())
    assert (
        gap <= 2 * (batched.rho + batched.eta + batched.tau + seq.rho + seq.eta + seq.tau) + 1e-12
    )


def test_overwrite_sorts_in_place_with_the_same_law():
    q = np.random.default_rng(3).uniform(0.2, 0.9, size=5000)
    copy = q.copy()
    a = C.clone_law(q)
    assert np.array_equal(q, copy)  # the default leaves the input alone
    b = C.clone_law(q, overwrite=True)
    assert np.all(np.diff(q) >= 0)
    assert a.offset == b.offset and np.array_equal(a.pmf, b.pmf)


def test_drop_and_counts_of_the_sorted_path():
    law = C.clone_law(np.array([0.0, 1e-20, 0.3, 0.5, 0.5]))
    assert law.n_users == 5 and law.dropped == 2
    exact = C.clone_law(np.array([0.0, 1e-20, 0.3]), drop=0.0)
    assert exact.dropped == 1


def test_threaded_halves_are_identical():
    x = np.random.default_rng(4).uniform(0.5, 3.0, size=1001)
    f = lambda a, b: special.betaincc(a, b, 0.5)
    assert np.array_equal(NUM.halves(f, x, x + 1.0), f(x, x + 1.0))


def test_runs_that_touch_are_both_found():
    """Regression: a run that starts right after the previous one ends (budgets with few distinct values,
    np.repeat of a histogram) lost its start mark, so its users were counted twice and later users not at all."""
    m = C._BINOMIAL_MIN
    s = np.concatenate([np.full(m, 0.1), np.full(m + 3, 0.2), np.full(m + 1, 0.4), [0.5, 0.6]])
    others, values, counts = C._runs(s)
    assert list(values) == [0.1, 0.2, 0.4] and list(counts) == [m, m + 3, m + 1]
    assert list(others) == [0.5, 0.6]


@pytest.mark.parametrize("levels", [[0.3, 1.0, 2.0], [0.01, 0.5], [0.2, 0.21, 0.22, 0.9]])
@pytest.mark.parametrize("config", [None, "tiny", "fft"])
def test_law_of_repeated_budgets_has_the_right_moments_and_matches_the_histogram(
    monkeypatch, levels, config
):
    """The computed pmf's own mean and variance against the users' (a check no construction bug escapes),
    per-user and histogram forms alike, against the exact convolution of binomials."""
    if config:
        _patch(monkeypatch, config)
    rng = np.random.default_rng(len(levels))
    counts = rng.integers(1, 3 * max(C._BINOMIAL_MIN, 100), size=len(levels))
    q = special.expit(-np.array(levels))
    ref = np.array([1.0])
    for v, c in zip(q, counts):
        ref = np.convolve(ref, stats.binom.pmf(np.arange(c + 1), c, v))
    for law in (
        C.clone_law(np.repeat(q, counts), drop=0.0),
        C.clone_law(values=q, counts=counts, drop=0.0),
    ):
        s, w = law.support, law.pmf
        assert (s * w).sum() == pytest.approx(float(q @ counts), rel=1e-9)
        assert ((s - law.mean) ** 2 * w).sum() == pytest.approx(
            float((q * (1 - q)) @ counts), rel=1e-6
        )
        window = ref[law.offset : law.offset + w.size]
        assert np.abs(w - window).sum() + (1 - window.sum()) <= law.error_l1 + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_law_moments_with_runs_and_singles_mixed(seed):
    """Runs of every length around _BINOMIAL_MIN, touching or not, among distinct values: the computed
    pmf's mean and variance are the users'."""
    rng = np.random.default_rng(seed)
    m = C._BINOMIAL_MIN
    parts = [np.full(int(rng.integers(m - 2, 3 * m)), v) for v in rng.uniform(0.05, 0.95, size=8)]
    parts += [rng.uniform(0.0, 1.0, size=int(rng.integers(0, 2000)))]
    q = rng.permutation(np.concatenate(parts))
    law = C.clone_law(q, drop=0.0)
    s, w = law.support, law.pmf
    assert (s * w).sum() == pytest.approx(q.sum(), rel=1e-9)
    assert ((s - q.sum()) ** 2 * w).sum() == pytest.approx((q * (1 - q)).sum(), rel=1e-6)


def _tails(law):
    """P(X >= k) for k = 0 .. the law's last count, from a sequentially convolved reference law."""
    return np.cumsum(law[::-1])[::-1]


@pytest.mark.parametrize("config", [None, "tiny", "fft"])
@pytest.mark.parametrize("n", [2, 3, 5, 40, 701])
def test_sum_and_difference_bracket_the_two_data_sets(monkeypatch, config, n):
    """Both laws of sum_and_difference against the Poisson-binomial law of the two data sets computed
    sequentially: every user with p_i (sorted), and the users of odd rank with 1 - p_i. Zeros and runs
    included (zeros: users that never report 1; their flipped selves always do)."""
    if config:
        _patch(monkeypatch, config)
    rng = np.random.default_rng(n)
    p = np.concatenate(
        [special.expit(-rng.uniform(0.01, 2.0, size=n)), np.full(n // 3, 0.3), np.zeros(n % 3)]
    )
    s = np.sort(p)
    flipped = np.where(np.arange(s.size) % 2 == 1, 1.0 - s, s)
    for law, ref in zip(C.sum_and_difference(p), (poisson_binomial(s), poisson_binomial(flipped))):
        lo, hi = law.tail_bounds()
        k = law.support
        assert k[0] >= 0 and k[-1] < ref.size
        want = _tails(ref)[k]
        assert np.all(lo <= want * (1 + 1e-12) + 1e-300) and np.all(hi >= want * (1 - 1e-12))
        assert np.all(hi - lo <= 1e-9)  # and tight
        assert want[0] == pytest.approx(1.0) or k[0] == 0  # nothing below the support


def test_sum_and_difference_refuses_bad_input_and_sorts_in_place_only_when_asked():
    with pytest.raises(ValueError, match="prob"):
        C.sum_and_difference(np.array([]))
    with pytest.raises(ValueError, match="prob"):
        C.sum_and_difference(np.array([0.2, 1.5]))
    p = np.array([0.4, 0.1, 0.3])
    C.sum_and_difference(p)
    assert p.tolist() == [0.4, 0.1, 0.3]
    C.sum_and_difference(p, overwrite=True)
    assert p.tolist() == [0.1, 0.3, 0.4]
