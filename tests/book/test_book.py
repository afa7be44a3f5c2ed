"""End to end: every notebook runs with the smoke profile, records sane results, and the book builds."""

import json
import math
import shutil

import nbformat
import pytest

from gspa.claims.rules import VERDICTS
from gspa.book.pipeline import chapters
from conftest import ROOT, copy_repo, gspa

pytestmark = pytest.mark.book
CHAPTERS = chapters(ROOT)


def _finite(x):
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return math.isfinite(x)
    if isinstance(x, list):
        return all(_finite(v) for v in x)
    return True


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_results_recorded_and_sane(smoke_book, chapter):
    rec = json.loads((smoke_book / "book" / "_results" / f"{chapter}.json").read_text())
    assert rec["chapter"] == chapter and rec["profile"] == "smoke"
    assert rec["values"]
    for name, v in rec["values"].items():
        assert _finite(v["value"]), f"{chapter}:{name} = {v['value']!r}"
    for c in rec["claims"]:
        assert c["verdict"] in VERDICTS and c["reason"] and c["rule"] and c["where"]
    nb = nbformat.read(smoke_book / "book" / "chapters" / f"{chapter}.ipynb", as_version=4)
    assert any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    # the executed chapter shows the parameters it ran with
    html = (smoke_book / "_build" / "html" / "book" / "chapters" / f"{chapter}.html").read_text()
    assert (
        "gspa-params" in html
        and "profile smoke" in html.replace("<b>", "").replace("</b>", "").lower()
    )


def test_ledger_lists_every_claim(smoke_book):
    pages = sorted((smoke_book / "book").glob("ledger-*.md"))  # one per paper
    ledger = "".join(p.read_text() for p in pages)
    html = "".join(
        (smoke_book / "_build" / "html" / "book" / f"{p.stem}.html").read_text() for p in pages
    )
    for ch in CHAPTERS:
        rec = json.loads((smoke_book / "book" / "_results" / f"{ch}.json").read_text())
        for c in rec["claims"]:
            assert f'id="claim-{c["id"]}"' in ledger and f"<code>{c['id']}</code>" in ledger
            assert f'id="claim-{c["id"]}"' in html
    assert (smoke_book / "_build" / "html" / "index.html").exists()


def test_fresh_chapters_are_not_reexecuted(smoke_book):
    out = gspa(smoke_book, "build", "--profile", "smoke", "--no-book").stdout
    assert out.count("up to date") == len(CHAPTERS) and "executing" not in out


def test_rerun_with_new_parameter_changes_numbers_and_failure_keeps_output(tmp_path, smoke_book):
    root = copy_repo(tmp_path)
    for sub in ("book/chapters", "book/_results"):
        shutil.copytree(smoke_book / sub, root / sub)
    res = root / "book" / "_results" / "gspa" / "mechanisms.json"
    before = json.loads(res.read_text())
    gspa(root, "run", "mechanisms", "--profile", "smoke", "-p", "delta", "1e-3")
    after = json.loads(res.read_text())
    assert after["overrides"] == {"delta": 1e-3}
    assert after["values"]["calib_limit"]["value"] != before["values"]["calib_limit"]["value"]
    assert after["parameters"]["delta"] == {"value": 1e-3, "source": "override (-p)"}
    # an undeclared parameter is refused before anything runs
    proc = gspa(root, "run", "mechanisms", "--profile", "smoke", "-p", "n", "5", check=False)
    assert proc.returncode == 2 and "declares no parameter named 'n'" in proc.stderr
    # a value outside the declared range is refused before anything runs
    proc = gspa(root, "run", "mechanisms", "--profile", "smoke", "-p", "k_rr", "1", check=False)
    assert (
        proc.returncode == 2
        and "outside its domain [2, inf) (it is less than the minimum of 2)" in proc.stderr
    )
    # an unknown scenario name is refused before anything runs, with the nearest one
    proc = gspa(
        root, "run", "theorem1", "--profile", "smoke", "-p", "scenario", "unif 2", check=False
    )
    assert proc.returncode == 2 and "did you mean 'Unif 2'" in proc.stderr
    # a run that passes the checks but fails mid-way (a relation between parameters that only the chapter
    # checks) leaves the previous good output untouched
    res1 = root / "book" / "_results" / "fmt21" / "clones.json"
    nb_before = (root / "book" / "chapters" / "fmt21" / "clones.ipynb").read_bytes()
    res_before = res1.read_bytes()
    proc = gspa(
        root, "run", "fmt21/clones", "--profile", "smoke", "-p", "delta_plot", "1e-7", check=False
    )
    assert proc.returncode == 3 and "failed" in proc.stderr  # a failed chapter: 3, refused input: 2
    assert (root / "book" / "chapters" / "fmt21" / "clones.ipynb").read_bytes() == nb_before
    assert res1.read_bytes() == res_before
    assert not list((root / "book").rglob("*.tmp*"))
