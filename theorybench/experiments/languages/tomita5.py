"""Tomita 5: an even number of 0s and an even number of 1s

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "tomita5"
DESCRIPTION = "Tomita 5: an even number of 0s and an even number of 1s"
ALPHABET = ("0", "1")
LENGTHS = (1, 400)
DFA = {"start": "ee", "accept": ["ee"],
       "delta": {"ee": {"0": "oe", "1": "eo"}, "oe": {"0": "ee", "1": "oo"},
                 "eo": {"0": "oo", "1": "ee"}, "oo": {"0": "eo", "1": "oe"}}}
