"""A vectorized simulator of (gamma, delta)-MPC (Sanford, Hsu, Telgarsky, ICML 2024, arXiv
2402.09268, Section 2's definition of massively parallel computation, in our words).

N input words sit on machines with local memory s = ceil(c * N^delta) words each; there are
ceil(N^(1+gamma) / s) machines (at least enough to hold the input). A round is local
computation followed by a message exchange in which every machine sends at most s words
and receives at most s words; after the exchange a machine's working memory is what it
received. Convention: a machine also keeps its block of the input (at most s words,
read-only) for the whole run, so positions and input tokens need not be re-sent every
round; the total per machine is thus at most 2s = O(N^delta) words.

Data are a :class:`Dist`: a (W, width) int64 array of records and the machine owning
each record; one record of width w is w words. Algorithms do local computation with
numpy segment operations over the records grouped by owner, and call
:meth:`MPC.exchange` to communicate. The simulator counts rounds, total words sent and
the largest memory seen, and raises :class:`ResourceLimitError` naming the machine and
the round when a machine would send, receive or hold more than s words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ResourceLimitError, TaskParameterError


@dataclass
class Dist:
    """Records (W, width) int64 and their owner machine (W,), sorted by owner."""

    owner: np.ndarray
    data: np.ndarray

    @property
    def width(self) -> int:
        return int(self.data.shape[1])

    def __len__(self) -> int:
        return int(self.owner.shape[0])


class MPC:
    """One MPC run: the machine count, memory s, and the round/communication counters."""

    def __init__(self, N: int, delta: float = 0.5, c: float = 1.0, gamma: float = 0.0,
                 min_memory: int = 4):
        if not 0 < delta < 1:
            raise TaskParameterError(f"delta={delta} must lie strictly between 0 and 1")
        if N < 1:
            raise TaskParameterError(f"N={N} must be positive")
        self.N, self.delta, self.c, self.gamma = int(N), float(delta), float(c), float(gamma)
        self.s = max(min_memory, math.ceil(c * N ** delta))
        self.machines = max(math.ceil(N / self.s), math.ceil(N ** (1 + gamma) / self.s))
        self.rounds = 0
        self.communication = 0
        self.max_memory = 0

    def summary(self) -> dict:
        return {"N": self.N, "delta": self.delta, "s": self.s, "machines": self.machines,
                "rounds": self.rounds, "communication": self.communication,
                "max_memory": self.max_memory}

    # ------------------------------------------------------------------ placement
    def distribute(self, values: np.ndarray) -> Dist:
        """The input: record i (a row of ``values``) on machine i // (s // width)."""
        v = np.asarray(values, dtype=np.int64)
        if v.ndim == 1:
            v = v[:, None]
        per = max(1, self.s // v.shape[1])
        owner = np.arange(len(v), dtype=np.int64) // per
        if len(v) and owner[-1] >= self.machines:
            raise ResourceLimitError(
                f"the input of {len(v) * v.shape[1]} words does not fit on {self.machines} "
                f"machines of {self.s} words (N={self.N}, delta={self.delta})")
        self._check_memory(owner, v.shape[1], "input placement")
        return Dist(owner, v)

    def _check_memory(self, owner: np.ndarray, width: int, where: str) -> None:
        if len(owner) == 0:
            return
        load = np.bincount(owner, minlength=self.machines) * width
        top = int(load.max())
        self.max_memory = max(self.max_memory, top)
        if top > self.s:
            m = int(np.argmax(load))
            raise ResourceLimitError(
                f"machine {m} holds {top} words after {where}, more than its memory "
                f"s = {self.s} words (N={self.N}, delta={self.delta})")

    def _check_traffic(self, machine: np.ndarray, width: int, verb: str) -> None:
        """Raise if some machine sends/receives more than s words in this round."""
        words = np.bincount(machine, minlength=self.machines) * width
        if words.max() > self.s:
            m = int(np.argmax(words))
            raise ResourceLimitError(
                f"round {self.rounds}: machine {m} {verb} {int(words[m])} words, more than "
                f"its memory s = {self.s} (N={self.N}, delta={self.delta})")

    # ------------------------------------------------------------------ communication
    def exchange(self, src: np.ndarray, dest: np.ndarray, payload: np.ndarray) -> Dist:
        """One round: record j goes from machine src[j] to machine dest[j].

        Enforces at most s words sent and received per machine; returns the received
        records sorted by their new owner (stable, so senders' order is kept).
        """
        self.rounds += 1
        p = np.asarray(payload, dtype=np.int64)
        if p.ndim == 1:
            p = p[:, None]
        src = np.asarray(src, dtype=np.int64)
        dest = np.asarray(dest, dtype=np.int64)
        if len(dest) and (dest.min() < 0 or dest.max() >= self.machines):
            raise ResourceLimitError(
                f"round {self.rounds}: a message is addressed to machine {int(dest.max())}, "
                f"but there are only {self.machines} machines")
        w = p.shape[1]
        self.communication += int(len(p) * w)
        if len(p):
            self._check_traffic(src, w, "sends")
            self._check_traffic(dest, w, "receives")
        order = np.argsort(dest, kind="stable")
        out = Dist(dest[order], p[order])
        self._check_memory(out.owner, w, f"round {self.rounds}")
        return out


def _rank_within(keys: np.ndarray) -> np.ndarray:
    """0-based rank of every entry among the entries with the same key (stable)."""
    order = np.argsort(keys, kind="stable")
    k = keys[order]
    starts = np.r_[0, np.nonzero(np.diff(k))[0] + 1]
    run = np.arange(len(k)) - np.repeat(starts, np.diff(np.r_[starts, len(k)]))
    out = np.empty(len(k), dtype=np.int64)
    out[order] = run
    return out


def exchange_many(mpc: "MPC", src: np.ndarray, dest: np.ndarray, payload: np.ndarray) -> Dist:
    """Deliver messages that may exceed s per machine in as many rounds as needed.

    Each round sends, per machine, at most s words and delivers at most s words per
    receiver (greedy in message order); the extra rounds are counted, so a high-degree
    vertex costs rounds, as it would on a real MPC.
    """
    p = np.asarray(payload, dtype=np.int64)
    if p.ndim == 1:
        p = p[:, None]
    src, dest = np.asarray(src, dtype=np.int64), np.asarray(dest, dtype=np.int64)
    per = max(1, mpc.s // p.shape[1])
    left = np.arange(len(p))
    got_owner, got_data = [], []
    while True:
        ok = _rank_within(src[left]) < per
        idx = left[ok]
        ok2 = _rank_within(dest[idx]) < per
        idx = idx[ok2]
        d = mpc.exchange(src[idx], dest[idx], p[idx])
        got_owner.append(d.owner)
        got_data.append(d.data)
        sent = np.zeros(len(p), dtype=bool)
        sent[idx] = True
        left = left[~sent[left]]
        if len(left) == 0:
            break
    owner = np.concatenate(got_owner)
    order = np.argsort(owner, kind="stable")
    return Dist(owner[order], np.concatenate(got_data)[order])


def segment_reduce(owner: np.ndarray, values: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-machine reduction of ``values`` (W, w) grouped by sorted ``owner``.

    Returns (machines present, reduced rows). ``op`` in sum, min, max, and, or, xor.
    """
    if len(owner) == 0:
        return owner, values
    starts = np.r_[0, np.nonzero(np.diff(owner))[0] + 1]
    ufunc = {"sum": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
    return owner[starts], ufunc.reduceat(values, starts, axis=0)


__all__ = ["MPC", "Dist", "segment_reduce", "exchange_many"]
