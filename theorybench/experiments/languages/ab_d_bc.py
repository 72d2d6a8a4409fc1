"""{a, b}* d {b, c}*

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "ab_d_bc"
DESCRIPTION = "{a, b}* d {b, c}*"
ALPHABET = ("a", "b", "c", "d")
LENGTHS = (1, 400)
REGEX = "(a|b)*d(b|c)*"
