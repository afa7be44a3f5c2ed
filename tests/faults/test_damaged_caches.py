"""A damaged FLAME quirk-run cache file (junk bytes, ``[]``, a JSON string, a truncated file, a record
without the run's accuracies, a directory, a broken link) counts as missing: one warning line names it,
the run is done again and its new record replaces the damaged one."""

import json

import pytest

from gspa.experiments import mnist
from gspa.studies.flame import experiments as E
from gspa.studies.flame import protocols as P

DAMAGE = {
    "junk": b"\xff\xfe\x00junk",
    "list": b"[]",
    "string": b'"a string"',
    "truncated": b'{"accuracy": [0.1, ',
    "no accuracy": b'{"protocol": "DP-FL"}',
    "short": b'{"accuracy": [0.5]}',
    "not numbers": b'{"accuracy": ["0.5", 0.5, 0.5, 0.5]}',
    "out of range": b'{"accuracy": [2, 0.5, 0.5, 0.5]}',
}


@pytest.fixture(scope="module")
def users():
    return P.users(E.scaled("NP-FL", n=50, n_users=100), mnist.synthetic(1400, 10, seed=0))


@pytest.fixture(scope="module")
def clean(users, tmp_path_factory):
    """The curve of a clean run, and the name of its cache file."""
    d = tmp_path_factory.mktemp("clean")
    acc = E.run_repeated_noise(
        "DP-FL",
        E.scaled("DP-FL", n=50, n_users=100),
        0,
        3,
        data=users,
        cache_dir=d,
        data_id="synthetic-test",
    )
    (name,) = [f.name for f in d.iterdir()]
    return acc, name


@pytest.mark.parametrize("kind", [*DAMAGE, "directory", "broken link"])
def test_a_damaged_quirk_cache_is_run_again(users, clean, tmp_path, capsys, kind):
    acc, name = clean
    path = tmp_path / name
    if kind == "directory":
        path.mkdir()
        (path / "inside").write_text("kept")
    elif kind == "broken link":
        path.symlink_to(tmp_path / "gone.json")
    else:
        path.write_bytes(DAMAGE[kind])
    got = E.run_repeated_noise(
        "DP-FL",
        E.scaled("DP-FL", n=50, n_users=100),
        0,
        3,
        data=users,
        cache_dir=tmp_path,
        data_id="synthetic-test",
    )
    assert got == acc and json.loads(path.read_text())["accuracy"] == acc  # re-made, same values
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("gspa: warning:")]
    assert len(lines) == 1 and str(path) in lines[0] and "run is done again" in lines[0], lines
    if kind == "directory":  # kept, renamed
        assert (tmp_path / (name + ".damaged") / "inside").read_text() == "kept"
    assert (
        E.run_repeated_noise(
            "DP-FL",
            E.scaled("DP-FL", n=50, n_users=100),
            0,
            3,
            data=users,
            cache_dir=tmp_path,
            data_id="synthetic-test",
        )
        == acc
    )
    assert "warning" not in capsys.readouterr().err  # read from the cache now
