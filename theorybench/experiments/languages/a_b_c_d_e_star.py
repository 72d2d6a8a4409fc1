"""a*b*c*d*e*

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "a_b_c_d_e_star"
DESCRIPTION = "a*b*c*d*e*"
ALPHABET = ("a", "b", "c", "d", "e")
LENGTHS = (1, 400)
REGEX = "a*b*c*d*e*"
