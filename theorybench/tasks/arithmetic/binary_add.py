"""binary_add: the n+1 bits of a + b for two n-bit numbers a, b.

Definition. For a, b in {0,1}^n read as binary numbers, the output is the n+1 bits
s_n ... s_0 of a + b (s_n is the carry-out). Bit j (weight 2^j) is
s_j = a_j XOR b_j XOR c_j with the carry c_0 = 0, c_(j+1) = MAJ(a_j, b_j, c_j), and the
carry-out is s_n = c_n.

Variants (parameters): n (1 <= n <= 16384) and the encoding ``layout``:

* ``"msb"`` (default): ``a_(n-1) ... a_0 + b_(n-1) ... b_0 =`` (2n+2 tokens, most
  significant bit first); the answer is s_n s_(n-1) ... s_0 (MSB first).
* ``"interleaved"``: ``a_0 b_0 a_1 b_1 ... a_(n-1) b_(n-1) =`` (2n+1 tokens, least
  significant bit first, no "+"); the answer is s_0 s_1 ... s_n (LSB first), so that each
  answer bit follows the input bits it depends on.

Output kind ``"answer"``: ``labels`` is (count, n+1), indices into ``label_vocab`` ("0",
"1"), in answer order; ``mask`` is all ones (every answer bit is scored; restricting the
loss to the answer is the trainer's business).

Distribution ``uniform`` (the only one): a and b independent and uniform on {0,1}^n.

Decision view (the single-output functions theories analyze), all on the natural input
space (bit positions range over {0,1}, separators fixed): first ``carry_out`` (= s_n,
the main function: it depends on all 2n input bits and holds the whole carry chain; every
other sum bit is a_j XOR b_j XOR the carry-out of the j-bit prefixes), then
``sum_bit_j`` for j = 0 .. n-1.

Sources: docs/theories.md §9; addition as a length-generalization benchmark: Zhou et al.,
"What algorithms can transformers learn?" (ICLR 2024) and Huang et al., "A formal framework
for understanding length generalization in transformers" (ICLR 2025), which discuss the
MSB-first vs. reversed/interleaved formats.
"""

from __future__ import annotations

import numpy as np

from ...errors import TaskInputError
from ..base import Batch, DecisionFunction, Param, Task
from ..registry import register

ZERO, ONE, PLUS, EQUALS = 0, 1, 2, 3


@register
class BinaryAdd(Task):
    name = "binary_add"
    kind = "arithmetic"
    order = 0
    summary = "the n+1 sum bits of a + b for a, b in {0,1}^n (input 'a + b =', MSB first)"
    params = (
        Param("n", int, 8, "number of bits of each summand", minimum=1, maximum=1 << 14),
        Param("layout", str, "msb",
              "'msb': a + b = MSB first, answer MSB first; 'interleaved': a0 b0 a1 b1 ... =, "
              "answer LSB first", choices=("msb", "interleaved")),
    )
    output = "answer"
    variants = {"layout": ("msb", "interleaved")}
    distributions = ("uniform",)
    analysis_ns = (2, 3, 4, 5, 6, 7, 8, 9, 10)  # 4^n inputs: n <= 11 fits 2^22
    train_ns = (4, 8, 16, 32)

    def build_vocab(self):
        return ("0", "1", "+", "=")

    # ---- layout ----------------------------------------------------------------------
    def input_length(self) -> int:
        return 2 * self.n + (2 if self.layout == "msb" else 1)

    def _positions(self) -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
        """Token positions of a_j and b_j (index j = bit weight 2^j) and of the separators."""
        n = self.n
        j = np.arange(n)
        if self.layout == "msb":
            return n - 1 - j, 2 * n - j, {n: PLUS, 2 * n + 1: EQUALS}
        return 2 * j, 2 * j + 1, {2 * n: EQUALS}

    def _slices(self) -> tuple[slice, slice]:
        """The same positions as slices (fast views): x[:, sa] is a_0 .. a_(n-1)."""
        n = self.n
        if self.layout == "msb":
            return slice(n - 1, None, -1) if n > 1 else slice(0, 1), slice(2 * n, n, -1)
        return slice(0, 2 * n, 2), slice(1, 2 * n, 2)

    def input_space(self):
        pos_a, pos_b, seps = self._positions()
        space: list[tuple[int, ...]] = [(ZERO, ONE)] * self.input_length()
        for p, tok in seps.items():
            space[p] = (tok,)
        return space

    def _answer_order(self) -> np.ndarray:
        """Bit weights j in answer order (MSB first for 'msb', LSB first otherwise)."""
        j = np.arange(self.n + 1)
        return j[::-1] if self.layout == "msb" else j

    # ---- reference and oracle ----------------------------------------------------------
    def sum_bits(self, tokens: np.ndarray) -> np.ndarray:
        """Bits (count, n+1) of a + b indexed by weight j = 0..n (see :func:`add_bits`)."""
        x = np.atleast_2d(np.asarray(tokens))
        if x.ndim != 2 or x.shape[1] != self.input_length():
            raise TaskInputError(
                f"binary_add with n={self.n} (layout {self.layout}) labels rows of "
                f"{self.input_length()} tokens, got an array of shape {np.shape(tokens)}")
        sa, sb = self._slices()
        return add_bits(x[:, sa].astype(np.int8), x[:, sb].astype(np.int8))

    def label(self, tokens):
        return self.sum_bits(tokens)[:, self._answer_order()].astype(np.int64)

    def oracle(self, tokens):
        pos_a, pos_b, _ = self._positions()
        order = [int(j) for j in self._answer_order()]
        out = []
        for row in np.asarray(tokens).tolist():
            a = "".join(str(row[p]) for p in pos_a[::-1])  # MSB first
            b = "".join(str(row[p]) for p in pos_b[::-1])
            total = int(a, 2) + int(b, 2)
            bits = format(total, f"0{self.n + 1}b")[::-1]  # index j = weight 2^j
            out.append([int(bits[j]) for j in order])
        return np.array(out, dtype=np.int64).reshape(-1, self.n + 1)

    def output_mask(self, tokens):
        return np.ones((np.asarray(tokens).shape[0], self.n + 1), dtype=bool)

    # ---- sampling ------------------------------------------------------------------------
    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        return self._draw(rng, count)[0]

    def _draw(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Uniform instances: tokens (count, L) and their sum bits by weight (count, n+1)."""
        n = self.n
        raw = rng.integers(0, 256, size=(count, (2 * n + 7) // 8), dtype=np.uint8)
        bits = np.unpackbits(raw, axis=1)[:, : 2 * n]
        x = np.empty((count, self.input_length()), dtype=np.int64)
        _, _, seps = self._positions()
        if self.layout == "msb":       # the token rows hold the bits in drawing order
            x[:, :n] = bits[:, :n]
            x[:, n + 1: 2 * n + 1] = bits[:, n:]
        else:
            x[:, : 2 * n] = bits
        for p, tok in seps.items():
            x[:, p] = tok
        sa, sb = self._slices()
        return x, add_bits(x[:, sa].astype(np.int8), x[:, sb].astype(np.int8))

    def sample(self, rng, count, distribution=None):
        self.resolve_distribution(distribution)
        count = self.check_count(count)
        x, s = self._draw(rng, count)
        return Batch(tokens=x, labels=s[:, self._answer_order()].astype(np.int64),
                     mask=self.output_mask(x),
                     lengths=np.full(count, self.input_length(), dtype=np.int64))

    # ---- validation ----------------------------------------------------------------------
    def valid_inputs(self, tokens):
        x = np.asarray(tokens)
        if x.ndim != 2 or x.shape[1] != self.input_length():
            return np.zeros(x.shape[0] if x.ndim else 0, dtype=bool)
        space = self.input_space()
        ok = np.ones(x.shape[0], dtype=bool)
        for p, allowed in enumerate(space):
            ok &= np.isin(x[:, p], allowed)
        return ok

    def check_input(self, row):
        if len(row) != self.input_length():
            shape = ("a_(n-1) .. a_0 + b_(n-1) .. b_0 =" if self.layout == "msb"
                     else "a_0 b_0 a_1 b_1 .. a_(n-1) b_(n-1) =")
            raise TaskInputError(
                f"binary_add with n={self.n} (layout {self.layout}) expects "
                f"{self.input_length()} tokens ({shape}), got {len(row)}")
        for p, allowed in enumerate(self.input_space()):
            if int(row[p]) not in allowed:
                want = " or ".join(repr(self.vocab[t]) for t in allowed)
                raise TaskInputError(
                    f"token {p + 1} of the binary_add input is {self.vocab[int(row[p])]!r}; "
                    f"at that place (layout {self.layout}, n={self.n}) it must be {want}")

    # ---- decision view ---------------------------------------------------------------------
    def decision_view(self):
        choices = tuple(tuple(c) for c in self.input_space())

        def bit_fn(j: int):
            return lambda x: self.sum_bits(x)[:, j].astype(np.int64)

        def draw(rng, count):
            return self.draw(rng, count)

        views = [DecisionFunction(
            task=self, name="carry_out", choices=choices, evaluate=bit_fn(self.n), sample=draw,
            description=f"carry-out (sum bit of weight 2^{self.n}) of two {self.n}-bit numbers")]
        for j in range(self.n):
            views.append(DecisionFunction(
                task=self, name=f"sum_bit_{j}", choices=choices, evaluate=bit_fn(j), sample=draw,
                description=f"bit of weight 2^{j} of a + b"))
        return views


def add_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum bits (count, n+1) of a + b for bit arrays a, b (count, n) indexed by weight.

    A vectorized carry scan: with p_j = a_j XOR b_j (propagate), the carry into bit j is
    a_i for the last i < j with p_i = 0 (there a_i = b_i generates or kills the carry), and
    0 when there is none; a running maximum (``np.maximum.accumulate``) over the codes
    2i + 1 + a_i finds that i for every j at once.
    """
    count, n = a.shape
    p = a ^ b
    dt = np.int16 if n < 16000 else np.int32
    code = (np.arange(1, 2 * n + 1, 2, dtype=dt)[None, :] + a) * (p == 0)
    last = np.maximum.accumulate(code, axis=1)
    carry = ((last & 1) == 0) & (last > 0)            # code even <=> a_i = 1
    s = np.empty((count, n + 1), dtype=np.int8)
    s[:, 0] = p[:, 0]
    s[:, 1:n] = p[:, 1:] ^ carry[:, :-1]
    s[:, n] = carry[:, -1]
    return s
