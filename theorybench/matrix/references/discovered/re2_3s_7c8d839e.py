"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, aa, bb, aaa; non-members: b, ab, ba, aab.

Settled in distribution: Easy (n=8: 1.00 (seeds 0.99-1.00; Wilson 0.99-1.00); n=16: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); n=32: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); target 0.99 reached at every n in [8, 16, 32]; decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free easy; star_free_pos easy; ac0 easy; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: crasp.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): easy (generalizes with small/nope next-symbol); refutes on that line: huang_lg.
"""

NAME = "re2_3s_7c8d839e"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [0, 2], 'delta': {0: {'a': 0, 'b': 1}, 1: {'a': 1, 'b': 2}, 2: {'a': 1, 'b': 2}}}
