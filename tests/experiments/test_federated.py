import math

import numpy as np
import pytest
import torch

from gspa.experiments import federated as F

torch.set_num_threads(1)


def test_standardize_per_pixel():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (500, 784)) / 256.0
    x[:, 3] = 0.0  # a constant pixel maps to 0, not NaN
    s = F.standardize(x)
    assert np.isfinite(s).all() and np.allclose(s[:, 3], 0)
    p = x * 256
    assert np.allclose(s[:, 7], (p[:, 7] - p[:, 7].mean()) / (p[:, 7].std() + 1e-3), atol=1e-5)
    with pytest.raises(ValueError, match="eps"):
        F.standardize(x, eps=0)


def test_partition_gives_each_user_one_image_per_digit_and_no_image_twice():
    rng = np.random.default_rng(1)
    y = np.repeat(np.arange(10), 40)
    x = rng.random((400, 784)).astype(np.float32)
    x[:, 0] = np.arange(400)  # identifies the image
    u = F.partition(x, y, 30, per_user=10, train_per_user=7, seed=3)
    assert u.x.shape == (30, 7, 784) and u.y.shape == (30, 7) and u.x_test.shape == (90, 784)
    ids = np.concatenate([u.x[:, :, 0].ravel(), u.x_test[:, 0]]).astype(int)
    assert len(set(ids)) == 300 and (y[ids] == np.concatenate([u.y.ravel(), u.y_test])).all()
    per_user = np.concatenate([u.y, u.y_test.reshape(30, 3)], 1)
    assert all(sorted(r) == list(range(10)) for r in per_user)
    again = F.partition(x, y, 30, seed=3)
    assert np.array_equal(again.x, u.x) and not np.array_equal(F.partition(x, y, 30, seed=4).x, u.x)
    with pytest.raises(ValueError, match="class"):
        F.partition(x, y, 41)
    with pytest.raises(ValueError, match="train_per_user"):
        F.partition(x, y, 10, per_user=10, train_per_user=11)


def reference_update(theta, x, y, lr, steps, l2=0.0):
    """One user at a time with autograd: the ground truth for the batched local training."""
    out = []
    for i in range(x.shape[0]):
        t = theta.clone().requires_grad_(True)
        for _ in range(steps):
            w, b = F.unflatten(t)
            loss = torch.nn.functional.cross_entropy(x[i] @ w + b, y[i]) + l2 / 2 * (w * w).sum()
            (g,) = torch.autograd.grad(loss, t)
            t = (t - lr * g).detach().requires_grad_(True)
        out.append(t.detach() - theta)
    return torch.stack(out)


def test_batched_local_training_matches_per_user_autograd():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 5, 784, generator=g, dtype=torch.float64)
    y = torch.randint(0, 10, (4, 5), generator=g)
    theta = F.init_theta(2).double()
    got = F.local_updates(theta, x, y, lr=0.1, steps=3)
    assert got.shape == (4, F.DIM)
    assert torch.allclose(got, reference_update(theta, x, y, 0.1, 3), atol=1e-10)
    # weight decay (the bias is not decayed), more steps, a user with one image
    got = F.local_updates(theta, x, y, lr=0.05, steps=7, l2=0.3)
    assert torch.allclose(got, reference_update(theta, x, y, 0.05, 7, l2=0.3), atol=1e-10)
    one = F.local_updates(theta, x[:, :1], y[:, :1], lr=0.2, steps=4)
    assert torch.allclose(one, reference_update(theta, x[:, :1], y[:, :1], 0.2, 4), atol=1e-10)
    assert torch.equal(
        F.local_updates(theta, x, y, lr=0.1, steps=0), torch.zeros(4, F.DIM, dtype=x.dtype)
    )
    with pytest.raises(ValueError, match="lr"):
        F.local_updates(theta, x, y, lr=0.0, steps=1)


def test_clip_and_map_and_l2_clip():
    x = torch.tensor([[-3.0, -0.5, 0.0, 0.25, 9.0]])
    xb, xt = F.clip_and_map(x, 1.0)
    assert torch.equal(xb, torch.tensor([[-1.0, -0.5, 0.0, 0.25, 1.0]]))
    assert torch.allclose(xt, torch.tensor([[0.0, 0.25, 0.5, 0.625, 1.0]]))
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match=r"C must lie in \(0, inf\]"):
            F.clip_and_map(x, bad)
    y = F.clip_l2(torch.tensor([[3.0, 4.0], [0.3, 0.4]]), 1.0)
    assert torch.allclose(y, torch.tensor([[0.6, 0.8], [0.3, 0.4]]))


def test_analyze_is_algorithm2_lines_18_19_for_full_reports():
    rng = np.random.default_rng(0)
    y = rng.random((50, 6))
    C = 0.3
    z = F.analyze(y.sum(0), np.full(6, 50.0), 50, 1.0, C)
    assert np.allclose(z, C * (2 * y.mean(0) - 1))
    with pytest.raises(ValueError, match="beta"):
        F.analyze(y.sum(0), np.full(6, 50.0), 50, 0.0, C)
    with pytest.raises(ValueError, match="C"):
        F.analyze(y.sum(0), np.full(6, 50.0), 50, 1.0, 0.0)


def test_init_and_accuracy():
    t = F.init_theta(5)
    assert torch.equal(t, F.init_theta(5)) and not torch.equal(t, F.init_theta(6))
    w, b = F.unflatten(t)
    assert w.shape == (784, 10) and torch.all(b == 0) and w.abs().max() <= math.sqrt(6 / 794)
    x = torch.randn(30, 784)
    labels = (x @ w + b).argmax(1)
    assert F.accuracy(t, x, labels) == 1.0 and F.accuracy(t, x, (labels + 1) % 10) == 0.0


def test_checkpoint_roundtrip_and_damaged_file(tmp_path):
    p = tmp_path / "a" / "state.npz"
    assert F.load_checkpoint(p) is None
    F.save_checkpoint(
        p, theta=np.arange(3.0), accuracy=[0.1, 0.2], t=1, seconds=2.5, timings={"training": 1.0}
    )
    ck = F.load_checkpoint(p)
    assert ck["t"] == 1 and ck["accuracy"] == [0.1, 0.2] and ck["timings"] == {"training": 1.0}
    assert list(tmp_path.joinpath("a").iterdir()) == [p]  # no temporary file left
    p.write_bytes(b"garbage")
    assert F.load_checkpoint(p) is None
