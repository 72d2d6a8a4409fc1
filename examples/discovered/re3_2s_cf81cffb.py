"""Found by `theorybench discover` (dfa:3:2): the language of a 2-state minimal automaton over {a, b, c}.

Shortest members: a, c, aa, ac; non-members: b, ab, bb, cb.

Settled in distribution: Easy (n=8: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); n=16: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); n=32: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); target 0.99 reached at every n in [8, 16, 32]; decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free easy; star_free_pos easy; ac0 easy; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: crasp.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): easy (generalizes with small/nope next-symbol); refutes on that line: huang_lg.
"""

NAME = "re3_2s_cf81cffb"
ALPHABET = ('a', 'b', 'c')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [0], 'delta': {0: {'a': 0, 'b': 1, 'c': 0}, 1: {'a': 0, 'b': 1, 'c': 0}}}
