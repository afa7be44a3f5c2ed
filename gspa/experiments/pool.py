"""Resumable sweeps of independent runs, in local processes that die with their parent or on a Dask cluster.

:func:`run_cached` runs independent jobs — one call ``fn(*args)`` each, returning a record (a dict that JSON
can hold) — and keeps every finished record in its own result file, so an interrupted experiment resumes
where it stopped and jobs that share a result file run once; jobs that can run together (the same
configuration, say) may be given to ``fn`` in batches, one record each. Used by the private SGD of GSPA's Algorithm 3
(:mod:`gspa.studies.gspa.private_sgd`) and FLAME's runs (:mod:`gspa.studies.flame.protocols`); any
experiment made of independent runs can use it.

Two engines run the missing jobs; a job's record does not depend on which one ran it:

* **local** (the default): ``workers`` spawned processes of the standard library's
  ``concurrent.futures.ProcessPoolExecutor``, or this process when ``workers=1``;
* **dask**: the workers of a Dask cluster (``distributed.Client(address)``), chosen by a scheduler
  address given as ``scheduler`` or, when that is empty, in the environment variable
  :data:`SCHEDULER_ENV` (``GSPA_DASK_SCHEDULER=tcp://host:8786``). The shared ``data`` is sent to
  the cluster once (``Client.scatter``, broadcast) and every job is the same module-level ``fn``
  called as ``fn(*args, data=data)`` on a worker. The workers need the same environment as here
  (requirements.txt with constraints.txt, and this package at the same commit).

Reliability: finished records are saved at once, atomically, by this process only (never by a worker).
On any exception in the caller (a failing run, KeyboardInterrupt) the jobs not started are cancelled
before the exception propagates: locally, running workers are terminated too, and a worker whose
parent dies (SIGTERM, SIGKILL, a crashed kernel) notices within :data:`WATCH_INTERVAL` seconds and
exits. On a cluster the workers belong to the cluster, not to the build: this process's tasks are
cancelled (the scheduler drops them too when this process dies, as its connection closes), and a run
a worker already started finishes there and is discarded.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from gspa.util import validate as V
from gspa.util.atomic import move_aside, write_json_atomic

WATCH_INTERVAL = 0.25  # seconds between a worker's checks that its parent is alive
SCHEDULER_ENV = "GSPA_DASK_SCHEDULER"  # a Dask scheduler's address: run sweeps on that cluster
CONNECT_TIMEOUT = 60.0  # seconds to reach the Dask scheduler before giving up
_SHARED = None  # the data every worker receives once, at start (see shared())


def scheduler_address(scheduler: str | None = None) -> str | None:
    """The Dask scheduler a sweep runs on: ``scheduler`` if it is not empty, else the environment
    variable :data:`SCHEDULER_ENV` if it is set and not empty, else ``None`` (local processes)."""
    if scheduler is not None and not isinstance(scheduler, str):
        raise ValueError(
            f"scheduler must be a Dask scheduler address (text) or None, got {scheduler!r}"
        )
    address = (scheduler or "").strip() or os.environ.get(SCHEDULER_ENV, "").strip()
    return address or None


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
    if os.getppid() != parent:  # the parent died while this worker started
        os._exit(1)
    threading.Thread(
        target=_watch_parent, args=(parent,), daemon=True, name="gspa-watch-parent"
    ).start()
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


def _call(fn, args, data):
    """A job on a Dask worker: ``fn(*args, data=data)`` (``data`` arrives resolved from its scattered future)."""
    return fn(*args, data=data)


def _run_local(fn, tasks, data, workers, save):
    """Local engine: this process if ``workers`` is 1 (or one task is missing), else a process pool."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    if workers == 1 or len(tasks) <= 1:
        for paths, args in tasks:
            save(paths, fn(*args, data=data))
        return
    pool = ProcessPoolExecutor(
        min(workers, len(tasks)),
        mp_context=get_context("spawn"),
        initializer=_init_worker,
        initargs=(data, os.getpid()),
    )
    try:
        futures = {pool.submit(fn, *args): paths for paths, args in tasks}
        for fut in as_completed(futures):
            save(futures[fut], fut.result())
    except BaseException:
        _terminate(pool)  # finished records stay saved; the rest stop now
        raise
    pool.shutdown()


def _run_dask(fn, tasks, data, address, save, timeout):
    """Dask engine: every missing task is one task of the cluster at ``address``; ``data`` is scattered
    to every worker once; tasks earlier in ``tasks`` get a higher priority."""
    import uuid
    from distributed import Client, as_completed

    client = Client(address, timeout=timeout, set_as_default=False)
    futures = {}
    try:
        shared = None
        if data is not None:
            [shared] = client.scatter([data], broadcast=True, hash=False)
        name = f"{fn.__module__}.{fn.__qualname__}"
        for i, (paths, args) in enumerate(tasks):
            fut = client.submit(
                _call,
                fn,
                args,
                shared,
                key=f"{name}-{uuid.uuid4().hex}",
                pure=False,
                priority=len(tasks) - i,
                retries=0,
            )
            futures[fut] = paths
        for fut in as_completed(futures, loop=client.loop):
            save(futures[fut], fut.result())
    except BaseException:
        try:  # finished records stay saved; the rest are dropped now
            client.cancel(list(futures), force=True)
        except Exception:
            pass
        raise
    finally:
        client.close()


def _tasks(todo, order, group, batch):
    """The missing jobs as tasks (result paths, arguments of ``fn``), in ``order``: one job per task
    (``fn(*args)``) without ``group``; with it, the jobs whose ``group(*args)`` is equal, at most
    ``batch`` per task, as ``fn(list of their args)`` (a task starts where its first job stands)."""
    if group is None:
        return [((p,), todo[p]) for p in order]
    open_task, tasks = {}, []
    for p in order:
        key = group(*todo[p])
        if key not in open_task or len(open_task[key]) == batch:
            open_task[key] = []
            tasks.append(open_task[key])
        open_task[key].append(p)
    return [(tuple(ps), ([todo[p] for p in ps],)) for ps in tasks]


DAMAGED = object()


def read_record(path, check=None):
    """The record in ``path``, or :data:`DAMAGED` when it is not a JSON object in UTF-8 (junk bytes, a
    truncated file, ``[]``, a directory) or ``check(record)`` returns a reason: then a one-line warning
    names it, the damaged file is removed (a directory is kept, renamed to ``<path>.damaged``) and its job
    runs again. Any cache of JSON records can use it (the FLAME quirk runs do)."""
    path = os.fspath(path)
    try:
        if os.path.lexists(path) and not os.path.isdir(path) and not os.path.isfile(path):
            raise OSError("not a regular file (a FIFO, socket or device)")
        with open(path, "rb") as fh:
            rec = json.loads(fh.read().decode("utf-8"))
        why = None if isinstance(rec, dict) else f"JSON but not a record (a {type(rec).__name__})"
        why = why or (check(rec) if check is not None else None)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        why = (
            "a directory"
            if os.path.isdir(path)
            else str(exc)
            if str(exc).startswith("not a regular")
            else f"not a readable JSON record ({type(exc).__name__})"
        )
    if why is None:
        return rec
    aside = move_aside(path)
    if aside is None:
        os.unlink(path)
    print(
        f"gspa: warning: {path} is {why}; "
        + (f"moved aside to {aside}" if aside else "removed")
        + ", its run is done again",
        file=sys.stderr,
        flush=True,
    )
    return DAMAGED


def record_check(fields, accuracies: int | None = None, expect=None):
    """A ``check`` for :func:`run_cached` (``check(record, job args)``; :func:`read_record` takes it with the
    job bound): a record must hold every key of ``fields``; where ``accuracies`` is given, an ``accuracy``
    list of that many numbers in [0, 1] (``None``: any non-empty length); and where ``expect`` is given
    (a function of a job's arguments giving ``{key: value}``), those values (compared as JSON), so that a
    record of another run, or one computed by other code, is not taken for this job's."""
    fields = tuple(fields)

    def check(rec: dict, args=None) -> str | None:
        missing = [f for f in fields if f not in rec]
        if missing:
            return f"JSON but not a run record (no {', '.join(map(repr, missing))})"
        acc = rec.get("accuracy")
        if "accuracy" in fields or accuracies is not None:
            n = len(acc) if isinstance(acc, list) and accuracies is None else accuracies
            if not isinstance(acc, list) or not acc or len(acc) != n:
                return f"a record without the {n or 'expected'} accuracies of its run"
            if not all(
                isinstance(a, (int, float)) and not isinstance(a, bool) and 0 <= a <= 1 for a in acc
            ):
                return "a record whose accuracies are not all numbers in [0, 1]"
        if expect is not None and args is not None:
            for key, want in expect(*args).items():
                want = json.loads(json.dumps(want))
                if rec.get(key) != want:
                    return f"the record of another run (its {key} is not this run's)"
        return None

    return check


def run_cached(
    fn,
    jobs,
    paths,
    *,
    data=None,
    check=None,
    cost=None,
    workers: int = 1,
    desc: str = "runs",
    progress=True,
    scheduler: str | None = None,
    timeout: float = CONNECT_TIMEOUT,
    group=None,
    batch: int = 1,
):
    """Records ``fn(*args)`` for every ``args`` in ``jobs``, in the order of ``jobs``.

    ``paths[i]`` is the result file of ``jobs[i]``: a job whose file exists is loaded, not run (a file that is
    not a JSON object in UTF-8, a directory, or a record that ``check`` refuses (:func:`record_check`) is
    damaged: a one-line warning names it, it is removed — a directory renamed to ``<path>.damaged`` — and the
    job runs again); jobs with the same path run once, and
    every finished job's record is written there at once (atomically).
    ``cost(*args)``, if given, orders the jobs most expensive first. A tqdm bar shows progress unless
    ``progress`` is false. ``fn`` must be a module-level function that takes ``data`` as a keyword.

    Engine (see the module's doc): with a Dask scheduler address — ``scheduler``, or the environment
    variable :data:`SCHEDULER_ENV` when ``scheduler`` is empty — the missing jobs run on that cluster
    as ``fn(*args, data=data)`` (``workers`` is then unused: the cluster has its own; ``timeout``:
    seconds to reach the scheduler). Otherwise they run in ``workers`` local processes (spawned; ``fn``
    is called as ``fn(*args)`` and reads ``data`` through :func:`shared`) or, with ``workers=1``, here
    as ``fn(*args, data=data)``.

    Batches: with ``group`` (a function of a job's ``args`` giving a hashable key), missing jobs with the
    same key run together, at most ``batch`` of them per task, as one call ``fn(batch_args)`` (and
    ``data`` as above) with the list of their ``args``; it returns their records in that order. A task is
    one call in a worker process or one task of the Dask cluster, and its records are saved as it ends."""
    from gspa.util.progress import bar as tqdm

    V.integer("workers", workers, low=1)
    V.integer("batch", batch, low=1)
    if group is not None and not callable(group):
        raise ValueError(f"group must be a function of a job's arguments or None, got {group!r}")
    address = scheduler_address(scheduler)
    timeout = V.real(
        "timeout", timeout, low=0, high=float("inf"), low_open=True, high_open=True, scalar=True
    )
    jobs, paths = list(jobs), [os.fspath(p) for p in paths]
    if len(jobs) != len(paths):
        raise ValueError(
            f"jobs and paths must have the same length, got {len(jobs)} and {len(paths)}"
        )
    done, job_of = {}, dict(zip(paths, jobs))
    for p in paths:
        if p not in done and os.path.exists(p):
            job = job_of[p]
            rec = read_record(p, (lambda r, job=job: check(r, job)) if check else None)
            if rec is not DAMAGED:
                done[p] = rec
    todo = {p: args for p, args in zip(paths, jobs) if p not in done}
    order = sorted(todo, key=lambda p: -cost(*todo[p])) if cost else list(todo)
    bar = tqdm(
        total=len(order),
        desc=desc if address is None else f"{desc} on {address}",
        disable=not progress or not order,
    )

    def save(task_paths, result):
        records = [result] if group is None else result
        if not isinstance(records, list) or len(records) != len(task_paths):
            raise ValueError(
                f"a batch of {len(task_paths)} jobs must return a list of {len(task_paths)} records, "
                f"got {result!r:.80}"
            )
        for p, rec in zip(task_paths, records):
            why = check(rec, todo[p]) if check is not None else None
            if why is not None:
                raise RuntimeError(
                    f"a run returned {why}: gspa's code changed while the runs went on? Run again"
                )
            write_json_atomic(p, rec)
            done[p] = rec
            bar.update()

    tasks = _tasks(todo, order, group, batch)
    try:
        if not tasks:
            pass
        elif address is None:
            _run_local(fn, tasks, data, workers, save)
        else:
            _run_dask(fn, tasks, data, address, save, timeout)
    finally:
        bar.close()
    return [done[p] for p in paths]
