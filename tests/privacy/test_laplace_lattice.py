"""The lattice lower bound for the shuffled Laplace mechanism with one budget
(``gspa.privacy.shuffle.lower.LaplaceLatticeLower``): below the continuous protocol's certified upper end
(``gspa.privacy.exact.laplace_profile``), equal to an independent enumeration of the binned protocol it
evaluates, between the thresholded lower bound and the certified upper bound at realistic sizes; bad input
refused."""

import numpy as np
import pytest

from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB


def _binned_exact(v: float, n: int, grid) -> np.ndarray:
    """delta(eps) of the binned protocol (the bound's bins), the others at 0 and the differing user at 0 or 1,
    by summing over every ordered tuple of bins (the slot of the differing user uniformly random), both
    directions; the bins' probabilities from the Laplace CDF (``laplace_binned_row``), independently of the
    likelihood-ratio formula the bound uses."""
    edges = np.concatenate([[-np.inf], LB._laplace_lattice(v, LB._lattice_steps(v))[0], [np.inf]])
    p0 = BF.laplace_binned_row(v, 0.0, edges[1:-1])
    p1 = BF.laplace_binned_row(v, 1.0, edges[1:-1])
    assert p0.size == edges.size - 1
    prod = lambda rows: np.einsum(
        *[x for i, r in enumerate(rows) for x in (r, [i])], list(range(n))
    )
    q0 = prod([p0] * n)
    q1 = sum(prod([p1 if s == i else p0 for i in range(n)]) for s in range(n)) / n
    e = np.exp(np.asarray(grid))[:, None]
    q0, q1 = q0.ravel()[None, :], q1.ravel()[None, :]
    return np.maximum(np.maximum(q1 - e * q0, 0).sum(1), np.maximum(q0 - e * q1, 0).sum(1))


@pytest.mark.parametrize(
    "v, n, gap", [(1.0, 2, 1e-9), (1.0, 3, 1e-9), (2.0, 2, 1e-9), (0.3, 3, 0.01), (4.0, 2, 0.03)]
)
def test_lattice_bound_is_the_binned_protocol(v, n, gap):
    """The bound equals the enumerated binned protocol (the others at 0) to round-off, except where the last
    bin of [0, 1] is rounded off the lattice, which can only lower it (by 1.8 % of the largest delta at v = 4,
    where that bin is most of [0, 1], 0.05 % at v = 0.3); and it has something to say."""
    grid = np.linspace(0.0, v, 21)
    exact = _binned_exact(v, n, grid)
    low = LB.laplace_lattice_lower(v, n).delta(grid)
    assert np.all(low <= exact + 1e-12), (grid, low, exact)
    assert np.all(low >= exact - gap * exact.max()), (grid, low, exact)
    assert low[0] > 0.05


@pytest.mark.parametrize("v, n", [(1.0, 2), (2.0, 3), (0.5, 2)])
def test_lattice_bound_is_below_the_continuous_protocol(v, n):
    """Below the *upper* end of the continuous protocol's bracket (``laplace_profile``), which includes this
    data set (every other user at 0, the differing user's inputs 0 and 1)."""
    grid = np.linspace(0.0, v, 11)
    cells = (
        dict(inner=0.01, outer=1.0, reach=1.0)
        if n == 3
        else dict(inner=0.005, outer=0.01, grow=1.02, reach=60.0)
    )
    _, high = BF.laplace_profile((v,) * n, grid, (0.0, 1.0), **cells)
    low = LB.laplace_lattice_lower(v, n).delta(grid)
    assert np.all(low <= high), (grid, low, high)


@pytest.mark.parametrize("v", [0.3, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("n", [1000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_lattice_bound_lies_between_the_threshold_bound_and_the_upper_bound(v, n):
    """At realistic sizes the binned protocol beats reports thresholded at 1/2 (its bins carry almost all the
    information) and stays below the certified upper bound (lower_bound takes the largest of its bounds: at
    v = 4 the window count can beat the lattice); the law of its sum keeps its mass (a window cut
    for sums of bits instead of sums in [0, steps] once lost 99.9 % of it at v = 4)."""
    hist = dict(counts=np.array([n]))
    lattice = LB.laplace_lattice_lower(v, n)
    for law in lattice.laws:  # the sum's law keeps its mass: no window cut more than its tail
        assert abs(float(law.pmf.sum()) - 1.0) < 1e-9
    threshold = LB.lower_bound(np.array([v]), "laplace", **hist)
    upper = A.personalized_pair(np.array([v]), None, randomizer="laplace", **hist)
    for delta in (1e-4, 1e-6, 1e-9):
        e = lattice.epsilon(delta)
        thresholded = max(
            p.epsilon(delta)
            for p in threshold.pairs
            if isinstance(p, LB.LowerBound) and not p.reports  # not the window count
        )
        assert thresholded < e < upper.epsilon(delta), (delta, e)
        assert threshold.epsilon(delta) == max(p.epsilon(delta) for p in threshold.pairs) >= e
        assert lattice.delta(e) >= delta * (1 - 1e-6)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(v=0.0, n=10), "v"),
        (dict(v=1e-17, n=5), "v"),  # e^v and e^-v round to one number: no lattice
        (dict(v=float("nan"), n=10), "v"),
        (dict(v=1.0, n=0), "n"),
        (dict(v=1.0, n=2.5), "n"),
        (dict(v=1.0, n=10, steps=1), "steps"),
    ],
)
def test_bad_input_is_refused(kwargs, name):
    with pytest.raises(ValueError, match=name):
        LB.laplace_lattice_lower(**kwargs)


@pytest.mark.parametrize("v", [0.3, 1.0, 2.0, 4.0])
def test_bins_keep_almost_all_the_information(v):
    """The bins' chi-square divergence between inputs 1 and 0 is within 0.1 % of the continuous report's,
    (2 e^v + e^(-2v)) / 3 - 1 (E[rho^2] - 1 with rho = e^(-v), e^(v(2y - 1)), e^v on y < 0, in [0, 1], > 1): what the
    peers chapter says of the lower bound. Reports thresholded at 1/2 keep less (at most 90 % from v = 1 on; 96 %
    at v = 0.3)."""
    edges = LB._laplace_lattice(v, LB._lattice_steps(v))[0]
    p0, p1 = (BF.laplace_binned_row(v, x, edges) for x in (0.0, 1.0))
    continuous = (2.0 * np.exp(v) + np.exp(-2.0 * v)) / 3.0 - 1.0
    binned = float(np.sum((p1 - p0) ** 2 / p0))
    assert 0.999 * continuous <= binned <= continuous * (1 + 1e-9)
    t0, t1 = (BF.laplace_binned_row(v, x, np.array([0.5])) for x in (0.0, 1.0))
    assert float(np.sum((t1 - t0) ** 2 / t0)) < (0.9 if v >= 1 else 0.96) * continuous


def test_lower_bound_takes_the_lattice_only_where_it_serves():
    """A tiny or a large budget, or very many users: the thresholded pairs alone (no crash at v = 1e-17, where the
    lattice has no step, and no minutes of work at 10^8 users)."""
    for eps, counts in [(1e-17, 5), (7.0, 100), (1.0, 10**8)]:
        bound = LB.lower_bound(np.array([eps]), "laplace", counts=np.array([counts]))
        assert not any(isinstance(p, LB.LaplaceLatticeLower) for p in bound.pairs)
        assert bound.epsilon(1e-6) >= 0.0
    bound = LB.lower_bound(np.full(4, 6.0), "laplace")
    assert any(isinstance(p, LB.LaplaceLatticeLower) for p in bound.pairs)
