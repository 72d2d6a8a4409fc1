"""Circuits, MPC algorithms and BAPO protocols supplied with a task file
(formal/user_models.py, issue 28): each checked against the label at load, refused when
wrong (file, line, input, both answers), used by its column's existing rule with the file
named as the origin, a threshold circuit never AC0 evidence, and an edited file's artifacts
never serving the other version of the class."""

from __future__ import annotations

import pathlib
import re
import textwrap

import numpy as np
import pytest

from theorybench.errors import TaskParameterError
from theorybench.formal.bapo.library import PROTOCOLS, protocols_for
from theorybench.formal.circuits.builders import BUILDERS, builders_for
from theorybench.formal.mpc.algorithms import MPC_ALGORITHMS, algorithm_for
from theorybench.tasks import registry
from theorybench.tasks.user_checks import full_check
from theorybench.theories.ac0 import AC0Theory
from theorybench.theories.bapo import BAPOTheory
from theorybench.theories.mpc import MPCTheory
from theorybench.theories.prediction import Basis, Context, RuleSkip, Verdict
from theorybench.theories.tc0 import TC0Theory

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks" / \
    "majority_circuit.py"


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped(), BUILDERS.scoped(), MPC_ALGORITHMS.scoped(), \
            PROTOCOLS.scoped():
        yield


def write(tmp_path, name: str, body: str) -> pathlib.Path:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body).lstrip())
    return path


# "all_a": every token is a; an AND circuit, a (1, 0) BAPO protocol, an MPC AND-fold
ALL_A = '''
import numpy as np

from theorybench.formal.bapo.protocol import Protocol
from theorybench.formal.circuits.ir import Circuit
from theorybench.formal.mpc.scan import tree_fold
from theorybench.formal.mpc.simulator import FILL, Step

NAME = "{name}"
ALPHABET = ("a", "b")
LENGTHS = (1, 64)


def label(x):
    return (x == 0).all(axis=1)


def and_circuit(n):
    c = Circuit(n)                       # bit i is 1 where token i is "b"
    return c.set_outputs(c.not_(c.or_(*range(n))))


def fold(df):
    def f(prefix):
        return (prefix == 0).all(axis=1).astype(np.int64)[:, None]

    def h(bits, g_tokens, g_pos, suffix, k):
        return bits[:, 0] & (suffix == 0).all(axis=1)
    return [Protocol("all-a-fold", 1, 0, f=f, h=h)]


def and_fold(net, task):
    """AND of each block, AND-folded up a tree"""
    def local(ids, mem, inbox):
        block = mem[..., :net.block]
        return Step(((block == FILL) | (block == 0)).all(axis=-1).astype(np.int64)[..., None])
    net.round(local, "local AND")
    tree_fold(net, 0, 1, np.minimum, [1], "AND fold")
'''


def line_of(path: pathlib.Path, text: str) -> int:
    return path.read_text().splitlines().index(text) + 1


def all_a(tmp_path, name="all_a", extra="CIRCUIT = and_circuit\nBAPO = fold\nMPC = and_fold\n"):
    return write(tmp_path, name, ALL_A.format(name=name) + extra)


# ---- accepted, and used by the column's own rule -----------------------------------------

def test_example_threshold_circuit_makes_tc0_easy_from_the_file():
    fam = registry.load_task_file(EXAMPLE, export=False)
    done, warnings = full_check(fam, np.random.default_rng(1), count=200)
    assert warnings == [] and done
    circuit, mpc = fam.artifacts
    assert (circuit["language"], circuit["basis"], circuit["columns"]) == ("circuit", "tc0",
                                                                          ["tc0"])
    assert circuit["origin"].endswith("majority_circuit.py:23 (CIRCUIT)")
    assert circuit["exhaustive_up_to"] == 13 and circuit["verified_up_to"] == 63
    assert mpc["columns"] == ["mpc"] and mpc["origin"].endswith("majority_circuit.py:28 (MPC)")
    cell = TC0Theory().predict("majority_circuit")
    assert (cell.verdict, cell.rule) == (Verdict.EASY, "verified TC0 circuit family")
    assert cell.evidence["construction"]["builder"]["source"] == circuit["origin"]
    assert circuit["origin"] in cell.explanation
    # a threshold gate is no AC0 evidence, and the AC0 cell says why it ignores it
    skip = AC0Theory().construction("majority_circuit", Context())
    assert isinstance(skip, RuleSkip) and not builders_for("majority_circuit", "ac0")
    assert f"the circuit supplied in {circuit['origin']} uses ['THR'], so it is evidence " \
           "for TC0 only" in skip.reason
    cell = MPCTheory().predict("majority_circuit")
    assert (cell.verdict, cell.basis) == (Verdict.EASY, Basis.CONSTRUCTION)
    assert cell.evidence["algorithm"] == (f"count the 1s per machine, sum the counts up a "
                                          f"tree, compare with N/2 (supplied in {mpc['origin']})")


def test_an_and_circuit_a_protocol_and_an_mpc_fold_for_all_a(tmp_path):
    path = all_a(tmp_path)
    fam = registry.load_task_file(path, export=False)
    by = {r["language"]: r for r in fam.artifacts}
    assert by["circuit"]["columns"] == ["ac0", "tc0"] and by["circuit"]["gates"] == ["NOT", "OR"]
    assert by["BAPO"]["checked"][0] == {"n": 1, "protocol": "all-a-fold", "a": 1, "b": 0,
                                         "inputs": 2, "exhaustive": True}
    cell = AC0Theory().predict("all_a")
    assert (cell.verdict, cell.rule) == (Verdict.EASY, "verified AC0 circuit family")
    where = {k: f"{path}:{line_of(path, f'{k} = {v}')} ({k})"
             for k, v in (("CIRCUIT", "and_circuit"), ("BAPO", "fold"), ("MPC", "and_fold"))}
    assert cell.evidence["construction"]["builder"]["source"] == where["CIRCUIT"] \
        == by["circuit"]["origin"]
    cell = BAPOTheory().library_protocol("all_a", Context())
    assert cell.verdict == Verdict.EASY, cell
    assert cell.evidence["protocol"] == f"all-a-fold [{where['BAPO']}]"
    assert (cell.evidence["a"], cell.evidence["b"]) == (1, 0)
    assert algorithm_for(fam(n=9)).description == (f"AND of each block, AND-folded up a tree "
                                                   f"(supplied in {where['MPC']})")


# ---- refused when wrong: the file, the line, the input and both answers ------------------

WRONG = [
    ("circuit", "def bad(n):  # the last bit is left out\n    c = Circuit(n)\n"
                "    return c.set_outputs(c.not_(c.or_(c.const(0), *range(n - 1))))\n"
                "CIRCUIT = bad\n",
     r"all_a\.py:\d+ \(CIRCUIT\): the circuit supplied for the task disagrees with its label "
     r"at n=1 on 'b': label 0, circuit 1"),
    ("protocol", "def bad(df):  # h ignores the suffix\n    p = fold(df)[0]\n"
                 "    p.h = lambda bits, gt, gp, s, k: bits[:, 0]\n    return [p]\nBAPO = bad\n",
     r"all_a\.py:\d+ \(BAPO\): the BAPO protocol supplied for the task disagrees with its "
     r"label at n=2 on 'a b' \(protocol 'all-a-fold', \(1, 0\), split k=1, G=\[\]\): label 0, "
     r"protocol 1"),
    ("mpc", "def bad(net, task):\n    and_fold(net, task)\n"
            "    net.round(lambda ids, mem, inbox: Step(1 - mem[..., :1]), 'flip')\n"
            "MPC = bad\n",
     r"all_a\.py:\d+ \(MPC\): the MPC algorithm supplied for the task disagrees with its "
     r"label at n=1 on 'a' \(after \d+ rounds\): label 1, algorithm 0"),
]


@pytest.mark.parametrize("kind,extra,message", WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_artifact_is_refused_at_load(tmp_path, kind, extra, message):
    libraries = {lib: lib.entries() for lib in (BUILDERS, MPC_ALGORITHMS, PROTOCOLS)}
    path = all_a(tmp_path, extra=extra)
    with pytest.raises(TaskParameterError) as info:
        registry.load_task_file(path, export=False)
    assert re.search(message, str(info.value)), str(info.value)
    assert "all_a" not in registry.FAMILIES
    assert {lib: lib.entries() for lib in libraries} == libraries


BAD = [
    ("not a function", "CIRCUIT = 3\n", r"all_a\.py:\d+ \(CIRCUIT\): CIRCUIT must be a function"),
    ("bad basis", 'CIRCUIT = {"build": and_circuit, "basis": "nc1"}\n',
     r"basis 'nc1'; use 'ac0'"),
    ("wrong input count", "CIRCUIT = lambda n: Circuit(n + 1).set_outputs(0)\n",
     r"at n=1 the circuit has 2 inputs and 1 outputs; the task's bit encoding has 1 bits"),
    ("raises", "def boom(n):\n    raise KeyError('x')\nCIRCUIT = boom\n",
     r"all_a\.py:\d+ \(CIRCUIT\): the circuit function at n=1 raised KeyError: 'x'"),
    ("not a circuit", "CIRCUIT = lambda n: 'AND'\n", r"returned str, not a Circuit"),
    ("mpc not callable", 'MPC = "tree"\n', r"\(MPC\): MPC must be an Algorithm"),
    ("bapo returns junk", "BAPO = lambda df: [1]\n",
     r"\(BAPO\): the protocol maker must return a Protocol"),
    ("bapo breaks its bandwidth", "def wide(df):\n    p = fold(df)[0]\n    p.a = 2\n"
     "    return [p]\nBAPO = wide\n", r"\(BAPO\): at n=2: protocol all-a-fold: at split k=1 the "
     r"prefix oracle f returned an array of shape \(4, 1\), but it declares a=2 bits"),
]


@pytest.mark.parametrize("case,extra,message", BAD, ids=[b[0] for b in BAD])
def test_bad_artifacts_are_one_line_errors(tmp_path, case, extra, message):
    with pytest.raises(TaskParameterError) as info:
        registry.load_task_file(all_a(tmp_path, extra=extra), export=False)
    assert re.search(message, str(info.value)), str(info.value)


def test_a_claimed_ac0_circuit_with_a_threshold_gate_counts_for_tc0_only(tmp_path):
    extra = ('def thr(n):\n    c = Circuit(n)\n'
             '    return c.set_outputs(c.not_(c.thr(1, *range(n))))\n'
             'CIRCUIT = {"build": thr, "basis": "ac0", "description": "no b, by THR_1"}\n')
    fam = registry.load_task_file(all_a(tmp_path, "all_a_thr", extra), export=False)
    (rec,) = fam.artifacts
    assert (rec["claimed_basis"], rec["basis"], rec["columns"]) == ("ac0", "tc0", ["tc0"])
    assert rec["note"] == ("claimed AC0, but the circuit uses threshold gates (NOT, THR at "
                           "n=1): evidence for TC0 only")
    assert not builders_for("all_a_thr", "ac0")
    assert [b.description for b in builders_for("all_a_thr", "tc0")] == ["no b, by THR_1"]
    skip = AC0Theory().construction("all_a_thr", Context())
    assert isinstance(skip, RuleSkip) and "evidence for TC0 only" in skip.reason
    assert skip.evidence["supplied_outside_basis"][0]["claimed_basis"] == "ac0"


# ---- an edited file ----------------------------------------------------------------------

def test_an_edited_files_artifacts_never_serve_the_other_version(tmp_path):
    path = all_a(tmp_path, "all_a_ed")
    old = registry.load_task_file(path, export=False)
    old_task = old(n=6)
    assert len(builders_for("all_a_ed")) == 1 and protocols_for(old_task.decision_view()[0])
    # v2: another circuit (a NOR written as AND of NOTs) and no BAPO, no MPC
    path.write_text(ALL_A.format(name="all_a_ed") + "def nor(n):\n    c = Circuit(n)\n"
                    "    return c.set_outputs(c.and_(*[c.not_(i) for i in range(n)]))\n"
                    "CIRCUIT = nor\n")
    new = registry.load_task_file(path, export=False)
    assert new is not old and [r["language"] for r in new.artifacts] == ["circuit"]
    (b,) = builders_for("all_a_ed")   # looked up by name: only the new one
    assert b.source == f"{path}:{line_of(path, 'CIRCUIT = nor')} (CIRCUIT)"
    assert [a for _, a in BUILDERS.for_task(old_task)] == []   # nor the new for the old
    assert BUILDERS.for_task(new(n=6))[0][1] is b
    assert not PROTOCOLS.for_task(new(n=6)) and not MPC_ALGORITHMS.for_task("all_a_ed")
    # v3: no artifact at all - the v2 circuit goes too
    path.write_text(ALL_A.format(name="all_a_ed"))
    assert registry.load_task_file(path, export=False).artifacts == ()
    assert builders_for("all_a_ed") == []
