"""Freshness end to end on a copy of the smoke build: a prose edit of Figure 4 reaches its page's source without
running it; an edit of the code that draws Table 2's budgets re-executes Figure 4 and recomputes its training runs."""

import json
import shutil

import pytest

from gspa.book import freshness as F
from gspa.book import pipeline as P
from conftest import gspa

pytestmark = pytest.mark.book
FIG4 = "gspa/figure4"


@pytest.fixture
def built(smoke_book, tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(smoke_book, root, symlinks=True, ignore=shutil.ignore_patterns("_build"))
    return root


def test_a_fresh_build_plans_nothing(built):
    out = gspa(built, "build", "--profile", "smoke", "--dry-run").stdout
    assert (
        out.splitlines()[-1] == f"[gspa] plan: 0 of {len(P.chapters(built))} chapter(s) to execute"
    )


def test_a_prose_edit_of_figure4_reaches_its_page_source_without_running(built):
    nb = built / "notebooks" / f"{FIG4}.md"
    text = nb.read_text()
    title = text.index("\n# ") + 1  # the first markdown cell, after the front matter
    nb.write_text(text[:title] + "A sentence added by the freshness test.\n\n" + text[title:])
    # the page's source (the executed notebook Sphinx renders, as the smoke book shows for every chapter):
    # building the HTML again from scratch here would add half a minute and check Sphinx, not the merge
    out = gspa(built, "build", "--profile", "smoke", "--no-book").stdout
    assert "executing" not in out and f"{FIG4}: up to date; the notebook's new prose" in out
    assert "A sentence added by the freshness test." in F.executed_path(built, FIG4).read_text()
    assert F.stale_reason(built, "smoke", FIG4) is None


def test_editing_table2_s_draws_recomputes_figure4_s_runs(built):
    before = json.loads(F.result_path(built, FIG4).read_text())
    runs_before = {p.name for p in (built / ".cache" / "sgd").iterdir()}
    path = built / "gspa" / "studies" / "gspa" / "scenarios.py"
    path.write_text(path.read_text().replace("np.full(m, 0.5)", "np.full(m, 0.001)"))
    plan = gspa(built, "build", "--profile", "smoke", "--dry-run").stdout
    assert f"{FIG4}: gspa/studies/gspa/scenarios.py changed" in plan.splitlines()
    out = gspa(built, "build", "--profile", "smoke", "--only", FIG4, "--no-book").stdout
    assert f"executing {FIG4}" in out
    after = json.loads(F.result_path(built, FIG4).read_text())
    assert {p.name for p in (built / ".cache" / "sgd").iterdir()} - runs_before  # new runs
    assert after["values"] != before["values"]
