"""benchmarks/peers.py: the harness that times peers' public code (given by the user) beside gspa."""

import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "benchmarks" / "peers.py"


def run(*args, readme=""):
    """The script with ``args``; its section of benchmarks/README.md goes to ``readme`` ('': nowhere), never
    to the repository's own file."""
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--readme", str(readme)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_without_peer_code_it_says_where_to_get_it(tmp_path):
    out = run(readme=tmp_path / "README.md")
    assert out.returncode == 0, out.stderr
    assert not (tmp_path / "README.md").exists()  # nothing measured, nothing written
    assert "github.com/wangsw/PrivacyAmplification" in out.stdout and "--eon DIR" in out.stdout


def test_a_peer_module_is_imported_from_the_given_directory_and_timed(tmp_path):
    """A stand-in for FMT21's module (same function name and signature) is loaded and its number printed."""
    (tmp_path / "computeamplification.py").write_text(
        "def numericalanalysis(n, eps0, delta, num_iterations, step, upperbound):\n    return 0.123456\n"
    )
    readme = tmp_path / "README.md"
    out = run("--fmt21", str(tmp_path), "--max-exp", "4", readme=readme)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("0.123456") == 3 and "speed ratio" in out.stdout
    section = readme.read_text()  # the run's own section of the benchmarks README, with its output
    assert (
        "<!-- begin: peers -->" in section and section.count("0.123456") == 3 and "- 20" in section
    )


def test_a_directory_without_the_peer_file_is_refused(tmp_path):
    out = run("--wang", str(tmp_path))
    assert (
        out.returncode == 2
        and "has no unifiedamplification.py" in out.stderr
        and "Traceback" not in out.stderr
    )


def test_su_cheng_wang_runs_on_numpy_where_cupy_is_missing(tmp_path):
    """Their module imports CuPy; a stand-in using cp.fft (as theirs does) must run with NumPy in its place,
    and the upper and lower bound rows must both be printed."""
    (tmp_path / "amplification_bounds.py").write_text(
        "import cupy as cp\n"
        "class FFTbound:\n"
        "    def __init__(self, mechanism):\n        self.m = mechanism\n"
        "    def get_eps(self, eps0, n, delta):\n"
        "        print('bingo!')\n"
        "        return float(cp.fft.ifft(cp.fft.fft(cp.asarray([0.654321, 0.0]))).real[0])\n"
        "class FFTLowerBound(FFTbound):\n"
        "    def get_eps(self, eps0, n, delta):\n        return 0.010203\n"
    )
    (tmp_path / "mechanisms.py").write_text(
        "class RRMechanism:\n    def __init__(self, eps0, k):\n        pass\n"
        "class RRMechanism_lowerbound(RRMechanism):\n    pass\n"
    )
    out = run("--scw", str(tmp_path), "--max-exp", "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("0.654321") == 2 and out.stdout.count("0.010203") == 2
    assert "NumPy for CuPy" in out.stdout and "bingo" not in out.stdout


def test_koskela_script_body_is_not_run(tmp_path):
    """Their file is a script: only its imports and functions are executed (the body here would exit)."""
    (tmp_path / "delta_shuffler_fa.py").write_text(
        "import numpy as np\n"
        "def get_omega(n, k, eps0, nx, L):\n"
        "    dx = 2 * L / nx\n"
        "    grid = np.linspace(-L, L - dx, nx)\n"
        "    omega = np.zeros(nx)\n"
        "    omega[-1] = 1.0\n"
        "    return omega, grid, 0.0\n"
        "raise SystemExit('the script body ran')\n"
    )
    out = run("--koskela", str(tmp_path), "--max-exp", "4")
    assert out.returncode == 0, out.stderr + out.stdout
    # all mass at x = 20 - dx: delta(0.5) = 1 - exp(0.5 - x)
    assert "1.0000e+00" in out.stdout and "n = 1e+04" in out.stdout


def test_su_cheng_wang_needs_both_files(tmp_path):
    (tmp_path / "amplification_bounds.py").write_text("x = 1\n")
    out = run("--scw", str(tmp_path))
    assert out.returncode == 2 and "has no mechanisms.py" in out.stderr


def test_wang_s_k_ary_bound_is_timed_against_gspa_s_upper_bound(tmp_path):
    """The ratio compares upper bound with upper bound: the 10-RR row's gspa value is the certified upper bound
    (what a user calls), and gspa's computation of their pair (a lower bound) is printed apart, outside it."""
    import numpy as np

    import gspa
    from gspa.privacy.shuffle.lower import lower_bound

    (tmp_path / "unifiedamplification.py").write_text(
        "def computeUBParameters(eps0, kind, k):\n    return ()\n"
        "def amplificationUB(n, delta, steps):\n    return 0.777777\n"
    )
    out = run("--wang", str(tmp_path), "--max-exp", "4")
    assert out.returncode == 0, out.stderr
    one = dict(counts=np.array([10**4]))
    upper = gspa.personalized_pair(np.array([1.0]), randomizer="k-rr", k=10, **one).epsilon(1e-6)
    lower = lower_bound(np.array([1.0]), "k-rr", k=10, **one).epsilon(1e-6)
    row = next(line for line in out.stdout.splitlines() if "10-RR, eps0 = 1, n = 1e+04" in line)
    below = out.stdout.splitlines()[out.stdout.splitlines().index(row) + 1]
    assert row.split()[-4] == f"{upper:.6f}" and row.endswith("x")
    assert "lower_bound" in below and f"{lower:.6f}" in below and not below.endswith("x")
