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
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import yaml

from gspa.book import freshness as F
from gspa.book.execution import (  # noqa: F401 - the pipeline's names for them (tests use some)
    _stopped_in,
    build_lock,
    ChapterFailed,
    checked_parameters,
    execute,
    FAILED,
    hash_checked_bytecode,
    ipc_kernel_manager,
    move_into_place,
    page_tags,
    stoppable,
    TEACH,
)
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
from gspa.util.atomic import write_text_atomic


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


def write_pages(root: Path, names: list[str]) -> None:
    """Render the generated pages from the result files of all chapters: book/ledger.md,
    book/errata.md from book/errata.template.md (the errata prose with this build's verdicts),
    book/versions.md from book/versions.yaml (the differences between the paper's two copies) and
    book/cite.md from CITATION.cff (how to cite, :mod:`gspa.book.citation`) and book/provenance.md (where
    each number and figure comes from, :mod:`gspa.book.provenance`)."""
    from gspa.book import provenance
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
    write_text_atomic(root / "book" / "provenance.md", provenance.render_page(root, records))
    write_text_atomic(root / "book" / "errata.md", errata)
    if versions is not None:
        write_text_atomic(root / "book" / "versions.md", versions)
    if cite is not None:
        write_text_atomic(root / "book" / "cite.md", cite)


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
    "about 28 min from empty caches on 2 cores"  # benchmarks/README.md: fresh-clone make book
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
