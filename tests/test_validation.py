"""Bad input raises ValueError naming the parameter, its value and the allowed range."""
import math

import numpy as np
import pytest

from gspa import fdp, hypothesis as H, mechanisms as M


@pytest.mark.parametrize("call, name", [
    (lambda: fdp.gdp_tradeoff(1.5, 1.0), "alpha"),
    (lambda: fdp.gdp_tradeoff(-0.1, 1.0), "alpha"),
    (lambda: fdp.gdp_tradeoff(0.5, -1.0), "mu"),
    (lambda: fdp.gdp_delta(-0.5, 1.0), "eps"),
    (lambda: fdp.gdp_delta(0.5, math.nan), "mu"),
    (lambda: fdp.gdp_epsilon(0.0, 1.0), "delta"),
    (lambda: fdp.gdp_epsilon(1.5, 1.0), "delta"),
    (lambda: fdp.f_eps_delta(0.5, -1.0, 0.1), "eps"),
    (lambda: fdp.f_eps_delta(0.5, 1.0, 1.1), "delta"),
    (lambda: fdp.f_eps_delta(np.array([0.1, np.nan]), 1.0, 0.1), "alpha"),
    (lambda: fdp.gdp_group(1.0, 0), "k"),
    (lambda: M.gaussian_sigma_classic(0.0, 1e-5), "eps"),
    (lambda: M.gaussian_sigma_classic(1.0, 0.0), "delta"),
    (lambda: M.laplace_delta(1.0, -0.1), "eps0"),
    (lambda: M.quaternary_pmfs(1.0, -0.1), "delta_i"),
    (lambda: M.krr_delta(1.0, 1.0, 1), "k"),
    (lambda: H.tradeoff_curve([0.5, 0.5], [1.0, 0.0], 2.0), "alpha"),
    (lambda: H.total_variation([0.5, 0.6], [1.0, 0.0]), "p must sum to 1"),
    (lambda: H.total_variation([0.5, 0.5], [1.0, 0.0, 0.0]), "equal length"),
    (lambda: H.hockey_stick([0.5, 0.5], [0.5, 0.5], math.nan), "eps"),
])
def test_bad_input_names_parameter(call, name):
    with pytest.raises(ValueError) as err:
        call()
    assert name in str(err.value)


def test_message_states_range_and_value():
    with pytest.raises(ValueError, match=r"alpha must lie in \[0, 1\], got 1.5"):
        fdp.gdp_tradeoff(1.5, 1.0)
    with pytest.raises(ValueError, match=r"NaN"):
        fdp.gdp_delta(math.nan, 1.0)
