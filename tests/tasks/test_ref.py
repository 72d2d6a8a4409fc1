"""TaskRef: a task variant as a value, with one parse and one spelling (issues 27, 31)."""

import pickle

import pytest

from theorybench import tasks
from theorybench.errors import TaskParameterError
from theorybench.tasks import TaskRef


def test_one_spelling_defaults_dropped_parameters_sorted():
    ref = TaskRef.parse("khop:k=2")
    assert str(ref) == "khop:k=2" and ref.family == "khop" and ref.params == (("k", 2),)
    assert TaskRef.parse("khop:k=1") == "khop" and TaskRef.parse("khop:k=1").params == ()
    assert TaskRef.parse("dyck") == "dyck" and TaskRef.parse("dyck:k=1") == "dyck:k=1"
    two = TaskRef("khop", {"k": 3, "alphabet": 5})  # written in any order, spelled sorted
    assert str(two) == "khop:alphabet=5:k=3"
    assert TaskRef.parse("khop:k=3:alphabet=5") == two == TaskRef.parse(str(two))
    assert tasks.task_label("khop", {"k": 3, "alphabet": 5}) == str(two)


def test_a_value_equal_hashable_immutable_picklable():
    a, b = TaskRef.parse("khop:k=2"), TaskRef("khop", {"k": "2"})
    assert a == b and hash(a) == hash(b) and len({a, b, "khop:k=2"}) == 1
    with pytest.raises(AttributeError):
        a.params = ()
    back = pickle.loads(pickle.dumps(a))
    assert back == a and isinstance(back, TaskRef) and back.params == a.params


def test_build_and_family_view_without_registering_anything():
    before = list(tasks.families())
    ref = TaskRef.parse("khop:k=2")
    task = ref.build(n=16)
    assert task.name == "khop" and task.k == 2 and task.n == 16
    fam = tasks.family("khop:k=2")
    assert {p.name: p.default for p in fam.params}["k"] == 2
    assert fam.name == "khop" and fam.analysis_ns == tasks.family("khop").analysis_ns
    assert tasks.get("khop:k=2", n=8).k == 2 and tasks.get(ref, n=8, k=3).k == 3
    assert fam.valid_ns(1, 8) == tasks.grid("khop").valid_ns(1, 8, k=2)
    assert list(tasks.families()) == before  # a variant is a value, not a family


def test_old_row_names_read_only_where_asked():
    assert TaskRef.parse("khop[k=2]", legacy=True) == "khop:k=2"
    with pytest.raises(TaskParameterError):
        TaskRef.parse("khop[k=2]")


# ---- issue 31, cause 7 --------------------------------------------------------------------

def test_parameters_are_checked_at_the_size_used_not_the_default_n():
    # k=20 does not fit the default n=16 but every n >= 21: the old parse refused it
    assert tasks.parse_task("sparse_parity:k=20") == ("sparse_parity", {"k": 20})
    assert TaskRef.parse("sparse_parity:k=20").build(n=30).k == 20
    with pytest.raises(TaskParameterError, match="n=10"):
        TaskRef.parse("sparse_parity:k=20", n=10)
    with pytest.raises(TaskParameterError, match="lists 2 positions but k=3"):
        TaskRef.parse("sparse_parity:positions=[1,2]")  # wrong at every n: still refused


def test_a_value_with_commas_in_a_list_of_tasks():
    refs = tasks.parse_refs("sparse_parity:positions=[1,5,9],parity")
    assert [r.family for r in refs] == ["sparse_parity", "parity"]
    assert refs[0].kwargs == {"positions": "1,5,9"}
    assert str(refs[0]) == "sparse_parity:positions=[1,5,9]"
    assert TaskRef.parse(str(refs[0])) == refs[0]
    assert refs[0].build(n=10).support == (0, 4, 8)
    # one task alone needs no brackets
    assert tasks.parse_task("sparse_parity:positions=1,5,9") == (
        "sparse_parity", {"positions": "1,5,9"})


def test_lists_keep_the_parameters_as_written():
    # run specs are stored under the parameters the user wrote (khop:k=1 keeps k=1)
    assert tasks.parse_task_list("khop:k=1,khop") == [("khop", {"k": 1}), ("khop", {})]
    assert tasks.parse_refs("khop:k=1,khop") == ["khop", "khop"]


def test_a_bare_comma_value_in_a_list_says_to_use_brackets():
    with pytest.raises(TaskParameterError, match=r"positions=\[1,5,\.\.\.\]"):
        tasks.parse_refs("sparse_parity:positions=1,5,9,parity")
    with pytest.raises(TaskParameterError, match="did you mean parity"):
        tasks.parse_refs("khop:k=2,parrity")
