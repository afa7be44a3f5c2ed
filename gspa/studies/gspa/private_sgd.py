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

import contextlib
import json
import math
import os
import time
import zlib
from dataclasses import asdict, dataclass, replace

import numpy as np

from gspa.util import fingerprint, validate as V
from gspa.experiments import pool


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

    def sigma(self, eps):
        """Noise standard deviation for budgets ``eps`` (inf budget = non-private: no noise)."""
        eps = np.asarray(eps, dtype=float)
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


def _with_ones(x, dev=None):
    """Images (n, d) as a float32 tensor (n, d + 1) on ``dev`` whose last column is 1 (the bias input)."""
    import torch

    x = torch.as_tensor(x, dtype=torch.float32)
    return torch.cat([x, torch.ones(x.shape[0], 1)], 1).to(dev or "cpu")


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
    device: str = "cpu",
):
    """Train one model: :func:`train_runs` with the single run (``budgets``, ``seed``, ``noise_key``).
    Returns its test accuracy per epoch and the seconds; if ``weights`` is a dict, its final W1 (d, h),
    c1, W2 (h, 10) and c2 are stored in it (on the CPU)."""
    out = [] if weights is not None else None
    accs, secs = train_runs(
        x_train,
        y_train,
        x_test,
        y_test,
        [(budgets, seed, noise_key)],
        cfg,
        device=device,
        progress=progress,
        eval_chunk=eval_chunk,
        row_chunk=row_chunk,
        weights=out,
    )
    if weights is not None:
        weights.update(out[0])
    return accs[0], secs


def train_runs(x_train, y_train, x_test, y_test, runs, cfg: Config, *, device="cpu", **options):
    """Train the runs ``runs`` of configuration ``cfg`` at once (see :func:`_train_runs`) with subnormal
    floats flushed to zero on the CPU, then switch the flushing off again (torch's default). The softmax
    probabilities of confidently classified images underflow into subnormal floats once the noisy
    weights grow, and every matrix product with them then runs about 3x slower on x86; flushing them
    changes no printed digit of the accuracy (a GPU flushes them in its own kernels). On a GPU the
    matrix products are computed in float32 (TF32 off while it trains), as on the CPU."""
    import torch

    from gspa.experiments import devices

    runs, dev = list(runs), devices.device(device)
    flushing = torch.set_flush_denormal(True)
    tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # a GPU's products in float32, as the CPU's
    try:
        with _drawer(dev, len(runs)) as draw:
            return _train_runs(x_train, y_train, x_test, y_test, runs, cfg, dev, draw, **options)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        if flushing:
            torch.set_flush_denormal(False)


def _squared_norms(grads):
    """A function giving each run's squared gradient norm, summed over the parameter tensors ``grads``
    (each (R, ...), filled anew every step), as float64 on the host (R,). On the CPU every run's sum is
    BLAS's dot product of that run alone, the reduction of the per-run trainer this one replaced (its
    numbers, and so the cached runs, stay the same bit for bit); elsewhere one batched reduction per
    tensor."""
    import torch

    R = grads[0].shape[0]
    if grads[0].device.type == "cpu":
        flat = [[t[r].view(-1) for t in grads] for r in range(R)]
        return lambda: np.array([sum(float(torch.dot(v, v)) for v in run) for run in flat])
    return lambda: sum((t.reshape(R, -1) ** 2).sum(1).double() for t in grads).cpu().numpy()


@contextlib.contextmanager
def _drawer(dev, R: int):
    """``draw(fn, runs)`` calls ``fn(r)`` for every run r of ``runs``: in this thread on the CPU (a batch
    trains on one core there), in a pool of threads, one task per run, when a GPU computes (each run's
    draws come from its own generator, so the order of the threads does not matter)."""
    if dev.type == "cpu" or R == 1:
        yield lambda fn, runs: [fn(r) for r in runs]
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(R, os.cpu_count() or 1)) as threads:
        yield lambda fn, runs: list(threads.map(fn, runs))


def _train_runs(
    x_train,
    y_train,
    x_test,
    y_test,
    runs,
    cfg: Config,
    dev,
    draw,
    *,
    progress: bool = True,
    eval_chunk: int = 2000,
    row_chunk: int = 300,
    weights: list | None = None,
):
    """Train R = len(``runs``) models of configuration ``cfg`` in one tensor program, on the torch device
    ``dev``, drawing each step's noise through ``draw`` (:func:`_drawer`). A run is a triple
    (``budgets``, ``seed``, ``noise_key``): client budgets of shape (n_clients,) (all inf = non-private:
    no clipping, no noise), trained for cfg.epochs epochs. Returns the test accuracy per epoch of every
    run (a list of R arrays) and the seconds the batch took.

    Every run's parameters are one slice of (R, ...) tensors, and every step is one batched matrix
    product per layer for all runs; each run keeps its own client order, clipping and noise:

    * ``seed`` fixes the run's initialisation, its split into clients and its client order of every
      epoch (:func:`schedule`; the same for every scenario: common random numbers); the noise comes
      from its own generator keyed by (seed, ``noise_key``), so a run does not depend on which other
      runs exist or are batched with it. Every draw is made on the CPU from generators keyed by
      integers (:func:`gspa.experiments.devices.generator`) and moved to the device: a run gets the
      same draws on a CPU and on a GPU, and only float round-off differs.
    * The backward pass is written out, on preallocated buffers of at most ``row_chunk`` images per
      run (300 images x 1,000 hidden units: two 1.2 MB buffers per run, within a 2 MB L2 cache for one
      run on the CPU; benchmarks/sgd.py times other sizes); the first layer's bias rides in its weight
      matrix (the images carry a constant 1 as their last feature), and the logits are computed
      transposed (10 x rows), the fast layout for the 10-wide output layer.

    On the CPU a batch of runs gives every run the numbers it gets alone, bit for bit (the batched
    matrix products compute each run's product as the single product does; tests/studies/gspa/
    test_private_sgd.py checks it against the per-run trainer this one replaced). If ``weights`` is a
    list, the final W1 (d, h), c1, W2 (h, 10) and c2 of every run are appended to it as dicts (CPU
    tensors)."""
    import torch
    from gspa.util.progress import bar as tqdm

    from gspa.experiments import devices

    V.integer("row_chunk", row_chunk, low=1)
    V.integer("eval_chunk", eval_chunk, low=1)
    budgets = []
    for b, _, _ in runs:
        budgets.append(np.asarray(b, dtype=float))
    budgets = np.stack(budgets)
    R, n, h = len(runs), x_train.shape[0], cfg.hidden
    schedules = [schedule(cfg, n, seed) for _, seed, _ in runs]
    sig = cfg.sigma(budgets)  # (R, m)
    private = ~np.isinf(budgets).all(axis=1)  # (R,)
    private_t = torch.as_tensor(private, device=dev)  # per-example clipping's mask
    noise = [devices.generator(seed, key) for _, seed, key in runs]
    X, Xt = _with_ones(x_train, dev), _with_ones(x_test, dev)
    Yt = torch.as_tensor(y_test, device=dev)
    d = X.shape[1] - 1
    # torch.nn.Linear's default initialisation, drawn per run from the generator keyed by its seed; the
    # first layer's bias c1 is the last row of W1 (d + 1, h); W2 is stored transposed (10, h)
    b1lim, b2lim = 1 / math.sqrt(d), 1 / math.sqrt(h)
    W1, W2t, c2 = torch.empty(R, d + 1, h), torch.empty(R, 10, h), torch.empty(R, 10)
    for r, (_, seed, _) in enumerate(runs):
        gen = devices.generator(seed)
        W1[r, :d] = (torch.rand(d, h, generator=gen) * 2 - 1) * b1lim
        W1[r, d] = (torch.rand(h, generator=gen) * 2 - 1) * b1lim
        W2t[r] = ((torch.rand(h, 10, generator=gen) * 2 - 1) * b2lim).T
        c2[r] = (torch.rand(10, generator=gen) * 2 - 1) * b2lim
    params = tuple(p.to(dev) for p in (W1, W2t, c2))
    W1, W2t, c2 = params
    c2_col = c2[:, :, None]  # the output bias as a column, a view
    size = n // cfg.n_clients
    split = torch.as_tensor(np.stack([s for s, _ in schedules]), device=dev)  # (R, m, n/m)
    orders = np.stack([o for _, o in schedules])  # (R, T, m)
    Xc = X[split]  # (R, m, n/m, d + 1): each client's images contiguous, per run
    Yc = torch.nn.functional.one_hot(
        torch.as_tensor(y_train, dtype=torch.long, device=dev)[split], 10
    )
    Yc = Yc.transpose(2, 3).float().contiguous()  # (R, m, 10, n/m): one-hot labels, transposed
    runs_ix = torch.arange(R, device=dev)
    divisor = size if cfg.grad_divisor == "subset" else cfg.n_clients
    rows = min(row_chunk, size)
    buffers = {}  # rows of a chunk -> (hidden, its gradient, logits^T), each run's block contiguous
    for k in range(0, size, rows):
        r = min(rows, size - k)
        if r not in buffers:
            buffers[r] = tuple(
                torch.empty(s, device=dev) for s in ((R, r, h), (R, r, h), (R, 10, r))
            )
    grads = tuple(torch.empty_like(p) for p in params)
    gW1, gW2t, gc2 = grads
    # each run's noise is drawn per parameter in the order W1, c1, W2, c2 (as with separate tensors)
    shapes = ((d, h), (h,), (10, h), (10,))
    noise_buf = tuple(torch.zeros((R, *s)) for s in shapes)
    noise_dst = (W1[:, :d], W1[:, d], W2t, c2)
    base = cfg.lr / divisor
    # each step's per-run factors, set on the host: the step -lr/divisor (times the clipping factor) and
    # the noise's -lr sigma; the device reads them through views shaped for W1 (and c1), W2t and c2,
    # and for the noise's W1[:d], c1, W2t and c2
    host_factors = torch.zeros(2, R, dtype=torch.float32)
    host = host_factors.numpy()
    factors = host_factors if dev.type == "cpu" else torch.zeros(2, R, device=dev)
    step_factor = [factors[0].view(s) for s in ((R, 1, 1), (R, 1, 1), (R, 1))]
    noise_factor = [factors[1].view(s) for s in ((R, 1, 1), (R, 1), (R, 1, 1), (R, 1))]
    squared_norms = _squared_norms(grads)
    clip_examples = cfg.clip_mode == "per_example" and bool(private.any())
    clip_average = cfg.clip_mode == "average" and bool(private.any())
    runs_ix_np = np.arange(R)

    def draw_noise(r):  # run r's noise of this step, from its own generator
        for b in noise_buf:
            torch.randn(b.shape[1:], generator=noise[r], out=b[r])

    acc = np.zeros((R, cfg.epochs))
    t0 = time.perf_counter()
    for epoch in tqdm(
        range(cfg.epochs),
        desc=f"private SGD ({R} run{'s' if R > 1 else ''}, {dev.type})",
        disable=not progress,
        leave=False,
    ):
        clients_now = torch.as_tensor(orders[:, epoch], device=dev)  # (R, m)
        for i in range(cfg.n_clients):
            c = orders[:, epoch, i]  # each run's client at this step
            if R == 1:  # a single run reads its client's block in place
                xb, yb = Xc[:, int(c[0])], Yc[:, int(c[0])]
            else:
                xb, yb = Xc[runs_ix, clients_now[:, i]], Yc[runs_ix, clients_now[:, i]]
            for t in grads:
                t.zero_()
            for k in range(0, size, rows):
                x, y = xb[:, k : k + rows], yb[:, :, k : k + rows]
                a, g, z = buffers[x.shape[1]]
                torch.bmm(x, W1, out=a).relu_()  # hidden (R, r, h)
                torch.baddbmm(c2_col, W2t, a.mT, out=z)  # logits^T (R, 10, r)
                p = torch.softmax(z, 1)
                p.sub_(y)  # d loss / d logits^T
                torch.bmm(p.mT, W2t, out=g)
                torch.ops.aten.threshold_backward.grad_input(g, a, 0.0, grad_input=g)  # ReLU'
                if clip_examples:
                    # ||x||^2 counts the constant 1: (||x||^2 + 1) ||g||^2 + (||a||^2 + 1) ||p||^2
                    sq = (x * x).sum(2) * (g * g).sum(2) + ((a * a).sum(2) + 1.0) * (p * p).sum(1)
                    w = torch.clamp(cfg.clip / torch.sqrt(sq + 1e-30), max=1.0)  # ||g_j||^2 exactly
                    w = torch.where(private_t[:, None], w, 1.0)  # non-private runs: no clipping
                    p.mul_(w[:, None, :])
                    g.mul_(w[:, :, None])
                gW1.baddbmm_(x.mT, g)  # W1 and c1
                gW2t.baddbmm_(p, a)
                gc2.add_(p.sum(2))
            # this step's noise, drawn on the CPU (while a GPU computes the gradients launched above)
            s = sig[runs_ix_np, c]  # each run's client's noise level (0: none)
            noisy = np.flatnonzero(s > 0)
            draw(draw_noise, noisy)
            scale = base  # float64 on the host, as the per-run trainer computed it
            if clip_average:
                norm = np.sqrt(squared_norms()) / divisor
                scale = np.where(private, base * np.minimum(1.0, cfg.clip / (norm + 1e-30)), base)
            host[0], host[1] = -scale, -cfg.lr * s  # rounded to float32
            if factors is not host_factors:
                factors.copy_(host_factors)
            for prm, grd, f in zip(params, grads, step_factor):
                prm.addcmul_(grd, f)
            if noisy.size:
                for dst, b, f in zip(noise_dst, noise_buf, noise_factor):
                    dst.addcmul_(b if dev.type == "cpu" else b.to(dev), f)  # f = 0: no noise
        correct = torch.zeros(R, dtype=torch.long, device=dev)
        for k in range(0, Xt.shape[0], eval_chunk):  # chunked: memory stays small
            xt = Xt[k : k + eval_chunk]
            ht = torch.bmm(xt.expand(R, *xt.shape), W1).relu_()  # (R, rows, h)
            pred = torch.baddbmm(c2_col, W2t, ht.mT).argmax(1)
            correct += (pred == Yt[k : k + eval_chunk]).sum(1)
        acc[:, epoch] = correct.cpu().numpy() / Xt.shape[0]
    if weights is not None:
        for r in range(R):
            weights.append(
                {
                    "W1": W1[r, :d].cpu(),
                    "c1": W1[r, d].cpu(),
                    "W2": W2t[r].T.cpu(),
                    "c2": c2[r].cpu(),
                }
            )
    return list(acc), time.perf_counter() - t0


#: the modules whose code computes a run: this one (its import closure holds Table 2's draws) and the loader
#: that pins the data's digests
RUN_CODE = ("gspa.studies.gspa.private_sgd", "gspa.experiments.mnist")


def config_hash(cfg: Config, data_id: str, device: str = "cpu") -> str:
    """Cache key of runs (:mod:`gspa.util.fingerprint`): each run depends only on the configuration, the
    data, the device type (``cpu`` or ``cuda``: float round-off differs between them), the code of
    :data:`RUN_CODE` with its import closure, the installed packages' versions, and (scenario, seed)."""
    key = {
        "cfg": asdict(cfg),
        "data": data_id,
        "device": V.choice("device", device, ("cpu", "cuda")),
        "code": fingerprint.code_key(*RUN_CODE),
    }
    return fingerprint.digest(key)[:16]


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


def run_batch(jobs, data=None):
    """Runs of one configuration and device trained together (:func:`train_runs`): ``jobs`` is a list of
    (scenario, seed, Config, device type) with the same Config and device; returns one record per job
    (see :func:`run_jobs`; a run's ``seconds`` is its share of the batch's). On the CPU the batch trains
    on one intra-op thread, so its numbers do not depend on how many batches go in parallel. ``data``
    defaults to the worker's."""
    import torch

    data = pool.shared() if data is None else data
    cfg, dev = jobs[0][2], jobs[0][3]
    if any(j[2] != cfg or j[3] != dev for j in jobs):
        raise ValueError("the jobs of a batch must share one configuration and one device")
    budgets = [scenario_budgets(name, seed, cfg.n_clients) for name, seed, _, _ in jobs]
    runs = [(b, seed, zlib.crc32(name.encode())) for b, (name, seed, _, _) in zip(budgets, jobs)]
    threads = torch.get_num_threads()
    if dev == "cpu":
        torch.set_num_threads(1)
    try:
        accs, secs = train_runs(*data, runs, cfg, device=dev, progress=False)
    finally:
        torch.set_num_threads(threads)
    return [
        {
            "scenario": name,
            "seed": int(seed),
            "budgets": [None if np.isinf(v) else float(v) for v in b],
            "accuracy": acc.tolist(),
            "seconds": secs / len(jobs),
            "config": asdict(cfg),
            "code": fingerprint.code_key(*RUN_CODE),  # the code this process runs
        }
        for (name, seed, _, _), b, acc in zip(jobs, budgets, accs)
    ]


def run_one(name: str, seed: int, cfg: Config, data=None, device: str = "cpu"):
    """One (scenario, seed) run as a record (:func:`run_batch` with that one run)."""
    return run_batch([(name, seed, cfg, device)], data=data)[0]


#: runs of one configuration trained in one program by default: on the CPU (benchmarks/sgd.py measures
#: batches against single runs per CPU second) and on CUDA, where the batch is also cut to fit memory
BATCH = {"cpu": 1, "cuda": 64}


def batch_size(cfg: Config, n_train: int, n_test: int, device: str) -> int:
    """How many runs of ``cfg`` one program trains on ``device`` (``cpu`` or ``cuda``) with ``n_train``
    training and ``n_test`` test images: :data:`BATCH`, and on CUDA at most as many as half the free GPU
    memory holds (float32: a run's images gathered by client with their one-hot labels, its parameters
    and gradients, its buffers of 300 images and its test activations)."""
    if V.choice("device", device, ("cpu", "cuda")) == "cpu":
        return BATCH["cpu"]
    import torch

    d, h = cfg.pca + 1, cfg.hidden
    n_train, n_test = V.integer("n_train", n_train, low=1), V.integer("n_test", n_test, low=1)
    floats = n_train * (d + 10) + 2 * (d * h + 10 * h + 10) + 2 * 300 * h + min(n_test, 2000) * h
    return max(1, min(BATCH["cuda"], int(0.5 * torch.cuda.mem_get_info()[0] // (4 * floats))))


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
    device: str = "auto",
    batch: int | None = None,
):
    """Train the runs ``jobs`` — (scenario, seed, Config) triples; scenario: a Table 2 name, 'Unif 3'
    or 'Non-private' — resuming from per-run result files in ``cache_dir/<config hash>/`` (the hash of
    :func:`run_config` and the device type: runs that share it are trained once). Missing runs of one
    configuration are trained together on ``device`` (``auto``: CUDA if present, else the CPU), in
    batches of ``batch`` runs (default :func:`batch_size`; :func:`run_batch`), the most expensive
    first: in ``workers`` parallel processes (one core each on the CPU), or on the Dask cluster whose
    scheduler address is ``scheduler`` (or the environment variable ``GSPA_DASK_SCHEDULER``; a worker
    trains a batch), with the same records. Returns one record per job, in the order of ``jobs``:
    {scenario, seed, budgets, accuracy (per epoch), seconds, config}.

    Interrupted calls resume; local workers stop with their parent (:mod:`gspa.experiments.pool`)."""
    from gspa.experiments import devices

    V.integer("workers", workers, low=1)
    dev = devices.device(device).type
    jobs, paths = list(jobs), []
    for i, (name, seed, cfg) in enumerate(jobs):
        rc = run_config(cfg, name)
        jobs[i] = (name, int(seed), rc, dev)
        paths.append(
            os.path.join(
                cache_dir,
                config_hash(rc, data_id, dev),
                f"{name.replace(' ', '_')}__seed{int(seed)}.json",
            )
        )
    epochs = sorted({j[2].epochs for j in jobs})
    if batch is None:
        sizes = [batch_size(rc, len(data[0]), len(data[2]), dev) for rc in {j[2] for j in jobs}]
        batch = min(sizes, default=1)
    return pool.run_cached(
        run_batch,
        jobs,
        paths,
        data=data,
        check=pool.record_check(
            ("scenario", "seed", "budgets", "accuracy", "seconds", "config", "code"),
            expect=lambda name, seed, rc, dev: {
                "scenario": name,
                "seed": seed,
                "config": asdict(rc),
                "code": fingerprint.code_key(*RUN_CODE),
            },
        ),
        cost=lambda name, seed, rc, dev: _cost(rc),
        workers=workers,
        desc=f"private SGD runs ({'/'.join(map(str, epochs))} epochs each, {dev})",
        progress=progress,
        scheduler=scheduler,
        group=lambda name, seed, rc, dev: rc,
        batch=V.integer("batch", batch, low=1),
    )


def run_scenarios(data, scenario_names, seeds, cfg: Config, cache_dir, data_id: str, **options):
    """Every scenario for every seed with one configuration (see :func:`run_jobs`, whose keyword
    ``options`` — progress, workers, scheduler, device, batch — it takes); records in the order of the
    seeds, then the names."""
    jobs = [(name, seed, cfg) for seed in seeds for name in scenario_names]
    return run_jobs(data, jobs, cache_dir, data_id, **options)


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
    sets = {"main": (cfg, scenarios, seeds)}
    if calibrated and cfg.sigma_rule != "client":
        sets["client σ"] = (replace(cfg, sigma_rule="client"), scenarios, seeds)
    for key in readings:
        alt = reading(cfg, key)
        if alt != cfg:
            sets[key] = (alt, scenarios, reading_seeds)
    return sets


def run_sets(data, sets, cache_dir, data_id: str, **options):
    """Train every run of :func:`experiment_sets`' ``sets`` in one pool (runs shared between sets are
    trained once; keyword ``options`` as for :func:`run_jobs`). Returns label -> list of records (seeds,
    then scenarios)."""
    jobs = {
        label: [(name, seed, c) for seed in seeds for name in names]
        for label, (c, names, seeds) in sets.items()
    }
    flat = [j for js in jobs.values() for j in js]
    records = run_jobs(data, flat, cache_dir, data_id, **options)
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


def noise_audit(cfg: Config, eps_i, subset_size: int) -> dict:
    """The audit of Algorithm 3's line 7 (proof of Theorem 5: "client j satisfies (εⱼ, δⱼ)-LDP … by the
    definition of Gaussian mechanism"): for the nominal budgets ``eps_i``, line 7's σᵢ and the ε a client's
    released step really has with it (sensitivity 2C, :func:`client_epsilon`), the σᵢ the stated budgets
    require (sensitivity 2C) and its ε, and line 7's ε for one *example* replaced under per-example
    clipping (the only reading in which 2C/m is a sensitivity; ``subset_size`` images per client). Column
    -> array, one entry per budget; ``cfg``'s noise rule does not matter (both are audited)."""
    nominal = np.atleast_1d(V.real("eps_i", eps_i, low=0.0, low_open=True))
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
    records, scenarios = list(records), list(scenarios)
    return {s: (100 * np.asarray(final_accuracy(records, s))).mean() for s in scenarios}


def accuracy_bands(records, scenarios) -> dict:
    """Figure 4's curves: scenario -> (mean, lowest, highest) over its runs in ``records`` of the test
    accuracy per epoch, in percent."""
    records, scenarios = list(records), list(scenarios)
    bands = {}
    for s in scenarios:
        a = 100 * accuracy_curves(records, s)
        bands[s] = (a.mean(0), a.min(0), a.max(0))
    return bands


def final_accuracy_rows(runs: dict, scenarios) -> list[dict]:
    """Figure 4's final accuracies by scenario (one row each): mean and per seed with line 7's σ (the set
    ``"main"`` of :func:`run_sets`' result ``runs``) and, where ``runs`` has the set ``"client σ"``, with
    the σ the stated budgets require; and the mean client budget of each main run."""
    main, scenarios = list(runs["main"]), list(scenarios)
    client = list(runs["client σ"]) if "client σ" in runs else None
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
    scenarios = list(scenarios)
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
    scenarios = list(scenarios)
    paper_accuracy = V.real("paper_accuracy", paper_accuracy, low=0.0, high=100.0, scalar=True)
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

    records = list(records)
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
        pair = accountant.personalized_pair(
            b, dl, "randomized", randomizer="quaternary", reduction="clones"
        )
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
    seeds = [V.integer("seeds", s, low=0, high=2**32 - 1) for s in seeds]
    out = {}
    for order in ORDER_LABELS:
        orders = [schedule(reading(cfg, order), n, s)[1] for s in seeds]
        out[order] = {
            "linked": max(linked_positions(o) for o in orders),
            "redrawn": not any(epochs_share_order(o) for o in orders),
        }
    return out
