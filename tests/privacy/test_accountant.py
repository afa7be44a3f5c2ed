"""The accountant's pairs against independent computations, its error model, and its properties.
(The bounds against the real shuffled protocols are in test_bruteforce.py.)"""

import math

import mpmath
import numpy as np
import pytest
from scipy import special, stats

from gspa.privacy import numerics as NUM
from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.peers import baselines as B
from gspa.privacy.shuffle import clones as C
from gspa.privacy.interop import dpaccounting as dpa
from gspa.privacy.basics import hypothesis as H
from gspa.studies.gspa import theorem2 as T2


def pair_enumerated(q_others, L, weight, delta_n, eps_grid):
    """delta(eps) of a reduced pair by direct enumeration of its outcomes: (count of 0s, count of 1s)
    when the differing user's report is clone-type, the counts of the others flagged apart when it is
    not (FMT's post-processing reveals which users are not clones), and the revealing outcomes."""
    n = len(q_others)
    grid = np.zeros((n + 1, n + 1))
    grid[0, 0] = 1.0
    for q in q_others:  # each other user: 0 / 1 w.p. q/2 each, else no clone
        new = (1 - q) * grid
        new[1:, :] += q / 2 * grid[:-1, :]
        new[:, 1:] += q / 2 * grid[:, :-1]
        grid = new
    qq = 1.0 if np.isinf(L) else special.expit(L)

    def with_user(p0, p1):
        out = np.zeros((n + 2, n + 2))
        out[1:, :-1] += p0 * grid
        out[:-1, 1:] += p1 * grid
        return np.concatenate([weight * out.ravel(), (1 - weight) * grid.ravel()])

    P0 = np.append((1 - delta_n) * with_user(qq, 1 - qq), [delta_n, 0.0])
    P1 = np.append((1 - delta_n) * with_user(1 - qq, qq), [0.0, delta_n])
    return np.array([max(H.hockey_stick(P0, P1, e), H.hockey_stick(P1, P0, e)) for e in eps_grid])


EPS = np.array([0.0, 0.05, 0.3, 0.8, 1.5, 3.0])


@pytest.mark.parametrize(
    "L, weight, delta_n",
    [(1.3, 1.0, 0.0), (np.inf, 1.0, 0.0), (0.7, 0.6, 0.0), (2.0, 1.0, 0.01), (np.inf, 0.8, 0.05)],
)
def test_pair_formula_is_tight_against_enumeration(L, weight, delta_n):
    q = np.random.default_rng(1).uniform(0.05, 0.95, size=9)
    exact = pair_enumerated(q, L, weight, delta_n, EPS)
    pair = PAIRS.ReducedPair(C.clone_law(q), L, weight, delta_n)
    ours = pair.delta(EPS)
    assert np.all(ours >= exact - 1e-15)
    assert np.allclose(ours, exact, rtol=1e-9, atol=1e-300)


def reference_expectation(q, eps, L):
    """E[H_M(eps)] the slow way: the clone law by sequential direct convolution (relative error about
    n u), and H_m summed term by term from Boost's binomial pmf (no cancellation)."""
    law = np.array([1.0])
    for x in q:
        law = np.convolve(law, [1 - x, x])
    qq = 1.0 if np.isinf(L) else special.expit(L)
    e = np.exp(eps)
    total = 0.0
    for m in np.flatnonzero(law > 0):
        a = np.arange(m + 2)
        prev, here = stats.binom.pmf(a - 1, m, 0.5), stats.binom.pmf(a, m, 0.5)
        P0, P1 = qq * prev + (1 - qq) * here, (1 - qq) * prev + qq * here
        total += law[m] * np.maximum(P0 - e * P1, 0.0).sum()
    return total


@pytest.mark.parametrize("force", ["none", "grid", "fft"])
def test_clone_law_bounds_sandwich_an_independent_reference(monkeypatch, force):
    if force == "grid":
        monkeypatch.setattr(C, "_GRID", 16)  # H on 16 counts only: the step bounds must hold
    if force == "fft":
        monkeypatch.setattr(
            C, "_FINAL_DIRECT", 0
        )  # the final merge by FFT (additive, weighted error)
        monkeypatch.setattr(C, "_DIRECT_MAX", 4)
    rng = np.random.default_rng(7)
    q = 2 * special.expit(-rng.uniform(0.01, 2.0, size=1500))
    law = C.clone_law(q)
    for eps, L in [(0.05, 1.9), (0.2, 1.9), (0.1, np.inf), (0.5, np.inf)]:
        ref = reference_expectation(q, eps, L)
        up = law.upper(lambda m: NUM.hockey_upper(eps, m, L))
        lo = law.lower(lambda m: NUM.hockey_upper(eps, m, L) * (1 - 2e-12))
        assert lo <= ref * (1 + 1e-9) and up >= ref * (1 - 1e-9), (eps, L, lo, ref, up)
        # counted errors are small (on 16 counts the step bounds cost up to about 30 %)
        assert up <= ref * {"grid": 1.5, "fft": 1 + 1e-4}.get(force, 1 + 1e-5)


def test_binomial_law_and_its_relative_error():
    p = C.binomial_part(100_000, 0.3)
    k = p.offset + np.arange(p.width)
    ref = stats.binom.pmf(k, 100_000, 0.3)
    big = ref > 1e-250
    assert np.all(np.abs(p.pmf[big] / ref[big] - 1) <= p.rho)
    assert p.rho < 1e-9 and p.tau <= C.TOL


def _exact_sf(k, m):
    """P(X >= k), X ~ Bin(m, 1/2), summed from the log-pmf at 30 digits."""
    mpmath.mp.dps = 30
    lp = (
        mpmath.loggamma(m + 1)
        - mpmath.loggamma(k + 1)
        - mpmath.loggamma(m - k + 1)
        - m * mpmath.log(2)
    )
    t, s, a = mpmath.exp(lp), mpmath.mpf(0), k
    while a <= m:
        s += t
        if t < s * mpmath.mpf(10) ** -32:
            break
        t, a = t * (m - a) / (a + 1), a + 1
    return s


@pytest.mark.parametrize("m", [7, 1000, 10**6, 10**8])
def test_binomial_tail_is_within_its_allowance(m):
    """SF_REL is an allowance, measured: Boost's tail against 30-digit summation (cephes' bdtrc, used
    before, is off by 22% near the mean at m = 1e8)."""
    sd = np.sqrt(m) / 2
    for z in (0.0, 0.5, 2.0, 6.0, 20.0):
        k = int(m // 2 + 1 + z * sd)
        if k > m:
            continue
        got, ref = NUM.binomial_sf(k, m), _exact_sf(k, m)
        assert abs(mpmath.mpf(float(got)) - ref) <= 0.05 * NUM.SF_REL * ref


def test_uniform_budgets_match_enumeration_exactly():
    e = np.full(10, 0.7)
    pair = A.personalized_pair(e, None, "randomized", reduction="clones")
    exact = pair_enumerated(np.full(9, 2 * special.expit(-0.7)), 0.7, 1.0, 0.0, EPS)
    assert np.all(pair.delta(EPS) >= exact - 1e-15) and np.allclose(
        pair.delta(EPS), exact, rtol=1e-9
    )


def test_matches_dp_accounting_pld():
    pair = PAIRS.fmt23_pair(1.0, 40)
    P0, P1 = pair.pmfs()
    ref = dpa.pmf_pair_delta(EPS, P0, P1)
    ours = pair.delta(EPS)
    big = ours > 1e-9
    assert np.all(ref >= ours - 1e-12)
    assert np.allclose(ref[big], ours[big], rtol=2e-3)


@pytest.mark.parametrize("eps0", [36.7, 50.0, 700.0, 1e6])
def test_huge_budgets_give_valid_monotone_answers(eps0):
    """Once e^eps reaches 2^53 the old code returned eps near 37 whatever the budget."""
    pair = PAIRS.fmt21_pair(eps0, 1000)  # e^-eps0 clones: essentially none
    e6 = pair.epsilon(1e-6)
    assert eps0 - 1e-3 <= e6 <= eps0  # local RR: delta(eps) = (e^eps0 - e^eps)/(1 + e^eps0)
    deltas = [1e-300, 1e-100, 1e-12, 1e-6, 0.1, 0.5]
    es = [pair.epsilon(d) for d in deltas]
    assert all(a >= b for a, b in zip(es, es[1:])) and all(np.isfinite(es))
    users = np.array([0.5] * 50 + [eps0])
    for variant in PROF.VARIANTS:
        p = A.personalized_pair(users, None, variant, reduction="clones")
        d = p.delta([0.0, 1.0, 30.0, 40.0, 60.0, 800.0])
        assert np.all(np.diff(d) <= 0) and np.all(np.isfinite(d))


def test_properties():
    rng = np.random.default_rng(5)
    eps_i = rng.uniform(0.01, 2, size=300)
    pair = A.personalized_pair(eps_i, None, "randomized", reduction="clones")
    grid = np.linspace(0, 3, 61)
    d = pair.delta(grid)
    assert np.all(np.diff(d) <= 1e-15)  # delta(eps) non-increasing
    deltas = [1e-2, 1e-3, 1e-4, 1e-6, 1e-12, 1e-100]
    e = [pair.epsilon(x) for x in deltas]
    assert all(a <= b for a, b in zip(e, e[1:]))  # eps(delta) non-increasing
    for x, ex in zip(deltas, e):
        assert pair.delta(ex) <= x  # the inverse is conservative
    small = A.personalized_pair(eps_i[:60], None, "revealing", reduction="clones")
    alpha = np.linspace(0, 1, 201)
    P0, P1 = small.pmfs()
    t01, t10 = H.tradeoff_curve(P0, P1, alpha), H.tradeoff_curve(P1, P0, alpha)
    assert np.allclose(t01, t10, atol=1e-12)  # symmetric pair
    assert np.all(np.diff(t01, 2) >= -1e-12)  # convex
    more = A.personalized_pair(
        np.concatenate([eps_i, [0.5] * 50]), None, "randomized", reduction="clones"
    )
    assert np.all(more.delta(grid) <= d + 1e-15)  # more clones: never less private


def test_delta_1e_minus_12_is_answerable_at_a_million_users():
    """The counted errors no longer put a floor near 1e-9 under delta at large n."""
    users = np.random.default_rng(0).uniform(0.01, 2.0, size=10**6)
    pair = A.personalized_pair(users, None, "randomized", reduction="clones")
    e12 = pair.epsilon(1e-12)
    assert np.isfinite(e12) and e12 < 0.05
    assert pair.epsilon(1e-12) >= pair.epsilon(1e-6)


def test_fmt_pairs_and_paper_mu():
    assert PAIRS.fmt23_pair(1.0, 1000).epsilon(1e-6) < PAIRS.fmt21_pair(1.0, 1000).epsilon(1e-6)
    p = special.expit(-0.5)
    assert T2.mu_theorem2(np.full(101, 0.5)) == pytest.approx(np.sqrt(2 / (100 * p)))
    assert T2.mu_compose(0.1, 50) == pytest.approx(0.1 * np.sqrt(50))


def test_liu23_fast_sum_matches_quadratic_definition():
    rng = np.random.default_rng(3)
    eps = rng.uniform(0.05, 2, size=60)
    n = eps.size
    top = np.argmax(eps)
    pij = lambda i, j: (
        (eps[i] / eps[j])
        * (1 - np.exp(-eps[j]))
        / (1 - np.exp(-eps[i]))
        * np.exp(-max(eps[i], eps[j]))
        / n
    )
    E = sum(pij(i, j) for i in range(n) if i != top for j in range(n))
    delta = 1e-1
    ref = (
        np.log1p(np.tanh(eps[top] / 2) * (8 * np.sqrt(np.log(4 / delta) / E) + 8 / E))
        if E >= 16 * np.log(4 / delta)
        else None
    )
    got = B.liu23(eps, delta)
    assert (got.epsilon is None) == (ref is None)
    if ref is not None:
        assert got.epsilon == pytest.approx(ref, rel=1e-12)


def test_baselines_report_invalid_outside_conditions():
    assert not B.erlingsson19(1.0, 5000, 1e-4).valid
    assert B.erlingsson19(0.2, 10_000, 1e-4).valid
    assert not B.fmt21_closed(5.0, 1000, 1e-4).valid
    assert "E >=" in B.liu23(np.full(100, 0.01), 1e-4).reason
    # the singularity at eps_i = 0 is removable: the bound is continuous there
    base = np.random.default_rng(0).uniform(0.05, 2, size=5000)
    at0 = B.liu23(np.append(base, [0.0] * 100), 1e-4).epsilon
    near0 = B.liu23(np.append(base, [1e-12] * 100), 1e-4).epsilon
    assert at0 is not None and at0 == pytest.approx(near0, rel=1e-9)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: A.personalized_pair([0.5], None, reduction="clones"), "at least 2"),
        (lambda: A.personalized_pair([0.5, np.nan], None, reduction="clones"), "eps"),
        (lambda: A.personalized_pair([0.5, -1.0], None, reduction="clones"), "eps"),
        (lambda: A.personalized_pair([[0.5, 1.0]], None, reduction="clones"), "1-d"),
        (lambda: A.personalized_pair([True, 1.0], None, reduction="clones"), "boolean"),
        (
            lambda: A.personalized_pair(
                [0.5, 1.0], [0.0, 1.0], randomizer="quaternary", reduction="clones"
            ),
            "delta",
        ),
        (
            lambda: A.personalized_pair(
                [0.5, 1.0], [0.0, 0.1, 0.2], randomizer="quaternary", reduction="clones"
            ),
            "same length",
        ),
        (lambda: A.personalized_pair([0.5, 1.0], None, reduction="clones").epsilon(0.0), "delta"),
        (lambda: A.personalized_pair([0.5, 1.0], None, reduction="clones").epsilon(1.0), "delta"),
        (lambda: A.personalized_pair([0.5, 1.0], None, "approx", reduction="clones"), "variant"),
        (lambda: PAIRS.ReducedPair(C.clone_law([0.5]), -1.0), "log_odds"),
        (lambda: PAIRS.ReducedPair(C.clone_law([0.5]), 1.0, 1.0, -1.0), "delta_n"),
        (lambda: C.clone_law(values=[0.5], counts=[1.5]), "counts"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize(
    "randomizer,k,delta",
    [
        ("binary-rr", None, None),
        ("k-rr", 3, None),
        ("quaternary", None, 1e-7),
        ("laplace", None, None),
    ],
)
def test_histogram_budgets_equal_per_user_budgets(randomizer, k, delta):
    values, counts = np.array([0.2, 0.7, 1.5]), np.array([40, 25, 7])
    per_user = A.personalized_pair(np.repeat(values, counts), delta, randomizer=randomizer, k=k)
    hist = A.personalized_pair(values, delta, randomizer=randomizer, k=k, counts=counts)
    for e in (0.1, 0.5, 1.0):  # the default (the cells for binary RR and quaternary)
        assert hist.delta(e) == pytest.approx(float(per_user.delta(e)), rel=1e-12, abs=1e-300)
    clones = "clones" if randomizer in ("binary-rr", "quaternary") else None
    per_user = A.personalized_pair(
        np.repeat(values, counts), delta, randomizer=randomizer, k=k, reduction=clones
    )
    hist = A.personalized_pair(
        values, delta, randomizer=randomizer, k=k, counts=counts, reduction=clones
    )
    for e in (0.1, 0.5, 1.0):
        assert hist.delta(e) == pytest.approx(float(per_user.delta(e)), rel=1e-12, abs=1e-300)
    assert hist.epsilon(1e-6) == pytest.approx(per_user.epsilon(1e-6), rel=1e-12)


@pytest.mark.parametrize("counts", [[0, 3], [1.5, 2], [[1, 2]], [1]])
def test_histogram_counts_are_checked(counts):
    with pytest.raises(ValueError, match="counts"):
        A.personalized_pair(
            np.array([0.5, 1.0]) if np.ndim(counts) == 1 and len(counts) == 2 else np.array([0.5]),
            counts=counts,
            reduction="clones",
        )


@pytest.mark.parametrize("n, eps0", [(1000, 1.0), (2000, 4.0), (500, 0.3)])
def test_certified_tradeoff_is_below_the_enumerated_curve_and_close(n, eps0):
    """The f-DP curve from the certified profile (no enumeration) never exceeds the exact trade-off curve
    of the pair (enumeration) and is within 1e-3 of it with 256 nodes."""
    alpha = np.linspace(0.0, 1.0, 1001)
    pair = PAIRS.fmt23_pair(eps0, n)
    exact, cert = pair.tradeoff(alpha), pair.certified_tradeoff(alpha)
    assert np.all(cert <= exact + 1e-12)
    assert np.max(exact - cert) < 1e-3
    coarse = pair.certified_tradeoff(alpha, nodes=3)
    assert np.max(exact - coarse) > 1e-3  # too few nodes is visibly looser: the check can fail


def test_tradeoff_from_profile_of_gdp_recovers_g_mu():
    from gspa.privacy.basics import fdp

    alpha = np.linspace(0.0, 1.0, 501)
    eps = np.linspace(0.0, 12.0, 400)
    f = fdp.tradeoff_from_profile(alpha, eps, fdp.gdp_delta(eps, 1.0))
    g = fdp.gdp_tradeoff(alpha, 1.0)
    assert np.all(f <= g + 1e-12) and np.max(g - f) < 2e-3
    with pytest.raises(ValueError, match="eps_nodes"):
        fdp.tradeoff_from_profile(alpha, eps[:3], fdp.gdp_delta(eps, 1.0))


def test_tradeoff_refuses_to_enumerate_huge_pairs_and_certified_tradeoff_scales():
    pair = A.personalized_pair(
        np.random.default_rng(0).uniform(0.01, 2.0, 10**6), reduction="clones"
    )
    with pytest.raises(ValueError, match="certified_tradeoff"):
        pair.tradeoff([0.5])
    t = pair.certified_tradeoff(np.array([0.0, 0.5, 1.0]), nodes=32)
    assert t[0] <= 1.0 and 0.0 < t[1] < 0.5 and t[2] == 0.0


def test_any_ldp_is_the_most_liberal_users_local_profile():
    """randomizer='any-ldp' (each user its own eps_i-LDP randomizer): no amplification, exactly binary
    randomized response's local profile at max eps_i; it lies above every enumerated shuffle of such
    users (here: users with k-ary RR); reports that name their user attain it (the shuffle then reveals every report)."""
    from gspa.privacy.exact import enumeration as BF
    from gspa.privacy.basics.mechanisms import rr_delta

    eps = np.array([0.3, 1.2, 0.7])
    grid = np.linspace(0.0, 1.2, 13)
    pair = A.personalized_pair(eps, randomizer="any-ldp")
    assert np.allclose(pair.delta(grid), rr_delta(grid, 1.2), rtol=1e-9, atol=1e-15)
    for k in (2, 3):
        truth, err = BF.shuffled_profile("k-rr", eps, grid, k=k)
        assert np.all(truth - err <= np.asarray(pair.delta(grid)))
    with pytest.raises(ValueError, match="delta"):
        A.personalized_pair(eps, np.full(3, 1e-3), randomizer="any-ldp")


def _shuffled_laplace_binned(eps, x0, x1, others, grid, bins=12):
    """delta(eps) of n users' x + Lap(1/eps) reports, shuffled, observed through bins (a post-processing:
    a lower bound on the continuous protocol's), by exact enumeration of the histograms."""
    from gspa.privacy.exact.enumeration import histogram_law
    from gspa.privacy.basics.decomposition import discrete_laplace_rows

    R = discrete_laplace_rows([x0, x1] + list(others), eps, 4.0 / eps, bins)
    P, Q = histogram_law(np.vstack([R[2:], R[:1]])), histogram_law(np.vstack([R[2:], R[1:2]]))
    return np.array(
        [
            max(np.maximum(P - np.exp(e) * Q, 0).sum(), np.maximum(Q - np.exp(e) * P, 0).sum())
            for e in grid
        ]
    )


@pytest.mark.parametrize(
    "eps, n, gap",
    [(1.0, 2, 0.2)]
    + [
        pytest.param(*p, marks=pytest.mark.slow)
        for p in ((0.5, 3, 0.5), (1.0, 3, 0.05), (2.0, 3, 0.2))
    ],
)
def test_laplace_bound_holds_at_an_interior_pair(eps, n, gap):
    """Lemma 1's weight 1/(1 + e^eps) fails for a pair of inputs closer than 1 (the Lemma 1 chapter); the
    accountant's Laplace number still bounds the shuffled protocol there: the pair at distance gap gives the
    reduced pair (log-odds eps gap, clone probability 2 e^{-eps(1-gap)}/(1 + e^{eps gap})), which lies above
    the binned protocol and below the accountant's (eps, 2/(1 + e^eps)) pair. Using the paper's weight at the
    pair's own budget instead (the naive repair) falls below the binned protocol: this check can fail."""
    grid = np.linspace(0.0, eps, 6)[:-1]
    binned = _shuffled_laplace_binned(eps, 0.0, gap, [1.0] * (n - 1), grid)
    acc = A.personalized_pair([eps] * n, randomizer="laplace").delta(grid)
    w = math.exp(-eps * (1 - gap)) / (1 + math.exp(eps * gap))
    repaired = PAIRS.ReducedPair(C.clone_law(values=[2 * w], counts=[n - 1]), eps * gap).delta(grid)
    naive = PAIRS.ReducedPair(
        C.clone_law(values=[2 / (1 + math.exp(eps * gap))], counts=[n - 1]), eps * gap
    ).delta(grid)
    assert np.all(binned <= repaired + 1e-12) and np.all(repaired <= acc)
    assert np.all(binned <= acc)
    assert np.any(naive < binned - 1e-4)


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_laplace_interior_reduction_is_below_the_accountants_pair(eps):
    """The repaired argument of the accountant's Laplace bound, on a grid: for every gap d, the reduced pair
    (eps d, e^{-eps(1-d)}/(1 + e^{eps d})) has delta below the pair (eps, 1/(1 + e^eps)) at every eps'."""
    grid = np.linspace(0.0, eps, 9)
    for n in (2, 10, 300, 10**4):
        ref = PAIRS.ReducedPair(
            C.clone_law(values=[2 / (1 + math.exp(eps))], counts=[n - 1]), eps
        ).delta(grid)
        for d in np.linspace(0.05, 1.0, 12):
            w = math.exp(-eps * (1 - d)) / (1 + math.exp(eps * d))
            rep = PAIRS.ReducedPair(C.clone_law(values=[2 * w], counts=[n - 1]), eps * d).delta(
                grid
            )
            assert np.all(rep <= ref * (1 + 1e-9) + 1e-300), (n, d)


# -- LaplaceCover: every pair of inputs (x⁰, x¹) of [0, 1], by proof (the steps below), not by a grid --------


@pytest.mark.parametrize("v", [0.05, 1.0, 6.0])
@pytest.mark.parametrize("x0, x1", [(0.0, 1.0), (0.0, 0.1), (0.45, 0.55), (0.3, 0.9), (1.0, 0.2)])
def test_laplace_clone_weight_is_the_smallest_ratio_and_is_attained(v, x0, x1):
    """Step 1 of the proof: min over inputs x of [0, 1] and reports y of f_x(y)/(f_{x⁰}(y) + f_{x¹}(y)) is
    1/(e^{va} + e^{vb}), a and b the distances of the pair to the end of [0, 1] that gives the smaller
    value, at least τ_d = 1/(e^v + e^{v(1−d)}), d = |x¹ − x⁰|, with equality when the pair touches an end
    (the densities' common factor v/2 cancels)."""
    d = abs(x1 - x0)
    tau = 1.0 / (math.exp(v) + math.exp(v * (1 - d)))
    x = np.linspace(0.0, 1.0, 101)[:, None]
    y = np.linspace(-3.0, 4.0, 1401)[None, :]
    f = lambda c: np.exp(-v * np.abs(y - c))  # noqa: E731
    ratio = f(x) / (f(x0) + f(x1))
    at_ends = min(1.0 / (math.exp(v * abs(e - x0)) + math.exp(v * abs(e - x1))) for e in (0.0, 1.0))
    assert ratio.min() >= tau * (1 - 1e-12)
    assert ratio.min() == pytest.approx(
        at_ends, rel=1e-9
    )  # an end of [0, 1], a report beyond the pair
    if min(x0, x1) == 0.0 or max(x0, x1) == 1.0:
        assert at_ends == pytest.approx(tau, rel=1e-12)


def test_laplace_cover_pairs_dominate_their_intervals():
    """Step 2: the pair of [a, b] has log-odds at least v b (at most v) and clone probability at most
    2τ_a, the smallest of the interval (τ_d rises with d); the cover starts at d = 0 and ends at d = 1."""
    for v in (0.01, 0.7, 3.0, 30.0):
        cover = PAIRS.LaplaceCover(v, 9)
        d = cover._edges()
        assert d[0] == 0.0 and d[-1] == 1.0 and np.all(np.diff(d) > 0)
        for a, b in zip(d[:-1], d[1:]):
            L, q = cover.parameters(a, b)
            tau_a = 1.0 / (math.exp(v) + math.exp(v * (1 - a)))
            assert v * b <= L <= v and 2 * tau_a * (1 - 1e-13) <= q <= 2 * tau_a
            assert cover.pair(a, b).log_odds == L


@pytest.mark.parametrize("v, others", [(0.5, 30), (2.0, 5), (1.0, 300)])
def test_laplace_pair_falls_with_clones_and_rises_with_log_odds(v, others):
    """Step 3: delta of a reduced pair rises with L and falls as the clone probability rises (a smaller
    L, or one more clone, is a post-processing), so the pair of [a, b] is above every distance in it."""
    grid = np.linspace(0.0, v, 7)
    law = lambda q: C.clone_law(values=[q], counts=[others])  # noqa: E731
    base = PAIRS.ReducedPair(law(0.3), v).delta(grid)
    assert np.all(PAIRS.ReducedPair(law(0.3), 0.8 * v).delta(grid) <= base)
    assert np.all(PAIRS.ReducedPair(law(0.35), v).delta(grid) <= base)
    cover = PAIRS.LaplaceCover(v, others)
    d = cover._edges()
    for j in (0, len(d) // 2, len(d) - 2):
        top = cover.pair(d[j], d[j + 1]).delta(grid)
        for dd in np.linspace(d[j], d[j + 1], 4):
            exact = cover.pair(dd, dd).delta(grid)  # the pair of that distance itself
            assert np.all(exact <= top * (1 + 1e-12) + 1e-300)


@pytest.mark.parametrize("v, others", [(0.3, 200), (1.0, 40), (4.0, 1000), (1.0, 1)])
def test_laplace_cover_is_the_largest_of_its_intervals(v, others):
    """Step 4: the branch and bound gives the largest delta over the intervals (compared with evaluating
    every interval), and epsilon(delta) is a point where that delta is at most the target, at most
    2·10⁻⁵ above the cover's own smallest one."""
    cover = PAIRS.LaplaceCover(v, others)
    d = cover._edges()
    for e in np.linspace(0.0, v, 5)[:-1]:
        every = max(cover.pair(a, b).delta(e) for a, b in zip(d[:-1], d[1:]))
        assert cover.delta(e) == every
    for target in (1e-3, 1e-6, 1e-9):
        e = cover.epsilon(target)
        assert cover.delta(e) <= target
        smallest = PROF.Profile.epsilon(cover, target)
        # both are roots to within the root-finder's tolerance (2e-9 relative): e may lie that below
        assert smallest * (1 - 4e-9) <= e <= smallest * (1 + 2e-5) + 1e-12


def test_laplace_accountant_covers_every_distance_and_revealing_adds_its_pair():
    """The accountant's Laplace bound is :class:`LaplaceBands` over the budget histogram (beside the most
    liberal user's own report, :class:`LaplaceLocal`, for the randomized variant); the revealing
    variant adds the pair with L = inf at d = 1 (clone weights at d = 1), and every distance's own pair
    lies below the bound."""
    bound = A.personalized_pair([1.0] * 50 + [2.0], randomizer="laplace")
    acc, local = bound.pairs
    assert isinstance(acc, PAIRS.LaplaceBands) and not acc.reveal
    assert isinstance(local, PAIRS.LaplaceLocal) and local.v == 2.0
    assert list(acc.values) == [1.0, 2.0] and list(acc.counts) == [50, 1]
    rev = A.personalized_pair([1.0] * 50, variant="revealing", randomizer="laplace")
    J = rev._edges().size - 1
    revealed = rev._node((0, 0, J - 1, J))
    assert np.isinf(revealed.log_odds) and rev._edges()[J - 1] == 1.0
    grid = np.linspace(0.0, 1.0, 6)
    assert np.all(revealed.delta(grid) <= rev.delta(grid))
    for dd in (0.05, 0.5, 0.99, 0.99995, 1.0):
        for lo in (
            0,
            1,
        ):  # the differing user with budget 1 (49 clones of budget 1) or 2 (50 of them)
            exact = acc.pair(lo, lo, dd, dd).delta(grid)
            assert np.all(exact <= bound.delta(grid) * (1 + 1e-12) + 1e-300)


def test_laplace_cover_rounds_a_subnormal_clone_probability_to_none():
    """A subnormal clone probability (v > ~700) cannot be rounded down by a relative factor: none is used
    (fewer clones is safe); above that it stays below the exact value (40 digits)."""
    mpmath.mp.dps = 40
    for v in (1.0, 50.0, 690.0, 710.0, 745.0):
        q = PAIRS.LaplaceCover(v, 3).parameters(0.5, 1.0)[1]
        exact = 2 * mpmath.exp(-v) / (1 + mpmath.exp(-v * mpmath.mpf(0.5)))
        assert q <= exact and (q == 0.0 or q > 1e-300)
    assert PAIRS.LaplaceCover(745.0, 3).parameters(0.5, 1.0)[1] == 0.0


@pytest.mark.parametrize("reduction", ["clones", "cells"])
def test_delta_at_many_eps_is_delta_at_each(reduction):
    """The batched evaluation of a pair's delta at an array of eps (one clone-law refinement per eps, the
    evaluations shared; the cells' sorted sums) gives each eps exactly what it gives alone."""
    users = np.random.default_rng(3).uniform(0.01, 2.0, size=400)
    pair = A.personalized_pair(users, reduction=reduction)
    pair = pair.cells if reduction == "cells" else pair
    eps = np.array([0.0, 0.05, 0.2, 0.5, 1.0, 1.9, 2.5, 40.0])
    assert np.array_equal(pair.delta(eps), [pair.delta(float(e)) for e in eps])
