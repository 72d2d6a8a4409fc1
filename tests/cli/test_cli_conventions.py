"""CLI conventions shared by every command: one task syntax (FAMILY:K=V) and --format json
on the commands that print a table."""

from __future__ import annotations

import json

import pytest

from theorybench import tasks


def test_tasks_json_lists_every_family_with_its_parameters(cli):
    code, out, _ = cli("tasks", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert [r["task"] for r in rows] == list(tasks.families())
    khop = next(r for r in rows if r["task"] == "khop")
    k = next(p for p in khop["parameters"] if p["name"] == "k")
    assert k["type"] == "int" and k["default"] == tasks.families()["khop"](n=8).k


def test_automaton_json_carries_the_dfa_and_the_witness(cli):
    code, out, _ = cli("automaton", "parity", "--n", "6", "--format", "json")
    assert code == 0
    res = json.loads(out)
    assert res["status"] == "regular" and res["aperiodic"] is False
    dfa = res["dfa"]
    # the 2-state parity automaton: reading 1 swaps the states, reading 0 keeps them
    assert dfa["states"] == 2 and dfa["delta"] == [[0, 1], [1, 0]]
    assert res["witness"]["period"] == 2


def test_automaton_json_on_a_star_free_language(cli):
    code, out, _ = cli("automaton", "any", "--n", "6", "--format", "json")
    res = json.loads(out)
    assert code == 0 and res["aperiodic"] is True and res["witness"] is None


@pytest.mark.parametrize("argv", [
    ("sensitivity", "{task}", "--n", "6"),
    ("tasks-label",),
])
def test_variant_syntax_equals_the_old_param_option(cli, argv):
    if argv[0] == "tasks-label":
        new = cli("label", "khop:k=2", "--n", "6", "a b c a b a")
        old = cli("label", "khop", "--n", "6", "--param", "k=2", "a b c a b a")
    else:
        new = cli(*[a.format(task="khop:k=2") for a in argv])
        old = cli(*[a.format(task="khop") for a in argv], "--param", "k=2")
    assert new[0] == old[0] == 0
    assert new[1] == old[1]
    assert "deprecated" in old[2] and "khop:k=2" in old[2]
    assert "deprecated" not in new[2]


def test_variant_syntax_reaches_the_task(cli):
    # khop's label depends on k: the variant must not be dropped on the way
    word = "a b c a b a"
    k1 = cli("label", "khop:k=1", "--n", "6", word)[1]
    k3 = cli("label", "khop:k=3", "--n", "6", word)[1]
    assert k1 != k3  # so that a dropped variant would be seen
    t1, t3 = (tasks.get("khop", n=6, k=k) for k in (1, 3))
    row = t1.parse(word)[None, :]
    assert k1.strip() == t1.render_label(t1.label(row)[0], t1.output_mask(row)[0]
                                         if t1.output != "final" else None)
    assert k3.strip() == t3.render_label(t3.label(row)[0], t3.output_mask(row)[0]
                                         if t3.output != "final" else None)


@pytest.mark.parametrize("task, message", [
    ("khop:q=2", "has no parameter 'q'"),
    ("khop:k=zz", "task 'khop:k=zz'"),
    ("khop:k", "is not KEY=VALUE"),
    ("nope:k=1", "unknown task"),
])
def test_bad_variant_is_a_clean_error(cli, task, message):
    code, _, err = cli("sensitivity", task, "--n", "6")
    assert code == 2 and message in err and "Traceback" not in err


def test_variant_and_param_disagreeing_is_refused(cli):
    code, _, err = cli("sensitivity", "khop:k=2", "--n", "6", "--param", "k=3")
    assert code == 2 and "given twice" in err
