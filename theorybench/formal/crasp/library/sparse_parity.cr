// family: sparse_parity
// requires: k=3
// params: P1 P2 P3 = the 1-based positions of the hidden set S (set from the task)
// alphabet: 0 1
// XOR of the bits at the fixed positions P1, P2, P3: the number of 1s in S is 1 or 3.
// Parity of a fixed number k of bits is a finite case split; parity of all n bits is
// not expressible in C-RASP.
P1 = 1
P2 = 2
P3 = 3
here = # true
in_S = here == P1 || here == P2 || here == P3
ones_in_S = # ("1" && in_S)
odd_in_S = ones_in_S == 1 || ones_in_S == 3
