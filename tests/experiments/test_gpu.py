"""The CPU and CUDA paths side by side; skipped without CUDA. The draws are equal bit for bit
(made on the CPU and moved); one FLAME round's estimate differs only by float round-off: the local updates
run in float32 on different kernels (GPU matrix products sum in another order), so the tolerance is a few
float32 ulps of the update's scale, 1e-4 relative."""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from gspa.experiments import federated as F  # noqa: E402
from gspa.studies.flame import protocols as P  # noqa: E402


def test_the_draws_are_the_same_on_both_devices():
    cpu = F.rand((1000,), F.generator(5, 0, 1))
    gpu = F.rand((1000,), F.generator(5, 0, 1), torch.device("cuda"))
    assert gpu.device.type == "cuda" and torch.equal(cpu, gpu.cpu())


@pytest.mark.parametrize("protocol", ["SS-Simple", "SS-Double", "SS-Topk", "LDP-FL", "DP-FL"])
def test_one_round_gives_the_same_estimate_on_both_devices(protocol):
    p = P.with_params(protocol, n=200, n_users=200)
    x = torch.rand((200, 7850), generator=torch.Generator().manual_seed(0)) * 0.02 - 0.01
    z = {}
    for dev in ("cpu", "cuda"):
        z[dev] = P.aggregate(protocol, x.to(dev), p, F.generator(1, 0, 1), F.generator(1, 0, 2))
    assert torch.allclose(z["cpu"], z["cuda"].cpu(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("protocol", ["SS-Double", "SS-Topk"])
def test_the_dimensions_each_user_sends_are_the_same_on_both_devices(protocol):
    """Which dimensions a user sends and in which order (the order decides which noise draw each gets):
    equal, not merely close (``topk`` returns them in different orders on the two devices)."""
    p = P.with_params(protocol, n=200, n_users=200)
    x = torch.rand((200, 7850), generator=torch.Generator().manual_seed(0)) * 0.02 - 0.01
    idx = {
        dev: P.randomize(protocol, x.to(dev), p, F.generator(1, 0, 1))[0].cpu()
        for dev in ("cpu", "cuda")
    }
    assert torch.equal(idx["cpu"], idx["cuda"])


def test_private_sgd_trains_the_same_runs_on_both_devices():
    """Three runs of Algorithm 3 in one batch on each device: the draws are the same (made on the CPU);
    the matrix products round differently, and the difference grows over the 30 noisy steps, so the
    final weights agree to 1e-3 relative and the accuracies to within 2 of the 200 test images."""
    from gspa.experiments import mnist
    from gspa.studies.gspa import private_sgd as sgd

    torch.backends.cuda.matmul.allow_tf32 = False  # float32 products, as on the CPU
    d = mnist.synthetic(1000, 200, seed=2)
    xtr, xte = sgd.pca_features(d.x_train, d.x_test, 10)
    cfg = sgd.Config(epochs=3, hidden=16, pca=10, n_clients=10, clip=0.5)
    runs = [(sgd.scenario_budgets(n, 0, 10), 0, i) for i, n in enumerate(["Constant", "Unif 2"])]
    runs.append((sgd.scenario_budgets("Non-private", 0, 10), 1, 9))
    out = {}
    for dev in ("cpu", "cuda"):
        w = []
        accs, _ = sgd.train_runs(
            xtr, d.y_train, xte, d.y_test, runs, cfg, device=dev, progress=False, weights=w
        )
        out[dev] = (accs, w)
    for a_cpu, a_gpu in zip(out["cpu"][0], out["cuda"][0]):
        assert abs(a_cpu - a_gpu).max() <= 2 / 200 + 1e-12
    for w_cpu, w_gpu in zip(out["cpu"][1], out["cuda"][1]):
        for k in w_cpu:
            assert torch.allclose(w_cpu[k], w_gpu[k], rtol=1e-3, atol=1e-4), k
