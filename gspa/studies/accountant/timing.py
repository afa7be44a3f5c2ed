"""Timing helpers of the accountant's study: wall-clock seconds, memory traced by tracemalloc, the peak
resident size of a process, a call in a fresh process, a block of work on one core.

Times are wall-clock times of untraced runs (tracemalloc slows Python code down, so memory is measured in a
separate run of the same computation).
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
import tracemalloc

import numpy as np


@contextlib.contextmanager
def one_core():
    """Every thread of this process (numpy's and the accountant's helper thread included) confined to one CPU
    for the block, then given back the CPUs it had: times measured inside are one core's. Where the system
    cannot pin threads (no ``sched_setaffinity``), the block runs unpinned."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    tasks = (
        [int(t) for t in os.listdir("/proc/self/task")] if os.path.isdir("/proc/self/task") else [0]
    )
    before = {t: os.sched_getaffinity(t) for t in tasks}
    cpu = {min(os.sched_getaffinity(0))}
    for t in tasks:
        os.sched_setaffinity(t, cpu)
    try:
        yield
    finally:
        for t, cpus in before.items():
            with contextlib.suppress(OSError):
                os.sched_setaffinity(t, cpus)


def measure(fn):
    """(result, seconds, peak MiB traced by tracemalloc — numpy reports its buffers to it)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, dt, peak / 2**20


def timed(fn, repeats: int = 1):
    """(result of the last run, smallest wall-clock seconds over ``repeats`` untraced runs)."""
    best = np.inf
    for _ in range(max(int(repeats), 1)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def peak_rss_mib() -> float:
    """The largest resident set size of this process so far, in MiB: Linux's VmHWM (the high-water mark
    of this address space, fresh after exec) where there is one, else ``ru_maxrss`` (which Linux carries
    over from the parent across fork and exec, so a spawned child would report its parent's peak)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return float(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def isolated(fn, *args):
    """``fn(*args)`` in a fresh (spawned) process, so that its peak resident memory is its own."""
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)
