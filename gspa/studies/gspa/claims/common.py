"""The gspa study's parameters shared by the stated domains of several chapters' claims."""

from __future__ import annotations

from gspa.claims.domain import Param


# -- common parameters of the stated domains -------------------------------------------------------------

EPS0 = Param(
    "eps0",
    1e-2,
    10.0,
    stated="any common budget ε₀ ('without loss of generality', text after Lemma 2)",
    closed_by="ε₀ ∈ [0.01, 10]",
)
DELTA0 = Param(
    "delta0",
    0.0,
    0.5,
    "linear",
    stated="δ₀ = O(1/n) (text after Lemma 2), δᵢ ∈ [0, 1)",
    closed_by="δ₀ ∈ [0, 0.5]",
)


# -- the readings of "approximately μ-GDP" (Theorems 2, 3 and 4), one label each so that claims implied by one
# another are compared reading by reading (gspa.book.ledger.implication_conflicts)
APPROX_FINITE_N = (
    r"$G_\mu$ within 10 % of the exact curve's TV at every n (the book's finite-n reading)"
)
#: the finite-n reading for Algorithm 2 (Theorem 4) measures the excess against the real protocol's own TV, which
#: post-processing makes smaller than the pair's: the pair's reading holding does not imply it, so the label is
#: not shared. Eq. (15)'s readings are: a C that serves the pair serves any post-processing of it.
APPROX_FINITE_N_PROTOCOL = (
    r"$G_\mu$ within 10 % of the real protocol's own TV at every n (the book's finite-n reading)"
)
APPROX_ONE_C = "eq. (15), one C for all budgets"
APPROX_C_BY_BUDGETS = "eq. (15), C depending on the budgets"
