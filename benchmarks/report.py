"""Each benchmark script's own section of benchmarks/README.md, written by the script, never typed.

A script wraps its run in :func:`recorded`: what it prints still goes to the terminal, and when the run
ends without an error its section of ``benchmarks/README.md`` (between ``<!-- begin: NAME -->`` and
``<!-- end: NAME -->``) is replaced by the run's output, with the date, the commit, the command and the
machine's load, and one line is added on top of the section's history. Everything outside the section,
and the section's earlier history, is kept; the file is replaced atomically.

Imported by the scripts (they run with this directory on sys.path)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
HISTORY = "#### History"


def begin(name: str) -> str:
    return f"<!-- begin: {name} -->"


def end(name: str) -> str:
    return f"<!-- end: {name} -->"


def add_readme_option(ap, name: str) -> None:
    """The ``--readme`` option every benchmark script takes: the file whose section ``name`` a run rewrites
    ('' : none)."""
    ap.add_argument(
        "--readme",
        default=str(README),
        help=f"the file whose section '{name}' a run rewrites ('' : none)",
    )


def _check_name(name) -> str:
    if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(
            f"name must be lowercase letters, digits and '_' (a script's name), got {name!r}"
        )
    return name


def history_of(text: str, name: str) -> list[str]:
    """The history lines (``- ...`` items, or earlier typed paragraphs) of section ``name`` in ``text``."""
    _check_name(name)
    b, e = begin(name), end(name)
    if b not in text or e not in text:
        return []
    body = text.split(b, 1)[1].split(e, 1)[0]
    if HISTORY not in body:
        return []
    lines = body.split(HISTORY, 1)[1].strip("\n").splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def replace_section(text: str, name: str, body: str) -> str:
    """``text`` with the section ``name`` replaced by ``body`` (appended at the end when it is absent)."""
    _check_name(name)
    b, e = begin(name), end(name)
    block = f"{b}\n{body.strip()}\n{e}"
    if (b in text) != (e in text) or text.count(b) > 1 or text.count(e) > 1:
        raise ValueError(
            f"benchmarks README: the markers of section {name!r} are unpaired or repeated"
        )
    if b in text:
        head, rest = text.split(b, 1)
        return head + block + rest.split(e, 1)[1]
    return text.rstrip("\n") + "\n\n" + block + "\n"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(HERE), "describe", "--always", "--dirty", "--abbrev=7"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def section(
    name: str,
    title: str,
    output: str,
    summary: str,
    history: list[str],
    *,
    when: str,
    commit: str,
    command: str,
    machine: str,
) -> str:
    """The markdown of one section: title, the run's circumstances, its output, then the history."""
    _check_name(name)
    row = f"- {when}, {commit}: {summary}"
    lines = [
        f"## {title}",
        "",
        f"Written by `benchmarks/{name}.py` at its last run ({when}, commit {commit}): `{command}`; {machine}.",
        "",
        "```text",
        output.rstrip("\n"),
        "```",
        "",
        HISTORY,
        "",
        "One line per run, newest first (readings typed before the scripts wrote this file are kept below them).",
        "",
        row,
    ]
    old = [ln for ln in history if not ln.startswith("One line per run")]
    while old and not old[0].strip():
        old.pop(0)
    return "\n".join(lines + old) + "\n"


def _machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{os.cpu_count()} CPUs, load average {load:.2f} at the end"


def write(name: str, title: str, output: str, summary: str, path=README) -> None:
    """Replace section ``name`` of ``path`` (created when missing) with this run's output and history line."""
    from gspa.util.atomic import write_text_atomic

    path = Path(path)
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    body = section(
        name,
        title,
        output,
        summary,
        history_of(text, name),
        when=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        commit=_commit(),
        command=" ".join(["python", f"benchmarks/{name}.py", *sys.argv[1:]]),
        machine=_machine(),
    )
    write_text_atomic(path, replace_section(text, name, body))


class _Tee(io.TextIOBase):
    def __init__(self, out):
        self.out, self.buf = out, io.StringIO()

    def write(self, s):
        self.out.write(s)
        return self.buf.write(s)

    def flush(self):
        self.out.flush()


class Run:
    """What :func:`recorded` yields: set ``summary`` (one line for the history; default: the last line printed)."""

    summary: str | None = None
    skip: bool = False  # set True when the run measured nothing (its section is then left alone)


@contextlib.contextmanager
def recorded(name: str, title: str, path=README):
    """Print as usual and, when the block ends without an error, write section ``name`` of ``path``."""
    _check_name(name)
    run, tee = Run(), _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        yield run
    if run.skip or path is None:
        return
    output = tee.buf.getvalue()
    last = [ln.strip() for ln in output.splitlines() if ln.strip()]
    write(name, title, output, run.summary or (last[-1] if last else "no output"), path)
    print(f"[benchmarks] wrote section '{name}' of {path}")
