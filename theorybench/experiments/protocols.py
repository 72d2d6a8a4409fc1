"""Training and scoring protocols as data: what an empirical verdict was measured under.

A protocol fixes what a profile's runs and the matrix's verdicts depend on beyond the task:
the learning-rate grid, the seeds, how seeds (and learning rates) are aggregated, the
training lengths and test bins of length generalization, the thresholds and the budget.
The matrix's :class:`~theorybench.matrix.empirical.Thresholds` are built from one
(``Thresholds.from_protocol``), and every report names the protocol its verdicts came
from. Published protocols are available by name, so a run can be set beside the paper it
claims to reproduce; their settings are taken from the papers and the authors' public
code (the sources are cited in each entry; items marked "check" were not confirmed there).

Aggregations:

* ``mean``: the mean over seeds (and, with a learning-rate grid, the best learning rate);
* ``best``: the best seed and learning rate (Delétang et al. 2023 report the maximum);
* ``mean_of_fitted``: length generalization averaged over the seeds whose accuracy on the
  training lengths reached ``fit_accuracy`` - seeds that failed in distribution are dropped
  (Huang et al. 2025); a configuration with no such seed does not generalize.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ConfigError
from ..registry import Registry

AGGREGATES = ("mean", "best", "mean_of_fitted")


@dataclass(frozen=True)
class Protocol:
    name: str
    citation: str
    learning_rates: tuple[float, ...]
    seeds: tuple[int, ...]
    aggregate: str
    target_accuracy: float          # in distribution: what counts as learned
    length_accuracy: float          # length generalization: needed in every test bin
    fit_accuracy: float = 1.0       # mean_of_fitted: training-length accuracy a seed needs
    train_lengths: tuple[int, int] | None = None
    eval_bins: tuple[tuple[int, int], ...] = ()
    steps: int | None = None
    batch_size: int | None = None
    model: str = ""                 # the architecture, in words
    notes: str = ""

    def __post_init__(self):
        if self.aggregate not in AGGREGATES:
            raise ConfigError(f"protocol {self.name}: aggregate {self.aggregate!r} is not one "
                              f"of {', '.join(AGGREGATES)}")
        for what in ("target_accuracy", "length_accuracy", "fit_accuracy"):
            if not 0 < getattr(self, what) <= 1:
                raise ConfigError(f"protocol {self.name}: {what} must be in (0, 1]")
        if not self.learning_rates or any(lr <= 0 for lr in self.learning_rates):
            raise ConfigError(f"protocol {self.name}: learning rates must be positive")

    def describe(self) -> str:
        bins = ", ".join(f"[{a}, {b}]" for a, b in self.eval_bins) or "the profile's"
        lrs = ", ".join(f"{lr:g}" for lr in self.learning_rates)
        return (f"protocol {self.name} ({self.citation}): learning rates {{{lrs}}}, "
                f"{len(self.seeds)} seed(s), aggregate {self.aggregate}"
                + (f" (seeds fitting the training lengths at >= {self.fit_accuracy:g})"
                   if self.aggregate == "mean_of_fitted" else "")
                + f", learned at >= {self.target_accuracy:g}, length generalization at >= "
                  f"{self.length_accuracy:g} per bin (bins {bins})")


PROTOCOLS: Registry[Protocol] = Registry("protocol")
PROTOCOLS.register(Protocol(
    name="theorybench",
    citation="this toolkit's default",
    learning_rates=(2e-3,), seeds=(0, 1, 2), aggregate="mean",
    target_accuracy=0.99, length_accuracy=0.90, train_lengths=(1, 32),
    eval_bins=((1, 32), (33, 64), (65, 128), (129, 256)),
    model="small decoder (2 layers, width 64) unless the profile says otherwise",
    notes="the quick and smoke profiles' settings; bins up to 8x the training length"))
PROTOCOLS.register(Protocol(
    name="huang2025",
    citation="Huang et al., 'A formal framework for understanding length generalization in "
             "transformers', ICLR 2025 (the authors' code)",
    learning_rates=(1e-3, 1e-4), seeds=tuple(range(7)), aggregate="mean_of_fitted",
    target_accuracy=1.0, length_accuracy=0.90, fit_accuracy=1.0, train_lengths=(1, 50),
    eval_bins=((0, 50), (51, 100), (101, 150)), steps=30_000, batch_size=64,
    model="GPT-2-style decoder from scratch, architecture chosen by a sweep over layers "
          "{1, 2, 4} x heads {1, 2, 4} x width {16, 64, 256}; AdamW, weight decay 0.01, "
          "linear decay, dropout 0",
    notes="these are the algorithmic tasks' settings; the formal languages were trained "
          "otherwise (a cross-entropy over next-symbol sets, AdamW lr 1e-5, weight decay "
          "0.1, constant rate, batch 16, 100 epochs over a fixed set, no early stop: "
          "experiments.reproduce.LANGUAGE_RECIPES); 2,000 test examples per bin; the "
          "reported mean is over the seeds that reached "
          "100 % in distribution; the length_accuracy bar is this toolkit's (check: the "
          "paper reports accuracies, not a threshold)"))
PROTOCOLS.register(Protocol(
    name="bhattamishra2020",
    citation="Bhattamishra, Ahuja & Goyal, 'On the ability and limitations of transformers "
             "to recognize formal languages', EMNLP 2020 (the authors' code, "
             "satwik77/Transformer-Formal-Languages)",
    learning_rates=(5e-3,), seeds=(0, 1, 2), aggregate="mean",
    target_accuracy=1.0, length_accuracy=0.90, train_lengths=(2, 50),
    eval_bins=((2, 50), (51, 100)), batch_size=32,
    model="transformer with causal (positional) masking and no positional encoding by "
          "default ('-pos_encode' adds absolute positions); defaults 1 layer, 1 head, width "
          "32, lr 5e-3, 25 epochs over 10,000 training strings (the authors' src/args.py)",
    notes="next-character-set prediction on members, every position scored, a string right "
          "when all its sets are; test bins of width 50 ('-bins 2 -len_incr 50'), 2,000 "
          "strings each; seeds and aggregation: check (the README gives neither)"))
PROTOCOLS.register(Protocol(
    name="deletang2023",
    citation="Deletang et al., 'Neural networks and the Chomsky hierarchy', ICLR 2023",
    learning_rates=(1e-4, 3e-4, 5e-4), seeds=tuple(range(10)), aggregate="best",
    target_accuracy=0.99, length_accuracy=0.90, train_lengths=(1, 40),
    eval_bins=((41, 500),), steps=1_000_000, batch_size=128,
    model="transformer encoder, 5 layers, width 64; gradient clipping at 1.0",
    notes="score: mean accuracy over the test lengths above the training lengths; the "
          "table reports the maximum over seeds and learning rates; the thresholds are "
          "this toolkit's (check: the paper ranks by score)"))


def get_protocol(name: str) -> Protocol:
    """A protocol by name (``ConfigError`` with a hint for an unknown one)."""
    return PROTOCOLS.get(name)
