"""The privacy library: certified privacy accounting for the shuffle model, independent of any paper and of
the book (no plotting, no torch, no papermill). The map of its subpackages: ARCHITECTURE.md.
"""

import warnings

from gspa.privacy.basics.fdp import gdp_compose, gdp_delta, gdp_epsilon, gdp_tradeoff
from gspa.privacy.interop.dpaccounting import to_pld
from gspa.privacy.peers.variation import VariationRatioPair
from gspa.privacy.profiles import BestOf, WorstOf
from gspa.privacy.shuffle.accountant import personalized_pair
from gspa.privacy.shuffle.clones import CloneLaw, clone_law
from gspa.privacy.shuffle.composition import Composed, compose
from gspa.privacy.shuffle.lower import (
    BestLower,
    KaryCountsLower,
    KaryLowerBound,
    LaplaceLatticeLower,
    LaplaceScoreLower,
    LowerBound,
    lower_bound,
)
from gspa.privacy.shuffle.pairs import (
    KaryPair,
    LaplaceBands,
    LaplaceCover,
    ReducedPair,
    clone_pair,
    fmt21_pair,
    fmt23_pair,
)

__all__ = [
    "personalized_pair",
    "fmt21_pair",
    "fmt23_pair",
    "clone_pair",
    "lower_bound",
    "ReducedPair",
    "KaryPair",
    "LaplaceCover",
    "LaplaceBands",
    "BestOf",
    "WorstOf",
    "LowerBound",
    "BestLower",
    "KaryLowerBound",
    "KaryCountsLower",
    "LaplaceLatticeLower",
    "LaplaceScoreLower",
    "VariationRatioPair",
    "compose",
    "Composed",
    "clone_law",
    "CloneLaw",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_tradeoff",
    "gdp_compose",
    "to_pld",
]

_MOVED = {"compare_with_truth": "gspa.privacy.exact", "shuffled_profile": "gspa.privacy.exact"}


def __getattr__(name):
    """The exact enumeration (the test oracle) is no longer loaded with the library: its two names that
    ``gspa.privacy`` exported before the library was split into subpackages still resolve, with a DeprecationWarning naming their new home."""
    if name in _MOVED:
        import importlib

        warnings.warn(
            f"gspa.privacy.{name} moved to {_MOVED[name]}.{name}", DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'gspa.privacy' has no attribute {name!r}")
