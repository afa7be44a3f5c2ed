"""What a piece of Python source imports, read from its syntax tree (imports inside functions included), and the
modules of a package that a notebook can reach: the one reader the architecture test and the pipeline's
staleness key share."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


def imported(source: str) -> list[str]:
    """Dotted names ``source`` imports, in order: ``import a.b`` gives ``a.b``; ``from a.b import c`` gives
    ``a.b`` and ``a.b.c`` (``c`` may be a module); a relative import keeps its leading dots. Raises
    ``SyntaxError`` for source that does not parse."""
    if not isinstance(source, str):
        raise ValueError(f"source must be Python source text (str), got {type(source).__name__}")
    return list(_imported(source))


@functools.lru_cache(maxsize=4096)
def _imported(source: str) -> tuple:
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            out.append(base)
            if not node.level:
                out += [f"{base}.{a.name}" for a in node.names if a.name != "*"]
    return tuple(out)


def module_file(root: Path, name: str) -> Path | None:
    """The file of dotted module ``name`` under ``root`` (the folder holding the top package): ``a/b.py`` or
    ``a/b/__init__.py``; None if neither exists."""
    base = root.joinpath(*name.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def closure(root: Path, sources: list[str], package: str, skip: tuple = ()) -> list[Path]:
    """The files of ``package`` (under ``root``) that code made of ``sources`` can execute by importing: the
    modules those sources import, the packages that contain them (their ``__init__`` runs first), and so on
    through every module reached, imports inside functions included. Modules named in ``skip`` (dotted names)
    are not entered. Sorted."""
    todo, seen = [], set()

    def reach(name: str):
        parts = name.split(".")
        if parts[0] != package or any(name == m or name.startswith(m + ".") for m in skip):
            return
        for k in range(1, len(parts) + 1):  # a.b.c runs a/__init__, a/b/__init__, then a/b/c
            f = module_file(root, ".".join(parts[:k]))
            if f is not None and f not in seen:
                seen.add(f)
                todo.append(f)

    for src in sources:
        try:
            names = imported(src)
        except SyntaxError:  # a notebook cell that does not parse imports nothing it could run
            continue
        for name in names:
            reach(name)
    while todo:
        for name in imported(todo.pop().read_text()):
            reach(name)
    return sorted(seen)
