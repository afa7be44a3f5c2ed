"""A chapter's parameters: the domain each declares at the end of its comment in the notebook's cell tagged
``parameters`` (:func:`parse_domain`), the values of a profile file (``params/<profile>/<chapter>.yaml``) and of
``-p``, and the checks that refuse a value, before anything runs, in one line that names the parameter, its
value and the values it accepts."""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path
from typing import NamedTuple

import yaml

from gspa.book.freshness import read_source
from gspa.util import yamlread

PROFILES = ("paper", "smoke")


class PipelineError(RuntimeError):
    pass


class ParameterError(PipelineError, ValueError):
    """A parameter value (from a profile file or -p) that a chapter does not accept."""


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
        return None if isinstance(value, str) else f"is {short(value)}, not text"
    if dom.length is not None and isinstance(value, list) and len(value) not in dom.length:
        return (
            f"is {short(value)}, a list of {len(value)} elements, outside its allowed {dom.length}"
        )
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
                f"has {short(entry)} in {short(value)}, {why}"
                if entry is not value
                else f"is {short(value)}, {why}"
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
    """Names and defaults of the variables assigned in the cell tagged 'parameters' of the chapter source at
    ``notebook`` (read by :func:`gspa.book.freshness.read_source`): papermill's description of each, plus
    ``domain``, the :class:`ParameterDomain` its comment declares (see :func:`parse_domain`). Every default
    must be a literal, inside its domain; every parameter but a boolean one must declare a domain."""
    import papermill

    nb = read_source(notebook)
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
    info = papermill.inspect_notebook(nb)
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
            f"-p: the value {short(raw)} of parameter {name!r} gives a key twice ({exc})"
        ) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParameterError(
            f"-p: the value {short(raw)} of parameter {name!r} is not a YAML value this "
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
                f"(its default is {declared[k].get('default')}), got {short(v)}"
            )
        dom = declared[k].get("domain")
        how = domain_refusal(dom, v) if dom is not None else None
        if how:
            raise ParameterError(f"{source}: parameter {k!r} of chapter {chapter!r} {how}")


def short(value, width: int = 60) -> str:
    """``repr(value)`` cut to ``width`` characters: what a refusal echoes of a value."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def profile_values(root: Path, profile: str, chapter: str) -> dict:
    """The values of ``params/<profile>/<chapter>.yaml``; for the paper profile the file is optional (none:
    the notebook's defaults, which are the paper's settings). A file that is not a readable UTF-8 regular file holding a
    YAML mapping is refused by name (a FIFO at once: it is never opened)."""
    if profile not in PROFILES:
        raise PipelineError(f"profile must be one of {PROFILES}, got {profile!r}")
    path = root / "params" / profile / f"{chapter}.yaml"
    name = path.relative_to(root)
    if not (path.exists() or path.is_symlink()):
        if profile == "paper":
            return {}
        raise PipelineError(f"missing parameter file {name}")
    if path.is_dir():
        raise PipelineError(f"{name} is a directory, expected a parameter file (YAML)")
    if not path.is_file():
        raise PipelineError(f"{name} is not a regular file (a FIFO, socket or device)")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PipelineError(
            f"{name} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
        ) from None
    except OSError as exc:
        raise PipelineError(f"{name} cannot be read ({exc.strerror or exc})") from None
    try:
        data = yamlread.load(text) or {}
    except yamlread.DuplicateKeyError as exc:
        raise PipelineError(
            f"{name}, line {exc.line}: parameter {exc.key!r} is given twice "
            f"(first on line {exc.first}); give each parameter once"
        ) from None
    except yaml.YAMLError as exc:
        raise PipelineError(
            f"{name} is not valid YAML: " + short(" ".join(str(exc).split()), 200)
        ) from None
    if not isinstance(data, dict):
        raise PipelineError(f"{name} must hold a mapping of parameter names to values")
    return data
