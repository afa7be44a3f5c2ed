"""`gspa account`: the command line of the accountant."""

import json
import subprocess
import sys

import numpy as np
import pytest

from gspa.cli import account as CLI
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from conftest import ROOT


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "gspa.cli", "account", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_numbers_are_the_librarys(tmp_path):
    eps = np.random.default_rng(1).uniform(0.1, 2.0, 300)
    f = tmp_path / "b.txt"
    f.write_text("# budgets\n" + "\n".join(f"{float(e)!r}" for e in eps) + "\n\n")
    out = run("--budgets", str(f), "--delta", "1e-6", "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    rows = {
        r["method"].split(" (")[0] + (" cells" if "cells" in r["method"] else ""): r
        for r in res["rows"]
    }
    assert res["n"] == 300
    assert rows["certified upper bound"]["value"] == pytest.approx(
        A.personalized_pair(eps, None, reduction="clones").epsilon(1e-6), rel=1e-12
    )  # Theorem 1's clone pair, beside the default (the cells)
    assert rows["certified upper bound cells"]["value"] == pytest.approx(
        A.personalized_pair(eps, None).epsilon(1e-6), rel=1e-12
    )
    assert rows["certified lower bound"]["value"] == pytest.approx(
        LB.lower_bound(eps).epsilon(1e-6), rel=1e-12
    )
    assert rows["certified lower bound"]["value"] <= rows["certified upper bound cells"]["value"]


def test_quaternary_rows_are_the_librarys_and_bracket(tmp_path):
    """Lemma 4's quaternary randomizer: the cell bound and the lower bound (with the local δᵢ) are printed."""
    eps = np.random.default_rng(2).uniform(0.1, 2.0, 300)
    f = tmp_path / "b.txt"
    f.write_text("\n".join(f"{float(e)!r}" for e in eps) + "\n")
    out = run(
        "--budgets",
        str(f),
        "--delta",
        "1e-3",
        "--randomizer",
        "quaternary",
        "--delta-i",
        "1e-5",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    rows = {
        r["method"].split(" (")[0] + (" cells" if "cells" in r["method"] else ""): r
        for r in json.loads(out.stdout)["rows"]
    }
    d = np.full(300, 1e-5)
    cells = A.personalized_pair(eps, d, randomizer="quaternary", reduction="cells").epsilon(1e-3)
    assert rows["certified upper bound cells"]["value"] == pytest.approx(cells, rel=1e-12)
    lower = LB.lower_bound(eps, "quaternary", delta=d).epsilon(1e-3)
    assert rows["certified lower bound"]["value"] == pytest.approx(lower, rel=1e-12)
    assert (
        0 < lower <= min(cells, rows["certified upper bound"]["value"])
    )  # (cells is looser at 300 users)


def test_formats_agree(tmp_path):
    eps = np.array([0.5] * 40 + [1.0] * 60)
    (tmp_path / "a.npy").write_bytes(b"")
    np.save(tmp_path / "a.npy", eps)
    (tmp_path / "h.csv").write_text("value,count\n0.5,40\n1.0,60\n")
    (tmp_path / "c.csv").write_text(
        "user,eps\n" + "".join(f"u{i},{e}\n" for i, e in enumerate(eps))
    )
    (tmp_path / "h2.txt").write_text("0.5,40\n1.0,60\n")
    got = []
    for name, extra in [
        ("a.npy", []),
        ("h.csv", []),
        ("c.csv", ["--column", "eps"]),
        ("h2.txt", ["--histogram"]),
    ]:
        out = run("--budgets", str(tmp_path / name), "--eps", "0.3", "--json", *extra)
        assert out.returncode == 0, (name, out.stderr)
        got.append(json.loads(out.stdout)["rows"][0]["value"])
    assert len(set(got)) == 1


@pytest.mark.parametrize(
    "content,message",
    [
        ("", "no budgets"),
        ("0.5\nabc\n", "line 2: budget 'abc' is not a number"),
        ("0.5\nnan\n", "line 2: budget 'nan' is not a number"),
        ("0.5\n-1\n", "line 2: budget '-1' is negative"),
        (
            "value,count\n0.5,0\n",
            "line 2: count 0 is out of range (allowed: [1, 1,000,000,000,000])",
        ),
        ("0.5,2,3\n", "line 1: 3 fields"),
        ("a,b\n1,2\n", "several columns"),
    ],
)
def test_bad_files_are_refused_naming_file_and_line(tmp_path, content, message):
    f = tmp_path / "bad.txt"
    f.write_text(content)
    out = run("--budgets", str(f), "--delta", "1e-6")
    assert out.returncode == 2 and message in out.stderr and "bad.txt" in out.stderr, out.stderr


def test_bad_options_are_refused(tmp_path):
    f = tmp_path / "b.txt"
    f.write_text("0.5\n1.0\n")
    out = run("--budgets", str(f), "--delta", "2")
    assert out.returncode == 2 and "delta" in out.stderr
    out = run("--budgets", str(tmp_path / "missing.txt"), "--delta", "1e-6")
    assert out.returncode == 2 and "no such file" in out.stderr
    out = run("--budgets", str(f), "--delta", "1e-6", "--randomizer", "k-rr")
    assert out.returncode == 2 and "k" in out.stderr


@pytest.mark.parametrize("randomizer", ["k-rr", "laplace"])
def test_revealing_is_refused_where_no_bound_covers_the_input_in_the_clear(tmp_path, randomizer):
    """k-RR's and Laplace's revealing pairs cover only the protocol as run: printed as "certified" for the
    protocol with the input in the clear they were below its δ (0.566 against 0.768 for k = 4)."""
    f = tmp_path / "b.txt"
    f.write_text("0.267\n0.267\n")
    k = ["--k", "4"] if randomizer == "k-rr" else []
    out = run(
        "--budgets", str(f), "--eps", "0", "--randomizer", randomizer, *k, "--variant", "revealing"
    )
    assert (
        out.returncode == 2
        and "--variant revealing" in out.stderr
        and "certified" not in out.stdout
    )
    assert "binary-rr, quaternary" in out.stderr
    ok = run("--budgets", str(f), "--eps", "0", "--variant", "revealing")
    assert ok.returncode == 0, ok.stderr
    assert "FMT21" not in ok.stdout  # the published bounds cover the protocol as run only
    assert "the protocol as run, not one whose differing user also reports its input" in ok.stdout


def test_scenario_table_output():
    out = run("--scenario", "Unif 1", "--n", "2000", "--delta", "1e-6")
    assert out.returncode == 0, out.stderr
    assert (
        "certified upper bound" in out.stdout
        and "GSPA Theorem 2" in out.stdout
        and "→ 2,000 users" in out.stdout
    )


def test_help_matches_the_api_page():
    """Every option of `gspa account` is documented on the API's command-line page."""
    page = (ROOT / "book" / "api-cli.md").read_text()
    assert page.startswith("# The command line: `gspa account`")
    for opt in [
        a for a in CLI.parser()._option_string_actions if a.startswith("--") and a != "--help"
    ]:
        assert f"`{opt}" in page, f"book/api-cli.md does not document {opt}"


def test_rounds(tmp_path):
    eps = np.random.default_rng(2).uniform(0.1, 1.0, 500)
    f = tmp_path / "b.txt"
    f.write_text("\n".join(f"{float(e)!r}" for e in eps))
    res = json.loads(run("--budgets", str(f), "--delta", "1e-6", "--rounds", "8", "--json").stdout)
    rows = {
        r["method"].split(" (")[0] + (" cells" if "cells" in r["method"] else ""): r
        for r in res["rows"]
    }
    upper = rows["certified upper bound cells"]["value"]  # the default
    assert upper <= rows["certified upper bound"]["value"]  # Theorem 1's clone pair
    assert res["rounds"] == 8
    assert upper == pytest.approx(A.personalized_pair(eps, rounds=8).epsilon(1e-6), rel=1e-12)
    assert upper > A.personalized_pair(eps).epsilon(1e-6)
    assert rows["certified lower bound"]["value"] <= upper
    assert rows["advanced composition of the one-round bound"]["value"] > upper
    bad = run("--budgets", str(f), "--delta", "1e-6", "--rounds", "0")
    assert bad.returncode == 2 and "--rounds" in bad.stderr


def test_laplace_prints_its_thresholded_lower_bound(tmp_path):
    eps = np.random.default_rng(4).uniform(0.2, 2.0, 400)
    f = tmp_path / "b.txt"
    f.write_text("\n".join(f"{float(e)!r}" for e in eps))
    res = json.loads(
        run("--budgets", str(f), "--delta", "1e-6", "--randomizer", "laplace", "--json").stdout
    )
    rows = {r["method"].split(" (")[0]: r for r in res["rows"]}
    # tested against the continuous protocol's bracketed delta (laplace_profile): certified like the others
    assert "binned" not in res["rows"][0]["method"]
    low, up = rows["certified lower bound"]["value"], rows["certified upper bound"]["value"]
    assert low == pytest.approx(LB.lower_bound(eps, "laplace").epsilon(1e-6), rel=1e-12)
    assert (
        0
        < low
        < up
        == pytest.approx(
            A.personalized_pair(eps, None, randomizer="laplace").epsilon(1e-6), rel=1e-12
        )
    )


def test_a_lower_bound_of_zero_says_why(tmp_path):
    f = tmp_path / "h.csv"
    f.write_text("0.5,5000\n1.5,5000\n")
    out = run(
        "--budgets", str(f), "--histogram", "--randomizer", "laplace", "--eps", "0.1", "--json"
    )
    assert out.returncode == 0, out.stderr
    (low,) = [r for r in json.loads(out.stdout)["rows"] if r["kind"] == "lower bound"]
    assert low["value"] == 0 and "thresholds each report at 1/2" in low["reason"]
