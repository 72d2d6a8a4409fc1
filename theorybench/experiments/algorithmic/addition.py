"""Binary addition: two binary numbers, "+" between them, "=" at the end; the answer is
their sum in binary, then an end marker

Huang et al. (ICLR 2025)'s algorithmic task "addition" (their AdditionDataset,
algorithmic/language_modeling_train.py at commit b39b743): an input of length L >= 4 holds
the first operand (length uniform in 1..L-3), "+", the second (the rest), "="; an operand
longer than one bit starts with 1; the other bits are uniform. Their answer is the sum's
binary digits, most significant first, then an end-of-sequence token; loss and exact match
on those tokens.

A task file's answer has one length per input length, and a sum's length varies with the
operands, so here the answer is the sum's digits followed by "." up to L - 1 tokens (a sum
of operands from this distribution has at most L - 2 digits, so every answer ends with at
least one "."). Exact match over it asks, besides the authors' tokens, for the "." after
their end marker. The input length L counts "=" as the authors' does, so the bins are
theirs. Off the distribution, digits are read as they stand (a token other than 0 or 1
inside an operand counts as 0; the first "+" splits; no "+": the second operand is 0).
"""

import numpy as np

NAME = "binary_addition"
DESCRIPTION = ("Binary addition after Huang et al. 2025: a+b= with operands of random lengths; "
               "the sum, then end markers")
ALPHABET = ("0", "1", "+", "=")
ANSWER = ("0", "1", ".")
OUTPUT = "answer"
LENGTHS = (4, 151)
PLUS, EQ, END = 2, 3, 2   # END indexes ANSWER


def _operand_bits(body, lo, hi):
    """(count, W) bits of the operand body[:, lo:hi] (per row), least significant first."""
    count, w = body.shape
    k = np.arange(w)
    j = hi[:, None] - 1 - k[None, :]                 # the position of significance k
    ok = j >= lo[:, None]
    bits = np.take_along_axis(body, np.clip(j, 0, w - 1), axis=1) == 1
    return bits & ok


def label(x):
    x = np.asarray(x)
    count, n = x.shape
    body = x[:, :-1]
    w = body.shape[1]
    is_plus = body == PLUS
    has = is_plus.any(axis=1)
    p = np.where(has, is_plus.argmax(axis=1), w)     # the first "+", or none
    a = _operand_bits(body, np.zeros(count, dtype=np.int64), p)
    b = _operand_bits(body, np.minimum(p + 1, w), np.full(count, w))
    # carries by a scan: the carry into bit i is the "generate" of the last bit below i
    # that generates (both 1) or kills (both 0); none of them: no carry
    gen, kill = a & b, ~a & ~b
    k = np.arange(w)
    last = np.maximum.accumulate(np.where(gen | kill, k[None, :], -1), axis=1)
    carry_out = np.where(last >= 0, np.take_along_axis(gen, np.clip(last, 0, None), axis=1),
                         False)
    carry_in = np.concatenate([np.zeros((count, 1), dtype=bool), carry_out[:, :-1]], axis=1)
    s = np.concatenate([a ^ b ^ carry_in, carry_out[:, -1:]], axis=1)   # (count, w + 1)
    top = np.where(s.any(axis=1), w + 1 - np.argmax(s[:, ::-1], axis=1), 1)  # digits; 0: "0"
    idx = top[:, None] - 1 - np.arange(n - 1)[None, :]
    digits = np.take_along_axis(s, np.clip(idx, 0, w), axis=1).astype(np.int64)
    return np.where(idx >= 0, digits, END)


def sample(rng, count, n):
    len1 = rng.integers(1, n - 2, size=count)        # 1 .. n - 3, as the authors draw it
    len2 = n - 2 - len1
    x = rng.integers(0, 2, size=(count, n)).astype(np.int64)
    rows = np.arange(count)
    x[rows, len1] = PLUS
    x[:, -1] = EQ
    x[len1 > 1, 0] = 1                               # no leading zero in a longer operand
    x[rows[len2 > 1], len1[len2 > 1] + 1] = 1
    return x
