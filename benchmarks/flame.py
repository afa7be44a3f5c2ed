"""Speed of FLAME's protocols (gspa.studies.flame.protocols) at the paper's size: n = 1,000 users per
round, d = 7,850 (MNIST, multinomial logistic regression), the authors' settings (protocols.PAPER).

Prints, in one run, for every protocol: seconds per round (after one warm-up round), the share of the
round spent in local training, the users' randomizer, the shuffler, the analyzer and the test
evaluation, the peak resident memory of the process while that protocol ran (VmHWM, reset before each
protocol), and for the padded protocols the dummies per round and any values dropped. SS-Topk runs with
``overflow='drop'``: with n_p = 333 a dimension can receive more than n_p Top-k values (the first round
from the initial model does), which Algorithm 3 cannot pad; the number dropped is printed.

Then it rates the local training (all protocols share it) against a float32 matmul probe (benchmarks/
probe.py) per CPU second on one thread: one round's training of n = 1,000 users, 10 full-batch steps on
7 images each. It prints two rates. The *direct-equivalent* rate counts the operations of the step-by-step
algorithm (per user and step, logits (7 x 785)(785 x 10) and gradient (785 x 7)(7 x 10)), divided by
the time. The *actual* rate counts the operations the trainer really does: it works in the span of each
user's images (gspa.experiments.federated.local_updates), which needs about 7x fewer operations and is
bound by memory traffic (reading the images, writing the 1,000 x 7,850 updates), not by arithmetic.
For comparison it times the step-by-step algorithm (:func:`direct_local_updates`, two batched products
per step) in the same run and prints the largest difference between the two results.

Targets: an SS-Topk round <= 1 s on this machine; training >= 40 % of the probe
(direct-equivalent rate).

    .venv/bin/python benchmarks/flame.py [--rounds 4] [--threads 1] [--synthetic]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time

from probe import matmul_peak, verdict

import report

TITLE = "FLAME's protocols at the paper's size (`flame.py`)"

PROTOCOLS = ["NP-FL", "DP-FL", "LDP-FL", "SS-Simple", "SS-Double", "SS-Topk"]
PHASES = ["training", "randomizer", "shuffler", "analyzer", "evaluation"]


def reset_peak() -> None:
    """Reset this process's VmHWM to its current resident size (Linux: clear_refs 5)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def status_mib(field: str = "VmHWM") -> float:
    """This process's peak (VmHWM) or current (VmRSS) resident memory."""
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(field)) / 1024


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--rounds", type=int, default=4, help="timed rounds per protocol (after one warm-up round)"
    )
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    ap.add_argument(
        "--synthetic", action="store_true", help="use the synthetic stand-in (no MNIST)"
    )
    ap.add_argument("--training-only", action="store_true", help="only rate the local training")
    report.add_readme_option(ap, "flame")
    args = ap.parse_args(argv)
    with report.recorded("flame", TITLE, args.readme or None) as entry:
        return _measure(args, entry)


def _measure(args, entry):
    import torch
    from gspa.experiments import federated as F
    from gspa.experiments import mnist
    from gspa.studies.flame import protocols as P

    torch.set_num_threads(args.threads)
    print(
        f"device {F.device()}, {torch.get_num_threads()} intra-op thread(s), torch {torch.__version__}"
    )
    t = time.perf_counter()
    data = mnist.synthetic(60_000, 10_000) if args.synthetic else mnist.load()
    users = P.users(P.PAPER["NP-FL"], data)
    print(
        f"data: {users.n_users} users x {users.x.shape[1]} training images, {users.x_test.shape[0]} test images "
        f"({time.perf_counter() - t:.1f} s to load and partition); peak memory so far {status_mib():.0f} MiB, "
        f"resident now {status_mib('VmRSS'):.0f} MiB (the data and torch)"
    )
    if args.training_only:
        entry.summary = rate_training(users, P.PAPER["NP-FL"])
        return
    head = (
        f"{'protocol':<10} {'s/round':>8} "
        + " ".join(f"{p:>10}" for p in PHASES)
        + f" {'peak MiB':>9} {'dummies/round':>14} {'dropped':>8}"
    )
    print(head)
    results = {}
    for proto in PROTOCOLS:
        p = P.PAPER[proto]
        if proto == "SS-Topk":
            p = dataclasses.replace(p, overflow="drop")
        reset_peak()
        with tempfile.TemporaryDirectory() as tmp:
            warm = P.run_record(
                proto, p, 0, 1, False, data=users, cache_dir=tmp, data_id="benchmark"
            )
            rec = P.run_record(
                proto, p, 0, 1 + args.rounds, False, data=users, cache_dir=tmp, data_id="benchmark"
            )
        tim = {k: rec["timings"].get(k, 0.0) - warm["timings"].get(k, 0.0) for k in rec["timings"]}
        secs = rec["seconds"] - warm["seconds"]
        per = secs / args.rounds
        shares = " ".join(f"{tim.get(k, 0.0) / secs:>10.0%}" for k in PHASES)
        dummies = tim.get("dummies", 0) / args.rounds
        print(
            f"{proto:<10} {per:>8.3f} {shares} {status_mib():>9.0f} {dummies:>14,.0f} "
            f"{int(rec['timings'].get('dropped', 0)):>8}"
        )
        results[proto] = per
    ok = results["SS-Topk"] <= 1.0
    print(
        f"SS-Topk: {results['SS-Topk']:.3f} s per round (target <= 1 s: {verdict(ok)}); "
        f"'dropped' counts every round incl. the warm-up (round 0 from the initial model)"
    )
    entry.summary = (
        ", ".join(f"{k} {v:.3f}" for k, v in results.items())
        + " s per round; "
        + rate_training(users, P.PAPER["NP-FL"])
    )


def direct_local_updates(theta, x, y, lr: float, steps: int):
    """The step-by-step local training (no weight decay): every user's model (785 x 10) is updated by
    two batched products per step, logits (m x 785)(785 x 10) and gradient (785 x m)(m x 10)."""
    import torch
    from gspa.experiments import federated as F

    n, m, _ = x.shape
    xa = torch.cat([x, torch.ones(n, m, 1, dtype=x.dtype)], 2)
    xt = xa.transpose(1, 2).contiguous()
    models = theta.view(1, F.N_FEATURES + 1, F.N_CLASSES).repeat(n, 1, 1)
    onehot = torch.nn.functional.one_hot(y, F.N_CLASSES).to(x.dtype)
    for _ in range(steps):
        models.sub_(torch.bmm(xt, torch.softmax(torch.bmm(xa, models), 2) - onehot), alpha=lr / m)
    return models.view(n, F.DIM) - theta


def cpu_seconds(f, reps: int) -> float:
    """CPU seconds of one call of ``f`` (mean of ``reps`` after one warm-up call)."""
    f()
    c = time.process_time()
    for _ in range(reps):
        f()
    return (time.process_time() - c) / reps


def rate_training(users, p, reps: int = 10) -> str:
    """One round's local training of ``p.n`` users on one thread, per CPU second, against the probe."""
    import torch
    from gspa.experiments import federated as F

    threads = torch.get_num_threads()
    _, peak = matmul_peak(1)
    torch.set_num_threads(1)
    x, y = torch.as_tensor(users.x[: p.n]), torch.as_tensor(users.y[: p.n])
    theta = F.init_theta(0)
    if p.l2:
        raise ValueError(f"the direct reference has no weight decay, got l2 = {p.l2}")
    cpu = cpu_seconds(lambda: F.local_updates(theta, x, y, p.lr, p.local_steps), reps)
    cpu_direct = cpu_seconds(
        lambda: direct_local_updates(theta, x, y, p.lr, p.local_steps), max(1, reps // 4)
    )
    fast = F.local_updates(theta, x, y, p.lr, p.local_steps)
    diff = float((fast - direct_local_updates(theta, x, y, p.lr, p.local_steps)).abs().max())
    size = float(fast.abs().max())
    torch.set_num_threads(threads)
    n, m, f = x.shape
    k = F.N_CLASSES
    direct = p.local_steps * 2 * (2 * n * m * (f + 1) * k)  # logits and gradient per step
    actual = (
        2 * n * m * f * k
        + 2 * n * m * m * f
        + p.local_steps * 2 * n * m * m * k
        + 2 * n * m * f * k
    )
    eff, act = direct / cpu / 1e9, actual / cpu / 1e9
    print(
        f"local training, {n} users x {m} images x {p.local_steps} steps on one thread: {cpu * 1e3:.1f} CPU ms "
        f"per round; probe {peak:.1f} GFLOP/s per CPU second; direct-equivalent {eff:.1f} GFLOP/s = "
        f"{eff / peak:.0%} of the probe (target >= 40 %: {verdict(eff >= 0.4 * peak)}); actual {act:.1f} GFLOP/s "
        f"= {act / peak:.0%} ({direct / actual:.1f}x fewer operations than the direct algorithm)"
    )
    print(
        f"the direct algorithm in the same run: {cpu_direct * 1e3:.1f} CPU ms per round, {direct / cpu_direct / 1e9:.1f} "
        f"GFLOP/s = {direct / cpu_direct / 1e9 / peak:.0%} of the probe; {cpu_direct / cpu:.1f}x slower; largest "
        f"difference of the two results {diff:.1e}, largest update {size:.1e} (float32 round-off)"
    )
    return (
        f"local training {eff / peak:.0%} of the probe (direct-equivalent), {act / peak:.0%} actual"
    )


if __name__ == "__main__":
    main()
