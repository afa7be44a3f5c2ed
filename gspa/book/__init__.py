"""The machinery of the book: papermill execution and the Jupyter Book build (:mod:`~.pipeline`), claims
and verdicts (:mod:`~.claims`, :mod:`~.results`), the generated pages (:mod:`~.ledger`), HTML tables
(:mod:`~.tables`) and the plotting style (:mod:`~.plotting`)."""
