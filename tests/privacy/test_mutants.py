"""Mutation testing of the certified paths: every planted mutant of tests/mutants.py (a wrong choice of
the differing user, a dropped allowance, a wrong threshold, a swapped combiner, ...) makes the contract test or
a targeted test fail. Each mutant runs the tests in a forked process on a mutated copy of the package, stopping at
the first failure."""

import pytest

import mutants


@pytest.mark.parametrize("mutant", mutants.MUTANTS, ids=[m.name for m in mutants.MUTANTS])
def test_planted_mutant_is_killed(mutant):
    assert mutants.killed(mutant), f"mutant {mutant.name} survives the tests: {mutant.why}"


def test_the_runner_sees_an_unmutated_copy_pass():
    """The runner is not vacuous: with a mutant that changes nothing, the tests pass."""
    blank = mutants.Mutant(
        "blank", "gspa/privacy/numerics.py", "TINY = 2.0**-1020", "TINY = 2.0**-1020", "none"
    )
    assert not mutants.killed(blank, tests=["tests/privacy/test_mutant_killers.py"])
