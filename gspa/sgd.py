"""Personalized private SGD with shuffling on MNIST (Algorithm 3, Table 3, Figure 4, Theorem 5).

Model: PCA to 60 components, one ReLU hidden layer (1,000 units: the paper does not say; Abadi et al.
2016, whose set-up this follows, used 1,000), softmax over 10 classes, cross-entropy.

Training (Algorithm 3 with Table 3's values): the n = 60,000 images are split into m = 100 clients
of 600; every epoch visits the clients in a fresh random order (the shuffle) and makes one noisy step
per client: g = the client's gradient, g~ = g / max(1, ||g|| / C), theta <- theta - eta (g~ + b),
b ~ N(0, sigma_i^2 I) with sigma_i = (2C/m) sqrt(2 log(1.25/delta)) / eps_i (line 7).

The text is ambiguous in three places; the literal reading is the default and the alternatives are
options of :class:`Config`:

* ``grad_divisor``: line 13 divides the sum of the client's per-example gradients by m while line 1
  says the subsets have size m. ``"subset"`` (default) takes the mean over the client's images;
  ``"m"`` divides by m = number of clients (6x the mean with 600 images per client).
* ``clip_mode``: line 14 clips the *averaged* gradient (``"average"``, default); ``"per_example"``
  clips every example's gradient first (Abadi et al.), done here with exact per-example norms.
* ``sigma_rule``: ``"paper"`` (line 7) or ``"client"``: sigma_i = 2C sqrt(2 log(1.25/delta)) / eps_i,
  the calibration that makes each client's released step (eps_i, delta)-DP for replace-one-client
  neighbours when the averaged gradient is clipped to C (sensitivity 2C).

Every (scenario, seed) run is independent: the seed fixes the initialisation, the split into clients
and the client order (the same for every scenario of a seed: common random numbers), and the noise
has its own generator keyed by seed and scenario. A run uses one core with the backward pass written
out on preallocated buffers; :func:`run_scenarios` trains runs in parallel processes.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
import zlib
from dataclasses import asdict, dataclass

import numpy as np

from . import _validate as V
from .results import write_json_atomic


@dataclass(frozen=True)
class Config:
    clip: float = 2.0            # C (Table 3)
    delta: float = 1e-5          # local delta (Table 3)
    lr: float = 0.05             # eta (Table 3)
    n_clients: int = 100         # m (Table 3)
    epochs: int = 50             # T (Table 3)
    hidden: int = 1000
    pca: int = 60
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
        for name, allowed in (("grad_divisor", ("subset", "m")), ("clip_mode", ("average", "per_example")),
                              ("sigma_rule", ("paper", "client"))):
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


def _generator(*key: int):
    """A torch generator seeded from integers through numpy's SeedSequence."""
    import torch
    hi, lo = np.random.SeedSequence([int(k) for k in key]).generate_state(2, np.uint32)
    return torch.Generator().manual_seed((int(hi) << 32) | int(lo))


def train(x_train, y_train, x_test, y_test, budgets, cfg: Config, seed: int, noise_key: int = 0,
          progress: bool = True, eval_chunk: int = 2000, row_chunk: int = 600, weights: dict | None = None):
    """Train one model with client budgets ``budgets`` (shape (n_clients,); all np.inf = non-private:
    no clipping, no noise) for cfg.epochs epochs. Returns the test accuracy per epoch and the seconds.

    ``seed`` fixes the initialisation, the split into clients and the client order of every epoch (the
    same for every scenario: common random numbers); the noise comes from its own generator keyed by
    (seed, ``noise_key``), so a run does not depend on which other runs exist. The backward pass is
    written out and works on preallocated buffers of at most ``row_chunk`` images, so the
    intermediates stay in cache; the logits are computed transposed (10 x rows), which is the fast
    layout for the 10-wide output layer. If ``weights`` is a dict, the final W1 (d, h), c1, W2 (h, 10)
    and c2 are stored in it."""
    import torch
    from tqdm.auto import tqdm

    budgets = np.asarray(budgets, dtype=float)
    if budgets.ndim != 1 or budgets.shape[0] != cfg.n_clients:
        raise ValueError(f"budgets must have shape (n_clients,) = ({cfg.n_clients},), got {budgets.shape}")
    V.integer("row_chunk", row_chunk, low=1)
    V.integer("eval_chunk", eval_chunk, low=1)
    n = x_train.shape[0]
    if n % cfg.n_clients:
        raise ValueError(f"n = {n} training images do not split into {cfg.n_clients} equal clients")
    sig = cfg.sigma(budgets)
    private = not np.isinf(budgets).all()
    gen, noise = _generator(seed), _generator(seed, noise_key)
    rng = np.random.default_rng(seed)
    X, Y = torch.as_tensor(x_train), torch.as_tensor(y_train)
    Xt, Yt = torch.as_tensor(x_test), torch.as_tensor(y_test)
    d, h = X.shape[1], cfg.hidden
    # torch.nn.Linear's default initialisation
    b1lim, b2lim = 1 / math.sqrt(d), 1 / math.sqrt(h)
    W1 = (torch.rand(d, h, generator=gen) * 2 - 1) * b1lim
    c1 = (torch.rand(h, generator=gen) * 2 - 1) * b1lim
    W2t = ((torch.rand(h, 10, generator=gen) * 2 - 1) * b2lim).T.contiguous()   # stored transposed (10, h)
    c2 = (torch.rand(10, generator=gen) * 2 - 1) * b2lim
    params = (W1, c1, W2t, c2)
    size = n // cfg.n_clients
    clients = torch.as_tensor(rng.permutation(n)).view(cfg.n_clients, size)    # fixed split
    divisor = size if cfg.grad_divisor == "subset" else cfg.n_clients
    R = min(row_chunk, size)
    hid, dh, lt = torch.empty(R, h), torch.empty(R, h), torch.empty(10, R)    # buffers
    grads = tuple(torch.empty_like(p) for p in params)
    gW1, gc1, gW2t, gc2 = grads
    buf = tuple(torch.empty_like(p) for p in params)
    cols = torch.arange(R)
    acc = np.zeros(cfg.epochs)
    t0 = time.perf_counter()
    for epoch in tqdm(range(cfg.epochs), desc=f"private SGD (seed {seed})", disable=not progress, leave=False):
        for c in rng.permutation(cfg.n_clients):
            idx = clients[c]
            for t in grads:
                t.zero_()
            for k in range(0, size, R):
                x, y = X[idx[k:k + R]], Y[idx[k:k + R]]
                r = x.shape[0]
                a, g, z = hid[:r], dh[:r], lt[:, :r]
                torch.addmm(c1, x, W1, out=a).relu_()                              # hidden (r, h)
                torch.addmm(c2[:, None], W2t, a.T, out=z)                          # logits^T (10, r)
                p = torch.softmax(z, 0)
                p[y, cols[:r]] -= 1.0                                             # d loss / d logits^T
                torch.mm(p.T, W2t, out=g)
                torch.ops.aten.threshold_backward.grad_input(g, a, 0.0, grad_input=g)   # ReLU'
                if cfg.clip_mode == "per_example" and private:
                    sq = ((x * x).sum(1) + 1.0) * (g * g).sum(1) + ((a * a).sum(1) + 1.0) * (p * p).sum(0)
                    w = torch.clamp(cfg.clip / torch.sqrt(sq + 1e-30), max=1.0)   # ||g_j||^2 exactly
                    p.mul_(w)
                    g.mul_(w[:, None])
                gW1.addmm_(x.T, g)
                gc1.add_(g.sum(0))
                gW2t.addmm_(p, a)
                gc2.add_(p.sum(1))
            scale = cfg.lr / divisor
            if private and cfg.clip_mode == "average":
                norm = math.sqrt(sum(float(torch.dot(t.view(-1), t.view(-1))) for t in grads)) / divisor
                scale *= min(1.0, cfg.clip / (norm + 1e-30))
            for prm, grd, b in zip(params, grads, buf):
                prm.add_(grd, alpha=-scale)
                if sig[c] > 0:
                    prm.add_(torch.randn(b.shape, generator=noise, out=b), alpha=-cfg.lr * float(sig[c]))
        correct = 0
        for k in range(0, Xt.shape[0], eval_chunk):                   # chunked: memory stays small
            ht = torch.addmm(c1, Xt[k:k + eval_chunk], W1).relu_()
            pred = torch.addmm(c2[:, None], W2t, ht.T).argmax(0)
            correct += int((pred == Yt[k:k + eval_chunk]).sum())
        acc[epoch] = correct / Xt.shape[0]
    if weights is not None:
        weights.update(W1=W1, c1=c1, W2=W2t.T, c2=c2)
    return acc, time.perf_counter() - t0


ALGORITHM = 2   # bump when train() changes its numbers: part of the cache key of run_scenarios


def config_hash(cfg: Config, data_id: str) -> str:
    """Cache key of runs: each run depends only on the configuration, the data and (scenario, seed)."""
    blob = json.dumps({"cfg": asdict(cfg), "data": data_id, "algorithm": ALGORITHM}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def scenario_budgets(name: str, seed: int, n_clients: int) -> np.ndarray:
    """Client budgets of one run: Table 2's draw for ``name`` keyed by (seed, name); inf if 'Non-private'."""
    from .scenarios import budgets as draw
    if name == "Non-private":
        return np.full(n_clients, np.inf)
    return draw(name, n_clients, np.random.default_rng([seed, zlib.crc32(name.encode())]))


_DATA = None


def _init_worker(data):
    global _DATA
    _DATA = data


def run_one(name: str, seed: int, cfg: Config, data=None):
    """One (scenario, seed) run as a record (see :func:`run_scenarios`), on one intra-op thread so
    its numbers do not depend on how many runs go in parallel. ``data`` defaults to the worker's."""
    import torch
    data = _DATA if data is None else data
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        b = scenario_budgets(name, seed, cfg.n_clients)
        acc, secs = train(*data, b, cfg, seed, noise_key=zlib.crc32(name.encode()), progress=False)
    finally:
        torch.set_num_threads(threads)
    return {"scenario": name, "seed": int(seed), "budgets": [None if np.isinf(v) else float(v) for v in b],
            "accuracy": acc.tolist(), "seconds": secs, "config": asdict(cfg)}


def run_scenarios(data, scenario_names, seeds, cfg: Config, cache_dir, data_id: str, progress=True,
                  workers: int = 1):
    """Train every scenario (Table 2 names, 'Unif 3', or 'Non-private') for every seed, resuming
    from per-(scenario, seed) result files in ``cache_dir/<config hash>/``; runs that are missing are
    trained in ``workers`` parallel processes, one core each. Returns a list of records {scenario,
    seed, budgets, accuracy (per epoch), seconds}, in the order of the seeds, then the names."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context
    from tqdm.auto import tqdm

    V.integer("workers", workers, low=1)
    out_dir = os.path.join(cache_dir, config_hash(cfg, data_id))
    keys = [(name, int(seed)) for seed in seeds for name in scenario_names]
    path = {k: os.path.join(out_dir, f"{k[0].replace(' ', '_')}__seed{k[1]}.json") for k in keys}
    done = {}
    for k in keys:
        if os.path.exists(path[k]):
            with open(path[k]) as fh:
                done[k] = json.load(fh)
    todo = [k for k in keys if k not in done]
    bar = tqdm(total=len(todo), desc=f"private SGD runs ({cfg.epochs} epochs each)", disable=not progress or not todo)

    def save(k, rec):
        write_json_atomic(path[k], rec)
        done[k] = rec
        bar.update()

    if workers == 1 or len(todo) <= 1:
        for k in todo:
            save(k, run_one(*k, cfg, data))
    else:
        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=get_context("spawn"),
                                 initializer=_init_worker, initargs=(data,)) as pool:
            futures = {pool.submit(run_one, *k, cfg): k for k in todo}
            try:
                for fut in as_completed(futures):
                    save(futures[fut], fut.result())
            except BaseException:
                pool.shutdown(cancel_futures=True)       # finished runs stay saved; the rest stop
                raise
    bar.close()
    return [done[k] for k in keys]


def client_epsilon(cfg: Config, eps_i, delta=None) -> np.ndarray:
    """The (eps, delta)-LDP a client's step really has with ``cfg``'s noise, for delta = cfg.delta.

    Replace-one-client neighbours: with ``clip_mode='average'`` the released vector g~ has norm <= C,
    so its sensitivity is 2C; with ``'per_example'`` and the subset mean it is still 2C for a whole
    client (every example may change). Exact Gaussian profile (Fact 3 with mu = 2C / sigma)."""
    from .fdp import gdp_epsilon
    delta = cfg.delta if delta is None else delta
    sig = cfg.sigma(np.atleast_1d(eps_i))
    return np.array([np.inf if s == 0 else gdp_epsilon(delta, 2.0 * cfg.clip / s) for s in sig])
