"""The shared task syntax: FAMILY[:K=V[:K=V]], comma-separated lists."""

import pytest

from theorybench import tasks
from theorybench.errors import TaskParameterError


def test_lists_and_variants():
    assert tasks.parse_task_list("majority,khop:k=2,dyck:k=1") == [
        ("majority", {}), ("khop", {"k": 2}), ("dyck", {"k": 1})]
    assert tasks.parse_task_list(["khop:k=3:alphabet=4", "parity"]) == [
        ("khop", {"k": 3, "alphabet": 4}), ("parity", {})]


def test_old_comma_spelling_still_works_with_a_note():
    notes = []
    out = tasks.parse_task_list(["khop:k=2,alphabet=4", "parity"], warn=notes.append)
    assert out == [("khop", {"k": 2, "alphabet": 4}), ("parity", {})]
    assert notes and "deprecated" in notes[0] and "khop:k=2:alphabet=4" in notes[0]


@pytest.mark.parametrize("text, needle", [
    ("nope", "unknown task 'nope'"), ("khop:z=1", "no parameter 'z'"),
    ("khop:k", "not KEY=VALUE"), ("majority:n=5", "n is not a task parameter"),
    ("khop:k=99", "<= 16"), (" , ", "no task given")])
def test_bad_specs_say_what_is_wrong(text, needle):
    with pytest.raises(TaskParameterError, match=needle):
        tasks.parse_task_list(text)


def test_label_is_bare_for_the_default_variant():
    assert tasks.task_label("khop", {"k": 2}) == "khop:k=2"
    assert tasks.task_label("khop", tasks.parse_task("khop:k=1")[1]) == "khop"
    assert tasks.task_label("majority") == "majority"
