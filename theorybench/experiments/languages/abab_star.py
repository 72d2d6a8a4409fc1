"""(abab)*

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "abab_star"
DESCRIPTION = "(abab)*"
ALPHABET = ("a", "b")
LENGTHS = (1, 400)
REGEX = "(abab)*"
