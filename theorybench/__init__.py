"""theorybench: executable theories of what transformers can compute, beside trained models.

The subpackages are the architecture. Imports point only down these edges (and their
transitive closure); ``errors``, ``registry``, ``safe_io`` and ``parallel`` (work spread over
forked processes) are leaves every layer may use::

    cli -> matrix -> {experiments, theories}
    theories -> proofs -> constructions -> formal -> tasks
    experiments -> tasks

- ``tasks``: the task suite (instances, labels, reference functions).
- ``formal``: executable formal models and measures (automata, B-RASP, C-RASP, circuits,
  BAPO, MPC, sensitivity, communication); they compute, they never give a verdict.
- ``constructions``: transformers with set weights and their verification.
- ``proofs``: checked claims.
- ``theories``: one module per theory, deriving Easy/Hard/Unknown with evidence.
- ``experiments``: training and evaluation of real models, and the results store.
- ``matrix``: theory and experiment side by side (agreement, tables, report).
- ``cli``: the ``theorybench`` command.

``tests/test_layers.py`` checks the edges on every module's imports.
"""

#: Layer -> the layers it may import directly (the edges above). The test takes the
#: transitive closure.
LAYERS: dict[str, tuple[str, ...]] = {
    "cli": ("matrix",),
    "matrix": ("experiments", "theories"),
    "theories": ("proofs",),
    "proofs": ("constructions",),
    "constructions": ("formal",),
    "formal": ("tasks",),
    "experiments": ("tasks",),
    "tasks": (),
}

__version__ = "0.1.0"
