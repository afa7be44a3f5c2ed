"""Bad input raises ValueError naming the parameter, its value and the allowed range."""

import math

import numpy as np
import pytest

from gspa.privacy.basics import fdp
from gspa.privacy.basics import hypothesis as H
from gspa.privacy.basics import mechanisms as M


@pytest.mark.parametrize(
    "call, name",
    [
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
    ],
)
def test_bad_input_names_parameter(call, name):
    with pytest.raises(ValueError) as err:
        call()
    assert name in str(err.value)


def test_message_states_range_and_value():
    with pytest.raises(ValueError, match=r"alpha must lie in \[0, 1\], got 1.5"):
        fdp.gdp_tradeoff(1.5, 1.0)
    with pytest.raises(ValueError, match=r"NaN"):
        fdp.gdp_delta(math.nan, 1.0)


@pytest.mark.parametrize(
    "call, name",
    [
        (
            lambda: (
                __import__("importlib")
                .import_module("gspa.privacy.basics.mechanisms")
                .laplace_delta(True, 1.0)
            ),
            "boolean",
        ),
        (
            lambda: (
                __import__("importlib")
                .import_module("gspa.privacy.shuffle.pairs")
                .fmt21_pair(0.5, 100)
                .epsilon([1e-6])
            ),
            "single number",
        ),
        (
            lambda: (
                __import__("importlib")
                .import_module("gspa.privacy.interop.dpaccounting")
                .pmf_pair_delta([0.1], [0.5, 0.5], [0.3, 0.3, 0.4])
            ),
            "equal length",
        ),
        (
            lambda: (
                __import__("importlib")
                .import_module("gspa.privacy.interop.dpaccounting")
                .gaussian_delta([0.1], 60.0)
            ),
            "PLD points",
        ),
        (
            lambda: (
                __import__("importlib")
                .import_module("gspa.privacy.interop.dpaccounting")
                .laplace_delta([0.1], 1e6)
            ),
            "PLD points",
        ),
    ],
)
def test_review_bad_inputs_get_a_value_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_huge_budgets_give_numbers_not_nan():
    from gspa.privacy.basics import mechanisms as M

    assert M.rr_probabilities(710.0) == 1.0
    assert M.krr_delta(0.0, 800.0, 4) == pytest.approx(1.0)
    assert np.isfinite(M.quaternary_delta(0.5, 1e6, 1e-6))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: fdp.gdp_delta("0.5", 1.0), "eps"),
        (lambda: fdp.gdp_epsilon(1e-6, "1"), "mu"),
        (lambda: M.laplace_delta(1.0, b"0.5"), "eps0"),
        (
            lambda: __import__("gspa").personalized_pair(["0.5", 1.0, 2.0], reduction="clones"),
            "eps",
        ),
        (
            lambda: __import__("gspa").personalized_pair(
                np.array(["0.5", "1.0"]), reduction="clones"
            ),
            "eps",
        ),
        (lambda: __import__("gspa").fmt21_pair("1.0", 1000), "eps"),
        (lambda: H.hockey_stick([0.5, 0.5], [0.5, 0.5], np.str_("1")), "eps"),
    ],
)
def test_numeric_strings_are_refused_where_numbers_are_due(call, name):
    """numpy would read "0.5" as 0.5; the public API takes numbers, not text."""
    with pytest.raises(ValueError, match=rf"{name}\w* must be a real number, got text"):
        call()
