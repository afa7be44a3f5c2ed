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

All scenarios of one seed train together as a batch of independent models that share each step's
inputs (one batched matrix product), with the backward pass written out by hand. Every scenario sees
the same client order and initialisation within a seed (common random numbers); budgets differ.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
import zlib
from dataclasses import asdict, dataclass, field

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


def flops_per_epoch(cfg: Config, n_train: int, n_test: int, n_models: int) -> float:
    """Floating-point operations of one epoch (training steps + test evaluation) for ``n_models``."""
    d, h = cfg.pca, cfg.hidden
    train = 2 * n_train * (d * h + h * 10) + 2 * n_train * (h * 10 + 10 * h + d * h)
    test = 2 * n_test * (d * h + h * 10)
    return float(n_models * (train + test))


def train(x_train, y_train, x_test, y_test, budgets: np.ndarray, cfg: Config, seed: int,
          progress: bool = True, eval_chunk: int = 2000):
    """Train one model per row of ``budgets`` (shape (S, n_clients); np.inf = non-private) for
    cfg.epochs epochs. Returns test accuracy per epoch, shape (S, epochs), and timing."""
    import torch
    from tqdm.auto import tqdm

    budgets = np.atleast_2d(np.asarray(budgets, dtype=float))
    S = budgets.shape[0]
    if budgets.shape[1] != cfg.n_clients:
        raise ValueError(f"budgets must have n_clients = {cfg.n_clients} columns, got {budgets.shape[1]}")
    n = x_train.shape[0]
    if n % cfg.n_clients:
        raise ValueError(f"n = {n} training images do not split into {cfg.n_clients} equal clients")
    gen = torch.Generator().manual_seed(int(seed))
    rng = np.random.default_rng(seed)
    X = torch.as_tensor(x_train)
    Y = torch.as_tensor(y_train)
    Xt, Yt = torch.as_tensor(x_test), torch.as_tensor(y_test)
    d, h = X.shape[1], cfg.hidden
    # torch.nn.Linear's default initialisation, the same for every scenario
    b1lim, b2lim = 1 / math.sqrt(d), 1 / math.sqrt(h)
    W1 = ((torch.rand(d, h, generator=gen) * 2 - 1) * b1lim).expand(S, d, h).clone()
    c1 = ((torch.rand(h, generator=gen) * 2 - 1) * b1lim).expand(S, h).clone()
    W2t = ((torch.rand(h, 10, generator=gen) * 2 - 1) * b2lim).T.expand(S, 10, h).contiguous()  # stored transposed
    c2 = ((torch.rand(10, generator=gen) * 2 - 1) * b2lim).expand(S, 10).clone()
    sig = torch.as_tensor(cfg.sigma(budgets), dtype=torch.float32)          # (S, n_clients)
    private = torch.as_tensor(~np.isinf(budgets).all(axis=1))               # (S,)
    size = n // cfg.n_clients
    clients = torch.as_tensor(rng.permutation(n)).view(cfg.n_clients, size)  # fixed split
    divisor = size if cfg.grad_divisor == "subset" else cfg.n_clients
    acc = np.zeros((S, cfg.epochs))
    t0 = time.perf_counter()
    for epoch in tqdm(range(cfg.epochs), desc=f"private SGD (seed {seed})", disable=not progress, leave=False):
        for c in rng.permutation(cfg.n_clients):
            idx = clients[c]
            xb, yb = X[idx], Y[idx]                                   # (B, d)
            hid = torch.relu(torch.baddbmm(c1[:, None, :], xb.expand(S, size, d), W1))      # (S, B, h)
            logits = torch.baddbmm(c2[:, None, :], hid, W2t.transpose(1, 2))                # (S, B, 10)
            dlog = torch.softmax(logits, dim=-1)
            dlog[:, torch.arange(size), yb] -= 1.0                    # d loss_j / d logits_j
            dh = torch.ops.aten.threshold_backward(torch.bmm(dlog, W2t), hid, 0.0)          # ReLU'
            if cfg.clip_mode == "per_example":
                sq = ((xb * xb).sum(1) + 1.0)[None, :] * (dh * dh).sum(-1) \
                    + ((hid * hid).sum(-1) + 1.0) * (dlog * dlog).sum(-1)          # ||g_j||^2 exactly
                w = torch.clamp(cfg.clip / torch.sqrt(sq + 1e-30), max=1.0)
                w = torch.where(private[:, None], w, torch.ones_like(w))
                dlog, dh = dlog * w[..., None], dh * w[..., None]
            gW1 = torch.matmul(xb.T, dh) / divisor                    # (S, d, h)
            gc1 = dh.sum(1) / divisor
            gW2t = torch.bmm(dlog.transpose(1, 2).contiguous(), hid) / divisor   # (S, 10, h)
            gc2 = dlog.sum(1) / divisor
            if cfg.clip_mode == "average":
                norm = torch.sqrt((gW1 ** 2).sum((1, 2)) + (gc1 ** 2).sum(1) + (gW2t ** 2).sum((1, 2)) + (gc2 ** 2).sum(1))
                f = torch.where(private, torch.clamp(cfg.clip / (norm + 1e-30), max=1.0), torch.ones_like(norm))
                gW1, gc1, gW2t, gc2 = gW1 * f[:, None, None], gc1 * f[:, None], gW2t * f[:, None, None], gc2 * f[:, None]
            s = sig[:, c]
            W1 -= cfg.lr * (gW1 + s[:, None, None] * torch.randn(W1.shape, generator=gen))
            c1 -= cfg.lr * (gc1 + s[:, None] * torch.randn(c1.shape, generator=gen))
            W2t -= cfg.lr * (gW2t + s[:, None, None] * torch.randn(W2t.shape, generator=gen))
            c2 -= cfg.lr * (gc2 + s[:, None] * torch.randn(c2.shape, generator=gen))
        correct = torch.zeros(S)
        for k in range(0, Xt.shape[0], eval_chunk):                   # chunked: memory stays small
            ht = torch.relu(torch.matmul(Xt[k:k + eval_chunk], W1) + c1[:, None, :])
            pred = (torch.matmul(ht, W2t.transpose(1, 2)) + c2[:, None, :]).argmax(-1)
            correct += (pred == Yt[k:k + eval_chunk]).sum(-1)
        acc[:, epoch] = (correct / Xt.shape[0]).numpy()
    return acc, time.perf_counter() - t0


def config_hash(cfg: Config, data_id: str, scenario_spec: dict) -> str:
    blob = json.dumps({"cfg": asdict(cfg), "data": data_id, "scenarios": scenario_spec}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def run_scenarios(data, scenario_names, seeds, cfg: Config, cache_dir, data_id: str, progress=True):
    """Train every scenario (Table 2 names, 'Unif 3', or 'Non-private') for every seed, resuming
    from per-(scenario, seed) result files in ``cache_dir/<config hash>/``. Returns a list of
    records {scenario, seed, budgets, accuracy (per epoch), seconds}."""
    from .scenarios import budgets as draw

    spec = {"names": list(scenario_names)}
    out_dir = os.path.join(cache_dir, config_hash(cfg, data_id, spec))
    records = []
    for seed in seeds:
        todo, rows = [], []
        for name in scenario_names:
            path = os.path.join(out_dir, f"{name.replace(' ', '_')}__seed{seed}.json")
            if os.path.exists(path):
                with open(path) as fh:
                    records.append(json.load(fh))
                continue
            if name == "Non-private":
                b = np.full(cfg.n_clients, np.inf)
            else:
                b = draw(name, cfg.n_clients, np.random.default_rng([seed, zlib.crc32(name.encode())]))
            todo.append((name, path))
            rows.append(b)
        if not todo:
            continue
        acc, secs = train(data[0], data[1], data[2], data[3], np.array(rows), cfg, seed, progress)
        for (name, path), b, a in zip(todo, rows, acc):
            rec = {"scenario": name, "seed": int(seed), "budgets": [None if np.isinf(v) else float(v) for v in b],
                   "accuracy": a.tolist(), "seconds": secs / len(todo), "config": asdict(cfg)}
            write_json_atomic(path, rec)
            records.append(rec)
    return records


def client_epsilon(cfg: Config, eps_i, delta=None) -> np.ndarray:
    """The (eps, delta)-LDP a client's step really has with ``cfg``'s noise, for delta = cfg.delta.

    Replace-one-client neighbours: with ``clip_mode='average'`` the released vector g~ has norm <= C,
    so its sensitivity is 2C; with ``'per_example'`` and the subset mean it is still 2C for a whole
    client (every example may change). Exact Gaussian profile (Fact 3 with mu = 2C / sigma)."""
    from .fdp import gdp_epsilon
    delta = cfg.delta if delta is None else delta
    sig = cfg.sigma(np.atleast_1d(eps_i))
    return np.array([np.inf if s == 0 else gdp_epsilon(delta, 2.0 * cfg.clip / s) for s in sig])
