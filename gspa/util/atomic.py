"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import json
import os


def write_text_atomic(path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace`` (never half-written)."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_json_atomic(path, data) -> None:
    """Write JSON to ``path`` atomically (see :func:`write_text_atomic`)."""
    write_text_atomic(path, json.dumps(data, indent=1, allow_nan=False))


def move_aside(path) -> str | None:
    """If a directory stands where the file ``path`` belongs, rename it to a free name beside it
    (``<path>.damaged``, ``<path>.damaged-2``, ...) so the file can be written, and return that name;
    None when there is nothing in the way. Nothing is deleted."""
    path = os.fspath(path)
    if os.path.islink(path) or not os.path.isdir(path):
        return None
    aside, k = f"{path}.damaged", 1
    while os.path.lexists(aside):
        k += 1
        aside = f"{path}.damaged-{k}"
    os.rename(path, aside)
    return aside
