"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, b, aa, ab; non-members: ba, aaa, aba, baba.

Settled in distribution: Hard (n=8: 0.99 (seeds 0.99-1.00; Wilson 0.99-1.00); n=16: 0.87 (seeds 0.86-0.87; Wilson 0.86-0.87); target 0.99 not learned at n = [16] (n=16: missed the target; training loss flat (plateau stop)); decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos hard; ac0 hard; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity easy; huang_lg unknown.

Refutes: bapo, mpc, sensitivity, tc0.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): not fitted (no configuration reaches 0.9 in every bin (best: small/nope next-symbol, lowest bin accuracy 0.00)); refutes on that line: none.
"""

NAME = "re2_3s_79076e07"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [1, 2], 'delta': {0: {'a': 1, 'b': 2}, 1: {'a': 2, 'b': 2}, 2: {'a': 0, 'b': 1}}}
