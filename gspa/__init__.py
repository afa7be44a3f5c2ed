"""gspa — a privacy accountant for the shuffle model, and the executable companion of
E. Chen, Y. Cao, Y. Ge, "A Generalized Shuffle Framework for Privacy Amplification" (AAAI 2024).

Five layers; a lower one never imports a higher one (``tests/test_layers.py`` checks this):

* :mod:`gspa.util` — input validation and atomic file writes;
* :mod:`gspa.privacy` — the privacy library, independent of any paper and of the book: trade-off
  functions and f-DP/GDP, mechanisms, clone counts and the certified shuffle accountant, peers' amplification
  bounds, the bridge to ``dp_accounting``, and (in :mod:`gspa.privacy.exact`) exhaustive enumeration of small
  shuffled protocols, the ground truth of its tests;
* :mod:`gspa.experiments` — shared experiment infrastructure: MNIST, resumable parallel runs;
* :mod:`gspa.studies` — one subpackage per paper (:mod:`gspa.studies.gspa`): its lemmas and theorems as
  stated, its scenarios, its figures' computations and its experiments;
* :mod:`gspa.book` — the machinery of the book: pipeline, claims and verdicts, ledger, tables, plotting.

The names below are the public surface of the privacy library (also importable from :mod:`gspa.privacy`).
"""

__version__ = "0.1.0"

from gspa.privacy import *  # noqa: E402,F401,F403  (the library's public names)
from gspa.privacy import __all__ as __all__  # noqa: E402  (re-exported)


def __getattr__(name):
    """Names that moved out of the public surface resolve through :mod:`gspa.privacy`'s deprecation path."""
    from gspa import privacy

    return privacy.__getattr__(name)
