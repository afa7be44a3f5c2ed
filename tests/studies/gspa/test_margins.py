"""The GSPA claims' margins (gspa.studies.gspa.margins): each is negative at a known counterexample of its
claim (or, for a claim that holds, at a point where a deliberately broken variant fails) and non-negative at
a known good point; each independent re-check agrees with its margin's sign."""

import math
from fractions import Fraction

import numpy as np
import pytest

from gspa.claims.domain import ClaimDomain, Param
from gspa.book.worstcase import Searches
from gspa.studies.gspa import margins as G

PAIR = dict(k=6, conc=0.5, seed=1)


@pytest.mark.parametrize(
    "margin, point",
    [
        (G.eq4_margin, PAIR),
        (G.rr_fdp_margin, dict(eps=1.0)),
        (G.fact1_margin, dict(eps=1.0, delta=1e-3, **PAIR)),
        (G.fact1_symmetrised_margin, dict(delta=0.05, excess=1.0)),
        (G.fact2_margin, dict(k=6, m=4, conc=0.5, seed=1)),
        (G.fact4_chain_margin, PAIR),
        (G.fact3_margin, dict(mu=1.0, eps=1.0)),
        (G.fact3_group_margin, dict(mu=0.5, k=3, eps=1.0)),
        (G.laplace_pure_margin, dict(eps0=1.0)),
        (G.gaussian_calibration_margin, dict(eps=0.5, delta=1e-5)),
        (G.eq9_10_margin, dict(eps=1.0)),
        (G.delta_shared_margin, dict(eps=1.0, delta=0.0)),
        (G.common_budget_clone_margin, dict(eps=1.0, k=3, randomizer="k-ary RR")),
        (G.general_clone_margin, dict(n_inputs=4, n_outputs=5, spread=2.0, seed=0)),
        (G.personalized_margin, dict(eps_i=2.0, eps_n=0.5, randomizer="3-ary RR")),
        (G.personalized_margin, dict(eps_i=1.0, eps_n=1.0, randomizer="Laplace")),
        (G.lemma3_margin, dict(n=100, eps_max=2.0, delta_max=1e-3, seed=1)),
        (G.multibern_sum_margin, dict(eps=1.0, delta=0.1)),
        (G.thm1_binary_margin, dict(n=30, eps_max=1.0, seed=1)),
        (G.thm1_krr_margin, dict(n=3, k=3, eps_max=1.0, spread=10.0, seed=0)),
        (G.eq14_ratio_margin, dict(eps0=0.5, delta0=0.0, m=10)),
    ]
    + [
        (G.lemma4_margin, dict(eps=1.0, delta=1e-3, mechanism=m, k=4, seed=3))
        for m in G.LEMMA4_MECHANISMS
    ],
)
def test_margin_holds_at_a_good_point(margin, point):
    assert margin(**point) >= 0


@pytest.mark.parametrize(
    "margin, point",
    [
        (
            G.fact1_printed_margin,
            dict(delta=0.01, frac=0.5),
        ),  # printed eq. (19) at alpha = 1 is > 0
        (G.fact4_printed_margin, PAIR),  # the printed conclusion is vacuous
        (
            G.gaussian_calibration_margin,
            dict(eps=20.0, delta=1.8e-7),
        ),  # eq. (8): exact delta 162x the target
        (G.delta_shared_margin, dict(eps=1.0, delta=0.1)),
        (G.general_clone_margin, dict(n_inputs=4, n_outputs=5, spread=2.0, seed=1)),
        (G.personalized_margin, dict(eps_i=0.5, eps_n=2.0, randomizer="3-ary RR")),
        (G.personalized_margin, dict(eps_i=2.0, eps_n=0.5, randomizer="Laplace")),
        (G.p0_margin, dict(eps0=1.0, delta0=0.0)),
        (G.proof_p_margin, dict(n=100, eps_max=2.0, delta_max=1e-3, seed=1)),
        (G.eq14_ratio_margin, dict(eps0=0.5, delta0=0.0, m=100)),
        (G.thm1_krr_margin, dict(n=3, k=3, eps_max=10.0, spread=1000.0, seed=5)),
        (G.thm1_delta_margin, dict(n=2, eps_max=5.0, spread=100.0, delta=0.5, seed=1)),
    ],
)
def test_margin_fails_at_a_known_counterexample(margin, point):
    assert margin(**point) < 0


def test_gaussian_calibration_value_and_quadrature():
    """At eps = 20, delta = 1.8e-7 eq. (8)'s sigma leaks about 162 times the target delta; quadrature agrees."""
    m, e = G.gaussian_calibration_margin(20.0, 1.8e-7), G.gaussian_calibration_exact(20.0, 1.8e-7)
    assert m == pytest.approx(-161.6, abs=0.5)
    assert e == pytest.approx(m, rel=1e-6)
    assert G.gaussian_calibration_exact(0.5, 1e-5) == pytest.approx(
        G.gaussian_calibration_margin(0.5, 1e-5), rel=1e-6
    )


@pytest.mark.parametrize("frac", [0.001, 0.5, 0.999])
@pytest.mark.parametrize("delta", [1e-10, 0.01, 0.5])
def test_fact1_printed_exact_agrees(delta, frac):
    """The printed eq. (19) at alpha = 1 (closed form) is exactly minus the margin there, > 0 for eps < 1 - delta."""
    assert G.fact1_printed_exact(delta, frac) > 0
    assert G.fact1_printed_margin(delta, frac) < 0


@pytest.mark.parametrize("seed", range(4))
def test_fact4_printed_exact_agrees(seed):
    assert G.fact4_printed_exact(6, 0.5, seed) == (G.fact4_printed_margin(6, 0.5, seed) < 0)


@pytest.mark.parametrize("eps, delta", [(0.01, 0.0), (1.0, 0.1), (10.0, 0.9)])
def test_delta_shared_exact_is_minus_delta(eps, delta):
    assert G.delta_shared_exact(eps, delta) == pytest.approx(-delta, abs=1e-15)
    assert (G.delta_shared_exact(eps, delta) < 0) == (delta > 0)
    assert G.delta_shared_margin(eps, delta) == pytest.approx(-delta + 1e-12, abs=1e-14)


@pytest.mark.parametrize("seed", range(8))
def test_general_clone_exact_agrees_with_the_linear_program(seed):
    point = dict(n_inputs=4, n_outputs=5, spread=2.0, seed=seed)
    assert (G.general_clone_margin(**point) < 0) == (G.general_clone_exact(**point) < 1 - 1e-6)


@pytest.mark.parametrize("randomizer", G.PERSONALIZED_RANDOMIZERS)
@pytest.mark.parametrize("eps_i, eps_n", [(1.0, 1.0), (2.0, 0.5), (0.5, 2.0), (0.05, 8.0)])
def test_personalized_exact_agrees(randomizer, eps_i, eps_n):
    assert (G.personalized_margin(eps_i, eps_n, randomizer) < 0) == (
        G.personalized_exact(eps_i, eps_n, randomizer) < 1 - 1e-6
    )


def test_laplace_clone_weight_exact_cases():
    # equal budgets: the paper's p = 1/(1 + e^eps)
    for e in (0.1, 1.0, 5.0):
        assert G.laplace_clone_weight(e, e) == pytest.approx(1 / (1 + math.exp(e)), rel=1e-15)
    # lighter tails than the components: no positive weight at all
    assert G.laplace_clone_weight(2.0, 0.5) == 0.0
    assert G.laplace_clone_weight(1.0 + 1e-9, 1.0) == 0.0
    # eps_i < eps_n: (eps_i/eps_n) e^(eps_n - eps_i)/(1 + e^eps_n)
    assert G.laplace_clone_weight(0.5, 2.0) == pytest.approx(
        0.25 * math.exp(1.5) / (1 + math.exp(2.0)), rel=1e-14
    )


@pytest.mark.parametrize("eps_i, eps_n", [(0.5, 2.0), (1.0, 1.0), (0.1, 3.0)])
def test_laplace_clone_weight_is_the_smallest_density_ratio(eps_i, eps_n):
    """The weight is the minimum over outputs of the density ratio: attained at an output in [0, 1], never
    undercut on a fine grid of outputs."""
    t = G.laplace_clone_weight(eps_i, eps_n)
    ys = np.linspace(-20, 21, 4101)
    ratios = np.array([G.laplace_clone_ratio_at(eps_i, eps_n, y) for y in ys])
    assert ratios.min() >= t * (1 - 1e-9)
    assert min(G.laplace_clone_ratio_at(eps_i, eps_n, y) for y in (0.0, 1.0)) == pytest.approx(
        t, rel=1e-9
    )


def test_laplace_clone_weight_vanishes_far_out_when_tails_are_lighter():
    assert G.laplace_clone_ratio_at(2.0, 0.5, 60.0) < 1e-20


def test_p0_and_proof_p_ratios_are_exact_constants():
    for e, d in [(0.01, 0.0), (1.0, 0.3), (10.0, 0.5)]:
        assert G.p0_ratio_exact(e, d) == Fraction(1, 2)
        assert G.p0_margin(e, d) < 0
    assert G.proof_p_ratio_exact(50, 2.0, 0.1, 3) == 2  # mu ratio squared: the ratio is sqrt(2)
    assert G.proof_p_margin(50, 2.0, 0.1, 3) == pytest.approx(1 - math.sqrt(2), abs=1e-8)


@pytest.mark.parametrize(
    "point",
    [
        dict(n=3, k=3, eps_max=10.0, spread=1000.0, seed=5),
        dict(n=4, k=3, eps_max=5.0, spread=100.0, seed=0),
        dict(n=2, k=3, eps_max=1.0, spread=1.0, seed=0),
    ],
)
def test_thm1_krr_exact_agrees_with_the_enumeration(point):
    """The direct listing of output sequences finds the same excess the certified enumeration does."""
    m, e = G.thm1_krr_margin(**point), G.thm1_krr_exact(**point)
    assert (m < 0) == (e > 1e-9)
    if m < 0:
        assert e == pytest.approx(-m, rel=1e-9)


def test_shuffled_krr_delta_direct_simple_cases():
    grid = np.array([0.0, 1.0])
    # one user (n = 1, no shuffling effect): delta(0) is the TV of two rows of 3-ary randomized response
    e = 1.0
    d = G.shuffled_krr_delta_direct([e], 3, (0,), (1,), grid)
    z = math.exp(e) + 2
    assert d[0] == pytest.approx((math.exp(e) - 1) / z, rel=1e-12)
    assert d[1] == pytest.approx(0.0, abs=1e-15)  # pure eps-DP at eps
    # the same data set: nothing to distinguish
    assert np.all(G.shuffled_krr_delta_direct([1.0, 0.5], 3, (0, 2), (0, 2), grid) == 0)


@pytest.mark.parametrize(
    "point",
    [
        dict(n=2, eps_max=5.0, spread=100.0, delta=0.5, seed=1),
        dict(n=4, eps_max=0.01, spread=1.0, delta=1e-8, seed=1),
    ],
)
def test_thm1_delta_exact_agrees(point):
    assert G.thm1_delta_margin(**point) < 0 and G.thm1_delta_exact(**point) > 0


def test_small_budgets_first_is_liberal():
    b = G._small_budgets(4, 2.0, 100.0, 7)
    assert b[0] == 2.0 and np.all((b[1:] >= 0.02) & (b[1:] <= 2.0))
    assert np.all(G._small_budgets(3, 1.5, 1.0, 0) == 1.5)


def test_random_pair_is_a_pair_of_distributions_with_zeros():
    P = G.random_pair(20, 0.3, 4, zero_prob=0.5, count=3)
    assert (
        P.shape == (3, 20) and np.allclose(P.sum(axis=1), 1) and (P >= 0).all() and (P == 0).any()
    )


class _Chapter:
    def __init__(self):
        self.claims = []

    def claim(self, id, *args, **kw):
        self.claims.append((id, kw))


def test_searches_records_and_confirms_only_violations():
    ch = _Chapter()
    S = Searches(ch, budget=12, seed=0)
    dom = ClaimDomain((Param("x", 0.0, 1.0, "linear"),), "for all x in [0, 1]")
    S.search(
        "holds",
        lambda x: 1.0 - x,
        dom,
        confirm=lambda w: pytest.fail("confirm called without a violation"),
    )
    S.search("fails", lambda x: 0.5 - x, dom, confirm=lambda w: w["x"] > 0.5)
    S.point("one", "a printed number")
    S.unsearched("open", dom)
    assert (
        S.spec["holds"][2] is None
        and S.spec["fails"][2] is True
        and S.spec["fails"][1].violations > 0
    )
    assert S.spec["one"][0].is_point and S.spec["open"][1] is None
    S.claim("fails", "text", kind="numerical")
    ((id, kw),) = ch.claims
    assert (
        id == "fails"
        and kw["confirmed"] is True
        and kw["domain"] is dom
        and kw["kind"] == "numerical"
    )


# Lemma 1 for Laplace over every pair of inputs
@pytest.mark.parametrize("eps", [0.01, 0.5, 1.0, 3.0, 20.0])
def test_laplace_pair_weight_closed_form_matches_the_grid(eps):
    rng = np.random.default_rng(7)
    for x0, x1, xi in [(0.0, 1.0, 0.0), (0.0, 1.0, 0.4), (0.0, 0.1, 1.0), (0.3, 0.9, 0.5)] + [
        tuple(rng.uniform(0, 1, 3)) for _ in range(12)
    ]:
        w = G.laplace_pair_clone_weight(eps, x0, x1, xi) * (1 + math.exp(eps))
        assert G.laplace_pair_clone_exact(eps, x0, x1, xi) == pytest.approx(w, rel=1e-7)


def test_laplace_pair_weight_is_the_papers_only_for_the_extreme_pair():
    e = 1.0
    p = 1 / (1 + math.exp(e))
    for xi in np.linspace(0, 1, 11):  # the pair (0, 1): the paper's weight for every other input
        assert G.laplace_pair_clone_weight(e, 0.0, 1.0, xi) >= p * (1 - 1e-14)
    assert G.laplace_pair_clone_weight(e, 0.0, 1.0, 1.0) == pytest.approx(p, rel=1e-14)
    assert G.laplace_pair_clone_weight(e, 0.2, 0.7, 0.5) >= p  # xi between the pair: holds
    assert G.laplace_pair_clone_weight(e, 0.0, 0.5, 1.0) == pytest.approx(
        math.exp(-0.5) / (1 + math.exp(0.5))
    )
    for gap in (
        0.9,
        0.5,
        0.1,
        1e-3,
    ):  # the worst pair at distance gap falls below the paper's weight
        w = G.laplace_worst_pair_weight(e, gap)
        assert w < p
        assert w == pytest.approx(G.laplace_pair_clone_weight(e, 0.0, gap, 1.0), rel=1e-14)
    assert G.laplace_worst_pair_weight(e, 1.0) == pytest.approx(p, rel=1e-14)
    assert G.laplace_worst_pair_weight(e, 0.0) == pytest.approx(math.exp(-e) / 2, rel=1e-14)


def test_common_budget_margin_finds_the_interior_pair_and_its_check_confirms():
    bad = dict(eps=1.0, k=3, randomizer="Laplace", lower=0.0, gap=0.2, xi=1.0)
    assert G.common_budget_margin(**bad) < 0 and G.common_budget_exact(**bad) < 1 - 1e-6
    good = dict(bad, gap=1.0)
    assert G.common_budget_margin(**good) >= 0 and G.common_budget_exact(**good) >= 1 - 1e-9
    for k in (2, 3, 7):
        rr = dict(bad, randomizer="k-ary RR", k=k)
        assert G.common_budget_margin(**rr) >= 0 and G.common_budget_exact(**rr) >= 1 - 1e-12
    assert G.pair_inputs(1.0, 0.25) == (0.75, 1.0) and G.pair_inputs(0.0, 0.25) == (0.0, 0.25)


def test_eq14_reverification_agrees_with_the_margin():
    """eq14_ratio_confirm (multinomial law, bivariate normal CDF) and eq14_ratio_margin (clt's lattice law and
    quadrature) are two code paths: they agree on which points violate."""
    from gspa.studies.gspa import margins as G

    for pt in [(0.01, 0.0, 300), (0.5, 0.0, 100), (3.0, 0.2, 30), (10.0, 0.0, 10)]:
        assert (G.eq14_ratio_margin(*pt) < 0) == G.eq14_ratio_confirm(*pt)
