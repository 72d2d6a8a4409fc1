"""`theorybench crasp run|check|lint|list` end to end (in process)."""

import json

import pytest



def test_run_argument_and_trace(cli, tmp_path, capsys):
    trace = tmp_path / "t.html"
    rc, out, err = cli(*["crasp", "run", "majority", "1 0 1", "--trace", str(trace)])
    assert rc == 0 and out.strip() == "accept\t1 0 1"
    assert "<table>" in trace.read_text()
    txt = tmp_path / "t.txt"
    rc, out, _ = cli(*["crasp", "run", "majority", "0 0 1", "--trace", str(txt)])
    assert out.startswith("reject") and "*more_ones" in txt.read_text()


def test_run_stdin_and_accept_modes(cli, tmp_path, capsys, monkeypatch):
    prog = tmp_path / "ends.cr"
    prog.write_text('// alphabet: a b\nends_a = "a"\n')
    rc, out, _ = cli(*["crasp", "run", str(prog)], stdin="b a\n// comment\na b\n\n")
    assert out.splitlines() == ["reject\tb a", "reject\ta b"]
    rc, out, _ = cli(*["crasp", "run", str(prog), "--accept", "last"], stdin="b a\na b\n")
    assert out.splitlines() == ["accept\tb a", "reject\ta b"]


def test_run_rejects_foreign_token(cli, capsys):
    rc, out, err = cli(*["crasp", "run", "majority", "1 x 0"])
    assert rc == 2 and "'x' is not in the program's alphabet" in err and "Traceback" not in err


def test_check_ok_and_counterexample(cli, tmp_path, capsys):
    rc, out, _ = cli(*["crasp", "check", "dyck_bounded1", "--task", "dyck_bounded",
                       "--max-n", "8", "--param", "D=3"])
    assert rc == 0 and "OK" in out and "all inputs up to n=8" in out
    wrong = tmp_path / "w.cr"
    wrong.write_text('ones = # "1"\nout = ones > 0\n')
    rc, out, _ = cli(*["crasp", "check", str(wrong), "--task", "all", "--max-n", "5"])
    assert rc == 1 and 'COUNTER-EXAMPLE for all at n=2: "0 1" expected 0, program gives 1' in out


def test_lint_reports_every_problem(cli, tmp_path, capsys):
    bad = tmp_path / "bad.cr"
    bad.write_text('x = # y\ny = x > 0 && q\nz = x + true\n')
    rc, out, err = cli(*["crasp", "lint", str(bad)])
    assert rc == 2
    lines = [ln for ln in err.splitlines() if "bad.cr:" in ln]
    assert [ln.split("bad.cr:")[1].split(":")[0:2] for ln in lines] == \
        [["1", "1"], ["2", "14"], ["3", "1"], ["3", "9"]]
    syntax = tmp_path / "syn.cr"
    syntax.write_text('a = (1\nb = 2 +\n')
    rc, _, err = cli(*["crasp", "lint", str(syntax)])
    assert rc == 2 and "syn.cr:1:7" in err and "syn.cr:2:8" in err
    rc, out, _ = cli(*["crasp", "lint", "majority"])
    assert rc == 0 and "OK" in out


def test_list_and_missing_file(cli, capsys):
    rc, out, _ = cli(*["crasp", "list"])
    assert rc == 0 and "dyck_bounded1" in out and "majority" in out
    rc, _, err = cli(*["crasp", "run", "no_such_program", "1"])
    assert rc == 2 and "not a library program" in err


# Programs in the style of the public interpreter's examples (coli-saar/c-rasp): imports,
# guarded counts, a conditional count, `x-1` without spaces, trailing comments, blank lines,
# output read at the last position, positions counted from 0.
EVEN_AS = """
#import pos_even

others = # !"a"
only_as = (others == 0)
// 0-based: the last position of an even-length word is odd
even_as = !pos_even && only_as
"""

SHIFTED_COPY = """
#import pred2
n_tok = #true   // positions so far
here = (1 if "1" else 0)
before = #"1" - here
first_is_one = (before == n_tok-1) && "1"
same = ("1" && (#[pred2] "1") == 1) || ("0" && (#[pred2] "0") == 1)
n_same = # same
out = (n_same + n_same + 4 == n_tok + n_tok) && n_tok > 2
"""


def test_public_style_programs_and_zero_based_positions(cli, tmp_path, capsys, monkeypatch):
    prog = tmp_path / "even_as.cr"
    prog.write_text(EVEN_AS)
    words = "a a\na a a\na a a a\n"
    rc, out, _ = cli(*["crasp", "run", str(prog), "--accept", "last", "--positions", "0"], stdin=words)
    assert rc == 0 and [ln.split("\t")[0] for ln in out.splitlines()] == \
        ["accept", "reject", "accept"]
    # 1-based positions (Huang et al.) shift the parity of every position
    rc, out, _ = cli(*["crasp", "run", str(prog), "--accept", "last"], stdin=words)
    assert [ln.split("\t")[0] for ln in out.splitlines()] == ["reject", "accept", "reject"]
    # at the end marker the !"a" count sees <eos>: the program was written for --accept last
    rc, out, _ = cli(*["crasp", "run", str(prog)], stdin=words)
    assert [ln.split("\t")[0] for ln in out.splitlines()] == ["reject"] * 3
    shifted = tmp_path / "shift.cr"
    shifted.write_text(SHIFTED_COPY)
    # w w' with w' = w shifted by 2 positions: positions 3.. equal positions 1..
    rc, out, _ = cli(*["crasp", "run", str(shifted), "--accept", "last"], stdin="1 0 1 0 1 0\n1 0 1 1 1 0\n0 0 0\n")
    assert [ln.split("\t")[0] for ln in out.splitlines()] == ["accept", "reject", "accept"]


def test_run_stdin_reports_foreign_tokens_per_line(cli, tmp_path, capsys, monkeypatch):
    rc, out, err = cli(*["crasp", "run", "majority"], stdin="1 1 0\n1 x 0 y\n0 0 1\n")
    assert rc == 2 and out.splitlines() == ["accept\t1 1 0", "error\t1 x 0 y", "reject\t0 0 1"]
    assert "input 2" in err and "token 2 'x', token 4 'y'" in err and "Traceback" not in err
    rc, out, _ = cli(*["crasp", "run", "majority", "--alphabet", "0 1 x y"], stdin="1 x 0 y\n")
    assert rc == 2  # the program's own `// alphabet:` line wins over --alphabet


def test_bad_inputs_exit_2_with_a_reason(cli, tmp_path, capsys):
    binary = tmp_path / "bin.cr"
    binary.write_bytes(b"\xff\xfe x = 1")
    cases = [
        (["crasp", "run", str(binary), "a"], "not UTF-8"),
        (["crasp", "lint", str(binary)], "not UTF-8"),
        (["crasp", "check", "dyck1", "--task", "dyck", "--param", "k=1", "--max-n", "100000"],
         "above 512"),
        (["crasp", "check", "dyck1", "--task", "dyck", "--param", "kk=1"], "no parameter 'kk'"),
        (["crasp", "check", "majority", "--task", "majority", "--samples", "0"], "--samples 0"),
        (["crasp", "run", "majority", "1 0 1", "--trace", str(tmp_path / "t.pdf")],
         "use a .txt or .html"),
        (["crasp", "run", "majority", "", "--accept", "last"], "no last position"),
    ]
    for argv, needle in cases:
        rc, out, err = cli(*argv)
        assert rc == 2 and needle in err and "Traceback" not in err, (argv, err)
        assert out == ""  # nothing is run before the input is refused


def test_lint_count_output_at_the_last_definition(cli, tmp_path, capsys):
    from theorybench.formal.crasp.validate import lint
    text = '// header\n\nones = # "1"\n  total = ones + 1\n'
    probs = lint(text)
    assert [(p.line, p.column) for p in probs] == [(4, 3)] and "count" in probs[0].message
    # the last definition repeats a name: one problem, at that line, not at line 1
    probs = lint('x = # "1"\ny = x > 0\nx = # "0"\n')
    assert [p.line for p in probs] == [3] and "defined twice" in probs[0].message
    f = tmp_path / "c.cr"
    f.write_text(text)
    rc, _, err = cli(*["crasp", "lint", str(f)])
    assert rc == 2 and f"{f}:4:3:" in err


@pytest.mark.parametrize("lang,prog", [("crasp", "majority"), ("brasp", "any")])
def test_options_anywhere_and_list_json(cli, tmp_path, lang, prog):
    # before: an option between PROGRAM and INPUT gave "unrecognized arguments"
    for suffix in ("html", "txt"):
        trace = tmp_path / f"t.{suffix}"
        rc, out, err = cli(lang, "run", prog, "--trace", str(trace), "0 1 1")
        assert rc == 0 and out == "accept\t0 1 1\n" and trace.stat().st_size > 0, err
    rc, out, err = cli(lang, "check", "--max-n", "3", prog, "--task", prog)
    assert rc == 0 and "OK" in out, err
    # before: list refused --format json
    rc, out, _ = cli(lang, "list", "--format", "json")
    rows = json.loads(out)
    assert rc == 0 and prog in [r["program"] for r in rows]
    assert all(r["task"] and r["description"] for r in rows)


# ---- a check runs exactly the task asked, and says when the program is for another variant

def test_check_runs_the_task_asked_not_the_programs_variant(cli):
    # `dyck` is k=2 (brackets ( ) [ ]); before: k=1 from dyck1's header, "OK: ... decides dyck"
    rc, out, err = cli("crasp", "check", "dyck1", "--task", "dyck", "--max-n", "4")
    assert rc == 2 and "OK" not in out and "Traceback" not in err
    assert "dyck1 is written for dyck:k=1, not for dyck:k=2" in out
    assert "'['" in err and "not in the program's alphabet" in err
    # the variant it is written for: checked, named, no note
    rc, out, _ = cli("crasp", "check", "dyck1", "--task", "dyck:k=1", "--max-n", "6")
    assert rc == 0 and "OK: the program decides dyck:k=1 " in out and "note" not in out


def test_check_counterexample_says_the_program_is_for_another_variant(cli):
    # before: a counterexample with no word that the program was written for k = 3
    rc, out, _ = cli("crasp", "check", "sparse_parity", "--task", "sparse_parity:k=2",
                     "--max-n", "5")
    assert rc == 1
    first, *_, last = out.splitlines()
    assert first.startswith("note: library program sparse_parity is written for "
                            "sparse_parity:k=3, not for sparse_parity:k=2")
    assert last.startswith("COUNTER-EXAMPLE for sparse_parity:k=2 at n=")
    assert last.endswith("(the program is written for sparse_parity:k=3)")
    # the default variant is the one it is written for (its positions set from the task)
    rc, out, _ = cli("crasp", "check", "sparse_parity", "--task", "sparse_parity",
                     "--max-n", "5")
    assert rc == 0 and "note" not in out and "decides sparse_parity:k=3 " in out


def test_check_names_every_parameter_of_the_task_checked(cli):
    rc, out, _ = cli("crasp", "check", "dyck_bounded1", "--task", "dyck_bounded:D=3",
                     "--max-n", "6")
    assert rc == 0 and "decides dyck_bounded:k=1:D=3 " in out and "note" not in out
    rc, out, _ = cli("crasp", "check", "majority", "--task", "parity", "--max-n", "3")
    assert rc == 1 and "written for majority, not for parity" in out


def test_prove_runs_the_task_asked(cli):
    # before: dyck1's k=1 replaced the task's k=2 and the proof was for dyck:k=1
    rc, out, _ = cli("crasp", "prove", "dyck1", "--task", "dyck", "--search-len", "4",
                     "--bmc-len", "4")
    assert rc != 0 and "PROVED" not in out
    assert "dyck1 is written for dyck:k=1, not for dyck:k=2" in out
    assert "task dyck:k=2" in out
    rc, out, _ = cli("crasp", "prove", "dyck1", "--task", "dyck", "--format", "json",
                     "--search-len", "4", "--bmc-len", "4")
    res = json.loads(out)
    assert res["task_checked"] == "dyck:k=2" and "written for dyck:k=1" in res["note"]
    assert res["status"] != "proved"


# ---- one validation path: what run and lint refuse, nothing else accepts -----------------

INVALID = [
    ('a = # "1"\na = # "0"\nout = a > 0\n', "2:1: a is defined twice"),
    ("", "1:1: the program has no definitions"),
    ("// only a comment\n", "1:1: the program has no definitions"),
    ("out = x > 0\n", "1:7: x is not defined; define it"),
    ("a = b\nb = a\nout = a\n", "1:1: definitions form a cycle"),
]


@pytest.mark.parametrize("text,where", INVALID)
def test_every_consumer_refuses_an_invalid_program_alike(cli, tmp_path, text, where):
    prog = tmp_path / "p.cr"
    prog.write_text(text)
    model = tmp_path / "m.pt"
    for argv in (["crasp", "run", str(prog), "1"], ["crasp", "lint", str(prog)],
                 ["crasp", "check", str(prog), "--task", "all", "--max-n", "3"],
                 ["crasp", "prove", str(prog), "--task", "all"],
                 ["crasp", "compile", str(prog), "--max-len", "3", "--out", str(model)],
                 ["construct", "--program", str(prog), "--n", "3"]):
        rc, out, err = cli(*argv)
        # before: compile saved the model (defined twice) or raised KeyError (empty), and
        # reported an undefined name or a cycle as "an imported predicate"
        assert rc == 2 and f"p.cr:{where}" in err and "Traceback" not in err, (argv, err)
        assert "imported predicate" not in err and out == ""
    assert not model.exists()
