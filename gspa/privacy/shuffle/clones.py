"""The law of the number of clones (Lemma 1, eq. (11); Theorem 1), with certified error bounds: its FFT engine and
error model. Derivation below; checks in the Theorem 1 and accountant chapters.

Paper items: Lemma 1, eq. (11) — every user i other than the differing one produces, with
probability t_i each, a sample of the differing user's component Q^0 or of Q^1 (a *clone*);
Theorem 1 reduces the shuffled output to the counts of those clone reports. The number of clones M
is a sum of independent Bernoulli(q_i) variables, q_i = 2 t_i (a Poisson-binomial law), and given
M = m each clone reports 0 or 1 with probability 1/2. See :mod:`gspa.privacy.shuffle.accountant` for the pairs.

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

**How each half is built** (cost O(n) after one sort, memory O(block) beyond the sorted users):

* users are sorted by clone probability; a run of at least ``_BINOMIAL_MIN`` equal probabilities is
  one binomial part (:func:`binomial_part`, relative error), so a histogram costs O(#distinct budgets
  x window width) whatever the number of users, and gives the same parts as the per-user vector;
* the other users go in blocks of about ``_BLOCK`` through a batched product tree
  (:func:`_bernoulli_block`): direct convolutions of narrow laws held as columns (relative error),
  then real FFTs of sizes that fit exactly (additive error, Higham's bound per law), every law cut to
  its Bernstein window after each FFT level (``tol`` counted per cut). Blocks run on two threads;
* the block laws and binomial parts are merged by a balanced tree of batched convolutions
  (:func:`_combine`), with the same per-pair composition of (rho, eta, tau) as :func:`convolve`.

Entries dropped anywhere besides Bernstein cuts are counts where the computed law is exactly 0 or
where the true law is 0 (above the number of users): dropping them removes only round-off.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from scipy import fft as sfft

from gspa.privacy.numerics import U, gamma
from gspa.util import validate as V

DROP = 2.0**-60  # clone probabilities below this are dropped (a valid domination)
TOL = 2.0**-64  # tail mass cut at each step (counted)
_DIRECT_MAX = 64  # narrower factors are convolved directly (relative error)
_FINAL_DIRECT = 512  # the final merge is direct when a factor is at most this wide
_GRID = 2048  # H is evaluated at most at this many counts (step bound between)
_ETA_F = 8 * U  # per-stage FFT error (Higham Thm. 24.2 with accurate twiddles)
_BLOCK = 1 << 17  # users per block of the product tree (memory: a few MB per block)
_BINOMIAL_MIN = 256  # runs of at least this many equal probabilities: one binomial part
_BATCH = 256  # pairs convolved in one batch by _combine
_SUM_BLOCK = 1 << 20  # block length of running sums over the users
_WORKERS = 2  # threads (blocks of the tree, FFTs, binomial tails)
_SCRATCH = threading.local()  # per-thread work arrays of the product tree (_scratch)


MAX_COUNT = 10**13  # binomial_part: users of one binomial


def _tol(tol) -> float:
    return V.real("tol", tol, low=0.0, high=1e-6, low_open=True, scalar=True)


def _flag(name, value) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")


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
        """The number of clone counts held."""
        return int(self.pmf.size)


def _bernstein_halfwidth(var, tol: float = TOL):
    """The half-width t with 2 exp(-t^2 / (2 (var + t/3))) = tol: Bernstein's inequality for a sum of independent
    Bernoulli variables then puts at most ``tol`` outside [mean - t, mean + t]."""
    L = np.log(2.0 / tol)
    return L / 3.0 + np.sqrt(L * L / 9.0 + 2.0 * np.asarray(var, dtype=float) * L)


def _window(mean: float, var: float, lo_lim: int, hi_lim: int, tol: float):
    t = float(_bernstein_halfwidth(var, tol))
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
    ones overestimate by at most that factor, which the relative bound covers.

    ``count`` in [0, MAX_COUNT = 10^13] (the window holds about 10 sqrt(count) entries), ``prob`` in
    [0, 1], ``tol`` in (0, 1e-6]."""
    count = V.integer("count", count, low=0, high=MAX_COUNT)
    prob = V.probability("prob", prob, scalar=True)
    tol = _tol(tol)
    if prob <= 0.0 or count == 0:
        return Part(0, np.array([1.0]), 0.0, 0.0, 0.0, 0, 0.0, 0.0)
    if prob >= 1.0:
        return Part(count, np.array([1.0]), 0.0, 0.0, 0.0, count, float(count), 0.0)
    mean, var = count * prob, count * prob * (1.0 - prob)
    lo, hi, cut = _window(mean, var, 0, count, tol)
    mode = min(max(int(np.floor((count + 1) * prob)), lo), hi)
    odds = prob / (1.0 - prob)
    k_up = np.arange(mode, hi)  # r_{k+1} / r_k for k = mode .. hi-1
    up = np.cumprod((count - k_up) / (k_up + 1.0) * odds)
    k_dn = np.arange(mode, lo, -1)  # r_{k-1} / r_k for k = mode .. lo+1
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
        out[:, s : s + b.shape[1]] += a[:, s : s + 1] * b
    return out


def _direct_cols(
    a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None, tmp: np.ndarray | None = None
) -> np.ndarray:
    """Column-wise full convolution of (la, c) and (lb, c) non-negative arrays (column j of the result
    is the convolution of the columns j): la shifted products of whole rows, so every operation runs
    over c contiguous entries. As in :func:`_direct_rows`, every entry is a sum of at most
    min(la, lb) rounded products, so its relative error is at most gamma(min(la, lb) + 1).
    ``out`` (shape (la + lb - 1, c)) and ``tmp`` (the shape of the wider input) may be given as
    work arrays; they must not overlap the inputs."""
    if a.shape[0] > b.shape[0]:
        a, b = b, a
    la, lb = a.shape[0], b.shape[0]
    out = np.empty((la + lb - 1, a.shape[1])) if out is None else out
    tmp = np.empty(b.shape) if tmp is None else tmp
    np.multiply(b, a[0], out=out[:lb])
    out[lb:] = 0.0
    for s in range(1, la):
        np.multiply(b, a[s], out=tmp)
        np.add(out[s : s + lb], tmp, out=out[s : s + lb])
    return out


def _scratch(slot: int, shape, dtype=float) -> np.ndarray:
    """A work array of the given shape, reused by the calling thread for the same ``slot`` (the big
    temporaries of the product tree are not allocated and page-faulted afresh at every level).
    Its contents are undefined; a slot must not be in use twice at once."""
    bufs = _SCRATCH.__dict__.setdefault("bufs", {})
    size = int(np.prod(shape))
    buf = bufs.get((slot, dtype))
    if buf is None or buf.size < size:
        buf = bufs[(slot, dtype)] = np.empty(max(size, 1), dtype)
    return buf[:size].reshape(shape)


def _fft_size(n: int) -> int:
    return 1 << int(np.ceil(np.log2(max(n, 1))))


def _fft_error(a1, a2, b1, b2, N: int, n: int):
    """L1 bound on the error of the first n entries of the FFT convolution (size N) of non-negative
    rows a and b with L1 norms a1, b1 and L2 norms a2, b2 (arrays: one bound per row); see the module
    text (Higham Thm. 24.2, doubled)."""
    lg = np.log2(N)
    kappa = lg * _ETA_F / (1.0 - lg * _ETA_F)
    sqN = np.sqrt(N)
    # ||A||_2 = sqrt(N) ||a||_2 (Parseval for the full complex transform); half-spectra norms bound it
    eA, eB = kappa * sqN * a2, kappa * sqN * b2  # forward-transform errors (2-norm)
    Binf = b1 + eB  # sup norm of the computed transform of b
    prod_err = eA * Binf + a1 * eB + gamma(6) * (sqN * a2 + eA) * Binf
    Pnorm = (sqN * a2 + eA) * Binf
    l2 = (prod_err + kappa * Pnorm) / sqN
    return 2.0 * np.sqrt(n) * l2  # L1 <= sqrt(len) L2; x2 for real-FFT variants


def _fft_rows(a: np.ndarray, b: np.ndarray, N: int | None = None, workers: int = 1):
    """Row-wise full convolution by real FFTs of size N (a power of two, default the smallest that
    holds a.shape[1] + b.shape[1] - 1 entries); returns (result clipped at 0, L1 error bound per row).

    A smaller N may be given when every row's own support fits in it (rows zero-padded to a common
    width in a batch): the circular convolution is then the linear one, and the first N entries are
    returned. The bound (:func:`_fft_error`) is that of the padded rows, whose extra zeros change none
    of the norms; the L1 error over the n returned entries is at most sqrt(n) times the L2 error.
    scipy.fft is the same pocketfft (radix-2/4 passes for powers of two) as numpy.fft."""
    n = a.shape[1] + b.shape[1] - 1
    N = _fft_size(n) if N is None else int(N)
    n = min(n, N)
    A = sfft.rfft(a, N, axis=1, workers=workers)
    A *= sfft.rfft(b, N, axis=1, workers=workers)
    out = sfft.irfft(A, N, axis=1, workers=workers, overwrite_x=True)[:, :n]
    bound = _fft_error(
        a.sum(axis=1), np.linalg.norm(a, axis=1), b.sum(axis=1), np.linalg.norm(b, axis=1), N, n
    )
    return np.maximum(out, 0.0), bound


def _fft_halves(laws: np.ndarray):
    """:func:`_fft_rows` of the first half of the rows of ``laws`` with the second half, all rows
    transformed in one call (zero-padded to N, which changes nothing) into the calling thread's
    work arrays (numpy.fft, the pocketfft of the original code). Returns (result clipped at 0 — a view
    of a work array, valid until the next call —, L1 error bound per row, L1 norms of the input rows)."""
    k, w = laws.shape
    h, n = k // 2, 2 * w - 1
    N = _fft_size(n)
    l1 = laws.sum(axis=1)
    l2 = np.sqrt(np.einsum("ij,ij->i", laws, laws))
    padded = _scratch(3, (k, N))
    padded[:, :w] = laws
    padded[:, w:] = 0.0
    S = np.fft.rfft(padded, axis=1, out=_scratch(4, (k, N // 2 + 1), complex))
    S[:h] *= S[h:]
    out = np.fft.irfft(S[:h], N, axis=1, out=_scratch(5, (h, N)))[:, :n]
    np.maximum(out, 0.0, out=out)
    return out, _fft_error(l1[:h], l2[:h], l1[h:], l2[h:], N, n), l1


def _direct_levels() -> int:
    """Levels of the direct phase of :func:`_bernoulli_block`: laws up to _DIRECT_MAX wide."""
    return max(int(np.log2(max(_DIRECT_MAX, 2))), 1)


def _bernoulli_block(q: np.ndarray, tol: float) -> Part:
    """Law of a sum of Bernoulli(q_i) (0 < q_i < 1) by a batched pairwise product tree.

    *Direct phase* (relative error only). The users are laid out as the columns of a (2, k) array of
    laws on {0, 1} (1 - q has relative error <= u) and D = log2(_DIRECT_MAX) times the first half of
    the columns is convolved with the second half (:func:`_direct_cols`; a level of width w adds
    gamma(w + 1)). Every column then holds 2^D slots, the last of which is a user with q = 0 (the
    block is padded so), whose law [1, 0] is exact and makes no rounding: the top entry of every
    column is computed as exactly 0, and the true law is 0 there, so dropping it is exact. The laws
    are then 2^D wide, and every later product of two of them fits a power-of-two FFT exactly.

    *FFT phase* (additive error). The laws become rows; the first half is convolved with the second
    by real FFTs (:func:`_fft_halves`) and the laws are cut to their Bernstein windows
    (:func:`_trim_common`). An odd law out is paired with a point mass at 0 (exact). The bookkeeping is per law, as in :func:`convolve`: one
    relative bound ``rho`` for all (the point masses have none), the additive bound
    ``e_a * w_b_hat + x_a * e_b`` plus the fresh FFT error, and the cut mass (``tol`` per cut)."""
    D = _direct_levels()
    slots = 1 << D
    c = -(-q.size // (slots - 1))  # columns: slots - 1 users and one q = 0 each
    x = np.zeros(slots * c)
    x[: q.size] = q  # column j holds x[j + m c], m < slots
    laws = _scratch(0, (2, x.size))
    np.subtract(1.0, x, out=laws[0])
    laws[1] = x
    rho = U
    for level in range(D):
        width, h = laws.shape[0], laws.shape[1] // 2
        out = _scratch(1 - level % 2, (2 * width - 1, h))  # the two slots alternate
        laws = _direct_cols(laws[:, :h], laws[:, h:], out, _scratch(2, (width, h)))
        rho = (1 + rho) ** 2 * (1 + gamma(width + 1)) - 1
    laws = np.ascontiguousarray(laws[:slots].T)  # row slots is exactly 0 (see above)
    cols = x.reshape(slots, c)
    mean, var = cols.sum(axis=0), (cols * (1.0 - cols)).sum(axis=0)
    k = c
    offsets = np.zeros(k, dtype=np.int64)
    eta, tau = np.zeros(k), np.zeros(k)
    while k > 1:
        if k % 2:
            pad = np.zeros((1, laws.shape[1]))
            pad[0, 0] = 1.0
            laws = np.concatenate([laws, pad])
            offsets, mean, var = np.append(offsets, 0), np.append(mean, 0.0), np.append(var, 0.0)
            eta, tau = np.append(eta, 0.0), np.append(tau, 0.0)
            k += 1
        h = k // 2
        laws, err, l1 = _fft_halves(laws)
        eta = (
            eta[:h] * l1[h:] + eta[h:] * np.maximum(l1[:h], 1.0 + rho) + err
        )  # e_a w_b + x_a e_b + fresh
        rho = 2 * rho + rho * rho
        tau = tau[:h] + tau[h:]
        offsets = offsets[:h] + offsets[h:]
        mean, var = mean[:h] + mean[h:], var[:h] + var[h:]
        laws, offsets, cut = _trim_common(laws, offsets, mean, var, tol)
        tau = tau + cut
        k = h
    # counts above the number of users have true probability 0: cutting them removes only round-off
    pmf = laws[0, : max(q.size + 1 - int(offsets[0]), 1)].copy()
    return Part(
        int(offsets[0]),
        pmf,
        float(rho),
        float(eta[0]),
        float(tau[0]),
        0,
        float(mean[0]),
        float(var[0]),
    )


def _trim_common(rows, offsets, mean, var, tol):
    """Cut all rows to one common range of columns, the union of the rows' Bernstein windows (so each
    row loses at most ``tol``): a view, no copy. Returns (rows, offsets, cut-mass bound per row)."""
    width = rows.shape[1]
    t = _bernstein_halfwidth(var, tol)
    lo = max(int((np.floor(mean - t) - offsets).min()), 0)
    hi = min(int((np.ceil(mean + t) - offsets).max()) + 1, width)
    if lo == 0 and hi == width:
        return rows, offsets, 0.0
    return rows[:, lo:hi], offsets + lo, tol


def _merged_errors(p: Part, q: Part):
    """(rho, eta) of the convolution of p and q before its own rounding: rho composes, and the
    additive error is e_p * q_hat + x_p * e_q (x_p bounds the true mass of p)."""
    eta = p.eta * float(q.pmf.sum()) + q.eta * max(float(p.pmf.sum()), 1.0 + p.rho)
    return p.rho + q.rho + p.rho * q.rho, eta


def convolve(
    p: Part, q: Part, tol: float = TOL, *, trim: bool = True, direct_max: int = _DIRECT_MAX
) -> Part:
    """The law of the sum of two independent parts, with composed error bounds (see the module text);
    ``tol`` in (0, 1e-6], ``direct_max`` >= 0."""
    for name, part in (("p", p), ("q", q)):
        if not isinstance(part, Part):
            raise ValueError(f"{name} must be a Part (binomial_part, convolve), got {part!r:.80}")
    tol = _tol(tol)
    _flag("trim", trim)
    direct_max = V.integer("direct_max", direct_max, low=0)
    a, b = p.pmf[None, :], q.pmf[None, :]
    rho, eta = _merged_errors(p, q)
    if min(p.width, q.width) <= direct_max:
        out = _direct_rows(a, b)[0]
        rho += gamma(min(p.width, q.width) + 1) * (1.0 + rho)
    else:
        rows, err = _fft_rows(a, b)
        out, eta = rows[0], eta + float(err[0])
    part = Part(
        p.offset + q.offset,
        out,
        rho,
        eta,
        p.tau + q.tau,
        p.low + q.low,
        p.mean + q.mean,
        p.var + q.var,
    )
    return _trim_part(part, tol) if trim else part


def _trim_part(p: Part, tol: float) -> Part:
    lo, hi, cut = _window(p.mean, p.var, p.offset, p.offset + p.width - 1, tol)
    if not cut:
        return p
    return Part(
        lo,
        p.pmf[lo - p.offset : hi - p.offset + 1].copy(),
        p.rho,
        p.eta,
        p.tau + cut,
        p.low,
        p.mean,
        p.var,
    )


def _merge_batch(pairs, direct: bool, N: int, tol: float, workers: int) -> list[Part]:
    """Convolve several pairs (p, q) at once: the laws are stacked as rows, zero-padded to a common
    width (the zeros are exact: they change no product and no norm), convolved by
    :func:`_direct_rows` (relative error gamma(padded narrower width + 1)) or :func:`_fft_rows` at
    size N (every pair's own result fits in N entries), then each row is cut back to its pair's
    support (entries past it are round-off on counts of true probability 0) and to its Bernstein
    window. The errors of each pair compose as in :func:`convolve`."""
    a = np.zeros((len(pairs), max(p.width for p, _ in pairs)))
    b = np.zeros((len(pairs), max(q.width for _, q in pairs)))
    for i, (p, q) in enumerate(pairs):
        a[i, : p.width], b[i, : q.width] = p.pmf, q.pmf
    if direct:
        rows, err, fresh = (
            _direct_rows(a, b),
            np.zeros(len(pairs)),
            gamma(min(a.shape[1], b.shape[1]) + 1),
        )
    else:
        (rows, err), fresh = _fft_rows(a, b, N, workers), 0.0
    out = []
    for i, (p, q) in enumerate(pairs):
        rho, eta = _merged_errors(p, q)
        part = Part(
            p.offset + q.offset,
            rows[i, : p.width + q.width - 1].copy(),
            rho + fresh * (1.0 + rho),
            eta + float(err[i]),
            p.tau + q.tau,
            p.low + q.low,
            p.mean + q.mean,
            p.var + q.var,
        )
        out.append(_trim_part(part, tol))
    return out


def _combine(parts: list[Part], tol: float, workers: int = 2) -> Part:
    """Convolve a list of parts by a balanced tree: at each level the parts are sorted by width and
    neighbours are paired (the widest one waits if their number is odd); pairs of a similar shape are
    convolved in one batch (:func:`_merge_batch`) — directly when the narrower law is at most
    ``_DIRECT_MAX`` wide, else by FFTs. The cost is that of the first levels, O(#parts x width x log)."""
    parts = list(parts)
    while len(parts) > 1:
        parts.sort(key=lambda p: p.width)
        nxt = [parts.pop()] if len(parts) % 2 else []
        batches: dict = {}
        for i in range(0, len(parts), 2):
            p, q = parts[i], parts[i + 1]  # p is the narrower
            if p.width <= _DIRECT_MAX:
                key = (True, _fft_size(p.width), _fft_size(q.width))
            else:
                key = (False, _fft_size(p.width + q.width - 1), 0)
            batches.setdefault(key, []).append((p, q))
        for (direct, N, _), pairs in batches.items():
            for j in range(0, len(pairs), _BATCH):
                nxt.extend(_merge_batch(pairs[j : j + _BATCH], direct, N, tol, workers))
        parts = nxt
    return parts[0]


# -- the law ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CloneLaw:
    """The computed law of the clone count M (``offset``, ``pmf``) and what its error bound needs.

    Paper items: Lemma 1, eq. (11) (each other user is a clone with probability qᵢ = 2tᵢ) and
    Theorem 1 (the observer learns at most the counts, so only the law of M matters).

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
        """The values of M that ``pmf`` covers: ``offset``, ``offset + 1``, ... (an integer array)."""
        return self.offset + np.arange(self.pmf.size)

    def upper(self, H, rel_gap: float | None = None) -> float:
        """An upper bound on ``E[H(M)]`` for the true clone count M, where ``H(m)`` (vectorised over an
        integer array) returns upper bounds on a sequence that *decreases* in m and lies in [0, 1] — or
        rows of such sequences (one bound per row is returned). ``rel_gap`` (in (0, 1); default ``REL_GAP``): how closely the bound is refined (an expensive H may
        take a coarser one; the result is an upper bound whatever it is)."""
        V.function("H", H)
        return float(self.upper_rows(lambda r, m: H(m), 1, rel_gap)[0])

    def upper_rows(self, H, rows: int, rel_gap: float | None = None) -> np.ndarray:
        """:meth:`upper` for ``rows`` functions at once, ``H(r, m)`` giving the r-th one's value at count m
        (integer arrays of one length, elementwise): the same bound for each as :meth:`upper` gives it
        alone, with each round's evaluations of every row in one call."""
        V.function("H", H)
        rows = V.integer("rows", rows, low=1, high=MAX_ROWS)
        rel_gap = (
            REL_GAP
            if rel_gap is None
            else V.real(
                "rel_gap", rel_gap, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True
            )
        )
        dot = lambda offset, pmf, grid=_GRID: _dot_upper(offset, pmf, H, rows, grid, rel_gap)
        every = np.arange(rows)
        at = lambda m: np.asarray(H(every, np.full(rows, int(m))), dtype=float)  # H at one count
        if len(self.halves) == 1:
            p = self.halves[0]
            s = dot(self.offset, self.pmf)
            return (s + (p.eta + p.tau) * at(p.low)) / (1.0 - p.rho)
        A, B = self.halves
        kind, f = self.fresh
        s = dot(self.offset, self.pmf)
        if kind == "rel":
            s = s / (1.0 - f)
        else:
            s = s + f * at(self.offset)
        eA, eB = A.eta + A.tau, B.eta + B.tau
        cross = 0.0
        if eA > 0:
            cross += eA * dot(B.offset + A.low, B.pmf, 256)
        if eB > 0:
            cross += eB * dot(A.offset + B.low, A.pmf, 256)
        cross += eA * eB * at(A.low + B.low)
        return (s + cross) / ((1.0 - A.rho) * (1.0 - B.rho))

    def lower(self, H_lower) -> float:
        """A lower bound on ``E[H(M)]`` given lower bounds ``H_lower(m)`` on a decreasing sequence in
        [0, 1] (for reporting how tight :meth:`upper` is). Uses ``w >= (w_hat - |e|)/(1 + rho)`` and
        (a - e)+ (b - f)+ >= ab - af - eb for non-negative a, b, e, f; cut tails are simply left out."""
        V.function("H_lower", H_lower)
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
        the same error model: ``w >= (w_hat - |e|)/(1 + rho)`` and ``w <= (w_hat + |e| + c)/(1 - rho)``,
        for the two halves combined as in :meth:`upper`)."""
        return self._certified(np.cumsum(self.pmf[::-1])[::-1])

    def head_bounds(self):
        """Certified (lower, upper) bounds on P(M <= offset + j) for every j of the support, summed from the
        left (so a small one keeps its relative accuracy; the same error model as :meth:`tail_bounds`)."""
        return self._certified(np.cumsum(self.pmf))

    def _certified(self, sums):
        """(lower, upper) bounds on the true values of partial sums ``sums`` of the computed pmf (the error
        model of :meth:`error_model` and the sums' own round-off)."""
        rho, e_lo, e_hi = self.error_model()
        g = gamma(self.pmf.size + 2)
        lower = np.maximum((sums * (1 - g) - e_lo) / (1 + rho), 0.0)
        upper = np.minimum((sums * (1 + g) + e_hi) / (1 - rho), 1.0)
        return lower, upper

    def error_model(self) -> tuple[float, float, float]:
        """The error model as ``(rho, e_lo, e_hi)``: the true law ``w`` and the computed ``pmf`` ``w_hat``
        satisfy ``w[m] (1 + r[m]) = w_hat[m] + e[m]`` at every count m (``w_hat`` is 0 outside the support),
        with ``abs(r[m]) <= rho``, the negative ``e[m]`` summing to at least ``-e_lo`` and the positive ones
        (cut tails included) to at most ``e_hi``."""
        if len(self.halves) == 1:
            p = self.halves[0]
            return p.rho, p.eta, p.eta + p.tau
        A, B = self.halves
        kind, f = self.fresh
        rho = (1 + A.rho) * (1 + B.rho) * (1 + (f if kind == "rel" else 0.0)) - 1
        fa = f if kind == "abs" else 0.0
        e_lo = A.eta * float(B.pmf.sum()) + B.eta * float(A.pmf.sum()) + fa
        eA, eB = A.eta + A.tau, B.eta + B.tau
        return rho, e_lo, eA * float(B.pmf.sum()) + eB * float(A.pmf.sum()) + eA * eB + fa

    @property
    def error_l1(self) -> float:
        """A crude L1 bound on pmf - true law (for uses that need one, e.g. plots): not what the
        accountant uses."""
        if len(self.halves) == 1:
            p = self.halves[0]
            return p.rho * (1 + p.rho) + p.eta + p.tau
        A, B = self.halves
        f = self.fresh[1]
        return A.rho + B.rho + 2 * A.rho * B.rho + f + A.eta + B.eta + A.tau + B.tau + A.eta * B.eta


def _grid_points(offset: int, size: int, grid: int = _GRID):
    """Counts at which H is evaluated for the lower bound: every count for small supports, else a
    grid of at most ``grid`` counts (the step bound between them holds because H decreases)."""
    if size <= grid:
        return offset + np.arange(size), None
    idx = np.unique(np.linspace(0, size - 1, grid).astype(np.int64))
    return offset + idx, idx


MAX_ROWS = (
    10**6
)  # CloneLaw.upper_rows: functions bounded at once (composition reads at most 10^5 + 1 nodes)
REL_GAP = 1e-5  # the step bounds are refined until upper - lower <= REL_GAP * lower


def _dot_upper(
    offset: int, pmf: np.ndarray, H, rows: int, grid: int = _GRID, rel_gap: float = REL_GAP
) -> np.ndarray:
    """Upper bounds on sum_k pmf[k] H_r(offset + k) for ``rows`` sequences H_r decreasing in k, ``H(r, m)``
    giving H_r at count m (integer arrays of one length).

    Each H_r is evaluated on a grid of counts; on each cell [idx_j, idx_{j+1}) the mass of the cell times
    H_r(idx_j) bounds the sum from above and the mass times H_r(idx_{j+1}) from below. Cells are split
    where that gap matters until the upper and lower sums agree to ``rel_gap`` (at most ``grid`` points).
    Each row is refined on its own grid, as alone; each round's new counts of every row are evaluated in
    one call of H. Each cell's mass is summed on its own (no cancellation); rounding of sums of
    non-negative terms is covered by gamma(len + 2)."""
    size = pmf.size
    if size <= 64:
        m = offset + np.arange(size)
        h = np.asarray(H(np.repeat(np.arange(rows), size), np.tile(m, rows)), dtype=float)
        return np.array([float(pmf @ row) for row in h.reshape(rows, size)]) * (
            1.0 + gamma(size + 2)
        )
    idx0 = np.unique(np.linspace(0, size - 1, 33).astype(np.int64))
    h0 = np.asarray(
        H(np.repeat(np.arange(rows), idx0.size), np.tile(offset + idx0, rows)), dtype=float
    )
    state = {r: (idx0, h0[r * idx0.size : (r + 1) * idx0.size]) for r in range(rows)}
    out = np.zeros(rows)
    while state:
        asked = {}
        for r, (idx, h) in state.items():
            done, value = _refine(pmf, idx, h, grid, rel_gap)
            if done:
                out[r] = value * (1.0 + gamma(size + 2))
            else:
                asked[r] = value
        if not asked:
            break
        which = np.concatenate([np.full(new.size, r) for r, new in asked.items()])
        h_new = np.asarray(H(which, offset + np.concatenate(list(asked.values()))), dtype=float)
        at = 0
        for r, new in asked.items():
            idx, h = state[r]
            order = np.argsort(np.concatenate([idx, new]), kind="stable")
            state[r] = (
                np.concatenate([idx, new])[order],
                np.concatenate([h, h_new[at : at + new.size]])[order],
            )
            at += new.size
        state = {r: state[r] for r in asked}
    return out


def _refine(pmf: np.ndarray, idx: np.ndarray, h: np.ndarray, grid: int, rel_gap: float):
    """One round of :func:`_dot_upper`'s refinement of one row on the grid ``idx`` with H's values ``h``
    there: (True, the upper sum) when it is done, else (False, the counts to add)."""
    size = pmf.size
    mass = np.add.reduceat(pmf, idx)
    upper = mass * h
    lower = np.append(mass[:-1] * h[1:], upper[-1])  # the last cell is the single count size - 1
    gap = upper - lower
    total = float(lower.sum())
    if gap.sum() <= rel_gap * total or idx.size >= grid:
        return True, float(upper.sum())
    width = np.diff(np.append(idx, size))
    split = (gap > 0.25 * rel_gap * total / idx.size) & (width > 1)
    if not split.any():
        return True, float(upper.sum())
    return False, idx[split] + width[split] // 2


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
    vb, cb = np.append(values[g], values[g + 1 :]), np.append(counts[g] - take, counts[g + 1 :])
    return (va[ca > 0], ca[ca > 0]), (vb[cb > 0], cb[cb > 0])


def _split_users(s: np.ndarray) -> int:
    """The per-user form of :func:`_split`: the index h such that the sorted users ``s[:h]`` carry
    about half the expected clones — the user at which the running sum reaches half the total goes to
    the half it is nearer to (as _split rounds a straddling group). Running sums go by blocks, so no
    temporary as long as ``s`` is made."""
    starts = np.arange(0, s.size, _SUM_BLOCK)
    cum = np.cumsum(np.add.reduceat(s, starts))
    half = cum[-1] / 2.0
    g = min(int(np.searchsorted(cum, half)), starts.size - 1)
    run = (cum[g - 1] if g > 0 else 0.0) + np.cumsum(s[starts[g] : starts[g] + _SUM_BLOCK])
    j = min(int(np.searchsorted(run, half)), run.size - 1)
    i = int(starts[g]) + j
    before = run[j] - s[i]
    return i + 1 if run[j] - half < half - before else i


def _runs(s: np.ndarray):
    """Sorted probabilities split into the runs of at least ``_BINOMIAL_MIN`` equal entries, as
    (values, counts), and all other entries: (others (sorted), values, counts)."""
    none = (s, np.empty(0), np.empty(0, dtype=np.int64))
    if s.size < _BINOMIAL_MIN:
        return none
    eq = s[1:] == s[:-1]
    if not eq.any():
        return none
    d = np.diff(np.concatenate(([False], eq, [False])).view(np.int8))
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)  # a run: users starts .. ends
    lengths = ends - starts + 1
    long = lengths >= _BINOMIAL_MIN
    if not long.any():
        return none
    mark = np.zeros(s.size + 1, dtype=np.int8)
    mark[starts[long]] += 1  # added, not assigned: a run may start where the previous one ends + 1
    mark[ends[long] + 1] -= 1
    in_run = np.cumsum(mark[:-1], dtype=np.int8).view(bool)
    return s[~in_run], s[starts[long]], lengths[long]


def _groups(values: np.ndarray, counts: np.ndarray):
    """The histogram form of :func:`_runs`: groups of fewer than ``_BINOMIAL_MIN`` users are expanded
    into single users (sorted), so both forms of the same users give the same parts."""
    short = counts < _BINOMIAL_MIN
    return np.repeat(values[short], counts[short]), values[~short], counts[~short]


def _laws_of_halves(halves, tol: float) -> list[Part]:
    """The law of each half, given as (singles, values, counts): a binomial part for each long run
    (``values``, ``counts``) and, for the other users ``singles``, one part per block of about
    ``_BLOCK`` users (:func:`_bernoulli_block`; the blocks of both halves are computed on
    ``_WORKERS`` threads — numpy releases the GIL, and each block is computed on its own, so the result
    does not depend on the scheduling), all combined by :func:`_combine`."""
    slots = 1 << _direct_levels()
    size = (slots - 1) * max(_BLOCK // slots, 1)  # users per block: a power of two of columns
    blocks = [
        (i, s[j : j + size]) for i, (s, _, _) in enumerate(halves) for j in range(0, s.size, size)
    ]
    build = lambda block: _bernoulli_block(block[1], tol)
    if len(blocks) > 1 and _WORKERS > 1:
        with ThreadPoolExecutor(_WORKERS) as ex:
            built = list(ex.map(build, blocks))
    else:
        built = [build(b) for b in blocks]
    laws = []
    for i, (_, values, counts) in enumerate(halves):
        parts = [binomial_part(int(c), float(v), tol) for v, c in zip(values, counts)]
        parts += [p for (j, _), p in zip(blocks, built) if j == i]
        laws.append(_combine(parts, tol, _WORKERS))
    return laws


def histogram(clone_prob) -> tuple[np.ndarray, np.ndarray]:
    """(values, counts) of a vector of clone probabilities."""
    q = V.probability("clone_prob", clone_prob)
    if q.ndim != 1:
        raise ValueError(f"clone_prob must be a 1-d array, got shape {q.shape}")
    return np.unique(q, return_counts=True)


def clone_law(
    clone_prob=None,
    *,
    values=None,
    counts=None,
    tol: float = TOL,
    drop: float = DROP,
    overwrite: bool = False,
) -> CloneLaw:
    """Law of M = Σᵢ Bernoulli(qᵢ), from the vector ``clone_prob`` or from a histogram
    (``values``, ``counts``: ``counts[g]`` users with clone probability ``values[g]``); see
    :mod:`gspa.privacy.shuffle.clones` for the counted errors. An empty set of users gives M = 0. Probabilities
    below ``drop`` are left out (a valid domination for clone counts; pass ``drop=0`` for a law that must
    be exact, e.g. the count of 1s of a real protocol).

    Both forms give the same decomposition: the users sorted by probability are split into two halves
    of about equal expected clone count; in each, every run of at least ``_BINOMIAL_MIN`` users with
    the same probability is one binomial part and the other users go, in blocks of ``_BLOCK``, through
    the batched product tree. The cost grows with the number of users outside long runs plus the
    number of long runs times their windows' widths (a histogram of 1e9 users with 1000 budgets costs
    1000 binomial windows and their merges). A vector is sorted once (one copy of it; no other
    temporary of its size except boolean masks); ``overwrite=True`` lets it sort a float64
    ``clone_prob`` in place instead (no copy at all)."""
    tol = _tol(tol)
    drop = V.probability("drop", drop, open_high=True, scalar=True)
    _flag("overwrite", overwrite)
    if clone_prob is not None:
        if values is not None or counts is not None:
            raise ValueError("give either clone_prob or (values, counts), not both")
        q = V.probability("clone_prob", clone_prob)
        if q.ndim != 1:
            raise ValueError(f"clone_prob must be a 1-d array, got shape {q.shape}")
        if overwrite and q is clone_prob:
            q.sort()
            s = q
        else:
            s = np.sort(q)
        n_users = s.size
        dropped = int(
            np.searchsorted(s, drop, "left") if drop > 0 else np.searchsorted(s, 0.0, "right")
        )
        s = s[dropped:]
        if s.size == 0:
            return _point_mass(n_users, dropped)
        total = s.size
        mean = float(s.sum())
        var = float(
            sum(
                (b * (1.0 - b)).sum()
                for b in (s[i : i + _SUM_BLOCK] for i in range(0, s.size, _SUM_BLOCK))
            )
        )
        if s[0] == s[-1]:  # one binomial: exact window
            p = binomial_part(s.size, float(s[0]), tol)
            return CloneLaw(p.offset, p.pmf, (p,), ("rel", 0.0), n_users, dropped, mean, var)
        h = _split_users(s)
        halves = [_runs(x) for x in (s[:h], s[h:]) if x.size]
    else:
        values = V.probability("values", values)
        counts = np.asarray(counts)
        if values.ndim != 1 or counts.shape != values.shape:
            raise ValueError(
                f"values and counts must be 1-d arrays of equal length, got shapes "
                f"{values.shape} and {counts.shape}"
            )
        if counts.dtype.kind not in "iu" or np.any(counts < 0):
            raise ValueError(f"counts must be non-negative integers, got {counts!r}")
        values, counts = np.asarray(values, float), np.asarray(counts, np.int64)
        n_users = int(counts.sum())
        keep = (values > 0) & (values >= drop) & (counts > 0)
        dropped = int(counts[~keep].sum())
        values, counts = values[keep], counts[keep]
        if values.size == 0:
            return _point_mass(n_users, dropped)
        order = np.argsort(values)
        values, counts = values[order], counts[order]
        total = int(counts.sum())
        mean, var = float(values @ counts), float((values * (1 - values)) @ counts)
        if values.size == 1:  # one binomial: exact window
            p = binomial_part(int(counts[0]), float(values[0]), tol)
            return CloneLaw(p.offset, p.pmf, (p,), ("rel", 0.0), n_users, dropped, mean, var)
        halves = [_groups(v, c) for v, c in _split(values, counts) if v.size]
    if len(halves) == 1:
        (p,) = _laws_of_halves(halves, tol)
        pmf = p.pmf[: total - p.offset + 1]
        return CloneLaw(p.offset, pmf, (p,), ("rel", 0.0), n_users, dropped, mean, var)
    A, B = _laws_of_halves(halves, tol)
    return _final(A, B, total, n_users, dropped, mean, var)


def _final(
    A: Part, B: Part, total: int, n_users: int, dropped: int, mean: float, var: float
) -> CloneLaw:
    """The law of the sum of the two halves' parts, whose largest possible value is ``total``."""
    if min(A.width, B.width) <= _FINAL_DIRECT:
        pmf = _direct_rows(A.pmf[None, :], B.pmf[None, :])[0]
        fresh = ("rel", gamma(min(A.width, B.width) + 1))
    else:
        rows, err = _fft_rows(A.pmf[None, :], B.pmf[None, :], workers=_WORKERS)
        pmf, fresh = rows[0], ("abs", float(err[0]))
    # padded rows can reach past the largest possible count; the true law is 0 there, so dropping those
    # entries only removes round-off
    pmf = pmf[: total - (A.offset + B.offset) + 1]
    return CloneLaw(A.offset + B.offset, pmf, (A, B), fresh, n_users, dropped, mean, var)


def sum_and_difference(
    prob, tol: float = TOL, *, overwrite: bool = False
) -> tuple[CloneLaw, CloneLaw]:
    """Two Poisson-binomial laws for the price of one: with the probabilities ``prob`` sorted and split
    into the users of even rank (E) and of odd rank (O), the law of the number of successes when user i
    succeeds with probability pᵢ (X_E + X_O), and when the users of odd rank succeed with probability
    1 − pᵢ instead (X_E + |O| − X_O). Both are convolutions of the same two computed parts (the second
    with O's part reflected), so the users' laws are built once. Entries 0 are left out of the parts
    (they add 0 to X_O, and |O| counts them). Used by the lower bound of shuffled binary randomized
    response (:func:`gspa.privacy.shuffle.lower.lower_bound`): the count of 1s for two data sets — every
    other user holds 0, and the users alternate 0, 1 in the order of their budgets.

    The error bounds are those of :func:`clone_law` (:meth:`CloneLaw.tail_bounds` holds for both laws;
    the reflected part's error lives anywhere on counts >= 0). ``prob``: a non-empty 1-d array in [0, 1]; ``overwrite=True`` sorts a float64 ``prob`` in place (no copy)."""
    tol = _tol(tol)
    _flag("overwrite", overwrite)
    p = V.probability("prob", prob)
    if p.ndim != 1 or p.size < 1:
        raise ValueError(f"prob must be a non-empty 1-d array, got shape {p.shape}")
    if overwrite and p is prob:
        p.sort()
    else:
        p = np.sort(p)
    even, odd = p[0::2], p[1::2]
    n_odd = odd.size
    even, odd = even[even > 0], odd[odd > 0]
    if even.size == 0 or odd.size == 0:  # a part is a point mass: the laws directly
        flipped = np.concatenate([even, 1.0 - odd, np.ones(n_odd - odd.size)])
        return clone_law(np.concatenate([even, odd]), tol=tol, drop=0.0), clone_law(
            flipped, tol=tol, drop=0.0
        )
    A, B = _laws_of_halves([_runs(np.ascontiguousarray(x)) for x in (even, odd)], tol)
    R = Part(
        n_odd - (B.offset + B.width - 1),
        B.pmf[::-1].copy(),
        B.rho,
        B.eta,
        B.tau,
        0,
        n_odd - B.mean,
        B.var,
    )
    mean, var = A.mean + B.mean, A.var + B.var
    same = _final(A, B, even.size + odd.size, p.size, p.size - even.size - odd.size, mean, var)
    flipped = _final(A, R, even.size + n_odd, p.size, 0, A.mean + R.mean, var)
    return same, flipped


def _point_mass(n_users: int, dropped: int) -> CloneLaw:
    one = Part(0, np.array([1.0]), 0.0, 0.0, 0.0, 0, 0.0, 0.0)
    return CloneLaw(0, one.pmf, (one,), ("rel", 0.0), n_users, dropped)
