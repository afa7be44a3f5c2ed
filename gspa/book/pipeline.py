"""Execute the chapters with papermill and build the book with Jupyter Book.

Command line (``python -m gspa.book.pipeline`` or ``gspa``)::

    build  --profile paper|smoke [--only a,b]      execute stale chapters, write the ledger and errata, build the book
           [--dry-run]                             only say which chapters would execute, and why
    rerun  CHAPTER [-p NAME VALUE ...] [--others P] re-execute one chapter only, then rebuild the book from the
                                                   other chapters' existing results (refused if some have none,
                                                   unless --others P executes those with profile P)
    run    CHAPTER [--profile P] [-p NAME VALUE]   re-execute one chapter only
    params CHAPTER                                 list the parameters a chapter declares

Layout (paths relative to the repository root, which holds ``_toc.yml``):

A chapter's name is ``<paper>/<name>`` (``gspa/lemma1``): one folder per paper. Commands accept the
short name (``lemma1``) when only one chapter has it.

* ``notebooks/<chapter>.md`` — source, a MyST Markdown notebook (jupytext) with one cell tagged ``parameters``,
  converted to a notebook for papermill (:func:`gspa.book.freshness.read_source`);
* ``params/<profile>/<chapter>.yaml`` — the profile's values (``paper``: the paper's settings,
  ``smoke``: tiny settings for the tests);
* ``book/chapters/<chapter>.ipynb`` — the executed copy the book renders;
* ``book/_results/<chapter>.json`` — the chapter's published values and claims;
* ``book/ledger.md`` — the claims ledger, generated from all result files;
* ``book/errata.md`` — generated from ``book/errata.template.md``: each marker line
  ``<!-- verdicts: claim-id = verdict; ... -->`` becomes the verdicts of this build, with a warning
  where one differs from what the erratum states.

A chapter is executed again exactly when what computes it changed (:mod:`gspa.book.freshness`): its code
cells, its parameter values, the ``gspa`` modules it can import (by syntax tree: comments and docstrings do
not count), the installed packages' versions, the device class; or when its executed notebook is not the one
its result file records (by SHA-256). A prose-only edit is merged into the executed notebook without running
it. ``build --dry-run`` prints, for each chapter that would execute, the first input that changed. Values given
with ``-p`` persist in the result file (later builds keep them) until the chapter is rerun without ``-p``.

Parameters are checked before anything runs: names must be declared (the nearest is suggested),
values must be of the kind of the default, and inside the domain every parameter declares at the end
of its comment (:func:`parse_domain`): a range ``n_mc = 400_000  # Monte Carlo samples [100, 10000000]``,
choices ``order = "fixed"  # {fixed, reshuffle}`` (the nearest suggested), a list's length
``, len [1, inf)``, or ``(any text)``; integers where the default has them.

Executed notebooks and result files are written to temporary files under ``.cache/tmp/`` (outside the book's
sources) and moved into place only after the whole notebook ran, the notebook first and the result file,
which records the notebook's hash, last: a run killed in between leaves a pair that does not match, and the
chapter is executed again. ``.cache`` may be on another filesystem than ``book/``: a file that cannot be
renamed across is copied beside its place first, then renamed. A damaged result file (not UTF-8 JSON, not a
record of its chapter, a directory, a FIFO) counts as missing, with one warning line naming it, and the chapter is executed again; a directory where an
output file, or the lock, belongs is renamed to ``<name>.damaged``, never deleted. ``rerun`` takes another
chapter's result only with the executed notebook it records. A failing chapter leaves the previous good
output and fails the build with exit status 3 (refused input: 2). ``build``, ``run`` and ``rerun`` hold a lock
(``.cache/build.lock``), so a second one waits for the first; the holder first removes temporary files left
by killed runs. Ctrl-C (SIGINT) or SIGTERM stops a command within seconds: the kernel is stopped, the
temporary files removed, and it prints ``interrupted: <chapter>; the previous result is kept`` and exits
with status 130 (SIGINT) or 143 (SIGTERM). The kernel's channels are Unix sockets in a private folder
(:func:`ipc_kernel_manager`, :mod:`gspa.book.kernel`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import yaml

from gspa.book import freshness as F
from gspa.book.freshness import (  # noqa: F401 - the pipeline's names for them
    PAGE_MODULES,
    executed_path,
    file_sha256,
    load_result,
    output_matches,
    result_path,
    warn_damaged,
)
from gspa.book.parameters import (  # noqa: F401 - the pipeline's names for them
    PROFILES,
    ParameterError,
    PipelineError,
    _default_value,
    _parse_value,
    check_parameters,
    declared_parameters,
    describe_domain,
    domain_refusal,
    parse_domain,
    profile_values,
)
from gspa.book.results import RUN_ENV
from gspa.util.progress import PROGRESS_ENV
from gspa.util.atomic import move_aside, write_text_atomic

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


def find_root(start: Path | None = None) -> Path:
    p = (start or Path.cwd()).resolve()
    for cand in (p, *p.parents):
        if (cand / "_toc.yml").exists() and (cand / "notebooks").is_dir():
            return cand
    raise PipelineError(f"no gspa repository (with _toc.yml and notebooks/) at or above {p}")


def chapters(root: Path) -> list[str]:
    """Chapter names in book order (the order of _toc.yml), all of which must have a source."""
    try:
        toc = yaml.safe_load((root / "_toc.yml").read_text())
    except yaml.YAMLError as exc:
        raise PipelineError("_toc.yml is not valid YAML: " + " ".join(str(exc).split())) from None
    names = []

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("book/chapters/"):
                names.append(f.removeprefix("book/chapters/").removesuffix(".ipynb"))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    missing = [n for n in names if not F.source_path(root, n).exists()]
    if missing:
        raise PipelineError(
            f"_toc.yml lists chapters without a source notebooks/<chapter>.md: {missing}"
        )
    return names


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
        path.parent.mkdir(parents=True, exist_ok=True)
        aside = move_aside(path)
        if aside:
            warn_damaged(
                root, path, "a directory, not the lock file", f"moved aside to {Path(aside).name}"
            )
        _locks[root] = FileLock(path, thread_local=False)
    lock = _locks[root]
    if lock.is_locked:  # this process holds it already
        with lock:
            yield
        return
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


def run_values(root: Path, profile: str, chapter: str, overrides: dict) -> dict:
    """The parameter values a run of the chapter uses: the profile file's, then ``overrides``."""
    return {**profile_values(root, profile, chapter), **overrides}


def inputs_hash(root: Path, profile: str, chapter: str, overrides: dict | None = None) -> str:
    """Digest of the chapter's inputs (:func:`gspa.book.freshness.chapter_inputs`)."""
    from gspa.util.fingerprint import digest

    values = run_values(root, profile, chapter, overrides or {})
    return digest(F.chapter_inputs(root, profile, chapter, values))


def stale_reason(root: Path, profile: str, chapter: str) -> str | None:
    """Why ``build`` would execute the chapter (the first input that changed), or None when it is fresh. The
    ``-p`` values its result was computed with count as kept (:func:`gspa.book.freshness.kept_overrides`)."""
    keep = F.kept_overrides(load_result(root, chapter), profile)
    try:
        values = run_values(root, profile, chapter, keep)
    except PipelineError as exc:
        return str(exc)
    return F.stale_reason(root, profile, chapter, values)


def is_fresh(root: Path, profile: str, chapter: str) -> bool:
    """Up to date: same inputs and profile, and the executed notebook is the one the result file records."""
    return stale_reason(root, profile, chapter) is None


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
    env_before = os.environ.get(RUN_ENV)
    os.environ[RUN_ENV] = json.dumps(run)
    print(
        f"[gspa] executing {chapter} (profile {profile}"
        + (f", overrides {overrides}" if overrides else "")
        + ")",
        flush=True,
    )
    from gspa.book.kernel import remove_stale_socket_folders, socket_folder

    stale = remove_stale_socket_folders()
    if stale:
        print(
            f"[gspa] removed {len(stale)} kernel socket folder(s) left by a killed run", flush=True
        )
    sockets = socket_folder()  # mode 0700: the kernel's sockets, for this user only
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


def write_pages(root: Path, names: list[str]) -> None:
    """Render the generated pages from the result files of all chapters: book/ledger.md,
    book/errata.md from book/errata.template.md (the errata prose with this build's verdicts),
    book/versions.md from book/versions.yaml (the differences between the paper's two copies) and
    book/cite.md from CITATION.cff (how to cite, :mod:`gspa.book.citation`) and book/provenance.md (where
    each number and figure comes from, :func:`render_provenance`)."""
    from gspa.book.ledger import (
        render_errata,
        render_front,
        render_ledger,
        render_versions,
        unrecorded_claims,
    )

    records = []
    for n in names:
        rec = load_result(root, n)
        if rec is None:
            raise PipelineError(f"chapter {n!r} has no result file; execute it first")
        records.append(rec)
    problems = unrecorded_claims(records)
    if problems:
        raise PipelineError(
            "every declared claim is recorded by exactly one chapter: " + "; ".join(problems)
        )
    try:
        errata = render_errata(
            (root / "book" / "errata.template.md").read_text(encoding="utf-8"), records
        )
    except ValueError as exc:
        raise PipelineError(f"book/errata.template.md: {exc}") from exc
    catalogue = root / "book" / "versions.yaml"
    versions = None
    if catalogue.exists():
        try:
            versions = render_versions(
                yaml.safe_load(catalogue.read_text(encoding="utf-8")), records
            )
        except ValueError as exc:
            raise PipelineError(f"book/versions.yaml: {exc}") from exc
    cff = root / "CITATION.cff"
    cite = None
    if cff.exists():
        from gspa.book.citation import render_cite

        try:
            cite = render_cite(cff.read_text(encoding="utf-8"), build_provenance(root))
        except (ValueError, yaml.YAMLError) as exc:
            raise PipelineError(f"CITATION.cff: {' '.join(str(exc).split())}") from exc
    front = root / "book" / "intro.template.md"
    if front.exists():
        try:
            intro = render_front(front.read_text(encoding="utf-8"), records, build_provenance(root))
        except ValueError as exc:
            raise PipelineError(f"book/intro.template.md: {exc}") from exc
        write_text_atomic(root / "book" / "intro.md", intro)
    write_text_atomic(root / "book" / "ledger.md", render_ledger(records))
    write_text_atomic(root / "book" / "provenance.md", render_provenance(root, records))
    write_text_atomic(root / "book" / "errata.md", errata)
    if versions is not None:
        write_text_atomic(root / "book" / "versions.md", versions)
    if cite is not None:
        write_text_atomic(root / "book" / "cite.md", cite)


def render_provenance(root: Path, records: list[dict]) -> str:
    """book/provenance.md: where each chapter's numbers, verdicts and figures come from, traced in its
    executed notebook (:mod:`gspa.book.provenance`)."""
    import nbformat
    from gspa.book import provenance

    traced = []
    for rec in records:
        path = executed_path(root, rec["chapter"])
        try:
            traced.append((rec, provenance.analyse(nbformat.read(str(path), as_version=4))))
        except (OSError, ValueError) as exc:
            raise PipelineError(f"{path}: cannot trace its numbers: {exc}") from exc
    return provenance.render_page(traced)


def build_provenance(root: Path) -> dict:
    """The package version, git commit (marked when the tree has uncommitted changes) and date of a build."""
    from datetime import datetime, timezone

    from gspa import __version__

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip():
            commit += "+uncommitted"
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown (not a git checkout)"
    return {
        "version": __version__,
        "commit": commit,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def build_book(root: Path) -> None:
    """Jupyter Book 1.x, execution off, warnings as errors. Builds to _build/html atomically-ish:
    a failed build exits non-zero (the previous _build/html may be partially updated by Sphinx)."""
    jb = shutil.which("jupyter-book", path=os.path.dirname(sys.executable)) or shutil.which(
        "jupyter-book"
    )
    if jb is None:
        raise PipelineError("jupyter-book is not installed in this environment")
    cmd = [jb, "build", str(root), "--all", "--builder", "html", "-W", "-n", "--keep-going"]
    print("[gspa] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, cwd=root)
    if proc.returncode != 0:
        raise PipelineError(f"jupyter-book build failed (exit {proc.returncode})")
    print(f"[gspa] book written to {root / '_build' / 'html' / 'index.html'}", flush=True)


def build(
    root: Path,
    profile: str,
    only: list[str] | None = None,
    book: bool = True,
    dry_run: bool = False,
) -> None:
    if dry_run:  # reads only: no lock, nothing written
        plan(root, profile, only)
        return
    with build_lock(root):
        _build(root, profile, only, book)


def plan(root: Path, profile: str, only: list[str] | None = None) -> dict[str, str]:
    """The chapters ``build`` would execute, each with why (the first input that changed), printed one line
    each as ``<chapter>: <reason>``, then how many are up to date."""
    names = chapters(root)
    todo = [resolve(names, n) for n in only] if only else names
    stale = {}
    for n in todo:
        why = stale_reason(root, profile, n)
        if why is not None:
            stale[n] = why
            print(f"{n}: {why}", flush=True)
    print(f"[gspa] plan: {len(stale)} of {len(todo)} chapter(s) to execute", flush=True)
    return stale


def resolve(names: list[str], name: str) -> str:
    """The chapter called ``name``: its full name (``gspa/lemma1``) or, if only one chapter has it, the
    name within its paper's folder (``lemma1``)."""
    if name in names:
        return name
    hits = [n for n in names if n.rpartition("/")[2] == name]
    if len(hits) == 1:
        return hits[0]
    raise PipelineError(
        f"{'ambiguous' if hits else 'unknown'} chapter {name!r}; chapters are: {', '.join(names)}"
    )


def _build(root: Path, profile: str, only: list[str] | None, book: bool) -> None:
    names = chapters(root)
    todo = [resolve(names, n) for n in only] if only else names
    stale = plan(root, profile, only)
    for n in todo:
        if n not in stale:
            merged = F.merge_sources(root, n, page_tags)
            if merged != "cannot":
                print(
                    f"[gspa] {n}: up to date"
                    + (
                        "; the notebook's new prose merged into its page, nothing run"
                        if merged == "merged"
                        else ""
                    ),
                    flush=True,
                )
                continue
            print(f"[gspa] {n}: its code cells are not those that ran; executing it", flush=True)
        keep = F.kept_overrides(load_result(root, n), profile)
        execute(root, n, profile, keep, kept=bool(keep))
    write_pages(root, names)
    if book:
        build_book(root)


def _overrides(pairs) -> dict:
    """The ``-p NAME VALUE`` pairs as a dict; a name given twice is refused (no value silently wins)."""
    names = [name for name, _ in pairs or []]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ParameterError(
            f"-p: parameter {', '.join(map(repr, twice))} is given twice; give each once"
        )
    return {name: _parse_value(raw, name) for name, raw in (pairs or [])}


BOOK_COST = (
    "about 14 min from empty caches on 2 cores"  # benchmarks/README.md: fresh-clone make book
)


def usable(root: Path, chapter: str) -> bool:
    """Whether the chapter has a result record whose executed notebook is the one it records (stale or
    not): what rerun can take as it is."""
    return output_matches(root, chapter, load_result(root, chapter))


def rerun_plan(root: Path, chapter: str, others: str | None) -> tuple[list[str], list[str]]:
    """The other chapters without a result file (to execute with the profile ``others``) and those whose
    result is stale (taken as it is). Refuses, naming the missing chapters and both ways forward, when
    some were never executed and ``others`` is None: rerun never starts a full build by itself."""
    rest = [n for n in chapters(root) if n != chapter]
    missing = [n for n in rest if not usable(root, n)]
    if missing and others is None:
        raise PipelineError(
            f"rerun executes only {chapter}, but the book needs every chapter's results and {len(missing)} "
            f"other chapter(s) were never executed (no book/_results/<chapter>.json, or one damaged or not "
            f"matching its executed notebook): {', '.join(missing)}; "
            f"either run 'make book' first (every chapter with the paper's settings, {BOOK_COST}), or add "
            "OTHERS=smoke to make rerun (--others smoke to gspa rerun) to execute the missing ones with "
            "the smoke profile's tiny settings (their numbers are then not the paper's)"
        )
    stale = [
        n
        for n in rest
        if n not in missing
        and not is_fresh(root, (load_result(root, n) or {}).get("profile", "paper"), n)
    ]
    return missing, stale


def rerun(
    root: Path, chapter: str, profile: str, overrides: dict, others: str | None = None
) -> None:
    """Re-execute ``chapter`` alone, then write the pages and build the book from every other chapter's
    existing result (executing, with the profile ``others``, only those that have none)."""
    missing, stale = rerun_plan(root, chapter, others)
    n_rest = len(chapters(root)) - 1

    def say(line):
        print(f"[gspa] {line}", flush=True)

    say(
        f"rerun: executes {chapter} (profile {profile}, "
        + (f"overrides {overrides})" if overrides else "no overrides)")
    )
    say(
        f"rerun: takes the other {n_rest - len(missing)} chapter(s) from their existing results, without executing them"
    )
    if stale:
        say(
            f"rerun: stale (inputs changed since their run; used as they are, 'make book' refreshes them): "
            f"{', '.join(stale)}"
        )
    if missing:
        say(f"rerun: never executed, now executed with the {others} profile: {', '.join(missing)}")
    say("rerun: then writes the ledger, errata and front pages and builds the book")
    with build_lock(root):  # no other build between the run and the rebuild
        execute(root, chapter, profile, overrides)
        for n in missing:
            if not usable(root, n):  # another build may have made it meanwhile
                execute(root, n, others, {})
        write_pages(root, chapters(root))
        build_book(root)


MAKE_ENV = ("GSPA_NB", "GSPA_ARGS", "GSPA_OTHERS")


def make_rerun_argv(env) -> list[str]:
    """The command line of ``make rerun NB=... ARGS=... OTHERS=...``, from the environment variables the
    Makefile exports with the variables' text unexpanded: ARGS is split like a shell command line
    (shlex), but nothing in it is evaluated; NB is always the chapter (an option-like NB is refused)."""
    nb, args, others = (env.get(k, "") for k in MAKE_ENV)
    if not nb:
        raise PipelineError(
            "usage: make rerun NB=<chapter> [ARGS='-p NAME VALUE ...'] [OTHERS=smoke]"
        )
    if nb.startswith("-"):
        raise PipelineError(f"NB must be a chapter name, got {nb!r}")
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise PipelineError(f"ARGS={args!r}: {exc}") from None
    return ["rerun", nb, *words, *(["--others", others] if others else [])]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit status 2, as every other refusal
        raise PipelineError(message)


def parser() -> argparse.ArgumentParser:
    """The book's command-line parser (``gspa build|run|rerun|params|make-rerun``)."""
    ap = _Parser(prog="gspa", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser(
        "build", help="execute stale chapters, write the ledger and errata, build the book"
    )
    b.add_argument("--profile", default="paper", choices=PROFILES)
    b.add_argument("--only", default=None, help="comma-separated chapters to consider")
    b.add_argument("--no-book", action="store_true", help="skip the Jupyter Book build")
    b.add_argument(
        "--dry-run",
        action="store_true",
        help="print each chapter that would execute and the first input that changed; run nothing",
    )
    for cmd in ("run", "rerun"):
        r = sub.add_parser(
            cmd,
            help="re-execute one chapter"
            + (
                ", then rebuild the book from the other chapters' existing results"
                if cmd == "rerun"
                else " only"
            ),
        )
        r.add_argument("chapter")
        r.add_argument("--profile", default="paper", choices=PROFILES)
        r.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
        if cmd == "rerun":
            r.add_argument(
                "--others",
                choices=PROFILES,
                default=None,
                help="execute the other chapters that have no result yet with this profile "
                "(by default rerun refuses when there are any)",
            )
    pp = sub.add_parser(
        "params", help="list a chapter's declared parameters and the values each accepts"
    )
    pp.add_argument("chapter")
    sub.add_parser(
        "make-rerun",
        help="what 'make rerun' runs: rerun with the chapter, arguments and --others "
        "in the environment variables " + ", ".join(MAKE_ENV),
    )
    return ap


def commands() -> dict[str, str]:
    """The book's commands with their one-line help, as :func:`parser` declares them."""
    sub = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {c.dest: c.help for c in sub._choices_actions}


def main(argv=None) -> int:
    with stoppable():
        try:
            return _main(argv)
        except KeyboardInterrupt as exc:  # Ctrl-C, SIGINT or SIGTERM (see stoppable)
            what = (
                f"{_stopped_in[0]}; the previous result is kept"
                if _stopped_in
                else "no chapter was executing; every chapter's result is as it was or complete"
            )
            print(
                ("\n" if sys.stderr.isatty() else "") + f"interrupted: {what}",
                file=sys.stderr,
                flush=True,
            )
            return 128 + getattr(exc, "signum", signal.SIGINT)


def _main(argv=None) -> int:
    ap = parser()
    try:
        args = ap.parse_args(argv)
        if args.cmd == "make-rerun":
            return _main(make_rerun_argv(os.environ))
        root = find_root()
        if args.cmd == "build":
            only = [s for s in args.only.split(",") if s] if args.only else None
            build(root, args.profile, only, book=not args.no_book, dry_run=args.dry_run)
            return 0
        args.chapter = resolve(chapters(root), args.chapter)
        if args.cmd == "params":
            for name, info in declared_parameters(F.source_path(root, args.chapter)).items():
                print(
                    f"{name} = {info.get('default')}"
                    + (f"  # {info['help']}" if info.get("help") else "")
                )
                print(f"    accepts {describe_domain(info.get('domain'), _default_value(info))}")
            return 0
        overrides = _overrides(args.parameter)
        checked_parameters(
            root, args.chapter, args.profile, overrides
        )  # before waiting for the lock
        if args.cmd == "run":
            execute(root, args.chapter, args.profile, overrides)
        else:
            rerun(root, args.chapter, args.profile, overrides, args.others)
    except ChapterFailed as exc:
        print(f"gspa: error: {exc}", file=sys.stderr)
        return FAILED
    except PipelineError as exc:
        print(f"gspa: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
