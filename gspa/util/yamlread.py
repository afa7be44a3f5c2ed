"""YAML for parameter files and ``-p`` values: PyYAML's safe loader with YAML 1.2's core schema for plain
scalars instead of YAML 1.1's, and nothing that can surprise.

* Numbers as YAML 1.2 (and Python) read them: ``010`` is 10 (YAML 1.1: 8), ``1:30`` is the text ``'1:30'``
  (YAML 1.1: 90), ``1e-3`` is a float (PyYAML: text), ``0x1F`` and ``0o17`` are hexadecimal and octal;
  ``_`` between digits is allowed (``400_000``), as in Python. ``.inf``, ``-.inf`` and ``.nan`` are floats.
* Booleans are ``true`` and ``false`` (any case), nulls ``null``, ``~`` or nothing: ``yes``, ``no``, ``on``
  and ``off`` are text.
* Aliases (``*name``) are refused (:class:`AliasError`): a parameter value never needs one, and they let a
  few bytes expand into gigabytes.
* A mapping that gives a key twice is refused (:class:`DuplicateKeyError`, with the key and both lines)
  instead of keeping the last value silently.

Tags that build Python objects (``!!python/object``) are refused as by ``yaml.safe_load``.
"""

from __future__ import annotations

import re

import yaml

__all__ = ["AliasError", "DuplicateKeyError", "load"]

_DIGITS = r"[0-9](?:_?[0-9])*"
_INT = re.compile(rf"^(?:[-+]?{_DIGITS}|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    rf"^(?:[-+]?(?:\.{_DIGITS}|{_DIGITS}(?:\.(?:{_DIGITS})?)?)(?:[eE][-+]?{_DIGITS})?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping gives ``key`` twice: first on line ``first``, again on line ``line`` (1-based)."""

    def __init__(self, key, line: int, first: int):
        super().__init__(problem=f"key {key!r} is given twice")
        self.key, self.line, self.first = key, line, first

    def __str__(self) -> str:
        return f"line {self.line}: key {self.key!r} is given twice (first on line {self.first})"


class AliasError(yaml.composer.ComposerError):
    """The text uses an alias (``*name``), which parameter values never need."""

    def __init__(self, line: int):
        super().__init__(problem="aliases (*name) are not accepted")
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: aliases (*name) are not accepted"


class Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with YAML 1.2's core schema for plain scalars, aliases and duplicate keys refused."""

    yaml_implicit_resolvers: dict = {}

    def compose_node(self, parent, index):
        if self.check_event(yaml.events.AliasEvent):
            raise AliasError(self.peek_event().start_mark.line + 1)
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    if key in seen:
                        raise DuplicateKeyError(key, key_node.start_mark.line + 1, seen[key] + 1)
                except TypeError:  # an unhashable key: construct_mapping refuses it
                    continue
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        text = self.construct_scalar(node).replace("_", "")
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text, 10)

    def construct_yaml_float(self, node):
        text = self.construct_scalar(node).replace("_", "")
        low = text.lower()
        if low.endswith(".inf"):
            return float("-inf") if low.startswith("-") else float("inf")
        if low == ".nan":
            return float("nan")
        return float(text)

    def construct_yaml_bool(self, node):
        return self.construct_scalar(node).lower() == "true"


for _tag, _pattern, _first in (
    ("bool", _BOOL, "tTfF"),
    ("int", _INT, "-+0123456789"),
    ("float", _FLOAT, "-+0123456789."),
    ("null", _NULL, ["~", "n", "N", ""]),
):
    Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", _pattern, list(_first))
Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
Loader.add_constructor("tag:yaml.org,2002:float", Loader.construct_yaml_float)
Loader.add_constructor("tag:yaml.org,2002:bool", Loader.construct_yaml_bool)
Loader.add_constructor("tag:yaml.org,2002:map", Loader.construct_yaml_map)


def load(text: str):
    """The value of the YAML document ``text`` (None when it is empty), read by :class:`Loader`."""
    if not isinstance(text, str):
        raise ValueError(f"text must be YAML text (a str), got {type(text).__name__} {text!r:.80}")
    return yaml.load(text, Loader=Loader)  # noqa: S506 - Loader is a SafeLoader
