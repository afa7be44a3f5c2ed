"""Ctrl-C (SIGINT) and SIGTERM stop a chapter's run at once with one line, exit status 130 / 143, the
kernel stopped and the previous result kept: nothing half-written."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gspa.book import freshness as F

from tinyrepo import wait_until


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_and_keeps_the_previous_result(tiny, tmp_path, sig, status):
    previous = {
        "chapter": "c",
        "profile": "paper",
        "values": {},
        "claims": [],
        "executed_sha256": "0" * 64,
    }
    res = F.result_path(tiny, "c")
    res.parent.mkdir(parents=True)
    res.write_text(json.dumps(previous))
    before = res.read_bytes()
    hold = tmp_path / "hold"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gspa.book.pipeline", "run", "c", "-p", "hold", str(hold)],
        cwd=tiny,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        wait_until(hold.exists, proc, "the chapter started")
        kernel = int(Path(f"{hold}.kernel").read_text())
        t0 = time.time()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert time.time() - t0 < 10, "not stopped promptly"
    assert proc.returncode == status, err
    lines = [
        ln
        for ln in err.splitlines()
        if ln.strip() and not ln.startswith(("Executing", "[IPKernelApp]"))
    ]
    assert lines == ["interrupted: c; the previous result is kept"], err
    assert "Traceback" not in err
    assert not alive(kernel), "the kernel outlived the run"
    assert res.read_bytes() == before and not F.executed_path(tiny, "c").exists()
    assert not any((tiny / ".cache" / "tmp").glob("*")) and not list(
        (tiny / "book").rglob("*.tmp*")
    )
