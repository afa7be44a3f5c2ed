"""Certified composition over rounds: T runs of a shuffled protocol on the same data.

Used by ``personalized_pair(..., rounds=T)`` and ``gspa account --rounds T``; the comparison points are
Theorem 5 of the GSPA paper (T-fold μ-GDP composes into √T·μ, Fact 3 — an approximation here, since
Theorem 2 is one) and advanced composition (Dwork–Rothblum–Vadhan 2010; Dwork–Roth 2014, Thm. 3.20).

**Method.** A one-round bound ``delta(eps)`` (certified, the same in both directions of the
neighbouring relation, as every pair of :mod:`gspa.privacy.accountant` is) is read at the nodes
eps_k = k h, k = 0..K. As a function of x = e^eps the hockey-stick divergence of any pair is convex, so
the lower convex hull of the points (x_k, delta(eps_k)), with (0, 1) and the mirror nodes eps < 0
(delta(-e) = 1 - e^-e + e^-e delta(e) for a symmetric bound), lies above the true curve of the
protocol. A piecewise-linear convex curve is itself the privacy curve of a privacy-loss distribution
(PLD) omega with atoms at the hull's vertices (loss k h, mass x_k times the change of slope) and an
atom at +inf (mass delta(eps_K)): this is the "connect the dots" construction of Doroshenko, Ghazi,
Kamath, Kumar and Manurangsi (PoPETs 2022), written here from its idea. The protocol is then f-DP
for the trade-off function of omega's pair, and by the composition theorem of f-DP (Dong, Roth and
Su 2022, Thm. 3.2; adaptive rounds included) T rounds are dominated by the T-fold product, whose
privacy curve is

    delta_T(eps) = 1 - (1 - omega_inf)^T + sum_s omega^{*T}(s) (1 - e^{eps - s})_+ ,

with omega^{*T} the T-fold convolution of omega's finite atoms, computed on the lattice by FFT.

**What is counted.** The one-round bound's own certificate; the hull's masses are computed in long
double and each is lowered by its error bound with the removed mass moved to +inf (this can only raise
the curve), then the curve is checked at every vertex against the one-round bound; the FFT's round-off
by an a-priori bound (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, Thm. 24.2, with
the constant taken 10 u per level, above radix-2's 6.7 u): an l2 error of at most
T ((log2 N) 10 u ||omega||_2 + 8 u) + (log2 N) 10 u on the composed vector (complex powers: 8 T u), i.e. at most sqrt(N)
times that on delta — measured errors are below it by orders of magnitude (``tests/privacy``). This
bound is the one ingredient that is quoted rather than proven for numpy's mixed-radix pocketfft: the
numbers are certified modulo it, as the one-round numbers are modulo Boost's incomplete beta.
Brute-force enumeration of the composed protocol (small n, T = 2, 3) checks the result.

**Beyond the lattice.** The FFT value carries its round-off allowance and the mass at +inf, so it cannot
go below about 1e-15. Where a smaller delta is asked (or a larger eps), the composed bound is the best of
the valid ones: basic composition of the one-round bound (T eps_1(delta/T); at delta_1 = 0 this is
T max eps_i for the shuffle of eps_i-LDP reports) and advanced composition; each is a theorem applied to the
certified one-round curve, so the minimum is certified too. It is infinite only where every one is, e.g.
when the one-round curve has a floor (local delta_i > 0, the revealing variant).
"""
from __future__ import annotations

import numpy as np

from gspa.util import validate as V
from gspa.privacy.clones import U, gamma

NODES = 250             # default number of nodes on [0, eps_top] (1000 moves eps by < 0.02 %)
TOP_DELTA = 1e-18       # eps_top: the first node where the one-round delta is this small (or stops falling)
MAX_LATTICE = 1 << 24   # the composed lattice's size cap (memory: 16 M doubles)
MAX_ROUNDS = 100_000
MAX_T = 10**15           # rounds of the closed forms (basic, advanced): integers exact as floats


def _top(delta_fn) -> float:
    """Where the one-round curve has (nearly) vanished or reached its floor: doubling from 1e-3."""
    e, prev = 1e-3, delta_fn(0.0)
    while e < 2.0 ** 20:
        d = delta_fn(e)
        if d <= TOP_DELTA or d >= prev * (1.0 - 1e-9):
            return e
        e, prev = 2.0 * e, d
    return e


def _hull(x, y):
    """Indices of the lower convex hull of points sorted by x (Andrew's monotone chain, long double)."""
    idx = []
    for i in range(len(x)):
        while len(idx) >= 2:
            a, b = idx[-2], idx[-1]
            if (y[b] - y[a]) * (x[i] - x[a]) >= (y[i] - y[a]) * (x[b] - x[a]):   # b is not below chord a-i
                idx.pop()
            else:
                break
        idx.append(i)
    return np.array(idx)


class Composed:
    """T rounds of a protocol whose one-round privacy curve is bounded by ``base.delta`` (see
    :mod:`gspa.privacy.composition`). ``delta(eps)`` and ``epsilon(delta)`` are certified upper bounds for
    the T-fold (adaptive) composition; ``step`` is the lattice step h of the privacy losses."""

    def __init__(self, base, rounds: int, *, nodes: int = NODES):
        self.base = base
        self.rounds = V.integer("rounds", rounds, low=1, high=MAX_ROUNDS)
        nodes = V.integer("nodes", nodes, low=8, high=100_000)
        self.scope = f"{self.rounds} rounds of: {getattr(base, 'scope', '')}".rstrip(": ")
        top = _top(lambda e: float(base.delta(e)))
        K = nodes
        while 2 * K * self.rounds + 1 > MAX_LATTICE and K > 8:
            K //= 2                                       # a coarser lattice (pessimistic, still valid)
        h = top / K
        self.step = h
        eps_pos = h * np.arange(K + 1)
        d_pos = np.minimum(np.asarray(base.delta(eps_pos), dtype=float), 1.0)
        ld = np.longdouble
        e_pos = eps_pos.astype(ld)
        x_neg = np.exp(-e_pos[:0:-1])                     # x at -K h .. -h
        d_neg = 1 - x_neg + x_neg * d_pos[:0:-1].astype(ld)   # the mirror (upper bounds of the reverse direction)
        x = np.concatenate([[ld(0)], x_neg, np.exp(e_pos)])
        y = np.concatenate([[ld(1)], d_neg, d_pos.astype(ld)])
        y = np.minimum(y, 1)
        loss = np.concatenate([[-np.inf], -eps_pos[:0:-1], eps_pos])      # node k's privacy loss
        lattice = np.concatenate([[0], np.arange(-K, K + 1)])              # its lattice index
        v = _hull(x, y)
        xv, yv = x[v], y[v]
        slopes = np.diff(yv) / np.diff(xv)                                   # between consecutive vertices
        right = np.append(slopes[1:], ld(0))                                 # after the last vertex: flat
        mass = xv[1:] * (right - slopes)                                     # at vertices 1.. (vertex 0 is x = 0)
        # error bound of each mass (long double: unit round-off ul): slopes err <= 4 ul |slope|, products 2 ul
        ul = ld(np.finfo(ld).eps) / 2
        err = xv[1:] * (np.abs(right) + np.abs(slopes)) * 8 * ul + np.abs(mass) * 4 * ul
        mass = np.maximum(mass - err, 0)
        omega = np.zeros(2 * K + 1)
        np.add.at(omega, lattice[v[1:]] + K, mass.astype(float) * (1 - 4 * U))   # rounded down: safe
        omega_inf = 1.0 - float(np.sum(omega.astype(ld))) * (1 - 4 * U) + 4 * U  # the rest, rounded up
        self.omega, self.omega_inf, self.K = omega, min(omega_inf, 1.0), K
        at = lattice[v[1:]] >= 0                       # the hull's vertices at eps >= 0
        self._check(h * lattice[v[1:]][at], d_pos[lattice[v[1:]][at]])
        self._compose()

    def _curve(self, omega, K, eps, scale=1.0):
        """sum_s omega(s) (1 - e^{eps - s})_+ over lattice losses s = (j - K) h, rounded up."""
        s = (np.arange(omega.size) - K) * self.step
        out = []
        for e in np.atleast_1d(eps):
            above = s > e
            out.append(float(np.sum(omega[above] * -np.expm1(e - s[above]))) * (1 + gamma(omega.size + 4)))
        return np.array(out) * scale

    def _check(self, eps_pos, d_pos):
        """The one-round curve of omega must pass through (or above) the one-round bound at the hull's
        vertices, where the hull touches it (it does by construction; this guards the arithmetic, with
        a relative tolerance of 1e-9 for the evaluation's own rounding)."""
        ours = self.omega_inf + self._curve(self.omega, self.K, eps_pos)
        bad = ours < d_pos * (1 - 1e-9) - 1e-300
        if np.any(bad):
            i = int(np.argmax(bad))
            raise ArithmeticError(f"internal: the composed curve's one-round PLD falls below the bound at "
                                  f"eps = {eps_pos[i]:g} ({ours[i]:.3e} < {d_pos[i]:.3e})")

    def _compose(self):
        T, K = self.rounds, self.K
        size = 2 * K * T + 1
        N = 1 << int(np.ceil(np.log2(size)))
        if T == 1:
            self.omega_T, self.err_T = self.omega, 0.0
        else:
            spec = np.fft.rfft(self.omega, N)
            out = np.fft.irfft(spec ** T, N)[:size]
            # a-priori round-off (module docstring): l2 error of the composed vector, then l1 <= sqrt(N) l2
            l2 = T * (np.log2(N) * 10 * U * float(np.linalg.norm(self.omega)) + 8 * U) + np.log2(N) * 10 * U
            self.err_T = float(np.sqrt(N) * l2)
            self.omega_T = np.maximum(out, 0.0)
        self.inf_T = float(-np.expm1(T * np.log1p(-self.omega_inf))) * (1 + gamma(4)) if self.omega_inf < 1 else 1.0

    def delta(self, eps):
        """Certified upper bound on the composed delta(eps): the smaller of the FFT composition's value and
        basic composition's T·delta_1(eps/T) (T runs of an (eps/T, delta_1)-DP mechanism are
        (eps, T delta_1)-DP; Dwork–Roth 2014, Thm. 3.16), which is the tighter one beyond the lattice, where
        the FFT value is floored by its round-off allowance."""
        eps_arr = V.nonnegative("eps", eps)
        flat = eps_arr.ravel()
        vals = self.inf_T + self._curve(self.omega_T, self.K * self.rounds, flat) + self.err_T
        vals = np.minimum(vals * (1 + gamma(4)), 1.0)
        basic_vals = np.minimum(self.rounds * np.asarray(self.base.delta(flat / self.rounds), dtype=float)
                                * (1 + gamma(2)), 1.0)
        vals = np.minimum(vals, basic_vals)
        return vals.reshape(eps_arr.shape) if eps_arr.ndim else float(vals[0])

    def epsilon(self, delta: float) -> float:
        """Smallest certified eps (rounded up) for the composed ``delta``: the best of the FFT composition
        (inverted), basic composition T·eps_1(delta/T) and advanced composition of eps_1(delta/(2T)) with
        slack delta/2 (Dwork–Roth 2014, Thms. 3.16 and 3.20), each valid on its own; inf only where every
        one is (a one-round curve that never reaches delta/T, e.g. a floor delta_i > 0)."""
        from gspa.privacy.accountant import _invert
        delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
        T = self.rounds
        top = T * self.K * self.step
        fft = float("inf") if self.delta(top) > delta else _invert(lambda e: float(self.delta(e)), delta, top)
        e1 = float(self.base.epsilon(delta / T)) if delta / T > 0 else float("inf")
        basic_eps = T * e1 * (1 + 4 * U) if np.isfinite(e1) else float("inf")
        e_adv = float(self.base.epsilon(delta / (2 * T))) if delta / (2 * T) > 0 else float("inf")
        adv = (advanced_composition(e_adv, delta / (2 * T), T, delta / 2)[0] * (1 + 8 * U)
               if np.isfinite(e_adv) else float("inf"))
        return min(fft, basic_eps, adv)


def compose(base, rounds: int, *, nodes: int = NODES):
    """T rounds of ``base`` (an object with a certified, direction-symmetric ``delta(eps)``): returns
    ``base`` itself for one round, else a :class:`Composed` bound. ``base`` needs ``delta`` and
    ``epsilon`` methods; ``rounds`` in [1, MAX_ROUNDS = 10^5]; ``nodes`` in [8, 10^5].

    Paper items: the certified counterpart of Theorem 5, which composes Theorem 2's approximate mu by
    Fact 3 into sqrt(T) mu."""
    for method in ("delta", "epsilon"):
        V.function(f"base.{method}", getattr(base, method, None))
    rounds = V.integer("rounds", rounds, low=1, high=MAX_ROUNDS)
    nodes = V.integer("nodes", nodes, low=8, high=100_000)
    return base if rounds == 1 else Composed(base, rounds, nodes=nodes)


def advanced_composition(eps0: float, delta0: float, rounds: int, delta_slack: float):
    """(eps, delta) of T rounds of an (eps0, delta0)-DP mechanism by the advanced composition theorem
    (Dwork–Roth 2014, Thm. 3.20): eps = sqrt(2 T ln(1/delta')) eps0 + T eps0 (e^eps0 - 1),
    delta = T delta0 + delta'. ``rounds`` in [1, MAX_T = 10^15]; eps = inf where it exceeds the floats."""
    eps0 = V.real("eps0", eps0, low=0.0, scalar=True)
    delta0 = V.probability("delta0", delta0, scalar=True)
    rounds = V.integer("rounds", rounds, low=1, high=MAX_T)
    delta_slack = V.probability("delta_slack", delta_slack, open_low=True, open_high=True, scalar=True)
    with np.errstate(over="ignore"):
        eps = np.sqrt(2 * rounds * np.log(1 / delta_slack)) * eps0 + rounds * eps0 * np.expm1(eps0)
    return float(eps), float(min(1.0, rounds * delta0 + delta_slack))


def basic(eps: float, delta: float, t: int):
    """FLAME Lemma 2 (basic composition; Dwork–Roth 2014, Thm. 3.16): t rounds of (eps, delta)-DP are
    (t eps, t delta)-DP (FLAME states the pure case delta = 0). ``t`` in [1, MAX_T = 10^15]."""
    eps = V.real("eps", eps, low=0.0, scalar=True)
    delta = V.probability("delta", delta, scalar=True)
    t = V.integer("t", t, low=1, high=MAX_T)
    return float(t * eps), float(min(1.0, t * delta))


def advanced(eps: float, delta: float, t: int, delta_prime: float):
    """FLAME Lemma 3 as printed: (sqrt(2 t ln(1/delta')) eps + t eps (e^eps - 1), t delta + delta').
    It is the same formula as Dwork–Rothblum–Vadhan 2010 / Dwork–Roth 2014 Thm. 3.20
    (:func:`advanced_composition`)."""
    return advanced_composition(eps, delta, t, delta_prime)
