"""The contract of every certified combination, in the style of dp_accounting's PrivacyAccountantTest: one
set of tests that each (randomizer, variant, reduction, rounds) the book's API page calls certified runs.

For each combination (:data:`CERTIFIED`):

* the certified upper bound is >= the exact delta(eps) of the protocol the combination claims to cover,
  enumerated (``gspa.privacy.exact.enumeration``: every differing user, every data set of the others, every pair of
  inputs), over a grid of eps and for 1 and 2 rounds, the enumeration's counted round-off in the bound's favour;
  the revealing variant of binary RR and of the quaternary randomizer against the *revealing* protocol (the
  differing user reports its input in the clear), which is what the API page says it covers;
* the certified lower bound (where there is one) is <= that exact delta;
* delta(eps) is non-increasing in eps, in [0, 1] and never below max delta_i;
* budgets given as a histogram (``counts=``) give the numbers of the repeated per-user budgets;
* what is not covered is refused with a ValueError.

What each combination is checked against (``truth``): binary and k-ary RR and the quaternary randomizer are
enumerated as they are; ``"laplace"`` against the binned protocol (binning is a post-processing: a lower
bound on the continuous protocol, so a necessary condition only, run here over every budget set and two
rounds; its lower bound, which counts reports in a window and with one budget bins more finely, against the
continuous protocol's certified upper end; the continuous protocol itself, its delta bracketed by ``gspa.privacy.exact.laplace_profile``, is held
to the bound in tests/privacy/test_laplace_continuous.py, where Laplace's certificate lives); ``"any-ldp"`` against
``"disjoint-rr"``, the member of its class whose reports name their users (there the bound is exact).
k-ary RR's and Laplace's revealing pairs are the randomized protocol's pairs with the differing user's
*clone-type component* revealed, which for them is not its input in the clear (k-ary RR's revealing pair is
below the clear protocol: :func:`test_kary_revealing_pair_does_not_cover_the_clear_protocol`), so they are
checked against the randomized protocol ("weaker but valid", the accountant's docstring).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gspa.privacy import randomizers
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from gspa.privacy.exact import enumeration as BF


@dataclass(frozen=True)
class Case:
    """One certified combination and the enumerated protocol it is held to."""

    randomizer: str
    variant: str
    reduction: str
    truth: str  # the bruteforce randomizer
    truth_variant: str  # the bruteforce variant (which protocol)
    k: int | None = None
    local_delta: bool = False  # quaternary: per-user delta_i
    has_lower: bool = False  # gspa.lower_bound covers this randomizer and variant

    @property
    def id(self) -> str:
        k = f"{self.k}-" if self.k else ""
        return f"{k}{self.randomizer}-{self.variant}-{self.reduction}"

    def budgets(self, seed: int, n: int = 3):
        """Budgets (and delta_i) of ``n`` users: seed 0 spread, 1 extreme, 2 one common budget."""
        rng = np.random.default_rng(seed)
        eps = [
            rng.uniform(0.01, 2.0, n),
            rng.choice([0.0, 0.01, 0.5, 2.0, 4.0], n),
            np.full(n, 1.0),
        ][seed % 3]
        delta = rng.choice([0.0, 1e-3, 0.05, 0.2], n) if self.local_delta else None
        return eps, delta

    def upper(self, eps, delta, rounds: int = 1, counts=None):
        return A.personalized_pair(
            eps,
            delta,
            self.variant,
            randomizer=self.randomizer,
            k=self.k,
            reduction=self.reduction,
            rounds=rounds,
            counts=counts,
        )

    def lower(self, eps, delta, counts=None):
        rnd = "laplace" if self.randomizer == "laplace" else self.randomizer
        kw = {"k": self.k} if self.k else {}
        if self.local_delta:
            kw["delta"] = delta
        return LB.lower_bound(eps, rnd, counts=counts, variant=self.variant, **kw)

    def exact(self, eps, delta, grid, rounds: int = 1):
        return BF.shuffled_profile(
            self.truth, eps, grid, delta=delta, k=self.k, rounds=rounds, variant=self.truth_variant
        )


def _cases():
    """Every (randomizer, variant, reduction) the declarations of gspa.privacy.randomizers call certified, held
    to the enumerated protocol its declaration names (k-ary RR at k = 3 and 4)."""
    out = []
    for spec in randomizers.RANDOMIZERS:
        for k in (3, 4) if spec.needs_k else (None,):
            for variant in randomizers.VARIANT_NAMES:
                for red in spec.reductions:
                    out.append(
                        Case(
                            spec.name,
                            variant,
                            red,
                            spec.truth,
                            spec.truth_variant(variant),
                            k=k,
                            local_delta=spec.local_delta,
                            has_lower=variant in spec.lower,
                        )
                    )
    return out


CERTIFIED = _cases()
IDS = [c.id for c in CERTIFIED]
CHEAP = [
    c for c in CERTIFIED if c.randomizer in ("binary-rr", "quaternary")
]  # enumeration in milliseconds


def _grid(eps):
    top = float(np.max(eps)) + 2.0
    return np.unique(np.concatenate([np.linspace(0.0, min(top, 6.0), 13), [0.5 * top, top]]))


def _upper_holds(case, eps, delta, grid, rounds=1):
    truth, err = case.exact(eps, delta, grid, rounds)
    up = np.asarray(case.upper(eps, delta, rounds).delta(grid), dtype=float)
    bad = up < truth - err
    assert not bad.any(), (
        f"{case.id}, {rounds} round(s), budgets {eps}, delta_i {delta}: certified delta below the "
        f"exact protocol at eps = {grid[bad]}: {up[bad]} < {truth[bad]} ± {err[bad]}"
    )
    return truth


# -- the certified upper bound against the exact protocol ----------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("case", CERTIFIED, ids=IDS)
def test_upper_bound_is_above_the_exact_protocol(case, seed):
    eps, delta = case.budgets(seed)
    truth = _upper_holds(case, eps, delta, _grid(eps))
    assert (
        truth.max() > 0.05
    )  # the enumerated protocol leaks: the check has something to hold against


@pytest.mark.parametrize("case", CERTIFIED, ids=IDS)
def test_two_rounds_are_above_the_exact_composed_protocol(case):
    eps, delta = case.budgets(0)
    _upper_holds(case, eps, delta, np.linspace(0.0, 2.0 * float(eps.max()) + 1.0, 9), rounds=2)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    st.lists(st.sampled_from([0.0, 0.05, 0.3, 0.7, 1.1, 1.6, 2.5, 4.0]), min_size=2, max_size=4),
    st.sampled_from(range(len(CHEAP))),
)
def test_upper_bound_holds_for_drawn_budgets(eps, which):
    """Budgets drawn by Hypothesis (2 to 4 users, repeated and distinct values, 0 included) for the
    combinations whose enumeration takes milliseconds."""
    case = CHEAP[which]
    eps = np.array(eps)
    delta = np.resize([0.0, 0.05, 0.2, 1e-3], eps.size) if case.local_delta else None
    _upper_holds(case, eps, delta, _grid(eps))


# -- the certified lower bound ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "case", [c for c in CERTIFIED if c.has_lower], ids=[c.id for c in CERTIFIED if c.has_lower]
)
def test_lower_bound_is_below_the_exact_protocol(case, seed):
    eps, delta = case.budgets(seed)
    grid = _grid(eps)
    if case.randomizer == "laplace":
        # the lower bound also counts reports in a window (and with one budget bins them finely,
        # LaplaceLatticeLower), beyond the enumerated protocol's few bins, so it is held to the continuous
        # protocol's certified upper end instead
        _, high = BF.laplace_profile(eps, grid, (0.0, 1.0), inner=0.02, outer=1.0, reach=1.0)
        low = np.asarray(case.lower(eps, delta).delta(grid))
        assert np.all(low <= high) and low.max() > 0.1, (grid, low, high)
        return
    m = BF.bracket_check(
        case.upper(eps, delta),
        case.lower(eps, delta),
        case.truth,
        eps,
        grid,
        delta=delta,
        k=case.k,
        variant=case.truth_variant,
    )
    assert m["lower_margin"] >= 0 and m["upper_margin"] >= 0, m
    # and close to it: its data sets are the worst ones
    if case.randomizer in ("binary-rr", "k-rr"):
        truth, _ = case.exact(eps, delta, grid)
        low = np.asarray(case.lower(eps, delta).delta(grid))
        big = truth > 1e-6
        assert np.all(low[big] >= (0.9 if case.k is None else 0.85) * truth[big]), (
            low[big],
            truth[big],
        )


@pytest.mark.parametrize("eps0", [1.0, 4.0, 8.0])
def test_kary_lower_bound_meets_the_upper_bound_at_every_budget(eps0):
    """k-ary RR, 10^4 users: the lower bound's data sets are the worst simple ones at small and at large
    budgets (at eps0 = 8 the others holding a third symbol give eps(1e-6) 7.7299, the others on the
    differing user's first symbol 7.99918)."""
    eps = np.full(10**4, eps0)
    up = A.personalized_pair(eps, randomizer="k-rr", k=3).epsilon(1e-6)
    assert up / LB.lower_bound(eps, "k-rr", k=3).epsilon(1e-6) <= 1.001


# -- monotone, in range, above the floor ---------------------------------------------------------------------

MONO_GRID = np.array([0.0, 1e-6, 0.01, 0.1, 0.3, 0.6, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 40.0, 800.0])


@pytest.mark.parametrize("rounds", [1, 2])
@pytest.mark.parametrize("case", CERTIFIED, ids=IDS)
def test_delta_is_non_increasing_in_eps(case, rounds):
    eps, delta = case.budgets(1, 40)
    up = np.asarray(case.upper(eps, delta, rounds).delta(MONO_GRID), dtype=float)
    assert np.all((0.0 <= up) & (up <= 1.0)) and np.all(np.diff(up) <= 1e-15), up
    assert np.all(up >= (0.0 if delta is None else delta.max()))
    if case.has_lower and rounds == 1:
        lo = np.asarray(case.lower(eps, delta).delta(MONO_GRID), dtype=float)
        assert np.all(np.diff(lo) <= 1e-15) and np.all(lo <= up), (lo, up)


DELTA_GRID = np.array([1e-15, 1e-12, 1e-9, 1e-6, 1e-3, 0.05, 0.3])


@pytest.mark.parametrize("rounds", [1, 2])
@pytest.mark.parametrize("case", CERTIFIED, ids=IDS)
def test_epsilon_is_non_increasing_in_delta(case, rounds):
    """eps(delta) never grows with delta (budgets [0.5, 3]: composed clone pairs once gave
    eps(1e-15) < eps(1e-9), each within the root-finder's tolerance of the root)."""
    eps = np.array([0.5, 3.0])
    delta = np.array([1e-4, 1e-3]) if case.local_delta else None
    pair = case.upper(eps, delta, rounds)
    up = [pair.epsilon(d) for d in DELTA_GRID]
    falls = lambda xs: all(a >= b for a, b in zip(xs, xs[1:]))  # inf >= inf
    assert all(type(e) is float for e in up) and falls(up), up
    if case.has_lower and rounds == 1:
        lo = [case.lower(eps, delta).epsilon(d) for d in DELTA_GRID]
        assert falls(lo) and all(a <= b for a, b in zip(lo, up)), (lo, up)


@pytest.mark.parametrize(
    "variant, reduction", [("randomized", None), ("randomized", "cells"), ("randomized", "clones")]
)
def test_quaternary_epsilon_is_finite_at_the_largest_local_delta(variant, reduction):
    """At delta = max delta_i the protocol's eps is the largest budget (every report is then max-eps_i-LDP
    but for the reveal); the bound's floor there is delta_n exactly, not delta_n plus round-off."""
    pair = A.personalized_pair(
        [1.0, 1.0], [1e-3, 1e-3], variant, randomizer="quaternary", reduction=reduction
    )
    assert pair.delta(1.5) == 1e-3 and 0.99 < pair.epsilon(1e-3) <= 1.0


# -- histograms ---------------------------------------------------------------------------------------------


@settings(max_examples=6, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(st.floats(0.0, 3.0, allow_subnormal=False), st.integers(1, 30)),
        min_size=1,
        max_size=4,
        unique_by=lambda t: t[0],
    ),
    st.sampled_from(range(len(CERTIFIED))),
)
def test_histogram_equals_repeated_budgets(groups, which):
    case = CERTIFIED[which]
    values, counts = np.array([v for v, _ in groups]), np.array([c for _, c in groups])
    if counts.sum() < 2:
        counts[0] += 1
    delta = np.resize([1e-4, 0.0, 0.02], values.size) if case.local_delta else None
    hist = case.upper(values, delta, counts=counts)
    rep = case.upper(np.repeat(values, counts), None if delta is None else np.repeat(delta, counts))
    grid = np.array([0.0, 0.2, 0.7, 1.5])
    assert np.allclose(hist.delta(grid), rep.delta(grid), rtol=1e-12, atol=1e-300), case.id
    if case.has_lower:
        lo_h = case.lower(values, delta, counts=counts).delta(grid)
        lo_r = case.lower(
            np.repeat(values, counts), None if delta is None else np.repeat(delta, counts)
        ).delta(grid)
        assert np.all(
            np.asarray(lo_h) <= np.asarray(rep.delta(grid))
        )  # another explicit data set: still below
        assert np.all(np.asarray(lo_r) <= np.asarray(hist.delta(grid)))


@pytest.mark.parametrize("case", CERTIFIED, ids=IDS)
def test_histogram_equals_repeated_budgets_over_two_rounds(case):
    values, counts = np.array([0.4, 1.3]), np.array([3, 5])
    delta = np.array([1e-3, 0.01]) if case.local_delta else None
    hist = case.upper(values, delta, rounds=2, counts=counts)
    rep = case.upper(
        np.repeat(values, counts), None if delta is None else np.repeat(delta, counts), rounds=2
    )
    grid = np.array([0.1, 0.8, 2.0])
    assert np.allclose(hist.delta(grid), rep.delta(grid), rtol=1e-9, atol=1e-300)


# -- what is not covered ------------------------------------------------------------------------------------

EPS2 = np.array([0.5, 1.0])


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: A.personalized_pair(EPS2, randomizer="gaussian"), "randomizer"),
        (
            lambda: A.personalized_pair(EPS2, randomizer="laplace", reduction="cells"),
            "reduction 'cells'",
        ),
        (
            lambda: A.personalized_pair(EPS2, randomizer="k-rr", k=3, reduction="cells"),
            "reduction 'cells'",
        ),
        (
            lambda: A.personalized_pair(EPS2, randomizer="any-ldp", reduction="cells"),
            "reduction 'cells'",
        ),
        (lambda: A.personalized_pair(EPS2, [0.0, 1e-5], reduction="clones"), "quaternary"),
        (lambda: A.personalized_pair(EPS2, [0.0, 1e-5], reduction="cells"), "quaternary"),
        (lambda: A.personalized_pair(EPS2, [0.0, 1e-5], randomizer="k-rr", k=3), "quaternary"),
        (lambda: A.personalized_pair(EPS2, [0.0, 1e-5], randomizer="laplace"), "quaternary"),
        (lambda: A.personalized_pair(EPS2, [0.0, 1e-5], randomizer="any-ldp"), "quaternary"),
        (lambda: A.personalized_pair(EPS2, randomizer="k-rr"), "alphabet size k"),
        (lambda: A.personalized_pair(EPS2, k=3, reduction="clones"), "only used with"),
        (lambda: A.personalized_pair(EPS2, None, "adaptive", reduction="clones"), "variant"),
        (lambda: A.personalized_pair(EPS2, None, "adaptive", reduction="cells"), "variant"),
        (lambda: A.personalized_pair(EPS2, reduction="fft"), "reduction"),
        (lambda: A.personalized_pair(EPS2, rounds=0, reduction="clones"), "rounds"),
        (lambda: A.personalized_pair([1.0], None, reduction="clones"), "at least 2"),
        (lambda: A.personalized_pair([1.0, -0.1], None, reduction="clones"), "eps"),
        (lambda: A.personalized_pair([1.0, np.nan], None, reduction="clones"), "eps"),
        (lambda: A.personalized_pair(EPS2, counts=[1, 0], reduction="clones"), "counts"),
        (lambda: LB.lower_bound(EPS2, "k-rr", k=3, variant="revealing"), "revealing"),
        (lambda: LB.lower_bound(EPS2, "quaternary", delta=0.01, variant="revealing"), "revealing"),
        (lambda: LB.lower_bound(EPS2, "laplace", variant="revealing"), "revealing"),
        (lambda: LB.lower_bound(EPS2, "any-ldp"), "randomizer"),
        (lambda: LB.lower_bound(EPS2, delta=0.01), "delta"),
    ],
)
def test_what_is_not_covered_is_refused(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_kary_revealing_pair_does_not_cover_the_clear_protocol():
    """k-ary RR's revealing pair reveals the differing user's clone-type component (with lambda = 1: its
    input w.p. (1 + e^eps)/(e^eps + k - 1), else one of the k - 2 other symbols), not its input in the clear:
    against the protocol where that user reports its input in the clear it falls below the truth. Kept as a
    record that "revealing" means "the input in the clear" for binary RR and the quaternary randomizer only."""
    eps, grid = np.array([1.2, 0.4, 0.9]), np.linspace(0.0, 3.0, 13)
    pair = A.personalized_pair(eps, None, "revealing", randomizer="k-rr", k=3)
    clear = BF.compare_with_truth(pair, "k-rr", eps, grid, k=3, variant="revealing")
    randomized = BF.compare_with_truth(pair, "k-rr", eps, grid, k=3)
    assert clear["deficit"] > 0.01 and randomized["deficit"] <= 0


def test_every_declared_randomizer_has_one_pair_and_is_offered_by_the_command_line():
    from gspa.cli.account import parser

    assert set(A._PAIRS) == set(randomizers.NAMES)
    choices = next(a.choices for a in parser()._actions if a.dest == "randomizer")
    assert tuple(choices) == randomizers.NAMES


def test_a_histogram_too_wide_for_memory_is_refused_by_name():
    """10^12 users over 1,000 budgets: each group's law would be kept on a support about sqrt(10^9) wide (about
    10 GB in all), so it is refused at once, naming counts; a histogram just inside the limit passes the check."""
    from gspa.privacy.profiles import HISTOGRAM_SPREAD_MAX, check_histogram

    values = np.linspace(0.1, 2.0, 1000)
    for call in (
        lambda c: A.personalized_pair(values, counts=c),
        lambda c: LB.lower_bound(values, counts=c),
    ):
        with pytest.raises(
            ValueError, match=r"^counts: the sum of the square roots .* over 1000 budgets"
        ):
            call(np.full(1000, 10**9))
    inside = np.full(1000, int((HISTOGRAM_SPREAD_MAX / 1000) ** 2))
    assert check_histogram(values, None, inside)[2].sum() == inside.sum()


def test_lower_bound_keeps_its_accuracy_at_a_large_budget():
    """One user at eps = 20 among ten at 0.0239 (Figure 2's worst point): near eps = 20 the best event is
    {C <= t - 1}, whose probabilities are summed from the left, so their round-off stays relative; the
    certified bound is within 1 % of the exact delta of its explicit pair (binomials convolved independently,
    gspa.studies.gspa.domain_search.rr_exact_delta) and below it. (As 1 - P(C >= t) with e^eps times the
    complement's absolute round-off subtracted it was 1.2 % below.)"""
    from gspa.studies.gspa.domain_search import rr_exact_delta

    values, counts = np.array([20.0, 0.0239]), np.array([1, 10])
    low = LB.lower_bound(values, counts=counts)
    for e in (19.5, 19.8, 19.88):
        exact = rr_exact_delta(values, counts, e)
        assert 0.99 * exact <= float(low.delta(e)) <= exact, (e, float(low.delta(e)), exact)


def test_epsilon_of_a_composed_clone_pair_is_non_increasing_where_its_curve_stops():
    """1,000 users at 0.5, two rounds of the clone pair: below where the enumerated one-round curve stops
    (about 7e-21), the one-round eps comes from the pair itself, not inf (eps(1e-20) was inf while
    eps(1e-24) was 0.99997 and eps(1e-18) 0.289)."""
    pair = A.personalized_pair(np.full(1000, 0.5), reduction="clones", rounds=2)
    up = [pair.epsilon(d) for d in (1e-24, 3e-24, 1e-20, 1e-18, 1e-9)]
    assert all(np.isfinite(up)) and all(a >= b for a, b in zip(up, up[1:])), up


@pytest.mark.parametrize("k", [None, 3])
def test_lower_bound_above_the_largest_computed_budget_stays_below_the_protocol(k):
    """Budgets above 700 (e^eps no longer computed): two users at 702 (binary RR) or 705 (3-ary RR), whose
    protocol has delta(eps) at most 1 - e^(eps - max eps_i) near the top (the reports are all but their
    inputs); the lower bound there was 0.73 and 0.97, and its eps(1e-6) inf."""
    top = 702.0 if k is None else 705.0
    kw = {} if k is None else {"k": k}
    low = LB.lower_bound([top, top], "binary-rr" if k is None else "k-rr", **kw)
    e = top - 0.01
    assert float(low.delta(e)) <= -np.expm1(e - top) and not np.isnan(low.delta(e))
    assert low.epsilon(1e-6) <= top
    grid = np.array(
        [0.0, 1.0, 100.0, 699.0]
    )  # against the enumerated protocol where it is computed
    truth, err = BF.shuffled_profile("binary-rr" if k is None else "k-rr", [top, top], grid, **kw)
    assert np.all(np.asarray(low.delta(grid)) <= truth + err)
