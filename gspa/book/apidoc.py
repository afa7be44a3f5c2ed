"""The docstrings of the privacy library's public API, checked: the book's API page
(``book/api.md``) renders them with Sphinx autodoc, and the book's extension (``book/_ext/gspa_book.py``)
fails the build when one of them is missing or malformed; ``tests/book/test_apidoc.py`` runs the same
check.

What is checked, for every name of ``gspa.privacy.__all__`` and every public method or property a class
of it defines (those are what the page documents):

* it has its own docstring (not one inherited, nor the ``Name(field, ...)`` line that ``dataclasses``
  writes for a class without one);
* its summary — the first paragraph — is a sentence: it starts with a capital letter, a digit, an
  opening bracket or inline code, and ends with a full stop (or ``?``/``!``, after any closing bracket);
* docutils parses it as reStructuredText without a warning (Sphinx's cross-reference roles such as
  ``:func:`` are read as plain inline code here: Sphinx itself checks their targets in the ``-n`` build),
  and holds no text in single backticks (italics in reStructuredText, where code was meant).
"""

from __future__ import annotations

import importlib
import inspect
import io
import re

PACKAGE = "gspa.privacy"

_ROLE = re.compile(r":(?:py:)?[a-z]+:`((?:[^`\\]|\\.)+)`")
_END = re.compile(r"[.?!][)\]\"'”’]*$")
_START = re.compile(r"[A-Z0-9(\[\"“`*]")


def public_names(package: str = PACKAGE) -> list[str]:
    """The names that ``package`` exports (its ``__all__``), in that order."""
    return list(importlib.import_module(package).__all__)


def own_docstring(obj) -> str | None:
    """``obj``'s own docstring, cleaned (``inspect.cleandoc``), or None: a class's docstring is not
    inherited here, and the signature line that ``dataclasses`` writes for a class without one does
    not count."""
    if isinstance(obj, property):
        doc = obj.__doc__ or (obj.fget.__doc__ if obj.fget else None)
    elif isinstance(obj, type):
        doc = obj.__dict__.get("__doc__")
        if (
            doc
            and getattr(obj, "__dataclass_fields__", None) is not None
            and doc.startswith(obj.__name__ + "(")
        ):
            doc = None
    else:
        doc = getattr(inspect.unwrap(obj), "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


def members(cls: type) -> list[tuple[str, object]]:
    """The public methods and properties that ``cls`` or one of its bases (not ``object``) defines, by
    name: what autodoc's ``:members:`` and ``:inherited-members:`` show."""
    out = {}
    for base in reversed(cls.__mro__[:-1]):
        for name, value in vars(base).items():
            if name.startswith("_"):
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if inspect.isfunction(value) or isinstance(value, property):
                out[name] = value
    return sorted(out.items())


def rst_problems(doc: str) -> list[str]:
    """The warnings and errors docutils reports when it parses ``doc`` as reStructuredText (with
    Sphinx's roles read as inline code), one line each."""
    from docutils import nodes
    from docutils.core import publish_doctree
    from docutils.parsers.rst import directives, roles

    text = _ROLE.sub(lambda m: "``" + m.group(1).replace("``", "` `") + "``", doc)
    stream = io.StringIO()
    # plain docutils: inside a Sphinx build, Sphinx's own directives (``math``, ...) are registered in
    # docutils' tables and need Sphinx's environment; docutils' built-in ones are found without them
    saved = dict(directives._directives), dict(roles._roles)
    directives._directives.clear()
    roles._roles.clear()
    try:
        tree = publish_doctree(
            text,
            settings_overrides={
                "report_level": 2,
                "halt_level": 5,
                "warning_stream": stream,
                "file_insertion_enabled": False,
                "raw_enabled": False,
            },
        )
    finally:
        directives._directives.clear()
        directives._directives.update(saved[0])
        roles._roles.clear()
        roles._roles.update(saved[1])
    out = []
    for (
        line
    ) in stream.getvalue().splitlines():  # every message, also those of transforms (substitutions)
        m = re.match(r"<string>:(\d+|\?)?:? ?\((WARNING|ERROR|SEVERE)/\d\) (.*)", line)
        if m:
            out.append(f"line {m.group(1) or '?'}: {m.group(3)}")
    for node in tree.findall(nodes.title_reference):
        out.append(
            f"`{node.astext()}` in single backticks (italics in reStructuredText): write ``{node.astext()}``"
        )
    return out


def docstring_problems(obj, name: str) -> list[str]:
    """What is wrong with the docstring of ``obj`` (called ``name`` in the messages); empty if nothing."""
    doc = own_docstring(obj)
    if doc is None:
        return [f"{name}: no docstring"]
    out = []
    summary = " ".join(doc.split("\n\n", 1)[0].split())
    if not _START.match(summary):
        out.append(
            f"{name}: the summary (first paragraph) does not start a sentence: {summary[:60]!r}"
        )
    if not _END.search(summary):
        out.append(
            f"{name}: the summary (first paragraph) does not end with a full stop: ...{summary[-60:]!r}"
        )
    out += [f"{name}: reStructuredText {p}" for p in rst_problems(doc)]
    return out


def check_public_api(package: str = PACKAGE) -> list[str]:
    """Every problem of the docstrings of ``package.__all__`` and of the public members of its classes."""
    mod = importlib.import_module(package)
    out = []
    for name in public_names(package):
        obj = getattr(mod, name, None)
        if obj is None:
            out.append(f"{package}.{name}: listed in __all__ but not defined")
            continue
        out += docstring_problems(obj, f"{package}.{name}")
        if isinstance(obj, type):
            for mname, member in members(obj):
                out += docstring_problems(member, f"{package}.{name}.{mname}")
    return out
