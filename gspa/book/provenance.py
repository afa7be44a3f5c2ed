"""Where each number and figure of a chapter comes from (after showyourwork, which links a figure to the
script and the inputs that made it).

For every value a chapter publishes (``ch.value``), every claim it judges (``ch.claim``) and every figure it
draws, :func:`analyse` names the code cell of the executed notebook that published it, and the ``gspa``
functions and chapter parameters that cell depends on: those it uses, and those of the earlier cells that
assign a name it reads, and so on back (a backward slice by cells, read from the syntax; no code runs).
The chapter's own functions count as names (a cell that calls one depends on the cell that defines it), and a
value published inside one is traced to every cell that calls it. It follows names, so it may name a function
whose result only partly reaches the number, or a cell among several that may have published it; it cannot see
data passed outside names (a file, a cache).
"""

from __future__ import annotations

import ast
import html
import importlib
import re
import shlex

#: The book's own machinery is not what "made" a number: publishing, tables and styles are left out.
_MACHINERY = ("gspa.book", "gspa.claims.rules")


def _source(cell) -> str:
    # IPython magics and shell escapes are not Python: blank them (keeping line numbers).
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in cell.source.splitlines()
    )


def _resolve(path: str) -> str | None:
    """Where a dotted ``gspa`` path (``gspa.privacy.personalized_pair``) is defined, or None for a path
    that is not a ``gspa`` function. Imports the module (the notebook did)."""
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
        mod, qual = getattr(obj, "__module__", None) or "", getattr(obj, "__qualname__", "")
        if callable(obj) and mod.startswith("gspa") and not mod.startswith(_MACHINERY):
            return f"{mod}.{qual}"
        return None
    return None


def _name_pattern(arg) -> str:
    """A regex for the names a ``ch.value`` call may publish: exact for a literal, the literal parts of
    an f-string or a concatenation otherwise (``f"miss_{i}"`` -> ``miss_.+``)."""

    def parts(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            return [re.escape(n.value)]
        if isinstance(n, ast.JoinedStr):
            return [p for v in n.values for p in parts(v)]
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add):
            return parts(n.left) + parts(n.right)
        return [".+"]

    return re.sub(r"(\.\+)+", ".+", "".join(parts(arg))) + r"\Z"


def _calls(tree, name: str):
    """The first arguments of the ``<x>.<name>(arg, ...)`` calls in a tree."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and n.args:
            if isinstance(n.func, ast.Attribute) and n.func.attr == name:
                yield n.args[0]


def _literals(tree) -> dict:
    out = {}
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            try:
                out[n.targets[0].id] = ast.literal_eval(n.value)
            except (ValueError, SyntaxError):
                out[n.targets[0].id] = ast.unparse(n.value)
    return out


def analyse(nb) -> dict:
    """The provenance of what an executed chapter notebook (``nbformat`` node) publishes.

    Returns ``{"parameters": {name: value}, "values": [...], "claims": [...], "figures": [...]}``; each
    entry has ``pattern`` (a regex of the value name or claim id; ``None`` for a figure), ``cell`` (index
    of the notebook cell), ``code_cell`` (its number among the source notebook's code cells, from 1),
    ``functions`` (sorted dotted names where the ``gspa`` functions are defined) and ``parameters``
    (sorted names of the chapter's parameters); a figure has ``glue`` (its glue name, or ``None`` for a
    figure drawn in place)."""
    cells, imports, params, injected, fixed = [], {}, {}, {}, set()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(_source(cell))
        except SyntaxError as exc:
            raise ValueError(f"cell {i} of the notebook is not Python: {exc}") from exc
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags:
            injected = _literals(tree)
        elif "parameters" in tags:
            params = _literals(tree)
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                for a in n.names:
                    imports[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )
            elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
                imports.update({a.asname or a.name: f"{n.module}.{a.name}" for a in n.names})
            elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
                if (
                    getattr(n.value.func, "id", None) == "Chapter"
                ):  # every publishing call changes it
                    fixed |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        cells.append((i, tree, "injected-parameters" in tags))
    params = {**params, **injected}
    fixed |= set(imports)
    code_no = {i: k for k, i in enumerate((i for i, _, inj in cells if not inj), 1)}

    def names(tree, ctx) -> set:
        out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}
        if (
            ctx is ast.Store
        ):  # and the functions it defines, and the objects it may change: x.m(...), ...
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
                    found = _resolve(".".join([imports[f.id], *reversed(parts)]))
                    out |= {found} if found else set()
        return out

    deps = {i: (names(t, ast.Load), names(t, ast.Store), functions(t)) for i, t, _ in cells}

    def entry(i: int, pattern: str | None, **extra) -> dict:
        need, funcs, used = set(deps[i][0]), set(deps[i][2]), set(deps[i][0])
        for j, _, _ in reversed([c for c in cells if c[0] < i]):
            reads, writes, called = deps[j]
            if writes & need:
                need |= reads
                used |= reads
                funcs |= called
        return {
            "pattern": pattern,
            "cell": i,
            "code_cell": code_no.get(i),
            "functions": sorted(funcs),
            "parameters": sorted(used & set(params)),
            **extra,
        }

    # the chapter's own functions that publish: a call of one publishes what its body does, under any name
    publishers = {
        f.name: {m for m in ("value", "publish", "claim") if any(_calls(f, m))}
        for _, tree, _ in cells
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
    }
    out = {"parameters": params, "values": [], "claims": [], "figures": []}
    for i, tree, _ in cells:
        inside = {
            id(a) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) for a in ast.walk(f)
        }
        for kind, method in (("values", "value"), ("values", "publish"), ("claims", "claim")):
            for a in _calls(tree, method):
                pattern = _name_pattern(a)[:-2] + (".+\\Z" if method == "publish" else "\\Z")
                out[kind].append(entry(i, pattern, in_def=id(a) in inside))
            for c in ast.walk(tree):
                if method in publishers.get(getattr(getattr(c, "func", None), "id", None), ()):
                    out[kind].append(entry(i, ".+\\Z", in_def=id(c) in inside))
        out["figures"] += [  # myst-nb's glue(name, figure): a figure placed in the text
            entry(i, None, glue=c.args[0].value if isinstance(c.args[0], ast.Constant) else None)
            for c in ast.walk(tree)
            if isinstance(c, ast.Call)
            and getattr(c.func, "id", None) == "glue"
            and len(c.args) >= 2
        ]
        if any(
            o.get("output_type") in ("display_data", "execute_result")
            and any(m.startswith("image/") for m in o.get("data", {}))
            for o in nb.cells[i].get("outputs", [])
        ):
            out["figures"].append(entry(i, None, glue=None))
    return out


def matches(entries: list, name: str) -> list:
    """The entries that may have published ``name``: those whose pattern matches it with the most literal
    characters (a literal match first), publishing calls before the bodies of the chapter's functions that
    hold them. Several when the chapter publishes through one of its functions from several cells."""

    def rank(e):
        return (len(e["pattern"].replace(".+", "")), not e.get("in_def"))

    hits = [e for e in entries if re.match(e["pattern"], name)]
    best = max(map(rank, hits), default=None)
    return [e for e in hits if rank(e) == best]


def lookup(entries: list, name: str) -> dict | None:
    """The first of :func:`matches`, or None."""
    found = matches(entries, name)
    return found[0] if found else None


def anchor(chapter: str) -> str:
    """The provenance page's anchor of a chapter's section (``gspa/figure2`` -> ``prov-gspa-figure2``)."""
    return "prov-" + chapter.replace("/", "-").replace("_", "-")


def render_page(chapters: list[tuple[dict, dict]]) -> str:
    """book/provenance.md: for every chapter (its result record and :func:`analyse` of its executed
    notebook), the parameters of its run and one row per code cell that published something: what it
    published, and the ``gspa`` functions and parameters it came from."""
    import gspa.privacy as P

    api = {f"{getattr(P, n).__module__}.{getattr(P, n).__qualname__}": n for n in P.__all__}

    def funcs(names):
        return (
            ", ".join(
                f'<a class="reference internal" href="api.html#gspa.privacy.{api[f]}"><code>{f[5:]}</code></a>'
                if f in api
                else f"<code>{html.escape(f[5:])}</code>"
                for f in names
            )
            or "—"
        )

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
    for rec, prov in chapters:
        name, params = rec["chapter"], prov["parameters"]
        rows: dict[int, list] = {}

        def add(what, e):
            if e is not None:
                rows.setdefault(e["cell"], [e, []])[1].append(what)

        for e in prov["figures"]:
            add(
                "figure " + (f"<code>{html.escape(e['glue'])}</code>" if e["glue"] else "(drawn)"),
                e,
            )
        for vname in rec.get("values", {}):
            for e in matches(prov["values"], vname):
                add(f"<code>{html.escape(vname)}</code>", e)
        for c in rec.get("claims", []):
            short = c["id"].split(".", 1)[1]
            add(
                f'claim <a class="reference internal" href="ledger.html#claim-{html.escape(c["id"])}">'
                f"<code>{html.escape(short)}</code></a>",
                lookup(prov["claims"], short),
            )
        shown = ", ".join(
            f"<code>{html.escape(k)} = {html.escape(repr(v)[:40])}</code>"
            for k, v in params.items()
        )
        parts += [
            f"({anchor(name)})=",
            f"## {rec.get('title') or name}",
            "",
            f"[The chapter](chapters/{name}.ipynb) (source `notebooks/{name}.md`), run with the profile **{rec.get('profile')}** and the "
            f"parameters {shown or '(none)'}. Rerun it with other values: "
            f'`make rerun NB={shlex.quote(name)} ARGS="-p {next(iter(params), "name")} …"`.',
            "",
            '<div class="gspa-scroll"><table class="gspa-provenance">',
            f"<caption>Where the figures, numbers and verdicts of "
            f"{html.escape(rec.get('title') or name)} come from</caption>",
            "<thead><tr><th>code cell</th><th>publishes</th><th>gspa functions</th>"
            "<th>parameters</th></tr></thead><tbody>",
            *(
                f"<tr><td>{e['code_cell']}</td><td>{', '.join(what)}</td><td>{funcs(e['functions'])}"
                f"</td><td>{', '.join(f'<code>{p}</code>' for p in e['parameters']) or '—'}</td></tr>"
                for _, (e, what) in sorted(rows.items())
            ),
            "</tbody></table></div>",
            "",
        ]
    return "\n".join(parts)
