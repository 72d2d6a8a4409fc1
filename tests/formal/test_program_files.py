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
