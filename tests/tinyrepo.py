"""Pieces of a tiny repository for the pipeline's end-to-end and fault tests: a chapter source (a MyST Markdown
notebook) with its two profile files, and waiting for a background run to reach a condition (never a fixed
sleep)."""

import time
from pathlib import Path

import jupytext
import nbformat


def new_source(parameters: str, *code: str, title: str | None = None) -> nbformat.NotebookNode:
    """A chapter notebook: the markdown cell ``title`` (if given), ``parameters`` as the code cell tagged so,
    then the code cells ``code``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    cell = nbformat.v4.new_code_cell(parameters)
    cell.metadata["tags"] = ["parameters"]
    nb.cells += [nbformat.v4.new_markdown_cell(title)] if title is not None else []
    nb.cells += [cell, *map(nbformat.v4.new_code_cell, code)]
    return nb


def write_source(nb: nbformat.NotebookNode, path: Path) -> None:
    """Write ``nb`` as a chapter source: MyST Markdown (what :func:`gspa.book.freshness.read_source` reads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    jupytext.write(nb, path, fmt="md:myst")


def add_chapter(root: Path, name: str, parameters: str, body: str) -> None:
    """Source ``notebooks/<name>.md`` (a title, ``parameters`` as the tagged parameters cell, then ``body``
    with ``Chapter("NAME")`` naming this chapter) and its two profile files (x: 1 for paper, 2 for smoke)."""
    code = body.replace('Chapter("NAME")', f'Chapter("{name}")')
    nb = new_source(parameters, code, title=f"# Chapter {name}")
    write_source(nb, root / "notebooks" / f"{name}.md")
    (root / "params" / "paper" / f"{name}.yaml").write_text("x: 1\n")
    (root / "params" / "smoke" / f"{name}.yaml").write_text("x: 2\n")


def wait_until(cond, proc, what, timeout=60):
    """Poll ``cond()`` until it holds; fail if ``proc`` ends first or ``timeout`` seconds pass."""
    t0 = time.time()
    while not cond():
        assert proc.poll() is None, f"the run ended before {what}: {proc.communicate()}"
        assert time.time() - t0 < timeout, f"no {what} after {timeout} s"
        time.sleep(0.02)


def cli(root: Path, monkeypatch, capsys, *args):
    """``gspa`` (the pipeline's command line) run in-process in ``root``: (exit status, stdout, stderr)."""
    from gspa.book import pipeline

    monkeypatch.chdir(root)
    code = pipeline.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err
