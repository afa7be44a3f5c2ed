"""What a computed result depends on, as digests: the one model behind every cache of the project (a chapter's
result, a training run, a federated run).

A result is fresh exactly when what computed it is unchanged:

* **code that runs**: the ``gspa`` modules the computation can import (:func:`gspa.util.imports.closure`, imports
  inside functions included), each hashed from its syntax tree with docstrings removed
  (:func:`code_digest`), so comments, docstrings and formatting do not count, and never from ``.pyc`` files
  or timestamps;
* **parameters**: given by the caller (a chapter's values, a run's configuration);
* **data**: the pinned digests, which live in the code (``gspa.experiments.mnist``) and so count as code;
* **installed packages**: the version of every distribution the code imports (:func:`package_versions`), and
  Python's own version;
* **the device class** where the numbers depend on it (``cpu`` or ``cuda``): given by the caller.

:func:`manifest` lists these inputs by name; a cache key is the digest of a manifest (:func:`digest`), and two
manifests' first difference says why a result is stale (:func:`first_change`)."""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import sys
from pathlib import Path

from gspa.util.imports import closure, imported

PACKAGE = "gspa"


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
    return tree


def code_digest(source: str) -> str:
    """SHA-256 of what ``source`` (Python) executes: its syntax tree without docstrings, positions, comments
    or formatting. Source that does not parse (a notebook cell with magics, say) is hashed as text."""
    if not isinstance(source, str):
        raise ValueError(f"source must be Python source text (str), got {type(source).__name__}")
    try:
        text = ast.dump(_strip_docstrings(ast.parse(source)), include_attributes=False)
    except SyntaxError:
        text = "unparsed:" + source
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=4096)
def _file_digest(path: str, raw: bytes) -> str:
    return code_digest(raw.decode("utf-8"))


def file_digest(path: Path) -> str:
    """:func:`code_digest` of a source file, read now (the bytes, never a compiled copy)."""
    return _file_digest(str(path), Path(path).read_bytes())


def digest(obj) -> str:
    """SHA-256 of a JSON value, keys sorted (a manifest, a run's configuration)."""
    return hashlib.sha256(
        json.dumps(obj, sort_keys=True, allow_nan=False, default=str).encode()
    ).hexdigest()


@functools.lru_cache(maxsize=1)
def _import_names() -> dict:
    from importlib.metadata import packages_distributions

    return packages_distributions()


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


@functools.lru_cache(maxsize=None)
def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def package_versions(modules) -> dict:
    """``{distribution: version}`` for the installed distributions that provide the top-level modules
    ``modules`` (import names such as ``numpy``, ``scipy``), with ``python`` for the interpreter.
    Standard-library modules and ``gspa`` itself give none. What those distributions require in turn is
    not followed: a result depends on the packages its code imports (a bump of ``certifi`` re-executes
    nothing)."""
    names = _import_names()
    dists = sorted({_normal(d) for m in modules if m != PACKAGE for d in names.get(m, ())})
    found = {d: v for d in dists if (v := _version(d)) is not None}
    return {"python": ".".join(map(str, sys.version_info[:3])), **found}


def code_inputs(root: Path, sources: list[str], skip: tuple = ()) -> tuple[dict, dict]:
    """For code made of ``sources`` (Python text): ``({module file relative to root: digest}, {distribution:
    version})`` over the ``gspa`` modules it can import (``skip``: dotted names not entered) and the
    installed packages they and ``sources`` import."""
    root = Path(root)
    files = closure(root, sources, PACKAGE, skip=skip)
    tops = set()
    for text in [*sources, *(f.read_text(encoding="utf-8") for f in files)]:
        try:
            tops |= {n.split(".")[0] for n in imported(text) if not n.startswith(".")}
        except SyntaxError:
            continue
    code = {str(f.relative_to(root)): file_digest(f) for f in files}
    return code, package_versions(tops)


def module_inputs(*modules: str) -> dict:
    """The inputs of the code of ``gspa`` modules ``modules`` (dotted names) as installed here: their
    import closure's digests and the packages' versions (:func:`code_inputs`)."""
    root = Path(__file__).resolve().parents[2]
    code, packages = code_inputs(root, [f"import {m}" for m in modules])
    return {"code": code, "packages": packages}


@functools.lru_cache(maxsize=None)
def code_key(*modules: str) -> str:
    """:func:`digest` of :func:`module_inputs`, once per process. The modules of the closure are imported
    first (those a function imports lazily too), so the key is that of the code this process runs, read at
    one moment. A run cache keys its records by it (with the run's parameters, data and device), and each
    record carries the key of the process that computed it: a record computed by a worker that imported
    edited code is refused (:func:`gspa.experiments.pool.record_check`)."""
    import importlib

    root = Path(__file__).resolve().parents[2]
    for f in closure(root, [f"import {m}" for m in modules], PACKAGE):
        name = ".".join(f.relative_to(root).with_suffix("").parts)
        importlib.import_module(name.removesuffix(".__init__"))
    return digest(module_inputs(*modules))


def manifest(*, code: dict, packages: dict, **named) -> dict:
    """A result's inputs by name, in the order :func:`first_change` reads them: ``named`` (parameters,
    notebook code, device, ...) first, then each code file and each package as an entry of its own."""
    out = dict(named)
    out.update({f"file {k}": v for k, v in sorted(code.items())})
    out.update({f"package {k}": v for k, v in sorted(packages.items())})
    return out


def first_change(old: dict | None, new: dict) -> str | None:
    """Why a result computed from manifest ``old`` is stale under ``new``: the first input that differs, in
    words (``gspa/studies/gspa/scenarios.py changed``, ``package scipy 1.14.1 -> 1.15.0``); None when
    they are the same."""
    if not isinstance(old, dict):
        return "no record of its inputs"
    for k, v in new.items():
        if k not in old:
            return f"{k.removeprefix('file ')} is new" if k.startswith("file ") else f"{k} added"
        if old[k] != v:
            if k.startswith("file "):
                return f"{k.removeprefix('file ')} changed"
            if k.startswith("package "):
                return f"{k} {old[k]} -> {v}"
            return f"{k} changed"
    for k in old:
        if k not in new:
            return f"{k.removeprefix('file ')} no longer used"
    return None
