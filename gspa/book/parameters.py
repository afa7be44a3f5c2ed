"""A chapter's parameters: the domain each declares at the end of its comment in the notebook's cell tagged
``parameters``, in a compact notation (:func:`domain_text`) that :func:`domain_schema` translates into a
JSON Schema; :mod:`jsonschema` checks the values of a profile file (``params/<profile>/<chapter>.yaml``) and
of ``-p`` against it before anything runs, and a refusal is one line naming the parameter, its value, its
domain and the validator's reason."""

from __future__ import annotations

import ast
import csv
import difflib
import math
import re
import sys
from pathlib import Path

import yaml

# jsonschema imports the optional checkers of string formats it finds installed; rfc3987-syntax (installed
# for Jupyter's event schemas) builds a grammar when imported, about 1 s of every pipeline start. No schema
# here has a "format" (nor does Validator check formats), so while jsonschema is imported the module is marked
# absent (Python's documented None entry in sys.modules: jsonschema then leaves out its two IRI formats), and
# the mark is removed after, so that anything else in the process can still import it.
_MARK = not {"jsonschema", "rfc3987_syntax"} & sys.modules.keys()
if _MARK:
    sys.modules["rfc3987_syntax"] = None
import jsonschema  # noqa: E402

if _MARK:
    del sys.modules["rfc3987_syntax"]

from gspa.book.freshness import read_source, read_text
from gspa.util import yamlread

PROFILES = ("paper", "smoke")
FREE_TEXT = "(any text)"


class PipelineError(RuntimeError):
    pass


class ParameterError(PipelineError, ValueError):
    """A parameter value (from a profile file or -p) that a chapter does not accept."""


_NUM = r"[-+]?(?:inf|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?)"
_IV = rf"([\[(])\s*({_NUM})\s*,\s*({_NUM})\s*([\])])"
_FACTOR = re.compile(rf"{_IV}|\{{([^{{}}]*)\}}")
_LEN = re.compile(rf"\s*,\s*len\s+{_IV}$")
_DOMAIN = re.compile(
    rf"(?<!\S)({re.escape(FREE_TEXT)}|(?:{_FACTOR.pattern})(?:\s+x\s+(?:{_FACTOR.pattern}))*"
    rf"(?:{_LEN.pattern[:-1]})?)\s*$"
)
# JSON has no NaN or infinity (and every comparison with NaN is false, so `minimum` would let it through):
# a number is finite; an integer is an int (3.0 is not), and a boolean is neither.
Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
        {
            "number": lambda _, v: type(v) is int or (type(v) is float and math.isfinite(v)),
            "integer": lambda _, v: type(v) is int,
        }
    ),
)


def domain_text(comment: str | None) -> str | None:
    """The domain a parameter's comment ends with (the table in book/rerun.md), or None: the longest ending,
    starting at a bracket or brace after a space, that reads as a range ``[lo, hi]``, ``(lo, hi]``, ...
    (bounds are numbers or an excluded ``inf``: ``[0, eps_max]`` declares nothing), choices ``{fixed,
    reshuffle}`` (``{"a, b", c}``: quotes for commas), factors for a list's entries joined by `` x ``
    (``[2, 100000] x (0, 1) x {exact, eq5}``), each optionally followed by a list's length ``, len [1,
    inf)``; or ``(any text)``."""
    m = _DOMAIN.search(comment or "")
    return m and m.group(1)


def _interval(m, count: bool = False) -> dict:
    """The bounds of the interval ``m`` matched (groups 1 to 4) as JSON Schema keywords: of a number, or
    (``count``) of a list's length."""
    lo, hi = (float(g.replace("_", "")) for g in m.group(2, 3))
    lo_in, hi_in, text = m.group(1) == "[", m.group(4) == "]", m.group(0).strip(" ,")
    if not (lo < hi or (lo == hi and lo_in and hi_in)):
        raise PipelineError(f"empty range {text}")
    if (lo_in and lo == -math.inf) or (hi_in and hi == math.inf):
        raise PipelineError(f"{text} includes inf, which no value is: write a parenthesis")
    keys = ("minimum" if lo_in else "exclusiveMinimum", "maximum" if hi_in else "exclusiveMaximum")
    if count:
        keys = ("minItems", "maxItems")
        if math.isfinite(lo):
            lo = math.ceil(lo) if lo_in else math.floor(lo) + 1
        if math.isfinite(hi):
            hi = math.floor(hi) if hi_in else math.ceil(hi) - 1
    return {k: int(b) if b == int(b) else b for k, b in zip(keys, (lo, hi)) if math.isfinite(b)}


def _depth(v) -> int:
    """Nesting depth of a list value (0 for a scalar; a list's depth is that of its first element plus 1)."""
    return 1 + _depth(v[0]) if isinstance(v, list) and v else int(isinstance(v, list))


def _leaves(v, depth: int) -> list:
    return [x for e in v for x in _leaves(e, depth - 1)] if depth and isinstance(v, list) else [v]


def domain_schema(text: str | None, default) -> dict:
    """The JSON Schema of the domain ``text`` (:func:`domain_text`; None: a boolean) of a parameter whose
    default is ``default``: nested in lists as deep as the default is, a range of integers where the
    default has integers only (in that factor)."""
    if text is None or text == FREE_TEXT:
        return {"type": "boolean" if text is None else "string"}
    length = _LEN.search(text)
    factors = list(_FACTOR.finditer(text[: length.start()] if length else text))
    k, depth = len(factors), _depth(default)
    if depth == 0 and (k > 1 or length):
        raise PipelineError(f"{text} applies to lists; the default is {short(default)}")
    depth -= k > 1
    if length and k > 1 and depth == 0:
        raise PipelineError(f"{text}: 'len' applies to a list of rows; the default is one row")
    rows = [r for r in _leaves(default, depth) if k == 1 or (isinstance(r, list) and len(r) == k)]
    cols = [rows] if k == 1 else [[r[i] for r in rows] for i in range(k)]
    items = []
    for m, col in zip(factors, cols):
        words = [c.strip() for c in next(csv.reader([m.group(5) or ""], skipinitialspace=True), [])]
        if m.group(5) is None:
            integer = all(type(e) is int for e in col)
            items.append({**_interval(m), "type": "integer" if integer else "number"})
        elif words and all(words):
            items.append({"enum": words})
        else:
            raise PipelineError(f"an empty choice in {m.group(0)}")
    s = (
        items[0]
        if k == 1
        else {"type": "array", "minItems": k, "prefixItems": items, "items": False}
    )
    for _ in range(depth):
        s = {"type": "array", "items": s}
    return {"type": "array", **_interval(length, count=True), **s} if length else s  # length first


def refusal(info: dict, value) -> str | None:
    """Why ``value`` is not in the domain that ``info`` (a declared parameter) declares, the end of a
    sentence that starts with the parameter; None if it is."""
    err = next(Validator(info["schema"]).iter_errors(value), None)
    if err is None:
        return None
    v, at = err.instance, "".join(f"[{i}]" for i in err.path)
    why = err.message
    if why.startswith(repr(v)):  # jsonschema's reason starts with the value, which may be long
        why = (short(v) if at else "it") + why[len(repr(v)) :]
    why = (f"at {at}, " if at else "") + why
    if err.validator == "type" and type(v) is float:
        integral = err.validator_value == "integer" and v.is_integer()
        why += f"; write {int(v)}" if integral else "; a number is finite" * (not math.isfinite(v))
    if err.validator == "enum" and isinstance(v, str):
        lower = {c.lower(): c for c in err.validator_value}
        near = difflib.get_close_matches(v.lower(), list(lower), n=1, cutoff=0.6)
        why += f"; did you mean {lower[near[0]]!r}?" if near else ""
    domain = info.get("domain") or "{true, false}"
    return f"is {short(value)}, outside its domain {domain} ({short(why, 160, text=True)})"


def chapter_schema(chapter: str, declared: dict) -> dict:
    """The JSON Schema of a chapter's parameters (``gspa params CHAPTER --schema``): an object with one
    property per parameter (its comment, its default and its domain's schema) and no other."""
    return {
        "$schema": Validator.META_SCHEMA["$id"],
        "title": f"parameters of chapter {chapter}",
        "type": "object",
        "properties": {
            name: {
                "description": info.get("help") or "",
                "default": _default_value(info),
                **info["schema"],
            }
            for name, info in declared.items()
        },
        "additionalProperties": False,
    }


def declared_parameters(notebook: Path) -> dict:
    """Names and defaults of the variables assigned in the cell tagged 'parameters' of the chapter source at
    ``notebook`` (read by :func:`gspa.book.freshness.read_source`): papermill's description of each, plus
    ``domain``, the compact notation its comment ends with (:func:`domain_text`), and ``schema``, its JSON
    Schema (:func:`domain_schema`). Every default must be a literal inside its domain; every parameter but
    a boolean one must declare a domain."""
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
    # papermill's line parser skips some lines (e.g. a comment containing ' = ')
    if lost := sorted(assigned - set(info)):
        raise PipelineError(
            f"{notebook}: papermill cannot parse the parameter line(s) of {lost}; "
            "keep each on one line as 'name = value  # comment' without '=' in the comment"
        )
    for name, p in info.items():
        where = f"{notebook}: parameter {name!r}"
        default = _default_value(p)
        if not isinstance(default, (bool, int, float, str, list)):
            raise PipelineError(
                f"{where}: its default {p.get('default')} is not a literal number, text, "
                "boolean or list"
            )
        p["domain"] = domain_text(p.get("help"))
        if p["domain"] is None and not isinstance(default, bool):
            raise PipelineError(
                f"{where} declares no domain: end its comment with a range [lo, hi], "
                f"choices {{a, b}} or {FREE_TEXT} (see domain_text)"
            )
        try:
            p["schema"] = domain_schema(p["domain"], default)
        except PipelineError as exc:
            raise PipelineError(f"{where}: {exc}") from None
        if how := refusal(p, default):
            raise PipelineError(f"{where}: its default {how}")
    return info


def _parse_value(raw: str, name: str = "?"):
    """A ``-p`` value read as YAML (safely: a tag such as ``!!python/object`` is refused; ``1e-3`` is a
    number, also inside a list; a key given twice is refused: :mod:`gspa.util.yamlread`); ``nan``, ``inf``:
    numbers as Python writes them, which the domain refuses."""
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
            return float(val)
        except ValueError:
            return val
    return val


def _default_value(info: dict):
    """The literal default of a declared parameter (None when it is not a plain literal)."""
    try:
        return ast.literal_eval(str(info.get("default")))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def check_parameters(chapter: str, declared: dict, given: dict, source: str) -> None:
    """Refuse (with a :class:`ParameterError`, a ValueError) names the notebook does not declare
    (suggesting the nearest) and values outside their parameter's JSON Schema (:func:`refusal`)."""
    if unknown := sorted(set(given) - set(declared)):
        near = difflib.get_close_matches(unknown[0], list(declared), n=1)
        raise ParameterError(
            f"{source}: chapter {chapter!r} declares no parameter named {', '.join(map(repr, unknown))}"
            + (f" (did you mean {near[0]!r}?)" if near else "")
            + f"; its parameters are: {', '.join(sorted(declared))}"
        )
    for k, v in given.items():
        if how := refusal(declared[k], v):
            raise ParameterError(f"{source}: parameter {k!r} of chapter {chapter!r} {how}")


def short(value, width: int = 60, text: bool = False) -> str:
    """``repr(value)`` (``text``: ``value`` itself) cut to ``width`` characters: what a refusal echoes of a
    value."""
    text = value if text else repr(value)
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
    text, why = read_text(path)
    if why:
        raise PipelineError(f"{name} is {why}")
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
