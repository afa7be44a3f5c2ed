"""Feldman–McMillan–Talwar's claims (as told by Canonne's blog post) as data: for each claim its statement, place in the paper, kind, rule, paper value and
stated domain, one section per chapter; the chapters record them by id with the values they compute
(:meth:`gspa.book.results.Chapter.claim`); the computations they judge are in `amplification`, `testing` and `learning`."""

from __future__ import annotations

from gspa.claims.table import table


# -- the clones (chapter fmt21/clones) -------------------------------------------------------------

CLONES: dict = {}  # filled when the chapter moves its claims here


# -- the regimes (chapter fmt21/regimes) -----------------------------------------------------------

REGIMES: dict = {}  # filled when the chapter moves its claims here


# -- the testing view (chapter fmt21/testing) ------------------------------------------------------

TESTING: dict = {}  # filled when the chapter moves its claims here


# -- learning (chapter fmt21/learning) -------------------------------------------------------------

LEARNING: dict = {}  # filled when the chapter moves its claims here


# -- the study's table ------------------------------------------------------------------------------

CLAIMS = table(CLONES, REGIMES, TESTING, LEARNING)
