"""Device-independent random streams (gspa.experiments.devices): every draw of the experiments is
made on the CPU from a keyed generator and moved to the computing device, so a CPU and a GPU see the same
draws bit for bit; a run cache names the device only when it is not the CPU (CPU caches keep their keys;
the private SGD's keys are checked in tests/studies/gspa/test_private_sgd.py). The CUDA comparison itself
is in tests/experiments/test_gpu.py (skipped without CUDA)."""

import pytest

torch = pytest.importorskip("torch")

from gspa.experiments import devices as D  # noqa: E402
from gspa.studies.flame import protocols as P  # noqa: E402


def test_draws_come_from_the_keyed_cpu_stream():
    g1, g2 = D.generator(3, 1, 2), D.generator(3, 1, 2)
    assert torch.equal(D.rand((4, 5), g1), torch.rand(4, 5, generator=g2))
    assert torch.equal(D.randn((7,), g1), torch.randn(7, generator=g2))
    assert D.rand((2,), D.generator(0), dtype=torch.float64).dtype == torch.float64
    assert D.generator(1).device.type == "cpu"


def test_a_device_is_requested_by_name():
    assert D.device("cpu").type == "cpu"
    assert D.device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="device"):
        D.device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            D.device("cuda")


def test_a_run_s_key_names_its_device_and_its_code(monkeypatch):
    p = P.PAPER["SS-Simple"]
    assert P._key("SS-Simple", p, 0, "d", "cpu") == P._key("SS-Simple", p, 0, "d")
    assert P._key("SS-Simple", p, 0, "d", "cuda") != P._key("SS-Simple", p, 0, "d")
    before = P._key("SS-Simple", p, 0, "d")
    monkeypatch.setattr(P.fingerprint, "code_key", lambda *modules: "other code")
    assert P._key("SS-Simple", p, 0, "d") != before
