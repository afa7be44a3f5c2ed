"""YAML for parameter files and ``-p`` values: PyYAML's safe loader, with two of its YAML 1.1 habits fixed.

* A number in scientific notation without a dot or without a sign in the exponent (``1e-3``, ``1E5``,
  ``1.0e5``) is a float, as in YAML 1.2 and Python, not the text ``'1e-3'`` (PyYAML resolves floats by
  YAML 1.1's pattern, which needs both). Integers stay integers (``5``, ``-3``).
* A mapping that gives a key twice is refused (:class:`DuplicateKeyError`, with the key and both lines)
  instead of keeping the last value silently.

Tags that build Python objects (``!!python/object``) are refused as by ``yaml.safe_load``.
"""

from __future__ import annotations

import re

import yaml

__all__ = ["DuplicateKeyError", "load"]

# Scientific notation that YAML 1.1's float pattern misses: an exponent, with or without a dot or a sign.
_EXPONENT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping gives ``key`` twice: first on line ``first``, again on line ``line`` (1-based)."""

    def __init__(self, key, line: int, first: int):
        super().__init__(problem=f"key {key!r} is given twice")
        self.key, self.line, self.first = key, line, first

    def __str__(self) -> str:
        return f"line {self.line}: key {self.key!r} is given twice (first on line {self.first})"


class Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with scientific notation read as floats and duplicate keys refused."""

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


Loader.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT, list("-+0123456789."))
Loader.add_constructor("tag:yaml.org,2002:map", Loader.construct_yaml_map)


def load(text: str):
    """The value of the YAML document ``text`` (None when it is empty), read by :class:`Loader`."""
    if not isinstance(text, str):
        raise ValueError(f"text must be YAML text (a str), got {type(text).__name__} {text!r:.80}")
    return yaml.load(text, Loader=Loader)  # noqa: S506 - Loader is a SafeLoader
