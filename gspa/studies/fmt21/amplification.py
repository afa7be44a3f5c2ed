"""FMT21's amplification bound as the blog states it, against the exact clone pair.

The blog (Canonne, "Privacy Doona", 2022) states Feldman–McMillan–Talwar's theorem for a
non-interactive protocol in which all n users run one common eps_L-LDP randomizer: the shuffled
reports are (eps, delta)-DP for

* eq. (1):  eps = log(1 + 16 (e^eps_L - 1)/(e^eps_L + 1) sqrt(e^eps_L log(4/delta) / n)),
  "as long as n >> e^eps_L log(1/delta)";
* its small-eps_L expansion:  eps ~ 8 eps_L sqrt(log(4/delta) / n)  (the "factor sqrt(n)");
* for eps_L >> 1, eq. (2):  eps ~ log(1 + 8 sqrt(e^eps_L log(4/delta) / n)),
  and eq. (3):  eps ~ 8 e^(eps_L/2) sqrt(log(4/delta) / n).

The *exact* value of the clone reduction behind the theorem is :func:`gspa.privacy.fmt21_pair`
(clone probability e^-eps_L, computed with every numerical error counted); FMT21's own closed form,
as their public code computes it, is :func:`gspa.privacy.peers.baselines.fmt21_closed`. The validity
condition used for eq. (1) is eps_L <= log(n / (16 log(2/delta))) (:func:`gspa.privacy.peers.baselines.fmt21_blog`).

Also here: the blog's example of a randomizer that appends the user's index (no amplification at
all), and footnote 2's malicious users, both by exhaustive enumeration of the real protocol.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from gspa.util import validate as V
from gspa.privacy import fmt21_pair, personalized_pair
from gspa.privacy.exact import shuffled_profile
from gspa.privacy.peers import baselines
from gspa.privacy.basics.mechanisms import rr_delta
from gspa.privacy.exact.enumeration import hockey_both, histogram_law, krr_row
from gspa.privacy.numerics import gamma


# Limits of the arguments, well above the book's (eps_L <= 14 in the condition region, n <= 5 * 10^9 in
# the sqrt(n) fits): beyond them e^eps_L overflows or the exact pair costs too much.
MAX_EPS_L = 50.0
MAX_N = 10**10


def _eps_l(eps_l):
    return V.real("eps_l", eps_l, low=0.0, high=MAX_EPS_L, low_open=True, scalar=True)


def _delta(delta):
    return V.probability("delta", delta, open_low=True, open_high=True, scalar=True)


def _eps_grid(eps_grid):
    return V.real("eps_grid", eps_grid, low=0.0, high=2 * MAX_EPS_L).ravel()


def _point(eps_l, n, delta, max_n=MAX_N):
    return _eps_l(eps_l), V.integer("n", n, low=2, high=max_n), _delta(delta)


def eq1(eps_l, n, delta) -> float:
    """The blog's eq. (1) as a formula, evaluated whether or not its condition holds (the condition
    is :func:`gspa.privacy.peers.baselines.fmt21_blog`'s ``valid``, which returns the same number where it holds)."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return float(
        np.log1p(16.0 * np.tanh(eps_l / 2.0) * np.sqrt(np.exp(eps_l) * np.log(4.0 / delta) / n))
    )


def small_eps(eps_l, n, delta) -> float:
    """The blog's small-eps_L approximation, 8 eps_L sqrt(log(4/delta)/n) (text after eq. (1))."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return float(8.0 * eps_l * np.sqrt(np.log(4.0 / delta) / n))


def eq2(eps_l, n, delta) -> float:
    """The blog's eq. (2), for eps_L >> 1: log(1 + 8 sqrt(e^eps_L log(4/delta)/n))."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return float(np.log1p(8.0 * np.sqrt(np.exp(eps_l) * np.log(4.0 / delta) / n)))


def eq3(eps_l, n, delta) -> float:
    """The blog's eq. (3): 8 e^(eps_L/2) sqrt(log(4/delta)/n)."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return float(8.0 * np.exp(eps_l / 2.0) * np.sqrt(np.log(4.0 / delta) / n))


def eq1_large_limit(eps_l, n, delta) -> float:
    """Eq. (1) with its factor (e^eps_L - 1)/(e^eps_L + 1) replaced by its eps_L -> inf limit 1:
    log(1 + 16 sqrt(e^eps_L log(4/delta)/n)) — what a large-eps_L expansion of eq. (1) gives."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return float(np.log1p(16.0 * np.sqrt(np.exp(eps_l) * np.log(4.0 / delta) / n)))


def exact_epsilon(eps_l, n, delta) -> float:
    """Certified eps(delta) of FMT21's clone pair for n users sharing one eps_L-LDP randomizer."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return fmt21_pair(eps_l, n).epsilon(delta)


def compare(eps_values, n_values, delta_values, progress: bool = False) -> pd.DataFrame:
    """One row per (eps_L, n, delta): the exact value, eq. (1) and its validity, FMT21's closed form
    (their code; NaN where its condition fails, flagged by ``fmt21_valid``), and the blog's three
    approximations."""
    from gspa.util.progress import bar as tqdm

    axes = [
        V.real(name, v, ndim=1)
        for name, v in (
            ("eps_values", eps_values),
            ("n_values", n_values),
            ("delta_values", delta_values),
        )
    ]
    grid = list(itertools.product(*axes))
    progress = V.boolean("progress", progress)
    rows = []
    for eps_l, n, delta in tqdm(grid, desc="exact clone pairs", disable=not progress, leave=False):
        eps_l, n, delta = _point(eps_l, n, delta)
        b1, bf = baselines.fmt21_blog(eps_l, n, delta), baselines.fmt21_closed(eps_l, n, delta)
        rows.append(
            {
                "eps_l": eps_l,
                "n": n,
                "delta": delta,
                "exact": exact_epsilon(eps_l, n, delta),
                "eq1": eq1(eps_l, n, delta),
                "eq1_valid": b1.valid,
                "fmt21": bf.value_or_nan(),
                "fmt21_valid": bf.valid,
                "small": small_eps(eps_l, n, delta),
                "eq2": eq2(eps_l, n, delta),
                "eq3": eq3(eps_l, n, delta),
                "eq1_large": eq1_large_limit(eps_l, n, delta),
            }
        )
    return pd.DataFrame(rows)


def fitted_slope(x, y) -> float:
    """Least-squares slope of log y against log x (the exponent of a power law)."""
    x, y = (V.finite(name, v, low=0.0, low_open=True) for name, v in (("x", x), ("y", y)))
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


# -- the same-randomizer assumption: exhaustive enumeration of tiny protocols -------------------------


def _profile(rows_of, users, alphabet, eps_grid, fixed_rows=()):
    """Largest hockey-stick divergence over every differing user in ``users``, every input of the
    other users and both inputs of the differing one; ``fixed_rows``: reports that do not depend on
    any input (added to every histogram)."""
    best = np.zeros(eps_grid.size)
    for j in users:
        others = [i for i in users if i != j]
        for xs in itertools.product(alphabet, repeat=len(others)):
            base = [rows_of(i, x) for i, x in zip(others, xs)] + list(fixed_rows)
            P = histogram_law(base + [rows_of(j, 0)])
            Q = histogram_law(base + [rows_of(j, 1)])
            keep = (P > 0) | (Q > 0)
            best = np.maximum(best, hockey_both(P[keep], Q[keep], eps_grid))
    return best


def indexed_rr_profile(eps_l, n: int, eps_grid):
    """(delta(eps) on ``eps_grid``, its floating-point error bound) of the shuffle of n users who run
    binary randomized response with budget eps_L and *append their index* to the report — the blog's
    example of a randomizer that is eps_L-LDP yet gains nothing from shuffling. Exhaustive: the report
    alphabet is {(i, b)}, 2n symbols; n <= 4."""
    eps_l, n, grid = _eps_l(eps_l), V.integer("n", n, low=2, high=4), _eps_grid(eps_grid)

    def row(i, x):
        r = np.zeros(2 * n)
        r[2 * i : 2 * i + 2] = krr_row(eps_l, 2, x)
        return r

    err = gamma(8 * n * (2 * n + 1) + 16) * (1.0 + np.exp(grid))
    return _profile(row, range(n), range(2), grid), err


def malicious_profile(eps_l, honest: int, malicious: int, eps_grid):
    """(delta(eps), error bound) of shuffled binary randomized response with ``honest`` users running
    it at eps_L and ``malicious`` users who send whatever report they like (each fixed report
    assignment enumerated, the largest delta kept) — blog footnote 2. honest + malicious <= 7."""
    eps_l = _eps_l(eps_l)
    honest = V.integer("honest", honest, low=2)
    malicious = V.integer("malicious", malicious, low=0)
    grid = _eps_grid(eps_grid)
    best = np.zeros(grid.size)
    for fixed in itertools.product(range(2), repeat=malicious):
        rows = [np.eye(2)[b] for b in fixed]
        best = np.maximum(
            best, _profile(lambda i, x: krr_row(eps_l, 2, x), range(honest), range(2), grid, rows)
        )
    err = gamma(8 * (honest + malicious) * 3 + 16) * (1.0 + np.exp(grid))
    return best, err


# -- margins of the claims over the domain the blog states -----------------------------------------
# Each margin is >= 0 where the claim holds at that point and < 0 where it fails, in the units named.


def _condition(log_arg, eps_floor):
    """(log_arg, eps_floor) of eq. (1)'s condition region, checked."""
    return (
        V.real("log_arg", log_arg, low=1.0, high=100.0, scalar=True),
        V.real("eps_floor", eps_floor, low=0.0, high=MAX_EPS_L / 2, scalar=True),
    )


def condition_point(n_share, eps_share, delta, log_arg: float = 2.0, eps_floor: float = 0.0):
    """The point (eps_L, n) of eq. (1)'s condition region eps_L <= log(n / (16 log(log_arg/delta)))
    (the blog's condition read as FMT21 state it, log_arg = 2; FMT21's code checks log_arg = 4) with
    n = ceil(n_share * 16 log(log_arg/delta)), so that log(n/(16 log(log_arg/delta))) >= log(n_share),
    and eps_L = eps_floor + eps_share (log(n_share) - eps_floor): n_share in (e^eps_floor, inf) runs from
    the smallest n the condition allows, eps_share in (0, 1] up to the largest eps_L it allows."""
    n_share = V.real("n_share", n_share, low=0.0, high=1e9, low_open=True, scalar=True)
    eps_share = V.probability("eps_share", eps_share, open_low=True, scalar=True)
    delta = _delta(delta)
    log_arg, eps_floor = _condition(log_arg, eps_floor)
    top = float(np.log(n_share))
    n = int(np.ceil(n_share * 16.0 * np.log(log_arg / delta)))
    return float(eps_floor + eps_share * (top - eps_floor)), max(n, 2)


def eq1_upper_margin(n_share, eps_share, delta) -> float:
    """Blog eq. (1) as an upper bound (FMT21, Thm. 3.1 as the blog states it): 1 - exact/eq1, with
    exact the certified eps(delta) of the clone pair (an upper bound on it, so a margin >= 0 is safe),
    at the point :func:`condition_point` of eq. (1)'s condition region. < 0: eq. (1) is below the
    exact value there."""
    eps_l, n = condition_point(n_share, eps_share, delta)
    return 1.0 - exact_epsilon(eps_l, n, delta) / eq1(eps_l, n, delta)


def closed_vs_eq1_margin(n_share, eps_share, delta) -> float:
    """FMT21's closed form as their code computes it (:func:`gspa.privacy.peers.baselines.fmt21_closed`)
    against the blog's printing of it, eq. (1): 1 - fmt21_closed/eq1, over the region where the code's
    condition (log(4/delta)) holds, hence eq. (1)'s too. >= 0: eq. (1) is no smaller than the code's
    value (a conservative restatement); < 0: eq. (1) claims more privacy than FMT21's own bound."""
    eps_l, n = condition_point(n_share, eps_share, delta, log_arg=4.0)
    b = baselines.fmt21_closed(eps_l, n, delta)
    if not b.valid:
        raise ValueError(
            f"FMT21's condition fails at eps_l = {eps_l}, n = {n}, delta = {delta}: {b.reason}"
        )
    return 1.0 - b.epsilon / eq1(eps_l, n, delta)


def index_margin(eps_l, users) -> float:
    """Blog's appended-index remark: minus the largest difference, beyond the counted round-off, between
    the enumerated delta(eps) of the shuffled indexed protocol (:func:`indexed_rr_profile`) and one
    local report's, over eps in [0, eps_L] (21 points). >= 0: equal within round-off."""
    grid = np.linspace(0.0, _eps_l(eps_l), 21)
    d_idx, err = indexed_rr_profile(eps_l, users, grid)
    return -float(np.max(np.abs(d_idx - np.maximum(rr_delta(grid, eps_l), 0.0)) - err))


def malicious_margin(eps_l, honest, malicious) -> float:
    """Blog footnote 2, enumerated: minus the largest difference, beyond both round-off bounds, between
    the delta(eps) with ``malicious`` users sending any fixed reports (:func:`malicious_profile`) and
    that of the honest users alone, over eps in [0, eps_L] (21 points). >= 0: the malicious users cost
    exactly the removal of their reports."""
    grid = np.linspace(0.0, _eps_l(eps_l), 21)
    d_mal, e_mal = malicious_profile(eps_l, honest, malicious, grid)
    d_hon, e_hon = shuffled_profile("binary-rr", [float(eps_l)] * int(honest), grid)
    return -float(np.max(np.abs(d_mal - d_hon) - e_mal - e_hon))


def small_eps_margin(eps_l, n_share, delta) -> float:
    """The blog's small-eps_L expansion as a first-order expansion of eq. (1): eps_L - |small/eq1 - 1|
    (the relative error of a first-order expansion is at most of order eps_L; the constant 1 is the
    referee's), at n = ceil(n_share e^eps_L 16 log(2/delta)) (inside eq. (1)'s condition)."""
    eps_l, n_share, delta = (
        _eps_l(eps_l),
        V.real("n_share", n_share, low=1.0, high=1e9, scalar=True),
        _delta(delta),
    )
    n = int(np.ceil(n_share * np.exp(eps_l) * 16.0 * np.log(2.0 / delta)))
    return float(eps_l - abs(small_eps(eps_l, n, delta) / eq1(eps_l, n, delta) - 1.0))


LARGE_EPS = 5.0  # "eps_L >> 1", closed by the book as eps_L >= 5 (e^-eps_L < 0.7 %)


def eq2_margins(n_share, eps_share, delta, tol: float = 0.05) -> dict:
    """Blog eq. (2) as the large-eps_L expansion of (a) eq. (1) and (b) FMT21's closed form (their
    code): tol - |x_2 / x_ref - 1| with x = e^eps - 1 the term inside the logarithm, at the point of
    the code's condition region with eps_L in [LARGE_EPS, its largest allowed value]."""
    tol = V.finite("tol", tol, low=0.0, scalar=True)
    eps_l, n = condition_point(n_share, eps_share, delta, log_arg=4.0, eps_floor=LARGE_EPS)
    x2 = np.expm1(eq2(eps_l, n, delta))
    return {
        "eq1": float(tol - abs(x2 / np.expm1(eq1(eps_l, n, delta)) - 1.0)),
        "fmt21": float(
            tol - abs(x2 / np.expm1(baselines.fmt21_closed(eps_l, n, delta).epsilon) - 1.0)
        ),
    }


def eq3_argument(eps_l, n, delta) -> float:
    """x = 8 sqrt(e^eps_L log(4/delta)/n): the term inside eq. (2)'s logarithm, and eq. (3) itself. Eq. (3)
    is eq. (2) with log(1 + x) replaced by x, a first-order expansion in x (x -> 0 as n / (e^eps_L
    log(1/delta)) -> infinity, the blog's condition n >> e^eps_L log(1/delta))."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return float(8.0 * np.sqrt(np.exp(eps_l) * np.log(4.0 / delta) / n))


def eq3_margin(n_share, eps_share, delta) -> float:
    """Blog eq. (3) as eq. (2) 'put differently', i.e. log(1 + x) ~ x, a first-order expansion in x:
    x - |eq3/eq2 - 1| (the relative error of a first-order expansion is at most of order x; the constant 1 is
    the referee's, as in :func:`small_eps_margin`; in fact x/log(1 + x) - 1 <= x/2 for every x >= 0),
    eps_L in [1, the largest value eq. (1)'s condition allows]."""
    eps_l, n = condition_point(n_share, eps_share, delta, eps_floor=1.0)
    x = eq3_argument(eps_l, n, delta)
    return float(x - abs(eq3(eps_l, n, delta) / eq2(eps_l, n, delta) - 1.0))


def eq3_bound_check(x_grid) -> dict[str, float]:
    """The inequality behind eq. (3)'s proof, log(1 + x) >= 2x/(2 + x) for x >= 0, and what it gives, 0 <=
    x/log(1 + x) - 1 <= x/2, on ``x_grid`` (x > 0) in 50-digit arithmetic (mpmath; near 0 the gap is x^3/12,
    below double round-off): the smallest log(1 + x) - 2x/(2 + x) (``inequality``), the smallest
    x/log(1 + x) - 1 (``lower``) and the smallest x/2 - (x/log(1 + x) - 1) (``upper``) over the grid; all
    >= 0 where the proof holds."""
    import mpmath as mp

    x_grid = V.real("x_grid", x_grid, low=0.0, ndim=1)
    if x_grid.size == 0 or np.any(x_grid <= 0):
        raise ValueError(f"x_grid must hold positive numbers, got {x_grid!r}")
    with mp.workdps(50):
        xs = [mp.mpf(float(x)) for x in x_grid]
        rel = [x / mp.log1p(x) - 1 for x in xs]
        return {
            "inequality": float(min(mp.log1p(x) - 2 * x / (2 + x) for x in xs)),
            "lower": float(min(rel)),
            "upper": float(min(x / 2 - r for x, r in zip(xs, rel))),
        }


def eq3_within(n_share, eps_share, delta, tol: float = 0.1) -> float:
    """tol - |eq3/eq2 - 1| at the same point as :func:`eq3_margin`: how far eq. (3) is from eq. (2) as a
    number (not a rule of the blog's: it shows where in eq. (1)'s condition region the two are within tol)."""
    tol = V.finite("tol", tol, low=0.0, scalar=True)
    eps_l, n = condition_point(n_share, eps_share, delta, eps_floor=1.0)
    return float(tol - abs(eq3(eps_l, n, delta) / eq2(eps_l, n, delta) - 1.0))


def eq3_ratio_exact(eps_l, n, delta) -> float:
    """eq3/eq2 in 50-digit arithmetic (mpmath), independent of the numpy code path of
    :func:`eq3_margin`, to re-verify a violation it finds."""
    import mpmath as mp

    eps_l, n, delta = _point(eps_l, n, delta)
    with mp.workdps(50):
        x = 8 * mp.sqrt(mp.e ** mp.mpf(eps_l) * mp.log(4 / mp.mpf(delta)) / n)
        return float(x / mp.log1p(x))


def eq2_ratio_exact(eps_l, n, delta) -> float:
    """x_2 / x_1 in 50-digit arithmetic (mpmath), from the printed formulas and independent of the numpy
    code path of :func:`eq2_margins`: x_2 = 8 sqrt(e^eps_L log(4/delta)/n), the term inside eq. (2)'s
    logarithm, over x_1 = 16 (e^eps_L - 1)/(e^eps_L + 1) sqrt(e^eps_L log(4/delta)/n), the term inside
    eq. (1)'s (the ratio is 1/(2 tanh(eps_L/2)), which tends to 1/2, not 1, as eps_L grows)."""
    import mpmath as mp

    eps_l, n, delta = _point(eps_l, n, delta)
    with mp.workdps(50):
        em1 = mp.expm1(mp.mpf(eps_l))  # e^eps_L - 1, exact for tiny eps_L too
        root = mp.sqrt((em1 + 1) * mp.log(4 / mp.mpf(delta)) / n)
        return float((8 * root) / (16 * em1 / (em1 + 2) * root))


def sqrt_n_slope(eps_l, n, delta, which: str = "exact") -> float:
    """Slope of log eps against log n over the decade [n, 10 n] at fixed eps_L and delta, for the
    certified exact value (``exact``) or eq. (1) (``eq1``); -inf where the exact value reaches 0 at 10 n
    (an improvement beyond any power of n)."""
    funcs = {"exact": exact_epsilon, "eq1": eq1}
    f = funcs[V.choice("which", which, sorted(funcs))]
    eps_l, n, delta = _point(eps_l, n, delta, max_n=MAX_N // 10)
    a, b = f(eps_l, n, delta), f(eps_l, 10 * n, delta)
    if b == 0.0:
        return float("-inf")
    if a == 0.0:
        raise ValueError(f"the exact eps is 0 at n = {n} but not at 10 n: not monotone in n")
    return float(np.log(b / a) / np.log(10.0))


def sqrt_n_margin(eps_l, n_share, delta, which: str = "exact") -> float:
    """The blog's "a first-order Taylor expansion shows ... so that shuffling improved our privacy parameter by
    a factor sqrt(n)", to first order in eps_L as the expansion it is read from (:func:`small_eps_margin`; the
    constant 1 is the referee's), with s the slope of log eps in log n over [n, 10 n] (:func:`sqrt_n_slope`):

    * ``eq1``, the guarantee of eq. (1): eps_L - |s + 1/2| (eq. (1) scales as n^(-1/2) to first order);
    * ``exact``, the protocol's exact eps: eps_L - (s + 1/2) (it improves at least like sqrt(n), to first
      order; capped at 1 where the exact eps reaches 0, an improvement beyond any power of n).

    n = ceil(n_share e^eps_L 16 log(2/delta)) (inside eq. (1)'s condition)."""
    eps_l, n_share, delta = (
        _eps_l(eps_l),
        V.real("n_share", n_share, low=1.0, high=1e9, scalar=True),
        _delta(delta),
    )
    which = V.choice("which", which, ["eq1", "exact"])
    n = int(np.ceil(n_share * np.exp(eps_l) * 16.0 * np.log(2.0 / delta)))
    s = sqrt_n_slope(eps_l, n, delta, which) + 0.5
    return float(min(1.0, eps_l - (abs(s) if which == "eq1" else s)))


N_SHARE_MAX = (
    1e6  # n up to 10^6 times the smallest n eq. (1)'s condition allows (about 10^8 to 5 * 10^8)
)
DELTA_RANGE = (1e-12, 1e-2)


def condition_params(log_arg: float = 2.0, eps_floor: float = 0.0) -> list[dict]:
    """The parameters (keyword arguments of :class:`gspa.claims.domain.Param`) of a statement about eq. (1)'s
    whole condition region, in the coordinates of :func:`condition_point`: n_share = n / (16
    log(log_arg/delta)) from just above e^eps_floor (the smallest n allowed) to N_SHARE_MAX, eps_share =
    the fraction of the allowed range of eps_L (above eps_floor) up to 1 (the largest eps_L allowed),
    delta in DELTA_RANGE."""
    log_arg, eps_floor = _condition(log_arg, eps_floor)
    cond = f"ε_L ≤ log(n/(16 log({log_arg:g}/δ)))"
    return [
        dict(
            name="n_share",
            low=float(np.exp(eps_floor)) * 1.001,
            high=N_SHARE_MAX,
            stated="n ≫ e^ε_L log(1/δ) (blog, after eq. (1)); read as FMT21 state it, " + cond,
            closed_by=f"n / (16 log({log_arg:g}/δ)) from the smallest value the condition allows to 10^6 "
            "(n up to 10^8 to 5·10^8)",
        ),
        dict(
            name="eps_share",
            low=1e-3,
            high=1.0,
            stated="any ε_L > 0 allowed by the condition (blog, eq. (1))",
            closed_by=(
                f"ε_L = {eps_floor:g} + s·(log(n/(16 log({log_arg:g}/δ))) − {eps_floor:g}), s from 0.001 to 1 "
                "(1: the largest ε_L the condition allows)"
            ),
        ),
        dict(
            name="delta",
            low=DELTA_RANGE[0],
            high=DELTA_RANGE[1],
            stated="'fixing some small δ > 0' (blog, after eq. (1))",
            closed_by="δ from 10⁻¹² to 10⁻² (a referee's range for a central δ)",
        ),
    ]


def largest_slope(points) -> tuple[float, dict]:
    """The largest slope s of log eps in log n over a decade among the points of a search of
    :func:`sqrt_n_margin` (a list of (point, margin)), and its point: s = eps_L - margin - 1/2 wherever the
    margin is not capped (eq. (1) falls no faster than n^(-1/2), so its |s + 1/2| is s + 1/2); capped points
    (the exact eps reaching 0) are skipped. (nan, {}) when every point is capped."""
    best = (float("nan"), {})
    for pt, m in points:
        m = V.finite("margin", m, scalar=True)
        if m >= 1.0:
            continue
        s = float(pt["eps_l"]) - m - 0.5
        if not s <= best[0]:
            best = (s, dict(pt))
    return best


# -- the clones chapter's tables (chapter fmt21/clones) --------------------------------------------------


def eq1_ratios(res: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Blog eq. (1) and FMT21's closed form against the exact value on a :func:`compare` grid: the grid
    with the columns ``ratio_eq1`` (eq. (1) / exact) and ``ratio_fmt21`` (FMT21's closed form / exact, NaN
    where its condition fails), and a summary: the grid's size, the points where eq. (1)'s condition holds,
    the smallest, median and largest eq. (1) / exact there, the median FMT21 / exact and the range of
    eq. (1) / FMT21 where both conditions hold."""
    res = res.assign(ratio_eq1=res.eq1 / res.exact, ratio_fmt21=res.fmt21 / res.exact)
    valid = res[res.eq1_valid]
    both = res[res.eq1_valid & res.fmt21_valid]
    if len(both) == 0:
        raise ValueError("res has no point where both eq. (1)'s and FMT21's conditions hold")
    return res, {
        "n_grid": len(res),
        "n_valid": len(valid),
        "eq1_ratio_min": valid.ratio_eq1.min(),
        "eq1_ratio_median": valid.ratio_eq1.median(),
        "eq1_ratio_max": valid.ratio_eq1.max(),
        "fmt21_ratio_median": both.ratio_fmt21.median(),
        "eq1_over_fmt21_min": (both.eq1 / both.fmt21).min(),
        "eq1_over_fmt21_max": (both.eq1 / both.fmt21).max(),
    }


def index_table(eps_l=1.0, users: int = 4, points: int = 11) -> tuple[pd.DataFrame, float]:
    """The blog's appended-index remark ("shuffling achieves exactly nothing"), enumerated: exact delta(eps)
    at ``points`` values of eps in [0, eps_L] of binary randomized response alone (``local``), of ``users``
    users who append their index and are shuffled (``indexed``, :func:`indexed_rr_profile`) and of the same
    users shuffled without their index (``shuffled``); and the largest difference between the indexed and
    the local profile beyond the counted round-off (<= 0: equal)."""
    eps_l = _eps_l(eps_l)
    users = V.integer("users", users, low=2, high=4)
    grid = np.linspace(0.0, eps_l, V.integer("points", points, low=2, high=1001))
    d_idx, err_idx = indexed_rr_profile(eps_l, users, grid)
    d_loc = np.maximum(rr_delta(grid, eps_l), 0.0) + 0.0  # no negative zero in the table
    d_shuf, _ = shuffled_profile("binary-rr", [eps_l] * users, grid)
    gap = float(np.max(np.abs(d_idx - d_loc) - err_idx))
    table = pd.DataFrame({"eps": grid, "local": d_loc, "indexed": d_idx, "shuffled": d_shuf})
    return table, gap


MAX_MIX_USERS = 10**8


def personalized_mix(n: int = 100_000, budgets=(1.0, 3.0), delta_values=(1e-6,)):
    """What personalized budgets do to the clones (the GSPA paper's setting against FMT21's common
    randomizer): n users split evenly into groups with the given local ``budgets`` (the last group takes the
    remainder); one row per delta (ascending) with the certified eps(delta) of binary randomized response
    (its clone pair, clones from every user: the same reduction as Laplace's), of the Laplace mechanism (clones only from users whose budget is at most the differing user's,
    with a smaller weight across budgets) and of FMT21's
    pair at the largest budget. Also the median ratio Laplace / binary randomized response."""
    budgets = V.real("budgets", budgets, low=0.0, high=MAX_EPS_L, low_open=True, ndim=1)
    k = budgets.size
    n = V.integer("n", n, low=2 * k, high=MAX_MIX_USERS)
    deltas = V.probability("delta_values", delta_values, open_low=True, open_high=True, ndim=1)
    counts = np.array([n // k] * (k - 1) + [n - (k - 1) * (n // k)])
    rows = [
        {
            "delta": d,
            "binary": personalized_pair(budgets, counts=counts, reduction="clones").epsilon(d),
            "laplace": personalized_pair(budgets, counts=counts, randomizer="laplace").epsilon(d),
            "fmt21": fmt21_pair(float(budgets.max()), n).epsilon(d),
        }
        for d in sorted(deltas.ravel())
    ]
    mix = pd.DataFrame(rows)
    return mix, float((mix.laplace / mix.binary).median())


def malicious_gap(eps_l=1.0, honest: int = 3, malicious: int = 2, points: int = 11) -> float:
    """Blog footnote 2, enumerated on ``points`` values of eps in [0, eps_L]: the largest difference, beyond
    both round-off bounds, between delta(eps) with ``malicious`` users sending any fixed reports
    (:func:`malicious_profile`) and that of the ``honest`` users alone (<= 0: equal)."""
    eps_l = _eps_l(eps_l)
    grid = np.linspace(0.0, eps_l, V.integer("points", points, low=2, high=1001))
    d_mal, err_mal = malicious_profile(eps_l, honest, malicious, grid)
    d_hon, err_hon = shuffled_profile("binary-rr", [eps_l] * int(honest), grid)
    return float(np.max(np.abs(d_mal - d_hon) - err_mal - err_hon))


def malicious_cost(eps_values, n_values, delta=1e-6, fraction=0.1) -> tuple[pd.DataFrame, dict]:
    """Blog footnote 2 at scale: with a ``fraction`` f of malicious users (their reports removed), one row
    per (eps_L, n) with at least 2 honest users: the certified eps(delta) with all n users honest and with
    the floor((1 - f) n) honest users only, their ratio (``cost``), eq. (1)'s formula at the honest count
    (``eq1``) and whether its condition holds there (``valid``; a table shows eq. (1) only there). Summary:
    the median cost, the sqrt(n) law's 1/sqrt(1 - f), the valid points and whether eq. (1) at the honest
    count bounds the certified eps at all of them."""
    eps_values = V.real("eps_values", eps_values, low=0.0, high=MAX_EPS_L, low_open=True, ndim=1)
    n_values = V.real("n_values", n_values, low=2, high=MAX_N, ndim=1)
    delta = _delta(delta)
    f = V.real("fraction", fraction, low=0.0, high=1.0, high_open=True, scalar=True)
    rows = []
    for e, n in itertools.product(eps_values, n_values):
        e, n = float(e), V.integer("n_values", n, low=2, high=MAX_N)
        h = int(np.floor((1 - f) * n))
        if h < 2:
            continue
        full, part = exact_epsilon(e, n, delta), exact_epsilon(e, h, delta)
        b1 = baselines.fmt21_blog(e, h, delta)
        rows.append(
            {
                "eps_l": e,
                "n": n,
                "honest": h,
                "exact, all honest": full,
                "exact, honest only": part,
                "cost": part / full,
                "eq1": eq1(e, h, delta),
                "valid": b1.valid,
            }
        )
    if not rows:
        raise ValueError(f"no n in n_values leaves 2 honest users with fraction {f!r}")
    mal = pd.DataFrame(rows)
    vm = mal[mal.valid]
    return mal, {
        "cost_median": float(mal.cost.median()),
        "cost_sqrt": float(1 / np.sqrt(1 - f)),
        "valid_points": len(vm),
        "eq1_bounds": bool((vm.eq1 >= vm["exact, honest only"]).all()),
    }


# -- the regimes chapter's grid and fits (chapter fmt21/regimes) ------------------------------------------

#: the blog's approximations of eq. (1) and the references they are held against (chapter fmt21/regimes)
APPROXIMATIONS = ("small", "eq2", "eq3")
REFERENCES = ("eq1", "exact")


def regime_grid(
    eps_min=0.01, eps_max=10.0, eps_points=25, n_min_exp=3, n_max_exp=8, n_points=16
) -> tuple[np.ndarray, np.ndarray]:
    """The (eps_L, n) grid on which the blog's two regimes of eq. (1) are mapped: ``eps_points`` local budgets
    log-spaced from ``eps_min`` to ``eps_max``, and ``n_points`` user counts log-spaced from 10^n_min_exp to
    10^n_max_exp, rounded to whole numbers (repeats dropped)."""
    eps_min = V.real("eps_min", eps_min, low=0.0, high=MAX_EPS_L, low_open=True, scalar=True)
    eps_max = V.real("eps_max", eps_max, low=eps_min, high=MAX_EPS_L, low_open=True, scalar=True)
    lo = V.real("n_min_exp", n_min_exp, low=1.0, high=9.0, high_open=True, scalar=True)
    hi = V.real("n_max_exp", n_max_exp, low=lo, high=9.0, low_open=True, scalar=True)
    eps_grid = np.geomspace(eps_min, eps_max, V.integer("eps_points", eps_points, low=3, high=100))
    n_grid = np.logspace(lo, hi, V.integer("n_points", n_points, low=3, high=100))
    return eps_grid, np.unique(np.round(n_grid).astype(int))


def approximation_ratios(res: pd.DataFrame, tolerance=0.1) -> dict:
    """The blog's three approximations (small-eps_L expansion, eqs. (2) and (3)) against eq. (1) and the exact
    value on a :func:`compare` grid of one delta: for each (approximation, reference) the ratio approximation
    / reference as an (eps_L, n) array (NaN where the exact value is 0) and the share of the points where
    eq. (1)'s condition holds at which the ratio is within ``tolerance`` of 1; and eq. (1)'s validity as an
    array of the same shape (key ``"valid"``)."""
    tolerance = V.real("tolerance", tolerance, low=0.0, high=1.0, low_open=True, scalar=True)
    shape = (res.eps_l.nunique(), res.n.nunique())
    valid = res.eq1_valid.to_numpy().reshape(shape)
    out = {"valid": valid}
    for r, a in itertools.product(REFERENCES, APPROXIMATIONS):
        ref = res[r].to_numpy()
        ratio = np.divide(res[a].to_numpy(), ref, out=np.full(ref.shape, np.nan), where=ref > 0)
        ratio = ratio.reshape(shape)
        share = float((np.abs(ratio - 1) <= tolerance)[valid].mean())
        out[(a, r)] = {"ratio": ratio, "share": share}
    return out


def regime_summary(res: pd.DataFrame) -> dict:
    """What the regimes chapter reads off a :func:`compare` grid: its size and the points where the exact
    eps is 0; the range of small-expansion / eq. (1) at the smallest eps_L; the medians, over eps_L >=
    :data:`LARGE_EPS` where both conditions hold, of x_2 / x with x = e^eps - 1 the term inside the
    logarithm of eq. (2) against eq. (1)'s large-eps_L limit (``lead_eq1``) and FMT21's closed form
    (``lead_fmt21``); and the range of eq. (3) / eq. (2) over eps_L >= 1 where eq. (1)'s condition holds."""
    small_end = res[res.eps_l == res.eps_l.min()]
    big = res[(res.eps_l >= LARGE_EPS) & res.eq1_valid & res.fmt21_valid]
    m3 = res[(res.eps_l >= 1.0) & res.eq1_valid]
    if not len(big):
        raise ValueError(
            "the grid has no point with eps_L >= 5 where eq. (1) holds: raise eps_max or n_max_exp"
        )
    if not len(m3):
        raise ValueError("the grid has no point with eps_L >= 1 where eq. (1) holds")
    lead = lambda col: np.expm1(big[col])  # e^eps - 1: the term inside the logarithm
    return {
        "grid_points": len(res),
        "zero_points": int((res.exact == 0).sum()),
        "small_ratio_min": float((small_end.small / small_end.eq1).min()),
        "small_ratio_max": float((small_end.small / small_end.eq1).max()),
        "lead_eq1": float((lead("eq2") / lead("eq1_large")).median()),
        "lead_fmt21": float((lead("eq2") / lead("fmt21")).median()),
        "eq3_over_eq2_max": float((m3.eq3 / m3.eq2).max()),
        "eq3_over_eq2_min": float((m3.eq3 / m3.eq2).min()),
    }


def sqrt_n_fits(eps_values, n_values, delta=1e-6) -> tuple[pd.DataFrame, dict]:
    """The blog's factor sqrt(n), fitted: for each eps_L of ``eps_values`` the slope of log eps against log n
    over ``n_values`` (:func:`fitted_slope`) of the certified exact value and of eq. (1), and the exact eps at
    the smallest and the largest n; also the curves (exact, eq. (1)) on ``n_values`` for each eps_L."""
    eps_values = V.real("eps_values", eps_values, low=0.0, high=MAX_EPS_L, low_open=True, ndim=1)
    n_values = V.real("n_values", n_values, low=2, high=MAX_N, ndim=1)
    ns = [V.integer("n_values", n, low=2, high=MAX_N) for n in n_values]
    rows, curves = [], {}
    for e in eps_values:
        e = float(e)
        ex = np.array([exact_epsilon(e, n, delta) for n in ns])
        e1 = np.array([eq1(e, n, delta) for n in ns])
        rows.append(
            {
                "eps_l": e,
                "slope_exact": fitted_slope(ns, ex),
                "slope_eq1": fitted_slope(ns, e1),
                "exact_first": ex[0],
                "exact_last": ex[-1],
            }
        )
        curves[e] = (ex, e1)
    return pd.DataFrame(rows), curves
