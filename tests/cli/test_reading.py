"""Budget files are read strictly: every known malformed case, the declared forms,
and a Hypothesis fuzz of valid lines mixed with corrupted ones against a simple oracle."""

import codecs
import re
import subprocess
import sys
from collections import Counter
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gspa.cli.account import MAX_USERS, InputError, _plain, read_budgets
from conftest import ROOT


def refused(tmp_path, content, *options, name="b.txt"):
    """The message read_budgets gives for ``content`` (bytes or text), which it must refuse."""
    f = tmp_path / name
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputError) as err:
        read_budgets(f, *options)
    assert str(err.value).startswith(str(f)), err.value
    return str(err.value)


def read(tmp_path, content, *options):
    f = tmp_path / "b.txt"
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    return read_budgets(f, *options)


@pytest.mark.parametrize(
    "content,message",
    [
        ("1O\n0.5\n0.5\n0.5\n", "line 1: budget '1O' is not a number"),  # letter O for zero
        ("0.5.1\n0.5\n0.5\n", "line 1: budget '0.5.1' is not a number"),
        ("0x10\n0.5\n0.5\n", "line 1: budget '0x10' is not a number"),
        ("\u22120.5\n0.5\n0.5\n", "line 1: budget '\u22120.5' is not a number"),
        ("0.5\n\u22120.5\n", "U+2212 (MINUS SIGN)"),
        ("\ufeff0.5\n0.5\n0.5\n", "line 1: the file starts with a UTF-8 byte-order mark"),
        ("0,5\n", "line 1: 2 fields ['0', '5']; expected one budget per line"),
        ("0.5\n0,5\n", "--histogram option"),
        (
            "value,count\n0.5,1000000000000000000000000000000\n",
            "line 2: count 1000000000000000000000000000000 is out of range (allowed: [1, 1,000,000,000,000])",
        ),
        ("0.5\n1_000\n", "line 2: budget '1_000' is not a number"),
        ("0.5\ninf\n", "line 2: budget 'inf' is not a number"),
        ("inf\n0.5\n0.5\n", "line 1: budget 'inf' is not a number"),  # not taken as a header either
        ("0.5\n0. 5\n", "line 2: budget '0. 5' is not a number"),
        ("0.5\n1e400\n", "line 2: budget '1e400' is too large for a double"),
        ("0.5\n1e-400\n", "line 2: budget '1e-400' underflows to 0"),
        ("0.5\n1e7\n", "line 2: budget '1e7' is above the supported range (allowed: [0, 1e+06])"),
        (
            "1.7976931348623157e308\n",
            "line 1: budget '1.7976931348623157e308' is above the supported range",
        ),
        ("value,count\n1000000.5,3\n", "line 2: value '1000000.5' is above the supported range"),
        ("0.5\n-0.5\n", "line 2: budget '-0.5' is negative"),
        (
            "0.5\n0.5\r0.5\n",
            "line 2: '0.5\\r0.5' is not a line of comma-separated fields (new-line character "
            "seen in unquoted field)",
        ),  # a lone CR is no line end
        ("# budgets\n\n0.5\nO\n", "line 4: budget 'O' is not a number"),
        ("O\n0.5\n0.5\n", "line 1: budget 'O' is not a number"),  # O looks like 0: no header
        ("l0\n0.5\n0.5\n", "nor is it a header"),
        ("eps,user\n0.5,a\n", "several columns ['eps', 'user']; choose one with --column"),
        ("eps,eps\n0.5,0.5\n", "names a column twice"),
        ("value,count\n0.5,2.5\n", "line 2: count '2.5' is not a whole number"),
        ("value,count\n0.5,0\n", "line 2: count 0 is out of range"),
        ("value,count\n0.5\n", "line 2: expected 'value,count', got 1 fields"),
        (
            "value,count\n0.5,600000000000\n0.7,500000000000\n",
            "line 3: the users add up to more than 1,000,000,000,000",
        ),
        ("eps\n", "a header but no budgets"),
        ("# only a comment\n\n", "no budgets in the file"),
        ('0.5\n"0.5\n', "line 2:"),  # unterminated quote
    ],
)
def test_refused(tmp_path, content, message):
    assert message in refused(tmp_path, content)


def test_not_utf8(tmp_path):
    assert "line 2: not UTF-8 text (byte 0xe9)" in refused(tmp_path, b"0.5\n0\xe9\n")


def test_decimal_comma_with_histogram_is_what_was_declared(tmp_path):
    b = read(tmp_path, "0,5\n", None, True)  # declared: 5 users at 0
    assert b.values.tolist() == [0.0] and b.counts.tolist() == [5]
    assert b.read == {
        "source": str(tmp_path / "b.txt"),
        "format": "value,count lines, declared by --histogram",
        "lines": 1,
    }


@pytest.mark.parametrize(
    "content,options,values,counts,form",
    [
        (
            "value,count\n0.5,40\n1.0,60\n",
            (),
            [0.5, 1.0],
            [40, 60],
            "value,count lines, declared by the header",
        ),
        (
            " value , count \r\n0.5, 40\r\n",
            (),
            [0.5],
            [40],
            "value,count lines, declared by the header",
        ),
        (
            "value,count\n0.5,40\n",
            (None, True),
            [0.5],
            [40],
            "value,count lines, declared by the header",
        ),
        (
            "0.5,40\n1.0,60\n",
            (None, True),
            [0.5, 1.0],
            [40, 60],
            "value,count lines, declared by --histogram",
        ),
        ('user,eps\nu1,0.5\n"u,2",1e-3\n', ("eps",), [0.5, 1e-3], [1, 1], "CSV column 'eps'"),
        ("oil,eps\n0.5,0.25\n", ("oil",), [0.5], [1], "CSV column 'oil'"),  # --column: any header
        ("eps\n0.5\n2\n", (), [0.5, 2.0], [1, 1], "one budget per line after the header 'eps'"),
        (
            "epsilon_i\n.5\n+1.\n",
            (),
            [0.5, 1.0],
            [1, 1],
            "one budget per line after the header 'epsilon_i'",
        ),
        ("local eps\n0.5\n", (), [0.5], [1], "one budget per line after the header 'local eps'"),
        (
            "# c\n  0.5  \n\n\t1E-3\r\n-0\n1e-320\n",
            (),
            [0.5, 1e-3, 0.0, 1e-320],
            [1, 1, 1, 1],
            "one budget per line",
        ),
    ],
)
def test_accepted(tmp_path, content, options, values, counts, form):
    b = read(tmp_path, content, *options)
    assert b.values.tolist() == values and b.counts.tolist() == counts and b.read["format"] == form


@pytest.mark.parametrize(
    "content,options,message",
    [
        (
            "0.5\n0.5\n",
            ("eps",),
            "no column 'eps'; the header names ['0.5']",
        ),  # --column needs a header
        ("eps\n0.5\n", (None, True), "with --histogram the header must be 'value,count'"),
        ("user,eps\nu1\n", ("eps",), "line 2: 1 fields ['u1'], the header has 2"),
        ("user,eps\nu1,1O\n", ("eps",), "line 2: budget '1O' is not a number"),
    ],
)
def test_declared_forms_are_checked(tmp_path, content, options, message):
    assert message in refused(tmp_path, content, *options)


def test_npy(tmp_path):
    np.save(tmp_path / "a.npy", np.array([0.5, 1.0, 1.0]))
    b = read_budgets(tmp_path / "a.npy")
    assert b.values.tolist() == [0.5, 1.0, 1.0] and b.read["elements"] == 3
    with pytest.raises(InputError, match="apply to text files"):
        read_budgets(tmp_path / "a.npy", None, True)


@pytest.mark.parametrize(
    "content,message",
    [
        ("1O\n0.5\n0.5\n0.5\n", "line 1: budget '1O' is not a number"),
        ("\ufeff0.5\n0.5\n", "byte-order mark"),
        ("value,count\n0.5,1000000000000000000000000000000\n", "out of range"),
    ],
)
def test_exit_status_2_without_traceback(tmp_path, content, message):
    f = tmp_path / "bad.txt"
    f.write_text(content, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "gspa.cli", "account", "--budgets", str(f), "--delta", "1e-6"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 2 and out.stdout == "", out
    assert (
        out.stderr.startswith(f"gspa account: error: {f}")
        and message in out.stderr
        and "Traceback" not in out.stderr
    )


# ---- fuzz: valid lines mixed with corrupted ones ---------------------------------------------------


def styled(x: float, style: int) -> str:
    return [repr(x), f"{x:e}", f"{x:.4f}", f"{x:.3E}", f"+{x!r}", f"{x:.0f}.", f" {x!r}\t"][style]


VALID = st.one_of(
    st.builds(styled, st.floats(0, 1e6, allow_nan=False), st.integers(0, 6)),
    st.integers(0, 10**6).map(str),
    st.sampled_from(["0", "-0", ".5", "1e-320", "5e-324", "1e6", "1000000.0", "00.50"]),
)


def corrupt(token: str, how: int, where: int) -> str:
    """``token`` with one of the typos listed below (each leaves something that is not a number)."""
    t = token.strip(" \t")
    i = 1 + where % max(len(t) - 1, 1)
    lookalike = t.translate(str.maketrans("01", "Ol"))
    return [
        lookalike if lookalike != t else "O" + t,
        t + (".1" if re.search("[.eE]", t) else "..1"),
        t.replace(".", ",") if "." in t else t + ",",
        "\u2212" + t,
        "0x1" + t[:1],
        t[:i] + " " + t[i:] if len(t) > 1 else t + " 1",
        "1e400",
        "1e-400",
        "nan",
        "1_0" + t,
        t + "%",
        "\u00a0" + t,
    ][how]


BAD_COUNTS = ["0", "1" + "0" * 30, "2.5", "\u22123", "1e3", " ", "x"]


@st.composite
def budget_files(draw):
    """(bytes, options, the first corrupted line or None, the oracle's Counter of budgets, data lines, mode)."""
    mode = draw(st.sampled_from(["plain", "header", "value,count", "--histogram", "--column"]))
    items = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["data"] * 6 + ["comment", "blank"]),
                VALID,
                st.integers(1, 1000),
                st.integers(-40, 11),
                st.integers(0, 99),
            ),
            min_size=1,
            max_size=12,
        )
    )
    if not any(kind == "data" for kind, *_ in items):
        items[0] = ("data",) + items[0][1:]
    ends = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    lines = {
        "plain": [],
        "header": ["eps"],
        "value,count": ["value,count"],
        "--histogram": [],
        "--column": ["user, eps"],
    }[mode]
    oracle, first_bad, data = Counter(), None, 0
    for kind, token, count, how, where in items:
        if kind != "data":
            lines.append("# " + token if kind == "comment" else " " * (where % 3))
            continue
        data += 1
        bad_count = mode in ("value,count", "--histogram") and how == -1
        text = corrupt(token, how, where) if how >= 0 else token
        if how >= 0 or bad_count:
            first_bad = first_bad or len(lines) + 1
        else:
            oracle[float(Decimal(token.strip()))] += (
                count if mode in ("value,count", "--histogram") else 1
            )
        if mode in ("value,count", "--histogram"):
            text += "," + (BAD_COUNTS[where % len(BAD_COUNTS)] if bad_count else f" {count}")
        elif mode == "--column":
            text = f"u{len(lines)},{text}"
        lines.append(text)
    body = "".join(
        l + ("\r\n" if ends == "\r\n" or (ends == "mixed" and i % 2) else "\n")
        for i, l in enumerate(lines)
    )
    if draw(st.booleans()):
        body = body.rstrip("\r\n")
    if draw(st.integers(0, 9)) == 0:
        body, first_bad = "\ufeff" + body, 1
    options = {"--histogram": (None, True), "--column": ("eps",)}.get(mode, ())
    return body.encode(), options, first_bad, oracle, data, mode


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(budget_files())
def test_fuzz_refused_at_the_first_bad_line_or_read_exactly(tmp_path, case):
    content, options, first_bad, oracle, data, mode = case
    f = tmp_path / "fuzz.txt"
    f.write_bytes(content)
    event("refused" if first_bad is not None else "read", mode)
    if mode == "plain" and not content.startswith(codecs.BOM_UTF8):  # the vectorised path agrees
        plain = _plain(content.decode())
        assert (plain is None) == (first_bad is not None)
    if first_bad is not None:
        with pytest.raises(InputError) as err:
            read_budgets(f, *options)
        named = re.match(re.escape(str(f)) + r", line (\d+): ", str(err.value))
        assert named and int(named.group(1)) == first_bad, (str(err.value), content)
        return
    b = read_budgets(f, *options)
    got = Counter()
    for v, c in zip(b.values.tolist(), b.counts.tolist()):
        got[v] += c
    assert got == oracle and b.read["lines"] == data and int(b.counts.sum()) == sum(oracle.values())
    assert sum(oracle.values()) <= MAX_USERS


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(VALID, max_size=5), VALID, st.integers(0, 11), st.integers(0, 99), st.integers(0, 5)
)
def test_fuzz_one_typo_is_refused_where_it_is(tmp_path, valid, token, how, where, at):
    """One typo of each kind, anywhere (on the first line, where a header could be, too), is refused at
    its line by both the line-by-line reader and the vectorised one."""
    at = min(at, len(valid))
    lines = valid[:at] + [corrupt(token, how, where)] + valid[at:]
    text = "\n".join(lines) + "\n"
    assert f"line {at + 1}: " in refused(tmp_path, text) and _plain(text) is None
