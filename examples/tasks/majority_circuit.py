"""majority_circuit: more 1s than 0s (n odd), with a threshold circuit and an MPC algorithm
for it, checked against label when the file loads (docs/extending.md, "Bring your own task")."""

import numpy as np

from theorybench.formal.circuits.ir import Circuit
from theorybench.formal.mpc.scan import tree_fold
from theorybench.formal.mpc.simulator import FILL, Step

NAME = "majority_circuit"
ALPHABET = ("0", "1")
LENGTHS = (1, 129)


def VALID(n):
    return n % 2 == 1


def label(x):
    return 2 * x.sum(axis=1) > x.shape[1]


def CIRCUIT(n):                   # one bit per position: 1 where the token is "1"
    c = Circuit(n)
    return c.set_outputs(c.thr((n + 1) // 2, *range(n)))   # a threshold gate: TC0


def MPC(net, task):
    """count the 1s per machine, sum the counts up a tree, compare with N/2"""
    def count(ids, mem, inbox):
        block = mem[..., :net.block]
        return Step(np.where(block == FILL, 0, block).sum(axis=-1)[..., None])

    def decide(ids, mem, inbox):
        return Step((2 * mem[..., :1] > net.N).astype(np.int64))

    net.round(count, "local count")
    tree_fold(net, 0, 1, np.add, [0], "sum")
    net.round(decide, "majority")
