"""A .cr/.br program as the task (tasks/user_program.py) and programs supplied with a task
file (formal/user_artifacts.py): labels against independent numpy oracles, identity,
fragments, the check before any rule uses a program, and bad program files."""

from __future__ import annotations

import hashlib
import itertools
import pathlib
import re
import textwrap

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import TaskParameterError
from theorybench.formal.brasp.programs import PROGRAMS as BRASP_PROGRAMS
from theorybench.formal.brasp.programs import for_task as brasp_for_task
from theorybench.formal.crasp.programs import PROGRAMS as CRASP_PROGRAMS
from theorybench.formal.crasp.programs import for_task as crasp_for_task
from theorybench.tasks import registry
from theorybench.tasks.user import load_family, split_file_ref
from theorybench.tasks.user_checks import full_check

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks"


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    """Registrations, library entries and THEORYBENCH_TASKS do not leak into other tests."""
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped(), CRASP_PROGRAMS.scoped(), BRASP_PROGRAMS.scoped():
        yield


def write(tmp_path, text: str, name: str) -> pathlib.Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def all_words(k: int, n: int) -> np.ndarray:
    return np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64)


def anbncn_oracle(x: np.ndarray) -> np.ndarray:
    """a^m b^m c^m, m >= 1, by counting and sortedness (no automaton, no counts of prefixes)."""
    counts = np.stack([(x == t).sum(axis=1) for t in range(3)], axis=1)
    sorted_ = np.all(np.diff(x, axis=1) >= 0, axis=1)
    return (sorted_ & (counts[:, 0] == counts[:, 1]) & (counts[:, 1] == counts[:, 2])
            & (counts[:, 0] > 0)).astype(np.int64)


# ---- a program as the task ---------------------------------------------------------------

def test_anbncn_example_is_exactly_the_language_up_to_length_9():
    fam = load_family(EXAMPLES / "anbncn.cr")
    assert (fam.name, fam.alphabet, fam.lengths) == ("anbncn", ("a", "b", "c"), (1, 30))
    assert fam.definition == "C-RASP" and fam.fragment == "C-RASP"
    accepted = []
    for n in range(1, 10):
        x = all_words(3, n)
        y = fam(n=n).label(x)
        assert np.array_equal(y, anbncn_oracle(x)), n
        accepted += [fam(n=n).render(r) for r in x[y == 1]]
    assert accepted == ["a b c", "a a b b c c", "a a a b b b c c c"]


def test_program_task_identity_is_the_program_text(tmp_path):
    path = tmp_path / "anbncn.cr"
    path.write_text((EXAMPLES / "anbncn.cr").read_text())
    first = registry.load_task_file(path)
    assert first.definition_digest == hashlib.sha256(path.read_bytes()).hexdigest()
    assert split_file_ref(f"{path}:n=3") == (str(path), ":n=3")
    assert tasks.family(str(path)) is first
    path.write_text(path.read_text() + "// edited\n")
    second = registry.load_task_file(path)
    assert second is not first and second.definition_digest != first.definition_digest


def test_program_task_sampling_is_balanced_where_the_space_is_small():
    fam = load_family(EXAMPLES / "anbncn.cr")
    batch = fam(n=9).sample(np.random.default_rng(0), 200)
    assert batch.labels.sum() == 100   # the one word a^3 b^3 c^3, half of the rows
    assert (anbncn_oracle(batch.tokens) == batch.labels).all()
    with pytest.raises(TaskParameterError, match=r"too rare at n=16.*at most 65,536 inputs"):
        fam(n=16).sample(np.random.default_rng(0), 8)


def test_task_check_of_a_program_compares_it_with_the_naive_interpreter():
    fam = load_family(EXAMPLES / "anbncn.cr")
    done, warnings = full_check(fam, np.random.default_rng(0), 200)
    assert any("oracle agrees" in d for d in done)
    assert any("no balanced sample at n=16" in w for w in warnings)


def test_brasp_program_task_against_numpy(tmp_path):
    path = write(tmp_path, """
        // name: a_then_final_b
        // lengths: 1 12
        // an a somewhere before a final b
        alphabet "a" "b"
        a_before = rightmost j < i ["a"(j)] true : false
        out = "b" && a_before
        """, "ends.br")
    fam = load_family(path)
    assert (fam.name, fam.alphabet, fam.fragment) == ("a_then_final_b", ("a", "b"), "B-RASP")
    assert fam.summary == "an a somewhere before a final b"
    for n in range(1, 9):
        x = all_words(2, n)
        want = (x[:, -1] == 1) & ((x[:, :-1] == 0).any(axis=1))
        assert np.array_equal(fam(n=n).label(x), want.astype(np.int64)), n


# ---- programs supplied with a task file --------------------------------------------------

TASK = '''
NAME = "has_a"
ALPHABET = ("a", "b")
LENGTHS = (1, 16)


def label(x):
    return (x == 0).any(axis=1)
'''
GOOD = '// alphabet: a b\nseen = # "a"\nout = seen > 0\n'


def with_crasp(task: str, program: str) -> str:
    return task + f"CRASP = {program!r}\n"


def test_a_checked_program_serves_its_task_only(tmp_path):
    path = write(tmp_path, with_crasp(TASK, GOOD), "has_a.py")
    fam = registry.load_task_file(path)
    (rec,) = fam.artifacts
    assert rec["fragment"] == "C-RASP" and rec["columns"] == ["crasp"]
    assert rec["exhaustive_up_to"] == 14 and rec["verified_up_to"] == 16
    program, origin = crasp_for_task(fam(n=8))
    assert "has_a.py:8" in origin and program.output == "out"
    # the edited file (its program removed) is a new class: the old program is stale
    path.write_text(TASK)
    edited = registry.load_task_file(path)
    assert edited is not fam and edited.artifacts == ()
    assert crasp_for_task(edited(n=8), searched=False) is None


def test_a_wrong_program_is_refused_at_load_naming_the_input(tmp_path):
    wrong = GOOD.replace("seen > 0", "seen > 1")
    path = write(tmp_path, with_crasp(TASK, wrong), "has_a.py")
    with pytest.raises(TaskParameterError) as info:
        registry.load_task_file(path)
    msg = str(info.value)
    assert re.search(r"has_a\.py:8 \(CRASP\): the C-RASP program supplied for the task "
                     r"disagrees with its label at n=1 on 'a': label 1, program 0", msg), msg
    assert "has_a" not in registry.FAMILIES
    assert not [e for e in CRASP_PROGRAMS.entries() if e.families == ("has_a",)]


def test_a_program_with_an_import_is_recorded_but_not_crasp_evidence(tmp_path):
    local = '// alphabet: a b\n#import first\nf = # ("a" && first)\nout = f == 1\n'
    path = write(tmp_path, with_crasp(TASK.replace("(x == 0).any(axis=1)", "x[:, 0] == 0")
                                      .replace("has_a", "first_a"), local), "first_a.py")
    fam = registry.load_task_file(path)
    (rec,) = fam.artifacts
    assert rec["fragment"] == "C-RASP[periodic, local]" and rec["columns"] == []
    assert crasp_for_task(fam(n=6), searched=False) is None


def test_a_sibling_program_file_is_used(tmp_path):
    write(tmp_path, TASK, "has_a.py")
    write(tmp_path, """
        alphabet "a" "b"
        seen = rightmost j < i ["a"(j)] true : false
        out = seen || "a"
        """, "has_a.br")
    fam = registry.load_task_file(tmp_path / "has_a.py")
    (rec,) = fam.artifacts
    assert rec["language"] == "B-RASP" and rec["origin"] == str(tmp_path / "has_a.br")
    name, _ = brasp_for_task(fam(n=5), positional=False)
    assert name == "has_a.br"


def test_a_positional_brasp_program_serves_the_pos_column_only(tmp_path):
    write(tmp_path, TASK.replace("(x == 0).any(axis=1)", "x[:, 0] == 0")
          .replace("has_a", "first_a"), "first_a.py")
    write(tmp_path, """
        alphabet "a" "b"
        fa = leftmost j [j == 1] "a"(j) : false
        out = fa
        """, "first_a.br")
    fam = registry.load_task_file(tmp_path / "first_a.py")
    assert fam.artifacts[0]["fragment"] == "B-RASP[pos]"
    assert brasp_for_task(fam(n=5), positional=False, searched=False) is None
    assert brasp_for_task(fam(n=5), positional=True)[0] == "first_a.br"


# ---- bad program files: each a clear error with the file's line --------------------------

BAD = [
    ("no alphabet", "x.cr", 'c = # "a"\nout = c > 0\n',
     r"x\.cr: the program declares no alphabet: add a line `// alphabet: a b c`"),
    ("syntax error", "x.cr", '// alphabet: a b\nc = # "a" +\nout = c > 0\n',
     r"x\.cr:2:\d+: "),
    ("token outside the alphabet", "x.cr", '// alphabet: a b\nc = # "z"\nout = c > 0\n',
     r'x\.cr:2:\d+: token "z" is not in the alphabet'),
    ("lengths out of order", "x.cr", '// alphabet: a b\n// lengths: 9 2\nout = # "a" > 0\n',
     r"x\.cr:2: `// lengths: 9 2` is out of order; write `// lengths: 2 9`"),
    ("lengths not numbers", "x.cr", '// alphabet: a b\n// lengths: short\nout = # "a" > 0\n',
     r"x\.cr:2: `// lengths: short` must be two integers"),
    ("duplicate token", "x.cr", '// alphabet: a b a\nout = # "a" > 0\n',
     r"x\.cr:1: token 'a' appears twice"),
    ("bad name", "x.cr", '// name: 9lives\n// alphabet: a b\nout = # "a" > 0\n',
     r"x\.cr:1: the task name '9lives' is not a word"),
    ("shadows a built-in", "x.cr", '// name: parity\n// alphabet: 0 1\nout = # "1" > 0\n',
     r"x\.cr:1: NAME 'parity' is a built-in task family"),
    ("brasp alphabets differ", "x.br", '// alphabet: a b\nalphabet "a" "c"\nout = "a"\n',
     r"x\.br:1: `// alphabet: a b` and the program's own alphabet \(a c\) differ"),
    ("not UTF-8", "x.cr", b"// alphabet: a b\nout = # \"\xff\" > 0\n",
     r"x\.cr: the program is not UTF-8 text"),
]


@pytest.mark.parametrize("case,name,text,message", BAD, ids=[b[0] for b in BAD])
def test_bad_program_files(tmp_path, case, name, text, message):
    path = tmp_path / name
    (path.write_bytes if isinstance(text, bytes) else path.write_text)(text)
    with pytest.raises(TaskParameterError) as info:
        registry.load_task_file(path)
    assert re.search(message, str(info.value)), str(info.value)


def test_bad_supplied_programs(tmp_path):
    path = write(tmp_path, TASK + 'CRASP = "nope.cr"\n', "has_a.py")
    with pytest.raises(TaskParameterError, match=r"has_a\.py:8: CRASP = 'nope\.cr': no such "
                       "program file beside the task file"):
        registry.load_task_file(path)
    path = write(tmp_path, TASK + "CRASP = 3\n", "has_a.py")
    with pytest.raises(TaskParameterError, match=r"has_a\.py:8: CRASP must be program text"):
        registry.load_task_file(path)
    path = write(tmp_path, with_crasp(TASK, '// alphabet: a b\nout = # "a" >\n'), "has_a.py")
    with pytest.raises(TaskParameterError, match=r"has_a\.py:8 \(CRASP\):2:\d+"):
        registry.load_task_file(path)


def test_a_fresh_process_loads_a_program_task_and_its_checker(tmp_path):
    """What a pool worker does: only THEORYBENCH_TASKS names the program; the language
    (formal/program_task.py) and the artifact checker are loaded by their registries."""
    import os
    import subprocess
    import sys
    write(tmp_path, TASK, "has_a.py")
    write(tmp_path, GOOD, "has_a.cr")
    env = {**os.environ, registry.ENV: os.pathsep.join([str(EXAMPLES / "anbncn.cr"),
                                                        str(tmp_path / "has_a.py")])}
    code = ("import numpy as np; from theorybench import tasks; "
            "t = tasks.get('anbncn', n=6); "
            "print(t.label(np.array([[0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 2, 2]])).tolist(), "
            "[a['fragment'] for a in tasks.family('has_a').artifacts])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1, 0] ['C-RASP']"


def test_a_program_of_a_task_with_params_serves_the_default_variant_only(tmp_path):
    path = write(tmp_path, TASK.replace("LENGTHS = (1, 16)", 'LENGTHS = (1, 16)\nPARAMS = '
                                        '{"k": (1, 3, 1)}').replace(
        "def label(x):\n    return (x == 0).any(axis=1)",
        "def label(x, k=1):\n    return (x == 0).sum(axis=1) >= k"), "has_a.py")
    write(tmp_path, GOOD, "has_a.cr")           # "at least one a": right for k = 1 only
    registry.load_task_file(path)
    supplied = str(tmp_path / "has_a.cr")
    assert crasp_for_task(tasks.get(f"{path}", n=6))[1] == supplied
    other = crasp_for_task(tasks.get(f"{path}:k=2", n=6))   # none, or one found elsewhere
    assert other is None or other[1] != supplied


def test_task_check_lists_the_supplied_programs(cli, tmp_path):
    write(tmp_path, TASK, "has_a.py")
    write(tmp_path, GOOD, "has_a.cr")
    code, out, err = cli("task", "check", tmp_path / "has_a.py")
    assert code == 0, err
    assert (f"ok: C-RASP program {tmp_path / 'has_a.cr'} (C-RASP) agrees with label on every "
            "input up to n=14 and on samples up to n=16; evidence for: crasp") in out
