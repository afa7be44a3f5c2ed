"""Execute the chapters with papermill and build the book with Jupyter Book.

The commands (``python -m gspa.book.pipeline`` or ``gspa``: :data:`COMMANDS`; the reader's guide is
book/rerun.md) work on chapters ``<paper>/<name>``: source ``notebooks/<chapter>.md``, profiles' values
``params/<profile>/<chapter>.yaml``, executed notebook ``book/chapters/<chapter>.ipynb``, result file
``book/_results/<chapter>.json``. A chapter runs again exactly when what computes it changed
(:mod:`gspa.book.freshness`); ``-p`` values persist in its result file until a rerun without ``-p``. Refused
input exits with status 2, a failing chapter with 3 (its previous output kept), Ctrl-C or SIGTERM with 130
or 143 (:mod:`gspa.book.execution`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import yaml

from gspa.book import freshness as F
from gspa.book.execution import FAILED, ChapterFailed, _stopped_in, build_lock, checked_parameters
from gspa.book.execution import execute, page_tags, stoppable
from gspa.book.freshness import load_result
from gspa.book.parameters import PROFILES, ParameterError, PipelineError, _parse_value
from gspa.book.parameters import chapter_schema, declared_parameters
from gspa.util.atomic import write_text_atomic

BOOK_COST = (
    "about 28 min from empty caches on 2 cores"  # benchmarks/README.md: fresh-clone make book
)
MAKE_ENV = ("GSPA_NB", "GSPA_ARGS", "GSPA_OTHERS")


def find_root(start: Path | None = None) -> Path:
    p = (start or Path.cwd()).resolve()
    for cand in (p, *p.parents):
        if (cand / "_toc.yml").exists() and (cand / "notebooks").is_dir():
            return cand
    raise PipelineError(f"no gspa repository (with _toc.yml and notebooks/) at or above {p}")


def chapters(root: Path) -> list[str]:
    """Chapter names in book order (that of _toc.yml), all of which must have a source."""
    try:
        toc = yaml.safe_load((root / "_toc.yml").read_text())
    except yaml.YAMLError as exc:
        raise PipelineError("_toc.yml is not valid YAML: " + " ".join(str(exc).split())) from None

    def walk(node):
        if isinstance(node, dict):
            f = node.get("file")
            if isinstance(f, str) and f.startswith("book/chapters/"):
                yield f.removeprefix("book/chapters/").removesuffix(".ipynb")
            node = list(node.values())
        for v in node if isinstance(node, list) else ():
            yield from walk(v)

    names = list(walk(toc))
    if missing := [n for n in names if not F.source_path(root, n).exists()]:
        raise PipelineError(
            f"_toc.yml lists chapters without a source notebooks/<chapter>.md: {missing}"
        )
    return names


def resolve(names: list[str], name: str) -> str:
    """The chapter called ``name``: its full name or, if only one chapter has it, its short name."""
    if name in names:
        return name
    hits = [n for n in names if n.rpartition("/")[2] == name]
    if len(hits) == 1:
        return hits[0]
    raise PipelineError(
        f"{'ambiguous' if hits else 'unknown'} chapter {name!r}; chapters are: {', '.join(names)}"
    )


def usable(root: Path, chapter: str) -> bool:
    """Whether the chapter has a result whose executed notebook is the one it records (stale or not)."""
    return F.output_matches(root, chapter, load_result(root, chapter))


def write_pages(root: Path, names: list[str]) -> None:
    """Render the generated pages from every chapter's result: the claims ledger and the errata
    (from book/errata.template.md and book/errata-<paper>.template.md, with this build's verdicts), each an index page (book/ledger.md, ...) and
    one page per paper (book/ledger-<paper>.md, ...), and where their sources exist
    book/versions.md (book/versions.yaml), book/cite.md (CITATION.cff), book/intro.md and
    book/api-certified.md (their templates)."""
    from gspa.book import ledger
    from gspa.book.citation import render_cite

    records = []
    for n in names:
        if (rec := load_result(root, n)) is None:
            raise PipelineError(f"chapter {n!r} has no result file; execute it first")
        records.append(rec)
    if problems := ledger.unrecorded_claims(records):
        raise PipelineError(
            "every declared claim is recorded by exactly one chapter: " + "; ".join(problems)
        )
    if problems := ledger.implication_conflicts(records):
        raise PipelineError("claims that follow from one another disagree: " + "; ".join(problems))
    build = build_provenance(root)
    renderers = {  # page: (its source, how the source's text becomes the page)
        "errata.md": (
            "book/errata.template.md",
            lambda t: ledger.render_errata_pages(t, errata_templates(root), records),
        ),
        "versions.md": (
            "book/versions.yaml",
            lambda t: ledger.render_versions(yaml.safe_load(t), records),
        ),
        "cite.md": ("CITATION.cff", lambda t: render_cite(t, build)),
    } | {
        f"{name}.md": (
            f"book/{name}.template.md",
            lambda t: ledger.render_template(t, records, build),
        )
        for name in ("intro", "api-certified")
    }
    pages = ledger.render_ledger_pages(records)
    for page, (source, render) in renderers.items():
        if page == "errata.md" or (root / source).exists():
            try:
                text = render((root / source).read_text(encoding="utf-8"))
                pages.update(text if isinstance(text, dict) else {page: text})
            except (ValueError, yaml.YAMLError) as exc:
                why = " ".join(str(exc).split())
                named = isinstance(exc, ledger.TemplateError)  # it names its own file
                raise PipelineError(why if named else f"{source}: {why}") from exc
    for page, text in pages.items():
        write_text_atomic(root / "book" / page, text)


def errata_templates(root: Path) -> dict[str, str]:
    """``{paper: its errata template}`` (book/errata-<paper>.template.md), the papers in book order
    (:data:`gspa.book.ledger.PAPERS`), any other after them by name."""
    from gspa.book.ledger import PAPERS

    found = {
        f.name.removeprefix("errata-").removesuffix(".template.md"): f
        for f in (root / "book").glob("errata-*.template.md")
    }
    order = sorted(found, key=lambda p: (list(PAPERS).index(p) if p in PAPERS else len(PAPERS), p))
    return {p: found[p].read_text(encoding="utf-8") for p in order}


def build_provenance(root: Path) -> dict:
    """The package version, git commit (marked when the tree has uncommitted changes) and date of a build."""
    from datetime import datetime, timezone

    from gspa import __version__

    def git(*args):
        run = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
        return run.stdout.strip()

    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        if git("status", "--porcelain", "--untracked-files=no"):
            commit += "+uncommitted"
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown (not a git checkout)"
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return {"version": __version__, "commit": commit, "date": date}


def build_book(root: Path) -> None:
    """Jupyter Book 1.x, execution off, warnings as errors."""
    here = os.path.dirname(sys.executable)
    jb = shutil.which("jupyter-book", path=here) or shutil.which("jupyter-book")
    if jb is None:
        raise PipelineError("jupyter-book is not installed in this environment")
    cmd = [jb, "build", str(root), "--all", "--builder", "html", "-W", "-n", "--keep-going"]
    print("[gspa] " + " ".join(cmd), flush=True)
    if (code := subprocess.run(cmd, cwd=root).returncode) != 0:
        raise PipelineError(f"jupyter-book build failed (exit {code})")
    print(f"[gspa] book written to {root / '_build' / 'html' / 'index.html'}", flush=True)


def plan(root: Path, profile: str, only: list[str] | None = None) -> dict[str, str]:
    """The chapters ``build`` would execute, each with why, printed one line each, then how many."""
    names = chapters(root)
    todo = [resolve(names, n) for n in only] if only else names
    stale = {}
    for n in todo:
        if (why := F.stale_reason(root, profile, n)) is not None:
            stale[n] = why
            print(f"{n}: {why}", flush=True)
    print(f"[gspa] plan: {len(stale)} of {len(todo)} chapter(s) to execute", flush=True)
    return stale


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
        names = chapters(root)
        stale = plan(root, profile, only)
        for n in [resolve(names, n) for n in only] if only else names:
            if n not in stale:
                merged = F.merge_sources(root, n, page_tags)
                if merged != "cannot":
                    new = "; the notebook's new prose merged into its page, nothing run"
                    print(
                        f"[gspa] {n}: up to date" + (new if merged == "merged" else ""), flush=True
                    )
                    continue
                print(
                    f"[gspa] {n}: its code cells are not those that ran; executing it", flush=True
                )
            keep = F.kept_overrides(load_result(root, n), profile)
            execute(root, n, profile, keep, kept=bool(keep))
        write_pages(root, names)
        if book:
            build_book(root)


def _overrides(pairs) -> dict:
    """The ``-p NAME VALUE`` pairs as a dict; a name given twice is refused (no value silently wins)."""
    names = [name for name, _ in pairs or []]
    if twice := sorted({n for n in names if names.count(n) > 1}):
        raise ParameterError(
            f"-p: parameter {', '.join(map(repr, twice))} is given twice; give each once"
        )
    return {name: _parse_value(raw, name) for name, raw in (pairs or [])}


def rerun_plan(root: Path, chapter: str, others: str | None) -> tuple[list[str], list[str]]:
    """The other chapters without a usable result (to execute with the profile ``others``) and those whose
    result is stale (taken as it is). Without ``others``, missing ones are refused: rerun never starts a
    full build by itself."""
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
        and F.stale_reason(root, (load_result(root, n) or {}).get("profile", "paper"), n)
    ]
    return missing, stale


def rerun(
    root: Path, chapter: str, profile: str, overrides: dict, others: str | None = None
) -> None:
    """Re-execute ``chapter`` alone, then write the pages and build the book from the other chapters'
    existing results (executing, with the profile ``others``, only those that have none)."""
    missing, stale = rerun_plan(root, chapter, others)
    n_rest = len(chapters(root)) - 1
    for line in (
        f"executes {chapter} (profile {profile}, "
        + (f"overrides {overrides})" if overrides else "no overrides)"),
        f"takes the other {n_rest - len(missing)} chapter(s) from their existing results, without "
        "executing them",
        stale
        and "stale (inputs changed since their run; used as they are, 'make book' refreshes "
        f"them): {', '.join(stale)}",
        missing and f"never executed, now executed with the {others} profile: {', '.join(missing)}",
        "then writes the ledger, errata and front pages and builds the book",
    ):
        if line:
            print(f"[gspa] rerun: {line}", flush=True)
    with build_lock(root):  # no other build between the run and the rebuild
        execute(root, chapter, profile, overrides)
        for n in missing:
            if not usable(root, n):  # another build may have made it meanwhile
                execute(root, n, others, {})
        write_pages(root, chapters(root))
        build_book(root)


def make_rerun_argv(env) -> list[str]:
    """The command line of ``make rerun NB=... ARGS=... OTHERS=...`` from the variables the Makefile exports
    unexpanded: ARGS is split like a shell command line (shlex) but nothing is evaluated; NB is always the
    chapter (an option-like NB is refused)."""
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


COMMANDS = {  # each with its one-line help
    "build": "execute stale chapters, write the ledger and errata, build the book",
    "run": "re-execute one chapter only",
    "rerun": "re-execute one chapter, then rebuild the book from the other chapters' existing results",
    "params": "list a chapter's declared parameters and the values each accepts",
    "make-rerun": "what 'make rerun' runs: rerun with the chapter, arguments and --others in the "
    "environment variables " + ", ".join(MAKE_ENV),
}


def parser() -> argparse.ArgumentParser:
    """The book's command-line parser."""
    ap = _Parser(prog="gspa", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    cmd = {name: sub.add_parser(name, help=what) for name, what in COMMANDS.items()}
    for name in ("run", "rerun", "params"):
        cmd[name].add_argument("chapter")
    for name in ("build", "run", "rerun"):
        cmd[name].add_argument("--profile", default="paper", choices=PROFILES)
    for name in ("run", "rerun"):
        cmd[name].add_argument(
            "-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE")
        )
    cmd["rerun"].add_argument(
        "--others",
        choices=PROFILES,
        default=None,
        help="execute the other chapters that have no result yet with this profile "
        "(by default rerun refuses when there are any)",
    )
    cmd["params"].add_argument(
        "--schema", action="store_true", help="print the chapter's JSON Schema instead"
    )
    cmd["build"].add_argument("--only", default=None, help="comma-separated chapters to consider")
    cmd["build"].add_argument("--no-book", action="store_true", help="skip the Jupyter Book build")
    cmd["build"].add_argument(
        "--dry-run",
        action="store_true",
        help="print each chapter that would execute and the first input that changed; run nothing",
    )
    return ap


def main(argv=None) -> int:
    with stoppable():
        try:
            args = parser().parse_args(argv)
            if args.cmd == "make-rerun":
                return main(make_rerun_argv(os.environ))
            root = find_root()
            if args.cmd == "build":
                only = [s for s in args.only.split(",") if s] if args.only else None
                build(root, args.profile, only, book=not args.no_book, dry_run=args.dry_run)
                return 0
            args.chapter = resolve(chapters(root), args.chapter)
            if args.cmd == "params":
                declared = declared_parameters(F.source_path(root, args.chapter))
                if args.schema:
                    print(json.dumps(chapter_schema(args.chapter, declared), indent=2))
                    return 0
                for name, info in declared.items():
                    note = f"  # {info['help']}" if info.get("help") else ""
                    print(f"{name} = {info.get('default')}{note}")
                    print(f"    accepts {json.dumps(info['schema'])}")
                return 0
            overrides = _overrides(args.parameter)
            checked_parameters(root, args.chapter, args.profile, overrides)  # before the lock
            if args.cmd == "run":
                execute(root, args.chapter, args.profile, overrides)
            else:
                rerun(root, args.chapter, args.profile, overrides, args.others)
            return 0
        except PipelineError as exc:
            print(f"gspa: error: {exc}", file=sys.stderr)
            return FAILED if isinstance(exc, ChapterFailed) else 2
        except KeyboardInterrupt as exc:  # Ctrl-C, SIGINT or SIGTERM (see stoppable)
            what = (
                f"{_stopped_in[0]}; the previous result is kept"
                if _stopped_in
                else "no chapter was executing; every chapter's result is as it was or complete"
            )
            nl = "\n" if sys.stderr.isatty() else ""
            print(f"{nl}interrupted: {what}", file=sys.stderr, flush=True)
            return 128 + getattr(exc, "signum", signal.SIGINT)


if __name__ == "__main__":
    sys.exit(main())
