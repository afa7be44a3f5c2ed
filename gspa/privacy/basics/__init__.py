"""Differential privacy without a shuffler: hypothesis testing, f-DP and Gaussian DP, local mechanisms, clone
decompositions by linear programming, and amplification by subsampling."""
