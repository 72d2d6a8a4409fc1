"""Tomita 4: no three consecutive 0s

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "tomita4"
DESCRIPTION = "Tomita 4: no three consecutive 0s"
ALPHABET = ("0", "1")
LENGTHS = (1, 400)
REGEX = "(1|01|001)*(0|00)?"
