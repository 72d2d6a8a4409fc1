"""dyck_bounded: membership in Dyck-k with depth at most D.

Definition. Over the 2k brackets ``( ) [ ] { } < >`` (first k types), the label is 1 iff
w is in Dyck-k (well nested, see :mod:`.dyck`) and its depth profile (number of open
brackets after each prefix) never exceeds D.
Variants (parameters): k in 1..4 (default 1), D >= 1 (default 2), n even.
For fixed k and D the language is regular and its minimal automaton (a stack of at most D brackets plus a reject state) is counter-free: a word of
non-zero balance overflows or underflows the stack when repeated D + 1 times, and one of
zero balance acts the same when applied twice or three times; so the language is
star-free (Schuetzenberger 1965; McNaughton and Papert 1971). Yao et al. (ACL 2021) build
transformers for bounded-depth Dyck-k.

Distributions:

* ``balanced`` (default): half positives, uniform over the words of length n: the depth
  walk is uniform among the walks in [0, D] from 0 to 0 (step probabilities from the
  count of completions, computed by dynamic programming), and each matched pair gets an
  independent uniform type. Negatives: one corruption of a fresh positive (a bracket's
  direction flipped, or for k > 1 its type changed), always a non-member.
* ``uniform``: every bracket independent and uniform.

Counts: with k = 1 there is exactly 1 word of each even length for D = 1 ("()()..."),
2^(m-1) of length 2m for D = 2; in general the number of walks times k^(n/2).
Sources: docs/theories.md §9; Yao, Peng, Papadimitriou, Narasimhan (ACL 2021); Hahn
(TACL 2020).
"""

from ..base import Param
from ..registry import register
from .common import DyckTask, bounded_up_table, k_param, n_param


@register
class DyckBounded(DyckTask):
    name = "dyck_bounded"
    order = 0
    summary = "1 iff the n brackets of k types are well nested with depth never above D"
    params = (n_param(16), k_param(1),
              Param("D", int, 2, "depth bound (largest number of open brackets)",
                    minimum=1, maximum=4096))
    variants = {"k": (1, 2), "D": (1, 2, 3)}
    analysis_ns = (2, 4, 6, 8, 10, 12, 14, 16, 18, 20)  # 2^n inputs for the default k = 1
    train_ns = (8, 16, 32, 64)

    @property
    def cap(self) -> int:
        return min(self.D, self.n // 2)

    def depth_bound(self):
        return self.D

    def up_probabilities(self):
        return bounded_up_table(self.n, self.cap)

    def describe(self) -> str:
        return f"Dyck-{self.k} with depth <= {self.D}"
