"""The blog's 'inherently approximate DP' (gspa.studies.fmt21.blog_remarks)."""

import math

import numpy as np
import pytest

from gspa.studies.fmt21 import blog_remarks as B


def test_pure_floor_positive_below_eps_l_only():
    lf = B.pure_floor_log_delta(1.0, np.array([2.0, 1e9]), 0.999)
    assert np.all(np.isfinite(lf))
    assert lf[0] == pytest.approx(
        2 * math.log(math.e / (math.e + 1)) + math.log(1 - math.exp(-0.001))
    )
    assert B.pure_floor_log_delta(1.0, 5, 1.0) == -np.inf


@pytest.mark.parametrize("eps_l, n", [(0.05, 2), (1.0, 4), (20.0, 6)])
def test_enumeration_agrees_and_margin(eps_l, n):
    assert B.enumeration_agrees(eps_l, n)
    assert B.approximate_margin(eps_l, n) == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="eps_l"):
        B.approximate_margin(0.0, 3)
    with pytest.raises(ValueError, match="eps"):
        B.pure_floor_log_delta(1.0, 3, -1.0)
