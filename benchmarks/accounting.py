"""Speed and memory of the exact personalized shuffle accountant (gspa.accountant).

Prints, in one run:
* for n = 1e3 ... 1e7 users with all-distinct budgets eps_i ~ U(0.01, 2): the time and peak memory
  (tracemalloc, which numpy reports to) of delta(eps) at eps = 0.5 and of eps(delta) at delta = 1e-6,
  each including the construction of the clone law;
* at n = 1e4 and 1e5: a straightforward reference (sequential convolution of the n - 1 Bernoulli
  clone indicators, O(n^2); hockey-stick summed outcome by outcome) for delta(eps) at the same eps
  and at the fast eps(delta); the two must agree to 1e-9, and the ratio of times is printed.

Targets (issue 3): eps(delta) <= 1 s at n = 1e6 and <= 15 s at n = 1e7 on a 2-core machine.

    .venv/bin/python benchmarks/accounting.py [--max-exp 7] [--ref-max-exp 5]
"""
from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from scipy import special

from gspa import accountant as A

EPS, DELTA = 0.5, 1e-6


def measure(fn):
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, dt, peak / 2**20


def reference_delta(eps_users, eps):
    """Straightforward: clone law by n sequential convolutions, then sum over every (m, a)."""
    p = special.expit(-eps_users)
    drop = int(np.argmax(p))
    law = np.array([1.0])
    for x in np.delete(2 * p, drop):
        law = np.convolve(law, [1 - x, x])
    total = 0.0
    e = np.exp(eps)
    for m in np.flatnonzero(law > 0):
        a = np.arange(m + 2)
        logc = special.gammaln(m + 1) - special.gammaln(a) - special.gammaln(m + 2 - a) - m * np.log(2)
        b_prev = np.where(a >= 1, np.exp(logc), 0.0)                       # Bin(a - 1; m, 1/2)
        logc2 = special.gammaln(m + 1) - special.gammaln(a + 1) - special.gammaln(m + 1 - a) - m * np.log(2)
        b_here = np.where(a <= m, np.exp(np.where(a <= m, logc2, -np.inf)), 0.0)  # Bin(a; m, 1/2)
        total += law[m] * np.maximum(b_prev - e * b_here, 0.0).sum()      # revealing variant: q = 1
    return total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-exp", type=int, default=7)
    ap.add_argument("--ref-max-exp", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"{'n':>10} {'delta(eps=0.5)':>16} {'t_delta s':>10} {'eps(1e-6)':>11} {'t_eps s':>9} {'peak MiB':>9} {'error counted':>14}")
    fast = {}
    for k in range(3, args.max_exp + 1):
        n = 10 ** k
        eps_users = rng.uniform(0.01, 2.0, size=n)
        d, t_d, _ = measure(lambda: A.personalized_pair(eps_users, None, "revealing").delta(EPS))
        (pair, e), t_e, peak = measure(lambda: (lambda pr: (pr, pr.epsilon(DELTA)))(A.personalized_pair(eps_users, None, "revealing")))
        fast[k] = (eps_users, d, e, t_d)
        print(f"{n:>10} {d:>16.10e} {t_d:>10.3f} {e:>11.6f} {t_e:>9.3f} {peak:>9.1f} {pair.clones.error:>14.2e}")
        if k == 6:
            print(f"{'':>10} target eps(delta) <= 1 s at n = 1e6: {'met' if t_e <= 1 else 'NOT met'} ({t_e:.2f} s)")
        if k == 7:
            print(f"{'':>10} target eps(delta) <= 15 s at n = 1e7: {'met' if t_e <= 15 else 'NOT met'} ({t_e:.2f} s)")
    print("\nreference (sequential convolution, outcome-by-outcome sum) against the fast accountant")
    print(f"{'n':>10} {'|delta diff|':>13} {'|delta diff| at eps(1e-6)':>26} {'t_ref s':>9} {'speed-up':>9}")
    for k in range(4, args.ref_max_exp + 1):
        eps_users, d, e, t_d = fast[k]
        ref, t_ref, _ = measure(lambda: reference_delta(eps_users, EPS))
        ref_e = reference_delta(eps_users, e)
        fast_e = A.personalized_pair(eps_users, None, "revealing").delta(e)
        diff, diff_e = abs(ref - d), abs(ref_e - fast_e)
        ok = diff <= 1e-9 and diff_e <= 1e-9
        print(f"{10**k:>10} {diff:>13.2e} {diff_e:>26.2e} {t_ref:>9.2f} {t_ref / t_d:>8.0f}x  {'agree' if ok else 'DISAGREE'}")


if __name__ == "__main__":
    main()
