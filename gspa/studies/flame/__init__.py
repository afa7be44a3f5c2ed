"""Studies of FLAME (Liu et al., AAAI 2021): federated learning in the shuffle model."""
