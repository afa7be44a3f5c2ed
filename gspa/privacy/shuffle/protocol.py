"""The actual shuffled protocol for binary randomized response with personalized budgets (Theorem 1, Algorithm 2).
Derivations and checks: the Theorem 1 chapter (book/chapters/gspa/theorem1).

Paper items: Theorem 1 (the shuffled output is a post-processing of the reduced pair), Algorithm 2
(lines 1-9: each user randomizes its bit with its own eps_i, the shuffler permutes the reports).
The server sees the shuffled vector of bits; its multiset — the number of 1s — is a sufficient
statistic, so the best test on the real protocol is a test on that count.

Inputs: bits ``x`` (0 or 1, integers; at most MAX_USERS = 10^8 users), budgets ``eps`` in [0, inf] of
the same length (or one number), ``reps`` >= 1 with reps x users at most MAX_CELLS = 10^8 (the
simulation holds that many reports at once), ``rng`` a ``numpy.random.Generator``.
"""

from __future__ import annotations

import numpy as np
from gspa.util import validate as V
from gspa.privacy.shuffle.clones import clone_law
from gspa.privacy.basics.mechanisms import rr_probabilities

MAX_USERS = 10**8  # users of one protocol run (the count law has users + 1 entries)
MAX_CELLS = 10**8  # simulate_counts: reps x users reports at once


def _bits(name, x) -> np.ndarray:
    """``x`` as a 1-d int array of 0s and 1s (booleans, fractions and other values refused)."""
    arr = V.real(name, x, max_size=MAX_USERS)
    if arr.ndim > 1:
        raise ValueError(f"{name} must be a 1-d array of bits, got shape {arr.shape}")
    if not np.isin(arr, (0, 1)).all():
        raise ValueError(f"{name} must contain only 0 and 1, got {x!r}")
    return arr.astype(int)


def report_one_probability(x, eps):
    """P(report = 1) under binary randomized response: e^eps/(1+e^eps) if x = 1, else 1/(1+e^eps)."""
    x = _bits("x", x)
    eps = V.nonnegative("eps", eps)
    if eps.ndim and x.ndim and eps.shape != x.shape:
        raise ValueError(
            f"eps must be one number or one per user of x ({np.size(x)}), got shape {eps.shape}"
        )
    keep = rr_probabilities(eps)
    return np.where(x == 1, keep, 1.0 - keep)


def count_law(x, eps):
    """Law of the number of reported 1s (a Poisson-binomial; ``offset`` and ``pmf`` of a
    :class:`gspa.privacy.shuffle.clones.CloneLaw`, accurate to its counted errors)."""
    return clone_law(report_one_probability(x, eps))


def neighbouring_laws(x_others, eps_others, eps_j):
    """Exact laws of the count of 1s on D0 (differing user's bit 0) and D1 (bit 1), as aligned
    probability vectors over 0..n. ``x_others`` are the other users' bits, ``eps_others`` their budgets
    (one each), ``eps_j`` the differing user's budget."""
    x_others = _bits("x_others", x_others).reshape(-1)
    eps_others = V.nonnegative("eps_others", eps_others).reshape(-1)
    eps_j = V.nonnegative("eps_j", eps_j, scalar=True)
    V.same_length(x_others=x_others, eps_others=eps_others)
    n = len(x_others) + 1
    out = []
    for bit in (0, 1):
        law = count_law(np.append(x_others, bit), np.append(eps_others, eps_j))
        full = np.zeros(n + 1)
        full[law.offset : law.offset + law.pmf.size] = law.pmf
        out.append(full / full.sum())
    return out[0], out[1]


def simulate_counts(x, eps, reps: int, rng) -> np.ndarray:
    """Run the protocol ``reps`` times: randomize every report, shuffle (a uniformly random
    permutation per run, as the shuffler does), and return what the server's best test uses —
    the number of 1s in the shuffled vector."""
    reps = V.integer("reps", reps, low=1)
    rng = V.generator("rng", rng)
    p1 = report_one_probability(x, eps)
    if reps * max(p1.size, 1) > MAX_CELLS:
        raise ValueError(
            f"reps x users must be at most MAX_CELLS = {MAX_CELLS:.0e}, got reps = {reps} for {p1.size} users"
        )
    reports = rng.random((reps, p1.size)) < p1
    shuffled = np.take_along_axis(
        reports, rng.permuted(np.tile(np.arange(p1.size), (reps, 1)), axis=1), axis=1
    )
    return shuffled.sum(axis=1)
