"""FLAME's claims as data: for each claim its statement, place in the paper, kind, rule, paper value and
stated domain, one section per chapter; the chapters record them by id with the values they compute
(:meth:`gspa.book.results.Chapter.claim`); the computations they judge are in `domains`."""

from __future__ import annotations

from gspa.claims.table import table


# -- the theorems and Figure 3 (chapter flame/theorems) --------------------------------------------

THEOREMS: dict = {}  # filled when the chapter moves its claims here


# -- the blanket and Corollary 1 (chapter flame/blanket) -------------------------------------------

BLANKET: dict = {}  # filled when the chapter moves its claims here


# -- the protocols' accounting (chapter flame/accounting) ------------------------------------------

ACCOUNTING: dict = {}  # filled when the chapter moves its claims here


# -- Figure 8's parameters (chapter flame/fl_parameters) -------------------------------------------

FL_PARAMETERS: dict = {}  # filled when the chapter moves its claims here


# -- the federated runs (chapter flame/fl_utility) -------------------------------------------------

FL_UTILITY: dict = {}  # filled when the chapter moves its claims here


# -- the study's table ------------------------------------------------------------------------------

CLAIMS = table(THEOREMS, BLANKET, ACCOUNTING, FL_PARAMETERS, FL_UTILITY)
