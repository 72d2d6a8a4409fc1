"""The shared program-file loader: B-RASP and C-RASP refuse the same files the same way."""

from __future__ import annotations

import os

import pytest

from theorybench.errors import ProgramError
from theorybench.formal import program_files
from theorybench.formal.brasp import parser as bparser
from theorybench.formal.brasp import programs as bprograms
from theorybench.formal.crasp import parser as cparser
from theorybench.formal.crasp import programs as cprograms

LOADERS = [bparser.parse_file, cparser.parse_file, bprograms.load_program,
           cprograms.load_program, lambda p: bprograms.program_text(p)[0],
           lambda p: cprograms.program_text(p)[0]]


@pytest.mark.parametrize("load", LOADERS)
def test_directory_device_and_missing_are_refused(load, tmp_path):
    with pytest.raises(ProgramError, match="is a directory"):
        load(str(tmp_path))
    with pytest.raises(ProgramError, match="not a regular file"):
        load("/dev/zero")  # before: read until MemoryError
    with pytest.raises(ProgramError, match="no such file|cannot read"):
        load(str(tmp_path / "missing.cr"))


@pytest.mark.parametrize("load", LOADERS)
def test_fifo_is_refused_without_blocking(load, tmp_path):
    fifo = tmp_path / "p.br"
    os.mkfifo(fifo)
    with pytest.raises(ProgramError, match="not a regular file"):
        load(str(fifo))


@pytest.mark.parametrize("load", LOADERS)
def test_size_limit_and_encoding(load, tmp_path, monkeypatch):
    big = tmp_path / "big.br"
    big.write_text("// x\n" * 100)
    monkeypatch.setattr(program_files, "MAX_PROGRAM_BYTES", 100)
    with pytest.raises(ProgramError, match="500 bytes, above the limit of 100"):
        load(str(big))
    bad = tmp_path / "bad.cr"
    bad.write_bytes(b"x = \xff\n")
    with pytest.raises(ProgramError, match="not UTF-8"):
        load(str(bad))


def test_library_loaders_share_the_reader():
    assert set(bprograms.library()) == set(program_files.library_texts(
        "theorybench.formal.brasp", ".br"))
    assert set(cprograms.library()) == set(program_files.library_texts(
        "theorybench.formal.crasp", ".cr"))
    text, name = bprograms.program_text("all")
    assert name == "library:all" and text == bprograms.library()["all"].text


@pytest.mark.parametrize("lang", ["crasp", "brasp"])
@pytest.mark.parametrize("sub", ["run", "lint"])
def test_cli_refuses_special_files(cli, lang, sub, tmp_path):
    for path in ("/dev/zero", str(tmp_path)):
        argv = [lang, sub, path] + (["1"] if sub == "run" else [])
        code, out, err = cli(*argv)
        assert code == 2 and ("regular file" in err or "directory" in err), err
        assert "Traceback" not in err


# ---- program text too deep or too large: a located error, never a RecursionError --------

@pytest.mark.parametrize("lang", ["brasp", "crasp"])
def test_deep_nesting_and_long_literals_are_located_errors(lang):
    parse = bparser.parse if lang == "brasp" else cparser.parse
    head = 'alphabet "0" "1"\n' if lang == "brasp" else '// alphabet: 0 1\nx = # "1"\n'
    atom = '"1"' if lang == "brasp" else "(x > 0)"
    line = len(head.splitlines()) + 1
    cases = [
        ("out = " + "!" * 5000 + atom, "nested more than 100", 6 + 101),  # was RecursionError
        ("out = " + "(" * 150 + atom + ")" * 150, "nested more than 100", 6 + 101),
    ]
    if lang == "crasp":  # its tree nests a chain of + (B-RASP's && chain is flat)
        cases.append(("out = " + " + ".join(["x"] * 3000) + " > 0", "too deeply nested", 1))
    for body, message, column in cases:
        with pytest.raises(ProgramError, match=message) as exc:
            parse(head + body + "\n")
        (p,) = exc.value.problems
        assert (p.line, p.column) == (line, column), (body[:20], p)
    # moderately deep nesting still parses; a quoted "(" or "!" is a token, not nesting
    parse(head + "out = " + "!" * 40 + atom + "\n")


def test_literal_digits_limit():
    with pytest.raises(ProgramError, match="longer than 1000 digits") as exc:
        bparser.parse('alphabet "0" "1"\nout = i > ' + "9" * 5000 + "\n")
    assert (exc.value.problems[0].line, exc.value.problems[0].column) == (2, 11)
    with pytest.raises(ProgramError, match="longer than 1000 digits"):
        cparser.parse('ones = # "1"\nout = ones > ' + "9" * 1001 + "\n")
    # 90 digits are fine: C-RASP runs counts past int64 exactly
    prog = cparser.parse('// alphabet: 0 1\nones = # "1"\nout = ones > ' + "9" * 90 + "\n")
    from theorybench.formal import crasp
    assert crasp.run(prog, ["1 0"]).accept.tolist() == [False]


def test_brasp_run_memory_and_empty_inputs(cli):
    from theorybench.errors import ResourceLimitError
    from theorybench.formal.brasp.interpret import run
    prog = bprograms.load_program("any")
    with pytest.raises(ResourceLimitError, match="length 1,000,000 .* TiB"):
        run(prog, [["1"] * 10 ** 6])  # before: allocated a 10^6 x 10^6 matrix
    assert run(prog, [[]]).accept().tolist() == [False]  # before: argmax of an empty sequence
    code, out, err = cli("brasp", "run", "any", "")
    assert code == 2 and "input 1 is empty" in err and out == ""
