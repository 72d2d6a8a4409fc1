"""prefix_parity: a label per position, the parity of the 1s read so far (multi-output)."""

NAME = "prefix_parity"
DESCRIPTION = "at every position i, the parity of the number of 1s in x_1..x_i"
ALPHABET = ("0", "1")
LENGTHS = (1, 64)
OUTPUT = "per_position"           # label returns (count, n): one 0/1 per position


def label(x):
    return x.cumsum(axis=1) % 2


def oracle(x):
    out = []
    for row in x:
        acc, labels = 0, []
        for t in row:
            acc ^= int(t)
            labels.append(acc)
        out.append(labels)
    return out
