"""FLAME's claims over the domains the paper states them for: one *margin* per quantified claim
(``>= 0``: the claim holds at that point, ``< 0``: it fails there, in the claim's own units), the
independent exact re-verification of a violation, and the new checks the book adds (SS-Topk's overflow as a
privacy matter, a real simulation of Definition 3's posterior, a certified upper bound on SS-Double's
Figure 3 ratio).

Paper: Liu, Cao, Chen, Guo, Yoshikawa, "FLAME: Differentially Private Federated Learning in the Shuffle
Model" (AAAI 2021). The margins use the certified or exact laws of :mod:`gspa.privacy.peers.blanket`,
:mod:`gspa.privacy.shuffle.accountant`, :mod:`gspa.privacy.shuffle.composition` and :mod:`gspa.studies.flame.analysis`;
each docstring names the paper's item. A margin is evaluated by :func:`gspa.claims.domain.worst_case`.

Arguments are checked before any work: local budgets in (0, 700] (e^ε finite), δ in (0, 1), β in (0, 1],
users at most MAX_USERS = 10^7 (10^5 for the overflow example, whose shuffler is run), b in [2, 10^4],
SS-Double's d·n_p messages at most 10^10 (10^7 where every count is held or summed in mpmath); the
book's domains stop at 10^6 users, b = 200 and d·n_p = 2.5·10^7.
"""

from __future__ import annotations

import math

import numpy as np

from gspa.util import validate as V

#: margin returned where a claim says nothing (its stated condition fails): it holds vacuously there
VACUOUS = 1.0
MAX_USERS = 10**7  # users n (and simulated users); the book's domains stop at 10^6
MAX_MESSAGES = (
    10**10
)  # d * n_p messages of SS-Double's padded round (Figure 3: 75,755 * 333 = 2.5 10^7)
MAX_EPS = 700.0  # local budgets: e^eps stays finite


def _eps(name, value):
    """A local budget in (0, MAX_EPS = 700]."""
    return V.real(name, value, low=0.0, low_open=True, high=MAX_EPS, scalar=True)


def _delta(name, value):
    return V.probability(name, value, open_low=True, open_high=True, scalar=True)


def _users(name, value, low=2):
    return V.integer(name, value, low=low, high=MAX_USERS)


def _b(b, low=2):
    """Algorithm 1's domain size b in [low, 10^4] (the book's domains stop at 200)."""
    return V.integer("b", b, low=low, high=10**4)


def _messages(d, n_p, most=MAX_MESSAGES):
    """Dimensions d >= 1 and padded size n_p >= 2."""
    return V.integer("d", d, low=1, high=most), V.integer("n_p", n_p, low=2, high=most)


def _q(eps_l: float) -> float:
    """Binary randomized response's probability of reporting the true bit, e^ε/(1 + e^ε)."""
    return 1.0 / (1.0 + math.exp(-eps_l))


# -- the blanket chapter ---------------------------------------------------------------------------------


def alg1_ldp_margin(eps_l: float, b: int, reading: str = "header") -> float:
    """FLAME Algorithm 1 / Lemma 1's γ: R_γ,b is ε_l-LDP. Margin ε_l − (exact LDP level of the randomizer's
    rows, :func:`gspa.privacy.basics.decomposition.dp_epsilon`), relative to ε_l (−inf where it is not LDP at all)."""
    from gspa.privacy.peers import blanket as B
    from gspa.privacy.basics.decomposition import dp_epsilon

    eps_l = _eps("eps_l", eps_l)
    level = dp_epsilon(B.randomizer_rows(eps_l, _b(b), reading))
    return (
        (float(eps_l) - level) / float(eps_l) + 1e-9 if math.isfinite(level) else -math.inf
    )  # 1e-9: round-off of the LP


def eq1_bias_margin(
    eps_l: float, b: int, n: int, x: float, reading: str = "balle", tol: float = 1e-9
) -> float:
    """FLAME eq. (1): z is unbiased for Σx. Margin ``tol`` − |E[z] − Σx| / sd(z) (|E[z] − Σx| less the round-off
    of its n-term sums, 8 (n + 8) u max(|E z|, Σx, 1)), exact moments
    (:func:`gspa.privacy.peers.blanket.debiased_moments`) for n users all holding x. Each user's bias is affine in
    its own x_i (the randomized rounding is unbiased), so the largest |bias| over data sets is attained with
    every user at the same end of [0, 1]: a common value x covers every data set."""
    from gspa.privacy.peers import blanket as B

    eps_l, n, tol = _eps("eps_l", eps_l), _users("n", n, low=1), V.finite("tol", tol, scalar=True)
    b = _b(b, low=1)
    xs = np.full(n, V.probability("x", x, scalar=True))
    mean, var = B.debiased_moments(xs, float(eps_l), int(b), reading)
    # a bias below the floating-point resolution of the n-term sums is no evidence of bias
    rounding = 8.0 * (n + 8) * np.finfo(float).eps * max(abs(mean), float(xs.sum()), 1.0)
    return tol - max(abs(mean - xs.sum()) - rounding, 0.0) / math.sqrt(var)


def lemma1_margin(eps_l: float, n: int, delta: float, b: int = 2) -> float:
    """FLAME Lemma 1: where its condition holds, ε_c = √(14 log(2/δ)(e^ε_l + b − 1)/(n − 1)) bounds the shuffled
    protocol's ε at δ. Margin Lemma 1 / certified upper bound (:func:`gspa.privacy.peers.blanket.blanket_pair`,
    header reading: b-ary randomized response, the reading under which Lemma 1 is BBGN19's) − 1; a ratio
    above 1 shows only that Lemma 1 is above a valid bound (it holds); :data:`VACUOUS` outside the condition."""
    from gspa.privacy.peers import blanket as B

    eps_l, n, delta, b = _eps("eps_l", eps_l), _users("n", n), _delta("delta", delta), _b(b)
    l1, ok = B.lemma1_epsilon(float(delta), float(eps_l), int(b), int(n))
    if not ok:
        return VACUOUS
    cert = B.blanket_pair(float(eps_l), int(b), int(n), "header").epsilon(float(delta))
    return l1 / cert - 1.0 if cert > 0 else VACUOUS  # certified ε = 0: any ε bounds it


def numerical_tighter_margin(
    eps_l: float, n: int, delta: float, version: str = "bbgn19", b: int = 2
) -> float:
    """FLAME, after Corollary 1: "a tighter bound can be accessed with numerical evaluations". Margin
    1 − (BBGN19's Bennett ε, ``version``) / (Lemma 1's ε) where Lemma 1's condition holds; :data:`VACUOUS`
    elsewhere."""
    from gspa.privacy.peers import blanket as B

    eps_l, n, delta, b = _eps("eps_l", eps_l), _users("n", n), _delta("delta", delta), _b(b)
    l1, ok = B.lemma1_epsilon(float(delta), float(eps_l), int(b), int(n))
    if not ok:
        return VACUOUS
    return (
        1.0
        - B.balle_blanket_epsilon(float(delta), float(eps_l), int(b), int(n), version=version) / l1
    )


def bennett_valid_margin(eps_l: float, n: int, delta: float, version: str = "flame") -> float:
    """FLAME, Evaluations (the experiments' ε from BBGN19's numerical "Bennett" bound, as FLAME's code computes
    it): the bound is an upper bound on the shuffled protocol's ε. For binary randomized response (b = 2)
    the margin is Bennett ε / certified lower bound on the real protocol's ε
    (:func:`gspa.privacy.shuffle.lower.lower_bound`) − 1: negative where the bound is below the truth."""
    from gspa.privacy.peers import blanket as B
    from gspa.privacy.shuffle.lower import lower_bound

    eps_l, n, delta = _eps("eps_l", eps_l), _users("n", n), _delta("delta", delta)
    be = B.balle_blanket_epsilon(float(delta), float(eps_l), 2, int(n), version=version)
    low = lower_bound(np.full(int(n), float(eps_l))).epsilon(float(delta))
    return be / low - 1.0 if low > 0 else VACUOUS  # lower bound 0: nothing to be below


def bennett_true_delta(
    eps_l: float, n: int, delta: float, version: str = "flame"
) -> tuple[float, float]:
    """Independent exact re-verification of :func:`bennett_valid_margin`: the exact δ of the shuffle of n
    binary randomized responses (budget ε_l) at the Bennett ε, for the data sets in which the n − 1 others
    hold 0 and the differing user 0 or 1 (the count of 1s, binomial laws computed directly,
    :func:`gspa.studies.flame.analysis.subsampled_rr_delta` with β = 1). Returns (Bennett ε, exact δ there):
    an exact δ above the target ``delta`` refutes the bound."""
    from gspa.privacy.peers import blanket as B
    from gspa.studies.flame.analysis import subsampled_rr_delta

    eps_l, n, delta = _eps("eps_l", eps_l), _users("n", n), _delta("delta", delta)
    be = B.balle_blanket_epsilon(float(delta), float(eps_l), 2, int(n), version=version)
    return be, float(subsampled_rr_delta(int(n), 1.0, float(eps_l), be, 1.0 - _q(float(eps_l))))


def cor1_ratio(eps_l: float, n: int, delta: float) -> tuple[float, bool]:
    """FLAME Corollary 1's ratio: the certified ε of the shuffle of n binary randomized-response reports
    (budget ``eps_l``, header reading of Algorithm 1 with b = 2) over the corollary's rate
    (1 ∧ ε_l) e^ε_l √(log(1/δ)/n), and whether the corollary's condition ε_l ≤ log(n/log(1/δ))/2 holds
    (outside it the corollary says nothing)."""
    from gspa.privacy.peers import blanket as B

    eps_l, n, delta = _eps("eps_l", eps_l), _users("n", n), _delta("delta", delta)
    rate, ok = B.corollary1_shape(float(delta), float(eps_l), int(n))
    cert = B.blanket_pair(float(eps_l), 2, int(n), "header").epsilon(float(delta))
    return (float(cert / rate) if rate > 0 else math.inf), bool(ok)


#: the largest n at which Corollary 1's ratio is evaluated (its tail decade is [COR1_N_TOP/10, COR1_N_TOP])
COR1_N_TOP = 10**7


def cor1_tail_slope(eps_l: float, delta: float, n_top: int = COR1_N_TOP) -> float:
    """The log-log slope in n of :func:`cor1_ratio` over the decade [n_top/10, n_top]: Corollary 1 is an
    O(·) in n, which holds iff the ratio stays bounded as n → ∞, so a slope that stays above 0 refutes it
    and one at or below 0 is what it predicts (no constant is needed for that). ``n_top`` in [20, 10^7]
    with the condition holding at n_top/10 (else ValueError); −1 where the certified ε is 0 at n_top."""
    n_top = V.integer("n_top", n_top, low=20, high=MAX_USERS)
    (lo, ok), (hi, _) = cor1_ratio(eps_l, n_top // 10, delta), cor1_ratio(eps_l, n_top, delta)
    if not ok:
        raise ValueError(
            f"Corollary 1's condition fails at n = {n_top // 10} for eps_l = {eps_l}, delta = {delta}: "
            "take a larger n_top or a smaller eps_l"
        )
    if hi == 0.0:
        return -1.0  # the certified ε is 0 at n_top (total variation below δ): the ratio vanishes
    if lo == 0.0:
        return math.inf  # cannot happen for a certified ε non-increasing in n; reported as growth
    return float(math.log(hi / lo) / math.log(n_top / (n_top // 10)))


def cor1_margin(eps_l: float, delta: float, tol: float = 0.1, n_top: int = COR1_N_TOP) -> float:
    """FLAME Corollary 1 as the O(·) in n it states: margin ``tol`` − :func:`cor1_tail_slope` (≥ 0: the
    ratio of the certified ε to the rate does not grow over the last decade of n, up to ``tol`` in the
    exponent; < 0: it grows like n^slope there). ``tol`` in [0, 1]."""
    tol = V.real("tol", tol, low=0.0, high=1.0, scalar=True)
    return float(tol - cor1_tail_slope(eps_l, delta, n_top))


def theorem5_def3_margin(n_over_np: float, beta: float, n: int = 1000) -> float:
    """FLAME Theorem 5 against Definition 3: the ν = max{1, 1/(⌊n_p/(nβ)⌋β)} that Theorem 5 gives is the
    smallest ν for which Algorithm 4 with l = ⌊n_p/(nβ)⌋ meets both inequalities of Definition 3
    (:func:`gspa.studies.flame.analysis.nu_of_l`, l capped at ⌈1/β⌉ as Algorithm 4 does). Margin
    −|ν_Thm5 − ν_Def3| / ν_Def3 (0 where they agree); :data:`VACUOUS` where ⌊n_p/(nβ)⌋ < 2 (l = 1 gives
    no finite ν; Theorem 5 then says ν = 1/β). ``n_over_np`` in [1, 10^4], n in [1, 10^7]."""
    from gspa.studies.flame.analysis import nu_of_l, theorem5_nu

    n = _users("n", n, low=1)
    r = V.real("n_over_np", n_over_np, low=1.0, high=1e4, scalar=True)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    n_p = max(1, int(n / r))
    if int(n_p // (n * beta)) < 2:
        return VACUOUS
    nu5, l = theorem5_nu(n_p, n, beta)
    nu3 = nu_of_l(min(l, max(1, math.ceil(1 / beta - 1e-12))), beta)
    return float(-abs(nu5 - nu3) / nu3)


def laplace_gamma_margin(eps_l: float, tol: float = 1e-6) -> float:
    """FLAME, Preliminaries: the Laplace mechanism on [0, 1] has blanket γ = e^(−ε_l/2). Margin ``tol`` −
    |integrated blanket mass / e^(−ε_l/2) − 1| (:func:`gspa.privacy.peers.blanket.laplace_blanket_mass`)."""
    from gspa.privacy.peers import blanket as B

    eps_l, tol = _eps("eps_l", eps_l), V.finite("tol", tol, scalar=True)
    return tol - abs(B.laplace_blanket_mass(float(eps_l)) / math.exp(-float(eps_l) / 2) - 1.0)


# -- the accounting chapter ------------------------------------------------------------------------------


def theorem4_margin(d: int, n_p: int, eps_lk: float, delta_c: float) -> float:
    """FLAME Theorem 4 (with Theorem 3 per dimension) on the instance of
    :func:`gspa.studies.flame.analysis.tiny_double_profile` (k = 1, β = 1/d): margin 1 − true δ(ε_c)/δ_c,
    negative where the exact mechanism exceeds the theorem's δ_c at its ε_c (the per-dimension guarantee
    given exactly, :func:`gspa.studies.flame.analysis.theorem4_on_tiny`)."""
    from gspa.studies.flame.analysis import theorem4_on_tiny

    d, n_p = _messages(
        d, n_p, most=10**7
    )  # theorem4_on_tiny holds the d n_p + 1 counts (at most 10^7)
    r = theorem4_on_tiny(d, n_p, _eps("eps_lk", eps_lk), _delta("delta_c", delta_c))["paper"]
    return 1.0 - r["true_delta"] / r["delta_c"]


def theorem4_confirm(d: int, n_p: int, eps_lk: float, delta_c: float) -> dict:
    """Independent exact re-verification of a violation of Theorem 4 found by :func:`theorem4_margin`: the
    tiny SS-Double instance's law of the total count of 1s written out from first principles — the user's
    binary randomized response (q = e^ε/(1 + e^ε)) among the d·n_p − 1 uniform dummy bits of all
    dimensions (the total is sufficient: the likelihood of the count vector depends on it only, checked in
    the tests by enumerating count vectors) — with the binomial weights by their recurrence in
    :mod:`mpmath` at 50 digits, not scipy's pmf; then δ(ε_c) = Σ (P_0 − e^ε_c P_1)_+. Returns the chain's
    (ε_c, δ_c), the exact δ and their ratio."""
    import mpmath as mp
    from gspa.studies.flame.analysis import theorem4_on_tiny

    d, n_p = _messages(
        d, n_p, most=10**7
    )  # theorem4_on_tiny holds the counts; mpmath sums ~90 sqrt(d n_p)
    r = theorem4_on_tiny(d, n_p, _eps("eps_lk", eps_lk), _delta("delta_c", delta_c))["paper"]
    with mp.workdps(50):
        m = int(d) * int(n_p) - 1  # dummy bits besides the user's report
        q = 1 / (1 + mp.exp(-mp.mpf(eps_lk)))
        e = mp.exp(mp.mpf(r["eps_c"]))
        half = math.sqrt(m) / 2
        lo, hi = (
            max(0, int(m / 2 - 45 * half)),
            min(m, int(m / 2 + 45 * half) + 1),
        )  # the rest: < e^-4000
        w = [
            mp.binomial(m, lo) * mp.mpf(2) ** (-m)
        ]  # C(m, c) 2^-m for c = lo..hi, by its recurrence
        for c in range(lo, hi):
            w.append(w[-1] * (m - c) / (c + 1))
        w.append(mp.mpf(0))
        total, prev = (
            mp.mpf(0),
            (mp.binomial(m, lo - 1) * mp.mpf(2) ** (-m) if lo > 0 else mp.mpf(0)),
        )
        for i in range(len(w)):  # total count c = lo + i: the user's bit + the dummies'
            a, b = w[i], prev  # the user reports 0 / reports 1
            p0, p1 = q * a + (1 - q) * b, (1 - q) * a + q * b  # input all 0 / all 1
            if p0 > e * p1:
                total += p0 - e * p1
            prev = w[i]
        true = float(total)
    return {
        "eps_c": r["eps_c"],
        "delta_c": r["delta_c"],
        "true_delta": true,
        "ratio": true / r["delta_c"],
    }


def topk_double_margin(d: int, beta: float) -> float:
    """FLAME, SS-Topk: "given n_p, SS-Topk shares the same double amplification effect of SS-Double", which
    needs the user's reported indexes to have the same law under neighbouring data sets (Lemma 4's
    subsampling). Margin |Top-k(x) ∩ Top-k(x')|/k − 1 for the neighbouring updates x = (d, d − 1, …, 1) and
    x' = its reverse (Top-k is deterministic: equal laws means equal sets); 0 only when k = d."""
    from gspa.studies.flame.protocols import sample_size

    d = V.integer("d", d, low=2, high=MAX_USERS)
    k = sample_size(float(V.probability("beta", beta, open_low=True, scalar=True)), d)
    x = np.arange(d, 0, -1, dtype=float)
    top, top2 = set(np.argsort(-x)[:k]), set(np.argsort(-x[::-1])[:k])
    return len(top & top2) / k - 1.0


def prop2_margin(beta: float) -> float:
    """FLAME Proposition 2: 1 ≤ ν ≤ 1/β over l ≥ 2, and ν = 1 at l = ⌈1/β⌉ (ν(l) of
    :func:`gspa.studies.flame.analysis.nu_of_l`, vectorised over every l in [2, ⌈1/β⌉]). Margin: the
    smallest of ν − 1, 1/β − ν (relative to 1/β) and −|ν(⌈1/β⌉) − 1|."""
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    top = max(2, math.ceil(1 / beta - 1e-12))
    ls = np.arange(2, top + 1, dtype=float)
    nu = np.maximum.reduce([np.ones_like(ls), 1 / (ls * beta), (1 - beta) / (1 - 1 / ls)])
    end = float(nu[-1]) if math.ceil(1 / beta - 1e-12) >= 2 else 1.0
    return float(min(np.min(nu - 1), np.min(1 / beta - nu) * beta, -abs(end - 1.0))) + 1e-12


def index_posterior_simulated(
    d: int, beta: float, l: int, users: int, rng: np.random.Generator
) -> tuple[float, float]:
    """A real simulation of FLAME Definition 3's posterior Pr[I_j = 1 | j reported] for Algorithm 4 (each user
    reports its Top-k and k(l − 1) other indexes): for one fixed index j and ``users`` independent users
    whose Top-k is a uniformly random k-set (the shuffler's prior) and whose k(l − 1) blanket indexes are
    uniform among the rest, j's position in a uniform random ordering of [d] is uniform, so j is Top-k when
    it falls among the first k positions and reported when among the first lk. Returns the fraction of the
    users reporting j for whom j is Top-k (an estimate with sampling noise, not 1/l by construction) and its
    standard error. (Pooling all indexes, as :func:`gspa.studies.flame.analysis.index_posterior` does, gives
    k/(lk) = 1/l exactly for every draw: a count, not a simulation.)"""
    d = V.integer("d", d, low=2)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    k = max(1, int(d * beta))
    l = V.integer("l", l, low=1, high=max(1, d // k))
    users = _users("users", users, low=1)
    rng = V.generator("rng", rng)
    pos = rng.integers(0, d, size=users)  # j's position in each user's random ordering
    reported = pos < l * k
    r = int(reported.sum())
    if r == 0:
        raise ValueError(
            f"no simulated user reported the index (users = {users}, l k / d = {l * k / d:g}): take more users"
        )
    p = float((pos[reported] < k).mean())
    return p, math.sqrt(max(p * (1 - p), 1.0 / r) / r)


def def3_margin(l: int, beta: float, users: int = 20000, seed: int = 0, z: float = 4.0) -> float:
    """FLAME Definition 3 / Algorithm 4: Pr[I_j = 1 | j reported] = 1/l. Margin ``z`` − |simulated − 1/l| /
    standard error (:func:`index_posterior_simulated`, d = 785 as in the chapter, ``seed`` fixed; at least
    ``users`` users, more where l k / d is small, so that about 1,000 of them report the index)."""
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    l, users = V.integer("l", l, low=1), _users("users", users, low=1)
    seed, z = V.integer("seed", seed, low=0), V.finite("z", z, scalar=True)
    d = max(785, math.ceil(1 / beta))
    k = max(1, int(d * beta))
    l = min(int(l), max(1, d // k))
    # enough users that about 1,000 report the index, whatever l k / d (at most 10^7 simulated positions)
    users = int(min(10**7, max(int(users), math.ceil(1000 * d / (l * k)))))
    p, se = index_posterior_simulated(d, beta, l, users, np.random.default_rng(seed))
    return z - abs(p - 1 / l) / se


# -- SS-Topk's overflow as a privacy matter --------------------------------------------------------------


def overflow_probability(n: int, d: int, k: int, n_p: int, protocol: str, picks=None) -> float:
    """The probability that some dimension receives more than n_p messages in one round (Algorithm 3 line 3
    cannot pad it) when n users each report k of d dimensions:

    * ``"SS-Double"``: every user samples k distinct dimensions uniformly, whatever its data, so the
      probability is the same for every data set; computed exactly for k = 1 (multinomial counts, by
      inclusion–exclusion-free dynamic programming over dimensions of the number of users placed) and
      otherwise raises;
    * ``"SS-Topk"``: the dimensions are the user's Top-k, a function of its data: ``picks`` (n, k) gives
      them, and the probability is 1 when some dimension is picked more than n_p times, else 0.
    """
    n, d, k, n_p = (
        V.integer(a, v, low=1, high=MAX_USERS)
        for a, v in (("n", n), ("d", d), ("k", k), ("n_p", n_p))
    )
    if protocol == "SS-Topk":
        picks = np.asarray(picks)
        return float(np.bincount(picks.ravel(), minlength=d).max() > n_p)
    if k != 1:
        raise ValueError(
            f"the exact SS-Double overflow probability is implemented for k = 1, got k = {k}"
        )
    from scipy.special import gammaln

    # number of ways (weighted by 1/d^n) to place n users in d dimensions with every count <= n_p:
    # n!/d^n · [t^n] (Σ_{c<=n_p} t^c/c!)^d, by repeated polynomial multiplication in log-safe float
    coef = np.exp(-gammaln(np.arange(min(n, n_p) + 1) + 1))
    poly = np.array([1.0])
    for _ in range(d):  # d <= a few dozen in the book's instances
        poly = np.convolve(poly, coef)[: n + 1]
    if poly.size <= n:
        return 1.0
    ok = math.exp(math.log(poly[n]) + gammaln(n + 1) - n * math.log(d)) if poly[n] > 0 else 0.0
    return float(max(0.0, 1.0 - ok))


def overflow_abort_delta(n: int, d: int, n_p: int, *, double: bool = True) -> dict:
    """FLAME Algorithm 3 with SS-Topk (k = 1) when a dimension overflows: two neighbouring data sets (one user's
    update replaced) on which the abort event "some dimension cannot be padded" has probability 1 and 0 —
    n_p + 1 users ranking dimension 0 first against the same with one of them ranking dimension 1 first —
    and, for comparison, SS-Double's overflow probability, the same under both. An event of probability 1
    under one data set and 0 under its neighbour gives δ(ε) = 1 for every ε: the aborted round is not
    (ε, δ)-DP for any δ < 1. The abort is checked with the protocol's own shuffler,
    :func:`gspa.studies.flame.protocols.pad` (``overflow="error"``).

    The paper does not say what the shuffler does when line 3 gives n_n,j < 0. Under the other reading,
    that it drops the excess values (``overflow="drop"``, not in the paper), every dimension still shows
    n_p values under both data sets: ``drop_delta`` is the δ of that size view (0 when the per-dimension
    counts the analyzer sees are equal, 1 otherwise; the sizes are deterministic)."""
    import torch
    from gspa.studies.flame.protocols import pad

    n, d, n_p = (V.integer(a, v, low=1, high=10**5) for a, v in (("n", n), ("d", d), ("n_p", n_p)))
    # with n <= n_p no dimension overflows: the abort event would be empty and the verdict vacuous
    if n < n_p + 1:
        raise ValueError(f"n must be >= n_p + 1 = {n_p + 1} for a dimension to overflow, got {n}")
    a = np.zeros((n, 1), dtype=np.int64)
    if d < 2 + math.ceil((n - n_p - 1) / n_p):
        raise ValueError(
            f"d must be >= {2 + math.ceil((n - n_p - 1) / n_p)} to hold the other users without overflow, got {d}"
        )
    a[n_p + 1 :, 0] = (
        np.arange(n - n_p - 1) % (d - 2) + 2
    )  # the rest spread over dimensions 2.. (≤ n_p each)
    b = a.copy()
    b[0, 0] = 1  # one user's Top-1 moves to dimension 1

    def aborts(picks):
        counts = np.bincount(picks.ravel(), minlength=d)
        if counts.max() > n_p and counts.argmax() != 0:
            raise ValueError(
                f"n = {n} users overflow another dimension than 0 with d = {d}, n_p = {n_p}: take a larger d"
            )
        gen = torch.Generator().manual_seed(0)
        try:
            pad(
                torch.as_tensor(picks),
                torch.full(picks.shape, 0.5, dtype=torch.float64),
                d,
                n_p,
                1.0,
                gen,
            )
        except ValueError:
            return 1.0
        return 0.0

    def sizes(picks):
        gen = torch.Generator().manual_seed(0)
        return pad(
            torch.as_tensor(picks),
            torch.full(picks.shape, 0.5, dtype=torch.float64),
            d,
            n_p,
            1.0,
            gen,
            overflow="drop",
        )[1].tolist()

    pa, pb = aborts(a), aborts(b)
    return {
        "topk_abort": (pa, pb),
        "topk_delta": abs(pa - pb),
        "drop_delta": float(sizes(a) != sizes(b)),
        "double_overflow": overflow_probability(n, d, 1, n_p, "SS-Double") if double else None,
        "topk_law": (
            overflow_probability(n, d, 1, n_p, "SS-Topk", a),
            overflow_probability(n, d, 1, n_p, "SS-Topk", b),
        ),
    }


# -- Figure 3: a certified upper bound on SS-Double's ratio -------------------------------------------------


def double_total_count_epsilon(eps_lk: float, d: int, k: int, n_p: int, delta: float) -> float:
    """A certified *lower* bound on SS-Double's ε at ``delta`` (binary reports, header reading of Algorithm 1
    with b = 2): the other users all hold x = 1/2, whose reports are uniform bits like the padding dummies;
    the differing user's k reports (binary randomized response with budget ε_lk, in k of the d dimensions)
    are its vector all 0 against all 1; the analyzer's view is post-processed to the total count of 1s over
    all d·n_p messages, which is Bin(k, q_x) + Bin(d·n_p − k, 1/2). Post-processing and the choice of one
    pair of data sets can only lower δ(ε), so the ε at which this exact δ reaches ``delta`` is a lower
    bound on the protocol's (a window of ±60 standard deviations carries the binomial mass; the rest,
    below 1e-300, is dropped, which lowers δ further)."""
    from scipy import stats

    eps_lk = V.positive("eps_lk", eps_lk, scalar=True)
    d, n_p = _messages(d, n_p)
    k = V.integer("k", k, low=1, high=d * n_p)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    m = d * n_p - k
    sd = math.sqrt(m / 4.0)
    lo, hi = max(0, int(m / 2 - 60 * sd)), min(m, int(m / 2 + 60 * sd) + 1)
    noise = stats.binom.pmf(np.arange(lo, hi + 1), m, 0.5)
    q = _q(eps_lk)
    own = np.arange(k + 1)
    p0 = np.convolve(
        stats.binom.pmf(own, k, 1 - q), noise
    )  # input all 0: each report is 1 w.p. 1 − q
    p1 = np.convolve(stats.binom.pmf(own, k, q), noise)
    from gspa.studies.flame.analysis import tiny_epsilon

    def prof(e):
        return float(np.maximum(p1 - math.exp(e) * p0, 0.0).sum())

    return tiny_epsilon(
        prof, delta, min(k * eps_lk, 700.0)
    )  # ε beyond 700: e^ε overflows; δ is 0 there


def fig3_double_upper(eps_dim, d: int, n_p: int, beta: float, delta_c: float) -> np.ndarray:
    """A certified *upper* bound on Figure 3's SS-Double ratio ε_l/ε_c = k·ε_lk/ε_c at each per-dimension
    budget (ε_c replaced by the lower bound of :func:`double_total_count_epsilon`), to set beside
    :func:`gspa.studies.flame.analysis.fig3_exact`'s lower bounds."""
    from gspa.studies.flame.protocols import sample_size

    eps_dim = V.real(
        "eps_dim", eps_dim, low=0.0, low_open=True, high=MAX_EPS, max_size=10**4
    ).ravel()
    d, n_p = _messages(d, n_p)
    delta_c = _delta("delta_c", delta_c)
    k = sample_size(beta, d)
    low = np.array([double_total_count_epsilon(float(e), d, k, n_p, delta_c) for e in eps_dim])
    with np.errstate(divide="ignore"):
        return np.where(low > 0, k * eps_dim / np.where(low > 0, low, 1.0), np.inf)


def topk_double_confirm(d: int, beta: float) -> int:
    """Independent re-verification of :func:`topk_double_margin` with the protocol's own selection
    (:func:`gspa.studies.flame.protocols.topk_select` on |x|, as SS-Topk ranks updates): the number of
    indexes the Top-k sets of x = (d, …, 1) and its reverse share (fewer than k: the selection depends on
    the data)."""
    import torch
    from gspa.studies.flame.protocols import sample_size, topk_select

    d = V.integer("d", d, low=2, high=MAX_USERS)
    k = sample_size(float(V.probability("beta", beta, open_low=True, scalar=True)), d)
    x = torch.arange(int(d), 0, -1, dtype=torch.float64)[None, :]
    a = set(topk_select(x.abs(), k)[0].tolist())
    b = set(topk_select(x.flip(1).abs(), k)[0].tolist())
    return len(a & b)


def overflow_dims(n: int, n_p: int) -> int:
    """The number of dimensions :func:`overflow_abort_delta` needs: dimension 0 (n_p + 1 users), dimension 1
    (the moved user) and enough others to hold the remaining n − n_p − 1 users at most n_p each."""
    n, n_p = V.integer("n", n, low=1, high=MAX_USERS), V.integer("n_p", n_p, low=1, high=MAX_USERS)
    return max(4, 2 + math.ceil((n - n_p - 1) / n_p))


def overflow_margin(n: int, n_over_np: float, delta_c: float = 5e-6) -> tuple[float, bool]:
    """FLAME, SS-Topk with Algorithm 3: the round is (ε_c, δ_c)-DP against the analyzer. Margin δ_c − (the δ of
    the abort event between the two neighbouring data sets of :func:`overflow_abort_delta`, k = 1,
    d = n dimensions, n_p = ⌊n/``n_over_np``⌋); δ_c where no dimension can overflow (n ≤ n_p). Returns the
    margin and whether the independent count (:func:`overflow_probability`, a bincount, not the shuffler's
    ``pad``) agrees that the two data sets' abort probabilities are 1 and 0."""
    n = V.integer("n", n, low=2, high=10**5)
    n_p = max(1, int(n // V.real("n_over_np", n_over_np, low=1.0, high=1e6, scalar=True)))
    delta_c = _delta("delta_c", delta_c)
    if n <= n_p:
        return delta_c, True
    r = overflow_abort_delta(n, overflow_dims(n, n_p), n_p, double=False)
    return float(delta_c) - r["topk_delta"], r["topk_law"] == (1.0, 0.0)


# -- the theorems chapter --------------------------------------------------------------------------------

#: the data sets over which the margins of Theorems 2-3 evaluate the exact mechanism; the theorems quantify
#: over every data set ("any data set"), which no margin here evaluates (see :func:`theorem2_margin`)
THM2_DATA = ("others' bits all equal", "any data set")
THM3_DATA = ("no other user in the dimension (dummies only)", "any data set")


def _data(name, value, choices):
    if value not in choices[:-1]:
        raise ValueError(
            f"{name} must be one of {choices[:-1]} (the data sets computed exactly), got {value!r}"
        )
    return value


def theorem2_margin(
    eps_l: float, n_s: int, beta: float, delta_cd: float, data: str = THM2_DATA[0]
) -> float:
    """FLAME Theorem 2 eq. (4) (one dimension subsampled without replacement, β = n_s/n, and shuffled): margin
    1 − ε/ε_cd, with ε the exact ε at δ_cd of the subsampled dimension for ``data`` — the data sets in which
    the other users' bits are all equal, the larger ε of all 0 and all 1
    (:func:`gspa.studies.flame.analysis.subsampled_rr_epsilon`). The theorem holds there iff the margin is
    ≥ 0 (δ(ε) is non-increasing, so ε ≤ ε_cd iff δ(ε_cd) ≤ δ_cd); unlike 1 − δ(ε_cd)/δ_cd, which is 1 to
    double precision wherever eq. (4)'s ε_cd is far above the exact ε, it shows how much room there is.
    One family of data sets, so a lower bound on the worst case: a negative margin refutes, a positive one
    covers these data sets only. :data:`VACUOUS` outside Lemma 1's condition or where δ_cd ≥ 2β."""
    from gspa.studies.flame.analysis import subsampled_rr_epsilon

    _data("data", data, THM2_DATA)
    eps_l, n_s, beta, delta_cd, ecd = _stated_eps_cd("eps_l", eps_l, "n_s", n_s, beta, delta_cd)
    if ecd is None:
        return VACUOUS
    q = _q(eps_l)
    exact = max(subsampled_rr_epsilon(n_s, beta, eps_l, delta_cd, p) for p in (q, 1.0 - q))
    return 1.0 - exact / ecd


def _stated_eps_cd(eps_name, eps, n_name, n, beta, delta_cd):
    """Checked (eps, n, beta, delta_cd) and the eps_cd that FLAME's Theorems 2-3 state (eqs. (4)-(6)), or None
    where the theorem says nothing (delta_cd >= 2 beta, or outside Lemma 1's condition)."""
    from gspa.studies.flame.analysis import theorem2

    eps, n = _eps(eps_name, eps), _users(n_name, n, low=1)
    beta, delta_cd = (
        V.probability("beta", beta, open_low=True, scalar=True),
        _delta("delta_cd", delta_cd),
    )
    ecd = None
    if delta_cd < 2 * beta:
        _, e, ok = theorem2(float(eps), int(n), float(beta), float(delta_cd))
        ecd = e if ok else None
    return float(eps), int(n), float(beta), float(delta_cd), ecd


def theorem3_margin(
    eps_lk: float, n_p: int, beta: float, delta_cd: float, data: str = THM3_DATA[0]
) -> float:
    """FLAME Theorem 3 eqs. (5)–(6) (one padded dimension of SS-Double, the user's report present with
    probability β among blanket dummies): margin 1 − ε/ε_cd with ε the exact ε at δ_cd of that mechanism when
    no other user's real report is in the dimension (``data``: the n_p − 1 others are uniform dummies,
    :func:`gspa.studies.flame.analysis.subsampled_rr_epsilon` with ``p_other`` = 1/2). Other users' real
    reports carry less noise than dummies, so this is the most favourable data set, not the worst: a
    negative margin refutes, a positive one covers this data set only. :data:`VACUOUS` outside Lemma 1's
    condition on eq. (5) or where δ_cd ≥ 2β."""
    from gspa.studies.flame.analysis import subsampled_rr_epsilon

    _data("data", data, THM3_DATA)
    eps_lk, n_p, beta, delta_cd, ecd = _stated_eps_cd("eps_lk", eps_lk, "n_p", n_p, beta, delta_cd)
    if ecd is None:
        return VACUOUS
    return 1.0 - subsampled_rr_epsilon(n_p, beta, eps_lk, delta_cd, 0.5) / ecd


def lemma4_margin(m: int, n_over_m: float, eps: float, delta: float) -> float:
    """FLAME Lemma 4 (sampling m of n records without replacement) applied to the shuffle of m binary reports
    with its certified ε at δ (:func:`gspa.privacy.peers.blanket.blanket_pair`): margin 1 − (exact δ at Lemma 4's
    ε, the other users' bits all equal: a lower bound on the worst case) / ((m/n)δ)."""
    from gspa.privacy.peers.blanket import blanket_pair
    from gspa.privacy.basics.subsampling import subsample_wor
    from gspa.studies.flame.analysis import subsampled_rr_delta_equal_bits

    m = _users("m", m)
    n = max(m, int(round(m * V.real("n_over_m", n_over_m, low=1.0, high=1e6, scalar=True))))
    e_m = blanket_pair(_eps("eps", eps), 2, m, "header").epsilon(_delta("delta", delta))
    e4, d4 = subsample_wor(e_m, float(delta), m, n)
    return 1.0 - subsampled_rr_delta_equal_bits(m, m / n, float(eps), e4) / d4


# -- SS-Simple as printed: one permutation for the users' whole messages --------------------------------------


def _rr_rows(xs, eps_ld):
    """Each user's law over the 2^d report vectors (binary randomized response per coordinate, budget
    ``eps_ld``, i.e. Algorithm 1 with b = 2 and γ = 2/(e^ε_ld + 1)); ``xs`` (users, d) bits."""
    d = xs.shape[1]
    types = (np.arange(1 << d)[:, None] >> np.arange(d)[None, :]) & 1  # (2^d, d) report vectors
    keep = 1.0 / (1.0 + math.exp(-eps_ld))  # P[report bit = true bit]
    same = types[None, :, :] == xs[:, None, :]
    return np.prod(np.where(same, keep, 1.0 - keep), axis=2)  # (users, 2^d)


def _multiset_law(rows):
    """Law of the multiset of the users' reports (what the analyzer sees after one shuffle of whole
    messages): every tuple of reports enumerated, keyed by its sorted tuple."""
    n, m = rows.shape
    grids = np.stack(np.meshgrid(*[np.arange(m)] * n, indexing="ij"), -1).reshape(-1, n)
    prob = np.prod(rows[np.arange(n)[None, :], grids], axis=1)
    key = np.sort(grids, axis=1) @ (m ** np.arange(n))
    uniq, inv = np.unique(key, return_inverse=True)
    return uniq, np.bincount(inv, weights=prob)


def _counts_law(rows_1d):
    """Law of the number of 1s among the users' one-bit reports (one shuffled dimension)."""
    law = np.array([1.0])
    for p1 in rows_1d[:, 1]:
        law = np.convolve(law, [1.0 - p1, p1])
    return law


def _hockey(p, q, eps):
    """sum (p − e^ε q)^+ without overflow: where ε + log q > 700 the term is negative (p ≤ 1)."""
    out = p.astype(float)
    pos = q > 0
    lg = eps + np.log(q[pos])
    out[pos] = np.where(lg > 700.0, 0.0, p[pos] - np.exp(np.minimum(lg, 700.0)))
    return float(np.clip(out, 0.0, None).sum())


def _delta_pair(p, q, eps):
    """max over both directions of sum (p − e^ε q)^+ for two laws on the same outcomes."""
    return max(_hockey(p, q, eps), _hockey(q, p, eps))


def _vector_data(n, d, others):
    x0 = np.zeros((n, d), dtype=np.int64)
    if others == "alternating":
        x0[1:, :] = (np.arange(1, n)[:, None] + np.arange(d)[None, :]) % 2
    x1 = x0.copy()
    x1[0, :] = 1
    return x0, x1


def whole_vector_delta(n: int, d: int, eps_ld: float, eps: float, others: str = "zeros") -> dict:
    """FLAME's SS-Simple with binary reports, exactly, on one pair of neighbouring data sets: user 0 holds
    the vector all 0 or all 1, the others ``others`` ('zeros', or 'alternating' bits). Returns δ(``eps``)
    of the protocol as printed — Algorithm 2 lines 10–15: each user sends one message with all d reports
    and Shuffle permutes the n messages, so the analyzer sees the multiset of report *vectors* — and of d
    independent per-dimension shuffles (the mechanisms Theorem 1's composition composes), each by
    enumeration: ``{"whole": δ, "independent": δ}``. Sizes: (2^d)^n ≤ 2^15."""
    n, d = V.integer("n", n, low=2, high=15), V.integer("d", d, low=1, high=15)
    eps_ld = V.real("eps_ld", eps_ld, low=0.0, high=700.0, low_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    x0, x1 = _vector_data(n, d, others)
    k0, p0 = _multiset_law(_rr_rows(x0, eps_ld))
    k1, p1 = _multiset_law(_rr_rows(x1, eps_ld))
    keys = np.union1d(k0, k1)
    w0, w1 = np.zeros(keys.size), np.zeros(keys.size)
    w0[np.searchsorted(keys, k0)], w1[np.searchsorted(keys, k1)] = p0, p1
    dims0 = [_counts_law(_rr_rows(x0[:, [j]], eps_ld)) for j in range(d)]
    dims1 = [_counts_law(_rr_rows(x1[:, [j]], eps_ld)) for j in range(d)]
    i0, i1 = dims0[0], dims1[0]
    for a, b in zip(dims0[1:], dims1[1:]):
        i0, i1 = np.outer(i0, a).ravel(), np.outer(i1, b).ravel()
    return {"whole": _delta_pair(w0, w1, eps), "independent": _delta_pair(i0, i1, eps)}


def one_dimension_delta(n: int, eps_ld: float, eps: float) -> float:
    """The exact per-dimension guarantee of shuffled binary randomized response (budget ``eps_ld``, n users):
    δ(``eps``) maximised over the neighbouring pairs — the differing user's bit 0 against 1, the others
    holding m ones, every m = 0 … n − 1 (the count of 1s is all the analyzer sees of one dimension)."""
    n = V.integer("n", n, low=2, high=10**4)
    eps_ld = V.real("eps_ld", eps_ld, low=0.0, high=700.0, low_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    keep = 1.0 / (1.0 + math.exp(-eps_ld))
    worst = 0.0
    for m in range(n):
        rest = _counts_law(
            np.array([[1 - keep, keep]] * m + [[keep, 1 - keep]] * (n - 1 - m)).reshape(-1, 2)
        )
        a, b = np.convolve(rest, [keep, 1 - keep]), np.convolve(rest, [1 - keep, keep])
        worst = max(worst, _delta_pair(a, b, eps))
    return worst


def _class_laws(d, eps_ld):
    """Laws of the number of 1s in one user's d reports (binary randomized response per coordinate):
    for the vector all 0 (π₀) and all 1 (π₁)."""
    from scipy import stats

    keep = 1.0 / (1.0 + math.exp(-eps_ld))
    j = np.arange(d + 1)
    return stats.binom.pmf(j, d, 1.0 - keep), stats.binom.pmf(j, d, keep)


def whole_vector_delta_counts(n: int, d: int, eps_ld: float, eps: float) -> float:
    """SS-Simple as printed (one permutation of the users' whole messages), exactly, for the pair in which
    the others hold the vector all 0 and the differing user all 0 against all 1: δ(``eps``), both
    directions. The likelihood ratio of the multiset of report vectors is (1/n) Σᵢ e^(ε_ld (2|mᵢ| − d))
    (|m|: the number of 1s in a report), so the histogram h of those counts is sufficient: under the first
    data set it is multinomial(n; π₀), and the ratio is Σⱼ (hⱼ/n) π₁ⱼ/π₀ⱼ. Every histogram is enumerated
    (C(n + d, d) of them); :func:`whole_vector_delta_sequential` computes the same by
    another route, :func:`whole_vector_delta` by enumerating every tuple of report vectors."""
    from itertools import combinations

    from scipy.special import gammaln

    n, d = V.integer("n", n, low=2, high=10**4), V.integer("d", d, low=1, high=64)
    eps_ld = V.real("eps_ld", eps_ld, low=0.0, high=700.0, low_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    pi0, pi1 = _class_laws(d, eps_ld)
    bars = np.array(list(combinations(range(n + d), d)), dtype=np.int64).reshape(
        -1, d
    )  # stars and bars
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), n + d)])
    h = np.diff(edges, axis=1) - 1  # (histograms, d + 1)
    with np.errstate(divide="ignore"):
        logp = gammaln(n + 1) - gammaln(h + 1).sum(1) + (h * np.log(pi0)).sum(1)
    p0 = np.exp(logp)
    lr = (h / n) @ (pi1 / pi0)
    return max(_hockey(p0 * lr, p0, eps), _hockey(p0, p0 * lr, eps))


def whole_vector_delta_sequential(n: int, d: int, eps_ld: float, eps: float) -> float:
    """The same δ as :func:`whole_vector_delta_counts`, computed independently: the laws of the count
    histogram under both data sets built user by user (a dictionary of histograms, each user's class law
    added in turn), with no use of the likelihood-ratio formula. For re-verifying a violation; n·C(n + d, d)
    steps."""
    n, d = V.integer("n", n, low=2, high=200), V.integer("d", d, low=1, high=8)
    eps_ld = V.real("eps_ld", eps_ld, low=0.0, high=700.0, low_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    pi0, pi1 = _class_laws(d, eps_ld)

    def law(first):
        cur = {tuple(int(i == j) for i in range(d + 1)): float(first[j]) for j in range(d + 1)}
        for _ in range(n - 1):
            nxt = {}
            for hist, p in cur.items():
                for j in range(d + 1):
                    key = hist[:j] + (hist[j] + 1,) + hist[j + 1 :]
                    nxt[key] = nxt.get(key, 0.0) + p * pi0[j]
            cur = nxt
        return cur

    a, b = law(pi0), law(pi1)
    keys = sorted(set(a) | set(b))
    pa, pb = np.array([a.get(k, 0.0) for k in keys]), np.array([b.get(k, 0.0) for k in keys])
    return max(_hockey(pb, pa, eps), _hockey(pa, pb, eps))


def one_permutation_margin(n: int, d: int, eps_ld: float, eps_cd_frac: float) -> float:
    """FLAME Theorem 1 for SS-Simple as printed (one permutation of the whole messages). Theorem 1 composes
    the d per-dimension guarantees (ε_cd, δ_cd) by eqs. (2)–(3) (:func:`gspa.studies.flame.analysis.
    compose_dims`); its proof (Lemmas 2–3) treats the d shuffled dimensions as separate mechanisms, but one
    permutation links each user's d reports. Margin 1 − δ_whole(ε_c)/δ_c: ε_cd = ``eps_cd_frac``·ε_ld,
    δ_cd its exact worst-case per-dimension δ (:func:`one_dimension_delta`), and δ_whole the printed
    protocol's exact δ at Theorem 1's ε_c for the others all 0 and the differing user all 0 against all 1
    (:func:`whole_vector_delta_counts`). Where δ_cd = 0 (ε_cd = ε_ld: the randomizer is ε_ld-LDP)
    Theorem 1 gives (d ε_ld, 0): margin 1 if the protocol's δ there is 0, else −inf."""
    from gspa.studies.flame.analysis import compose_dims

    eps_ld = V.real("eps_ld", eps_ld, low=0.0, high=700.0, low_open=True, scalar=True)
    frac = V.real("eps_cd_frac", eps_cd_frac, low=0.0, high=1.0, scalar=True)
    dcd = one_dimension_delta(n, eps_ld, frac * eps_ld)
    if dcd <= 0.0:
        return (
            1.0 if whole_vector_delta_counts(n, d, eps_ld, d * frac * eps_ld) <= 0.0 else -math.inf
        )
    eps_c, delta_c = compose_dims(frac * eps_ld, dcd, d)
    return float(1.0 - whole_vector_delta_counts(n, d, eps_ld, eps_c) / delta_c)


def one_permutation_confirm(n: int, d: int, eps_ld: float, eps_cd_frac: float) -> bool:
    """Re-verify a violation of :func:`one_permutation_margin` with the independent
    :func:`whole_vector_delta_sequential`: True when the printed protocol's δ at Theorem 1's ε_c exceeds δ_c."""
    from gspa.studies.flame.analysis import compose_dims

    eps_ld = V.real("eps_ld", eps_ld, low=0.0, high=700.0, low_open=True, scalar=True)
    frac = V.real("eps_cd_frac", eps_cd_frac, low=0.0, high=1.0, scalar=True)
    dcd = one_dimension_delta(n, eps_ld, frac * eps_ld)
    if dcd <= 0.0:
        return whole_vector_delta_sequential(n, d, eps_ld, d * frac * eps_ld) > 0.0
    eps_c, delta_c = compose_dims(frac * eps_ld, dcd, d)
    return bool(whole_vector_delta_sequential(n, d, eps_ld, eps_c) > delta_c)
