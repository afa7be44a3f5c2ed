"""Theorem 1 checked against the real shuffled protocol: the Theorem 1 chapter's computations
(book/chapters/gspa/theorem1).

Theorem 1 (eqs. (12)-(13)) says the shuffled PLDP process is a post-processing of the reduced pair
(rho_0, rho_1). The chapter holds that against (1) the exact law of shuffled binary randomized
response with personalized budgets (Algorithm 2, delta_i = 0) for several data sets of the other
users, and against simulated runs of the protocol; (2) exhaustive enumeration of small shuffled
protocols (:mod:`gspa.privacy.exact.enumeration`): binary and k-ary randomized response and Lemma
4's randomizer; (3) Theorem 1's pair as printed when delta_n > 0 (the shared Delta_2 slot); and (4)
the sums of the MultiBern parameters as the two copies of the paper print them."""

from __future__ import annotations

import numpy as np
from scipy import special

from gspa.privacy.basics import hypothesis as H
from gspa.privacy.exact import enumeration as BF
from gspa.privacy.profiles import VARIANTS, check_budgets
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import protocol as PR
from gspa.privacy.shuffle.clones import clone_law
from gspa.privacy.shuffle.pairs import ReducedPair
from gspa.util import validate as V

MAX_USERS = 10**4  # users of the exact protocol laws (the trade-off curves cost n x the alpha grid)
MAX_SMALL = 6  # users of an exhaustively enumerated protocol (k-ary outputs: k^n data sets)
#: the randomizers enumerated against their certified pairs: (name, k, whether it takes deltas)
ENUMERATED = (
    ("binary-rr", None, False),
    ("k-rr", 3, False),
    ("k-rr", 4, False),
    ("quaternary", None, True),
)


def _budgets(eps) -> np.ndarray:
    eps, _ = check_budgets(eps)
    if not 2 <= eps.size <= MAX_USERS:
        raise ValueError(f"eps must hold 2 to {MAX_USERS} budgets (one per user), got {eps.size}")
    return eps


def _alpha(alpha) -> np.ndarray:
    return V.probability("alpha", alpha, ndim=1)


def own_pair(eps) -> tuple[int, ReducedPair]:
    """The differing user j (a most liberal one: the largest budget) and Theorem 1's reduced pair
    for it: eps_j against the clones of the *other* users, each a clone with probability 2/(1 +
    e^eps_i) (binary randomized response, delta_i = 0; Lemma 1's eq. (11))."""
    eps = _budgets(eps)
    j = int(np.argmax(eps))
    return j, ReducedPair(clone_law(2 * np.delete(special.expit(-eps), j)), float(eps[j]))


def others_inputs(n: int, rng) -> dict[str, np.ndarray]:
    """The data sets of the n - 1 other users the chapter holds the protocol to: all 0, all 1,
    alternating, and random bits drawn from ``rng`` (a numpy Generator)."""
    n = V.integer("n", n, low=2, high=MAX_USERS)
    return {
        "others all 0": np.zeros(n - 1, int),
        "others all 1": np.ones(n - 1, int),
        "others alternate": np.arange(n - 1) % 2,
        "others random": rng.integers(0, 2, n - 1),
    }


def _others(others) -> dict[str, np.ndarray]:
    return {
        name: V.real(f"others[{name!r}]", x, low=0.0, high=1.0).astype(int)
        for name, x in others.items()
    }


def protocol_against_pair(eps, others: dict, alpha) -> dict:
    """Theorem 1 on shuffled binary randomized response with personalized budgets ``eps`` (Algorithm
    2, delta_i = 0): for each data set of the other users in ``others`` (name -> n - 1 bits), the
    exact trade-off curve T_protocol (both directions) of the count of 1s when the most liberal
    user's bit is 0 or 1, against Theorem 1's pair for that user (:func:`own_pair`), on the
    ``alpha`` grid. ``rows``: per data set, min_alpha (T_protocol - T_reduced) and the protocol's
    total variation; ``worst_gap``: the smallest difference over the data sets, against the own pair
    and against the accountant's pair that covers every differing user
    (:func:`gspa.privacy.shuffle.accountant.personalized_pair`); >= 0 (up to round-off) where
    Theorem 1 holds."""
    eps = _budgets(eps)
    others, alpha = _others(others), _alpha(alpha)
    j, own = own_pair(eps)
    T_own, T_cover = (
        own.tradeoff(alpha),
        A.personalized_pair(eps, None, "randomized", reduction="clones").tradeoff(alpha),
    )
    rows, worst_gap = [], np.inf
    for name, x in others.items():
        P0, P1 = PR.neighbouring_laws(x, np.delete(eps, j), eps[j])
        T = np.minimum(H.tradeoff_curve(P0, P1, alpha), H.tradeoff_curve(P1, P0, alpha))
        gap = float(np.min(T - T_own))
        worst_gap = min(worst_gap, gap, float(np.min(T - T_cover)))
        row = {"min_α (T_protocol − T_reduced)": gap, "TV protocol": H.total_variation(P0, P1)}
        rows.append({"inputs of the others": name} | row)
    return {"rows": rows, "worst_gap": worst_gap, "differing": j}


def k_chances(eps) -> np.ndarray:
    """Each user's probability of reporting its own bit, i.e. of landing in the proof's set K:
    1 - 2/(1 + e^eps_i) (binary randomized response's MultiBern(q, q, 1 - 2q), q = 1/(1 + e^eps_i))."""
    return 1.0 - 2.0 * special.expit(-_budgets(eps))


def _clone_counts(q) -> np.ndarray:
    """Law of V = sum_i MultiBern(q_i, q_i, 1 - 2 q_i) (eqs. (12)-(13), delta_i = 0) as a table over (v_0,
    v_1): the number of users i reporting a 0 as a clone, and a 1 as a clone; the rest report their own
    bit. Convolved user by user."""
    m = q.size
    law = np.zeros((m + 1, m + 1))
    law[0, 0] = 1.0
    for qi in q:
        law = (1 - 2 * qi) * law + qi * (np.roll(law, 1, axis=0) + np.roll(law, 1, axis=1))
    return law


def _kept_bits(r, x) -> np.ndarray:
    """Joint law of (|K|, sum of x_i over K), K the set of users who report their own bit, each user i in
    K independently with probability r_i; a table over (k, s)."""
    m = r.size
    law = np.zeros((m + 1, m + 1))
    law[0, 0] = 1.0
    for ri, xi in zip(r, x):
        law = (1 - ri) * law + ri * np.roll(np.roll(law, 1, axis=0), int(xi), axis=1)
    return law


def proc_of_pair(eps_others, x_others, eps_j) -> tuple[np.ndarray, np.ndarray]:
    """The laws of proc(rho_0) and proc(rho_1) over the count of 1s 0..n, for Theorem 1's pair (eqs.
    (12)-(13), delta_i = 0, q_i = 1/(1 + e^eps_i)) of a differing user with budget ``eps_j`` (bit 0 on
    D_0, 1 on D_1) among users with budgets ``eps_others`` and bits ``x_others``. rho_b = (u, v, k): u
    reports 0 and v reports 1 among the clones and the differing user, k users reporting their own bit;
    proc(u, v, k) draws the set K of those k users from its law given |K| = k and outputs v plus the bits
    x_i of K. The law of rho_b is computed from V's MultiBern terms, that of K from independent draws."""
    eps_others = V.real("eps_others", eps_others, low=0.0, ndim=1)
    x = _others({"x_others": x_others})["x_others"].reshape(-1)
    eps_j = V.nonnegative("eps_j", eps_j, scalar=True)
    V.same_length(x_others=x, eps_others=eps_others)
    q, qn = special.expit(-eps_others), float(special.expit(-eps_j))
    m = q.size
    V_law, kept = _clone_counts(q), _kept_bits(1 - 2 * q, x)
    laws = []
    for own_one in (qn, 1 - qn):  # P(the differing user reports 1) on D_0, D_1
        count = np.zeros(m + 2)  # the count of 1s among the n = m + 1 reports
        for k in range(m + 1):
            if kept[k].sum() <= 0:
                continue
            v1 = np.array([V_law[m - k - i, i] for i in range(m - k + 1)])  # v_0 + v_1 = m - k
            ones = np.convolve(v1, [1 - own_one, own_one])  # v: 1s among the clones and user j
            count += np.convolve(ones, kept[k] / kept[k].sum())[: m + 2]
        laws.append(count)
    return laws[0], laws[1]


def proof_postprocessing(eps, others: dict) -> dict:
    """Theorem 1's proof for binary randomized response (delta_i = 0), checked: with q_i = 1/(1 + e^eps_i),
    R_i(x) = q_i delta_0 + q_i delta_1 + (1 - 2 q_i) delta_x (``decomposition``: the largest error of that
    identity over the users and both bits), and proc (:func:`proc_of_pair`) maps rho_b onto the exact law
    of the protocol's count of 1s on D_b (:func:`gspa.privacy.shuffle.protocol.neighbouring_laws`). The
    differing user is the most liberal one. ``rows``: per data set of the others (name -> n - 1 bits), the
    largest |proc(rho_b) - A(D_b)| over the counts and b; ``worst``: the largest of all."""
    eps = _budgets(eps)
    others = _others(others)
    j = int(np.argmax(eps))
    q_all = special.expit(-eps)
    decomposition = max(
        float(np.max(np.abs(PR.report_one_probability(np.full(eps.size, b), eps) - want)))
        for b, want in ((0, q_all), (1, 1 - q_all))  # P(report 1) = q_i + (1 - 2 q_i) x
    )
    rows = []
    for name, x in others.items():
        laws = PR.neighbouring_laws(x, np.delete(eps, j), eps[j])
        procs = proc_of_pair(np.delete(eps, j), x, eps[j])
        gap = max(float(np.max(np.abs(a - b))) for a, b in zip(procs, laws))
        rows.append({"inputs of the others": name, "max |proc(ρ_b) − A(D_b)|": gap})
    return {
        "rows": rows,
        "worst": max(r["max |proc(ρ_b) − A(D_b)|"] for r in rows),
        "decomposition": decomposition,
    }


def simulated_tests(eps, x_others, reps: int, rng, alpha) -> dict:
    """The protocol simulated (Theorem 1, Algorithm 2 shuffling and all): ``reps`` runs on each of
    the two neighbouring data sets (the others' bits ``x_others``, the most liberal user's bit 0 or
    1; draws from ``rng``), and the threshold tests on the number of 1s between its 0.1 % quantile
    under D_0 and its 99.9 % quantile under D_1 ("reject bit 0 when the count is large"). Returns
    the ``thresholds``, the tests' errors ``alpha_hat`` and ``beta_hat``, their standard errors
    ``se`` (the sum of both), the largest excursion ``excess_z`` of Theorem 1's pair's curve above
    beta_hat in standard errors, and for the figure the slack over the pair of the exact curve on
    ``alpha`` (``slack_exact``) and of the simulated tests (``slack_simulated``)."""
    eps = _budgets(eps)
    x = _others({"x_others": x_others})["x_others"]
    reps, alpha = V.integer("reps", reps, low=1, high=PR.MAX_CELLS // eps.size), _alpha(alpha)
    j, own = own_pair(eps)
    order = np.append(np.delete(eps, j), eps[j])
    c0 = PR.simulate_counts(np.append(x, 0), order, reps, rng)
    c1 = PR.simulate_counts(np.append(x, 1), order, reps, rng)
    thr = np.arange(np.quantile(c0, 0.001), np.quantile(c1, 0.999) + 1)
    alpha_hat = (c0[None, :] >= thr[:, None]).mean(axis=1)  # reject "bit 0" when the count is large
    beta_hat = (c1[None, :] < thr[:, None]).mean(axis=1)
    se = np.sqrt(beta_hat * (1 - beta_hat) / reps) + np.sqrt(alpha_hat * (1 - alpha_hat) / reps)
    excess_z = float(np.max((own.tradeoff(alpha_hat) - beta_hat) / np.maximum(se, 1e-12)))
    P0, P1 = PR.neighbouring_laws(x, np.delete(eps, j), eps[j])
    return {
        "thresholds": thr,
        "alpha_hat": alpha_hat,
        "beta_hat": beta_hat,
        "se": se,
        "excess_z": excess_z,
        "slack_exact": H.tradeoff_curve(P0, P1, alpha) - own.tradeoff(alpha),
        "slack_simulated": beta_hat - own.tradeoff(alpha_hat),
    }


def small_budgets(n_small: int = 2, seed: int = 0) -> dict[str, np.ndarray]:
    """The budgets of the chapter's enumerated protocols of ``n_small`` users, drawn from
    ``numpy.random.default_rng(seed)`` in this order: ``random`` (uniform in [0.01, 2]), then
    ``slot`` (uniform in [0.1, 1.5], for Theorem 1 with delta_n > 0); and two fixed sets, ``one
    liberal`` (2 among 0.1s) and ``extreme`` (0, 1e-9, 5 and 50, repeated)."""
    n_small = V.integer("n_small", n_small, low=2, high=MAX_SMALL)
    rng = np.random.default_rng(V.integer("seed", seed, low=0))
    random = rng.uniform(0.01, 2.0, n_small)
    return {
        "random": random,
        "one liberal": np.array([2.0] + [0.1] * (n_small - 1)),
        "extreme": np.resize(np.array([0.0, 1e-9, 5.0, 50.0]), n_small),
        "slot": rng.uniform(0.1, 1.5, n_small),
    }


def _eps_grid(eps_grid) -> np.ndarray:
    return V.real("eps_grid", eps_grid, low=0.0, high=BF.MAX_CHECK_EPS, ndim=1)


def enumeration_cases(n_small: int = 2, seed: int = 0, eps_grid=None) -> list[dict]:
    """The certified bounds of :func:`gspa.privacy.shuffle.accountant.personalized_pair` against
    exhaustive enumeration of the real shuffled protocol
    (:func:`gspa.privacy.exact.enumeration.compare_with_truth`), for the budget sets ``random``,
    ``one liberal`` and ``extreme`` of :func:`small_budgets` (``n_small`` users, ``seed``), both
    variants and each randomizer of :data:`ENUMERATED` (Lemma 4's with delta_i = 1e-3), on
    ``eps_grid`` (default: 0 to 4 in steps of 0.1); after each set, Theorem 1's pair with the binary
    clone probability of Lemma 1's eq. (11) against 4-ary randomized response (pair ``binary clone
    probability (wrong)``). One row per case: budgets, randomizer, pair, and compare_with_truth's
    deficit (> 0: not an upper bound), max_truth and median_ratio."""
    grid = np.linspace(0, 4, 41) if eps_grid is None else _eps_grid(eps_grid)
    sets = small_budgets(n_small, seed)
    cases = []
    for key in ("random", "one liberal", "extreme"):
        b = sets[key]
        d_small = np.full(b.size, 1e-3)
        label = np.array2string(b, precision=2)
        for variant in VARIANTS:
            for rz, k, local in ENUMERATED:
                dl = d_small if local else None
                bound = A.personalized_pair(b, dl, variant, randomizer=rz, k=k, reduction="clones")
                res = BF.compare_with_truth(bound, rz, b, grid, delta=dl, k=k)
                name = rz + (f" k={k}" if k else "")
                cases.append({"budgets": label, "randomizer": name, "pair": variant, **res})
        res = BF.compare_with_truth(
            A.personalized_pair(b, reduction="clones"), "k-rr", b, grid, k=4
        )
        wrong = {"randomizer": "k-rr k=4", "pair": "binary clone probability (wrong)"}
        cases.append({"budgets": label, **wrong, **res})
    return cases


def shared_slot(n_small: int = 2, seed: int = 0, eps_grid=None, delta: float = 0.05) -> dict:
    """Theorem 1 with delta_n > 0: the pair as printed (the delta event in the shared third
    coordinate; copy 000's MultiBern, :func:`gspa.privacy.exact.enumeration.theorem1_pair_profile`)
    against the enumerated protocol of Lemma 4's randomizer, every user at delta_i = ``delta``,
    budgets ``slot`` of :func:`small_budgets`, on ``eps_grid`` (default: 0 to 4 in steps of 0.1).
    Returns the profiles ``printed``, ``truth`` and ``fixed`` (the accountant's pair, which counts
    the delta event fully), ``shortfall`` (the largest amount by which the truth certainly exceeds
    the printed pair: > 0, the pair is not an upper bound) and ``fixed_deficit`` (the same for the
    accountant's pair, without the errors)."""
    grid = np.linspace(0, 4, 41) if eps_grid is None else _eps_grid(eps_grid)
    delta = V.probability("delta", delta, open_high=True, scalar=True)
    b = small_budgets(n_small, seed)["slot"]
    d = np.full(b.size, delta)
    printed, p_err = BF.theorem1_pair_profile(b, d, grid)
    truth, t_err = BF.shuffled_profile("quaternary", b, grid, delta=d)
    fixed = A.personalized_pair(
        b, d, "randomized", randomizer="quaternary", reduction="clones"
    ).delta(grid)
    return {
        "printed": printed,
        "truth": truth,
        "fixed": fixed,
        "shortfall": float(np.max((truth - t_err) - (printed + p_err))),
        "fixed_deficit": float(np.max(truth - t_err - fixed)),
    }


def multibern_sum_gaps(eps, delta: float = 1e-5) -> dict[str, float]:
    """Theorem 1's V = sum_i MultiBern(p_i, p_i, third), p_i = (1 - delta)/(1 + e^eps_i), for
    budgets ``eps``: the largest |sum of the three parameters - 1| with the third parameter as copy
    003 prints it (delta_i) and as copy 000 prints it (1 - 2 p_i). A MultiBern's parameters sum to
    1."""
    eps, _ = check_budgets(eps)
    delta = V.probability("delta", delta, open_high=True, scalar=True)
    p = (1 - delta) / (1 + np.exp(eps))
    sums = {"copy 003": 2 * p + delta, "copy 000": 2 * p + (1 - 2 * p)}
    return {c: float(np.max(np.abs(s - 1))) for c, s in sums.items()}
