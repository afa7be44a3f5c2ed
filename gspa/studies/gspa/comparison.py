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

from dataclasses import dataclass

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
    from gspa.util.progress import bar as tqdm

    from gspa.studies.gspa.scenarios import SCENARIOS, budgets

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
    approximation) and an upper bound on eps for the real protocol with user-tied budgets — the binary
    randomized response pair (Algorithm 2, certified) or the Laplace cover with clones only from users whose
    budget is at most the differing user's, at a smaller weight than eq. (11)'s (Algorithm 1; Lemma 1's
    eq. (11) fails across Laplace budgets; certified against the continuous protocol)."""
    eps_users = np.asarray(eps_users, dtype=float)
    name = "binary-rr" if randomizer == "rr" else "laplace"
    pair = A.personalized_pair(eps_users, None, "randomized", randomizer=name)
    how = {
        "rr": "binary RR pair (certified)",
        "laplace": "Laplace, clones from budgets up to the differing user's (certified)",
    }[randomizer]
    return {
        "mu": mu_theorem2(eps_users),
        "eps_theorem": epsilon_theorem2(eps_users, delta=delta),
        "eps_certified": pair.epsilon(delta),
        "certified_by": how,
    }


# -- Figure 2's grid and the numbers the chapter draws from it (chapter gspa/figure2) -------------

#: the closed-form baselines Figure 2 compares with ([Liu23], FMT21 — the paper's [FMT22] — and [Erlingsson19])
PAPER_BASELINES = ("Liu23", "FMT21 (closed form)", "Erlingsson19")
MAX_CASE_USERS = 10**5  # users of the chapter's single-vector checks (seconds for the accountant)
MAX_BUDGET = 100.0  # largest local budget of those checks


@dataclass(frozen=True)
class Figure2Grid:
    """Figure 2's grid (:func:`figure2_grid`): ``tidy`` holds one row per (scenario, n, method) with
    the central ε (NaN where a closed form's conditions fail), ``wide`` one row per (scenario, n)
    and one column per method; the methods below compute the chapter's numbers from it."""

    scenarios: tuple
    n_values: tuple
    delta: float
    seed: int
    repeat: int
    tidy: object
    wide: object

    def rr_validity(self) -> dict:
        """Comparison with Existing Results, Figure 2: Theorem 2's ε against the certified interval
        [lower, upper] of shuffled binary randomized response at every grid point. ``status`` is
        'valid' (at or above the upper bound), 'too small' (below the lower bound) or 'undecided';
        ``valid_frac`` the fraction valid, ``margin_median``/``margin_min`` the ratio Theorem 2 /
        upper, ``sandwich_gap`` the largest upper/lower, ``too_small`` the count of provably too
        small points."""
        thm2 = self.wide[THM2]
        lo, up = self.wide[LOWER_RR], self.wide[UPPER_RR]
        status = np.where(thm2 >= up, "valid", np.where(thm2 < lo, "too small", "undecided"))
        margin = thm2 / up
        return {
            "status": status,
            "valid_frac": float(np.mean(status == "valid")),
            "margin_median": float(np.median(margin)),
            "margin_min": float(np.min(margin)),
            "sandwich_gap": float(np.max(up / lo)),
            "too_small": int(np.sum(status == "too small")),
        }

    def slopes(self, methods=(THM2, UPPER_RR)) -> dict:
        """Result (ii), 'the amplification increases proportionally to √n': the least-squares slope
        of log ε against log n for each scenario and each of ``methods``. Returns ``table``
        (scenarios by methods) and ``worst``, Theorem 2's slope farthest from −1/2."""
        import pandas as pd

        methods = [V.choice("methods", m, METHODS) for m in methods]
        df, slopes = self.tidy, {}
        for s in self.scenarios:
            for m in methods:
                d = df[(df.scenario == s) & (df.method == m)]
                slopes[(s, m)] = float(np.polyfit(np.log(d.n), np.log(d.epsilon), 1)[0])
        thm2 = np.array([slopes[(s, THM2)] for s in self.scenarios]) if THM2 in methods else None
        worst = None if thm2 is None else float(thm2[np.argmax(np.abs(thm2 + 0.5))])
        return {"table": pd.Series(slopes).unstack(), "worst": worst}

    def mu_slopes(self) -> dict:
        """Result (ii) for Theorem 2's μ itself: the slope of log μ against log n per scenario, on
        the grid's budgets (the first ``repeat`` draws repeated); ``worst`` the one farthest from
        −1/2."""
        from gspa.studies.gspa.scenarios import budgets

        slopes = []
        for s in self.scenarios:
            mus = [
                mu_theorem2(
                    budgets(
                        s, int(n), np.random.default_rng(self.seed), repeat=min(self.repeat, int(n))
                    )
                )
                for n in self.n_values
            ]
            slopes.append(float(np.polyfit(np.log(self.n_values), np.log(mus), 1)[0]))
        worst = float(slopes[int(np.argmax(np.abs(np.array(slopes) + 0.5)))])
        return {"slopes": dict(zip(self.scenarios, slopes)), "worst": worst}

    def reductions(self, baselines=PAPER_BASELINES) -> dict:
        """Result (iii) and the Conclusion's 'at least 33%': over the valid points of each
        closed-form baseline, how often Theorem 2's ε is smaller (``wins`` of ``total``, ``frac``) and
        how often larger (``frac_above``)
        and the reduction 1 − ε_GSPA/ε_baseline (``reductions``: one row per point, ``per_n``: the
        smallest at each n); ``readings``: the smallest over the grid, the smallest at the largest n
        and the median; ``below``: the values of n whose smallest reduction is under 33% (``cross``
        says so in words); ``frac_numerical``: the fraction of the grid where Theorem 2 is below
        FMT21's numerical bound."""
        import pandas as pd

        baselines = [V.choice("baselines", b, METHODS) for b in baselines]
        thm2 = self.wide[THM2]
        wins, above, total, rows = 0, 0, 0, []
        for b in baselines:
            ok = self.wide[b].notna()
            wins += int((thm2[ok] < self.wide[b][ok]).sum())
            above += int((thm2[ok] > self.wide[b][ok]).sum())
            total += int(ok.sum())
            r = (1 - thm2[ok] / self.wide[b][ok]).rename("reduction").reset_index()
            rows.append(r.assign(baseline=b))
        red = pd.concat(rows)
        per_n = red.groupby("n").reduction.min()
        readings = {
            "every valid point of the grid": float(red.reduction.min()),
            f"every valid point at n = {max(self.n_values):,}": float(per_n.iloc[-1]),
            "the median valid point": float(red.reduction.median()),
        }
        below = per_n[per_n < 0.33]
        cross = (
            f"below 33% at {len(below)} of the {len(per_n)} values of n "
            f"(n = {', '.join(f'{v:,}' for v in below.index)})"
            if len(below)
            else "at or above 33% at every n"
        )
        return {
            "wins": wins,
            "total": total,
            "frac": wins / total,
            "frac_above": above / total,
            "reductions": red,
            "per_n": per_n,
            "readings": readings,
            "below": below,
            "cross": cross,
            "frac_numerical": float((thm2 < self.wide[UPPER_ANY]).mean()),
        }


def figure2_grid(scenario_names, n_values, delta: float, seed: int, repeat: int = 1000):
    """Figure 2: :func:`sweep` over Table 2's ``scenario_names`` and ``n_values`` at central
    ``delta``, as a :class:`Figure2Grid` (the tidy rows and the table of methods by (scenario, n); a
    closed form's ε is NaN where its conditions fail, its ``reason`` says why). Arguments as for
    :func:`sweep`, at least one n; ``delta`` in (0, 1)."""
    import pandas as pd

    delta = V.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True)
    df = pd.DataFrame(sweep(scenario_names, n_values, delta, seed, repeat))
    df["epsilon"] = df["epsilon"].astype(float)
    wide = df.pivot_table(
        index=["scenario", "n"], columns="method", values="epsilon", aggfunc="first", dropna=False
    )
    return Figure2Grid(
        tuple(dict.fromkeys(df.scenario)),
        tuple(int(n) for n in dict.fromkeys(df.n)),
        delta,
        int(seed),
        int(repeat),
        df,
        wide,
    )


def _case_budget(name, value):
    return V.real(name, value, low=0.0, high=MAX_BUDGET, low_open=True, scalar=True)


def one_liberal_user(
    liberal_eps: float = 5.0,
    conservative_eps: float = 0.5,
    conservative_n: int = 99,
    delta: float = 1e-6,
) -> dict:
    """Comparison with Existing Results, Figure 2, off the grid: one user at ``liberal_eps`` among
    ``conservative_n`` at ``conservative_eps`` (budgets in (0, 100], 1 to 10^5 others, central
    ``delta`` in (0, 1)). Theorem 2's ε via Fact 3 (``thm2``) and the certified interval [``lower``,
    ``upper``] of shuffled binary randomized response."""
    liberal_eps = _case_budget("liberal_eps", liberal_eps)
    conservative_eps = _case_budget("conservative_eps", conservative_eps)
    conservative_n = V.integer("conservative_n", conservative_n, low=1, high=MAX_CASE_USERS)
    delta = V.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True)
    b = np.append(np.full(conservative_n, conservative_eps), liberal_eps)
    return {
        "thm2": epsilon_theorem2(b, delta=delta),
        "lower": LB.lower_bound(b).epsilon(delta),
        "upper": A.personalized_pair(b).epsilon(delta),
    }


def extreme_budgets(
    delta: float = 1e-4, seed: int = 1, extreme_eps: float = 0.01, extreme_n: int = 1000
) -> dict:
    """Comparison with Existing Results, result (i), 'suitable for extreme privacy budgets': Theorem
    2 and [Liu23] (``liu_zero``, a :class:`gspa.privacy.peers.baselines` bound) when 100 of 1000
    users have εᵢ = 0 (the other 900 drawn from Unif 1 with ``seed``; ``zero_max`` their largest
    budget), and Theorem 2 against the certified ε of binary randomized response when all
    ``extreme_n`` (2 to 10^5) budgets equal ``extreme_eps`` (in (0, 100]); central ``delta`` in (0,
    1)."""
    from gspa.studies.gspa.scenarios import budgets

    delta = V.real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True)
    seed = V.integer("seed", seed, low=0)
    extreme_eps = _case_budget("extreme_eps", extreme_eps)
    extreme_n = V.integer("extreme_n", extreme_n, low=2, high=MAX_CASE_USERS)
    e_zero = np.concatenate([budgets("Unif 1", 900, np.random.default_rng(seed)), np.zeros(100)])
    flat = np.full(extreme_n, extreme_eps)
    return {
        "liu_zero": B.liu23(e_zero, delta),
        "thm2_zero": epsilon_theorem2(e_zero, delta=delta),
        "zero_max": float(e_zero.max()),
        "thm2_flat": epsilon_theorem2(flat, delta=delta),
        "exact_flat": A.personalized_pair(flat).epsilon(delta),
    }


#: the private scenarios of Figure 4 (Table 2 and Unif 3)
FIGURE4_SCENARIOS = ("Unif 1", "Unif 2", "Constant", "Mixed Constant", "Unif 3")


def figure4_budgets(scenario_names, seeds, n_clients: int, delta_local: float) -> list[dict]:
    """How much budget each private scenario of Figure 4 gives, by three measures, averaged over the client
    budgets of Figure 4's runs (:func:`gspa.studies.gspa.private_sgd.scenario_budgets`: ``n_clients``
    clients, one draw per seed of ``seeds``; every client's δ = ``delta_local``): the mean budget εᵢ,
    the mean of 1/εᵢ (Algorithm 3's line 7 adds noise with σ ∝ 1/εᵢ) and Theorem 2's μ over the clients
    (one shuffle of Algorithm 3; a smaller μ is stronger central privacy). One row per scenario."""
    from gspa.studies.gspa.private_sgd import scenario_budgets

    names = [V.choice("scenario", s, FIGURE4_SCENARIOS) for s in scenario_names]
    seeds = [V.integer("seed", s, low=0, high=2**32 - 1) for s in np.atleast_1d(seeds)]
    if not names or not seeds:
        raise ValueError(f"scenario_names and seeds must be non-empty, got {names!r} and {seeds!r}")
    n_clients = V.integer("n_clients", n_clients, low=2, high=10**6)
    delta_local = V.probability("delta_local", delta_local, open_high=True, scalar=True)
    rows = []
    for name in names:
        draws = [scenario_budgets(name, s, n_clients) for s in seeds]
        rows.append(
            {
                "scenario": name,
                "mean εᵢ": float(np.mean([b.mean() for b in draws])),
                "mean 1/εᵢ (line 7's σ ∝ 1/εᵢ)": float(np.mean([(1 / b).mean() for b in draws])),
                "μ per shuffle (Theorem 2)": float(
                    np.mean([mu_theorem2(b, np.full(b.size, delta_local)) for b in draws])
                ),
            }
        )
    return rows
