"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, aa, ba, aaa; non-members: b, ab, bb, aab.

Settled in distribution: Hard (n=8: 0.51 (seeds 0.50-0.52; Wilson 0.49-0.52); n=16: 0.49 (seeds 0.48-0.50; Wilson 0.48-0.51); n=32: 0.50 (seeds 0.50-0.51; Wilson 0.49-0.51); target 0.99 not learned at n = [8, 16, 32] (n=8: missed the target; training loss flat (plateau stop); n=16: missed the target; training loss flat (plateau stop); n=32: missed the target; training loss flat (plateau stop)); decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos hard; ac0 hard; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity hard; huang_lg unknown.

Refutes: bapo, mpc, tc0.
"""

NAME = "re2_3s_a87dadf4"
ALPHABET = ('a', 'b')
LENGTHS = (1, 64)
DFA = {'start': 0, 'accept': [0, 2], 'delta': {0: {'a': 0, 'b': 1}, 1: {'a': 2, 'b': 1}, 2: {'a': 1, 'b': 2}}}
