"""The law of the number of clones, with certified error bounds.

Paper items: Lemma 1, eq. (11) — every user i other than the differing one produces, with
probability t_i each, a sample of the differing user's component Q^0 or of Q^1 (a *clone*);
Theorem 1 reduces the shuffled output to the counts of those clone reports. The number of clones M
is a sum of independent Bernoulli(q_i) variables, q_i = 2 t_i (a Poisson-binomial law), and given
M = m each clone reports 0 or 1 with probability 1/2. See :mod:`gspa.privacy.accountant` for the pairs.

What the accountant needs is an upper bound on ``sum_m P(M = m) H_m`` for a sequence H_m in [0, 1]
that *decreases* in m (one more clone is a post-processing: add an independent fair coin). This
module computes the law of M and :meth:`CloneLaw.upper` returns such a bound with every error of
the computation counted:

* **relative errors** (entrywise, ``rho``): binomial laws are built from the mode by the ratio
  recurrence and normalised over their window, and direct convolutions of non-negative vectors
  have entrywise relative error at most (terms + 1) u (u = 2^-53);
* **additive errors** (L1, ``eta``): an FFT convolution of a and b (zero-padded to N points) has
  ``||c_hat - c||_2 <= [kappa sqrt(N) (||a||_2 ||b||_hat + ||a||_1 ||b||_2) + gamma_6 ||A_hat||_2
  ||B_hat||_inf + kappa ||P_hat||_2] / sqrt(N)`` with kappa = log2(N) eta_f / (1 - log2(N) eta_f),
  eta_f = 8u (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., Thm. 24.2, with
  twiddle factors accurate to u), doubled for safety; the L1 error is at most sqrt(len) times that;
* **cut mass** (``tau``): each partial law is cut to [mean - t, mean + t] with t from Bernstein's
  inequality for sums of independent Bernoulli variables, which leaves at most ``tol`` outside;
  that bound (not the numerically cut mass) is what is counted.

The law is the convolution of two halves A and B (users split so that each half carries about half
the expected clones). An additive error e_A of half A reaches the bound only through e_A * law(B),
and ``sum_m H_m (e_A * w_B)_m <= ||e_A||_1 sum_k w_B(k) H_k`` because H decreases — so it is
weighted by the privacy loss of a pair with half the clones instead of counted in full. This is
what keeps the bound from having a floor that grows with n. Clone probabilities below 2^-60 are
dropped and the others rounded *down* to be safe (fewer clones is always a valid domination).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V

U = np.finfo(float).eps / 2          # unit round-off
DROP = 2.0 ** -60                     # clone probabilities below this are dropped (a valid domination)
TOL = 2.0 ** -64                      # tail mass cut at each step (counted)
_DIRECT_MAX = 64                      # narrower factors are convolved directly (relative error)
_FINAL_DIRECT = 512                   # the final merge is direct when a factor is at most this wide
_GRID = 2048                          # H is evaluated at most at this many counts (step bound between)
_ETA_F = 8 * U                        # per-stage FFT error (Higham Thm. 24.2 with accurate twiddles)


def gamma(k: float) -> float:
    """Higham's gamma_k = k u / (1 - k u): the relative error bound of k floating-point operations."""
    return k * U / (1.0 - k * U)


@dataclass(frozen=True)
class Part:
    """A computed law with its error bounds: for every count k the true law w satisfies
    ``w(k) <= (pmf_hat(k) + |e|(k) + c(k)) / (1 - rho)`` and ``w(k) >= (pmf_hat(k) - |e|(k)) / (1 + rho)``
    (on the window), where ``||e||_1 <= eta`` and c >= 0 (the true mass outside the window) has
    ``||c||_1 <= tau``; e and c live on counts >= ``low``. ``mean``/``var`` are those of the true law."""
    offset: int
    pmf: np.ndarray
    rho: float
    eta: float
    tau: float
    low: int
    mean: float
    var: float

    @property
    def width(self) -> int:
        return int(self.pmf.size)


def bernstein_halfwidth(var, tol: float = TOL):
    """t with 2 exp(-t^2 / (2 (var + t/3))) = tol: Bernstein's inequality for a sum of independent
    Bernoulli variables then puts at most ``tol`` outside [mean - t, mean + t]."""
    L = np.log(2.0 / tol)
    return L / 3.0 + np.sqrt(L * L / 9.0 + 2.0 * np.asarray(var, dtype=float) * L)


def _window(mean: float, var: float, lo_lim: int, hi_lim: int, tol: float):
    t = float(bernstein_halfwidth(var, tol))
    lo = max(lo_lim, int(np.floor(mean - t)))
    hi = min(hi_lim, int(np.ceil(mean + t)))
    cut = lo > lo_lim or hi < hi_lim
    return lo, hi, (tol if cut else 0.0)


def binomial_part(count: int, prob: float, tol: float = TOL) -> Part:
    """Binomial(count, prob) on its Bernstein window, built from the mode by the ratio recurrence
    r_{k+1}/r_k = (count - k)/(k + 1) * prob/(1 - prob) and normalised over the window.

    Each step of the recurrence costs at most 4 roundings, so an entry d steps from the mode has
    relative error <= gamma(4 d); normalising by the window sum adds gamma(width). The true
    probabilities are the window values times S_window / S_total in [1 - tol, 1], so the computed
    ones overestimate by at most that factor, which the relative bound covers."""
    count = int(count)
    prob = float(prob)
    if prob <= 0.0 or count == 0:
        return Part(0, np.array([1.0]), 0.0, 0.0, 0.0, 0, 0.0, 0.0)
    if prob >= 1.0:
        return Part(count, np.array([1.0]), 0.0, 0.0, 0.0, count, float(count), 0.0)
    mean, var = count * prob, count * prob * (1.0 - prob)
    lo, hi, cut = _window(mean, var, 0, count, tol)
    mode = min(max(int(np.floor((count + 1) * prob)), lo), hi)
    odds = prob / (1.0 - prob)
    k_up = np.arange(mode, hi)                        # r_{k+1} / r_k for k = mode .. hi-1
    up = np.cumprod((count - k_up) / (k_up + 1.0) * odds)
    k_dn = np.arange(mode, lo, -1)                    # r_{k-1} / r_k for k = mode .. lo+1
    dn = np.cumprod(k_dn / ((count - k_dn + 1.0) * odds))
    r = np.concatenate([dn[::-1], [1.0], up])
    pmf = r / r.sum()
    d = max(hi - mode, mode - lo)
    rho = gamma(4 * d + r.size + 2) + cut / (1.0 - cut)
    return Part(lo, pmf, rho, 0.0, cut, 0, mean, var)


# -- convolutions -----------------------------------------------------------------------------------

def _direct_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise full convolution of (r, la) and (r, lb) non-negative arrays by shifted sums."""
    if a.shape[1] > b.shape[1]:
        a, b = b, a
    rows, la = a.shape
    out = np.zeros((rows, la + b.shape[1] - 1))
    for s in range(la):
        out[:, s:s + b.shape[1]] += a[:, s:s + 1] * b
    return out


def _fft_rows(a: np.ndarray, b: np.ndarray):
    """Row-wise full convolution by real FFTs; returns (result clipped at 0, L1 error bound per row)."""
    n = a.shape[1] + b.shape[1] - 1
    N = 1 << int(np.ceil(np.log2(n)))
    A = np.fft.rfft(a, N, axis=1)
    B = np.fft.rfft(b, N, axis=1)
    P = A * B
    out = np.fft.irfft(P, N, axis=1)[:, :n]
    lg = np.log2(N)
    kappa = lg * _ETA_F / (1.0 - lg * _ETA_F)
    a1, b1 = a.sum(axis=1), b.sum(axis=1)
    a2, b2 = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    sqN = np.sqrt(N)
    # ||A||_2 = sqrt(N) ||a||_2 (Parseval for the full complex transform); half-spectra norms bound it
    eA, eB = kappa * sqN * a2, kappa * sqN * b2              # forward-transform errors (2-norm)
    Binf, Ainf = b1 + eB, a1 + eA                            # sup norms of the computed transforms
    prod_err = eA * Binf + a1 * eB + gamma(6) * (sqN * a2 + eA) * Binf
    Pnorm = (sqN * a2 + eA) * Binf
    l2 = (prod_err + kappa * Pnorm) / sqN
    bound = 2.0 * np.sqrt(n) * l2                          # L1 <= sqrt(len) L2; x2 for real-FFT variants
    return np.maximum(out, 0.0), bound


def _trim_rows(rows, offsets, mean, var, tol):
    """Cut every row to a common width covering each row's Bernstein window; returns (rows, offsets,
    cut-mass bound per row)."""
    width = rows.shape[1]
    t = bernstein_halfwidth(var, tol)
    lo = np.clip(np.floor(mean - t).astype(np.int64) - offsets, 0, width - 1)
    hi = np.clip(np.ceil(mean + t).astype(np.int64) - offsets + 1, 1, width)
    w = int((hi - lo).max())
    if w >= width:
        return rows, offsets, np.zeros(rows.shape[0])
    start = np.minimum(lo, width - w)
    idx = start[:, None] + np.arange(w)[None, :]
    kept = np.take_along_axis(rows, idx, axis=1)
    was_cut = (start > 0) | (start + w < width)
    return kept, offsets + start, tol * was_cut


def _bernoulli_tree(q: np.ndarray, tol: float) -> Part:
    """Law of a sum of Bernoulli(q_i) (0 < q_i < 1) by batched pairwise products (direct while the
    rows are narrow, FFT after), every row cut to its Bernstein window after each level."""
    rows = np.stack([1.0 - q, q], axis=1)           # 1 - q: relative error <= u
    offsets = np.zeros(q.size, dtype=np.int64)
    mean, var = q.copy(), q * (1.0 - q)
    rho, eta, tau = U, np.zeros(q.size), np.zeros(q.size)
    while rows.shape[0] > 1:
        if rows.shape[0] % 2:
            pad = np.zeros((1, rows.shape[1]))
            pad[0, 0] = 1.0
            rows = np.vstack([rows, pad])
            offsets, mean, var = np.append(offsets, 0), np.append(mean, 0.0), np.append(var, 0.0)
            eta, tau = np.append(eta, 0.0), np.append(tau, 0.0)
        a, b = rows[0::2], rows[1::2]
        a1 = a.sum(axis=1)
        eta = eta[0::2] * b.sum(axis=1) + eta[1::2] * np.maximum(a1, 1.0 + rho)   # e_a * w_b_hat + x_a * e_b
        tau = tau[0::2] + tau[1::2]
        if rows.shape[1] <= _DIRECT_MAX:
            rows = _direct_rows(a, b)
            rho = (1 + rho) ** 2 * (1 + gamma(a.shape[1] + 1)) - 1
        else:
            rows, err = _fft_rows(a, b)
            rho = 2 * rho + rho * rho
            eta = eta + err
        offsets = offsets[0::2] + offsets[1::2]
        mean, var = mean[0::2] + mean[1::2], var[0::2] + var[1::2]
        rows, offsets, cut = _trim_rows(rows, offsets, mean, var, tol)
        tau = tau + cut
    return Part(int(offsets[0]), rows[0], float(rho), float(eta[0]), float(tau[0]), 0,
                float(mean[0]), float(var[0]))


def convolve(p: Part, q: Part, tol: float = TOL, *, trim: bool = True, direct_max: int = _DIRECT_MAX) -> Part:
    """The law of the sum of two independent parts, with composed error bounds (see the module text)."""
    a, b = p.pmf[None, :], q.pmf[None, :]
    eta = p.eta * float(q.pmf.sum()) + q.eta * max(float(p.pmf.sum()), 1.0 + p.rho)   # e_p * q_hat + x_p * e_q
    rho = p.rho + q.rho + p.rho * q.rho
    if min(p.width, q.width) <= direct_max:
        out = _direct_rows(a, b)[0]
        rho += gamma(min(p.width, q.width) + 1) * (1.0 + rho)
    else:
        rows, err = _fft_rows(a, b)
        out, eta = rows[0], eta + float(err[0])
    part = Part(p.offset + q.offset, out, rho, eta, p.tau + q.tau, p.low + q.low,
                p.mean + q.mean, p.var + q.var)
    return _trim_part(part, tol) if trim else part


def _trim_part(p: Part, tol: float) -> Part:
    lo, hi, cut = _window(p.mean, p.var, p.offset, p.offset + p.width - 1, tol)
    if not cut:
        return p
    return Part(lo, p.pmf[lo - p.offset:hi - p.offset + 1].copy(), p.rho, p.eta, p.tau + cut, p.low,
                p.mean, p.var)


def _combine(parts: list[Part], tol: float) -> Part:
    """Convolve a list of parts, narrowest first."""
    parts = sorted(parts, key=lambda p: p.width)
    out = parts[0]
    for p in parts[1:]:
        out = convolve(out, p, tol)
    return out


# -- the law ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CloneLaw:
    """The computed law of the clone count M (``offset``, ``pmf``) and what its error bound needs.

    ``halves`` holds the two halves (A, B) when the law is their convolution (else one part), and
    ``fresh`` the error of the final convolution: ``("rel", rho)`` (direct) or ``("abs", eta)`` (FFT)."""
    offset: int
    pmf: np.ndarray
    halves: tuple
    fresh: tuple
    n_users: int = 0
    dropped: int = 0
    mean: float = 0.0
    var: float = 0.0

    @property
    def support(self) -> np.ndarray:
        return self.offset + np.arange(self.pmf.size)

    def upper(self, H) -> float:
        """An upper bound on ``E[H(M)]`` for the true clone count M, where ``H(m)`` (vectorised over an
        integer array) returns upper bounds on a sequence that *decreases* in m and lies in [0, 1]."""
        if len(self.halves) == 1:
            p = self.halves[0]
            s = _dot_upper(self.offset, self.pmf, H)
            return (s + (p.eta + p.tau) * _H1(H, p.low)) / (1.0 - p.rho)
        A, B = self.halves
        kind, f = self.fresh
        s = _dot_upper(self.offset, self.pmf, H)
        if kind == "rel":
            s /= (1.0 - f)
        else:
            s += f * _H1(H, self.offset)
        eA, eB = A.eta + A.tau, B.eta + B.tau
        cross = 0.0
        if eA > 0:
            cross += eA * _dot_upper(B.offset + A.low, B.pmf, H, 256)
        if eB > 0:
            cross += eB * _dot_upper(A.offset + B.low, A.pmf, H, 256)
        cross += eA * eB * _H1(H, A.low + B.low)
        return (s + cross) / ((1.0 - A.rho) * (1.0 - B.rho))

    def lower(self, H_lower) -> float:
        """A lower bound on ``E[H(M)]`` given lower bounds ``H_lower(m)`` on a decreasing sequence in
        [0, 1] (for reporting how tight :meth:`upper` is). Uses w >= (w_hat - |e|)/(1 + rho) and
        (a - e)+ (b - f)+ >= ab - af - eb for non-negative a, b, e, f; cut tails are simply left out."""
        s = _dot_lower(self.offset, self.pmf, H_lower)
        if len(self.halves) == 1:
            p = self.halves[0]
            return max((s - p.eta) / (1.0 + p.rho), 0.0)
        A, B = self.halves
        kind, f = self.fresh
        s = s / (1.0 + f) if kind == "rel" else s - f
        s -= A.eta * float(B.pmf.sum()) + B.eta * float(A.pmf.sum())
        return max(s / ((1.0 + A.rho) * (1.0 + B.rho)), 0.0)

    def tail_bounds(self):
        """Certified (lower, upper) bounds on P(M >= offset + j) for every j of the support (from
        the same error model: w >= (w_hat - |e|)/(1 + rho) and w <= (w_hat + |e| + c)/(1 - rho), for
        the two halves combined as in :meth:`upper`)."""
        tails = np.cumsum(self.pmf[::-1])[::-1]
        if len(self.halves) == 1:
            p = self.halves[0]
            rho_lo, rho_hi, e_lo, e_hi = p.rho, p.rho, p.eta, p.eta + p.tau
        else:
            A, B = self.halves
            kind, f = self.fresh
            rho = (1 + A.rho) * (1 + B.rho) * (1 + (f if kind == "rel" else 0.0)) - 1
            fa = f if kind == "abs" else 0.0
            rho_lo = rho_hi = rho
            e_lo = A.eta * float(B.pmf.sum()) + B.eta * float(A.pmf.sum()) + fa
            eA, eB = A.eta + A.tau, B.eta + B.tau
            e_hi = eA * float(B.pmf.sum()) + eB * float(A.pmf.sum()) + eA * eB + fa
        g = gamma(self.pmf.size + 2)
        lower = np.maximum((tails * (1 - g) - e_lo) / (1 + rho_lo), 0.0)
        upper = np.minimum((tails * (1 + g) + e_hi) / (1 - rho_hi), 1.0)
        return lower, upper

    @property
    def error_l1(self) -> float:
        """A crude L1 bound on pmf - true law (for uses that need one, e.g. plots): not what the
        accountant uses."""
        if len(self.halves) == 1:
            p = self.halves[0]
            return p.rho * (1 + p.rho) + p.eta + p.tau
        A, B = self.halves
        f = self.fresh[1]
        return (A.rho + B.rho + 2 * A.rho * B.rho + f + A.eta + B.eta + A.tau + B.tau + A.eta * B.eta)


def _H1(H, m: int) -> float:
    return float(H(np.array([int(m)], dtype=np.int64))[0])


def _grid_points(offset: int, size: int, grid: int = _GRID):
    """Counts at which H is evaluated for the lower bound: every count for small supports, else a
    grid of at most ``grid`` counts (the step bound between them holds because H decreases)."""
    if size <= grid:
        return offset + np.arange(size), None
    idx = np.unique(np.linspace(0, size - 1, grid).astype(np.int64))
    return offset + idx, idx


REL_GAP = 1e-5      # the step bounds are refined until upper - lower <= REL_GAP * lower


def _dot_upper(offset: int, pmf: np.ndarray, H, grid: int = _GRID) -> float:
    """Upper bound on sum_k pmf[k] H(offset + k) for H decreasing in k.

    H is evaluated on a grid of counts; on each cell [idx_j, idx_{j+1}) the mass of the cell times
    H(idx_j) bounds the sum from above and the mass times H(idx_{j+1}) from below. Cells are split
    where that gap matters until the upper and lower sums agree to REL_GAP (at most ``grid`` points).
    Each cell's mass is summed on its own (no cancellation); rounding of sums of non-negative terms is
    covered by gamma(len + 2)."""
    size = pmf.size
    if size <= 64:
        h = np.asarray(H(offset + np.arange(size)), dtype=float)
        return float(pmf @ h) * (1.0 + gamma(size + 2))
    idx = np.unique(np.linspace(0, size - 1, 33).astype(np.int64))
    h = np.asarray(H(offset + idx), dtype=float)
    while True:
        mass = np.add.reduceat(pmf, idx)
        upper = mass * h
        lower = np.append(mass[:-1] * h[1:], upper[-1])   # the last cell is the single count size - 1
        gap = upper - lower
        total = float(lower.sum())
        if gap.sum() <= REL_GAP * total or idx.size >= grid:
            break
        width = np.diff(np.append(idx, size))
        split = (gap > 0.25 * REL_GAP * total / idx.size) & (width > 1)
        if not split.any():
            break
        new = idx[split] + width[split] // 2
        h_new = np.asarray(H(offset + new), dtype=float)
        order = np.argsort(np.concatenate([idx, new]), kind="stable")
        idx, h = np.concatenate([idx, new])[order], np.concatenate([h, h_new])[order]
    return float(upper.sum()) * (1.0 + gamma(size + 2))


def _dot_lower(offset: int, pmf: np.ndarray, H) -> float:
    """Lower bound on sum_k pmf[k] H(offset + k) for H decreasing: the mass of (idx_{j-1}, idx_j]
    times H(idx_j)."""
    m, idx = _grid_points(offset, pmf.size)
    h = np.asarray(H(m), dtype=float)
    mass = pmf if idx is None else np.add.reduceat(pmf, np.concatenate([[0], idx[:-1] + 1]))
    return float(mass @ h) * (1.0 - gamma(pmf.size + 2))


def _split(values: np.ndarray, counts: np.ndarray):
    """Assign the groups (sorted by value) to two halves of about equal expected clone count; a group
    straddling the middle is split in two. Returns ((values, counts) of A, of B)."""
    mass = values * counts
    cum = np.cumsum(mass)
    half = cum[-1] / 2.0
    g = int(np.searchsorted(cum, half))
    before = cum[g - 1] if g > 0 else 0.0
    take = int(np.clip(np.round((half - before) / values[g]), 0, counts[g]))
    va, ca = np.append(values[:g], values[g]), np.append(counts[:g], take)
    vb, cb = np.append(values[g], values[g + 1:]), np.append(counts[g] - take, counts[g + 1:])
    return (va[ca > 0], ca[ca > 0]), (vb[cb > 0], cb[cb > 0])


def _half(values: np.ndarray, counts: np.ndarray, tol: float) -> Part:
    singles, many = values[counts == 1], counts > 1
    parts = [binomial_part(int(c), float(v), tol) for v, c in zip(values[many], counts[many])]
    if singles.size:
        parts.append(_bernoulli_tree(singles, tol))
    return _combine(parts, tol)


def histogram(clone_prob) -> tuple[np.ndarray, np.ndarray]:
    """(values, counts) of a vector of clone probabilities."""
    q = V.probability("clone_prob", clone_prob)
    if q.ndim != 1:
        raise ValueError(f"clone_prob must be a 1-d array, got shape {q.shape}")
    return np.unique(q, return_counts=True)


def clone_law(clone_prob=None, *, values=None, counts=None, tol: float = TOL, drop: float = DROP) -> CloneLaw:
    """Law of M = sum_i Bernoulli(q_i), from the vector ``clone_prob`` or from a histogram
    (``values``, ``counts``: ``counts[g]`` users with clone probability ``values[g]``); see the module
    docstring for the counted errors. An empty set of users gives M = 0. Probabilities below ``drop``
    are left out (a valid domination for clone counts; pass ``drop=0`` for a law that must be exact,
    e.g. the count of 1s of a real protocol)."""
    tol = V.real("tol", tol, low=0.0, high=1e-6, low_open=True, scalar=True)
    if clone_prob is not None:
        if values is not None or counts is not None:
            raise ValueError("give either clone_prob or (values, counts), not both")
        values, counts = histogram(clone_prob)
    else:
        values = V.probability("values", values)
        counts = np.asarray(counts)
        if values.ndim != 1 or counts.shape != values.shape:
            raise ValueError(f"values and counts must be 1-d arrays of equal length, got shapes "
                             f"{values.shape} and {counts.shape}")
        if counts.dtype.kind not in "iu" or np.any(counts < 0):
            raise ValueError(f"counts must be non-negative integers, got {counts!r}")
    values, counts = np.asarray(values, float), np.asarray(counts, np.int64)
    n_users = int(counts.sum())
    keep = (values > 0) & (values >= drop) & (counts > 0)
    dropped = int(counts[~keep].sum())
    values, counts = values[keep], counts[keep]
    if values.size == 0:
        one = Part(0, np.array([1.0]), 0.0, 0.0, 0.0, 0, 0.0, 0.0)
        return CloneLaw(0, one.pmf, (one,), ("rel", 0.0), n_users, dropped)
    order = np.argsort(values)
    values, counts = values[order], counts[order]
    mean, var = float(values @ counts), float((values * (1 - values)) @ counts)
    if values.size == 1 and counts[0] > 1 or counts.sum() == 1:     # one binomial: exact window
        p = binomial_part(int(counts[0]), float(values[0]), tol)
        return CloneLaw(p.offset, p.pmf, (p,), ("rel", 0.0), n_users, dropped, mean, var)
    (va, ca), (vb, cb) = _split(values, counts)
    if va.size == 0 or vb.size == 0:
        v, c = (vb, cb) if va.size == 0 else (va, ca)
        p = _half(v, c, tol)
        pmf = p.pmf[:int(c.sum()) - p.offset + 1]
        return CloneLaw(p.offset, pmf, (p,), ("rel", 0.0), n_users, dropped, mean, var)
    A, B = _half(va, ca, tol), _half(vb, cb, tol)
    if min(A.width, B.width) <= _FINAL_DIRECT:
        pmf = _direct_rows(A.pmf[None, :], B.pmf[None, :])[0]
        fresh = ("rel", gamma(min(A.width, B.width) + 1))
    else:
        rows, err = _fft_rows(A.pmf[None, :], B.pmf[None, :])
        pmf, fresh = rows[0], ("abs", float(err[0]))
    # padded rows can reach past the largest possible count; the true law is 0 there, so dropping those
    # entries only removes round-off
    pmf = pmf[:int(counts.sum()) - (A.offset + B.offset) + 1]
    return CloneLaw(A.offset + B.offset, pmf, (A, B), fresh, n_users, dropped, mean, var)
