"""The privacy blanket (gspa.privacy.peers.blanket): Algorithm 1's LDP level and eq. (1) under each reading, the
certified pair against exhaustive enumeration of the real shuffled protocol, the blanket view enumerated,
BBGN19's bounds, and bad input."""

import itertools

import numpy as np
import pytest
from scipy.stats import binom

from gspa.privacy.peers import blanket as B
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.basics.decomposition import dp_epsilon

GRID = np.linspace(0.0, 3.0, 31)


def enumerate_protocol(rows, n, grid):
    """delta(eps) of the shuffle of n reports of a common randomizer (rows = its law per input), the
    largest over every multiset of the other users' inputs and every pair of inputs of the differing
    user (exact; the users are exchangeable). Rounded inputs x in [0, 1] are mixtures of these rows, so
    by joint convexity this is the protocol's profile."""
    best = np.zeros(grid.size)
    X = range(rows.shape[0])
    for others in itertools.combinations_with_replacement(X, n - 1):
        base = [rows[i] for i in others]
        for a, a2 in itertools.combinations(X, 2):
            P, Q = BF.histogram_law(base + [rows[a]]), BF.histogram_law(base + [rows[a2]])
            best = np.maximum(best, BF.hockey_both(P, Q, grid))
    return best


@pytest.mark.parametrize("b", [1, 2, 3, 6])
@pytest.mark.parametrize("eps_l", [0.1, 1.0, 3.0])
def test_ldp_level_of_each_reading(b, eps_l):
    for reading in B.READINGS:
        if reading == "header" and b < 2:
            continue
        assert dp_epsilon(B.randomizer_rows(eps_l, b, reading)) == pytest.approx(
            B.ldp_epsilon(eps_l, b, reading), rel=1e-12
        )
    assert B.ldp_epsilon(eps_l, b, "printed") == np.inf
    assert B.ldp_epsilon(eps_l, b, "balle") > eps_l


def test_gamma_formula():
    e = 0.7
    assert B.blanket_gamma(e, 5) == pytest.approx(5 / (np.exp(e) + 4), rel=1e-14)
    assert B.blanket_gamma(700.0, 5) > 0 and B.blanket_gamma(1e4, 5) == 0.0


@pytest.mark.parametrize("reading", B.READINGS)
def test_randomizer_law_matches_rows(reading):
    """The sampler's empirical law on the grid inputs equals randomizer_rows (chi-square-free check at 5 sd)."""
    b, eps_l, N = 3, 1.0, 200_000
    rng = np.random.default_rng(5)
    rows = B.randomizer_rows(eps_l, b, reading)
    inputs = np.arange(b) / (b - 1) if reading == "header" else np.arange(b + 1) / b
    shift = 1 if reading == "header" else 0
    for i, x in enumerate(inputs):
        y = B.blanket_randomize(np.full(N, x), eps_l, b, rng, reading) - shift
        freq = np.bincount(y, minlength=rows.shape[1]) / N
        assert np.all(np.abs(freq - rows[i]) <= 5 * np.sqrt(rows[i] * (1 - rows[i]) / N) + 1e-12)


def test_randomize_keeps_shape_and_is_seeded():
    x = np.random.default_rng(0).random((4, 5, 6))
    a = B.blanket_randomize(x, 1.0, 4, np.random.default_rng(1))
    b = B.blanket_randomize(x, 1.0, 4, np.random.default_rng(1))
    assert a.shape == x.shape and np.array_equal(a, b) and a.min() >= 0 and a.max() <= 4


def test_eq1_is_unbiased_only_under_balle():
    x = np.random.default_rng(2).random(50)
    for b in (2, 5, 10):
        g = B.blanket_gamma(1.0, b)
        mean, _ = B.debiased_moments(x, 1.0, b, "balle")
        assert mean == pytest.approx(x.sum(), rel=1e-12)
        mp, _ = B.debiased_moments(x, 1.0, b, "printed")
        assert mp - x.sum() == pytest.approx(x.size * g / (2 * b * (1 - g)), rel=1e-9)
        mh, _ = B.debiased_moments(x, 1.0, b, "header")
        assert abs(mh - x.sum()) > 1e-3


def test_moments_against_simulation():
    x = np.random.default_rng(3).random(40)
    b, eps_l, R = 4, 1.0, 40_000
    rng = np.random.default_rng(4)
    y = B.blanket_randomize(np.broadcast_to(x, (R, x.size)).copy(), eps_l, b, rng, "balle")
    z = B.blanket_debias(y.sum(axis=1), x.size, B.blanket_gamma(eps_l, b), b)
    mean, var = B.debiased_moments(x, eps_l, b, "balle")
    assert abs(z.mean() - mean) < 5 * np.sqrt(var / R)
    assert z.var() == pytest.approx(var, rel=0.05)


@pytest.mark.parametrize(
    "reading, b, n, eps_l",
    [
        ("balle", 2, 4, 1.0),
        ("balle", 3, 4, 0.5),
        ("balle", 1, 6, 2.0),
        ("header", 2, 6, 2.0),
        ("header", 3, 5, 0.5),
        ("header", 4, 4, 1.5),
    ],
)
def test_pair_is_above_the_enumerated_protocol(reading, b, n, eps_l):
    truth = enumerate_protocol(B.randomizer_rows(eps_l, b, reading), n, GRID)
    err = 1e-13 * (1 + np.exp(GRID))
    ours = np.asarray(B.blanket_pair(eps_l, b, n, reading).delta(GRID))
    assert np.max(truth - err - ours) <= 0.0
    big = truth > 1e-9
    assert np.median(ours[big] / truth[big]) < 1.1 and np.max(ours[big] / truth[big]) < 1.3


def test_printed_reading_profile_is_exact():
    for b, n, eps_l in ((2, 4, 1.0), (3, 4, 0.5)):
        truth = enumerate_protocol(B.randomizer_rows(eps_l, b, "printed"), n, GRID)
        ours = B.blanket_pair(eps_l, b, n, "printed").delta(GRID)
        assert np.allclose(truth, 1 - B.blanket_gamma(eps_l, b), atol=1e-12)
        assert np.all(ours >= truth - 1e-12)


@pytest.mark.parametrize("eps_l, s, n", [(1.0, 2, 6), (0.5, 3, 5), (1.5, 4, 4)])
def test_blanket_pair_is_the_enumerated_blanket_view(eps_l, s, n):
    """BlanketPair against the blanket view itself: m ~ Bin(n - 1, gamma) uniform draws and the
    differing user's report, histogram enumerated."""
    g = B.blanket_gamma(eps_l, s)
    u = np.full(s, 1.0 / s)
    P1, Q1 = (1 - g) * np.eye(s)[0] + g * u, (1 - g) * np.eye(s)[1] + g * u
    exact = sum(
        binom.pmf(m, n - 1, g)
        * BF.hockey_both(BF.histogram_law([u] * m + [P1]), BF.histogram_law([u] * m + [Q1]), GRID)
        for m in range(n)
    )
    ours = B.BlanketPair(g, s, n, eps_l).delta(GRID)
    assert np.all(ours >= exact - 1e-14) and np.max(ours - exact) < 1e-9


def test_pair_epsilon_inverts_delta():
    p = B.blanket_pair(0.5, 10, 500)
    e = p.epsilon(1e-6)
    assert p.delta(e) <= 1e-6 < p.delta(e * 0.99)


def test_lemma1_and_balle_bound():
    e, ok = B.lemma1_epsilon(1e-6, 1.0, 2, 100000)
    assert e == pytest.approx(np.sqrt(14 * np.log(2e6) * (np.e + 1) / 99999)) and ok
    assert not B.lemma1_epsilon(1e-6, 1.0, 2, 100)[1]  # eps_c > 1
    d = B.balle_blanket_delta(np.array([0.1, 0.3, 0.9]), 1.0, 2, 1000, version="flame")
    assert (
        np.all(np.diff(d) <= 0) and B.balle_blanket_delta(1.0, 1.0, 2, 1000, version="flame") == 0.0
    )
    e = B.balle_blanket_epsilon(1e-6, 1.0, 2, 1000, version="flame")
    assert (
        B.balle_blanket_delta(e, 1.0, 2, 1000, version="flame")
        <= 1e-6
        < B.balle_blanket_delta(e * 0.99, 1.0, 2, 1000, version="flame")
    )


def test_laplace_blanket_mass():
    for e in (0.1, 1.0, 5.0):
        assert B.laplace_blanket_mass(e) == pytest.approx(np.exp(-e / 2), rel=1e-6)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: B.blanket_gamma(-1.0, 3), "eps_l"),
        (lambda: B.blanket_gamma(1.0, 0), "b"),
        (lambda: B.blanket_randomize(np.array([1.5]), 1.0, 3, np.random.default_rng()), "x"),
        (lambda: B.blanket_randomize(np.array([0.5]), 1.0, 3, 7), "rng"),
        (lambda: B.blanket_debias(1.0, 0, 0.5, 3), "n"),
        (lambda: B.blanket_debias(1.0, 3, 1.0, 3), "gamma"),
        (lambda: B.blanket_pair(1.0, 3, 1), "n"),
        (lambda: B.blanket_pair(1.0, 3, 10, reading="other"), "reading"),
        (lambda: B.blanket_pair(1.0, 1, 10, reading="header"), "b"),
        (
            lambda: B.balle_blanket_delta(0.1, 1.0, 3, 10, mechanism="gauss", version="flame"),
            "mechanism",
        ),
        (lambda: B.balle_blanket_epsilon(0.0, 1.0, 3, 10, version="flame"), "delta"),
        (lambda: B.lemma1_epsilon(1e-6, 1.0, 3, 1), "n"),
        (lambda: B.blanket_pair(1.0, 3, 10).delta(-0.1), "eps"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_bennett_bound_falls_below_the_real_protocol():
    """The finding of the chapter: at eps_l = 0.5, b = 2 (binary RR), n = 10^4, delta = 1e-6, BBGN19's
    Bennett eps is below the real protocol's: with every other user holding 0, the exact delta there
    (binomial laws, computed directly) exceeds 1e-6. And the certified pair stays above it."""
    el, n, d = 0.5, 10_000, 1e-6
    eps = B.balle_blanket_epsilon(d, el, 2, n, version="flame")
    p = 1.0 / (1.0 + np.exp(el))
    S = binom.pmf(np.arange(n + 1), n - 1, p)
    P0 = (1 - p) * S + p * np.r_[0.0, S[:-1]]
    P1 = p * S + (1 - p) * np.r_[0.0, S[:-1]]
    truth = np.maximum(P0 - np.exp(eps) * P1, 0.0).sum()
    assert truth > 2 * d
    assert B.blanket_pair(el, 2, n, "header").delta(eps) >= truth


@pytest.mark.parametrize(
    "el, n, d", [(0.5, 10_000, 1e-6), (0.5, 10_000, 1e-8), (1.0, 10_000, 1e-6)]
)
def test_corrected_bennett_bound_stays_above_the_real_protocol(el, n, d):
    """FLAME's copy of BBGN19's code predates BBGN19's fix of its Bennett term (commit 7994ad3 of
    BorjaBalle/amplification-by-shuffling): at these three points of the blanket chapter's grid the
    "flame" version is below the certified lower bound of the real shuffled binary RR, the corrected
    "bbgn19" version above it."""
    from gspa.privacy.shuffle.lower import lower_bound

    low = lower_bound(np.full(n, el)).epsilon(d)
    flame = B.balle_blanket_epsilon(d, el, 2, n, version="flame")
    fixed = B.balle_blanket_epsilon(d, el, 2, n, version="bbgn19")
    assert flame < low < fixed


def test_flame_bennett_version_is_below_the_corrected_one_when_m_expm1_exceeds_1():
    # one blanket size m: the flame term is the corrected one divided by m (e^eps - 1)
    e = 0.3
    dflame = B.balle_blanket_delta(e, 1.0, 2, 50, version="flame")
    dfix = B.balle_blanket_delta(e, 1.0, 2, 50, version="bbgn19")
    assert 0 < dflame < dfix
    with pytest.raises(ValueError, match="version"):
        B.balle_blanket_delta(e, 1.0, 2, 50, version="2019")
