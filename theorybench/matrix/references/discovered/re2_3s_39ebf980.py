"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, b, aaaa, aaab; non-members: aa, ab, ba, bb.

Settled in distribution: Hard (n=8: 1.00 (seeds 0.99-1.00; Wilson 1.00-1.00); n=16: 0.96 (seeds 0.93-0.98; Wilson 0.95-0.96); n=32: 0.98 (seeds 0.98-0.99; Wilson 0.98-0.99); target 0.99 not learned at n = [32] (n=32: missed the target; training loss flat (plateau stop); n=16: loss still falling at the step budget (12.0% over the last window in 1 of 3 runs)); decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos hard; ac0 hard; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: bapo, mpc, sensitivity, tc0.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): not fitted (no configuration reaches 0.9 in every bin (best: small/nope next-symbol, lowest bin accuracy 0.00)); refutes on that line: none.
"""

NAME = "re2_3s_39ebf980"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [1], 'delta': {0: {'a': 1, 'b': 1}, 1: {'a': 2, 'b': 2}, 2: {'a': 0, 'b': 2}}}
