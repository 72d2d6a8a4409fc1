"""Contains "ab": the input over {a, b, c} has the factor ab (a regular language)."""

NAME = "contains_ab"
DESCRIPTION = 'the input over {a, b, c} contains "ab"'
ALPHABET = ("a", "b", "c")
LENGTHS = (2, 64)
REGEX = "(a|b|c)*ab(a|b|c)*"   # full match; the task gets its exact automaton
