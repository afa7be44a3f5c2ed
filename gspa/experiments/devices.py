"""Where the experiments compute, and random draws that do not depend on it.

* :func:`device`: the torch device asked for by name — ``auto`` (CUDA if a GPU is available, else the
  CPU), ``cpu`` or ``cuda`` (a ValueError when no GPU is available). A GPU is used when present and never
  required.
* :func:`generator`: a torch generator keyed by integers (through numpy's SeedSequence), always on the
  CPU. Every draw of the experiments is made on the CPU from such a generator and moved to the device
  (:func:`rand`, :func:`randn`), so the same keys give the same draws on a CPU and on a GPU, bit for bit;
  only the float arithmetic done with them may differ between devices, by round-off.

Used by FLAME's federated runs (:mod:`gspa.experiments.federated`) and GSPA's private SGD
(:mod:`gspa.studies.gspa.private_sgd`).
"""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V

DEVICES = ("auto", "cpu", "cuda")


def device(requested: str = "auto"):
    """The torch device to compute on: ``auto`` (CUDA if a GPU is available, else the CPU), ``cpu`` or
    ``cuda`` (a ValueError when no GPU is available)."""
    import torch

    requested = V.choice("device", requested, DEVICES)
    if requested == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            "device 'cuda' was requested but torch sees no CUDA device; use 'auto' or 'cpu'"
        )
    if requested == "auto":
        requested = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(requested)


def generator(*key: int):
    """A torch generator on the CPU seeded from the integers ``key`` through numpy's SeedSequence (draw
    from it with :func:`rand` and :func:`randn`, which move the draws to the computing device)."""
    import torch

    hi, lo = np.random.SeedSequence([int(k) for k in key]).generate_state(2, np.uint32)
    return torch.Generator(device="cpu").manual_seed((int(hi) << 32) | int(lo))


def rand(shape, gen, device=None, dtype=None):
    """Uniforms in [0, 1) of ``shape`` drawn on the CPU from ``gen`` (:func:`generator`) and moved to
    ``device``: the same draws whatever the device (float32 unless ``dtype``)."""
    import torch

    return torch.rand(shape, generator=gen, dtype=dtype or torch.float32).to(device or "cpu")


def randn(shape, gen, device=None):
    """Standard normal float32 draws of ``shape`` on the CPU from ``gen``, moved to ``device`` (see
    :func:`rand`)."""
    import torch

    return torch.randn(shape, generator=gen).to(device or "cpu")
