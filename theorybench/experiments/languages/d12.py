"""D-12 = (a D-11 b)*, the 12th level of the D_n hierarchy

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "d12"
DESCRIPTION = "D-12 = (a D-11 b)*, the 12th level of the D_n hierarchy"
ALPHABET = ("a", "b")
LENGTHS = (1, 400)
REGEX = "(a(a(a(a(a(a(a(a(a(a(a(ab)*b)*b)*b)*b)*b)*b)*b)*b)*b)*b)*b)*"
