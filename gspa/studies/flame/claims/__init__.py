"""The flame study's claims as data, one module per chapter (``claims.<chapter>.CLAIMS``): a chapter
depends on its own claims and the shared definitions only, and a claim edit makes its chapter alone stale.
The whole study's table is :func:`all_claims` (for the ledger and the tests; a chapter never calls it)."""

from gspa.claims.table import package_table


def all_claims():
    """Every claim of the study, keyed by id: the union of the chapters' tables."""
    return package_table(__name__)
