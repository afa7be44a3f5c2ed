"""When a chapter's result is fresh: exactly when what computed it is unchanged (:mod:`gspa.util.fingerprint`).

A chapter's inputs (:func:`chapter_inputs`) are, by name: the profile; its notebook's code cells, each hashed from
its syntax tree (markdown, comments and docstrings do not count); the parameter values it runs with (the profile
file's values and the ``-p`` overrides kept from a rerun, not the file's bytes); the ``gspa`` modules its code can
import (:func:`chapter_modules`), each hashed from its syntax tree; the versions of the installed packages they
import and of all those require; and, for a chapter that uses torch, the device class. Every result records
its inputs (``inputs`` in ``book/_results/<chapter>.json``); a chapter is stale when they differ from the
present ones, and :func:`stale_reason` names the first that does. ``GSPA_STALE_ALL=1`` in the environment counts
every ``gspa`` module as an input of every chapter.

A chapter's source is a MyST Markdown notebook, ``notebooks/<chapter>.md`` (jupytext's ``md:myst`` format, so an
edit of its prose reads as prose in a diff); :func:`read_source` is the one place it is read, into the notebook
papermill executes. A chapter whose inputs are unchanged but whose prose (or a code cell's comments) changed is
not executed again: :func:`merge_sources` takes the source's cells into the executed notebook, keeping the outputs
of its code cells, matched by content as jupyter-cache merges (MyST keeps no cell ids)."""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import json
import os
import sys
from pathlib import Path

from gspa.util import fingerprint
from gspa.util.atomic import write_text_atomic

#: Modules that execute chapters or render pages from their results, never code a chapter's numbers come from:
#: the staleness key does not enter them, so editing them re-renders the book without re-executing any chapter
#: (a chapter that imports one directly is refused by tests/book/test_pipeline.py).
PAGE_MODULES = (
    "gspa.book.pipeline",
    "gspa.book.execution",
    "gspa.book.freshness",
    "gspa.book.parameters",
    "gspa.book.ledger",
    "gspa.book.provenance",
    "gspa.book.sitesearch",
    "gspa.book.citation",
)

#: the tag papermill gives the cell of injected parameters
INJECTED = "injected-parameters"


def source_path(root: Path, chapter: str) -> Path:
    """The chapter's source: a MyST Markdown notebook (read with :func:`read_source`)."""
    return root / "notebooks" / f"{chapter}.md"


def read_source(path: Path):
    """The chapter source at ``path`` (MyST Markdown, jupytext's ``md:myst``) as an nbformat v4 notebook: its
    cells with their tags, and its kernelspec. MyST keeps no cell ids, so each cell gets one by its place
    (``cell-0``, ``cell-1``, ...); jupytext's note of the text format is dropped (it describes the file, not
    the notebook that runs)."""
    import jupytext

    nb = jupytext.read(path, fmt="md:myst")
    nb.metadata.pop("jupytext", None)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"
    return nb


def result_path(root: Path, chapter: str) -> Path:
    return root / "book" / "_results" / f"{chapter}.json"


def executed_path(root: Path, chapter: str) -> Path:
    return root / "book" / "chapters" / f"{chapter}.ipynb"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


#: tags that change only how a cell is shown, never what runs (papermill's ``parameters`` tag and nbclient's
#: ``skip-execution`` and ``raises-exception`` do change what runs, so they count)
PAGE_ONLY_TAGS = frozenset(
    {
        "hide-input",
        "hide-output",
        "hide-cell",
        "remove-input",
        "remove-output",
        "remove-cell",
        "teach",
    }
)


def _text(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


@functools.lru_cache(maxsize=1024)
def _python(src: str) -> str:
    """A code cell's source as the kernel runs it: IPython's magics and shell escapes turned into Python."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(src)


def _code_cells(root: Path, chapter: str) -> list[dict]:
    return [c for c in read_source(source_path(root, chapter)).cells if c["cell_type"] == "code"]


def _leading_string(source: str) -> str | None:
    """The string a cell starts with (not a docstring in a cell: it may be what the cell shows), or None."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return None
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first.value.value if isinstance(first.value.value, str) else None
    return None


def _run_key(cells) -> list:
    """What code cells run, in order: each one's code by syntax tree (:func:`gspa.util.fingerprint.code_digest`
    of its Python, so comments and formatting do not count) with the tags that change what runs, and the string
    a cell starts with, if any (the digest drops it as a docstring; in a cell it can be the output)."""
    out = []
    for c in cells:
        code = _python(_text(c))
        key = [fingerprint.code_digest(code), sorted(set(_tags(c)) - PAGE_ONLY_TAGS)]
        shown = _leading_string(code)
        out.append(key if shown is None else [*key, shown])
    return out


def code_cells(root: Path, chapter: str) -> list[str]:
    """The Python of the chapter's code cells, in order."""
    return [_python(_text(c)) for c in _code_cells(root, chapter)]


def chapter_modules(root: Path, chapter: str) -> list[Path]:
    """The gspa source files a chapter's code can execute: the closure of its code cells' imports
    (:func:`gspa.util.imports.closure`, imports inside functions included), without :data:`PAGE_MODULES`."""
    from gspa.util.imports import closure

    return closure(root, code_cells(root, chapter), "gspa", skip=PAGE_MODULES)


@functools.lru_cache(maxsize=1)
def device_class() -> str:
    """``cuda`` where torch sees a GPU, else ``cpu`` (torch is imported only where an NVIDIA driver is)."""
    if not (os.path.exists("/proc/driver/nvidia") or os.path.exists("/dev/nvidiactl")):
        return "cpu"
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except Exception:
        return "cpu"


def chapter_inputs(root: Path, profile: str, chapter: str, values: dict) -> dict:
    """The chapter's inputs by name (a manifest, :func:`gspa.util.fingerprint.manifest`), for parameter
    ``values`` (the profile's with any overrides)."""
    raw = _code_cells(root, chapter)
    cells = [_python(_text(c)) for c in raw]
    if os.environ.get("GSPA_STALE_ALL") == "1":
        files = sorted((root / "gspa").rglob("*.py"))
        code = {str(f.relative_to(root)): fingerprint.file_digest(f) for f in files}
        _, packages = fingerprint.code_inputs(root, cells, skip=PAGE_MODULES)
    else:
        code, packages = fingerprint.code_inputs(root, cells, skip=PAGE_MODULES)
    named = {
        "profile": profile,
        "parameters": fingerprint.digest(values),
        "notebook code": fingerprint.digest(_run_key(raw)),  # with the tags that change what runs
    }
    if "torch" in packages:
        named["device"] = device_class()
    return fingerprint.manifest(code=code, packages=packages, **named)


_warned: set = set()  # damaged files this process has warned about (once each)


def warn_damaged(
    root: Path, path: Path, why: str, then: str = "treated as missing; the chapter runs again"
) -> None:
    """One line on standard error, once per file and process: ``path`` is damaged (``why``), and what follows."""
    if (path, then) in _warned:
        return
    _warned.add((path, then))
    try:
        shown = path.relative_to(root)
    except ValueError:
        shown = path
    print(f"gspa: warning: {shown} is {why}; {then}", file=sys.stderr, flush=True)


def not_regular(path: Path) -> str | None:
    """Why ``path`` cannot be read as a file without blocking or failing (None for a regular file or none):
    a FIFO, socket or device would block or never end."""
    if path.is_dir():
        return "a directory, not a file"
    if path.exists() and not path.is_file():
        return "not a regular file (a FIFO, socket or device)"
    return None


def read_text(path: Path):
    """(the UTF-8 text in ``path``, None), or (None, why it cannot be read)."""
    why = not_regular(path)
    if why:
        return None, why
    try:
        return path.read_bytes().decode("utf-8"), None
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"


def read_json(path: Path):
    """(the JSON value in ``path``, None), or (None, why it cannot be read)."""
    text, why = read_text(path)
    if why:
        return None, why
    try:
        return json.loads(text), None
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"not JSON ({getattr(exc, 'msg', 'nested too deeply')})"


def load_result(root: Path, chapter: str) -> dict | None:
    """The chapter's result record, or None when there is none. A damaged file — not UTF-8 JSON, not a
    record of this chapter (an object with its name, ``values`` and ``claims``), a directory, a FIFO — counts
    as none, with a one-line warning naming it: the chapter is executed again and its new result replaces it."""
    p = result_path(root, chapter)
    if not (p.exists() or p.is_symlink()):
        return None
    rec, why = read_json(p)
    if why is None:
        if (
            isinstance(rec, dict)
            and rec.get("chapter") == chapter
            and isinstance(rec.get("values"), dict)
            and isinstance(rec.get("claims"), list)
        ):
            return rec
        why = f"JSON but not a result record of chapter {chapter!r} (a {type(rec).__name__}" + (
            f" with chapter {rec.get('chapter')!r})" if isinstance(rec, dict) else ")"
        )
    warn_damaged(root, p, why)
    return None


def output_matches(root: Path, chapter: str, rec: dict | None) -> bool:
    """Whether the chapter's executed notebook is a readable file and the one ``rec`` records."""
    nb = executed_path(root, chapter)
    try:
        return rec is not None and nb.is_file() and rec.get("executed_sha256") == file_sha256(nb)
    except OSError:
        return False


def kept_overrides(rec: dict | None, profile: str) -> dict:
    """The ``-p`` values a result was computed with, kept by later builds of the same profile."""
    if not rec or rec.get("profile") != profile or not isinstance(rec.get("overrides"), dict):
        return {}
    return rec["overrides"]


def stale_reason(root: Path, profile: str, chapter: str, values: dict) -> str | None:
    """Why the chapter must be executed again with ``values`` (the profile's values with the kept overrides),
    in words; None when its result is fresh."""
    rec = load_result(root, chapter)
    if rec is None:
        return "no result yet"
    if rec.get("profile") != profile:
        return f"its result is of profile {rec.get('profile')!r}"
    if not output_matches(root, chapter, rec):
        return "its executed notebook is missing or not the one its result records"
    return fingerprint.first_change(
        rec.get("inputs"), chapter_inputs(root, profile, chapter, values)
    )


def _tags(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


def _shown(cell) -> tuple:
    """What of a cell the page shows, besides outputs: its kind, its text and its tags."""
    return cell["cell_type"], _text(cell), tuple(_tags(cell))


def merge_sources(root: Path, chapter: str, page_tags) -> str:
    """Take the chapter's source into its executed notebook without running anything, as jupyter-cache merges:
    when the source's code cells, in order, are those that ran (:func:`_run_key`: the same code by syntax tree
    and the same tags that change what runs), the executed notebook becomes the source's cells, each code cell
    with the outputs of its counterpart that ran (and papermill's injected parameters after the cell tagged
    ``parameters``) and with the page's tags (``page_tags``). So an edit of the prose, of a code cell's comments
    or of a tag that only changes the page is merged; any other edit is not. Only for a fresh chapter (its
    inputs are those that ran). Returns ``"same"`` (nothing to merge), ``"merged"`` (the executed notebook
    changed; its result file then records the new notebook's SHA-256: the notebook is written first, then the
    record, so a kill between leaves them unmatched and the chapter runs again) or ``"cannot"`` (the code cells
    are not those that ran, or the record cannot be rewritten: the caller executes the chapter)."""
    src = read_source(source_path(root, chapter))
    exe_path = executed_path(root, chapter)
    exe = json.loads(exe_path.read_text(encoding="utf-8"))
    injected = [c for c in exe["cells"] if INJECTED in _tags(c)]
    ran = [c for c in exe["cells"] if c["cell_type"] == "code" and INJECTED not in _tags(c)]
    code = [c for c in src.cells if c["cell_type"] == "code"]
    if _run_key(code) != _run_key(ran):
        return "cannot"  # not the cells that ran
    outputs = iter(ran)
    cells = []
    for c in src.cells:
        if c["cell_type"] != "code":
            cells.append(c)
            continue
        new = copy.deepcopy(next(outputs))
        new["id"], new["source"] = c["id"], c["source"]
        new.setdefault("metadata", {})["tags"] = page_tags(_tags(c))
        cells.append(new)
        if "parameters" in _tags(c):
            cells += injected
    if [_shown(c) for c in cells] == [_shown(c) for c in exe["cells"]]:
        return "same"
    exe["cells"] = cells
    rec = load_result(root, chapter)
    text = json.dumps(exe, indent=1, ensure_ascii=False) + "\n"
    rec["executed_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    try:
        record = json.dumps(rec, indent=1, allow_nan=False)
    except (TypeError, ValueError):
        return "cannot"
    write_text_atomic(exe_path, text)
    write_text_atomic(result_path(root, chapter), record)
    return "merged"
