"""Boolean-3: well-formed Boolean expressions in prefix notation, operators of arity 1, 2 and 3

A counter language of the length-generalization papers' formal-language suites (Bhattamishra,
Ahuja & Goyal, EMNLP 2020; Huang et al., ICLR 2025), as a task file: a deterministic counter
automaton (`theorybench reproduce` trains it under the next-symbol objective; any theorybench
command takes its path). The operands 0 and 1, the operators ~ (arity 1), + (2) and > (3),
as in NAryBooleanExpLang of Bhattamishra et al. (src/utils/boolean_expr_generator.py at
commit 48eea2e); a word is a member when it is one complete expression (its truth value
plays no role).
"""

NAME = "bool3"
DESCRIPTION = "Boolean-3: well-formed Boolean expressions in prefix notation, operators of arity 1, 2 and 3"
ALPHABET = ("0", "1", "~", "+", ">")
LENGTHS = (1, 400)
# one counter: the operands still needed (1 at the start); an operand fills one, an
# operator of arity k fills one and opens k, so it needs an open one
COUNTER = {"start": 0, "accept": [0], "init": (1,),
           "delta": {0: {"0": (0, (-1,)), "1": (0, (-1,)), "~": (0, (0,), (1,)),
                         "+": (0, (1,), (1,)), ">": (0, (2,), (1,))}}}
