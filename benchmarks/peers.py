"""Speed of gspa against its peers' public code, on the same inputs, measured in one run (issue 23, item 6).

The peers' code is not part of gspa and is not on PyPI, so this script does not ship or download it: give
the directory of a checkout you obtained yourself, and it is imported from there and timed beside gspa.
Without any directory it prints where each peer's code lives and exits.

* ``--fmt21 DIR`` — a directory with FMT21's ``computeamplification.py`` (Feldman, McMillan, Talwar,
  FOCS 2021; github.com/apple/ml-shuffling-amplification, also copied into github.com/yixuanLL/EoN under
  ``privAmp/``): ``numericalanalysis(n, eps0, delta, 10, 100, True)`` (their example's 10 bisection steps and
  step 100) against ``gspa.fmt21_pair(eps0, n).epsilon(delta)`` — the same pair, gspa exact with its errors
  counted.
* ``--wang DIR`` — a directory with Wang et al.'s ``unifiedamplification.py`` (VLDB 2024;
  github.com/wangsw/PrivacyAmplification): ``amplificationUB(*computeUBParameters(eps0, m, k), n, delta, 12)``
  (their example's 12 bisection steps) for binary randomized response (the general row: FMT23's clone pair)
  against gspa's clone pair ``gspa.personalized_pair(...)`` with one budget (the same pair), and for
  10-ary randomized response against ``gspa.lower_bound(..., "k-rr", k=10)`` (the same pair; it is a lower
  bound on the protocol, see the peers chapter). gspa's certified k-RR upper bound (KaryPair, seconds) is
  printed beside it with ``--kary-upper``.
* ``--eon DIR`` — a directory with EoN's ``computeamplification_perS.py`` (Liu et al., AAAI 2023;
  github.com/yixuanLL/EoN, ``privAmp/``): ``numericalanalysis(n, eps, delta, 10, 100, True)`` for budgets
  U(0.05, 1) (their code's setting, delta = 1e-8) against ``gspa.privacy.eon.EonApproximation(eps)`` (the same
  approximation, re-derived) and gspa's certified cell bound. Their module imports ``joblib`` without using
  it; if joblib is not installed an empty stand-in module is registered for the import.

Each time is the smallest of ``--repeats`` runs (construction included); the ratio is the peer's time over
gspa's (> 1: gspa faster). The eps columns show what each computed: the peers' bisections stop at
2^-steps relative resolution, gspa's root-finder at ~1e-9, so equal pairs agree to the peers' resolution.

    .venv/bin/python benchmarks/peers.py --fmt21 DIR --wang DIR --eon DIR [--max-exp 6] [--repeats 3]
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import types
from pathlib import Path

import numpy as np

from gspa.book.perf import timed
from gspa.privacy import accountant as A

SOURCES = {
    "fmt21": ("computeamplification.py", "github.com/apple/ml-shuffling-amplification (or github.com/yixuanLL/EoN, "
              "privAmp/computeamplification.py)"),
    "wang": ("unifiedamplification.py", "github.com/wangsw/PrivacyAmplification"),
    "eon": ("computeamplification_perS.py", "github.com/yixuanLL/EoN, privAmp/"),
}
DELTA, EON_DELTA = 1e-6, 1e-8


def load(kind: str, directory: str):
    """The peer's module, imported from ``directory`` (a ValueError if its file is not there)."""
    fname = SOURCES[kind][0]
    path = Path(directory) / fname
    if not path.is_file():
        raise ValueError(f"--{kind}: {directory!r} has no {fname} (expected from {SOURCES[kind][1]})")
    if kind == "eon" and importlib.util.find_spec("joblib") is None:
        stub = types.ModuleType("joblib")       # imported, never used, by their module
        stub.parallel_backend = None
        sys.modules["joblib"] = stub
    spec = importlib.util.spec_from_file_location(f"peer_{kind}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(label, ours, theirs, repeats):
    (e_ours, t_ours), (e_theirs, t_theirs) = timed(ours, repeats), timed(theirs, repeats)
    print(f"  {label:<34} {e_theirs:>11.6f} {e_ours:>11.6f} {t_theirs:>9.3f} {t_ours:>9.4f} {t_theirs / t_ours:>9.1f}x")
    return t_theirs / t_ours


def _header(title):
    print(f"\n{title}")
    print(f"  {'input':<34} {'eps peer':>11} {'eps gspa':>11} {'t peer s':>9} {'t gspa s':>9} {'ratio':>10}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for kind, (fname, where) in SOURCES.items():
        ap.add_argument(f"--{kind}", metavar="DIR", help=f"directory with {fname} ({where})")
    ap.add_argument("--max-exp", type=int, default=6, help="users up to 10^max-exp (from 10^4; EoN from 10^3)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--kary-upper", action="store_true", help="also time gspa's certified k-RR upper bound")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not 3 <= args.max_exp <= 8:
        ap.error(f"--max-exp must be in [3, 8], got {args.max_exp}")
    given = {k: getattr(args, k) for k in SOURCES if getattr(args, k)}
    if not given:
        print("no peer code given: nothing to time. Get a checkout and pass its directory:")
        for kind, (fname, where) in SOURCES.items():
            print(f"  --{kind} DIR   DIR holding {fname}, from {where}")
        return 0
    try:
        mods = {k: load(k, d) for k, d in given.items()}
    except ValueError as err:
        ap.error(str(err))
    users = [10**e for e in range(4, args.max_exp + 1)]
    ratios = []
    if "fmt21" in mods:
        m = mods["fmt21"]
        _header(f"FMT21's numerical bound, one eps0-LDP randomizer, eps(delta = {DELTA:g})")
        for e0 in (0.5, 1.0, 4.0):
            for n in users:
                ratios.append(_row(f"eps0 = {e0:g}, n = {n:.0e}", lambda: A.fmt21_pair(e0, n).epsilon(DELTA),
                                   lambda: m.numericalanalysis(n, e0, DELTA, 10, 100, True), args.repeats))
    if "wang" in mods:
        m = mods["wang"]
        _header(f"Wang et al.'s variation-ratio bound, eps(delta = {DELTA:g}): binary RR (gspa: the same clone pair), "
                "10-RR (gspa: the same pair, lower_bound)")
        for e0 in (1.0, 4.0):
            for n in users:
                one = dict(counts=np.array([n]))
                ratios.append(_row(f"binary RR, eps0 = {e0:g}, n = {n:.0e}",
                                   lambda: A.personalized_pair(np.array([e0]), **one).epsilon(DELTA),
                                   lambda: m.amplificationUB(*m.computeUBParameters(e0, None, None), n, DELTA, 12),
                                   args.repeats))
                ratios.append(_row(f"10-RR, eps0 = {e0:g}, n = {n:.0e}",
                                   lambda: A.lower_bound(np.array([e0]), "k-rr", k=10, **one).epsilon(DELTA),
                                   lambda: m.amplificationUB(*m.computeUBParameters(e0, "krr", 10), n, DELTA, 12),
                                   args.repeats))
                if args.kary_upper:
                    e, t = timed(lambda: A.personalized_pair(np.array([e0]), randomizer="k-rr", k=10, **one).epsilon(DELTA))
                    print(f"  {'  gspa certified 10-RR upper bound':<34} {'':>11} {e:>11.6f} {'':>9} {t:>9.4f}")
    if "eon" in mods:
        m = mods["eon"]
        from gspa.privacy.eon import EonApproximation
        from gspa.privacy.cells import cells_pair
        _header(f"EoN, budgets U(0.05, 1), eps(delta = {EON_DELTA:g}): the same approximation re-derived; then gspa's "
                "certified cell bound")
        rng = np.random.default_rng(args.seed)
        for n in [10**3] + users[:2]:                  # their echo sums are O(n^2) in Python
            eps = rng.uniform(0.05, 1.0, n)
            ratios.append(_row(f"n = {n:.0e}", lambda: EonApproximation(eps).epsilon(EON_DELTA),
                               lambda: m.numericalanalysis(n, eps, EON_DELTA, 10, 100, True), args.repeats))
            e, t = timed(lambda: cells_pair(eps).epsilon(EON_DELTA))
            print(f"  {'  gspa certified cell bound':<34} {'':>11} {e:>11.6f} {'':>9} {t:>9.4f}")
    if ratios:
        print(f"\nspeed ratio, peer time / gspa time: {min(ratios):.1f}x to {max(ratios):.1f}x over {len(ratios)} inputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
