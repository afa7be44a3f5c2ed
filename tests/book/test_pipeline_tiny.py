"""The pipeline end to end on a tiny repository with one tiny chapter (about a second per run):
interrupted and concurrent runs, and the command line's parameter checks."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from gspa.book import pipeline as P

from conftest import ROOT

PARAMETERS = """\
x = 1            # the published number [0, 100]
hold = ""        # a file to create, then wait (at most 60 s) for the file hold + ".go" (any text)
n_mc = 400_000   # Monte Carlo samples [1, inf)
delta = 1e-4     # central delta (0, 1)
mu = [0.5, 1.0]  # GDP parameters (0, inf)
seed = 0         # [0, 4294967295]
"""

BODY = """\
import pathlib, time
from gspa.book.results import Chapter
ch = Chapter("c")
ch._glue = lambda key, obj: None  # myst-nb's glue takes 2 s to import; nothing renders it here
if hold:
    pathlib.Path(hold).write_text("started")
    t0 = time.time()
    while not pathlib.Path(hold + ".go").exists() and time.time() - t0 < 60:
        time.sleep(0.02)
print(f"x={x}")
ch.value("x", x)
ch.save()
"""


@pytest.fixture
def tiny(tmp_path):
    """A repository with the real book configuration and one chapter 'c'."""
    root = tmp_path / "repo"
    for sub in ("notebooks", "params/paper", "params/smoke", "book/_static"):
        (root / sub).mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(ROOT / "book" / "_static", root / "book" / "_static", dirs_exist_ok=True)
    shutil.copytree(ROOT / "book" / "_ext", root / "book" / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n  - file: book/chapters/c\n")
    (root / "book" / "intro.md").write_text("# Tiny\n\nA test book.\n")
    (root / "book" / "errata.template.md").write_text("# Errata\n")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell("# Chapter c"))
    cell = nbformat.v4.new_code_cell(PARAMETERS)
    cell.metadata["tags"] = ["parameters"]
    nb.cells += [cell, nbformat.v4.new_code_cell(BODY)]
    nbformat.write(nb, root / "notebooks" / "c.ipynb")
    (root / "params" / "paper" / "c.yaml").write_text("x: 1\n")
    (root / "params" / "smoke" / "c.yaml").write_text("x: 2\n")
    return root


def gspa(root, *args):
    return subprocess.run([sys.executable, "-m", "gspa.book.pipeline", *args], cwd=root, capture_output=True, text=True)


def start(root, log: Path, *args):
    """``gspa ARGS`` in the background, its output (stdout and stderr) going to ``log``."""
    with open(log, "w") as fh:
        return subprocess.Popen([sys.executable, "-m", "gspa.book.pipeline", *args], cwd=root, text=True,
                                stdout=fh, stderr=subprocess.STDOUT)


def wait_until(cond, proc, what, timeout=60):
    t0 = time.time()
    while not cond():
        assert proc.poll() is None, f"the run ended before {what}"
        assert time.time() - t0 < timeout, f"no {what} after {timeout} s"
        time.sleep(0.02)


def temporaries(root):
    return sorted(str(p.relative_to(root)) for p in (root / "book").rglob("*") if ".tmp" in p.name)


def consistent(root):
    """The result file and the executed notebook come from the same run: the x the notebook printed
    is the x the result records. Returns that x."""
    rec = json.loads((root / "book" / "_results" / "c.json").read_text())
    nb = nbformat.read(root / "book" / "chapters" / "c.ipynb", as_version=4)
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    x = rec["values"]["x"]["value"]
    assert f"x={x}\n" in printed, (printed, rec["values"])
    return x


def descendants(pid):
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(k) for k in kids] + [d for k in kids for d in descendants(int(k))]


def test_a_killed_run_leaves_nothing_in_the_book_and_the_next_build_succeeds(tiny, tmp_path):
    hold = tmp_path / "hold"
    proc = start(tiny, tmp_path / "log", "run", "c", "-p", "hold", str(hold))
    wait_until(hold.exists, proc, "the chapter started")
    kids = descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    for k in kids:  # the orphaned kernel would exit by itself within a second; do not wait for it
        try:
            os.kill(k, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert temporaries(tiny) == []
    # temporaries that older versions left in the book are removed too
    (tiny / "book" / "_results").mkdir(exist_ok=True)
    stale = [tiny / "book" / "chapters" / ".c.123.tmp.ipynb", tiny / "book" / "_results" / ".c.123.json.tmp",
             tiny / "book" / "_results" / "..c.123.json.tmp.123.tmp", tiny / "book" / ".ledger.md.123.tmp"]
    for p in stale:
        p.write_text("{")
    out = gspa(tiny, "build")  # executes the chapter and builds the book with -W
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert temporaries(tiny) == [] and not list((tiny / ".cache" / "tmp").iterdir())
    assert consistent(tiny) == 1 and (tiny / "_build" / "html" / "book" / "chapters" / "c.html").exists()


def test_a_kill_between_the_two_replaces_makes_the_chapter_stale(tiny, monkeypatch):
    P.build(tiny, "paper", book=False)
    assert consistent(tiny) == 1 and P.is_fresh(tiny, "paper", "c")
    real_replace = os.replace

    def replace(src, dst):
        if Path(dst) == P.result_path(tiny, "c"):
            raise KeyboardInterrupt("killed between the two replaces")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        P.execute(tiny, "c", "paper", {"x": 7})
    monkeypatch.setattr(os, "replace", real_replace)
    assert not P.is_fresh(tiny, "paper", "c")  # the new notebook does not belong to the old result
    P.build(tiny, "paper", book=False)
    assert consistent(tiny) == 1 and P.is_fresh(tiny, "paper", "c")
    assert temporaries(tiny) == []


def test_concurrent_runs_wait_for_each_other_and_both_succeed(tiny, tmp_path, monkeypatch, capsys):
    hold, log1, log2 = tmp_path / "hold", tmp_path / "log1", tmp_path / "log2"
    first = start(tiny, log1, "run", "c", "-p", "x", "2", "-p", "hold", str(hold))
    wait_until(hold.exists, first, "the first run started its chapter")
    second = start(tiny, log2, "run", "c", "-p", "x", "3")
    waiting = f"gspa: waiting for another build (pid {first.pid}) to finish"
    wait_until(lambda: waiting in log2.read_text(), second, "waiting message from the second run")
    # a run with a bad value is refused at once, without waiting for the lock
    code, _, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "x", "-1")
    assert code == 2 and "allowed range" in err and "waiting" not in err
    Path(f"{hold}.go").touch()  # let the first run finish
    assert first.wait(60) == 0, log1.read_text()
    assert second.wait(60) == 0, log2.read_text()
    assert consistent(tiny) == 3  # the second ran after the first
    assert P.is_fresh(tiny, "paper", "c") and temporaries(tiny) == []


# -- the command line's parameter checks -----------------------------------------------------------

def cli(root, monkeypatch, capsys, *args):
    monkeypatch.chdir(root)
    code = P.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_params_of_an_unknown_chapter_is_a_clear_error(tiny, monkeypatch, capsys):
    code, _, err = cli(tiny, monkeypatch, capsys, "params", "nosuch")
    assert code == 2 and err.strip() == "gspa: error: unknown chapter 'nosuch'; chapters are: c"


def test_params_lines_show_default_and_help_only(tiny, monkeypatch, capsys):
    code, out, _ = cli(tiny, monkeypatch, capsys, "params", "c")
    lines = out.splitlines()
    assert code == 0 and "x = 1  # the published number [0, 100]" in lines
    assert 'hold = ""  # a file to create, then wait (at most 60 s) for the file hold + ".go" (any text)' in lines
    assert "seed = 0  # [0, 4294967295]" in lines and "None" not in out
    assert "    accepts an integer in [0, 100]" in lines and "    accepts any text" in lines
    assert "    accepts a list of numbers in (0, inf)" in lines


def test_a_float_for_an_integer_parameter_is_refused_before_running(tiny, monkeypatch, capsys):
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "n_mc", "1e3")
    assert code == 2 and "executing" not in out and len(err.strip().splitlines()) == 1
    assert "'n_mc'" in err and "must be an integer" in err and "1000" in err
    assert not (tiny / "book" / "_results" / "c.json").exists()


@pytest.mark.parametrize("name, value, shown, rng", [
    ("n_mc", "0", "is 0,", "[1, inf)"), ("delta", "1", "is 1,", "(0, 1)"), ("mu", "[0.5, -1]", "has -1 in [0.5, -1],", "(0, inf)"),
    ("x", "101", "is 101,", "[0, 100]"), ("delta", "nan", "is nan,", "(0, 1)"), ("delta", "-0.5", "is -0.5,", "(0, 1)")])
def test_a_value_outside_the_declared_range_is_refused_before_running(tiny, monkeypatch, capsys,
                                                                      name, value, shown, rng):
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", name, value)
    assert code == 2 and "executing" not in out and len(err.strip().splitlines()) == 1
    assert "'c'" in err and f"'{name}'" in err and shown in err and f"allowed range {rng}" in err
    assert not (tiny / "book" / "_results" / "c.json").exists()


def test_a_profile_value_outside_the_declared_range_is_refused(tiny, monkeypatch, capsys):
    (tiny / "params" / "smoke" / "c.yaml").write_text("delta: 0.0\n")
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "--profile", "smoke")
    assert code == 2 and "params/smoke/c.yaml" in err and "allowed range (0, 1)" in err
