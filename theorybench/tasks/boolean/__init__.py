"""Boolean functions of a bit string: all, any, majority, parity."""
