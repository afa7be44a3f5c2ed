"""Speed of the FLAME privacy pieces (gspa.privacy.peers.blanket, gspa.privacy.shuffle.composition).

Prints the measured wall-clock seconds of:
* the certified blanket pair of the shuffled R_gamma,b (eps_l = 0.5, b = 10, n = 1000; 'balle' reading) and its
  eps(1e-8);
* its T-fold composition through the privacy-loss distribution (one FFT power, no loop over rounds) at
  T = 75,755 (FLAME's d in Figure 3): construction and eps(1e-5);
* BBGN19's Bennett bound eps(1e-8) at the same parameters.

    .venv/bin/python benchmarks/flame_privacy.py [--rounds 75755] [--n 1000] [--b 10] [--eps-l 0.5]
"""

from __future__ import annotations

import argparse
import time

import report

TITLE = "FLAME's privacy pieces (`flame_privacy.py`)"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=75_755)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--b", type=int, default=10)
    ap.add_argument("--eps-l", type=float, default=0.5)
    report.add_readme_option(ap, "flame_privacy")
    a = ap.parse_args(argv)
    with report.recorded("flame_privacy", TITLE, a.readme or None) as entry:
        return _measure(a, entry)


def _measure(a, entry):
    from gspa.privacy.peers import blanket as B
    from gspa.privacy.shuffle.composition import compose

    t = time.perf_counter()
    pair = B.blanket_pair(a.eps_l, a.b, a.n)
    e1 = pair.epsilon(1e-8)
    print(f"blanket pair eps(1e-8) = {e1:.6g}: {time.perf_counter() - t:.3f} s")
    t = time.perf_counter()
    comp = compose(pair, a.rounds)
    t_build = time.perf_counter() - t
    t = time.perf_counter()
    eT = comp.epsilon(1e-5)
    t_eps = time.perf_counter() - t
    print(
        f"{a.rounds}-fold composition (lattice step {comp.step:.3g}, {comp.K} nodes): build {t_build:.3f} s, "
        f"eps(1e-5) = {eT:.6g} in {t_eps:.3f} s"
    )
    t = time.perf_counter()
    eb = B.balle_blanket_epsilon(1e-8, a.eps_l, a.b, a.n, version="flame")
    print(f"BBGN19 Bennett eps(1e-8) = {eb:.6g}: {time.perf_counter() - t:.3f} s")
    entry.summary = f"{a.rounds}-fold composition built in {t_build:.3f} s, eps(1e-5) = {eT:.6g} in {t_eps:.3f} s"


if __name__ == "__main__":
    main()
