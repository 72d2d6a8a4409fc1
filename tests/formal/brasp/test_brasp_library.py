"""Every shipped B-RASP program against its task; the files equal their recipes."""

import pytest

from theorybench import tasks
from theorybench.errors import ProgramError, VerificationError
from theorybench.formal.brasp import ast as A
from theorybench.formal.brasp.check import check_against_task
from theorybench.formal.brasp.parser import parse
from theorybench.formal.brasp.programs import (for_task, index_program, khop_program, library,
                                                 load_program, sparse_program)


def _params(entry) -> dict:
    return {k: v for k, v in entry.requires if v != ""}


@pytest.mark.parametrize("name", sorted(library()))
def test_library_program_decides_its_task(name):
    entry = library()[name]
    # all inputs up to the enumeration limit, samples beyond
    res = check_against_task(entry.program, entry.family, _params(entry), max_n=9)
    assert res.ok, res.counterexample
    assert any(c["exhaustive"] for c in res.checked)


def test_library_files_are_their_recipes():
    lib = library()
    for op in ("all", "any", "parity"):
        assert lib[f"sparse_{op}"].program == sparse_program(op, (1, 2, 3), False)
        assert lib[f"sparse_{op}_pos"].program == sparse_program(op, (1, 2, 3), True)
    assert lib["index_pos"].program == index_program("all", 1)
    for op in ("all", "any", "parity"):
        assert lib[f"index_{op}_pos"].program == index_program(op, 3)
    for k in (1, 2, 3):
        assert lib[f"khop{k}"].program == khop_program(k)


@pytest.mark.parametrize("fam,params", [
    ("sparse_any", {"k": 2, "positions": "2,5"}), ("sparse_parity", {"k": 4}),
    ("index_any", {"k": 2}), ("index_parity", {"k": 1}), ("khop", {"k": 2})])
def test_recipes_for_other_parameters(fam, params):
    for positional in (False, True):
        got = for_task(tasks.get(fam, n=7, **params), positional)
        if got is None:
            assert not positional and fam.startswith("index")
            continue
        res = check_against_task(got[1], fam, params, max_n=8)
        assert res.ok, (got[0], res.counterexample)


def test_sizes_do_not_grow_with_n():
    sizes = {A.to_text(for_task(tasks.get("khop", n=n, k=2), False)[1]) for n in (4, 8, 16)}
    assert len(sizes) == 1
    prog = khop_program(3)
    assert A.depth(prog) == 4 and A.size(prog)["operations"] == 16


def test_check_finds_counterexamples():
    res = check_against_task(sparse_program("all", (1, 2, 3), False), "sparse_any", max_n=6)
    assert not res.ok and res.counterexample["n"] == 4
    bad = res.counterexample
    x = [int(t) for t in bad["input"].split()]
    assert bad["expected"] == str(int(any(x[:3]))) != bad["program"]
    res = check_against_task(khop_program(1), "khop", {"k": 2}, max_n=8)
    assert not res.ok


def test_binary_program_on_multi_valued_task_is_refused():
    with pytest.raises(VerificationError, match="multi-valued program"):
        check_against_task(parse('x = "a"\n'), "khop", max_n=4)


def test_load_program_errors():
    with pytest.raises(ProgramError, match="not a library program"):
        load_program("no_such_program")
