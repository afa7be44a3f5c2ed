"""The exact accountant against independent computations, and its properties."""
import numpy as np
import pytest
from scipy import special

from gspa import accountant as A, baselines as B, dpaccounting as dpa, hypothesis as H, theorem2 as T2
from gspa.clones import clone_count


def brute_force_pair(p_others, q, delta_n):
    """The shuffled counts enumerated directly: each other user emits 0 / 1 / 'other' with
    probabilities (p, p, 1 - 2p); the differing user emits its bit w.p. q(1 - delta_n), the other
    bit w.p. (1 - q)(1 - delta_n) and a distinguishing symbol w.p. delta_n. Returns the two pmfs over
    (count of 0s, count of 1s) plus the two distinguishing outcomes."""
    n = len(p_others)
    grid = np.zeros((n + 1, n + 1))
    grid[0, 0] = 1.0
    for p in p_others:
        new = (1 - 2 * p) * grid
        new[1:, :] += p * grid[:-1, :]
        new[:, 1:] += p * grid[:, :-1]
        grid = new
    def with_user(p0, p1):
        out = np.zeros((n + 2, n + 2))
        out[1:, :-1] += p0 * grid
        out[:-1, 1:] += p1 * grid
        return out.ravel()
    P0 = (1 - delta_n) * with_user(q, 1 - q)
    P1 = (1 - delta_n) * with_user(1 - q, q)
    return np.concatenate([P0, [delta_n, 0.0]]), np.concatenate([P1, [0.0, delta_n]])


def exact_delta_per_user(eps, dl, eps_grid, variant):
    """delta(eps) for each choice of the differing user, by brute force."""
    p = (1 - dl) * special.expit(-eps)
    out = []
    for j in range(len(eps)):
        q, dn = (1.0, 0.0) if variant == "revealing" else (special.expit(eps[j]), dl[j])
        P0, P1 = brute_force_pair(np.delete(p, j), q, dn)
        out.append([max(H.hockey_stick(P0, P1, e), H.hockey_stick(P1, P0, e)) for e in eps_grid])
    return np.array(out)


EPS = np.array([0.0, 0.3, 0.8, 1.5, 3.0])


@pytest.mark.parametrize("variant", A.VARIANTS)
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_brute_force_and_covers_every_differing_user(variant, seed):
    rng = np.random.default_rng(seed)
    eps = rng.uniform(0.01, 2.0, size=9)
    dl = rng.uniform(0, 1e-2, size=9)
    per_user = exact_delta_per_user(eps, dl, EPS, variant)
    ours = A.personalized_pair(eps, dl, variant).delta(EPS)
    assert np.all(ours >= per_user.max(axis=0) - 1e-13)       # a bound for every differing user
    if variant == "revealing":                                 # and tight for the worst one
        assert np.allclose(ours, per_user.max(axis=0), atol=1e-12)


def test_uniform_budgets_match_brute_force_exactly():
    eps = np.full(10, 0.7)
    P0, P1 = brute_force_pair(np.full(9, special.expit(-0.7)), special.expit(0.7), 0.0)
    ours = A.personalized_pair(eps, None, "randomized").delta(EPS)
    ref = [H.hockey_stick(P0, P1, e) for e in EPS]
    assert np.allclose(ours, ref, atol=1e-13)


def test_matches_dp_accounting_pld():
    pair = A.fmt23_pair(1.0, 40)
    P0, P1 = pair.pmfs()
    ref = dpa.pmf_pair_delta(EPS, P0, P1)
    ours = pair.delta(EPS)
    big = ours > 1e-9
    assert np.all(ref >= ours - 1e-12)
    assert np.allclose(ref[big], ours[big], rtol=2e-3)


def test_properties():
    rng = np.random.default_rng(5)
    eps_i = rng.uniform(0.01, 2, size=300)
    pair = A.personalized_pair(eps_i, None, "randomized")
    grid = np.linspace(0, 3, 61)
    d = pair.delta(grid)
    assert np.all(np.diff(d) <= 1e-15)                               # delta(eps) non-increasing
    deltas = [1e-2, 1e-3, 1e-4, 1e-6]
    e = [pair.epsilon(x) for x in deltas]
    assert all(a <= b for a, b in zip(e, e[1:]))                     # eps(delta) non-increasing
    for x, ex in zip(deltas, e):
        assert pair.delta(ex) <= x                                   # the inverse is conservative
    small = A.personalized_pair(eps_i[:60], None, "revealing")
    alpha = np.linspace(0, 1, 201)
    P0, P1 = small.pmfs()
    t01 = H.tradeoff_curve(P0, P1, alpha)
    t10 = H.tradeoff_curve(P1, P0, alpha)
    assert np.allclose(t01, t10, atol=1e-12)                         # symmetric pair
    assert np.all(np.diff(t01, 2) >= -1e-12)                         # convex
    # more clones never less private
    more = A.personalized_pair(np.concatenate([eps_i, [0.5] * 50]), None, "randomized")
    assert np.all(more.delta(grid) <= d + 1e-15)


def test_clone_count_matches_direct_convolution_and_counts_errors():
    rng = np.random.default_rng(2)
    q = np.concatenate([rng.uniform(0, 0.9, size=500), np.full(40, 0.3)])
    ref = np.array([1.0])
    for x in q:
        ref = np.convolve(ref, [1 - x, x])
    c = clone_count(q)
    full = np.zeros(q.size + 1)
    full[c.offset:c.offset + c.pmf.size] = c.pmf
    assert np.abs(full - ref).sum() <= c.error + 1e-12
    assert c.error < 1e-9


def test_fmt_pairs_and_paper_mu():
    # stronger clones (FMT23) give more privacy than FMT21's clones at the same eps0
    assert A.fmt23_pair(1.0, 1000).epsilon(1e-6) < A.fmt21_pair(1.0, 1000).epsilon(1e-6)
    # Theorem 2 with equal budgets: mu = sqrt(2 / ((n - 1) p))
    p = special.expit(-0.5)
    assert T2.mu_theorem2(np.full(101, 0.5)) == pytest.approx(np.sqrt(2 / (100 * p)))
    assert T2.mu_compose(0.1, 50) == pytest.approx(0.1 * np.sqrt(50))


def test_liu23_fast_sum_matches_quadratic_definition():
    rng = np.random.default_rng(3)
    eps = rng.uniform(0.05, 2, size=60)
    n = eps.size
    top = np.argmax(eps)
    pij = lambda i, j: (eps[i] / eps[j]) * (1 - np.exp(-eps[j])) / (1 - np.exp(-eps[i])) * np.exp(-max(eps[i], eps[j])) / n
    E = sum(pij(i, j) for i in range(n) if i != top for j in range(n))
    delta = 1e-1
    ref = np.log1p(np.tanh(eps[top] / 2) * (8 * np.sqrt(np.log(4 / delta) / E) + 8 / E)) if E >= 16 * np.log(4 / delta) else None
    got = B.liu23(eps, delta)
    assert (got.epsilon is None) == (ref is None)
    if ref is not None:
        assert got.epsilon == pytest.approx(ref, rel=1e-12)


def test_baselines_report_invalid_outside_conditions():
    assert not B.erlingsson19(1.0, 5000, 1e-4).valid
    assert B.erlingsson19(0.2, 10_000, 1e-4).valid
    assert not B.fmt21_closed(5.0, 1000, 1e-4).valid
    assert not B.liu23(np.array([0.0, 1.0, 0.5]), 1e-4).valid
    assert "E >=" in B.liu23(np.full(100, 0.01), 1e-4).reason


@pytest.mark.parametrize("call, name", [
    (lambda: A.personalized_pair([0.5], None), "at least 2"),
    (lambda: A.personalized_pair([0.5, np.nan], None), "eps"),
    (lambda: A.personalized_pair([0.5, -1.0], None), "eps"),
    (lambda: A.personalized_pair([0.5, 1.0], [0.0, 1.0]), "delta"),
    (lambda: A.personalized_pair([0.5, 1.0], [0.0, 0.1, 0.2]), "same length"),
    (lambda: A.personalized_pair([0.5, 1.0], None).epsilon(0.0), "delta"),
    (lambda: A.personalized_pair([0.5, 1.0], None).epsilon(1.0), "delta"),
    (lambda: A.personalized_pair([0.5, 1.0], None, "approx"), "variant"),
])
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()
