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


def page(chapter: str) -> str:
    """The provenance page of a chapter's paper (``gspa/figure2`` -> ``provenance-gspa``)."""
    return "provenance-" + chapter.split("/")[0]


def anchor(chapter: str) -> str:
    """The provenance page's anchor of a chapter's section (``gspa/figure2`` -> ``prov-gspa-figure2``)."""
    return "prov-" + chapter.replace("/", "-").replace("_", "-")


#: how many entries of a list a provenance row shows before the rest is collapsed
SHOWN = 3


def _ident(name: str) -> str:
    """An identifier in HTML that wraps only after its dots and underscores, never inside a word."""
    return html.escape(name).replace(".", ".<wbr>").replace("_", "_<wbr>")


def _listed(items: list[str], what: str) -> str:
    """``items`` joined by commas, those after the first :data:`SHOWN` in a collapsed ``<details>``."""
    if len(items) <= SHOWN + 1:
        return ", ".join(items) or "—"
    rest = len(items) - SHOWN
    return (
        ", ".join(items[:SHOWN])
        + f'<details class="gspa-more"><summary>{rest} more {what}</summary>'
        + ", ".join(items[SHOWN:])
        + "</details>"
    )


def api_pages(root) -> dict[str, str]:
    """``{public name: the API page documenting it}`` from the ``autofunction``/``autoclass`` lines of the
    API pages (book/api*.md), e.g. ``{"personalized_pair": "api-shuffle"}``."""
    import re
    from pathlib import Path

    out = {}
    for page in sorted(Path(root, "book").glob("api*.md")):
        for m in re.finditer(
            r"^\.\. auto(?:function|class):: gspa\.privacy\.(\w+)\s*$",
            page.read_text(encoding="utf-8"),
            flags=re.MULTILINE,
        ):
            out.setdefault(m[1], page.stem)
    return out


def render_pages(root, records: list[dict]) -> dict[str, str]:
    """The provenance pages: ``{"provenance.md": what the pages show and a link to each paper's,
    "provenance-<paper>.md": that paper's chapters (:func:`render_page`), ...}``."""
    from gspa.book.ledger import PAPERS

    by_paper: dict[str, list[dict]] = {}
    for rec in records:
        by_paper.setdefault(rec["chapter"].split("/")[0], []).append(rec)
    out = {}
    index = [
        "# Where every number and figure comes from",
        "",
        _INTRO,
        "",
        "One page per paper:",
        "",
    ]
    for paper, recs in by_paper.items():
        short, title = PAPERS.get(paper, (paper, paper))
        out[f"{page(paper)}.md"] = render_page(root, recs, f"Where the numbers come from: {short}")
        index.append(f"* {{doc}}`{short} <{page(paper)}>`: {title}; {len(recs)} chapters.")
    out["provenance.md"] = "\n".join(index) + "\n"
    return out


_INTRO = (
    "Each figure, number and verdict of a chapter is traced here to the code cell of the chapter's "
    "notebook that published it, with the `gspa` functions it depends on: those "
    "of that cell and of the earlier cells that assign a name it reads (`gspa.book.provenance`; a "
    "function's full path is in its tooltip, and a cell number's tooltip names the chapter parameters "
    "the cell depends on). The trace follows names, so it may list a function whose result only partly "
    "reaches a number. To change a parameter, rerun the chapter "
    '(`make rerun NB=… ARGS="-p name value"`, see [Rerunning a chapter](rerun.md)).'
)


def render_page(
    root, records: list[dict], title: str = "Where every number and figure comes from"
) -> str:
    """One provenance page: for every chapter (its result record), the parameters of its run (collapsed) and
    a short table: one row per code cell of its executed notebook that published something — its figures,
    numbers and claims, the cell, and the ``gspa`` functions it came from (long lists collapsed)."""
    import nbformat

    import gspa.privacy as P
    from gspa.book.freshness import executed_path
    from gspa.book.ledger import ledger_page
    from gspa.book.parameters import PipelineError
    from gspa.book.results import paper_of

    documented = api_pages(root)
    api = {
        f"{getattr(P, n).__module__}.{getattr(P, n).__qualname__}": n
        for n in P.__all__
        if n in documented
    }

    def code(f):
        short = f.rpartition(".")[2]
        full = html.escape(f)
        if f in api:
            link = f"{documented[api[f]]}.html#gspa.privacy.{api[f]}"
            return (
                f'<a class="reference internal" href="{link}" title="{full}">'
                f"<code>{_ident(short)}</code></a>"
            )
        return f'<code title="{full}">{_ident(short)}</code>'

    parts = [f"# {title}", "", _INTRO, ""]
    for rec in records:
        name, caption = rec["chapter"], html.escape(rec.get("title") or rec["chapter"])
        path = executed_path(root, name)
        try:
            prov = analyse(nbformat.read(str(path), as_version=4))
        except (OSError, ValueError) as exc:
            raise PipelineError(f"{path}: cannot trace its numbers: {exc}") from exc
        claims = {c["id"].split(".", 1)[1]: c["id"] for c in rec.get("claims", [])}
        ledger = ledger_page(paper_of(name))
        rows = []
        for e in prov["cells"]:
            what = [
                "figure " + (f"<code>{_ident(g)}</code>" if g else "(drawn)") for g in e["figures"]
            ]
            what += [
                f"<code>{_ident(v)}</code>" for v in e["published"] if v in rec.get("values", {})
            ]
            what += [
                f'claim <a class="reference internal" href="{ledger}.html#claim-{html.escape(claims[c])}">'
                f"<code>{_ident(c)}</code></a>"
                for c in (
                    p.removeprefix("claim:") for p in e["published"] if p.startswith("claim:")
                )
                if c in claims
            ]
            if what:
                params = html.escape(", ".join(e["parameters"]) or "none")
                rows.append(
                    f"<tr><td>{_listed(what, 'published')}</td>"
                    f'<td><span title="depends on the parameters: {params}">{e["code_cell"]}</span></td>'
                    f"<td>{_listed(list(map(code, e['functions'])), 'functions')}</td></tr>"
                )
        shown = ", ".join(
            f"<code>{_ident(k)} = {html.escape(repr(v)[:40])}</code>"
            for k, v in prov["parameters"].items()
        )
        n_par = len(prov["parameters"])
        parts += [
            f"({anchor(name)})=",
            f"## {rec.get('title') or name}",
            "",
            f"[The chapter](chapters/{name}.ipynb) (source `notebooks/{name}.md`), run with the profile "
            f"**{rec.get('profile')}**. Rerun it with other values: "
            f'`make rerun NB={shlex.quote(name)} ARGS="-p {next(iter(prov["parameters"]), "name")} …"`.',
            "",
            f'<details class="gspa-more"><summary>The {n_par} parameters of this run</summary>'
            f"{shown or '(none)'}</details>",
            "",
            '<div class="gspa-scroll"><table class="gspa-provenance">',
            f"<caption>Where the figures, numbers and verdicts of {caption} come from</caption>",
            "<thead><tr><th>figure, number or claim</th><th>code cell</th><th>gspa functions</th>"
            "</tr></thead><tbody>",
            *rows,
            "</tbody></table></div>",
            "",
        ]
    return "\n".join(parts)
