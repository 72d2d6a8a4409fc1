"""Tomita 6: the number of 0s minus the number of 1s is divisible by 3

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "tomita6"
DESCRIPTION = "Tomita 6: the number of 0s minus the number of 1s is divisible by 3"
ALPHABET = ("0", "1")
LENGTHS = (1, 400)
DFA = {"start": 0, "accept": [0],
       "delta": {0: {"0": 1, "1": 2}, 1: {"0": 2, "1": 0}, 2: {"0": 0, "1": 1}}}
