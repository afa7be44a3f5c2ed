"""The privacy library: everything needed to compute privacy in the shuffle model, independent of any
paper and of the book (no plotting, no torch, no papermill).

* :mod:`~gspa.privacy.hypothesis` — type I/II errors, exact trade-off curves, hockey-stick divergence;
* :mod:`~gspa.privacy.fdp` — f-DP and Gaussian DP;
* :mod:`~gspa.privacy.mechanisms` — Laplace, Gaussian, randomized response, the quaternary pair (KOV15);
* :mod:`~gspa.privacy.decomposition` — the largest clone probability of a randomizer (linear program);
* :mod:`~gspa.privacy.clones` — laws of clone counts with certified error bounds;
* :mod:`~gspa.privacy.accountant` — certified (ε, δ) for shuffled randomizers with personalized budgets;
* :mod:`~gspa.privacy.cells` — shuffled binary randomized response: the worst case over the others' data, cell by cell;
* :mod:`~gspa.privacy.composition` — certified composition over rounds (privacy-loss distributions);
* :mod:`~gspa.privacy.blanket` — the privacy blanket: FLAME's Algorithm 1, eq. (1), its certified shuffled profile,
  BBGN19's bounds (FLAME Lemma 1 and the numerical Bennett bound);
* :mod:`~gspa.privacy.subsampling` — amplification by subsampling (FLAME Lemma 4), also for whole privacy curves;
* :mod:`~gspa.privacy.bruteforce` — exhaustive enumeration of small shuffled protocols (the ground truth);
* :mod:`~gspa.privacy.protocol` — the counts of shuffled binary randomized response;
* :mod:`~gspa.privacy.baselines` — published closed-form amplification bounds with their validity conditions;
* :mod:`~gspa.privacy.dpaccounting` — the bridge to Google's ``dp_accounting`` (PLD): :func:`~gspa.privacy.dpaccounting.to_pld`
  turns a certified pair into a dominating ``dp_accounting`` privacy-loss distribution;
* :mod:`~gspa.privacy.variation` — Wang et al.'s variation-ratio pair (VLDB 2024) re-derived: where it fails, and the
  certified lower bound it gives for k-ary randomized response;
* :mod:`~gspa.privacy.published` — numbers published by others, and the accountant checked against them.
"""
from gspa.privacy.accountant import (BestLower, BestOf, KaryPair, LowerBound, ReducedPair, WorstOf, clone_pair,
                                     fmt21_pair, fmt23_pair, lower_bound, personalized_pair)
from gspa.privacy.bruteforce import compare_with_truth, shuffled_profile
from gspa.privacy.clones import CloneLaw, clone_law
from gspa.privacy.composition import Composed, compose
from gspa.privacy.dpaccounting import to_pld
from gspa.privacy.fdp import gdp_compose, gdp_delta, gdp_epsilon, gdp_tradeoff
from gspa.privacy.variation import KaryLowerBound, VariationRatioPair

__all__ = ["personalized_pair", "fmt21_pair", "fmt23_pair", "clone_pair", "lower_bound", "ReducedPair", "KaryPair", "BestOf",
           "WorstOf", "LowerBound", "BestLower", "KaryLowerBound", "VariationRatioPair", "compose", "Composed", "clone_law", "CloneLaw", "shuffled_profile", "compare_with_truth",
           "gdp_delta", "gdp_epsilon", "gdp_tradeoff", "gdp_compose", "to_pld"]
