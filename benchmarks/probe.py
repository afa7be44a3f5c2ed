"""The machine's float32 matrix-multiply peak, the yardstick of benchmarks/sgd.py and benchmarks/flame.py.

Imported by those scripts (they run with this directory on sys.path)."""

from __future__ import annotations

import time


def matmul_peak(threads: int, size: int = 2048, reps: int = 10) -> tuple[float, float]:
    """GFLOP/s of a float32 matmul on ``threads`` threads: (per wall-clock second, per CPU second of this
    process divided by ``threads``). On a shared machine the wall figure falls with the load (the probe
    waits in the run queue) while the CPU figure does not: compare like with like."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    a, b = torch.randn(size, size), torch.randn(size, size)
    for _ in range(2):
        a @ b
    t, c = time.perf_counter(), time.process_time()
    for _ in range(reps):
        a @ b
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    torch.set_num_threads(before)
    work = 2 * size**3 * reps / 1e9
    return work / wall, work / (cpu / threads)


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"
