"""Where each number, verdict and figure of a chapter comes from (after showyourwork, which links a figure to
the script that made it).

The executed notebook says which code cell published what: myst-nb's glue names every value and claim in the
outputs of the cell that ran ``ch.value`` or ``ch.claim``, and a figure is an image output. For each such cell,
:func:`analyse` names the ``gspa`` functions and chapter parameters it depends on: those it uses, and those of
the earlier cells that assign a name it reads, and so on back (a backward slice by cells, read from the syntax;
the chapter's own functions count as names). It follows names, so it may name a function whose result only
partly reaches a number; it cannot see data passed outside names (a file, a cache).
"""

from __future__ import annotations

import ast
import html
import importlib

#: The book's own machinery is not what "made" a number: publishing, tables and styles are left out.
_MACHINERY = ("gspa.book", "gspa.claims.rules")


def _resolve(path: str) -> str | None:
    """Where the ``gspa`` function at a dotted path (``gspa.privacy.personalized_pair``) is defined, or None
    for anything else. Imports the module (the notebook did)."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        where = f"{getattr(obj, '__module__', None) or ''}.{getattr(obj, '__qualname__', '')}"
        return (
            where
            if callable(obj) and where.startswith("gspa.") and not where.startswith(_MACHINERY)
            else None
        )
    return None


def analyse(nb) -> dict:
    """The provenance of an executed chapter notebook (``nbformat`` node): ``{"parameters": {name: value of
    this run}, "cells": [...], "figures": [...]}``. ``cells`` has an entry per code cell that published or
    drew something, with ``cell`` (its index in the notebook), ``code_cell`` (its number among the source's
    code cells, from 1), ``functions`` (where the ``gspa`` functions it depends on are defined), ``parameters``
    (those of the chapter's it depends on), ``published`` (glue names: a value's, ``claim:<id>``) and
    ``figures`` (each figure's glue name, None for one drawn in place); ``figures`` has that cell's entry
    once per figure, with ``glue``."""
    cells, imports, params, fixed = [], {}, {}, set()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()  # IPython magics and shell escapes blanked
        source = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
        try:
            tree = ast.parse(source)
        except SyntaxError as exc:
            raise ValueError(f"cell {i} of the notebook is not Python: {exc}") from exc
        tags = cell.get("metadata", {}).get("tags", [])
        if {"parameters", "injected-parameters"} & set(tags):  # those injected come later, and win
            for n in tree.body:
                if isinstance(n, ast.Assign) and [type(t) for t in n.targets] == [ast.Name]:
                    try:
                        params[n.targets[0].id] = ast.literal_eval(n.value)
                    except (ValueError, SyntaxError):
                        params[n.targets[0].id] = ast.unparse(n.value)
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                for a in n.names:
                    top = a.name.split(".")[0]
                    imports[a.asname or top] = a.name if a.asname else top
            elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
                imports.update({a.asname or a.name: f"{n.module}.{a.name}" for a in n.names})
            elif (
                isinstance(n, ast.Assign)
                and getattr(getattr(n.value, "func", None), "id", 0) == "Chapter"
            ):
                # every publication changes it
                fixed |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        if "injected-parameters" not in tags:
            cells.append((i, tree))
    fixed |= set(imports)

    def names(tree, ctx) -> set:
        out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}
        # and the functions it defines, and the objects it may change: x.m(...), ...
        if ctx is ast.Store:
            for n in ast.walk(tree):
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                    out.add(n.name)
                root = n.func if isinstance(n, ast.Call) else n
                if isinstance(root, ast.Attribute) or (
                    isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
                ):
                    while isinstance(root, (ast.Attribute, ast.Subscript)):
                        root = root.value
                    out |= {root.id} if isinstance(root, ast.Name) else set()
        return out - fixed

    def functions(tree) -> set:
        out = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                f, parts = n.func, []
                while isinstance(f, ast.Attribute):
                    parts.append(f.attr)
                    f = f.value
                if isinstance(f, ast.Name) and imports.get(f.id, "").startswith("gspa"):
                    out.add(_resolve(".".join([imports[f.id], *reversed(parts)])))
        return out - {None}

    deps = {i: (names(t, ast.Load), names(t, ast.Store), functions(t)) for i, t in cells}
    out = {"parameters": params, "cells": [], "figures": []}
    for k, (i, _) in enumerate(cells, 1):
        published, figures = [], []
        for o in nb.cells[i].get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if any("image/" in m for m in o.get("data", {})):
                figures.append(name)
            elif name and not name.endswith(":reason"):
                published.append(name)
        if not (published or figures):
            continue
        need, funcs = set(deps[i][0]), set(deps[i][2])
        for j, _ in reversed(cells[: k - 1]):
            reads, writes, called = deps[j]
            if writes & need:
                need |= reads
                funcs |= called
        entry = {"cell": i, "code_cell": k, "functions": sorted(funcs)}
        entry |= {"parameters": sorted(need & set(params)), "published": published}
        entry["figures"] = figures
        out["cells"].append(entry)
        out["figures"] += [{**entry, "glue": g} for g in figures]
    return out


ANCHOR = "gspa-provenance"


def chapter_html(prov: dict, paper: str) -> str:
    """The end of a chapter's page (book/_ext): a collapsed table, one row per code cell that published
    something — what it published (figures, numbers, claims linked to their row), its number among the code
    cells, the ``gspa`` functions and the chapter parameters it depends on (:func:`analyse`); ``paper``: the
    chapter's paper, which prefixes its claims' ids."""

    def code(x):  # wraps only after a dot or an underscore, never inside a word
        return "<code>" + html.escape(x).replace(".", ".<wbr>").replace("_", "_<wbr>") + "</code>"

    rows = []
    for e in prov["cells"]:
        what = ["figure " + (code(g) if g else "(drawn)") for g in e["figures"]]
        for p in e["published"]:
            cid = p.removeprefix("claim:")
            link = f'claim <a href="#claim-{html.escape(paper)}.{html.escape(cid)}">{code(cid)}</a>'
            what.append(link if cid != p else code(p))
        funcs = [code(f.removeprefix("gspa.")) for f in e["functions"]]
        params = [code(p) for p in e["parameters"]]
        cells = (", ".join(what), e["code_cell"], ", ".join(funcs) or "—", ", ".join(params) or "—")
        # a space between cells: the search index reads the table's text, and would join their words
        rows.append("<tr>" + " ".join(f"<td>{c}</td>" for c in cells) + "</tr>\n")
    return (
        f'<details class="gspa-provenance" id="{ANCHOR}"><summary>Where each number, verdict and figure '
        "of this chapter comes from</summary><p>Traced from the executed notebook "
        "(<code>gspa.book.provenance</code>): the code cell that published it, and the <code>gspa</code> "
        "functions and parameters of that cell and of the earlier cells that assign a name it reads. "
        "The trace follows names, so it may list a function whose result only partly reaches a number."
        '</p><div class="gspa-scroll"><table class="gspa-provenance"><caption>What each code cell '
        "published, and what it depends on</caption><thead><tr><th>figure, number or claim</th>"
        "<th>code cell</th><th>gspa functions</th><th>parameters</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></details>"
    )
