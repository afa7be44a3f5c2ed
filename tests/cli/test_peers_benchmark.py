"""benchmarks/peers.py: the harness that times peers' public code (given by the user) beside gspa."""
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "peers.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT)


def test_without_peer_code_it_says_where_to_get_it():
    out = run()
    assert out.returncode == 0, out.stderr
    assert "github.com/wangsw/PrivacyAmplification" in out.stdout and "--eon DIR" in out.stdout


def test_a_peer_module_is_imported_from_the_given_directory_and_timed(tmp_path):
    """A stand-in for FMT21's module (same function name and signature) is loaded and its number printed."""
    (tmp_path / "computeamplification.py").write_text(
        "def numericalanalysis(n, eps0, delta, num_iterations, step, upperbound):\n    return 0.123456\n")
    out = run("--fmt21", str(tmp_path), "--max-exp", "4")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("0.123456") == 3 and "speed ratio" in out.stdout


def test_a_directory_without_the_peer_file_is_refused(tmp_path):
    out = run("--wang", str(tmp_path))
    assert out.returncode == 2 and "has no unifiedamplification.py" in out.stderr and "Traceback" not in out.stderr
