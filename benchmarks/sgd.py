"""Speed of personalized private SGD (gspa.studies.gspa.private_sgd) against this machine's matrix-multiply peak.

Prints, in one run:

* a torch float32 matmul probe (2048 x 2048) on 1 thread and on ``--workers`` threads: the peak, per
  wall-clock second and (1 thread) per CPU second;
* one run (one scenario, one core, after a one-epoch warm-up run): seconds per epoch and GFLOP/s against
  the 1-thread peak, per wall-clock second and per CPU second. On a loaded machine only the CPU ratio is
  meaningful: the wall figures of probe and run are slowed by different amounts of waiting in the run
  queue (this is how earlier readings of 13 %, 24 % and 64-66 % arose on the same code);
* the CPU seconds of one epoch for other sizes of the row chunks the trainer works in (``row_chunk``);
* the batched trainer (``sgd.train_runs``) against the per-run trainer it replaced (``train`` at commit
  :data:`BASELINE`, read from git), on one core, per CPU second: the same four runs alone and in batches of
  2 and 4, interleaved and repeated (median), and whether they give the same accuracies bit for bit;
* on CUDA, when torch sees a GPU: the float32 matmul probe of the GPU (TF32 off), one batch of the four
  runs, and the paper profile's Figure 4 runs (every distinct run, batched by configuration, in
  ``--workers`` processes as the chapter's ``workers`` does) timed for real, against the target of 30 s;
* the paper's six runs of one seed (5 scenarios + non-private) through ``sgd.run_scenarios`` with
  ``--workers`` processes: the aggregate GFLOP/s while they train against the ``--workers``-thread
  peak, the wall-clock time including process start, and the peak memory;
* the projected time of the paper profile: every distinct run the Figure 4 chapter trains with its
  notebook's defaults (main runs, runs with noise for the stated budgets, other readings; see
  ``gspa.studies.gspa.private_sgd.experiment_sets``), each timed for one epoch of its own configuration on one core and
  scaled by the slow-down measured while ``--workers`` runs share the machine.

Targets: >= 40 % of the probe's peak per CPU second (an earlier target asked for 50 %; both are
printed); the paper profile within 15 minutes on 2 cores; memory under 2 GB; the batched trainer at
its CPU batch at least as fast per CPU second as the per-run trainer; on one modern GPU, the paper
profile's Figure 4 runs in under 30 s.

    .venv/bin/python benchmarks/sgd.py [--epochs 3] [--workers 2] [--synthetic]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time

from probe import matmul_peak, verdict

import report

TITLE = "Private SGD against the matmul probe (`sgd.py`)"

SCENARIOS = ["Unif 1", "Unif 2", "Constant", "Mixed Constant", "Unif 3", "Non-private"]
BASELINE = "7cad44a"  # the last commit whose private SGD trained one run per program


def baseline_trainer():
    """The per-run trainer of :data:`BASELINE` as a module read from git (None and the reason when git or
    that commit is not at hand)."""
    import importlib.util
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    show = subprocess.run(
        ["git", "show", f"{BASELINE}:gspa/studies/gspa/private_sgd.py"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if show.returncode:
        return None, f"git show {BASELINE} failed: {show.stderr.strip()[:200]}"
    path = Path(tempfile.mkdtemp()) / "per_run_sgd.py"
    path.write_text(show.stdout)
    spec = importlib.util.spec_from_file_location("per_run_sgd", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["per_run_sgd"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module, None


def four_runs():
    """(budgets, seed, noise key) of four scenarios of seed 0, as sgd.run_batch makes them."""
    import zlib

    from gspa.studies.gspa import private_sgd as sgd

    names = ["Unif 1", "Unif 2", "Constant", "Mixed Constant"]
    return [(sgd.scenario_budgets(n, 0, 100), 0, zlib.crc32(n.encode())) for n in names]


def batched_against_per_run(data, epochs: int, repeats: int = 3):
    """CPU seconds per run-epoch of four runs (one core) with the per-run trainer and with the batched
    one in batches of 1, 2 and 4, interleaved ``repeats`` times; the medians, and whether every batch size
    gave the per-run trainer's accuracies bit for bit."""
    import statistics

    import numpy as np
    import torch
    from gspa.studies.gspa import private_sgd as sgd

    old, why = baseline_trainer()
    runs = four_runs()
    cfg = sgd.Config(epochs=epochs)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    times, accs = {}, {}

    def timed(label, fn):
        c = time.process_time()
        out = fn()
        times.setdefault(label, []).append((time.process_time() - c) / (len(runs) * epochs))
        accs[label] = [np.asarray(a).tolist() for a in out]

    try:
        for _ in range(repeats):
            if old is not None:
                oc = old.Config(epochs=epochs)
                timed(
                    "per-run", lambda: [old.train(*data, b, oc, s, k, False)[0] for b, s, k in runs]
                )
            for size in (1, 2, 4):
                timed(
                    f"batch {size}",
                    lambda size=size: [
                        a
                        for i in range(0, len(runs), size)
                        for a in sgd.train_runs(*data, runs[i : i + size], cfg, progress=False)[0]
                    ],
                )
    finally:
        torch.set_num_threads(threads)
    med = {k: statistics.median(v) for k, v in times.items()}
    same = {k: accs[k] == accs["per-run"] for k in accs if k != "per-run"} if old else {}
    return med, same, why


def on_cuda(data, plan, workers):
    """The CUDA measurements: the probe, one batch of four runs (seconds per run-epoch) and the paper
    profile's runs, batched by configuration in ``workers`` processes, timed end to end (wall clock, a
    fresh cache)."""

    import torch
    from gspa.studies.gspa import private_sgd as sgd

    from probe import cuda_matmul_peak

    peak = cuda_matmul_peak()
    runs = four_runs()
    cfg = sgd.Config(epochs=3)
    sgd.train_runs(*data, runs, sgd.Config(epochs=1), device="cuda", progress=False)  # warm-up
    torch.cuda.synchronize()
    _, secs = sgd.train_runs(*data, runs, cfg, device="cuda", progress=False)
    per_run_epoch = secs / (len(runs) * cfg.epochs)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        sgd.run_jobs(data, plan, tmp, "benchmark", progress=False, device="cuda", workers=workers)
        paper = time.perf_counter() - t
    return peak, per_run_epoch, paper, torch.cuda.get_device_name()


def vm_hwm_mib() -> float:
    """This process's own peak resident memory (VmHWM; unlike getrusage's children figure it is not
    inherited from the parent across fork + exec)."""
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM")) / 1024


def worker_peak(data, cfg) -> float:
    """Peak memory of a process like run_scenarios' workers: receives the data, trains one run."""
    from gspa.studies.gspa import private_sgd as sgd

    sgd.run_one("Unif 2", 0, cfg, data)
    return vm_hwm_mib()


def paper_plan():
    """Distinct (scenario, seed, Config) runs of the Figure 4 chapter with its notebook's defaults
    (the paper profile sets nothing else)."""
    import ast
    from pathlib import Path

    import papermill
    from gspa.book.freshness import read_source, source_path
    from gspa.studies.gspa import private_sgd as sgd

    nb = read_source(source_path(Path(__file__).resolve().parents[1], "gspa/figure4"))
    p = {k: ast.literal_eval(v["default"]) for k, v in papermill.inspect_notebook(nb).items()}
    cfg = sgd.Config(
        clip=p["clip"],
        delta=p["local_delta"],
        lr=p["lr"],
        n_clients=p["n_clients"],
        epochs=p["epochs"],
        hidden=p["hidden"],
        pca=p["pca"],
        order=p["order"],
        grad_divisor=p["grad_divisor"],
        clip_mode=p["clip_mode"],
        sigma_rule=p["sigma_rule"],
    )
    sets = sgd.experiment_sets(
        cfg,
        p["scenarios"],
        p["seeds"],
        calibrated=p["calibrated"],
        readings=p["readings"],
        reading_seeds=p["reading_seeds"],
    )
    jobs = {}
    for c, names, seeds in sets.values():
        for seed in seeds:
            for name in names:
                rc = sgd.run_config(c, name)
                jobs[(name, seed, sgd.config_hash(rc, "plan"))] = (name, seed, rc)
    return list(jobs.values())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--synthetic", action="store_true", help="use the synthetic stand-in (no MNIST)"
    )
    report.add_readme_option(ap, "sgd")
    args = ap.parse_args(argv)
    with report.recorded("sgd", TITLE, args.readme or None) as entry:
        return _measure(args, entry)


def _measure(args, entry):
    from gspa.experiments import mnist
    from gspa.studies.gspa import private_sgd as sgd

    (peak1, peak1_cpu), (peakw, _) = matmul_peak(1), matmul_peak(args.workers)
    print(
        f"matmul probe, float32 2048x2048: {peak1:.1f} GFLOP/s on 1 thread per wall-clock second "
        f"({peak1_cpu:.1f} per CPU second), {peakw:.1f} on {args.workers} threads"
    )
    d = mnist.synthetic(60_000, 10_000) if args.synthetic else mnist.load()
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 60)
    data = (xtr, d.y_train, xte, d.y_test)
    cfg = sgd.Config(epochs=args.epochs)
    flops = sgd.flops_per_epoch(cfg, xtr.shape[0], xte.shape[0])

    sgd.run_one("Unif 2", 0, sgd.Config(epochs=1), data)  # warm-up: first-touch allocations
    c = time.process_time()
    rec = sgd.run_one("Unif 2", 0, cfg, data)
    cpu_epoch = (time.process_time() - c) / args.epochs
    per_epoch = rec["seconds"] / args.epochs
    rate, rate_cpu = flops / per_epoch / 1e9, flops / cpu_epoch / 1e9
    print(
        f"one run on one core: {per_epoch:.3f} s per epoch, {rate:.1f} GFLOP/s = {rate / peak1:.0%} of the "
        f"1-thread probe per wall-clock second; {cpu_epoch:.3f} CPU s per epoch, {rate_cpu:.1f} GFLOP/s = "
        f"{rate_cpu / peak1_cpu:.0%} per CPU second (target >= 40 %: {verdict(rate_cpu >= 0.4 * peak1_cpu)}; "
        f">= 50 %: {verdict(rate_cpu >= 0.5 * peak1_cpu)})"
    )
    import torch

    chunks, threads = [], torch.get_num_threads()
    torch.set_num_threads(1)
    for r in (100, 200, 300, 600):
        b = sgd.scenario_budgets("Unif 2", 0, cfg.n_clients)
        c = time.process_time()
        sgd.train(*data, b, sgd.Config(epochs=1), 0, noise_key=1, progress=False, row_chunk=r)
        chunks.append(f"{r}: {time.process_time() - c:.3f}")
    torch.set_num_threads(threads)
    print(
        f"CPU s of one epoch by row_chunk (images per block; the trainer uses 300): {', '.join(chunks)}"
    )

    med, same, why = batched_against_per_run(data, args.epochs)
    cpu_batch = f"batch {sgd.BATCH['cpu']}"
    if "per-run" in med:
        ratio = med["per-run"] / med[cpu_batch]
        print(
            f"batched trainer against the per-run trainer of {BASELINE} (4 runs, one core, CPU s per "
            f"run-epoch, median of 3): per-run {med['per-run']:.3f}; "
            + ", ".join(f"{k} {v:.3f}" for k, v in med.items() if k != "per-run")
            + f"; the default CPU {cpu_batch} is {ratio:.3f} times as fast per CPU second (target >= 1: "
            f"{verdict(ratio >= 1)}); the same accuracies bit for bit: "
            + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in same.items())
        )
    else:
        print(
            f"batched trainer: the per-run trainer could not be read ({why}); "
            + ", ".join(f"{k} {v:.3f} CPU s per run-epoch" for k, v in med.items())
        )
    plan = paper_plan()
    import torch

    if torch.cuda.is_available():
        peak_gpu, gpu_run_epoch, gpu_paper, name = on_cuda(data, plan, args.workers)
        print(
            f"CUDA ({name}): matmul probe, float32 8192x8192, TF32 off: {peak_gpu:.0f} GFLOP/s; a batch of 4 "
            f"runs: {gpu_run_epoch:.4f} s per run-epoch, {flops / gpu_run_epoch / 1e9:.0f} GFLOP/s = "
            f"{flops / gpu_run_epoch / 1e9 / peak_gpu:.0%} of the probe; the paper profile's {len(plan)} "
            f"runs batched by configuration, {args.workers} processes: {gpu_paper:.1f} s (target < 30 s: "
            f"{verdict(gpu_paper < 30)})"
        )
    else:
        print("CUDA: torch sees no GPU on this machine, so the CUDA rows were not measured")
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        recs = sgd.run_scenarios(
            data, SCENARIOS, [0], cfg, tmp, "benchmark", progress=False, workers=args.workers
        )
        wall = time.perf_counter() - t
    run_epoch = sum(r["seconds"] for r in recs) / (
        len(recs) * args.epochs
    )  # while the others train too
    agg = args.workers * flops / run_epoch / 1e9
    print(
        f"{len(recs)} runs x {args.epochs} epochs in {args.workers} processes: {run_epoch:.3f} s per run-epoch "
        f"in each process, aggregate {agg:.1f} GFLOP/s = {agg / peakw:.0%} of the {args.workers}-thread "
        f"probe (target >= 40 %: {verdict(agg >= 0.4 * peakw)}; >= 50 %: {verdict(agg >= 0.5 * peakw)}); wall clock {wall:.1f} s including process start"
    )
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        child = pool.submit(worker_peak, data, sgd.Config(epochs=1)).result()
    parent = vm_hwm_mib()
    total = parent + args.workers * child
    print(
        f"peak resident memory: {parent:.0f} MiB main process (MNIST and PCA), {child:.0f} MiB per worker; "
        f"at most {total:.0f} MiB together (target < 2048: {verdict(total < 2048)})"
    )
    overhead = max(
        0.0, wall - len(recs) * args.epochs * run_epoch / args.workers
    )  # process start, data
    slowdown = run_epoch / per_epoch  # a run's epoch while the others train, vs alone
    alone = {}  # seconds per epoch of each distinct configuration, alone
    for _, _, c in plan:
        key = dataclasses.replace(c, epochs=1, sigma_rule="paper", order="fixed")
        if key not in alone:
            alone[key] = sgd.run_one("Unif 2", 0, key, data)["seconds"]
    cpu = sum(
        c.epochs * alone[dataclasses.replace(c, epochs=1, sigma_rule="paper", order="fixed")]
        for _, _, c in plan
    )
    paper = overhead + cpu * slowdown / args.workers
    print(
        f"projected paper profile ({len(plan)} distinct runs: main, noise for the stated budgets, other readings; "
        f"{args.workers} processes): {paper / 60:.1f} min (target <= 15 min: {verdict(paper <= 900)})"
    )
    entry.summary = (
        f"one run {rate_cpu / peak1_cpu:.0%} of the probe per CPU second; {len(recs)} runs in {args.workers} "
        f"processes {agg / peakw:.0%}; peak {total:.0f} MiB; projected paper profile {paper / 60:.1f} min"
        + (f"; batched/per-run {ratio:.3f} per CPU second" if "per-run" in med else "")
        + (f"; CUDA paper profile {gpu_paper:.1f} s" if torch.cuda.is_available() else "; no CUDA")
    )


if __name__ == "__main__":
    main()
