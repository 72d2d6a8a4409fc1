"""first_eq_last: the first and the last token are equal (the issue's example)."""

NAME = "first_eq_last"            # a new family name (refused if it shadows a built-in)
ALPHABET = ("a", "b")             # tokens; the input is a string of n of them
LENGTHS = (2, 64)                 # the range of n, inclusive; optional VALID(n) -> bool narrows it


def label(x):                     # x: int numpy array (count, n), indices into ALPHABET
    return x[:, 0] == x[:, -1]    # -> (count,) of 0/1 (or bool)
