"""The fmt21 study's helpers shared by the stated domains of several chapters' claims."""

from __future__ import annotations

from gspa.claims.domain import ClaimDomain, Param
from gspa.claims.rules import Compare, Readings
from gspa.studies.fmt21 import amplification, learning


def condition_domain(stated: str, **kw) -> ClaimDomain:
    """Eq. (1)'s whole condition region (:func:`amplification.condition_params`), with the blog's words."""
    return ClaimDomain(tuple(Param(**p) for p in amplification.condition_params(**kw)), stated)


def rate_domain(stated: str, **kw) -> ClaimDomain:
    """The domain of one of the blog's rate statements (:func:`learning.rate_params`), with its words."""
    return ClaimDomain(tuple(Param(**p) for p in learning.rate_params(**kw)), stated)


def plugging_rule(rates: str) -> Readings:
    """The rule of an algebra claim (eq. (5) plugged into ``rates``): within a factor 10 of the blog's result,
    under each reading of eq. (5)'s second case (:data:`learning.EQ5_READINGS`)."""
    return Readings(
        Compare(
            ">=",
            0.0,
            what=f"smallest log 10 − |log(n / the blog's result)| over {rates}, n the smallest number of "
            "users from which on the LDP rate at eq. (5)'s ε_L is met (constants 1; the factor 10 is "
            "the referee's: the blog ignores constants)",
        ),
        what="reading of eq. (5)'s second case",
    )
