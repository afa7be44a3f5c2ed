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


#: the test files ``make check`` leaves out (marked ``slow`` here, in one place): those that start kernels,
#: pipelines or commands in other processes, train, plant the accountant's mutants or integrate the continuous
#: Laplace protocol. ``make test`` runs them all. (A test elsewhere that computes for several seconds, or one
#: of its parameters, carries ``@pytest.mark.slow``: ``make check`` stays within about 3 minutes.)
SLOW_FILES = {
    "tests/book/test_freshness.py",
    "tests/book/test_notebook_lint.py",
    "tests/book/test_pipeline_tiny.py",
    "tests/book/test_sitesearch.py",
    "tests/cli/test_account.py",
    "tests/cli/test_core_install.py",
    "tests/cli/test_peers_benchmark.py",
    "tests/experiments/test_pool.py",
    "tests/faults/test_damaged_files.py",
    "tests/faults/test_interrupt.py",
    "tests/faults/test_kernel_folders.py",
    "tests/faults/test_kernel_ipc.py",
    "tests/faults/test_parameter_files.py",
    "tests/privacy/test_laplace_continuous.py",
    "tests/privacy/test_mutants.py",
    "tests/studies/gspa/test_private_sgd.py",
}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("::", 1)[0] in SLOW_FILES:
            item.add_marker(pytest.mark.slow)


#: the test files that share the smoke book (the session fixture ``smoke_book``)
SMOKE_BOOK_FILES = {
    "tests/book/test_book.py",
    "tests/book/test_browser.py",
    "tests/book/test_freshness_book.py",
}


def pytest_xdist_make_scheduler(config, log):
    """make test runs the tests on both cores (pytest-xdist): each test file goes to one worker, and the
    files that share the smoke book go to the same one, which builds it once (xdist's documented way to
    group tests: a scheduler whose scopes are chosen here)."""
    from xdist.scheduler import LoadScopeScheduling

    class SmokeBookTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return "smoke-book" if path in SMOKE_BOOK_FILES else path

    return SmokeBookTogether(config, log)
