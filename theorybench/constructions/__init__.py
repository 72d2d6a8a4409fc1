"""Explicit transformer constructions: torch modules with hand-set weights (Majority by
uniform attention, Index by query-key retrieval, an induction head, Dyck-1 by counting),
the C-RASP -> transformer compiler, and z3 verification of constructions."""
