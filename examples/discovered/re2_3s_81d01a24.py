"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: b, aa, ab, baa; non-members: a, ba, bb, aaa.

Settled in distribution: Easy (n=8: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); n=16: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); n=32: 1.00 (seeds 1.00-1.00; Wilson 1.00-1.00); target 0.99 reached at every n in [8, 16, 32]; decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos easy; ac0 easy; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: crasp, star_free.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): not fitted (no configuration reaches 0.9 in every bin (best: small/nope next-symbol, lowest bin accuracy 0.00)); refutes on that line: none.
"""

NAME = "re2_3s_81d01a24"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [0, 2], 'delta': {0: {'a': 1, 'b': 2}, 1: {'a': 2, 'b': 2}, 2: {'a': 1, 'b': 1}}}
