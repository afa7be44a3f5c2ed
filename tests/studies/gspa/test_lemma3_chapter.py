"""The Lemma 3 chapter's computations (gspa.studies.gspa.gaussian_tradeoff): closed forms against linear
algebra, the simulated likelihood-ratio tests against G_μ, and the proof of Theorem 2's pᵢ."""

import math

import numpy as np
import pytest
from scipy import stats

from gspa.studies.gspa import gaussian_tradeoff as GT


def test_the_closed_forms_agree_with_linear_algebra():
    rel = GT.closed_form_errors(300, np.random.default_rng(1), n_random=20)
    assert set(rel) == {"maha", "inverse"}
    assert 0 <= rel["maha"] < 1e-12 and 0 <= rel["inverse"] < 1e-12


def test_one_seed_gives_one_answer_and_the_stream_moves_on():
    a = GT.closed_form_errors(50, np.random.default_rng(7), n_random=3)
    assert a == GT.closed_form_errors(50, np.random.default_rng(7), n_random=3)
    rng = np.random.default_rng(7)
    GT.closed_form_errors(50, rng, n_random=3)
    # 3 vectors of 50 budgets and 50 deltas were drawn: the next draw is the 301st
    assert rng.random() == np.random.default_rng(7).random(301)[-1]


def test_the_simulated_tests_trace_g_mu():
    sim = GT.simulated_tradeoff(400, np.random.default_rng(3), n_mc=100_000)
    p = 2 / (1 + np.exp(sim["eps"]))
    assert sim["eps"].shape == (400,) and (0.01 <= sim["eps"]).all() and (sim["eps"] <= 2).all()
    assert sim["mu"] == pytest.approx(2 / math.sqrt(p.sum()), rel=1e-14)
    assert 0 < sim["gap"] < 0.01  # Monte Carlo error only


def test_the_simulation_sees_a_wrong_mu():
    # the projected likelihood-ratio statistic under H1 minus under H0 has mean μ² in units of its sd μ:
    # the errors of the threshold tests must be those of G_mu, not of G_{2mu}
    sim = GT.simulated_tradeoff(400, np.random.default_rng(3), n_mc=100_000)
    alpha = np.linspace(0.05, 0.95, 19)
    wrong = stats.norm.cdf(stats.norm.ppf(1 - alpha) - 2 * sim["mu"])
    right = stats.norm.cdf(stats.norm.ppf(1 - alpha) - sim["mu"])
    assert np.max(np.abs(wrong - right)) > 10 * sim["gap"]


def test_the_proofs_p_gives_sqrt2_times_the_stated_mu():
    for eps in (np.array([0.5]), np.random.default_rng(0).uniform(0.01, 5, 1000)):
        assert GT.proof_p_ratio(eps) == pytest.approx(math.sqrt(2), rel=1e-12)
