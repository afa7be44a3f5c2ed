"""The chapters' kernels, reachable only by this user.

ipykernel runs with ZeroMQ's ``ipc`` transport: its channels are Unix sockets, with its connection file, in a
private folder (mode 0700), so no other local user can reach them (on TCP, any could). (ipykernel opens one
more socket by itself, for forked children's output, on 127.0.0.1; it takes only messages that start with a
random key the kernel keeps.) The folder is ``<temporary folder>/gspa-kernel-<pid>-<random>``: a run removes
it when it ends; one killed first (SIGKILL) leaves it, and the next run removes every such folder of this user
whose process is gone (:func:`remove_stale_socket_folders`)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time

from gspa.book.parameters import PipelineError

PREFIX = "gspa-kernel-"
_FOLDER = re.compile(re.escape(PREFIX) + r"([0-9]+)-[A-Za-z0-9_]+")
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with its terminating NUL


def socket_folder() -> str:
    """A new private folder for a run's kernel sockets; refused, naming it, where the temporary folder's path
    leaves no room for the sockets' names."""
    where = tempfile.gettempdir()
    longest = len(os.fsencode(os.path.join(where, f"{PREFIX}{os.getpid()}-12345678", "kernel-99")))
    if longest > MAX_SOCKET_PATH:
        raise PipelineError(
            f"the temporary folder {where!r} is too long a path for the kernel's Unix sockets (at most "
            f"{MAX_SOCKET_PATH} bytes with their names, here {longest}); set TMPDIR to a shorter folder"
        )
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")


def ipc_kernel_manager(folder: str, started: list):
    """A kernel manager class for papermill whose kernel's sockets and connection file are in ``folder``;
    every manager made is appended to ``started`` (to stop its kernel on a signal)."""
    from jupyter_client import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.connection_file = os.path.join(folder, "kernel.json")
            self.ip = os.path.join(folder, "kernel")  # the sockets are <ip>-<port>
            started.append(self)

    return IPCKernelManager


def _gone(pid: int, since: float) -> bool:
    """Whether the process that made a folder last modified at ``since`` has ended: there is no process
    ``pid``, or it started after that (the number was reused)."""
    import psutil

    try:
        return psutil.Process(pid).create_time() > since + 2
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def remove_stale_socket_folders(where: str | None = None) -> list[str]:
    """Remove this user's ``gspa-kernel-<pid>-*`` folders in ``where`` (the temporary folder) whose process
    is gone; leave those of running pipelines, of other users, links and anything else. Returns those removed."""
    where = where or tempfile.gettempdir()
    removed = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return removed
    for entry in entries:
        m = _FOLDER.fullmatch(entry.name)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (
            m
            and stat.S_ISDIR(st.st_mode)
            and st.st_uid == os.getuid()
            and int(m[1]) != os.getpid()
            and _gone(int(m[1]), min(st.st_mtime, time.time()))
        ):
            shutil.rmtree(entry.path, ignore_errors=True)
            if not os.path.lexists(entry.path):
                removed.append(entry.path)
    return removed
