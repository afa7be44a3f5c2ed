import math

import numpy as np
import pytest
import torch

from gspa import mnist, sgd


def test_config_validation_and_sigma():
    cfg = sgd.Config()
    assert cfg.sigma([0.5])[0] == pytest.approx((2 * 2 / 100) * math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5)
    assert sgd.Config(sigma_rule="client").sigma([0.5])[0] == pytest.approx(100 * cfg.sigma([0.5])[0])
    assert cfg.sigma([np.inf])[0] == 0.0
    with pytest.raises(ValueError, match="budgets must be > 0"):
        cfg.sigma([0.0])
    with pytest.raises(ValueError, match="clip_mode"):
        sgd.Config(clip_mode="weird")
    with pytest.raises(ValueError, match="clip"):
        sgd.Config(clip=-1.0)


def test_per_example_norm_identity_matches_autograd():
    torch.manual_seed(0)
    d, h, B = 5, 7, 4
    x, y = torch.randn(B, d), torch.randint(0, 10, (B,))
    W1, c1 = torch.randn(d, h, requires_grad=True), torch.randn(h, requires_grad=True)
    W2, c2 = torch.randn(h, 10, requires_grad=True), torch.randn(10, requires_grad=True)
    norms = []
    for j in range(B):
        loss = torch.nn.functional.cross_entropy((torch.relu(x[j] @ W1 + c1) @ W2 + c2)[None], y[j:j + 1])
        g = torch.autograd.grad(loss, (W1, c1, W2, c2))
        norms.append(sum((t ** 2).sum() for t in g).item())
    with torch.no_grad():
        pre = x @ W1 + c1
        hid = torch.relu(pre)
        dlog = torch.softmax(hid @ W2 + c2, -1)
        dlog[torch.arange(B), y] -= 1
        dh = (dlog @ W2.T) * (pre > 0)
        sq = ((x * x).sum(1) + 1) * (dh * dh).sum(1) + ((hid * hid).sum(1) + 1) * (dlog * dlog).sum(1)
    assert np.allclose(sq.numpy(), norms, rtol=1e-5)


def test_training_learns_and_noise_hurts_and_is_reproducible():
    torch.set_num_threads(1)
    d = mnist.synthetic(3000, 500, seed=1)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 20)
    cfg = sgd.Config(epochs=3, hidden=64, pca=20)
    B = np.array([np.full(100, np.inf), np.full(100, 0.01)])
    acc, _ = sgd.train(xtr, d.y_train, xte, d.y_test, B, cfg, seed=0, progress=False)
    assert acc[0, -1] > 0.8 and acc[0, -1] > acc[1, -1]
    acc2, _ = sgd.train(xtr, d.y_train, xte, d.y_test, B, cfg, seed=0, progress=False)
    assert np.array_equal(acc, acc2)
    with pytest.raises(ValueError, match="n_clients"):
        sgd.train(xtr, d.y_train, xte, d.y_test, np.ones((1, 7)), cfg, seed=0, progress=False)


def test_run_scenarios_resumes_from_saved_results(tmp_path):
    torch.set_num_threads(1)
    d = mnist.synthetic(1000, 200, seed=2)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 10)
    data = (xtr, d.y_train, xte, d.y_test)
    cfg = sgd.Config(epochs=1, hidden=16, pca=10)
    r1 = sgd.run_scenarios(data, ["Constant", "Non-private"], [0], cfg, tmp_path, "synthetic", progress=False)
    files = sorted(p.name for p in tmp_path.rglob("*.json"))
    assert len(files) == 2
    r2 = sgd.run_scenarios(data, ["Constant", "Non-private"], [0], cfg, tmp_path, "synthetic", progress=False)
    assert [r["accuracy"] for r in r1] == [r["accuracy"] for r in r2]
