"""The pipeline end to end on a tiny repository with one tiny chapter (about a second per run):
interrupted and concurrent runs, and the command line's parameter checks."""

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from gspa.book import freshness as F
from gspa.book import pipeline as P

import tinyrepo
from conftest import ROOT
from tinyrepo import cli, wait_until

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
ch = Chapter("NAME")
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


def add_chapter(root, name, parameters=PARAMETERS, body=BODY):
    tinyrepo.add_chapter(root, name, parameters, body)


@pytest.fixture
def tiny(tmp_path):
    """A repository with the real book configuration and one chapter 'c'."""
    root = tmp_path / "repo"
    for sub in ("notebooks", "params/paper", "params/smoke", "book/_static"):
        (root / sub).mkdir(parents=True)
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    shutil.copytree(ROOT / "book" / "_static", root / "book" / "_static", dirs_exist_ok=True)
    shutil.copytree(
        ROOT / "book" / "_ext", root / "book" / "_ext", ignore=shutil.ignore_patterns("__pycache__")
    )
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n  - file: book/chapters/c\n"
    )
    (root / "book" / "intro.md").write_text("# Tiny\n\nA test book.\n")
    (root / "book" / "errata.template.md").write_text("# Errata\n")
    add_chapter(root, "c")
    return root


def gspa(root, *args):
    return subprocess.run(
        [sys.executable, "-m", "gspa.book.pipeline", *args],
        cwd=root,
        capture_output=True,
        text=True,
    )


def start(root, log: Path, *args):
    """``gspa ARGS`` in the background, its output (stdout and stderr) going to ``log``."""
    with open(log, "w") as fh:
        return subprocess.Popen(
            [sys.executable, "-m", "gspa.book.pipeline", *args],
            cwd=root,
            text=True,
            stdout=fh,
            stderr=subprocess.STDOUT,
        )


def temporaries(root):
    return sorted(str(p.relative_to(root)) for p in (root / "book").rglob("*") if ".tmp" in p.name)


def consistent(root):
    """The result file and the executed notebook come from the same run: the x the notebook printed
    is the x the result records. Returns that x."""
    rec = json.loads((root / "book" / "_results" / "c.json").read_text())
    nb = nbformat.read(root / "book" / "chapters" / "c.ipynb", as_version=4)
    printed = "".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )
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
    stale = [
        tiny / "book" / "chapters" / ".c.123.tmp.ipynb",
        tiny / "book" / "_results" / ".c.123.json.tmp",
        tiny / "book" / "_results" / "..c.123.json.tmp.123.tmp",
        tiny / "book" / ".ledger.md.123.tmp",
    ]
    for p in stale:
        p.write_text("{")
    out = gspa(tiny, "build")  # executes the chapter and builds the book with -W
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert temporaries(tiny) == [] and not list((tiny / ".cache" / "tmp").iterdir())
    assert (
        consistent(tiny) == 1
        and (tiny / "_build" / "html" / "book" / "chapters" / "c.html").exists()
    )


def test_a_kill_between_the_two_replaces_makes_the_chapter_stale(tiny, monkeypatch):
    P.build(tiny, "paper", book=False)
    assert consistent(tiny) == 1 and F.stale_reason(tiny, "paper", "c") is None
    real_replace = os.replace

    def replace(src, dst):
        if Path(dst) == F.result_path(tiny, "c"):
            raise KeyboardInterrupt("killed between the two replaces")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        P.execute(tiny, "c", "paper", {"x": 7})
    monkeypatch.setattr(os, "replace", real_replace)
    assert (
        F.stale_reason(tiny, "paper", "c") is not None
    )  # the new notebook does not belong to the old result
    P.build(tiny, "paper", book=False)
    assert consistent(tiny) == 1 and F.stale_reason(tiny, "paper", "c") is None
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
    assert code == 2 and "outside its domain" in err and "waiting" not in err
    Path(f"{hold}.go").touch()  # let the first run finish
    assert first.wait(60) == 0, log1.read_text()
    assert second.wait(60) == 0, log2.read_text()
    assert consistent(tiny) == 3  # the second ran after the first
    assert F.stale_reason(tiny, "paper", "c") is None and temporaries(tiny) == []


# -- the command line's parameter checks -----------------------------------------------------------


def test_params_of_an_unknown_chapter_is_a_clear_error(tiny, monkeypatch, capsys):
    code, _, err = cli(tiny, monkeypatch, capsys, "params", "nosuch")
    assert code == 2 and err.strip() == "gspa: error: unknown chapter 'nosuch'; chapters are: c"


def test_params_lines_show_default_help_and_json_schema(tiny, monkeypatch, capsys):
    code, out, _ = cli(tiny, monkeypatch, capsys, "params", "c")
    lines = out.splitlines()
    assert code == 0 and "x = 1  # the published number [0, 100]" in lines
    assert (
        'hold = ""  # a file to create, then wait (at most 60 s) for the file hold + ".go" (any text)'
        in lines
    )
    assert "seed = 0  # [0, 4294967295]" in lines and "None" not in out
    assert '    accepts {"minimum": 0, "maximum": 100, "type": "integer"}' in lines
    assert '    accepts {"type": "string"}' in lines
    assert (
        '    accepts {"type": "array", "items": {"exclusiveMinimum": 0, "type": "number"}}' in lines
    )
    code, out, _ = cli(tiny, monkeypatch, capsys, "params", "c", "--schema")
    schema = json.loads(out)
    assert code == 0 and schema["properties"]["x"] == {
        "description": "the published number [0, 100]",
        "default": 1,
        "minimum": 0,
        "maximum": 100,
        "type": "integer",
    }


def test_a_float_for_an_integer_parameter_is_refused_before_running(tiny, monkeypatch, capsys):
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "n_mc", "1e3")
    assert code == 2 and "executing" not in out and len(err.strip().splitlines()) == 1
    assert "'n_mc'" in err and "(it is not of type 'integer'; write 1000)" in err
    assert not (tiny / "book" / "_results" / "c.json").exists()


@pytest.mark.parametrize(
    "name, value, shown, rng",
    [
        ("n_mc", "0", "is 0,", "[1, inf)"),
        ("delta", "1", "is 1,", "(0, 1)"),
        ("mu", "[0.5, -1]", "is [0.5, -1],", "(0, inf) (at [1], -1 is less than or equal"),
        ("x", "101", "is 101,", "[0, 100]"),
        ("delta", "nan", "is nan,", "(0, 1) (it is not of type 'number'; a number is finite)"),
        ("delta", ".inf", "is inf,", "(0, 1) (it is not of type 'number'; a number is finite)"),
        ("delta", "-0.5", "is -0.5,", "(0, 1)"),
    ],
)
def test_a_value_outside_the_declared_range_is_refused_before_running(
    tiny, monkeypatch, capsys, name, value, shown, rng
):
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", name, value)
    assert code == 2 and "executing" not in out and len(err.strip().splitlines()) == 1
    assert (
        "'c'" in err and f"'{name}'" in err and shown in err and f"outside its domain {rng}" in err
    )
    assert not (tiny / "book" / "_results" / "c.json").exists()


def test_a_profile_value_outside_the_declared_range_is_refused(tiny, monkeypatch, capsys):
    (tiny / "params" / "smoke" / "c.yaml").write_text("delta: 0.0\n")
    code, out, err = cli(tiny, monkeypatch, capsys, "run", "c", "--profile", "smoke")
    assert code == 2 and "params/smoke/c.yaml" in err and "outside its domain (0, 1)" in err


# -- rerun executes the named chapter only --------------------------------------


@pytest.fixture
def tiny2(tiny):
    """The tiny repository with a second chapter 'd' after 'c'."""
    (tiny / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n"
        "  - file: book/chapters/c\n  - file: book/chapters/d\n"
    )
    add_chapter(tiny, "d")
    return tiny


@pytest.fixture
def no_book(monkeypatch):
    """Replace the Jupyter Book build (tested above) by a record of its calls."""
    calls = []
    monkeypatch.setattr(P, "build_book", lambda root: calls.append(root))
    return calls


def test_rerun_executes_the_named_chapter_only_and_says_which_others_are_stale(
    tiny2, monkeypatch, capsys, no_book
):
    P.build(tiny2, "paper", book=False)
    d_before = F.result_path(tiny2, "d").read_bytes()
    (tiny2 / "params" / "paper" / "d.yaml").write_text("x: 3\n")  # d is now stale
    assert F.stale_reason(tiny2, "paper", "d") is not None
    capsys.readouterr()
    code, out, err = cli(tiny2, monkeypatch, capsys, "rerun", "c", "-p", "x", "5")
    assert code == 0, err
    assert (
        consistent(tiny2) == 5 and F.result_path(tiny2, "d").read_bytes() == d_before
    )  # d not executed
    assert "executing c" in out and "executing d" not in out
    lines = out.splitlines()
    plan = [ln for ln in lines if ln.startswith("[gspa] rerun:")]
    assert plan[0] == "[gspa] rerun: executes c (profile paper, overrides {'x': 5})"
    assert "takes the other 1 chapter(s) from their existing results" in plan[1]
    assert "stale" in plan[2] and plan[2].endswith(": d")
    assert lines.index(plan[-1]) < lines.index(
        next(ln for ln in lines if "executing c" in ln)
    )  # said before
    assert no_book == [tiny2] and (tiny2 / "book" / "ledger.md").exists()


def test_rerun_refuses_when_other_chapters_were_never_executed(tiny2, monkeypatch, capsys, no_book):
    code, out, err = cli(tiny2, monkeypatch, capsys, "rerun", "c", "-p", "x", "5")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "1 other chapter(s) were never executed" in err and err.rstrip().count(": d;") == 1
    assert (
        "make book" in err
        and P.BOOK_COST in err
        and "OTHERS=smoke" in err
        and "--others smoke" in err
    )
    assert not (tiny2 / "book" / "_results").exists() and no_book == []
    # with --others smoke the missing chapter is executed with the smoke profile, the named one as asked
    code, out, err = cli(
        tiny2, monkeypatch, capsys, "rerun", "c", "-p", "x", "5", "--others", "smoke"
    )
    assert code == 0, err
    assert "never executed, now executed with the smoke profile: d" in out
    rec_c, rec_d = (json.loads(F.result_path(tiny2, n).read_text()) for n in "cd")
    assert (rec_c["profile"], rec_c["values"]["x"]["value"]) == ("paper", 5)
    assert (rec_d["profile"], rec_d["values"]["x"]["value"]) == ("smoke", 2)
    assert no_book == [tiny2]


# -- make rerun passes NB, ARGS and OTHERS without evaluating them ---------------


@pytest.fixture
def tiny_make(tiny, tmp_path):
    """The tiny repository with the project's Makefile and a stand-in .venv whose python is this one."""
    shutil.copy(ROOT / "Makefile", tiny / "Makefile")
    for f in ("requirements.txt", "constraints.txt", "pyproject.toml"):
        (tiny / f).write_text("")
        os.utime(
            tiny / f, (1, 1)
        )  # older than .venv/.ready: make does not recreate the environment
    (tiny / ".venv" / "bin").mkdir(parents=True)
    py = tiny / ".venv" / "bin" / "python"
    py.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    py.chmod(0o755)
    (tiny / ".venv" / ".ready").touch()
    return tiny


def make(root, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for k in ("NB", "ARGS", "OTHERS", "MAKEFLAGS", "MFLAGS"):
        env.pop(k, None)
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def planted(root):
    return sorted(p.name for p in root.rglob("owned*"))


@pytest.mark.parametrize(
    "nb, args, error",
    [
        ("x; touch owned", "", "gspa: error: unknown chapter 'x; touch owned'; chapters are: c"),
        (
            "$(shell touch owned1)",
            "",
            "gspa: error: unknown chapter '$(shell touch owned1)'; chapters are: c",
        ),
        (
            "`touch owned2`$(touch owned3)",
            "",
            "gspa: error: unknown chapter '`touch owned2`$(touch owned3)'",
        ),
        ("c", "; touch owned4", "gspa: error: unrecognized arguments: ; touch owned4"),
        ("x; touch owned", "; touch owned9", "gspa: error: unrecognized arguments: ; touch owned9"),
        ("--help", "", "gspa: error: NB must be a chapter name, got '--help'"),
        (
            "c",
            "-p x 1 $(shell touch owned5) `touch owned6` $$(touch owned7)",
            "gspa: error: unrecognized arguments",
        ),
        ("c", "-p nosuch 'a b; touch owned8'", "declares no parameter named 'nosuch'"),
        (
            "c",
            "-p x '101'",
            "is 101, outside its domain [0, 100] (it is greater than the maximum of 100)",
        ),
        ("c", "-p x 'unbalanced", 'gspa: error: ARGS="-p x \'unbalanced": No closing quotation'),
        ("", "", "gspa: error: usage: make rerun NB=<chapter>"),
    ],
)
def test_make_rerun_never_evaluates_its_variables(tiny_make, tmp_path, nb, args, error):
    out = make(tiny_make, "rerun", f"NB={nb}", f"ARGS={args}")
    assert out.returncode == 2, out.stdout + out.stderr
    gspa_lines = [ln for ln in out.stderr.splitlines() if ln.startswith("gspa:")]
    assert len(gspa_lines) == 1 and error in gspa_lines[0], out.stderr
    assert planted(tmp_path) == [] and "executing" not in out.stdout
    assert not (tiny_make / "book" / "_results").exists()


def test_make_rerun_passes_others(tiny_make, tmp_path):
    out = make(tiny_make, "rerun", "NB=c", "ARGS=-p x 7", "OTHERS=$(shell touch owned)")
    assert (
        out.returncode == 2
        and "argument --others: invalid choice: '$(shell touch owned)'" in out.stderr
    )
    assert planted(tmp_path) == []


def test_an_override_kept_from_a_rerun_that_is_no_longer_accepted_is_named_as_such(
    tiny, monkeypatch, capsys
):
    code, _, err = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "x", "50")
    assert code == 0, err
    nb = tiny / "notebooks" / "c.md"
    nb.write_text(nb.read_text().replace("published number [0, 100]", "published number [0, 10]"))
    code, out, err = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert code == 0 and "executing" not in out  # a domain is no input: the result stays
    nb.write_text(nb.read_text().replace("ch.save()", "ch.save()\nx_changed = 1"))
    code, out, err = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert code == 2 and "kept from an earlier rerun" in err and "make rerun NB=c" in err
    assert err.count("\n") == 1


def test_a_failed_chapter_exits_3_and_refused_input_2(tiny, monkeypatch, capsys):
    nb = tiny / "notebooks" / "c.md"
    nb.write_text(nb.read_text().replace('print(f"x={x}")', "raise RuntimeError('planted')"))
    code, _, err = cli(tiny, monkeypatch, capsys, "run", "c")
    assert code == P.FAILED == 3 and "planted" in err
    code, _, _ = cli(tiny, monkeypatch, capsys, "run", "c", "-p", "x", "-1")
    assert code == 2


def test_dry_run_names_each_stale_chapter_and_its_first_changed_input(tiny, monkeypatch, capsys):
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--dry-run")
    assert code == 0 and "c: no result yet" in out and not F.result_path(tiny, "c").exists()
    assert cli(tiny, monkeypatch, capsys, "build", "--no-book")[0] == 0
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--dry-run")
    assert out.splitlines() == ["[gspa] plan: 0 of 1 chapter(s) to execute"]
    (tiny / "params" / "paper" / "c.yaml").write_text("x: 7\n")
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--dry-run")
    assert out.splitlines()[0] == "c: parameters changed"


def test_a_prose_edit_is_merged_into_the_page_without_executing(tiny, monkeypatch, capsys):
    assert cli(tiny, monkeypatch, capsys, "build", "--no-book")[0] == 0
    nb = tiny / "notebooks" / "c.md"
    nb.write_text(nb.read_text().replace("# Chapter c", "# Chapter c, reworded"))
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert code == 0 and "executing" not in out and "new prose merged" in out, out
    assert "# Chapter c, reworded" in F.executed_path(tiny, "c").read_text()
    assert F.stale_reason(tiny, "paper", "c") is None
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert "merged" not in out


def test_a_chapter_s_progress_bars_reach_the_terminal(tiny):
    body = BODY.replace(
        'print(f"x={x}")',
        "from gspa.util.progress import bar\n"
        "for _ in bar(range(3), desc='tiny runs'):\n"
        "    time.sleep(0.01)",
    )
    add_chapter(tiny, "c", body=body)
    proc = gspa(tiny, "run", "c")
    assert proc.returncode == 0, proc.stderr
    assert "tiny runs" in proc.stderr and "3/3" in proc.stderr


def printed(root) -> list[str]:
    """The text each code cell of the chapter's executed notebook printed, in order."""
    nb = nbformat.read(F.executed_path(root, "c"), as_version=4)
    return [
        "".join(o.get("text", "") for o in c.outputs) for c in nb.cells if c.cell_type == "code"
    ]


def test_prose_comments_and_page_tags_merge_by_content_keeping_the_outputs(
    tiny, monkeypatch, capsys
):
    """A markdown cell added between the code cells, a comment in one, a tag that only changes the page: the
    code cells are those that ran, so each keeps its outputs and nothing runs. A code edit runs the chapter."""
    assert cli(tiny, monkeypatch, capsys, "build", "--no-book")[0] == 0
    before = printed(tiny)
    path = tiny / "notebooks" / "c.md"
    text = path.read_text()
    body = "```{code-cell}\nimport pathlib"
    assert text.count(body) == 1
    path.write_text(
        text.replace(
            body,
            "A paragraph added between the cells.\n\n"
            "```{code-cell}\n:tags: [remove-input]\n\n# a comment\nimport pathlib",
        )
    )
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert code == 0 and "executing" not in out and "new prose merged" in out, out
    nb = nbformat.read(F.executed_path(tiny, "c"), as_version=4)
    kinds = [(c.cell_type, "injected-parameters" in c.metadata.get("tags", [])) for c in nb.cells]
    assert kinds == [
        ("markdown", False),
        ("code", False),
        ("code", True),
        ("markdown", False),
        ("code", False),
    ]
    assert nb.cells[3].source == "A paragraph added between the cells."
    assert nb.cells[4].source.startswith("# a comment\n")
    assert nb.cells[4].metadata.tags == ["remove-input"]
    assert printed(tiny) == before and "x=1\n" in before[-1]
    assert F.stale_reason(tiny, "paper", "c") is None
    path.write_text(path.read_text().replace("# a comment\n", "# a comment\nx = 3\n"))
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert code == 0 and "executing c" in out and "x=3\n" in printed(tiny)[-1]


def test_cells_that_are_not_those_that_ran_are_executed_not_merged(tiny, monkeypatch, capsys):
    """The executed notebook's code is not the source's (its record made to match it): a prose edit is not
    merged into it; the chapter runs again."""
    assert cli(tiny, monkeypatch, capsys, "build", "--no-book")[0] == 0
    exe = F.executed_path(tiny, "c")
    exe.write_text(exe.read_text().replace("ch.value(", "ch.value_other("))
    rec = json.loads(F.result_path(tiny, "c").read_text())
    rec["executed_sha256"] = F.file_sha256(exe)
    F.result_path(tiny, "c").write_text(json.dumps(rec))
    assert F.stale_reason(tiny, "paper", "c") is None
    path = tiny / "notebooks" / "c.md"
    path.write_text(path.read_text().replace("# Chapter c", "# Chapter c, reworded"))
    code, out, _ = cli(tiny, monkeypatch, capsys, "build", "--no-book")
    assert code == 0 and "its code cells are not those that ran; executing it" in out
    assert "reworded" in exe.read_text() and "value_other" not in exe.read_text()
