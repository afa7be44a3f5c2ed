import math

import numpy as np
import pytest
import torch

from gspa.experiments import federated as F
from gspa.experiments import mnist
from gspa.studies.flame import protocols as P

torch.set_num_threads(1)

N, D, C = 40, 25, 0.5


def updates(seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(N, D, generator=g) * C  # about a third of the values get clipped


def gen(*k):
    return F.generator(*k)


def test_laplace_blanket_is_laplace_at_one_half_with_mass_exp_minus_eps_over_2():
    eps = 0.7
    y = np.linspace(-25, 26, 60_001)
    xs = np.linspace(0, 1, 101)
    dens = (eps / 2) * np.exp(-eps * np.abs(y[:, None] - xs[None, :]))
    low = dens.min(1)  # the blanket's unnormalised density
    mass = np.trapezoid(low, y) if hasattr(np, "trapezoid") else np.trapz(low, y)
    assert abs(mass - math.exp(-eps / 2)) < 1e-4
    assert np.allclose(low / mass, (eps / 2) * np.exp(-eps * np.abs(y - 0.5)), atol=1e-5)


def test_laplace_sampler_moments():
    s = P.laplace((400_000,), 2.0, gen(1), loc=0.5).double()
    assert torch.isfinite(s).all()
    assert abs(float(s.mean()) - 0.5) < 5 * math.sqrt(8 / 4e5)
    assert abs(float(s.var()) / 8 - 1) < 0.03


def test_laplace_transformation_is_finite_and_symmetric_for_every_float32_uniform():
    u = torch.arange(2**24, dtype=torch.float64).float() * 2.0**-24  # all of torch.rand's values
    y = P.laplace_from_uniform(u, 1.0)
    assert torch.isfinite(y).all() and float((y + y.flip(0)).abs().max()) == 0.0
    assert abs(float(y.double().mean())) < 1e-9 and abs(float(y.double().var()) - 2) < 1e-4


def case(protocol):
    """Parameters for the Monte-Carlo checks and the (target, variance) of each coordinate of z."""
    x = updates()
    xb, xt = F.clip_and_map(x, C)
    a = (xt - 0.5).double()
    if protocol == "NP-FL":
        p = P.Params(n=N, n_users=N)
        return p, x, x.mean(0).double(), torch.zeros(D, dtype=torch.float64)
    if protocol == "DP-FL":
        p = P.Params(n=N, n_users=N, clip_l2=1.0, eps=2.0, delta=1e-3)
        s = (2 * 1.0 / 2.0) * math.sqrt(2 * math.log(1.25e3))
        return (
            p,
            x,
            F.clip_l2(x, 1.0).mean(0).double(),
            torch.full((D,), s * s / N**2, dtype=torch.float64),
        )
    if protocol.startswith("LDP-FL"):
        mech, beta = ("gaussian", 1.0) if protocol == "LDP-FL-g" else ("laplace", 0.4)
        p = P.Params(n=N, n_users=N, clip=C, eps=20.0, delta=1e-3, mechanism=mech, beta=beta)
        k = P.sample_size(beta, D)
        e = p.eps / k
        s2 = 2 * math.log(1.25e3) / e**2 if mech == "gaussian" else 2 / e**2
        var = (2 * C / (N * beta)) ** 2 * (
            beta * (N * s2 + (a**2).sum(0)) - beta**2 * (a**2).sum(0)
        )
        return p, x, xb.mean(0).double(), var
    if protocol == "SS-Simple":
        p = P.Params(n=N, n_users=N, clip=C, eps=1.5)
        return (
            p,
            x,
            xb.mean(0).double(),
            torch.full((D,), (2 * C / N) ** 2 * N * 2 / 1.5**2, dtype=torch.float64),
        )
    beta, n_p, eps = 0.2, N, 1.5
    b2 = 2 / eps**2
    if protocol == "SS-Double":
        p = P.Params(n=N, n_users=N, clip=C, eps=eps, beta=beta, n_p=n_p)
        var = (2 * C / (N * beta)) ** 2 * (n_p * b2 + beta * (1 - beta) * (a**2).sum(0))
        return p, x, xb.mean(0).double(), var
    l = 1 if protocol == "SS-Topk" else 3
    p = P.Params(n=N, n_users=N, clip=C, eps=eps, beta=beta, n_p=n_p, l=l)
    top = torch.zeros(N, D, dtype=torch.bool).scatter_(1, P.topk_select(x.abs(), 5), True)
    target = (xb * top).sum(0).double() / (N * beta)  # the Top-k sparsified sum over n beta
    return p, x, target, torch.full((D,), (2 * C / (N * beta)) ** 2 * n_p * b2, dtype=torch.float64)


@pytest.mark.parametrize(
    "protocol",
    ["NP-FL", "DP-FL", "LDP-FL-g", "LDP-FL-l", "SS-Simple", "SS-Double", "SS-Topk", "SS-Topk-l3"],
)
def test_analyzer_estimate_is_unbiased_with_the_predicted_variance(protocol):
    """Monte Carlo over R rounds: every coordinate's mean within 4.5 standard errors of its target
    (the standard error from the derived variance), and the empirical variances match the derived ones."""
    p, x, target, var = case(protocol)
    name = (
        protocol.split("-g")[0].split("-l")[0]
        if protocol.startswith(("LDP", "SS-Topk-"))
        else protocol
    )
    name = "SS-Topk" if protocol.startswith("SS-Topk") else name
    R = 1500
    z = torch.stack([P.aggregate(name, x, p, gen(r, 1), gen(r, 2)).double() for r in range(R)])
    if name == "NP-FL":
        assert torch.allclose(z[0], target, atol=1e-6)
        return
    zs = (z.mean(0) - target) / torch.sqrt(var / R)
    assert zs.abs().max() < 4.5, zs
    ratio = float((z.var(0) / var).mean())
    assert 0.9 < ratio < 1.1, ratio


def test_padding_makes_every_dimension_hold_exactly_n_p_values():
    p = P.Params(n=N, n_users=N, clip=C, eps=1.0, beta=0.2, n_p=17, l=1)
    idx, vals = P.randomize("SS-Double", updates(), p, gen(0))
    sums, counts, dummies, dropped = P.pad(idx, vals, D, 17, 1.0, gen(1))
    assert torch.equal(counts, torch.full((D,), 17)) and dummies == D * 17 - idx.numel()
    real = torch.zeros(D, dtype=torch.float64).index_add_(
        0, idx.reshape(-1), vals.reshape(-1).double()
    )
    assert not torch.allclose(sums, real)  # dummies were added
    with pytest.raises(
        ValueError,
        match=r"n_p must be >= \d+, the number of values dimension \d+ received.*got n_p = 3",
    ):
        P.pad(idx, vals, D, 3, 1.0, gen(1))
    assert dropped == 0
    most = int(torch.bincount(idx.reshape(-1), minlength=D).max())
    sums, counts, dummies, dropped = P.pad(idx, vals, D, most - 1, 1.0, gen(1), overflow="drop")
    assert torch.equal(counts, torch.full((D,), most - 1)) and dropped >= 1
    excess = int((torch.bincount(idx.reshape(-1), minlength=D) - (most - 1)).clamp_min(0).sum())
    assert dropped == excess and idx.numel() - dropped + dummies == D * (
        most - 1
    )  # kept + dummies = n_p d


def test_topk_selects_the_largest_magnitudes_and_blanket_indexes_avoid_them():
    x = updates(3)
    top = P.topk_select(x.abs(), 5)
    truth = np.argsort(-np.abs(x.numpy()), axis=1)[:, :5]
    assert all(set(a) == set(b) for a, b in zip(top.numpy(), truth))
    p = P.Params(n=N, n_users=N, clip=C, eps=1.0, beta=0.2, n_p=N, l=3)
    idx, vals = P.randomize("SS-Topk", x, p, gen(0))
    assert idx.shape == (N, 15) and vals.shape == (N, 15)
    assert all(set(r[:5]) == set(b) for r, b in zip(idx.numpy(), truth))
    assert all(len(set(r)) == 15 for r in idx.numpy())  # blanket indexes distinct, not in the Top-k
    small = x * 0.1  # no clipping, so no ties in x~
    mapped = P.randomize("SS-Topk", small, P.replace(p, topk_by="mapped"), gen(0))[0][:, :5]
    assert all(
        set(r) == set(np.argsort(-small.numpy()[i])[:5]) for i, r in enumerate(mapped.numpy())
    )


def test_uniform_subset_is_distinct_and_uniform():
    s = P.uniform_subset(4000, 10, 3, gen(5))
    assert all(len(set(r)) == 3 for r in s[:200].numpy())
    freq = torch.bincount(s.reshape(-1), minlength=10).double() / 4000
    assert (freq - 0.3).abs().max() < 5 * math.sqrt(0.3 * 0.7 / 4000)


def test_same_seed_same_estimate():
    p = P.Params(n=N, n_users=N, clip=C, eps=1.0, beta=0.2, n_p=N, l=2)
    x = updates()
    for proto in P.PROTOCOLS:
        q = P.replace(p, beta=1.0) if proto == "LDP-FL" else p
        a = P.aggregate(proto, x, q, gen(7, 1), gen(7, 2))
        assert torch.equal(a, P.aggregate(proto, x, q, gen(7, 1), gen(7, 2)))
        if proto != "NP-FL":
            assert not torch.equal(a, P.aggregate(proto, x, q, gen(8, 1), gen(8, 2)))


@pytest.mark.parametrize(
    "change, message",
    [
        ({"n_p": 2}, r"n_p must be >= 8 .*got 2"),
        ({"l": 6}, r"l must be an integer in \[1, 5\].*got 6"),
        ({"nu": 1.0, "l": 2}, r"l must be an integer in \[5, 5\] for nu = 1.0.*got 2"),
        ({"beta": 0.01}, r"beta = 0.01 gives k = floor\(beta d\) = 0 .*\[0.04, 1\]"),
    ],
)
def test_bad_parameters_are_rejected_with_name_value_and_range(change, message):
    base = dict(n=N, n_users=N, clip=C, eps=1.0, beta=0.2, n_p=N, l=1)
    with pytest.raises(ValueError, match=message):
        P.check("SS-Topk", P.Params(**{**base, **change}), D)


def tiny_users():
    d = mnist.synthetic(1400, 10, seed=0)
    x = F.standardize(np.concatenate([d.x_train, d.x_test]))
    return F.partition(x, np.concatenate([d.y_train, d.y_test]), 100, seed=0)


def test_tiny_run_learns_caches_and_resumes(tmp_path):
    u = tiny_users()
    p = P.Params(n=50, n_users=100)
    kw = dict(data=u, data_id="synthetic-test")
    acc = P.run("NP-FL", p, 0, 4, progress=False, cache_dir=tmp_path / "a", **kw)
    assert acc.shape == (5,) and acc[-1] > 0.5 > 0.1 + 0.2 and acc[-1] > acc[0]
    assert np.array_equal(
        acc, P.run("NP-FL", p, 0, 4, progress=False, cache_dir=tmp_path / "b", **kw)
    )
    q = P.Params(n=50, n_users=100, eps=1.0, beta=0.1, n_p=50)
    short = P.run("SS-Topk", q, 1, 2, progress=False, cache_dir=tmp_path / "c", **kw)
    longer = P.run(
        "SS-Topk", q, 1, 4, progress=False, cache_dir=tmp_path / "c", **kw
    )  # resumes at round 2
    fresh = P.run("SS-Topk", q, 1, 4, progress=False, cache_dir=tmp_path / "d", **kw)
    assert np.array_equal(longer, fresh) and np.array_equal(longer[:3], short)
    assert not np.array_equal(
        fresh, P.run("SS-Topk", q, 2, 4, progress=False, cache_dir=tmp_path / "d", **kw)
    )
    rec = P.run_record(
        "SS-Topk", q, 1, 3, False, cache_dir=tmp_path / "c", **kw
    )  # a prefix of the checkpoint
    assert rec["accuracy"] == list(fresh[:4]) and set(rec["timings"]) >= {
        "training",
        "randomizer",
        "shuffler",
    }
    many = P.run_many(
        [("SS-Topk", q, 1), ("NP-FL", p, 0)],
        4,
        data=u,
        cache_dir=tmp_path / "c",
        data_id="synthetic-test",
        progress=False,
    )
    assert many[0]["accuracy"] == list(fresh) and many[1]["accuracy"] != many[0]["accuracy"]
