"""a^n b^n (n >= 1)

A counter language of the length-generalization papers' formal-language suites (Bhattamishra,
Ahuja & Goyal, EMNLP 2020; Huang et al., ICLR 2025), as a task file: a deterministic counter
automaton (`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path). The generator of Bhattamishra et al. (src/utils/data_generator.py,
CounterLanguage, at commit 48eea2e) draws n uniformly, one word per n.
"""

NAME = "anbn"
DESCRIPTION = "a^n b^n (n >= 1)"
ALPHABET = ("a", "b")
LENGTHS = (1, 400)
# one counter: the a's not yet matched by b's; state A reads a's, B reads b's
COUNTER = {"start": "A", "accept": ["B"], "init": (0,),
           "delta": {"A": {"a": ("A", (1,)), "b": ("B", (-1,))},
                     "B": {"b": ("B", (-1,))}}}
