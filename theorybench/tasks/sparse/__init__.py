"""Sparse Boolean functions of a hidden fixed set of k positions."""
