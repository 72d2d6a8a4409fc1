"""dyck: membership in Dyck-k (well-nested brackets of k types, any depth).

Definition. Over the 2k brackets ``( ) [ ] { } < >`` (first k types), w in Dyck-k iff w
reduces to the empty word by deleting adjacent matched pairs "()" , "[]", ...;
equivalently the depth profile never goes below 0, ends at 0, and every closing bracket
has the type of the opening bracket it matches. The label is [w in Dyck-k]. n is even.

Default k = 2: Dyck-2 is the hierarchical language of Hahn (TACL 2020, which shows that
hard attention cannot recognize it) and of Yao et al. (ACL 2021); Dyck-1 (k = 1), a pure
counting language, is available as a variant. The class attribute ``analysis_ns`` fits
the default k = 2 (4^n inputs <= 2^22).

Distributions:

* ``balanced`` (default): half positives, uniform over the Dyck-k words of length n: the
  depth walk is a uniform Dyck path, drawn step by step with the ballot-number
  probability of going up, P(up | r steps left, depth d) = (r - d)(d + 2) / (2 r (d + 1))
  (the ballot numbers count the completions; reflection principle), then each matched
  pair gets an independent uniform type (so every word has probability
  1 / (Catalan(n/2) k^(n/2))). Negatives: one corruption of a fresh positive (a bracket's
  direction flipped, or for k > 1 its type changed), always a non-member.
* ``uniform``: every bracket independent and uniform (labels almost all 0).

Counts: Dyck-k has Catalan(m) k^m words of length n = 2m.
Sources: docs/theories.md §9; Hahn (TACL 2020); Yao, Peng, Papadimitriou, Narasimhan,
"Self-attention networks can process bounded hierarchical languages" (ACL 2021);
Bhattamishra, Ahuja, Goyal, "On the ability and limitations of transformers to recognize
formal languages" (EMNLP 2020).
"""

import numpy as np

from ..registry import register
from .common import DyckTask, k_param, n_param


@register
class Dyck(DyckTask):
    name = "dyck"
    order = 1
    summary = "1 iff the n brackets of k types (default 2) are well nested (Dyck-k)"
    params = (n_param(16), k_param(2))
    variants = {"k": (1, 2)}
    analysis_ns = (2, 4, 6, 8, 10)
    train_ns = (8, 16, 32, 64)

    def up_probabilities(self):
        n, cap = self.n, self.cap
        r = (n - np.arange(n))[:, None].astype(float)       # steps left before step i
        d = np.arange(cap + 2)[None, :].astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = (r - d) * (d + 2) / (2 * r * (d + 1))
        reachable = (d <= r) & ((r - d) % 2 == 0)
        return np.where(reachable, np.clip(p, 0.0, 1.0), 0.0)
