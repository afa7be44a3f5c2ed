"""The CPU and CUDA paths side by side (issue 39); skipped without CUDA. The draws are equal bit for bit
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
