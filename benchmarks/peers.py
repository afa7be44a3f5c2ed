"""Speed of gspa against its peers' public code, on the same inputs, measured in one run.

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
  against gspa's clone pair ``gspa.personalized_pair(..., reduction="clones")`` with one budget (the same pair), and for
  10-ary randomized response against gspa's certified upper bound ``gspa.personalized_pair(..., randomizer="k-rr",
  k=10)`` — what a user calls for an upper bound, so the ratio compares upper bound with upper bound. Their pair
  is a lower bound on the protocol (see the peers chapter); gspa computes that same pair with
  ``gspa.privacy.shuffle.lower.kary_lower_bound(..., 10)``, printed on the line below with its own time (not in
  the ratio).
* ``--eon DIR`` — a directory with EoN's ``computeamplification_perS.py`` (Liu et al., AAAI 2023;
  github.com/yixuanLL/EoN, ``privAmp/``): ``numericalanalysis(n, eps, delta, 10, 100, True)`` for budgets
  U(0.05, 1) (their code's setting, delta = 1e-8) against ``gspa.privacy.peers.eon.EonApproximation(eps)`` (the same
  approximation, re-derived) and gspa's certified cell bound. Their module imports ``joblib`` without using
  it; if joblib is not installed an empty stand-in module is registered for the import.
* ``--scw DIR`` — a directory with Su, Cheng and Wang's ``amplification_bounds.py`` and ``mechanisms.py``
  (S&P 2026; github.com/Optimal-amplification-bound/Decomposition-Based-Optimal-Bounds-for-Shuffle-DP):
  ``FFTbound(RRMechanism(eps0, 10)).get_eps(eps0, n, delta)`` (their optimal decomposition's bound for 10-ary
  randomized response) against gspa's certified blanket pair (``personalized_pair(..., randomizer="k-rr")``),
  and ``FFTLowerBound(RRMechanism_lowerbound(eps0, 10))`` against ``gspa.lower_bound(..., "k-rr", k=10)`` (what a
  user calls: the larger of that data set's bound and the others-on-x⁰ one). Their FFT runs on CuPy, i.e. on a GPU, when CuPy is installed and sees a CUDA device
  (``pip install cupy-cuda12x``); otherwise the script says why and NumPy is registered in
  its place for their import (every CuPy call they make has the same NumPy name), so the ratio measures their
  algorithm on the CPU, which a GPU would shorten. Their FFT has n times the grid's length (~5,000 points)
  in complex numbers: 10^4 users took 12 GB and 4-8 minutes per value here, so n is 10^3 and 10^4 at most
  (lower bound: 10^3), whatever a larger ``--max-exp`` says.
* ``--koskela DIR`` — a directory with Koskela, Heikkilä and Honkela's ``delta_shuffler_fa.py`` (TMLR 2023,
  "Numerical accounting in the shuffle model"; github.com/DPBayes/PLD-Accountant at commit 690c243,
  ``fourier_accountant/experimental_shufflers/clones_comparison_fig1/``, later moved out of that repository).
  The file is a script (its body computes their figure and writes pickles), so only its imports and function
  definitions are executed. ``get_omega(n, 1, eps0, 10**7, 20)`` (their PLD of FMT23's clone pair on their
  grid, one round) and delta(eps) read off it at their 60 values of eps in [0.1, 1], against
  ``gspa.fmt23_pair(eps0, n).delta(eps)`` at the same values; their values lie above gspa's (their PLD rounds
  the losses up), the largest relative difference is printed. eps0 = 4 (their figure's), n = 10^4 and 10^5
  (their Python loops grow with n).

Each time is the smallest of ``--repeats`` runs (construction included); the ratio is the peer's time over
gspa's (> 1: gspa faster). The eps columns show what each computed: the peers' bisections stop at
2^-steps relative resolution, gspa's root-finder at ~1e-9, so equal pairs agree to the peers' resolution.

    .venv/bin/python benchmarks/peers.py --fmt21 DIR --wang DIR --eon DIR --scw DIR --koskela DIR \
        [--max-exp 6] [--repeats 3]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import io
import sys
import types
from pathlib import Path

import numpy as np

from gspa.studies.accountant.timing import timed
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as lower_bounds
from gspa.privacy.shuffle import pairs

import report

TITLE = "Against the peers' code (`peers.py`)"

SOURCES = {
    "fmt21": (
        "computeamplification.py",
        "github.com/apple/ml-shuffling-amplification (or github.com/yixuanLL/EoN, "
        "privAmp/computeamplification.py)",
    ),
    "wang": ("unifiedamplification.py", "github.com/wangsw/PrivacyAmplification"),
    "eon": ("computeamplification_perS.py", "github.com/yixuanLL/EoN, privAmp/"),
    "scw": (
        "amplification_bounds.py",
        "github.com/Optimal-amplification-bound/"
        "Decomposition-Based-Optimal-Bounds-for-Shuffle-DP, with its mechanisms.py",
    ),
    "koskela": (
        "delta_shuffler_fa.py",
        "github.com/DPBayes/PLD-Accountant at commit 690c243, "
        "fourier_accountant/experimental_shufflers/clones_comparison_fig1/",
    ),
}
KOSKELA_EPS = np.linspace(0.1, 1.0, 60)  # their script's values of eps
KOSKELA_GRID = (10**7, 20.0)  # their script's grid: nx points on [-L, L)
DELTA, EON_DELTA = 1e-6, 1e-8


def _file(kind: str, directory: str, fname: str) -> Path:
    path = Path(directory) / fname
    if not path.is_file():
        raise ValueError(
            f"--{kind}: {directory!r} has no {fname} (expected from {SOURCES[kind][1]})"
        )
    return path


def _import(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _definitions_only(name: str, path: Path):
    """A module of the file's imports and function definitions, without its script body."""
    tree = ast.parse(path.read_text(), filename=str(path))
    tree.body = [
        node
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef))
    ]
    module = types.ModuleType(name)
    module.__file__ = str(path)
    exec(compile(tree, str(path), "exec"), module.__dict__)
    return module


def cupy_missing() -> str | None:
    """None when CuPy is installed and sees a CUDA device (Su-Cheng-Wang's FFT then runs on the GPU, as
    their code intends), else why not."""
    if importlib.util.find_spec("cupy") is None:
        return "CuPy is not installed (pip install cupy-cuda12x on a machine with an NVIDIA GPU)"
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CuPy without a driver or a device raises its own CUDA errors
        return f"CuPy is installed but finds no CUDA device ({type(exc).__name__}: {exc})"
    return None if count > 0 else "CuPy is installed but finds no CUDA device"


def load(kind: str, directory: str):
    """The peer's module, imported from ``directory`` (a ValueError if its file is not there). For ``scw``,
    a namespace with both of their modules; for ``koskela``, their file's definitions without its body."""
    path = _file(kind, directory, SOURCES[kind][0])
    if kind == "eon" and importlib.util.find_spec("joblib") is None:
        stub = types.ModuleType("joblib")  # imported, never used, by their module
        stub.parallel_backend = None
        sys.modules["joblib"] = stub
    if kind == "koskela":
        return _definitions_only("peer_koskela", path)
    if kind == "scw":
        mechanisms = _file(kind, directory, "mechanisms.py")
        why = cupy_missing()
        stand_in = why is not None
        if stand_in:  # their FFT on the CPU: NumPy under CuPy's name, for their import only
            print(f"Su-Cheng-Wang's code runs on the CPU: {why}")
            sys.modules["cupy"] = np
        try:
            bounds = _import("peer_scw_bounds", path)
        finally:
            if stand_in:
                del sys.modules["cupy"]
        return types.SimpleNamespace(
            bounds=bounds, mechanisms=_import("peer_scw_mechanisms", mechanisms), cpu=stand_in
        )
    return _import(f"peer_{kind}", path)


def _quiet(fn):
    """``fn`` with its prints (their progress lines) swallowed."""

    def run():
        with contextlib.redirect_stdout(io.StringIO()):
            return fn()

    return run


def koskela_deltas(module, n: int, eps0: float) -> np.ndarray:
    """delta(eps) at KOSKELA_EPS read off their one-round PLD: the sum over grid points x > eps of
    (1 - exp(eps - x)) times the mass at x (their grid, their mass placement)."""
    nx, L = KOSKELA_GRID
    omega, grid, _ = module.get_omega(n, 1, eps0, nx, L)
    out = np.empty(KOSKELA_EPS.size)
    for i, e in enumerate(KOSKELA_EPS):
        j = int(np.ceil((L + e) / (2 * L / nx)))
        out[i] = np.sum(-np.expm1(e - grid[j:]) * omega[j:])
    return out


def _row(
    label, ours, theirs, repeats, show=lambda theirs, ours: (f"{theirs:>11.6f}", f"{ours:>11.6f}")
):
    (e_ours, t_ours), (e_theirs, t_theirs) = timed(ours, repeats), timed(_quiet(theirs), repeats)
    a, b = show(e_theirs, e_ours)
    print(f"  {label:<34} {a} {b} {t_theirs:>9.3f} {t_ours:>9.4f} {_times(t_theirs / t_ours):>10}")
    return t_theirs / t_ours


def _times(ratio: float) -> str:
    """A speed ratio with one decimal, or two significant digits below 1 (where gspa is slower)."""
    return f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2g}x"


def _header(title):
    print(f"\n{title}")
    print(
        f"  {'input':<34} {'eps peer':>11} {'eps gspa':>11} {'t peer s':>9} {'t gspa s':>9} {'ratio':>10}"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for kind, (fname, where) in SOURCES.items():
        ap.add_argument(f"--{kind}", metavar="DIR", help=f"directory with {fname} ({where})")
    ap.add_argument(
        "--max-exp",
        type=int,
        default=6,
        help="users up to 10^max-exp (from 10^4; EoN and Su-Cheng-Wang from 10^3)",
    )
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    report.add_readme_option(ap, "peers")
    args = ap.parse_args(argv)
    if not 3 <= args.max_exp <= 8:
        ap.error(f"--max-exp must be in [3, 8], got {args.max_exp}")
    with report.recorded("peers", TITLE, args.readme or None) as entry:
        return _measure(args, entry, ap)


def _measure(args, entry, ap):
    given = {k: getattr(args, k) for k in SOURCES if getattr(args, k)}
    if not given:
        print("no peer code given: nothing to time. Get a checkout and pass its directory:")
        for kind, (fname, where) in SOURCES.items():
            print(f"  --{kind} DIR   DIR holding {fname}, from {where}")
        entry.skip = True  # nothing measured: the README's section stays
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
                ratios.append(
                    _row(
                        f"eps0 = {e0:g}, n = {n:.0e}",
                        lambda: pairs.fmt21_pair(e0, n).epsilon(DELTA),
                        lambda: m.numericalanalysis(n, e0, DELTA, 10, 100, True),
                        args.repeats,
                    )
                )
    if "wang" in mods:
        m = mods["wang"]
        _header(
            f"Wang et al.'s variation-ratio bound, eps(delta = {DELTA:g}): binary RR (gspa: the same clone pair), "
            "10-RR (gspa: its certified upper bound; below it, the same pair as theirs, lower_bound)"
        )
        for e0 in (1.0, 4.0):
            for n in users:
                one = dict(counts=np.array([n]))
                ratios.append(
                    _row(
                        f"binary RR, eps0 = {e0:g}, n = {n:.0e}",
                        lambda: A.personalized_pair(
                            np.array([e0]), reduction="clones", **one
                        ).epsilon(DELTA),
                        lambda: m.amplificationUB(
                            *m.computeUBParameters(e0, None, None), n, DELTA, 12
                        ),
                        args.repeats,
                    )
                )
                ratios.append(
                    _row(
                        f"10-RR, eps0 = {e0:g}, n = {n:.0e}",
                        lambda: A.personalized_pair(
                            np.array([e0]), randomizer="k-rr", k=10, **one
                        ).epsilon(DELTA),
                        lambda: m.amplificationUB(
                            *m.computeUBParameters(e0, "krr", 10), n, DELTA, 12
                        ),
                        args.repeats,
                    )
                )
                e, t = timed(
                    lambda: lower_bounds.kary_lower_bound(np.array([e0]), 10, **one).epsilon(DELTA)
                )
                print(
                    f"  {'  gspa lower_bound (their pair)':<34} {'':>11} {e:>11.6f} {'':>9} {t:>9.4f}"
                )
    if "eon" in mods:
        m = mods["eon"]
        from gspa.privacy.peers.eon import EonApproximation
        from gspa.privacy.shuffle.cells import cells_pair

        _header(
            f"EoN, budgets U(0.05, 1), eps(delta = {EON_DELTA:g}): the same approximation re-derived; then gspa's "
            "certified cell bound"
        )
        rng = np.random.default_rng(args.seed)
        for n in [10**3] + users[:2]:  # their echo sums are O(n^2) in Python
            eps = rng.uniform(0.05, 1.0, n)
            ratios.append(
                _row(
                    f"n = {n:.0e}",
                    lambda: EonApproximation(eps).epsilon(EON_DELTA),
                    lambda: m.numericalanalysis(n, eps, EON_DELTA, 10, 100, True),
                    args.repeats,
                )
            )
            e, t = timed(lambda: cells_pair(eps).epsilon(EON_DELTA))
            print(f"  {'  gspa certified cell bound':<34} {'':>11} {e:>11.6f} {'':>9} {t:>9.4f}")
    if "scw" in mods:
        m = mods["scw"]
        where = (
            "their FFT on the CPU (NumPy for CuPy)"
            if m.cpu
            else "their FFT on CuPy, on the GPU; gspa on one CPU core"
        )
        _header(
            f"Su-Cheng-Wang's optimal decomposition, 10-RR, eps(delta = {DELTA:g}), {where}: upper bound against "
            "gspa's blanket pair; lower bound against gspa's lower_bound"
        )
        for n in [n for n in (10**3, 10**4) if n <= 10**args.max_exp]:
            for e0 in (1.0, 4.0):
                ratios.append(
                    _row(
                        f"upper, eps0 = {e0:g}, n = {n:.0e}",
                        lambda: A.personalized_pair(
                            np.array([e0]), randomizer="k-rr", k=10, counts=np.array([n])
                        ).epsilon(DELTA),
                        lambda: m.bounds.FFTbound(m.mechanisms.RRMechanism(e0, 10)).get_eps(
                            e0, n, DELTA
                        ),
                        args.repeats,
                    )
                )
                if n == 10**3:
                    ratios.append(
                        _row(
                            f"lower, eps0 = {e0:g}, n = {n:.0e}",
                            lambda: lower_bounds.lower_bound(
                                np.array([e0]), "k-rr", k=10, counts=np.array([n])
                            ).epsilon(DELTA),
                            lambda: m.bounds.FFTLowerBound(
                                m.mechanisms.RRMechanism_lowerbound(e0, 10)
                            ).get_eps(e0, n, DELTA),
                            args.repeats,
                        )
                    )
    if "koskela" in mods:
        m = mods["koskela"]
        _header(
            f"Koskela et al.'s PLD of FMT23's clone pair, one round, eps0 = 4, delta(eps) at {KOSKELA_EPS.size} values "
            "of eps (columns: their delta at eps = 0.5, and their largest relative excess over gspa's)"
        )

        def excess(theirs, ours):
            big = ours > 1e-12
            mid = int(np.argmin(np.abs(KOSKELA_EPS - 0.5)))
            return (
                f"{theirs[mid]:>11.4e}",
                f"{float(np.max(theirs[big] / ours[big] - 1)) if big.any() else 0.0:>+11.1e}",
            )

        for n in users[:2]:  # their loops over the pair's atoms are Python
            ratios.append(
                _row(
                    f"n = {n:.0e}",
                    lambda: pairs.fmt23_pair(4.0, n).delta(KOSKELA_EPS),
                    lambda: koskela_deltas(m, n, 4.0),
                    args.repeats,
                    show=excess,
                )
            )
    if ratios:
        entry.summary = (
            f"speed ratio, peer time / gspa time: {_times(min(ratios))} to {_times(max(ratios))} over "
            f"{len(ratios)} inputs ({', '.join(given)})"
        )
        print(f"\n{entry.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
