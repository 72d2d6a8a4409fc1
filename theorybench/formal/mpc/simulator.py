"""A simulator of (gamma, delta)-MPC in which every machine sees only its own memory.

Model (after the definition of massively parallel computation used by Sanford, Hsu,
Telgarsky, ICML 2024, arXiv 2402.09268; cited, in our words): N input words; every machine
has a local memory of s = ceil(c * N^delta) words; a round is local computation on a
machine's memory and the messages it received, then an exchange in which every machine
sends at most s words and receives at most s words.

How the simulator keeps machines apart:

* An algorithm is a *program*: a function ``program(net, task)`` that is given a
  :class:`Network` handle and the task's public parameters - never the input. The
  simulator places the input (machine m's memory starts as its block of b consecutive
  input words, unused words :data:`FILL`) and the program can only ask the network to
  apply a *round function* to every machine.
* A round function ``fn(ids, mem, inbox) -> Step`` receives the machines' ids, their
  memories as one array ``mem`` of shape (B, M, W) - B independent instances, M machines,
  W <= s words - and their inboxes (:class:`Inbox`), and returns the new memories and the
  messages to send. It is vectorised over machines, but must compute every machine's
  result from that machine's row only: :meth:`MPC.run` with ``strict=True`` also calls the
  function on every machine alone (arrays of shape (1, 1, W)) and raises
  :class:`LocalityError` if any machine's result differs - a round function that reads
  another machine's row cannot pass. A machine cannot read past its memory: the array
  simply has no word W (an IndexError).
* Limits, checked every round, raise :class:`ResourceLimitError` naming the round and the
  machine: a memory wider than s words, a machine sending or receiving more than s words,
  a message to a machine that does not exist.
* The network routes the messages (into the receivers' next inboxes, in sender order),
  counts rounds (a step that sends is one round; a purely local step is free), words sent,
  and the largest memory in use. The program learns from the network only whether every
  instance has halted (machine 0 of an instance halts it by setting its ``halt`` flag; its
  word 0 is then the output), which is what a data-dependent loop needs to terminate.

At any time a machine holds its memory (<= s words) and one inbox (<= s words), so
O(N^delta) words. The input occupies b = floor(share * s) words per machine (share = 1/2 by
default, leaving the other half for working data), so there are ceil(N / b) machines (at
least N^(1+gamma) / s): O(N^(1-delta)) for gamma = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...errors import ResourceLimitError, TaskParameterError

#: The value of an unused memory word or an empty inbox slot.
FILL = np.iinfo(np.int64).min


class LocalityError(ResourceLimitError):
    """A round function's result for one machine depends on another machine's data."""


@dataclass(frozen=True)
class Inbox:
    """Messages received by every machine: ``data`` (B, M, R, w) words (FILL in empty
    slots), ``valid`` (B, M, R), ``src`` (B, M, R) the sender's id (-1 in empty slots).
    Messages are in sender order, and in the sender's slot order within one sender."""

    data: np.ndarray
    valid: np.ndarray
    src: np.ndarray

    @property
    def width(self) -> int:
        return int(self.data.shape[-1])

    def _slice(self, b: int, m: int) -> "Inbox":
        return Inbox(self.data[b:b + 1, m:m + 1], self.valid[b:b + 1, m:m + 1],
                     self.src[b:b + 1, m:m + 1])

    def take(self, keep: np.ndarray) -> "Inbox":
        return Inbox(self.data[keep], self.valid[keep], self.src[keep])


def empty_inbox(B: int, M: int) -> Inbox:
    return Inbox(np.full((B, M, 0, 1), FILL, dtype=np.int64), np.zeros((B, M, 0), dtype=bool),
                 np.full((B, M, 0), -1, dtype=np.int64))


@dataclass
class Step:
    """What a round function returns: the new memories (B, M, W'), optionally messages -
    ``dest`` (B, M, K) machine ids (-1: no message in this slot) and ``data`` (B, M, K, w) -
    and optionally ``halt`` (B, M) (only machine 0's flag counts)."""

    mem: np.ndarray
    dest: np.ndarray | None = None
    data: np.ndarray | None = None
    halt: np.ndarray | None = None


RoundFn = Callable[[np.ndarray, np.ndarray, Inbox], Step]


class Network:
    """The program's handle on a run: public sizes and :meth:`round`; no memory access."""

    def __init__(self, run: "_Run"):
        self._run = run
        self.N, self.s, self.M, self.block = run.mpc.N, run.mpc.s, run.M, run.block

    def round(self, fn: RoundFn, what: str = "") -> None:
        """Apply ``fn`` to every machine of every running instance; route its messages."""
        self._run.step(fn, what)

    @property
    def done(self) -> bool:
        """True once every instance has halted."""
        return not self._run.active.any()


Program = Callable[[Network, object], None]


@dataclass
class RunResult:
    """Per instance: the output (machine 0's word 0), rounds, words sent; and overall the
    largest memory (words in use) and the largest inbox/outbox seen."""

    output: np.ndarray
    rounds: np.ndarray
    communication: np.ndarray
    max_memory: int
    max_traffic: int
    s: int
    machines: int
    block: int
    strict: bool
    #: the final memories of the instances still running at the end (B', M, W), for tests
    memory: np.ndarray | None = None


class _Run:
    def __init__(self, mpc: "MPC", X: np.ndarray, share: float, strict: bool):
        self.mpc = mpc
        s = mpc.s
        self.block = max(1, int(math.floor(share * s)))
        B, N = X.shape
        self.M = mpc.machines_for(self.block)
        self.strict = strict
        mem = np.full((B, self.M * self.block), FILL, dtype=np.int64)
        mem[:, :N] = X
        self.mem = mem.reshape(B, self.M, self.block)
        self.inbox = empty_inbox(B, self.M)
        self.active = np.ones(B, dtype=bool)
        self.output = np.full(B, FILL, dtype=np.int64)
        self.rounds = np.zeros(B, dtype=np.int64)
        self.comm = np.zeros(B, dtype=np.int64)
        self.max_memory = int((self.mem != FILL).sum(axis=2).max()) if B else 0
        self.max_traffic = 0
        self.count = 0

    # ------------------------------------------------------------------ one step
    def step(self, fn: RoundFn, what: str) -> None:
        act = np.nonzero(self.active)[0]
        if len(act) == 0:
            return
        self.count += 1
        where = f"step {self.count}" + (f" ({what})" if what else "")
        mem, inbox = self.mem, self.inbox   # the running instances only, in order
        A, M = len(act), self.M
        ids = np.broadcast_to(np.arange(M, dtype=np.int64)[None, :], (A, M))
        for arr in (mem, inbox.data, inbox.valid, inbox.src):  # round functions are pure
            arr.flags.writeable = False
        out = fn(ids, mem, inbox)
        new, dest, data = self._check_step(out, A, M, where)
        if self.strict:
            self._check_local(fn, ids, mem, inbox, out, new, dest, data, where)
        # memory
        used = (new != FILL).sum(axis=2)
        if used.size:
            self.max_memory = max(self.max_memory, int(used.max()))
        # messages
        sends = dest is not None
        if sends:
            self.rounds[act] += 1
            self.inbox_new = self._route(dest, data, A, M, act, where)
        else:
            self.inbox_new = empty_inbox(A, M)
        self.mem, self.inbox = new, self.inbox_new
        halt = out.halt
        if halt is not None:
            h = np.asarray(halt, dtype=bool).reshape(A, M)[:, 0]
            if h.any():
                idx = act[h]
                self.output[idx] = self.mem[h, 0, 0]
                self.active[idx] = False
                keep = ~h
                self.mem, self.inbox = self.mem[keep], self.inbox.take(keep)

    def _check_step(self, out, A, M, where):
        if not isinstance(out, Step):
            raise TypeError(f"{where}: a round function must return a Step, got "
                            f"{type(out).__name__}")
        new = np.asarray(out.mem, dtype=np.int64)
        if new.ndim != 3 or new.shape[:2] != (A, M):
            raise ResourceLimitError(f"{where}: the new memory has shape {new.shape}, expected "
                                     f"({A}, {M}, W)")
        if new.shape[2] > self.mpc.s:
            raise ResourceLimitError(
                f"{where}: machines keep {new.shape[2]} words, more than their memory "
                f"s = {self.mpc.s} words (N={self.mpc.N}, delta={self.mpc.delta})")
        if out.dest is None:
            if out.data is not None:
                raise ResourceLimitError(f"{where}: message data without destinations")
            return new, None, None
        dest = np.asarray(out.dest, dtype=np.int64)
        data = np.asarray(out.data, dtype=np.int64)
        if data.ndim == 3:
            data = data[..., None]
        if dest.shape[:2] != (A, M) or data.shape[:3] != dest.shape or data.ndim != 4:
            raise ResourceLimitError(f"{where}: messages must be dest (B, M, K) and data "
                                     f"(B, M, K, w); got {dest.shape} and {data.shape}")
        return new, dest, data

    def _route(self, dest, data, A, M, act, where) -> Inbox:
        s, w = self.mpc.s, data.shape[3]
        if dest.size and dest.max() >= M:
            b, m, _ = np.unravel_index(int(np.argmax(dest)), dest.shape)
            raise ResourceLimitError(
                f"round {int(self.rounds[act[b]])}: machine {m} addresses machine "
                f"{int(dest.max())}, but there are only {M} machines")
        live = dest >= 0
        sent = live.sum(axis=2) * w
        if sent.size and sent.max() > s:
            b, m = np.unravel_index(int(np.argmax(sent)), sent.shape)
            raise ResourceLimitError(
                f"round {int(self.rounds[act[b]])}: machine {m} sends {int(sent[b, m])} words, "
                f"more than its memory s = {s} (N={self.mpc.N}, delta={self.mpc.delta})")
        self.comm[act] += sent.sum(axis=1)
        bi, mi, ki = np.nonzero(live)          # in (instance, sender, slot) order
        g = bi * M + dest[bi, mi, ki]          # the receiver, globally
        cnt = np.bincount(g, minlength=A * M)
        recv = cnt * w
        if recv.size and recv.max() > s:
            top = int(np.argmax(recv))
            raise ResourceLimitError(
                f"round {int(self.rounds[act[top // M]])}: machine {top % M} receives "
                f"{int(recv[top])} words, more than its memory s = {s} (N={self.mpc.N}, "
                f"delta={self.mpc.delta})")
        if recv.size:
            self.max_traffic = max(self.max_traffic, int(recv.max()), int(sent.max()))
        R = int(cnt.max()) if cnt.size else 0
        order = np.argsort(g, kind="stable")
        gs = g[order]
        starts = np.r_[0, np.cumsum(cnt)[:-1]]
        rank = np.arange(len(gs)) - starts[gs]
        box = np.full((A * M, R, w), FILL, dtype=np.int64)
        src = np.full((A * M, R), -1, dtype=np.int64)
        valid = np.zeros((A * M, R), dtype=bool)
        box[gs, rank] = data[bi[order], mi[order], ki[order]]
        src[gs, rank] = mi[order]
        valid[gs, rank] = True
        return Inbox(box.reshape(A, M, R, w), valid.reshape(A, M, R), src.reshape(A, M, R))

    def _check_local(self, fn, ids, mem, inbox, out, new, dest, data, where):
        """Recompute every machine alone; its memory, messages and halt flag must agree."""
        A, M = ids.shape
        for b in range(A):
            for m in range(M):
                one = fn(ids[b:b + 1, m:m + 1], mem[b:b + 1, m:m + 1], inbox._slice(b, m))
                n1, d1, p1 = self._check_step(one, 1, 1, where)
                same = _trim(n1[0, 0]).tolist() == _trim(new[b, m]).tolist()
                same &= _messages(d1, p1, 0, 0) == _messages(dest, data, b, m)
                h_all = False if out.halt is None else bool(np.asarray(out.halt)[b, m])
                h_one = False if one.halt is None else bool(np.asarray(one.halt).reshape(-1)[0])
                same &= h_all == h_one or m != 0
                if not same:
                    raise LocalityError(
                        f"{where}: machine {m}'s result computed alone differs from its result "
                        f"in the vectorised round - the round function reads data of other "
                        f"machines")


def _trim(row: np.ndarray) -> np.ndarray:
    keep = np.nonzero(row != FILL)[0]
    return row[: keep[-1] + 1] if len(keep) else row[:0]


def _messages(dest, data, b, m) -> list:
    if dest is None:
        return []
    d = dest[b, m]
    return [(int(d[k]), data[b, m, k].tolist()) for k in np.nonzero(d >= 0)[0]]


class MPC:
    """Model parameters of one MPC: N, memory s = max(min_memory, ceil(c N^delta))."""

    def __init__(self, N: int, delta: float = 0.5, c: float = 1.0, gamma: float = 0.0,
                 min_memory: int = 4):
        if not 0 < delta < 1:
            raise TaskParameterError(f"delta={delta} must lie strictly between 0 and 1")
        if N < 1:
            raise TaskParameterError(f"N={N} must be positive")
        if not (c > 0 and math.isfinite(c)):
            raise TaskParameterError(f"c={c}: the memory constant must be a finite number > 0")
        self.N, self.delta, self.c, self.gamma = int(N), float(delta), float(c), float(gamma)
        self.s = max(min_memory, math.ceil(c * N ** delta))

    def machines_for(self, block: int) -> int:
        """Machines for input blocks of ``block`` words (at least N^(1+gamma) / s)."""
        return max(math.ceil(self.N / block), math.ceil(self.N ** (1 + self.gamma) / self.s), 1)

    def block_for(self, share: float = 0.5) -> int:
        return max(1, int(math.floor(share * self.s)))

    def run(self, program: Program, task, X: np.ndarray, share: float = 0.5,
            strict: bool = False) -> RunResult:
        """Run ``program`` on every row of ``X`` (independent instances, one batch).

        The program sees ``task`` (public parameters) and the network, never ``X``.
        ``strict`` recomputes every machine of every round alone (see :class:`LocalityError`).
        """
        X = np.atleast_2d(np.asarray(X, dtype=np.int64))
        if X.shape[1] != self.N:
            raise TaskParameterError(f"inputs of length {X.shape[1]}, but this MPC has N={self.N}")
        if (X == FILL).any():
            raise TaskParameterError("an input word equals the simulator's empty-word marker")
        run = _Run(self, X, share, strict)
        program(Network(run), task)
        still = np.nonzero(run.active)[0]
        if len(still):
            run.output[still] = run.mem[:, 0, 0]
        return RunResult(output=run.output, rounds=run.rounds, communication=run.comm,
                         max_memory=run.max_memory, max_traffic=run.max_traffic, s=self.s,
                         machines=run.M, block=run.block, strict=strict, memory=run.mem)


__all__ = ["MPC", "Network", "Step", "Inbox", "RunResult", "LocalityError", "FILL"]
