"""Execute the chapters with papermill and build the book with Jupyter Book.

Command line (``python -m gspa.book.pipeline`` or ``gspa``)::

    build  --profile paper|smoke [--only a,b]      execute stale chapters, write the ledger and errata, build the book
    rerun  CHAPTER [-p NAME VALUE ...] [--others P] re-execute one chapter only, then rebuild the book from the
                                                   other chapters' existing results (refused if some have none,
                                                   unless --others P executes those with profile P)
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

A chapter is stale when the hash of its notebook, its parameter file, the ``gspa`` sources its code can
import (:func:`chapter_modules`: the import closure, imports inside functions included; ``GSPA_STALE_ALL=1``
hashes every source) and the profile differs from the hash recorded in its result file, or when its executed notebook is not the
one its result file records (by SHA-256). Values given with ``-p`` persist in the result file (later
builds keep them) until the chapter is rerun without ``-p``.

Parameters are checked before anything runs: names must be declared (the nearest is suggested),
values must be of the kind of the default, and inside the domain every parameter declares at the end
of its comment (:func:`parse_domain`): a range ``n_mc = 400_000  # Monte Carlo samples [100, 10000000]``,
choices ``order = "fixed"  # {fixed, reshuffle}`` (the nearest suggested), a list's length
``, len [1, inf)``, or ``(any text)``; integers where the default has them.

Executed notebooks and result files are written to temporary files under ``.cache/tmp/`` (outside the book's
sources) and moved into place only after the whole notebook ran, the notebook first and the result file,
which records the notebook's hash, last: a run killed in between leaves a pair that does not match, and the
chapter is executed again. A damaged result file (not UTF-8 JSON, not a record of its chapter, a directory)
counts as missing, with one warning line naming it, and the chapter is executed again; a directory where an
output file, or the lock, belongs is renamed to ``<name>.damaged``, never deleted. ``rerun`` takes another
chapter's result only with the executed notebook it records. A failing chapter leaves the previous good
output and fails the build with a non-zero exit status. ``build``, ``run`` and ``rerun`` hold a lock
(``.cache/build.lock``), so a second one waits for the first; the holder first removes temporary files left
by killed runs. Ctrl-C (SIGINT) or SIGTERM stops a command within seconds: the kernel is stopped, the
temporary files removed, and it prints ``interrupted: <chapter>; the previous result is kept`` and exits
with status 130 (SIGINT) or 143 (SIGTERM). The kernel talks over Unix sockets in a private folder and
listens on no TCP port (:func:`ipc_kernel_manager`, :mod:`gspa.book.kernel`).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import yaml

from gspa.book.results import RUN_ENV
from gspa.util import yamlread
from gspa.util.atomic import move_aside, write_text_atomic

PROFILES = ("paper", "smoke")


class PipelineError(RuntimeError):
    pass


class ParameterError(PipelineError, ValueError):
    """A parameter value (from a profile file or -p) that a chapter does not accept."""


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
    """Chapter names in book order (the order of _toc.yml), all of which must have a notebook."""
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
    missing = [n for n in names if not (root / "notebooks" / f"{n}.ipynb").exists()]
    if missing:
        raise PipelineError(f"_toc.yml lists chapters without a notebook: {missing}")
    return names


_NUM = r"[-+]?(?:inf|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?)"
_INTERVAL = rf"([\[(])\s*({_NUM})\s*,\s*({_NUM})\s*([\])])"
_FACTOR = re.compile(rf"{_INTERVAL}|\{{([^{{}}]*)\}}")
_TIMES = re.compile(r"\s+x\s+")
_LEN = re.compile(rf"\s*,\s*len\s+{_INTERVAL}")
_CHOICE = re.compile(r'\s*(?:"([^"]*)"|([^,"{}]*[^,"{}\s]))\s*(,|$)')
FREE_TEXT = "(any text)"
COST_FREE = "cost-free"


class Range(NamedTuple):
    """An interval ``[lo, hi]``, ``(lo, hi)``, ``[lo, hi)`` or ``(lo, hi]``, where lo and hi are
    numbers or ``inf``/``-inf``."""

    lo: float
    hi: float
    lo_closed: bool
    hi_closed: bool
    text: str

    def __contains__(self, v) -> bool:
        return (self.lo <= v if self.lo_closed else self.lo < v) and (
            v <= self.hi if self.hi_closed else v < self.hi
        )  # False for NaN

    def __str__(self) -> str:
        return self.text

    def refusal(self, v, integer: bool = False) -> str | None:
        """Why the number ``v`` is not in the range (or not an integer where one is due); None if it is."""
        if not (_is_number(v) and v in self):
            return f"outside its allowed range {self}"
        if integer and isinstance(v, float):
            return "not an integer" + (f"; write {int(v)}" if v.is_integer() else "")
        return None


class Choices(NamedTuple):
    """Text values ``{a, b, "c d"}``: bare words, or double-quoted where they hold commas or braces."""

    items: tuple
    text: str

    def __str__(self) -> str:
        return self.text

    def refusal(self, v, integer: bool = False) -> str | None:
        if isinstance(v, str) and v in self.items:
            return None
        why = f"not one of {self}"
        if isinstance(v, str):
            lower = {c.lower(): c for c in self.items}
            near = difflib.get_close_matches(v.lower(), list(lower), n=1, cutoff=0.6)
            if near:
                why += f"; did you mean {lower[near[0]]!r}?"
        return why


def _interval(m, at: int) -> Range:
    lo, hi = (float(g.replace("_", "")) for g in m.group(at + 1, at + 2))
    rng = Range(
        lo, hi, m.group(at) == "[", m.group(at + 3) == "]", m.group(0).strip().removeprefix(",")
    )
    if not (lo < hi or (lo == hi and rng.lo_closed and rng.hi_closed)):
        raise PipelineError(f"empty range {rng.text}")
    return rng


def _choices(inner: str, text: str) -> Choices | None:
    items, pos = [], 0
    while pos < len(inner):
        m = _CHOICE.match(inner, pos)
        if m is None:
            return None
        items.append(m.group(1) if m.group(1) is not None else m.group(2))
        pos = m.end()
    return Choices(tuple(items), text) if items else None


class ParameterDomain(NamedTuple):
    """The values a parameter accepts, declared at the end of its comment (see :func:`parse_domain`).
    ``factors``: one :class:`Range` or :class:`Choices` for every number or text of the value (every
    element of a list, of a list of lists, ...), or several joined by `` x `` for values that are
    lists of that many entries (the i-th entry in the i-th factor); ``length``: the allowed numbers
    of elements of a list value (or None); ``free``: any text (``(any text)``); ``integer``: per
    factor, whether it takes integers only (set from the default: where it has integers)."""

    factors: tuple
    length: Range | None
    free: bool
    text: str
    depth: int = 0
    integer: tuple = ()


def _parse_suffix(s: str) -> ParameterDomain | None:
    """The domain that ``s`` spells out entirely, or None."""
    if s.strip() == FREE_TEXT:
        return ParameterDomain((), None, True, FREE_TEXT)
    factors, pos = [], 0
    while True:
        m = _FACTOR.match(s, pos)
        if m is None:
            return None
        f = _interval(m, 1) if m.group(1) else _choices(m.group(5), m.group(0))
        if f is None:
            return None
        factors.append(f)
        pos = m.end()
        t = _TIMES.match(s, pos)
        if t is None:
            break
        pos = t.end()
    length = None
    m = _LEN.match(s, pos)
    if m is not None:
        length = _interval(m, 1)._replace(text="len " + m.group(0).split("len", 1)[1].strip())
        pos = m.end()
    if s[pos:].strip():
        return None
    return ParameterDomain(tuple(factors), length, False, s.strip())


def parse_domain(comment: str | None) -> ParameterDomain | None:
    """The domain declared at the end of a parameter's comment, or None. It is the longest ending of
      the comment, starting at a bracket or brace after a space, that reads as one of:

      * a range ``[lo, hi]``, ``(lo, hi]``, ... of numbers or ``inf``: ``# Monte Carlo samples [100, 10000000]``;
      * choices of text ``{fixed, reshuffle}``, ``{Unif 1, Unif 2}`` or ``{"a, b", c}`` (quotes for commas):
    ``# sampling order {fixed, reshuffle}``;
      * for a value that is a list of lists with entries of different kinds, one factor per entry joined by
        `` x ``: ``[2, 100000] x (0, 1) x {exact, eq5}``;
      * ``(any text)`` for free text (a path, say).

      A range or choices apply to every number or text in the value (every element of a list). A list
      may add its allowed length, a range after ``len``: ``, len [1, inf)`` (not empty), ``, len [2, 10]``
      (papermill does not read a comment with ``=`` in it, so no ``>=``). Bounds must be numbers
      (``[0, eps_max]`` declares nothing)."""
    text = comment or ""
    for i, ch in enumerate(text):
        if ch in "[({" and (i == 0 or text[i - 1].isspace()):
            dom = _parse_suffix(text[i:])
            if dom is not None:
                return dom
    return None


def parse_range(comment: str | None) -> Range | None:
    """The single range at the end of a parameter's comment, or None."""
    dom = parse_domain(comment)
    if dom is None or len(dom.factors) != 1 or not isinstance(dom.factors[0], Range) or dom.length:
        return None
    return dom.factors[0]


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _depth(v) -> int:
    """Nesting depth of a list value (0 for a scalar; a list's depth is that of its first element plus 1)."""
    return 1 + _depth(v[0]) if isinstance(v, list) and v else int(isinstance(v, list))


def _entries(dom: ParameterDomain, value):
    """(entry, factor index) of every number or text of ``value`` that a factor of ``dom`` judges,
    with a list at the entry's place where ``dom`` is a product of several factors."""
    k = len(dom.factors)
    level = dom.depth - (k > 1)

    def walk(v, d):
        if d == 0:
            if k == 1:
                yield v, 0
            elif not (isinstance(v, list) and len(v) == k):
                yield v, None
            else:
                yield from zip(v, range(k))
        elif not isinstance(v, list):
            yield v, None
        else:
            for e in v:
                yield from walk(e, d - 1)

    yield from walk(value, level)


def domain_refusal(dom: ParameterDomain, value) -> str | None:
    """How ``value`` leaves ``dom`` (the end of a sentence that starts with the parameter), or None."""
    if dom.free:
        return None if isinstance(value, str) else f"is {value!r}, not text"
    if dom.length is not None and isinstance(value, list) and len(value) not in dom.length:
        return f"is {value!r}, a list of {len(value)} elements, outside its allowed {dom.length}"
    for entry, i in _entries(dom, value):
        if i is None:
            why = (
                f"not a list of {len(dom.factors)} values in {dom.text}"
                if len(dom.factors) > 1
                else "not a list"
            )
        else:
            why = dom.factors[i].refusal(entry, dom.integer[i] if dom.integer else False)
        if why:
            return (
                f"has {entry!r} in {value!r}, {why}"
                if entry is not value
                else f"is {value!r}, {why}"
            )
    return None


def describe_domain(dom: ParameterDomain | None, default) -> str:
    """What a parameter accepts, in words (for ``gspa params``)."""
    if dom is None:
        return "true or false" if isinstance(default, bool) else "anything of its default's kind"
    if dom.free:
        return "any text"
    k, f = len(dom.factors), dom.factors[0]
    if k > 1:
        unit = f"{k} values in {' x '.join(map(str, dom.factors))}"
        one, many, depth = f"a list of {unit}", f"lists of {unit}", dom.depth - 1
    elif isinstance(f, Choices):
        one, many, depth = f"one of {f}", f"values from {f}", dom.depth
    else:
        kind = ("an integer", "integers") if dom.integer[0] else ("a number", "numbers")
        one, many, depth = f"{kind[0]} in {f}", f"{kind[1]} in {f}", dom.depth
    if depth == 0:
        return one
    size = f", {dom.length.text.replace('len', 'length in')}," if dom.length else ""
    return f"a list{size} of " + "lists of " * (depth - 1) + many


def declared_parameters(notebook: Path) -> dict:
    """Names and defaults of the variables assigned in the notebook's cell tagged 'parameters'
    (papermill's description of each, plus ``domain``: the :class:`ParameterDomain` its comment declares, see
    :func:`parse_domain`). Every default must be a literal, inside its domain; every parameter but a
    boolean one must declare a domain."""
    import nbformat
    import papermill

    nb = nbformat.read(str(notebook), as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise PipelineError(
            f"{notebook} must have exactly one cell tagged 'parameters', has {len(cells)}"
        )
    assigned = {
        t.id
        for node in ast.parse(cells[0].source).body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    info = papermill.inspect_notebook(str(notebook))
    lost = sorted(assigned - set(info))
    if lost:  # papermill's line parser skips some lines (e.g. a comment containing ' = ')
        raise PipelineError(
            f"{notebook}: papermill cannot parse the parameter line(s) of {lost}; "
            "keep each on one line as 'name = value  # comment' without '=' in the comment"
        )
    for name, p in info.items():
        where = f"{notebook}: parameter {name!r}"
        default = _default_value(p)
        if default is None or _kind(default) is None:
            raise PipelineError(
                f"{where}: its default {p.get('default')} is not a literal number, text, "
                "boolean or list"
            )
        try:
            dom = parse_domain(p.get("help"))
        except PipelineError as exc:
            raise PipelineError(f"{where}: {exc}") from None
        if dom is None and not isinstance(default, bool):
            raise PipelineError(
                f"{where} declares no domain: end its comment with a range [lo, hi], "
                f"choices {{a, b}} or {FREE_TEXT} (see parse_domain)"
            )
        if dom is not None:
            depth = _depth(default)
            dom = dom._replace(depth=depth)
            if not dom.free and len(dom.factors) > 1 and depth == 0:
                raise PipelineError(
                    f"{where} declares {dom.text}, which applies to lists; "
                    f"its default is {p.get('default')}"
                )
            entries = list(_entries(dom, default))
            dom = dom._replace(
                integer=tuple(
                    all(type(e) is int for e, j in entries if j == i)
                    for i in range(len(dom.factors))
                )
            )
            how = domain_refusal(dom, default)
            if how:
                raise PipelineError(f"{where}: its default {how} (declared: {dom.text})")
        p["domain"] = dom
    return info


def _parse_value(raw: str, name: str = "?"):
    """A ``-p`` value read as YAML (safely: a tag such as ``!!python/object`` is refused; ``1e-3`` is a
    number, also inside a list; a key given twice is refused: :mod:`gspa.util.yamlread`)."""
    try:
        val = yamlread.load(raw)
    except yamlread.DuplicateKeyError as exc:
        raise ParameterError(
            f"-p: the value {raw!r} of parameter {name!r} gives a key twice ({exc})"
        ) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParameterError(
            f"-p: the value {raw!r} of parameter {name!r} is not a YAML value this "
            f"pipeline reads ({problem})"
        ) from None
    if isinstance(val, str):
        try:
            return float(
                val
            )  # nan, inf, infinity: numbers as Python writes them, judged by the domain
        except ValueError:
            return val
    return val


def _default_value(info: dict):
    """The literal default of a declared parameter (None when it is not a plain literal)."""
    try:
        return ast.literal_eval(str(info.get("default")))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
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
    """Refuse (with a :class:`ParameterError`, a ValueError) names the notebook does not declare
    (suggesting the nearest), values of another kind than the default's (text where a number is
    declared, a number where a list is declared, ...) and values outside the declared domain (a
    range, choices with the nearest suggested, a list's length; integers where the default has them)."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        near = difflib.get_close_matches(unknown[0], list(declared), n=1)
        raise ParameterError(
            f"{source}: chapter {chapter!r} declares no parameter named {', '.join(map(repr, unknown))}"
            + (f" (did you mean {near[0]!r}?)" if near else "")
            + f"; its parameters are: {', '.join(sorted(declared))}"
        )
    for k, v in given.items():
        default = _default_value(declared[k])
        want = _kind(default)
        if want is not None and _kind(v) != want:
            raise ParameterError(
                f"{source}: parameter {k!r} of chapter {chapter!r} must be {want} "
                f"(its default is {declared[k].get('default')}), got {v!r}"
            )
        dom = declared[k].get("domain")
        how = domain_refusal(dom, v) if dom is not None else None
        if how:
            raise ParameterError(f"{source}: parameter {k!r} of chapter {chapter!r} {how}")


def profile_values(root: Path, profile: str, chapter: str) -> dict:
    if profile not in PROFILES:
        raise PipelineError(f"profile must be one of {PROFILES}, got {profile!r}")
    path = root / "params" / profile / f"{chapter}.yaml"
    if not path.exists():
        raise PipelineError(f"missing parameter file {path.relative_to(root)}")
    try:
        data = yamlread.load(path.read_text()) or {}
    except yamlread.DuplicateKeyError as exc:
        raise PipelineError(
            f"{path.relative_to(root)}, line {exc.line}: parameter {exc.key!r} is given twice "
            f"(first on line {exc.first}); give each parameter once"
        ) from None
    except yaml.YAMLError as exc:
        raise PipelineError(
            f"{path.relative_to(root)} is not valid YAML: " + " ".join(str(exc).split())
        ) from None
    if not isinstance(data, dict):
        raise PipelineError(
            f"{path.relative_to(root)} must hold a mapping of parameter names to values"
        )
    return data


#: Modules that execute chapters or render pages from their results, never code a chapter's numbers come from:
#: the staleness key does not enter them, so editing them re-renders the book without re-executing any chapter
#: (a chapter that imports one directly is refused by tests/book/test_pipeline.py).
PAGE_MODULES = (
    "gspa.book.pipeline",
    "gspa.book.ledger",
    "gspa.book.provenance",
    "gspa.book.sitesearch",
    "gspa.book.citation",
    "gspa.book.apidoc",
)


def chapter_modules(root: Path, chapter: str) -> list[Path]:
    """The gspa source files a chapter's code can execute: the closure of its code cells' imports
    (:func:`gspa.util.imports.closure`, imports inside functions included), without :data:`PAGE_MODULES`.
    Magics and shell lines of a cell are skipped."""
    from gspa.util.imports import closure

    nb = json.loads((root / "notebooks" / f"{chapter}.ipynb").read_text())
    code = [
        "\n".join(
            line
            for line in "".join(c["source"]).splitlines()
            if not line.lstrip().startswith(("%", "!"))
        )
        for c in nb["cells"]
        if c["cell_type"] == "code"
    ]
    return closure(root, code, "gspa", skip=PAGE_MODULES)


def inputs_hash(root: Path, profile: str, chapter: str) -> str:
    """Hash of everything a chapter's output depends on: notebook, parameter file, the gspa sources it can
    import (:func:`chapter_modules`). ``GSPA_STALE_ALL=1`` in the environment hashes every gspa source instead
    (any edit anywhere re-executes every chapter, as a last resort)."""
    h = hashlib.sha256()
    h.update(profile.encode())
    files = [root / "notebooks" / f"{chapter}.ipynb", root / "params" / profile / f"{chapter}.yaml"]
    files += (
        sorted((root / "gspa").rglob("*.py"))
        if os.environ.get("GSPA_STALE_ALL") == "1"
        else chapter_modules(root, chapter)
    )
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


_locked: dict[
    Path, int
] = {}  # repositories whose build lock this process holds, with nesting depth


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
    aside = move_aside(path)
    if aside:
        warn_damaged(
            root, path, "a directory, not the lock file", f"moved aside to {Path(aside).name}"
        )
    with open(path, "a+", encoding="utf-8", errors="replace") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "unknown"
            print(
                f"gspa: waiting for another build (pid {holder}) to finish...",
                file=sys.stderr,
                flush=True,
            )
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


def _unreadable_json(path: Path):
    """(the JSON value in ``path``, None), or (None, why it cannot be read)."""
    try:
        return json.loads(path.read_bytes().decode("utf-8")), None
    except IsADirectoryError:
        return None, "a directory, not a file"
    except OSError as exc:
        return None, f"unreadable ({exc.strerror or exc})"
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, f"not JSON ({getattr(exc, 'msg', 'nested too deeply')})"


def load_result(root: Path, chapter: str) -> dict | None:
    """The chapter's result record, or None when there is none. A damaged file — not UTF-8 JSON, not a
    record of this chapter (an object with its name, ``values`` and ``claims``), a directory — counts as
    none, with a one-line warning naming it: the chapter is executed again and its new result replaces it."""
    p = result_path(root, chapter)
    if not p.exists():
        return None
    rec, why = _unreadable_json(p)
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


def is_fresh(root: Path, profile: str, chapter: str) -> bool:
    """Up to date: same inputs and profile, and the executed notebook is the one the result file records."""
    rec = load_result(root, chapter)
    return (
        rec is not None
        and rec.get("profile") == profile
        and rec.get("inputs_hash") == inputs_hash(root, profile, chapter)
        and output_matches(root, chapter, rec)
    )


WIDGET = "application/vnd.jupyter.widget-view+json"


#: A code cell tagged so is shown on the page: a short call that teaches the library. Every other code cell
#: is hidden behind a toggle (the book's one rule for code, issue 24).
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
    root: Path, chapter: str, profile: str, overrides: dict
) -> tuple[dict, dict]:
    """The chapter's declared parameters and its profile's values, both checked, as are ``overrides``."""
    declared = declared_parameters(root / "notebooks" / f"{chapter}.ipynb")
    prof = profile_values(root, profile, chapter)
    check_parameters(chapter, declared, prof, f"params/{profile}/{chapter}.yaml")
    check_parameters(chapter, declared, overrides, "-p")
    return declared, prof


def ipc_kernel_manager(folder: str, started: list | None = None):
    """A kernel manager class for papermill whose kernel talks over Unix sockets (ZeroMQ's ``ipc``
    transport) in ``folder``, with its connection file there too, and is started by
    :mod:`gspa.book.kernel` (ipykernel with its children's output pipe moved there as well): the kernel
    opens no TCP port, and ``folder`` (private, mode 0700, from :func:`gspa.book.kernel.socket_folder`)
    keeps other users away from its sockets. Every manager made is appended to ``started``."""
    from jupyter_client import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.connection_file = os.path.join(folder, "kernel.json")
            self.ip = os.path.join(folder, "kernel")  # the sockets are <ip>-<port>
            if started is not None:
                started.append(self)

        def format_kernel_cmd(self, extra_arguments=None):
            cmd = super().format_kernel_cmd(extra_arguments)
            return ["gspa.book.kernel" if c == "ipykernel_launcher" else c for c in cmd]

    return IPCKernelManager


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
        "inputs_hash": inputs_hash(root, profile, chapter),
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
    try:
        papermill.execute_notebook(
            str(nb),
            str(tmp_nb),
            parameters=values,
            kernel_name="python3",
            cwd=str(root),
            progress_bar=True,
            report_mode=False,
            kernel_manager_class=ipc_kernel_manager(sockets, _kernels),
        )
        if not tmp_res.exists():
            raise PipelineError(
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
            os.replace(tmp_nb, out_nb)
            os.replace(
                tmp_res, out_res
            )  # last: a kill before this leaves a mismatched, hence stale, pair
            _running.clear()  # a signal now is delivered after the chapter's run is complete
    except KeyboardInterrupt:
        _stop_kernels(_kernels)  # (already stopped when the signal handler ran)
        raise
    except Exception as exc:
        raise PipelineError(
            f"chapter {chapter!r} failed; its previous output (if any) is kept.\n{exc}"
        ) from exc
    finally:
        _running.clear()
        _kernels.clear()
        shutil.rmtree(sockets, ignore_errors=True)
        for t in (tmp_nb, tmp_res):
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
    from gspa.book.ledger import render_errata, render_front, render_ledger, render_versions

    records = []
    for n in names:
        rec = load_result(root, n)
        if rec is None:
            raise PipelineError(f"chapter {n!r} has no result file; execute it first")
        records.append(rec)
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
    raise PipelineError(
        f"{'ambiguous' if hits else 'unknown'} chapter {name!r}; chapters are: {', '.join(names)}"
    )


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
            build(root, args.profile, only, book=not args.no_book)
            return 0
        args.chapter = resolve(chapters(root), args.chapter)
        if args.cmd == "params":
            for name, info in declared_parameters(
                root / "notebooks" / f"{args.chapter}.ipynb"
            ).items():
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
    except PipelineError as exc:
        print(f"gspa: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
