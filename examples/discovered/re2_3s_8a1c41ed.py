"""Found by `theorybench discover` (dfa:2:3): the language of a 3-state minimal automaton over {a, b}.

Shortest members: a, b, ab, bb; non-members: aa, ba, aab, aba.

Settled in distribution: Hard (n=8: 0.50 (seeds 0.48-0.51; Wilson 0.49-0.51); target 0.99 not learned at n = [8] (n=8: missed the target; training loss flat (plateau stop)); decided by deep/rope lr=0.002 (4 layers) under protocol theorybench).

Theory verdicts: star_free hard; star_free_pos hard; ac0 hard; tc0 easy; crasp hard; mpc easy; bapo easy; sensitivity hard; huang_lg unknown.

Refutes: bapo, mpc, tc0.

Length line (nope, next-symbol objective, trained on lengths <= 32, tested to 256): not fitted (no configuration reaches 0.9 in every bin (best: small/nope next-symbol, lowest bin accuracy 0.00)); refutes on that line: none.
"""

NAME = "re2_3s_8a1c41ed"
ALPHABET = ('a', 'b')
LENGTHS = (1, 256)
DFA = {'start': 0, 'accept': [1], 'delta': {0: {'a': 1, 'b': 1}, 1: {'a': 2, 'b': 1}, 2: {'a': 1, 'b': 2}}}
