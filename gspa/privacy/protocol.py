"""The actual shuffled protocol for binary randomized response with personalized budgets.

Paper items: Theorem 1 (the shuffled output is a post-processing of the reduced pair), Algorithm 2
(lines 1-9: each user randomizes its bit with its own eps_i, the shuffler permutes the reports).
The server sees the shuffled vector of bits; its multiset — the number of 1s — is a sufficient
statistic, so the best test on the real protocol is a test on that count.
"""
from __future__ import annotations

import numpy as np
from gspa.util import validate as V
from gspa.privacy.clones import clone_law
from gspa.privacy.mechanisms import rr_probabilities


def report_one_probability(x, eps):
    """P(report = 1) under binary randomized response: e^eps/(1+e^eps) if x = 1, else 1/(1+e^eps)."""
    x = np.asarray(x)
    if not np.isin(x, (0, 1)).all():
        raise ValueError("x must contain only 0 and 1")
    keep = rr_probabilities(eps)
    return np.where(x == 1, keep, 1.0 - keep)


def count_law(x, eps):
    """Law of the number of reported 1s (a Poisson-binomial; ``offset`` and ``pmf`` of a
    :class:`gspa.privacy.clones.CloneLaw`, accurate to its counted errors)."""
    return clone_law(report_one_probability(x, eps))


def neighbouring_laws(x_others, eps_others, eps_j):
    """Exact laws of the count of 1s on D0 (differing user's bit 0) and D1 (bit 1), as aligned
    probability vectors over 0..n."""
    n = len(x_others) + 1
    out = []
    for bit in (0, 1):
        law = count_law(np.append(x_others, bit), np.append(eps_others, eps_j))
        full = np.zeros(n + 1)
        full[law.offset:law.offset + law.pmf.size] = law.pmf
        out.append(full / full.sum())
    return out[0], out[1]


def simulate_counts(x, eps, reps: int, rng) -> np.ndarray:
    """Run the protocol ``reps`` times: randomize every report, shuffle (a uniformly random
    permutation per run, as the shuffler does), and return what the server's best test uses —
    the number of 1s in the shuffled vector."""
    reps = V.integer("reps", reps, low=1)
    p1 = report_one_probability(x, eps)
    reports = rng.random((reps, p1.size)) < p1
    shuffled = np.take_along_axis(reports, rng.permuted(np.tile(np.arange(p1.size), (reps, 1)), axis=1), axis=1)
    return shuffled.sum(axis=1)
