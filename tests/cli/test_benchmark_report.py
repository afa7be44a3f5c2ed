"""benchmarks/report.py: each benchmark script rewrites its own section of benchmarks/README.md, and only it."""

import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import report  # noqa: E402

SCRIPTS = sorted(
    p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in ("probe", "report")
)


def test_a_run_replaces_only_its_own_section_and_keeps_its_history(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(
        "# Benchmarks\n\nintro\n\n<!-- begin: a -->\nold a\n#### History\n\nOne line per run, newest "
        "first.\n\n- older reading of a\n<!-- end: a -->\n\n<!-- begin: b -->\nb stays\n<!-- end: b -->\n"
        "\ntail\n"
    )
    report.write("a", "Script a", "measured 1.5 s\n", "1.5 s", path)
    text = path.read_text()
    assert "old a" not in text and "measured 1.5 s" in text
    assert "intro" in text and "b stays" in text and text.rstrip().endswith("tail")
    history = report.history_of(text, "a")
    rows = [ln for ln in history if ln.startswith("- ")]
    assert rows[0].endswith(": 1.5 s") and rows[1] == "- older reading of a"
    report.write("a", "Script a", "measured 2.5 s\n", "2.5 s", path)
    rows = [ln for ln in report.history_of(path.read_text(), "a") if ln.startswith("- ")]
    assert [r.rsplit(": ", 1)[-1] for r in rows] == ["2.5 s", "1.5 s", "- older reading of a"]
    assert path.read_text().count("One line per run") == 1


def test_a_missing_section_is_appended_and_unpaired_markers_are_refused(tmp_path):
    path = tmp_path / "README.md"
    report.write("new", "New", "x\n", "x", path)
    assert path.read_text().startswith("# Benchmarks") and "<!-- end: new -->" in path.read_text()
    with pytest.raises(ValueError, match="unpaired"):
        report.replace_section("<!-- begin: a -->\n", "a", "body")
    with pytest.raises(ValueError, match="name"):
        report.replace_section("", "A b", "body")


def test_a_failed_or_empty_run_writes_nothing(tmp_path):
    path = tmp_path / "README.md"
    with pytest.raises(RuntimeError):
        with report.recorded("a", "A", path):
            print("half a run")
            raise RuntimeError("broken")
    with report.recorded("a", "A", path) as entry:
        entry.skip = True
    assert not path.exists()
    with report.recorded("a", "A", path) as entry:
        print("a full run")
    assert "a full run" in path.read_text() and ": a full run" in path.read_text()


def test_every_script_writes_its_section_and_the_readme_has_them_all():
    readme = (ROOT / "benchmarks" / "README.md").read_text()
    for name in SCRIPTS:
        src = (ROOT / "benchmarks" / f"{name}.py").read_text()
        assert re.search(rf'report\.recorded\("{name}", ', src), (
            f"benchmarks/{name}.py writes no section"
        )
        assert readme.count(report.begin(name)) == 1 and readme.count(report.end(name)) == 1, name
        assert "#### History" in readme.split(report.begin(name))[1].split(report.end(name))[0], (
            name
        )
