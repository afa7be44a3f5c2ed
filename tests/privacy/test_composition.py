"""Composition over rounds (gspa.privacy.shuffle.composition): ground truth by enumeration, the FFT's round-off
against its counted bound, and the comparison points."""

import numpy as np
import pytest
from scipy import stats
from hypothesis import assume, example, given, settings, strategies as st

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import composition as C
from gspa.privacy.basics.fdp import gdp_delta
from gspa.privacy import numerics as NUM

GRID = np.linspace(0.0, 3.0, 31)


@pytest.mark.parametrize("rounds", [2, 3])
@pytest.mark.parametrize(
    "randomizer, eps, delta, k",
    [
        ("binary-rr", [0.3, 0.8, 1.2, 0.5], None, None),
        ("binary-rr", [2.0, 2.0, 0.1], None, None),
        ("k-rr", [0.4, 1.0, 1.5], None, 3),
        ("quaternary", [0.3, 0.8, 1.2], [0.01, 0.02, 0.0], None),
    ],
)
def test_composed_bound_is_above_the_enumerated_protocol(rounds, randomizer, eps, delta, k):
    """T independent runs of the real shuffled protocol on the same neighbouring data sets, enumerated
    exactly: the composed certified bound is never certainly below them."""
    truth, err = BF.shuffled_profile(randomizer, eps, GRID, delta=delta, k=k, rounds=rounds)
    ours = A.personalized_pair(eps, delta, randomizer=randomizer, k=k, rounds=rounds).delta(GRID)
    assert np.max(truth - err - ours) <= 0.0  # the default (the cells for binary RR and quaternary)
    clones = "clones" if randomizer in ("binary-rr", "quaternary") else None
    ours = A.personalized_pair(
        eps, delta, randomizer=randomizer, k=k, rounds=rounds, reduction=clones
    ).delta(GRID)
    assert np.max(truth - err - ours) <= 0.0
    big = truth > 1e-6
    assert np.median(ours[big] / truth[big]) < 2.5  # and not vacuous


@pytest.mark.parametrize("rounds", [2, 3])
def test_composed_bound_beyond_the_lattice_is_finite_and_valid(rounds):
    """Where the FFT value is floored by its round-off allowance (tiny delta, large eps), basic and advanced
    composition of the one-round bound still give finite bounds (eps(1e-30) was once inf): checked
    against the enumerated T-round protocol on a grid up to T max eps_i, and at the eps returned for
    delta = 1e-30."""
    eps = [0.3, 0.8, 1.2, 0.5]
    pair = A.personalized_pair(eps, rounds=rounds, reduction="clones")
    grid = np.linspace(0.0, rounds * max(eps) + 0.5, 41)
    truth, err = BF.shuffled_profile("binary-rr", eps, grid, rounds=rounds)
    assert np.max(truth - err - pair.delta(grid)) <= 0.0
    e = pair.epsilon(1e-30)
    # at most basic composition of eps_i, up to the grid eps(delta) returns (a relative step of 2^-27)
    assert np.isfinite(e) and e <= rounds * max(eps) * (1 + 2.0**-26)
    t, er = BF.shuffled_profile("binary-rr", eps, [e], rounds=rounds)
    assert t[0] - er[0] <= 1e-30
    assert pair.delta(rounds * max(eps)) <= 1e-290  # pure: basic composition at delta 0
    reveal = A.personalized_pair(eps, variant="revealing", rounds=rounds, reduction="clones")
    assert reveal.epsilon(1e-30) == np.inf or reveal.delta(reveal.epsilon(1e-30)) <= 1e-30


def test_the_enumeration_composes():
    """The ground truth itself: two rounds of a one-user-differs protocol are at least as revealing as one
    (it can fail if the product law were built wrongly)."""
    eps = [0.5, 1.0, 0.7]
    one, _ = BF.shuffled_profile("binary-rr", eps, GRID)
    two, _ = BF.shuffled_profile("binary-rr", eps, GRID, rounds=2)
    assert np.all(two >= one - 1e-15) and np.any(two > one + 1e-3)


def test_one_round_through_the_pld_matches_the_pair():
    """Connect-the-dots with one round is the pair's own curve up to the chords between nodes."""
    eps = np.random.default_rng(1).uniform(0.05, 1.0, 2000)
    pair = A.personalized_pair(eps, reduction="clones")
    one = C.Composed(pair, 1)
    g = np.linspace(0.0, 0.3, 13)
    assert np.all(one.delta(g) >= pair.delta(g) * (1 - 1e-12))
    e_pair, e_one = pair.epsilon(1e-6), one.epsilon(1e-6)
    assert e_pair <= e_one <= e_pair * 1.001


def _direct_power(f, inf, T):
    """The T-fold convolution in long double (exact to ~1e-19 relative) and its mass at +inf."""
    w = f.astype(np.longdouble)
    out = w
    for _ in range(T - 1):
        out = np.convolve(out, w)
    return out, 1 - (1 - np.longdouble(inf)) ** T


def _dominates(lat, lo, f, inf, T):
    """Every upper tail of the computed T-fold measure, raised by its relative error, plus its mass at +inf
    and its counted error is at least the exact one's: the computed measure dominates stochastically, up to
    its errors."""
    exact, exact_inf = _direct_power(f, inf, T)
    shift = lat.lo - T * lo  # the computed window's first index in the exact vector
    full = np.zeros(exact.size, dtype=np.longdouble)
    full[shift : shift + lat.f.size] = lat.f
    tails_c = np.cumsum(full[::-1])[::-1] * (1 + np.longdouble(lat.rel))
    err = np.full(exact.size, lat.err)
    if lat.theta > 0:  # the tilted bound on the error above each loss
        with np.errstate(over="ignore"):
            above = np.exp(lat.tilt - lat.theta * (T * lo + np.arange(exact.size)))
        err = np.minimum(err, lat.err_inf + above)
    tails_c += np.longdouble(lat.inf) + err.astype(np.longdouble)
    tails_e = np.cumsum(exact[::-1])[::-1] + exact_inf
    return float(np.min(tails_c - tails_e)), float(np.max(np.abs(tails_c - tails_e)))


_LO, _INF = st.integers(-20, 20), st.floats(0.0, 1e-3)
_CUTS, _THETAS = st.sampled_from([2.0**-52, 1e-8, 1e-4]), st.sampled_from([0.0, 0.0625, 0.75, 4.0])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 24)), min_size=1, max_size=40),
    st.integers(1, 12),
    _LO,
    _INF,
    st.booleans(),
    _CUTS,
    _THETAS,
)
@example(
    [(1.0, 0), (0.375, 0)], 2, 0, 0.0, False, 2.0**-52, 0.0
)  # a direct convolution's round-off shows
@example([(1.0, 0), (0.5, 3), (0.25, 9), (1.0, 20)], 12, -5, 0.0, True, 2.0**-52, 0.75)
def test_lattice_power_dominates_the_exact_composition(weights, T, lo, inf, fft, cut, theta):
    """power() (repeated squaring, tails cut, errors counted) against long-double direct convolution, on
    the direct path and with every convolution forced through FFTs, plain and tilted (``theta``: the error
    above each loss bounded through the tilt, checked tail by tail). Masses down to 1e-24 put tails below
    the cut."""
    f = np.array([w * 10.0**-k for w, k in weights])
    assume(f.sum() > 0)
    f = f / f.sum() * (1 - inf)
    old = C.DIRECT_MAX, C.CUT
    C.DIRECT_MAX, C.CUT = (-1 if fft else old[0]), cut  # a large cut: its moves dwarf the round-off
    try:
        lat = C.power(C.Lattice(lo, f, 0.0, inf, theta=theta), T)
    finally:
        C.DIRECT_MAX, C.CUT = old
    worst, gap = _dominates(lat, lo, f, inf, T)
    assert worst >= -1e-18
    assert gap <= 1e-9 + 4 * T * cut  # and tight: only the cuts and the counted error


def _lowered_fft(real, theta):
    """_fft_rows with the worst error its bound allows where composition uses the result, in the unsafe
    direction: the exact convolution (long double, rounded up), lowered by an error of L2 norm E = L1 bound /
    sqrt(length) — spread evenly over the entries a plain convolution keeps (a plain one: all; the plain
    row of a tilted pair: those below the splice) or, for a tilted row, over the entries kept above the
    splice in proportion to e^{theta (n - 1 - k)} (where the untilted error is largest), and those lowered
    by most of the relative error allowed them (12 of 16 u: the rest for the untilting's own) — at least 0."""

    def rows(a, b, **kw):
        _, l1 = real(a, b, **kw)
        ld = np.longdouble
        out = np.array([np.convolve(x.astype(ld), y.astype(ld)) for x, y in zip(a, b)])
        n = out.shape[1]
        e = l1 * (1 - 1e-9) / np.sqrt(n)
        first = C._splice(e[0], e[1], n, theta) if len(out) == 2 else n
        out[0, :first] -= ld(e[0] / np.sqrt(max(first, 1)))
        if len(out) == 2 and first < n:
            w = np.exp(-theta * np.arange(n - first))  # proportional to e^{theta (n - 1 - k)}
            out[1, first:] -= (e[1] * w / np.linalg.norm(w)).astype(ld)
            out[1, first:] *= 1 - ld(12 * NUM.U)  # a relative error the splice allows
        return np.maximum(np.nextafter(out.astype(float), np.inf), 0.0), l1

    return rows


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0.01, 1.0), st.integers(0, 12)), min_size=3, max_size=30),
    st.integers(2, 12),
    _LO,
    _INF,
    _CUTS,
    _THETAS,
    st.sampled_from([0.0, 1e-9, 0.01, 0.5]),
    st.booleans(),
)
@example([(1.0, 0), (0.5, 3), (0.25, 9), (1.0, 2), (0.5, 0)], 8, -3, 1e-4, 1e-4, 0.75, 0.5, False)
@example([(1.0, k) for k in range(24)], 4, -3, 1e-4, 2.0**-52, 4.0, 0.0, True)
@example([(1.0, k) for k in range(24)], 4, -3, 1e-4, 1e-4, 0.75, 1e-9, True)
def test_counted_errors_cover_planted_ones(weights, T, lo, inf, cut, theta, share, decaying):
    """The error bookkeeping of power(), tilted or not, with errors planted where the bounds say they may
    be: the input lattice below the exact measure by ``share`` of its lowest and its upper third and of its
    mass at +inf (0: the FFTs' errors alone, which larger planted errors' slack would hide) (declared in err, err_inf and tilt), and every FFT lowered by its whole allowance
    (:func:`_lowered_fft`). The counted errors must still cover the exact T-fold composition, tail by tail
    (a term left out of the bookkeeping of the input's, the cuts' or the FFT's errors fails here)."""
    exact = np.array([w * 10.0**-k for w, k in weights])
    exact = exact / exact.sum() * (1 - inf)
    # decaying: a tail that falls, as a privacy-loss distribution's does (the tilted FFT is then used)
    exact = np.sort(exact)[::-1] if decaying else exact
    planted = np.zeros_like(exact)
    planted[2 * exact.size // 3 :] = share * exact[2 * exact.size // 3 :]
    planted[: exact.size // 3] = share * exact[: exact.size // 3]
    lat0 = _planted(lo, exact, planted, inf, share * inf, theta)
    old = C.DIRECT_MAX, C.CUT, C._fft_rows
    C.DIRECT_MAX, C.CUT, C._fft_rows = -1, cut, _lowered_fft(old[2], theta)
    try:
        lat = C.power(lat0, T)
    finally:
        C.DIRECT_MAX, C.CUT, C._fft_rows = old
    worst, _ = _dominates(lat, lo, exact, inf, T)
    assert worst >= -1e-18


def _planted(lo, exact, planted, inf, planted_inf, theta):
    """A lattice below ``exact`` (and its mass ``inf`` at +inf) by about ``planted`` (``planted_inf``), with
    the errors it declares (err, err_inf, tilt) computed from what the subtractions actually left, in long
    double (a planted error of 1e-9 is within their round-off)."""
    ld = np.longdouble
    f, inf0 = exact - planted, inf - planted_inf
    a = np.abs(exact.astype(ld) - f.astype(ld))
    a_inf = abs(ld(inf) - ld(inf0))
    with np.errstate(divide="ignore"):  # no error: -inf
        tilt = float(np.log(np.sum(a * np.exp(ld(theta) * (lo + np.arange(f.size)))))) + 1e-9
    slack = 1 + 1e-12
    err = float(a.sum() + a_inf) * slack
    return C.Lattice(
        lo, f, err, inf0, 0.0, theta, tilt if theta > 0 else -np.inf, float(a_inf) * slack
    )


def _masses(weights, decaying):
    f = np.array([w * 10.0**-k for w, k in weights])
    return np.sort(f)[::-1] / f.sum() if decaying else f / f.sum()


_WEIGHTS = st.lists(st.tuples(st.floats(0.01, 1.0), st.integers(0, 12)), min_size=2, max_size=60)


@settings(max_examples=60, deadline=None)
@given(
    _WEIGHTS,
    _WEIGHTS,
    st.integers(-30, 30),
    st.integers(-30, 30),
    st.sampled_from([0.0625, 0.75, 4.0]),
    st.booleans(),
)
@example([(1.0, k % 13) for k in range(60)], [(1.0, k % 13) for k in range(50)], -7, 2, 0.75, True)
def test_tilted_fft_counts_the_worst_error_it_allows(wa, wb, lo_a, lo_b, theta, decaying):
    """One tilted FFT convolution with the worst error its bound allows (:func:`_lowered_fft`): the error
    left after its relative allowance, sum_k (exact_k - out_k (1 + rel))_+, is within the L1 bound it
    returns, and weighted by e^{theta (lo + k)} within its tilted bound."""
    _check_tilted_fft(_masses(wa, decaying), _masses(wb, decaying), lo_a, lo_b, theta)


def test_tilted_fft_counts_the_error_of_a_long_tilted_part():
    """As above, on two geometric laws where the spliced part is long and its error shows beyond the
    relative allowance of the rest (found by search): the L1 bound needs the tilted part's term."""
    fa, fb = np.exp(-0.42995 * np.arange(243)), np.exp(-1.8267 * np.arange(301))
    _check_tilted_fft(fa / fa.sum(), fb / fb.sum(), 0, 0, C._exact_theta(0.05))


def _check_tilted_fft(fa, fb, lo_a, lo_b, theta):
    a = C.Lattice(lo_a, fa, 0.0, 0.0, theta=theta)
    b = C.Lattice(lo_b, fb, 0.0, 0.0, theta=theta)
    old = C._fft_rows
    C._fft_rows = _lowered_fft(old, theta)
    try:
        out, rel, err_l1, tilt = C._tilted_fft(a, b, C._tilted(fa, theta), C._tilted(fb, theta))
    finally:
        C._fft_rows = old
    ld = np.longdouble
    exact = np.convolve(a.f.astype(ld), b.f.astype(ld))
    excess = np.maximum(exact - out.astype(ld) * (1 + ld(rel)), 0)
    assert float(excess.sum()) <= err_l1
    k = lo_a + lo_b + np.arange(exact.size)
    assert float(np.log(np.sum(excess * np.exp(ld(theta) * k)))) <= tilt if excess.any() else True


@settings(max_examples=60, deadline=None)
@given(
    _WEIGHTS,
    st.integers(-30, 30),
    st.sampled_from([0.0625, 0.75, 4.0]),
    st.one_of(st.just(0.0), st.floats(1e-300, 1e-3)),
    st.floats(0.01, 0.9),
    st.booleans(),
)
@example([(1.0, k % 7) for k in range(40)], 3, 0.75, 1e-4, 0.5, True)
def test_cut_moves_the_counted_errors_with_the_mass(weights, lo, theta, inf, share, decaying):
    """_cut on a lattice below the exact measure by ``share`` of its lowest and highest entries and of its
    mass at +inf (declared): against the exact measure cut at the same places (the top to +inf, the bottom
    onto the first kept entry), the declared errors still cover it — in L1 with +inf (``err``), at +inf
    (``err_inf``) and tilted (``tilt``)."""
    exact = _masses(weights, decaying) * (1 - inf)
    planted = np.zeros_like(exact)
    third = max(exact.size // 3, 1)
    planted[:third], planted[-third:] = share * exact[:third], share * exact[-third:]
    x = _planted(lo, exact, planted, inf, share * inf, theta)
    old = C.CUT
    C.CUT = 1e-3
    try:
        y = C._cut(x)
    finally:
        C.CUT = old
    moved, kept = y.lo - lo, y.f.size
    dropped = exact.size - moved - kept
    ld = np.longdouble  # the exact measure, cut the same way, in long double
    cut = exact[moved : moved + kept].astype(ld)
    cut[0] += exact[:moved].astype(ld).sum()
    inf_exact = ld(inf) + exact[exact.size - dropped :].astype(ld).sum()
    excess = np.maximum(cut - y.f.astype(ld) * (1 + ld(y.rel)), 0)
    at_inf = max(inf_exact - ld(y.inf), 0)
    assert float(excess.sum() + at_inf) <= y.err * (1 + 1e-12)
    assert float(at_inf) <= y.err_inf * (1 + 1e-12)
    if excess.any():
        weights = np.exp(ld(theta) * (y.lo + np.arange(kept)))
        assert float(np.log(np.sum(excess * weights))) <= y.tilt + 1e-12


@pytest.mark.parametrize("theta", [1e-14, 1e-7, 0.3, 400.0, 5000.0])
def test_log_norm2_is_the_geometric_sum_rounded_up(theta):
    """The closed form of _log_norm2 against 40-digit arithmetic, for tilts that once overflowed (theta above
    about 355: expm1(2 theta) = inf) or cancelled (theta near 1e-14) — found by review."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    for start, stop in [(0, 1), (-7, 30), (3, 5000)]:
        exact = mp.log(mp.fsum(mp.e ** (2 * mp.mpf(theta) * k) for k in range(start, stop))) / 2
        ours = C._log_norm2(start, stop, theta)
        assert exact <= ours <= exact + 1e-7 * max(1.0, abs(float(exact)))


def test_a_tilted_lattice_declares_its_tilted_error():
    """A tilted lattice with a counted error and no tilted bound would let value() drop the error: refused."""
    with pytest.raises(ValueError, match="tilted bound"):
        C.Lattice(0, np.array([0.5, 0.5]), 0.3, 0.0, theta=0.5)
    C.Lattice(0, np.array([0.5, 0.5]), 0.3, 0.0)  # untilted: err alone counts
    with pytest.raises(ValueError, match="significant bits"):  # its exponents would not be exact
        C.Lattice(0, np.array([0.5, 0.5]), 0.0, 0.0, theta=0.1)
    assert C._exact_theta(0.1) <= 0.1 and C._exact_theta(0.75) == 0.75


def test_composed_curve_is_above_the_direct_composition_and_close():
    """A Composed pair's lattice value against the long-double T-fold convolution of its one-round PLD."""
    eps = np.random.default_rng(2).uniform(0.1, 1.0, 300)
    c = C.Composed(A.personalized_pair(eps, reduction="clones"), 4, nodes=120)
    exact, exact_inf = _direct_power(c.omega, c.omega_inf, 4)
    s = (np.arange(exact.size) - 4 * c.K) * c.step
    for e in np.linspace(0.0, 4 * c.K * c.step, 17):
        truth = float(exact_inf + np.sum(exact[s > e] * -np.expm1(e - s[s > e])))
        ours = float(c.composed.value(c.step, [e])[0])
        assert truth <= ours <= truth + 1e-12
    assert c.floor < 1e-12


def test_pld_masses_form_a_distribution():
    pair = A.personalized_pair(
        np.random.default_rng(3).uniform(0.1, 1.5, 500), randomizer="binary-rr", reduction="clones"
    )
    c = C.Composed(pair, 5)
    assert np.all(c.omega >= 0)
    assert 0 <= c.omega_inf <= 1e-12
    assert abs(c.omega.sum() + c.omega_inf - 1.0) < 1e-9


def test_quaternary_floor_composes():
    """delta_i > 0: the revealing event of any of T rounds counts fully, so delta_T >= 1 - (1 - max delta_i)^T."""
    eps = np.full(50, 0.5)
    c = A.personalized_pair(
        eps, np.full(50, 1e-4), randomizer="quaternary", rounds=10, reduction="clones"
    )
    assert c.delta(50.0) >= 1 - (1 - 1e-4) ** 10
    assert c.epsilon(1e-4) == float("inf")


def test_more_rounds_never_more_private():
    pair = A.personalized_pair(np.random.default_rng(4).uniform(0.1, 1.0, 1000), reduction="clones")
    eps = [C.compose(pair, t).epsilon(1e-6) for t in (1, 2, 4, 16)]
    assert eps == sorted(eps) and eps[0] < eps[-1]


def test_against_gaussian_composition_in_the_clt_regime():
    """Many users at one budget: the pair is close to mu-GDP and T rounds close to sqrt(T) mu-GDP; the
    certified composed delta is above the Gaussian one but not far (a sanity check of scale, not a bound)."""
    n, e0, T = 20_000, 0.5, 25
    pair = A.personalized_pair(np.full(n, e0), reduction="clones")
    mu = 2 * np.tanh(e0 / 2) / np.sqrt(n * 2 / (1 + np.exp(e0)))
    c = C.compose(pair, T)
    x = 3 * np.sqrt(T) * mu
    assert 0.5 < c.delta(x) / gdp_delta(x, np.sqrt(T) * mu) < 3


class _CurveRound:
    """One round of a mechanism known by its exact curve: read node by node (no enumerated outcomes, so
    composition reads only the nodes its hull needs), with an allowance for the curve's own round-off;
    ``truth(eps, T)`` is the exact curve of T rounds. The Gaussian mechanism (mu-GDP; T rounds are
    sqrt(T) mu-GDP, Dong, Roth and Su 2022, Cor. 3.3) and randomized response (a curve linear in e^eps:
    its chords are exact, so nearly every node is left out; T rounds by the binomial law of its losses),
    each also read through a bound that changes form at eps = ``switch`` (below it, the curve at 0.6 eps:
    valid, looser, and not convex across the change)."""

    def __init__(self, kind, x, switch=0.0):
        self.kind, self.x, self.switch = kind, x, switch

    def truth(self, eps, T=1):
        if self.kind == "gaussian":
            return gdp_delta(eps, np.sqrt(T) * self.x)
        k = np.arange(T + 1)
        loss = (2 * k - T) * self.x
        p = stats.binom.pmf(k, T, 1 / (1 + np.exp(-self.x)))
        gain = [
            -np.expm1(np.minimum(e - loss, 0.0)) for e in np.ravel(eps)
        ]  # (1 - e^{eps - loss})_+
        return np.array([np.sum(p * g) for g in gain])

    def delta(self, eps):
        e = np.asarray(eps, dtype=float)
        at = np.where(e < self.switch, 0.6 * e, e)
        out = np.minimum(self.truth(at) * (1 + 1e-9), 1.0)
        return out.reshape(np.shape(eps)) if np.ndim(eps) else float(np.ravel(out)[0])

    def epsilon(self, delta):
        return NUM.invert(self.delta, delta, 100.0)


@pytest.mark.parametrize(
    "kind, x, T, switch",
    [
        ("gaussian", 0.1, 100, 0.0),
        ("gaussian", 0.5, 10, 0.0),
        ("gaussian", 2.0, 2, 0.0),
        ("gaussian", 1.0, 10, 2.1),
        ("rr", 1.0, 10, 0.0),
        ("rr", 0.2, 50, 0.0),
        ("rr", 0.5, 20, 0.7),
    ],
)
def test_composition_of_a_curve_read_at_some_nodes_is_above_the_exact_composition(
    kind, x, T, switch
):
    """Composed reads a node-by-node curve only where its hull needs it; its one-round PLD is above the
    mechanism's curve at every node, read or not, the composed bound above the exact T-fold composition
    everywhere and within 10 % of it down to 1e-10 (the exact curve read), and the nodes left out move
    eps(delta) by less than 1e-6 (relative) against reading every node."""
    base = _CurveRound(kind, x, switch)
    c = C.compose(base, T)
    assert c._at.size <= c.K  # not every node is read
    one = c.step * np.arange(c.K + 1)
    assert np.all(c.omega_inf + C._lattice_curve(c.omega, -c.K, c.step, one) >= base.truth(one))
    eps = np.linspace(0.0, 2.0 * c.K * c.step, 200)
    truth, ours = base.truth(eps, T), c.delta(eps)
    assert np.all(ours >= truth)
    big = truth > 1e-10
    assert switch or np.all(ours[big] <= truth[big] * 1.1)  # a looser bound read: not close
    every = C._read_nodes
    try:
        C._read_nodes = lambda curve, K, h: (
            np.arange(K + 1),
            np.asarray(curve(h * np.arange(K + 1))),
        )
        full = C.compose(base, T)
    finally:
        C._read_nodes = every
    for delta in (1e-3, 1e-6, 1e-9):
        assert c.epsilon(delta) == pytest.approx(full.epsilon(delta), rel=1e-6)


def test_advanced_composition_formula():
    eps, delta = C.advanced_composition(0.1, 1e-8, 100, 1e-6)
    assert eps == pytest.approx(np.sqrt(200 * np.log(1e6)) * 0.1 + 100 * 0.1 * np.expm1(0.1))
    assert delta == pytest.approx(100 * 1e-8 + 1e-6)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", 10**6])
def test_bad_rounds(bad):
    pair = A.personalized_pair([0.5, 0.5, 0.5], reduction="clones")
    with pytest.raises(ValueError, match="rounds"):
        C.compose(pair, bad)


def test_flame_lemmas_2_and_3():
    """FLAME Lemma 2 (t eps, t delta) and Lemma 3 = Dwork–Roth Thm 3.20, and both above the exact
    composition of a pair (certified PLD composition of binary RR at T = 10)."""
    assert C.basic(0.1, 1e-7, 10) == pytest.approx((1.0, 1e-6))
    e, d = C.advanced(0.1, 1e-7, 10, 1e-6)
    assert e == pytest.approx(
        np.sqrt(20 * np.log(1e6)) * 0.1 + 10 * 0.1 * np.expm1(0.1)
    ) and d == pytest.approx(2e-6)
    with pytest.raises(ValueError, match="t"):
        C.basic(0.1, 0.0, 0)
    with pytest.raises(ValueError, match="delta_slack"):
        C.advanced(0.1, 0.0, 3, 0.0)


def test_blanket_pair_composes_over_two_rounds():
    """Two rounds of the shuffled blanket randomizer, enumerated, against the composed certified pair."""
    from gspa.privacy.peers import blanket as B

    eps_l, b, n = 1.0, 2, 3
    truth, err = BF.shuffled_profile(
        "k-rr", np.full(n, B.ldp_epsilon(eps_l, b, "balle")), GRID, k=b + 1, rounds=2
    )
    ours = B.blanket_pair(eps_l, b, n, "balle", rounds=2).delta(GRID)
    assert np.max(truth - err - ours) <= 0.0


def test_composed_blanket_pair_agrees_with_dp_accounting():
    """T = 20 rounds of the exact blanket view (n = 6, three symbols), by the certified connect-the-dots PLD
    and by dp_accounting's pessimistic PLD self-composition of the enumerated pair: the two agree to 0.5 %
    (both lie above the truth up to their discretisation)."""
    from scipy.stats import binom
    from gspa.privacy.peers import blanket as B
    from gspa.privacy.interop import dpaccounting as D

    eps_l, s, n, T = 1.0, 3, 6, 20
    g = B.blanket_gamma(eps_l, s)
    u = np.full(s, 1.0 / s)
    P1, Q1 = (1 - g) * np.eye(s)[0] + g * u, (1 - g) * np.eye(s)[1] + g * u
    P = np.concatenate(
        [binom.pmf(m, n - 1, g) * BF.histogram_law([u] * m + [P1]) for m in range(n)]
    )
    Q = np.concatenate(
        [binom.pmf(m, n - 1, g) * BF.histogram_law([u] * m + [Q1]) for m in range(n)]
    )
    keep = (P > 0) | (Q > 0)
    ref = D.composed_pair_epsilon(P[keep], Q[keep], T, 1e-6, discretization=1e-4)
    ours = C.compose(B.BlanketPair(g, s, n, eps_l), T).epsilon(1e-6)
    assert abs(ours - ref) <= 5e-3 * ref


@pytest.mark.parametrize(
    "n, T", [(50, 2), (50, 100), (200, 10), (1000, 10), (1000, 1000), (3000, 100)]
)
@pytest.mark.parametrize("kind", ["personalized", "revealing", "fmt21"])
def test_compose_is_at_least_as_tight_as_dp_accounting_on_the_same_pair(n, T, kind):
    """gspa.compose against dp_accounting (to_pld on its default grid 1e-4, self_compose) on the same pair,
    eps at delta = 1e-8: never looser (both are upper bounds of the same composition)."""
    from gspa.privacy.interop.dpaccounting import to_pld

    users = np.random.default_rng(n + T).uniform(0.01, 2.0, n)
    pair = {
        "personalized": lambda: A.personalized_pair(users, reduction="clones"),
        "revealing": lambda: A.personalized_pair(users, variant="revealing", reduction="clones"),
        "fmt21": lambda: PAIRS.fmt21_pair(1.0, n),
    }[kind]()
    ours = C.compose(pair, T).epsilon(1e-8)
    theirs = to_pld(pair).self_compose(T).get_epsilon_for_delta(1e-8)
    assert ours <= theirs


@pytest.mark.parametrize(
    "eps, variant, deltas, T",
    [
        ([1.0, 2.0], "revealing", None, 20),
        ([1.0, 1.0, 1.0], "revealing", None, 50),
        ([3.0, 1.0], "randomized", [0.9, 0.9], 17),
    ],
)
def test_epsilon_is_inf_when_every_finite_loss_is_cut_away(eps, variant, deltas, T):
    """Mass at +inf near 1 after T rounds: the cut lattice ends below loss 0 (regression: epsilon raised
    'eps must lie in [0, inf]'); the answer is inf."""
    kw = {"randomizer": "quaternary"} if deltas else {}
    pair = A.personalized_pair(eps, deltas, variant, rounds=T, reduction="clones", **kw)
    assert pair.epsilon(1e-6) == np.inf


@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9, 1e-14, 1e-20])
@pytest.mark.parametrize(
    "eps, T", [([0.3, 0.8, 1.2, 0.5], 2), ([2.0, 2.0, 0.1], 3), ([0.3, 0.8, 1.2, 0.5], 10)]
)
def test_epsilon_is_the_best_of_its_three_bounds(eps, T, delta):
    """Composed.epsilon skips basic and advanced composition where one evaluation shows they cannot win; the
    result is still the smallest of the three, each computed in full (basic wins at 4 users, T = 2,
    delta = 1e-6, with a finite lattice value)."""
    from gspa.privacy.numerics import U, invert

    c = A.personalized_pair(eps, rounds=T, reduction="clones")
    top = max((c.composed.lo + c.composed.f.size) * c.step, 0.0)
    lattice = inf = float("inf")
    if c._lattice_delta(top) <= delta:
        lattice = invert(c._lattice_delta, delta, top)
    e1, e_adv = c._epsilon1(delta / T), c._epsilon1(delta / (2 * T))
    basic = T * e1 * (1 + 4 * U) if np.isfinite(e1) else inf
    adv = C.advanced_composition(e_adv, delta / (2 * T), T, delta / 2)[0] * (1 + 8 * U)
    assert c.epsilon(delta) == min(lattice, basic, adv if np.isfinite(e_adv) else inf)
