"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, b, aa, ab; non-members: bb, abb, bbb, aabb.

Settled in distribution: Easy (n=8: 1.00 (seeds 0.99-1.00; Wilson 0.99-1.00); n=16: 0.99 (seeds 0.99-1.00; Wilson 0.99-1.00); n=32: 0.99 (seeds 0.99-0.99; Wilson 0.99-0.99); target 0.99 reached at every n in [8, 16, 32]; decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free easy; star_free_pos easy; ac0 easy; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: crasp.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): hard (no configuration reaches 0.9 in every bin (best: small/nope next-symbol, lowest bin accuracy 0.00)); refutes on that line: none.
"""

NAME = "re2_3s_ec5b38a8"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [0, 1], 'delta': {0: {'a': 0, 'b': 1}, 1: {'a': 0, 'b': 2}, 2: {'a': 1, 'b': 2}}}
