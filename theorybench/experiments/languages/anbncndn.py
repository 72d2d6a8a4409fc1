"""a^n b^n c^n d^n (n >= 1)

A counter language of the length-generalization papers' formal-language suites (Bhattamishra,
Ahuja & Goyal, EMNLP 2020; Huang et al., ICLR 2025), as a task file: a deterministic counter
automaton (`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path). The generator of Bhattamishra et al. (CounterLanguage at commit
48eea2e) draws n uniformly, one word per n.
"""

NAME = "anbncndn"
DESCRIPTION = "a^n b^n c^n d^n (n >= 1)"
ALPHABET = ("a", "b", "c", "d")
LENGTHS = (1, 400)
# counter i: the a's not yet matched by the (i + 1)-th letter after them
COUNTER = {"start": "A", "accept": ["D"], "init": (0, 0, 0),
           "delta": {"A": {"a": ("A", (1, 1, 1)), "b": ("B", (-1, 0, 0))},
                     "B": {"b": ("B", (-1, 0, 0)), "c": ("C", (0, -1, 0))},
                     "C": {"c": ("C", (0, -1, 0)), "d": ("D", (0, 0, -1))},
                     "D": {"d": ("D", (0, 0, -1))}}}
