// family: any
// alphabet: 0 1
// any(x) = 1 iff some bit is 1: the count of "1" is positive at the end marker.
// One count, depth 1, the same program for every n.
ones = # "1"
some_one = ones > 0
