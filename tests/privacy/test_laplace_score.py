"""The score lower bound for the shuffled Laplace mechanism with several budgets
(``gspa.privacy.shuffle.lower.LaplaceScoreLower``): its sum of independent lattice laws against exact arithmetic,
the bound equal to an independent enumeration of the scored protocol it evaluates and below the continuous
protocol's certified upper end (``gspa.privacy.exact.laplace_profile``), between the window count and the certified
upper bound at realistic sizes; bad input refused."""

import numpy as np
import pytest

from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB


@pytest.mark.parametrize("users, seed", [(300, 0), (1001, 1), (5, 2)])
def test_the_sum_of_lattice_laws_holds_the_exact_law(users, seed):
    """Random laws on 0 .. 8, some with zeros: the exact law of their sum (long double, in order) lies within the
    Part's bounds on every prefix and every window event, and the cut mass is counted: every entry the window
    leaves out is within tau (more than 300 laws are cut)."""
    rng = np.random.default_rng(seed)
    laws = rng.random((users, 9)) ** 3
    laws[rng.random(laws.shape) < 0.3] = 0.0
    laws[:, 0] += 0.01
    laws /= laws.sum(axis=1, keepdims=True)
    exact = np.ones(1, dtype=np.longdouble)
    for row in laws:
        exact = np.convolve(exact, row.astype(np.longdouble))
    part = LB._lattice_sum(laws, 0.0)
    window = exact[part.offset : part.offset + part.width]
    outside = float(exact.sum() - window.sum())
    assert outside <= part.tau * (1 + 1e-6) + 1e-18
    if users >= 300:
        assert part.tau >= LB.TOL and part.width < exact.size  # cut, and counted
    pmf = part.pmf.astype(np.longdouble)
    for event in (
        np.cumsum(pmf) * 0 + 1,
        *(np.arange(part.width) < k for k in (1, part.width // 3, part.width // 2)),
    ):
        est, true = float((pmf * event).sum()), float((window * event).sum())
        assert true <= (est + part.eta + part.tau) / (1 - part.rho)
        assert true >= (est - part.eta) / (1 + part.rho)


def _scored_exact(eps, grid) -> np.ndarray:
    """delta(eps) of the total score (the bound's choice of runs and scores), the most liberal user at 0 or 1 and the others at
    0, both directions: each user's score law from its runs' masses by ``laplace_binned_row`` (the Laplace CDF,
    independently of the bound's mass formula), their sum by direct convolution."""
    a, others, edges, scores = LB._scoring(np.asarray(eps, dtype=float))

    def law(v, x):
        out = np.zeros(LB.SCORE_LEVELS + 1)
        np.add.at(out, scores, BF.laplace_binned_row(v, x, edges[1:-1]))
        return out

    total = np.ones(1)
    for v in others:
        total = np.convolve(total, law(v, 0.0))
    q0, q1 = (np.convolve(total, law(a, x))[None, :] for x in (0.0, 1.0))
    e = np.exp(np.asarray(grid))[:, None]
    return np.maximum(np.maximum(q1 - e * q0, 0).sum(1), np.maximum(q0 - e * q1, 0).sum(1))


@pytest.mark.parametrize(
    "eps", [[0.5, 2.0], [0.1, 1.0, 1.5], [1.0, 0.3, 0.3, 2.5, 0.05], list(np.linspace(0.01, 2, 40))]
)
def test_score_bound_is_the_scored_protocol(eps):
    """The bound equals the enumerated scored protocol to round-off, and has something to say."""
    grid = np.linspace(0.0, max(eps), 21)
    exact = _scored_exact(eps, grid)
    low = LB.laplace_score_lower(np.array(eps)).delta(grid)
    assert np.all(low <= exact + 1e-12), (grid, low, exact)
    assert np.all(low >= exact - 1e-9 * exact.max()), (grid, low, exact)
    assert low[0] > 0.01


@pytest.mark.parametrize("eps", [[0.5, 2.0], [2.0, 1.0], [0.3, 1.0, 0.6]])
def test_score_bound_is_below_the_continuous_protocol(eps):
    """Below the *upper* end of the continuous protocol's bracket (``laplace_profile``), which includes this data set
    (every other user at 0, the differing user's inputs 0 and 1)."""
    grid = np.linspace(0.0, max(eps), 11)
    cells = (
        dict(inner=0.01, outer=1.0, reach=1.0)
        if len(eps) == 3
        else dict(inner=0.005, outer=0.01, grow=1.02, reach=60.0)
    )
    _, high = BF.laplace_profile(tuple(eps), grid, (0.0, 1.0), **cells)
    low = LB.laplace_score_lower(np.array(eps)).delta(grid)
    assert np.all(low <= high), (grid, low, high)


@pytest.mark.parametrize("n", [10_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_score_bound_lies_between_the_window_count_and_the_upper_bound(n):
    """Budgets U(0.01, 2): above the window count (the users with small budgets weigh little), below the certified
    upper bound; lower_bound takes it; a histogram of the same budgets gives the same bound."""
    eps = np.random.default_rng(0).uniform(0.01, 2.0, size=n)
    score = LB.laplace_score_lower(eps)
    best = LB.lower_bound(eps, "laplace")
    window = next(p for p in best.pairs if isinstance(p, LB.LowerBound) and p.reports)
    upper = A.personalized_pair(eps, randomizer="laplace")
    for delta in (1e-4, 1e-6, 1e-9):
        e = score.epsilon(delta)
        assert 1.05 * window.epsilon(delta) < e < upper.epsilon(delta), (delta, e)
        assert best.epsilon(delta) >= e
    values, counts = np.unique(eps[:50], return_counts=True)
    assert LB.laplace_score_lower(values, counts).delta(0.01) == LB.laplace_score_lower(
        eps[:50]
    ).delta(0.01)


@pytest.mark.parametrize(
    "eps, counts, name",
    [
        ([1.0], None, "eps must hold"),
        ([0.0, 1.0], None, r"eps must lie in \(0, 700"),
        ([1.0, 800.0], None, r"eps must lie in \(0, 700"),
        ([1.0, 2.0], [10**6, 10**6], "eps must hold"),
        ([1.0, float("nan")], None, "eps"),
    ],
)
def test_bad_input_is_refused(eps, counts, name):
    with pytest.raises(ValueError, match=name):
        LB.laplace_score_lower(np.array(eps), None if counts is None else np.array(counts))
