"""The fmt21 study's helpers shared by the stated domains of several chapters' claims."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.studies.fmt21 import amplification, learning


def condition_domain(stated: str, **kw) -> ClaimDomain:
    """Eq. (1)'s whole condition region (:func:`amplification.condition_params`), with the blog's words."""
    return ClaimDomain(tuple(Param(**p) for p in amplification.condition_params(**kw)), stated)


def rate_domain(stated: str, **kw) -> ClaimDomain:
    """The domain of one of the blog's rate statements (:func:`learning.rate_params`), with its words."""
    return ClaimDomain(tuple(Param(**p) for p in learning.rate_params(**kw)), stated)
