"""FLAME's privacy accounting as the paper states it, and the numbers of its experiments.

Paper: Liu, Cao, Chen, Guo, Yoshikawa, "FLAME: Differentially Private Federated Learning in the Shuffle
Model" (AAAI 2021). Items: Theorem 1 (eqs. (2)–(3), SS-Simple), Theorem 3 (eqs. (5)–(6), one dimension of
SS-Double), Theorem 4 (the vector of SS-Double/SS-Topk), Definition 3, Proposition 2 and Theorem 5 (index
privacy), and the "Evaluations" section's numbers.

**What the paper leaves open, taken from its authors' code** (github.com/Rachelxuan11/FLAME at commit
be9acb0ce6ca4d2b2f000658bfefdd152274b477: ``get_budget.py``, ``flearn/counter/baseCounter.py``,
``ssflv1.py``, ``ssflv2.py``): the central δ is 0.01 / n^1.1 (5.01e-6 for n = 1,000 users per round: the
paper's "5 × 10⁻⁶"); the per-dimension shuffle bound is Balle et al.'s numerical "Bennett" bound for the
Laplace mechanism on [0, 1] (``gspa.privacy.peers.blanket.balle_blanket_epsilon``, re-derived there); the
dimension-level δ is δ_c/(T + 1) for T composed dimensions and, in SS-Double, δ_c/(T + 1)/β before
subsampling (Lemma 4's (m/n)δ read backwards); composition takes the smaller of basic and advanced
composition (Lemmas 2–3) with δ' = δ_cd; ε_l = 78.5 is split as 7,850 × 0.01 (SS-Simple) and 157 × 0.5
(SS-Double, β = 1/50, k = ⌊7850·β⌋ = 157), with n_p = ⌊1000/3⌋ = 333 padded messages per dimension.

These are the paper's formulas; they are not certified bounds. Where a step does not hold, the book's
chapter says so (``notebooks/flame/accounting.md``).
"""

from __future__ import annotations

import math

import numpy as np

from gspa.privacy.peers.blanket import balle_blanket_epsilon
from gspa.privacy.shuffle.composition import advanced, basic
from gspa.util import validate as V

PAPER = {
    "d": 7850,
    "n": 1000,
    "eps_l": 78.5,
    "eps_ld": 0.01,
    "eps_lk": 0.5,
    "beta": 1 / 50,
    "n_over_np": 3,
}

# Limits of the arguments.
MAX_EPS = 700.0  # local budgets: e^eps stays finite (gspa.studies.flame.domains.MAX_EPS)
MAX_COUNTS = 10**7  # binomial laws held in memory (m + 1 floats each); domains.MAX_USERS = 10^7
MAX_CLOSED = 10**15  # sizes that enter closed forms only (integers exact as floats)
MAX_POINTS = 10**4  # budgets per call of the Figure 3 functions
_BLOCK = 1 << 22  # elements of one block of the hockey-stick sums (memory)


def _budget(name, value):
    """A local budget in (0, MAX_EPS]."""
    return V.real(name, value, low=0.0, low_open=True, high=MAX_EPS, scalar=True)


def _hockey(P0, P1, eps) -> np.ndarray:
    """Σ (P0 − e^ε P1)_+ for each ε in the flat array ``eps`` (≥ 0, inf allowed: the mass of P0 where P1 is
    0), in blocks of rows of at most _BLOCK elements; each row's sum is the same as the whole matrix's."""
    out = np.empty(eps.size)
    step = max(1, _BLOCK // max(P0.size, 1))
    pos = P1 > 0
    for i in range(0, eps.size, step):
        with np.errstate(
            over="ignore", invalid="ignore"
        ):  # e^ε = inf times P1 = 0: taken as 0 below
            e = np.exp(eps[i : i + step])[:, None]
            scaled = np.where(pos[None, :], e * P1[None, :], 0.0)
        out[i : i + step] = np.maximum(P0[None, :] - scaled, 0.0).sum(axis=1)
    return out


def delta_c_code(n: int) -> float:
    """The central δ of the authors' code: 0.01 / n^1.1 (baseCounter.py); n in [1, 10^15]."""
    n = V.integer("n", n, low=1, high=10**15)
    return 0.01 / n**1.1


def compose_dims(eps_cd: float, delta_cd: float, t: int) -> tuple[float, float]:
    """Theorem 1 eqs. (2)–(3) and Theorem 4 (with t = 2βd): ε_c = t ε_cd ∧ (ε_cd √(2t log(1/δ_cd)) +
    t ε_cd (e^ε_cd − 1)), δ_c = δ_cd (t + 1) — Lemma 2 or Lemma 3 with δ' = δ_cd, whichever is smaller."""
    e_basic, _ = basic(eps_cd, delta_cd, t)
    e_adv, d_adv = advanced(eps_cd, delta_cd, t, delta_cd)
    return min(e_basic, e_adv), d_adv


def theorem3(eps_ck: float, beta: float) -> float:
    """Theorem 3 eq. (6): ε_cd = log(1 + β (e^ε_ck − 1)) (Lemma 4 applied to one dimension's shuffle), for
    any ε_ck in [0, inf] (above 700, where e^ε_ck overflows, in the equal log form of
    :func:`gspa.privacy.basics.subsampling.amplify_epsilon`)."""
    from gspa.privacy.basics.subsampling import amplify_epsilon

    eps_ck = V.real("eps_ck", eps_ck, low=0.0, scalar=True)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    return float(amplify_epsilon(eps_ck, beta))


def shuffle_eps(eps_local: float, messages: int, delta: float, version: str = "flame") -> float:
    """ε of one dimension's shuffle of ``messages`` Laplace reports with budget ``eps_local`` at ``delta``,
    by Balle et al.'s numerical bound: ``version="flame"`` as FLAME's code computes it (not a bound: the
    blanket chapter finds it below the real protocol's certified lower bound at some settings), ``"bbgn19"``
    as BBGN19's authors corrected it (:data:`gspa.privacy.peers.blanket.BENNETT_VERSIONS`); ``"lemma1"``: FLAME
    Lemma 1's closed form for R_γ,b with b = 2 (the paper's formula, used for Figure 3; a proven bound only
    where its condition ε ≤ 1 holds, which the caller checks on the returned value)."""
    if version == "lemma1":
        return lemma1_eps_ck(eps_local, messages, delta)[0]
    return balle_blanket_epsilon(delta, eps_local, 2, messages, "laplace", version=version)


def ss_simple_epoch(
    eps_ld: float, d: int, n: int, delta_c: float, *, version: str = "flame"
) -> dict:
    """SS-Simple for one epoch (each user in one round): Lemma 1's role played by the numerical bound at
    δ_cd = δ_c/(d + 1), then Theorem 1 over d dimensions."""
    d = V.integer("d", d, low=1)
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    delta_cd = delta_c / (d + 1)
    eps_cd = shuffle_eps(eps_ld, n, delta_cd, version)
    eps_c, dc = compose_dims(eps_cd, delta_cd, d)
    return {"eps_cd": eps_cd, "delta_cd": delta_cd, "eps_c": eps_c, "delta_c": dc}


def ss_double_epoch(
    eps_lk: float,
    d: int,
    beta: float,
    n_p: int,
    delta_c: float,
    *,
    subsampling: bool = True,
    dims: str = "2k",
    version: str = "flame",
) -> dict:
    """SS-Double (and SS-Topk, which the paper says "shares the same double amplification") for one epoch,
    as the paper and its code compute it: k = ⌊βd⌋ sampled dimensions; T = 2k composed dimensions
    (Theorem 4's 2βd; ``dims="k"``: k); δ_cd = δ_c/(T + 1); per dimension the shuffle of n_p padded messages
    at δ_ck = δ_cd/β (Theorem 3 eq. (5)), amplified by subsampling (eq. (6)) unless ``subsampling=False``
    (then at δ_cd, the paper's "20.53" reading); then composition over T."""
    d = V.integer("d", d, low=1)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    n_p = V.integer("n_p", n_p, low=2)
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    subsampling = V.boolean("subsampling", subsampling)
    from gspa.studies.flame.protocols import sample_size

    k = sample_size(beta, d)
    t = 2 * k if dims == "2k" else k
    delta_cd = delta_c / (t + 1)
    if subsampling:
        delta_ck = delta_cd / beta
        eps_ck = shuffle_eps(eps_lk, n_p, delta_ck, version)
        eps_cd = theorem3(eps_ck, beta)
    else:
        delta_ck, eps_ck = delta_cd, shuffle_eps(eps_lk, n_p, delta_cd, version)
        eps_cd = eps_ck
    eps_c, dc = compose_dims(eps_cd, delta_cd, t)
    return {
        "k": k,
        "dims": t,
        "eps_ck": eps_ck,
        "delta_ck": delta_ck,
        "eps_cd": eps_cd,
        "delta_cd": delta_cd,
        "eps_c": eps_c,
        "delta_c": dc,
    }


def fig3_ratios(eps_dim, d: int, n: int, n_p: int, beta: float, delta_c: float) -> dict:
    """FLAME Figure 3: the amplification ratio ε_l/ε_c of SS-Simple (Lemma 1 with b = 2, then Theorem 1 over
    d dimensions; ε_l = d·ε_ld) and of SS-Double (eqs. (5)–(6), then Theorem 4 over 2k dimensions,
    k = ⌊βd⌋; ε_l = k·ε_lk) at the same per-dimension budget ``eps_dim`` (ε_ld = ε_lk), as the paper's text
    describes the figure. The paper states none of n, n_p, β, δ_c or b for it: they are arguments here.
    Returns arrays over ``eps_dim``: ``simple``, ``double`` (the ratios), ``simple_ok``, ``double_ok``
    (Lemma 1's condition ε ≤ 1 holds for the per-dimension ε). ``eps_dim`` in (0, 700], at most 10^4 values;
    d, n, n_p at most 10^15 (closed forms)."""
    eps_dim = V.real(
        "eps_dim", eps_dim, low=0.0, low_open=True, high=MAX_EPS, max_size=MAX_POINTS
    ).ravel()
    d = V.integer("d", d, low=1, high=MAX_CLOSED)
    n, n_p = (
        V.integer("n", n, low=2, high=MAX_CLOSED),
        V.integer("n_p", n_p, low=2, high=MAX_CLOSED),
    )
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    from gspa.studies.flame.protocols import sample_size

    sample_size(beta, d)  # k = floor(beta d) >= 1, checked before any work
    out = {key: np.empty(eps_dim.size) for key in ("simple", "double")}
    ok = {key: np.empty(eps_dim.size, dtype=bool) for key in ("simple_ok", "double_ok")}
    for i, e in enumerate(eps_dim):  # a few dozen scalar evaluations of closed forms
        s = ss_simple_epoch(float(e), d, n, delta_c, version="lemma1")
        t = ss_double_epoch(float(e), d, beta, n_p, delta_c, version="lemma1")
        out["simple"][i], ok["simple_ok"][i] = d * e / s["eps_c"], s["eps_cd"] <= 1.0
        out["double"][i], ok["double_ok"][i] = t["k"] * e / t["eps_c"], t["eps_ck"] <= 1.0
    return {**out, **ok}


def fig3_exact(eps_dim, d: int, n: int, n_p: int, beta: float, delta_c: float) -> dict:
    """FLAME Figure 3's ratio ε_l/ε_c recomputed with certified accounting, at each per-dimension budget in
    ``eps_dim`` (binary randomized response, b = 2, δ_c the central δ):

    * ``simple``: SS-Simple — the certified per-dimension pair of n shuffled reports
      (:func:`gspa.privacy.peers.blanket.blanket_pair`, header reading) composed exactly over d dimensions
      (:func:`gspa.privacy.shuffle.composition.compose`); ε_l = d·ε_ld;
    * ``double``: SS-Double under the reading that has a proof — its k = ⌊βd⌋ sampled dimensions without
      amplification by subsampling (Theorem 4 as stated is false, see :func:`theorem4_on_tiny`): the
      certified pair of n_p shuffled messages (the padding dummies are uniform bits, blanket draws, so n_p
      binary-RR reporters are a conservative stand-in) composed exactly over k; ε_l = k·ε_lk.

    Certified upper bounds on ε_c, hence lower bounds on the ratios (inf where the certified ε_c is 0).
    ``eps_dim`` in (0, 700], at most 100 values (each is two exact compositions, seconds each at the book's
    d = 75,755); d at most the composition's 10^5 rounds; n, n_p at most 10^7."""
    from gspa.privacy.peers.blanket import blanket_pair
    from gspa.privacy.shuffle.composition import MAX_ROUNDS, compose
    from gspa.studies.flame.protocols import sample_size

    eps_dim = V.real("eps_dim", eps_dim, low=0.0, low_open=True, high=MAX_EPS, max_size=100).ravel()
    d = V.integer("d", d, low=1, high=MAX_ROUNDS)
    n, n_p = (
        V.integer("n", n, low=2, high=MAX_COUNTS),
        V.integer("n_p", n_p, low=2, high=MAX_COUNTS),
    )
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    k = sample_size(beta, d)

    def ratio(dims, e, messages, t):
        ec = compose(blanket_pair(float(e), 2, messages, "header"), t).epsilon(delta_c)
        return dims * e / ec if ec > 0 else math.inf

    out = {"simple": np.empty(eps_dim.size), "double": np.empty(eps_dim.size)}
    for i, e in enumerate(eps_dim):  # a handful of budgets; each composition is one FFT power
        out["simple"][i] = ratio(d, e, n, d)
        out["double"][i] = ratio(k, e, n_p, k)
    return out


# -- index privacy (SS-Topk) ------------------------------------------------------------------------


def nu_of_l(l: int, beta: float) -> float:
    """Definition 3 for Algorithm 4: each user reports lk indexes of which k are its Top-k, so the shuffler's
    posterior that a reported index is Top-k is 1/l against the prior β. The smallest ν meeting both
    inequalities is max(1, 1/(lβ), (1 − β)/(1 − 1/l)) — the paper's l ≥ max{1/(νβ), ν/(ν − 1 + β)} solved
    for ν. For l = 1 the second inequality (Pr[I_j = 0 | reported] = 0 ≥ (1 − β)/ν) holds for no finite ν:
    inf, "no index privacy" (Proposition 2 puts that end of the range at 1/β, the first inequality's value)."""
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    l = V.integer("l", l, low=1, high=max(1, math.ceil(1 / beta)))
    if l == 1:
        return math.inf
    return float(max(1.0, 1 / (l * beta), (1 - beta) / (1 - 1 / l)))


def theorem5_nu(n_p: int, n: int, beta: float) -> tuple[float, int]:
    """Theorem 5: the strongest index privacy ν = max{1, 1/(⌊n_p/(nβ)⌋ β)}, with l = ⌊n_p/(nβ)⌋ (the most
    reports per user that n_p padded messages per dimension hold on average)."""
    n_p, n = V.integer("n_p", n_p, low=1), V.integer("n", n, low=1)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    l = int(n_p // (n * beta))
    if l < 1:
        raise ValueError(f"n_p = {n_p} holds less than one report per user (n beta = {n * beta:g})")
    return float(max(1.0, 1 / (l * beta))), l


def index_posterior(d: int, beta: float, l: int, users: int, rng: np.random.Generator) -> float:
    """Simulated shuffler's view of Algorithm 4: each user's Top-k (here a random set, the shuffler's prior)
    plus k(l − 1) random other indexes, reported in random order; returns the fraction of reported indexes
    that are Top-k — the posterior Pr[I_j = 1 | j reported] of Definition 3 (vectorised over users).
    k = ⌊dβ⌋ at least 1; users · d at most 10^8 numbers at once; ``rng`` a ``numpy.random.Generator``."""
    d = V.integer("d", d, low=2, high=10**8)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    k = int(d * beta)
    if k < 1:
        raise ValueError(f"k = floor(d beta) must be at least 1, got d = {d}, beta = {beta:g}")
    l = V.integer("l", l, low=1, high=max(1, d // max(k, 1)))
    users = V.integer("users", users, low=1, high=10**8 // d)
    rng = V.generator("rng", rng)
    ranks = np.argsort(rng.random((users, d)), axis=1)  # a random permutation of [d] per user
    top = ranks[:, :k]  # the Top-k set (random: the prior)
    others = ranks[:, k : k * l]  # k(l - 1) of the remaining indexes
    reported = np.concatenate([top, others], axis=1)
    is_top = np.zeros((users, d), dtype=bool)
    np.put_along_axis(is_top, top, True, axis=1)
    return float(np.take_along_axis(is_top, reported, axis=1).mean())


# -- Theorem 4 on an instance small enough to enumerate -------------------------------------------------


def _tiny_laws(n_p: int, eps_lk: float):
    """The laws (P0, P1) of the count of 1s of :func:`tiny_dimension_profile` (arguments checked there)."""
    from scipy import stats

    c = np.arange(n_p + 1)
    rest = stats.binom.pmf(c, n_p - 1, 0.5)
    shifted = np.concatenate([[0.0], rest[:-1]])
    q = math.exp(eps_lk) / (1 + math.exp(eps_lk))
    return q * rest + (1 - q) * shifted, (1 - q) * rest + q * shifted


def _tiny_profile(laws, eps_grid):
    out = _hockey(*laws, np.atleast_1d(eps_grid).ravel())
    return out.reshape(np.shape(eps_grid)) if np.ndim(eps_grid) else float(out[0])


def tiny_dimension_profile(n_p: int, eps_lk: float, eps_grid) -> np.ndarray:
    """Exact δ(ε) of one padded dimension of the tiny instance when the user's report is in it (n_p − 1
    dummies): the per-dimension shuffle of Theorem 3 before subsampling (the worst case: no other user).
    n_p in [2, 10^7], ``eps_lk`` in (0, 700], ``eps_grid`` >= 0."""
    n_p = V.integer("n_p", n_p, low=2, high=MAX_COUNTS)
    eps_lk = _budget("eps_lk", eps_lk)
    eps_grid = V.nonnegative("eps_grid", eps_grid)
    return _tiny_profile(_tiny_laws(n_p, eps_lk), eps_grid)


def _tiny_sizes(d, n_p):
    """d >= 2 dimensions and n_p >= 2 padded messages."""
    return (
        V.integer("d", d, low=2, high=MAX_COUNTS),
        V.integer("n_p", n_p, low=2, high=MAX_COUNTS),
    )


def tiny_double_profile(d: int, n_p: int, eps_lk: float, eps_grid) -> np.ndarray:
    """Exact δ(ε) of SS-Double on a tiny instance: one user (k = 1 sampled dimension out of d, so β = 1/d)
    reports binary randomized response with budget ``eps_lk`` of its bit in the sampled dimension; the
    shuffler pads every dimension to ``n_p`` messages with blanket dummies (uniform bits: the blanket of
    binary RR); the analyzer sees each dimension's count of 1s. Neighbours: the user's vector all 0 vs all 1.

    Relative to the null law (every dimension n_p dummies, counts i.i.d. Bin(n_p, 1/2)) the likelihood of
    the counts under input x is (1/d) Σ_j r_x(c_j) with r_x(c) = 2 (q_x c + (1 − q_x)(n_p − c)) / n_p, linear in
    c (since C(n_p − 1, c − 1)/C(n_p, c) = c/n_p). It depends on the counts only through their total, so the
    d padded dimensions are exactly one dimension padded to d·n_p messages: this is
    ``tiny_dimension_profile(d * n_p, ...)``, tested against enumeration of every vector of counts in
    ``tests/studies/flame/test_analysis.py``. d, n_p >= 2."""
    d, n_p = _tiny_sizes(d, n_p)
    return tiny_dimension_profile(d * n_p, eps_lk, eps_grid)


def tiny_epsilon(profile, delta: float, top: float) -> float:
    """The smallest ε in [0, top] with profile(ε) ≤ delta (bisection to 1e-12, rounded up); ``top`` in
    [0, 700], ``delta`` in [0, 1]."""
    profile = V.function("profile", profile)
    delta = V.probability("delta", delta, scalar=True)
    top = V.real("top", top, low=0.0, high=700.0, scalar=True)
    if profile(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, top
    while hi - lo > 1e-12 * max(hi, 1.0):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if profile(mid) <= delta else (mid, hi)
    return hi


def lemma1_eps_ck(eps_lk: float, n_p: int, delta_ck: float, b: int = 2) -> tuple[float, bool]:
    """Theorem 3 eq. (5) at δ_ck = δ_cd/β (FLAME Lemma 1's closed form over n_p messages): ε_ck =
    √(14 log(2/δ_ck)(e^ε_lk + b − 1)/(n_p − 1)), and whether Lemma 1's condition ε_ck ≤ 1 holds."""
    from gspa.privacy.peers.blanket import lemma1_epsilon

    return lemma1_epsilon(delta_ck, eps_lk, b, n_p)


def theorem4_on_tiny(
    d: int, n_p: int, eps_lk: float, delta_c: float, per_dim: str = "exact"
) -> dict:
    """Theorems 3–4 applied to the tiny instance of :func:`tiny_double_profile` (k = 1, β = 1/d), against the
    exact δ of the whole mechanism at the ε each reading concludes:

    * ``paper``: δ_cd = δ_c/(2βd + 1), ε_ck at δ_cd/β, ε_cd by eq. (6), composed over 2βd = 2 dimensions
      (Theorem 4; the paper gives no reason for 2βd, the authors' code has ``compose_d = 2*split_d``);
    * ``sampled dims``: the k = 1 sampled dimension without subsampling (ε_ck at δ_c) — valid by a proof:
      the sampled indexes do not depend on the data, so condition on them and compose over those k;
    * ``all dims``: the subsampled ε_cd composed over all d dimensions (δ_cd = δ_c/(d + 1)) — no proof (the
      dimensions are dependent through the shared choice of indexes); an empirical comparison only.

    ``per_dim``: the per-dimension guarantee ε_ck — ``"exact"``, that of the padded shuffle computed exactly
    (any valid guarantee must do), or ``"eq5"``, Theorem 3's own eq. (5) (:func:`lemma1_eps_ck`), used only
    where Lemma 1's condition ε_ck ≤ 1 holds: a reading whose ε_ck falls outside it is left out of the result
    (and the ``paper`` reading outside it is an error).

    Returns each reading's (ε_c, δ_c) and the true δ(ε_c) of the mechanism (a value above δ_c refutes it).
    d, n_p >= 2 (the counts of all dimensions are held), ``eps_lk`` in (0, 700]."""
    d, n_p = _tiny_sizes(d, n_p)
    eps_lk = _budget("eps_lk", eps_lk)
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    beta = 1.0 / d
    laws = (
        _tiny_laws(n_p, eps_lk) if per_dim == "exact" else None
    )  # one dimension's laws, for every bisection

    def dim(dlt):
        if per_dim == "exact":
            return tiny_epsilon(
                lambda e: _tiny_profile(laws, V.nonnegative("eps", e)), min(dlt, 1.0), eps_lk
            )
        e, ok = lemma1_eps_ck(eps_lk, n_p, dlt)
        return e if ok else None

    out = {}
    for name, t in (("paper", 2), ("all dims", d), ("sampled dims", None)):
        delta_cd = delta_c if t is None else delta_c / (t + 1)
        eps_ck = dim(delta_cd if t is None else delta_cd / beta)
        if eps_ck is None:
            if name == "paper":
                raise ValueError(
                    f"eq. (5) gives eps_ck > 1 with n_p = {n_p}, eps_lk = {eps_lk:g}, delta_c = "
                    f"{delta_c:g}: outside Lemma 1's condition; n_p must be larger"
                )
            continue
        if t is None:
            out[name] = {"eps_c": eps_ck, "delta_c": delta_c}
        else:
            eps_c, dc = compose_dims(theorem3(eps_ck, beta), delta_cd, t)
            out[name] = {"eps_c": eps_c, "delta_c": dc}
    for r in out.values():
        r["true_delta"] = tiny_double_profile(d, n_p, eps_lk, r["eps_c"])
    return out


# -- Theorems 2 and 3 on one dimension, computed exactly ------------------------------------------------


def theorem4_table(cases):
    """:func:`theorem4_on_tiny` over ``cases`` of (d, n_p, eps_lk, delta_c, per_dim): a DataFrame with one row per
    case — d, n_p, β = 1/d, ε_lk, δ_c, the per-dimension guarantee, and for each reading its ε_c and the true
    δ(ε_c)/δ_c (missing where eq. (5) is outside Lemma 1's condition)."""
    import pandas as pd

    rows = []
    for d, n_p, eps_lk, delta_c, per_dim in cases:
        d, n_p = _tiny_sizes(d, n_p)
        eps_lk, delta_c = (
            _budget("eps_lk", eps_lk),
            V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True),
        )
        r = theorem4_on_tiny(d, n_p, eps_lk, delta_c, per_dim=per_dim)
        rows.append(
            {
                "d": int(d),
                "n_p": int(n_p),
                "β": 1 / d,
                "ε_lk": eps_lk,
                "δ_c": delta_c,
                "per dimension": per_dim,
                **{f"{name}: ε_c": v["eps_c"] for name, v in r.items()},
                **{
                    f"{name}: true δ(ε_c)/δ_c": v["true_delta"] / v["delta_c"]
                    for name, v in r.items()
                },
            }
        )
    return pd.DataFrame(rows)


def subsampled_rr_delta(m: int, beta: float, eps_l: float, eps, p_other: float):
    """Exact δ(ε) of one dimension in which the analyzer sees the count of 1s among ``m`` binary reports and
    the differing user's report (binary randomized response of its bit with budget ``eps_l``: Algorithm 1 with
    b = 2, γ = 2/(e^eps_l + 1)) is among them with probability ``beta``; otherwise its place is taken by one
    more message of the others. Each other message is 1 with probability ``p_other``, independently:

    * FLAME Theorem 2 (subsampling m = n_s of n users without replacement, β = n_s/n), the other users' bits
      all equal: ``p_other`` = 1 − q (all 0) or q (all 1), q = e^eps_l/(1 + e^eps_l) — one data set, so
      the value is a lower bound on the worst case over data sets (enough to refute, not to certify);
    * FLAME Theorem 3 (one padded dimension of SS-Double, m = n_p): the others are blanket dummies,
      ``p_other`` = 1/2 (with ``beta`` = 1 this is :func:`tiny_dimension_profile`).

    Neighbours: the user's bit 0 against 1 (replacement); the larger of the two directions. m in [1, 10^7],
    ``eps_l`` in [0, 700], ``eps`` >= 0 (inf allowed)."""
    m = V.integer("m", m, low=1, high=MAX_COUNTS)
    eps_arr = V.nonnegative("eps", eps)
    P0, P1 = _subsampled_laws(m, beta, eps_l, p_other)
    flat = eps_arr.ravel()
    out = np.maximum(_hockey(P0, P1, flat), _hockey(P1, P0, flat))
    return out.reshape(eps_arr.shape) if eps_arr.ndim else float(out[0])


def _subsampled_laws(m, beta, eps_l, p_other):
    """The two laws (user's bit 0, 1) of the count of 1s of :func:`subsampled_rr_delta`."""
    from scipy import stats

    m = V.integer("m", m, low=1, high=MAX_COUNTS)
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    eps_l = V.real("eps_l", eps_l, low=0.0, high=MAX_EPS, scalar=True)
    p_other = V.probability("p_other", p_other, scalar=True)
    c = np.arange(m + 1)
    rest = stats.binom.pmf(c, m - 1, p_other)  # the m − 1 others when the user is present
    shifted = np.concatenate([[0.0], rest[:-1]])
    absent = stats.binom.pmf(c, m, p_other)  # m others when it is not
    q = math.exp(eps_l) / (1.0 + math.exp(eps_l))
    P0 = beta * (q * rest + (1 - q) * shifted) + (1 - beta) * absent
    P1 = beta * ((1 - q) * rest + q * shifted) + (1 - beta) * absent
    return P0, P1


def subsampled_rr_epsilon(m: int, beta: float, eps_l: float, delta: float, p_other: float) -> float:
    """The exact ε at ``delta`` of the mechanism of :func:`subsampled_rr_delta` (the smallest ε with
    δ(ε) ≤ ``delta``, both directions; bisection to 1e-12 relative, rounded up; at most ``eps_l``, since the
    mechanism is ``eps_l``-DP). Its two laws are computed once, so m up to 10^7 takes well under a second per
    call. Arguments as for :func:`subsampled_rr_delta`; ``delta`` in [0, 1]."""
    P0, P1 = _subsampled_laws(m, beta, eps_l, p_other)
    delta = V.probability("delta", delta, scalar=True)
    prof = lambda e: max(
        float(_hockey(P0, P1, np.array([e]))[0]), float(_hockey(P1, P0, np.array([e]))[0])
    )
    return tiny_epsilon(prof, delta, float(eps_l))


def subsampled_rr_delta_equal_bits(m: int, beta: float, eps_l: float, eps):
    """:func:`subsampled_rr_delta` for the two data sets in which every other user holds the same bit (all 0,
    all 1: ``p_other`` = 1 − q or q, q = e^eps_l/(1 + e^eps_l)), the larger δ of the two — the data sets of
    the theorems chapter's checks of FLAME Theorem 2 and Lemma 4 (a lower bound on the worst case).
    Arguments as for :func:`subsampled_rr_delta`; a float for a single ``eps``, else an array of its shape."""
    eps_l = V.real("eps_l", eps_l, low=0.0, high=MAX_EPS, scalar=True)
    q = math.exp(eps_l) / (1 + math.exp(eps_l))
    a, b = (subsampled_rr_delta(m, beta, eps_l, eps, p) for p in (q, 1 - q))
    return np.maximum(a, b) if np.ndim(a) else max(a, b)


def theorem2(
    eps_l: float, n_s: int, beta: float, delta_cd: float, b: int = 2
) -> tuple[float, float, bool]:
    """FLAME Theorem 2 eq. (4) (and Theorem 3 eqs. (5)–(6) with n_p for n_s): Lemma 1 over n_s messages at
    δ' = δ_cd/β, then Lemma 4: ε_cd = log(1 + β(e^ε' − 1)). Returns (ε', ε_cd, Lemma 1's condition holds).
    The paper's γ is written with ε_ld and eq. (4) with ε_lk; both are the one local budget ``eps_l`` here."""
    beta = V.probability("beta", beta, open_low=True, scalar=True)
    delta_cd = V.probability("delta_cd", delta_cd, open_low=True, open_high=True, scalar=True)
    if not delta_cd < 2 * beta:
        raise ValueError(f"delta_cd must be < 2 beta = {2 * beta:g} (Theorem 2), got {delta_cd:g}")
    eps1, ok = lemma1_eps_ck(eps_l, n_s, min(delta_cd / beta, 0.999999), b)
    return eps1, theorem3(eps1, beta), ok


def _padded_sizes(n_s: int, n_p: int, b: int, gamma: float):
    """n_s <= n_p users and messages (at most 10^12), b in [2, 10^6], γ in (0, 1)."""
    n_s, n_p = V.integer("n_s", n_s, low=1, high=10**12), V.integer("n_p", n_p, low=1, high=10**12)
    b = V.integer("b", b, low=2, high=10**6)
    gamma = V.probability("gamma", gamma, open_low=True, open_high=True, scalar=True)
    return n_s, n_p, b, gamma


def _padded_parts(n_s: int, n_p: int, b: int, gamma: float, x):
    n_s, n_p, b, gamma = _padded_sizes(n_s, n_p, b, gamma)
    return n_s, n_p, b, gamma, V.probability("x", x).ravel()


def padded_mean(reports_sum, n_s: int, n_p: int, b: int, gamma: float):
    """The analyzer's unbiased estimate of the mean of the n_s real values in [0, 1] from the sum of one padded
    dimension's n_p reports in {1..b} (Algorithm 1, header reading: x̄ = 1 + round(x(b − 1)); n_p − n_s
    dummies uniform on {1..b}, Algorithm 3): (S − (n_p − n_s(1 − γ))(b + 1)/2 − n_s(1 − γ)) / (n_s(1 − γ)(b − 1)).
    ``reports_sum`` finite within 1e300 in size."""
    n_s, n_p, b, gamma = _padded_sizes(n_s, n_p, b, gamma)
    reports_sum = V.finite("reports_sum", reports_sum, low=-1e300, high=1e300)
    u = (b + 1) / 2.0
    return (reports_sum - (n_p - n_s * (1 - gamma)) * u - n_s * (1 - gamma)) / (
        n_s * (1 - gamma) * (b - 1)
    )


def padded_mean_std(
    n_s: int, n_p: int, b: int, gamma: float, x, reps: int, rng: np.random.Generator
) -> float:
    """Simulated standard deviation of :func:`padded_mean` over ``reps`` runs (FLAME Proposition 1's
    quantity): the n_s users' reports by :func:`gspa.privacy.peers.blanket.blanket_randomize`, the dummies' sum as a
    multinomial draw of n_p − n_s uniform symbols (vectorised over runs)."""
    from gspa.privacy.peers.blanket import blanket_randomize

    n_s, n_p, b, gamma, x = _padded_parts(n_s, n_p, b, gamma, x)
    reps = V.integer("reps", reps, low=2)
    eps_l = float(np.log(b / gamma - b + 1))  # the budget whose blanket probability is gamma
    real = blanket_randomize(np.broadcast_to(x, (reps, n_s)), eps_l, b, rng, "header").sum(axis=1)
    dummies = rng.multinomial(n_p - n_s, np.full(b, 1.0 / b), size=reps) @ np.arange(1, b + 1)
    return float(np.std(padded_mean(real + dummies, n_s, n_p, b, gamma), ddof=1))


def padded_mean_std_exact(n_s: int, n_p: int, b: int, gamma: float, x) -> float:
    """The exact standard deviation that :func:`padded_mean_std` estimates (independent reports)."""
    n_s, n_p, b, gamma, x = _padded_parts(n_s, n_p, b, gamma, x)
    xb = x * (b - 1)
    lo = np.floor(xb)
    f = xb - lo
    m1 = 1 + lo + f
    m2 = (1 + lo) ** 2 * (1 - f) + (2 + lo) ** 2 * f
    u1, u2 = (b + 1) / 2.0, (b + 1) * (2 * b + 1) / 6.0
    var_real = (1 - gamma) * m2 + gamma * u2 - ((1 - gamma) * m1 + gamma * u1) ** 2
    var = var_real.sum() + (n_p - n_s) * (u2 - u1**2)
    return float(np.sqrt(var) / (n_s * (1 - gamma) * (b - 1)))


def best_blanket_size(
    n_s: int, n_p: int, eps_ck: float, delta_ck: float, x
) -> tuple[float, int, float]:
    """For FLAME Proposition 1 at a fixed ε_ck: the b ≥ 2 whose blanket γ (Lemma 1 solved for γ at ε_ck,
    δ_ck over n_p messages: γ = 14 b log(2/δ_ck)/((n_p − 1) ε_ck²), which must stay below 1) gives the smallest
    exact standard deviation (:func:`padded_mean_std_exact`) of the padded estimate of the mean of ``x``.
    Returns (std, b, γ); a ``ValueError`` if γ ≥ 1 already at b = 2. n_s in [1, 10^4] (each of up to
    10^4 values of b costs one pass over ``x``), n_s <= n_p <= 10^12 with n_p >= 2, ``eps_ck`` in (0, 700],
    ``delta_ck`` in (0, 1), ``x`` n_s values in [0, 1]."""
    n_s = V.integer("n_s", n_s, low=1, high=10**4)
    n_p = V.integer("n_p", n_p, low=max(2, n_s), high=10**12)
    eps_ck = _budget("eps_ck", eps_ck)
    delta_ck = V.probability("delta_ck", delta_ck, open_low=True, open_high=True, scalar=True)
    x = V.probability("x", x).ravel()
    denom = (n_p - 1) * eps_ck**2
    best = None
    for b in range(2, 10_000):  # γ grows with b: the loop ends where it reaches 1
        g = 14 * b * math.log(2 / delta_ck) / denom if denom > 0 else math.inf
        if g >= 1:
            break
        s = padded_mean_std_exact(n_s, n_p, b, g, x)
        if best is None or s < best[0]:
            best = (s, b, g)
    if best is None:
        raise ValueError(
            f"n_p = {n_p} is too small for eps_ck = {eps_ck} at delta_ck = {delta_ck} (gamma > 1 for every b)"
        )
    return best


def loglog_slope(x, y) -> float:
    """Least-squares slope of log y against log x (a fitted exponent)."""
    x, y = V.positive("x", x).ravel(), V.positive("y", y).ravel()
    if x.size != y.size or x.size < 2:
        raise ValueError(f"x and y must have the same size >= 2, got {x.size} and {y.size}")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
