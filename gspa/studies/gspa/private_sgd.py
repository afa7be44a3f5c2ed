"""Personalized private SGD with shuffling on MNIST (Algorithm 3, Table 3, Figure 4, Theorem 5).

Model: PCA to 60 components, one ReLU hidden layer (1,000 units: the paper does not say; Abadi et al.
2016, whose set-up this follows, used 1,000), softmax over 10 classes, cross-entropy.

Training (Algorithm 3 with Table 3's values): the n = 60,000 images are split into m = 100 clients
of 600 (line 1); one random permutation pi of the clients is drawn (line 3) and every epoch makes one
noisy step per client in the order pi: g = the client's gradient, g~ = g / max(1, ||g|| / C),
theta <- theta - eta (g~ + b), b ~ N(0, sigma_i^2 I) with sigma_i = (2C/m) sqrt(2 log(1.25/delta)) / eps_i
(line 7).

The text is ambiguous or silent in four places; the literal reading is the default and the
alternatives are options of :class:`Config` (:data:`READINGS` names one-item changes):

* ``order``: line 3 draws pi once, *before* the epoch loop of line 4 (``"fixed"``, default, the same
  in both copies of the paper), so every epoch visits the clients in the same order; ``"reshuffle"``
  draws a fresh permutation every epoch (what "at each step ... we choose one client at random without
  replacement" of *Dataset and implementation* also allows, and what per-epoch composition in Theorem
  5's proof needs).
* ``grad_divisor``: line 13 divides the sum of the client's per-example gradients by m while line 1
  says the subsets have size m. ``"subset"`` (default) takes the mean over the client's images;
  ``"m"`` divides by m = number of clients (6x the mean with 600 images per client).
* ``clip_mode``: line 14 clips the *averaged* gradient (``"average"``, default); ``"per_example"``
  clips every example's gradient first (Abadi et al.), done here with exact per-example norms.
* ``hidden``: the width of the hidden layer, which the paper does not state.

and ``sigma_rule`` chooses the noise: ``"paper"`` (line 7) or ``"client"``:
sigma_i = 2C sqrt(2 log(1.25/delta)) / eps_i, the classic Gaussian calibration for the released step's
sensitivity 2C (replace-one-client neighbours with the averaged gradient clipped to C), i.e. the
noise the clients' stated budgets require (:func:`client_epsilon` audits either rule exactly).

Every (scenario, seed) run is independent: the seed fixes the initialisation, the split into clients
and the client order (the same for every scenario of a seed: common random numbers; :func:`schedule`),
and the noise has its own generator keyed by seed and scenario. A run uses one core with the backward
pass written out on preallocated buffers; :func:`run_scenarios` trains runs in parallel processes,
which exit when their parent dies (however it dies) and are terminated when it is interrupted, or on
a Dask cluster given by its scheduler's address (:mod:`gspa.experiments.pool`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import zlib
from dataclasses import asdict, dataclass, replace

import numpy as np

from gspa.util import validate as V
from gspa.experiments import pool


ORDERS = ("fixed", "reshuffle")


@dataclass(frozen=True)
class Config:
    clip: float = 2.0  # C (Table 3)
    delta: float = 1e-5  # local delta (Table 3)
    lr: float = 0.05  # eta (Table 3)
    n_clients: int = 100  # m (Table 3)
    epochs: int = 50  # T (Table 3)
    hidden: int = 1000
    pca: int = 60
    order: str = "fixed"  # line 3: one permutation, drawn before the epochs
    grad_divisor: str = "subset"
    clip_mode: str = "average"
    sigma_rule: str = "paper"

    def __post_init__(self):
        V.positive("clip", self.clip)
        V.probability("delta", self.delta, open_low=True, open_high=True)
        V.positive("lr", self.lr)
        V.integer("n_clients", self.n_clients, low=1)
        V.integer("epochs", self.epochs, low=1)
        V.integer("hidden", self.hidden, low=1)
        V.integer("pca", self.pca, low=1, high=784)
        for name, allowed in (
            ("order", ORDERS),
            ("grad_divisor", ("subset", "m")),
            ("clip_mode", ("average", "per_example")),
            ("sigma_rule", ("paper", "client")),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")

    def sigma(self, eps):
        """Noise standard deviation for budgets ``eps`` (inf budget = non-private: no noise)."""
        eps = np.asarray(eps, dtype=float)
        if np.any(eps <= 0) or np.any(np.isnan(eps)):
            raise ValueError(f"client budgets must be > 0, got min {np.nanmin(eps)!r}")
        scale = 2.0 * self.clip * math.sqrt(2.0 * math.log(1.25 / self.delta))
        if self.sigma_rule == "paper":
            scale /= self.n_clients
        return np.where(np.isinf(eps), 0.0, scale / eps)


#: Alternative readings of Algorithm 3, each one item changed from a configuration: key -> (label, change).
READINGS = {
    "fixed": ("one π for all epochs", {"order": "fixed"}),
    "reshuffle": ("π redrawn every epoch", {"order": "reshuffle"}),
    "hidden100": ("100 hidden units", {"hidden": 100}),
    "hidden1000": ("1,000 hidden units", {"hidden": 1000}),
    "divisor_m": ("line 13 divides by m", {"grad_divisor": "m"}),
    "per_example": ("per-example clipping", {"clip_mode": "per_example"}),
}


def reading(cfg: Config, key: str) -> Config:
    """``cfg`` with the one change that :data:`READINGS` names ``key`` (e.g. ``"reshuffle"``)."""
    if key not in READINGS:
        raise ValueError(f"reading must be one of {list(READINGS)}, got {key!r}")
    return replace(cfg, **READINGS[key][1])


def schedule(cfg: Config, n: int, seed: int):
    """Lines 1 and 3 of Algorithm 3: the split of ``n`` examples into ``cfg.n_clients`` clients and
    the order in which each epoch visits them. Returns ``(clients, orders)``: ``clients[c]`` are the
    indices of client c's examples (shape (m, n/m)), ``orders[t]`` the client order of epoch t
    (shape (T, m)). With ``order='fixed'`` (line 3 before the epoch loop of line 4) one permutation
    is drawn after the split and every row of ``orders`` is that permutation; with ``'reshuffle'``
    each epoch draws its own. Both come from one generator seeded by ``seed``, in that sequence, so
    the schedule is the same for every scenario of a seed."""
    n = V.integer("n", n, low=1)
    if n % cfg.n_clients:
        raise ValueError(f"n = {n} training images do not split into {cfg.n_clients} equal clients")
    rng = np.random.default_rng(seed)
    clients = rng.permutation(n).reshape(cfg.n_clients, n // cfg.n_clients)
    if cfg.order == "fixed":
        orders = np.tile(rng.permutation(cfg.n_clients), (cfg.epochs, 1))
    else:
        orders = np.stack([rng.permutation(cfg.n_clients) for _ in range(cfg.epochs)])
    return clients, orders


def linked_positions(orders) -> int:
    """How many positions i of the epoch have the same client in every epoch (rows of
    :func:`schedule`'s ``orders``): the server, which sees the updates in order, can link those
    positions' T updates to one (hidden) client. m for ``order='fixed'``; about 0 for
    ``'reshuffle'`` with several epochs."""
    orders = np.asarray(orders)
    if orders.ndim != 2 or orders.shape[0] < 1:
        raise ValueError(f"orders must have shape (epochs, n_clients), got {orders.shape}")
    return int((orders == orders[0]).all(axis=0).sum())


def epochs_share_order(orders) -> bool:
    """True when every epoch visits the clients in the same order (rows of :func:`schedule`'s
    ``orders`` all equal): then the i-th update of every epoch comes from the same client, so the
    server can link each (hidden) client's T updates across epochs, and the T per-epoch shuffles share
    their randomness — they are not independent mechanisms (Theorem 5's proof composes them as if
    they were)."""
    orders = np.asarray(orders)
    return linked_positions(orders) == orders.shape[1]


def pca_features(x_train, x_test, k: int):
    """Project centred images on the top-k principal components of the training images."""
    mean = x_train.mean(axis=0)
    xc = x_train - mean
    cov = (xc.T @ xc) / xc.shape[0]
    vals, vecs = np.linalg.eigh(cov.astype(np.float64))
    top = vecs[:, np.argsort(vals)[::-1][:k]].astype(np.float32)
    return (xc @ top).astype(np.float32), ((x_test - mean) @ top).astype(np.float32)


def flops_per_epoch(cfg: Config, n_train: int, n_test: int) -> float:
    """Floating-point operations of one epoch of one run (training steps + test evaluation)."""
    d, h = cfg.pca, cfg.hidden
    train = 2 * n_train * (d * h + h * 10) + 2 * n_train * (h * 10 + 10 * h + d * h)
    test = 2 * n_test * (d * h + h * 10)
    return float(train + test)


def _with_ones(x):
    """Images (n, d) as a float32 tensor (n, d + 1) whose last column is 1 (the bias input)."""
    import torch

    x = torch.as_tensor(x, dtype=torch.float32)
    return torch.cat([x, torch.ones(x.shape[0], 1)], 1)


def _generator(*key: int):
    """A torch generator seeded from integers through numpy's SeedSequence."""
    import torch

    hi, lo = np.random.SeedSequence([int(k) for k in key]).generate_state(2, np.uint32)
    return torch.Generator().manual_seed((int(hi) << 32) | int(lo))


def train(
    x_train,
    y_train,
    x_test,
    y_test,
    budgets,
    cfg: Config,
    seed: int,
    noise_key: int = 0,
    progress: bool = True,
    eval_chunk: int = 2000,
    row_chunk: int = 300,
    weights: dict | None = None,
):
    """Train one model (see :func:`_train`) with subnormal floats flushed to zero, then switch the
    flushing off again (torch's default). The softmax probabilities of confidently classified images
    underflow into subnormal floats once the noisy weights grow, and every matrix product with them
    then runs about 3x slower on x86; flushing them changes no printed digit of the accuracy."""
    import torch

    flushing = torch.set_flush_denormal(True)
    try:
        return _train(
            x_train,
            y_train,
            x_test,
            y_test,
            budgets,
            cfg,
            seed,
            noise_key=noise_key,
            progress=progress,
            eval_chunk=eval_chunk,
            row_chunk=row_chunk,
            weights=weights,
        )
    finally:
        if flushing:
            torch.set_flush_denormal(False)


def _train(
    x_train,
    y_train,
    x_test,
    y_test,
    budgets,
    cfg: Config,
    seed: int,
    noise_key: int = 0,
    progress: bool = True,
    eval_chunk: int = 2000,
    row_chunk: int = 300,
    weights: dict | None = None,
):
    """Train one model with client budgets ``budgets`` (shape (n_clients,); all np.inf = non-private:
    no clipping, no noise) for cfg.epochs epochs. Returns the test accuracy per epoch and the seconds.

    ``seed`` fixes the initialisation, the split into clients and the client order of every epoch
    (:func:`schedule`; the same for every scenario: common random numbers); the noise comes from its own generator keyed by
    (seed, ``noise_key``), so a run does not depend on which other runs exist. The backward pass is
    written out and works on preallocated buffers of at most ``row_chunk`` images, so the
    intermediates stay in cache (300 images x 1,000 hidden units: two 1.2 MB buffers in a 2 MB L2;
    benchmarks/sgd.py times other sizes); each client's images are gathered into one
    contiguous block once per run, and the first layer's bias rides in its weight matrix; the logits are computed transposed (10 x rows), which is the fast
    layout for the 10-wide output layer. If ``weights`` is a dict, the final W1 (d, h), c1, W2 (h, 10)
    and c2 are stored in it."""
    import torch
    from tqdm.auto import tqdm

    budgets = np.asarray(budgets, dtype=float)
    if budgets.ndim != 1 or budgets.shape[0] != cfg.n_clients:
        raise ValueError(
            f"budgets must have shape (n_clients,) = ({cfg.n_clients},), got {budgets.shape}"
        )
    V.integer("row_chunk", row_chunk, low=1)
    V.integer("eval_chunk", eval_chunk, low=1)
    n = x_train.shape[0]
    split, orders = schedule(cfg, n, seed)
    sig = cfg.sigma(budgets)
    private = not np.isinf(budgets).all()
    gen, noise = _generator(seed), _generator(seed, noise_key)
    X, Xt, Yt = _with_ones(x_train), _with_ones(x_test), torch.as_tensor(y_test)
    d, h = X.shape[1] - 1, cfg.hidden
    # torch.nn.Linear's default initialisation; the first layer's bias c1 is stored as the last row of
    # W1 (d + 1, h) and the images carry a constant 1 as their last feature, so one matrix product
    # gives the hidden layer with its bias and one gives the gradient of W1 with that of c1.
    b1lim, b2lim = 1 / math.sqrt(d), 1 / math.sqrt(h)
    W1 = torch.empty(d + 1, h)
    W1[:d] = (torch.rand(d, h, generator=gen) * 2 - 1) * b1lim
    W1[d] = (torch.rand(h, generator=gen) * 2 - 1) * b1lim
    W2t = (
        (torch.rand(h, 10, generator=gen) * 2 - 1) * b2lim
    ).T.contiguous()  # stored transposed (10, h)
    c2 = (torch.rand(10, generator=gen) * 2 - 1) * b2lim
    params = (W1, W2t, c2)
    size = n // cfg.n_clients
    split = torch.as_tensor(split)
    Xc = X[split]  # (m, n/m, d + 1): each client's images contiguous
    Yc = (
        torch.nn.functional.one_hot(torch.as_tensor(y_train, dtype=torch.long)[split], 10)
        .transpose(1, 2)
        .float()
    )
    Yc = Yc.contiguous()  # (m, 10, n/m): one-hot labels, transposed
    divisor = size if cfg.grad_divisor == "subset" else cfg.n_clients
    R = min(row_chunk, size)
    hid, dh, lt = torch.empty(R, h), torch.empty(R, h), torch.empty(10, R)  # buffers
    grads = tuple(torch.empty_like(p) for p in params)
    gW1, gW2t, gc2 = grads
    # the noise is drawn per parameter in the order W1, c1, W2, c2 (as with separate tensors)
    noise_buf = (torch.empty(d, h), torch.empty(h), torch.empty(10, h), torch.empty(10))
    noise_dst = (W1[:d], W1[d], W2t, c2)
    acc = np.zeros(cfg.epochs)
    t0 = time.perf_counter()
    for epoch in tqdm(
        range(cfg.epochs), desc=f"private SGD (seed {seed})", disable=not progress, leave=False
    ):
        for c in orders[epoch]:
            for t in grads:
                t.zero_()
            for k in range(0, size, R):
                x, y = Xc[c, k : k + R], Yc[c, :, k : k + R]
                r = x.shape[0]
                a, g, z = hid[:r], dh[:r], lt[:, :r]
                torch.mm(x, W1, out=a).relu_()  # hidden (r, h)
                torch.addmm(c2[:, None], W2t, a.T, out=z)  # logits^T (10, r)
                p = torch.softmax(z, 0)
                p.sub_(y)  # d loss / d logits^T
                torch.mm(p.T, W2t, out=g)
                torch.ops.aten.threshold_backward.grad_input(g, a, 0.0, grad_input=g)  # ReLU'
                if cfg.clip_mode == "per_example" and private:
                    # ||x||^2 counts the constant 1, so this is (||x||^2 + 1) ||g||^2 + (||a||^2 + 1) ||p||^2
                    sq = (x * x).sum(1) * (g * g).sum(1) + ((a * a).sum(1) + 1.0) * (p * p).sum(0)
                    w = torch.clamp(cfg.clip / torch.sqrt(sq + 1e-30), max=1.0)  # ||g_j||^2 exactly
                    p.mul_(w)
                    g.mul_(w[:, None])
                gW1.addmm_(x.T, g)  # W1 and c1
                gW2t.addmm_(p, a)
                gc2.add_(p.sum(1))
            scale = cfg.lr / divisor
            if private and cfg.clip_mode == "average":
                norm = (
                    math.sqrt(sum(float(torch.dot(t.view(-1), t.view(-1))) for t in grads))
                    / divisor
                )
                scale *= min(1.0, cfg.clip / (norm + 1e-30))
            for prm, grd in zip(params, grads):
                prm.add_(grd, alpha=-scale)
            if sig[c] > 0:
                for dst, b in zip(noise_dst, noise_buf):
                    dst.add_(
                        torch.randn(b.shape, generator=noise, out=b), alpha=-cfg.lr * float(sig[c])
                    )
        correct = 0
        for k in range(0, Xt.shape[0], eval_chunk):  # chunked: memory stays small
            ht = torch.mm(Xt[k : k + eval_chunk], W1).relu_()
            pred = torch.addmm(c2[:, None], W2t, ht.T).argmax(0)
            correct += int((pred == Yt[k : k + eval_chunk]).sum())
        acc[epoch] = correct / Xt.shape[0]
    if weights is not None:
        weights.update(W1=W1[:d], c1=W1[d], W2=W2t.T, c2=c2)
    return acc, time.perf_counter() - t0


ALGORITHM = 5  # bump when train() changes its numbers: part of the cache key of run_scenarios
#               (3: the client order comes from schedule(), 'order' is part of the configuration;
#                4: subnormal floats flushed to zero;
#                5: c1 folded into W1 and chunks of 300 images: the same draws, round-off differs)


def config_hash(cfg: Config, data_id: str) -> str:
    """Cache key of runs: each run depends only on the configuration, the data and (scenario, seed)."""
    blob = json.dumps({"cfg": asdict(cfg), "data": data_id, "algorithm": ALGORITHM}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def run_config(cfg: Config, name: str) -> Config:
    """The configuration a run of scenario ``name`` really depends on: a non-private run neither clips
    nor adds noise, so clip, delta, clip_mode and sigma_rule are set to their defaults for it (runs
    that differ only there share one cached result)."""
    if name != "Non-private":
        return cfg
    return replace(
        cfg,
        clip=Config.clip,
        delta=Config.delta,
        clip_mode=Config.clip_mode,
        sigma_rule=Config.sigma_rule,
    )


def scenario_budgets(name: str, seed: int, n_clients: int) -> np.ndarray:
    """Client budgets of one run: Table 2's draw for ``name`` keyed by (seed, name); inf if 'Non-private'."""
    from gspa.studies.gspa.scenarios import budgets as draw

    if name == "Non-private":
        return np.full(n_clients, np.inf)
    return draw(name, n_clients, np.random.default_rng([seed, zlib.crc32(name.encode())]))


def run_one(name: str, seed: int, cfg: Config, data=None):
    """One (scenario, seed) run as a record (see :func:`run_scenarios`), on one intra-op thread so
    its numbers do not depend on how many runs go in parallel. ``data`` defaults to the worker's."""
    import torch

    data = pool.shared() if data is None else data
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        b = scenario_budgets(name, seed, cfg.n_clients)
        acc, secs = train(*data, b, cfg, seed, noise_key=zlib.crc32(name.encode()), progress=False)
    finally:
        torch.set_num_threads(threads)
    return {
        "scenario": name,
        "seed": int(seed),
        "budgets": [None if np.isinf(v) else float(v) for v in b],
        "accuracy": acc.tolist(),
        "seconds": secs,
        "config": asdict(cfg),
    }


def _cost(cfg: Config) -> float:
    """Rough relative cost of a run (for scheduling the longest first)."""
    return (
        cfg.epochs * flops_per_epoch(cfg, 1, 0) * (1.3 if cfg.clip_mode == "per_example" else 1.0)
    )


def run_jobs(
    data,
    jobs,
    cache_dir,
    data_id: str,
    progress=True,
    workers: int = 1,
    scheduler: str | None = None,
):
    """Train the runs ``jobs`` — (scenario, seed, Config) triples; scenario: a Table 2 name, 'Unif 3'
    or 'Non-private' — resuming from per-run result files in ``cache_dir/<config hash>/`` (the hash of
    :func:`run_config`: runs that share it are trained once); missing runs are trained in ``workers``
    parallel processes, one core each, the most expensive first — or on the Dask cluster whose scheduler
    address is ``scheduler`` (or the environment variable ``GSPA_DASK_SCHEDULER``), with the same
    records. Returns one record per job, in the order of ``jobs``: {scenario, seed, budgets, accuracy
    (per epoch), seconds, config}.

    Interrupted calls resume; local workers stop with their parent (:mod:`gspa.experiments.pool`)."""
    V.integer("workers", workers, low=1)
    jobs, paths = list(jobs), []
    for i, (name, seed, cfg) in enumerate(jobs):
        if not isinstance(cfg, Config):
            raise ValueError(
                f"a job's configuration must be a gspa.studies.gspa.private_sgd.Config, got {cfg!r}"
            )
        rc = run_config(cfg, name)
        jobs[i] = (name, int(seed), rc)
        paths.append(
            os.path.join(
                cache_dir,
                config_hash(rc, data_id),
                f"{name.replace(' ', '_')}__seed{int(seed)}.json",
            )
        )
    epochs = sorted({rc.epochs for _, _, rc in jobs})
    return pool.run_cached(
        run_one,
        jobs,
        paths,
        data=data,
        cost=lambda name, seed, rc: _cost(rc),
        workers=workers,
        desc=f"private SGD runs ({'/'.join(map(str, epochs))} epochs each)",
        progress=progress,
        scheduler=scheduler,
    )


def run_scenarios(
    data,
    scenario_names,
    seeds,
    cfg: Config,
    cache_dir,
    data_id: str,
    progress=True,
    workers: int = 1,
    scheduler: str | None = None,
):
    """Every scenario for every seed with one configuration (see :func:`run_jobs`); records in the
    order of the seeds, then the names."""
    return run_jobs(
        data,
        [(name, seed, cfg) for seed in seeds for name in scenario_names],
        cache_dir,
        data_id,
        progress=progress,
        workers=workers,
        scheduler=scheduler,
    )


def experiment_sets(
    cfg: Config, scenarios, seeds, *, calibrated: bool = True, readings=(), reading_seeds=(0,)
):
    """The sets of runs of the Figure 4 chapter: label -> (Config, scenario names, seeds).

    * ``"main"``: ``cfg`` over ``scenarios`` and ``seeds``;
    * ``"client σ"`` (if ``calibrated``): ``cfg`` with ``sigma_rule='client'`` (noise for the stated
      budgets, sensitivity 2C) over the same scenarios and seeds — its non-private runs are the main
      set's (:func:`run_config`), so they cost nothing;
    * one set per key of ``readings`` (:data:`READINGS`): ``reading(cfg, key)`` over ``scenarios`` and
      ``reading_seeds``. A reading that leaves ``cfg`` unchanged is left out (it is the main set)."""
    scenarios, seeds, reading_seeds = (
        list(scenarios),
        [int(s) for s in seeds],
        [int(s) for s in reading_seeds],
    )
    if not scenarios or not seeds:
        raise ValueError(f"scenarios and seeds must not be empty, got {scenarios!r} and {seeds!r}")
    sets = {"main": (cfg, scenarios, seeds)}
    if calibrated and cfg.sigma_rule != "client":
        sets["client σ"] = (replace(cfg, sigma_rule="client"), scenarios, seeds)
    for key in readings:
        alt = reading(cfg, key)
        if alt != cfg:
            if not reading_seeds:
                raise ValueError("reading_seeds must not be empty when readings are given")
            sets[key] = (alt, scenarios, reading_seeds)
    return sets


def run_sets(
    data,
    sets,
    cache_dir,
    data_id: str,
    progress=True,
    workers: int = 1,
    scheduler: str | None = None,
):
    """Train every run of :func:`experiment_sets`' ``sets`` in one pool (runs shared between sets are
    trained once). Returns label -> list of records (seeds, then scenarios)."""
    jobs = {
        label: [(name, seed, c) for seed in seeds for name in names]
        for label, (c, names, seeds) in sets.items()
    }
    flat = [j for js in jobs.values() for j in js]
    records = run_jobs(
        data, flat, cache_dir, data_id, progress=progress, workers=workers, scheduler=scheduler
    )
    out, i = {}, 0
    for label, js in jobs.items():
        out[label] = records[i : i + len(js)]
        i += len(js)
    return out


def final_accuracy(records, scenario: str) -> np.ndarray:
    """Test accuracy after the last epoch of each run of ``scenario`` in ``records`` (in record order)."""
    acc = [r["accuracy"][-1] for r in records if r["scenario"] == scenario]
    if not acc:
        raise ValueError(f"scenario {scenario!r} has no run among the records")
    return np.array(acc)


def accuracy_curves(records, scenario: str) -> np.ndarray:
    """Test accuracy per epoch of each run of ``scenario``: shape (runs, epochs)."""
    acc = [r["accuracy"] for r in records if r["scenario"] == scenario]
    if not acc:
        raise ValueError(f"scenario {scenario!r} has no run among the records")
    return np.array(acc)


def distinct_runs(records) -> list:
    """The distinct runs among ``records`` (a run shared by several sets, e.g. a non-private one, once)."""
    seen = {}
    for r in records:
        seen.setdefault((r["scenario"], r["seed"], json.dumps(r["config"], sort_keys=True)), r)
    return list(seen.values())


def total_seconds(records) -> float:
    """Training seconds of the distinct runs among ``records``."""
    return float(sum(r["seconds"] for r in distinct_runs(records)))


def client_epsilon(
    cfg: Config, eps_i, delta=None, neighbours: str = "client", subset_size: int | None = None
) -> np.ndarray:
    """The (eps, delta)-DP a client's released step g~ + b really has with ``cfg``'s noise
    (sigma_i = ``cfg.sigma(eps_i)``), for delta = ``cfg.delta`` unless given: the exact Gaussian
    profile (Fact 3) with mu = sensitivity / sigma_i.

    ``neighbours='client'`` (local DP, what the proof of Theorem 5 claims: any two data sets of one
    client): sensitivity 2C, since g~ has norm <= C for any data (line 14), also with per-example
    clipping (every example may change). ``neighbours='example'`` (one example of the client
    replaced): still 2C when the *average* is clipped (one unclipped example can move the average
    anywhere before clipping); 2C / divisor with per-example clipping, where the divisor is the
    client's ``subset_size`` (``grad_divisor='subset'``) or m — the only reading in which line 7's
    2C/m is a sensitivity."""
    from gspa.privacy.basics.fdp import gdp_epsilon

    delta = (
        cfg.delta
        if delta is None
        else V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    )
    if neighbours not in ("client", "example"):
        raise ValueError(f"neighbours must be one of ('client', 'example'), got {neighbours!r}")
    sens = 2.0 * cfg.clip
    if neighbours == "example" and cfg.clip_mode == "per_example":
        if cfg.grad_divisor == "subset":
            if subset_size is None:
                raise ValueError(
                    "subset_size (the client's number of examples, >= 1) is needed for "
                    "neighbours='example' with grad_divisor='subset'"
                )
            sens /= V.integer("subset_size", subset_size, low=1)
        else:
            sens /= cfg.n_clients
    sig = cfg.sigma(np.atleast_1d(eps_i))
    return np.array([np.inf if s == 0 else gdp_epsilon(delta, sens / s) for s in sig])


# -- the Figure 4 chapter's computations (book/chapters/gspa/figure4) ---------------------------------

#: the two readings of line 3's client order that Theorem 5's composition step is judged under
ORDER_LABELS = {
    "fixed": "Algorithm 3 as printed (π drawn once, line 3)",
    "reshuffle": "π redrawn every epoch (the experiments' 'at each step … one client at random without "
    "replacement')",
}


def _config(cfg) -> Config:
    if not isinstance(cfg, Config):
        raise ValueError(f"cfg must be a gspa.studies.gspa.private_sgd.Config, got {cfg!r}")
    return cfg


def _names(name, values) -> list:
    values = list(values) if isinstance(values, (list, tuple)) else values
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        raise ValueError(f"{name} must be a non-empty list of scenario names, got {values!r}")
    return values


def _records(name, records) -> list:
    if not isinstance(records, (list, tuple)) or not all(
        isinstance(r, dict) and {"scenario", "seed", "accuracy"} <= set(r) for r in records
    ):
        raise ValueError(
            f"{name} must be a list of run records (dicts with scenario, seed and accuracy), got "
            f"{records!r:.80}"
        )
    return list(records)


def noise_audit(cfg: Config, eps_i, subset_size: int) -> dict:
    """The audit of Algorithm 3's line 7 (proof of Theorem 5: "client j satisfies (εⱼ, δⱼ)-LDP … by the
    definition of Gaussian mechanism"): for the nominal budgets ``eps_i``, line 7's σᵢ and the ε a client's
    released step really has with it (sensitivity 2C, :func:`client_epsilon`), the σᵢ the stated budgets
    require (sensitivity 2C) and its ε, and line 7's ε for one *example* replaced under per-example
    clipping (the only reading in which 2C/m is a sensitivity; ``subset_size`` images per client). Column
    -> array, one entry per budget; ``cfg``'s noise rule does not matter (both are audited)."""
    cfg = _config(cfg)
    nominal = np.atleast_1d(V.real("eps_i", eps_i, low=0.0, low_open=True))
    if not np.all(np.isfinite(nominal)) or nominal.ndim != 1:
        raise ValueError(f"eps_i must be a list of finite budgets > 0, got {eps_i!r}")
    subset_size = V.integer("subset_size", subset_size, low=1)
    line7, honest = replace(cfg, sigma_rule="paper"), replace(cfg, sigma_rule="client")
    per_example = replace(line7, clip_mode="per_example")
    return {
        "nominal εᵢ": nominal,
        "σᵢ, line 7": line7.sigma(nominal),
        "real εᵢ, line 7's σ": client_epsilon(line7, nominal),
        "σᵢ for sensitivity 2C": honest.sigma(nominal),
        "real εᵢ, σ for 2C": client_epsilon(honest, nominal),
        "line 7's σ, one example replaced, per-example clipping": client_epsilon(
            per_example, nominal, neighbours="example", subset_size=subset_size
        ),
    }


def final_means(records, scenarios) -> dict:
    """Figure 4 after the last epoch: scenario -> mean over its runs in ``records`` of the final test
    accuracy, in percent."""
    records, scenarios = _records("records", records), _names("scenarios", scenarios)
    return {s: (100 * np.asarray(final_accuracy(records, s))).mean() for s in scenarios}


def accuracy_bands(records, scenarios) -> dict:
    """Figure 4's curves: scenario -> (mean, lowest, highest) over its runs in ``records`` of the test
    accuracy per epoch, in percent."""
    records, scenarios = _records("records", records), _names("scenarios", scenarios)
    bands = {}
    for s in scenarios:
        a = 100 * accuracy_curves(records, s)
        bands[s] = (a.mean(0), a.min(0), a.max(0))
    return bands


def final_accuracy_rows(runs: dict, scenarios) -> list[dict]:
    """Figure 4's final accuracies by scenario (one row each): mean and per seed with line 7's σ (the set
    ``"main"`` of :func:`run_sets`' result ``runs``) and, where ``runs`` has the set ``"client σ"``, with
    the σ the stated budgets require; and the mean client budget of each main run."""
    if not isinstance(runs, dict) or "main" not in runs:
        raise ValueError(f"runs must be run_sets' result with a 'main' set, got {runs!r:.80}")
    main, scenarios = _records("runs['main']", runs["main"]), _names("scenarios", scenarios)
    client = _records("runs['client σ']", runs["client σ"]) if "client σ" in runs else None
    rows = []
    for s in scenarios:
        f = 100 * np.asarray(final_accuracy(main, s))
        row = {
            "scenario": s,
            "line 7's σ: mean %": f.mean(),
            "line 7's σ: per seed %": ", ".join(f"{v:.2f}" for v in f),
        }
        if client is not None:
            f = 100 * np.asarray(final_accuracy(client, s))
            row |= {
                "σ for the budgets: mean %": f.mean(),
                "σ for the budgets: per seed %": ", ".join(f"{v:.2f}" for v in f),
            }
        row["mean budget per seed"] = ", ".join(
            "∞" if s == "Non-private" else f"{np.mean(r['budgets']):.3f}"
            for r in main
            if r["scenario"] == s
        )
        rows.append(row)
    return rows


def readings_summary(runs: dict, sets: dict, scenarios) -> dict:
    """Figure 4 under the readings of Algorithm 3 that :func:`experiment_sets` ran (``sets``; their runs
    ``runs``, from :func:`run_sets`): ``names`` (set key -> label: "main reading" and :data:`READINGS`'
    labels), ``final`` (label -> scenario -> mean final accuracy in percent: the main reading over its
    seeds, the others over theirs) and ``table`` (column -> scenario -> accuracy: the same, each column
    naming its seeds, with the main reading also over the readings' seeds when it ran all of them, so
    that a reading can be compared with the main reading on the same seeds)."""
    if not isinstance(sets, dict) or "main" not in sets:
        raise ValueError(f"sets must be experiment_sets' result, got {sets!r:.80}")
    if not isinstance(runs, dict) or not set(sets) <= set(runs):
        raise ValueError("runs must be run_sets' result for these sets (a record list per set)")
    scenarios = _names("scenarios", scenarios)
    names = {"main": "main reading"} | {k: READINGS[k][0] for k in sets if k in READINGS}
    final = {names[k]: final_means(runs[k], scenarios) for k in names}
    seeds_of = {k: ", ".join(map(str, sets[k][2])) for k in names}
    table = {f"main reading, seeds {seeds_of['main']}": final["main reading"]}
    others = [k for k in names if k != "main"]
    if others:
        reading_seeds = set(sets[others[0]][2])
        same = [r for r in runs["main"] if r["seed"] in reading_seeds]
        if same and {r["seed"] for r in same} == reading_seeds:
            table[f"main reading, seeds {seeds_of[others[0]]}"] = final_means(same, scenarios)
    for k in others:
        table[f"{names[k]}, seeds {seeds_of[k]}"] = final[names[k]]
    return {"names": names, "final": final, "table": table}


def accuracy_claims(final: dict, scenarios, paper_accuracy: float) -> dict:
    """The values of Figure 4's accuracy claims under every reading: claim id -> ``ours`` and ``ours_text``
    for :meth:`gspa.book.results.Chapter.claim`, from ``final`` (:func:`readings_summary`'s label ->
    scenario -> mean final accuracy in percent); ``paper_accuracy`` is "Parameter Selection"'s 96.78 %.
    A claim appears only when ``scenarios`` hold what it compares: ``fig4-96.78`` and ``fig4-vanilla``
    a private scenario and the non-private one, ``fig4-constant-94.8``, ``fig4-unif2-93.5`` and
    ``fig4-constant-above-unif2`` Constant and Unif 2, ``fig4-unif3-best`` Unif 3."""
    scenarios = _names("scenarios", scenarios)
    paper_accuracy = V.real("paper_accuracy", paper_accuracy, low=0.0, high=100.0, scalar=True)
    if (
        not isinstance(final, dict)
        or not final
        or not all(isinstance(f, dict) and set(scenarios) <= set(f) for f in final.values())
    ):
        raise ValueError("final must map each reading to every scenario's mean final accuracy")
    private = [s for s in scenarios if s != "Non-private"]
    best = {label: max(private, key=f.get) for label, f in final.items()} if private else {}

    def claim(values: dict, text, prefix: str = ""):
        return {
            "ours": values,
            "ours_text": prefix + "; ".join(text(k, x) for k, x in values.items()),
        }

    out = {}
    if private and "Non-private" in scenarios:
        v = {}
        for label, f in final.items():
            v[f"non-private network / {label}"] = f["Non-private"]
            v[f"best private scenario ({best[label]}) / {label}"] = f[best[label]]
        out["fig4-96.78"] = claim(v, lambda k, x: f"{k}: {x:.2f} %")
    if "Constant" in scenarios and "Unif 2" in scenarios:
        for cid, s in (("fig4-constant-94.8", "Constant"), ("fig4-unif2-93.5", "Unif 2")):
            out[cid] = claim(
                {label: f[s] for label, f in final.items()}, lambda k, x: f"{k}: {x:.2f} %"
            )
        out["fig4-constant-above-unif2"] = claim(
            {label: f["Constant"] - f["Unif 2"] for label, f in final.items()},
            lambda k, x: f"{k}: {x:+.2f} points",
            "Constant − Unif 2: ",
        )
    if "Unif 3" in scenarios:
        out["fig4-unif3-best"] = {
            "ours": {label: bool(best[label] == "Unif 3") for label in final},
            "ours_text": "best private scenario: "
            + "; ".join(
                f"{k}: {best[k]} ({max(f[s] for s in private):.2f} %)" for k, f in final.items()
            ),
        }
    if private and "Non-private" in scenarios:
        v = {}
        for label, f in final.items():
            v[f"{paper_accuracy:g} % is the non-private network's / {label}"] = abs(
                f["Non-private"] - paper_accuracy
            )
            v[f"{paper_accuracy:g} % is a private scenario's / {label}"] = f["Non-private"] - max(
                f[s] for s in private
            )
        out["fig4-vanilla"] = claim(
            v,
            lambda k, x: f"{k}: {x:.2f} points",
            f"gap to our non-private (vanilla) run, of {paper_accuracy:g} % or of the best private "
            "scenario: ",
        )
    return out


def theorem5_rows(records, cfg: Config, central_delta: float) -> list[dict]:
    """Theorem 5's numbers for each private run of ``records`` (trained with ``cfg``: T = ``cfg.epochs``,
    every client's δ = ``cfg.delta``): μ per epoch (Theorem 2 over the clients), √T μ and its ε at
    ``central_delta``; beside them what the paper's reasoning gives with exact accounting *if* Lemma 1
    held for Algorithm 3's Gaussian steps — Lemma 4's quaternary pair over the clients
    (:func:`gspa.privacy.shuffle.accountant.personalized_pair`) composed T times through dp-accounting —
    and the largest real per-step client ε with line 7's σ (:func:`client_epsilon`)."""
    from gspa.privacy.interop import dpaccounting as dpa
    from gspa.privacy.shuffle import accountant
    from gspa.studies.gspa import theorem2

    records, cfg = _records("records", records), _config(cfg)
    central_delta = V.probability(
        "central_delta", central_delta, open_low=True, open_high=True, scalar=True
    )
    line7, rows = replace(cfg, sigma_rule="paper"), []
    for r in records:
        if r["scenario"] == "Non-private":
            continue
        b = np.array(r["budgets"])
        dl = np.full(b.size, cfg.delta)
        t5 = theorem2.theorem5(b, dl, cfg.epochs, central_delta)
        pair = accountant.personalized_pair(b, dl, "randomized", randomizer="quaternary")
        rows.append(
            {
                "scenario": r["scenario"],
                "seed": r["seed"],
                "μ per epoch (Thm 2)": t5["mu"],
                "√T μ (Thm 5)": t5["mu_T"],
                f"ε at δ = {central_delta:g}, Thm 5": t5["eps"],
                f"ε at δ = {central_delta:g}, quaternary pair composed T times (if Lemma 1 held)": (
                    dpa.composed_pair_epsilon(*pair.pmfs(), cfg.epochs, central_delta)
                ),
                "largest real client ε per step, line 7's σ (audit)": float(
                    client_epsilon(line7, b).max()
                ),
            }
        )
    return rows


def theorem5_sum_readings(
    n_clients: int, n_samples: int, eps: float, delta: float, epochs: int, central_delta: float
) -> dict:
    """Theorem 5 sums over i = 1, …, n (Table 3: n = 60,000 samples) while one shuffle of Algorithm 3 mixes
    one report per client: Theorem 5 (:func:`gspa.studies.gspa.theorem2.theorem5`: μ per epoch, √T μ, ε at
    ``central_delta``) with the common budget (``eps``, ``delta``) summed over the ``n_clients`` clients
    (``"clients"``) and over the ``n_samples`` samples, as printed (``"samples"``)."""
    from gspa.studies.gspa import theorem2

    n_clients = V.integer("n_clients", n_clients, low=2, high=10**7)
    n_samples = V.integer("n_samples", n_samples, low=2, high=10**7)
    eps = V.real("eps", eps, low=0.0, high=100.0, low_open=True, scalar=True)
    delta = V.probability("delta", delta, open_high=True, scalar=True)
    epochs = V.integer("epochs", epochs, low=1, high=10**6)
    central_delta = V.probability(
        "central_delta", central_delta, open_low=True, open_high=True, scalar=True
    )
    return {
        key: theorem2.theorem5(np.full(n, eps), np.full(n, delta), epochs, central_delta)
        for key, n in (("clients", n_clients), ("samples", n_samples))
    }


def order_readings(cfg: Config, n: int, seeds) -> dict:
    """Theorem 5's composition step against line 3 of Algorithm 3: for the client order as printed (π
    drawn once, ``"fixed"``) and redrawn every epoch (``"reshuffle"``), over the ``seeds``' schedules of
    ``n`` training images (:func:`schedule`, the trainer's): ``linked``, the most positions whose client
    is the same in every epoch (:func:`linked_positions`), and ``redrawn``, whether no seed's epochs share
    one order (:func:`epochs_share_order`) — what per-epoch composition by Fact 3 needs."""
    cfg = _config(cfg)
    if not isinstance(seeds, (list, tuple)) or not seeds:
        raise ValueError(f"seeds must be a non-empty list of seeds, got {seeds!r}")
    seeds = [V.integer("seeds", s, low=0, high=2**32 - 1) for s in seeds]
    out = {}
    for order in ORDER_LABELS:
        orders = [schedule(reading(cfg, order), n, s)[1] for s in seeds]
        out[order] = {
            "linked": max(linked_positions(o) for o in orders),
            "redrawn": not any(epochs_share_order(o) for o in orders),
        }
    return out
