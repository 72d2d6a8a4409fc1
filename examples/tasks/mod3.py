"""MOD-3 counting: the number of a's is divisible by k (3 by default).

A task file for theorybench (docs/extending.md, "Bring your own task"):
    theorybench task check examples/tasks/mod3.py
    theorybench sensitivity examples/tasks/mod3.py --n 4..12
"""

NAME = "mod3"
DESCRIPTION = "1 iff the number of a's in x in {a,b}^n is divisible by k (MOD-k counting)"
ALPHABET = ("a", "b")
LENGTHS = (1, 64)
PARAMS = {"k": (2, 7, 3)}      # k in 2..7, default 3: the variant mod3:k=5


def label(x, k=3):
    # x: (count, n) token indices; "a" is index 0
    return (x == 0).sum(axis=1) % k == 0


def oracle(x, k=3):
    # an independent reference: one row at a time, counting in Python
    return [int("".join("ab"[t] for t in row).count("a") % k == 0) for row in x]
