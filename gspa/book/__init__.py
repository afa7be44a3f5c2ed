"""The machinery of the book: executing the chapters and building the book (:mod:`~.pipeline`,
:mod:`~.execution`, :mod:`~.freshness`, :mod:`~.parameters`), the chapters' records of numbers and claims
(:mod:`~.results`, :mod:`~.worstcase`), the generated pages (:mod:`~.ledger`, :mod:`~.provenance`,
:mod:`~.citation`), HTML tables (:mod:`~.tables`) and the plotting style (:mod:`~.plotting`)."""
