"""`pip install .` without extras gives a working library and `gspa account`: the core
modules import none of the book's packages, and they run with those packages made unimportable."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK_PACKAGES = (
    "matplotlib",
    "seaborn",
    "pandas",
    "torch",
    "papermill",
    "yaml",
    "IPython",
    "nbformat",
    "jupytext",
    "dp_accounting",
    "jupyter_book",
    "sklearn",
)


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def test_core_modules_load_no_book_package():
    out = _run(f"""
        import sys, json, numpy as np
        import gspa, gspa.privacy, gspa.cli, gspa.cli.account
        gspa.personalized_pair(np.array([0.5, 1.0, 2.0])).epsilon(1e-6)
        gspa.cli.account.account(np.array([0.5, 1.0]), np.array([3, 2]), delta=1e-6, eps=None)
        print(json.dumps(sorted(m for m in {BOOK_PACKAGES!r} if m in sys.modules)))""")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == []


BLOCK = f"""
    import sys
    class Block:                                   # the book's packages are not installed
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {BOOK_PACKAGES!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
    sys.meta_path.insert(0, Block())
"""


def test_library_and_command_work_without_the_book_packages(tmp_path):
    budgets = tmp_path / "eps.txt"
    budgets.write_text("0.5\n1.0\n2.0\n1.0\n")
    out = _run(
        textwrap.dedent(BLOCK)
        + textwrap.dedent(f"""
        import numpy as np, gspa
        from gspa.cli import main
        print(gspa.fmt21_pair(1.0, 1000).epsilon(1e-6))
        assert main(["--help"]) == 0
        assert main(["account", "--budgets", {str(budgets)!r}, "--delta", "1e-6", "--rounds", "2"]) == 0
        assert main(["build"]) == 2
        try:
            gspa.to_pld(gspa.fmt21_pair(1.0, 100))
        except ModuleNotFoundError as exc:
            print("to_pld:", exc)
        try:
            main(["account", "--help"])
        except SystemExit as exc:                  # argparse's help exits
            assert exc.code == 0
        print("help done")""")
    )
    assert out.returncode == 0, out.stderr
    assert "account" in out.stdout and "pip install 'gspa[book]'" in out.stdout
    assert "certified" in out.stdout  # the account table
    assert "pip install 'gspa[book]'" in out.stderr  # `gspa build` explains what is missing
    assert "to_pld: No module named 'dp_accounting'" in out.stdout
    assert "--budgets" in out.stdout and out.stdout.rstrip().endswith("help done")
