"""Bridges to other libraries: Google's dp_accounting privacy-loss distributions."""
