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


def reference_train(x, y, budgets, cfg, seed, noise_key):
    """Algorithm 3 written plainly with autograd, drawing from the same generators as sgd.train."""
    gen, noise = sgd._generator(seed), sgd._generator(seed, noise_key)
    rng = np.random.default_rng(seed)
    X, Y = torch.as_tensor(x), torch.as_tensor(y)
    d, h = X.shape[1], cfg.hidden
    W1 = (torch.rand(d, h, generator=gen) * 2 - 1) / math.sqrt(d)
    c1 = (torch.rand(h, generator=gen) * 2 - 1) / math.sqrt(d)
    W2 = (torch.rand(h, 10, generator=gen) * 2 - 1) / math.sqrt(h)
    c2 = (torch.rand(10, generator=gen) * 2 - 1) / math.sqrt(h)
    size = X.shape[0] // cfg.n_clients
    clients = torch.as_tensor(rng.permutation(X.shape[0])).view(cfg.n_clients, size)
    divisor = size if cfg.grad_divisor == "subset" else cfg.n_clients
    sig = cfg.sigma(budgets)
    private = not np.isinf(budgets).all()

    def grads(xs, ys, params):
        params = [p.clone().requires_grad_() for p in params]
        W1, c1, W2, c2 = params
        loss = torch.nn.functional.cross_entropy(torch.relu(xs @ W1 + c1) @ W2 + c2, ys, reduction="sum")
        return torch.autograd.grad(loss, params)

    for _ in range(cfg.epochs):
        for c in rng.permutation(cfg.n_clients):
            xs, ys, params = X[clients[c]], Y[clients[c]], [W1, c1, W2, c2]
            if cfg.clip_mode == "per_example" and private:
                g = [torch.zeros_like(p) for p in params]
                for j in range(size):
                    gj = grads(xs[j:j + 1], ys[j:j + 1], params)
                    f = min(1.0, cfg.clip / math.sqrt(sum(float((t ** 2).sum()) for t in gj)))
                    g = [a + f * b for a, b in zip(g, gj)]
                g = [t / divisor for t in g]
            else:
                g = [t / divisor for t in grads(xs, ys, params)]
                if private and cfg.clip_mode == "average":
                    f = min(1.0, cfg.clip / math.sqrt(sum(float((t ** 2).sum()) for t in g)))
                    g = [f * t for t in g]
            shapes = [W1.shape, c1.shape, W2.T.shape, c2.shape]    # train draws W2's noise transposed
            nz = [torch.randn(s, generator=noise) if sig[c] > 0 else torch.zeros(s) for s in shapes]
            nz[2] = nz[2].T
            W1, c1, W2, c2 = [p - cfg.lr * (t + sig[c] * z) for p, t, z in zip(params, g, nz)]
    return {"W1": W1, "c1": c1, "W2": W2, "c2": c2}


@pytest.mark.parametrize("clip_mode,grad_divisor,budget", [("average", "subset", 0.5), ("average", "m", 0.5),
                                                          ("per_example", "subset", 0.5), ("average", "subset", np.inf)])
def test_train_matches_plain_autograd_reference(clip_mode, grad_divisor, budget):
    torch.set_num_threads(1)
    d = mnist.synthetic(200, 50, seed=3)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 5)
    cfg = sgd.Config(epochs=2, hidden=8, pca=5, n_clients=4, clip=0.5, clip_mode=clip_mode, grad_divisor=grad_divisor)
    b = np.full(4, budget)
    if np.isfinite(budget):
        b[0] = 0.2                                    # one client with another budget
    w = {}
    sgd.train(xtr, d.y_train, xte, d.y_test, b, cfg, seed=7, noise_key=11, progress=False, row_chunk=16, weights=w)
    ref = reference_train(xtr, d.y_train, b, cfg, seed=7, noise_key=11)
    for k in ref:
        assert torch.allclose(w[k], ref[k], rtol=1e-4, atol=1e-5), k
    assert not torch.equal(ref["W1"], reference_train(xtr, d.y_train, b, cfg, seed=8, noise_key=11)["W1"])


def test_training_learns_and_noise_hurts_and_is_reproducible():
    torch.set_num_threads(1)
    d = mnist.synthetic(3000, 500, seed=1)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 20)
    cfg = sgd.Config(epochs=3, hidden=64, pca=20)
    clean, _ = sgd.train(xtr, d.y_train, xte, d.y_test, np.full(100, np.inf), cfg, seed=0, progress=False)
    noisy, _ = sgd.train(xtr, d.y_train, xte, d.y_test, np.full(100, 0.01), cfg, seed=0, progress=False)
    assert clean[-1] > 0.8 and clean[-1] > noisy[-1]
    again, _ = sgd.train(xtr, d.y_train, xte, d.y_test, np.full(100, 0.01), cfg, seed=0, progress=False)
    assert np.array_equal(noisy, again)
    with pytest.raises(ValueError, match="n_clients"):
        sgd.train(xtr, d.y_train, xte, d.y_test, np.ones(7), cfg, seed=0, progress=False)


def test_run_scenarios_resumes_and_does_not_depend_on_workers(tmp_path):
    d = mnist.synthetic(1000, 200, seed=2)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 10)
    data = (xtr, d.y_train, xte, d.y_test)
    cfg = sgd.Config(epochs=1, hidden=16, pca=10)
    names = ["Constant", "Unif 1", "Non-private"]
    r1 = sgd.run_scenarios(data, names, [0], cfg, tmp_path / "a", "synthetic", progress=False)
    assert len(sorted((tmp_path / "a").rglob("*.json"))) == 3
    r2 = sgd.run_scenarios(data, names, [0], cfg, tmp_path / "a", "synthetic", progress=False)
    assert r1 == r2                                   # read back from disk
    r3 = sgd.run_scenarios(data, names, [0], cfg, tmp_path / "b", "synthetic", progress=False, workers=2)
    assert [r["accuracy"] for r in r3] == [r["accuracy"] for r in r1]
    # a run does not depend on which other runs are trained with it
    r4 = sgd.run_scenarios(data, names[1:], [0], cfg, tmp_path / "c", "synthetic", progress=False)
    assert [r["accuracy"] for r in r4] == [r["accuracy"] for r in r1[1:]]
    with pytest.raises(ValueError, match="workers"):
        sgd.run_scenarios(data, names, [0], cfg, tmp_path / "d", "synthetic", workers=0)


def test_run_scenarios_refuses_an_unknown_scenario_in_a_worker(tmp_path):
    d = mnist.synthetic(1000, 200, seed=2)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 10)
    cfg = sgd.Config(epochs=1, hidden=16, pca=10)
    with pytest.raises(ValueError, match="Unif 9"):
        sgd.run_scenarios((xtr, d.y_train, xte, d.y_test), ["Constant", "Unif 9"], [0, 1], cfg, tmp_path,
                          "synthetic", progress=False, workers=2)
