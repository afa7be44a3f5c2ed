"""The architecture rule: a lower layer never imports a higher one (see ARCHITECTURE.md).

util < privacy < experiments < claims < studies < book; a study never imports another study; the privacy
library imports no plotting, torch or papermill. Inside the library the subpackages have an order too
(:data:`PRIVACY_ORDER`: the exact enumeration, the test oracle, above everything it checks), no module imports
another inside a function, and no import cycle exists. Imports are read from the source (ast), including
imports inside functions."""

import ast
from pathlib import Path

import pytest

from gspa.util.imports import imported as imports

PKG = Path(__file__).resolve().parents[1] / "gspa"
LAYERS = {
    "util": 0,
    "privacy": 1,
    "experiments": 2,
    "claims": 3,
    "studies": 4,
    "book": 5,
    "cli": 5,
    "__main__": 5,
}
HEAVY = {"torch", "matplotlib", "seaborn", "papermill", "myst_nb", "IPython"}


def layer_of(module: str) -> tuple[int, str | None]:
    """(layer, study) of a dotted module name under gspa ('gspa' itself is the privacy facade)."""
    parts = module.split(".")
    if len(parts) == 1 or parts[1] == "__version__":
        return LAYERS["privacy"], None
    if parts[1] not in LAYERS:
        raise ValueError(f"module {module} is in no layer: put it under one of {sorted(LAYERS)}")
    return LAYERS[parts[1]], (parts[2] if parts[1] == "studies" and len(parts) > 2 else None)


def violations(module: str, source: str) -> list[str]:
    """The imports of ``module`` (dotted name, source text) that break the layering rule."""
    own, own_study = layer_of(module)
    bad = []
    for target in imports(source):
        if target.startswith("."):
            bad.append(f"{module}: relative import {target!r} (write gspa.… in full)")
            continue
        top = target.split(".")[0]
        if top in HEAVY and own <= LAYERS["privacy"]:
            bad.append(f"{module} imports {target} (the privacy library stays free of {top})")
        if top != "gspa" or target.split(".")[1:2] == ["studies"] and len(target.split(".")) == 2:
            continue
        try:
            layer, study = layer_of(target)
        except ValueError:
            continue  # `from gspa.x import name`: the module part is checked as well
        if layer > own:
            bad.append(f"{module} (layer {own}) imports {target} (layer {layer})")
        elif study and own_study and study != own_study:
            bad.append(f"{module} (study {own_study}) imports {target} (study {study})")
    return bad


def modules():
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(PKG.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        yield name, p


@pytest.mark.parametrize("name,path", list(modules()), ids=[m for m, _ in modules()])
def test_module_respects_layers(name, path):
    assert violations(name, path.read_text(encoding="utf-8")) == []


def test_every_module_is_in_a_layer():
    for name, _ in modules():
        layer_of(name)


@pytest.mark.parametrize(
    "module,source",
    [
        ("gspa.privacy.basics.fdp", "from gspa.book.plotting import subplots"),
        ("gspa.privacy.basics.fdp", "def f():\n    import gspa.studies.gspa.theorem2\n"),
        ("gspa.util.validate", "from gspa.privacy import fdp"),
        ("gspa.experiments.pool", "from gspa.studies.gspa import scenarios"),
        ("gspa.studies.gspa.clt", "from gspa.book.results import Chapter"),
        ("gspa.claims.rules", "from gspa.studies.gspa import margins"),
        ("gspa.studies.flame.x", "from gspa.studies.gspa import theorem2"),
        ("gspa.privacy.shuffle.clones", "import matplotlib.pyplot as plt"),
        ("gspa.privacy.shuffle.clones", "from . import fdp"),
    ],
)
def test_checker_catches_a_violation(module, source):
    assert violations(module, source)


@pytest.mark.parametrize(
    "module,source",
    [
        ("gspa.book.pipeline", "from gspa.privacy import fdp\nfrom gspa import __version__"),
        (
            "gspa.studies.gspa.clt",
            "from gspa.studies.gspa.scenarios import budgets\nfrom gspa.experiments import pool",
        ),
    ],
)
def test_checker_accepts_downward_imports(module, source):
    assert violations(module, source) == []


# -- inside the privacy library ------------------------------------------------------------------------------

PRIVACY_ORDER = {
    "numerics": 0,
    "basics": 1,
    "profiles": 2,
    "randomizers": 3,
    "shuffle": 4,
    "peers": 5,
    "interop": 6,
    "exact": 7,
}


def privacy_rank(module: str) -> int | None:
    """The rank of a module of gspa.privacy in :data:`PRIVACY_ORDER` (None: the package facade itself)."""
    parts = module.split(".")
    if parts[:2] != ["gspa", "privacy"]:
        raise ValueError(f"{module} is not in gspa.privacy")
    if len(parts) == 2:
        return None
    if parts[2] not in PRIVACY_ORDER:
        raise ValueError(
            f"{module} is in no rank of the privacy library: put it under one of {sorted(PRIVACY_ORDER)}"
        )
    return PRIVACY_ORDER[parts[2]]


def privacy_modules() -> dict[str, str]:
    return {
        name: path.read_text(encoding="utf-8")
        for name, path in modules()
        if name.startswith("gspa.privacy.")
    }


def _resolve(target: str, known) -> str | None:
    while target and target not in known:  # `from gspa.privacy.x import name`: the module part
        target = target.rpartition(".")[0]
    return target or None


def privacy_violations(module: str, source: str, known) -> list[str]:
    """Imports of ``module`` that break the order inside the library, or sit inside a function."""
    own, bad = privacy_rank(module), []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("gspa"):
                    bad.append(
                        f"{module}: imports {inner.module} inside {node.name}() (imports go at the top)"
                    )
    for target in imports(source):
        target = _resolve(target, known)
        if target is None or target == "gspa.privacy" or not target.startswith("gspa.privacy."):
            continue
        rank = privacy_rank(target)
        if own is not None and rank > own:
            bad.append(f"{module} (rank {own}) imports {target} (rank {rank})")
    return bad


def test_privacy_subpackages_respect_their_order():
    mods = privacy_modules()
    assert [v for name, src in mods.items() for v in privacy_violations(name, src, mods)] == []


def import_cycles(mods: dict[str, str]) -> list[str]:
    """The import cycles among ``mods`` (dotted name -> source), each as "a -> b -> a"."""
    graph = {
        name: {t for t in (_resolve(x, mods) for x in imports(src)) if t and t != name}
        for name, src in mods.items()
    }
    state, cycles = {}, []

    def visit(u, path):
        state[u] = 1
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                cycles.append(" -> ".join(path[path.index(v) :] + [v]))
            elif v in graph and not state.get(v):
                visit(v, path + [v])
        state[u] = 2

    for u in sorted(graph):
        if not state.get(u):
            visit(u, [u])
    return cycles


def test_privacy_library_has_no_import_cycle():
    assert import_cycles(privacy_modules()) == []


@pytest.mark.parametrize(
    "module,source",
    [
        (
            "gspa.privacy.shuffle.accountant",
            "from gspa.privacy.exact.enumeration import shuffled_profile",
        ),
        ("gspa.privacy.numerics", "from gspa.privacy.shuffle.clones import clone_law"),
        (
            "gspa.privacy.shuffle.pairs",
            "def f():\n    from gspa.privacy.shuffle.composition import compose\n",
        ),
    ],
)
def test_privacy_order_catches_a_violation(module, source):
    assert privacy_violations(module, source, privacy_modules())


def test_cycle_check_finds_a_planted_cycle():
    planted = privacy_modules()
    planted["gspa.privacy.shuffle.clones"] += (
        "\nfrom gspa.privacy.shuffle.pairs import ReducedPair\n"
    )
    assert import_cycles(planted) == [
        "gspa.privacy.shuffle.clones -> gspa.privacy.shuffle.pairs -> gspa.privacy.shuffle.clones"
    ]
