"""The chapters' kernel: ipykernel with no TCP port at all.

The pipeline starts it as ``python -m gspa.book.kernel -f <folder>/kernel.json`` with the connection file
in a private folder (mode 0700) and ZeroMQ's ``ipc`` transport (Unix sockets there; see
:func:`gspa.book.pipeline.ipc_kernel_manager`). ipykernel opens one more socket by itself: the pipe on
which forked child processes send their output, bound to a random TCP port on 127.0.0.1 whatever the
transport. Here that pipe is a Unix socket in the same folder, so nothing of the kernel listens on TCP
and only this user can reach it. The rest is ipykernel's own launcher (pinned: constraints.txt).

The folder is ``<temporary folder>/gspa-kernel-<pid>-<random>`` (:func:`socket_folder`, ``pid`` the
pipeline's): a run removes it when it ends, and a run killed before that (SIGKILL) leaves it behind, so
the next run removes every such folder of this user whose process is gone
(:func:`remove_stale_socket_folders`)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path

PIPE = "iopub-pipe"  # the forked children's output pipe, a Unix socket beside the connection file
PREFIX = "gspa-kernel-"
_FOLDER = re.compile(re.escape(PREFIX) + r"([0-9]+)-[A-Za-z0-9_]+")


def socket_folder() -> str:
    """A new private folder (mode 0700) for a run's kernel sockets: ``gspa-kernel-<pid>-<random>`` in the
    system's temporary folder (short paths: a Unix socket's path has at most 107 bytes)."""
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")


def _started(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch; Linux), or None if unknown."""
    try:
        ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(
            float(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime ")
        )
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _gone(pid: int, since: float) -> bool:
    """Whether the process that made a folder last modified at ``since`` has ended: no process ``pid``, or
    one started after that (the number was reused)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # a live process of another user
        return False
    started = _started(pid)
    return started is not None and started > since + 2


def remove_stale_socket_folders(where: str | None = None) -> list[str]:
    """Remove this user's ``gspa-kernel-<pid>-*`` folders in ``where`` (default: the system's temporary
    folder) whose process ``pid`` is gone: those of runs killed before they could remove their own.
    Folders of running pipelines, of other users, links and anything else are left alone. Returns the
    paths removed."""
    where = where or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return removed
    for entry in entries:
        m = _FOLDER.fullmatch(entry.name)
        if not m:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (
            not stat.S_ISDIR(st.st_mode)
            or st.st_uid != os.getuid()
            or int(m.group(1)) == os.getpid()
        ):
            continue
        if _gone(int(m.group(1)), min(st.st_mtime, time.time())):
            shutil.rmtree(entry.path, ignore_errors=True)
            if not os.path.lexists(entry.path):
                removed.append(entry.path)
    return removed


def pipe_on_unix_socket(folder: str) -> None:
    """Make ipykernel's IOPub thread bind its children's output pipe to ``ipc://<folder>/iopub-pipe``
    instead of a TCP port; messages keep their random 16-byte prefix, which the thread checks."""
    import zmq
    from ipykernel import iostream
    from zmq.eventloop.zmqstream import ZMQStream

    address = "ipc://" + os.path.join(folder, PIPE)

    def setup_in(thread):
        thread._pipe_uuid = os.urandom(16)  # forked children prefix their messages with it
        sock = thread.socket.context.socket(zmq.PULL)
        sock.linger = 0
        sock.bind(address)
        thread._pipe_in = ZMQStream(sock, thread.io_loop)
        thread._pipe_in.on_recv(thread._handle_pipe_msg)

    def setup_out(thread):
        ctx = zmq.Context()  # a forked child needs a context of its own
        sock = ctx.socket(zmq.PUSH)
        sock.linger = 3000
        sock.connect(address)
        return ctx, sock

    thread_class = iostream.IOPubThread
    if not all(
        callable(getattr(thread_class, m, None))
        for m in ("_setup_pipe_in", "_setup_pipe_out", "_handle_pipe_msg")
    ):
        raise RuntimeError(
            "this ipykernel has no IOPub pipe to move off TCP; install the version pinned in "
            "constraints.txt"
        )
    thread_class._setup_pipe_in = setup_in
    thread_class._setup_pipe_out = setup_out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if "-f" not in argv[:-1]:
        raise SystemExit("usage: python -m gspa.book.kernel -f CONNECTION_FILE [ipykernel options]")
    pipe_on_unix_socket(os.path.dirname(os.path.abspath(argv[argv.index("-f") + 1])))
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]  # as ipykernel_launcher: IPython adds the folder back
    from ipykernel import kernelapp

    kernelapp.launch_new_instance(argv)


if __name__ == "__main__":
    main()
