"""Argument checks shared by every gspa module.

Bad input never yields a silent NaN or a wrong number: each check raises a ``ValueError`` that
names the parameter, the offending value and the allowed range.
"""

from __future__ import annotations

import numpy as np


def _describe(value) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return repr(arr.item())
    return f"array of shape {arr.shape}"


def _first_bad(arr: np.ndarray, bad: np.ndarray):
    idx = np.flatnonzero(bad.ravel())[0]
    return arr.ravel()[idx].item()


def _text(value) -> bool:
    """Whether ``value`` is or holds text (str or bytes, also inside a list, tuple or array), which numpy
    would otherwise convert to numbers ("0.5" -> 0.5)."""
    if isinstance(value, (str, bytes, np.str_, np.bytes_)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "SU" or (
            value.dtype.kind == "O" and any(_text(v) for v in value.ravel())
        )
    if isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):  # ragged: look inside
            return any(_text(v) for v in value)
        return _text(arr)
    return False


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def real(
    name: str,
    value,
    *,
    low=-np.inf,
    high=np.inf,
    low_open=False,
    high_open=False,
    scalar=False,
    ndim=None,
    max_size=None,
):
    """Return ``value`` as a float array after checking ``low <= value <= high`` (ends optionally open).

    NaN, booleans, text (also numeric strings such as ``"0.5"``, alone or in a list) and None are always
    rejected. The returned array has the shape of
    ``value`` (0-d for scalars); with ``scalar=True`` a single number is required and returned as a
    float; ``ndim`` requires that many dimensions and at least one element; ``max_size`` caps the
    number of elements."""
    if (
        isinstance(value, (bool, np.bool_))
        or (isinstance(value, np.ndarray) and value.dtype == bool)
        or (
            isinstance(value, (list, tuple)) and any(isinstance(v, (bool, np.bool_)) for v in value)
        )
    ):
        raise ValueError(f"{name} must be a real number, got a boolean ({value!r})")
    if _text(value):
        raise ValueError(
            f"{name} must be a real number, got text ({_short(value)}); pass numbers, not strings"
        )
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if scalar and arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got {_describe(value)}")
    if ndim is not None and (arr.ndim != ndim or arr.size == 0):
        raise ValueError(f"{name} must be a non-empty {ndim}-d array, got {_describe(value)}")
    if max_size is not None and arr.size > max_size:
        raise ValueError(f"{name} may hold at most {max_size} numbers, got {_describe(value)}")
    lo_br = "(" if low_open else "["
    hi_br = ")" if high_open else "]"
    allowed = f"{lo_br}{low:g}, {high:g}{hi_br}"
    nan = np.isnan(arr)
    if nan.any():
        raise ValueError(f"{name} must be a number in {allowed}, got NaN ({_describe(value)})")
    bad = (arr <= low) if low_open else (arr < low)
    bad |= (arr >= high) if high_open else (arr > high)
    if bad.any():
        raise ValueError(
            f"{name} must lie in {allowed}, got {_first_bad(arr, bad)!r}"
            + ("" if arr.ndim == 0 else f" (in {_describe(value)})")
        )
    return float(arr) if scalar else arr


def probability(name: str, value, *, open_low=False, open_high=False, **kw):
    """A probability in [0, 1] (ends optionally open); other options as for :func:`real`."""
    return real(name, value, low=0.0, high=1.0, low_open=open_low, high_open=open_high, **kw)


def nonnegative(name: str, value, *, scalar=False):
    return real(name, value, low=0.0, scalar=scalar)


def positive(name: str, value, *, scalar=False):
    return real(name, value, low=0.0, low_open=True, scalar=scalar)


def integer(name: str, value, *, low=None, high=None) -> int:
    """A Python int with optional inclusive bounds."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value}")
    return value


def finite(name: str, value, *, low=-np.inf, high=np.inf, **kw):
    """:func:`real` in ``[low, high]`` with infinities refused even when an end is infinite."""
    arr = real(name, value, low=low, high=high, **kw)
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            f"{name} must be finite, got {_first_bad(np.asarray(arr), ~np.isfinite(arr))!r}"
        )
    return arr


def generator(name: str, value) -> np.random.Generator:
    """A ``numpy.random.Generator`` (``numpy.random.default_rng(seed)``)."""
    if not isinstance(value, np.random.Generator):
        raise ValueError(f"{name} must be a numpy.random.Generator, got {value!r}")
    return value


def function(name: str, value):
    """A callable."""
    if not callable(value):
        raise ValueError(f"{name} must be a function, got {value!r}")
    return value


def boolean(name: str, value) -> bool:
    """True or False (a Python or numpy boolean; 0, 1, strings and None refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def choice(name: str, value, allowed):
    """One of ``allowed`` (strings or other hashable values)."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")
    return value


def same_length(**arrays):
    """Check that the named 1-d arrays have equal lengths."""
    lengths = {k: np.asarray(v).shape for k, v in arrays.items()}
    if len({s for s in lengths.values()}) > 1:
        desc = ", ".join(f"{k} has shape {s}" for k, s in lengths.items())
        raise ValueError(f"arrays must have the same length: {desc}")
