"""One declaration per local randomizer the shuffle accountant certifies: its name and parameters, what it covers,
which reductions, variants and lower bounds it supports, and the enumerated protocol its certificate is tested on.
The accountant, the lower bounds, the command line, the API page and the contract test all read these records.

Adding a randomizer = a :class:`Randomizer` here (with the argument why Lemma 1's clone weights hold for it), its
pair in :mod:`gspa.privacy.shuffle.accountant`, and the contract test (tests/privacy/test_contract.py) passing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gspa.util import validate as V

VARIANT_NAMES = ("randomized", "revealing")
REDUCTION_NAMES = ("blanket", "clones", "cells")


@dataclass(frozen=True)
class Randomizer:
    """A local randomizer of the shuffle accountant, declared once.

    ``name``: the value of ``randomizer=`` (and of ``gspa account --randomizer``); ``title``: its words in
    scopes and messages; ``needs_k``: it takes the alphabet size ``k`` (an integer >= 2); ``local_delta``: users
    may have delta_i > 0; ``reductions``: the reductions it supports (``"blanket"`` and ``"clones"`` name the same
    clone pair except for k-ary randomized response); ``lower``: the variants with a certified lower bound
    (:func:`gspa.privacy.lower_bound`); ``revealing_is_clear``: the revealing variant also covers the
    protocol in which the differing user reports its input in the clear; ``truth``: the protocol of
    :func:`gspa.privacy.exact.shuffled_profile` its certificate is tested against (``truth_variant`` per variant:
    the clear protocol where ``revealing_is_clear``, else the randomized one); ``common_baselines``: the published
    common-budget bounds (FMT21, ...) apply when all budgets are equal; ``always_common``: they apply for any
    budgets (every user's law dominates e^-eps0 times every other's with eps0 = max eps_i); ``why``: why Lemma 1's
    clone weights (eq. (11)) hold for it — the proof obligation of the declaration."""

    name: str
    title: str
    why: str
    truth: str
    needs_k: bool = False
    local_delta: bool = False
    reductions: tuple = ("blanket", "clones")
    lower: tuple = ("randomized",)
    revealing_is_clear: bool = False
    common_baselines: bool = True
    always_common: bool = False

    @property
    def default_reduction(self) -> str:
        """The reduction used when none is named: the cell bound where the randomizer has one (the tightest
        certified bound, and as fast as the clone pair), else the blanket pair."""
        return "cells" if "cells" in self.reductions else "blanket"

    def truth_variant(self, variant: str) -> str:
        """The enumerated protocol's variant that the accountant's ``variant`` covers."""
        return variant if self.revealing_is_clear else "randomized"

    def check_k(self, k):
        """``k`` validated for this randomizer: an integer >= 2 where it needs one, else None."""
        if self.needs_k:
            if k is None or isinstance(k, (bool, np.bool_)):
                raise ValueError(
                    f"randomizer {self.name!r} needs the alphabet size k (an integer >= 2)"
                )
            return V.integer("k", k, low=2)
        if k is not None:
            raise ValueError(
                f"k is only used with randomizer='k-rr', got k={k!r} with {self.name!r}"
            )
        return None

    def check_delta(self, delta) -> None:
        """Refuse delta_i > 0 for a randomizer that is (eps_i, 0)-LDP."""
        if delta is None or self.local_delta:
            return
        delta = V.real("delta", delta, low=0.0, high=1.0, high_open=True)
        if np.any(delta > 0):
            raise ValueError(
                f"randomizer {self.name!r} is (eps_i, 0)-LDP but delta has values up to "
                f"{float(np.max(delta)):g}; for delta_i > 0 use randomizer='quaternary' (Lemma 4's "
                "(eps_i, delta_i) randomizer)"
            )

    def check_reduction(self, reduction: str) -> None:
        """Refuse (ValueError) a reduction this randomizer does not support."""
        if reduction not in REDUCTION_NAMES:
            raise ValueError(f"reduction must be one of {REDUCTION_NAMES}, got {reduction!r}")
        if reduction not in self.reductions:
            takers = tuple(r.name for r in RANDOMIZERS if reduction in r.reductions)
            raise ValueError(
                f"reduction {reduction!r} is for randomizers {takers}, got {self.name!r}"
            )


RANDOMIZERS = (
    Randomizer(
        "binary-rr",
        "binary randomized response",
        truth="binary-rr",
        reductions=REDUCTION_NAMES,
        lower=VARIANT_NAMES,
        revealing_is_clear=True,
        always_common=True,
        why="Algorithm 2: t_i = 1/(1 + e^eps_i), L = max eps_i, weight 1. The clone-type component of the differing "
        "user is its input itself, so the revealing pair covers the protocol with its input in the clear.",
    ),
    Randomizer(
        "k-rr",
        "k-ary randomized response",
        truth="k-rr",
        needs_k=True,
        why="With reduction 'blanket' (randomized variant, k >= 3) the blanket pair KaryPair: each report is the "
        "input or, w.p. g_i = k/(e^eps_i + k - 1), a uniform symbol, and whether the differing user drew from "
        "its blanket stays hidden among the others' draws. With 'clones', the better of two clone "
        "decompositions: lambda = 0 (weight (1 + e^eps_n)/(e^eps_n + k - 1), t_i = 1/(e^eps_i + k - 1)) and "
        "lambda = 1 (weight 1, t_i = (e^eps_n + k - 1)/((e^eps_i + k - 1)(1 + e^eps_n))). Its revealing pair "
        "reveals the clone-type component, which is not the input in the clear (it lies below that protocol): "
        "it covers the randomized protocol only. For k = 2 it is binary-rr.",
    ),
    Randomizer(
        "quaternary",
        "Lemma 4's quaternary randomizer",
        truth="quaternary",
        local_delta=True,
        reductions=("blanket", "clones", "cells"),
        revealing_is_clear=True,
        why="Lemma 4 (KOV15): every (eps_i, delta_i)-DP randomizer is a post-processing of it. With probability "
        "delta_i it reveals the input, otherwise it is binary randomized response with eps_i: "
        "t_i = (1 - delta_i)/(1 + e^eps_i), delta_n = max delta_i counted in full (the reveal is an outcome no "
        "clone emits).",
    ),
    Randomizer(
        "laplace",
        "the Laplace mechanism",
        truth="laplace-binned",
        why="x + Lap(1/eps_i) on inputs of range 1. For the differing user's inputs at distance d the pair is "
        "(w d)-DP (w its budget) and every other user with budget u <= w, at any input, has density at least "
        "(u/w) e^{-u} (f_x0 + f_x1)/(1 + e^{-w d}) (Lemma 1's 1/(1 + e^eps) at u = w, d = 1). So the reduced "
        "pair is (w d, clone weights 2 (u/w) e^{-u}/(1 + e^{-w d})). A more liberal user's noise has lighter "
        "tails: it gives clones only on a core [c - M, c + M] around the inputs' midpoint c, the differing "
        "user's reports beyond it (probability at most e^-16, e^-24 or e^-40: three cores) counted as revealed "
        "(the core pair, where it helps). A cover of the budgets by bands and of d in [0, 1] by 48 intervals, "
        "each cell by the pair with its largest log-odds and smallest clone weights, proves the bound for every "
        "differing user and every pair of inputs (gspa.privacy.shuffle.pairs.LaplaceBands). Tested against the "
        "continuous protocol itself: gspa.privacy.exact.laplace_profile brackets its delta with 2 and 3 users "
        "(distinct budgets, interior inputs) and the bound lies above the bracket's upper end; the contract "
        "also holds it to the binned protocol (a post-processing) over its budget sets and two rounds. With one "
        "budget v the accountant also takes gspa.privacy.shuffle.cells.LaplaceCells and keeps the smaller: for "
        "distances d in [a, b] every other user is, with probability at least min(1/cosh(v b/2), e^{-v}(1 + "
        "e^l)/(1 + e^{-v a})), randomized response with budget l <= v a on the pair's symbols, so the cell bound "
        "of Lemma 4's randomizer (the rest revealed, the differing user known, with budget v b, never revealing) "
        "covers it; tested the same way. For the randomized variant the bound is also capped by the most "
        "liberal user's own report, 1 - e^{(eps - w)/2} below its budget w (the shuffled reports are a "
        "post-processing of the differing user's report and of the others', which do not depend on its input; "
        "gspa.privacy.shuffle.pairs.LaplaceLocal): the cap decides with few users of large budgets.",
    ),
    Randomizer(
        "any-ldp",
        "any εᵢ-LDP randomizer per user",
        truth="disjoint-rr",
        lower=(),
        revealing_is_clear=True,
        common_baselines=False,
        why="Every user i has its own eps_i-LDP randomizer, any at all: users whose randomizers have disjoint "
        "output sets are identified by their reports, so the shuffle amplifies nothing and the central profile "
        "is the most liberal user's local one (binary randomized response is the worst eps-LDP pair). Exact "
        "for this class. Users sharing one eps0-LDP randomizer are covered by fmt21_pair instead.",
    ),
)
NAMES = tuple(r.name for r in RANDOMIZERS)
_BY_NAME = {r.name: r for r in RANDOMIZERS}


def get(name) -> Randomizer:
    """The declaration named ``name``, or a ValueError listing the declared names (Lemma 1's eq. (11) is
    certified for these only)."""
    if not isinstance(name, str) or name not in _BY_NAME:
        raise ValueError(
            f"randomizer must be one of {NAMES}, got {name!r}: the clone decomposition (Lemma 1, eq. (11)) is "
            "certified only for these; fmt21_pair(eps0, n) covers a common eps0-LDP randomizer shared by all users, "
            "not user-tied personalized ones"
        )
    return _BY_NAME[name]
