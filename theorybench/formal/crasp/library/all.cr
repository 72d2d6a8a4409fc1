// family: all
// alphabet: 0 1
// all(x) = 1 iff no bit is 0: the count of "0" is still 0 at the end marker.
// One count, depth 1, the same program for every n.
zeros = # "0"
all_ones = zeros == 0
