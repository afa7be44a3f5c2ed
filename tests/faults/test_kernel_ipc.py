"""The chapter's kernel talks over Unix sockets in a private (0700) folder; the one TCP port it opens is
ipykernel's own pipe for forked children's output, on the loopback address only."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tinyrepo import wait_until


def listening_tcp(pid: int) -> list:
    """The TCP (v4 and v6) sockets in state LISTEN that process ``pid`` holds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A" and f[9] in inodes:  # st 0A: LISTEN; f[9]: the inode
                found.append((table, f[1]))
    return found


def test_the_kernel_channels_are_private_unix_sockets_and_the_chapter_runs(tiny, tmp_path):
    hold = tmp_path / "hold"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gspa.book.pipeline", "run", "c", "-p", "hold", str(hold)],
        cwd=tiny,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_until(hold.exists, proc, "the chapter started")
        kernel = int(Path(f"{hold}.kernel").read_text())
        tcp = listening_tcp(kernel)
        assert len(tcp) <= 1 and all(
            t == "/proc/net/tcp" and a.startswith("0100007F:") for t, a in tcp
        )  # 127.0.0.1 only
        args = Path(f"/proc/{kernel}/cmdline").read_bytes().split(b"\0")
        conn = Path(args[args.index(b"-f") + 1].decode())
        info = json.loads(conn.read_text())
        assert info["transport"] == "ipc" and info["ip"].startswith(str(conn.parent))
        assert (
            stat.S_IMODE(conn.parent.stat().st_mode) & 0o777 == 0o700
        )  # (jupyter_client adds the sticky bit)
        assert all(
            Path(f"{info['ip']}-{info[k]}").is_socket()
            for k in ("shell_port", "iopub_port", "hb_port")
        )
    finally:
        Path(f"{hold}.go").touch()
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    assert not conn.parent.exists()  # the private folder is removed
    assert (
        json.loads((tiny / "book" / "_results" / "c.json").read_text())["values"]["x"]["value"] == 1
    )
