"""The computations of the FLAME blanket chapter (book/chapters/flame/blanket), one function per check:
Algorithm 1's LDP level under the three readings of its domains, eq. (1)'s moments and their simulation,
the certified profile against exhaustive enumeration, Lemma 1 and BBGN19's numerical (Bennett) bound
against the certified profile and the certified lower bound, Corollary 1's ratio along n, and the Laplace
mechanism's blanket. Each returns plain rows (lists of dicts) that the chapter shows as tables; the claims
they feed are declared in :mod:`gspa.studies.flame.claims.blanket`.

Paper: Liu, Cao, Chen, Guo, Yoshikawa, "FLAME: Differentially Private Federated Learning in the Shuffle
Model" (AAAI 2021), Preliminaries (Algorithm 1, eq. (1), Lemma 1, Corollary 1, the Laplace blanket) and
Evaluations (the Bennett bound of FLAME's code).
"""

from __future__ import annotations

import itertools

import numpy as np

from gspa.util import validate as V

#: how the chapter names each reading of Algorithm 1's domains (:data:`gspa.privacy.peers.blanket.READINGS`)
READING_NAMES = {"printed": "printed", "balle": "BBGN19", "header": "header"}
MAX_B = 1000  # blanket domain sizes b
MIN_EPS = 1e-6  # local budgets
MAX_USERS = 10**7  # shuffled users n


def _values(name, value, check):
    """The values of a list, each read by ``check(name, v)``."""
    return [check(name, v) for v in value]


def _eps(name, value):
    """A local budget in [MIN_EPS, 700]: below, the blanket is all but everything and the certified
    pair's forms lose every digit; above, e^ε overflows."""
    return float(V.real(name, value, low=MIN_EPS, high=700.0, scalar=True))


def _delta(name, value):
    return float(V.real(name, value, low=0.0, high=1.0, low_open=True, high_open=True, scalar=True))


def _b(name, value, low=2):
    return V.integer(name, value, low=low, high=MAX_B)


def _n(name, value, low=2):
    return V.integer(name, value, low=low, high=MAX_USERS)


def ldp_levels(eps_l: float, b_values) -> tuple[list[dict], dict]:
    """FLAME Algorithm 1 with Lemma 1's γ = b/(e^ε_l + b − 1): the exact LDP level of its rows
    (:func:`gspa.privacy.basics.decomposition.dp_epsilon`) and the closed form, per b and reading (rows
    ``b``, ``reading``, ``exact LDP level``, ``closed form``), and for each reading whether it is ε_l-LDP at
    every b (up to a relative 10⁻¹² of round-off). b in [2, 1000]."""
    from gspa.privacy.basics.decomposition import dp_epsilon
    from gspa.privacy.peers import blanket as B

    eps_l = _eps("eps_l", eps_l)
    bs = _values("b_values", b_values, _b)
    rows = [
        {
            "b": b,
            "reading": READING_NAMES[r],
            "exact LDP level": dp_epsilon(B.randomizer_rows(eps_l, b, r)),
            "closed form": B.ldp_epsilon(eps_l, b, r),
        }
        for b in bs
        for r in B.READINGS
    ]
    is_ldp = {
        READING_NAMES[r]: all(
            row["exact LDP level"] <= eps_l * (1 + 1e-12)
            for row in rows
            if row["reading"] == READING_NAMES[r]
        )
        for r in B.READINGS
    }
    return rows, is_ldp


def eq1_simulation(eps_l: float, b: int, users: int, reps: int, seed: int) -> dict:
    """FLAME eq. (1): for ``users`` inputs drawn uniformly on [0, 1] (seeded), the exact mean and variance
    of the de-biased sum z (:func:`gspa.privacy.peers.blanket.debiased_moments`) against ``reps`` simulated
    runs of Algorithm 1 and the shuffle, per reading (the header reading needs b ≥ 2). Returns ``rows``
    (per reading: the sum of x, exact and simulated mean and sd, the simulation's z-score), ``bias``
    (per reading: |E[z] − Σx| in standard deviations of z) and ``printed_bias`` (E[z] − Σx as printed).
    b in [1, 1000]."""
    from gspa.privacy.peers import blanket as B

    eps_l, b = _eps("eps_l", eps_l), _b("b", b, low=1)
    users, reps = _n("users", users, low=1), _n("reps", reps)
    seed = V.integer("seed", seed, low=0, high=2**32 - 1)
    rng = np.random.default_rng(seed)
    x = rng.random(users)
    rows, bias = [], {}
    for r in B.READINGS:
        if r == "header" and b < 2:
            continue
        g = B.blanket_gamma(eps_l, b)
        y = B.blanket_randomize(np.broadcast_to(x, (reps, users)).copy(), eps_l, b, rng, r)
        z = B.blanket_debias(y.sum(axis=1), users, g, b)
        mean, var = B.debiased_moments(x, eps_l, b, r)
        bias[READING_NAMES[r]] = abs(mean - x.sum()) / np.sqrt(var)
        rows.append(
            {
                "reading": READING_NAMES[r],
                "sum of x": x.sum(),
                "exact E[z]": mean,
                "simulated mean": z.mean(),
                "exact sd": np.sqrt(var),
                "simulated sd": z.std(ddof=1),
                "z-score (sim vs exact)": (z.mean() - mean) / np.sqrt(var / reps),
            }
        )
    printed = next(row for row in rows if row["reading"] == "printed")
    return {"rows": rows, "bias": bias, "printed_bias": float(printed["exact E[z]"] - x.sum())}


def enumeration_check(eps_l: float, b: int, users: int) -> list[dict]:
    """The certified profile of Algorithm 1's shuffle (:func:`gspa.privacy.peers.blanket.blanket_pair`)
    against the exact δ(ε) of the real shuffled protocol, enumerated over every data set of ``users``
    users and every pair of differing inputs, ε on [0, 3] (31 points), per reading: the largest shortfall
    (certified − exact, negative where the certificate fails) and the median and largest ratio
    certified/exact where the exact δ exceeds 10⁻⁹ (None where it never does). b in [2, 4], users in [2, 5] (exhaustive)."""
    from gspa.privacy.exact import enumeration
    from gspa.privacy.peers import blanket as B

    eps_l = _eps("eps_l", eps_l)
    b, users = V.integer("b", b, low=2, high=4), V.integer("users", users, low=2, high=5)
    grid = np.linspace(0.0, 3.0, 31)
    rows = []
    for r in B.READINGS:
        R = B.randomizer_rows(eps_l, b, r)
        truth = np.zeros(grid.size)
        for others in itertools.combinations_with_replacement(range(R.shape[0]), users - 1):
            base = [R[i] for i in others]
            for a, a2 in itertools.combinations(range(R.shape[0]), 2):
                truth = np.maximum(
                    truth,
                    enumeration.hockey_both(
                        enumeration.histogram_law(base + [R[a]]),
                        enumeration.histogram_law(base + [R[a2]]),
                        grid,
                    ),
                )
        ours = np.asarray(B.blanket_pair(eps_l, b, users, r).delta(grid))
        big = truth > 1e-9
        ratio = ours[big] / truth[big] if big.any() else None
        rows.append(
            {
                "reading": READING_NAMES[r],
                "largest shortfall": float(np.max(truth - ours)),
                "median ratio": None if ratio is None else float(np.median(ratio)),
                "largest ratio": None if ratio is None else float(np.max(ratio)),
            }
        )
    return rows


def bound_grid(eps_l_values, b_values, n_values, delta_values) -> list[dict]:
    """FLAME Lemma 1 and BBGN19's numerical (Bennett) bound against the certified profile, on the product
    of the grids: per (ε_l, b, n, δ) Lemma 1's ε (``lemma1``) and whether its condition holds (``valid``),
    the certified ε of the shuffle under the header and BBGN19 readings (``header``, ``balle``), and the
    Bennett ε as FLAME's code computes it (``bennett``) and as BBGN19's corrected code does
    (``bennett_fixed``). b in [2, 1000], n in [2, 10⁷]."""
    from gspa.privacy.peers import blanket as B

    es = _values("eps_l_values", eps_l_values, _eps)
    bs = _values("b_values", b_values, _b)
    ns = _values("n_values", n_values, _n)
    ds = _values("delta_values", delta_values, _delta)
    rows = []
    for e, b, n in itertools.product(es, bs, ns):
        pairs = {r: B.blanket_pair(e, b, n, r) for r in ("header", "balle")}
        for d in ds:
            l1, ok = B.lemma1_epsilon(d, e, b, n)
            rows.append(
                {
                    "eps_l": e,
                    "b": b,
                    "n": n,
                    "delta": d,
                    "lemma1": l1,
                    "valid": ok,
                    "header": pairs["header"].epsilon(d),
                    "balle": pairs["balle"].epsilon(d),
                    "bennett": B.balle_blanket_epsilon(d, e, b, n, version="flame"),
                    "bennett_fixed": B.balle_blanket_epsilon(d, e, b, n, version="bbgn19"),
                }
            )
    return rows


def lemma1_summary(grid) -> dict:
    """The ratios of FLAME Lemma 1 and of the Bennett bound read off :func:`bound_grid`'s rows: over the
    points where Lemma 1's condition holds, the smallest ratio Lemma 1 / certified per reading
    (``lemma1_over_certified``: header, BBGN19), the largest Bennett / Lemma 1 per version (``tighter``: the
    corrected code, FLAME's code), and the counts (``points``, ``valid``); over every point, the range of
    Bennett / certified (header) for both versions (``bennett_vs_header``, ``bennett_fixed_vs_header``:
    (min, max)). ValueError where no point meets Lemma 1's condition."""
    rows = grid
    valid = [r for r in rows if r["valid"]]
    if not valid:
        raise ValueError("no grid point satisfies Lemma 1's condition: add a larger n to n_values")

    def ratios(rs, top, bottom):
        return [r[top] / r[bottom] for r in rs]

    return {
        "points": len(rows),
        "valid": len(valid),
        "lemma1_over_certified": {
            READING_NAMES[r]: float(min(ratios(valid, "lemma1", r))) for r in ("header", "balle")
        },
        "lemma1_over_header": (
            float(min(ratios(valid, "lemma1", "header"))),
            float(max(ratios(valid, "lemma1", "header"))),
        ),
        "tighter": {
            "BBGN19's corrected code": float(max(ratios(valid, "bennett_fixed", "lemma1"))),
            "FLAME's code": float(max(ratios(valid, "bennett", "lemma1"))),
        },
        "bennett_vs_header": (
            float(min(ratios(rows, "bennett", "header"))),
            float(max(ratios(rows, "bennett", "header"))),
        ),
        "bennett_fixed_vs_header": (
            float(min(ratios(rows, "bennett_fixed", "header"))),
            float(max(ratios(rows, "bennett_fixed", "header"))),
        ),
    }


def bennett_against_lower(grid) -> list[dict]:
    """FLAME's experiments' Bennett bound (Evaluations; FLAME's code) against the certified lower bound
    on the real protocol's ε (:func:`gspa.privacy.shuffle.lower.lower_bound`, every user at budget ε_l),
    for the rows of :func:`bound_grid` with b = 2 (binary randomized response): per row ε_l, n, δ, the
    lower bound at δ (``lower``), the lower bound's δ at the Bennett ε (``lower_delta_at_bennett``), both
    Bennett values, the certified upper bound (``header``) and the ratios Bennett / lower (``bennett /
    lower``, ``corrected / lower``). ValueError where no row has b = 2."""
    from gspa.privacy.shuffle.lower import lower_bound

    rr = [r for r in grid if r["b"] == 2]
    if not rr:
        raise ValueError(
            "b_values must contain 2 for the check of the Bennett bound against the binary-RR lower bound"
        )
    low = {
        key: lower_bound(np.full(int(key[1]), key[0])) for key in {(r["eps_l"], r["n"]) for r in rr}
    }
    out = []
    for r in rr:
        lb = low[(r["eps_l"], r["n"])]
        lower = lb.epsilon(r["delta"])
        out.append(
            {
                "eps_l": r["eps_l"],
                "n": r["n"],
                "delta": r["delta"],
                "lower": lower,
                "lower_delta_at_bennett": lb.delta(r["bennett"]),
                "bennett": r["bennett"],
                "bennett_fixed": r["bennett_fixed"],
                "header": r["header"],
                "bennett / lower": r["bennett"] / lower,
                "corrected / lower": r["bennett_fixed"] / lower,
            }
        )
    return out


def corollary1_constants(grid) -> list[dict]:
    """FLAME Corollary 1's constant on :func:`bound_grid`'s rows: per row ε_l, b, n, δ, whether the
    corollary's condition ε_l ≤ log(n/log(1/δ))/2 holds (``condition``) and the certified ε (header
    reading) over the rate (1 ∧ ε_l) e^ε_l √(log(1/δ)/n) (``certified / rate``)."""
    from gspa.privacy.peers import blanket as B

    out = []
    for r in grid:
        rate, ok = B.corollary1_shape(
            _delta("delta", r["delta"]), _eps("eps_l", r["eps_l"]), _n("n", r["n"])
        )
        out.append(
            {
                "eps_l": r["eps_l"],
                "b": r["b"],
                "n": r["n"],
                "delta": r["delta"],
                "condition": ok,
                "certified / rate": r["header"] / rate,
            }
        )
    return out


def corollary1_along(eps_l_values, delta_values, cor1_users) -> dict:
    """FLAME Corollary 1 as an O(·) in n: for each (ε_l, δ) of the grids whose condition holds at
    n_top/10 (n_top the largest of ``cor1_users``), the log-log slope of certified ε / rate over the last
    decade of n (``tails``, keyed by (ε_l, δ); :func:`gspa.studies.flame.domains.cor1_tail_slope`) and the
    ratio at each n of ``cor1_users`` (``rows``; None where the condition fails), with ``n_top``.
    ValueError where the condition fails at n_top/10 for every grid point. n in [20, 10⁷]."""
    from gspa.privacy.peers import blanket as B
    from gspa.studies.flame import domains

    es = _values("eps_l_values", eps_l_values, _eps)
    ds = _values("delta_values", delta_values, _delta)
    users = _values("cor1_users", cor1_users, lambda name, v: _n(name, v, low=20))
    n_top = max(users)
    tails = {
        (e, d): domains.cor1_tail_slope(e, d, n_top)
        for e in es
        for d in ds
        if B.corollary1_shape(d, e, n_top // 10)[1]
    }
    if not tails:
        raise ValueError(
            "Corollary 1's condition fails at max(cor1_users)/10 for every grid point: take a larger n"
        )
    rows = [
        {
            "eps_l": e,
            "delta": d,
            **{
                f"n = {n:,d}": (lambda r: r[0] if r[1] else None)(domains.cor1_ratio(e, n, d))
                for n in sorted(users)
            },
            "tail slope": s,
        }
        for (e, d), s in tails.items()
    ]
    return {"tails": tails, "rows": rows, "n_top": n_top}


def laplace_blanket(eps_values) -> list[dict]:
    """FLAME, Preliminaries (The Shuffle Model): the Laplace mechanism on [0, 1] has blanket
    γ = e^(−ε_l/2). Per budget: the integrated blanket mass (:func:`gspa.privacy.peers.blanket.
    laplace_blanket_mass`), e^(−ε_l/2), the largest clone probability 2p of the inputs 0 and 1 (outputs
    binned on [−6, 7] in 400 bins, :func:`gspa.privacy.basics.decomposition.max_clone_probability`) and
    2/(1 + e^ε_l). Budgets in (0, 700]."""
    from gspa.privacy.basics.decomposition import discrete_laplace_rows, max_clone_probability
    from gspa.privacy.peers import blanket as B

    rows = []
    for e in _values("eps_values", eps_values, _eps):
        Rn = discrete_laplace_rows([0.0, 1.0], e, 6.0, 400)
        p, _, _ = max_clone_probability(Rn[0], Rn[1], [], e)
        rows.append(
            {
                "eps_l": e,
                "blanket mass": B.laplace_blanket_mass(e),
                "e^(-eps_l/2)": np.exp(-e / 2),
                "clone probability 2p": 2 * p,
                "2/(1+e^eps_l)": 2 / (1 + np.exp(e)),
            }
        )
    return rows


def numerical_tighter_worst_margin(eps_l: float, n: int, delta: float) -> float:
    """FLAME, after Corollary 1 ("a tighter bound can be accessed with numerical evaluations"), for
    binary randomized response: the smaller of :func:`gspa.studies.flame.domains.numerical_tighter_margin`
    for BBGN19's corrected code and for FLAME's code (1 − Bennett ε / Lemma 1's ε where Lemma 1's condition
    holds, 1 elsewhere): the margin of the claim for the worse of the two versions."""
    from gspa.studies.flame import domains

    return min(domains.numerical_tighter_margin(eps_l, n, delta, v) for v in ("bbgn19", "flame"))
