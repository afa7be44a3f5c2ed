"""The bridge to Google's ``dp_accounting``: :func:`to_pld` exports a certified pair as a dominating privacy-loss
distribution, and PLDs of small pairs cross-check gspa's own formulas. Checks: the accountant chapter (using).

``dp_accounting`` rounds pessimistically (its deltas are upper bounds up to the discretisation),
so an exact value of ours should lie *below* its value and close to it. The cross-checks never replace
gspa's own formulas in the text; the export is for users who compose gspa's pairs with other mechanisms.
"""

from __future__ import annotations

import numpy as np

from gspa.util import validate as V
from gspa.privacy.basics.hypothesis import pmf_pair
from gspa.privacy.profiles import BestOf, Profile, WorstOf
from gspa.privacy.shuffle import composition as C
from gspa.privacy.shuffle.accountant import CellsFirst
from gspa.privacy.shuffle.pairs import ReducedPair
from gspa.privacy.shuffle.composition import Composed
from gspa.privacy.shuffle.outcomes import _clone_weights, _windows


_MAX_POINTS = (
    1e7  # dp_accounting's grid for a Gaussian PLD has about mu (mu + 20) / discretization points
)
_MAX_WORK = 5e8  # grid points times epsilons read off it (each reading sums over the whole grid)
_MAX_COMPOSED = 5e7  # T-fold self-composition: T times the loss range over the discretization
_MAX_OUTCOMES = 10**6
# mu, sensitivity and eps0 below 1e-6 put the noise scale near 1e6 and beyond (dp_accounting overflows
# near 1e200); the grid checks bound them from above.
_SCALE = dict(low=1e-6, high=1e6, scalar=True)


def _discretization(value) -> float:
    """dp_accounting's value discretization interval, in [1e-9, 1] (the book uses 1e-4 to 2e-3)."""
    return V.real("discretization", value, low=1e-9, high=1.0, scalar=True)


def _epsilons(eps, points: float):
    """Check eps >= 0 (inf allowed: the PLD's mass at infinity), at most _MAX_WORK / points of them."""
    eps = V.nonnegative("eps", eps)
    if eps.size * max(points, 1.0) > _MAX_WORK:
        raise ValueError(
            f"eps holds {eps.size} values to read off a grid of about {points:.2g} PLD points: "
            f"at most {_MAX_WORK:.0e} point evaluations; give fewer eps values or a coarser discretization"
        )
    return eps


def _check_grid(mu: float, discretization: float) -> float:
    discretization = _discretization(discretization)
    if mu * (mu + 20.0) / discretization > _MAX_POINTS:
        raise ValueError(
            f"mu = {mu:g} with discretization {discretization:g} needs about "
            f"{mu * (mu + 20.0) / discretization:.2g} PLD points (at most {_MAX_POINTS:.0e}); "
            "use a coarser discretization or a smaller mu"
        )
    return discretization


def _pld():
    from dp_accounting.pld import privacy_loss_distribution

    return privacy_loss_distribution


def gaussian_delta(eps, mu, *, sensitivity=1, discretization=1e-4):
    """delta(eps) of the Gaussian mechanism with noise 1/mu (Fact 3's mu-GDP), from a PLD. mu and
    ``sensitivity`` in [1e-6, 1e6], ``discretization`` in [1e-9, 1], at most 1e7 grid points."""
    mu = V.real("mu", mu, **_SCALE)
    sensitivity = V.real("sensitivity", sensitivity, **_SCALE)
    discretization = _check_grid(mu * sensitivity, discretization)
    eps = _epsilons(eps, mu * sensitivity * (mu * sensitivity + 20.0) / discretization)
    pld = _pld().from_gaussian_mechanism(
        standard_deviation=1.0 / mu,
        sensitivity=sensitivity,
        value_discretization_interval=discretization,
    )
    return np.array([pld.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(
        eps.shape
    )


def composed_gaussian_delta(eps, mus, *, discretization=1e-4):
    """delta(eps) of the composition of Gaussian mechanisms with noise 1/mu_i, by PLD composition: mus in
    [1e-6, 1e6], at most 10^4 of them, and at most 1e8 grid points summed over the compositions."""
    mus = V.real("mus", mus, low=1e-6, high=1e6, ndim=1, max_size=10**4)
    total = float(np.sqrt(np.sum(mus**2)))
    discretization = _check_grid(total, discretization)
    points = total * (total + 20.0) / discretization
    if mus.size * points > 1e8:
        raise ValueError(
            f"composing {mus.size} Gaussian PLDs of about {points:.2g} points each is more than 1e8 "
            "point operations; use fewer mechanisms or a coarser discretization"
        )
    eps = _epsilons(eps, points)
    plds = [
        _pld().from_gaussian_mechanism(
            standard_deviation=1.0 / m, value_discretization_interval=discretization
        )
        for m in mus
    ]
    total = plds[0]
    for p in plds[1:]:
        total = total.compose(p)
    return np.array([total.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(
        eps.shape
    )


def gaussian_epsilon(delta, mu, *, discretization=1e-4):
    """eps(delta) of the Gaussian mechanism with noise 1/mu, from a PLD (mu in [1e-6, 1e6])."""
    mu = V.real("mu", mu, **_SCALE)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    discretization = _check_grid(mu, discretization)
    pld = _pld().from_gaussian_mechanism(
        standard_deviation=1.0 / mu, value_discretization_interval=discretization
    )
    return float(pld.get_epsilon_for_delta(delta))


def laplace_delta(eps, eps0, *, discretization=1e-4):
    """delta(eps) of the Laplace mechanism with scale 1/eps0 and sensitivity 1, from a PLD."""
    eps0 = V.real("eps0", eps0, **_SCALE)
    discretization = _discretization(discretization)
    if 2 * eps0 / discretization > _MAX_POINTS:  # the privacy loss spans [-eps0, eps0]
        raise ValueError(
            f"eps0 = {eps0:g} with discretization {discretization:g} needs about "
            f"{2 * eps0 / discretization:.2g} PLD points (at most {_MAX_POINTS:.0e})"
        )
    eps = _epsilons(eps, 2 * eps0 / discretization)
    pld = _pld().from_laplace_mechanism(
        1.0 / eps0, sensitivity=1.0, value_discretization_interval=discretization
    )
    return np.array([pld.get_delta_for_epsilon(float(e)) for e in np.atleast_1d(eps)]).reshape(
        eps.shape
    )


def _pmf_span(p, q, discretization):
    """Checked (p, q, discretization) and the number of grid points of their PLD: the range of the finite
    privacy losses log(p/q) over the discretization (at most 1e7), at most 10^6 outcomes."""
    p, q = pmf_pair(p, q, atol=1e-6)
    if p.size > _MAX_OUTCOMES:
        raise ValueError(f"p and q may have at most {_MAX_OUTCOMES} outcomes, got {p.size}")
    discretization = _discretization(discretization)
    both = (p > 0) & (q > 0)
    loss = np.log(p[both]) - np.log(q[both])
    points = float(loss.max() - loss.min()) / discretization if loss.size else 0.0
    if points > _MAX_POINTS:
        raise ValueError(
            f"the privacy losses of p against q span {points * discretization:.3g}: about {points:.2g} "
            f"PLD points at discretization {discretization:g} (at most {_MAX_POINTS:.0e})"
        )
    return p, q, discretization, points


def _pld_from_pmfs(p, q, discretization: float):
    """Pessimistic PLD of P against Q (one direction) from probability vectors (checked by
    :func:`_pmf_span`); outcomes with zero probability under one distribution count as infinite privacy loss."""
    lp = {i: float(np.log(v)) for i, v in enumerate(np.asarray(p, float)) if v > 0}
    lq = {i: float(np.log(v)) for i, v in enumerate(np.asarray(q, float)) if v > 0}
    return _pld().from_two_probability_mass_functions(
        lp, lq, value_discretization_interval=discretization, symmetric=False
    )


def pmf_pair_delta(eps, p, q, *, discretization=1e-4):
    """delta(eps) = max of both hockey-stick directions for two discrete distributions, from a PLD
    built with ``from_two_probability_mass_functions`` (pessimistic). At most 10^6 outcomes and 1e7 grid
    points (the losses' range over ``discretization``, in [1e-9, 1])."""
    p, q, discretization, points = _pmf_span(p, q, discretization)
    eps = _epsilons(eps, points)
    pld, pld_rev = _pld_from_pmfs(p, q, discretization), _pld_from_pmfs(q, p, discretization)
    out = [
        max(pld.get_delta_for_epsilon(float(e)), pld_rev.get_delta_for_epsilon(float(e)))
        for e in np.atleast_1d(eps)
    ]
    return np.array(out).reshape(eps.shape)


def composed_pair_epsilon(P0, P1, T: int, delta: float, *, discretization=1e-3) -> float:
    """eps(delta) after T-fold composition of a discrete pair (e.g. the reduced pair of one epoch),
    through a pessimistic privacy-loss distribution. Both directions are composed; the larger eps is
    returned. Outcomes with zero probability under one distribution count as infinite privacy loss.
    T in [1, 10^6] with T times the losses' range over ``discretization`` at most 5e7 (the composed grid)."""
    T = V.integer("T", T, low=1, high=10**6)
    delta = V.probability("delta", delta, open_low=True, open_high=True, scalar=True)
    P0, P1, discretization, points = _pmf_span(P0, P1, discretization)
    if T * points > _MAX_COMPOSED:
        raise ValueError(
            f"T = {T} compositions of a PLD of about {points:.2g} points need about {T * points:.2g} "
            f"(at most {_MAX_COMPOSED:.0e}); use fewer rounds or a coarser discretization"
        )
    return float(
        max(
            _pld_from_pmfs(a, b, discretization).self_compose(T).get_epsilon_for_delta(delta)
            for a, b in ((P0, P1), (P1, P0))
        )
    )


# -- a dp_accounting PLD for a certified pair -------------------------------------------------------

MAX_PLD_OUTCOMES = (
    5 * 10**6
)  # outcomes of a pair handed to dp_accounting (its constructor loops in Python)
PLD_TAIL = (
    1e-30  # mass cut from the clone law and from each binomial (gspa.privacy.shuffle.outcomes.TAIL)
)


def to_pld(pair, *, value_discretization_interval: float = 1e-4):
    """A ``dp_accounting.pld.PrivacyLossDistribution`` that dominates a certified upper bound of
    :mod:`gspa.privacy.shuffle.accountant`, for composing a shuffle round with other mechanisms in ``dp_accounting``.

    ``pair``: any certified upper bound — what ``personalized_pair`` returns for every randomizer and
    reduction (the default cell bound included), ``fmt21_pair``, ``fmt23_pair``, ``clone_pair``, a ``BestOf``
    or ``WorstOf`` of them — or a :class:`~gspa.privacy.shuffle.composition.Composed` of one (``rounds=T``),
    whose PLD is the one-round PLD self-composed T times in ``dp_accounting``. Lower bounds are refused.
    ``value_discretization_interval`` in [1e-9, 1] (dp_accounting's grid; a PLD composes only with PLDs on
    the same grid).

    **From the privacy curve** (every bound but a :class:`~gspa.privacy.shuffle.pairs.ReducedPair`): the
    connect-the-dots PLD of the bound's certified delta(eps) at the nodes ``gspa.compose`` takes (1000 on
    [0, eps_top] for a curve read in one pass, else 250), on a multiple of the interval, its masses rounded
    down and the rest at +inf, symmetric (the curve bounds both directions). Its delta(eps) is the lower
    convex hull, in e^eps, of the bound's values at the nodes: above the protocol's privacy curve (which is
    convex in e^eps and below every node's value), and at some eps below the bound's own delta(eps) where
    that is not convex (e.g. the cell bound near 10^-12 at 10^5 users). The default multi-round result,
    a ``BestOf`` of composed bounds, is exported as the PLD of the best of their one-round bounds composed
    T times in ``dp_accounting``. Cost: one delta evaluation per node (``benchmarks/accounting.py`` times it for
    the default bound at 10^3–10^6 users; k-ary randomized response and the Laplace mechanism, evaluated eps by
    eps, take longer).

    **From the laws** (a ReducedPair: the clone pairs). The pair's two laws P0, P1 over the observed outcomes are passed to
    ``dp_accounting``'s ``from_two_probability_mass_functions`` with ``pessimistic_estimate=True`` (every
    privacy loss rounded up to the grid) and ``symmetric=False``: the result holds both directions, the
    PLD of P0 against P1 (``pmf_remove``) and of P1 against P0 (``pmf_add``), and its delta(eps) is the
    larger. Outcomes one law never emits (the revealing reports) go to dp_accounting's mass at +inf.
    The clone count's law is replaced by a stochastically smaller one built from its *certified* lower
    tail bounds (:meth:`~gspa.privacy.CloneLaw.tail_bounds`), the missing mass put at zero clones;
    fewer clones is a worse pair (one more clone is a post-processing), so the PLD dominates the pair with
    the true clone law. Clone counts of weight below ``PLD_TAIL`` = 1e-30 go to zero clones too, and each
    binomial is cut where Hoeffding's bound puts less than 1e-30 outside, that mass counted at +inf in
    both directions. What is not counted is the floating-point round-off of the masses themselves
    (relative ~1e-13); against gspa's own certified delta(eps) the tests find the PLD never lower beyond it.

    **Limits.** At most ``MAX_PLD_OUTCOMES`` = 5e6 outcomes (about 90 n for ``fmt21_pair(1, n)``, so
    n up to about 5e4; more users: use gspa's own :func:`~gspa.privacy.compose` for rounds),
    and at most 1e7 grid points (the finite losses' range over the interval; a Composed pair: T times
    that, at most 5e7). Needs ``dp_accounting`` (``pip install 'gspa[dp]'``)."""
    h = V.real(
        "value_discretization_interval",
        value_discretization_interval,
        low=1e-9,
        high=1.0,
        scalar=True,
    )
    return _to_pld(pair, h)


def _to_pld(pair, h: float, merge: bool = True):
    rounds, one = _rounds_of(pair)
    if isinstance(one, ReducedPair):
        P0, P1, span = _pair_laws(one, h, merge)
        _check_rounds(rounds, span, h)
        pld = _two_pmf_pld(P0, P1, h)
    elif _is_upper(one):
        pld = _curve_pld(one, h, rounds)
    else:
        _refuse(
            one, "pair" if rounds == 1 else f"pair.base (of a Composed pair of {rounds} rounds)"
        )
    return pld if rounds == 1 else pld.self_compose(rounds)


def _rounds_of(pair):
    """(T, one round): a Composed pair, or a BestOf / WorstOf of Composed bounds of the same T rounds (what
    ``personalized_pair(..., rounds=T)`` returns by default), whose one round is the BestOf / WorstOf of
    their one-round bounds (each valid for every round, so their pointwise best is too); else (1, pair)."""
    if isinstance(pair, Composed):
        return pair.rounds, pair.base
    members = getattr(pair, "pairs", ())
    if (
        isinstance(pair, (BestOf, WorstOf))
        and members
        and all(isinstance(p, Composed) for p in members)
    ):
        rounds = {p.rounds for p in members}
        if len(rounds) == 1:
            return rounds.pop(), type(pair)(tuple(p.base for p in members), pair.scope)
    return 1, pair


def _check_rounds(rounds: int, span: float, h: float) -> None:
    if rounds * span / h > _MAX_COMPOSED:
        raise ValueError(
            f"pair: {rounds} rounds of a PLD spanning {span:.3g} need about "
            f"{rounds * span / h:.2g} grid points at value_discretization_interval = {h:g} "
            f"(at most {_MAX_COMPOSED:.0e}); use a coarser interval or gspa's own compose"
        )


def _curve_pld(bound, h: float, rounds: int = 1):
    """The PLD of a certified bound known through its privacy curve (the cell bound, k-ary and Laplace
    covers, combinations of bounds): the connect-the-dots PLD of
    ``gspa.privacy.shuffle.composition._dominating_pld`` on the losses j r h (r the smallest integer
    with at most as many nodes up to where the curve vanishes as ``gspa.compose`` takes: 1000 for a curve
    read in one pass, else 250, read as ``gspa.compose`` reads them), symmetric (the curve bounds both
    directions), its masses rounded down and the rest at +inf."""
    curve = C._one_round_curve(bound)
    top = C._top(curve)
    r = max(1, int(np.ceil(top / (h * C._default_nodes(curve)))))
    K = max(1, int(np.ceil(top / (r * h))))
    _check_rounds(rounds, 2 * K * r * h, h)
    at, values = C._read_nodes(curve, K, r * h)
    omega, omega_inf = C._dominating_pld(values, r * h, at)
    live = np.flatnonzero(omega > 0)
    pmf = {int((j - K) * r): float(omega[j]) for j in live}
    return _pld().PrivacyLossDistribution.create_from_rounded_probability(
        pmf, omega_inf, h, pessimistic_estimate=True, symmetric=True
    )


def _is_upper(obj) -> bool:
    """Whether ``obj`` is one of gspa's certified upper bounds (a lower bound never dominates the protocol)."""
    if isinstance(obj, (Profile, CellsFirst)):
        return True
    return isinstance(obj, (BestOf, WorstOf)) and all(_is_upper(p) for p in obj.pairs)


def _refuse(obj, name):
    kind = type(obj).__name__
    lower = "Lower" in kind or any("Lower" in type(p).__name__ for p in getattr(obj, "pairs", ()))
    hint = (
        f"a lower bound ({kind}): a PLD must lie above the protocol's privacy curve"
        if lower
        else f"{obj!r:.80}"
    )
    raise ValueError(
        f"{name} must be a certified upper bound of gspa.privacy (personalized_pair, fmt21_pair, "
        f"fmt23_pair, clone_pair, or a BestOf / WorstOf of them) or a Composed of one; got {hint}"
    )


def _two_pmf_pld(P0: dict, P1: dict, h: float):
    return _pld().from_two_probability_mass_functions(
        P1, P0, pessimistic_estimate=True, value_discretization_interval=h, symmetric=False
    )


def _pair_laws(pair, h: float, merge: bool = True):
    """The pair's laws as dictionaries outcome -> log mass (outcomes of mass 0 left out), for a PLD on
    the grid h, and the range of its finite privacy losses (see :func:`to_pld`). ``merge``: outcomes
    whose losses round up to the same grid points in both directions are merged (dp_accounting puts
    their masses on the same points, so the PLD is the same; it is built much faster)."""
    from scipy import special

    m, w = _clone_weights(pair.clones)  # a law stochastically below the true one
    lo, hi, lost = _windows(m, w)  # binomial windows; the mass cut (both laws)
    sizes = hi - lo + 2  # outcomes a = lo .. hi + 1
    total = int(sizes.sum())
    if total > MAX_PLD_OUTCOMES:
        raise ValueError(
            f"pair: its laws have about {total:.3g} outcomes with mass above {PLD_TAIL:g} (clone counts "
            f"up to {int(m.max())}); at most MAX_PLD_OUTCOMES = {MAX_PLD_OUTCOMES:.0e} are enumerated: "
            "use a pair with fewer users, or gspa's own compose() for rounds"
        )
    if np.isfinite(pair.log_odds):
        lq, l1q = float(special.log_expit(pair.log_odds)), float(special.log_expit(-pair.log_odds))
    else:
        lq, l1q = 0.0, -np.inf
    with np.errstate(divide="ignore"):
        scale = float(np.log(pair.weight) + np.log1p(-pair.delta_n))
    ends = np.cumsum(sizes)
    parts, first = [], 0
    while first < m.size:  # chunks of about 2e6 outcomes (memory)
        last = max(
            first + 1, int(np.searchsorted(ends, (ends[first - 1] if first else 0) + 2 * 10**6))
        )
        parts.append(
            _chunk_laws(
                m[first:last],
                w[first:last],
                lo[first:last],
                sizes[first:last],
                lq,
                l1q,
                scale,
                h,
                merge,
            )
        )
        first = last
    key = np.concatenate([p[0] for p in parts])
    l0, l1 = np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])
    if merge and len(parts) > 1:
        key, l0, l1 = _merge(key, l0, l1)
    both = np.isfinite(l0) & np.isfinite(l1)
    span = float(np.ptp(l0[both] - l1[both])) if both.any() else 0.0
    if span / h > _MAX_POINTS:
        raise ValueError(
            f"value_discretization_interval = {h:g}: the pair's finite privacy losses span "
            f"{span:.3g}, about {span / h:.2g} grid points (at most {_MAX_POINTS:.0e}); use an "
            f"interval of at least {span / _MAX_POINTS:.2g}"
        )
    P0 = {i: float(v) for i, v in enumerate(l0) if v > -np.inf}
    P1 = {i: float(v) for i, v in enumerate(l1) if v > -np.inf}
    with np.errstate(divide="ignore"):
        extra = {
            "no information": float(np.log1p(-pair.delta_n) + np.log1p(-pair.weight)),
            "reveals 0": float(np.log(pair.delta_n)),
        }
    for k, v in extra.items():
        if v > -np.inf:
            P0[k] = v
            P1[k if k == "no information" else "reveals 1"] = v
    if lost > 0:  # the binomials' cut tails: at +inf both ways
        P0["cut 0"], P1["cut 1"] = float(np.log(lost)), float(np.log(lost))
    return P0, P1, span


def _chunk_laws(m, w, lo, sizes, lq, l1q, scale, h, merge):
    """Log masses under P0 and P1 of the outcomes (m clones, a of the m + 1 reports 0) of one chunk of
    clone counts, merged by their grid points (``_pair_laws``); ``key`` identifies a merged outcome."""
    from scipy import stats

    total = int(sizes.sum())
    mm = np.repeat(m, sizes)
    a = np.repeat(lo - np.cumsum(sizes) + sizes, sizes) + np.arange(total)
    lw = np.repeat(np.log(w), sizes) + scale
    with np.errstate(divide="ignore", invalid="ignore"):
        lb_here = stats.binom.logpmf(a, mm, 0.5)  # -inf at a = m + 1
        lb_prev = stats.binom.logpmf(a - 1, mm, 0.5)  # -inf at a = 0
        l0 = lw + np.logaddexp(lq + lb_prev, l1q + lb_here)
        l1 = lw + np.logaddexp(l1q + lb_prev, lq + lb_here)
        loss = l0 - l1
    fin0, fin1 = np.isfinite(l0), np.isfinite(l1)
    both = fin0 & fin1
    # the grid points dp_accounting rounds each loss up to, in both directions (2^40: outside the grid cap)
    up = np.where(both, np.ceil(np.where(both, loss, 0.0) / h), 2.0**40)
    down = np.where(both, np.ceil(np.where(both, -loss, 0.0) / h), 2.0**40)
    up = np.where(fin1 | ~fin0, up, 2.0**41)  # only P0 emits it: P1-side infinite loss
    down = np.where(fin0 | ~fin1, down, 2.0**42)  # only P1 emits it
    key = np.stack([up, down], axis=1)
    ok = fin0 | fin1
    key, l0, l1 = key[ok], l0[ok], l1[ok]
    if not merge:
        return key, l0, l1  # (for the tests: the PLD is the same)
    return _merge(key, l0, l1)


def _merge(key, l0, l1):
    """Sum the masses of the outcomes with equal keys (rows), in the log domain."""
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.ravel()
    order = np.argsort(inv, kind="stable")
    bounds = np.flatnonzero(np.diff(inv[order])) + 1
    starts = np.concatenate([[0], bounds])
    out0, out1 = _group_logsumexp(l0[order], starts), _group_logsumexp(l1[order], starts)
    return uniq, out0, out1


def _group_logsumexp(x, starts):
    """The log-sum-exp of each group of x (groups start at ``starts``), -inf for an all -inf group."""
    peak = np.maximum.reduceat(x, starts)
    base = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(divide="ignore"):
        return base + np.log(
            np.add.reduceat(np.exp(x - np.repeat(base, np.diff(np.append(starts, x.size)))), starts)
        )
