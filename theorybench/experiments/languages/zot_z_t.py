"""{0, 1, 2}* 0 2*

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "zot_z_t"
DESCRIPTION = "{0, 1, 2}* 0 2*"
ALPHABET = ("0", "1", "2")
LENGTHS = (1, 400)
REGEX = "(0|1|2)*02*"
