"""Task files (theorybench/tasks/user.py): loading, the shipped examples, sampling, the
digest, THEORYBENCH_TASKS and entry points, and every bad input of issue 28 as a clear
error with the file's line."""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

from theorybench import tasks
from theorybench.errors import ConfigError, TaskParameterError
from theorybench.tasks import registry
from theorybench.tasks.user import load_family, split_file_ref
from theorybench.tasks.user_checks import full_check

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks"


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    """Registrations and the exported THEORYBENCH_TASKS do not leak into other tests."""
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped():
        yield


def write(tmp_path, text: str, name: str = "t.py") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


HEAD = 'NAME = "tiny"\nALPHABET = ("a", "b")\nLENGTHS = (2, 8)\n'


# ---- the shipped examples ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["mod3", "contains_ab", "first_eq_last", "prefix_parity"])
def test_examples_load_and_pass_the_full_check(name):
    cls = registry.load_task_file(EXAMPLES / f"{name}.py")
    assert cls.name == name and tasks.family(name) is cls
    assert registry.FAMILIES.origin(name) == str((EXAMPLES / f"{name}.py").resolve())
    done, warnings = full_check(cls, np.random.default_rng(1), count=200)
    assert warnings == [] and done


def words(k: int, n: int) -> np.ndarray:
    return np.array(list(itertools.product(range(k), repeat=n)), dtype=np.int64)


def test_examples_compute_their_definitions():
    mod3 = registry.load_task_file(EXAMPLES / "mod3.py")
    x = words(2, 7)
    assert np.array_equal(mod3(n=7).label(x), ((x == 0).sum(1) % 3 == 0).astype(int))
    assert np.array_equal(mod3(n=7, k=5).label(x), ((x == 0).sum(1) % 5 == 0).astype(int))
    ab = registry.load_task_file(EXAMPLES / "contains_ab.py")
    x = words(3, 6)
    text = ["".join("abc"[t] for t in row) for row in x]
    assert ab(n=6).label(x).tolist() == [int("ab" in s) for s in text]
    fel = registry.load_task_file(EXAMPLES / "first_eq_last.py")
    x = words(2, 5)
    assert fel(n=5).label(x).tolist() == (x[:, 0] == x[:, -1]).astype(int).tolist()


def test_per_position_example_labels_every_position():
    cls = registry.load_task_file(EXAMPLES / "prefix_parity.py")
    task = cls(n=6)
    batch = task.sample(np.random.default_rng(0), 50)
    assert batch.labels.shape == (50, 6) and batch.mask.all()
    assert np.array_equal(batch.labels, batch.tokens.cumsum(1) % 2)
    view = task.decision_view()[0]
    x = words(2, 6)
    assert np.array_equal(view.evaluate(x), x.sum(1) % 2)


def test_path_with_parameters_is_a_task_reference():
    ref = tasks.TaskRef.parse(f"{EXAMPLES / 'mod3.py'}:k=5")
    assert ref == "mod3:k=5" and ref.build(n=4).k == 5
    assert tasks.parse_refs(f"khop:k=2,{EXAMPLES / 'mod3.py'}") == ["khop:k=2", "mod3"]
    assert split_file_ref("khop:k=2") is None
    assert split_file_ref("./a.py:k=3") == ("./a.py", ":k=3")
    with pytest.raises(TaskParameterError, match="k=9 is too large"):
        tasks.TaskRef.parse(f"{EXAMPLES / 'mod3.py'}:k=9")


def test_loading_exports_the_file_for_pool_workers():
    registry.load_task_file(EXAMPLES / "mod3.py")
    assert str((EXAMPLES / "mod3.py").resolve()) in os.environ[registry.ENV].split(os.pathsep)


# ---- the automaton and sampling ---------------------------------------------------------

def test_regex_automaton_agrees_with_python_re(tmp_path):
    pats = ["(a|b)*ab(a|b)*", "a*b?", "(ab|b)+", "[^a]*a.", "(a|)(b|)", "a(b|c)*a|c"]
    for i, pat in enumerate(pats):
        path = write(tmp_path, f'NAME = "r{i}"\nALPHABET = ("a", "b", "c")\n'
                               f'LENGTHS = (1, 9)\nREGEX = "{pat}"\n', f"r{i}.py")
        cls = load_family(path)
        for n in range(1, 6):
            x = words(3, n)
            want = [int(re.fullmatch(pat, "".join("abc"[t] for t in r)) is not None) for r in x]
            assert cls(n=n).label(x).tolist() == want, (pat, n)


def test_dfa_task_and_its_oracle(tmp_path):
    path = write(tmp_path, HEAD + 'DFA = {"start": "e", "accept": ["o"], "delta": '
                 '{"e": {"a": "o", "b": "e"}, "o": {"a": "e", "b": "o"}}}\n')
    task = load_family(path)(n=6)
    x = words(2, 6)
    assert np.array_equal(task.label(x), ((x == 0).sum(1) % 2))
    assert np.array_equal(task.oracle(x), task.label(x))


def test_rare_class_is_balanced_exactly_through_the_automaton(tmp_path):
    task = load_family(write(tmp_path, HEAD + 'REGEX = "a*"\n'))(n=8)   # 1 word in 256
    batch = task.sample(np.random.default_rng(0), 400)
    assert batch.labels.sum() == 200
    assert (batch.tokens[batch.labels == 1] == 0).all()


def test_rare_class_is_balanced_by_rejection_for_a_label(tmp_path):
    path = write(tmp_path, HEAD.replace("(2, 8)", "(2, 12)") +
                 "def label(x):\n    return x.sum(axis=1) % 7 == 0\n")
    task = load_family(path)(n=12)
    exact = sum(math.comb(12, w) for w in (0, 7)) / 2 ** 12   # the decision is exact here
    assert task.share_of_ones() == exact
    batch = task.sample(np.random.default_rng(0), 300)
    assert abs(batch.labels.mean() - 0.5) < 0.01
    assert np.array_equal(batch.labels, (batch.tokens.sum(1) % 7 == 0).astype(int))


def test_too_rare_to_balance_says_give_sample(tmp_path):
    path = write(tmp_path, HEAD.replace("(2, 8)", "(2, 60)") +
                 "def label(x):\n    return x.sum(axis=1) == 0\n")
    with pytest.raises(TaskParameterError, match=r"t\.py:4: one label is too rare.*sample"):
        load_family(path)(n=60).sample(np.random.default_rng(0), 10)


def test_file_sample_params_and_valid(tmp_path):
    path = write(tmp_path, HEAD + textwrap.dedent("""
        PARAMS = {"k": (1, 3)}
        def VALID(n):
            return n % 2 == 0
        def label(x, k=1):
            return x[:, :k].sum(axis=1) == 0
        def sample(rng, count, n, k=1):
            return rng.integers(0, 2, size=(count, n))
        """))
    cls = load_family(path)
    assert cls.valid_ns(2, 8) == [2, 4, 6, 8] and not cls.accepts(n=3)
    task = cls(n=4, k=2)
    b = task.sample(np.random.default_rng(0), 100)
    assert np.array_equal(b.labels, (b.tokens[:, :2].sum(1) == 0).astype(int))
    with pytest.raises(TaskParameterError, match="n=5 is not valid"):
        cls(n=5)


# ---- identity ---------------------------------------------------------------------------

def test_digest_same_file_same_class_and_edit_replaces(tmp_path, monkeypatch):
    path = write(tmp_path, HEAD + "def label(x):\n    return x[:, 0] == 0\n")
    first = registry.load_task_file(path)
    assert first.definition_digest == hashlib.sha256(path.read_bytes()).hexdigest()
    with monkeypatch.context() as m:  # unchanged: found by path and digest, not imported again
        m.setattr(registry, "load_family", lambda p: pytest.fail("imported twice"))
        assert registry.load_task_file(path) is first
    path.write_text(path.read_text() + "# edited\n")
    second = registry.load_task_file(path)
    assert second is not first and second.definition_digest != first.definition_digest
    assert tasks.family("tiny") is second


def test_run_spec_keys_on_the_digest_only_for_task_files(tmp_path):
    from theorybench.experiments.spec import RunSpec
    builtin = RunSpec(line="in_distribution", task="parity", n=8)
    assert "definition" not in builtin.to_dict()
    path = write(tmp_path, HEAD + "def label(x):\n    return x[:, 0] == 0\n")
    registry.load_task_file(path)
    spec = RunSpec(line="in_distribution", task="tiny", n=4)
    assert spec.to_dict()["definition"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert RunSpec.from_dict(spec.to_dict()).key == spec.key
    path.write_text(path.read_text() + "# edited\n")
    registry.load_task_file(path)
    assert RunSpec(line="in_distribution", task="tiny", n=4).key != spec.key


# ---- THEORYBENCH_TASKS and entry points ---------------------------------------------------

def test_env_var_loads_task_files_in_a_fresh_process(tmp_path):
    env = {**os.environ, registry.ENV: os.pathsep.join([str(EXAMPLES / "mod3.py"),
                                                        str(tmp_path)])}
    write(tmp_path, HEAD + "def label(x):\n    return x[:, 0] == 1\n", "tiny.py")
    code = ("from theorybench import tasks; f = tasks.families(); "
            "print(tasks.family('mod3').definition_digest[:8], 'tiny' in f)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    digest = hashlib.sha256((EXAMPLES / "mod3.py").read_bytes()).hexdigest()[:8]
    assert out.stdout.split() == [digest, "True"]


def test_a_folder_lists_its_program_tasks_but_not_supplied_programs(tmp_path):
    # NAME.cr beside NAME.py is that task's program; a .cr/.br alone is a task itself
    for name in ("a.py", "a.cr", "b.cr", "c.br", "_hidden.cr", "notes.txt"):
        (tmp_path / name).write_text("")
    got = [f.name for f in registry.task_files(str(tmp_path))]
    assert got == ["a.py", "b.cr", "c.br"]


def test_env_var_with_a_missing_path_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv(registry.ENV, str(tmp_path / "nope.py"))
    with pytest.raises(ConfigError, match="THEORYBENCH_TASKS: .*nope.py is neither"):
        registry.load_external()


class _EntryPoint:
    def __init__(self, name, obj):
        self.name, self.value, self._obj = name, f"pkg:{name}", obj

    def load(self):
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


def test_entry_points_give_paths_modules_and_classes(tmp_path, monkeypatch):
    module = types.ModuleType("pkg_tiny")
    module.__file__ = str(write(tmp_path, HEAD + "def label(x):\n    return x[:, 0] == 0\n"))
    points = [_EntryPoint("files", [str(EXAMPLES / "mod3.py")]), _EntryPoint("mod", module)]
    monkeypatch.setattr(registry.metadata, "entry_points",
                        lambda group: points if group == "theorybench.tasks" else [])
    package = types.ModuleType("pkg_examples")
    package.__path__ = [str(EXAMPLES)]
    points.append(_EntryPoint("package", package))
    names = [c.name for c in registry.load_external()]
    assert names == ["mod3", "tiny", "anbncn", "contains_ab", "first_eq_last",
                     "majority_circuit", "mod3", "prefix_parity"]
    assert {"tiny", "contains_ab", "prefix_parity"} <= set(tasks.families())
    bad_class = type("Bad", (tasks.Task,), {"name": "bad", "kind": "nonsense"})
    with monkeypatch.context() as m:
        m.setattr(registry.metadata, "entry_points", lambda group: [_EntryPoint("cls", bad_class)])
        with pytest.raises(ConfigError, match="entry point cls .*needs a name and a kind"):
            registry.load_external()
    points.append(_EntryPoint("broken", ImportError("no module named pkg")))
    with pytest.raises(ConfigError, match="entry point broken .*does not load"):
        registry.load_external()


# ---- bad input: each names the file, the line and the fix ---------------------------------

BAD = [
    ("syntax", HEAD + "def label(x)\n    return x[:, 0]\n",
     r"t\.py:4:\d+: the task file does not parse"),
    ("import raises", HEAD + "import math\nZ = 1 / 0\n", r"t\.py:5: importing .*ZeroDivisionError"),
    ("missing NAME", 'ALPHABET = ("a",)\nLENGTHS = (1, 4)\nlabel = None\n',
     r"t\.py: the task file has no NAME; add e\.g\. NAME ="),
    ("misspelled LENGTHS", 'NAME = "t"\nALPHABET = ("a",)\nLENGHTS = (1, 4)\n',
     r"t\.py:3: LENGHTS is not a name theorybench reads \(did you mean LENGTHS\? rename"),
    ("misspelled optional name", HEAD + 'PARAM = {"k": (1, 3)}\ndef label(x, k=1):\n'
     "    return x[:, 0]\n", r"t\.py:4: PARAM is not a name .*did you mean PARAMS\?"),
    ("name in another case", HEAD + "def label(x):\n    return x[:, 0]\n"
     "def Oracle(x):\n    return x[:, 0]\n", r"t\.py:6: Oracle .*did you mean oracle\?"),
    ("label and REGEX", HEAD + 'REGEX = "a*"\ndef label(x):\n    return x[:, 0]\n',
     r"t\.py:4: the task file gives both label and REGEX; keep one"),
    ("bad OUTPUT", HEAD + 'OUTPUT = "all"\ndef label(x):\n    return x[:, 0]\n',
     r"t\.py:4: OUTPUT must be \"final\""),
    ("bad PARAMS", HEAD + 'PARAMS = {"k": (5, 2)}\ndef label(x, k=1):\n    return x[:, 0]\n',
     r"t\.py:4: PARAMS\['k'\] = \(5, 2\): give \(lo, hi\)"),
    ("VALID excludes every n", HEAD + "def VALID(n):\n    return n > 100\n"
     "def label(x):\n    return x[:, 0]\n", r"t\.py:4: no n in LENGTHS 2\.\.8 is valid"),
    ("misspelled label", HEAD + "def lable(x):\n    return x[:, 0]\n",
     r"t\.py:4: the task file defines no task: give def label\(x\) \(did you mean lable\?"),
    ("wrong shape", HEAD + "def label(x):\n    return x\n",
     r"t\.py:4: label\(x\) returned shape \(\d+, 2\) .*must return \(\d+,\).*per_position"),
    ("values not 0/1", HEAD + "def label(x):\n    return x.sum(axis=1)\n",
     r"t\.py:4: label\(x\) returned values other than 0/1 \(e\.g\. 2"),
    ("non-deterministic", HEAD + "import numpy as np\ndef label(x):\n"
     "    return np.random.random(len(x)) > 0.5\n",
     r"t\.py:5: label\(x\) is not deterministic"),
    ("depends on the batch", HEAD + "def label(x):\n    s = x.sum(axis=1)\n"
     "    return s > s.mean()\n", r"t\.py:4: label\(x\) of a row depends on the other rows"),
    ("raises on some input", HEAD + "def label(x):\n    if x.shape[1] > 4:\n"
     "        raise ValueError('too long')\n    return x[:, 0]\n",
     r"t\.py:6: label raised ValueError: too long on an input of shape \(\d+, [5-8]\)"),
    ("shadows a built-in",
     HEAD.replace('"tiny"', '"parity"') + "def label(x):\n    return x[:, 0]\n",
     r"t\.py:1: NAME 'parity' is a built-in task family; choose another name"),
    ("empty alphabet", HEAD.replace('("a", "b")', "()") + "def label(x):\n    return x[:, 0]\n",
     r"t\.py:2: ALPHABET is empty"),
    ("duplicate tokens", HEAD.replace('("a", "b")', '("a", "b", "a")') +
     "def label(x):\n    return x[:, 0]\n", r"t\.py:2: token 'a' appears twice"),
    ("lengths out of order",
     HEAD.replace("(2, 8)", "(8, 2)") + "def label(x):\n    return x[:, 0]\n",
     r"t\.py:3: LENGTHS = \(8, 2\) is out of order; write \(2, 8\)"),
    ("regex does not parse", HEAD + 'REGEX = "(a|b*"\n',
     r"t\.py:4: REGEX, column 1 of the pattern: missing '\)'"),
    ("regex symbol outside alphabet", HEAD + 'REGEX = "a*c"\n',
     r"t\.py:4: REGEX, column 3 of the pattern: symbol 'c' is not in ALPHABET"),
    ("dfa missing transition", HEAD + 'DFA = {"start": 0, "accept": [1], '
     '"delta": {0: {"a": 1, "b": 0}, 1: {"a": 1}}}\n',
     r"t\.py:4: DFA: DFA has no transition from state 1 on 'b'; add DFA\['delta'\]\[1\]\['b'\]"),
    ("dfa accept not a list", HEAD + 'DFA = {"start": 0, "accept": 0, '
     '"delta": {0: {"a": 0, "b": 0}}}\n', r"t\.py:4: DFA: DFA\['accept'\] must be a list"),
    ("dfa state unhashable", HEAD + 'DFA = {"start": [0], "accept": [0], '
     '"delta": {0: {"a": 0, "b": 0}}}\n', r"t\.py:4: DFA: DFA states must be hashable"),
    ("dfa start not a state", HEAD + 'DFA = {"start": 5, "accept": [0], '
     '"delta": {0: {"a": 0, "b": 0}}}\n', r"t\.py:4: DFA: DFA start state 5 is not a key"),
    ("dfa move to no state", HEAD + 'DFA = {"start": 0, "accept": [0], '
     '"delta": {0: {"a": 9, "b": 0}}}\n', r"t\.py:4: DFA: DFA\['delta'\]\[0\]\['a'\] = 9 is "
     "not a state"),
    ("regex counted repetition", HEAD + 'REGEX = "a{2}b"\n',
     r"t\.py:4: REGEX, column 2 of the pattern: counted repetition \{m,n\} is not supported"),
    ("regex anchor", HEAD + 'REGEX = "^ab"\n', r"t\.py:4: REGEX, column 1 of the pattern: "
     r"'\^': REGEX always matches the whole input"),
    # issue 43, item 5: what the hostile-input round found
    ("label returns None", HEAD + "def label(x):\n    return None\n",
     r"t\.py:4: label\(x\) returned None for x of shape"),
    ("label returns strings", HEAD + "import numpy as np\ndef label(x):\n"
     "    return np.array(['a'] * len(x))\n", r"t\.py:5: label\(x\) returned values of type <U1"),
    ("label returns NaN", HEAD + "import numpy as np\ndef label(x):\n"
     "    return np.full(len(x), np.nan)\n", r"t\.py:5: label\(x\) returned values other than "
     r"0/1 \(e\.g\. nan"),
    ("label returns complex 0/1", HEAD + "def label(x):\n    return x[:, 0] + 0j\n",
     r"t\.py:4: label\(x\) returned values of type complex128"),
    ("label changes x in place", HEAD + "def label(x):\n    x[:, 1:] = 0\n    return x[:, 0]\n",
     r"t\.py:5: label raised ValueError: assignment destination is read-only .*must not "
     r"change x in place \(copy it first"),
    ("regex stacked repetition", HEAD + 'REGEX = "a**"\n',
     r"t\.py:4: REGEX, column 3 of the pattern: '\*' right after '\*': .*parentheses"),
    ("regex lazy repetition", HEAD + 'REGEX = "a*?b"\n', r"column 3 .*'\?' right after '\*'"),
    ("regex empty class", HEAD + 'REGEX = "[]"\n',
     r"t\.py:4: REGEX, column 1 of the pattern: an empty class \[\] is not supported"),
    ("regex special escape", HEAD + 'REGEX = "a\\\\b"\n',
     r"t\.py:4: REGEX, column 2 of the pattern: \\b is a special sequence in Python's re"),
    ("regex range", HEAD + 'REGEX = "[a-b]*"\n',
     r"t\.py:4: REGEX, column 3 of the pattern: ranges such as \[a-c\] are not supported"),
    ("regex matches nothing", HEAD + 'REGEX = "[^ab]*"\n',
     r"t\.py:4: REGEX matches no input of any length n in 2\.\.8: every label would be 0"),
    ("regex matches everything", HEAD + 'REGEX = "(a|b)*"\n',
     r"t\.py:4: REGEX matches every input .*every label would be 1"),
    ("dfa accepts nothing", HEAD + 'DFA = {"start": 0, "accept": [], '
     '"delta": {0: {"a": 0, "b": 0}}}\n', r"t\.py:4: DFA accepts no input of any length"),
    ("a NUL byte in the file", HEAD + 'X = 1\x00\n',
     r"t\.py:4: the task file is not Python text \(it holds a NUL byte\)"),
    ("label calls sys.exit", HEAD + "import sys\ndef label(x):\n    sys.exit(3)\n",
     r"t\.py:6: label raised SystemExit: 3"),
    ("VALID returns an array", HEAD + "import numpy as np\ndef VALID(n):\n"
     "    return np.array([1, 2])\ndef label(x):\n    return x[:, 0]\n",
     r"t\.py:5: VALID\(2\) returned ndarray .*must return True or False"),
    ("import calls sys.exit", HEAD + "import sys\nsys.exit(0)\n",
     r"t\.py:5: importing the task file failed: SystemExit: 0"),
]


@pytest.mark.parametrize("case,text,message", BAD, ids=[b[0] for b in BAD])
def test_bad_task_files(tmp_path, case, text, message):
    path = write(tmp_path, text)
    with pytest.raises(TaskParameterError) as info:
        registry.load_task_file(path)
    assert str(path.resolve()) in str(info.value)
    assert re.search(message, str(info.value)), str(info.value)


def test_two_files_with_one_name_are_refused(tmp_path):
    registry.load_task_file(write(tmp_path, HEAD + "def label(x):\n    return x[:, 0]\n"))
    other = write(tmp_path, HEAD + "def label(x):\n    return x[:, 1]\n", "u.py")
    with pytest.raises(TaskParameterError, match=r"u\.py:1: NAME 'tiny' is already the task of"):
        registry.load_task_file(other)


def test_sample_of_the_wrong_shape(tmp_path):
    path = write(tmp_path, HEAD + "def label(x):\n    return x[:, 0]\n"
                 "def sample(rng, count, n):\n    return rng.integers(0, 2, size=(count, n + 1))\n")
    with pytest.raises(TaskParameterError, match=r"t\.py:6: sample\(rng, 5, 4\) must return "
                       r"an int array of shape \(5, 4\)"):
        load_family(path)(n=4).sample(np.random.default_rng(0), 5)


def test_missing_file(tmp_path):
    with pytest.raises(TaskParameterError, match="does not exist"):
        tasks.TaskRef.parse(str(tmp_path / "nope.py"))


def test_an_edited_file_never_gets_the_old_definitions_cached_results(tmp_path):
    # results cached in-process by family name (learned automata, sensitivity series, ...)
    # are dropped when an edited file replaces its family under the same name
    from theorybench.theories.runner import predict_matrix
    path = tmp_path / "edited.py"
    head = 'NAME = "edited"\nALPHABET = ("0", "1")\nLENGTHS = (1, 64)\n'
    path.write_text(head + "def label(x):\n    return x[:, 0] == 1\n")
    with registry.FAMILIES.scoped():
        registry.load_task_file(path, export=False)
        before = {p.theory: p for p in predict_matrix(["star_free", "sensitivity"], ["edited"],
                                                      progress=False)}
        path.write_text(head + "def label(x):\n    return x.sum(axis=1) % 2 == 1\n")
        registry.load_task_file(path, export=False)
        after = {p.theory: p for p in predict_matrix(["star_free", "sensitivity"], ["edited"],
                                                     progress=False)}
    # the first letter: star-free, low sensitivity; parity: neither
    assert before["star_free"].verdict.value == "easy"
    assert after["star_free"].verdict.value == "hard"
    assert before["sensitivity"].verdict.value == "easy"
    assert after["sensitivity"].verdict.value == "hard"
