"""Library programs tried on a task under every renaming of its letters: matched on
behaviour (never on names), checked against an oracle written here."""

import itertools
import textwrap

import numpy as np

from theorybench import tasks
from theorybench.formal import crasp
from theorybench.formal.crasp.programs import for_task, library, rename, renamed_library
from theorybench.tasks.registry import load_task_file


def task_file(tmp_path, name, alphabet, body):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""\
        import numpy as np
        NAME = "{name}"
        ALPHABET = {alphabet!r}
        LENGTHS = (1, 40)
        def label(x):
        """) + textwrap.indent(textwrap.dedent(body), "    "))
    return load_task_file(path, export=False)


def depth_oracle(word: str, up: str, bound: int) -> bool:
    depth = 0
    for c in word:
        depth += 1 if c == up else -1
        if depth < 0 or depth > bound:
            return False
    return depth == 0


def test_bounded_dyck_over_other_letters_finds_the_library_program(tmp_path):
    # depth <= 3 with "b" opening and "a" closing: the library's dyck_bounded1 program at
    # its point D = 3, its letters ( ) renamed to b a
    fam = task_file(tmp_path, "deep3", ("a", "b"), """\
        d = np.cumsum(np.where(x == 1, 1, -1), axis=1)
        return (d >= 0).all(axis=1) & (d <= 3).all(axis=1) & (d[:, -1] == 0)
        """)
    task = tasks.get(fam.name, n=6)
    got = renamed_library(task)
    assert got is not None
    prog, origin = got
    assert "dyck_bounded1" in origin and "D=3" in origin and "( -> b" in origin
    for m in range(1, 13):
        words = ["".join(w) for w in itertools.product("ab", repeat=m)]
        want = np.array([depth_oracle(w, "b", 3) for w in words])
        out = crasp.run(prog, [list(w) for w in words], alphabet=("a", "b")).accept
        assert np.array_equal(np.asarray(out, dtype=bool), want), m
    assert for_task(task)[1] == origin           # for_task uses it before the search


def test_rename_round_trip_and_no_match(tmp_path):
    prog = library()["dyck1"].program
    there = rename(prog, {"(": "x", ")": "y"})
    assert set(there.tokens()) == {"x", "y"}
    assert rename(there, {"x": "(", "y": ")"}) == prog
    fam = task_file(tmp_path, "first_b_lib", ("a", "b"), "return x[:, 0] == 1\n")
    assert renamed_library(tasks.get(fam.name, n=6)) is None
