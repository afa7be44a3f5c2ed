"""Speed and memory of the exact personalized shuffle accountant (gspa.privacy.accountant).

Prints, in one run:
* for n = 1e3 ... 1e7 users with all-distinct budgets eps_i ~ U(0.01, 2): the time and peak memory
  (tracemalloc) of delta(eps) at eps = 0.5 and of eps(delta) at delta = 1e-6, each including the
  construction of the clone law;
* at n = 1e4 and 1e5: a straightforward reference (O(n^2) sequential convolution, outcome-by-outcome
  hockey-stick sum) for delta(eps) at the same eps and at the fast eps(delta); the two must agree to
  1e-9, and the ratio of times is printed.

Targets (issue 3): eps(delta) <= 1 s at n = 1e6 and <= 15 s at n = 1e7 on a 2-core machine.

    .venv/bin/python benchmarks/accounting.py [--max-exp 7] [--ref-max-exp 5]
"""
from __future__ import annotations

import argparse

from gspa.book import perf

TARGETS = {6: 1.0, 7: 15.0}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-exp", type=int, default=7)
    ap.add_argument("--ref-max-exp", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rows = perf.scaling(range(3, args.max_exp + 1), seed=args.seed)
    print(f"{'n':>10} {'delta(eps=0.5)':>16} {'t_delta s':>10} {'eps(1e-6)':>11} {'t_eps s':>9} {'peak MiB':>9} {'error counted':>14}")
    for r in rows:
        print(f"{r['n']:>10} {r['delta_at_eps']:>16.10e} {r['seconds_delta']:>10.3f} {r['epsilon_at_delta']:>11.6f} "
              f"{r['seconds_epsilon']:>9.3f} {r['peak_MiB']:>9.1f} {r['counted_error']:>14.2e}")
    for r in rows:
        k = len(str(r["n"])) - 1
        if k in TARGETS:
            ok = r["seconds_epsilon"] <= TARGETS[k]
            print(f"target eps(delta) <= {TARGETS[k]:g} s at n = 1e{k}: {'met' if ok else 'NOT met'} "
                  f"({r['seconds_epsilon']:.2f} s, ratio to target {r['seconds_epsilon'] / TARGETS[k]:.2f})")
    print("\nreference (sequential convolution, outcome-by-outcome sum) against the fast accountant")
    print(f"{'n':>10} {'|delta diff|':>13} {'|diff| at eps(1e-6)':>20} {'t_ref s':>9} {'speed-up':>9}")
    for r in rows:
        if 4 <= len(str(r["n"])) - 1 <= args.ref_max_exp:
            c = perf.against_reference(r)
            ok = c["diff_delta"] <= 1e-9 and c["diff_at_epsilon"] <= 1e-9
            print(f"{c['n']:>10} {c['diff_delta']:>13.2e} {c['diff_at_epsilon']:>20.2e} {c['seconds_reference']:>9.2f} "
                  f"{c['speedup']:>8.0f}x  {'agree' if ok else 'DISAGREE'}")


if __name__ == "__main__":
    main()
