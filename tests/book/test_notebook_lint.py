"""The chapters' code is linted and formatted as the package's is. ``make test`` runs ``ruff check`` and
``ruff format --check`` on the repository, but the chapters are MyST Markdown, which ruff does not read: here
each chapter source, converted to a notebook as the pipeline converts it
(:func:`gspa.book.freshness.read_source`), goes to ruff on standard input, cell by cell as ruff reads a notebook.
Ruff numbers the cells from 1, markdown cells included, in the chapter's order."""

import shutil
import subprocess
import sys

import nbformat
import pytest

from gspa.book import freshness as F
from gspa.book import pipeline as P

from conftest import ROOT

CHAPTERS = P.chapters(ROOT)
#: ruff's two checks: the lint rules of pyproject.toml, and the formatter (a diff where it would reformat)
CHECKS = (("check",), ("format", "--diff"))


def ruff(root, chapter: str, *check: str) -> subprocess.CompletedProcess:
    """``ruff CHECK`` on the chapter's source, read as a notebook, with the configuration of ``root``."""
    nb = F.read_source(F.source_path(root, chapter))
    return subprocess.run(
        [sys.executable, "-m", "ruff", *check, "--no-cache"]
        + ["--stdin-filename", f"notebooks/{chapter}.ipynb", "-"],
        input=nbformat.writes(nb),
        cwd=root,
        capture_output=True,
        text=True,
    )


def failures(root, chapter: str) -> list[str]:
    """What ruff finds wrong with the chapter's code, one entry per check that fails, each naming the chapter."""
    found = []
    for check in CHECKS:
        out = ruff(root, chapter, *check)
        if out.returncode != 0:
            found.append(
                f"notebooks/{chapter}.md fails ruff {' '.join(check)}:\n{out.stdout}{out.stderr}"
            )
    return found


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_chapter_s_code_passes_ruff(chapter):
    assert failures(ROOT, chapter) == []


def test_the_lint_fails_on_an_unused_import_and_on_unformatted_code(tmp_path):
    chapter = "gspa/lemma1"
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = F.source_path(tmp_path, chapter)
    path.parent.mkdir(parents=True)
    text = F.source_path(ROOT, chapter).read_text(encoding="utf-8")
    assert text.count("\nimport numpy as np\n") == 1
    path.write_text(text.replace("\nimport numpy as np\n", "\nimport numpy as np\nimport os\n"))
    (found,) = failures(tmp_path, chapter)
    assert found.startswith(f"notebooks/{chapter}.md fails ruff check:") and "F401" in found
    assert "`os` imported but unused" in found
    path.write_text(text.replace("\nimport numpy as np\n", "\nimport numpy  as np\n"))
    (found,) = failures(tmp_path, chapter)
    assert found.startswith(f"notebooks/{chapter}.md fails ruff format --diff:")
    assert "-import numpy  as np\n+import numpy as np" in found
