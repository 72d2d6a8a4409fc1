// family: sparse_any
// requires: k=3
// params: P1 P2 P3 = the 1-based positions of the hidden set S (set from the task)
// alphabet: 0 1
// OR of the bits at the fixed positions P1, P2, P3 (#true == P holds exactly at i = P).
P1 = 1
P2 = 2
P3 = 3
here = # true
in_S = here == P1 || here == P2 || here == P3
ones_in_S = # ("1" && in_S)
any_in_S = ones_in_S >= 1
