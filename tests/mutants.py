"""Planted mutants of the certified paths, and the runner that checks the tests kill them.

Each :class:`Mutant` changes one line of the library in a copy of the repository's ``gspa`` package; the runner
runs chosen test files against that copy (first on the path, in a process forked from one that has imported pytest
and NumPy once) and the mutant is *killed* when they fail.
Mutmut's exhaustive operator mutants need hours on two cores for these modules; these are the errors a reviewer
plants by hand: a wrong choice of the differing user, a dropped allowance, a wrong threshold, a swapped combiner.

``python tests/mutants.py [TEST_FILE ...]`` prints the score (default: the contract test alone, the
"before" score; tests/privacy/test_mutants.py runs every mutant against :data:`KILLERS`, the "after" set).
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ["tests/privacy/test_contract.py"]
KILLERS = [
    "tests/privacy/test_mutant_killers.py",
    "tests/privacy/test_laplace_bands.py",
] + CONTRACT  # the fast targeted tests first (-x)


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # relative to the repository
    old: str  # a snippet that occurs exactly once in the file
    new: str
    why: str  # what the error would do to a certified number


MUTANTS = (
    Mutant(
        "revealing-smallest-clone",
        "gspa/privacy/shuffle/pairs.py",
        "        j = int(np.argmax(q))",
        "        j = int(np.argmin(q))",
        "the differing user taken as the one with the smallest clone probability (the review's planted error: "
        "more clones remain, the bound halves)",
    ),
    Mutant(
        "histogram-smallest-clone",
        "gspa/privacy/shuffle/pairs.py",
        "counts[int(np.argmax(q))] -= 1",
        "counts[int(np.argmin(q))] -= 1",
        "the same error for budgets given as a histogram",
    ),
    Mutant(
        "delta-n-dropped",
        "gspa/privacy/shuffle/pairs.py",
        "(x + self.delta_n * (1.0 - x))",
        "(x)",
        "the differing user's reveal probability not counted",
    ),
    Mutant(
        "delta-n-smallest",
        "gspa/privacy/shuffle/accountant.py",
        "        1.0,\n        float(delta.max()),",
        "        1.0,\n        float(delta.min()),",
        "delta_n the smallest delta_i",
    ),
    Mutant(
        "log-odds-smallest",
        "gspa/privacy/shuffle/accountant.py",
        '    L = np.inf if variant == "revealing" else float(eps.max())\n    q = halves',
        '    L = np.inf if variant == "revealing" else float(eps.min())\n    q = halves',
        "the differing user's budget the smallest, not the largest",
    ),
    Mutant(
        "laplace-one-more-clone",
        "gspa/privacy/shuffle/pairs.py",
        "self._laws[key] = _others(q, counts)",
        "self._laws[key] = clone_law(values=q, counts=counts)",
        "the differing Laplace user counted among its own clones",
    ),
    Mutant(
        "laplace-distance-one-only",
        "gspa/privacy/shuffle/pairs.py",
        "todo = [(0, top, 0, d.size - 1)]",
        "todo = [(0, top, d.size - 2, d.size - 1)]",
        "Laplace's inputs taken at distance 1 only, not every pair of inputs",
    ),
    Mutant(
        "laplace-upper-budgets-only",
        "gspa/privacy/shuffle/pairs.py",
        "                todo += [(lo, mid, j, k), (mid + 1, hi, j, k)]",
        "                todo += [(mid + 1, hi, j, k)]",
        "Laplace's cover drops the lower half of every band it splits (the least liberal users unchecked)",
    ),
    Mutant(
        "laplace-clones-across-budgets-unscaled",
        "gspa/privacy/shuffle/pairs.py",
        "q = np.minimum(1.0, 2.0 * ratio * np.exp(-u) / (1.0 + np.exp(-w * a))) * _ROUND_DOWN",
        "q = np.minimum(1.0, 2.0 * np.exp(-u) / (1.0 + np.exp(-w * a))) * _ROUND_DOWN",
        "Laplace's cross-budget clone weight without its factor u/w",
    ),
    Mutant(
        "worst-of-is-best-of",
        "gspa/privacy/profiles.py",
        '    the largest of their bounds (the adversary chooses who differs)."""\n\n    _pick = (np.maximum, max)',
        '    the largest of their bounds (the adversary chooses who differs)."""\n\n    _pick = (np.minimum, min)',
        "the best, not the worst, of the budget groups' pairs",
    ),
    Mutant(
        "krr-spread",
        "gspa/privacy/shuffle/pairs.py",
        "    zn_p = 1.0 + lam * (k - 2) * special.expit(-eps_n)",
        "    zn_p = 1.0 + lam * (k - 1) * special.expit(-eps_n)",
        "k-RR's clone probabilities too large",
    ),
    Mutant(
        "kary-blanket-smallest-budget",
        "gspa/privacy/shuffle/pairs.py",
        "g_n = float(min(1.0, blanket(eps_n))) * _ROUND_DOWN",
        "g_n = float(min(1.0, blanket(float(np.min(eps))))) * _ROUND_DOWN",
        "the k-RR blanket pair's differing user hides in the largest blanket",
    ),
    Mutant(
        "kary-signal",
        "gspa/privacy/shuffle/pairs.py",
        "(keep * t + g * (m + 1.0) * p)",
        "(keep * t + g * (m + 2.0) * p)",
        "the k-RR blanket pair's signal r(m, t) too small",
    ),
    Mutant(
        "tail-allowance-dropped",
        "gspa/privacy/numerics.py",
        "TAIL_ALLOW = SF_REL + gamma(12)",
        "TAIL_ALLOW = 0.0",
        "the binomial tails' measured error (and the arithmetic) not allowed for",
    ),
    Mutant(
        "hockey-log-allowance-dropped",
        "gspa/privacy/numerics.py",
        "up = pos * (1 + TAIL_ALLOW + a1) - neg * (1 - TAIL_ALLOW - a2)",
        "up = pos * (1 + TAIL_ALLOW) - neg * (1 - TAIL_ALLOW)",
        "the log domain's round-off (absolute in log S, relative after exp) not allowed for in a deep tail",
    ),
    Mutant(
        "laplace-others-budget-uncapped",
        "gspa/privacy/shuffle/cells.py",
        "ell = min(float(np.log(max(k * float(np.exp(v)) * cap - 1.0, 1.0))), v * a * (1 - 4 * U))",
        "ell = float(np.log(max(k * float(np.exp(v)) * cap - 1.0, 1.0)))",
        "LaplaceCells: the other users' budget ell above v a, where the participation formula overstates s",
    ),
    Mutant(
        "cells-victim-from-the-others",
        "gspa/privacy/shuffle/cells.py",
        'L = V.real("victim", victim, low=0.0, high=np.inf, high_open=True, scalar=True)',
        "L = float(eps.max())",
        "a known differing user bounded as if it had the others' largest budget, not its own",
    ),
    Mutant(
        "threshold-off-by-one",
        "gspa/privacy/numerics.py",
        "    a0 = np.floor(x).astype(np.int64) + 1",
        "    a0 = np.floor(x).astype(np.int64) + 2",
        "the binomial pair's likelihood-ratio threshold one too high",
    ),
    Mutant(
        "kary-run-last-count",
        "gspa/privacy/shuffle/pairs.py",
        "hit = (t_lo + edges - 1, cells,",
        "hit = (t_lo + np.append(edges[1:], w.size) - 2, cells,",
        "the k-RR blanket pair's runs of counts bounded at their last count (fewest clones not taken)",
    ),
    Mutant(
        "kary-run-first-signal",
        "gspa/privacy/shuffle/pairs.py",
        "        last = t_lo + np.append(edges[1:], w.size) - 1",
        "        last = t_lo + edges",
        "the k-RR blanket pair's runs of counts given their first count's signal (the weakest)",
    ),
    Mutant(
        "epsilon-below-root",
        "gspa/privacy/numerics.py",
        '        return float("inf") if first is None else float(min(_grid_value(first), top))',
        '        return float("inf") if first is None else float(min(_grid_value(first - 1), top))',
        "epsilon(delta) one grid point (2^-27) below the point where the certified delta meets the target",
    ),
    Mutant(
        "cells-one-direction",
        "gspa/privacy/shuffle/cells.py",
        "        for a in (victim_flip, 1.0 - victim_flip):",
        "        for a in (1.0 - victim_flip,):",
        "the cell bound's hockey-stick divergence in one direction only",
    ),
    Mutant(
        "cells-ratio-ascending",
        "gspa/privacy/shuffle/cells.py",
        '            order = np.argsort(-ratio, kind="stable")',
        '            order = np.argsort(ratio, kind="stable")',
        "the cell bound's terms summed from the smallest likelihood ratio",
    ),
    Mutant(
        "rows-read-as-one",
        "gspa/privacy/shuffle/clones.py",
        "        h_new = np.asarray(H(which, offset + np.concatenate(list(asked.values()))), dtype=float)",
        "        h_new = np.asarray(H(0 * which, offset + np.concatenate(list(asked.values()))), dtype=float)",
        "a batched clone-law bound refining every eps with the first eps's values",
    ),
    Mutant(
        "composition-basic-skipped",
        "gspa/privacy/shuffle/composition.py",
        "        if not np.isfinite(fft) or self._one_at_most(fft / (T * (1 + 4 * U)), delta / T):",
        "        if not np.isfinite(fft):",
        "basic composition consulted only beyond the lattice",
    ),
    Mutant(
        "hull-nodes-consecutive",
        "gspa/privacy/shuffle/composition.py",
        "    lattice = np.concatenate([[0], -at[:0:-1], at])  # its lattice index",
        "    lattice = np.concatenate([[0], -np.arange(at.size - 1, 0, -1), np.arange(at.size)])",
        "the nodes a curve was read at taken as consecutive lattice nodes (losses too small)",
    ),
    Mutant(
        "curve-pld-one-node-down",
        "gspa/privacy/interop/dpaccounting.py",
        "    pmf = {int((j - K) * r): float(omega[j]) for j in live}",
        "    pmf = {int((j - K - 1) * r): float(omega[j]) for j in live}",
        "the exported PLD's losses one node lower than the curve's",
    ),
    Mutant(
        "composition-direct-rel-dropped",
        "gspa/privacy/shuffle/composition.py",
        "        rel = (both + g) / (1 - g)  # (1 + both) / (1 - g) - 1",
        "        rel = both",
        "a direct convolution's round-off left out of the composed measure's relative error",
    ),
    Mutant(
        "composition-one-round-less",
        "gspa/privacy/shuffle/composition.py",
        '    rounds = V.integer("rounds", rounds, low=1, high=MAX_ROUNDS)\n    out = None',
        '    rounds = V.integer("rounds", rounds, low=1, high=MAX_ROUNDS)\n    rounds = max(1, rounds - 1)\n'
        "    out = None",
        "T rounds composed as T - 1",
    ),
    Mutant(
        "any-ldp-mean-budget",
        "gspa/privacy/shuffle/accountant.py",
        '    L = np.inf if variant == "revealing" else float(eps.max())\n    return ReducedPair(\n        clone_law(values=np.array([0.5])',
        '    L = np.inf if variant == "revealing" else float(eps.mean())\n    return ReducedPair(\n        clone_law(values=np.array([0.5])',
        "no amplification, but at the mean budget",
    ),
    Mutant(
        "score-cut-uncounted",
        "gspa/privacy/shuffle/lower.py",
        "tau = tau + np.where((lo > offset) | (hi < end), TOL, 0.0)",
        "tau = tau + 0.0",
        "the Laplace score bound's sum cut to its Bernstein window without counting the mass cut",
    ),
    Mutant(
        "score-loss-unscaled",
        "gspa/privacy/shuffle/lower.py",
        "out = max(out, (gain - ee * loss)",
        "out = max(out, (gain - loss)",
        "the Laplace score bound's event under the other data set not weighed by e^eps (a lower bound too large)",
    ),
    Mutant(
        "kary-counts-edge-kept",
        "gspa/privacy/shuffle/lower.py",
        "            if b[0] > 0:",
        "            if False:",
        "the k-ary counts bound keeps the counts at its box's lower side, whose law under the other input needs "
        "the count below, left out of the box (a lower bound too large)",
    ),
    Mutant(
        "kary-counts-unscaled",
        "gspa/privacy/shuffle/lower.py",
        "lo_a - ee * hi_b",
        "lo_a - hi_b",
        "the k-ary counts bound's event under the other input not weighed by e^eps (a lower bound too large)",
    ),
    Mutant(
        "core-end-not-cut",
        "gspa/privacy/shuffle/pairs.py",
        "    far = u * (1.0 - 0.5 * a) + np.maximum(u - w_lo, 0.0) * M  # the end of the core",
        "    far = u * (1.0 - 0.5 * a)  # the end of the core",
        "the Laplace core pair's users with larger budgets as clones without the fall of their density towards"
        " the ends of the core (too many clones)",
    ),
    Mutant(
        "core-band-split-at-top",
        "gspa/privacy/shuffle/pairs.py",
        "    tau = np.where(u <= w_lo, tau, np.minimum(tau, end))",
        "    tau = np.where(u <= w_hi, tau, np.minimum(tau, end))",
        "a band's users between its lowest and highest budget taken as below every differing user in it",
    ),
    Mutant(
        "reveal-mix-bands-dropped",
        "gspa/privacy/shuffle/cells.py",
        "mix = self.tail + d[-1] + float(np.dot(self.weights, d[:-1] - d[1:]))",
        "mix = self.tail + d[-1]",
        "the cell bound with users in the clear paid only for the count in the clear exceeded with probability 1/4",
    ),
    Mutant(
        "reveal-count-undercounted",
        "gspa/privacy/shuffle/cells.py",
        "c = _rare_count(mc * pad + 1e-9, vc * pad + 1e-9, p, n_b)",
        "c = _rare_count(mc * pad + 1e-9, vc * pad + 1e-9, 100 * p, n_b)",
        "the counts in the clear of the mixture's pieces exceeded more often than their weights say",
    ),
    Mutant(
        "laplace-local-smallest-budget",
        "gspa/privacy/shuffle/accountant.py",
        'float(values[-1]), "the most liberal',
        'float(values[0]), "the most liberal',
        "the Laplace bound capped by the least liberal user's own report, not the most liberal's",
    ),
    Mutant(
        "laplace-local-quarter",
        "gspa/privacy/basics/mechanisms.py",
        "np.expm1((eps - eps0) / 2.0)",
        "np.expm1((eps - eps0) / 4.0)",
        "the local Laplace profile 1 - e^((eps - v)/4): below the report's own delta",
    ),
    Mutant(
        "laplace-local-roundoff-dropped",
        "gspa/privacy/shuffle/pairs.py",
        "return min(1.0, float(laplace_delta(e, self.v)) * (1 + gamma(8)) + TINY)",
        "return min(1.0, float(laplace_delta(e, self.v)))",
        "the local Laplace profile as rounded, its round-off not counted",
    ),
)


#: the test that killed each mutant when last measured, run alone first (seconds); only when it no longer fails
#: does the runner run every file of ``tests``, so such a mutant is judged by them all
FIRST_KILLER = {
    "laplace-local-smallest-budget": "tests/privacy/test_laplace_bands.py::test_the_most_liberal_users_own_report_caps_the_bound_above_the_binned_protocol[budgets1]",
    "laplace-local-quarter": "tests/privacy/test_laplace_bands.py::test_the_most_liberal_users_own_report_caps_the_bound_above_the_binned_protocol[budgets0]",
    "laplace-local-roundoff-dropped": "tests/privacy/test_mutant_killers.py::test_the_local_laplace_profile_is_above_its_exact_value",
    "revealing-smallest-clone": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[binary-rr-revealing-blanket-0]",
    "histogram-smallest-clone": "tests/privacy/test_contract.py::test_histogram_equals_repeated_budgets",
    "delta-n-dropped": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[quaternary-randomized-blanket-0]",
    "delta-n-smallest": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[quaternary-randomized-blanket-0]",
    "log-odds-smallest": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[binary-rr-randomized-blanket-0]",
    "laplace-one-more-clone": "tests/privacy/test_mutant_killers.py::test_laplace_with_a_common_budget_is_the_clone_pair_of_the_other_users[0.5-3]",
    "laplace-distance-one-only": "tests/privacy/test_laplace_bands.py::test_laplace_bands_branch_and_bound_is_the_largest_cell[values0-counts0]",
    "laplace-upper-budgets-only": "tests/privacy/test_laplace_bands.py::test_laplace_bands_branch_and_bound_is_the_largest_cell[values1-counts1]",
    "laplace-clones-across-budgets-unscaled": "tests/privacy/test_laplace_bands.py::test_laplace_cross_budget_weight_is_the_smallest_ratio_and_is_attained[0.0-1.0-0.3-1.0]",
    "worst-of-is-best-of": "tests/privacy/test_mutant_killers.py::test_worst_of_takes_the_largest",
    "krr-spread": "tests/privacy/test_mutant_killers.py::test_kary_clone_weights_are_the_declared_ones[3]",
    "kary-blanket-smallest-budget": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[3-k-rr-randomized-blanket-0]",
    "kary-signal": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[3-k-rr-randomized-blanket-0]",
    "tail-allowance-dropped": "tests/privacy/test_mutant_killers.py::test_hockey_bound_carries_its_allowance[0.1-40-1.0]",
    "hockey-log-allowance-dropped": "tests/privacy/test_mutant_killers.py::test_hockey_bound_counts_the_log_domain_round_off[5.0-1000-10.0]",
    "laplace-others-budget-uncapped": "tests/privacy/test_laplace_cells.py::test_every_other_user_is_randomized_response_with_the_stated_probability[1.0]",
    "cells-victim-from-the-others": "tests/privacy/test_laplace_cells.py::test_a_known_differing_user_is_bounded_above_its_exact_protocol[2.0-others1-0.35]",
    "threshold-off-by-one": "tests/privacy/test_mutant_killers.py::test_hockey_bound_carries_its_allowance[0.1-40-1.0]",
    "kary-run-last-count": "tests/privacy/test_mutant_killers.py::test_kary_runs_of_counts_bound_each_count[4.0-0.03]",
    "kary-run-first-signal": "tests/privacy/test_mutant_killers.py::test_kary_runs_of_counts_bound_each_count[1.0-0.0022]",
    "epsilon-below-root": "tests/privacy/test_mutant_killers.py::test_epsilon_is_on_the_certified_side[0.001-fmt21]",
    "cells-one-direction": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[binary-rr-randomized-cells-0]",
    "cells-ratio-ascending": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[binary-rr-randomized-cells-0]",
    "rows-read-as-one": "tests/privacy/test_accountant.py::test_delta_at_many_eps_is_delta_at_each[clones]",
    "composition-basic-skipped": "tests/privacy/test_composition.py::test_epsilon_is_the_best_of_its_three_bounds",
    "hull-nodes-consecutive": "tests/privacy/test_composition.py::test_composition_of_a_curve_read_at_some_nodes_is_above_the_exact_composition[rr-1.0-10-0.0]",
    "curve-pld-one-node-down": "tests/privacy/test_pld_export.py::test_curve_pld_dominates_the_bound",
    "composition-direct-rel-dropped": "tests/privacy/test_composition.py::test_lattice_power_dominates_the_exact_composition",
    "composition-one-round-less": "tests/privacy/test_contract.py::test_two_rounds_are_above_the_exact_composed_protocol[binary-rr-randomized-blanket]",
    "any-ldp-mean-budget": "tests/privacy/test_contract.py::test_upper_bound_is_above_the_exact_protocol[any-ldp-randomized-blanket-0]",
    "score-cut-uncounted": "tests/privacy/test_laplace_score.py::test_the_sum_of_lattice_laws_holds_the_exact_law[300-0]",
    "score-loss-unscaled": "tests/privacy/test_laplace_score.py::test_score_bound_is_the_scored_protocol[eps0]",
    "kary-counts-edge-kept": "tests/privacy/test_kary.py::test_counts_lower_bound_holds_on_a_box_cut_on_both_sides[0]",
    "kary-counts-unscaled": "tests/privacy/test_kary.py::test_counts_lower_bound_is_the_exact_profile_of_its_data_set[2-1.0-3-0]",
    "core-end-not-cut": "tests/privacy/test_laplace_bands.py::test_core_weight_is_below_the_smallest_ratio_on_the_core[0.0-1.0-1.02-1.0-16.0]",
    "core-band-split-at-top": "tests/privacy/test_laplace_bands.py::test_a_nodes_core_weight_holds_for_every_budget_and_distance_in_it[16.0]",
    "reveal-mix-bands-dropped": "tests/privacy/test_cells.py::test_reveal_mix_is_the_expectation_over_the_reveal_count[0]",
    "reveal-count-undercounted": "tests/privacy/test_cells.py::test_reveal_mix_weights_bound_the_exact_tails_and_the_mixture_gains[0.02-3000]",
}


def mutate(mutant: Mutant, root: Path) -> None:
    """Apply ``mutant`` to the copy of the repository at ``root`` (its snippet must occur exactly once)."""
    f = root / mutant.path
    text = f.read_text(encoding="utf-8")
    if text.count(mutant.old) != 1:
        raise ValueError(
            f"mutant {mutant.name}: its snippet occurs {text.count(mutant.old)} times in {mutant.path}"
        )
    f.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


#: the runner's server: a process that has imported pytest, Hypothesis, NumPy and SciPy once (about 2 s of
#: every run's start) and forks one child per run, which imports the mutated copy's gspa and runs pytest.main.
#: It imports nothing of gspa itself, so each child imports the copy it is given (checked in the child).
_SERVE = r"""
import json, os, signal, sys
import hypothesis, numpy, pytest, scipy.special, scipy.stats  # shared by every run
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:  # the run: its output discarded, killed by SIGALRM after its timeout
        code = 98
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            signal.alarm(job["timeout"])
            os.chdir(job["root"])
            sys.path.insert(0, job["root"])
            os.environ["PYTHONPATH"] = job["root"] + os.pathsep + os.environ.get("PYTHONPATH", "")
            import gspa
            code = int(pytest.main(job["args"])) if gspa.__file__.startswith(job["root"]) else 97
        finally:
            os._exit(code)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
"""


@functools.cache
def _server() -> subprocess.Popen:
    """This process's server, started on first use and ended with the process."""
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=tempfile.gettempdir(),  # not the repository: its gspa must not be the one imported
    )
    atexit.register(lambda: (server.stdin.close(), server.wait()))
    return server


def _run(root: Path, args: list[str], timeout: float) -> int:
    """pytest's exit status for ``args`` run with ``root`` (a mutated copy) first on the path, in a child
    of the server."""
    server = _server()
    job = {"root": str(root), "args": args, "timeout": int(timeout)}
    server.stdin.write(json.dumps(job) + "\n")
    server.stdin.flush()
    code = int(server.stdout.readline())
    if code == 97:
        raise RuntimeError(f"the mutated copy at {root} is not the gspa its run imported")
    if code < 0 or code == 98:
        raise RuntimeError(
            f"the run of {args} on {root} ended by signal {-code} or failed to start"
        )
    return code


def killed(mutant: Mutant, tests=KILLERS, timeout: float = 1800.0) -> bool:
    """True when ``tests`` (files relative to the repository) fail with ``mutant`` applied."""
    with tempfile.TemporaryDirectory(prefix=f"gspa-mutant-{mutant.name}-") as tmp:
        tmp = Path(tmp)
        shutil.copytree(ROOT / "gspa", tmp / "gspa", ignore=shutil.ignore_patterns("__pycache__"))
        mutate(mutant, tmp)
        opts = ["-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
        opts += ["-n", "0"]  # one process: the mutants already run beside the other tests
        pytest = lambda args: _run(tmp, opts + [str(ROOT / t) for t in args], timeout)
        # pytest folds a test id into its file when both are given, so the first killer runs on its own; it
        # counts only when a test failed (status 1), not when the id no longer exists (status 4)
        first = FIRST_KILLER.get(mutant.name)
        if tests is KILLERS and first and pytest([first]) == 1:
            return True
        return pytest(tests) != 0


def score(tests) -> tuple[int, list[str]]:
    survivors = [m.name for m in MUTANTS if not killed(m, tests)]
    return len(MUTANTS) - len(survivors), survivors


if __name__ == "__main__":
    tests = sys.argv[1:] or CONTRACT
    n, survivors = score(tests)
    print(
        f"{n}/{len(MUTANTS)} mutants killed by {' '.join(tests)}; survivors: {', '.join(survivors) or 'none'}"
    )
