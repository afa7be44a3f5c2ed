"""Wang et al.'s k-subset, local-hash, Hadamard and RAPPOR rows against exact enumeration (gspa.studies.accountant.wang_rows)."""

import numpy as np
import pytest

from gspa.privacy.exact.enumeration import matrix_profile
from gspa.privacy.exact.peers import ldp_epsilon
from gspa.privacy.peers.variation import VariationRatioPair
from gspa.studies.accountant import wang_rows as W

ALL = [(row, sh) for row, shapes in W.SHAPES.items() for sh in shapes]


@pytest.mark.parametrize("row, shape", ALL)
@pytest.mark.parametrize("eps0", [0.1, 1.0, 4.0])
def test_table_beta_is_the_exact_total_variation_and_the_matrix_is_eps0_ldp(row, shape, eps0):
    R, beta = W.matrix(row, eps0, shape)
    assert np.allclose(R.sum(axis=1), 1.0)
    assert ldp_epsilon(R) == pytest.approx(eps0, rel=1e-12)
    assert W.total_variation(R) == pytest.approx(beta, rel=1e-12)
    assert (np.exp(eps0) + 1) * beta / np.expm1(
        eps0
    ) < 1 - 1e-3  # a third component: the lemma's bad case


def test_table_beta_gap_is_round_off():
    assert W.table_beta_gap(1.0) < 1e-12


def test_binary_case_without_third_component_holds():
    # 1-subsets of 2 options are binary randomized response: no third component, the pair is FMT23's clone pair
    R, beta = W.ksubset(1.0, 2, 1)
    assert beta == pytest.approx(np.tanh(0.5), rel=1e-12)
    assert W.row_margin("k-subset", 3, 1.0, (2, 1)) >= 0.0


@pytest.mark.parametrize(
    "row, shape", [("k-subset", (4, 2)), ("local-hash", (3, 2)), ("hadamard", 4), ("rappor", 3)]
)
def test_each_row_fails_and_the_40_digit_check_confirms(row, shape):
    assert W.row_margin(row, 2, 1.0, shape) < -1e-3
    assert W.row_confirmed(row, 2, 1.0, shape)


@pytest.mark.parametrize(
    "row, shape", [("k-subset", (4, 3)), ("local-hash", (3, 2)), ("hadamard", 8)]
)
def test_exact_gap_agrees_with_the_float_pair_and_stays_below_the_enumerated_worst_case(row, shape):
    e = np.array([0.0, 0.3, 0.7])
    truth, pair = W.exact_gap(row, 3, 1.0, shape, e)
    R, beta = W.matrix(row, 1.0, shape)
    p = np.e
    assert pair == pytest.approx(VariationRatioPair(p, beta, p, 3).delta(e), rel=1e-10, abs=1e-15)
    worst, err = matrix_profile(R, 3, e)  # every data set: at least the exact_gap's few
    assert np.all(truth <= worst + err)
    assert truth[1] > 0.5 * worst[1]  # and those few are not negligible


def test_shapes_round_trip_and_bad_input():
    for row, sh in ALL:
        assert W.parse_shape(row, W.shape_text(sh)) == sh
    with pytest.raises(ValueError, match="power of 2"):
        W.hadamard(1.0, 6)
    with pytest.raises(ValueError, match="row"):
        W.matrix("duchi", 1.0, 4)
    with pytest.raises(ValueError, match="eps0"):
        W.ksubset(-1.0, 4, 2)


@pytest.mark.parametrize("row", W.ROWS)
def test_the_search_callables_take_the_shapes_as_text(row):
    shape = W.shape_text(W.SHAPES[row][0])
    assert W.margin_for(row)(n=2, eps0=1.0, shape=shape) < 0
    assert W.confirm_for(row)({"n": 2, "eps0": 1.0, "shape": shape})


def test_search_record():
    from types import SimpleNamespace

    rec = W.search_record("wang-x", SimpleNamespace(margin=-0.25, violations=3, evaluations=7))
    assert rec["values"]["wang-x_worst"] == (0.25, "{:.3g}")
    assert rec["claim"]["ours"] == -0.25 and "3 of 7" in rec["claim"]["ours_text"]
