"""The Laplace bound against the continuous shuffled protocol itself (its delta bracketed from both sides by
``gspa.privacy.exact.laplace_profile``), and that bracket's own checks: a direct integration, the binned
protocol at its low end, round-off where the inputs' distance is inexact, bad input. Kept out of the mutation
runner's KILLERS (tests/mutants.py): a minute of enumeration per mutant, and the Laplace mutants die in
test_laplace_bands.py already (and here too: each of the four fails
test_laplace_bound_is_above_the_continuous_protocol)."""

import mpmath
import numpy as np
import pytest

from gspa.privacy.exact import enumeration as BF
from gspa.privacy.shuffle import accountant as A


# -- the continuous protocol itself: its delta bracketed by laplace_profile ------------------------------------

_FINE = dict(inner=0.005, outer=0.01, grow=1.02, reach=60.0)  # 2 users
_THREE = dict(inner=0.025, outer=0.04, grow=1.08, reach=20.0)  # 3 users


@pytest.mark.parametrize(
    "budgets, cells, width",
    [
        ((1.0, 1.0), _FINE, 0.1),
        ((0.3, 1.0), _FINE, 0.1),
        ((2.0, 1.9), _FINE, 0.1),
        ((0.5, 2.0), _FINE, 0.1),
        (
            (1.0, 1.0, 1.0),
            dict(inner=0.02, outer=1.0, reach=1.0),
            0.1,
        ),  # one slope per tail: exact there
        ((2.0, 2.0, 2.0), dict(inner=0.01, outer=1.0, reach=1.0), 0.1),
        ((1.0, 1.0, 0.8), _THREE, 0.4),
        ((0.5, 1.0, 2.0), _THREE, 0.4),
    ],
)
def test_laplace_bound_is_above_the_continuous_protocol(budgets, cells, width):
    """The ground truth of the real protocol, continuous reports and all: ``laplace_profile`` brackets its
    delta(eps) (every differing user, every pair of inputs in {0, 0.3, 1}, every assignment of the others'
    inputs), and both pairs (randomized and revealing) lie above the bracket's *upper* end, a certified
    upper bound on the truth, so at these data sets the bound is proved by computation, not only not yet
    refuted. The bracket is narrow enough to have teeth: its two ends are nowhere further apart than
    ``width`` times the largest delta (a tenth; 0.4 for three distinct budgets, where the slopes differ on
    every bin)."""
    grid = np.linspace(0.0, max(budgets), 11)
    low, high = BF.laplace_profile(budgets, grid, (0.0, 0.3, 1.0), **cells)
    for variant in ("randomized", "revealing"):
        up = A.personalized_pair(budgets, variant=variant, randomizer="laplace").delta(grid)
        assert np.all(up >= high), (variant, grid[up < high], up, high)
    assert low.max() > 0.2 and np.all(high - low <= width * low.max()), (low, high)


def test_laplace_profile_brackets_a_direct_integration():
    """Two users of budget 1, one holding 0, the other 0 or 1: delta(eps) integrated directly on a fine
    grid of report pairs (midpoint rule, an approximation independent of the cells) lies inside the
    bracket, which shrinks as its bins do."""
    y = np.arange(-14.0, 15.0, 0.004) + 0.002
    f0, f1 = 0.5 * np.exp(-np.abs(y)), 0.5 * np.exp(-np.abs(y - 1.0))
    p0 = np.outer(f0, f0)
    p1 = 0.5 * (np.outer(f0, f1) + np.outer(f1, f0))
    grid = np.array([0.0, 0.3, 0.6, 0.9])
    direct = (
        np.array(
            [
                max(
                    np.maximum(p1 - np.exp(e) * p0, 0).sum(),
                    np.maximum(p0 - np.exp(e) * p1, 0).sum(),
                )
                for e in grid
            ]
        )
        * 0.004**2
    )
    coarse = BF.laplace_profile([1.0, 1.0], grid, (0.0, 1.0), inner=0.1, outer=1.0, reach=1.0)
    fine = BF.laplace_profile([1.0, 1.0], grid, (0.0, 1.0), inner=0.01, outer=1.0, reach=1.0)
    for low, high in (coarse, fine):
        assert np.all(low <= direct + 1e-6) and np.all(direct <= high + 1e-6), (low, direct, high)
    assert np.all(fine[1] - fine[0] < 0.2 * (coarse[1] - coarse[0]) + 1e-12)


@pytest.mark.parametrize(
    "eps, x0, x1, e",
    [
        (
            3.0,
            0.0,
            1.0,
            2.9999999999999996,
        ),  # just below eps d: 1 - e^r loses its digits, expm1 not
        (
            1.4981059487883759,
            9.556852217172583e-17,
            0.6953098292687029,
            1.0416477914784736,
        ),  # d inexact
        (1.0, 0.0, 0.3, 0.25),
    ],
)
def test_the_brackets_cap_is_the_reports_own_delta_rounded_up(eps, x0, x1, e):
    """The cap of ``laplace_profile``'s upper end, the differing user's own report's δ, lies at or above its
    exact value (1,200 bits) and within an ulp of it, and is positive below the exact eps d (cases an
    independent review found below it: a tiny positive δ rounded to less, and eps d rounded onto the grid
    point by 40-digit arithmetic)."""
    mpmath.mp.prec = 1200
    exact = -mpmath.expm1((mpmath.mpf(e) - mpmath.mpf(eps) * (mpmath.mpf(x1) - mpmath.mpf(x0))) / 2)
    (got,), top = BF._laplace_local(eps, x0, x1, np.array([e]))
    assert exact > 0 and got >= exact and got <= exact * (1 + 2.0**-51) and e < top


def test_laplace_profile_low_end_is_the_binned_protocol():
    """With inputs 0 and 1 and bins cut only at -1, 0, 0.5, 1, 2 the low end is the binned enumeration
    ``shuffled_profile("laplace-binned")`` (the same edges), up to their counted round-off."""
    budgets, grid = [0.4, 1.3, 2.0], np.linspace(0.0, 2.5, 11)
    low, high = BF.laplace_profile(budgets, grid, (0.0, 1.0), inner=0.5, outer=1.0, reach=1.0)
    binned, err = BF.shuffled_profile("laplace-binned", budgets, grid)
    assert np.all(np.abs(low - binned) <= 2 * err) and np.all(high >= low) and binned.max() > 0.3


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(eps=[1.0]), "eps"),
        (dict(eps=[1.0, 1.0, 1.0, 1.0]), "eps"),
        (dict(eps=[1.0, 0.0]), "eps"),
        (dict(inputs=(0.0, 1.5)), "inputs"),
        (dict(inputs=(0.5, 0.5)), "inputs"),
        (dict(inner=0.0), "inner"),
        (dict(grow=0.9), "grow"),
        (dict(reach=500.0), "reach"),
        (dict(eps=[1.0, 1.0, 1.0], inner=0.001), "cells"),
        (dict(eps=[1.0, 1.0, 1.0], outer=0.001, grow=1.0, reach=200.0), "grow"),
        (dict(eps_grid=[-1.0]), "eps_grid"),
    ],
)
def test_laplace_profile_refuses_bad_input(kw, name):
    args = dict(eps=[1.0, 1.0], eps_grid=[0.0, 0.5]) | kw
    with pytest.raises(ValueError, match=name):
        BF.laplace_profile(**args)


def test_laplace_profile_keeps_round_off_where_the_distance_is_inexact():
    """1 - 0.3 rounds below the real distance, so at eps = 0.7 the protocol is not exactly 0.7-DP: the upper
    end keeps its round-off there; with inputs 0 and 1 (exact distance) it is exactly 0 at eps = 1."""
    cells = dict(inner=0.1, outer=1.0, reach=1.0)
    assert BF.laplace_profile([1.0, 1.0], [0.7], (0.3, 1.0), **cells)[1][0] > 0.0
    assert BF.laplace_profile([1.0, 1.0], [1.0], (0.0, 1.0), **cells)[1][0] == 0.0
