"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, aa, ab, bb; non-members: b, ba, aab, abb.

Settled in distribution: Hard (n=8: 0.97 (seeds 0.94-0.99; Wilson 0.96-0.97); n=16: 0.67 (seeds 0.62-0.75; Wilson 0.66-0.68); n=32: 0.64 (seeds 0.61-0.68; Wilson 0.63-0.66); target 0.99 not learned at n = [32] (n=32: missed the target; training loss flat (plateau stop); n=8: seeds disagree (1 of 3 reached the target); n=16: loss still falling at the step budget (3.5% over the last window in 1 of 3 runs)); decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos easy; ac0 easy; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: ac0, bapo, mpc, sensitivity, star_free_pos, tc0.
"""

NAME = "re2_3s_20a60f8c"
ALPHABET = ('a', 'b')
LENGTHS = (1, 64)
DFA = {'start': 0, 'accept': [0, 1], 'delta': {0: {'a': 1, 'b': 2}, 1: {'a': 0, 'b': 0}, 2: {'a': 2, 'b': 0}}}
