"""FLAME's padded protocols *as printed*: each user's values travel as one message.

Paper: Liu, Cao, Chen, Guo, Yoshikawa, "FLAME: Differentially Private Federated Learning in the Shuffle
Model" (AAAI 2021). In Algorithm 2 a user sends one message m_i = <idx_i, Enc(y_i)> (line 12) holding all
its reported values; Algorithm 3 (SS-Double's and SS-Topk's shuffler) pads with *dummy vectors* of k blanket
values each (lines 5-11) and permutes the n + v messages (lines 13-14). The analyzer therefore sees which
values came together. Theorems 1 and 4 (and the book's repair, the k sampled dimensions composed without
subsampling) compose per-dimension shuffles as separate mechanisms; the printed protocol is not that.

This module bounds the printed protocol's δ(ε) *from below* on one explicit pair of neighbouring data sets:

* the differing user's update maps to x~ = 1 on every dimension against x~ = 0 (x = +C against −C: its
  |x| is the same, so SS-Topk's Top-k set is too);
* every value is reduced to one bit: binary randomized response (Algorithm 1 with b = 2, the randomizer of
  Theorems 3-4) *is* a bit; a Laplace report y (the experiments' randomizer, blanket Laplace(1/2, 1/ε)) is
  reduced to [y > 1/2], 1 with probability 1 − e^(−ε/2)/2 for x~ = 1, e^(−ε/2)/2 for x~ = 0, 1/2 for a
  blanket value;
* the other users' messages are blanket-like (``others='blanket'``: updates 0, x~ = 1/2, every bit uniform,
  the data set SS-Double and SS-Simple allow) or, for SS-Topk, half +C and half −C on their own Top-k
  (``others='signed'``: their Top-k sets can then tile the dimensions without overflow);
* the analyzer's view (the multiset of messages) is post-processed to T, the number of messages whose count
  of 1s is at least a threshold t. T is the sum of independent indicators: a binomial for the other users,
  one for the dummies, and one Bernoulli for the differing user, whose law alone depends on its input.

Post-processing and fixing one pair can only lower δ, and extra uniform dummy messages can be added by the
analyzer itself (so rounding the dummy count v up lowers δ too): the exact δ(ε) of T, maximised over t, is a
certified lower bound on the printed protocol's δ(ε). :func:`threshold_delta_mp` recomputes it in 50-digit
arithmetic by another route (tails and convolutions summed term by term, outcomes beyond a window dropped,
which lowers δ again); :func:`linked_delta_exact` is the exact δ of the whole multiset of value vectors on
small instances (tests compare it with enumeration of every tuple and with the threshold bound).
"""

from __future__ import annotations

import math

import numpy as np

from gspa.util import validate as V

MAX_K = 10**6  # values per message (SS-Simple: k = d)
MAX_MESSAGES = 10**7  # users plus dummy messages


def _eps(name, value):
    return V.real(name, value, low=0.0, low_open=True, high=700.0, scalar=True)


def bit_probability(randomizer: str, eps_l: float) -> float:
    """P[bit = 1] for a value x~ = 1 reported with budget ``eps_l`` in (0, 700]: binary randomized response
    (``'rr'``, e^ε/(1 + e^ε)) or the Laplace randomizer on [0, 1] reduced to [y > 1/2] (``'laplace'``,
    1 − e^(−ε/2)/2). For x~ = 0 it is one minus this; a blanket value gives 1/2."""
    eps_l = _eps("eps_l", eps_l)
    if randomizer == "rr":
        return 1.0 / (1.0 + math.exp(-eps_l))
    return 1.0 - 0.5 * math.exp(-eps_l / 2.0)


def dummy_messages(d: int, n_p: int, k: int, n: int, l: int = 1) -> int:
    """Algorithm 3 line 5: v = Σ_j n_{n,j}/k dummy vectors. Every user reports lk values (l = 1 for
    SS-Double and the authors' SS-Topk), so Σ_j n_{s,j} = nlk and v = (d n_p − nlk)/k whatever the indexes;
    rounded up (more blanket messages only lower δ). Needs d n_p ≥ nlk (no dimension can be short of
    values on average); d, n_p, k, n, l ≥ 1, k ≤ d."""
    d, n_p = V.integer("d", d, low=1, high=MAX_K), V.integer("n_p", n_p, low=1, high=MAX_MESSAGES)
    k, n = V.integer("k", k, low=1, high=d), V.integer("n", n, low=1, high=MAX_MESSAGES)
    l = V.integer("l", l, low=1, high=d)
    if d * n_p < n * l * k:
        raise ValueError(
            f"d n_p = {d * n_p} must be at least n l k = {n * l * k} (Algorithm 3 pads up to n_p)"
        )
    return -(-(d * n_p - n * l * k) // k)


def _sizes(k, users, dummies):
    k = V.integer("k", k, low=1, high=MAX_K)
    users = V.integer("users", users, low=1, high=MAX_MESSAGES)
    dummies = V.integer("dummies", dummies, low=0, high=MAX_MESSAGES)
    return k, users, dummies


def _tail(k, p, t):
    """P[Bin(k, p) >= t]."""
    from scipy import stats

    return float(stats.binom.sf(t - 1, k, p))


def _others_tail(k, q, t, others):
    from scipy import stats

    if others == "blanket":
        return _tail(k, 0.5, t)
    a, b = (k + 1) // 2, k // 2  # a values at x~ = 1, b at x~ = 0
    law = np.convolve(
        stats.binom.pmf(np.arange(a + 1), a, q), stats.binom.pmf(np.arange(b + 1), b, 1 - q)
    )
    return float(law[t:].sum())


def _binom_window(m, p):
    """The pmf of Bin(m, p) on the window where it exceeds 1e-300 relative to nothing (start, values)."""
    from scipy import stats

    if m == 0 or p == 0.0:
        return 0, np.array([1.0])
    mean, sd = m * p, math.sqrt(m * p * (1 - p))
    lo, hi = max(0, int(mean - 40 * sd - 40)), min(m, int(mean + 40 * sd + 40))
    return lo, stats.binom.pmf(np.arange(lo, hi + 1), m, p)


def _hockey(a, b, eps):
    """Σ (a − e^ε b)^+ (terms where e^ε b overflows are 0)."""
    with np.errstate(over="ignore"):
        return float(np.clip(a - math.exp(min(eps, 700.0)) * b, 0.0, None).sum())


def threshold_delta(
    k: int, q: float, eps: float, t: int, users: int, dummies: int, others: str = "blanket"
) -> float:
    """Exact δ(``eps``) (both directions) of T, the number of messages with at least ``t`` ones, for the pair
    of the module docstring: ``users`` messages of k values (the differing user's bits 1 with probability
    ``q`` against 1 − q; the other users' as ``others``) and ``dummies`` blanket messages. A certified lower
    bound on the printed protocol's δ(ε) (module docstring). ``q`` in [1/2, 1), ``t`` in [0, k + 1]."""
    k, users, dummies = _sizes(k, users, dummies)
    q = V.real("q", q, low=0.5, high=1.0, high_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    t = V.integer("t", t, low=0, high=k + 1)
    s1, s0 = _tail(k, q, t), _tail(k, 1 - q, t)
    p_d = _tail(k, 0.5, t)
    if min(s1, s0, p_d) == 0.0 or (others == "signed" and _others_tail(k, q, t, others) == 0.0):
        return 0.0  # a tail underflowed: its true value is positive, so 0 is the safe lower bound
    if others == "blanket":
        start, base = _binom_window(users - 1 + dummies, p_d)
    else:
        s_o, b_o = _binom_window(users - 1, _others_tail(k, q, t, others))
        s_d, b_d = _binom_window(dummies, p_d)
        base = np.convolve(b_o, b_d)
    shifted = np.concatenate([[0.0], base])
    base = np.concatenate([base, [0.0]])
    p1, p0 = (1 - s1) * base + s1 * shifted, (1 - s0) * base + s0 * shifted
    return max(_hockey(p1, p0, eps), _hockey(p0, p1, eps))


def _thresholds(k, q, count=240):
    """Thresholds worth trying: every t for small k, else a grid from the blanket mean to 12 standard
    deviations above the differing user's mean."""
    if k <= count:
        return list(range(0, k + 2))
    lo, sd = int(k / 2), math.sqrt(k * q * (1 - q))
    hi = min(k + 1, int(k * q + 12 * sd) + 1)
    return sorted(set(np.linspace(lo, hi, count).round().astype(int).tolist()))


def linked_delta_lower(
    k: int, q: float, eps: float, users: int, dummies: int, others: str = "blanket"
) -> tuple[float, int]:
    """A certified lower bound on the printed protocol's δ(``eps``): :func:`threshold_delta` maximised over
    the threshold t. Returns (δ, t)."""
    k, users, dummies = _sizes(k, users, dummies)
    q = V.real("q", q, low=0.5, high=1.0, high_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    best = (0.0, 0)
    for t in _thresholds(k, q):
        best = max(best, (threshold_delta(k, q, eps, t, users, dummies, others), t))
    return best


def linked_epsilon_lower(
    k: int, q: float, delta: float, users: int, dummies: int
) -> tuple[float, int]:
    """A certified lower bound on the printed protocol's ε at ``delta`` (others blanket): the largest ε at
    which some threshold's δ(ε) still exceeds ``delta`` (bisection to 1e-9 on each threshold, rounded down;
    capped at 700). Returns (ε, t); ε = 0 where no threshold exceeds ``delta`` even at ε = 0."""
    k, users, dummies = _sizes(k, users, dummies)
    q = V.real("q", q, low=0.5, high=1.0, high_open=True, scalar=True)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    best = (0.0, 0)
    for t in _thresholds(k, q):
        f = lambda e: threshold_delta(k, q, e, t, users, dummies) > delta
        if not f(best[0]):
            continue
        lo, hi = best[0], 700.0
        if f(hi):
            return 700.0, t
        while hi - lo > 1e-9 * max(1.0, hi):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if f(mid) else (lo, mid)
        best = (lo, t)
    return best


def threshold_delta_mp(
    k: int,
    eps_l: float,
    randomizer: str,
    eps: float,
    t: int,
    users: int,
    dummies: int,
    others: str = "blanket",
    dps: int = 50,
) -> float:
    """:func:`threshold_delta` recomputed independently in ``dps``-digit arithmetic (mpmath): q from the
    randomizer's budget, every tail a sum of binomial terms, T's law summed term by term on a window of
    ±30 standard deviations around its mean (outcomes beyond it are dropped, which lowers δ). With
    ``others='signed'`` the other users' binomial is also summed on such a window and the mass it leaves out,
    m, is charged: the value returned is the window's δ minus (1 + e^ε) m, still a lower bound. For
    re-verifying a violation: a value above δ_c confirms it. k at most 10^5."""
    import mpmath as mp

    k, users, dummies = _sizes(k, users, dummies)
    k = V.integer("k", k, low=1, high=10**5)
    eps_l, eps = _eps("eps_l", eps_l), V.nonnegative("eps", eps, scalar=True)
    t = V.integer("t", t, low=0, high=k + 1)
    dps = V.integer("dps", dps, low=15, high=200)
    with mp.workdps(dps):
        e = mp.mpf(eps_l)
        q = 1 / (1 + mp.exp(-e)) if randomizer == "rr" else 1 - mp.exp(-e / 2) / 2
        half = mp.mpf(1) / 2

        def pmf(m, p, i):
            return mp.binomial(m, i) * p**i * (1 - p) ** (m - i) if 0 <= i <= m else mp.mpf(0)

        def tail(m, p):
            return mp.fsum(pmf(m, p, i) for i in range(t, m + 1))

        def window(m, p):
            sd = math.sqrt(float(m * p * (1 - p)))
            return max(0, int(float(m * p) - 30 * sd) - 2), min(m, int(float(m * p) + 30 * sd) + 2)

        s1, s0, p_d = tail(k, q), tail(k, 1 - q), tail(k, half)
        charge = mp.mpf(0)
        if others == "blanket":
            m = users - 1 + dummies
            lo, hi = window(m, p_d)
            base = {j: pmf(m, p_d, j) for j in range(lo, hi + 1)}
        else:
            a, b = (k + 1) // 2, k // 2
            p_o = mp.fsum(
                pmf(a, q, i) * pmf(b, 1 - q, c - i)
                for c in range(t, k + 1)
                for i in range(max(0, c - b), min(a, c) + 1)
            )
            olo, ohi = window(users - 1, p_o)
            bo = {i: pmf(users - 1, p_o, i) for i in range(olo, ohi + 1)}
            charge = 1 - mp.fsum(bo.values())
            dlo, dhi = window(dummies, p_d)
            bd = {i: pmf(dummies, p_d, i) for i in range(dlo, dhi + 1)}
            base = {}
            for i, pi in bo.items():
                for j, pj in bd.items():
                    base[i + j] = base.get(i + j, mp.mpf(0)) + pi * pj
        ee = mp.exp(mp.mpf(eps))
        up, down = mp.mpf(0), mp.mpf(0)
        for j in range(min(base), max(base) + 2):
            cur, prev = base.get(j, mp.mpf(0)), base.get(j - 1, mp.mpf(0))
            a1, a0 = (1 - s1) * cur + s1 * prev, (1 - s0) * cur + s0 * prev
            up += max(a1 - ee * a0, 0)
            down += max(a0 - ee * a1, 0)
        return float(max(up, down) - (1 + ee) * charge)


# -- exact on small instances ------------------------------------------------------------------------------


def linked_delta_exact(k: int, q: float, eps: float, messages: int) -> float:
    """Exact δ(``eps``) of the whole view on small instances: ``messages`` messages of k bits, all blanket
    (uniform) but the differing user's (bits 1 with probability ``q`` against 1 − q). Relative to the law of
    ``messages`` blanket messages the likelihood of the multiset is Σ_j (h_j/N) π_x(j)/π_u(j), h the
    histogram of the messages' counts of 1s, so h is sufficient; every histogram is enumerated."""
    from itertools import combinations

    from scipy import stats
    from scipy.special import gammaln

    k = V.integer("k", k, low=1, high=64)
    n = V.integer("messages", messages, low=1, high=10**4)
    q = V.real("q", q, low=0.5, high=1.0, high_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    j = np.arange(k + 1)
    pu, p1, p0 = stats.binom.pmf(j, k, 0.5), stats.binom.pmf(j, k, q), stats.binom.pmf(j, k, 1 - q)
    bars = np.array(list(combinations(range(n + k), k)), dtype=np.int64).reshape(-1, k)
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), n + k)])
    h = np.diff(edges, axis=1) - 1
    base = np.exp(gammaln(n + 1) - gammaln(h + 1).sum(1) + h @ np.log(pu))
    a, b = base * ((h / n) @ (p1 / pu)), base * ((h / n) @ (p0 / pu))
    return max(_hockey(a, b, eps), _hockey(b, a, eps))


def linked_delta_enumerated(k: int, q: float, eps: float, messages: int) -> float:
    """The same δ as :func:`linked_delta_exact`, by enumerating every tuple of the messages' bit vectors
    (2^(k·messages) at most 2^16), keyed by the sorted tuple (the multiset the analyzer sees)."""
    k = V.integer("k", k, low=1, high=16)
    n = V.integer("messages", messages, low=1, high=16)
    q = V.real("q", q, low=0.5, high=1.0, high_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    vec = np.arange(1 << k)
    ones = np.array([bin(v).count("1") for v in vec])
    rows = {
        x: (q**ones * (1 - q) ** (k - ones)) if x else ((1 - q) ** ones * q ** (k - ones))
        for x in (0, 1)
    }
    blank = np.full(vec.size, 0.5**k)
    grids = np.stack(np.meshgrid(*[vec] * n, indexing="ij"), -1).reshape(-1, n)
    key = np.sort(grids, axis=1) @ ((1 << k) ** np.arange(n))
    uniq, inv = np.unique(key, return_inverse=True)
    laws = []
    for x in (0, 1):
        prob = rows[x][grids[:, 0]] * np.prod(blank[grids[:, 1:]], axis=1)
        laws.append(np.bincount(inv, weights=prob, minlength=uniq.size))
    return max(_hockey(laws[1], laws[0], eps), _hockey(laws[0], laws[1], eps))


def separate_delta_exact(k: int, q: float, eps: float, messages: int) -> float:
    """The repaired reading on the same instance: k separate per-dimension shuffles, each of ``messages``
    bits (the differing user's one bit and messages − 1 uniform bits); the analyzer sees each dimension's
    count of 1s. Exact δ(``eps``) by the product of the k per-dimension count laws (k at most 12)."""
    from scipy import stats

    k = V.integer("k", k, low=1, high=12)
    n = V.integer("messages", messages, low=1, high=200)
    q = V.real("q", q, low=0.5, high=1.0, high_open=True, scalar=True)
    eps = V.nonnegative("eps", eps, scalar=True)
    rest = stats.binom.pmf(np.arange(n), n - 1, 0.5)
    one = [np.convolve(rest, [1 - p, p]) for p in (1 - q, q)]
    laws = []
    for x in (0, 1):
        law = np.array([1.0])
        for _ in range(k):
            law = np.outer(law, one[x]).ravel()
        laws.append(law)
    return max(_hockey(laws[1], laws[0], eps), _hockey(laws[0], laws[1], eps))
