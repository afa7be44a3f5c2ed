"""`gspa account` answers every row with a number or a reason, never a traceback: an infinite ε (no
finite ε at this δ, or a δ below a bound's resolution floor) is JSON null with a ``reason``, and the
table shows the reason in place of ``inf``. Run in-process (main(argv)) to stay fast."""

import json

import numpy as np
import pytest

from gspa.cli import account as CLI


def answer(capsys, *argv):
    status = CLI.main([*argv])
    out = capsys.readouterr()
    assert status == 0, out.err
    return out.out


def rows_of(capsys, *argv):
    text = answer(capsys, *argv, "--json")
    res = json.loads(text)  # strict JSON: no Infinity, no NaN
    assert "Infinity" not in text and "NaN" not in text
    for r in res["rows"]:
        assert r["value"] is None or np.isfinite(r["value"]), r
        assert r["value"] is not None or r["reason"], r
    return res["rows"]


def table_cells(capsys, *argv):
    lines = answer(capsys, *argv).splitlines()
    body = lines[lines.index(next(l for l in lines if l.startswith("method"))) + 1 :]
    kinds = ("upper bound", "lower bound", "approximation", "not applicable", "not computed")
    for line in body:  # a number or a reason in every row
        kind = next(k for k in kinds if f"  {k}  " in line)
        cell = line.split(f"  {kind}  ", 1)[1].strip()
        value = cell.split("  (")[0]
        assert value == "—" and cell.startswith("—  (") or np.isfinite(float(value.lstrip("< "))), (
            line
        )
    return body


@pytest.fixture
def files(tmp_path):
    (tmp_path / "b.txt").write_text("0.5\n1.0\n0.7\n")
    (tmp_path / "mix.txt").write_text("1\n1e6\n")  # 1e6: the largest budget read
    np.save(tmp_path / "u.npy", np.array([1, 10**6], dtype=np.uint64))
    return tmp_path


def test_local_delta_makes_epsilon_infinite(capsys, files):
    args = [
        "--budgets",
        str(files / "b.txt"),
        "--randomizer",
        "quaternary",
        "--delta-i",
        "0.1",
        "--delta",
        "1e-6",
    ]
    rows = rows_of(capsys, *args)
    nulls = [r for r in rows if r["value"] is None]
    assert len(nulls) == 3  # both upper bounds and the lower bound
    assert all("no finite ε at this δ" in r["reason"] for r in nulls)
    assert "0.1" in nulls[0]["reason"]  # the floor δ(∞) = δᵢ is named
    table_cells(capsys, *args)


@pytest.mark.parametrize("name", ["mix.txt", "u.npy"])
def test_huge_budget_rows_have_reasons(capsys, files, name):
    args = ["--budgets", str(files / name), "--delta", "1e-6"]
    rows = {r["method"]: r for r in rows_of(capsys, *args)}
    cells = next(
        r for m, r in rows.items() if "cells" in m
    )  # below the cells' floor: the clone pair's value
    upper = next(r for m, r in rows.items() if "clone pair" in m)
    assert cells["value"] == upper["value"] and "the clone pair's value" in cells["reason"]
    thm2 = next(r for m, r in rows.items() if m.startswith("GSPA Theorem 2"))
    assert thm2["value"] is None and "μ = inf" in thm2["reason"]
    lower = next(r for r in rows.values() if r["kind"] == "lower bound")
    assert lower["value"] > 30  # the finite rows stay numbers
    table_cells(capsys, *args)


def test_rounds_with_a_revealing_user(capsys, files):
    """A user whose clone probability underflows leaves a pair with no finite loss at all; composing it
    used to raise IndexError in gspa.privacy.shuffle.outcomes."""
    rows = rows_of(capsys, "--budgets", str(files / "mix.txt"), "--delta", "1e-6", "--rounds", "2")
    adv = next(r for r in rows if r["method"].startswith("advanced composition"))
    assert adv["value"] is None and "exceeds the doubles" in adv["reason"]
    assert (
        rows_of(capsys, "--budgets", str(files / "mix.txt"), "--eps", "1", "--rounds", "2")[0][
            "value"
        ]
        == 1.0
    )
