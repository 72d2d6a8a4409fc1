"""B-RASP position arithmetic is exact: a term whose bound exceeds int64 runs on Python ints;
int64 wrapping would flip these comparisons."""

from theorybench.formal.brasp.interpret import accept
from theorybench.formal.brasp.parser import parse

BIG = (1 << 63) - 1


def test_large_offset_in_a_position_predicate_does_not_wrap():
    # i + (2^63 - 1) wraps to a negative int64 and "j < i + BIG" would be false everywhere
    prog = parse(f'out = leftmost j [j < i + {BIG}] "1"(j) : false\n')
    assert accept(prog, ["1 0 0", "0 0 0"]).tolist() == [True, False]


def test_twenty_digit_constant_cancels_exactly():
    prog = parse(f'p = leftmost j [j == i - {10 ** 20} + {10 ** 20}] "1"(j) : false\nout = p\n')
    # j == i: the token at i itself; acceptance reads the last position
    assert accept(prog, ["0 1", "1 0"]).tolist() == [True, False]

