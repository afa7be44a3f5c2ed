"""Every chapter parameter declares the values it accepts, and -p values are either accepted inside
that domain or refused with a ParameterError (exit status 2), never another exception."""

import subprocess
import string
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gspa.book import parameters
from gspa.book import pipeline as P
from gspa.book.freshness import source_path

from conftest import ROOT

CHAPTERS = P.chapters(ROOT)
DECLARED = {ch: parameters.declared_parameters(source_path(ROOT, ch)) for ch in CHAPTERS}
ALL = [(ch, name) for ch in CHAPTERS for name in DECLARED[ch]]


def _subschemas(schema):
    yield schema
    for sub in (schema.get("items"), *schema.get("prefixItems", ())):
        if isinstance(sub, dict):
            yield from _subschemas(sub)


@pytest.mark.parametrize("chapter, name", ALL)
def test_every_parameter_declares_a_domain_with_a_finite_bound_where_it_drives_cost(chapter, name):
    """Counts, sizes, repetitions, grid points and seeds (the integer parameters) set how much a run
    computes, so each has a finite upper limit unless its comment says it is cost-free (k_rr: a closed
    form). Real-valued parameters (budgets, deltas, tolerances, exponents) set what is computed, not how
    much: they may be unbounded. Text has choices, or is declared (any text): a path (cache_dir) or a
    Dask scheduler's address (scheduler)."""
    info = DECLARED[chapter][name]
    if isinstance(parameters._default_value(info), bool):
        assert info["domain"] is None and info["schema"] == {"type": "boolean"}
        return
    assert info["domain"] is not None, f"{chapter}: {name} declares no domain"
    if info["domain"] == "(any text)":
        assert name in ("cache_dir", "scheduler"), (
            f"{chapter}: {name}: free text is for paths and addresses only"
        )
        return
    for sub in _subschemas(info["schema"]):
        if sub.get("type") == "integer":
            assert {"maximum", "exclusiveMaximum"} & set(sub) or "cost-free" in info["help"], (
                f"{chapter}: {name} {info['domain']} has no finite limit"
            )


@pytest.mark.parametrize("profile", parameters.PROFILES)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_profile_values_and_defaults_lie_in_their_domains(chapter, profile):
    """Every chapter's defaults and every profile file's values validate, parameter by parameter and
    against the chapter's whole JSON Schema (what ``gspa params CHAPTER --schema`` prints)."""
    declared, values = P.checked_parameters(ROOT, chapter, profile, {})
    defaults = {n: parameters._default_value(i) for n, i in declared.items()}
    parameters.check_parameters(chapter, declared, defaults, "defaults")
    parameters.check_parameters(chapter, declared, values, profile)
    schema = parameters.chapter_schema(chapter, declared)
    parameters.Validator.check_schema(schema)
    parameters.Validator(schema).validate({**defaults, **values})


def _within(v, interval: str) -> bool:
    """``v`` lies in ``interval``, written as in a chapter: ``[lo, hi]``, ``(lo, hi]``, ..."""
    lo, hi = (float(b.replace("_", "")) for b in interval[1:-1].split(","))
    return (lo < v or (interval[0] == "[" and v == lo)) and (
        v < hi or (interval[-1] == "]" and v == hi)
    )


def _accepted_and_inside(chapter, name, value):
    """An independent reading of the declared domain's compact notation (not the module's translation
    into JSON Schema): numbers (not booleans) within the range's bounds (so never NaN or infinite),
    integers where the default has them, text among the choices, lists element by element, a product's
    lists one entry per factor, a list's length within ``len``."""
    info = DECLARED[chapter][name]
    text, default = info["domain"], parameters._default_value(info)
    if text is None:
        return type(value) is bool
    if text == "(any text)":
        return isinstance(value, str)
    body, _, length = text.partition(", len ")
    if length and not (isinstance(value, list) and _within(len(value), length)):
        return False
    factors = body.split(" x ")
    k, depth, d = len(factors), -(len(factors) > 1), default
    while isinstance(d, list):
        depth, d = depth + 1, d[0] if d else None
    rows = [default]
    for _ in range(depth):
        rows = [x for r in rows for x in r]
    integer = [all(type(e) is int for e in col) for col in ([rows] if k == 1 else zip(*rows))]

    def leaf(v, i):
        if factors[i].startswith("{"):
            return isinstance(v, str) and v in [c.strip() for c in factors[i][1:-1].split(",")]
        number = type(v) is int or (type(v) is float and not integer[i])
        return number and _within(v, factors[i])

    def inside(v, d):
        if d > 0:
            return isinstance(v, list) and all(inside(e, d - 1) for e in v)
        if k > 1:
            return isinstance(v, list) and len(v) == k and all(map(leaf, v, range(k)))
        return leaf(v, 0)

    return inside(value, depth)


TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=string.digits + "[]{}(),.-+e_ !:&*|>'\"#%@`", max_size=30),
    st.sampled_from(
        [
            "1e21",
            "-0",
            ".inf",
            "-.inf",
            ".nan",
            "nan",
            "[]",
            "[[]]",
            "[1, [2]]",
            "{a: 1}",
            "~",
            "null",
            "yes",
            "2024-01-01",
            "!!binary",
            "!!python/object:os.system",
            "!!set {a}",
            "0x10",
            "0o7",
            "1_000",
            "[Unif 1]",
            "Unif 2",
            "fixed",
            "[[1, 2]]",
            "[1.5, 2]",
            "&a [*a]",
            "!!float 1",
        ]
    ),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL), TEXT)
def test_any_text_given_with_p_is_accepted_inside_the_domain_or_refused(target, raw):
    """Accepted exactly when inside the domain (as an independent reading of the notation has it);
    refused in one line naming the parameter."""
    chapter, name = target
    try:
        value = P._overrides([(name, raw)])[name]
    except parameters.ParameterError as exc:
        assert "\n" not in str(exc) and repr(name) in str(exc)
        return
    try:
        parameters.check_parameters(chapter, DECLARED[chapter], {name: value}, "-p")
    except parameters.ParameterError as exc:
        assert "\n" not in str(exc) and repr(name) in str(exc)
        assert not _accepted_and_inside(chapter, name, value), (chapter, name, raw, value, exc)
        return
    assert _accepted_and_inside(chapter, name, value), (chapter, name, raw, value)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ALL), TEXT)
def test_the_command_line_runs_or_refuses_with_status_2_and_one_line(target, raw):
    """``gspa run CHAPTER -p NAME RAW`` with the execution replaced by a record of its arguments."""
    import contextlib
    import io
    import os

    chapter, name = target
    ran, err = [], io.StringIO()
    real, cwd = P.execute, os.getcwd()
    P.execute = lambda root, ch, profile, overrides: ran.append(overrides)
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stderr(err):
            code = P.main(["run", chapter, "-p", name, raw])
    finally:
        P.execute = real
        os.chdir(cwd)
    if code == 0:
        assert (
            len(ran) == 1
            and _accepted_and_inside(chapter, name, ran[0][name])
            and err.getvalue() == ""
        )
    else:
        assert code == 2 and ran == [] and err.getvalue().startswith("gspa: error: ")
        assert err.getvalue().count("\n") == 1


def test_importing_the_parameters_loads_no_iri_grammar_and_leaves_it_importable():
    """jsonschema would load rfc3987-syntax, which builds a grammar on import (about 1 s of every pipeline
    start) for string formats no schema here uses; the module stays unloaded, and importable afterwards."""
    code = (
        "import sys, gspa.book.parameters\n"
        "assert 'rfc3987_syntax' not in sys.modules, 'loaded'\n"
        "import rfc3987_syntax\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-500:]
