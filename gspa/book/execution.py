"""Running one chapter: papermill in a kernel reachable only by this user, under the repository's build lock,
its parameters checked first, its outputs written beside their place and moved in together; SIGINT and
SIGTERM stop it through its clean-up (:mod:`gspa.book.pipeline` has the commands that call it)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from gspa.book import freshness as F
from gspa.book.freshness import (
    executed_path,
    file_sha256,
    result_path,
    warn_damaged,
)
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

#: exit status of a chapter that failed (a refused input exits with 2)
FAILED = 3


class ChapterFailed(PipelineError):
    """A chapter's notebook raised, or its kernel died."""


class Interrupted(KeyboardInterrupt):
    """SIGINT (Ctrl-C) or SIGTERM while the pipeline works; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_running: list = []  # the chapter being executed (at most one)
_kernels: list = []  # the kernel managers of that run
_stopped_in: list = []  # the chapter that was executing when a signal came


def _interrupt(signum, frame):
    """Stop the running chapter's kernel at once (before papermill's own clean-up would ask it to shut down
    mid-cell), then raise :class:`Interrupted`; the clean-up that follows is not interrupted again."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    _stopped_in[:] = _running
    _stop_kernels(_kernels)
    raise Interrupted(signum)


@contextlib.contextmanager
def stoppable():
    """While the pipeline works, SIGTERM and SIGINT raise :class:`Interrupted` (a KeyboardInterrupt), so
    the run stops through its clean-up: the kernel stopped, temporaries removed, results untouched. A
    signal that is ignored stays ignored (SIGINT in a background job of a non-interactive shell)."""
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(sig, _interrupt)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


@contextlib.contextmanager
def _signals_held():
    """SIGINT and SIGTERM wait (pending) until the block is done: the two files move into place together."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop_kernels(managers: list) -> None:
    """Stop the kernels (and their process groups: the workers they started) of an interrupted run:
    SIGTERM, then SIGKILL after 3 s; wait for each."""
    for km in managers:
        prov = getattr(km, "provisioner", None)
        proc, pgid = getattr(prov, "process", None), getattr(prov, "pgid", None)
        if proc is None or proc.poll() is not None:
            continue
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(pgid, sig) if pgid else proc.send_signal(sig)
            except (ProcessLookupError, PermissionError):
                break
            try:
                proc.wait(3)
                break
            except subprocess.TimeoutExpired:
                continue


def tmp_dir(root: Path) -> Path:
    """Where runs write their temporary files: outside the book's sources (``.cache/`` is excluded
    from the Jupyter Book build and ignored by git)."""
    return root / ".cache" / "tmp"


# Temporary files that older versions wrote inside the book, and write_text_atomic's for the pages.
_STALE_IN_BOOK = ("book/chapters/**/.*.tmp*", "book/_results/**/.*.tmp*", "book/.*.md.*.tmp")


def remove_stale_temporaries(root: Path) -> None:
    """Remove temporary files left by killed runs (called with the build lock held, so none is in use)."""
    stale = [p for pat in _STALE_IN_BOOK for p in root.glob(pat) if p.is_file()]
    for p in stale:
        p.unlink()
    t = tmp_dir(root)
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


_locks: dict = {}  # the build lock of each repository this process has opened (re-entrant)


@contextlib.contextmanager
def build_lock(root: Path):
    """Hold the repository's build lock (``.cache/build.lock``, a :class:`filelock.FileLock`) for build,
    run and rerun. A second process waits, saying so, until the first is done; the lock is re-entrant
    within a process and released by the kernel when its holder dies, however it dies."""
    from filelock import FileLock, Timeout

    root = root.resolve()
    path = root / ".cache" / "build.lock"
    if root not in _locks:
        _locks[root] = FileLock(path, thread_local=False)
    lock = _locks[root]
    if lock.is_locked:  # this process holds it already
        with lock:
            yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = move_aside(path)
    if aside:
        warn_damaged(
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


WIDGET = "application/vnd.jupyter.widget-view+json"


#: A code cell tagged so is shown on the page: a short call that teaches the library. Every other code cell
#: is hidden behind a toggle (the book's one rule for code).
TEACH = "teach"


def page_tags(tags) -> list:
    """A code cell's tags on the page: papermill's injected parameters removed (the chapter's parameter
    note shows the values); a cell tagged ``teach`` shown; every other code cell hidden behind a toggle
    (``hide-input``: computation and recording live in the package and are one click away)."""
    tags = list(tags)
    if "injected-parameters" in tags:
        return tags if "remove-input" in tags else [*tags, "remove-input"]
    if TEACH in tags or {"hide-input", "remove-input", "remove-cell"} & set(tags):
        return tags
    return [*tags, "hide-input"]


def strip_widgets(path: Path) -> None:
    """Drop progress-bar widgets (tqdm in the kernel) from an executed notebook: in a static book they
    show nothing, and their state would make the page load the widget manager from a CDN. Code cells get
    the page's tags (:func:`page_tags`)."""
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if WIDGET not in o.get("data", {})]
            cell.metadata["tags"] = page_tags(cell.metadata.get("tags", []))
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, str(path))


def checked_parameters(
    root: Path, chapter: str, profile: str, overrides: dict, kept: bool = False
) -> tuple[dict, dict]:
    """The chapter's declared parameters and its profile's values, both checked, as are ``overrides``
    (``kept``: they are the ``-p`` values kept from an earlier rerun, and the refusal says so)."""
    declared = declared_parameters(F.source_path(root, chapter))
    prof = profile_values(root, profile, chapter)
    check_parameters(chapter, declared, prof, f"params/{profile}/{chapter}.yaml")
    source = (
        f"-p value kept from an earlier rerun (in {result_path(root, chapter).relative_to(root)}; "
        f"'make rerun NB={chapter}' without ARGS clears it)"
        if kept
        else "-p"
    )
    check_parameters(chapter, declared, overrides, source)
    return declared, prof


def hash_checked_bytecode(root: Path) -> None:
    """Compile every ``gspa`` module to bytecode that Python checks against its source's hash when importing
    it: a timestamp-checked ``.pyc`` would be used for an edited module whose size and modification time are
    unchanged, and a chapter would run old code under its new inputs."""
    import compileall
    import py_compile

    compileall.compile_dir(
        str(root / "gspa"),
        quiet=1,
        force=True,
        invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
    )


def move_into_place(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst``; across filesystems (``.cache`` on a scratch disk), copy it beside ``dst``
    first and rename that, so ``dst`` is still replaced in one step."""
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
    """While the block runs, copy what is appended to ``path`` (the chapter's progress bars,
    :mod:`gspa.util.progress`) to standard error, and name ``path`` in :data:`PROGRESS_ENV` for the kernel."""
    path.write_text("")
    stop = threading.Event()

    def pump():
        with open(path, encoding="utf-8", errors="replace") as fh:
            while True:
                chunk = fh.read()
                if chunk:
                    sys.stderr.write(chunk)
                    sys.stderr.flush()
                elif stop.is_set():
                    return
                else:
                    stop.wait(0.5)

    before = os.environ.get(PROGRESS_ENV)
    os.environ[PROGRESS_ENV] = str(path)
    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join(5)
        if before is None:
            os.environ.pop(PROGRESS_ENV, None)
        else:
            os.environ[PROGRESS_ENV] = before


def ipc_kernel_manager(folder: str, started: list | None = None):
    """A kernel manager class for papermill whose kernel (ipykernel, as launched by jupyter_client) talks
    over Unix sockets (ZeroMQ's ``ipc`` transport, which jupyter_client supports) in ``folder``, with its
    connection file there too: ``folder`` is private (mode 0700, :func:`gspa.book.kernel.socket_folder`),
    so no other user can reach the kernel's channels. Every manager made is appended to ``started``."""
    from jupyter_client import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.connection_file = os.path.join(folder, "kernel.json")
            self.ip = os.path.join(folder, "kernel")  # the sockets are <ip>-<port>
            if started is not None:
                started.append(self)

    return IPCKernelManager


def execute(
    root: Path, chapter: str, profile: str, overrides: dict | None = None, kept: bool = False
) -> None:
    """Execute one chapter with papermill (holding the build lock); move its notebook and then its
    result file, which records the notebook's SHA-256 and the run's inputs, into place (``kept``: the
    overrides are those kept from an earlier rerun)."""
    with build_lock(root):
        _execute(root, chapter, profile, overrides, kept)


def _execute(root: Path, chapter: str, profile: str, overrides: dict | None, kept: bool) -> None:
    import nbformat
    import papermill

    from gspa.util.fingerprint import digest

    overrides = dict(overrides or {})
    declared, prof = checked_parameters(root, chapter, profile, overrides, kept)
    values = {**prof, **overrides}
    params_doc = {}
    for name, info in declared.items():
        if name in overrides:
            params_doc[name] = {"value": overrides[name], "source": "override (-p)"}
        elif name in prof:
            params_doc[name] = {"value": prof[name], "source": f"profile {profile}"}
        else:
            dflt = _default_value(info)
            params_doc[name] = {
                "value": info.get("default") if dflt is None else dflt,
                "source": "notebook default",
            }

    out_nb, out_res = executed_path(root, chapter), result_path(root, chapter)
    out_nb.parent.mkdir(parents=True, exist_ok=True)
    out_res.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir(root).mkdir(parents=True, exist_ok=True)
    flat = chapter.replace("/", "__")
    tmp_nb = tmp_dir(root) / f"{flat}.{os.getpid()}.ipynb"
    tmp_res = tmp_dir(root) / f"{flat}.{os.getpid()}.json"
    paper = profile_values(root, "paper", chapter) if profile != "paper" else prof
    paper_values = {
        name: paper[name]
        if name in paper
        else (_default_value(info) if _default_value(info) is not None else info.get("default"))
        for name, info in declared.items()
    }
    run = {
        "chapter": chapter,
        "profile": profile,
        "parameters": params_doc,
        "overrides": overrides,
        "paper_values": paper_values,
        "inputs": (inputs := F.chapter_inputs(root, profile, chapter, values)),
        "inputs_hash": digest(inputs),
        "result_file": str(tmp_res),
    }
    from gspa.book.kernel import remove_stale_socket_folders, socket_folder

    stale = remove_stale_socket_folders()
    if stale:
        print(
            f"[gspa] removed {len(stale)} kernel socket folder(s) left by a killed run", flush=True
        )
    try:
        sockets = socket_folder()  # mode 0700: the kernel's sockets, for this user only
    except ValueError as exc:
        raise PipelineError(str(exc)) from None
    env_before = os.environ.get(RUN_ENV)
    os.environ[RUN_ENV] = json.dumps(run)
    print(
        f"[gspa] executing {chapter} (profile {profile}"
        + (f", overrides {overrides}" if overrides else "")
        + ")",
        flush=True,
    )
    _kernels.clear()
    _running[:] = [chapter]
    progress = tmp_dir(root) / f"{flat}.{os.getpid()}.progress"
    hash_checked_bytecode(root)
    try:
        # papermill runs the source converted to a notebook, in place
        nbformat.write(F.read_source(F.source_path(root, chapter)), str(tmp_nb))
        with forwarded_progress(progress):
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
        strip_widgets(tmp_nb)
        rec = json.loads(tmp_res.read_text(encoding="utf-8"))
        rec["executed_sha256"] = file_sha256(
            tmp_nb
        )  # pairs the result with this notebook (see is_fresh)
        write_text_atomic(tmp_res, json.dumps(rec, indent=1, allow_nan=False))
        for out in (out_nb, out_res):  # a directory where a file belongs is kept, renamed
            aside = move_aside(out)
            if aside:
                warn_damaged(
                    root, out, "a directory, not a file", f"moved aside to {Path(aside).name}"
                )
        with _signals_held():
            move_into_place(tmp_nb, out_nb)
            # last: a kill before this leaves a mismatched, hence stale, pair
            move_into_place(tmp_res, out_res)
            _running.clear()  # a signal now is delivered after the chapter's run is complete
    except KeyboardInterrupt:
        _stop_kernels(_kernels)  # (already stopped when the signal handler ran)
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
            if t.exists():
                t.unlink()
        if env_before is None:
            os.environ.pop(RUN_ENV, None)
        else:
            os.environ[RUN_ENV] = env_before
