"""gspa.experiments.pool: the same sweep on a local Dask cluster as in local processes, bit for bit;
an interrupted Dask sweep resumes from its cached results; the scheduler's address comes from the
argument or GSPA_DASK_SCHEDULER. (The local engine's kill tests are in tests/studies/gspa/test_private_sgd.py.)"""

import json
import time

import numpy as np
import pytest

from gspa.experiments import federated as F
from gspa.experiments import mnist
from gspa.experiments import pool
from gspa.studies.flame import protocols as P
from gspa.studies.gspa import private_sgd as sgd

#: Deadlines bound how long a broken build would hang a test, not how fast a healthy one must be: on a
#: loaded 2-core machine, starting two worker processes that import torch can take tens of seconds.
_START_DEADLINE = 600.0
_DRAIN_DEADLINE = 120.0

_NAMES = ["Constant", "Unif 1", "Non-private"]
_SEEDS = [0, 1]


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster of two single-threaded worker processes (its scheduler runs in this process)."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    timeouts = {
        "distributed.comm.timeouts.connect": "300s",
        "distributed.comm.timeouts.tcp": "300s",
    }
    with dask.config.set(timeouts):
        with distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=40,
        ) as c:
            with distributed.Client(c, timeout=_START_DEADLINE, set_as_default=False) as client:
                client.wait_for_workers(2, timeout=_START_DEADLINE)
            yield c


def _sgd_data():
    d = mnist.synthetic(1000, 200, seed=2)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 10)
    return (xtr, d.y_train, xte, d.y_test), sgd.Config(epochs=1, hidden=16, pca=10)


def _timeless(records):
    """Records without their wall-clock fields (everything else must be equal bit for bit)."""
    return [{k: v for k, v in r.items() if k not in ("seconds", "timings")} for r in records]


def _files(root):
    return {p.relative_to(root): json.loads(p.read_text()) for p in sorted(root.rglob("*.json"))}


@pytest.fixture
def engines(monkeypatch):
    """Counts the sweeps that went to each engine (and how many jobs each ran; ``tasks`` counts the tasks
    of each sweep, several jobs to a task when they run in batches)."""
    seen = {"local": [], "dask": [], "tasks": []}
    run_local, run_dask = pool._run_local, pool._run_dask

    def local(fn, tasks, *a, **k):
        seen["local"].append(sum(len(paths) for paths, _ in tasks))
        seen["tasks"].append(len(tasks))
        return run_local(fn, tasks, *a, **k)

    def dask(fn, tasks, *a, **k):
        seen["dask"].append(sum(len(paths) for paths, _ in tasks))
        seen["tasks"].append(len(tasks))
        return run_dask(fn, tasks, *a, **k)

    monkeypatch.setattr(pool, "_run_local", local)
    monkeypatch.setattr(pool, "_run_dask", dask)
    monkeypatch.delenv(pool.SCHEDULER_ENV, raising=False)
    return seen


def test_scheduler_address_argument_then_environment(monkeypatch):
    monkeypatch.delenv(pool.SCHEDULER_ENV, raising=False)
    assert pool.scheduler_address() is None and pool.scheduler_address("  ") is None
    assert pool.scheduler_address(" tcp://127.0.0.1:8786 ") == "tcp://127.0.0.1:8786"
    monkeypatch.setenv(pool.SCHEDULER_ENV, "tcp://127.0.0.1:9999")
    assert pool.scheduler_address("") == "tcp://127.0.0.1:9999"
    assert (
        pool.scheduler_address("tcp://127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    )  # the argument wins
    with pytest.raises(ValueError, match="scheduler"):
        pool.scheduler_address(8786)
    with pytest.raises(ValueError, match="timeout"):
        pool.run_cached(sgd.run_one, [], [], scheduler="tcp://127.0.0.1:8786", timeout=0)


def test_unreachable_scheduler_fails_and_saves_nothing(tmp_path, engines):
    pytest.importorskip("distributed")
    data, cfg = _sgd_data()
    start = time.monotonic()
    with pytest.raises((OSError, TimeoutError)):
        pool.run_cached(
            sgd.run_one,
            [("Constant", 0, cfg)],
            [tmp_path / "r.json"],
            data=data,
            progress=False,
            scheduler="tcp://127.0.0.1:1",
            timeout=2,
        )
    assert time.monotonic() - start < 2 + 60
    assert engines["dask"] == [1] and not list(tmp_path.rglob("*.json"))


def _sgd_sweeps(root, cluster, **kw):
    """The private SGD's sweep of _NAMES and _SEEDS here and on the cluster (caches under ``root``)."""
    data, cfg = _sgd_data()
    kw = dict(progress=False, **kw)
    local = sgd.run_scenarios(data, _NAMES, _SEEDS, cfg, root / "local", "synthetic", **kw)
    address = cluster.scheduler_address
    dask = sgd.run_scenarios(
        data, _NAMES, _SEEDS, cfg, root / "dask", "synthetic", scheduler=address, **kw
    )
    return data, cfg, local, dask


def test_private_sgd_sweep_on_dask_equals_local_bit_for_bit(tmp_path, cluster, engines):
    data, cfg, local, on_dask = _sgd_sweeps(tmp_path, cluster)
    assert engines == {"local": [6], "dask": [6], "tasks": [6, 6]}
    assert _timeless(on_dask) == _timeless(local)
    assert {k: _timeless([v]) for k, v in _files(tmp_path / "dask").items()} == {
        k: _timeless([v]) for k, v in _files(tmp_path / "local").items()
    }  # the same result files
    # the environment variable alone sends a sweep to the cluster; the cached runs are not run again
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(pool.SCHEDULER_ENV, cluster.scheduler_address)
        again = sgd.run_scenarios(
            data, _NAMES, _SEEDS + [2], cfg, tmp_path / "dask", "synthetic", progress=False
        )
    assert engines["dask"] == [6, 3] and again[:6] == on_dask
    assert _timeless(again[6:]) == _timeless(
        sgd.run_scenarios(data, _NAMES, [2], cfg, tmp_path / "local", "synthetic", progress=False)
    )


def test_a_dask_worker_trains_a_batch_of_runs(tmp_path, cluster, engines):
    """The six runs share one configuration (a non-private run's, sgd.run_config, is the same here): in
    batches of 3 they are two tasks on the cluster, with the same records as the same batches trained
    here."""
    _, _, local, on_dask = _sgd_sweeps(tmp_path, cluster, batch=3)
    assert engines == {"local": [6], "dask": [6], "tasks": [2, 2]}
    assert _timeless(on_dask) == _timeless(local)


def test_flame_sweep_on_dask_equals_local_bit_for_bit(tmp_path, cluster, engines):
    d = mnist.synthetic(1400, 10, seed=0)
    x = F.standardize(np.concatenate([d.x_train, d.x_test]))
    u = F.partition(x, np.concatenate([d.y_train, d.y_test]), 100, seed=0)
    p = P.Params(n=50, n_users=100)
    q = P.Params(n=50, n_users=100, eps=1.0, beta=0.1, n_p=50)
    jobs = [("SS-Topk", q, 1), ("NP-FL", p, 0), ("SS-Topk", q, 2)]
    kw = dict(data=u, data_id="synthetic-test", progress=False)
    local = P.run_many(jobs, 3, cache_dir=tmp_path / "local", workers=2, **kw)
    on_dask = P.run_many(
        jobs, 3, cache_dir=tmp_path / "dask", scheduler=cluster.scheduler_address, **kw
    )
    assert engines == {"local": [3], "dask": [3], "tasks": [3, 3]}
    assert _timeless(on_dask) == _timeless(local) and local[0]["accuracy"] != local[2]["accuracy"]


def test_interrupted_dask_sweep_resumes_from_cached_results(
    tmp_path, cluster, engines, monkeypatch
):
    """A sweep interrupted (KeyboardInterrupt, as a notebook's interrupt) after its first saved run keeps
    that run's result file, cancels its other tasks on the cluster, and the next call runs only the
    missing jobs; the records equal an uninterrupted local sweep's."""
    data, cfg = _sgd_data()
    write = pool.write_json_atomic
    saved = []

    def write_then_interrupt(path, rec):
        write(path, rec)
        saved.append(path)
        raise KeyboardInterrupt

    monkeypatch.setattr(pool, "write_json_atomic", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        sgd.run_scenarios(
            data,
            _NAMES,
            _SEEDS,
            cfg,
            tmp_path / "dask",
            "synthetic",
            progress=False,
            scheduler=cluster.scheduler_address,
        )
    monkeypatch.setattr(pool, "write_json_atomic", write)
    assert len(saved) == 1 and [str(p) for p in (tmp_path / "dask").rglob("*.json")] == saved

    # the interrupted sweep's tasks leave the scheduler (cancelled; a run already started may finish first)
    _wait_until_drained(cluster)

    resumed = sgd.run_scenarios(
        data,
        _NAMES,
        _SEEDS,
        cfg,
        tmp_path / "dask",
        "synthetic",
        progress=False,
        scheduler=cluster.scheduler_address,
    )
    assert engines["dask"] == [6, 5]  # only the 5 missing runs went to the cluster
    local = sgd.run_scenarios(
        data, _NAMES, _SEEDS, cfg, tmp_path / "local", "synthetic", progress=False
    )
    assert _timeless(resumed) == _timeless(local)


def _wait_until_drained(cluster):
    """Wait (up to _DRAIN_DEADLINE) until no task of a sweep (``run_one``) is left on the scheduler."""
    import distributed

    end = time.monotonic() + _DRAIN_DEADLINE
    with distributed.Client(
        cluster.scheduler_address, timeout=_START_DEADLINE, set_as_default=False
    ) as client:

        def ours():
            return [
                k
                for k in client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler.tasks))
                if "run_one" in str(k)
            ]

        while ours():
            assert time.monotonic() < end, (
                f"tasks of an interrupted sweep left on the scheduler: {ours()}"
            )
            time.sleep(0.2)


_KILL_SCRIPT = """
import sys
from gspa.experiments import mnist
from gspa.studies.gspa import private_sgd as sgd
d = mnist.synthetic(1000, 200, seed=2)
xtr, xte = sgd.pca_features(d.x_train, d.x_test, 10)
sgd.run_scenarios((xtr, d.y_train, xte, d.y_test), %r, %r, sgd.Config(epochs=%d, hidden=16, pca=10), sys.argv[1],
                  "synthetic", progress=False, scheduler=sys.argv[2])
"""


def test_killed_dask_sweep_resumes_from_cached_results(tmp_path, cluster, engines):
    """The process running a Dask sweep is killed (SIGKILL) once a run is saved: the scheduler drops its
    tasks (runs a worker had started finish there first), and the next call runs only the missing
    jobs, with the records of an uninterrupted local sweep."""
    import os
    import signal
    import subprocess
    import sys

    epochs = 20
    cfg = sgd.Config(epochs=epochs, hidden=16, pca=10)
    script = _KILL_SCRIPT % (_NAMES, _SEEDS, epochs)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "dask"), cluster.scheduler_address],
        start_new_session=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        end = time.monotonic() + _START_DEADLINE
        while not list((tmp_path / "dask").rglob("*.json")):
            assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
            assert time.monotonic() < end, "no run saved in time"
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(_DRAIN_DEADLINE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    saved = len(list((tmp_path / "dask").rglob("*.json")))
    assert 1 <= saved <= 6
    _wait_until_drained(cluster)
    data, _ = _sgd_data()
    resumed = sgd.run_scenarios(
        data,
        _NAMES,
        _SEEDS,
        cfg,
        tmp_path / "dask",
        "synthetic",
        progress=False,
        scheduler=cluster.scheduler_address,
    )
    assert engines["dask"] == ([6 - saved] if saved < 6 else [])
    local = sgd.run_scenarios(
        data, _NAMES, _SEEDS, cfg, tmp_path / "local", "synthetic", progress=False
    )
    assert _timeless(resumed) == _timeless(local)


def test_failing_job_on_dask_raises_its_error(tmp_path, cluster, engines):
    data, cfg = _sgd_data()
    with pytest.raises(ValueError, match="Unif 9"):
        sgd.run_scenarios(
            data,
            ["Constant", "Unif 9"],
            [0],
            cfg,
            tmp_path,
            "synthetic",
            progress=False,
            scheduler=cluster.scheduler_address,
        )
