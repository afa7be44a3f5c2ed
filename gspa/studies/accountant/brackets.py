"""Certified upper bounds against certified lower bounds, and against peers' values: what brackets the true
ε of a shuffled protocol, and how tight the bracket is (chapters notebooks/accountant/using.md and
peers.md, benchmarks/accounting.py).
"""

from __future__ import annotations

import time

import numpy as np

from gspa.privacy.shuffle import accountant as A
from gspa.privacy.shuffle import lower as lower_bounds
from gspa.privacy.shuffle import pairs
from gspa.privacy.shuffle.clones import clone_law
from gspa.studies.accountant.arguments import check
from gspa.studies.accountant.timing import isolated, peak_rss_mib, timed
from gspa.util import validate as V


class _AsExact:
    """A clone law whose computed pmf is taken as exact (no error bounds): for a diagnostic, not a bound."""

    def __init__(self, law):
        self._tails = np.cumsum(law.pmf[::-1])[::-1]
        self._heads = np.cumsum(law.pmf)

    def tail_bounds(self):
        return self._tails, self._tails

    def head_bounds(self):
        return self._heads, self._heads

    def error_model(self):
        return 0.0, 0.0, 0.0


def _uncounted(lower, delta: float) -> float:
    """The lower bound's eps(delta) with its counted round-off left out (the computed laws taken as exact):
    NOT a bound; it shows how much of the lower bound's distance to the upper one is error accounting."""
    import dataclasses

    loose = [dataclasses.replace(b, others=_AsExact(b.others), extra=0.0) for b in lower.pairs]
    return max(b.epsilon(delta) for b in loose)


def _bracket_run(n: int, seed: int, delta: float, which: str):
    """One timed run of one bound, built from scratch: the clone pair (``"randomized"``, ``"revealing"``),
    the cell bound (``"cells"``, ``"cells-revealing"``) or the lower bound (``"lower"``, ``"lower-revealing"``);
    returns (eps, seconds, peak RSS of this process in MiB, and for the lower bound its uncounted eps)."""
    users = np.random.default_rng(seed).uniform(0.01, 2.0, size=n)
    variant = "revealing" if which.endswith("revealing") else "randomized"
    t0 = time.perf_counter()
    if which.startswith("lower"):
        bound = lower_bounds.lower_bound(users, variant=variant)
    else:
        bound = A.personalized_pair(
            users, None, variant, reduction="cells" if which.startswith("cells") else "blanket"
        )
    e = bound.epsilon(delta)
    seconds, rss = time.perf_counter() - t0, peak_rss_mib()
    return e, seconds, rss, (_uncounted(bound, delta) if which == "lower" else np.nan)


BRACKET_RUNS = ("randomized", "revealing", "cells", "cells-revealing", "lower", "lower-revealing")


def bracket(exponents, delta: float = 1e-6, seed: int = 0, progress: bool = True, repeats: int = 1):
    """The certified upper bounds — the clone pair and the cell bound (:mod:`gspa.privacy.shuffle.cells`), each in
    the randomized and the revealing variant — against the certified lower bounds of the same variant, for
    n = 10^k users with budgets U(0.01, 2): eps(delta) of each (``eps_<run>``, runs ``BRACKET_RUNS``), the
    ratios upper / lower (``gap_randomized``, ``gap_revealing`` for the clone pair, ``gap_cells``,
    ``gap_cells_revealing``), and the wall-clock seconds and peak RSS (MiB) of each run, each in its own
    fresh process (construction included; the budgets array itself, 8n bytes, is in every process's peak).
    ``repeats``: for n <= 10^6, each run is made that many times, each in a fresh process, and the smallest
    time is kept (the largest peak RSS; ε is the same every time). ``gap_uncounted``: the clone pair over the lower bound's value with its counted round-off left out — a
    diagnostic, not a bound."""
    check(exponents=exponents, delta=delta, seed=seed, repeats=repeats)
    from gspa.util.progress import bar as tqdm

    rows = []
    for k in tqdm(
        list(exponents), desc="upper and lower bounds", disable=not progress, leave=False
    ):
        n = 10 ** int(k)
        row = {"n": n}
        for which in BRACKET_RUNS:
            e, t, rss, loose = isolated(_bracket_run, n, seed, delta, which)
            key = which.replace("-", "_")
            row.update({f"eps_{key}": e, f"seconds_{key}": t, f"rss_{key}": rss})
            if which == "lower":
                row["eps_lower_uncounted"] = loose
        row["gap_randomized"] = row["eps_randomized"] / row["eps_lower"]
        row["gap_revealing"] = row["eps_revealing"] / row["eps_lower_revealing"]
        row["gap_cells"] = row["eps_cells"] / row["eps_lower"]
        row["gap_cells_revealing"] = row["eps_cells_revealing"] / row["eps_lower_revealing"]
        row["gap_uncounted"] = row["eps_randomized"] / row["eps_lower_uncounted"]
        rows.append(row)
    return rows


def bracket_rows(
    randomizer: str,
    eps0_values,
    users,
    delta: float = 1e-6,
    personalized_users=(),
    seed: int = 0,
    progress: bool = True,
    k: int | None = None,
):
    """One randomizer's certified upper bound (:func:`gspa.privacy.shuffle.accountant.personalized_pair`, its
    default reduction) against its certified lower bound (:func:`gspa.privacy.shuffle.lower.lower_bound`):
    eps(delta) of each, the ratio, and the seconds of each (construction included). Rows for a common budget
    eps0 and n users, then for n users with budgets U(0.01, 2) (``personalized_users``)."""
    check(
        eps0_values=eps0_values,
        users=users,
        delta=delta,
        personalized_users=personalized_users,
        seed=seed,
    )
    from gspa.util.progress import bar as tqdm

    cases = [
        (f"ε₀ = {e0:g}", float(e0), np.array([float(e0)]), np.array([int(n)]))
        for e0 in eps0_values
        for n in users
    ]
    rng = np.random.default_rng(seed)
    cases += [
        ("U(0.01, 2)", None, rng.uniform(0.01, 2.0, size=int(n)), None) for n in personalized_users
    ]
    kw = {} if k is None else {"k": k}
    rows = []
    for name, eps0, eps, counts in tqdm(
        cases, desc=f"{randomizer} upper and lower", disable=not progress, leave=False
    ):
        up, t_up = timed(
            lambda: A.personalized_pair(eps, randomizer=randomizer, counts=counts, **kw).epsilon(
                delta
            )
        )
        lo, t_lo = timed(
            lambda: lower_bounds.lower_bound(eps, randomizer, counts=counts, **kw).epsilon(delta)
        )
        rows.append(
            {
                "budgets": name,
                "eps0": eps0,
                "n": int(eps.size if counts is None else counts.sum()),
                "eps_upper": up,
                "eps_lower": lo,
                "ratio": up / lo if lo > 0 else float("inf"),
                "seconds_upper": t_up,
                "seconds_lower": t_lo,
            }
        )
        if randomizer == "laplace":  # the floor under the upper bound's kind, over the lower bound
            floor = (
                laplace_rr_floor(eps0, rows[-1]["n"], delta)
                if eps0 is not None
                else laplace_clone_floor(eps, delta)
            )
            rows[-1]["floor"] = floor / lo if lo > 0 else float("inf")
    return rows


def kary_bracket(
    k: int,
    eps0_values,
    users,
    delta: float = 1e-6,
    personalized_users=(),
    seed: int = 0,
    progress: bool = True,
):
    """Shuffled k-ary randomized response: :func:`bracket_rows` with the blanket pair
    (:class:`gspa.privacy.shuffle.pairs.KaryPair`) as the upper bound and the lower bound
    (:func:`gspa.privacy.shuffle.lower.lower_bound`: the larger of Wang et al.'s k-RR pair, with others on a
    third symbol, and the others on the differing user's first symbol; with a common budget also both data sets
    seen through every count, :class:`gspa.privacy.shuffle.lower.KaryCountsLower`)."""
    check(k=k)
    if k < 3:
        raise ValueError(
            f"k = {k!r}: the k-ary bracket needs k >= 3 (k = 2 is binary randomized response)"
        )
    return bracket_rows("k-rr", eps0_values, users, delta, personalized_users, seed, progress, k=k)


def general_rows(eps0_values, users, delta: float = 1e-6):
    """Any ε₀-LDP randomizer shared by n users: Wang et al.'s value for general mechanisms
    (:func:`gspa.privacy.peers.variation.parameters` ``"general"``, FMT23's clone pair; its proof has a gap, see
    :func:`gspa.privacy.exact.peers.general_margin` — not used by gspa) beside gspa's bound for this class,
    :func:`gspa.privacy.shuffle.pairs.fmt21_pair`, as eps(delta), and their ratio."""
    check(eps0_values=eps0_values, users=users, delta=delta)
    from gspa.privacy.peers.variation import VariationRatioPair, parameters

    rows = []
    for e0 in eps0_values:
        for n in users:
            ours = pairs.fmt21_pair(float(e0), int(n)).epsilon(delta)
            theirs = VariationRatioPair(*parameters("general", float(e0)), int(n)).epsilon(delta)
            rows.append(
                {
                    "eps0": float(e0),
                    "n": int(n),
                    "eps_gspa": ours,
                    "eps_wang": theirs,
                    "gspa_over_wang": ours / theirs,
                }
            )
    return rows


def quaternary_bracket(
    users, delta_i: float = 1e-8, delta: float = 1e-6, eps0: float = 1.0, seed: int = 0
):
    """Lemma 4's quaternary randomizer (reveal with probability δᵢ, else binary randomized response): eps(delta)
    of the clone pair and of the cell bound (:func:`gspa.privacy.shuffle.cells.cells_pair` with ``delta``; both
    certified upper bounds) and of the certified lower bound (:func:`gspa.privacy.shuffle.lower.lower_bound`
    ``"quaternary"``), and cells / lower, for n users with one budget ε₀ and δᵢ, then with budgets
    U(0.01, 2) and δᵢ ~ U(0, 2 δᵢ) (seconds of the cell bound included)."""
    check(users=users, delta_i=delta_i, delta=delta, eps0=eps0, seed=seed)
    rng = np.random.default_rng(seed)
    rows = []
    for common, name in (
        (True, f"ε₀ = {eps0:g}, δᵢ = {delta_i:g}"),
        (False, f"U(0.01, 2), δᵢ ~ U(0, {2 * delta_i:g})"),
    ):
        for n in users:
            eps = np.full(int(n), float(eps0)) if common else rng.uniform(0.01, 2.0, int(n))
            d = (
                np.full(int(n), float(delta_i))
                if common
                else rng.uniform(0.0, 2 * float(delta_i), int(n))
            )
            clones = A.personalized_pair(
                eps, d, randomizer="quaternary", reduction="clones"
            ).epsilon(delta)
            cells, t = timed(
                lambda: A.personalized_pair(
                    eps, d, randomizer="quaternary", reduction="cells"
                ).epsilon(delta)
            )
            lower = lower_bounds.lower_bound(eps, "quaternary", delta=d).epsilon(delta)
            rows.append(
                {
                    "budgets": name,
                    "common": common,
                    "n": int(n),
                    "eps_clones": clones,
                    "eps_cells": cells,
                    "eps_lower": lower,
                    "ratio": cells / lower if lower > 0 else float("inf"),
                    "seconds_cells": t,
                }
            )
    return rows


def laplace_rr_floor(eps0: float, n: int, delta: float = 1e-6) -> float:
    r"""The floor under every upper bound on shuffled Laplace (x + Lap(1/ε₀) on [0, 1], ``n`` users with one
    budget) that reduces each report to randomized response and certifies the shuffled bits, as
    :class:`gspa.privacy.shuffle.cells.LaplaceCells` does: a certified lower bound on shuffled *binary randomized
    response* with budget ε₀, as ε(δ).

    Why it is a floor. For the differing user's inputs 0 and 1 the reduction writes its report as randomized
    response with budget L = ε₀ on its input, the symbol then drawn from :math:`Q^0` or :math:`Q^1`; another
    user at 0 or at 1 has exactly the differing user's density there, so it is that randomized response on its
    own bit with nothing left over (s = 1; no split of it can take more, since :math:`Q^1` vanishes below 0 and
    :math:`Q^0` above 1). On data sets whose other users all hold 0 or 1 the bits are therefore shuffled binary
    randomized response (the draws from the Q's are a post-processing the bound does not use), so a bound that
    certifies the bits is at least that protocol's δ there, hence at least the certified lower bound of
    :func:`gspa.privacy.shuffle.lower.lower_bound` (binary randomized response), whose data sets are of that
    kind (the others all at 0, or half at 0 and half at 1, the differing user moving from 0 to 1)."""
    check(eps0=eps0, delta=delta)
    n = V.integer("n", n, low=2, high=10**9)
    return lower_bounds.lower_bound(np.array([float(eps0)]), counts=np.array([n])).epsilon(delta)


def laplace_rr_mu_ratio(eps0: float) -> float:
    r"""Why :func:`laplace_rr_floor` stands above the Laplace lower bound, in the Gaussian (large-n) approximation:
    each protocol is then μ-GDP with μ² the χ² divergence between the differing user's two report laws (the
    others all at 0) over n, so the two μ are in the ratio

    .. math:: \sqrt{\chi^2_{RR}/\chi^2_{Lap}} = \sqrt{3/(2 + e^{-\varepsilon_0})},

    with :math:`\chi^2_{RR} = (e^{\varepsilon_0} - 1)^2 e^{-\varepsilon_0}` (binary randomized response) and
    :math:`\chi^2_{Lap} = (2 e^{\varepsilon_0} + e^{-2\varepsilon_0})/3 - 1
    = (e^{\varepsilon_0} - 1)^2 (2 e^{\varepsilon_0} + 1) e^{-2\varepsilon_0}/3` (Laplace reports of inputs 0 and
    1): 1 at ε₀ = 0, rising to :math:`\sqrt{3/2}`. At a fixed δ the ratio of the ε is somewhat larger (at
    δ = 10⁻⁶ and ε₀ = 1, 1.139–1.142 for 10⁴–10⁶ users against 1.126, growing slowly with n); it tends to this value
    as δ → 0. An approximation that explains the floor, not a bound: the floor itself is :func:`laplace_rr_floor`."""
    check(eps0=eps0)
    return float(np.sqrt(3.0 / (2.0 + np.exp(-float(eps0)))))


def laplace_bracket(eps0_values, users, delta: float = 1e-6):
    """The shuffled Laplace mechanism (x + Lap(1/ε₀) on [0, 1], n users with one budget): Wang et al.'s
    variation-ratio value (:func:`gspa.privacy.peers.variation.parameters` ``"laplace"`` — not a valid bound, see
    :func:`gspa.privacy.exact.peers.laplace_margin`), gspa's certified upper bound (tested against the
    continuous protocol, :func:`gspa.privacy.exact.laplace_profile`;
    :func:`gspa.privacy.shuffle.accountant.personalized_pair` ``randomizer="laplace"``) and certified lower bound
    (:func:`gspa.privacy.shuffle.lower.lower_bound` ``"laplace"``: reports thresholded at 1/2, counted in a window, and finely binned with the others at 0,
    :class:`gspa.privacy.LaplaceLatticeLower`), as eps(delta); and the floor under any bound that reduces each
    report to randomized response (:func:`laplace_rr_floor`), over the lower bound."""
    check(eps0_values=eps0_values, users=users, delta=delta)
    from gspa.privacy.peers.variation import VariationRatioPair, parameters

    rows = []
    for e0 in eps0_values:
        for n in users:
            hist = dict(counts=np.array([int(n)]))
            up = A.personalized_pair(
                np.array([float(e0)]), None, randomizer="laplace", **hist
            ).epsilon(delta)
            lo = lower_bounds.lower_bound(np.array([float(e0)]), "laplace", **hist).epsilon(delta)
            theirs = VariationRatioPair(*parameters("laplace", float(e0)), int(n)).epsilon(delta)
            floor = laplace_rr_floor(e0, n, delta)
            rows.append(
                {
                    "eps0": float(e0),
                    "n": int(n),
                    "eps_wang": theirs,
                    "eps_upper": up,
                    "eps_lower": lo,
                    "upper_over_wang": up / theirs,
                    "upper_over_lower": up / lo if lo > 0 else float("inf"),
                    "floor_over_lower": floor / lo if lo > 0 else float("inf"),
                }
            )
    return rows


def eon_rows(users, laplace_lower, delta: float = 1e-8, seed: int = 0):
    """EoN (:class:`gspa.privacy.peers.eon.EonApproximation`, an approximation) beside gspa's certified bounds on
    the settings of EoN's public code (budgets U(0.05, 1), δ = 10⁻⁸): for binary randomized response, ε of
    EoN, of the cell bound (upper) and of the lower bound, and the cell bound's δ at EoN's ε; for the Laplace mechanism with one user at 0.1
    among users at 1, EoN's ε and a certified lower bound on the real protocol's δ at that ε
    (``laplace_lower``, called as :func:`gspa.studies.gspa.estimation.laplace_max_event` is — a study does
    not import another study, so the chapter passes it —, the conservative user differing)."""
    check(users=users, delta=delta, seed=seed)
    from gspa.privacy.peers.eon import EonApproximation

    laplace_max_event = V.function("laplace_lower", laplace_lower)
    rng = np.random.default_rng(seed)
    binary, laplace = [], []
    for n in users:
        eps = rng.uniform(0.05, 1.0, size=int(n))
        e, cells = EonApproximation(eps).epsilon(delta), A.personalized_pair(eps, reduction="cells")
        binary.append(
            {
                "n": int(n),
                "eps_eon": e,
                "eps_upper": cells.epsilon(delta),
                "eps_lower": lower_bounds.lower_bound(eps).epsilon(delta),
                "delta_upper": float(cells.delta(e)),
            }
        )
        tied = np.full(int(n), 1.0)
        tied[0] = 0.1
        e = EonApproximation(tied).epsilon(delta)
        low, _ = laplace_max_event(
            tied, np.zeros(tied.size), 0, 0.0, 1.0, e, np.linspace(0.0, 400.0, 2001)
        )
        laplace.append({"n": int(n), "eps_eon": e, "delta_lower": low})
    return binary, laplace


def laplace_noisier_others(eps0: float, eps_other: float, users, delta: float = 1e-6) -> list[dict]:
    """One user at budget ``eps0`` and the others at the smaller ``eps_other``, against every user at ``eps0``:
    gspa's certified lower and upper bounds of the first protocol (the lower bound counts reports in a window and sums a score of each,
    :func:`gspa.privacy.shuffle.lower.lower_bound`) and gspa's certified upper bound of the second, as ε(δ) for
    each number of users."""
    check(eps0=eps0, users=users, delta=delta)
    rows = []
    for n in users:
        budgets = np.concatenate([[float(eps0)], np.full(int(n) - 1, float(eps_other))])
        one = A.personalized_pair(
            np.array([float(eps0)]), None, randomizer="laplace", counts=np.array([int(n)])
        )
        rows.append(
            {
                "n": int(n),
                "eps_lower": lower_bounds.lower_bound(budgets, "laplace").epsilon(delta),
                "eps_upper": A.personalized_pair(budgets, randomizer="laplace").epsilon(delta),
                "eps_one_budget_upper": one.epsilon(delta),
            }
        )
    return rows


def laplace_clone_floor(budgets, delta: float = 1e-6) -> float:
    r"""The floor under every upper bound on the shuffled Laplace mechanism with these per-user ``budgets`` that
    writes each other user as a clone of the differing user's two densities (as
    :class:`gspa.privacy.shuffle.pairs.LaplaceBands` does): ε(δ) of the clone pair of the most liberal user
    differing between inputs 0 and 1.

    Why it is a floor. Such a bound gives every other user one clone probability whatever its input. For the
    most liberal user w at distance 1 the largest valid one of a user with budget u ≤ w is :math:`2\tau(u, w, 1)`,
    attained (the other user at one end of [0, 1], the report at the other), and no user has a larger budget; the
    log-odds is exactly w. So the bound is at least that reduced pair, whatever it does for the other differing
    users and distances (gspa's cover takes a little less: the pool less the user of the largest weight, who may
    be the one differing). The pair's ε is computed within its counted round-off."""
    check(delta=delta)
    values, counts = np.unique(V.real("budgets", budgets, low=0.0, ndim=1), return_counts=True)
    if counts.sum() < 2:
        raise ValueError(f"budgets must hold at least 2 users, got {counts.sum()}")
    w = values[-1]
    if w == 0:  # every report independent of the input
        return 0.0
    # the most liberal user differs; every other user is a clone at its attained weight
    counts[-1] -= 1
    q = np.minimum(1.0, 2.0 * (values / w) * np.exp(-values) / (1.0 + np.exp(-w)))
    return pairs.ReducedPair(clone_law(values=q, counts=counts), w).epsilon(delta)


def laplace_personal_bracket(users, delta: float = 1e-6, seed: int = 0) -> list[dict]:
    """The shuffled Laplace mechanism with budgets U(0.01, 2) (drawn with ``seed`` for each number of users):
    gspa's certified upper and lower bounds and the clone floor (:func:`laplace_clone_floor`), as ε(δ), and
    their ratios."""
    check(users=users, delta=delta, seed=seed)
    rows = []
    for n in users:
        budgets = np.random.default_rng(seed).uniform(0.01, 2.0, size=int(n))
        floor = laplace_clone_floor(budgets, delta)
        up = A.personalized_pair(budgets, randomizer="laplace").epsilon(delta)
        lo = lower_bounds.lower_bound(budgets, "laplace").epsilon(delta)
        rows.append(
            {
                "n": int(n),
                "eps_upper": up,
                "eps_lower": lo,
                "eps_clone_floor": floor,
                "upper_over_lower": up / lo,
                "floor_over_lower": floor / lo,
                "upper_over_floor": up / floor,
            }
        )
    return rows


def noisier_conclusion(rows) -> str:
    """The sentences the peers chapter draws from :func:`laplace_noisier_others`'s rows (a table of them): where
    the first protocol's certified lower bound exceeds the second's certified upper bound, and what follows."""
    lower, one = rows["eps_lower"], rows["eps_one_budget_upper"]
    if not (lower > one).any():
        return "At these settings the lower bound does not show that in any row."
    where = "In every row," if (lower > one).all() else "In some rows (not all),"
    return (
        f"{where} gspa's certified lower bound of the first protocol is above the certified upper bound of the "
        "protocol in which every user has budget ε₀, so there the first is less private. A valid bound for "
        "personalized budgets therefore cannot always stay below the one-budget bound at the largest budget."
    )
