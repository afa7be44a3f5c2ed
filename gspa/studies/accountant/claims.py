"""The accountant part's claims about its peers as data: for each claim its statement, place in the paper, kind, rule, paper value and
stated domain, one section per chapter; the chapters record them by id with the values they compute
(:meth:`gspa.book.results.Chapter.claim`); the computations they judge are in `brackets` and `speed`."""

from __future__ import annotations

from gspa.claims.table import table


# -- the peers (chapter accountant/peers) ----------------------------------------------------------

PEERS: dict = {}  # filled when the chapter moves its claims here


# -- using the accountant (chapter accountant/using) -----------------------------------------------

USING: dict = {}  # filled when the chapter moves its claims here


# -- the study's table ------------------------------------------------------------------------------

CLAIMS = table(PEERS, USING)
