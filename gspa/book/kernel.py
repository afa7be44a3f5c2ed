"""The private folders of the chapters' kernels.

The pipeline starts ipykernel with its connection file in a private folder (mode 0700) and ZeroMQ's
``ipc`` transport (Unix sockets there; :func:`gspa.book.pipeline.ipc_kernel_manager`), so only this user
can reach its channels. (ipykernel opens one more socket by itself, for the output of forked child
processes, on 127.0.0.1; it takes only messages that start with a random 16-byte key the kernel keeps.)

The folder is ``<temporary folder>/gspa-kernel-<pid>-<random>`` (:func:`socket_folder`, ``pid`` the
pipeline's): a run removes it when it ends, and a run killed before that (SIGKILL) leaves it behind, so
the next run removes every such folder of this user whose process is gone
(:func:`remove_stale_socket_folders`)."""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

PREFIX = "gspa-kernel-"
_FOLDER = re.compile(re.escape(PREFIX) + r"([0-9]+)-[A-Za-z0-9_]+")


#: the longest path of a Unix socket (sun_path holds 108 bytes with its terminating NUL)
MAX_SOCKET_PATH = 107


def socket_folder() -> str:
    """A new private folder (mode 0700) for a run's kernel sockets: ``gspa-kernel-<pid>-<random>`` in the
    system's temporary folder. A temporary folder whose path leaves no room for the sockets' names (a Unix
    socket's path has at most 107 bytes) is refused with a message that names it (ValueError)."""
    where = tempfile.gettempdir()
    longest = os.path.join(where, f"{PREFIX}{os.getpid()}-12345678", "kernel-99")
    if len(os.fsencode(longest)) > MAX_SOCKET_PATH:
        raise ValueError(
            f"the temporary folder {where!r} is too long a path for the kernel's Unix sockets (at most "
            f"{MAX_SOCKET_PATH} bytes with their names, here {len(os.fsencode(longest))}); set TMPDIR to a "
            "shorter folder"
        )
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
