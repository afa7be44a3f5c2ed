"""Speed of personalized private SGD (gspa.sgd) against this machine's matrix-multiply peak.

Prints, in one run: a torch float32 matmul probe (GFLOP/s, the peak on this machine's cores), then
for the paper's scenarios (5 private + non-private, trained together as a batch) the seconds per
epoch per scenario, the achieved GFLOP/s and its ratio to the probe, the peak resident memory, and
the projected time of the paper profile (6 scenarios x 3 seeds x 50 epochs).

Targets (issue 4): >= 50 % of the probe's peak; the paper profile within 15 minutes on 2 cores.

    .venv/bin/python benchmarks/sgd.py [--epochs 2] [--threads 2] [--synthetic]
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np


def matmul_peak(threads: int, size: int = 2048, reps: int = 10) -> float:
    import torch
    torch.set_num_threads(threads)
    a, b = torch.randn(size, size), torch.randn(size, size)
    for _ in range(2):
        a @ b
    t = time.perf_counter()
    for _ in range(reps):
        a @ b
    return 2 * size ** 3 * reps / (time.perf_counter() - t) / 1e9


def main(argv=None):
    import torch
    from gspa import mnist, sgd
    from gspa.scenarios import budgets

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--synthetic", action="store_true", help="use the synthetic stand-in (no MNIST)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    peak = matmul_peak(args.threads)
    print(f"matmul probe ({args.threads} threads, float32 2048x2048): {peak:.1f} GFLOP/s")
    d = mnist.synthetic(60_000, 10_000) if args.synthetic else mnist.load()
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 60)
    names = ["Unif 1", "Unif 2", "Constant", "Mixed Constant", "Unif 3"]
    B = np.array([budgets(s, 100, np.random.default_rng(0)) for s in names] + [np.full(100, np.inf)])
    cfg = sgd.Config(epochs=args.epochs)
    _, secs = sgd.train(xtr, d.y_train, xte, d.y_test, B, cfg, seed=0, progress=False)
    per_epoch = secs / args.epochs
    gflops = sgd.flops_per_epoch(cfg, xtr.shape[0], xte.shape[0], B.shape[0]) / per_epoch / 1e9
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    paper = per_epoch * 50 * 3
    print(f"seconds per epoch per scenario: {per_epoch / B.shape[0]:.3f}  ({B.shape[0]} scenarios batched: {per_epoch:.2f} s per epoch)")
    print(f"achieved: {gflops:.1f} GFLOP/s = {gflops / peak:.0%} of the matmul probe (target >= 50%: {'met' if gflops >= 0.5 * peak else 'NOT met'})")
    print(f"peak resident memory: {rss:.0f} MiB (target < 2048: {'met' if rss < 2048 else 'NOT met'})")
    print(f"projected paper profile (6 scenarios x 3 seeds x 50 epochs): {paper / 60:.1f} min "
          f"(target <= 15 min: {'met' if paper <= 900 else 'NOT met'})")


if __name__ == "__main__":
    main()
