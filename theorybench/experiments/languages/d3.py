"""D-3 = (a(a(ab)*b)*b)*

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "d3"
DESCRIPTION = "D-3 = (a(a(ab)*b)*b)*"
ALPHABET = ("a", "b")
LENGTHS = (1, 400)
REGEX = "(a(a(ab)*b)*b)*"
