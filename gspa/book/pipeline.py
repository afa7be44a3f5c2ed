"""Execute the chapters with papermill and build the book with Jupyter Book.

Command line (``python -m gspa.book.pipeline`` or ``gspa``)::

    build  --profile paper|smoke [--only a,b]      execute stale chapters, write the ledger and errata, build the book
    rerun  CHAPTER [-p NAME VALUE ...]             re-execute one chapter with new values, rebuild the book
    run    CHAPTER [--profile P] [-p NAME VALUE]   re-execute one chapter only
    params CHAPTER                                 list the parameters a chapter declares

Layout (paths relative to the repository root, which holds ``_toc.yml``):

A chapter's name is ``<paper>/<name>`` (``gspa/lemma1``): one folder per paper. Commands accept the
short name (``lemma1``) when only one chapter has it.

* ``notebooks/<chapter>.ipynb`` — source, no outputs, one cell tagged ``parameters``;
* ``params/<profile>/<chapter>.yaml`` — the profile's values (``paper``: the paper's settings,
  ``smoke``: tiny settings for the tests);
* ``book/chapters/<chapter>.ipynb`` — the executed copy the book renders;
* ``book/_results/<chapter>.json`` — the chapter's published values and claims;
* ``book/ledger.md`` — the claims ledger, generated from all result files;
* ``book/errata.md`` — generated from ``book/errata.template.md``: each marker line
  ``<!-- verdicts: claim-id = verdict; ... -->`` becomes the verdicts of this build, with a warning
  where one differs from what the erratum states.

A chapter is stale when the hash of its notebook, its parameter file, the ``gspa`` sources and the
profile differs from the hash recorded in its result file, or when its executed notebook is not the
one its result file records (by SHA-256). Values given with ``-p`` persist in the result file (later
builds keep them) until the chapter is rerun without ``-p``.

Parameters are checked before anything runs: names must be declared, values must be of the kind of
the default (an integer where the default is an integer), and a range written at the end of the
parameter's comment is enforced: ``n_mc = 400_000  # Monte Carlo samples [1, inf)``,
``delta = 1e-4  # central delta (0, 1)`` (for a list, every element).

Executed notebooks and result files are written to temporary files under ``.cache/tmp/`` (outside
the book's sources) and moved into place only after the whole notebook ran, the notebook first and
the result file, which records the notebook's hash, last: a run killed in between leaves a pair that
does not match, and the chapter is executed again. A failing chapter leaves the previous good output
and fails the build with a non-zero exit status. ``build``, ``run`` and ``rerun`` hold a lock
(``.cache/build.lock``), so a second one waits for the first; the holder first removes temporary
files left by killed runs.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import yaml

from gspa.book.results import RUN_ENV
from gspa.util.atomic import write_text_atomic

PROFILES = ("paper", "smoke")


class PipelineError(RuntimeError):
    pass


class ParameterError(PipelineError, ValueError):
    """A parameter value (from a profile file or -p) that a chapter does not accept."""


def find_root(start: Path | None = None) -> Path:
    p = (start or Path.cwd()).resolve()
    for cand in (p, *p.parents):
        if (cand / "_toc.yml").exists() and (cand / "notebooks").is_dir():
            return cand
    raise PipelineError(f"no gspa repository (with _toc.yml and notebooks/) at or above {p}")


def chapters(root: Path) -> list[str]:
    """Chapter names in book order (the order of _toc.yml), all of which must have a notebook."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
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
    missing = [n for n in names if not (root / "notebooks" / f"{n}.ipynb").exists()]
    if missing:
        raise PipelineError(f"_toc.yml lists chapters without a notebook: {missing}")
    return names


_NUM = r"[-+]?(?:inf|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?)"
_RANGE = re.compile(rf"([\[(])\s*({_NUM})\s*,\s*({_NUM})\s*([\])])\s*$")


class Range(NamedTuple):
    """An interval declared at the end of a parameter's comment: ``[lo, hi]``, ``(lo, hi)``, ``[lo, hi)``
    or ``(lo, hi]``, where lo and hi are numbers or ``inf``/``-inf``."""
    lo: float
    hi: float
    lo_closed: bool
    hi_closed: bool
    text: str

    def __contains__(self, v) -> bool:
        return ((self.lo <= v if self.lo_closed else self.lo < v)
                and (v <= self.hi if self.hi_closed else v < self.hi))  # False for NaN

    def __str__(self) -> str:
        return self.text


def parse_range(comment: str | None) -> Range | None:
    """The range at the end of a parameter's comment, or None (``[0, eps_max]`` is not one: bounds are numbers)."""
    m = _RANGE.search(comment or "")
    if m is None:
        return None
    lo, hi = (float(g.replace("_", "")) for g in m.group(2, 3))
    rng = Range(lo, hi, m.group(1) == "[", m.group(4) == "]", m.group(0).strip())
    if not (lo < hi or (lo == hi and rng.lo_closed and rng.hi_closed)):
        raise PipelineError(f"empty range {rng}")
    return rng


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _outside(value, rng: Range) -> str | None:
    """How ``value`` (a number or a list of numbers) leaves ``rng``; None when it is inside."""
    is_list = isinstance(value, (list, tuple))
    for v in (value if is_list else [value]):
        if not (_is_number(v) and v in rng):
            return f"has {v!r} in {value!r}," if is_list else f"is {v!r},"
    return None


def declared_parameters(notebook: Path) -> dict:
    """Names and defaults of the variables assigned in the notebook's cell tagged 'parameters'
    (papermill's description of each, plus ``range``: the :class:`Range` its comment declares, or None)."""
    import nbformat
    import papermill
    nb = nbformat.read(str(notebook), as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise PipelineError(f"{notebook} must have exactly one cell tagged 'parameters', has {len(cells)}")
    assigned = {t.id for node in ast.parse(cells[0].source).body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    info = papermill.inspect_notebook(str(notebook))
    lost = sorted(assigned - set(info))
    if lost:  # papermill's line parser skips some lines (e.g. a comment containing ' = ')
        raise PipelineError(f"{notebook}: papermill cannot parse the parameter line(s) of {lost}; "
                            "keep each on one line as 'name = value  # comment' without '=' in the comment")
    for name, p in info.items():
        try:
            p["range"] = rng = parse_range(p.get("help"))
        except PipelineError as exc:
            raise PipelineError(f"{notebook}: parameter {name!r}: {exc}") from None
        if rng is not None:
            default = _default_value(p)
            if not (_is_number(default) or isinstance(default, (list, tuple))):
                raise PipelineError(f"{notebook}: parameter {name!r} declares the range {rng}, but a range "
                                    f"applies to numbers (or lists of numbers); its default is {p.get('default')}")
            if _outside(default, rng):
                raise PipelineError(f"{notebook}: parameter {name!r}: its default {p.get('default')} is outside "
                                    f"its allowed range {rng}")
    return info


def _parse_value(raw: str):
    val = yaml.safe_load(raw)
    if isinstance(val, str):
        try:
            return float(val)  # YAML 1.1 reads 1e-5 as a string
        except ValueError:
            return val
    return val


def _default_value(info: dict):
    """The literal default of a declared parameter (None when it is not a plain literal)."""
    try:
        return ast.literal_eval(str(info.get("default")))
    except (ValueError, SyntaxError):
        return None


def _kind(v) -> str | None:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, str):
        return "text"
    return None


def check_parameters(chapter: str, declared: dict, given: dict, source: str) -> None:
    """Refuse (with a :class:`ParameterError`, a ValueError) names the notebook does not declare, values
    of another kind than the default's (text where a number is declared, a number where a list is
    declared, a float where an integer is declared, ...) and values outside the declared range."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ParameterError(
            f"{source}: chapter {chapter!r} declares no parameter named {', '.join(map(repr, unknown))}; "
            f"its parameters are: {', '.join(sorted(declared))}")
    for k, v in given.items():
        default = _default_value(declared[k])
        want = _kind(default)
        if want is not None and _kind(v) != want:
            raise ParameterError(f"{source}: parameter {k!r} of chapter {chapter!r} must be {want} "
                                 f"(its default is {declared[k].get('default')}), got {v!r}")
        if type(default) is int and isinstance(v, float):
            hint = f"; write {int(v)}" if v.is_integer() else ""
            raise ParameterError(f"{source}: parameter {k!r} of chapter {chapter!r} must be an integer "
                                 f"(its default is {declared[k].get('default')}), got {v!r}{hint}")
        rng = declared[k].get("range")
        how = _outside(v, rng) if rng is not None else None
        if how:
            raise ParameterError(f"{source}: parameter {k!r} of chapter {chapter!r} {how} "
                                 f"outside its allowed range {rng}")


def profile_values(root: Path, profile: str, chapter: str) -> dict:
    if profile not in PROFILES:
        raise PipelineError(f"profile must be one of {PROFILES}, got {profile!r}")
    path = root / "params" / profile / f"{chapter}.yaml"
    if not path.exists():
        raise PipelineError(f"missing parameter file {path.relative_to(root)}")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise PipelineError(f"{path.relative_to(root)} must hold a mapping of parameter names to values")
    return data


def inputs_hash(root: Path, profile: str, chapter: str) -> str:
    """Hash of everything a chapter's output depends on: notebook, parameter file, gspa sources."""
    h = hashlib.sha256()
    h.update(profile.encode())
    files = [root / "notebooks" / f"{chapter}.ipynb", root / "params" / profile / f"{chapter}.yaml"]
    files += sorted((root / "gspa").rglob("*.py"))
    for f in files:
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def result_path(root: Path, chapter: str) -> Path:
    return root / "book" / "_results" / f"{chapter}.json"


def executed_path(root: Path, chapter: str) -> Path:
    return root / "book" / "chapters" / f"{chapter}.ipynb"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


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
    if t.exists():
        stale += list(t.iterdir())
        shutil.rmtree(t)
    if stale:
        print(f"[gspa] removed {len(stale)} temporary file(s) left by an interrupted run", flush=True)


_locked: dict[Path, int] = {}  # repositories whose build lock this process holds, with nesting depth


@contextlib.contextmanager
def build_lock(root: Path):
    """Hold the repository's build lock (``.cache/build.lock``, an flock) for build, run and rerun.
    A second process waits, saying so, until the first is done; the lock is re-entrant within a
    process and released by the kernel when its holder dies, however it dies."""
    root = root.resolve()
    if _locked.get(root):
        _locked[root] += 1
        try:
            yield
        finally:
            _locked[root] -= 1
        return
    path = root / ".cache" / "build.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            print(f"gspa: waiting for another build (pid {holder}) to finish...", file=sys.stderr, flush=True)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        _locked[root] = 1
        try:
            remove_stale_temporaries(root)
            yield
        finally:
            del _locked[root]


def load_result(root: Path, chapter: str) -> dict | None:
    p = result_path(root, chapter)
    if not p.exists():
        return None
    try:
        return json.loads(p.read_text())
    except json.JSONDecodeError:
        return None


def is_fresh(root: Path, profile: str, chapter: str) -> bool:
    """Up to date: same inputs and profile, and the executed notebook is the one the result file records."""
    rec, nb = load_result(root, chapter), executed_path(root, chapter)
    return (rec is not None and nb.is_file()
            and rec.get("profile") == profile and rec.get("inputs_hash") == inputs_hash(root, profile, chapter)
            and rec.get("executed_sha256") == file_sha256(nb))


WIDGET = "application/vnd.jupyter.widget-view+json"


def strip_widgets(path: Path) -> None:
    """Drop progress-bar widgets (tqdm in the kernel) from an executed notebook: in a static book they
    show nothing, and their state would make the page load the widget manager from a CDN. Papermill's
    injected-parameters cell is removed from the page (the chapter's parameter note shows the values)."""
    import nbformat
    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if WIDGET not in o.get("data", {})]
            tags = cell.metadata.get("tags", [])
            if "injected-parameters" in tags and "remove-input" not in tags:
                cell.metadata["tags"] = [*tags, "remove-input"]
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, str(path))


def checked_parameters(root: Path, chapter: str, profile: str, overrides: dict) -> tuple[dict, dict]:
    """The chapter's declared parameters and its profile's values, both checked, as are ``overrides``."""
    declared = declared_parameters(root / "notebooks" / f"{chapter}.ipynb")
    prof = profile_values(root, profile, chapter)
    check_parameters(chapter, declared, prof, f"params/{profile}/{chapter}.yaml")
    check_parameters(chapter, declared, overrides, "-p")
    return declared, prof


def execute(root: Path, chapter: str, profile: str, overrides: dict | None = None) -> None:
    """Execute one chapter with papermill (holding the build lock); move its notebook and then its
    result file, which records the notebook's SHA-256, into place."""
    with build_lock(root):
        _execute(root, chapter, profile, overrides)


def _execute(root: Path, chapter: str, profile: str, overrides: dict | None) -> None:
    import papermill

    overrides = dict(overrides or {})
    nb = root / "notebooks" / f"{chapter}.ipynb"
    declared, prof = checked_parameters(root, chapter, profile, overrides)
    values = {**prof, **overrides}
    params_doc = {}
    for name, info in declared.items():
        if name in overrides:
            params_doc[name] = {"value": overrides[name], "source": "override (-p)"}
        elif name in prof:
            params_doc[name] = {"value": prof[name], "source": f"profile {profile}"}
        else:
            dflt = _default_value(info)
            params_doc[name] = {"value": info.get("default") if dflt is None else dflt,
                                "source": "notebook default"}

    out_nb, out_res = executed_path(root, chapter), result_path(root, chapter)
    out_nb.parent.mkdir(parents=True, exist_ok=True)
    out_res.parent.mkdir(parents=True, exist_ok=True)
    tmp_dir(root).mkdir(parents=True, exist_ok=True)
    flat = chapter.replace("/", "__")
    tmp_nb = tmp_dir(root) / f"{flat}.{os.getpid()}.ipynb"
    tmp_res = tmp_dir(root) / f"{flat}.{os.getpid()}.json"
    paper = profile_values(root, "paper", chapter) if profile != "paper" else prof
    paper_values = {name: paper[name] if name in paper else (_default_value(info) if _default_value(info) is not None
                                                              else info.get("default"))
                    for name, info in declared.items()}
    run = {"chapter": chapter, "profile": profile, "parameters": params_doc, "overrides": overrides,
           "paper_values": paper_values,
           "inputs_hash": inputs_hash(root, profile, chapter), "result_file": str(tmp_res)}
    env_before = os.environ.get(RUN_ENV)
    os.environ[RUN_ENV] = json.dumps(run)
    print(f"[gspa] executing {chapter} (profile {profile}"
          + (f", overrides {overrides}" if overrides else "") + ")", flush=True)
    try:
        papermill.execute_notebook(str(nb), str(tmp_nb), parameters=values, kernel_name="python3",
                                   cwd=str(root), progress_bar=True, report_mode=False)
        if not tmp_res.exists():
            raise PipelineError(f"chapter {chapter!r} ran but did not save its results (call ch.save())")
        strip_widgets(tmp_nb)
        rec = json.loads(tmp_res.read_text(encoding="utf-8"))
        rec["executed_sha256"] = file_sha256(tmp_nb)  # pairs the result with this notebook (see is_fresh)
        write_text_atomic(tmp_res, json.dumps(rec, indent=1, allow_nan=False))
        os.replace(tmp_nb, out_nb)
        os.replace(tmp_res, out_res)  # last: a kill before this leaves a mismatched, hence stale, pair
    except Exception as exc:
        raise PipelineError(f"chapter {chapter!r} failed; its previous output (if any) is kept.\n{exc}") from exc
    finally:
        for t in (tmp_nb, tmp_res):
            if t.exists():
                t.unlink()
        if env_before is None:
            os.environ.pop(RUN_ENV, None)
        else:
            os.environ[RUN_ENV] = env_before


def write_pages(root: Path, names: list[str]) -> None:
    """Render the generated pages from the result files of all chapters: book/ledger.md,
    book/errata.md from book/errata.template.md (the errata prose with this build's verdicts) and
    book/versions.md from book/versions.yaml (the differences between the paper's two copies)."""
    from gspa.book.ledger import render_errata, render_front, render_ledger, render_versions
    records = []
    for n in names:
        rec = load_result(root, n)
        if rec is None:
            raise PipelineError(f"chapter {n!r} has no result file; execute it first")
        records.append(rec)
    try:
        errata = render_errata((root / "book" / "errata.template.md").read_text(encoding="utf-8"), records)
    except ValueError as exc:
        raise PipelineError(f"book/errata.template.md: {exc}") from exc
    catalogue = root / "book" / "versions.yaml"
    versions = None
    if catalogue.exists():
        try:
            versions = render_versions(yaml.safe_load(catalogue.read_text(encoding="utf-8")), records)
        except ValueError as exc:
            raise PipelineError(f"book/versions.yaml: {exc}") from exc
    front = root / "book" / "intro.template.md"
    if front.exists():
        try:
            intro = render_front(front.read_text(encoding="utf-8"), records, build_provenance(root))
        except ValueError as exc:
            raise PipelineError(f"book/intro.template.md: {exc}") from exc
        write_text_atomic(root / "book" / "intro.md", intro)
    write_text_atomic(root / "book" / "ledger.md", render_ledger(records))
    write_text_atomic(root / "book" / "errata.md", errata)
    if versions is not None:
        write_text_atomic(root / "book" / "versions.md", versions)


def build_provenance(root: Path) -> dict:
    """The package version, git commit (marked when the tree has uncommitted changes) and date of a build."""
    from datetime import datetime, timezone

    from gspa import __version__
    try:
        commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                                text=True, check=True).stdout.strip()
        if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                          capture_output=True, text=True, check=True).stdout.strip():
            commit += "+uncommitted"
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown (not a git checkout)"
    return {"version": __version__, "commit": commit,
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def build_book(root: Path) -> None:
    """Jupyter Book 1.x, execution off, warnings as errors. Builds to _build/html atomically-ish:
    a failed build exits non-zero (the previous _build/html may be partially updated by Sphinx)."""
    jb = shutil.which("jupyter-book", path=os.path.dirname(sys.executable)) or shutil.which("jupyter-book")
    if jb is None:
        raise PipelineError("jupyter-book is not installed in this environment")
    cmd = [jb, "build", str(root), "--all", "--builder", "html", "-W", "-n", "--keep-going"]
    print("[gspa] " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, cwd=root)
    if proc.returncode != 0:
        raise PipelineError(f"jupyter-book build failed (exit {proc.returncode})")
    print(f"[gspa] book written to {root / '_build' / 'html' / 'index.html'}", flush=True)


def build(root: Path, profile: str, only: list[str] | None = None, book: bool = True) -> None:
    with build_lock(root):
        _build(root, profile, only, book)


def resolve(names: list[str], name: str) -> str:
    """The chapter called ``name``: its full name (``gspa/lemma1``) or, if only one chapter has it, the
    name within its paper's folder (``lemma1``)."""
    if name in names:
        return name
    hits = [n for n in names if n.rpartition("/")[2] == name]
    if len(hits) == 1:
        return hits[0]
    raise PipelineError(f"{'ambiguous' if hits else 'unknown'} chapter {name!r}; chapters are: {', '.join(names)}")


def _build(root: Path, profile: str, only: list[str] | None, book: bool) -> None:
    names = chapters(root)
    todo = [resolve(names, n) for n in only] if only else names
    for n in todo:
        if is_fresh(root, profile, n):
            print(f"[gspa] {n}: up to date", flush=True)
            continue
        prev = load_result(root, n) or {}
        keep = (prev.get("overrides") or {}) if prev.get("profile") == profile else {}
        execute(root, n, profile, keep)
    write_pages(root, names)
    if book:
        build_book(root)


def _overrides(pairs) -> dict:
    return {name: _parse_value(raw) for name, raw in (pairs or [])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="gspa", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="execute stale chapters, write the ledger and errata, build the book")
    b.add_argument("--profile", default="paper", choices=PROFILES)
    b.add_argument("--only", default=None, help="comma-separated chapters to consider")
    b.add_argument("--no-book", action="store_true", help="skip the Jupyter Book build")
    for cmd in ("run", "rerun"):
        r = sub.add_parser(cmd, help="re-execute one chapter" + (" and rebuild the book" if cmd == "rerun" else ""))
        r.add_argument("chapter")
        r.add_argument("--profile", default="paper", choices=PROFILES)
        r.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    pp = sub.add_parser("params", help="list a chapter's declared parameters")
    pp.add_argument("chapter")
    args = ap.parse_args(argv)
    try:
        root = find_root()
        if args.cmd == "build":
            only = [s for s in args.only.split(",") if s] if args.only else None
            build(root, args.profile, only, book=not args.no_book)
            return 0
        args.chapter = resolve(chapters(root), args.chapter)
        if args.cmd == "params":
            for name, info in declared_parameters(root / "notebooks" / f"{args.chapter}.ipynb").items():
                print(f"{name} = {info.get('default')}" + (f"  # {info['help']}" if info.get("help") else ""))
        else:
            overrides = _overrides(args.parameter)
            checked_parameters(root, args.chapter, args.profile, overrides)  # before waiting for the lock
            with build_lock(root):  # rerun: no other build between the run and the rebuild
                execute(root, args.chapter, args.profile, overrides)
                if args.cmd == "rerun":
                    build(root, args.profile)
    except PipelineError as exc:
        print(f"gspa: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
