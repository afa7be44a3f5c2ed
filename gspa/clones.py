"""The number of "clones" among the other users: an exact Poisson-binomial distribution.

Paper items: Lemma 1, eq. (11) — every user i other than the differing one outputs a sample of the
differing user's distribution Q^0 with probability p_i and of Q^1 with probability p_i, where
p_i = (1 - delta_i)/(1 + e^{eps_i}); Theorem 1 reduces the shuffled output to the counts of those
clone reports. The total number of clones M is a sum of independent Bernoulli(2 p_i) variables, and
given M each clone reports 0 or 1 with probability 1/2.

:func:`clone_count` computes the law of M exactly up to two stated, *counted* errors:

* ``truncated`` — a bound on the probability mass cut from the tails (each partial sum is cut to
  a window that Bernstein's inequality, or the exact binomial tail, certifies holds all but
  ``tol``); it is returned, never dropped silently;
* ``roundoff`` — a bound on the L1 error of FFT convolutions (Higham's bound for FFT-based products,
  ``5 u log2(N) ||a||_2 ||b||_2`` per entry, summed over entries and propagated additively).

Callers add both to delta, so a hockey-stick divergence computed from this law is an upper bound.
Equal probabilities are grouped into exact binomials; distinct ones are multiplied in a batched
product tree (direct convolution for short factors, FFT for long ones): O(n log n) work overall.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from . import _validate as V

_U = np.finfo(float).eps / 2
_DIRECT_MAX = 64  # factors up to this length are convolved directly (exact up to rounding)
_GROUP_MIN = 256  # equal probabilities occurring this often become one exact binomial factor


@dataclass(frozen=True)
class CloneCount:
    """P(M = offset + k) = pmf[k]; ``truncated`` + ``roundoff`` bound the L1 error of ``pmf``."""
    offset: int
    pmf: np.ndarray
    truncated: float
    roundoff: float

    @property
    def support(self) -> np.ndarray:
        return self.offset + np.arange(self.pmf.size)

    @property
    def error(self) -> float:
        return self.truncated + self.roundoff


def _trim(pmf: np.ndarray, offset: int, tol: float):
    """Cut both tails holding less than ``tol`` each; return (pmf, offset, cut mass)."""
    c = np.cumsum(pmf)
    lo = int(np.searchsorted(c, tol, side="right"))
    rc = np.cumsum(pmf[::-1])
    hi = pmf.size - int(np.searchsorted(rc, tol, side="right"))
    lo = min(lo, hi - 1) if hi > 0 else 0
    hi = max(hi, lo + 1)
    cut = float(c[lo - 1] if lo > 0 else 0.0) + float(rc[pmf.size - hi - 1] if hi < pmf.size else 0.0)
    return pmf[lo:hi], offset + lo, cut


def _binomial(count: int, prob: float, tol: float):
    """Exact Binomial(count, prob) on the window holding all but ``tol`` in each tail."""
    if prob == 0.0:
        return np.array([1.0]), 0, 0.0
    if prob == 1.0:
        return np.array([1.0]), count, 0.0
    dist = stats.binom(count, prob)
    lo = int(max(dist.ppf(tol) - 1, 0))
    hi = int(min(dist.isf(tol) + 1, count))
    cut = float(dist.cdf(lo - 1)) + float(dist.sf(hi))
    k = np.arange(lo, hi + 1)
    return dist.pmf(k), lo, cut


def _fft_conv_rows(a: np.ndarray, b: np.ndarray):
    """Row-wise linear convolution of equal-width 2-d arrays; returns (result, L1 round-off bound)."""
    n = a.shape[1] + b.shape[1] - 1
    size = 1 << int(np.ceil(np.log2(n)))
    out = np.fft.irfft(np.fft.rfft(a, size, axis=1) * np.fft.rfft(b, size, axis=1), size, axis=1)[:, :n]
    bound = 5 * _U * np.log2(size) * np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1) * n
    return np.maximum(out, 0.0), float(bound.sum())


def _direct_conv_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    rows, la = a.shape
    out = np.zeros((rows, la + b.shape[1] - 1))
    for s in range(la):
        out[:, s:s + b.shape[1]] += a[:, s:s + 1] * b
    return out


def _bernstein_halfwidth(var: np.ndarray, tol: float) -> np.ndarray:
    """t with 2 exp(-t^2 / (2 (var + t/3))) = tol: Bernstein's inequality for a sum of independent
    Bernoulli variables then puts at most ``tol`` outside [mean - t, mean + t]."""
    L = np.log(2.0 / tol)
    return L / 3.0 + np.sqrt(L * L / 9.0 + 2.0 * var * L)


def _product_tree(q: np.ndarray, tol: float):
    """Law of sum of Bernoulli(q_i) for distinct q_i: batched pairwise products.

    After each level every row is cut to [mean - t, mean + t] with t from Bernstein's inequality,
    so the cut mass is at most ``tol`` per row *whatever the round-off in the row's tails*; the
    bound (not the numerically cut mass) is what is counted."""
    rows = np.stack([1.0 - q, q], axis=1)
    offsets = np.zeros(q.size, dtype=np.int64)
    mean, var = q.copy(), q * (1.0 - q)
    truncated = roundoff = 0.0
    while rows.shape[0] > 1:
        if rows.shape[0] % 2:
            pad = np.zeros((1, rows.shape[1]))
            pad[0, 0] = 1.0
            rows = np.vstack([rows, pad])
            offsets, mean, var = np.append(offsets, 0), np.append(mean, 0.0), np.append(var, 0.0)
        a, b = rows[0::2], rows[1::2]
        if rows.shape[1] <= _DIRECT_MAX:
            rows = _direct_conv_rows(a, b)
        else:
            rows, err = _fft_conv_rows(a, b)
            roundoff += err
        offsets = offsets[0::2] + offsets[1::2]
        mean, var = mean[0::2] + mean[1::2], var[0::2] + var[1::2]
        rows, offsets, cut = _trim_rows(rows, offsets, mean, var, tol)
        truncated += cut
    return rows[0], int(offsets[0]), truncated, roundoff


def _trim_rows(rows, offsets, mean, var, tol):
    """Cut every row to a common width covering each row's Bernstein window; returns the counted
    cut mass (tol for each row actually cut)."""
    width = rows.shape[1]
    t = _bernstein_halfwidth(var, tol)
    lo = np.clip(np.floor(mean - t).astype(np.int64) - offsets, 0, width - 1)
    hi = np.clip(np.ceil(mean + t).astype(np.int64) - offsets + 1, 1, width)
    w = int((hi - lo).max())
    if w >= width:
        return rows, offsets, 0.0
    start = np.minimum(lo, width - w)
    idx = start[:, None] + np.arange(w)[None, :]
    kept = np.take_along_axis(rows, idx, axis=1)
    was_cut = (start > 0) | (start + w < width)
    return kept, offsets + start, float(tol * was_cut.sum())


def _conv(a: np.ndarray, b: np.ndarray):
    if min(a.size, b.size) <= _DIRECT_MAX:
        return np.convolve(a, b), 0.0
    out, err = _fft_conv_rows(a[None, :], b[None, :])
    return out[0], err


def clone_count(clone_prob, *, tol: float = 1e-18) -> CloneCount:
    """Law of M = sum_i Bernoulli(clone_prob_i) (clone_prob_i = 2 p_i in the paper's notation).

    ``tol`` is the tail mass cut at each step (counted in ``truncated``)."""
    q = V.probability("clone_prob", clone_prob)
    if q.ndim != 1 or q.size < 1:
        raise ValueError(f"clone_prob must be a non-empty 1-d array, got shape {q.shape}")
    tol = float(V.real("tol", tol, low=0.0, high=1e-6))
    values, counts = np.unique(q, return_counts=True)
    parts = []
    truncated = roundoff = 0.0
    big = counts >= _GROUP_MIN                       # large groups: one exact binomial each
    singles = np.repeat(values[~big], counts[~big])  # the rest: the batched product tree
    for v, c in zip(values[big], counts[big]):
        pmf, off, cut = _binomial(int(c), float(v), tol)
        parts.append((pmf, off))
        truncated += cut
    if singles.size:
        pmf, off, cut, err = _product_tree(singles, tol)
        parts.append((pmf, off))
        truncated += cut
        roundoff += err
    parts.sort(key=lambda t: t[0].size)
    pmf, off = parts[0]
    for p2, o2 in parts[1:]:
        pmf, err = _conv(pmf, p2)
        off += o2
        roundoff += err
        pmf, off, cut = _trim(pmf, off, tol)
        truncated += cut
    # rows share a common width, so entries past the true support (sum > number of variables)
    # can appear; they are zeros or round-off: drop them and count what they held
    top = q.size - off + 1
    if pmf.size > top:
        roundoff += float(pmf[top:].sum())
        pmf = pmf[:top]
    return CloneCount(int(off), pmf, truncated, roundoff)
