"""Margins of the GSPA claims checked by the chapters f-DP, Mechanisms, Lemma 1, Lemma 2, Lemma 3 and
Theorem 1, over the domains their statements quantify over (see :mod:`gspa.claims.domain`).

Each ``*_margin`` function takes one point of a claim's domain as keyword arguments and returns a float:
``>= 0`` where the claim holds there, ``< 0`` where it fails (in the claim's units). Statements about
*any* distribution (eq. (4), Facts 1, 2 and 4, Lemma 4) are searched over random discrete pairs indexed by
``(k, conc, seed)``: ``k`` outcomes, Dirichlet concentration ``conc`` (small: nearly deterministic
distributions, large: nearly uniform), with exact zeros, drawn with ``seed``. The ``*_exact`` functions are
independent re-verifications of a violation (closed forms, quadrature, exact rational arithmetic, direct
enumeration) — never the code path of the margin.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import math
from fractions import Fraction

import numpy as np
from scipy import integrate, special, stats

from gspa.privacy.basics import decomposition as D
from gspa.privacy.basics import fdp
from gspa.privacy.basics import hypothesis as H
from gspa.privacy.basics import mechanisms as M
from gspa.util import validate as V

TOL = 1e-12  # round-off allowed in an exact identity
#: round-off allowed where trade-off curves are evaluated on a grid by interpolation between their vertices: a
#: random pair with a concentration near 0.02 has likelihood ratios beyond 1e10, and the double-precision
#: difference of two such interpolated curves was measured at -8e-11 where the identity holds exactly
CURVE_TOL = 1e-9
ALPHA = np.linspace(0.0, 1.0, 1001)
LEMMA4_MECHANISMS = (
    "binary RR",
    "k-ary RR",
    "Laplace",
    "Gaussian (exact calibration)",
    "random pair",
)
PERSONALIZED_RANDOMIZERS = ("binary RR", "3-ary RR", "4-ary RR", "Laplace")


# Argument checks: every public function refuses a value outside the range it can compute on with a
# ValueError naming the parameter (the searches' closed domains lie inside these ranges).
def _int(low, high):
    return lambda name, v: V.integer(name, v, low=low, high=high)


def _real(low, high, low_open=False, high_open=False):
    return lambda name, v: V.real(
        name, v, low=low, high=high, low_open=low_open, high_open=high_open, scalar=True
    )


def _choice(options):
    def check(name, v):
        if not isinstance(v, str) or v not in options:
            raise ValueError(f"{name} must be one of {options}, got {v!r}")
        return v

    return check


def _accepts(**rules):
    """Check the named arguments of the decorated function with ``rules`` (name -> check) before it runs."""

    def wrap(fn):
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, rule in rules.items():
                bound.arguments[name] = rule(name, bound.arguments[name])
            return fn(*bound.args, **bound.kwargs)

        return checked

    return wrap


_SEED = _real(0, 2.0**32 - 1)  # searched as a real number (Param scale "linear"), used as int(seed)
_EPS = _real(0.0, 50.0)
_DELTA = _real(0.0, 1.0, high_open=True)
_PAIR = dict(k=_int(2, 512), conc=_real(1e-3, 1e3), seed=_SEED)


@_accepts(
    k=_int(2, 4096),
    conc=_real(1e-3, 1e3),
    seed=_SEED,
    zero_prob=_real(0.0, 1.0),
    count=_int(1, 4096),
)
def random_pair(k: int, conc: float, seed: int, zero_prob: float = 0.2, count: int = 2):
    """``count`` random probability vectors over ``k`` outcomes: Dirichlet(``conc``) with about
    ``zero_prob`` of the outcomes set to exactly 0 (outcomes only one hypothesis produces)."""
    rng = np.random.default_rng(int(seed))
    w = rng.dirichlet(np.full(int(k), float(conc)), size=count)
    w = np.where(rng.random(w.shape) < zero_prob, 0.0, w)
    w[:, 0] += w.sum(axis=1) == 0
    w = np.maximum(w, 0.0)
    return w / w.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------------------------------- f-DP chapter
@_accepts(**_PAIR)
def eq4_margin(k, conc, seed) -> float:
    """Eq. (4): min over tests of alpha + beta - (1 - TV(U, V)) (+ round-off), for one random pair."""
    P, Q = random_pair(k, conc, seed)
    a, b = H.tradeoff_vertices(P, Q)
    return float(np.min(a + b) - (1.0 - H.total_variation(P, Q)) + TOL)


@_accepts(eps=_EPS)
def rr_fdp_margin(eps) -> float:
    """Definition 3 with Fact 1: randomized response with budget eps has trade-off curve f_{eps,0}."""
    p = special.expit(eps)
    return float(
        1e-12
        - np.abs(
            H.tradeoff_curve([p, 1 - p], [1 - p, p], ALPHA) - fdp.f_eps_delta(ALPHA, eps, 0.0)
        ).max()
    )


@_accepts(eps=_EPS, delta=_DELTA, **_PAIR)
def fact1_margin(eps, delta, k, conc, seed) -> float:
    """Fact 1 (corrected eq. (19)) at (eps, delta) and on one random pair: the quaternary pair's curve is
    f_{eps,delta}; the pair's symmetrised curve lies above f_{eps, delta(eps)}; delta(eps) is recovered
    from its curve. Smallest of the three slacks (tolerance 1e-9, relative to 1)."""
    X0, X1 = M.quaternary_pmfs(eps, delta)
    quat = np.abs(H.tradeoff_curve(X0, X1, ALPHA) - fdp.f_eps_delta(ALPHA, eps, delta)).max()
    P, Q = random_pair(k, conc, seed)
    d = max(H.hockey_stick(P, Q, eps), H.hockey_stick(Q, P, eps))
    T = np.minimum(H.tradeoff_curve(P, Q, ALPHA), H.tradeoff_curve(Q, P, ALPHA))
    below = np.min(T - fdp.f_eps_delta(ALPHA, eps, d))
    a_v, b_v = H.tradeoff_vertices(P, Q)
    trip = abs(H.delta_from_tradeoff(a_v, b_v, eps) - H.hockey_stick(Q, P, eps))
    return float(min(1e-9 - quat, below + 1e-9, 1e-9 - trip))


@_accepts(delta=_DELTA, frac=_real(0.0, 1.0, high_open=True))
def fact1_printed_margin(delta, frac) -> float:
    """Eq. (19) as printed, at eps = frac (1 - delta) < 1 - delta: min over alpha of (1 - alpha) - f(alpha)
    (a trade-off function never exceeds 1 - alpha; negative: the printed function is not one)."""
    eps = frac * (1.0 - delta)
    return float(np.min((1.0 - ALPHA) - fdp.f_eps_delta_as_printed(ALPHA, eps, delta)))


@_accepts(delta=_DELTA, frac=_real(0.0, 1.0, high_open=True))
def fact1_printed_exact(delta, frac) -> float:
    """Independent check of :func:`fact1_printed_margin`: the printed eq. (19) at alpha = 1 in closed form,
    e^-eps (1 - delta - eps); a trade-off function is 0 there (the test that always rejects has beta = 0)."""
    eps = frac * (1.0 - delta)
    return math.exp(-eps) * (1.0 - delta - eps)


@_accepts(delta=_DELTA, excess=_real(0.0, 50.0))
def fact1_symmetrised_margin(delta, excess) -> float:
    """Eq. (19) as printed at eps = 1 - delta + excess (its last term <= 0): with symmetric neighbours,
    max(g, g^-1) = f_{eps,delta}; 1e-3 (the numerical inverse's resolution) minus the largest gap."""
    eps = 1.0 - delta + excess
    g = lambda a: fdp.f_eps_delta_as_printed(a, eps, delta)
    gap = np.abs(
        np.maximum(g(ALPHA), fdp.inverse_tradeoff(g, ALPHA)) - fdp.f_eps_delta(ALPHA, eps, delta)
    ).max()
    return float(1e-3 - gap)


@_accepts(m=_int(1, 512), **_PAIR)
def fact2_margin(k, m, conc, seed) -> float:
    """Fact 2: T(KP, KQ) >= T(P, Q) for a random pair and a random kernel K to m outcomes."""
    P, Q = random_pair(k, conc, seed)
    K = random_pair(int(m), conc, seed + 1, zero_prob=0.0, count=int(k))
    return float(
        np.min(H.tradeoff_curve(P @ K, Q @ K, ALPHA) - H.tradeoff_curve(P, Q, ALPHA)) + TOL
    )


def _triple(k, conc, seed):
    P, Q, R = random_pair(k, conc, seed, count=3)
    return P, Q, R, (lambda a: H.tradeoff_curve(P, Q, a)), (lambda a: H.tradeoff_curve(Q, R, a))


@_accepts(**_PAIR)
def fact4_chain_margin(k, conc, seed) -> float:
    """Fact 4 in the form the proof of Theorem 2 uses: T(P, R) >= g(1 - f(alpha)) with f = T(P, Q),
    g = T(Q, R), for a random triple."""
    P, Q, R, f, g = _triple(k, conc, seed)
    return float(np.min(H.tradeoff_curve(P, R, ALPHA) - fdp.chain_bound(f, g, ALPHA)) + CURVE_TOL)


@_accepts(**_PAIR)
def fact4_printed_margin(k, conc, seed) -> float:
    """Fact 4 as printed adds something to its hypothesis T(P, R) >= f only if g(1 - f(alpha)) > f(alpha)
    somewhere: max g(1 - f) - f minus round-off (negative: the printed conclusion is implied)."""
    P, Q, R, f, g = _triple(k, conc, seed)
    return float(np.max(fdp.chain_bound(f, g, ALPHA) - f(ALPHA)) - TOL)


@_accepts(**_PAIR)
def fact4_printed_exact(k, conc, seed) -> bool:
    """Independent check that the printed conclusion is vacuous for this triple: every vertex (a, b) of
    g = T(Q, R) has a + b <= 1, so g(x) <= 1 - x and g(1 - f(alpha)) <= f(alpha) for every alpha."""
    P, Q, R = random_pair(k, conc, seed, count=3)
    a, b = H.tradeoff_vertices(Q, R)
    return bool(np.all(a + b <= 1.0 + TOL))


@_accepts(eps=_real(0.0, 100.0), mu=_real(1e-3, 100.0))
def gdp_delta_quadrature(eps, mu) -> float:
    """delta(eps) of mu-GDP by quadrature of (q - e^eps p)_+ with p = N(0, 1), q = N(mu, 1), over the
    half line where it is positive (x > eps/mu + mu/2): independent of Fact 3's closed form."""
    t = eps / mu + mu / 2.0
    f = lambda x: stats.norm.pdf(x, mu, 1.0) - math.exp(eps) * stats.norm.pdf(x, 0.0, 1.0)
    val = integrate.quad(f, t, t + 40.0, epsabs=0.0, epsrel=1e-11, limit=200)[0]
    return max(val, 0.0)


@_accepts(eps=_real(0.0, 100.0), mu=_real(1e-3, 100.0))
def fact3_margin(mu, eps) -> float:
    """Fact 3's delta(eps) against quadrature: 1e-6 minus the relative gap (absolute below 1e-300)."""
    exact = float(fdp.gdp_delta(eps, mu))
    quad = gdp_delta_quadrature(eps, mu)
    return float(1e-6 - abs(exact - quad) / max(quad, 1e-300))


@_accepts(n=_int(1, 10**4), mu_max=_real(1e-3, 50.0), seed=_SEED)
def fact3_composition_margin(n, mu_max, seed) -> float:
    """Fact 3's composition: n Gaussian mechanisms with mu_i drawn uniformly in (0, mu_max] (seed),
    composed by dp-accounting's privacy-loss distributions (discretization 2e-3), against G_{sqrt(sum mu_i^2)} on 9 values of
    eps in [0, 4]: 1e-3 minus the largest relative gap where delta > 1e-9."""
    from gspa.privacy.interop import dpaccounting as dpa

    mus = mu_max * np.random.default_rng(int(seed)).uniform(0.05, 1.0, int(n))
    eps = np.linspace(0.0, 4.0, 9)
    exact = fdp.gdp_delta(eps, fdp.gdp_compose(mus))
    pld = dpa.composed_gaussian_delta(eps, mus, discretization=2e-3)
    big = exact > 1e-9
    return float(1e-3 - np.max(np.abs(pld - exact)[big] / exact[big])) if big.any() else 1e-3


@_accepts(mu=_real(1e-3, 100.0), k=_int(1, 10**4), eps=_real(0.0, 100.0))
def fact3_group_margin(mu, k, eps) -> float:
    """Fact 3's group privacy: the Gaussian mechanism with sigma = 1/mu (mu-GDP) on a group of k records
    (sensitivity k), its delta(eps) by quadrature, against G_{k mu}'s closed form: 1e-6 minus the
    relative gap (absolute below 1e-300)."""
    exact = float(fdp.gdp_delta(eps, fdp.gdp_group(mu, int(k))))
    quad = gaussian_delta_quadrature(eps, 1.0 / (int(k) * mu))
    return float(1e-6 - abs(exact - quad) / max(quad, 1e-300))


# --------------------------------------------------------------------------------- Mechanisms chapter
@_accepts(eps=_real(0.0, 100.0), eps0=_real(1e-3, 100.0))
def laplace_delta_quadrature(eps, eps0) -> float:
    """delta(eps) of Q(D) + Lap(1/eps0) with sensitivity 1, by quadrature of (p - e^eps q)_+."""
    p = stats.laplace(loc=0.0, scale=1.0 / eps0).pdf
    q = stats.laplace(loc=1.0, scale=1.0 / eps0).pdf
    f = lambda x: max(p(x) - math.exp(eps) * q(x), 0.0)
    return integrate.quad(f, -60.0 / eps0, 60.0 / eps0, points=[0.0, 1.0], limit=400)[0]


@_accepts(eps0=_real(1e-3, 100.0))
def laplace_pure_margin(eps0) -> float:
    """Definition 4: the Laplace mechanism with scale Delta/eps0 is eps0-DP: delta(eps0) = 0 (quadrature,
    tolerance 1e-9)."""
    return float(1e-9 - laplace_delta_quadrature(eps0, eps0))


@_accepts(eps=_real(0.0, 100.0), sigma=_real(1e-8, 1e8))
def gaussian_delta_quadrature(eps, sigma) -> float:
    """delta(eps) of Q(D) + N(0, sigma^2) with sensitivity 1, by quadrature of (p - e^eps q)_+ with
    p = N(1, sigma^2), q = N(0, sigma^2), in the standard coordinate z = (x - 1)/sigma over the half line
    where it is positive (z > sigma eps - 1/(2 sigma)): independent of the closed form."""
    lo = sigma * eps - 0.5 / sigma
    f = lambda z: stats.norm.pdf(z) - math.exp(eps) * stats.norm.pdf(z + 1.0 / sigma)
    return max(
        integrate.quad(f, max(lo, -40.0), max(lo, 0.0) + 40.0, epsabs=0.0, epsrel=1e-11, limit=200)[
            0
        ],
        0.0,
    )


@_accepts(eps=_real(1e-6, 50.0), delta=_real(1e-100, 1.0, high_open=True))
def gaussian_calibration_margin(eps, delta) -> float:
    """Definition 5: eq. (8)'s sigma gives (eps, delta)-DP iff the exact delta(eps) at that sigma is at
    most delta: (delta - exact)/delta (relative slack; negative: eq. (8) fails)."""
    s = float(M.gaussian_sigma_classic(eps, delta))
    return float((delta - float(M.gaussian_delta(eps, s))) / delta)


@_accepts(eps=_real(1e-6, 50.0), delta=_real(1e-100, 1.0, high_open=True))
def gaussian_calibration_exact(eps, delta) -> float:
    """Independent check of :func:`gaussian_calibration_margin` by quadrature: (delta - delta(eps))/delta."""
    s = float(M.gaussian_sigma_classic(eps, delta))
    return (delta - gaussian_delta_quadrature(eps, s)) / delta


@_accepts(
    eps=_real(1e-6, 50.0),
    delta=_real(0.0, 1.0, True, True),
    mechanism=_choice(LEMMA4_MECHANISMS),
    k=_int(2, 64),
    seed=_SEED,
)
def lemma4_margin(eps, delta, mechanism, k, seed) -> float:
    """Lemma 4: an (eps, delta)-DP randomizer's profile lies below the quaternary pair's at every eps'
    in [0, eps + 5]. ``mechanism`` one of :data:`LEMMA4_MECHANISMS` (randomized response and Laplace are
    (eps, 0)-DP; the Gaussian is calibrated exactly to (eps, delta); a random pair on k outcomes gets
    delta = its own hockey-stick divergence at eps). 1e-12 minus the largest excess."""
    grid = np.linspace(0.0, eps + 5.0, 401)
    k = int(k)
    if mechanism == "random pair":
        P, Q = random_pair(k, 0.5, seed)
        d = max(H.hockey_stick(P, Q, eps), H.hockey_stick(Q, P, eps))
        prof = np.array([max(H.hockey_stick(P, Q, e), H.hockey_stick(Q, P, e)) for e in grid])
        return float(1e-12 - np.max(prof - M.quaternary_delta(grid, eps, d)))
    if mechanism == "Gaussian (exact calibration)":
        prof, d = M.gaussian_delta(grid, M.gaussian_sigma_exact(eps, delta)), delta
    else:
        prof = {
            "binary RR": lambda: M.rr_delta(grid, eps),
            "k-ary RR": lambda: M.krr_delta(grid, eps, k),
            "Laplace": lambda: M.laplace_delta(grid, eps),
        }[mechanism]()
        d = 0.0
    return float(1e-12 - np.max(np.asarray(prof) - M.quaternary_delta(grid, eps, d)))


# ----------------------------------------------------------------------------------- Lemma 1 chapter
@_accepts(eps=_EPS)
def eq9_10_margin(eps) -> float:
    """Eqs. (9)-(10) as copy 000 prints them, for binary randomized response with budget eps: 1e-12
    minus the largest gap between the printed right-hand sides and R(x)."""
    R = D.randomized_response(eps, 2)
    hi, lo = special.expit(eps), special.expit(-eps)
    return float(
        1e-12
        - max(np.abs(np.array([hi, lo]) - R[0]).max(), np.abs(np.array([lo, hi]) - R[1]).max())
    )


@_accepts(eps=_EPS, delta=_DELTA)
def delta_shared_margin(eps, delta) -> float:
    """Eqs. (9)-(10) with a common delta component allow TV(R(x0), R(x1)) <= (1 - delta) tanh(eps/2);
    Lemma 4's randomizer has TV = delta + (1 - delta) tanh(eps/2) (by enumeration of its pmfs). Allowed
    minus actual, plus round-off (negative: no such decomposition)."""
    X0, X1 = M.quaternary_pmfs(eps, delta)
    return float((1 - delta) * math.tanh(eps / 2) - 0.5 * np.abs(X0 - X1).sum() + TOL)


@_accepts(eps=_EPS, delta=_DELTA)
def delta_shared_exact(eps, delta) -> float:
    """Closed form of :func:`delta_shared_margin` (without its round-off allowance): the allowed
    (1 - delta) tanh(eps/2) minus the quaternary pair's TV, delta + (1 - delta) tanh(eps/2): -delta."""
    return (1 - delta) * math.tanh(eps / 2) - (delta + (1 - delta) * math.tanh(eps / 2))


@_accepts(
    eps=_real(1e-3, 50.0),
    k=_int(2, 64),
    randomizer=_choice(("k-ary RR", "Laplace")),
    laplace_bins=_int(4, 10**4),
    laplace_width=_real(1e-3, 1e3),
)
def common_budget_clone_margin(
    eps, k, randomizer, laplace_bins: int = 400, laplace_width: float = 12.0
) -> float:
    """Eq. (11) with a common budget for the paper's randomizers: the largest feasible clone probability
    (linear program) over 1/(1 + e^eps), minus (1 - 1e-6). ``randomizer``: "k-ary RR" (k outcomes) or
    "Laplace" (inputs 0, 1/4, 1/2, 3/4, 1, binned on [-w/eps, 1 + w/eps])."""
    if randomizer == "Laplace":
        R = D.discrete_laplace_rows(
            [0.0, 1.0, 0.25, 0.5, 0.75], eps, laplace_width / eps, laplace_bins
        )
    else:
        R = D.randomized_response(eps, int(k))
    p = D.max_clone_probability(R[0], R[1], R[2:], eps)[0]
    return float(p * (1 + math.exp(eps)) - (1 - 1e-6))


def _random_randomizer(n_inputs, n_outputs, spread, seed):
    return D.random_ldp_randomizer(
        np.random.default_rng(int(seed)), int(n_inputs), int(n_outputs), spread=spread
    )


@_accepts(n_inputs=_int(3, 64), n_outputs=_int(2, 64), spread=_real(1e-3, 50.0), seed=_SEED)
def general_clone_margin(n_inputs, n_outputs, spread, seed) -> float:
    """Eq. (11) for a random eps-LDP randomizer (eps its exact budget): the largest feasible clone
    probability (linear program) over the paper's 1/(1 + e^eps), minus (1 - 1e-6)."""
    R = _random_randomizer(n_inputs, n_outputs, spread, seed)
    e = D.dp_epsilon(R)
    return float(D.max_clone_probability(R[0], R[1], R[2:], e)[0] * (1 + math.exp(e)) - (1 - 1e-6))


@_accepts(n_inputs=_int(3, 64), n_outputs=_int(2, 64), spread=_real(1e-3, 50.0), seed=_SEED)
def general_clone_exact(n_inputs, n_outputs, spread, seed) -> float:
    """Independent check without linear programming: with delta = 0 and p = 1/(1 + e^eps), eqs. (9)-(10)
    determine Q^0 + Q^1 = R(x0) + R(x1), so eq. (11) holds iff R(x) >= p (R(x0) + R(x1)) for every other
    input x. Returns min_x min_y R(x)_y / (p (R(x0) + R(x1))_y) (< 1: eq. (11) fails)."""
    R = _random_randomizer(n_inputs, n_outputs, spread, seed)
    e = D.dp_epsilon(R)
    S = (R[0] + R[1]) / (1 + math.exp(e))
    return float(np.min(R[2:] / S)) if len(R) > 2 else math.inf


@_accepts(eps_i=_real(1e-6, 50.0), eps_n=_real(1e-6, 50.0))
def laplace_clone_weight(eps_i, eps_n) -> float:
    """The exact clone weight (Lemma 1 across budgets, delta = 0) that the Laplace mechanism x + Lap(1/eps_i),
    x in [0, 1], offers a differing user with budget eps_n: the largest t with f_{i,x} >= t (f_0 + f_1) on the
    whole line, f_0, f_1 the differing user's densities (eqs. (9)-(10) with p = 1/(1 + e^eps_n) force
    Q^0 + Q^1 = R(0) + R(1)).

    * eps_i > eps_n: exactly 0 — f_{i,x}(y)/(f_0 + f_1)(y) falls like e^{-(eps_i - eps_n)|y|} as |y| grows
      (user i's tails are lighter than the components'), so no t > 0 works;
    * eps_i <= eps_n: the ratio is smallest at y = 0 or 1 for x = 1 or 0 (it grows outside [0, 1] and is
      log-concave between the endpoints and x), giving (eps_i/eps_n) e^{eps_n - eps_i}/(1 + e^eps_n);
      at eps_i = eps_n this is the paper's 1/(1 + e^eps_n)."""
    if eps_i > eps_n:
        return 0.0
    return (eps_i / eps_n) * math.exp(eps_n - eps_i) / (1.0 + math.exp(eps_n))


@_accepts(eps_i=_real(1e-6, 50.0), eps_n=_real(1e-6, 50.0), y=_real(-1e6, 1e6))
def laplace_clone_ratio_at(eps_i, eps_n, y) -> float:
    """The density ratio min_{x in {0, 1}} f_{i,x}(y) / (f_0(y) + f_1(y)) at one output y, from the Laplace
    densities (eps/2) e^{-eps |y - x|} in log space (no underflow far out): an independent witness that the
    clone weight is below any t above it. inf where the ratio exceeds e^700."""
    log_fn = math.log(eps_n / 2) + np.logaddexp(-eps_n * abs(y), -eps_n * abs(y - 1.0))
    log_r = math.log(eps_i / 2) - eps_i * max(abs(y), abs(y - 1.0)) - log_fn
    return math.inf if log_r > 700 else math.exp(log_r)


@_accepts(
    eps_i=_real(1e-6, 50.0), eps_n=_real(1e-6, 50.0), randomizer=_choice(PERSONALIZED_RANDOMIZERS)
)
def personalized_weight(eps_i, eps_n, randomizer) -> float:
    """The clone weight user i (budget eps_i) offers a differing user with budget eps_n, by randomizer:
    k-ary randomized response by the linear program's components; Laplace by :func:`laplace_clone_weight`."""
    if randomizer == "Laplace":
        return laplace_clone_weight(eps_i, eps_n)
    k = {"binary RR": 2, "3-ary RR": 3, "4-ary RR": 4}[randomizer]
    Rn = D.randomized_response(eps_n, k)
    _, Q0, Q1 = D.max_clone_probability(Rn[0], Rn[1], [], eps_n)
    return min(D.clone_weight(r, Q0, Q1) for r in D.randomized_response(eps_i, k))


@_accepts(
    eps_i=_real(1e-6, 50.0), eps_n=_real(1e-6, 50.0), randomizer=_choice(PERSONALIZED_RANDOMIZERS)
)
def personalized_margin(eps_i, eps_n, randomizer) -> float:
    """Eq. (11) across budgets: clone weight over the paper's p_i = 1/(1 + e^eps_i), minus (1 - 1e-6)."""
    return float(personalized_weight(eps_i, eps_n, randomizer) * (1 + math.exp(eps_i)) - (1 - 1e-6))


@_accepts(
    eps_i=_real(1e-6, 50.0), eps_n=_real(1e-6, 50.0), randomizer=_choice(PERSONALIZED_RANDOMIZERS)
)
def personalized_exact(eps_i, eps_n, randomizer) -> float:
    """Independent check of :func:`personalized_margin`'s clone weight / p_i: k-ary randomized response
    by its closed form Z_n / (Z_i (1 + e^eps_n)), Z = e^eps + k - 1 (capped at the binary value
    1/(1 + e^eps_i), all k); Laplace by the density ratio at a far output y (the weight is at most it)."""
    p_i = 1.0 / (1.0 + math.exp(eps_i))
    if randomizer == "Laplace":
        y = min(1.0 + 40.0 / max(eps_i - eps_n, 1e-3), 1e6) if eps_i > eps_n else 0.0
        return laplace_clone_ratio_at(eps_i, eps_n, y) / p_i
    k = {"binary RR": 2, "3-ary RR": 3, "4-ary RR": 4}[randomizer]
    zi, zn = math.exp(eps_i) + k - 1, math.exp(eps_n) + k - 1
    return min(zn / (zi * (1 + math.exp(eps_n))), p_i) / p_i if k > 2 else 1.0


# Lemma 1 for the Laplace mechanism over every pair of inputs. The differing user's
# inputs x0, x1 may be any two points of [0, 1] (replace-one neighbours), the other user's xi any point.
_UNIT = _real(0.0, 1.0)


@_accepts(lower=_UNIT, gap=_UNIT)
def pair_inputs(lower, gap):
    """The pair (x0, x1) = (lower (1 - gap), lower (1 - gap) + gap): every pair in [0, 1] at distance
    ``gap`` as ``lower`` runs over [0, 1] (the clone weight is symmetric in x0, x1)."""
    x0 = float(lower) * (1.0 - float(gap))
    return x0, min(1.0, x0 + float(gap))


@_accepts(eps=_real(1e-6, 50.0), x0=_UNIT, x1=_UNIT, xi=_UNIT)
def laplace_pair_clone_weight(eps, x0, x1, xi) -> float:
    """The largest w with R(xi) >= w Q^0 + w Q^1 for the Laplace mechanism x + Lap(1/eps) on [0, 1], with
    Q^0, Q^1 the components eqs. (9)-(10) give the pair R(x0), R(x1) (delta = 0). Whatever budget the
    decomposition uses (eps, or the pair's own eps |x1 - x0|), (9)-(10) force Q^0 + Q^1 = f_x0 + f_x1, so
    w = inf_y f_xi / (f_x0 + f_x1) = 1 / G, G = sup_y e^{eps(|y - xi| - |y - x0|)} + e^{eps(|y - xi| - |y - x1|)}.
    The exponents are piecewise linear in y, so each term is convex between the kinks x0, x1, xi and the
    supremum is at a kink or in a tail. With d = |x1 - x0|:

    * xi outside [x0, x1], at distance u from the nearer end: G = e^{eps u} (1 + e^{eps d}) (a tail);
    * xi inside, at distances a >= b from the ends: G = e^{eps a} + e^{-eps b} (at the nearer end).

    Lemma 1 states w = 1/(1 + e^eps): true for d = 1 (then u = 0) and for xi between x0 and x1; false
    (G > 1 + e^eps) when e^{eps u}(1 + e^{eps d}) > 1 + e^eps, e.g. for every d < 1 with u = 1 - d."""
    lo, hi = min(x0, x1), max(x0, x1)
    d = hi - lo
    if lo <= xi <= hi:
        a, b = max(xi - lo, hi - xi), min(xi - lo, hi - xi)
        return 1.0 / (math.exp(eps * a) + math.exp(-eps * b))
    u = lo - xi if xi < lo else xi - hi
    return math.exp(-eps * u) / (1.0 + math.exp(eps * d))


@_accepts(eps=_real(1e-6, 50.0), gap=_UNIT)
def laplace_worst_pair_weight(eps, gap) -> float:
    """The smallest clone weight of :func:`laplace_pair_clone_weight` over every pair at distance ``gap``
    and every xi in [0, 1]: e^{-eps (1 - gap)} / (1 + e^{eps gap}) (pair at one end, xi at the other).
    It equals the paper's 1/(1 + e^eps) at gap = 1 and falls to e^{-eps}/2 (FMT21's weight) as gap -> 0."""
    return math.exp(-eps * (1.0 - gap)) / (1.0 + math.exp(eps * gap))


@_accepts(eps=_real(1e-6, 50.0), x0=_UNIT, x1=_UNIT, xi=_UNIT, points=_int(16, 10**6))
def laplace_pair_clone_exact(eps, x0, x1, xi, points: int = 30001) -> float:
    """Independent check of :func:`laplace_pair_clone_weight` times (1 + e^eps), without its closed form:
    the Laplace densities (scipy) on a grid of outputs y in [-1, 2] (plus x0, x1, xi; beyond [0, 1] the
    ratio is constant), the components Q^0, Q^1 solved from eqs. (9)-(10) at each y as a 2 x 2 linear
    system with the randomizer's budget eps, and min_y f_xi / (Q^0 + Q^1) (each y is a witness: the
    largest weight is at most the ratio there). Below 1: eq. (11) with 1/(1 + e^eps) fails. Raises if a
    solved component is negative (the construction would be invalid)."""
    ys = np.union1d(np.linspace(-1.0, 2.0, int(points)), [x0, x1, xi])
    f = lambda x: stats.laplace.pdf(ys, loc=x, scale=1.0 / eps)
    a, b = special.expit(eps), special.expit(-eps)
    Q = np.linalg.solve(np.array([[a, b], [b, a]]), np.vstack([f(x0), f(x1)]))
    if np.min(Q) < -1e-12 * np.max(Q):
        raise RuntimeError(
            f"eqs. (9)-(10) give a negative component at eps={eps}, x0={x0}, x1={x1}"
        )
    return float(np.min(f(xi) / Q.sum(axis=0)) * (1.0 + math.exp(eps)))


_COMMON = dict(
    eps=_real(1e-3, 50.0),
    k=_int(2, 64),
    randomizer=_choice(("k-ary RR", "Laplace")),
    lower=_UNIT,
    gap=_real(0.0, 1.0, low_open=True),
    xi=_UNIT,
)


@_accepts(**_COMMON)
def common_budget_margin(eps, k, randomizer, lower, gap, xi) -> float:
    """Eq. (11) with a common budget over every input the paper allows: for "k-ary RR" the linear
    program of :func:`common_budget_clone_margin` (every pair of distinct symbols is alike); for "Laplace"
    the clone weight of the pair :func:`pair_inputs` (``lower``, ``gap``) for the other input ``xi``
    (:func:`laplace_pair_clone_weight`). The weight over the paper's 1/(1 + e^eps), minus (1 - 1e-9);
    arguments the randomizer does not use are ignored."""
    if randomizer == "k-ary RR":
        return common_budget_clone_margin(eps, k, "k-ary RR")
    x0, x1 = pair_inputs(lower, gap)
    return float(laplace_pair_clone_weight(eps, x0, x1, xi) * (1.0 + math.exp(eps)) - (1.0 - 1e-9))


@_accepts(**_COMMON)
def common_budget_exact(eps, k, randomizer, lower, gap, xi) -> float:
    """Independent re-check of :func:`common_budget_margin`'s weight / paper's weight (< 1: eq. (11) fails):
    k-ary randomized response by min_y R(x)_y (1 + e^eps) / (R(0) + R(1))_y over its closed-form rows;
    Laplace by :func:`laplace_pair_clone_exact` (densities on a grid, eqs. (9)-(10) solved numerically)."""
    if randomizer == "k-ary RR":
        R = D.randomized_response(eps, int(k))
        return float(np.min(R[2:] * (1.0 + math.exp(eps)) / (R[0] + R[1]))) if k > 2 else 1.0
    x0, x1 = pair_inputs(lower, gap)
    return laplace_pair_clone_exact(eps, x0, x1, xi)


@_accepts(eps=_real(1e-3, 50.0), gap=_real(0.0, 1.0, low_open=True), n=_int(2, 10**7), frac=_UNIT)
def laplace_repair_margin(eps, gap, n, frac) -> float:
    """The accountant's Laplace bound at a pair of inputs at distance ``gap`` (repaired argument): the
    reduced pair of that pair (log-odds eps gap, clone probability 2 :func:`laplace_worst_pair_weight`)
    against the accountant's pair (log-odds eps, clone probability 2/(1 + e^eps)), n users, at
    eps' = frac eps. Returns (delta_ref - delta_pair)/delta_ref (0 where both vanish; < 0: the
    accountant's number would not cover the pair)."""
    from gspa.privacy.shuffle.pairs import ReducedPair
    from gspa.privacy.shuffle.clones import clone_law

    e = float(frac) * eps
    law = lambda q: clone_law(values=np.array([q]), counts=np.array([int(n) - 1]))
    ref = float(ReducedPair(law(2.0 / (1.0 + math.exp(eps))), eps).delta(e))
    got = float(ReducedPair(law(2.0 * laplace_worst_pair_weight(eps, gap)), eps * gap).delta(e))
    if ref <= 0.0:
        return 0.0 if got <= 0.0 else -1.0
    return (ref - got) / ref


# ----------------------------------------------------------------------------- Lemma 2 and Lemma 3
@_accepts(eps0=_real(0.0, 100.0), delta0=_DELTA)
def p0_ratio(eps0, delta0) -> float:
    """Lemma 2's text sets p_0 = (1 - delta_0)/(1 + e^eps_0) for the common budget; Lemma 2's MultiBern(p/2,
    p/2, 1 - p) with Lemma 3's p_i = 2(1 - delta_i)/(1 + e^eps_i) at (eps_0, delta_0). Returns p_0 / p."""
    return ((1 - delta0) / (1 + math.exp(eps0))) / (2 * (1 - delta0) / (1 + math.exp(eps0)))


@_accepts(eps0=_real(0.0, 100.0), delta0=_DELTA)
def p0_margin(eps0, delta0) -> float:
    """1e-12 minus |p_0 / p_Lemma3 - 1| (negative: the two definitions differ)."""
    return float(1e-12 - abs(p0_ratio(eps0, delta0) - 1.0))


@_accepts(eps0=_real(0.0, 100.0), delta0=_DELTA)
def p0_ratio_exact(eps0, delta0) -> Fraction:
    """p_0 / p_Lemma3 in exact rational arithmetic at the float point (e^eps_0 and delta_0 are rationals as
    floats): independent of :func:`p0_ratio`'s floating point. 1/2 for every delta_0 < 1."""
    x, d = Fraction(math.exp(eps0)), Fraction(delta0)
    return ((1 - d) / (1 + x)) / (2 * (1 - d) / (1 + x))


@_accepts(n=_int(1, 10**6), eps_max=_real(1e-6, 100.0), delta_max=_DELTA, seed=_SEED)
def random_budgets(n, eps_max, delta_max, seed):
    """n budgets eps_i uniform in [eps_max/100, eps_max] and delta_i uniform in [0, delta_max] (seed)."""
    rng = np.random.default_rng(int(seed))
    return rng.uniform(eps_max / 100, eps_max, int(n)), rng.uniform(0.0, delta_max, int(n))


@_accepts(n=_int(2, 10**6), eps_max=_real(1e-6, 100.0), delta_max=_DELTA, seed=_SEED)
def lemma3_margin(n, eps_max, delta_max, seed) -> float:
    """Lemma 3's closed forms against linear algebra for random budgets: 1e-10 minus the largest relative
    error of the Mahalanobis distance 4/sum p_i and of the printed Sigma^-1."""
    from gspa.studies.gspa import clt

    eps, dl = random_budgets(n, eps_max, delta_max, seed)
    p = 2 * (1 - dl) / (1 + np.exp(eps))
    maha = clt.mahalanobis_lemma3(p)
    a, b = np.sum(p / 2 * (1 - p / 2)), -np.sum(p**2 / 4)
    inv = np.linalg.inv(np.array([[a, b], [b, a]]))
    rel = max(
        abs(maha - 4 / p.sum()) / maha,
        np.abs(inv - clt.sigma_inverse_printed(p)).max() / np.abs(inv).max(),
    )
    return float(1e-10 - rel)


@_accepts(n=_int(2, 10**6), eps_max=_real(1e-6, 100.0), delta_max=_DELTA, seed=_SEED)
def proof_p_margin(n, eps_max, delta_max, seed) -> float:
    """The proof of Theorem 2 with p_i = (1 - delta_i)/(1 + e^eps_i) in MultiBern(p_i/2, p_i/2, 1 - p_i): mu from
    Lemma 3's formula over the stated mu = sqrt(2/sum p_i); (1 + 1e-9) minus that ratio."""
    from gspa.studies.gspa import theorem2 as T2

    eps, dl = random_budgets(n, eps_max, delta_max, seed)
    p = (1 - dl) / (1 + np.exp(eps))
    return float(1 + 1e-9 - T2.mu_lemma3(p) / math.sqrt(2 / p.sum()))


# ---------------------------------------------------------------------------------- Theorem 1 chapter
@_accepts(n=_int(2, 5000), eps_max=_real(1e-6, 50.0), seed=_SEED)
def thm1_binary_margin(n, eps_max, seed) -> float:
    """Theorem 1 for binary randomized response with personalized budgets (delta_i = 0): n users with budgets
    uniform in [eps_max/100, eps_max] (seed), the differing user drawn with the seed, the others' bits all 0
    and random; min over alpha of T_protocol - T_reduced (the reduced pair with clone probabilities
    2/(1 + e^eps_i)), plus 1e-9."""
    from gspa.privacy.shuffle import pairs as PAIRS
    from gspa.privacy.shuffle import protocol as PR
    from gspa.privacy.shuffle.clones import clone_law

    rng = np.random.default_rng(int(seed))
    eps = rng.uniform(eps_max / 100, eps_max, int(n))
    j = int(rng.integers(int(n)))
    others = np.delete(eps, j)
    own = PAIRS.ReducedPair(clone_law(2 * special.expit(-others)), float(eps[j]))
    worst = np.inf
    for x in (np.zeros(int(n) - 1, int), rng.integers(0, 2, int(n) - 1)):
        P0, P1 = PR.neighbouring_laws(x, others, eps[j])
        T = np.minimum(H.tradeoff_curve(P0, P1, ALPHA), H.tradeoff_curve(P1, P0, ALPHA))
        worst = min(worst, float(np.min(T - own.tradeoff(ALPHA))))
    return worst + 1e-9


def _small_budgets(n, eps_max, spread, seed):
    """n budgets: the first eps_max, the others log-uniform in [eps_max/spread, eps_max] (seed) — one liberal
    user among more conservative ones, where eq. (11) across budgets is weakest."""
    rng = np.random.default_rng(int(seed))
    return np.concatenate([[eps_max], eps_max * float(spread) ** -rng.random(int(n) - 1)])


GRID4 = np.linspace(0.0, 4.0, 41)


@_accepts(n=_int(2, 4), k=_int(2, 5), eps_max=_real(1e-6, 50.0), spread=_real(1.0, 1e6), seed=_SEED)
def thm1_krr_margin(n, k, eps_max, spread, seed) -> float:
    """Theorem 1's pair (binary clone probabilities) against the enumerated shuffled k-ary randomized
    response (n <= 4 users, budgets by :func:`_small_budgets`): minus the largest amount by which the
    pair's delta(eps) falls certainly below the truth on eps in [0, 4]."""
    from gspa.privacy.shuffle import accountant as A
    from gspa.privacy.exact import enumeration as BF

    b = _small_budgets(n, eps_max, spread, seed)
    return float(
        -BF.compare_with_truth(
            A.personalized_pair(b, reduction="clones"), "k-rr", b, GRID4, k=int(k)
        )["deficit"]
    )


def shuffled_krr_delta_direct(budgets, k, inputs0, inputs1, eps_grid) -> np.ndarray:
    """delta(eps) between two data sets of the shuffled k-ary randomized response, by listing all k^n output
    sequences (n <= 6): each sequence's probability is the product of the users' report probabilities
    (e^eps_i/(e^eps_i + k - 1) for the true value, 1/(e^eps_i + k - 1) otherwise); the shuffler keeps only the
    counts, so sequences are summed by their count vector. Independent of gspa.privacy.exact.enumeration. Returns
    one value per eps of ``eps_grid`` (a 1-d array)."""
    b, k = V.real("budgets", budgets, low=0.0, high=50.0), V.integer("k", k, low=2, high=6)
    eps_grid = np.atleast_1d(V.real("eps_grid", eps_grid, low=0.0, high=100.0)).ravel()
    seqs = np.array(list(itertools.product(range(k), repeat=b.size)))
    z = np.exp(b) + k - 1
    key = (seqs[:, :, None] == np.arange(k)).sum(axis=1) @ (b.size + 1) ** np.arange(k)

    def law(x):
        pr = np.where(seqs == np.asarray(x), np.exp(b) / z, 1.0 / z).prod(axis=1)
        return np.bincount(key, pr, minlength=(b.size + 1) ** k)

    P, Q = law(inputs0), law(inputs1)
    e = np.exp(eps_grid)[:, None]
    return np.maximum(np.maximum(P - e * Q, 0).sum(axis=1), np.maximum(Q - e * P, 0).sum(axis=1))


@_accepts(n=_int(2, 4), k=_int(2, 5), eps_max=_real(1e-6, 50.0), spread=_real(1.0, 1e6), seed=_SEED)
def thm1_krr_exact(n, k, eps_max, spread, seed) -> float:
    """Independent check of :func:`thm1_krr_margin`: the largest excess over eps in [0, 4] of the protocol's
    delta(eps), listed sequence by sequence (:func:`shuffled_krr_delta_direct`) with user 0 (the liberal one)
    differing (inputs 0 / 1) and every input of the others, over Theorem 1's pair (> 0: the pair is not an
    upper bound there)."""
    from gspa.privacy.shuffle import accountant as A

    b, k = _small_budgets(n, eps_max, spread, seed), int(k)
    pair = np.asarray(A.personalized_pair(b, reduction="clones").delta(GRID4), float)
    worst = -np.inf
    for xs in itertools.product(range(k), repeat=b.size - 1):
        d = shuffled_krr_delta_direct(b, k, (0,) + xs, (1,) + xs, GRID4)
        worst = max(worst, float(np.max(d - pair)))
    return worst


@_accepts(n=_int(2, 4), eps_max=_real(1e-6, 50.0), spread=_real(1.0, 1e6), delta=_DELTA, seed=_SEED)
def thm1_delta_margin(n, eps_max, spread, delta, seed) -> float:
    """Theorem 1's pair as printed (shared Delta_2 slot) against the enumerated protocol of Lemma 4's
    randomizer with delta_i = delta: minus the largest certain excess of the truth over the pair."""
    from gspa.privacy.exact import enumeration as BF

    b, d = _small_budgets(n, eps_max, spread, seed), np.full(int(n), float(delta))
    printed, p_err = BF.theorem1_pair_profile(b, d, GRID4)
    truth, t_err = BF.shuffled_profile("quaternary", b, GRID4, delta=d)
    return float(-np.max((truth - t_err) - (printed + p_err)))


@_accepts(n=_int(2, 4), eps_max=_real(1e-6, 50.0), spread=_real(1.0, 1e6), delta=_DELTA, seed=_SEED)
def thm1_delta_exact(n, eps_max, spread, delta, seed) -> float:
    """Independent check of :func:`thm1_delta_margin` by a closed-form lower bound on the truth: when every
    other user holds the input whose delta event is outcome A, outcome B appears under D_1 with
    probability delta (the differing user's delta event) and never under D_0, so delta(eps) >= delta at
    every eps. Returns the largest amount by which the printed pair falls certainly below delta (> 0:
    violation)."""
    from gspa.privacy.exact import enumeration as BF

    b = _small_budgets(n, eps_max, spread, seed)
    printed, p_err = BF.theorem1_pair_profile(b, np.full(int(n), float(delta)), GRID4)
    return float(np.max(float(delta) - (printed + p_err)))


@_accepts(eps=_real(0.0, 100.0), delta=_DELTA)
def multibern_sum_margin(eps, delta) -> float:
    """Copy 000's MultiBern(p, p, 1 - 2p), p = (1 - delta)/(1 + e^eps): 1e-12 minus |sum of parameters - 1|."""
    p = (1 - delta) / (1 + math.exp(eps))
    return float(1e-12 - abs(2 * p + (1 - 2 * p) - 1))


@_accepts(eps0=_real(1e-3, 20.0), delta0=_DELTA, m=_int(1, 10**5))
def eq14_ratio_margin(eps0, delta0, m) -> float:
    """Eq. (14) calls sup |P - h| (quarter cells) the total-variation distance: 1.5 minus TV (normal rounded
    to unit cells) over the printed quantity, for m users with the common budget (eps0, delta0) and Lemma 3's
    p = 2(1 - delta0)/(1 + e^eps0). Equal quantities would give 1."""
    from gspa.studies.gspa import clt

    r = clt.lemma2_distances(2 * (1 - delta0) / (1 + math.exp(eps0)), int(m))
    return float(1.5 - r["tv"] / r["printed"])


@_accepts(eps0=_real(1e-3, 20.0), delta0=_DELTA, m=_int(1, 5000))
def eq14_ratio_confirm(eps0, delta0, m) -> bool:
    """Independent re-check of a violation of :func:`eq14_ratio_margin`: the lattice law from the multinomial
    probability function (:func:`gspa.studies.gspa.clt.trinomial_pmf`) instead of
    :func:`gspa.studies.gspa.clt.lattice_pmf`, and the normal's cell masses as differences of scipy's bivariate
    normal CDF at the cell corners instead of Gauss-Legendre quadrature; True when TV (unit cells) / eq. (14)'s
    quantity (quarter cells) exceeds 1.5. ``m`` up to 5,000 (the full lattice law is held)."""
    from gspa.studies.gspa import clt

    p, m = 2 * (1 - float(delta0)) / (1 + math.exp(float(eps0))), int(m)
    mean, cov = clt.multibern_moments(p, m)
    sd = math.sqrt(cov[0, 0])
    k = np.arange(max(int(mean[0] - 9 * sd), 0), min(int(mean[0] + 9 * sd) + 2, m + 1))
    P = clt.trinomial_pmf(m, p / 2)[np.ix_(k, k)]
    K0, K1 = np.meshgrid(k, k, indexing="ij")

    def cdf(x0, x1):
        return stats.multivariate_normal.cdf(
            np.stack([x0.ravel(), x1.ravel()], -1), mean, cov, abseps=1e-13, releps=1e-13
        ).reshape(x0.shape)

    def cells(lo, hi):
        """The normal's mass of the cells [k0 + lo, k0 + hi] x [k1 + lo, k1 + hi]."""
        return (
            cdf(K0 + hi, K1 + hi)
            - cdf(K0 + hi, K1 + lo)
            - cdf(K0 + lo, K1 + hi)
            + cdf(K0 + lo, K1 + lo)
        )

    unit, quarter = cells(-0.5, 0.5), cells(0.0, 0.5)
    tv = 0.5 * (np.abs(P - unit).sum() + max(0.0, 1.0 - unit.sum()) + max(0.0, 1.0 - P.sum()))
    return bool(tv / np.abs(P - quarter).max() > 1.5)


@_accepts(n=_int(2, 10**6), eps_max=_real(1e-6, 100.0), delta_max=_DELTA, seed=_SEED)
def proof_p_ratio_exact(n, eps_max, delta_max, seed) -> Fraction:
    """The square of mu(proof's definitions) / mu(stated) in exact rational arithmetic: Lemma 3's
    mu = 2/sqrt(S) with S = sum (1 - delta_i)/(1 + e^eps_i), over the stated sqrt(2/S), squared is
    (4/S)/(2/S) — 2 for every S > 0 (the ratio itself is sqrt(2)). S is the point's sum as a float, taken as
    the exact rational it is (an exact sum of n such fractions would have enormous denominators)."""
    eps, dl = random_budgets(n, eps_max, delta_max, seed)
    S = Fraction(float(np.sum((1 - dl) / (1 + np.exp(eps)))))
    return (4 / S) / (2 / S)
