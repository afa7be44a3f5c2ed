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
import shlex

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


def anchor(chapter: str) -> str:
    """The provenance page's anchor of a chapter's section (``gspa/figure2`` -> ``prov-gspa-figure2``)."""
    return "prov-" + chapter.replace("/", "-").replace("_", "-")


def render_page(root, records: list[dict]) -> str:
    """book/provenance.md: for every chapter (its result record), the parameters of its run and one row per
    code cell of its executed notebook that published something, with the ``gspa`` functions and parameters
    it came from."""
    import nbformat

    import gspa.privacy as P
    from gspa.book.freshness import executed_path
    from gspa.book.parameters import PipelineError

    api = {f"{getattr(P, n).__module__}.{getattr(P, n).__qualname__}": n for n in P.__all__}

    def code(f):
        if f in api:
            link = f"api.html#gspa.privacy.{api[f]}"
            return f'<a class="reference internal" href="{link}"><code>{f[5:]}</code></a>'
        return f"<code>{html.escape(f[5:])}</code>"

    parts = [
        "# Where every number and figure comes from",
        "",
        "Each figure, number and verdict of a chapter is traced here to the code cell of the chapter's "
        "notebook that published it, with the `gspa` functions and chapter parameters it depends on: those "
        "of that cell and of the earlier cells that assign a name it reads (`gspa.book.provenance`). The "
        "trace follows names, so it may list a function whose result only partly reaches a number. To "
        'change a parameter, rerun the chapter (`make rerun NB=… ARGS="-p name value"`, see '
        "[Rerunning a chapter](rerun.md)).",
        "",
    ]
    for rec in records:
        name, title = rec["chapter"], html.escape(rec.get("title") or rec["chapter"])
        path = executed_path(root, name)
        try:
            prov = analyse(nbformat.read(str(path), as_version=4))
        except (OSError, ValueError) as exc:
            raise PipelineError(f"{path}: cannot trace its numbers: {exc}") from exc
        claims = {c["id"].split(".", 1)[1]: c["id"] for c in rec.get("claims", [])}
        rows = []
        for e in prov["cells"]:
            what = [
                "figure " + (f"<code>{html.escape(g)}</code>" if g else "(drawn)")
                for g in e["figures"]
            ]
            what += [
                f"<code>{html.escape(v)}</code>"
                for v in e["published"]
                if v in rec.get("values", {})
            ]
            what += [
                f'claim <a class="reference internal" href="ledger.html#claim-{html.escape(claims[c])}">'
                f"<code>{html.escape(c)}</code></a>"
                for c in (
                    p.removeprefix("claim:") for p in e["published"] if p.startswith("claim:")
                )
                if c in claims
            ]
            if what:
                rows.append(
                    f"<tr><td>{e['code_cell']}</td><td>{', '.join(what)}</td>"
                    f"<td>{', '.join(map(code, e['functions'])) or '—'}</td>"
                    f"<td>{', '.join(f'<code>{p}</code>' for p in e['parameters']) or '—'}</td></tr>"
                )
        shown = ", ".join(
            f"<code>{html.escape(k)} = {html.escape(repr(v)[:40])}</code>"
            for k, v in prov["parameters"].items()
        )
        parts += [
            f"({anchor(name)})=",
            f"## {rec.get('title') or name}",
            "",
            f"[The chapter](chapters/{name}.ipynb) (source `notebooks/{name}.md`), run with the profile "
            f"**{rec.get('profile')}** and the parameters {shown or '(none)'}. Rerun it with other values: "
            f'`make rerun NB={shlex.quote(name)} ARGS="-p {next(iter(prov["parameters"]), "name")} …"`.',
            "",
            '<div class="gspa-scroll"><table class="gspa-provenance">',
            f"<caption>Where the figures, numbers and verdicts of {title} come from</caption>",
            "<thead><tr><th>code cell</th><th>publishes</th><th>gspa functions</th>"
            "<th>parameters</th></tr></thead><tbody>",
            *rows,
            "</tbody></table></div>",
            "",
        ]
    return "\n".join(parts)
