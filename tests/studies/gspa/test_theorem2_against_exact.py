"""theorem2.against_exact: the Theorem 2 chapter's comparison of G_mu with the exact curves."""

import numpy as np

from gspa.studies.gspa import theorem2 as T2


def test_row_and_curves():
    eps = np.random.default_rng(0).uniform(0.5, 1.5, 60)
    alpha = np.linspace(0, 1, 401)
    grid = np.linspace(0, 2, 21)
    row, (mu, T_rev, T_ran, d_exact, d_gdp) = T2.against_exact(eps, alpha, grid)
    assert row["n"] == 60 and row["mu"] == mu == T2.mu_theorem2(eps)
    # the proof's pair reveals more than Theorem 1's own pair: its curve is lower, so G_mu exceeds it by more
    assert np.all(T_rev <= T_ran + 1e-12)
    assert row["max (G_mu − T), revealing"] >= row["max (G_mu − T), randomized"] - 1e-12
    # the real protocol is a post-processing of the randomized pair: G_mu exceeds it by no more
    assert row["max (G_mu − T), real RR"] <= row["max (G_mu − T), randomized"] + 1e-9
    assert row["TV (proof's pair)"] == np.max(1 - alpha - T_rev)
    assert d_exact.shape == d_gdp.shape == grid.shape
