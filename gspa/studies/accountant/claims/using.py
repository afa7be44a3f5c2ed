"""The claims of chapter accountant/using (using the accountant) as data: for each its statement, place in the paper, kind,
rule, paper value and stated domain (:class:`gspa.claims.table.Claim`); the chapter records them by id."""

from __future__ import annotations

from gspa.claims.table import table


# -- using the accountant (chapter accountant/using) -----------------------------------------------

USING: dict = {}  # filled when the chapter moves its claims here


CLAIMS = table(USING)
