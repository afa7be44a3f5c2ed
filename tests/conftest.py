"""Shared fixtures: a smoke build of the whole book in a temporary copy of the repository.

The copy holds the files git tracks (plus untracked, not-ignored ones), as a fresh clone would, so
the tests never touch the working tree's own build."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def copy_repo(dest: Path) -> Path:
    files = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for f in filter(None, files):
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)
    return dest


def gspa(root: Path, *args, check=True):
    proc = subprocess.run(
        [sys.executable, "-m", "gspa.book.pipeline", *args],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"gspa {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return proc


@pytest.fixture(scope="session")
def smoke_book(tmp_path_factory):
    """Every chapter executed with the smoke profile and the book built with -W."""
    root = copy_repo(tmp_path_factory.mktemp("repo"))
    gspa(root, "build", "--profile", "smoke")
    artifacts = ROOT / "_build" / "test-artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(autouse=True)
def _no_dask_scheduler_from_the_caller(monkeypatch):
    """A GSPA_DASK_SCHEDULER set where the tests run would send every sweep to that cluster: the tests
    choose their engine themselves (tests/experiments/test_pool.py starts its own local cluster)."""
    monkeypatch.delenv("GSPA_DASK_SCHEDULER", raising=False)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config, items):
    """make test runs on both cores (pytest-xdist, ``--dist loadgroup``): the tests of the smoke book
    (marked ``book`` or ``browser``) share one session fixture, so they go to one worker together, and the
    rest is shared out around them."""
    for item in items:
        if item.get_closest_marker("book") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("smoke-book"))
