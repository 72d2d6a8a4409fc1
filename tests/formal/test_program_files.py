"""The shared program-file loader: B-RASP and C-RASP refuse the same files the same way."""

from __future__ import annotations

import os

import pytest

from theorybench.errors import ProgramError
from theorybench.formal import program_files
from theorybench.formal.brasp import parser as bparser
from theorybench.formal.brasp import programs as bprograms
from theorybench.formal.crasp import validate as cparser  # load, parse_file: parse + validate
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


# ---- line structure: one policy for both parsers (BOM, CRLF, lone CR, U+2028 ...) -------

# the same program in each language: its line 3 has an error at a known column
_PROGRAMS = {
    "crasp": (['// alphabet: 0 1', 'ones = # "1"', 'out = ones > @'], 3, 14),
    "brasp": (['alphabet "0" "1"', 'one = "1"', 'out = one @'], 3, 11),
}
_LOAD = {"crasp": cparser.load, "brasp": bparser.parse}


def _located(lang, text):
    with pytest.raises(ProgramError) as exc:
        _LOAD[lang](text)
    return [(p.line, p.column, p.message) for p in exc.value.problems]


@pytest.mark.parametrize("lang", ["crasp", "brasp"])
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_bom_and_line_ends_keep_line_and_column(lang, eol, bom):
    lines, line, col = _PROGRAMS[lang]
    text = bom + eol.join(lines) + eol
    # before: a BOM was "unexpected character '\ufeff'" at 1:1 (and hid `// alphabet:`)
    assert [(l, c) for l, c, _ in _located(lang, text)] == [(line, col)]
    good = bom + eol.join(lines[:2] + ["out = ones > 0" if lang == "crasp" else "out = one"])
    prog = _LOAD[lang](good)
    assert tuple(prog.alphabet) == ("0", "1")  # the first line is read after the BOM


@pytest.mark.parametrize("lang", ["crasp", "brasp"])
@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\x0b"])
def test_unicode_line_separators_are_refused_where_they_stand(lang, sep):
    lines, line, col = _PROGRAMS[lang]
    # inside a definition: before, it split the line and every later line number was off
    text = lines[0] + "\n" + lines[1] + sep + "\n" + lines[2] + "\n"
    found = _located(lang, text)
    assert [(l, c) for l, c, _ in found] == [(2, len(lines[1]) + 1), (line, col)]
    assert f"U+{ord(sep):04X}" in found[0][2] and "not a line break" in found[0][2]
    # inside a comment: before, the code after it was parsed as a line of its own
    text = lines[0] + "\n// note" + sep + lines[1] + "\n" + lines[2] + "\n"
    assert (2, 8) in [(l, c) for l, c, _ in _located(lang, text)]


@pytest.mark.parametrize("lang", ["crasp", "brasp"])
def test_bom_inside_the_text_and_form_feed(lang):
    lines, _, _ = _PROGRAMS[lang]
    body = "out = ones > 0" if lang == "crasp" else "out = one"
    # a form feed is whitespace (as in Python source), not a line break
    prog = _LOAD[lang]("\n".join(lines[:2]) + "\n\x0c" + body + "\n")
    assert len(prog.stmts if lang == "brasp" else prog.definitions) == 2
    # a byte-order mark that is not the file's first character is an unexpected character
    found = _located(lang, "\n".join(lines[:2]) + "\nout =\ufeff" + body[5:] + "\n")
    assert [(l, c) for l, c, _ in found] == [(3, 6)]


@pytest.mark.parametrize("lang", ["crasp", "brasp"])
def test_program_files_and_lint_use_the_same_policy(lang, tmp_path, cli):
    lines, line, col = _PROGRAMS[lang]
    path = tmp_path / f"p.{'cr' if lang == 'crasp' else 'br'}"
    path.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8"))
    load = cparser.parse_file if lang == "crasp" else bparser.parse_file
    with pytest.raises(ProgramError) as exc:
        load(str(path))
    assert [(p.line, p.column) for p in exc.value.problems] == [(line, col)]
    code, _, err = cli(lang, "lint", str(path))
    assert code == 2 and f"p.{path.suffix[1:]}:{line}:{col}:" in err
    path.write_bytes("\n".join(lines[:2]).encode() + "\u2028x\n".encode())
    code, _, err = cli(lang, "lint", str(path))
    assert code == 2 and f":2:{len(lines[1]) + 1}: a Unicode line separator" in err


def test_program_lines_policy():
    lines = program_files.program_lines("\ufeffa\r\nb\rc\n\nd\u2028e\n")
    assert [(n, s) for n, s, _ in lines] == [(1, "a"), (2, "b"), (3, "c"), (4, ""),
                                             (5, "d\u2028e")]
    assert [p is None for _, _, p in lines] == [True] * 4 + [False]
    assert (lines[4][2].line, lines[4][2].column) == (5, 2)
    assert program_files.program_lines("") == []


# ---- a program file's `// family:` header: checks say when it names another variant ------

@pytest.mark.parametrize("lang,lib,task,written", [
    ("crasp", "dyck1", "dyck:k=2", "dyck:k=1"),
    ("brasp", "khop1", "khop:k=2", "khop:k=1:alphabet=4"),
])
def test_check_of_a_file_names_the_variant_its_header_is_written_for(cli, tmp_path, lang, lib,
                                                                   task, written):
    entries = cprograms.library() if lang == "crasp" else bprograms.library()
    path = tmp_path / f"mine.{'cr' if lang == 'crasp' else 'br'}"
    path.write_text(entries[lib].text.replace("\n", "\r\n"))  # the header read as the parser reads
    code, out, err = cli(lang, "check", str(path), "--task", task, "--max-n", "4")
    assert code in (1, 2) and "OK" not in out and "Traceback" not in err
    assert out.startswith(f"note: program {path} is written for {written}, not for ")
    code, out, _ = cli(lang, "check", str(path), "--task", written, "--max-n", "4")
    assert code == 0 and "note" not in out and f"decides {written} " in out
    # no header: nothing to compare, no note
    path.write_text("\n".join(ln for ln in entries[lib].text.splitlines()
                              if not ln.startswith("// family") and not ln.startswith("// req")))
    code, out, _ = cli(lang, "check", str(path), "--task", task, "--max-n", "3")
    assert "note" not in out


def test_header_reads_family_and_requires():
    assert program_files.header("\ufeff// family: dyck\r\n// requires: k=1 D=\r\nx = 1\n") == \
        ("dyck", (("k", "1"), ("D", "")))
    assert program_files.header("// requires: k=1\nx = 1\n") is None
    assert program_files.written_for("dyck_bounded", (("k", "1"), ("positions", ""))) == \
        "dyck_bounded:k=1"
