"""Executable formal models and measures; nothing here produces a verdict.

Models: ``brasp`` (B-RASP and B-RASP[pos] programs), ``crasp`` (C-RASP programs),
``automata`` (DFA learning, transition monoids), ``circuits`` (circuit IR, builders,
evaluation, z3 synthesis), ``bapo`` (bounded attention prefix oracle protocols and the SAT
frontier), ``mpc`` (the massively parallel computation simulator and algorithms).
Measures: ``sensitivity``, ``communication`` (communication matrices), ``language``
(tasks read as languages), ``reductions`` (checked reductions) and ``growth`` (growth
fits). The theories in :mod:`theorybench.theories` turn these into verdicts.
"""
