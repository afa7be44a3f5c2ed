"""Every refusal of ``gspa account`` names the option, or the file and line, with exit status 2 and no
traceback or numpy warning; budgets up to the README's 10⁶ are answered. In-process
(``main(argv)``) to stay fast."""

import os

import numpy as np
import pytest

from gspa.cli import account as CLI


def run(capsys, *argv):
    """(exit status, stdout, stderr) of ``gspa account argv`` (argparse's refusals exit with 2)."""
    try:
        status = CLI.main([*argv])
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "Warning" not in out.err, out.err
    return status, out.out, out.err


def refused(capsys, *argv):
    status, _, err = run(capsys, *argv)
    assert status == 2, err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("budgets", ["745\n745\n", "1e6\n1e6\n1e6\n", "1\n" + "800\n" * 9])
@pytest.mark.parametrize("randomizer", ["binary-rr", "quaternary"])
def test_budgets_up_to_a_million_are_answered(capsys, tmp_path, budgets, randomizer):
    """Budgets from about 745 up used to stop the cells bound ('levels must have a value with 0 <
    1/(1 + e^level) < 1/2', no file, no line)."""
    f = tmp_path / "b.txt"
    f.write_text(budgets)
    for query in (["--delta", "1e-6"], ["--eps", "1"]):
        status, out, err = run(capsys, "--budgets", str(f), "--randomizer", randomizer, *query)
        assert status == 0, err
        cells = next(line for line in out.splitlines() if "by cells" in line)
        assert "upper bound" in cells and "levels" not in out


@pytest.mark.parametrize(
    "content, name, where",
    [
        (
            "0.5\n1e7\n",
            "b.txt",
            "line 2: budget '1e7' is above the supported range (allowed: [0, 1e+06])",
        ),
        ("0.5\n745\n1000001\n", "b.txt", "line 3: budget '1000001' is above the supported range"),
        ("value,count\n2e6,4\n", "b.txt", "line 2: value '2e6' is above the supported range"),
        (None, "b.npy", "element 1 is 10000000.0; budgets must lie in [0, 1e+06]"),
    ],
)
def test_budgets_above_a_million_are_refused_with_file_and_line(
    capsys, tmp_path, content, name, where
):
    f = tmp_path / name
    if content is None:
        np.save(f, np.array([1.0, 1e7]))
    else:
        f.write_text(content)
    said = refused(capsys, "--budgets", str(f), "--delta", "1e-6")
    assert said.startswith(f"gspa account: error: {f}{':' if content is None else ','} {where}"), (
        said
    )


def test_a_path_that_is_no_regular_file_is_said_to_be_what_it_is(capsys, tmp_path):
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "broken").symlink_to(tmp_path / "gone.txt")
    said = {
        "dir": "a directory, not a file of budgets",
        "fifo": "a FIFO (named pipe), not a file of budgets",
        "broken": f"a broken symbolic link (to {str(tmp_path / 'gone.txt')!r}, which does not exist)",
        "missing": "no such file",
    }
    for name, what in said.items():
        assert (
            refused(capsys, "--budgets", str(tmp_path / name), "--eps", "1")
            == f"gspa account: error: {tmp_path / name}: {what}"
        )


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--budgets", ""],
            "--budgets: the file name is empty (''); give the path of a budget file",
        ),
        (["--budgets", " "], "--budgets: the file name is empty (' ')"),
        (
            ["--scenario", "Unif 1", "--seed", "-1"],
            "argument --seed: -1 is out of range (allowed: [0, inf])",
        ),
        (["--scenario", "Unif 1", "--seed", "1.5"], "argument --seed: '1.5' is not a whole number"),
        (
            ["--scenario", "Unif 1", "--n", "1"],
            "argument --n: 1 is out of range (allowed: [2, 100,000,000])",
        ),
        (
            ["--scenario", "Unif 1", "--rounds", "0"],
            "argument --rounds: 0 is out of range (allowed: [1, 100,000])",
        ),
        (
            ["--scenario", "Unif 1", "--randomizer", "k-rr", "--k", "1"],
            "argument --k: 1 is out of range",
        ),
        (
            ["--scenario", "Unif 1", "--delta-i", "1"],
            "argument --delta-i: value '1' is out of range (allowed: [0, 1))",
        ),
        (
            ["--scenario", "unif 1"],
            "--scenario must be one of 'Unif 1', 'Unif 2', 'Constant', 'Mixed Constant', "
            "'Unif 3', got 'unif 1' (did you mean 'Unif 1'?)",
        ),
        (
            ["--budgets", "B", "--n", "5"],
            "--n draws a --scenario; a --budgets file has its own users (remove --n)",
        ),
        (["--budgets", "B", "--seed", "0"], "--seed draws a --scenario"),
        (["--budgets", "B", "--n", "5", "--seed", "1"], "--n and --seed draw a --scenario"),
    ],
)
def test_options_are_named(capsys, tmp_path, argv, message):
    (tmp_path / "B").write_text("0.5\n1\n")
    argv = [str(tmp_path / "B") if a == "B" else a for a in argv]
    query = [] if "--delta" in argv else ["--eps", "1"]
    assert message in refused(capsys, *argv, *query)


@pytest.mark.parametrize("delta", ["5e-324", "1e-310", "9e-301", "0", "1"])
def test_a_delta_outside_what_the_bounds_resolve_is_refused_without_warnings(
    capsys, tmp_path, delta
):
    (tmp_path / "b.txt").write_text("1\n1\n1\n")
    assert refused(capsys, "--budgets", str(tmp_path / "b.txt"), "--delta", delta).endswith(
        f"argument --delta: value {delta!r} is out of range (allowed: [1e-300, 1); the bounds resolve no smaller δ)"
    )


def test_the_smallest_delta_is_answered_without_warnings(capsys, tmp_path):
    (tmp_path / "b.txt").write_text("1\n1\n1\n")
    for rounds in ("1", "3"):
        status, out, err = run(
            capsys, "--budgets", str(tmp_path / "b.txt"), "--delta", "1e-300", "--rounds", rounds
        )
        assert status == 0, err


@pytest.mark.slow
def test_a_trillion_users_at_one_budget_cost_what_one_budget_costs():
    """10^12 users at one budget (a histogram of one line, the documented limit) are answered
    (the upper and lower bound grow with the distinct budgets); the cell bound, whose cost grows like the square
    root of n, is not computed above 10^9 users and says so."""
    out = CLI.account(np.array([1.0]), np.array([10**12]), delta=1e-6, eps=None)
    rows = {r["method"]: r for r in out["rows"]}
    cells = next(r for m, r in rows.items() if "by cells" in m)
    assert cells["kind"] == "not computed" and "1e+09 users" in cells["reason"]
    assert all(
        r["value"] is not None
        for m, r in rows.items()
        if r["kind"] in ("upper bound", "lower bound")
    )
