"""The AC0 circuit of kv_retrieval against the task (every small input, samples beyond)."""

import numpy as np
import pytest

from theorybench import tasks
from theorybench.formal.circuits import evaluate
from theorybench.formal.circuits.builders import build
from theorybench.formal.circuits.verify import decode, verify


@pytest.mark.parametrize("n,m", [(1, 0), (2, 0), (3, 0), (4, 0), (2, 2), (3, 3)])
def test_kv_circuit_on_every_small_input(n, m):
    task = tasks.get("kv_retrieval", n=n, m=m)
    b = build(task, "ac0")
    x = b.df.enumerate()
    got = decode(b.circuit, evaluate(b.circuit, b.encoding.encode(x)))
    assert np.array_equal(got, task.oracle(x))
    assert b.circuit.in_basis("ac0") and b.circuit.depth <= 4


def test_kv_circuit_on_samples_and_depth_constant():
    depths = []
    for n in (16, 40):
        b = build(tasks.get("kv_retrieval", n=n), "ac0")
        chk = verify(b, np.random.default_rng(2), samples=300)
        assert chk.errors == 0 and chk.checked >= 300
        depths.append(b.circuit.depth)
    assert depths == [4, 4]
