"""theorybench: executable theories of what transformers can compute, beside trained models.

The subpackages are the architecture (imports only point down this list):
``cli`` -> ``matrix`` -> {``experiments``, ``theories``, ``constructions``, ``proofs``} -> ``tasks``.
"""

__version__ = "0.1.0"
