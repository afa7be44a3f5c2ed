"""gspa — executable companion and shuffle-model privacy accountant for
E. Chen, Y. Cao, Y. Ge, "A Generalized Shuffle Framework for Privacy Amplification" (AAAI 2024).

Modules, one per concept of the paper:

* :mod:`gspa.hypothesis` — type I/II errors, exact trade-off curves, hockey-stick divergence (Table 1, eqs. 3–5)
* :mod:`gspa.fdp`        — f-DP and Gaussian DP (Definition 3, Facts 1–4)
* :mod:`gspa.mechanisms` — Laplace, Gaussian, randomized response, the quaternary pair (Definitions 4–5, Lemma 4)
* :mod:`gspa.claims`, :mod:`gspa.results`, :mod:`gspa.ledger` — verdicts on the paper's claims
* :mod:`gspa.pipeline`   — papermill execution and the Jupyter Book build
"""
__version__ = "0.1.0"
