"""The architecture rule: a lower layer never imports a higher one (see ARCHITECTURE.md).

util < privacy < experiments < studies < book; a study never imports another study; the privacy
library imports no plotting, torch or papermill. Imports are read from the source (ast), including
imports inside functions."""
import ast
from pathlib import Path

import pytest

from gspa.util.imports import imported as imports

PKG = Path(__file__).resolve().parents[1] / "gspa"
LAYERS = {"util": 0, "privacy": 1, "experiments": 2, "studies": 3, "book": 4, "cli": 4, "__main__": 4}
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
            continue                      # `from gspa.x import name`: the module part is checked as well
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


@pytest.mark.parametrize("module,source", [
    ("gspa.privacy.fdp", "from gspa.book.plotting import subplots"),
    ("gspa.privacy.fdp", "def f():\n    import gspa.studies.gspa.theorem2\n"),
    ("gspa.util.validate", "from gspa.privacy import fdp"),
    ("gspa.experiments.pool", "from gspa.studies.gspa import scenarios"),
    ("gspa.studies.gspa.clt", "from gspa.book.results import Chapter"),
    ("gspa.studies.flame.x", "from gspa.studies.gspa import theorem2"),
    ("gspa.privacy.clones", "import matplotlib.pyplot as plt"),
    ("gspa.privacy.clones", "from . import fdp"),
])
def test_checker_catches_a_violation(module, source):
    assert violations(module, source)


@pytest.mark.parametrize("module,source", [
    ("gspa.book.pipeline", "from gspa.privacy import fdp\nfrom gspa import __version__"),
    ("gspa.studies.gspa.clt", "from gspa.studies.gspa.scenarios import budgets\nfrom gspa.experiments import pool"),
])
def test_checker_accepts_downward_imports(module, source):
    assert violations(module, source) == []
