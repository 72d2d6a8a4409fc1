"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, aa, ab, bb; non-members: b, ba, aab, abb.

Settled in distribution: Hard (n=8: 0.97 (seeds 0.94-0.99; Wilson 0.96-0.97); n=32: 0.64 (seeds 0.61-0.68; Wilson 0.63-0.66); target 0.99 not learned at n = [32] (n=32: missed the target; training loss flat (plateau stop); n=8: seeds disagree (1 of 3 reached the target)); decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos easy; ac0 easy; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: ac0, bapo, mpc, sensitivity, star_free_pos, tc0.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): not fitted (no configuration reaches 0.9 in every bin (best: small/nope next-symbol, lowest bin accuracy 0.00)); refutes on that line: none.
"""

NAME = "re2_3s_20a60f8c"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [0, 1], 'delta': {0: {'a': 1, 'b': 2}, 1: {'a': 0, 'b': 0}, 2: {'a': 2, 'b': 0}}}
