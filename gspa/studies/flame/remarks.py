r"""FLAME's statements outside its numbered lemmas, checked (chapter notebooks/flame/figure3.md):
the introduction's error rates, DP-FL's Gaussian calibration, Theorem 5 read as an optimality, and the remark that
ν does not affect the accuracy.

**Bit summation, curator against local** (Introduction: "the error of DP can achieve O(1/ε); whereas, the error of
LDP is bounded by Ω(√n)"). n users hold bits; the curator adds Laplace(1/ε) noise to their sum (sensitivity 1), an
error of standard deviation √2/ε at every n; each local user sends binary randomized response with budget ε and the
analyzer de-biases the count, an error of standard deviation √(n e^ε)/(e^ε − 1), growing as √n.
:func:`bit_sum_errors` simulates both and fits the exponents in n and in ε. The lower bound Ω(√n) for *every*
ε-LDP protocol (Chan, Shi and Song 2012) is a theorem about all protocols, not computed here.

**DP-FL's calibration** (Related Works, "FL in the Curator Model"; the baselines of the Evaluations): the Gaussian
mechanism with σ = Δ₂√(2 ln(1.25/δ_c))/ε_c is said to give (ε_c, δ_c)-DP. It is the mechanism with
μ = Δ₂/σ = ε_c/√(2 ln(1.25/δ_c)) in Gaussian DP, whose exact δ(ε) is Fact 3's; the classical theorem behind the
formula (Dwork and Roth 2014, Theorem A.1) assumes ε_c < 1. :func:`dpfl_exact_delta` returns the exact δ at ε_c.

**Theorem 5 and the padding** (SS-Topk). Each user reports lk indexes (Algorithm 4): its k Top-k dimensions and
k(l − 1) others drawn uniformly from the rest. Algorithm 3 pads every dimension to n_p values, so it needs every
dimension's count c_j ≤ n_p (line 3). Theorem 5's l = ⌊n_p/(nβ)⌋ is the largest l for which the *average* count
n l k/d stays within n_p. The counts vary around that average: with the Top-k spread evenly over the dimensions
(each dimension in t = nk/d users' Top-k, the most favourable data: the count c_j = t_j + Bin(n − t_j, k(l − 1)/(d − k))
grows with t_j), :func:`overflow_bounds` bounds the probability that some dimension cannot be padded in a round —
from above by the union bound, from below by 1 − Π_j P(c_j ≤ n_p), valid because the counts are negatively
associated (each user's report set is a uniform subset of its non-top dimensions, users are independent, and
negative association is kept under independent sums and added constants; Joag-Dev and Proschan 1983).

**ν and the accuracy** ("given n_p, n and β, ν does not affect the accuracy of the mean estimation because the
number of dummy values is fixed"). While no dimension overflows, the analyzer sees in dimension j the t_j real
reports and n_p − t_j blanket values (user-sent or shuffler-sent alike), whatever l is: :func:`accuracy_by_l`
runs the protocol's own aggregation (:func:`gspa.studies.flame.protocols.aggregate`) at two values of l on the
same synthetic updates and compares the mean squared errors.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from gspa.privacy.basics.fdp import gdp_delta
from gspa.studies.flame import analysis
from gspa.util import validate as V


# -- the introduction: bit summation --------------------------------------------------------------


def bit_sum_errors(n_values, eps_values, reps: int, seed: int) -> dict:
    """Simulated root-mean-square errors of a bit sum over n users (half of them holding 1): the curator's
    Laplace(1/ε) on the sum and the local model's de-biased binary randomized response with budget ε; for
    each n in ``n_values`` and ε in ``eps_values``, ``reps`` runs. Returns the table (one row per (n, ε) with
    both errors and their exact values √2/ε and √(n e^ε)/(e^ε − 1)) and the fitted exponents: of each error in n
    (at every ε) and of the curator's in ε (at every n)."""
    import pandas as pd

    n_values = [V.integer("n", n, low=2, high=10**9) for n in np.atleast_1d(n_values)]
    eps_values = [float(e) for e in V.real("eps_values", eps_values, low=1e-3, high=20.0).ravel()]
    reps = V.integer("reps", reps, low=10, high=10**7)
    if len(set(n_values)) < 2 or len(set(eps_values)) < 2:
        raise ValueError("n_values and eps_values must each hold at least two distinct values")
    rng = np.random.default_rng(V.integer("seed", seed, low=0))
    rows = []
    for n in n_values:
        ones = n // 2
        for eps in eps_values:
            lap = rng.laplace(0.0, 1.0 / eps, reps)
            q = math.exp(eps) / (math.exp(eps) + 1)  # P(report = bit)
            count = rng.binomial(ones, q, reps) + rng.binomial(n - ones, 1 - q, reps)
            local = (count - n * (1 - q)) / (2 * q - 1) - ones  # de-biased count minus the truth
            rows.append(
                {
                    "n": n,
                    "eps": eps,
                    "curator": float(np.sqrt(np.mean(lap**2))),
                    "curator_exact": math.sqrt(2) / eps,
                    "local": float(np.sqrt(np.mean(local**2))),
                    "local_exact": math.sqrt(n * math.exp(eps)) / math.expm1(eps),
                }
            )
    t = pd.DataFrame(rows)

    def slope(x, y):
        return float(np.polyfit(np.log(x), np.log(y), 1)[0])

    fits = {
        "curator_in_n": [slope(g.n, g.curator) for _, g in t.groupby("eps")],
        "local_in_n": [slope(g.n, g.local) for _, g in t.groupby("eps")],
        "curator_in_eps": [slope(g.eps, g.curator) for _, g in t.groupby("n")],
    }
    return {"table": t, "fits": fits}


def rates_hold(fits: dict, tol: float) -> bool:
    """Whether the fitted exponents match the introduction's rates within ``tol``: the curator's error flat in n
    (exponent 0) and as 1/ε (exponent −1), the local one growing as √n (exponent 1/2)."""
    tol = V.real("tol", tol, low=0.0, high=1.0, low_open=True, scalar=True)
    return bool(
        all(abs(s) <= tol for s in fits["curator_in_n"])
        and all(abs(s - 0.5) <= tol for s in fits["local_in_n"])
        and all(abs(s + 1) <= tol for s in fits["curator_in_eps"])
    )


# -- DP-FL's Gaussian calibration ------------------------------------------------------------------


def dpfl_mu(eps_c, delta_c) -> float:
    """μ = Δ₂/σ of the Gaussian mechanism calibrated by σ = Δ₂√(2 ln(1.25/δ_c))/ε_c."""
    eps_c = V.real("eps_c", eps_c, low=0.0, high=1e4, low_open=True, scalar=True)
    delta_c = V.probability("delta_c", delta_c, open_low=True, open_high=True, scalar=True)
    return eps_c / math.sqrt(2 * math.log(1.25 / delta_c))


def dpfl_exact_delta(eps_c, delta_c) -> float:
    """The exact δ at ε_c of the Gaussian mechanism calibrated for (ε_c, δ_c) by the classical formula (Gaussian
    DP with :func:`dpfl_mu`, Fact 3's δ(ε))."""
    return float(gdp_delta(float(eps_c), dpfl_mu(eps_c, delta_c)))


# -- Theorem 5 and Algorithm 3's padding ------------------------------------------------------------


def _check_sizes(n, d, k, n_p, l):
    n, d = V.integer("n", n, low=1, high=10**8), V.integer("d", d, low=2, high=10**8)
    k = V.integer("k", k, low=1, high=d - 1)
    n_p = V.integer("n_p", n_p, low=1, high=10**9)
    l = V.integer("l", l, low=1, high=d // k)
    return n, d, k, n_p, l


def overflow_bounds(n: int, d: int, k: int, n_p: int, l: int) -> tuple[float, float]:
    """(lower, upper) bounds on the probability that some dimension receives more than n_p values in one round of
    SS-Topk when the n users' Top-k sets are spread evenly over the d dimensions (each dimension in ⌊nk/d⌋ or
    ⌈nk/d⌉ users' Top-k) and each user adds k(l − 1) indexes drawn uniformly from its other d − k dimensions
    (Algorithm 4). Upper: the union bound; lower: 1 − Π_j P(c_j ≤ n_p), by negative association."""
    log_ok, fail = _overflow_terms(*_check_sizes(n, d, k, n_p, l))
    return 0.0 - math.expm1(log_ok), float(min(1.0, fail))  # 0.0 - …: no -0.0 where log_ok = 0


def overflow_at_l1(up1: float) -> str:
    """What :func:`overflow_bounds`' upper bound ``up1`` at l = 1 says, in words. There no user adds an index,
    so each dimension holds exactly its Top-k count: the bound is 0 (no overflow is possible) or 1 (some
    dimension holds more than n_p reports: an overflow is certain)."""
    return "no overflow is possible at l = 1" if up1 == 0 else "an overflow is certain at l = 1"


def padded_log10(n: int, d: int, k: int, n_p: int, l: int) -> float:
    """log₁₀ of the upper bound Π_j P(c_j ≤ n_p) on the probability that Algorithm 3 can pad every dimension of a
    round (the setting of :func:`overflow_bounds`); −inf when some dimension holds more than n_p Top-k reports."""
    return _overflow_terms(*_check_sizes(n, d, k, n_p, l))[0] / math.log(10)


def _overflow_terms(n, d, k, n_p, l) -> tuple[float, float]:
    """(Σ_j log P(c_j ≤ n_p), Σ_j P(c_j > n_p)) for the counts of :func:`overflow_bounds`."""
    base, extra = divmod(n * k, d)  # `extra` dimensions hold base + 1 Top-k reports, the rest base
    r = k * (l - 1) / (d - k)
    log_ok, fail = 0.0, 0.0
    for t, m in ((base, d - extra), (base + 1, extra)):
        if m == 0:
            continue
        if t > n_p:
            return -math.inf, math.inf
        log_ok += m * float(stats.binom.logcdf(n_p - t, n - t, r))  # log P(c_j <= n_p)
        fail += m * float(stats.binom.sf(n_p - t, n - t, r))
    return log_ok, fail


def strongest_padded_l(n: int, d: int, k: int, n_p: int, threshold: float) -> dict:
    """The largest l of Algorithm 4 for which Algorithm 3 pads every dimension of a round with probability at least
    1 − ``threshold`` (Top-k spread evenly, :func:`overflow_bounds`), bracketed: ``l_ok`` the largest l certainly
    within (upper bound ≤ threshold), ``l_bad`` the smallest l certainly beyond (lower bound > threshold), or None;
    with the ν of Definition 3 at each (:func:`gspa.studies.flame.analysis.nu_of_l`)."""
    threshold = V.real("threshold", threshold, low=0.0, high=1.0, low_open=True, scalar=True)
    beta = k / d
    top = min(math.ceil(1 / beta - 1e-12), d // k)
    rows = [(l, *overflow_bounds(n, d, k, n_p, l)) for l in range(1, top + 1)]
    ok = [l for l, lo, up in rows if up <= threshold]
    bad = [l for l, lo, up in rows if lo > threshold]
    l_ok, l_bad = (max(ok) if ok else None), (min(bad) if bad else None)
    return {
        "l_ok": l_ok,
        "l_bad": l_bad,
        "nu_ok": analysis.nu_of_l(l_ok, beta) if l_ok else math.inf,
        "nu_bad_minus_one": analysis.nu_of_l(l_bad - 1, beta) if l_bad and l_bad > 1 else math.inf,
        "rows": rows,
    }


def theorem5_on_average(n_over_np_values, beta_values, n: int = 1000) -> float:
    """The largest gap, over the grid, between Theorem 5's ν (:func:`gspa.studies.flame.analysis.theorem5_nu`) and
    the smallest ν of Definition 3 (:func:`gspa.studies.flame.analysis.nu_of_l`) over the l that Algorithm 4 allows
    (l ≤ ⌈1/β⌉) whose average count stays within the padding (n l β ≤ n_p): 0 when Theorem 5 is that minimum.
    Points where Theorem 5's l is 1 are left out: Definition 3 gives no finite ν there (claim flame-prop2)."""
    n = V.integer("n", n, low=1, high=10**8)
    gap = 0.0
    for ratio in V.real("n_over_np_values", n_over_np_values, low=1.0, high=1e6).ravel():
        n_p = int(n / ratio)
        for beta in V.real("beta_values", beta_values, low=0.0, high=1.0, low_open=True).ravel():
            try:
                nu5, l5 = analysis.theorem5_nu(n_p, n, float(beta))
            except ValueError:  # n_p below one report per user: outside Theorem 5
                continue
            if l5 == 1:  # no index privacy: Definition 3 gives ν = ∞ there (claim flame-prop2)
                continue
            allowed = [
                l for l in range(2, math.ceil(1 / beta - 1e-12) + 1) if n * l * beta <= n_p + 1e-9
            ]
            best = min((analysis.nu_of_l(l, float(beta)) for l in allowed), default=math.inf)
            gap = max(gap, abs(best - nu5) if math.isfinite(best) else math.inf)
    return float(gap)


# -- ν and the accuracy -----------------------------------------------------------------------------


def accuracy_by_l(ls, n: int, d: int, beta: float, eps_lk: float, reps: int, seed: int) -> dict:
    """The mean squared error of SS-Topk's estimate of the mean update (:func:`gspa.studies.flame.protocols.
    aggregate`, n_p = n so that no dimension can overflow) for each l in ``ls``, on the same synthetic updates
    (n users, d dimensions, entries C·N(0, 1) with the paper's clipping bound C), ``reps`` rounds each with fresh randomness.
    Returns {l: (mse, standard error)} and the largest |difference| of two l's in standard errors (``z``)."""
    import torch

    from gspa.studies.flame import protocols as P

    ls = [V.integer("l", l, low=1) for l in ls]
    n, d = V.integer("n", n, low=2, high=10**5), V.integer("d", d, low=2, high=10**5)
    reps = V.integer("reps", reps, low=2, high=10**6)
    gen = torch.Generator().manual_seed(V.integer("seed", seed, low=0))
    clip = P.PAPER["SS-Topk"].clip
    x = (clip * torch.randn((n, d), generator=gen, dtype=torch.float64)).float()
    truth = x.clamp(-clip, clip).mean(0)
    out = {}
    for l in ls:
        p = P.with_params("SS-Topk", n=n, eps=eps_lk, beta=beta, n_p=n, l=l)
        g_user = torch.Generator().manual_seed(seed + 1)
        g_shuf = torch.Generator().manual_seed(seed + 2)
        err = np.array(
            [
                float(((P.aggregate("SS-Topk", x, p, g_user, g_shuf) - truth) ** 2).mean())
                for _ in range(reps)
            ]
        )
        out[l] = (float(err.mean()), float(err.std(ddof=1) / math.sqrt(reps)))
    z = max(
        abs(out[a][0] - out[b][0]) / math.hypot(out[a][1], out[b][1])
        for a in ls
        for b in ls
        if a < b
    )
    return {"mse": out, "z": float(z)}


# -- the chapter's summaries (what each claim records) --------------------------------------------------


def intro_claim(fits: dict, tol: float) -> dict:
    """The record of claim flame-intro-error from :func:`bit_sum_errors`' fits: ``ours`` (a value per reading,
    None for the lower bound not computed), ``ours_text`` and the glued extremes of the fitted exponents."""
    values = {
        "local_lo": min(fits["local_in_n"]),
        "local_hi": max(fits["local_in_n"]),
        "cur_n": max(abs(s) for s in fits["curator_in_n"]),
        "cur_eps": max(abs(s + 1) for s in fits["curator_in_eps"]),
    }
    text = (
        f"fitted exponents: local in n {values['local_lo']:.3f} to {values['local_hi']:.3f}; curator in n "
        f"within {values['cur_n']:.3f} of 0, in ε within {values['cur_eps']:.3f} of −1 (tolerance {tol:g})"
    )
    ours = {
        "the two standard mechanisms attain the rates": rates_hold(fits, tol),
        "Ω(√n) for every ε-LDP protocol": None,
    }
    return {"ours": ours, "ours_text": text, "values": values}


def dpfl_claim(eps_values, delta_c) -> dict:
    """The record of claim flame-dpfl-gaussian: the exact δ at each calibrated ε_c (:func:`dpfl_exact_delta`), their
    largest ratio to δ_c (``ours``) and the text."""
    deltas = {float(e): dpfl_exact_delta(e, delta_c) for e in np.atleast_1d(eps_values)}
    text = "exact δ at ε_c: " + ", ".join(f"{dl:.3g} at ε_c = {e:.6g}" for e, dl in deltas.items())
    return {"deltas": deltas, "ours": max(deltas.values()) / delta_c, "ours_text": text}


def theorem5_padding(
    n: int, d: int, beta: float, n_over_np: int, threshold: float, ratios, betas
) -> dict:
    """Theorem 5 read as an optimality at one setting (n users, d dimensions, β, n_p = n // ``n_over_np``): its ν and
    l, the strongest l that Algorithm 3 pads with probability ≥ 1 − ``threshold`` (:func:`strongest_padded_l`),
    the overflow bounds at Theorem 5's l and at l = 1, log₁₀ of the chance that Theorem 5's l can be padded, the
    on-average gap over the grid ``ratios`` × ``betas`` (:func:`theorem5_on_average`), the table of the l that
    matter, and the record of claim flame-thm5-strongest (``ours``: a value per reading, None where the bounds do
    not decide)."""
    import pandas as pd

    k, n_p = round(beta * d), n // n_over_np
    nu5, l5 = analysis.theorem5_nu(n_p, n, beta)
    s = strongest_padded_l(n, d, k, n_p, threshold)
    ok, bad = s["l_ok"], s["l_bad"]
    if ok is not None and bad is not None and l5 <= ok < bad <= l5 + 1:
        padded = True  # Theorem 5's l is padded and l + 1 is not
    elif bad is not None and l5 >= bad:
        padded = False
    else:
        padded = None  # the bounds do not decide
    avg_gap = theorem5_on_average(ratios, betas, n)
    cols = ["l", "P(some dimension overflows) ≥", "P(some dimension overflows) ≤"]
    table = pd.DataFrame([r for r in s["rows"] if r[0] in {1, ok, bad, l5}], columns=cols)
    text = (
        f"on average: largest gap to the minimum {avg_gap:.2g} over the grid; padded: at l = {l5} a round "
        f"can be padded with probability ≤ 10^{padded_log10(n, d, k, n_p, l5):.0f}; the strongest l is in "
        f"[{ok}, {bad}), ν in [{s['nu_bad_minus_one']:.3f}, {s['nu_ok']:.3f}] against Theorem 5's {nu5:.3f}"
    )
    ours = {
        "on average (n l β ≤ n_p)": avg_gap < 1e-12,
        f"padded in a round with probability ≥ {1 - threshold:g} (Top-k spread evenly)": padded,
    }
    return {
        "k": k,
        "n_p": n_p,
        "nu5": nu5,
        "l5": l5,
        "strong": s,
        "lo5": overflow_bounds(n, d, k, n_p, l5)[0],
        "up1": overflow_bounds(n, d, k, n_p, 1)[1],
        "padded_log10": padded_log10(n, d, k, n_p, l5),
        "avg_gap": avg_gap,
        "table": table,
        "ours": ours,
        "ours_text": text,
    }


def accuracy_claim(acc: dict, zmax: float, t5: dict) -> dict:
    """The record of claim flame-nu-accuracy from :func:`accuracy_by_l` (``acc``) and :func:`theorem5_padding`
    (``t5``): a value per reading and the text."""
    ls = list(acc["mse"])
    text = (
        f"no overflow (n_p = n): mean squared errors at l ∈ {ls} differ by at most {acc['z']:.2f} standard "
        f"errors (threshold {zmax:g}); paper's n_p: P(overflow) ≥ {t5['lo5']:.3g} at l = {t5['l5']}; "
        f"{overflow_at_l1(t5['up1'])}"
    )
    ours = {
        "while no dimension overflows": acc["z"] <= zmax,
        f"at the paper's n_p = {t5['n_p']} with Theorem 5's l = {t5['l5']}": t5["lo5"] <= t5["up1"],
    }
    return {"ours": ours, "ours_text": text}
