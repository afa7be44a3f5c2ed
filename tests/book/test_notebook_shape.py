"""The notebooks read like the paper: short code cells, short lines, and no top-level loop that
computes a published number (a loop whose body calls into gspa or records a value or claim); the loops and
formulas live in tested study functions. The parameters cell is exempt from the line length: papermill reads
each parameter as one line, ``name = default  # meaning [range]`` (the cell says ``# fmt: off`` to the
formatter). ``python tests/book/test_notebook_shape.py`` prints the statistics."""

import ast
import statistics
from pathlib import Path

import pytest

from gspa.book.freshness import read_source

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").rglob("*.md"))
MEDIAN_LINES, MAX_CHARS = 10, 100
RECORDERS = {"ch", "S", "claim", "search"}  # the chapter, its searches, and their short names


def name_of(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def code_cells(path: Path, parameters: bool = True) -> list[str]:
    """The sources of the notebook's code cells (``parameters``: with the cell tagged so)."""
    return [
        c.source
        for c in read_source(path).cells
        if c.cell_type == "code" and (parameters or "parameters" not in c.metadata.get("tags", []))
    ]


def gspa_names(cells: list[str]) -> set[str]:
    """Names a notebook binds to gspa modules or objects (``from gspa.x import y``, ``import gspa.x as z``)."""
    names = set(RECORDERS)
    for src in cells:
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gspa"):
                names |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                names |= {
                    a.asname or a.name.split(".")[0]
                    for a in node.names
                    if a.name.startswith("gspa")
                }
    return names


def _root(func) -> str | None:
    while isinstance(func, (ast.Attribute, ast.Subscript, ast.Call)):
        func = func.value if not isinstance(func, ast.Call) else func.func
    return func.id if isinstance(func, ast.Name) else None


def computing_loops(cells: list[str]) -> list[tuple[int, int]]:
    """(cell, line) of each top-level for/while loop whose body calls into gspa or records a value."""
    names, found = gspa_names(cells), []
    for i, src in enumerate(cells):
        for node in ast.parse(src).body:
            if isinstance(node, (ast.For, ast.While)) and any(
                isinstance(n, ast.Call) and _root(n.func) in names for n in ast.walk(node)
            ):
                found.append((i, node.lineno))
    return found


def stats(path: Path) -> dict:
    cells = code_cells(path)
    lines = [[ln for ln in src.splitlines() if ln.strip()] for src in cells]
    body = [[ln for ln in src.splitlines() if ln.strip()] for src in code_cells(path, False)]
    return {
        "cells": len(cells),
        "median": statistics.median(len(x) for x in lines),
        "long": [(i, len(ln)) for i, x in enumerate(body) for ln in x if len(ln) > MAX_CHARS],
        "loops": computing_loops(cells),
        "sizes": [len(x) for x in lines],
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=name_of)
def test_a_chapter_reads_like_the_paper(path):
    s = stats(path)
    assert s["long"] == [], f"code lines over {MAX_CHARS} characters (cell, length): {s['long']}"
    assert s["loops"] == [], (
        f"top-level loops that compute published numbers (cell, line): {s['loops']}"
    )
    assert s["median"] <= MEDIAN_LINES, (
        f"median code cell {s['median']} lines (at most {MEDIAN_LINES})"
    )


def test_the_checker_catches_a_computing_loop_and_spares_a_plotting_one():
    imports = "from gspa.studies.gspa import clt\n"
    assert computing_loops([imports, "for m in ms:\n    rows.append(clt.f(m))\n"]) == [(1, 1)]
    assert computing_loops([imports, "for k, c in enumerate(cols):\n    ax.plot(x, y[c])\n"]) == []
    assert computing_loops(["for c in cs:\n    ch.value(c, 1.0)\n"]) == [(0, 1)]


if __name__ == "__main__":
    every = []
    for p in NOTEBOOKS:
        s = stats(p)
        every += s["sizes"]
        print(
            f"{name_of(p):24} cells {s['cells']:3}  median {s['median']:4}  lines>{MAX_CHARS}: {len(s['long']):3}  "
            f"computing loops: {len(s['loops'])}"
        )
    print(
        f"all: {len(every)} code cells, median {statistics.median(every)} lines, "
        f"mean {statistics.mean(every):.1f}, max {max(every)}"
    )
