"""The C-RASP -> transformer compiler: every library program compiles and matches the
interpreter (every definition, every position, acceptance) on every input of length
<= n; refused nodes are named with their line; a broken weight is caught."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from theorybench.constructions.compiler import compile_program, verify_compiled
from theorybench.constructions.model import SetTransformer
from theorybench.errors import ProgramError
from theorybench.formal.crasp import library, parse

LIBRARY = sorted(library())


@pytest.mark.parametrize("name", LIBRARY)
def test_library_program_matches_interpreter_on_every_input(name):
    prog = library()[name].program
    comp = compile_program(prog, 9)
    cert = verify_compiled(prog, comp, "exhaustive")
    assert cert.status == "verified" and cert.inputs == 2 ** 10 - 2, cert.details
    assert cert.observed_margin > 0.49
    assert all(l.uniform_heads() == [True] * l.heads for l in comp.weights.layers)


@pytest.mark.parametrize("name", ["majority", "dyck1", "sparse_parity"])
def test_interval_and_samples_to_256(name):
    prog = library()[name].program
    assert verify_compiled(prog, compile_program(prog, 7), "interval").status == "proved"
    cert = verify_compiled(prog, compile_program(prog, 256), "sampled",
                           np.random.default_rng(0), 40)
    assert cert.status == "verified" and cert.inputs == 40


@pytest.mark.slow
@pytest.mark.parametrize("name", LIBRARY)
def test_ten_thousand_samples_to_256(name):
    prog = library()[name].program
    cert = verify_compiled(prog, compile_program(prog, 256), "sampled",
                           np.random.default_rng(0), 10_000)
    assert cert.status == "verified" and cert.inputs == 10_000


def test_hand_written_program_with_min_max_and_constants():
    prog = parse('// alphabet: a b\nA = # "a"\nB = # "b"\nm = min(A, 2 * B) + max(A - B, 1)\n'
                 'out = m >= 3 && !(A == B) || "<eos>" && B > 4\n')
    comp = compile_program(prog, 8)
    assert verify_compiled(prog, comp, "exhaustive").status == "verified"


@pytest.mark.parametrize("text,line,words", [
    ('#import prev\nx = #[prev] "a"\ny = x > 0\n', 1, "#import prev"),
    ('x = # "a"\ny = 1 if x > 0 else 0\nz = y > 0\n', 2, "conditional"),
    ('#import first\nx = # first\ny = x > 0\n', 1, "#import first"),
    # validated first, as by every consumer: the validator's message, not the compiler's
    ('x = # "a"\n', 1, "is a count; it must be Boolean"),
])
def test_refused_nodes_name_the_line(text, line, words):
    with pytest.raises(ProgramError) as exc:
        compile_program(parse(text, "p.cr"), 4)
    assert exc.value.problems[0].line == line and words in str(exc.value)
    assert str(exc.value).startswith("p.cr:")


@pytest.mark.parametrize("text,line,col,words", [
    # before: compiled and saved although run and lint refuse it
    ('a = # "1"\na = # "0"\nout = a > 0\n', 2, 1, "a is defined twice"),
    # before: KeyError tracebacks
    ("", 1, 1, "no definitions"),
    ("// only a comment\n", 1, 1, "no definitions"),
    # before: "the name 'x' (an imported predicate) is not supported"
    ("out = x > 0\n", 1, 7, "x is not defined"),
    ("a = b\nb = a\nout = a\n", 1, 1, "definitions form a cycle: a -> b -> a"),
])
def test_invalid_programs_get_the_validators_error(text, line, col, words):
    with pytest.raises(ProgramError) as exc:
        compile_program(parse(text, "p.cr"), 4)
    p = exc.value.problems[0]
    assert (p.line, p.column) == (line, col) and words in p.message
    assert "imported predicate" not in str(exc.value)


def test_forward_references_compile_in_dependency_order():
    # valid C-RASP (definitions may refer forwards); before: refused as "an imported predicate"
    prog = parse('b = c > 0\nc = # "1"\nout = b && !"0"\n', "fwd.cr")
    comp = compile_program(prog, 5, alphabet=("0", "1"))
    assert verify_compiled(prog, comp, "exhaustive").status == "verified"


def _broken(comp):
    w = comp.weights.copy()
    w.layers[0].wv[0][w.layers[0].wv[0] != 0] *= 0.5      # the first count halved
    return dataclasses.replace(comp, weights=w)


@pytest.mark.parametrize("method", ["exhaustive", "interval"])
def test_broken_weight_caught(method):
    prog = library()["majority"].program
    bad = verify_compiled(prog, _broken(compile_program(prog, 6)), method)
    assert not bad.ok and "counterexample" in bad.details


def test_cli_program(cli, tmp_path):
    path = tmp_path / "m.pt"
    rc, out, err = cli("construct", "--program", "dyck1", "--n", "8", "--verify",
                       "exhaustive", "--out", path)
    assert rc == 0 and "VERIFIED" in out and "shape: 3 layer(s)" in out, err
    m = SetTransformer.from_bundle(torch.load(path, weights_only=True))
    ids = {"(": 0, ")": 1, "<eos>": 2}
    for word, want in [("( ( ) )", True), ("( ) ) (", False)]:
        x = torch.tensor([[ids[t] for t in word.split()] + [2]])
        assert (m(x).item() > 0) == want
    rc, _, err = cli("construct", "--program", "majority", "--n", "40", "--verify",
                     "exhaustive")
    assert rc == 2 and "--verify sampled" in err
    rc, _, err = cli("construct", "majority", "--program", "majority", "--n", "3")
    assert rc == 2 and "not both" in err
