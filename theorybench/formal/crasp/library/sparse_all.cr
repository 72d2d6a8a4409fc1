// family: sparse_all
// requires: k=3
// params: P1 P2 P3 = the 1-based positions of the hidden set S (set from the task)
// alphabet: 0 1
// AND of the bits at the fixed positions P1, P2, P3. Position i is recognised without
// positional predicates: #true at i equals i, so (#true == P) holds exactly at i = P.
// Three nested counts; the size does not depend on n (only on k).
P1 = 1
P2 = 2
P3 = 3
here = # true
in_S = here == P1 || here == P2 || here == P3
ones_in_S = # ("1" && in_S)
all_in_S = ones_in_S == 3
