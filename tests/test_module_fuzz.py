"""Every public function of the library below the public API, fuzzed with hostile arguments.

The functions are discovered, not listed: every module of gspa.privacy, gspa.claims, gspa.experiments
and gspa.util is walked and each function without a leading underscore defined there is called, as
are the public methods of the objects that the library hands out (ReducedPair, LowerBound, ...).
The study helpers (gspa.studies, called only by the book's notebooks, whose parameters are checked
against their declared domains before a chapter runs) are not fuzzed: their tests check what they
compute. Each parameter is drawn from a valid value (from ``VALID``, keyed by parameter name, or the
function's default) or a hostile one (NaN, infinities, zero, negatives, 10**9 and 10**30, booleans,
tiny floats, strings, None, an empty array). The property, as the project's standard states it:

* the call returns a result holding no NaN (numbers, arrays, tuples, dicts, dataclasses, frames,
  looked at recursively), or raises ``ValueError``; any other exception fails the test, in particular
  MemoryError, OverflowError, ZeroDivisionError, IndexError, KeyError, AttributeError and
  FloatingPointError, and warnings are errors;
* a value that no parameter accepts (NaN, a boolean or a string for a number, None where there is
  no default None, a negative or fractional size or count, a probability outside [0, 1]) is refused;
* no call needs more than about 3 GiB of address space (the limit is raised around each call only,
  so an allocation of a huge size fails at once instead of swapping) or more than 60 s (a generous
  alarm, for a call that would hang: sizes must be refused before any work is done).

``ALLOWED`` lists, with a reason each, the few functions the fuzz cannot call meaningfully (they take
trained models, files, callables or whole data sets); ``test_every_function_is_fuzzed_or_listed``
keeps that list honest.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import pkgutil
import resource
import signal
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PACKAGES = ("gspa.privacy", "gspa.claims", "gspa.experiments", "gspa.util")
EXAMPLES = 12  # Hypothesis draws per function, after the one-hostile-parameter sweep
CALL_SECONDS = 60  # a call taking longer is a hang (generous: the machine is loaded)
EXTRA_MEMORY = 3 << 30  # bytes of address space a call may add

# Functions (qualified names) the fuzz does not call, with the reason.
ALLOWED = {
    # argument checks themselves: they take a parameter *name* and raise by design
    "gspa.util.validate.*": "the validators; tests/test_validation.py covers them",
    "gspa.util.atomic.*": "write files at a path given by the caller",
    "gspa.util.fingerprint.*": "digests of source files and installed packages "
    "(tests/book/test_freshness.py)",
    "gspa.claims.table.package_table": "imports the modules of a named package "
    "(tests/claims/test_table.py)",
    # need whole data sets, trained models, files or worker pools
    "gspa.experiments.mnist.*": "read or download MNIST files (tests/experiments/test_mnist.py)",
    "gspa.experiments.pool.*": "run callables in worker processes",
    "gspa.claims.domain.worst_case": "searches a margin callable over a ClaimDomain "
    "(tests/claims/test_domain.py)",
    "gspa.claims.rules.over_domain": "takes a Verdict, a ClaimDomain and a Search "
    "(tests/claims/test_rules.py)",
    "gspa.experiments.federated.*": "torch tensors of a federated data set (tests/experiments)",
    "gspa.experiments.devices.rand": "takes a torch generator (tests/experiments/test_devices.py)",
    "gspa.experiments.devices.randn": "takes a torch generator (tests/experiments/test_devices.py)",
    "gspa.privacy.peers.published.*": "take no argument (or a round count) and check published numbers",
    "gspa.privacy.numerics.halves": "applies a caller's elementwise function (a callable) to arrays on two threads",
    "gspa.privacy.numerics.invert": "inverts a caller's delta function (a callable); tests/privacy/test_accountant.py",
    "gspa.privacy.numerics.binomial_sf": "the certified bounds' inner binomial tail on arrays of counts, called by "
    "the pairs with validated counts; against 30-digit mpmath in "
    "tests/privacy/test_accountant.py",
    "gspa.privacy.numerics.hockey_upper": "the binomial pair's hockey-stick bound on arrays of counts, called by the "
    "pairs with validated arguments; against 40-digit mpmath in "
    "tests/privacy/test_mutant_killers.py",
    "gspa.privacy.numerics.binomial_sf_many": "binomial_sf with each distinct pair computed once, on arrays of "
    "counts from the pairs; against binomial_sf bit for bit in tests/privacy/test_numerics.py",
    "gspa.privacy.numerics.hockey_cells": "hockey_upper for many cells of KaryPair (validated counts and log-odds); "
    "against 40-digit mpmath in tests/privacy/test_mutant_killers.py and against hockey_upper in "
    "tests/privacy/test_numerics.py",
    "gspa.privacy.numerics.cell_thresholds": "hockey_cells' threshold, for KaryPair's table of tails (validated "
    "arguments); tests/privacy/test_numerics.py",
    "gspa.privacy.shuffle.lower.bracket_terms": "the bracket of Wang et al.'s pair on arrays of counts, called by "
    "KaryLowerBound and VariationRatioPair with validated arguments "
    "(tests/privacy/test_variation.py)",
    "gspa.util.imports.*": "read Python source text and the files under a root the caller names "
    "(tests/book/test_pipeline.py)",
    "gspa.util.yamlread.*": "parses YAML text: every string is valid input; anything else is refused "
    "(tests/util/test_yamlread.py)",
}

# Valid values by parameter name; a function's default is used where the name is not listed.
EPS_VEC = [np.array([0.5, 1.0, 2.0]), np.array([0.1, 0.1, 0.1, 0.1])]
VALID = {
    "eps": [0.5, 1.0],
    "eps0": [0.5, 1.0],
    "eps_l": [0.5, 1.0],
    "eps_i": [0.5],
    "eps_n": [1.0],
    "eps_j": [1.0],
    "eps_others": [np.array([0.5, 1.0])],
    "eps_grid": [np.array([0.0, 0.5, 1.0])],
    "delta": [1e-6, 1e-3],
    "delta0": [1e-6],
    "delta_i": [1e-3],
    "delta_slack": [1e-6],
    "delta_prime": [1e-6],
    "delta1": [1e-3],
    "delta_n": [0.0],
    "mu": [0.5, 1.0],
    "mus": [[0.5, 1.0]],
    "alpha": [0.1, np.array([0.0, 0.3, 1.0])],
    "n": [10, 100],
    "k": [2, 3],
    "m": [5, 10],
    "b": [2, 3],
    "T": [2],
    "t": [2],
    "rounds": [1, 2],
    "reps": [20],
    "nodes": [16, 64],
    "beta": [0.1, 0.5],
    "gamma": [0.5],
    "q": [0.1, 0.5],
    "count": [5],
    "prob": [0.3],
    "seed": [0, 1],
    "rng": [np.random.default_rng(0)],
    "size": [None, 3],
    "x": [None],
    "clone_prob": [np.array([0.2, 0.3, 0.1])],
    "counts": [None],
    "values": [None],
    "sigma": [1.0],
    "sensitivity": [1.0],
    "width": [6.0],
    "bins": [20],
    "points": [2001],
    "grid": [201],
    "tol": [1e-12],
    "steps": [6],
    "n_values": [[100, 1000]],
    "k_values": [[4, 8]],
    "eps_max": [4.0],
    "n_inputs": [3],
    "n_outputs": [4],
    "spread": [1.0],
    "zero_prob": [0.2],
    "c": [0.7],
    "total": [5.0],
    "delta_nodes": [np.array([0.5, 0.1, 0.0])],
    "eps_nodes": [np.array([0.0, 1.0, 3.0])],
    "inputs": [[0.0, 1.0]],
    "edges": [np.array([-np.inf, 0.0, 0.5, 1.0, np.inf])],
}
VALID.update(
    {
        "version": ["flame", "bbgn19"],
        "randomizer": ["binary-rr"],
        "rows": [np.array([[0.5, 0.5], [0.3, 0.7]])],
        "R": [np.array([[0.6, 0.4], [0.3, 0.7]])],
        "R0": [np.array([0.6, 0.4])],
        "R1": [np.array([0.3, 0.7])],
        "Rx": [np.array([0.5, 0.5])],
        "Q0": [np.array([1.0, 0.0])],
        "Q1": [np.array([0.0, 1.0])],
        "H": [lambda m: np.exp(-np.asarray(m, float) / 10)],
        "H_lower": [lambda m: np.exp(-np.asarray(m, float) / 10)],
        "f": [lambda a: 1.0 - np.asarray(a)],
        "g": [lambda a: 1.0 - np.asarray(a)],
        "tradeoff": [lambda a: 1.0 - np.asarray(a)],
        "thresholds": [np.array([-1.0, 0.0, 1.0])],
        "phi": [np.array([1.0, 0.0, 0.5])],
        "x_others": [np.array([0, 1, 1])],
        "y": [np.array([1.0, 0.5, 0.25])],
        "v": [np.array([0.5, 0.7, -0.1])],
        "kind": ["mean", "frequency"],
        "others": ["zeros", "alternating"],
    }
)

# Values that differ from the table for one module or function (qualified-name prefix -> values).
PMF = [np.array([0.5, 0.3, 0.2]), np.array([1.0, 0.0, 0.0])]
OVERRIDES = {
    "gspa.privacy.peers.eon": {
        "u": [0.0, 1.0],
        "C": [1.0],
        "n": [100],
        "eps_d": [2.0],
        "eps_o": [0.5],
        "t_grid": [np.array([0.0, 0.5])],
        "thresholds": [20],
        "dps": [20],
        "seed": [0],
    },
    "gspa.claims.rules.finding_kind": {"kind": ["numerical"], "status": ["reproduced"]},
    "gspa.privacy.exact.enumeration.krr_row": {"x": [0, 1]},
    "gspa.privacy.peers.variation": {
        "k": [3, 4],
        "randomizer": ["k-rr", "binary-rr"],
    },
    "gspa.privacy.peers.variation_scale": {
        "n": [3, 1000],
        "k": [3, 4],
        "eps0": [1.0, 5.0],
        "e": [0.5],
        "points": [8],
    },
    "gspa.privacy.exact.enumeration.matrix_profile": {"n": [2, 3]},
    "gspa.privacy.exact.enumeration.hockey_both": {
        "P": PMF,
        "Q": [np.array([0.2, 0.3, 0.5])],
        "eps": [np.array([0.0, 0.5, 2.0])],
    },
    "gspa.privacy.exact.peers": {
        "n": [2, 3],
        "k": [3, 4],
        "e": [0.5, np.array([0.1, 0.5])],
        "inputs": [3],
        "outputs": [3, 4],
    },
    "gspa.privacy.randomizers.get": {"name": ["binary-rr", "k-rr"]},
    "gspa.privacy.basics.hypothesis": {"p": PMF, "q": [np.array([0.2, 0.3, 0.5])]},
    "gspa.privacy.exact.enumeration.shuffled_profile": {"eps": EPS_VEC},
    "gspa.privacy.exact.enumeration.compare_with_truth": {"eps": EPS_VEC},
    "gspa.privacy.exact.enumeration.bracket_check": {"eps": EPS_VEC},
    "gspa.privacy.exact.enumeration.theorem1_pair_profile": {
        "eps": EPS_VEC,
        "delta": [np.zeros(3)],
    },
    "gspa.privacy.shuffle.accountant.personalized_pair": {"eps": EPS_VEC},
    "gspa.privacy.shuffle.cells": {
        "eps": EPS_VEC,
        "victim_flip": [0.1, 0.0],
        "levels": [None, [0.5, 1.0]],
        "cells": [1, 8],
        "variant": ["randomized", "revealing"],
    },
    "gspa.privacy.shuffle.lower.lower_bound": {"eps": EPS_VEC, "delta": [None]},
    "gspa.privacy.profiles.check_budgets": {"eps": EPS_VEC},
    "gspa.privacy.shuffle.pairs.clone_probability": {"eps": EPS_VEC},
    "gspa.privacy.profiles.check_histogram": {
        "eps": EPS_VEC,
        "delta": [np.zeros(3), None],
        "counts": [np.array([1, 2, 3])],
    },
    "gspa.privacy.shuffle.protocol": {"x": [np.array([0, 1, 1])], "eps": EPS_VEC},
    "gspa.privacy.interop.dpaccounting": {
        "p": PMF,
        "q": [np.array([0.2, 0.3, 0.5])],
        "P0": PMF,
        "P1": [np.array([0.2, 0.3, 0.5])],
        "discretization": [1e-3],
        "value_discretization_interval": [1e-3, 1e-4],
    },
}

HOSTILE = [
    math.nan,
    math.inf,
    -math.inf,
    0,
    -1,
    -0.5,
    10**9,
    10**30,
    True,
    False,
    1e-300,
    1e308,
    "bogus",
    "0.5",
    None,
    np.array([]),
    np.array([0.5, math.nan]),
]
# Names of parameters that are counts or sizes: a fraction, a negative or a non-number is invalid.
INTEGER_NAMES = {
    "n",
    "k",
    "m",
    "b",
    "T",
    "t",
    "rounds",
    "reps",
    "nodes",
    "count",
    "bins",
    "points",
    "grid",
    "steps",
    "n_inputs",
    "n_outputs",
}
# Budgets, deltas, probabilities: a negative value is invalid (probabilities also above 1).
NONNEGATIVE_PREFIXES = ("eps", "delta", "mu", "alpha", "beta", "sigma", "q", "prob")
PROBABILITY_NAMES = {"alpha", "beta", "q", "prob", "gamma"}


def _qualname(fn) -> str:
    return f"{fn.__module__}.{fn.__qualname__}"


def _allowed(name: str):
    for pattern, reason in ALLOWED.items():
        if name == pattern or (pattern.endswith(".*") and name.startswith(pattern[:-1])):
            return reason
    return None


def _factories():
    """Objects whose public methods take user values, built from valid arguments."""
    from gspa.privacy.shuffle import accountant as A
    from gspa.privacy.shuffle import lower as LB
    from gspa.privacy.shuffle import pairs as PAIRS
    from gspa.privacy.peers import blanket as B
    from gspa.privacy.shuffle import clones as C
    from gspa.privacy.basics import subsampling as S
    from gspa.privacy.shuffle.composition import compose

    pair = PAIRS.fmt21_pair(0.5, 100)
    VALID.update(
        bound=[pair],
        upper=[pair],
        lower=[LB.lower_bound(np.array([0.5, 1.0]))],
        base=[pair],
        pair=[pair, compose(pair, 2)],
    )
    OVERRIDES["gspa.privacy.shuffle.clones.convolve"] = {
        "p": [C.binomial_part(5, 0.3)],
        "q": [C.binomial_part(4, 0.5)],
    }
    OVERRIDES["gspa.privacy.shuffle.cells"]["Z"] = [C.binomial_part(20, 0.3)]
    return {
        "ReducedPair": lambda: pair,
        "LowerBound": lambda: LB.lower_bound(np.array([0.5, 1.0, 2.0])),
        "WorstOf": lambda: A.personalized_pair(np.array([0.5, 1.0, 2.0]), reduction="clones"),
        "BlanketPair": lambda: B.blanket_pair(1.0, 2, 100),
        "Subsampled": lambda: S.subsampled_pair(pair, 10, 100),
        "CloneLaw": lambda: C.clone_law(np.full(20, 0.2)),
    }


def discover():
    """(qualified name, callable) for every public function and factory-made public method."""
    found = {}
    factories = _factories()
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            module = importlib.import_module(info.name)
            for name, obj in vars(module).items():
                if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                    continue
                if inspect.isfunction(obj):
                    found[_qualname(obj)] = obj
                elif inspect.isclass(obj) and name in factories:
                    instance = factories[name]()
                    for meth, raw in vars(obj).items():
                        if (
                            not meth.startswith("_")
                            and inspect.isfunction(raw)
                            and len(inspect.signature(raw).parameters) > 1
                        ):
                            found[f"{module.__name__}.{name}.{meth}"] = getattr(instance, meth)
    return found


FUNCTIONS = discover()


def valid_values(qualname, param):
    for prefix in sorted(OVERRIDES, key=len, reverse=True):  # the most specific entry first
        if (qualname == prefix or qualname.startswith(prefix + ".")) and param.name in OVERRIDES[
            prefix
        ]:
            return OVERRIDES[prefix][param.name]
    if param.name in VALID:
        return VALID[param.name]
    if param.default is not inspect.Parameter.empty:
        return [param.default]
    return None


def plan(qualname, fn):
    """{parameter: valid values} for the parameters a call passes, or None if one has none."""
    out = {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        values = valid_values(qualname, p)
        if values is None:
            return None
        out[p.name] = (values, p.default)
    return out


FUZZED = sorted(q for q, f in FUNCTIONS.items() if not _allowed(q) and plan(q, f) is not None)


def test_every_function_is_fuzzed_or_listed():
    unplanned = [q for q, f in FUNCTIONS.items() if not _allowed(q) and plan(q, f) is None]
    assert not unplanned, f"give these parameters valid values in VALID or OVERRIDES: {unplanned}"
    assert len(FUZZED) >= 60, len(FUZZED)


def invalid_reason(name, value, valid, default):
    """Why ``value`` is not acceptable for parameter ``name`` (None if it may be)."""
    valid_types = {type(v) for v in valid} | {type(default)}
    if isinstance(value, str):
        return None if str in valid_types and value in valid + [default] else "a string"
    if value is None:
        return None if type(None) in valid_types else "None"
    if isinstance(value, (bool, np.bool_)):
        return None if bool in valid_types else "a boolean"
    if isinstance(value, np.ndarray):
        return "an array holding NaN" if np.isnan(value).any() else None
    if not isinstance(value, (int, float)):
        return None
    if math.isnan(value):
        return "NaN"
    if name in INTEGER_NAMES and (not float(value).is_integer() or value < 0):
        return "a count that is negative or not an integer"
    if name.startswith(NONNEGATIVE_PREFIXES) and value < 0:
        return "a negative budget or probability"
    if (
        name in PROBABILITY_NAMES
        and value > 1
        and not any(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v > 1 for v in valid
        )
    ):
        return "a probability above 1"  # unless the function's valid values say it is not a probability
    return None


def has_nan(obj, depth=0) -> bool:
    if depth > 6:
        return False
    if isinstance(obj, (float, np.floating)):
        return math.isnan(obj)
    if isinstance(obj, complex):
        return math.isnan(obj.real) or math.isnan(obj.imag)
    if isinstance(obj, np.ndarray):
        return obj.dtype.kind in "fc" and bool(np.isnan(obj).any())
    if isinstance(obj, dict):
        return any(has_nan(v, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(has_nan(v, depth + 1) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return any(has_nan(getattr(obj, f.name), depth + 1) for f in dataclasses.fields(obj))
    if hasattr(obj, "select_dtypes"):  # a pandas frame
        return bool(obj.select_dtypes("number").isna().to_numpy().any())
    return False


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"call took more than {CALL_SECONDS} s")


def guarded_call(fn, kwargs):
    """Call with warnings as errors, an address-space limit and a generous alarm."""
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * resource.getpagesize()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = vm + EXTRA_MEMORY
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    old = signal.signal(signal.SIGALRM, _alarm)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    signal.alarm(CALL_SECONDS)
    try:
        with warnings.catch_warnings(), np.errstate(all="warn", under="ignore"):
            warnings.simplefilter("error")
            return fn(**kwargs)
    finally:
        signal.alarm(0)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, old)


def classify(fn, plan_, kwargs):
    """None if the call behaves, else (kind, message): kind is crash, nan or accepted."""
    try:
        result = guarded_call(fn, kwargs)
    except ValueError:
        return None
    except Exception as e:  # noqa: BLE001 - any other exception is the failure being looked for
        return "crash", f"{type(e).__name__}: {str(e)[:200]}"
    if has_nan(result):
        return "nan", "result holds NaN"
    for name, value in kwargs.items():
        valid, default = plan_[name]
        why = invalid_reason(name, value, list(valid), default)
        if why:
            return "accepted", f"{name}={value!r} ({why}) was accepted"
    return None


def one_hostile(plan_):
    """Every call with one parameter hostile and the others at their first valid value."""
    base = {name: valid[0] for name, (valid, _default) in plan_.items()}
    for name in plan_:
        for value in HOSTILE:
            yield {**base, name: value}


def arguments(plan_):
    return st.fixed_dictionaries(
        {
            name: st.one_of(st.sampled_from(list(valid)), st.sampled_from(HOSTILE))
            for name, (valid, _default) in plan_.items()
        }
    )


@pytest.mark.parametrize("qualname", FUZZED)
def test_function_refuses_bad_input(qualname):
    fn = FUNCTIONS[qualname]
    plan_ = plan(qualname, fn)
    failures = [(kwargs, f) for kwargs in one_hostile(plan_) if (f := classify(fn, plan_, kwargs))]
    assert not failures, "\n".join(f"{qualname}({kw}): {f[0]}: {f[1]}" for kw, f in failures[:5])

    # then hostile values mixed with valid ones, drawn by Hypothesis
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(arguments(plan_))
    def check(kwargs):
        failure = classify(fn, plan_, kwargs)
        assert failure is None, f"{qualname}({kwargs}): {failure[0]}: {failure[1]}"

    check()
