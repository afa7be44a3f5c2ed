"""A tiny repository with one tiny chapter ``c`` (about a second per run), for the fault tests."""

from pathlib import Path

import pytest

import tinyrepo

ROOT = Path(__file__).resolve().parents[2]

PARAMETERS = """\
x = 1            # the published number [0, 100]
xs = [0.5]       # a list of numbers [0, 1], len [1, 5]
hold = ""        # a file to create, then wait (at most 60 s) for the file hold + ".go" (any text)
"""

BODY = """\
import os, pathlib, time
from gspa.book.results import Chapter
ch = Chapter("NAME")
ch._glue = lambda key, obj: None  # myst-nb's glue takes 2 s to import; nothing renders it here
if hold:
    pathlib.Path(hold + ".kernel").write_text(str(os.getpid()))
    pathlib.Path(hold).write_text("started")
    t0 = time.time()
    while not pathlib.Path(hold + ".go").exists() and time.time() - t0 < 60:
        time.sleep(0.02)
print(f"x={x}")
ch.value("x", x)
ch.save()
"""


def add_chapter(root: Path, name: str) -> None:
    tinyrepo.add_chapter(root, name, PARAMETERS, BODY)


@pytest.fixture
def tiny(tmp_path):
    """A repository with chapters ``c`` and ``d`` (no Jupyter Book configuration: build with --no-book)."""
    root = tmp_path / "repo"
    for sub in ("notebooks", "params/paper", "params/smoke", "book"):
        (root / sub).mkdir(parents=True)
    (root / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nchapters:\n"
        "  - file: book/chapters/c\n  - file: book/chapters/d\n"
    )
    (root / "book" / "errata.template.md").write_text("# Errata\n")
    for name in "cd":
        add_chapter(root, name)
    return root
