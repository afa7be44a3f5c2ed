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


def cuda_matmul_peak(size: int = 8192, reps: int = 20) -> float:
    """GFLOP/s of a float32 matmul on the CUDA device, with TF32 off (the products the experiments'
    float32 numbers are computed with)."""
    import torch

    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        a = torch.randn(size, size, device="cuda")
        b = torch.randn(size, size, device="cuda")
        for _ in range(3):
            a @ b
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(reps):
            a @ b
        torch.cuda.synchronize()
        return 2 * size**3 * reps / 1e9 / (time.perf_counter() - t)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"
