"""Task files with an answer (OUTPUT = "answer", ANSWER = tokens): loading and its errors
with the file's line, batches whose targets are the answer tokens after the input, the
theories' decision view; and the shipped algorithmic tasks of Huang et al. (2025) against
independent per-row definitions and the authors' input distributions."""

from __future__ import annotations

import pathlib
import textwrap
from collections import Counter

import numpy as np
import pytest

from theorybench.errors import TaskParameterError
from theorybench.experiments import reproduce as rep
from theorybench.experiments.data import IGNORE, TaskData
from theorybench.experiments.published import ALGORITHMIC_DIR
from theorybench.tasks import registry
from theorybench.tasks.user import load_family

COPY = '''
    import numpy as np
    NAME = "copy_ab"
    ALPHABET = ("a", "b", "|")
    ANSWER = ("a", "b")
    OUTPUT = "answer"
    LENGTHS = (2, 30)

    def sample(rng, count, n):
        x = rng.integers(0, 2, size=(count, n))
        x[:, -1] = 2
        return x

    def label(x):
        return np.where(x[:, :-1] == 2, 0, x[:, :-1])
'''


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped():
        yield


def write(tmp_path, text, name="t.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_an_answer_file_loads_and_its_batches_hold_the_answer_after_the_input(tmp_path):
    cls = registry.load_task_file(write(tmp_path, COPY))
    assert cls.output == "answer" and cls.label_vocab == ("a", "b")
    data = TaskData(cls.name, {}, [5, 9])
    batch = data.sample(np.random.default_rng(0), 16, [5, 9])
    for row, tgt in zip(batch.inputs.numpy(), batch.targets.numpy()):
        tokens = [data.vocab[t] for t in row if t != 0]
        n = tokens.index("|") + 1
        word, answer = tokens[:n - 1], tokens[n:]
        assert answer == word                       # teacher forcing: the answer follows
        scored = [data.label_vocab[t] for t in tgt if t != IGNORE]
        assert scored == word                       # predicted from position n - 1 on
        assert (tgt[:n - 1] == IGNORE).all()


def test_the_theories_read_the_first_answer_token(tmp_path):
    cls = load_family(write(tmp_path, COPY))
    task = cls(n=6)
    view = task.decision_view()[0]
    x = np.array([[0, 1, 1, 0, 1, 2], [1, 0, 0, 0, 1, 2]])
    assert view.name == "first_answer" and view.evaluate(x).tolist() == [1, 0]


@pytest.mark.parametrize("edit, where, match", [
    (("OUTPUT = \"answer\"", "OUTPUT = \"answers\""), "OUTPUT", '"answer"'),
    (("ANSWER = (\"a\", \"b\")\n", ""), "OUTPUT", "needs ANSWER"),
    (("ANSWER = (\"a\", \"b\")", "ANSWER = (\"a\", \"a\")"), "ANSWER", "distinct"),
    (("ANSWER = (\"a\", \"b\")", "ANSWER = \"ab\""), "ANSWER", "tuple"),
    (("OUTPUT = \"answer\"", "OUTPUT = \"final\""), "ANSWER", "needs OUTPUT"),
    (("return np.where(x[:, :-1] == 2, 0, x[:, :-1])", "return x[:, :-1]"), "label",
     "outside 0..1"),
    (("return np.where(x[:, :-1] == 2, 0, x[:, :-1])", "return x[:, 0]"), "label",
     "(count, m)"),
])
def test_bad_answer_files_name_the_line(tmp_path, edit, where, match):
    text = textwrap.dedent(COPY).replace(*edit)
    path = write(tmp_path, text)
    with pytest.raises(TaskParameterError, match=match) as info:
        load_family(path)
    line = next(i for i, ln in enumerate(text.lstrip().splitlines(), 1)
                if ln.startswith((where, f"def {where}")))
    assert f"t.py:{line}" in str(info.value)


def test_an_answer_whose_length_changes_at_one_n_is_refused(tmp_path):
    text = textwrap.dedent(COPY).replace(
        "return np.where(x[:, :-1] == 2, 0, x[:, :-1])",
        "return np.where(x[:, :-1] == 2, 0, x[:, :-1])[:, : 1 + len(x) % 2]")
    with pytest.raises(TaskParameterError, match="n only"):   # the load's own check
        load_family(write(tmp_path, text))


def test_a_regex_cannot_have_an_answer(tmp_path):
    path = write(tmp_path, '''
        NAME = "r"
        ALPHABET = ("a", "b")
        LENGTHS = (1, 9)
        REGEX = "(ab)*"
        OUTPUT = "answer"
        ANSWER = ("a", "b")
    ''')
    with pytest.raises(TaskParameterError, match="one label per input"):
        load_family(path)


# ---- the shipped algorithmic tasks -----------------------------------------------------

def _load(name):
    return load_family(ALGORITHMIC_DIR / f"{name}.py")


def _rows(cls, n, count=300, seed=0):
    task = cls(n=n)
    batch = task.sample(np.random.default_rng(seed), count)
    return task, batch.tokens, batch.labels


def test_majority_letters_against_counting():
    cls = _load("majority")
    for n in (2, 9, 40):
        task, x, y = _rows(cls, n)
        for row, ans in zip(x, y):
            counts = Counter(row[:-1].tolist()).most_common(2)
            assert row[-1] == 26 and ans.tolist() == [counts[0][0]]
            assert len(counts) == 1 or counts[0][1] > counts[1][1]   # the authors: no tie


def test_majority_interleave_against_each_residue_class():
    cls = _load("majority_interleave")
    for n in (4, 22, 61):
        task, x, y = _rows(cls, n)
        for row, ans in zip(x, y):
            body = row[:-1].tolist()
            want = []
            for r in range(3):
                part = body[r::3]
                assert 2 * part.count(1) != len(part)              # no tie drawn
                want.append(int(part.count(1) > len(part) / 2))
            assert ans.tolist() == want
        # the number of zeros of each string is uniform in 0..m (ties left out), not binomial
        m = (n - 1) // 3
        if m >= 10:
            zeros = [row[:-1][0::3].tolist().count(0) for row in x]
            assert min(zeros) <= 1 and max(zeros) >= m - 1


@pytest.mark.parametrize("name, op", [("unique_copy", list), ("sort", sorted)])
def test_unique_copy_and_sort_against_python(name, op):
    cls = _load(name)
    for n in (2, 30, 151):
        task, x, y = _rows(cls, n, count=100)
        for row, ans in zip(x, y):
            body = row[:-1].tolist()
            assert len(set(body)) == len(body) and row[-1] == 150
            assert ans.tolist() == op(body)


def test_repeat_copy_against_python():
    task, x, y = _rows(_load("repeat_copy"), 33)
    assert all(ans.tolist() == row[:-1].tolist() for row, ans in zip(x, y))


def _sum_oracle(row):
    """The answer of an addition row from Python's integers: the first "+" splits, a token
    other than 0/1 in an operand counts as 0; the sum's digits, then "." (index 2)."""
    text = "".join("01+="[t] for t in row[:-1])
    a, _, b = text.partition("+")
    value = sum(int("".join(c if c in "01" else "0" for c in part) or "0", 2)
                for part in (a, b))
    digits = [int(c) for c in bin(value)[2:]]
    return (digits + [2] * len(row))[:len(row) - 1]


def test_addition_against_python_integers():
    cls = _load("addition")
    rng = np.random.default_rng(7)
    for n in (4, 5, 12, 50, 151):
        task, x, y = _rows(cls, n, count=200, seed=n)
        lens = []
        for row, ans in zip(x, y):
            text = "".join("01+="[t] for t in row)
            a, _, b = text[:-1].partition("+")
            assert text.endswith("=") and text.count("+") == 1 and a and b
            assert all(len(p) == 1 or p[0] == "1" for p in (a, b))   # no leading zero
            assert ans.tolist() == _sum_oracle(row) and ans[-1] == 2  # an end marker
            lens.append(len(a))
        assert min(lens) >= 1 and max(lens) <= n - 3
        if n >= 12:   # the first operand's length is uniform over 1 .. n - 3
            assert len(set(lens)) > (n - 3) // 2
        off = rng.integers(0, 4, size=(200, n))   # any string of the alphabet
        assert [r.tolist() for r in task.label(off)] == [_sum_oracle(r) for r in off]


def test_the_huang_plan_runs_every_algorithmic_row():
    planned = {(p.row.name, p.row.encoding): p for p in rep.plan("huang2025", "quick")}
    for name in ("majority", "binary_majority_interleave", "sort", "copy_unique",
                 "copy_repeat", "addition"):
        for enc in ("learned_offsets", "nope"):
            p = planned[(name, enc)]
            assert p.specs and not p.skipped, (name, enc)
            assert any("separator" in note or "a+b=" in note for note in p.row.notes)
    assert planned[("majority", "nope")].size == "1l1h64w"   # the authors' recorded model


def test_shipped_algorithmic_files_are_package_data():
    text = (pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert "experiments/algorithmic/*.py" in text
