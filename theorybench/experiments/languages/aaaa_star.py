"""(aaaa)*: strings of a whose length is a multiple of 4

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "aaaa_star"
DESCRIPTION = "(aaaa)*: strings of a whose length is a multiple of 4"
ALPHABET = ("a", "b")
LENGTHS = (1, 400)
REGEX = "(aaaa)*"
