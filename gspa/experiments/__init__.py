"""Experiment infrastructure shared by the studies: MNIST from the pinned PyPI wheel
(:mod:`~gspa.experiments.mnist`) and resumable parallel runs that die with their parent
(:mod:`~gspa.experiments.pool`). Builds on :mod:`gspa.privacy`; knows no paper."""
