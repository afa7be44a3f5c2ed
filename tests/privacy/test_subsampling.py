"""Subsampling (FLAME Lemma 4): formulas, the curve version against exact enumeration, bad input."""

import itertools

import numpy as np
import pytest

from gspa.privacy.basics import subsampling as S
from gspa.privacy.basics.hypothesis import hockey_stick
from gspa.privacy.basics.mechanisms import rr_delta


class RR:
    """Binary randomized response's exact curve (a one-record mechanism)."""

    def __init__(self, e):
        self.e = e

    def delta(self, eps):
        return rr_delta(eps, self.e)


def test_formulas():
    e, d = S.subsample_wor(1.0, 1e-6, 1, 10)
    assert e == pytest.approx(np.log(1 + 0.1 * (np.e - 1))) and d == pytest.approx(1e-7)
    assert S.subsample_wor(1.0, 1e-6, 10, 10) == pytest.approx((1.0, 1e-6))
    assert S.subsample_poisson(2.0, 0.0, 0.5)[0] == pytest.approx(np.log(1 + 0.5 * np.expm1(2.0)))


def test_curve_against_enumerated_wor_sampling():
    """Sample m = 1 of n = 3 records without replacement and report it through binary RR; neighbours
    replace one record. The exact profile over all data sets lies below the subsampled curve, and meets
    it for the worst data set."""
    e0, n = 1.2, 3
    q = 1.0 / n
    p1 = lambda bit: np.exp(e0) / (1 + np.exp(e0)) if bit else 1 / (1 + np.exp(e0))
    grid = np.linspace(0.0, 1.5, 16)
    best = np.zeros(grid.size)
    for data in itertools.product([0, 1], repeat=n):
        for j in range(n):
            d2 = list(data)
            d2[j] = 1 - d2[j]
            P = np.mean([p1(b) for b in data])
            Q = np.mean([p1(b) for b in d2])
            best = np.maximum(
                best, [hockey_stick(np.array([P, 1 - P]), np.array([Q, 1 - Q]), e) for e in grid]
            )
    ours = S.Subsampled(RR(e0), q).delta(grid)
    assert np.all(best <= ours + 1e-12)
    assert np.max(ours - best) < 1e-9 or np.max(best) > 0.5 * np.max(ours)


def test_curve_epsilon_inverts():
    from gspa.privacy.peers import blanket as B

    p = S.subsampled_pair(B.blanket_pair(0.5, 10, 300), 10, 100)
    e = p.epsilon(1e-7)
    assert p.delta(e) <= 1e-7 * (1 + 1e-9)
    assert e == pytest.approx(S.subsample_wor(p.base.epsilon(1e-6), 1e-6, 10, 100)[0], rel=1e-6)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: S.subsample_wor(1.0, 1e-6, 11, 10), "m"),
        (lambda: S.subsample_wor(-1.0, 1e-6, 1, 10), "eps"),
        (lambda: S.subsample_wor(1.0, 2.0, 1, 10), "delta"),
        (lambda: S.subsample_poisson(1.0, 1e-6, 0.0), "q"),
        (lambda: S.Subsampled(RR(1.0), 1.5), "q"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_subsampled_curve_composes():
    """Two rounds of the subsampled toy mechanism (m = 1 of n = 3, binary RR), enumerated on the worst data
    sets, against compose(Subsampled(...), 2)."""
    from gspa.privacy.shuffle.composition import compose

    e0, n = 1.2, 3
    p1 = lambda bit: np.exp(e0) / (1 + np.exp(e0)) if bit else 1 / (1 + np.exp(e0))
    grid = np.linspace(0.0, 2.0, 11)
    best = np.zeros(grid.size)
    for data in itertools.product([0, 1], repeat=n):
        d2 = list(data)
        d2[0] = 1 - d2[0]
        P = np.mean([p1(b) for b in data])
        Q = np.mean([p1(b) for b in d2])
        P2, Q2 = np.outer([P, 1 - P], [P, 1 - P]).ravel(), np.outer([Q, 1 - Q], [Q, 1 - Q]).ravel()
        best = np.maximum(
            best, [max(hockey_stick(P2, Q2, e), hockey_stick(Q2, P2, e)) for e in grid]
        )
    ours = compose(S.Subsampled(RR(e0), 1.0 / n), 2).delta(grid)
    assert np.all(best <= ours + 1e-12)
