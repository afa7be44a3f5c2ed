"""``gspa account``: certified privacy of the shuffle model from the command line.

Reads per-user local budgets εᵢ (a file, or one of the paper's Table 2 scenarios), says what it read
("read 4 lines of b.txt (one budget per line) → 4 users, 2 distinct budgets in [0.5, 1.0]"), and
prints, for the shuffle of the n users' reports:

* the certified upper bound (:func:`gspa.privacy.shuffle.accountant.personalized_pair`; the randomizer, the
  variant and the local δᵢ as given: for binary randomized response and Lemma 4's quaternary randomizer the
  worst case over the data bounded by cells, :mod:`gspa.privacy.shuffle.cells`, with Theorem 1's clone pair
  beside it); the certified
  lower bound where one exists (binary and k-ary randomized response, the quaternary randomizer: explicit
  neighbouring data sets; Laplace: its reports thresholded at 1/2, counted in a window, with several budgets
  scored and summed, and with one budget finely binned, the other users at 0, :func:`gspa.privacy.shuffle.lower.lower_bound`), so the true value is bracketed;
* Theorem 2's approximation of the GSPA paper (approximately μ-GDP: *not* a bound), for comparison;
* with ``--rounds T``: every bound composed over T runs on the same data (:mod:`gspa.privacy.shuffle.composition`),
  beside Theorem 5's √T·μ and advanced composition of the one-round bound;
* the published bounds whose conditions hold, with ε₀ = maxᵢ εᵢ (:mod:`gspa.privacy.peers.baselines` and
  FMT21's numerical bound): they assume one randomizer for every user, so they are shown for a common
  budget and for binary randomized response (whose clone components are the same two point masses
  whatever a user's budget, with clone probability 1/(1+e^{εᵢ}) ≥ e^{−ε₀}/2), and marked not applicable
  otherwise.

The table shows 6 significant digits rounded *up* for upper bounds and *down* for lower bounds (to
nearest for approximations), so a printed bound is still a bound. A δ upper bound below 1e-300 is shown
as ``< 1e-300``: the accountant adds 2⁻¹⁰²⁰ ≈ 8.9e-308 for terms that underflow, so it resolves nothing
smaller. ``--json`` gives the exact doubles; every row has a ``reason`` (null when none) and ``read``
says what was read. A value that is not a finite number is null (``—`` in the table) with a reason:
"no finite ε at this δ" when the certified lower bound is infinite too, or "below the bound's
resolution floor" when only the bound cannot resolve so small a δ.

**Budget files** are read strictly; whatever is not one of these forms is refused, never guessed at.

* ``.npy``: a non-empty 1-d numeric array, one user per element.
* Text, UTF-8 (a byte-order mark is refused: save the file without it). Lines end in LF or CRLF. Blank
  lines and lines whose first non-blank character is ``#`` are skipped. Fields are separated by commas
  (CSV quoting allowed); spaces and tabs around a field are ignored. Then one of:

  - one budget per line;
  - a histogram, ``value,count`` per line (``count`` users with budget ``value``), declared by a first
    line ``value,count`` or by ``--histogram``; a two-field line is refused otherwise (``0,5`` is not
    read as a decimal comma nor as a histogram unless declared);
  - a CSV with a header line and ``--column NAME`` (the header is then required);
  - a single-column header line such as ``eps`` before one budget per line. Without ``--column`` a first
    line is a header only if every field is a name: ASCII letters, digits, ``_`` and inner spaces,
    starting with a letter or ``_`` (``[A-Za-z_][A-Za-z0-9_ ]*``), not ``inf``, ``infinity`` or ``nan``
    in any case, and not a mistyped number — still not a number when the look-alike letters ``O o`` are
    read as 0 and ``I l`` as 1 (``1O``, ``O``, ``l0`` are refused; name such a column with ``--column``).

* A budget is ASCII plain decimal or scientific notation, ``[+-]?(D+(.D*)?|.D+)([eE][+-]?D+)?`` with D a
  digit 0-9 (``0.5``, ``2``, ``.5``, ``1e-3``); it is read as the nearest double and must lie in [0, 10⁶]
  (``MAX_BUDGET``, the range the README states; ``1e7`` and ``1e400`` are refused; a nonzero budget that
  underflows to 0, such as ``1e-400``, is refused). Budgets from about 745 up, where the flip probability
  1/(1 + e^ε) underflows to 0, are handled: the cells bound's default levels are at most 700
  (``gspa.privacy.shuffle.cells.LEVEL_MAX``; any level gives a valid bound).
  Hexadecimal, ``_``, ``inf``, ``nan``, a Unicode minus, a decimal comma, ``0.5.1`` and spaces inside a
  number are refused.
* A count is decimal digits only, from 1 to 10¹² (``MAX_USERS``), and the users of a file add up (exactly)
  to at most 10¹²: beyond that the accountant's memory grows past what one machine has (10¹³ users at
  two budgets took 2.6 GB, 10¹⁵ took 21 GB). ``--scenario`` draws at most 10⁸ users (``MAX_DRAWN``).

A refused file gets a message naming the file, the line and the text found (as a Python string
literal), and exit status 2; so does a path that is a directory, a FIFO or another non-regular file, or a
broken symbolic link (each said as such), and an empty ``--budgets ''``.

**Options** are checked where they are read, each refusal naming the option: ``--delta`` in [1e-300, 1)
(``DELTA_MIN``: the bounds resolve no smaller δ, and the published bounds' log(4/δ) overflows below
about 2e-308), ``--eps`` in [0, 1.8e308], ``--delta-i`` in [0, 1), ``--n`` in [2, 10⁸], ``--seed`` a
whole number >= 0, ``--k`` >= 2; ``--n`` and ``--seed`` (which draw a ``--scenario``) are refused with
``--budgets``.
"""

from __future__ import annotations

import argparse
import codecs
import csv
import difflib
import json
import os
import re
import sys
import unicodedata
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import NamedTuple

import numpy as np

MAX_USERS = 10**12  # users of a budget file (see the module docstring)
MAX_DRAWN = 10**8  # users drawn for --scenario
MAX_BUDGET = 1e6  # the largest budget read (README: "Budgets up to ε = 10⁶ are handled")
DELTA_MIN = 1e-300  # the smallest --delta: the bounds resolve no smaller δ (see DELTA_SHOWN)
DELTA_SHOWN = 1e-300  # smaller δ upper bounds are printed as "< 1e-300"
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
PLAIN_LINE = re.compile(
    rf"^[ \t]*(?:({NUMBER.pattern})[ \t]*|#.*)?\r?$", re.M
)  # a number, blank or comment
COUNT = re.compile(r"[0-9]+")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_ ]*")
LOOKALIKES = str.maketrans("OoIl", "0011")
NUMBER_HELP = "accepted: ASCII decimal or scientific notation such as 0.5, 2, .5, 1e-3"


class InputError(ValueError):
    """A budget file or option that cannot be used; the message names the file and line."""


class Budgets(NamedTuple):
    """What a budget source holds: ``values[j]`` is the budget of ``counts[j]`` users; ``read``
    describes the source (``source``, ``format``, and ``lines``, ``elements`` or ``seed``)."""

    values: np.ndarray
    counts: np.ndarray
    read: dict


def _foreign(text: str) -> str:
    """', contains U+2212 (MINUS SIGN)' for the first character outside printable ASCII, else ''."""
    odd = next((c for c in text if not " " <= c <= "~"), None)
    return (
        ""
        if odd is None
        else f"; it contains U+{ord(odd):04X} ({unicodedata.name(odd, 'a control character')})"
    )


def number(text: str, where: str, what: str = "budget", high: float = MAX_BUDGET) -> float:
    """The double nearest to ``text``, which must be ASCII decimal or scientific notation, finite,
    >= 0 (a nonzero number that underflows to 0 is refused) and at most ``high``."""
    s = text.strip(" \t")
    if not NUMBER.fullmatch(s):
        raise InputError(
            f"{where}: {what} {text!r} is not a number ({NUMBER_HELP}){_foreign(text)}"
        )
    v = float(s) + 0.0  # -0 is 0
    if v < 0:
        raise InputError(f"{where}: {what} {s!r} is negative (allowed: [0, 1.8e308])")
    if v == float("inf"):
        raise InputError(f"{where}: {what} {s!r} is too large for a double (allowed: [0, 1.8e308])")
    if v == 0 and re.search("[1-9]", re.split("[eE]", s)[0]):
        raise InputError(
            f"{where}: {what} {s!r} underflows to 0 in double precision (smallest: 5e-324); "
            "write 0 if 0 is meant"
        )
    if v > high:
        raise InputError(
            f"{where}: {what} {s!r} is above the supported range (allowed: [0, {high:g}])"
        )
    return v


def _count(text: str, where: str) -> int:
    s = text.strip(" \t")
    if not COUNT.fullmatch(s):
        raise InputError(
            f"{where}: count {text!r} is not a whole number (decimal digits only, such as 40)"
            + _foreign(text)
        )
    if len(s.lstrip("0")) > len(str(MAX_USERS)) or not 1 <= int(s) <= MAX_USERS:
        raise InputError(f"{where}: count {s} is out of range (allowed: [1, {MAX_USERS:,}])")
    return int(s)


def is_name(cell: str) -> bool:
    """Whether ``cell`` can be a header field without --column (see the module docstring)."""
    s = cell.strip(" \t")
    return (
        bool(NAME.fullmatch(s))
        and s.lower() not in ("inf", "infinity", "nan")
        and not NUMBER.fullmatch(s.translate(LOOKALIKES))
    )


def _text(path: Path) -> str:
    """The text of a UTF-8 file without a byte-order mark."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if raw.startswith(codecs.BOM_UTF8):
        raise InputError(
            f"{path}, line 1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF); "
            "save it as UTF-8 without a byte-order mark"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        lineno = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{path}, line {lineno}: not UTF-8 text (byte 0x{raw[exc.start]:02x}); "
            "use .npy for binary arrays"
        ) from None
    return text


def _plain(text: str) -> np.ndarray | None:
    """The budgets of a text of one budget per line without a header, parsed by C-level regular
    expressions and numpy; None if any line or value is anything else (:func:`_lines` and :func:`number`
    then name it). Accepts exactly what they accept, with the same values (tests/cli/test_reading.py)."""
    found = PLAIN_LINE.findall(text)
    cells = [c for c in found if c]
    if len(found) != text.count("\n") + 1 or not cells:
        return None
    v = np.array(cells, dtype=float) + 0.0
    if np.any((v < 0) | (v > MAX_BUDGET)) or any(
        re.search("[1-9]", re.split("[eE]", cells[i])[0]) for i in np.flatnonzero(v == 0)
    ):
        return None
    return v


def _lines(path: Path, text: str):
    """(line number, fields) of the data and header lines of a text file."""
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line[:-1] if line.endswith("\r") else line
        if not line.strip(" \t") or line.lstrip(" \t").startswith("#"):
            continue
        try:
            cells = next(csv.reader([line], strict=True))
        except csv.Error as exc:
            raise InputError(
                f"{path}, line {lineno}: {line!r} is not a line of comma-separated fields "
                f"({str(exc).split(' - ')[0]})"
            ) from None
        yield lineno, cells


def _npy(path: Path) -> Budgets:
    try:
        a = np.load(path, allow_pickle=False)
    except (ValueError, OSError) as exc:
        raise InputError(f"{path}: not a readable .npy array ({exc})") from None
    if a.ndim != 1 or a.size == 0 or a.dtype.kind not in "fiu":
        raise InputError(
            f"{path}: needs a non-empty 1-d numeric array, got shape {a.shape} of {a.dtype}"
        )
    a = a.astype(float)
    bad = np.flatnonzero(~np.isfinite(a) | (a < 0) | (a > MAX_BUDGET))
    if bad.size:
        raise InputError(
            f"{path}: element {bad[0]} is {float(a[bad[0]])!r}; budgets must lie in [0, {MAX_BUDGET:g}]"
        )
    return Budgets(
        a + 0.0,
        np.ones(a.size, dtype=np.int64),
        {"source": str(path), "format": "npy", "elements": a.size},
    )


def _not_a_file(path: Path) -> str:
    """Why ``path``, which is not a regular file (after symbolic links), cannot be read as one."""
    import stat

    if path.is_symlink() and not path.exists():
        return f"a broken symbolic link (to {os.readlink(path)!r}, which does not exist)"
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    kind = next((what for test, what in kinds if test(mode)), "not a regular file")
    return f"{kind}, not a file of budgets"


def read_budgets(path, column: str | None = None, histogram: bool = False) -> Budgets:
    """The budgets in ``path``, read strictly (the formats and rules are in the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: {_not_a_file(path)}")
    if path.suffix == ".npy":
        if column is not None or histogram:
            raise InputError(
                f"{path}: --column and --histogram apply to text files, not to .npy arrays"
            )
        return _npy(path)
    text = _text(path)
    if column is None and not histogram and (plain := _plain(text)) is not None:
        return Budgets(
            plain,
            np.ones(plain.size, dtype=np.int64),
            {"source": str(path), "format": "one budget per line", "lines": plain.size},
        )
    rows = list(_lines(path, text))
    if not rows:
        raise InputError(f"{path}: no budgets in the file")
    header = None
    if column is not None or all(map(is_name, rows[0][1])):
        where = f"{path}, line {rows[0][0]}"
        header, rows = [h.strip(" \t") for h in rows[0][1]], rows[1:]
        if len(set(header)) < len(header):
            raise InputError(f"{where}: the header {header} names a column twice")
        if histogram and header != ["value", "count"]:
            raise InputError(
                f"{where}: with --histogram the header must be 'value,count', got {header}"
            )
        if column is None and header != ["value", "count"]:
            if len(header) != 1:
                raise InputError(
                    f"{where}: several columns {header}; choose one with --column "
                    "(or name them value,count for a histogram)"
                )
            column = header[0]
        if column is not None and column not in header:
            raise InputError(f"{where}: no column {column!r}; the header names {header}")
        if not rows:
            raise InputError(f"{path}: a header but no budgets")
    hist = column is None and (header is not None or histogram)
    if column is not None:
        idx = header.index(column)
        form = (
            f"CSV column {column!r}"
            if len(header) > 1
            else f"one budget per line after the header {column!r}"
        )
    elif hist:
        form = "value,count lines, declared by " + (
            "--histogram" if header is None else "the header"
        )
    else:
        form = "one budget per line"
    values, counts, users = [], [], 0
    for lineno, cells in rows:
        where = f"{path}, line {lineno}"
        if column is not None:
            if len(cells) != len(header):
                raise InputError(
                    f"{where}: {len(cells)} fields {cells}, the header has {len(header)}"
                )
            values.append(number(cells[idx], where))
            counts.append(1)
        elif hist:
            if len(cells) != 2:
                raise InputError(
                    f"{where}: expected 'value,count', got {len(cells)} fields {cells}"
                )
            values.append(number(cells[0], where, "value"))
            counts.append(_count(cells[1], where))
        elif len(cells) == 1:
            try:
                values.append(number(cells[0], where))
            except InputError as exc:
                if lineno > rows[0][0] or header is not None:
                    raise
                raise InputError(
                    f"{exc}; nor is it a header (a line of names such as eps or value,count)"
                ) from None
            counts.append(1)
        else:
            raise InputError(
                f"{where}: {len(cells)} fields {cells}; expected one budget per line (a decimal "
                "comma is not accepted: write 0.5). A histogram of 'value,count' lines needs a "
                "first line 'value,count' or the --histogram option"
            )
        users += counts[-1]
        if users > MAX_USERS:
            raise InputError(
                f"{where}: the users add up to more than {MAX_USERS:,} (the most this command accepts)"
            )
    return Budgets(
        np.asarray(values, float),
        np.asarray(counts, np.int64),
        {"source": str(path), "format": form, "lines": len(rows)},
    )


ROUNDING = {"upper bound": ROUND_CEILING, "lower bound": ROUND_FLOOR}


def shown(value, kind: str, asked: str) -> str:
    """``value`` to 6 significant digits, rounded up for an upper bound and down for a lower bound (to
    nearest otherwise), so the printed number keeps its meaning; see the module docstring for < 1e-300."""
    if value is None:
        return "—"
    if kind == "upper bound" and asked == "delta" and 0 < value < DELTA_SHOWN:
        return f"< {DELTA_SHOWN:g}"
    if value == 0 or not np.isfinite(value):
        return f"{value:g}"
    d = Decimal(value)
    return f"{float(d.quantize(Decimal(1).scaleb(d.adjusted() - 5), ROUNDING.get(kind, ROUND_HALF_EVEN))):.6g}"


def account(
    values,
    counts,
    *,
    delta: float | None,
    eps: float | None,
    randomizer: str = "binary-rr",
    k: int | None = None,
    delta_i: float = 0.0,
    variant: str = "randomized",
    baselines: bool = True,
    rounds: int = 1,
    progress: bool = False,
) -> dict:
    """The numbers ``gspa account`` prints, as a dict (``rows``: one per method, each with ``method``,
    ``kind``, ``value`` and ``reason``, None when there is none). ``progress``: a progress bar on
    standard error, one step per method (shown only when standard error is a terminal)."""
    from gspa.privacy import randomizers
    from gspa.privacy.shuffle import accountant as A
    from gspa.privacy.shuffle.cells import MAX_USERS as MAX_CELL_USERS
    from gspa.privacy.shuffle import lower as LB
    from gspa.privacy.shuffle import pairs as PAIRS
    from gspa.privacy.peers import baselines as B
    from gspa.privacy.shuffle.composition import advanced_composition, compose
    from gspa.privacy.basics.fdp import gdp_delta, gdp_epsilon

    if (delta is None) == (eps is None):
        raise InputError("give exactly one of --delta (to get ε) and --eps (to get δ)")
    n = int(counts.sum())
    if n < 2:
        raise InputError(f"the shuffle needs at least 2 users, got {n}")
    d_local = None if delta_i == 0 else np.full(values.size, delta_i)
    target = ("epsilon", delta) if delta is not None else ("delta", eps)

    def ask(obj):
        return float(obj.epsilon(delta)) if delta is not None else float(obj.delta(eps))

    if (
        isinstance(rounds, bool)
        or not isinstance(rounds, (int, np.integer))
        or not 1 <= rounds <= 100_000
    ):
        raise InputError(f"--rounds must be an integer in [1, 100000], got {rounds!r}")
    per = "" if rounds == 1 else f", {rounds} rounds"
    from tqdm.auto import tqdm

    bar = tqdm(
        desc="gspa account",
        unit="bound",
        file=sys.stderr,
        leave=False,
        disable=None if progress else True,
    )
    rows, bounds = [], []

    def add(method, kind, value, reason=None, bound=None):  # each finished method advances the bar
        if (
            kind == "upper bound"
            and target[0] == "delta"
            and value is not None
            and 0 < value < DELTA_SHOWN
        ):
            reason = "; ".join(
                filter(
                    None,
                    [
                        reason,
                        f"below {DELTA_SHOWN:g}: the accountant adds 2^-1020 ≈ 8.9e-308 "
                        "for terms that underflow, so it resolves no smaller δ",
                    ],
                )
            )
        rows.append({"method": method, "kind": kind, "value": value, "reason": reason})
        bounds.append(bound)
        bar.update(1)
        bar.set_postfix_str(method[:48])

    spec = randomizers.get(randomizer)
    if variant == "revealing" and not spec.revealing_is_clear:
        raise InputError(
            f"--variant revealing: for {spec.title} no certified bound covers the protocol whose differing "
            "user also reports its input in the clear (its revealing pair covers only the protocol as run); "
            "use --variant randomized. Revealing is certified for: " + ", ".join(_revealing_clear())
        )
    hist = None if np.max(counts) == 1 else counts
    # the default reduction is the cell bound where the randomizer has one, up to its user limit
    cells = "cells" in spec.reductions and n <= MAX_CELL_USERS
    pair_of = lambda T: A.personalized_pair(
        values,
        d_local,
        variant,
        randomizer=randomizer,
        k=k,
        counts=hist if cells else counts,
        rounds=T,
    )
    one = pair_of(1)
    upper = one if rounds == 1 else pair_of(rounds)
    add(
        f"certified upper bound ({randomizer}, {variant}"
        + (", worst case over the data by cells" if cells else "")
        + f"{per})",
        "upper bound",
        ask(upper),
        bound=upper,
    )
    if "cells" in spec.reductions and not cells:
        add(
            f"certified upper bound ({randomizer}, {variant}, worst case over the data by cells{per})",
            "not computed",
            None,
            f"above {MAX_CELL_USERS:.0e} users (its cost grows like √n: about 13 s "
            "at 10⁸); the clone pair above costs what its distinct budgets cost",
        )
    elif cells:  # Theorem 1's clone pair beside it
        clones = compose(
            A.personalized_pair(
                values, d_local, variant, randomizer=randomizer, counts=counts, reduction="clones"
            ),
            rounds,
        )
        add(
            f"certified upper bound ({randomizer}, {variant}, clone pair{per})",
            "upper bound",
            ask(clones),
            None,
            bound=clones,
        )
        default, clone_row = rows[-2], rows[-1]
        if default["value"] == clone_row["value"] and default["reason"] is None:
            default["reason"] = (
                "the clone pair's value: here the cells are no smaller (below their δ floor, about "
                "1e-12 to 1e-11, or with few users), and the smaller is kept"
            )
    if variant in spec.lower:
        lower = LB.lower_bound(
            values,
            randomizer,
            k=k,
            counts=hist,
            variant=variant,
            delta=d_local if spec.local_delta else None,
        )
        add(
            f"certified lower bound ({randomizer}, {variant}, explicit data sets"
            + (")" if rounds == 1 else ", one round)"),
            "lower bound",
            ask(lower),
            "; ".join(
                filter(
                    None,
                    [
                        None if rounds == 1 else "T rounds reveal at least what one round does",
                        _ZERO_LOWER[randomizer == "laplace"]
                        if target[0] == "delta" and ask(lower) == 0
                        else None,
                    ],
                )
            )
            or None,
            lower,
        )
    from gspa.studies.gspa.theorem2 import mu_theorem2

    mu = mu_theorem2(values, d_local, counts=counts) * np.sqrt(rounds)
    thm2 = gdp_epsilon(delta, mu) if delta is not None else float(gdp_delta(eps, mu))
    add(
        "GSPA Theorem 2 (approximately μ-GDP)"
        if rounds == 1
        else "GSPA Theorems 2 and 5 (approximately √T·μ-GDP)",
        "approximation",
        float(thm2),
        None
        if np.isfinite(thm2)
        else f"no finite ε at this δ: μ = {mu:.6g}"
        + (
            ""
            if np.isfinite(mu)
            else " (the users' clone probabilities, all but the largest, add up to 0)"
        ),
    )
    if rounds > 1:
        if delta is not None:
            e0 = one.epsilon(delta / (2 * rounds))
            adv = (
                advanced_composition(e0, delta / (2 * rounds), rounds, delta / 2)[0]
                if np.isfinite(e0)
                else float("inf")
            )
            add(
                "advanced composition of the one-round bound (δ split in halves)",
                "upper bound",
                adv,
                None
                if np.isfinite(adv)
                else "no finite ε at this δ: "
                + (
                    f"the one-round bound has none at δ/(2T) = {delta / (2 * rounds):g}"
                    if not np.isfinite(e0)
                    else f"T ε₀ (e^ε₀ - 1) exceeds the doubles for the one-round ε₀ = {e0:.6g}"
                ),
            )
        else:
            add(
                "advanced composition of the one-round bound",
                "not computed",
                None,
                "given for --delta only",
            )
    eps0 = float(values.max())
    common = spec.always_common or (np.unique(values).size == 1 and spec.common_baselines)
    if baselines and variant == "revealing":
        add(
            f"published bounds with ε₀ = max εᵢ = {eps0:g}",
            "not applicable",
            None,
            "they bound the protocol as run, not one whose differing user also reports its input in the clear",
        )
    elif baselines and delta_i == 0 and not common:
        add(
            f"published bounds with ε₀ = max εᵢ = {eps0:g}",
            "not applicable",
            None,
            "they assume one randomizer for all users; "
            + (
                "with any-ldp each user has its own"
                if not spec.common_baselines
                else f"personalized {randomizer} budgets differ (binary randomized response is the exception)"
            ),
        )
    if baselines and variant != "revealing" and delta_i == 0 and common:
        fmt = compose(PAIRS.fmt21_pair(eps0, n), rounds)
        add(f"FMT21 numerical, ε₀ = max εᵢ = {eps0:g}{per}", "upper bound", ask(fmt), bound=fmt)
        if delta is not None and rounds == 1:
            for f in (B.erlingsson19, B.fmt21_closed, B.fmt23_closed):
                b = f(eps0, n, delta)
                add(
                    f"{b.name}, ε₀ = {eps0:g}",
                    "upper bound" if b.valid else "not applicable",
                    b.epsilon,
                    b.reason,
                )
    bar.close()
    _explain(rows, bounds, target)
    return {
        "n": n,
        "distinct_budgets": int(np.unique(values).size),
        "min_budget": float(values.min()),
        "max_budget": eps0,
        "randomizer": randomizer,
        "k": k,
        "delta_i": delta_i,
        "variant": variant,
        "rounds": rounds,
        "asked": target[0],
        "at": target[1],
        "rows": rows,
    }


def _revealing_clear() -> list[str]:
    """The randomizers whose revealing variant covers the differing user's input in the clear."""
    from gspa.privacy import randomizers

    return [r.name for r in randomizers.RANDOMIZERS if r.revealing_is_clear]


#: why a certified lower bound on δ(ε) is 0 (by whether the randomizer is Laplace)
_ZERO_LOWER = {
    False: "0: the explicit neighbouring data sets' δ at this ε is 0 or below the round-off allowance "
    "subtracted from it; valid, but it says nothing here",
    True: "0: for personalized Laplace budgets the lower bound thresholds each report at 1/2 (randomized "
    "response with budget ln(2e^(εᵢ/2) − 1), a post-processing that leaks far less than the reports "
    "themselves) and its δ at this ε is below what it resolves; valid, but it says nothing here",
}


def _floor(bound) -> float | None:
    """The least δ(ε) of ``bound`` over every ε (its value at ε = inf), or None if it cannot say."""
    try:
        return float(bound.delta(np.inf))
    except (ValueError, ArithmeticError, IndexError):
        return None


def _explain(rows: list, bounds: list, target: tuple) -> None:
    """Every value that is not a finite number becomes None with a ``reason`` saying why (JSON has no
    infinity, and a table cell is a number or a reason): for a certified ε, whether the protocol itself
    has no finite ε at this δ (the certified lower bound is infinite too) or the bound cannot resolve
    so small a δ (the floor of its δ(ε) is above it)."""
    asked, at = target
    lower = next((r["value"] for r in rows if r["kind"] == "lower bound"), None)
    for row, bound in zip(rows, bounds):
        v = row["value"]
        if v is None or np.isfinite(v):
            continue
        floor = None if bound is None else _floor(bound)
        floor_said = f"; its δ(ε) stays above {at:g}" + (
            "" if floor is None else f" (at ε = ∞ it is {floor:.6g})"
        )
        if np.isnan(v):
            why = "the computation gave no number (nan)"
        elif asked != "epsilon" or row["reason"] and bound is None:
            why = row["reason"] or "not a finite number"
        elif row["kind"] == "lower bound":
            why = (
                f"no finite ε at this δ: explicit neighbouring data sets keep δ(ε) > {at:g} at every ε"
                + (
                    ""
                    if floor is None
                    else f" (probability {floor:.6g} lies on outcomes that the neighbouring "
                    "data set cannot produce)"
                )
            )
        elif lower is not None and not np.isfinite(lower):
            why = f"no finite ε at this δ: the certified lower bound is infinite too{floor_said}"
        else:
            why = f"δ = {at:g} is below the bound's resolution floor{floor_said}"
        row["value"] = None
        row["reason"] = "; ".join(
            filter(None, [why, row["reason"] if why != row["reason"] else None])
        )


def _option(
    what: str, low: float = 0.0, high: float = np.inf, high_open: bool = False, why: str = ""
):
    """An argparse type: a number read by :func:`number` (so --eps 1O or --delta nan is refused) in
    [low, high] (or [low, high)); a refusal names the option, the allowed range and ``why``."""

    def parse(text):
        try:
            v = number(text, what, "value", high=np.inf)
        except InputError as exc:  # argparse's message starts "argument --eps: "
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{what}: ")) from None
        if v < low or v > high or (high_open and v == high):
            raise argparse.ArgumentTypeError(
                f"value {text.strip()!r} is out of range (allowed: "
                f"[{low:g}, {high:g}{')' if high_open else ']'}{why})"
            )
        return v

    return parse


def _whole(low: int, high: int | None = None):
    """An argparse type: a whole number (digits, an optional sign) in [low, high]; argparse names the option."""

    def parse(text):
        s = text.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", s):
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (such as 7)")
        v = int(s)
        if v < low or (high is not None and v > high):
            raise argparse.ArgumentTypeError(
                f"{s} is out of range (allowed: [{low:,}, "
                f"{'inf' if high is None else f'{high:,}'}])"
            )
        return v

    return parse


def parser() -> argparse.ArgumentParser:
    from gspa.privacy import randomizers  # the declared randomizers are the choices

    ap = argparse.ArgumentParser(
        prog="gspa account",
        description="Certified privacy of shuffled local randomizers with personalized budgets.",
        epilog="Budget files: .npy; or UTF-8 text with one budget per line, 'value,count' lines (a histogram, "
        "declared by a first line 'value,count' or --histogram), or CSV with a header (--column). "
        "Numbers are ASCII decimal or scientific notation (0.5, 1e-3). Blank lines and '#' lines "
        "are skipped. Exit status 2 on bad input, naming the file and line.",
    )
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--budgets", metavar="FILE", help="file of per-user local budgets eps_i")
    src.add_argument(
        "--scenario", metavar="NAME", help="a Table 2 scenario of the GSPA paper (with --n, --seed)"
    )
    form = ap.add_mutually_exclusive_group()
    form.add_argument(
        "--column", help="CSV column holding the budgets (the file's first line is then its header)"
    )
    form.add_argument(
        "--histogram",
        action="store_true",
        help="the file's lines are 'value,count' (no header needed)",
    )
    ap.add_argument(
        "--n",
        type=_whole(2, MAX_DRAWN),
        help=f"users for --scenario (default 10000, at most {MAX_DRAWN:.0e})",
    )
    ap.add_argument("--seed", type=_whole(0), help="seed for --scenario (default 0)")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--delta",
        type=_option("--delta", DELTA_MIN, 1.0, True, "; the bounds resolve no smaller δ"),
        help="central delta: print epsilon",
    )
    what.add_argument("--eps", type=_option("--eps"), help="central epsilon: print delta")
    ap.add_argument(
        "--randomizer",
        choices=randomizers.NAMES,
        default="binary-rr",
        help="local randomizer (default binary-rr)",
    )
    ap.add_argument("--k", type=_whole(2), help="alphabet size for --randomizer k-rr")
    ap.add_argument(
        "--delta-i",
        type=_option("--delta-i", 0.0, 1.0, True),
        default=0.0,
        help="local delta_i of every user (quaternary only; default 0)",
    )
    ap.add_argument(
        "--variant",
        choices=("randomized", "revealing"),
        default="randomized",
        help="the protocol covered: as run (randomized), or with the differing user's input also in the "
        f"clear (revealing; for {', '.join(_revealing_clear())} "
        "only)",
    )
    ap.add_argument(
        "--rounds",
        type=_whole(1, 100_000),
        default=1,
        help="runs of the shuffle on the same data, composed (certified; default 1)",
    )
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return ap


def _load(args) -> Budgets:
    if args.budgets is not None:
        given = [o for o, v in (("--n", args.n), ("--seed", args.seed)) if v is not None]
        if given:
            raise InputError(
                f"{' and '.join(given)} {'draw' if len(given) > 1 else 'draws'} a --scenario; a "
                f"--budgets file has its own users (remove {' and '.join(given)})"
            )
        if not args.budgets.strip():
            raise InputError(
                f"--budgets: the file name is empty ({args.budgets!r}); give the path of a budget file"
            )
        return read_budgets(args.budgets, args.column, args.histogram)
    if args.column is not None or args.histogram:
        raise InputError("--column and --histogram describe a --budgets file, not a --scenario")
    n, seed = 10_000 if args.n is None else args.n, 0 if args.seed is None else args.seed
    from gspa.studies.gspa.scenarios import SCENARIOS, budgets as draw

    if args.scenario not in SCENARIOS:
        near = difflib.get_close_matches(args.scenario, SCENARIOS, n=1)
        raise InputError(
            f"--scenario must be one of {', '.join(map(repr, SCENARIOS))}, got {args.scenario!r}"
            + (f" (did you mean {near[0]!r}?)" if near else "")
        )
    values = draw(args.scenario, n, np.random.default_rng(seed))
    return Budgets(
        values,
        np.ones(values.size, dtype=np.int64),
        {"source": args.scenario, "format": "scenario", "seed": seed},
    )


def _many(k: int, noun: str) -> str:
    return f"{k:,} {noun}" + ("" if k == 1 else "s")


def summary(b: Budgets) -> dict:
    """``b.read`` with the users, distinct budgets, their range and one sentence saying all that."""
    r = b.read
    said = {
        "npy": lambda: f"read array of {_many(r['elements'], 'element')} from {r['source']}",
        "scenario": lambda: (
            f"drew {_many(b.values.size, 'budget')} from scenario {r['source']!r} (seed {r['seed']})"
        ),
    }
    what = said.get(
        r["format"], lambda: f"read {_many(r['lines'], 'line')} of {r['source']} ({r['format']})"
    )()
    out = {
        **r,
        "users": int(b.counts.sum()),
        "distinct_budgets": int(np.unique(b.values).size),
        "min_budget": float(b.values.min()),
        "max_budget": float(b.values.max()),
    }
    out["summary"] = (
        f"{what} → {_many(out['users'], 'user')}, {_many(out['distinct_budgets'], 'distinct budget')} "
        f"in [{out['min_budget']!r}, {out['max_budget']!r}]"
    )
    return out


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        budgets = _load(args)
        read = summary(budgets)
        if not args.json:
            print(read["summary"], flush=True)
        res = account(
            budgets.values,
            budgets.counts,
            delta=args.delta,
            eps=args.eps,
            randomizer=args.randomizer,
            k=args.k,
            delta_i=args.delta_i,
            variant=args.variant,
            rounds=args.rounds,
            progress=read["users"] >= 100_000 or args.rounds > 1,
        )
    except ValueError as exc:  # InputError and the library's own checks of the values
        print(f"gspa account: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("gspa account: error: not enough memory for this computation", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"read": read, **res}, indent=1, allow_nan=False, default=str))
        return 0
    print(
        f"randomizer {res['randomizer']}"
        + (f", k = {res['k']}" if res["k"] else "")
        + (f", δᵢ = {res['delta_i']:g}" if res["delta_i"] else "")
        + (f", {res['rounds']} rounds" if res["rounds"] > 1 else "")
    )
    col = "ε at δ = " if res["asked"] == "epsilon" else "δ at ε = "
    width = max(len(r["method"]) for r in res["rows"])
    print(f"{'method':<{width}}  {'kind':<15}  {col}{res['at']:g}")
    for r in res["rows"]:
        print(
            f"{r['method']:<{width}}  {r['kind']:<15}  {shown(r['value'], r['kind'], res['asked'])}"
            + (f"  ({r['reason']})" if r["reason"] else "")
        )
    return 0
