"""Tomita 3: no block of 1s of odd length directly followed by a block of 0s of odd length

A language of the length-generalization papers' formal-language suites, as a task file
(`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path).
"""

NAME = "tomita3"
DESCRIPTION = "Tomita 3: no block of 1s of odd length directly followed by a block of 0s of odd length"
ALPHABET = ("0", "1")
LENGTHS = (1, 400)
# states: even1 (no risk: the last block of 1s was even, or there was none), odd1 (in a block
# of 1s of odd length so far), after_odd / after_even (in the block of 0s after an odd block
# of 1s, of odd / even length so far), dead. The same automaton as the authors' generator.
DFA = {"start": "even1", "accept": ["even1", "odd1", "after_even"],
       "delta": {"even1": {"0": "even1", "1": "odd1"},
                 "odd1": {"0": "after_odd", "1": "even1"},
                 "after_even": {"0": "after_odd", "1": "odd1"},
                 "after_odd": {"0": "after_even", "1": "dead"},
                 "dead": {"0": "dead", "1": "dead"}}}
