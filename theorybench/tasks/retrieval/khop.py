"""khop: k-hop induction heads over an alphabet Sigma, output at every position.

Definition (docs/theories.md §9; Sanford, Hsu, Telgarsky, ICML 2024, Sec. 4).
Input X = X_1 .. X_n in Sigma^n with no immediate repeats (X_i != X_{i-1}); positions
are 1-based. find(i) = max({0} U {j <= i : X_{j-1} = X_i}) - one past the latest earlier
occurrence of the symbol X_i, or 0 when there is none; find^k is its k-fold composition
with find(0) = 0; hop_k(X)_i = X_{find^k(i)} if find^k(i) != 0, else the "no hop"
symbol. k = 1 is the classic induction head (predict the symbol that followed the
previous occurrence of the current symbol).

Tokens: the first ``alphabet`` letters "a", "b", ... (ids 0 .. |Sigma|-1). Output
``per_position``: labels (count, n) in ``label_vocab`` = Sigma + ("_",), where "_" (label
id |Sigma|) is the "no hop" value written ⊥; a symbol's label id equals
its token id. Every position is scored (mask all True): ⊥ is a legitimate answer.
For single-output analysis ``decision_view()`` gives the hop at the last position first
(a non-binary output), then the hop at every earlier position.

Default distribution ``uniform``: the generator of Sanford, Hsu, Telgarsky (code
chsanford/hop-induction-heads): X_1 uniform on Sigma, each X_i uniform on Sigma minus
{X_{i-1}}; this is the uniform distribution on the valid inputs.
Variants (parameters): k (the study uses 1, 2, 3; up to 16 allowed), alphabet (|Sigma|,
default 4, 2..26).
Sources: Sanford, Hsu, Telgarsky, "Transformers, parallel computation, and logarithmic
depth", ICML 2024 (arXiv 2402.09268, Sec. 4): depth about log2 k + 2 suffices for k-hop, and
depth Omega(log k) is needed conditionally (their lower bounds rest on the 1-cycle vs
2-cycle conjecture of MPC); Elhage et al. (2021) and Olsson et al. (2022) for induction heads.
"""

from __future__ import annotations

import numpy as np

from ...errors import TaskInputError
from ..base import Batch, DecisionFunction, Param, Task
from ..registry import register

NO_HOP = "_"
_CHUNK = 1 << 16  # entries of the (rows, n, alphabet) table per block in label()


@register
class KHop(Task):
    name = "khop"
    kind = "retrieval"
    order = 4
    summary = ("k-hop induction heads: at every position of X in Sigma^n (no immediate "
               "repeats), X at find^k(i), or _ if none")
    params = (
        Param("n", int, 16, "sequence length", minimum=1, maximum=1 << 14),
        Param("k", int, 1, "number of hops (the suite studies k = 1, 2, 3)", minimum=1, maximum=16),
        Param("alphabet", int, 4, "alphabet size |Sigma| (letters a, b, ...)",
              minimum=2, maximum=26),
    )
    output = "per_position"
    variants = {"k": (1, 2, 3)}
    distributions = ("uniform",)
    analysis_ns = (4, 5, 6, 7, 8, 9, 10)
    train_ns = (8, 16, 32, 64)

    def build_vocab(self):
        return tuple(chr(ord("a") + i) for i in range(self.alphabet))

    @property
    def label_vocab(self):
        return self.vocab + (NO_HOP,)

    @property
    def no_hop_id(self) -> int:
        return self.alphabet

    def input_space(self):
        return [tuple(range(self.alphabet))] * self.n

    def valid_inputs(self, tokens):
        t = np.atleast_2d(np.asarray(tokens, dtype=np.int64))
        if t.shape[1] != self.n:
            return np.zeros(len(t), dtype=bool)
        ok = np.all((t >= 0) & (t < self.alphabet), axis=1)
        return ok & ~np.any(t[:, 1:] == t[:, :-1], axis=1)

    def check_input(self, row):
        row = np.asarray(row, dtype=np.int64)
        if len(row) != self.n:
            raise TaskInputError(f"khop with n={self.n} expects {self.n} symbols, got {len(row)}")
        for i in range(1, len(row)):
            if row[i] == row[i - 1]:
                raise TaskInputError(
                    f"tokens {i} and {i + 1} are both {self.vocab[row[i]]!r}: k-hop inputs "
                    f"have no immediate repeats (X_i != X_(i-1))")

    def output_mask(self, tokens):
        t = np.atleast_2d(np.asarray(tokens))
        return np.ones((len(t), self.n), dtype=bool)

    # ---- labels -----------------------------------------------------------------------
    def _find_ext(self, x: np.ndarray) -> np.ndarray:
        """find() of a block of rows, 0-based, as intp (m, n + 1) with the sentinel n for
        "no position" (find(i) = 0); column n is the sentinel itself (find(n) = n).

        L[r, p, a] = 1 + the latest position <= p holding symbol a (0 if none): one
        scatter and one running maximum over positions for all symbols at once; then
        find(p) = L[r, p - 1, x_p] (a loop over blocks of rows, never over rows)."""
        m, n = x.shape
        A = self.alphabet
        L = np.zeros((m, n, A), dtype=np.int16)
        # flat index of entry (r, p, x[r, p])
        at = (np.arange(m, dtype=np.intp)[:, None] * (n * A)
              + np.arange(n, dtype=np.intp)[None, :] * A + x)
        L.ravel()[at] = np.arange(1, n + 1, dtype=np.int16)[None, :]
        np.maximum.accumulate(L, axis=1, out=L)
        prev = L.ravel()[at[:, 1:] - A]   # entry (r, p - 1, x[r, p])
        f = np.empty((m, n + 1), dtype=np.intp)
        f[:, 0] = n
        f[:, n] = n
        f[:, 1:n] = prev
        f[:, 1:n][prev == 0] = n
        return f

    def _blocks(self, count: int):
        step = max(1, _CHUNK // (self.n * self.alphabet))
        return range(0, count, step), step

    def find(self, tokens: np.ndarray) -> np.ndarray:
        """find() at every position, 0-based: int64 (count, n), -1 where find(i) = 0."""
        x = np.atleast_2d(np.asarray(tokens, dtype=np.intp))
        n = x.shape[1]
        out = np.empty(x.shape, dtype=np.int64)
        starts, step = self._blocks(len(x))
        for lo in starts:
            f = self._find_ext(x[lo: lo + step])[:, :n]
            out[lo: lo + step] = np.where(f == n, -1, f)
        return out

    def label(self, tokens):
        """hop_k at every position: label ids (count, n), ``no_hop_id`` for ⊥. Tokens must
        be symbol ids; a block of rows at a time, k - 1 gathers compose find."""
        x = np.atleast_2d(np.asarray(tokens, dtype=np.intp))
        count, n = x.shape
        out = np.empty((count, n), dtype=np.int64)
        starts, step = self._blocks(count)
        for lo in starts:
            xc = x[lo: lo + step]
            f = self._find_ext(xc)
            m = len(xc)
            row = np.arange(m, dtype=np.intp)[:, None] * (n + 1)
            g = f
            for _ in range(self.k - 1):
                g = f.ravel()[g + row]
            xe = np.empty((m, n + 1), dtype=np.int64)
            xe[:, :n] = xc
            xe[:, n] = self.no_hop_id
            out[lo: lo + step] = xe.ravel()[g[:, :n] + row]
        return out

    def oracle(self, tokens):
        """The definition, literally, with 1-based positions, one row at a time."""
        rows = []
        for row in np.atleast_2d(np.asarray(tokens)):
            X = [None] + [self.vocab[int(t)] for t in row]

            def find(i):
                best = 0
                for j in range(2, i + 1):
                    if X[j - 1] == X[i]:
                        best = j
                return best

            labels = []
            for i in range(1, len(X)):
                p = i
                for _ in range(self.k):
                    p = find(p) if p != 0 else 0
                labels.append(self.label_vocab.index(X[p] if p != 0 else NO_HOP))
            rows.append(labels)
        return np.array(rows, dtype=np.int64).reshape(-1, self.n)

    # ---- sampling ---------------------------------------------------------------------
    def _draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        # X_i = X_(i-1) + s_i mod |Sigma|, s_i uniform on 1..|Sigma|-1 (X_1 uniform)
        A = self.alphabet
        if 256 % A == 0:  # uint8 running sums wrap mod 256, a multiple of A
            x = rng.integers(1, A, size=(count, self.n), dtype=np.uint8)
            if self.n:
                x[:, 0] = rng.integers(0, A, size=count, dtype=np.uint8)
            np.cumsum(x, axis=1, dtype=np.uint8, out=x)
        else:
            x = rng.integers(1, A, size=(count, self.n), dtype=np.int32)
            if self.n:
                x[:, 0] = rng.integers(0, A, size=count, dtype=np.int32)
            np.cumsum(x, axis=1, dtype=np.int32, out=x)
        x %= A
        return x.astype(np.int64)

    def sample(self, rng, count, distribution=None):
        self.resolve_distribution(distribution)
        count = self.check_count(count)
        x = self._draw(rng, count)
        return Batch(tokens=x, labels=self.label(x),
                     mask=np.ones((count, self.n), dtype=bool),
                     lengths=np.full(count, self.n, dtype=np.int64))

    def decision_view(self):
        choices = tuple(tuple(range(self.alphabet)) for _ in range(self.n))

        def at(i):
            return lambda x: self.label(x)[:, i]

        views = [DecisionFunction(
            task=self, name="last", choices=choices, evaluate=at(self.n - 1),
            sample=self._draw, valid=self.valid_inputs,
            description=f"hop_{self.k} at the last position (values: label ids of "
                        f"{', '.join(self.label_vocab)})")]
        for i in range(self.n - 1):
            views.append(DecisionFunction(
                task=self, name=f"hop@{i + 1}", choices=choices, evaluate=at(i),
                sample=self._draw, valid=self.valid_inputs,
                description=f"hop_{self.k} at position {i + 1}"))
        return views
