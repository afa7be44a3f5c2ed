"""Figure 2: the paper's bound against the baselines and the exact accountants, for one budget vector.

:func:`compare` returns one row per method: the central epsilon at central delta (or None with the
reason when a bound's conditions fail), and what kind of number it is:

* ``approximation`` — Theorem 2's mu-GDP via Fact 3 (the paper's curve; not a certified bound);
* ``closed form``   — a baseline's proven formula, evaluated inside its conditions;
* ``upper``         — a certified upper bound (gspa.privacy.shuffle.accountant), valid for the randomizer named;
* ``lower``         — a certified lower bound on the real protocol's epsilon (binary randomized response,
                      explicit neighbouring data sets), rounded down.
"""

from __future__ import annotations

import numpy as np

from gspa.privacy import profiles as PROF
from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as LB
from gspa.privacy.shuffle import pairs as PAIRS
from gspa.privacy.peers import baselines as B
from gspa.util import validate as V
from gspa.studies.gspa.theorem2 import epsilon_theorem2, mu_theorem2

UPPER_RR = "upper, binary RR"  # the differing user keeps its budget (Theorem 1's pair)
UPPER_RR_REVEALING = "upper, binary RR, proof's pair"
UPPER_ANY = "upper, FMT21 clones at ε₀ = max εᵢ (binary RR)"
UPPER_RR_MAX = "upper, binary RR, all at ε₀ = max εᵢ (FMT23)"
LOWER_RR = "lower, binary RR"
THM2 = "GSPA Theorem 2 (paper)"
METHODS = {
    THM2: "approximation",
    "Liu23": "closed form",
    "FMT21 (closed form)": "closed form",
    "Erlingsson19": "closed form",
    UPPER_RR_REVEALING: "upper",
    UPPER_RR: "upper",
    UPPER_ANY: "upper",
    UPPER_RR_MAX: "upper",
    LOWER_RR: "lower",
}


def compare(eps_users, delta: float, *, exact: bool = True) -> list[dict]:
    """Central epsilon at ``delta`` for every method of :data:`METHODS` (uniform-budget methods use
    eps0 = max_i eps_i, as in the paper's comparison)."""
    exact = V.boolean("exact", exact)
    eps_users, _ = PROF.check_budgets(eps_users)
    n, eps0 = eps_users.size, float(eps_users.max())
    rows = [{"method": THM2, "epsilon": epsilon_theorem2(eps_users, delta=delta), "reason": ""}]
    for bound in (
        B.liu23(eps_users, delta),
        B.fmt21_closed(eps0, n, delta),
        B.erlingsson19(eps0, n, delta),
    ):
        rows.append({"method": bound.name, "epsilon": bound.epsilon, "reason": bound.reason})
    if exact:
        pairs = {
            UPPER_RR_REVEALING: A.personalized_pair(eps_users, None, "revealing"),
            UPPER_RR: A.personalized_pair(eps_users, None, "randomized"),
            UPPER_ANY: PAIRS.fmt21_pair(eps0, n),
            UPPER_RR_MAX: PAIRS.fmt23_pair(eps0, n),
            LOWER_RR: LB.lower_bound(eps_users),
        }
        for name, pair in pairs.items():
            rows.append({"method": name, "epsilon": pair.epsilon(delta), "reason": ""})
    for r in rows:
        r["kind"] = METHODS[r["method"]]
        r["valid"] = r["epsilon"] is not None
    return rows


def sweep(
    scenario_names, n_values, delta: float, seed: int, repeat: int = 1000, exact: bool = True
):
    """Figure 2's grid: for each Table 2 scenario and each n, :func:`compare` on budgets drawn with
    ``seed`` (the first ``repeat`` draws repeated up to n, as the paper does). Returns a list of rows
    with scenario and n added; shows a progress bar."""
    from tqdm.auto import tqdm

    from gspa.studies.gspa.scenarios import SCENARIOS, budgets

    if (
        isinstance(scenario_names, str)
        or not isinstance(scenario_names, (list, tuple))
        or not scenario_names
    ):
        raise ValueError(
            f"scenario_names must be a non-empty list of {tuple(SCENARIOS)}, got {scenario_names!r}"
        )
    scenario_names = [V.choice("scenario_names", s, SCENARIOS) for s in scenario_names]
    n_values = [
        V.integer("n_values", n, low=2) for n in np.atleast_1d(np.asarray(n_values, dtype=object))
    ]
    seed, repeat = V.integer("seed", seed, low=0), V.integer("repeat", repeat, low=1)
    exact = V.boolean("exact", exact)
    rows = []
    grid = [(s, n) for s in scenario_names for n in n_values]
    for s, n in tqdm(grid, desc="Figure 2 grid", leave=False):
        eps_users = budgets(s, n, np.random.default_rng(seed), repeat=min(repeat, n))
        for r in compare(eps_users, delta, exact=exact):
            rows.append({"scenario": s, "n": n, **r})
    return rows


def privacy_summary(eps_users, delta: float, randomizer: str) -> dict:
    """Central privacy of one budget vector: Theorem 2's mu and its eps at ``delta`` (the paper's
    approximation) and a certified eps for the real protocol with user-tied budgets — the binary
    randomized response pair (Algorithm 2) or the Laplace pair with clones only within a budget group
    (Algorithm 1; Lemma 1's eq. (11) fails across Laplace budgets)."""
    eps_users = np.asarray(eps_users, dtype=float)
    if randomizer not in ("rr", "laplace"):
        raise ValueError(f"randomizer must be 'rr' or 'laplace', got {randomizer!r}")
    name = "binary-rr" if randomizer == "rr" else "laplace"
    pair = A.personalized_pair(eps_users, None, "randomized", randomizer=name)
    how = {
        "rr": "binary RR pair (certified)",
        "laplace": "Laplace, clones within budget groups (certified)",
    }[randomizer]
    return {
        "mu": mu_theorem2(eps_users),
        "eps_theorem": epsilon_theorem2(eps_users, delta=delta),
        "eps_certified": pair.epsilon(delta),
        "certified_by": how,
    }
