"""D-2 = (a(ab)*b)*: dot-depth 2 of the D_n hierarchy, D_n = (a D_{n-1} b)*, D_0 = {empty}

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "d2"
DESCRIPTION = "D-2 = (a(ab)*b)*: dot-depth 2 of the D_n hierarchy, D_n = (a D_{n-1} b)*, D_0 = {empty}"
ALPHABET = ("a", "b")
LENGTHS = (1, 400)
REGEX = "(a(ab)*b)*"
