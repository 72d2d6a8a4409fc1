// family: majority
// alphabet: 0 1
// majority(x) = 1 iff more 1s than 0s (Yang & Chiang, COLM 2024: MAJ = #[Q_1] > #[Q_0]).
// Two counts, depth 1, the same program for every n.
ones = # "1"
zeros = # "0"
more_ones = ones > zeros
