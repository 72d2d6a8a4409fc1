"""Circuit builders for the boolean and sparse families (inputs x in {0,1}^n, one bit each).

* all / any: one AND / OR gate of fan-in n (depth 1, size 1): AC0.
* sparse_all / sparse_any: one AND / OR of the k bits of S; sparse_parity: the DNF of
  XOR over the k bits of S (2^(k-1) + 1 gates, independent of n): AC0.
* majority: one MAJ gate (TC0 by definition).
* parity: OR over odd j of "exactly j ones" = THR_j AND NOT THR_(j+1) (depth 3, about
  1.5 n gates): TC0. (Parity has no polynomial-size constant-depth AND/OR/NOT circuit:
  Furst, Saxe, Sipser 1984; Ajtai 1983; Hastad 1986 - so no AC0 builder exists.)
"""

from __future__ import annotations

from .builders import builder, parity_dnf, parity_threshold


def _bits(task, df, enc, c, positions=None):
    one = task.index["1"]
    pos = range(df.length) if positions is None else positions
    return [enc.is_(c, i, one) for i in pos]


@builder("all", "ac0", "one AND gate over the n bits")
def build_all(task, df, enc):
    c = enc.circuit()
    return c.set_outputs(c.and_(*_bits(task, df, enc, c)))


@builder("any", "ac0", "one OR gate over the n bits")
def build_any(task, df, enc):
    c = enc.circuit()
    return c.set_outputs(c.or_(*_bits(task, df, enc, c)))


@builder("majority", "tc0", "one MAJ gate over the n bits")
def build_majority(task, df, enc):
    c = enc.circuit()
    return c.set_outputs(c.maj(*_bits(task, df, enc, c)))


@builder("parity", "tc0", "OR over odd j of [exactly j ones] (two threshold gates each)",
         "folklore; e.g. Vollmer, Introduction to Circuit Complexity (1999), ch. 1")
def build_parity(task, df, enc):
    c = enc.circuit()
    return c.set_outputs(parity_threshold(c, _bits(task, df, enc, c)))


@builder("sparse_all", "ac0", "one AND gate over the k bits of the hidden set S")
def build_sparse_all(task, df, enc):
    c = enc.circuit()
    return c.set_outputs(c.and_(*_bits(task, df, enc, c, task.support)))


@builder("sparse_any", "ac0", "one OR gate over the k bits of the hidden set S")
def build_sparse_any(task, df, enc):
    c = enc.circuit()
    return c.set_outputs(c.or_(*_bits(task, df, enc, c, task.support)))


@builder("sparse_parity", "ac0", "DNF of XOR over the k bits of S (2^(k-1)+1 gates, k fixed)")
def build_sparse_parity(task, df, enc):
    c = enc.circuit()
    return c.set_outputs(parity_dnf(c, _bits(task, df, enc, c, task.support)))
