"""One chapter's run: papermill under the repository's build lock, its parameters checked first. The executed
notebook and the result file are written under ``.cache/tmp`` and moved into place only after the whole
notebook ran, the notebook first and the result, which records the notebook's SHA-256, last: a run killed in
between leaves a pair that does not match, and the chapter runs again. SIGINT and SIGTERM stop a run through
its clean-up.

The kernel uses ZeroMQ's ``ipc`` transport: its channels are Unix sockets, with its connection file, in a
private folder (mode 0700), so no other local user can reach them (on TCP, any could). (ipykernel opens one
more socket by itself, for forked children's output, on 127.0.0.1; it takes only messages that start with a
random key the kernel keeps.) The folder is ``<temporary folder>/gspa-kernel-<pid>-<random>``: a run removes
it when it ends; one killed first (SIGKILL) leaves it, and the next run removes every such folder of this user
whose process is gone (:func:`remove_stale_socket_folders`)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from gspa.book import freshness as F
from gspa.book.parameters import (
    PipelineError,
    _default_value,
    check_parameters,
    declared_parameters,
    profile_values,
)
from gspa.book.results import RUN_ENV
from gspa.util.atomic import move_aside, write_text_atomic
from gspa.util.progress import PROGRESS_ENV

FAILED = 3  # exit status of a chapter that failed (a refused input exits with 2)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
TEACH = "teach"  # the tag of a code cell shown on the page (a short call that teaches the library)
WIDGET = "application/vnd.jupyter.widget-view+json"
_running: list = []  # the chapter being executed (at most one)
_kernels: list = []  # the kernel managers of that run
_stopped_in: list = []  # the chapter that was executing when a signal came
PREFIX = "gspa-kernel-"
_FOLDER = re.compile(re.escape(PREFIX) + r"([0-9]+)-[A-Za-z0-9_]+")
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with its terminating NUL


def socket_folder() -> str:
    """A new private folder for a run's kernel sockets; refused, naming it, where the temporary folder's path
    leaves no room for the sockets' names."""
    where = tempfile.gettempdir()
    longest = len(os.fsencode(os.path.join(where, f"{PREFIX}{os.getpid()}-12345678", "kernel-99")))
    if longest > MAX_SOCKET_PATH:
        raise PipelineError(
            f"the temporary folder {where!r} is too long a path for the kernel's Unix sockets (at most "
            f"{MAX_SOCKET_PATH} bytes with their names, here {longest}); set TMPDIR to a shorter folder"
        )
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")


def ipc_kernel_manager(folder: str, started: list):
    """A kernel manager class for papermill whose kernel's sockets and connection file are in ``folder``;
    every manager made is appended to ``started`` (to stop its kernel on a signal)."""
    from jupyter_client import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.connection_file = os.path.join(folder, "kernel.json")
            self.ip = os.path.join(folder, "kernel")  # the sockets are <ip>-<port>
            started.append(self)

    return IPCKernelManager


def _gone(pid: int, since: float) -> bool:
    """Whether the process that made a folder last modified at ``since`` has ended: there is no process
    ``pid``, or it started after that (the number was reused)."""
    import psutil

    try:
        return psutil.Process(pid).create_time() > since + 2
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def remove_stale_socket_folders(where: str | None = None) -> list[str]:
    """Remove this user's ``gspa-kernel-<pid>-*`` folders in ``where`` (the temporary folder) whose process
    is gone; leave those of running pipelines, of other users, links and anything else. Returns those removed."""
    where = where or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return removed
    for entry in entries:
        m = _FOLDER.fullmatch(entry.name)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (
            m
            and stat.S_ISDIR(st.st_mode)
            and st.st_uid == os.getuid()
            and int(m[1]) != os.getpid()
            and _gone(int(m[1]), min(st.st_mtime, time.time()))
        ):
            shutil.rmtree(entry.path, ignore_errors=True)
            if not os.path.lexists(entry.path):
                removed.append(entry.path)
    return removed


class ChapterFailed(PipelineError):
    """A chapter's notebook raised, or its kernel died."""


def _interrupt(signum, frame):
    """Stop the kernel at once (papermill's own clean-up would ask it to shut down mid-cell), then raise
    KeyboardInterrupt with ``signum``; the clean-up that follows is not interrupted again."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    _stopped_in[:] = _running
    _stop_kernels()
    exc = KeyboardInterrupt(signal.Signals(signum).name)
    exc.signum = signum
    raise exc


@contextlib.contextmanager
def _environment(env: dict):
    """``env`` set in this process's environment (which the kernel inherits) for the block, each key put back
    as it was afterwards, one at a time (a signal in between leaves the others as they are)."""
    before = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextlib.contextmanager
def stoppable():
    """While the block runs, SIGINT and SIGTERM raise KeyboardInterrupt, so the run stops through its
    clean-up. A signal that is ignored stays ignored (SIGINT in a background job of a shell script)."""
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(sig, _interrupt)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


def _stop_kernels() -> None:
    """Stop the running kernels and their process groups (the workers they started): SIGTERM, then SIGKILL
    after 3 s."""
    for km in _kernels:
        prov = getattr(km, "provisioner", None)
        proc, pgid = getattr(prov, "process", None), getattr(prov, "pgid", None)
        if proc is None or proc.poll() is not None:
            continue
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(pgid, sig) if pgid else proc.send_signal(sig)
                proc.wait(3)
                break
            except (ProcessLookupError, PermissionError):
                break
            except subprocess.TimeoutExpired:
                continue


def remove_stale_temporaries(root: Path) -> None:
    """Remove what killed runs left (with the build lock held, so nothing is in use): ``.cache/tmp`` and the
    temporary files of the pages (and of older versions, which wrote them inside the book)."""
    pats = ("book/chapters/**/.*.tmp*", "book/_results/**/.*.tmp*", "book/.*.md.*.tmp")
    stale = [p for pat in pats for p in root.glob(pat) if p.is_file()]
    for p in stale:
        p.unlink()
    t = root / ".cache" / "tmp"  # the runs' temporary files, outside the book's sources
    if t.is_dir() and not t.is_symlink():
        stale += list(t.iterdir())
        shutil.rmtree(t)
    elif t.exists() or t.is_symlink():  # a file where the folder belongs
        stale.append(t)
        t.unlink()
    if stale:
        print(
            f"[gspa] removed {len(stale)} temporary file(s) left by an interrupted run", flush=True
        )


@contextlib.contextmanager
def build_lock(root: Path):
    """Hold ``.cache/build.lock`` (a :class:`filelock.FileLock`, released by the OS when its holder dies,
    however it dies). Another process waits, saying so; this process may enter again."""
    from filelock import FileLock, Timeout

    root = root.resolve()
    path = root / ".cache" / "build.lock"
    lock = FileLock(path, thread_local=False, is_singleton=True)  # one object a path: re-entrant
    if lock.is_locked:  # by this process
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if aside := move_aside(path):
        F.warn_damaged(
            root, path, "a directory, not the lock file", f"moved aside to {Path(aside).name}"
        )
    try:
        lock.acquire(timeout=0)
    except Timeout:
        holder = path.read_text(errors="replace").strip() if path.is_file() else ""
        print(
            f"gspa: waiting for another build (pid {holder or 'unknown'}) to finish...",
            file=sys.stderr,
            flush=True,
        )
        lock.acquire()
    try:
        path.write_text(str(os.getpid()))
        remove_stale_temporaries(root)
        yield
    finally:
        lock.release()


def page_tags(tags) -> list:
    """A code cell's tags on the page: papermill's injected parameters removed (the chapter's parameter note
    shows them); a cell tagged ``teach`` shown; every other one hidden behind a toggle (``hide-input``)."""
    tags = list(tags)
    if "injected-parameters" in tags:
        return tags if "remove-input" in tags else [*tags, "remove-input"]
    if TEACH in tags or {"hide-input", "remove-input", "remove-cell"} & set(tags):
        return tags
    return [*tags, "hide-input"]


def checked_parameters(
    root: Path, chapter: str, profile: str, overrides: dict, kept: bool = False
) -> tuple[dict, dict]:
    """The chapter's declared parameters and its profile's values, both checked, as are ``overrides``
    (``kept``: the ``-p`` values kept from an earlier rerun, and the refusal says so)."""
    declared = declared_parameters(F.source_path(root, chapter))
    prof = profile_values(root, profile, chapter)
    check_parameters(chapter, declared, prof, f"params/{profile}/{chapter}.yaml")
    source = (
        f"-p value kept from an earlier rerun (in {F.result_path(root, chapter).relative_to(root)}; "
        f"'make rerun NB={chapter}' without ARGS clears it)"
        if kept
        else "-p"
    )
    check_parameters(chapter, declared, overrides, source)
    return declared, prof


def hash_checked_bytecode(root: Path) -> None:
    """Compile ``gspa`` to bytecode checked against its source's hash: a timestamp-checked ``.pyc`` would be
    used for an edited module of unchanged size and time, and a chapter would run old code under new inputs."""
    import compileall
    import py_compile

    mode = py_compile.PycInvalidationMode.CHECKED_HASH
    compileall.compile_dir(str(root / "gspa"), quiet=1, force=True, invalidation_mode=mode)


def move_into_place(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst``; across filesystems, copy it beside ``dst`` first and rename that."""
    try:
        os.replace(src, dst)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
        try:
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)
        finally:
            tmp.unlink(missing_ok=True)
        src.unlink()


@contextlib.contextmanager
def forwarded_progress(path: Path):
    """While the block runs, copy what the chapter's progress bars append to ``path``
    (:mod:`gspa.util.progress`) to standard error."""
    path.write_text("")
    stop = threading.Event()

    def pump():
        with open(path, encoding="utf-8", errors="replace") as fh:
            while (chunk := fh.read()) or not stop.is_set():
                sys.stderr.write(chunk)
                sys.stderr.flush()
                stop.wait(0 if chunk else 0.5)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join(5)


def execute(
    root: Path, chapter: str, profile: str, overrides: dict | None = None, kept: bool = False
) -> None:
    """Execute one chapter under the build lock and move its notebook, then its result file, into place
    (``kept``: the overrides are those kept from an earlier rerun)."""
    import nbformat
    import papermill

    from gspa.util.fingerprint import digest

    with build_lock(root):
        overrides = dict(overrides or {})
        declared, prof = checked_parameters(root, chapter, profile, overrides, kept)
        paper = prof if profile == "paper" else profile_values(root, "paper", chapter)

        def default(info):
            value = _default_value(info)
            return info.get("default") if value is None else value

        params_doc = {
            name: {"value": overrides[name], "source": "override (-p)"}
            if name in overrides
            else {"value": prof[name], "source": f"profile {profile}"}
            if name in prof
            else {"value": default(info), "source": "notebook default"}
            for name, info in declared.items()
        }
        out_nb, out_res = F.executed_path(root, chapter), F.result_path(root, chapter)
        tmp = root / ".cache" / "tmp" / f"{chapter.replace('/', '__')}.{os.getpid()}"
        for path in (out_nb, out_res, tmp):
            path.parent.mkdir(parents=True, exist_ok=True)
        tmp_nb, tmp_res, progress = (Path(f"{tmp}.{x}") for x in ("ipynb", "json", "progress"))
        values = {**prof, **overrides}
        inputs = F.chapter_inputs(root, profile, chapter, values)
        run = {
            "chapter": chapter,
            "profile": profile,
            "parameters": params_doc,
            "overrides": overrides,
            "paper_values": {n: paper.get(n, default(i)) for n, i in declared.items()},
            "inputs": inputs,
            "inputs_hash": digest(inputs),
            "result_file": str(tmp_res),
        }
        if stale := remove_stale_socket_folders():
            print(
                f"[gspa] removed {len(stale)} kernel socket folder(s) left by a killed run",
                flush=True,
            )
        sockets = socket_folder()
        with_p = f", overrides {overrides}" if overrides else ""
        print(f"[gspa] executing {chapter} (profile {profile}{with_p})", flush=True)
        _kernels.clear()
        _running[:] = [chapter]
        hash_checked_bytecode(root)
        env = {RUN_ENV: json.dumps(run), PROGRESS_ENV: str(progress)}
        try:
            # papermill runs the source converted to a notebook, in place
            nbformat.write(F.read_source(F.source_path(root, chapter)), str(tmp_nb))
            with _environment(env), forwarded_progress(progress):
                papermill.execute_notebook(
                    str(tmp_nb),
                    str(tmp_nb),
                    parameters=values,
                    kernel_name="python3",
                    cwd=str(root),
                    progress_bar=True,
                    report_mode=False,
                    kernel_manager_class=ipc_kernel_manager(sockets, _kernels),
                )
            if not tmp_res.exists():
                raise ChapterFailed(
                    f"chapter {chapter!r} ran but did not save its results (call ch.save())"
                )
            # progress-bar widgets show nothing in a static book and would load a widget manager from a CDN
            nb = nbformat.read(str(tmp_nb), as_version=4)
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs = [o for o in cell.outputs if WIDGET not in o.get("data", {})]
                    cell.metadata["tags"] = page_tags(cell.metadata.get("tags", []))
            nb.metadata.pop("widgets", None)
            nbformat.write(nb, str(tmp_nb))
            rec = json.loads(tmp_res.read_text(encoding="utf-8"))
            rec["executed_sha256"] = F.file_sha256(tmp_nb)  # pairs the result with this notebook
            write_text_atomic(tmp_res, json.dumps(rec, indent=1, allow_nan=False))
            for out in (out_nb, out_res):  # a directory where a file belongs is kept, renamed
                if aside := move_aside(out):
                    F.warn_damaged(
                        root, out, "a directory, not a file", f"moved aside to {Path(aside).name}"
                    )
            held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # the two move together
            try:
                move_into_place(tmp_nb, out_nb)
                move_into_place(tmp_res, out_res)  # last: a kill before leaves a stale pair
                _running.clear()  # a signal now comes after the chapter's run is complete
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
        except KeyboardInterrupt:
            _stop_kernels()  # (already stopped when the signal handler ran)
            raise
        except Exception as exc:
            raise ChapterFailed(
                f"chapter {chapter!r} failed; its previous output (if any) is kept.\n{exc}"
            ) from exc
        finally:
            _running.clear()
            _kernels.clear()
            shutil.rmtree(sockets, ignore_errors=True)
            for t in (tmp_nb, tmp_res, progress):
                t.unlink(missing_ok=True)
