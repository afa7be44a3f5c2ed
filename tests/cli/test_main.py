"""The ``gspa`` command: the help lists every command,
a misspelt one gets "did you mean", a closed standard output ends quietly, ``gspa account`` says what it
read, prints its bounds rounded in their safe direction and gives every JSON row a ``reason``."""

import json
import os
import subprocess
import sys
from decimal import Decimal

import pytest

from gspa.cli import commands, main
from gspa.cli.account import shown
from conftest import ROOT


def gspa(*args):
    """``python -m gspa.cli`` (the ``gspa`` console script's module; a ``gspa/__main__.py`` would sit in no
    layer of tests/test_layers.py)."""
    return subprocess.run(
        [sys.executable, "-m", "gspa.cli", *args], capture_output=True, text=True, cwd=ROOT
    )


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_command(flag):
    out = gspa(flag)
    assert out.returncode == 0, out.stderr
    listed = [line.split()[0] for line in out.stdout.splitlines() if line.startswith("  ")]
    assert listed == list(commands()) and {"account", "build", "run", "rerun", "params"} <= set(
        listed
    )
    assert all(
        len(line.split(maxsplit=1)) == 2
        for line in out.stdout.splitlines()
        if line.startswith("  ")
    )


def test_no_command_prints_the_list_and_fails(capsys):
    assert main([]) == 2
    assert "account" in capsys.readouterr().err


def test_every_listed_book_command_is_the_pipelines(capsys):
    """Each command the list takes from the book's parser is one that gspa.book.pipeline runs."""
    from gspa.book import pipeline

    for name in list(commands())[1:]:
        with pytest.raises(SystemExit) as done:
            pipeline.main([name, "--help"])
        assert done.value.code == 0 and f"usage: gspa {name}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "typed,message",
    [
        ("acount", "unknown command 'acount'; did you mean 'account'?"),
        ("biuld", "unknown command 'biuld'; did you mean 'build'?"),
        ("xyzzy", "unknown command 'xyzzy'; the commands are account, build, run, rerun, params"),
    ],
)
def test_did_you_mean(capsys, typed, message):
    assert main([typed]) == 2
    assert capsys.readouterr().err.strip().startswith(f"gspa: error: {message}")


def test_misspelt_command_exit_status():
    out = gspa("acount", "--budgets", "x")
    assert (
        out.returncode == 2
        and "did you mean 'account'?" in out.stderr
        and "Traceback" not in out.stderr
    )


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_closed_stdout_ends_quietly(tmp_path, extra):
    """``gspa account ... | head -1`` after head has exited: the read end is closed before the command
    starts, so every write fails (no race with the reader)."""
    f = tmp_path / "b.txt"
    f.write_text("0.5\n1.0\n")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "gspa.cli",
                "account",
                "--budgets",
                str(f),
                "--delta",
                "1e-6",
                *extra,
            ],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
    finally:
        os.close(write_end)
    assert out.returncode == 141 and out.stderr == "", out.stderr


def test_says_what_it_read_first(tmp_path):
    f = tmp_path / "b.txt"
    f.write_text("# budgets\neps\n0.5\n\n0.5\n1.0\n")
    out = gspa("account", "--budgets", str(f), "--eps", "0.3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == (
        f"read 3 lines of {f} (one budget per line after the header 'eps') "
        "→ 3 users, 2 distinct budgets in [0.5, 1.0]"
    )
    res = json.loads(gspa("account", "--budgets", str(f), "--eps", "0.3", "--json").stdout)
    assert res["read"] == {
        "source": str(f),
        "format": "one budget per line after the header 'eps'",
        "lines": 3,
        "users": 3,
        "distinct_budgets": 2,
        "min_budget": 0.5,
        "max_budget": 1.0,
        "summary": out.stdout.splitlines()[0],
    }
    assert all(set(r) == {"method", "kind", "value", "reason"} for r in res["rows"])


def test_tiny_delta_is_not_printed_as_a_number(tmp_path):
    """δ at ε = max εᵢ is exactly 0 for the certified pairs (every likelihood ratio is at most e^ε): printed as
    0 with no underflow note; a positive upper bound below 1e-300 (the accountant adds 2^-1020 for terms that
    underflow) is printed as '< 1e-300'."""
    f = tmp_path / "b.txt"
    f.write_text("0.5\n1.0\n0.5\n")
    out = gspa("account", "--budgets", str(f), "--eps", "1.0")
    assert out.returncode == 0, out.stderr
    upper = [line for line in out.stdout.splitlines() if line.startswith("certified upper bound")]
    assert upper and all(" 0" in u and "1e-300" not in u for u in upper), upper
    res = json.loads(gspa("account", "--budgets", str(f), "--eps", "1.0", "--json").stdout)
    row = res["rows"][0]
    assert row["kind"] == "upper bound" and row["value"] == 0.0
    assert "underflow" not in (row["reason"] or "")
    assert shown(8.9e-308, "upper bound", "delta") == "< 1e-300"
    assert shown(0.0, "upper bound", "delta") == "0"


@pytest.mark.parametrize(
    "value", [0.28440586530260686, 1e-5, 9.999995, 1.2345649999, 2.5e-39, 123456789.0, 3.0]
)
def test_bounds_are_rounded_in_their_safe_direction(value):
    up, down, near = (
        Decimal(shown(value, kind, "epsilon"))
        for kind in ("upper bound", "lower bound", "approximation")
    )
    assert down <= Decimal(value) <= up
    assert up - down <= Decimal(value) * Decimal("1e-5") * 2
    assert near in (up, down)


def test_bad_option_numbers_are_refused():
    out = gspa("account", "--scenario", "Unif 1", "--n", "100", "--eps", "1O")
    assert out.returncode == 2 and "--eps: value '1O' is not a number" in out.stderr
    out = gspa("account", "--scenario", "Unif 1", "--n", str(10**9), "--eps", "1")
    assert (
        out.returncode == 2
        and "argument --n: 1000000000 is out of range (allowed: [2, 100,000,000])" in out.stderr
    )
