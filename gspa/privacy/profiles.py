"""What every certified bound offers (delta(eps), epsilon(delta), a certified trade-off curve), bounds combined
pointwise (the best or the worst of several), and the checks of per-user budgets shared by every accountant.
The contract these types keep is tested for every certified combination in tests/privacy/test_contract.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gspa.privacy.basics.fdp import tradeoff_from_profile
from gspa.privacy.numerics import invert, map_delta
from gspa.util import validate as V

VARIANTS = ("randomized", "revealing")
REDUCTIONS = ("blanket", "clones", "cells")
MAX_NODES = 10**4  # certified_tradeoff: eps nodes (one delta evaluation each)


class Profile:
    """What every certified pair offers, given its ``_delta1(eps)`` (a certified delta at one eps), its
    ``_top()`` (an eps where delta reaches its floor) and ``_gaussian_guess(delta)``."""

    def delta(self, eps):
        """Certified upper bound on delta(eps) (both directions of the pair agree by symmetry)."""
        return map_delta(self._delta1, eps)

    def epsilon(self, delta: float) -> float:
        """Smallest eps (rounded up) whose certified delta(eps) is <= ``delta``; inf if none is."""
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        return invert(self._delta1, delta, self._top(), guess=self._gaussian_guess(delta))

    def certified_tradeoff(self, alpha, nodes: int = 256):
        """A certified lower bound on the pair's trade-off curve (an f-DP guarantee) from its certified
        privacy profile at ``nodes`` values of eps (the function ``certified_tradeoff`` of
        ``gspa.privacy.shuffle.accountant``), for any number of users."""
        return certified_tradeoff(self, alpha, nodes)


@dataclass(frozen=True)
class Combined:
    """Several bounds for one protocol, combined pointwise: ``_pick`` (array, scalar) chooses among them."""

    pairs: tuple
    scope: str = ""
    _pick = (np.maximum, max)

    def delta(self, eps):
        """The combined bound on delta(eps), pointwise: the smallest of the bounds for :class:`BestOf`,
        the largest for :class:`WorstOf` and :class:`BestLower`."""
        arr, one = self._pick
        return (
            arr.reduce([np.asarray(p.delta(eps), dtype=float) for p in self.pairs])
            if np.ndim(eps)
            else one(p.delta(eps) for p in self.pairs)
        )

    def epsilon(self, delta: float) -> float:
        """The combined eps(delta): the smallest of the bounds' values for :class:`BestOf`, the largest
        for :class:`WorstOf` and :class:`BestLower`."""
        return self._pick[1](p.epsilon(delta) for p in self.pairs)

    def certified_tradeoff(self, alpha, nodes: int = 256):
        """A certified lower bound on the protocol's trade-off curve (see the function
        ``certified_tradeoff`` of ``gspa.privacy.shuffle.accountant``)."""
        return certified_tradeoff(self, alpha, nodes)


def certified_tradeoff(bound, alpha, nodes: int = 256):
    """f-DP from a certified (eps, delta(eps)) bound without enumerating outcomes: delta is evaluated at
    ``nodes`` equally spaced eps in [0, eps_top] (eps_top: where the bound reaches 1e-16, or its floor)
    and :func:`gspa.privacy.basics.fdp.tradeoff_from_profile` takes the largest f_{eps, delta(eps)}. Every
    delta(eps) bounds both directions of the neighbouring relation (the pairs here are symmetric), so the
    result lies below the true trade-off curve of the protocol; against exact enumeration (tests) it is
    within about 1e-3 with 256 nodes. Cost: ``nodes`` + ~20 evaluations of delta, so ``nodes`` is in
    [2, MAX_NODES = 10^4]; ``bound`` is any object with ``delta(eps)`` and ``epsilon(delta)``."""
    if not (callable(getattr(bound, "delta", None)) and callable(getattr(bound, "epsilon", None))):
        raise ValueError(
            f"bound must have delta(eps) and epsilon(delta) methods, got {bound!r:.80}"
        )
    V.probability("alpha", alpha)
    nodes = V.integer("nodes", nodes, low=2, high=MAX_NODES)
    top = bound.epsilon(1e-16)
    if not np.isfinite(top):  # the floor (e.g. delta_n) is above 1e-16
        top = float(getattr(bound, "log_odds", np.inf))
        top = top if np.isfinite(top) else 50.0
    eps = np.linspace(0.0, max(top, 1e-6), nodes)
    return tradeoff_from_profile(alpha, eps, np.asarray(bound.delta(eps), dtype=float))


class WorstOf(Combined):
    """The differing user is one of several kinds, each covered by its own valid pair: delta(eps) is
    the largest of their bounds (the adversary chooses who differs)."""

    _pick = (np.maximum, max)

    def epsilon(self, delta: float) -> float:
        """The largest of the pairs' eps(delta). The last pair is tried first (builders put the likely
        worst last): when every other pair's delta at its eps is at most ``delta``, that eps is certified
        for all of them (each delta falls as eps grows) and no other root is searched; otherwise every
        pair's eps is computed."""
        *rest, last = self.pairs
        top = last.epsilon(delta)
        if rest and np.isfinite(top) and all(p.delta(top) <= delta for p in rest):
            return top
        return max([top] + [p.epsilon(delta) for p in rest])


class BestOf(Combined):
    """Several valid pairs for the same protocol: delta(eps) is the smallest of their bounds."""

    _pick = (np.minimum, min)

    def epsilon(self, delta: float) -> float:
        """The smallest of the pairs' eps(delta). The pair with the smallest Gaussian guess is inverted
        first (builders' order among pairs without one; when every pair has ``_probe(eps)``, a cheap part
        of its delta, the smallest probe at the smallest guess); another pair is inverted only when its delta at
        the best eps so far is at most ``delta`` — otherwise its own eps is larger (each delta falls as
        eps grows) and no root of it is searched. A pair with ``_above(eps, delta)`` answers that
        question itself (it may stop as soon as a part of it exceeds ``delta``)."""
        V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        key = lambda p: (lambda g: np.inf if g is None else g)(_guess(p, delta))
        at = min(map(key, self.pairs))
        if np.isfinite(at) and all(hasattr(p, "_probe") for p in self.pairs):
            key = lambda p: p._probe(at)  # a cheap part of each pair's delta at one eps
        first, *rest = sorted(self.pairs, key=key)
        best = first.epsilon(delta)
        for p in rest:
            if not (np.isfinite(best) and _above(p, best, delta)):
                best = min(best, p.epsilon(delta))
        return best

    def _above(self, e: float, delta: float) -> bool:
        """Whether the smallest of the bounds at ``e`` exceeds ``delta``: every one of them does."""
        return all(_above(p, e, delta) for p in self.pairs)

    def _gaussian_guess(self, delta: float):
        """The smallest of the pairs' Gaussian guesses (None if none has one)."""
        guesses = [g for g in (_guess(p, delta) for p in self.pairs) if g is not None]
        return min(guesses) if guesses else None


def _guess(pair, delta: float):
    """``pair``'s Gaussian guess of its eps(delta) when it has a finite one, else None."""
    g = getattr(pair, "_gaussian_guess", lambda _: None)(delta)
    return g if g is not None and np.isfinite(g) else None


def _above(pair, e: float, delta: float) -> bool:
    """Whether ``pair``'s certified delta at ``e`` exceeds ``delta`` (a pair with ``_above`` may stop as soon as
    a part of it does)."""
    above = getattr(pair, "_above", None)
    return above(e, delta) if above is not None else bool(pair.delta(e) > delta)


def check_budgets(eps, delta=None, least: int = 2):
    """Validate personalized budgets: a 1-d array of at least ``least`` eps_i >= 0 (finite), and delta_i in
    [0, 1) (None: all 0; a scalar: the same for every user)."""
    if isinstance(eps, (bool, np.bool_)) or (
        isinstance(eps, (list, tuple)) and any(isinstance(x, (bool, np.bool_)) for x in eps)
    ):
        raise ValueError(f"eps must be real budgets, got booleans {eps!r}")
    least = V.integer("least", least, low=1, high=2)
    eps = V.real("eps", eps, low=0.0, high=np.inf, high_open=True)
    if eps.ndim != 1:
        raise ValueError(f"eps must be a 1-d array of per-user budgets, got shape {eps.shape}")
    if eps.size < least:
        raise ValueError(f"eps must hold at least {least} users, got {eps.size}")
    if delta is None:
        delta = np.zeros(eps.shape)  # calloc: no pages written for a large array
    else:
        delta = V.real("delta", delta, low=0.0, high=1.0, high_open=True)
        if delta.ndim == 0:
            delta = np.full_like(eps, float(delta))
    V.same_length(eps=eps, delta=delta)
    return eps, delta


#: the largest sum over a histogram's groups of sqrt(users in the group): each group's count law is kept on a
#: support about that wide, so memory grows with it (measured: about 330 bytes per unit, 1 GB at 10^12 users
#: over 10 budgets or 10^10 over 1,000; 10^12 users over 1,000 budgets would need about 11 GB)
HISTOGRAM_SPREAD_MAX = 1.2e7


def check_histogram(eps, delta, counts, least: int = 2):
    """Validate budgets given as a histogram: ``eps[j]`` (and ``delta[j]``; None: 0, a scalar: the same
    for all) is the budget of ``counts[j]`` >= 1 users, at least ``least`` users in all, and the sum of
    sqrt(counts[j]) at most :data:`HISTOGRAM_SPREAD_MAX` (about 4 GB of memory: 10¹² users over up to about
    140 equal groups)."""
    least = V.integer("least", least, low=1, high=2)
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.dtype.kind not in "iu" or counts.size == 0 or np.any(counts < 1):
        raise ValueError(f"counts must be a non-empty 1-d array of integers >= 1, got {counts!r}")
    counts = counts.astype(np.int64)
    spread = float(np.sqrt(counts.astype(float)).sum())
    if spread > HISTOGRAM_SPREAD_MAX:
        raise ValueError(
            f"counts: the sum of the square roots of the group sizes is {spread:.3g} over {counts.size} budgets, "
            f"at most {HISTOGRAM_SPREAD_MAX:.3g} (each group's law is kept on a support that wide: about "
            f"{spread * 330 / 2**30:.0f} GB here); use fewer distinct budgets for this many users"
        )
    eps = V.real("eps", eps, low=0.0, high=np.inf, high_open=True)
    if eps.shape != counts.shape:
        raise ValueError(
            f"eps and counts must be 1-d of the same length, got shapes {eps.shape} and {counts.shape}"
        )
    if int(counts.sum()) < least:
        raise ValueError(f"counts must add up to at least {least} users, got {int(counts.sum())}")
    delta = (
        np.zeros_like(eps)
        if delta is None
        else V.real("delta", delta, low=0.0, high=1.0, high_open=True)
    )
    delta = np.full_like(eps, float(delta)) if delta.ndim == 0 else delta
    V.same_length(eps=eps, delta=delta)
    return eps, delta, counts
