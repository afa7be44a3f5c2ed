"""When a chapter's result is fresh: exactly when what computed it is unchanged (:mod:`gspa.util.fingerprint`).

A chapter's inputs (:func:`chapter_inputs`) are: the profile; its code cells by syntax tree (prose, comments
and docstrings do not count); its parameter values (not the profile file's bytes); the ``gspa`` modules its
code can import, by syntax tree; the versions of the packages they import; the device class where torch is
used. A result records them, and :func:`stale_reason` names the first that changed. ``GSPA_STALE_ALL=1``
counts every ``gspa`` module as an input of every chapter.

A source is a MyST Markdown notebook (``notebooks/<chapter>.md``, so a prose edit reads as prose in a diff).
A prose-only edit of a fresh chapter is merged into its executed notebook, outputs matched by content as
jupyter-cache merges (:func:`merge_sources`); nothing runs."""

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

#: Modules that execute chapters or render pages, never code a chapter's numbers come from: the key does not
#: enter them, so editing them re-renders the book without executing anything (tests/book/test_pipeline.py
#: refuses a chapter that imports one).
PAGE_MODULES = tuple(
    f"gspa.book.{m}"
    for m in "pipeline execution freshness parameters ledger provenance sitesearch citation".split()
)

#: tags that change only how a cell is shown (``parameters``, ``skip-execution``, ... change what runs)
PAGE_ONLY_TAGS = frozenset(
    "hide-input hide-output hide-cell remove-input remove-output remove-cell teach".split()
)


def source_path(root: Path, chapter: str) -> Path:
    return root / "notebooks" / f"{chapter}.md"


def result_path(root: Path, chapter: str) -> Path:
    return root / "book" / "_results" / f"{chapter}.json"


def executed_path(root: Path, chapter: str) -> Path:
    return root / "book" / "chapters" / f"{chapter}.ipynb"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_source(path: Path):
    """A chapter source as the nbformat v4 notebook papermill runs. MyST keeps no cell ids: each cell gets
    one by its place (``cell-0``, ...); jupytext's note of the text format is dropped."""
    import jupytext

    nb = jupytext.read(path, fmt="md:myst")
    nb.metadata.pop("jupytext", None)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"
    return nb


def _text(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def _tags(cell) -> list:
    return list(cell.get("metadata", {}).get("tags", []))


@functools.lru_cache(maxsize=1024)
def _python(src: str) -> str:
    """A code cell as the kernel runs it: IPython's magics and shell escapes turned into Python."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(src)


def _code_cells(root: Path, chapter: str) -> list:
    return [c for c in read_source(source_path(root, chapter)).cells if c["cell_type"] == "code"]


def _run_key(cells) -> list:
    """What the code cells run, in order: each one's syntax tree digest with the tags that change what runs,
    and the string the cell starts with, if any (the digest drops it as a docstring; a cell shows it)."""
    out = []
    for c in cells:
        code = _python(_text(c))
        key = [fingerprint.code_digest(code), sorted(set(_tags(c)) - PAGE_ONLY_TAGS)]
        try:
            body = ast.parse(code).body
        except SyntaxError:
            body = []
        first = body[0].value if body and isinstance(body[0], ast.Expr) else None
        shown = first.value if isinstance(first, ast.Constant) else None
        out.append([*key, shown] if isinstance(shown, str) else key)
    return out


def chapter_modules(root: Path, chapter: str) -> list[Path]:
    """The gspa source files a chapter's code can execute (imports inside functions included)."""
    from gspa.util.imports import closure

    cells = [_python(_text(c)) for c in _code_cells(root, chapter)]
    return closure(root, cells, "gspa", skip=PAGE_MODULES)


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
    """The chapter's inputs by name (:func:`gspa.util.fingerprint.manifest`) for parameter ``values``."""
    raw = _code_cells(root, chapter)
    code, packages = fingerprint.code_inputs(
        root, [_python(_text(c)) for c in raw], skip=PAGE_MODULES
    )
    if os.environ.get("GSPA_STALE_ALL") == "1":
        files = sorted((root / "gspa").rglob("*.py"))
        code = {str(f.relative_to(root)): fingerprint.file_digest(f) for f in files}
    named = {
        "profile": profile,
        "parameters": fingerprint.digest(values),
        "notebook code": fingerprint.digest(_run_key(raw)),
    }
    if "torch" in packages:
        named["device"] = device_class()
    return fingerprint.manifest(code=code, packages=packages, **named)


_warned: set = set()


def warn_damaged(root: Path, path: Path, why: str, then: str = "") -> None:
    """One line on standard error, once per file and process: ``path`` is damaged, and what follows."""
    then = then or "treated as missing; the chapter runs again"
    if (path, then) not in _warned:
        _warned.add((path, then))
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        print(f"gspa: warning: {shown} is {why}; {then}", file=sys.stderr, flush=True)


def read_text(path: Path):
    """(the UTF-8 text in ``path``, None), or (None, why it cannot be read): a directory, FIFO, socket or
    device is refused before reading (reading a FIFO would block)."""
    if path.is_dir():
        return None, "a directory, not a file"
    if path.exists() and not path.is_file():
        return None, "not a regular file (a FIFO, socket or device)"
    try:
        return path.read_bytes().decode("utf-8"), None
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"


def load_result(root: Path, chapter: str) -> dict | None:
    """The chapter's result record, or None. A damaged file (not UTF-8 JSON, not a record of this chapter, a
    directory, a FIFO) counts as none, with one warning: the chapter runs again and its result replaces it."""
    p = result_path(root, chapter)
    if not (p.exists() or p.is_symlink()):
        return None
    text, why = read_text(p)
    if text is not None:
        try:
            rec = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            why = f"not JSON ({getattr(exc, 'msg', 'nested too deeply')})"
        else:
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


def stale_reason(root: Path, profile: str, chapter: str) -> str | None:
    """Why ``build`` would execute the chapter, in words; None when its result is fresh. Its values are the
    profile file's and the ``-p`` values its result keeps."""
    from gspa.book.parameters import PipelineError, profile_values

    rec = load_result(root, chapter)
    try:
        values = {**profile_values(root, profile, chapter), **kept_overrides(rec, profile)}
    except PipelineError as exc:
        return str(exc)
    if rec is None:
        return "no result yet"
    if rec.get("profile") != profile:
        return f"its result is of profile {rec.get('profile')!r}"
    if not output_matches(root, chapter, rec):
        return "its executed notebook is missing or not the one its result records"
    return fingerprint.first_change(
        rec.get("inputs"), chapter_inputs(root, profile, chapter, values)
    )


def merge_sources(root: Path, chapter: str, page_tags) -> str:
    """Take a fresh chapter's source into its executed notebook without running anything. When the source's
    code cells are those that ran (:func:`_run_key`), the notebook becomes the source's cells, each code cell
    with the outputs of its counterpart (papermill's injected cell after the one tagged ``parameters``) and
    the page's tags. Returns ``"same"``, ``"merged"`` (notebook written first, then its record's SHA-256: a
    kill between leaves them unmatched, so the chapter runs again) or ``"cannot"`` (the caller executes it)."""
    src = read_source(source_path(root, chapter))
    exe_path = executed_path(root, chapter)
    exe = json.loads(exe_path.read_text(encoding="utf-8"))
    injected = [c for c in exe["cells"] if "injected-parameters" in _tags(c)]
    ran = [
        c
        for c in exe["cells"]
        if c["cell_type"] == "code" and "injected-parameters" not in _tags(c)
    ]
    if _run_key([c for c in src.cells if c["cell_type"] == "code"]) != _run_key(ran):
        return "cannot"
    outputs, cells = iter(ran), []
    for c in src.cells:
        if c["cell_type"] != "code":
            cells.append(c)
            continue
        new = copy.deepcopy(next(outputs))
        new["id"], new["source"] = c["id"], c["source"]
        new.setdefault("metadata", {})["tags"] = page_tags(_tags(c))
        cells += [new, *injected] if "parameters" in _tags(c) else [new]

    def shown(cells):  # what the page shows besides outputs
        return [(c["cell_type"], _text(c), tuple(_tags(c))) for c in cells]

    if shown(cells) == shown(exe["cells"]):
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
