"""Tomita 1: 1* over {0, 1}

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "tomita1"
DESCRIPTION = "Tomita 1: 1* over {0, 1}"
ALPHABET = ("0", "1")
LENGTHS = (1, 400)
REGEX = "1*"
