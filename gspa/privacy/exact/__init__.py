"""Ground truth: exhaustive enumeration of small shuffled protocols, the oracle behind the word "certified"; no
module of the accountant imports it."""

from gspa.privacy.exact.enumeration import compare_with_truth, laplace_profile, shuffled_profile

__all__ = ["compare_with_truth", "laplace_profile", "shuffled_profile"]
