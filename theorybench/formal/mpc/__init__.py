"""MPC (massively parallel computation) as an executable model (docs/theories.md §5).

Sources: Sanford, Hsu, Telgarsky, "Transformers, parallel computation, and logarithmic
depth", ICML 2024 (arXiv 2402.09268); Sanford et al., "Understanding transformer
reasoning capabilities via graph algorithms", NeurIPS 2024 (arXiv 2405.18512).

* :mod:`.simulator` - machines with memory s = ceil(c N^delta) that see only their own
  memory and inbox; programs written as round functions; limits and locality enforced;
* :mod:`.scan` - tree folds, scans and broadcasts as round functions;
* :mod:`.algorithms`, :mod:`.dyck` - programs per task family, checked against the task;
* :mod:`.cycles` - the 1-cycle vs 2-cycles problem and reductions from it.
"""

from .simulator import MPC, FILL, Inbox, LocalityError, Network, Step

__all__ = ["MPC", "FILL", "Inbox", "LocalityError", "Network", "Step"]
