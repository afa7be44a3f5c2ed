"""Where each number and figure of a chapter comes from (after showyourwork).

For every value a chapter publishes (``ch.value``), every claim it judges (``ch.claim``) and every figure
it draws, :func:`analyse` finds, in the chapter's executed notebook, the ``gspa`` functions and the
chapter parameters it depends on, by a static backward slice: starting from the statement that publishes
it, earlier statements are included when they assign a name the included ones read (or call a method on
it, which may change it), and the functions are the ``gspa`` callables those statements call, resolved
through the notebook's imports to where they are defined.

The slice follows names, so it over-approximates (a statement that assigns a needed name is included
whole) and it cannot see data that flows outside names (a file, a cache, an object changed through
another name). It is the static tracing showyourwork does per script, done per number; no code runs.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, field

#: The book's own machinery is not what "made" a number: publishing, tables and styles are left out.
_MACHINERY = ("gspa.book.results", "gspa.book.tables", "gspa.book.plotting", "gspa.claims.rules")


@dataclass
class _Stmt:
    cell: int  # index of the cell in the notebook (markdown cells counted)
    node: ast.stmt
    defs: set = field(default_factory=set)
    uses: set = field(default_factory=set)
    kills: set = field(default_factory=set)  # names the statement always rebinds


def _names(node, ctx) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _mutated(node) -> set:
    """Names whose object a statement may change: ``x.m(...)``, ``x[i] = ...``, ``x.a = ...``, ``x += ...``."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            root = n.func.value
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name):
                out.add(root.id)
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                if isinstance(t, ast.Name) and not isinstance(n, ast.AugAssign):
                    continue  # a plain rebinding changes no object
                root = t
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if isinstance(root, ast.Name):
                    out.add(root.id)
    return out


def _kills(node) -> set:
    """Names a top-level statement always rebinds (a loop, branch or ``with`` may not run its body)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and getattr(node, "value", None) is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {
            n.id
            for t in targets
            for n in ast.walk(t)
            if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)
            and not isinstance(t, (ast.Attribute, ast.Subscript))
        }
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in node.names}
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return {node.name}
    return set()


def _chapter_names(stmts) -> set:
    """Names bound to the chapter's :class:`~gspa.book.results.Chapter` (``ch = Chapter(...)``): every
    ``ch.value`` call changes it, so following it would tie every number to every other one."""
    out = set()
    for s in stmts:
        n = s.node
        if (
            isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and n.value.func.id == "Chapter"
        ):
            out |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return out


def _source(cell) -> str:
    src = cell.source if isinstance(cell.source, str) else "".join(cell.source)
    # IPython magics and shell escapes are not Python: blank them (keeping line numbers).
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in src.splitlines()
    )


def _imports(stmts) -> dict:
    """Name bound by an import -> dotted path (``A`` -> ``gspa.privacy.shuffle.accountant``)."""
    out = {}
    for s in stmts:
        for n in ast.walk(s.node):
            if isinstance(n, ast.Import):
                for a in n.names:
                    out[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else a.name.split(".")[0]
                    )
            elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
                for a in n.names:
                    out[a.asname or a.name] = f"{n.module}.{a.name}"
    return out


def _dotted(func, imports) -> str | None:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in imports:
        return None
    return ".".join([imports[func.id], *reversed(parts)])


def _resolve(path: str) -> str | None:
    """Where a dotted ``gspa`` path is defined (``gspa.privacy.shuffle.accountant.personalized_pair``), or None
    for a path that is not a ``gspa`` callable. Imports the module (the notebook did)."""
    if not path.startswith("gspa."):
        return None
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
        break
    else:
        return None
    if not callable(obj):
        return None
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not mod or not qual or not mod.startswith("gspa") or mod.startswith(_MACHINERY):
        return None
    if mod.startswith("gspa.book") and (isinstance(obj, type) or "." in qual):
        return None  # the book's data types (ClaimDomain, Param, Search): how a claim is stated, not computed
    return f"{mod}.{qual}"


def _literal_assignments(cell) -> dict:
    out = {}
    try:
        tree = ast.parse(_source(cell))
    except SyntaxError:
        return out
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            try:
                out[n.targets[0].id] = ast.literal_eval(n.value)
            except (ValueError, SyntaxError):
                out[n.targets[0].id] = ast.unparse(n.value)
    return out


def _name_pattern(arg) -> re.Pattern:
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

    joined = "".join(parts(arg))
    return re.compile(re.sub(r"(\.\+)+", ".+", joined) + r"\Z")


def _call_of(node, method: str):
    """The ``<x>.<method>(...)`` or ``<method>(...)`` calls in a statement."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if (isinstance(f, ast.Attribute) and f.attr == method) or (
                isinstance(f, ast.Name) and f.id == method
            ):
                yield n


def analyse(nb) -> dict:
    """The provenance of what an executed chapter notebook (``nbformat`` node) publishes.

    Returns ``{"parameters": {name: value}, "values": [...], "claims": [...], "figures": [...]}``; each
    entry of the lists has ``pattern`` (value name, claim id or ``None`` for a figure), ``cell`` (index of
    the notebook cell), ``code_cell`` (its number among the code cells shown in the source notebook, from
    1), ``functions`` (sorted dotted names where the ``gspa`` callables are defined) and ``parameters``
    (sorted names of the chapter's parameters it depends on); a figure has ``glue`` (its glue name, or
    ``None`` for a figure drawn in place)."""
    stmts, code_no, params, injected = [], {}, {}, {}
    k = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags:
            injected = _literal_assignments(cell)
        else:
            k += 1
            code_no[i] = k
            if "parameters" in tags:
                params = _literal_assignments(cell)
        try:
            tree = ast.parse(_source(cell))
        except SyntaxError as exc:
            raise ValueError(f"cell {i} of the notebook is not Python: {exc}") from exc
        for node in tree.body:
            mut = _mutated(node)
            stores = _names(node, ast.Store) | {
                a.asname or a.name.split(".")[0]
                for n in ast.walk(node)
                if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names
            }
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                stores.add(node.name)
            stmts.append(_Stmt(i, node, stores | mut, _names(node, ast.Load) | mut, _kills(node)))
    params = {**params, **injected}
    # the chapter object, and modules, functions and classes (``np.random.default_rng(...)`` calls a
    # method of a module; it changes nothing a number depends on), are not followed as data
    fixed = _chapter_names(stmts) | {
        a
        for s in stmts
        for a in _kills(s.node)
        if isinstance(s.node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef))
    }
    for s in stmts:
        s.defs -= fixed - s.kills
        s.uses -= fixed
    imports = _imports(stmts)
    resolved: dict[str, str | None] = {}

    def functions(included) -> list:
        out = set()
        for s in included:
            for n in ast.walk(s.node):
                if isinstance(n, ast.Call):
                    path = _dotted(n.func, imports)
                    if path is not None:
                        if path not in resolved:
                            resolved[path] = _resolve(path)
                        if resolved[path]:
                            out.add(resolved[path])
        return sorted(out)

    def slice_from(pos: int, seed_uses: set) -> tuple[list, set]:
        need, included, ever = set(seed_uses), [], set(seed_uses)
        for s in reversed(stmts[:pos]):
            if s.defs & need:
                included.append(s)
                need = (need - s.kills) | s.uses
                ever |= need
        return included, ever

    def entry(pos, uses, pattern, **extra):
        s = stmts[pos]
        included, need = slice_from(pos, uses)
        included.append(s)
        need |= uses
        return {
            "pattern": pattern,
            "cell": s.cell,
            "code_cell": code_no.get(s.cell),
            "functions": functions(included),
            "parameters": sorted(need & set(params)),
            **extra,
        }

    values, claims, figures = [], [], []
    for pos, s in enumerate(stmts):
        for call in _call_of(s.node, "value"):
            if isinstance(call.func, ast.Attribute) and call.args:
                uses = set().union(
                    *(
                        _names(a, ast.Load)
                        for a in [*call.args[1:], *[kw.value for kw in call.keywords]]
                    )
                )
                # a call inside a loop or comprehension depends on what the loop iterates over
                if not isinstance(s.node, ast.Expr):
                    uses |= s.uses
                uses |= _names(call.args[0], ast.Load)
                values.append(entry(pos, uses, _name_pattern(call.args[0]).pattern))
        for call in _call_of(s.node, "claim"):
            if isinstance(call.func, ast.Attribute) and call.args:
                uses = s.uses if not isinstance(s.node, ast.Expr) else _names(call, ast.Load)
                claims.append(entry(pos, uses, _name_pattern(call.args[0]).pattern))
        for call in _call_of(s.node, "glue"):
            if isinstance(call.func, ast.Name) and len(call.args) >= 2:
                name = call.args[0].value if isinstance(call.args[0], ast.Constant) else None
                figures.append(entry(pos, _names(call.args[1], ast.Load), None, glue=name))
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and any(
            o.get("output_type") in ("display_data", "execute_result")
            and any(m.startswith("image/") for m in o.get("data", {}))
            for o in cell.get("outputs", [])
        ):
            last = max(p for p, s in enumerate(stmts) if s.cell == i)
            uses = set().union(*(s.uses for s in stmts if s.cell == i))
            figures.append(entry(last, uses, None, glue=None))
    return {"parameters": params, "values": values, "claims": claims, "figures": figures}


def lookup(entries: list, name: str) -> dict | None:
    """The entry whose pattern matches a published name: a literal match first, then the most specific
    pattern (most literal characters)."""
    exact = [e for e in entries if e["pattern"] == re.escape(name) + r"\Z"]
    if exact:
        return exact[0]
    hits = [e for e in entries if re.match(e["pattern"], name)]
    return max(hits, key=lambda e: len(e["pattern"].replace(".+", ""))) if hits else None


def _short(value, limit: int = 48) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _api_names() -> dict:
    """Where each function of the API reference is defined -> its name there (``gspa.privacy.X``)."""
    import gspa.privacy as P

    out = {}
    for name in getattr(P, "__all__", []):
        obj = getattr(P, name, None)
        mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if mod and qual:
            out[f"{mod}.{qual}"] = f"gspa.privacy.{name}"
    return out


def _functions_html(functions, api: dict) -> str:
    import html

    out = []
    for f in functions:
        short = html.escape(f.removeprefix("gspa."))
        if f in api:  # the API page's anchor for it (autodoc ids are the documented names)
            out.append(
                f'<a class="reference internal" href="api.html#{api[f]}"><code>{short}</code></a>'
            )
        else:
            out.append(f"<code>{short}</code>")
    return ", ".join(out) or "—"


def anchor(chapter: str) -> str:
    """The provenance page's anchor of a chapter's section (``gspa/figure2`` -> ``prov-gspa-figure2``)."""
    return "prov-" + chapter.replace("/", "-").replace("_", "-")


def render_page(chapters: list[tuple[dict, dict]]) -> str:
    """book/provenance.md: for every chapter (its result record and :func:`analyse` of its executed
    notebook), one table of its figures, published numbers and claims with the code cell, the ``gspa``
    functions and the parameters each one came from."""
    import html
    import shlex
    from gspa.book.results import BADGE

    api = _api_names()
    parts = [
        "# Where every number and figure comes from",
        "",
        "Each number in the text, each verdict and each figure of a chapter is traced, here, to the code cell "
        "of the chapter's notebook that made it, the `gspa` functions it depends on and the chapter parameters "
        "that reached it, with this build's values. The trace is a static backward slice of the executed "
        "notebook (`gspa.book.provenance`): from the call that publishes a number, earlier statements are "
        "followed when they assign a name it reads. It follows names, so it may list a function whose result "
        "only partly reaches the number, and it cannot see data passed outside names (a file, a cache). To "
        'change a parameter, rerun the chapter (`make rerun NB=… ARGS="-p name value"`, see '
        "[Rerunning a chapter](rerun.md)).",
        "",
    ]
    for rec, prov in chapters:
        name = rec["chapter"]
        params = prov["parameters"]
        parts += [f"({anchor(name)})=", f"## {rec.get('title') or name}", ""]
        parts += [
            f"Source `notebooks/{name}.md`, run with the profile **{rec.get('profile')}** "
            f"([the chapter](chapters/{name}.ipynb)). Rerun it with other values: "
            f'`make rerun NB={shlex.quote(name)} ARGS="-p {sorted(params)[0] if params else "name"} …"`.',
            "",
        ]
        rows = []

        def row(what, shown, e):
            cell = (
                f'<br><span class="gspa-where">code cell {e["code_cell"]}</span>'
                if e and e.get("code_cell")
                else ""
            )
            funcs = _functions_html(e["functions"], api) if e else "—"
            ps = (
                ", ".join(
                    f"<code>{html.escape(p)} = {html.escape(_short(params.get(p)))}</code>"
                    for p in e["parameters"]
                )
                if e and e["parameters"]
                else "—"
            )
            rows.append(
                f"<tr><td>{what}{cell}</td><td>{shown}</td><td>{funcs}</td><td>{ps}</td></tr>"
            )

        for k, e in enumerate(prov["figures"], 1):
            what = (
                f"figure <code>{html.escape(e['glue'])}</code>" if e.get("glue") else f"figure {k}"
            )
            row(what, "figure", e)
        for vname, v in rec.get("values", {}).items():
            # the glued text verbatim (in code: it is a string the notebook wrote, e.g. "n_p = 2,000")
            row(
                f"<code>{html.escape(vname)}</code>",
                f"<code>{html.escape(str(v.get('text', '')))}</code>",
                lookup(prov["values"], vname),
            )
        for c in rec.get("claims", []):
            short = c["id"].split(".", 1)[1]
            badge = BADGE.get(c["verdict"], "secondary")
            row(
                f'claim <a class="reference internal" href="ledger.html#claim-{html.escape(c["id"])}">'
                f"<code>{html.escape(short)}</code></a>",
                f'<span class="sd-badge sd-bg-{badge}">{html.escape(c["verdict"])}</span>',
                lookup(prov["claims"], short),
            )
        caption = f"Where the figures, numbers and verdicts of {html.escape(rec.get('title') or name)} come from"
        parts += [
            '<div class="gspa-scroll"><table class="gspa-provenance">',
            f"<caption>{caption}</caption>",
            "<thead><tr><th>published (made in)</th><th>as shown</th><th>gspa functions</th>"
            "<th>parameters (this run)</th></tr></thead>",
            "<tbody>",
            *rows,
            "</tbody></table></div>",
            "",
        ]
    return "\n".join(parts)
