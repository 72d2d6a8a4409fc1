"""`theorybench brasp ...` and `theorybench automaton ...`: output and exit codes."""

import json
import io

import pytest

from theorybench.cli.main import main

GOOD = 'alphabet "0" "1"\nseen0 = leftmost j < i ["0"(j)] true : false\nout = !seen0 && "1"\n'


def test_run_argument_and_trace(tmp_path, capsys):
    trace = tmp_path / "t.txt"
    assert main(["brasp", "run", "all", "1 1 1", "--trace", str(trace)]) == 0
    assert capsys.readouterr().out.strip() == "accept\t1 1 1"
    assert "zero_before" in trace.read_text()
    html = tmp_path / "t.html"
    assert main(["brasp", "run", "all", "1 0", "--trace", str(html)]) == 0
    assert "reject" in capsys.readouterr().out and "<table>" in html.read_text()


def test_run_stdin(monkeypatch, capsys, tmp_path):
    prog = tmp_path / "p.br"
    prog.write_text(GOOD)
    monkeypatch.setattr("sys.stdin", io.StringIO("1 1\n\n0 1\n"))
    assert main(["brasp", "run", str(prog)]) == 0
    assert capsys.readouterr().out.splitlines() == ["accept\t1 1", "reject\t0 1"]


def test_run_multi_valued(capsys):
    assert main(["brasp", "run", "khop1", "a b c a"]) == 0
    assert capsys.readouterr().out.strip() == "b\ta b c a"


@pytest.mark.parametrize("argv,needle", [
    (["brasp", "run", "all", "1 2"], "'2' is not in the program's alphabet"),
    (["brasp", "run", "nope.br", "1"], "not a library program"),
    (["brasp", "run", "all", "1", "--trace", "x.pdf"], "use a .txt or .html"),
    (["brasp", "check", "all", "--task", "nope"], "unknown task"),
])
def test_errors_exit_2_without_traceback(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_check_ok(capsys):
    assert main(["brasp", "check", "sparse_all_pos", "--task", "sparse_all", "--max-n", "6"]) == 0
    out = capsys.readouterr().out
    assert "OK" in out and "(all)" in out and "(sampled)" in out


def test_check_counterexample_is_first(capsys):
    assert main(["brasp", "check", "all", "--task", "any", "--max-n", "4"]) == 1
    out = capsys.readouterr().out
    assert 'COUNTER-EXAMPLE for any at n=2: "0 1" expected 1, program gives 0' in out


def test_lint(tmp_path, capsys):
    bad = tmp_path / "bad.br"
    bad.write_text('x = leftmost j < [a(j)] b(j) : c\ny = &&\nok = true\n')
    assert main(["brasp", "lint", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1:18:" in err and f"{bad}:2:5:" in err
    undefined = tmp_path / "u.br"
    undefined.write_text('a = b\nc = leftmost j [j == 1] a(j) : false\n')
    assert main(["brasp", "lint", str(undefined), "--plain"]) == 2
    err = capsys.readouterr().err
    assert "'b' is not defined" in err and "needs B-RASP[pos]" in err
    good = tmp_path / "good.br"
    good.write_text(GOOD)
    assert main(["brasp", "lint", str(good)]) == 0
    assert "OK (B-RASP, 2 operations, 1 attention, depth 1, output out)" in capsys.readouterr().out


def test_list(capsys):
    assert main(["brasp", "list"]) == 0
    out = capsys.readouterr().out
    assert "khop2" in out and "index_pos" in out


def test_automaton_parity_witness(capsys):
    assert main(["automaton", "parity", "--n", "10"]) == 0
    out = capsys.readouterr().out
    assert "minimal automaton: 2 states" in out and "aperiodic: no" in out
    assert "word w = 1" in out and "period 2" in out


def test_automaton_aperiodic_and_nonregular(capsys):
    assert main(["automaton", "sparse_all", "--param", "k=2", "--table"]) == 0
    out = capsys.readouterr().out
    assert "aperiodic: yes" in out and "state  out" in out
    assert main(["automaton", "majority", "--n", "12"]) == 0
    out = capsys.readouterr().out
    assert "NONREGULAR (proved by a pumping family" in out and "Myhill-Nerode" in out


@pytest.mark.parametrize("task,n", [("dyck_bounded:D=2", "6"), ("sparse_any:k=3", "4")])
def test_automaton_too_small_a_bound_is_inconclusive(capsys, task, n):
    # both are regular (found at larger bounds); the old learner printed NONREGULAR
    assert main(["automaton", task, "--n", n]) == 0
    out = capsys.readouterr().out
    assert "INCONCLUSIVE at this bound" in out and "NONREGULAR" not in out
    assert main(["automaton", task, "--n", n, "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["status"] == "inconclusive" and "certificate" not in got


@pytest.mark.parametrize("argv,needle", [
    (["automaton", "index"], "not a language"),
    (["automaton", "parity", "--n", "40"], "at most 18"),
    (["automaton", "sparse_all", "--param", "kk=2"], "cannot be set"),
])
def test_automaton_errors(argv, needle, capsys):
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_check_says_when_the_library_program_is_for_another_variant(capsys):
    # before: a counterexample for khop:k=2 with no word that khop1 is the 1-hop program
    assert main(["brasp", "check", "khop1", "--task", "khop:k=2", "--max-n", "4"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("note: library program khop1 is written for khop:k=1:alphabet=4, "
                          "not for khop:k=2:alphabet=4")
    assert "COUNTER-EXAMPLE for khop:k=2:alphabet=4 at n=" in out
    assert out.rstrip().endswith("(the program is written for khop:k=1:alphabet=4)")
    assert main(["brasp", "check", "khop2", "--task", "khop:k=2", "--max-n", "4"]) == 0
    out = capsys.readouterr().out
    assert "note" not in out and "OK: the program decides khop:k=2:alphabet=4 " in out
    # an empty requirement (positions=) is the family's default, not a variant
    assert main(["brasp", "check", "sparse_parity", "--task", "sparse_parity",
                 "--max-n", "4"]) == 0
    out = capsys.readouterr().out
    assert "note" not in out and "decides sparse_parity:k=3 " in out
