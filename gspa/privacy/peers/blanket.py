"""The privacy blanket: FLAME's Algorithm 1 randomizer, its estimator eq. (1), a certified profile for its shuffle,
and the published bounds FLAME uses (Lemma 1, Corollary 1, BBGN19's numerical bound). Derivations and checks: the
FLAME blanket and accounting chapters (book/chapters/flame/blanket, accounting).

**Algorithm 1 as printed** (FLAME, Preliminaries): x in [0, 1] is rounded to
x_bar = floor(x b) + Ber(x b - floor(x b)), a value in {0, ..., b} (b + 1 values); with probability
1 - gamma the report is x_bar, otherwise Unif({1, ..., b}); gamma = b/(e^eps_l + b - 1). Three readings
(``reading=``), because the printed one is not eps_l-LDP:

* ``"printed"``: exactly as printed. The report 0 occurs only as an honest report of x_bar = 0, so the
  randomizer is not eps-LDP for any finite eps; its exact profile (shuffled or not, any n >= 2) is the
  constant delta(eps) = 1 - gamma (:class:`ConstantDelta`; see :func:`blanket_pair`).
* ``"balle"``: BBGN19's real-summation randomizer: x_bar in {0, ..., b} and the blanket uniform on the
  same b + 1 values. Eq. (1) is unbiased under this reading. With FLAME's gamma it is (b + 1)-ary
  randomized response with budget eps' = log(1 + (b + 1)(e^eps_l - 1)/b) > eps_l (:func:`ldp_epsilon`);
  the gamma that gives eps_l exactly is (b + 1)/(e^eps_l + b).
* ``"header"``: the reading of Algorithm 1's header R: [0, 1] -> [b] = {1, ..., b}: x is rounded to the
  b values 1 + floor(x (b - 1)) + Ber(.) and the blanket is uniform on the same b values. Then gamma is
  exactly eps_l-LDP (b-ary randomized response), but eq. (1) is biased.

**The certified pair** (:func:`blanket_pair`). Under "balle" and "header" the randomizer is k-ary
randomized response (k = b + 1 or b) applied to a random rounding of x. Fix the differing user's two
inputs; by joint convexity of the hockey-stick divergence a mixture over the rounding is no worse than
the worst pair of rounded values a != a'. Every other user reports a blanket draw with probability gamma,
independently of the data; a blanket draw lands on a or on a' with probability gamma/k each. Reveal to
the observer, for every other user, whether its report is such a draw, and every report that is not (its
honest report x_bar_i, or a blanket draw on another symbol): these do not depend on the differing user's
input, and the shuffled multiset is a function of this richer view, so its divergence is an upper bound.
What remains is M ~ Binomial(n - 1, 2 gamma/k) reports uniform on {a, a'} plus the differing user's report
— exactly the clone pair of :mod:`gspa.privacy.shuffle.accountant` ("k-rr", lambda = 0: each other user is a
clone with probability 2/(e^eps + k - 1)), whose every numerical error is counted there; the accountant
also tries lambda = 1 and keeps the smaller delta. It is tested against exhaustive enumeration of the real
shuffled protocol in ``tests/privacy/test_blanket.py``.

:class:`BlanketPair` computes BBGN19's blanket view itself exactly (no clone refinement): it is tighter
than the clone pair when k is large (the clone view also tells the observer whether the differing user's
report fell on {a, a'}). As in the accountant, the binomial tails carry a relative allowance and the
threshold's neighbours are evaluated where it is near an integer; the binomial weights come from scipy's
``binom.pmf`` (measured, not proven, accuracy — the same caveat as the accountant's incomplete beta).

**BBGN19's numerical bound** (:func:`balle_blanket_delta`): their Bennett-inequality bound, computed as in
their public code, which FLAME's repository (github.com/Rachelxuan11/FLAME, flearn/counter/
amplification_bounds.py, class BennettExact; mechanisms.py, RRMechanism and LaplaceMechanism) vendors and
uses for its experiments: with a = e^eps - 1, b+ the largest value and c the variance of the privacy
amplification variable, alpha = c/b+^2, beta = a b+/c, eta = a/b+, phi(u) = (1 + u) log(1 + u) - u,

    delta(eps) = 1/(gamma n) * E_{m ~ Bin(n, gamma)} [ 1{m >= 1} exp(-m alpha phi(beta)) / (m eta log(1 + beta)) ].

The formula is BBGN19's; it is evaluated here with the binomial tails beyond 40 standard deviations
bounded rather than dropped. Their code also floors every delta at 1e-11 and returns 1e-11 for
eps >= eps0; here delta = 0 for eps >= eps0 (the shuffle of an eps0-LDP randomizer is eps0-DP).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from gspa.util import validate as V
from gspa.privacy.basics.subsampling import amplify_epsilon
from gspa.privacy.numerics import SF_REL, binomial_sf, gamma as G, invert, map_delta
from gspa.privacy.profiles import BestOf
from gspa.privacy.shuffle.accountant import personalized_pair
from gspa.privacy.shuffle.composition import compose

READINGS = ("balle", "header", "printed")
MAX_B = 4096  # b (k = b + 1 symbols): randomizer_rows is a (b + 1) x (b + 1) matrix (134 MB)
MAX_EPS_L = 700.0  # eps_l of the Bennett bound (e^eps_l finite)
MAX_POINTS = 10**7  # laplace_blanket_mass: trapezoid points
MAX_BENNETT_N = 10**10  # n of the Bennett bound: its sum has ~80 sqrt(n gamma) terms
MECHANISMS = ("krr", "laplace")


def _reading(reading: str) -> str:
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    return reading


def _b(b, low: int = 1) -> int:
    """b, an integer in [low, MAX_B = 4096]."""
    return V.integer("b", b, low=low, high=MAX_B)


def blanket_gamma(eps_l, b):
    """FLAME Lemma 1's blanket probability gamma = b/(e^eps_l + b - 1) (computed without overflow)."""
    eps_l = V.nonnegative("eps_l", eps_l)
    b = _b(b)
    e = np.exp(-eps_l)
    g = b * e / (1.0 + (b - 1) * e)
    return float(g) if np.ndim(g) == 0 else g


def ldp_epsilon(eps_l, b, reading: str = "balle") -> float:
    """The exact LDP level of R_{gamma,b} with FLAME's gamma under each reading (module docstring):
    eps_l ("header"), log(1 + (b + 1)(e^eps_l - 1)/b) ("balle"), inf ("printed")."""
    eps_l = V.nonnegative("eps_l", eps_l, scalar=True)
    b = _b(b, low=2 if reading == "header" else 1)
    reading = _reading(reading)
    if reading == "header":
        return eps_l
    if reading == "balle":
        if eps_l > 700.0:  # e^eps_l overflows: the same value in a form that does not
            return amplify_epsilon(eps_l, (b + 1) / b)
        return float(np.log1p((b + 1) * np.expm1(eps_l) / b))
    return float("inf")


def randomizer_rows(eps_l, b, reading: str = "balle") -> np.ndarray:
    """The randomizer's output law for each rounded value x_bar (rows) over the outputs (columns):
    outputs 0..b ("balle", "printed", inputs 0..b) or 1..b as columns 0..b-1 ("header", inputs 1..b)."""
    reading = _reading(reading)
    b = _b(b, low=2 if reading == "header" else 1)
    g = blanket_gamma(eps_l, b)
    if reading == "header":
        return (1 - g) * np.eye(b) + g / b
    blanket = (
        np.full(b + 1, 1.0 / (b + 1)) if reading == "balle" else np.r_[0.0, np.full(b, 1.0 / b)]
    )
    return (1 - g) * np.eye(b + 1) + g * blanket[None, :]


def _round(x, b, rng):
    """floor(x b) + Ber(x b - floor(x b)) for x in [0, 1] (vectorised)."""
    xb = x * b
    lo = np.floor(xb)
    return (lo + (rng.random(x.shape) < xb - lo)).astype(np.int64)


def blanket_randomize(x, eps_l, b, rng, reading: str = "balle") -> np.ndarray:
    """FLAME Algorithm 1, vectorised over any array shape of inputs x in [0, 1]: integer reports (see the
    module docstring for the readings; "header" reports lie in {1..b}, the others in {0..b})."""
    x = V.probability("x", x)
    reading = _reading(reading)
    b = _b(b, low=2 if reading == "header" else 1)
    g = blanket_gamma(V.nonnegative("eps_l", eps_l, scalar=True), b)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    if reading == "header":
        xbar = 1 + _round(x, b - 1, rng)
        blanket = rng.integers(1, b + 1, size=x.shape)
    else:
        xbar = _round(x, b, rng)
        blanket = rng.integers(0 if reading == "balle" else 1, b + 1, size=x.shape)
    return np.where(rng.random(x.shape) < g, blanket, xbar)


def blanket_debias(total, n, gamma, b):
    """FLAME eq. (1): z = (total/b - n gamma/2)/(1 - gamma), the estimate of sum_i x_i from the sum
    ``total`` of the n reports (z_hat = total/b)."""
    total = V.real("total", total)
    n = V.integer("n", n, low=1)
    gamma = V.probability("gamma", gamma, open_high=True)
    b = _b(b)
    z = (total / b - n * gamma / 2.0) / (1.0 - gamma)
    return float(z) if np.ndim(z) == 0 else z


def debiased_moments(x, eps_l, b, reading: str = "balle") -> tuple[float, float]:
    """Exact mean and variance of eq. (1)'s estimate z for data x (a 1-d array in [0, 1]) under a reading;
    the estimate is unbiased when the mean equals sum(x)."""
    x = V.probability("x", x).ravel()
    reading = _reading(reading)
    b = _b(b, low=2 if reading == "header" else 1)
    g = blanket_gamma(V.nonnegative("eps_l", eps_l, scalar=True), b)
    steps, shift = (b - 1, 1) if reading == "header" else (b, 0)
    xb = x * steps
    lo = np.floor(xb)
    f = xb - lo
    m1 = shift + lo + f  # E[x_bar]
    m2 = (shift + lo) ** 2 * (1 - f) + (shift + lo + 1) ** 2 * f  # E[x_bar^2]
    vals = np.arange(1, b + 1) if reading != "balle" else np.arange(0, b + 1)
    u1, u2 = vals.mean(), (vals.astype(float) ** 2).mean()
    ey = (1 - g) * m1 + g * u1
    vy = (1 - g) * m2 + g * u2 - ey**2
    scale = 1.0 / (b * (1.0 - g))
    mean = float(scale * ey.sum() - x.size * g / (2.0 * (1.0 - g)))
    return mean, float(scale**2 * vy.sum())


# -- certified privacy profile of the shuffle ------------------------------------------------------


@dataclass(frozen=True)
class ConstantDelta:
    """A privacy profile that does not fall with eps: delta(eps) = ``value`` for every eps >= 0 (exact
    for the printed reading of Algorithm 1, see :func:`blanket_pair`)."""

    value: float
    scope: str = ""

    def delta(self, eps):
        """The constant delta at every ``eps`` (a number or an array)."""
        eps_arr = V.nonnegative("eps", eps)
        return float(self.value) if eps_arr.ndim == 0 else np.full(eps_arr.shape, float(self.value))

    def epsilon(self, delta: float) -> float:
        """0 if ``delta`` is at least the constant, else inf."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return 0.0 if delta >= self.value else float("inf")


def _sf_half(k, m):
    """P(X >= k), X ~ Binomial(m, 1/2), vectorised (the accountant's certified tail)."""
    return binomial_sf(k, m)


@dataclass(frozen=True)
class BlanketPair:
    """BBGN19's blanket decomposition, computed exactly (module docstring): m ~ Binomial(n - 1, gamma)
    other users report a uniform draw on the s symbols (their other reports are revealed: an upper
    bound), the differing user reports a (resp. a') with probability 1 - gamma, else a uniform draw. Given
    m, the counts (c_a, c_a') of the m + 1 shuffled draws are sufficient and the likelihood under either
    input is the uniform law times gamma + (1 - gamma) s c/(m + 1), c = c_a or c_a'. With
    N2 = c_a + c_a' ~ Binomial(m + 1, 2/s) and c_a | N2 ~ Binomial(N2, 1/2), each term is a sum of binomial
    tails. Windows of ``SD`` standard deviations around the means of m and N2; the mass outside them
    counts fully. Errors counted as in the accountant (``SF_REL`` on every tail, the threshold's three
    candidates where it is near an integer)."""

    gamma: float
    symbols: int
    n: int
    ldp: float
    scope: str = ""
    SD = 8.0  # window half-width in standard deviations (the rest counts fully in delta)
    GROUPS = 128  # runs of the m-window (see _grid)

    def _grid(self):
        """Cells (N = m + 1, N2) with their weights, and the mass outside the windows. Adding one more
        uniform draw to both hypotheses is a post-processing, so the divergence given m falls with m:
        the m-window is cut into at most ``GROUPS`` runs, each weighted by its mass and evaluated at its
        smallest m (an upper bound; the runs are a small fraction of a standard deviation wide)."""
        g, s, n = self.gamma, self.symbols, self.n
        sd = np.sqrt((n - 1) * g * (1 - g))
        m = np.arange(
            max(0, int((n - 1) * g - self.SD * sd) - 1),
            min(n - 1, int((n - 1) * g + self.SD * sd) + 2) + 1,
        )
        wm = stats.binom.pmf(m, n - 1, g)
        out_m = stats.binom.cdf(m[0] - 1, n - 1, g) + stats.binom.sf(m[-1], n - 1, g)
        if m.size > self.GROUPS:
            starts = np.linspace(0, m.size, self.GROUPS + 1).astype(np.int64)[:-1]
            wm, m = np.add.reduceat(wm, starts), m[starts]
        N = m + 1
        p2 = 2.0 / s
        mu, sd2 = N * p2, np.sqrt(N * p2 * (1 - p2))
        lo = np.maximum(0, np.floor(mu - self.SD * sd2 - 1)).astype(np.int64)
        hi = np.minimum(N, np.ceil(mu + self.SD * sd2 + 1)).astype(np.int64)
        width = int((hi - lo).max()) + 1
        N2 = lo[:, None] + np.arange(width)[None, :]
        ok = N2 <= hi[:, None]
        N2 = np.where(ok, N2, hi[:, None])
        w2 = np.where(ok, stats.binom.pmf(N2, N[:, None], p2), 0.0)
        out2 = stats.binom.cdf(lo - 1, N, p2) + stats.binom.sf(hi, N, p2)  # per m
        Nb = np.broadcast_to(N[:, None], N2.shape)
        weight = (wm[:, None] * w2)[ok]
        return Nb[ok].astype(float), N2[ok], weight, float(out_m + np.sum(wm * out2))

    def _delta1(self, e: float) -> float:
        if e >= self.ldp:
            return 0.0
        if not hasattr(self, "_cache"):
            object.__setattr__(self, "_cache", self._grid())
        N, N2, w, outside = self._cache
        g, s = self.gamma, self.symbols
        ee = np.exp(e)
        u = (1 - g) * s / N
        B = u * (1 + ee)
        x = (g * np.expm1(e) + u * ee * N2) / B  # j > x: positive part
        t = np.floor(x).astype(np.int64) + 1
        allow = SF_REL + G(16)

        def part(tt, i):
            """The positive part for thresholds tt at the cells i (index array or slice)."""
            n2 = N2[i]
            tails = _sf_half(np.concatenate([tt, tt - 1]), np.concatenate([n2, n2 - 1]))
            S_t, S_t1 = tails[: tt.size], tails[tt.size :]
            pos = B[i] * (n2 / 2.0) * S_t1 + g * S_t
            neg = (g * ee + u[i] * ee * n2) * S_t
            return np.maximum(pos * (1 + allow) - neg * (1 - allow), 0.0)

        h = part(t, slice(None))
        frac = x - np.floor(x)
        idx = np.flatnonzero(np.minimum(frac, 1 - frac) <= 1e-9 * np.maximum(x, 1.0))
        if idx.size:  # the threshold may be off by one there: the largest candidate covers it
            h[idx] = np.maximum.reduce([h[idx], part(t[idx] - 1, idx), part(t[idx] + 1, idx)])
        total = float(np.sum(w * h)) * (1 + G(w.size + 8)) + outside * (1 + 1e-10) + 1e-300
        return min(1.0, total)

    def delta(self, eps):
        """Certified upper bound on delta(eps) of the blanket pair (both directions agree by symmetry)."""
        return map_delta(self._delta1, eps)

    def epsilon(self, delta: float) -> float:
        """Smallest eps (rounded up) whose certified delta(eps) is <= ``delta``."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return invert(self._delta1, delta, self.ldp)


MAX_BLANKET_CELLS = 1_500_000  # (m, N2) cells of the exact blanket pair; above it the clone pair alone (valid, looser)


def blanket_pair(eps_l, b, n, reading: str = "balle", rounds: int = 1):
    """A certified bound (``.delta(eps)``, ``.epsilon(delta)``) on the privacy profile of the shuffle of n
    users' reports of R_{gamma,b} with a common eps_l and FLAME's gamma (replace-one neighbours), under a
    reading of Algorithm 1 (module docstring); ``rounds``: T runs on the same data, composed through the
    pair's privacy-loss distribution (:mod:`gspa.privacy.shuffle.composition`).

    "balle"/"header": the smaller of two valid bounds — the exact blanket pair (:class:`BlanketPair`) and
    the accountant's k-ary randomized-response clone pair at the randomizer's exact LDP level
    (:func:`ldp_epsilon`), k = b + 1 or b. "printed": the exact profile 1 - gamma^T: in every round the
    other users' reports can all avoid 0 (all x_i = 1), and then the differing user's input x = 0 shows as
    a 0 with probability 1 - gamma, which x = 1 never produces; conversely the divergence never exceeds
    the total variation 1 - gamma of one report (1 - gamma^T over T rounds)."""
    reading = _reading(reading)
    b = _b(b, low=2 if reading == "header" else 1)
    eps_l = V.nonnegative("eps_l", eps_l, scalar=True)
    n = V.integer("n", n, low=2)
    rounds = V.integer("rounds", rounds, low=1)
    g = blanket_gamma(eps_l, b)
    if reading == "printed":
        return ConstantDelta(
            float(-np.expm1(rounds * np.log(g))) if g > 0 else 1.0,
            f"FLAME Algorithm 1 as printed (b = {b}), {rounds} round(s): not LDP",
        )
    k = b + 1 if reading == "balle" else b
    eps = ldp_epsilon(eps_l, b, reading) * (1 + 1e-15)  # rounded up: a weaker, still valid, premise
    clone = personalized_pair(np.array([eps]), randomizer="k-rr", k=k, counts=np.array([n]))
    cells = min(BlanketPair.GROUPS, 2 * BlanketPair.SD * np.sqrt(n * g * (1 - g) + 1) + 3) * (
        2 * BlanketPair.SD * np.sqrt(2 * n / k) + 3
    )
    scope = f"shuffled R_gamma,b ({reading} reading, b = {b}, n = {n}, eps_l = {eps_l:g})"
    if k == 2 or cells > MAX_BLANKET_CELLS:  # two symbols: the blanket pair is the clone pair
        return compose(clone, rounds)
    pair = BestOf((BlanketPair(g, k, n, eps, scope), clone), scope)
    return compose(pair, rounds)


# -- BBGN19's numerical bound ("Bennett") and Lemma 1's closed form ----------------------------------


def _mechanism_terms(eps: float, eps0: float, b: int, mechanism: str):
    """(gamma, b+, c) of BBGN19's amplification variable for k-ary RR (k = b) or Laplace on [0, 1]."""
    if mechanism == "krr":
        g = blanket_gamma(eps0, b)
        top = g * -np.expm1(eps) + (1 - g) * b
        var = g * (2 - g) * np.expm1(eps) ** 2 + (1 - g) ** 2 * b * (np.exp(2 * eps) + 1)
    else:
        g = float(np.exp(-eps0 / 2))
        top = float(np.exp(eps0 / 2) * -np.expm1(eps - eps0))
        var = (np.exp(2 * eps) + 1) / 3 * (2 * np.exp(eps0 / 2) + np.exp(-eps0)) - 2 * np.exp(
            eps
        ) * (2 * np.exp(-eps0 / 2) - np.exp(-eps0))
    return g, np.float64(top), np.float64(var)


#: Two versions of BBGN19's Bennett bound. ``"flame"``: as FLAME's code computes it (Rachelxuan11/FLAME
#: at be9acb0, ``flearn/counter/amplification_bounds.py``), a copy of BBGN19's public code
#: (BorjaBalle/amplification-by-shuffling) from before its commit 7994ad3 (2020-07-06, "Fixed typo in
#: Bennett bounds"): each term of the expectation over the blanket size m carries an extra factor
#: 1/(m (e^eps - 1)), so it is too small whenever m (e^eps - 1) > 1. ``"bbgn19"``: the corrected code,
#: the term b+ e^(-m alpha phi(beta)) / log(1 + beta) of integrating Bennett's tail over [0, inf).
BENNETT_VERSIONS = ("flame", "bbgn19")


def _balle_delta1(eps: float, eps0: float, b: int, n: int, mechanism: str, version: str) -> float:
    if eps >= eps0:
        return 0.0
    if eps <= 0:
        return 1.0
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        total = _balle_total(eps, eps0, b, n, mechanism, version)
    # a term that overflows (eps or gamma so small that a denominator underflows) exceeds 1: delta <= 1
    return min(1.0, total) if np.isfinite(total) else 1.0


def _balle_total(eps, eps0, b, n, mechanism, version) -> float:
    g, top, c = _mechanism_terms(eps, eps0, b, mechanism)
    a = float(np.expm1(eps))
    alpha, beta = c / top**2, a * top / c
    eta = a / top if version == "flame" else 1.0 / top
    phi = (1 + beta) * np.log1p(beta) - beta
    mean, sd = n * g, np.sqrt(n * g * (1 - g))
    lo, hi = max(1, int(mean - 40 * sd) - 1), min(n, int(mean + 40 * sd) + 2)
    m = np.arange(lo, hi + 1, dtype=float)
    w = stats.binom.pmf(m, n, g)
    term = np.exp(-m * alpha * phi) / ((m if version == "flame" else 1.0) * eta * np.log1p(beta))
    # the terms outside [lo, hi] are at most term(lo) each (term falls with m); their mass is bounded
    outside = stats.binom.cdf(lo - 1, n, g) - stats.binom.pmf(0, n, g) + stats.binom.sf(hi, n, g)
    total = float(np.sum(w * term)) + max(outside, 0.0) / (eta * np.log1p(beta))
    return total / (g * n)


def _bennett_args(mechanism: str, version: str) -> None:
    if mechanism not in MECHANISMS:
        raise ValueError(f"mechanism must be one of {MECHANISMS}, got {mechanism!r}")
    if version not in BENNETT_VERSIONS:
        raise ValueError(f"version must be one of {BENNETT_VERSIONS}, got {version!r}")


def balle_blanket_delta(eps, eps_l, b, n, mechanism: str = "krr", *, version: str):
    """BBGN19's numerical privacy-blanket bound (Bennett's inequality): delta(eps) for the shuffle of n
    reports of k-ary randomized response with k = b and gamma = b/(e^eps_l + b - 1) (``"krr"``, the
    R_{gamma,b} of Lemma 1), or of the Laplace mechanism on [0, 1] with gamma = e^(-eps_l/2)
    (``"laplace"``, ``b`` unused). ``version`` (:data:`BENNETT_VERSIONS`, no default): ``"flame"`` as
    FLAME's experiments compute it — it can fall below the real protocol's delta —, ``"bbgn19"`` as
    corrected by BBGN19's authors. Neither is certified here (no rounding is accounted for).
    ``eps_l`` in (0, MAX_EPS_L = 700], ``b`` in [2, MAX_B = 4096], ``n`` in [2, MAX_BENNETT_N = 10^10]; where a term overflows, delta = 1."""
    eps_arr = V.nonnegative("eps", eps)
    eps_l = V.real("eps_l", eps_l, low=0.0, low_open=True, high=MAX_EPS_L, scalar=True)
    b = _b(b, low=2)
    n = V.integer("n", n, low=2, high=MAX_BENNETT_N)
    _bennett_args(mechanism, version)
    return map_delta(lambda e: _balle_delta1(e, eps_l, b, n, mechanism, version), eps_arr)


def balle_blanket_epsilon(delta, eps_l, b, n, mechanism: str = "krr", *, version: str) -> float:
    """The smallest eps (bisection, rounded up) with :func:`balle_blanket_delta` <= ``delta``."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    eps_l = V.real("eps_l", eps_l, low=0.0, low_open=True, high=MAX_EPS_L, scalar=True)
    b, n = _b(b, low=2), V.integer("n", n, low=2, high=MAX_BENNETT_N)
    _bennett_args(mechanism, version)
    f = lambda e: _balle_delta1(e, eps_l, b, n, mechanism, version)
    lo, hi = 0.0, eps_l
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f(mid) <= delta:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-10 * hi:
            break
    return float(hi)


def lemma1_epsilon(delta, eps_l, b, n) -> tuple[float, bool]:
    """FLAME Lemma 1 (BBGN19's closed form for k-ary RR, k = b): (eps_c, condition holds) with
    eps_c = sqrt(14 log(2/delta)(e^eps_l + b - 1)/(n - 1)) and the condition
    sqrt(14 log(2/delta)(b - 1)/(n - 1)) < eps_c <= 1. The value is returned even when the condition
    fails (then it is not a proven bound)."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    eps_l = V.nonnegative("eps_l", eps_l, scalar=True)
    b, n = _b(b), V.integer("n", n, low=2)
    c = 14.0 * np.log(2.0 / delta) / (n - 1.0)
    with np.errstate(over="ignore"):  # e^eps_l = inf: eps_c = inf, the condition fails
        eps_c = float(np.sqrt(c * (np.exp(eps_l) + b - 1.0)))
    return eps_c, bool(np.sqrt(c * (b - 1.0)) < eps_c <= 1.0)


def corollary1_shape(delta, eps_l, n) -> tuple[float, bool]:
    """FLAME Corollary 1's rate (1 ∧ eps_l) e^eps_l sqrt(log(1/delta)/n) (no constant is stated) and its
    condition eps_l <= log(n/log(1/delta))/2."""
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    eps_l = V.nonnegative("eps_l", eps_l, scalar=True)
    n = V.integer("n", n, low=2)
    L = np.log(1.0 / delta)
    with np.errstate(over="ignore"):  # e^eps_l beyond the floats: the rate is inf
        rate = min(1.0, eps_l) * np.exp(eps_l) * np.sqrt(L / n)
    return float(rate), bool(n > L and eps_l <= np.log(n / L) / 2.0)


# -- the Laplace mechanism's blanket --------------------------------------------------------------


def laplace_blanket_mass(eps_l, *, width: float = 60.0, points: int = 200_001) -> float:
    """The blanket probability of x + Lap(1/eps_l) on inputs x in [0, 1]: the integral over y of
    inf_x f_x(y) = (eps_l/2) exp(-eps_l max(|y|, |y - 1|)), by the trapezoid rule on
    [1/2 - width/eps_l, 1/2 + width/eps_l] (the rest is below e^-width). Compare with e^(-eps_l/2).
    ``eps_l`` in (0, inf), ``width`` in (0, 700], ``points`` in [3, MAX_POINTS = 10^7]."""
    eps_l = V.real("eps_l", eps_l, low=0.0, low_open=True, high=np.inf, high_open=True, scalar=True)
    width = V.real("width", width, low=0.0, low_open=True, high=700.0, scalar=True)
    y = np.linspace(
        0.5 - width / eps_l,
        0.5 + width / eps_l,
        V.integer("points", points, low=3, high=MAX_POINTS),
    )
    dens = 0.5 * eps_l * np.exp(-eps_l * np.maximum(np.abs(y), np.abs(y - 1.0)))
    return float(np.trapezoid(dens, y))
