"""A chapter run killed with SIGKILL cannot remove its kernel's socket folder; the next run removes it
(and every other such folder of this user whose process is gone), and leaves the folders of running
pipelines, other names, files and links alone."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from gspa.book import execution as K

from tinyrepo import wait_until


def dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_only_folders_of_ended_processes_are_removed(tmp_path):
    dead = tmp_path / f"gspa-kernel-{dead_pid()}-abc123"
    dead.mkdir()
    (dead / "kernel.json").write_text("{}")
    live = tmp_path / f"gspa-kernel-{os.getppid()}-live1"  # a running process (pytest's parent)
    live.mkdir()
    mine = tmp_path / f"gspa-kernel-{os.getpid()}-mine1"  # this process's own run
    mine.mkdir()
    other = tmp_path / "gspa-kernel-old_style"  # no pid in the name: not ours to judge
    other.mkdir()
    afile = tmp_path / f"gspa-kernel-{dead_pid()}-file1"
    afile.write_text("a file")
    link = tmp_path / f"gspa-kernel-{dead_pid()}-link1"
    link.symlink_to(live)
    assert K.remove_stale_socket_folders(str(tmp_path)) == [str(dead)]
    assert not dead.exists() and all(p.exists() for p in (live, mine, other, afile, link))


def test_a_reused_pid_does_not_keep_a_folder(tmp_path):
    """The pid in the name now belongs to a process started after the folder was last modified."""
    assert K._gone(os.getpid(), 1e9) and not K._gone(os.getpid(), os.stat(tmp_path).st_mtime)


def test_the_next_run_removes_the_folder_of_a_killed_run(tiny, tmp_path, request):
    temp = Path(
        tempfile.mkdtemp(prefix="gk")
    )  # the runs' TMPDIR, to see only theirs (a short path)
    request.addfinalizer(lambda: shutil.rmtree(temp, ignore_errors=True))
    env = {**os.environ, "TMPDIR": str(temp)}
    hold = tmp_path / "hold"
    log = tmp_path / "run.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gspa.book.pipeline", "run", "c", "-p", "hold", str(hold)],
        cwd=tiny,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        try:
            wait_until(hold.exists, proc, "the chapter started")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\nthe run's output:\n{log.read_text()[-3000:]}") from None
        (left,) = temp.glob(f"gspa-kernel-{proc.pid}-*")
        os.killpg(proc.pid, signal.SIGKILL)  # the pipeline, and the kernel with it
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    kernel = int(Path(f"{hold}.kernel").read_text())
    try:
        os.kill(kernel, signal.SIGKILL)  # (in case it started a session of its own)
    except ProcessLookupError:
        pass
    assert left.is_dir()  # what SIGKILL leaves behind
    out = subprocess.run(
        [sys.executable, "-m", "gspa.book.pipeline", "run", "c"],
        cwd=tiny,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "removed 1 kernel socket folder(s) left by a killed run" in out.stdout
    assert not left.exists() and list(temp.iterdir()) == []  # and the new run removed its own


def test_a_temporary_folder_too_long_for_unix_sockets_is_refused_by_name(tiny, tmp_path):
    """A Unix socket's path has at most 107 bytes: a TMPDIR that leaves no room for the kernel's socket
    names is refused in one line naming it (it used to fail inside the kernel as 'File name too long')."""
    deep = tmp_path / ("d" * 60) / ("e" * 40)
    deep.mkdir(parents=True)
    out = subprocess.run(
        [sys.executable, "-m", "gspa.book.pipeline", "run", "c"],
        cwd=tiny,
        env={**os.environ, "TMPDIR": str(deep)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2, out.stderr
    assert "too long a path for the kernel's Unix sockets" in out.stderr and str(deep) in out.stderr
    assert "Traceback" not in out.stderr
