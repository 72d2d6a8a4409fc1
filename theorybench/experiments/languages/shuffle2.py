"""Shuffle-2: the shuffle of two Dyck-1 languages, () and []

A counter language of the length-generalization papers' formal-language suites (Bhattamishra,
Ahuja & Goyal, EMNLP 2020; Huang et al., ICLR 2025), as a task file: a deterministic counter
automaton (`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path). Each bracket type is balanced on its own (its count never below 0,
0 at the end), so ([)] is a member; the targets of Bhattamishra et al.
(src/utils/shuffle_generator.py at commit 48eea2e) are these per-type counts, while their
generator draws nested (Dyck-2) words only.
"""

NAME = "shuffle2"
DESCRIPTION = "Shuffle-2: the shuffle of two Dyck-1 languages, () and []"
ALPHABET = ("(", ")", "[", "]")
LENGTHS = (1, 400)
COUNTER = {"start": 0, "accept": [0], "init": (0, 0),
           "delta": {0: {"(": (0, (1, 0)), ")": (0, (-1, 0)),
                         "[": (0, (0, 1)), "]": (0, (0, -1))}}}
