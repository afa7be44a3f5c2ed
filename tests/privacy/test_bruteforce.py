"""Ground truth: the accountant's delta(eps) against exhaustive enumeration of the real shuffled
protocols (every differing user, every data set of the others, every pair of inputs). These tests
are what the word "certified" rests on: a computed bound below ``truth - error`` fails them."""

import numpy as np
import pytest

from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.basics.mechanisms import krr_delta

EXTREME = [0.0, 1e-9, 0.01, 0.3, 1.0, 2.0, 5.0, 36.7, 50.0]


def _budgets(seed, n):
    rng = np.random.default_rng(seed)
    kind = seed % 3
    if kind == 0:
        return rng.uniform(0.01, 2.0, size=n)
    if kind == 1:
        return rng.choice(EXTREME, size=n)
    return np.round(rng.exponential(1.0, size=n), 2)


def _grid(eps):
    top = float(np.max(eps[np.isfinite(eps)])) + 2.0
    return np.unique(np.concatenate([np.linspace(0, min(top, 6.0), 25), [top, 0.5 * top]]))


def _check(pair, truth, err, grid):
    ours = np.asarray(pair.delta(grid))
    bad = ours < truth - err
    assert not bad.any(), (
        f"certified delta below the enumerated truth at eps = {grid[bad]}: "
        f"ours {ours[bad]}, truth {truth[bad]} ± {err[bad]}"
    )


@pytest.mark.parametrize("variant", PROF.VARIANTS)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [2, 3, 5])
def test_binary_rr_bound_holds(variant, seed, n):
    eps = _budgets(seed, n)
    grid = _grid(eps)
    truth, err = BF.shuffled_profile("binary-rr", eps, grid)
    _check(A.personalized_pair(eps, None, variant, reduction="clones"), truth, err, grid)


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("variant", PROF.VARIANTS)
@pytest.mark.parametrize("seed", range(4))
def test_k_rr_bound_holds(k, variant, seed):
    eps = _budgets(seed, 4)
    grid = _grid(eps)
    truth, err = BF.shuffled_profile("k-rr", eps, grid, k=k)
    _check(A.personalized_pair(eps, None, variant, randomizer="k-rr", k=k), truth, err, grid)


def test_the_binary_pair_is_caught_below_the_truth_of_4_ary_rr():
    """The review's finding, kept as a check that the ground truth has teeth: the binary clone
    probability 1/(1 + e^eps_i) applied to 4-ary randomized response with personalized budgets."""
    eps = np.array([2.0, 0.1, 0.1, 0.1])
    grid = _grid(eps)
    truth, err = BF.shuffled_profile("k-rr", eps, grid, k=4)
    wrong = np.asarray(A.personalized_pair(eps, None, "randomized", reduction="clones").delta(grid))
    assert np.any(wrong < truth - err)


@pytest.mark.parametrize("variant", PROF.VARIANTS)
@pytest.mark.parametrize("seed", range(5))
def test_quaternary_bound_holds_and_never_drops_below_max_delta(variant, seed):
    rng = np.random.default_rng(100 + seed)
    n = 4
    eps = _budgets(seed, n)
    delta = rng.choice([0.0, 1e-6, 1e-3, 0.05, 0.2], size=n)
    grid = _grid(eps)
    truth, err = BF.shuffled_profile("quaternary", eps, grid, delta=delta)
    pair = A.personalized_pair(eps, delta, variant, randomizer="quaternary", reduction="clones")
    _check(pair, truth, err, grid)
    assert np.all(np.asarray(pair.delta(np.append(grid, [100.0, 1e6]))) >= delta.max())
    assert np.all(
        truth >= delta.max() - err
    )  # the enumeration agrees: the delta event is never hidden


@pytest.mark.parametrize("variant", PROF.VARIANTS)
def test_delta_event_cannot_hide_among_the_clones(variant):
    eps = np.full(1000, 0.5)
    pair = A.personalized_pair(
        eps, np.full(1000, 1e-5), variant, randomizer="quaternary", reduction="clones"
    )
    assert pair.epsilon(1e-6) == np.inf
    assert np.all(np.asarray(pair.delta([0.0, 1.0, 5.0, 50.0])) >= 1e-5)


@pytest.mark.parametrize("randomizer, k", [("binary-rr", None), ("k-rr", 3), ("k-rr", 4)])
@pytest.mark.parametrize("eps0, n", [(0.5, 5), (1.5, 4), (3.0, 4), (8.0, 3)])
def test_fmt21_pair_holds_for_these_eps0_ldp_randomizers(randomizer, k, eps0, n):
    grid = _grid(np.array([eps0]))
    truth, err = BF.shuffled_profile(randomizer, np.full(n, eps0), grid, k=k)
    _check(PAIRS.fmt21_pair(eps0, n), truth, err, grid)
    _check(PAIRS.fmt23_pair(eps0, n), truth, err, grid)


def test_enumeration_matches_closed_forms():
    grid = np.linspace(0, 3, 13)
    # two users who both (nearly) reveal their inputs: the histograms differ, delta = 1
    truth, err = BF.shuffled_profile("k-rr", [700.0, 700.0], grid, k=3)
    assert np.allclose(truth, 1.0, atol=1e-12)
    # the shuffled output is a post-processing of the differing user's report: never less private
    # than the most liberal user's local randomizer, and strictly more private here
    eps = np.array([1.2, 0.4, 0.8])
    truth, err = BF.shuffled_profile("k-rr", eps, grid, k=3)
    local = krr_delta(grid, eps.max(), 3)
    assert np.all(truth <= local + err) and truth[0] < local[0]
    # a histogram law sums to one
    law = BF.histogram_law([BF.krr_row(0.7, 3, x) for x in (0, 1, 2, 2)])
    assert law.sum() == pytest.approx(1.0, abs=1e-14) and np.all(law >= 0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: A.personalized_pair([0.5, 1.0], None, randomizer="gaussian"), "randomizer"),
        (lambda: A.personalized_pair([0.5, 1.0], None, randomizer="k-rr"), "alphabet size k"),
        (lambda: A.personalized_pair([0.5, 1.0], None, randomizer="k-rr", k=1), "k must be"),
        (lambda: A.personalized_pair([0.5, 1.0], None, k=3, reduction="clones"), "only used with"),
        (lambda: A.personalized_pair([0.5, 1.0], [0.0, 1e-5], reduction="clones"), "quaternary"),
        (lambda: BF.shuffled_profile("laplace", [1.0, 1.0], [0.0]), "randomizer"),
        (lambda: BF.shuffled_profile("k-rr", np.ones(9), [0.0], k=2), "2 to 6 users"),
    ],
)
def test_refusals(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize("seed", range(6))
def test_lower_bound_never_exceeds_the_truth_and_is_close_to_it(seed):
    eps = _budgets(seed, 4)
    grid = _grid(eps)
    truth, err = BF.shuffled_profile("binary-rr", eps, grid)
    low = np.asarray(LB.lower_bound(eps).delta(grid))
    assert np.all(low <= truth + err)
    assert np.all(
        low <= np.asarray(A.personalized_pair(eps, reduction="clones").delta(grid)) + 1e-15
    )
    big = (
        truth > 1e-6
    )  # the explicit data sets come within 10% of the worst case on these instances
    assert np.all(low[big] >= 0.9 * truth[big])


def test_lower_and_upper_bounds_sandwich_at_scale():
    eps = np.random.default_rng(3).uniform(0.01, 2.0, size=20_000)
    lo, up = (
        LB.lower_bound(eps).epsilon(1e-6),
        A.personalized_pair(eps, reduction="clones").epsilon(1e-6),
    )
    assert 0 < lo <= up <= 1.3 * lo


def test_theorem1_pair_as_printed_is_dominated_by_the_accountant_only_when_delta_is_zero():
    eps = np.array([1.0, 0.3, 0.6, 0.2])
    grid = _grid(eps)
    printed, err = BF.theorem1_pair_profile(eps, np.zeros(4), grid)
    ours = np.asarray(A.personalized_pair(eps, reduction="clones").delta(grid))
    assert np.all(
        ours >= printed - err
    )  # (the accountant's single pair covers every differing user)
    # with delta > 0 the shared slot hides the revealing event: below the real protocol
    d = np.full(4, 0.05)
    printed, err = BF.theorem1_pair_profile(eps, d, grid)
    truth, terr = BF.shuffled_profile("quaternary", eps, grid, delta=d)
    assert np.any(printed + err < truth - terr)


@pytest.mark.parametrize(
    "eps", [[0.5, 0.5, 1.0], [1.0, 1.0, 1.0], [0.3, 2.0, 2.0], [1.5, 0.2, 0.2]]
)
@pytest.mark.parametrize("variant", PROF.VARIANTS)
def test_laplace_bound_holds_above_the_binned_protocol(eps, variant):
    eps = np.array(eps)
    grid = _grid(eps)
    binned, err = BF.shuffled_profile("laplace-binned", eps, grid)
    _check(A.personalized_pair(eps, None, variant, randomizer="laplace"), binned, err, grid)


def test_fmt21_at_max_budget_is_not_a_bound_for_user_tied_laplace():
    """The review's finding kept as a check: FMT21's clones at eps0 = max eps_i, applied to user-tied
    Laplace budgets (one user at 0.1 among 9,999 at 1), fall far below an exact lower bound on the
    real protocol's delta (the event {largest shuffled report > t}); the group-wise Laplace bound
    stays above it."""
    from gspa.studies.gspa.estimation import laplace_max_event

    n = 10_000
    eps = np.full(n, 1.0)
    eps[0] = 0.1
    low, _ = laplace_max_event(eps, np.zeros(n), 0, 0.0, 1.0, 0.05, np.linspace(0, 400, 2001))
    assert PAIRS.fmt21_pair(1.0, n).delta(0.05) < low / 100
    assert A.personalized_pair(eps, None, randomizer="laplace").delta(0.05) >= low


@pytest.mark.parametrize(
    "values, counts", [([1.0, 0.3], [2, 3]), ([0.5, 2.0, 1.2], [1, 2, 3]), ([0.8], [6])]
)
def test_histogram_lower_bound_never_exceeds_the_truth(values, counts):
    """lower_bound(values, counts=...) (data sets chosen per budget group) against enumeration of the
    protocol with the expanded budget vector."""
    eps = np.repeat(values, counts)
    grid = _grid(eps)
    truth, err = BF.shuffled_profile("binary-rr", eps, grid)
    low = np.asarray(LB.lower_bound(np.array(values), counts=np.array(counts)).delta(grid))
    assert np.all(low <= truth + err)
    big = truth > 1e-6
    assert np.all(low[big] >= 0.9 * truth[big])


def test_histogram_lower_bound_matches_the_vector_form_and_scales():
    values, counts = np.array([0.3, 1.0, 2.0]), np.array([4000, 3000, 3000])
    vec = LB.lower_bound(np.repeat(values, counts)).epsilon(1e-6)
    hist = LB.lower_bound(values, counts=counts).epsilon(1e-6)
    assert hist == pytest.approx(vec, rel=2e-2)  # "others all 0" is the same pair in both forms
    big = LB.lower_bound(np.array([0.5, 1.0]), counts=np.array([10**9 // 2, 10**9 // 2])).epsilon(
        1e-9
    )
    up = A.personalized_pair(
        np.array([0.5, 1.0]), counts=np.array([10**9 // 2, 10**9 // 2]), reduction="clones"
    ).epsilon(1e-9)
    assert 0 < big <= up <= 1.3 * big


def test_bracket_check_margins_have_the_sign_of_the_truth():
    """A valid bracket has both margins >= 0; swapping upper and lower makes both negative."""
    eps, delta = np.array([0.3, 1.2, 2.5]), np.array([0.05, 0.0, 0.2])
    grid = np.linspace(0.0, 2.5, 11)
    up = A.personalized_pair(eps, delta, randomizer="quaternary", reduction="cells")
    lo = LB.lower_bound(eps, "quaternary", delta=delta)
    ok = BF.bracket_check(up, lo, "quaternary", eps, grid, delta=delta)
    assert ok["upper_margin"] >= 0 and ok["lower_margin"] >= 0 and ok["max_truth"] > 0.2
    bad = BF.bracket_check(lo, up, "quaternary", eps, grid, delta=delta)
    assert bad["upper_margin"] < 0 and bad["lower_margin"] < 0


class _Fixed:
    """A stand-in bound: the same delta at every eps."""

    def __init__(self, value):
        self.value = value

    def delta(self, eps):
        return np.full(np.shape(eps), self.value)


@pytest.mark.parametrize("check", ["bracket", "compare"])
def test_checks_refuse_a_grid_where_the_counted_round_off_is_infinite(check):
    """Above MAX_CHECK_EPS the round-off credited to the bound is inf, so a lower bound of 1 (above the truth
    everywhere) would show a margin of +inf: refused instead."""
    eps = np.array([2.0, 0.4])
    for grid in (np.array([0.5, BF.MAX_CHECK_EPS + 100.0]), np.array([0.5, np.inf])):
        with pytest.raises(ValueError, match="eps_grid"):
            if check == "bracket":
                BF.bracket_check(_Fixed(1.0), _Fixed(1.0), "binary-rr", eps, grid)
            else:
                BF.compare_with_truth(_Fixed(1.0), "binary-rr", eps, grid)
    ok = BF.bracket_check(
        _Fixed(1.0), _Fixed(1.0), "binary-rr", eps, np.array([0.5, BF.MAX_CHECK_EPS])
    )
    assert ok["lower_margin"] < 0 <= ok["upper_margin"]


def test_checks_refuse_a_bound_that_returns_nan():
    eps, grid = np.array([1.0, 0.5]), np.array([0.0, 0.5])
    with pytest.raises(ValueError, match="lower.delta returned NaN"):
        BF.bracket_check(_Fixed(1.0), _Fixed(np.nan), "binary-rr", eps, grid)
    with pytest.raises(ValueError, match="bound.delta returned NaN"):
        BF.compare_with_truth(_Fixed(np.nan), "binary-rr", eps, grid)


def test_revealing_enumeration_of_two_users_matches_the_hand_computation():
    """Two users of binary RR, the differing one reports its input in the clear. With the other user j
    on budget e_j (flip t_j = 1/(1 + e^e_j)) holding 0, the count of 1s is x + B(t_j): under x = 0 it is 0
    with probability 1 - t_j, which x = 1 never gives, and the rest is dominated by it, so delta(eps) =
    1 - t_j at every eps; the worst differing user leaves the other with the larger budget:
    delta(eps) = e^e_max / (1 + e^e_max) whatever eps."""
    grid = np.linspace(0.0, 8.0, 17)
    for eps in ([0.3, 1.4], [2.0, 0.05], [0.7, 0.7]):
        truth, err = BF.shuffled_profile("binary-rr", eps, grid, variant="revealing")
        want = np.exp(max(eps)) / (1.0 + np.exp(max(eps)))
        assert np.all(np.abs(truth - want) <= err + 1e-15), (truth, want)
    # three users: the differing user reveals, the others hold (x1, x2); the worst is both at the same bit
    # (their count then hides the least): delta(0) = P(count 0 | x = 0) + ... is checked against a direct sum
    eps = np.array([0.4, 1.1, 0.2])
    truth, _ = BF.shuffled_profile("binary-rr", eps, [0.0], variant="revealing")
    best = 0.0
    for j in range(3):
        o = [i for i in range(3) if i != j]
        for xs in [(0, 0), (0, 1), (1, 1), (1, 0)]:
            t = [1 / (1 + np.exp(eps[i])) for i in o]
            s = [
                np.array([1 - ti, ti]) if x == 0 else np.array([ti, 1 - ti]) for ti, x in zip(t, xs)
            ]
            law = np.convolve(s[0], s[1])  # others' count of 1s: 0, 1, 2
            P, Q = np.append(law, 0.0), np.insert(law, 0, 0.0)  # + the clear input 0, resp. 1
            best = max(best, np.maximum(P - Q, 0).sum())
    assert truth[0] == pytest.approx(best, abs=1e-14)


@pytest.mark.parametrize(
    "randomizer, k, delta",
    [
        ("binary-rr", None, None),
        ("k-rr", 3, None),
        ("quaternary", None, [0.0, 0.1, 0.02]),
        ("laplace-binned", None, None),
        ("disjoint-rr", None, None),
    ],
)
def test_revealing_protocol_is_never_more_private_than_the_randomized_one(randomizer, k, delta):
    """The randomized report is a post-processing of the input in the clear (apply the randomizer)."""
    eps, grid = np.array([0.9, 0.2, 1.6]), np.linspace(0.0, 4.0, 9)
    rand, err = BF.shuffled_profile(randomizer, eps, grid, delta=delta, k=k)
    rev, _ = BF.shuffled_profile(randomizer, eps, grid, delta=delta, k=k, variant="revealing")
    assert np.all(rev >= rand - 2 * err) and np.any(rev > rand + 0.05)


def test_disjoint_outputs_give_the_most_liberal_users_local_profile():
    """Reports on symbols of their own name their users: the shuffle is the product of the local
    randomizers, and delta(eps) is binary RR's local profile at the largest budget (closed form)."""
    eps, grid = np.array([0.5, 1.7, 1.0]), np.linspace(0.0, 3.0, 13)
    truth, err = BF.shuffled_profile("disjoint-rr", eps, grid)
    assert np.all(np.abs(truth - krr_delta(grid, 1.7, 2)) <= err + 1e-15)
    rev, err = BF.shuffled_profile("disjoint-rr", eps, grid, variant="revealing")
    assert np.all(np.abs(rev - 1.0) <= err)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: BF.shuffled_profile("binary-rr", [1.0, 1.0], [0.0], variant="clear"), "variant"),
        (lambda: BF.shuffled_profile("disjoint-rr", np.ones(5), [0.0]), "2 to 4 users"),
        (
            lambda: BF.compare_with_truth(
                _Fixed(1.0), "binary-rr", [1.0, 1.0], [0.0], variant=None
            ),
            "variant",
        ),
        (
            lambda: BF.bracket_check(
                _Fixed(1.0), _Fixed(0.0), "binary-rr", [1.0, 1.0], [0.0], rounds=4
            ),
            "rounds",
        ),
    ],
)
def test_variant_and_rounds_are_checked(call, name):
    with pytest.raises(ValueError, match=name):
        call()
