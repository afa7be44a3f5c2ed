"""The margins of the GSPA claims over their stated domains: each is negative at a known
counterexample and non-negative at a known good point, and the independent re-verifications agree."""

import numpy as np
import pytest

from gspa.privacy.shuffle import protocol as PR
from gspa.studies.gspa import domain_search as DS


def test_two_level_keeps_one_user_apart_and_drops_empty_groups():
    assert DS.two_level(100, 1e-6, 0.5, 2.0)[1].tolist() == [1, 99]
    v, c = DS.two_level(10, 1.0, 0.5, 2.0)
    assert v.tolist() == [0.5] and c.tolist() == [10]


def test_binomial_convolution_matches_the_protocol_laws():
    v, c = DS.two_level(60, 0.3, 0.2, 2.5)
    P0, P1 = DS.rr_neighbour_laws(v, c)
    e = np.repeat(v, c)
    j = int(np.argmax(e))
    Q0, Q1 = PR.neighbouring_laws(np.zeros(59, int), np.delete(e, j), e[j])
    assert np.abs(P0 - Q0).max() < 1e-12 and np.abs(P1 - Q1).max() < 1e-12


def test_theorem2_as_a_bound_fails_where_clones_are_scarce_and_holds_on_figure2_like_budgets():
    bad = dict(n=108_924, f=0.009225, eps_lo=20.0, eps_hi=9.801, delta=8.21e-5)
    assert DS.thm2_validity_margin(**bad) < -10
    assert DS.thm2_violation_confirmed(**bad)["confirmed"]
    good = dict(n=5000, f=0.5, eps_lo=0.1, eps_hi=1.0, delta=1e-4)
    assert DS.thm2_validity_margin(**good) > 0
    assert not DS.thm2_violation_confirmed(**good)["confirmed"]


def test_approximate_gdp_of_the_stated_pair_fails_where_few_clones_are_expected_and_is_enumerated():
    """Eqs. (12)-(13)'s pair (the differing user randomized): 30 users at eps = 3 expect about 1.4 clones, and
    G_mu overstates their privacy (a second reader's counterexample); two liberal users do not fail it (only the
    proof's revealing pair did, at alpha = 0)."""
    assert DS.thm2_approx_margin(30, 1.0, 3.0, 3.0) < 0
    assert DS.thm2_approx_confirm(30, 1.0, 3.0, 3.0) is True
    assert DS.thm2_approx_margin(2, 1.0, 20.0, 20.0) > 0
    assert DS.thm2_approx_margin(200, 0.5, 0.05, 3.0) > 0
    assert DS.thm2_approx_confirm(200, 0.5, 0.05, 3.0) is False
    assert DS.thm2_approx_confirm(10_000, 0.5, 0.05, 3.0) is None
    # the search's worst kind of point: two users at 1.237 among liberal ones at 20. The enumeration must take
    # a liberal user as the differing one, as the pair's worst case does (with a user at 1.237 it held)
    assert DS.thm2_approx_margin(20, 0.1, 1.237, 20.0) < 0
    assert DS.thm2_approx_confirm(20, 0.1, 1.237, 20.0) is True


def test_theorem4_margin_and_its_recomputation_agree():
    v, c = DS.two_level(300, 0.2, 0.1, 4.0)
    assert DS.gdp_relative_excess(v, c) == pytest.approx(
        DS.gdp_relative_excess_clones(v, c), abs=1e-9
    )
    assert DS.thm4_margin(300, 0.2, 0.1, 4.0) > 0


def test_figure3_trend_margins_detect_a_reversed_ordering():
    assert DS.fc_trend_margin(10_000, 0.3, 0.1, 5.0, 2.0) > 0
    assert DS.epsc_trend_margin(10_000, 0.3, 0.1, 5.0, 2.0) > 0
    # 'conservative' users more liberal than the moderate ones: more of them helps accuracy
    assert DS.fc_trend_margin(10_000, 0.3, 1.0, 0.2, 5.0) < 0


def test_delta_event_is_indistinguishable_for_any_budget():
    assert DS.delta_event_tv(3.0, 0.01) == 0.0


def test_thm5_client_ldp_margin_and_its_recheck():
    """Line 7's sigma (2C/m scaling) breaks the client's stated budget at the paper's eps = 0.5 (a known
    counterexample), and the honest calibration (sigma_rule='client') does not."""
    import dataclasses

    from gspa.studies.gspa import private_sgd as sgd

    cfg = sgd.Config()
    assert DS.thm5_client_ldp_margin(cfg, 0.5, 1e-5) < -10
    assert DS.thm5_client_ldp_confirmed(cfg, 0.5, 1e-5)
    honest = dataclasses.replace(cfg, sigma_rule="client")
    assert sgd.client_epsilon(honest, [0.5])[0] <= 0.5 + 1e-9


def test_theorem1_pair_is_the_enumerated_pair_for_each_differing_user():
    """eqs. (12)-(13) for the actual differing user (not the accountant's cover): the clone-count construction
    equals exhaustive enumeration of every user's trinomial report, for each choice of the differing user."""
    from scipy import special
    from gspa.privacy.exact.enumeration import histogram_law
    from gspa.studies.gspa.theorem2 import theorem1_pair

    eps = np.array([0.5, 1.0, 2.0, 3.0, 0.2])
    n = eps.size
    for j in range(n):
        P0, P1 = theorem1_pair(eps, differing=j)
        base = [np.array([q, q, 1 - 2 * q]) for q in special.expit(-np.delete(eps, j))]
        r = special.expit(eps[j])
        for P, row in ((P0, [r, 1 - r, 0.0]), (P1, [1 - r, r, 0.0])):
            E = histogram_law(base + [np.array(row)])
            want = {}
            for idx in np.nonzero(E)[0]:
                c0, c1 = idx % (n + 1), (idx // (n + 1)) % (n + 1)
                want[(c0 + c1, c0)] = want.get((c0 + c1, c0), 0.0) + E[idx]
            mm = np.repeat(np.arange(n + 2), np.arange(n + 2) + 1)[: P.size]
            aa = np.concatenate([np.arange(k + 1) for k in range(n + 2)])[: P.size]
            got = {(int(m), int(a)): v for m, a, v in zip(mm, aa, P) if v > 0}
            assert set(got) == set(want) and max(abs(got[k] - want[k]) for k in got) < 1e-15
    # the histogram form equals the per-user form, and the differing user's budget matters
    a = theorem1_pair([0.3, 4.0], counts=np.array([3, 2]), differing=1)
    b = theorem1_pair([0.3, 0.3, 0.3, 4.0, 4.0], differing=3)
    assert np.allclose(a[0], b[0], atol=1e-16) and np.allclose(a[1], b[1], atol=1e-16)
    c = theorem1_pair([0.3, 4.0], counts=np.array([3, 2]), differing=0)
    assert np.abs(a[0] - c[0]).max() > 0.01


def test_theorem2_margin_and_its_reverification_agree():
    """The margin (clone-count construction) and the re-verification (multinomial laws, 2-d convolution) are two
    code paths for the same pair: they agree on violations and on points that hold."""
    for pt in [
        (30, 1.0, 3.0, 3.0),
        (12, 0.5, 0.2, 6.0),
        (200, 0.5, 0.05, 3.0),
        (40, 1.0, 0.1, 0.1),
    ]:
        assert (DS.thm2_approx_margin(*pt) < 0) == DS.thm2_approx_confirm(*pt)
    # a violation only for the less liberal user would be missed by a cover that always lets the largest budget
    # differ: the margin takes the worst over the candidates
    ex = DS.thm2_approx_excess(12, 0.5, 0.2, 6.0)
    assert DS.thm2_approx_margin(12, 0.5, 0.2, 6.0) == pytest.approx(0.1 - max(ex.values()))
    for pt in [(30, 1.0, 3.0, 3.0), (500, 0.2, 0.1, 5.0), (2000, 0.5, 1.0, 1.0)]:
        assert (DS.gdp_bound_margin(*pt) < 0) == DS.gdp_bound_confirm(*pt)


def test_no_constant_of_eq15_or_lemma2_serves_budgets_that_leave_few_clones():
    """Along n p fixed, the required constant grows like sqrt(n): 'there exists C' fails for a C independent of
    the budgets (it would pass with a common budget held fixed, the chapter's grid)."""
    from gspa.studies.gspa.clt import few_clones_rate
    from gspa.studies.gspa.theorem2 import eq15_few_clones

    alpha = np.linspace(0, 1, 2001)
    rows = eq15_few_clones([100, 10_000, 1_000_000], alpha, clones=1.0)
    C = [r["C"] for r in rows]
    assert C[1] / C[0] > 5 and C[2] / C[1] > 5  # ~ 10-fold per 100-fold n
    assert all(abs(r["mu"] - np.sqrt(2)) < 0.01 for r in rows)  # mu stays put along the family
    rate = few_clones_rate([10, 1000, 100_000], clones=2.0)
    assert rate[2]["C"] / rate[1]["C"] > 5 and rate[2]["tv"] > 0.2
    with pytest.raises(ValueError, match="n_values"):
        eq15_few_clones([2], alpha, clones=1.0)


def test_eq15_constant_of_algorithm_2_grows_like_root_n_along_few_clones_and_vanishes_at_figure_3():
    from gspa.studies.gspa import theorem2

    alpha = theorem2.alpha_grid(2001)
    rows = DS.thm4_eq15_rows([100, 10_000], alpha, [0.54, 0.37, 0.09], [0.1, 0.5, 1.0])
    few = [r["C, few clones"] for r in rows]
    assert 8 < few[1] / few[0] < 12  # sqrt(10_000 / 100) = 10: the pair tends to a fixed law
    assert [r["C, Figure 3's budgets"] for r in rows] == [0.0, 0.0]  # G_mu below the curve there
    assert theorem2.growth(few) == few[1] / few[0]
    assert theorem2.growth([0.0, 0.0]) == 0.0 and theorem2.growth([0.0, 1e-3]) == float("inf")
