"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, aaa, bba, abba; non-members: b, aa, ab, ba.

Settled in distribution: Hard (n=8: 0.90 (seeds 0.87-0.94; Wilson 0.89-0.91); n=32: 0.88 (seeds 0.87-0.90; Wilson 0.88-0.89); target 0.99 not learned at n = [32] (n=32: missed the target; training loss flat (plateau stop); n=8: loss still falling at the step budget (12.9% over the last window in 1 of 3 runs)); decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos hard; ac0 hard; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity hard; huang_lg unknown.

Refutes: bapo, mpc, tc0.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): not fitted (no configuration reaches 0.9 in every bin (best: small/nope next-symbol, lowest bin accuracy 0.00)); refutes on that line: none.
"""

NAME = "re2_3s_6a650615"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [1], 'delta': {0: {'a': 1, 'b': 2}, 1: {'a': 0, 'b': 2}, 2: {'a': 2, 'b': 0}}}
