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
as their public code computes it, is :func:`gspa.privacy.baselines.fmt21_closed`. The validity
condition used for eq. (1) is eps_L <= log(n / (16 log(2/delta))) (:func:`gspa.privacy.baselines.fmt21_blog`).

Also here: the blog's example of a randomizer that appends the user's index (no amplification at
all), and footnote 2's malicious users, both by exhaustive enumeration of the real protocol.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from gspa.util import validate as V
from gspa.privacy import baselines, fmt21_pair
from gspa.privacy.bruteforce import _hockey_both, histogram_law, krr_row
from gspa.privacy.clones import gamma


def _point(eps_l, n, delta):
    eps_l = V.positive("eps_l", eps_l, scalar=True)
    n = V.integer("n", n, low=2)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    return float(eps_l), n, float(delta)


def eq1(eps_l, n, delta) -> float:
    """The blog's eq. (1) as a formula, evaluated whether or not its condition holds (the condition
    is :func:`gspa.privacy.baselines.fmt21_blog`'s ``valid``, which returns the same number where it holds)."""
    eps_l, n, delta = _point(eps_l, n, delta)
    return float(np.log1p(16.0 * np.tanh(eps_l / 2.0) * np.sqrt(np.exp(eps_l) * np.log(4.0 / delta) / n)))


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
    from tqdm.auto import tqdm
    grid = list(itertools.product(eps_values, n_values, delta_values))
    if not grid:
        raise ValueError("eps_values, n_values and delta_values must each hold at least one value")
    rows = []
    for eps_l, n, delta in tqdm(grid, desc="exact clone pairs", disable=not progress, leave=False):
        eps_l, n, delta = _point(eps_l, n, delta)
        b1, bf = baselines.fmt21_blog(eps_l, n, delta), baselines.fmt21_closed(eps_l, n, delta)
        rows.append({"eps_l": eps_l, "n": n, "delta": delta, "exact": exact_epsilon(eps_l, n, delta),
                     "eq1": eq1(eps_l, n, delta),
                     "eq1_valid": b1.valid, "fmt21": bf.value_or_nan(), "fmt21_valid": bf.valid,
                     "small": small_eps(eps_l, n, delta), "eq2": eq2(eps_l, n, delta), "eq3": eq3(eps_l, n, delta),
                     "eq1_large": eq1_large_limit(eps_l, n, delta)})
    return pd.DataFrame(rows)


def fitted_slope(x, y) -> float:
    """Least-squares slope of log y against log x (the exponent of a power law)."""
    x, y = V.positive("x", x), V.positive("y", y)
    if x.size != y.size or x.size < 2:
        raise ValueError(f"x and y must have the same length >= 2, got {x.size} and {y.size}")
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
            best = np.maximum(best, _hockey_both(P[keep], Q[keep], eps_grid))
    return best


def indexed_rr_profile(eps_l, n: int, eps_grid):
    """(delta(eps) on ``eps_grid``, its floating-point error bound) of the shuffle of n users who run
    binary randomized response with budget eps_L and *append their index* to the report — the blog's
    example of a randomizer that is eps_L-LDP yet gains nothing from shuffling. Exhaustive: the report
    alphabet is {(i, b)}, 2n symbols; n <= 4."""
    eps_l = V.positive("eps_l", eps_l, scalar=True)
    n = V.integer("n", n, low=2, high=4)
    grid = V.nonnegative("eps_grid", eps_grid).ravel()

    def row(i, x):
        r = np.zeros(2 * n)
        r[2 * i: 2 * i + 2] = krr_row(eps_l, 2, x)
        return r
    err = gamma(8 * n * (2 * n + 1) + 16) * (1.0 + np.exp(grid))
    return _profile(row, range(n), range(2), grid), err


def malicious_profile(eps_l, honest: int, malicious: int, eps_grid):
    """(delta(eps), error bound) of shuffled binary randomized response with ``honest`` users running
    it at eps_L and ``malicious`` users who send whatever report they like (each fixed report
    assignment enumerated, the largest delta kept) — blog footnote 2. honest + malicious <= 7."""
    eps_l = V.positive("eps_l", eps_l, scalar=True)
    honest = V.integer("honest", honest, low=2)
    malicious = V.integer("malicious", malicious, low=0)
    if honest + malicious > 7:
        raise ValueError(f"honest + malicious must be at most 7 for enumeration, got {honest + malicious}")
    grid = V.nonnegative("eps_grid", eps_grid).ravel()
    best = np.zeros(grid.size)
    for fixed in itertools.product(range(2), repeat=malicious):
        rows = [np.eye(2)[b] for b in fixed]
        best = np.maximum(best, _profile(lambda i, x: krr_row(eps_l, 2, x), range(honest), range(2), grid, rows))
    err = gamma(8 * (honest + malicious) * 3 + 16) * (1.0 + np.exp(grid))
    return best, err
