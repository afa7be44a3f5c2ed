"""Resumable runs in parallel processes that die with their parent.

:func:`run_cached` runs independent jobs — one call ``fn(*args)`` each, returning a JSON-able record —
and keeps every finished record in its own result file, so an interrupted experiment resumes where it
stopped and jobs that share a result file run once. Used by the private SGD of GSPA's Algorithm 3
(:mod:`gspa.studies.gspa.private_sgd`); any experiment made of independent runs can use it.

Reliability: finished records are saved at once, atomically. On any exception in the caller (a failing
run, KeyboardInterrupt) the jobs not started are cancelled and running workers terminated before the
exception propagates; a worker whose parent dies (SIGTERM, SIGKILL, a crashed kernel) notices within
:data:`WATCH_INTERVAL` seconds and exits.
"""
from __future__ import annotations

import json
import os
import threading
import time

from gspa.util import validate as V
from gspa.util.atomic import write_json_atomic

WATCH_INTERVAL = 0.25    # seconds between a worker's checks that its parent is alive
_SHARED = None           # the data every worker receives once, at start (see shared())


def shared():
    """The data passed to :func:`run_cached` as ``data``, inside a worker process."""
    return _SHARED


def _watch_parent(parent: int) -> None:
    """Exit the process as soon as its parent is gone (the kernel re-parents an orphan, so getppid()
    changes). Runs in a daemon thread of every worker; os._exit stops the running job at once."""
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL)
    os._exit(1)


def _init_worker(data, parent: int):
    global _SHARED
    if os.getppid() != parent:            # the parent died while this worker started
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="gspa-watch-parent").start()
    _SHARED = data


def _terminate(pool) -> None:
    """Stop a ProcessPoolExecutor now: cancel the jobs not started and terminate the running ones
    (``shutdown`` alone would wait for them to finish)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(5)
        if p.is_alive():
            p.kill()
            p.join(5)


def run_cached(fn, jobs, paths, *, data=None, cost=None, workers: int = 1, desc: str = "runs", progress=True):
    """Records ``fn(*args)`` for every ``args`` in ``jobs``, in the order of ``jobs``.

    ``paths[i]`` is the result file of ``jobs[i]``: a job whose file exists is loaded, not run; jobs with
    the same path run once. Missing jobs run in ``workers`` processes (spawned; ``fn`` must be a
    module-level function, called as ``fn(*args)`` and reading ``data`` through :func:`shared`) or, with
    ``workers=1``, here as ``fn(*args, data=data)``. ``cost(*args)``, if given, orders the jobs most
    expensive first. A tqdm bar shows progress unless ``progress`` is false."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context
    from tqdm.auto import tqdm

    V.integer("workers", workers, low=1)
    jobs, paths = list(jobs), [os.fspath(p) for p in paths]
    if len(jobs) != len(paths):
        raise ValueError(f"jobs and paths must have the same length, got {len(jobs)} and {len(paths)}")
    done = {}
    for p in paths:
        if p not in done and os.path.exists(p):
            with open(p) as fh:
                done[p] = json.load(fh)
    todo = {p: args for p, args in zip(paths, jobs) if p not in done}
    order = sorted(todo, key=lambda p: -cost(*todo[p])) if cost else list(todo)
    bar = tqdm(total=len(order), desc=desc, disable=not progress or not order)

    def save(p, rec):
        write_json_atomic(p, rec)
        done[p] = rec
        bar.update()

    if workers == 1 or len(order) <= 1:
        for p in order:
            save(p, fn(*todo[p], data=data))
    else:
        pool = ProcessPoolExecutor(min(workers, len(order)), mp_context=get_context("spawn"),
                                   initializer=_init_worker, initargs=(data, os.getpid()))
        try:
            futures = {pool.submit(fn, *todo[p]): p for p in order}
            for fut in as_completed(futures):
                save(futures[fut], fut.result())
        except BaseException:
            _terminate(pool)                   # finished records stay saved; the rest stop now
            raise
        pool.shutdown()
    bar.close()
    return [done[p] for p in paths]
