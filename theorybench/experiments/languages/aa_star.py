"""(aa)*: strings of a of even length

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "aa_star"
DESCRIPTION = "(aa)*: strings of a of even length"
ALPHABET = ("a", "b")
LENGTHS = (1, 400)
REGEX = "(aa)*"
