// family: dyck_bounded
// requires: k=1
// params: D = the depth bound (set from the task)
// alphabet: ( )
// Dyck-1 of depth at most D: the Dyck-1 program plus "no prefix is deeper than D".
// Four counts, depth 2; the size does not depend on n (D is a constant of the family).
D = 2
C_open = # "("
C_close = # ")"
too_shallow = C_open < C_close
too_deep = C_open - C_close > D
bad_prefixes = # (too_shallow || too_deep)
balanced = C_open == C_close
member = bad_prefixes == 0 && balanced
