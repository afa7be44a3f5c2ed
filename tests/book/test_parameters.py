"""Every chapter parameter declares the values it accepts, and -p values are either accepted inside
that domain or refused with a ParameterError (exit status 2), never another exception."""

import math
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gspa.book import parameters
from gspa.book import pipeline as P
from gspa.book.freshness import source_path

from conftest import ROOT

CHAPTERS = P.chapters(ROOT)
DECLARED = {ch: P.declared_parameters(source_path(ROOT, ch)) for ch in CHAPTERS}
ALL = [(ch, name) for ch in CHAPTERS for name in DECLARED[ch]]


@pytest.mark.parametrize("chapter, name", ALL)
def test_every_parameter_declares_a_domain_with_a_finite_bound_where_it_drives_cost(chapter, name):
    """Counts, sizes, repetitions, grid points and seeds (the integer parameters) set how much a run
    computes, so each has a finite upper limit unless its comment says it is cost-free (k_rr: a closed
    form). Real-valued parameters (budgets, deltas, tolerances, exponents) set what is computed, not how
    much: they may be unbounded. Text has choices, or is declared (any text): a path (cache_dir) or a Dask scheduler's address (scheduler)."""
    info = DECLARED[chapter][name]
    dom, default = info["domain"], P._default_value(info)
    if isinstance(default, bool):
        assert dom is None
        return
    assert dom is not None, f"{chapter}: {name} declares no domain"
    if dom.free:
        assert name in ("cache_dir", "scheduler"), (
            f"{chapter}: {name}: free text is for paths and addresses only"
        )
        return
    for f, integer in zip(dom.factors, dom.integer):
        if isinstance(f, parameters.Range) and integer:
            assert math.isfinite(f.hi) or parameters.COST_FREE in info["help"], (
                f"{chapter}: {name} {f} has no finite limit"
            )


@pytest.mark.parametrize("profile", P.PROFILES)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_profile_values_and_defaults_lie_in_their_domains(chapter, profile):
    declared, values = P.checked_parameters(ROOT, chapter, profile, {})
    defaults = {n: P._default_value(i) for n, i in declared.items()}
    P.check_parameters(chapter, declared, defaults, "defaults")
    P.check_parameters(chapter, declared, values, profile)


def _accepted_and_inside(chapter, name, value):
    """An independent reading of the declared domain: numbers within the range's bounds, text among
    the choices, lists element by element."""
    info = DECLARED[chapter][name]
    dom, default = info["domain"], P._default_value(info)
    if dom is None:
        return type(value) is bool
    if dom.free:
        return isinstance(value, str)
    if dom.length is not None and not (
        isinstance(value, list) and dom.length.lo <= len(value) <= dom.length.hi
    ):
        return False
    leaves = []

    def walk(v, d):
        if d == 0:
            leaves.extend(zip(v, dom.factors) if len(dom.factors) > 1 else [(v, dom.factors[0])])
        else:
            for e in v:
                walk(e, d - 1)

    walk(value, dom.depth - (len(dom.factors) > 1))
    for v, f in leaves:
        if isinstance(f, parameters.Choices):
            if v not in f.items:
                return False
        elif not (
            isinstance(v, (int, float))
            and not isinstance(v, bool)
            and (f.lo < v or (f.lo_closed and f.lo == v))
            and (v < f.hi or (f.hi_closed and v == f.hi))
        ):
            return False
    return isinstance(value, list) == isinstance(default, list)


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
    chapter, name = target
    try:
        value = P._overrides([(name, raw)])[name]
        P.check_parameters(chapter, DECLARED[chapter], {name: value}, "-p")
    except P.ParameterError as exc:
        assert "\n" not in str(exc) and repr(name) in str(exc)
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
