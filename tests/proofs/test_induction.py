"""Proofs for every length of C-RASP programs by induction: library programs proved,
buggy programs refuted with their shortest counterexample, and the parts the proof rests
on (the translation into a counter machine, the specification machines) checked against
the interpreter and the task references."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from theorybench import tasks
from theorybench.formal import crasp
from theorybench.proofs import prove_crasp
from theorybench.proofs.counter_machines import (NotACounterMachine, ProgramMachine,
                                                 SpecMachine, spec_for)
from theorybench.proofs.induction import check_spec, check_translation

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "formal", "crasp"))
from test_crasp_random import ALPHABET, expr  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from theorybench.formal.crasp import ast as A  # noqa: E402


@st.composite
def counter_programs(draw):
    """Random programs without positional imports or guards (the interpreter's generator
    with those two features left out)."""
    env = {"bool": [], "count": []}
    statements = []
    for i in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["bool", "count"]))
        statements.append(A.Assign(f"d{i}", expr(draw, kind, 3, env, [])))
        env[kind].append(f"d{i}")
    statements.append(A.Assign("out", expr(draw, "bool", 3, env, [])))
    return A.Program(tuple(statements))


def lib(name, family, **params):
    n = next(p for p in tasks.family(family).params if p.name == "n").default
    return crasp.library()[name].instantiate(tasks.get(family, n=n, **params))


@pytest.mark.parametrize("name, family, params", [
    ("majority", "majority", {}), ("dyck1", "dyck", {"k": 1}), ("all", "all", {}),
    ("any", "any", {}), ("dyck_bounded1", "dyck_bounded", {"k": 1, "D": 2}),
    ("dyck_bounded1", "dyck_bounded", {"k": 1, "D": 3}),
])
def test_library_programs_are_proved_for_every_length(name, family, params):
    res = prove_crasp(lib(name, family, **params), family, params)
    assert res.status == "proved", res.reason
    assert res.invariant and res.spec_check_n >= 10 and res.translation_len >= 8


def test_dyck_without_the_prefix_condition_gives_the_shortest_counterexample():
    bug = crasp.parse('// alphabet: ( )\nC_open = # "("\nC_close = # ")"\n'
                      'B = (C_open == C_close)\n')
    res = prove_crasp(bug, "dyck", {"k": 1})
    assert res.status == "counterexample" and res.counterexample == ") ("


def test_a_bug_past_the_exhaustive_search_is_found_by_bounded_model_checking():
    # right at every length except n = 15 (the end marker is position 16)
    late = crasp.parse('// alphabet: 0 1\nones = # "1"\nzeros = # "0"\nhere = # true\n'
                       'm = ones > zeros\nt = here == 16\nout = (m && !t) || (!m && t)\n')
    res = prove_crasp(late, "majority", search_len=8)
    assert res.status == "counterexample"
    word = res.counterexample
    assert len(word.split()) == 15
    task = tasks.get("majority", n=15)
    assert bool(crasp.run(late, [word]).accept[0]) != bool(task.label(task.parse(word)[None])[0])


def test_a_right_program_is_not_refuted_and_a_wrong_one_is_never_proved():
    # majority's program decides parity nowhere near: refuted, never "proved"
    res = prove_crasp(lib("majority", "majority"), "parity")
    assert res.status == "counterexample"


def test_positional_programs_are_not_counter_machines():
    prog = crasp.parse('#import pos_even\n// alphabet: 0 1\nout = pos_even && "1"\n')
    with pytest.raises(NotACounterMachine, match="line 1"):
        ProgramMachine.of(prog)
    res = prove_crasp(prog, "any")
    assert res.status == "unknown" and "positional" in res.reason


def test_a_task_without_a_specification_is_unknown_with_the_list():
    res = prove_crasp(lib("majority", "majority"), "index")
    assert res.status == "unknown" and "majority" in res.reason


@pytest.mark.parametrize("family, params", [
    ("majority", {}), ("all", {}), ("any", {}), ("parity", {}), ("dyck", {"k": 1}),
    ("dyck_bounded", {"k": 1, "D": 1}), ("dyck_bounded", {"k": 1, "D": 3}),
])
def test_specification_machines_equal_the_task_references(family, params):
    assert check_spec(spec_for(family, params), family, params, 12) >= 10


def test_a_wrong_specification_is_rejected():
    good = spec_for("majority")
    wrong = SpecMachine(good.family, good.alphabet, good.registers, good.init, good.step,
                        lambda ops, s: s["d"] >= -1, good.valid_length, "wrong")
    with pytest.raises(AssertionError, match="disagrees"):
        check_spec(wrong, "majority", {}, 9)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(counter_programs())
def test_counter_machine_translation_equals_the_interpreter(program):
    assert check_translation(ProgramMachine.of(program), ALPHABET, 5) == 5


def test_translation_rows_equal_interpreter_on_random_long_words():
    prog = lib("dyck1", "dyck", k=1)
    machine = ProgramMachine.of(prog)
    words = np.random.default_rng(3).integers(0, 2, size=(300, 40))
    strings = [" ".join("()"[i] for i in w) for w in words]
    assert np.array_equal(machine.accepts(words, ("(", ")")),
                          np.asarray(crasp.run(prog, strings).accept))


def test_cli_prove_exit_codes_and_json(cli):
    code, out, _ = cli("crasp", "prove", "dyck1", "--task", "dyck:k=1")
    assert code == 0 and "PROVED for every length" in out and "invariant" in out
    code, out, _ = cli("crasp", "prove", "majority", "--task", "parity", "--format", "json")
    assert code == 1 and json.loads(out)["counterexample"] == "0 1"
    code, out, _ = cli("crasp", "prove", "sparse_any", "--task", "sparse_any")
    assert code == 3 and "UNKNOWN" in out
    code, _, err = cli("crasp", "prove", "majority", "--task", "majority", "--search-len", "0")
    assert code == 2 and "--search-len" in err

