"""A damaged result file or cache (junk bytes, ``[]``, a JSON string, a directory in its place) never
crashes ``build``, ``run`` or ``rerun``: it counts as missing, with one warning line naming it, and the
chapter (or the job) runs again."""

import json

import pytest

from gspa.book import freshness as F
from gspa.book import pipeline as P
from gspa.experiments import pool

DAMAGE = {
    "junk": b"\xff\xfe\x00junk",
    "list": b"[]",
    "string": b'"a string"',
    "truncated": b'{"chapter": "c", ',
    "other chapter": b'{"chapter": "d", "values": {}, "claims": []}',
}


def damage(path, kind):
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "directory":
        path.mkdir()
        (path / "inside").write_text("kept")
    else:
        path.write_bytes(DAMAGE[kind])


def cli(root, monkeypatch, capsys, *args):
    monkeypatch.chdir(root)
    code = P.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def valid(root, chapter):
    rec = json.loads(F.result_path(root, chapter).read_text())
    assert rec["chapter"] == chapter and F.stale_reason(root, rec["profile"], chapter) is None
    return rec


def warned(err, path):
    lines = [ln for ln in err.splitlines() if ln.startswith("gspa: warning:")]
    assert lines and all(str(path) in ln for ln in lines) and len(lines) <= 2, err
    return lines


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(P, "_warned", set(), raising=False)


@pytest.mark.parametrize("kind", [*DAMAGE, "directory"])
def test_a_damaged_result_counts_as_missing_with_one_warning(tiny, capsys, kind):
    damage(F.result_path(tiny, "c"), kind)
    for _ in range(3):  # read several times, warned once
        assert (
            F.load_result(tiny, "c") is None
            and F.stale_reason(tiny, "paper", "c") is not None
            and not P.usable(tiny, "c")
        )
    lines = warned(capsys.readouterr().err, "book/_results/c.json")
    assert len(lines) == 1 and "treated as missing; the chapter runs again" in lines[0]


def test_build_reruns_chapters_whose_results_are_damaged(tiny, monkeypatch, capsys):
    damage(F.result_path(tiny, "c"), "directory")
    damage(F.result_path(tiny, "d"), "junk")
    code, out, err = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert code == 0, err
    assert "executing c" in out and "executing d" in out
    assert valid(tiny, "c")["values"]["x"]["value"] == 1 and valid(tiny, "d")
    assert (
        tiny / "book" / "_results" / "c.json.damaged" / "inside"
    ).read_text() == "kept"  # nothing deleted
    lines = [ln for ln in err.splitlines() if ln.startswith("gspa: warning:")]
    # the plan reads every result first, then c's run moves the directory aside
    assert len(lines) == 3 and "c.json is a directory" in lines[0]
    assert "d.json is not UTF-8" in lines[1] and "moved aside to c.json.damaged" in lines[2]


def test_rerun_treats_a_damaged_result_of_another_chapter_as_missing(tiny, monkeypatch, capsys):
    monkeypatch.setattr(P, "build_book", lambda root: None)
    damage(F.result_path(tiny, "d"), "string")
    code, out, err = cli(tiny, monkeypatch, capsys, "rerun", "c")  # refused, naming d
    assert (
        code == 2 and "were never executed" in err and "matching its executed notebook): d;" in err
    )
    warned(err.split("gspa: error:")[0], "book/_results/d.json")
    code, out, err = cli(tiny, monkeypatch, capsys, "rerun", "c", "--others", "smoke")
    assert code == 0, err
    assert (
        "now executed with the smoke profile: d" in out
        and valid(tiny, "d")["values"]["x"]["value"] == 2
    )


def test_rerun_takes_a_result_only_with_its_own_executed_notebook(tiny):
    nb = F.executed_path(tiny, "d")
    nb.parent.mkdir(parents=True)
    nb.write_text("{}")
    rec = {
        "chapter": "d",
        "profile": "paper",
        "values": {},
        "claims": [],
        "executed_sha256": F.file_sha256(nb),
    }
    F.result_path(tiny, "d").parent.mkdir(parents=True)
    F.result_path(tiny, "d").write_text(json.dumps(rec))
    assert P.usable(tiny, "d") and P.rerun_plan(tiny, "c", None) == ([], ["d"])  # stale, but usable
    nb.write_text("{ damaged")
    assert not P.usable(tiny, "d") and P.rerun_plan(tiny, "c", "smoke") == (["d"], [])
    nb.unlink()
    nb.mkdir()
    assert not P.usable(tiny, "d")


def test_run_moves_directories_in_place_of_its_outputs_aside(tiny, monkeypatch, capsys):
    damage(F.executed_path(tiny, "c"), "directory")
    damage(F.result_path(tiny, "c"), "directory")
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "x", "3")
    assert code == 0, err
    lines = [ln for ln in err.splitlines() if ln.startswith("gspa: warning:")]
    assert (
        len(lines) == 2
        and "chapters/c.ipynb is a directory" in lines[0]
        and "c.ipynb.damaged" in lines[0]
    )
    assert "_results/c.json is a directory" in lines[1] and "c.json.damaged" in lines[1]
    assert valid(tiny, "c")["values"]["x"]["value"] == 3


def test_a_damaged_lock_or_temporary_folder_is_replaced(tiny, monkeypatch, capsys):
    (tiny / ".cache" / "build.lock").mkdir(parents=True)
    (tiny / ".cache" / "tmp").write_text("a file where the folder belongs")
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c")
    assert code == 0, err
    assert "build.lock.damaged" in warned(err, ".cache/build.lock")[0]
    valid(tiny, "c")


def record(x, data=None):
    return {"x": x}


@pytest.mark.parametrize("kind", [*DAMAGE, "directory"])
def test_pool_reruns_a_job_whose_record_is_damaged(tmp_path, capsys, kind):
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    paths[1].write_text('{"x": "cached"}')
    damage(paths[0], kind)
    got = pool.run_cached(record, [(1,), (2,)], paths, progress=False)
    err = capsys.readouterr().err
    if kind == "other chapter":  # a JSON object is a valid record for the pool
        assert got[0] == json.loads(DAMAGE[kind]) and err == ""
        return
    assert got == [{"x": 1}, {"x": "cached"}] and json.loads(paths[0].read_text()) == {"x": 1}
    lines = [ln for ln in err.splitlines() if ln.startswith("gspa: warning:")]
    assert len(lines) == 1 and str(paths[0]) in lines[0] and "run is done again" in lines[0]
