"""theorybench.safe_io: the output guard and the atomic writers."""

from __future__ import annotations

import os
import pickle
import sqlite3
import stat
import zipfile

import pytest

from theorybench.errors import ConfigError
from theorybench.safe_io import (CHECKPOINT, IMAGE, PROGRAM, STORE, TASK_FILE, TEXT,
                                 atomic_open, atomic_path, atomic_write, check_output,
                                 in_folder, sniff)


def _store(path):
    con = sqlite3.connect(path)
    con.execute("create table runs (key text)")
    con.commit()
    con.close()
    return path


@pytest.fixture
def files(tmp_path):
    """One file of every protected kind, and a plain one."""
    out = {"store": _store(tmp_path / "r.sqlite"), "zip": tmp_path / "model.bin",
           "pickle": tmp_path / "old.ckpt", "cr": tmp_path / "p.cr", "br": tmp_path / "p.br",
           "py": tmp_path / "task.py", "plain": tmp_path / "notes.txt"}
    with zipfile.ZipFile(out["zip"], "w") as z:
        z.writestr("archive/data.pkl", b"x")
    out["pickle"].write_bytes(pickle.dumps({"w": 1}, protocol=2))
    for k in ("cr", "br", "py", "plain"):
        out[k].write_text("x = 1\n")
    return out


def test_sniff_names_each_protected_kind(files):
    assert [sniff(files[k]) for k in ("store", "zip", "pickle", "cr", "br", "py", "plain")] == \
        [STORE, CHECKPOINT, CHECKPOINT, PROGRAM, PROGRAM, TASK_FILE, None]
    assert sniff(files["plain"].parent) is None and sniff(files["plain"].parent / "no") is None


def test_an_output_that_is_an_input_is_refused_by_every_spelling(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("a\n")
    (tmp_path / "sub").mkdir()
    os.symlink(src, tmp_path / "sym.csv")
    os.link(src, tmp_path / "hard.csv")
    for spelling in (src, tmp_path / "sub" / ".." / "in.csv", tmp_path / "sym.csv",
                     tmp_path / "hard.csv"):
        with pytest.raises(ConfigError, match="--force"):
            check_output(spelling, inputs=[("--db", str(src))])
        assert check_output(spelling, inputs=[("--db", str(src))], force=True)
    # an input that does not exist yet is still the same path
    with pytest.raises(ConfigError, match="--db"):
        check_output(tmp_path / "new.sqlite", inputs=[("--db", tmp_path / "new.sqlite")])
    assert check_output(tmp_path / "other.csv", inputs=[src, None, ""]) == tmp_path / "other.csv"


@pytest.mark.parametrize("victim, kind", [("store", TEXT), ("zip", TEXT), ("pickle", IMAGE),
                                          ("cr", CHECKPOINT), ("py", TEXT), ("store", CHECKPOINT)])
def test_a_file_of_another_kind_needs_force(files, victim, kind):
    before = files[victim].read_bytes()
    with pytest.raises(ConfigError, match="is an existing .*--force"):
        check_output(files[victim], kind=kind)
    assert files[victim].read_bytes() == before
    assert check_output(files[victim], kind=kind, force=True) == files[victim]


def test_the_same_kind_and_unprotected_files_may_be_replaced(files):
    assert check_output(files["zip"], kind=CHECKPOINT)  # a newer model over an older one
    assert check_output(files["plain"], kind=TEXT)


def test_bad_paths_are_refused_with_the_option_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for path, words in [("", "--out is empty"), ("  ", "--out is empty"),
                        (str(tmp_path), "is a folder"), (f"{tmp_path}/no/x.csv", "does not exist"),
                        (f"{blocker}/x.csv", "is a file, not a folder"),
                        ("a\x00b", "NUL")]:
        with pytest.raises(ConfigError, match=words):
            check_output(path)


def test_a_device_is_written_in_place(capfd):
    assert str(check_output("/dev/null")) == "/dev/null"
    atomic_write("/dev/null", "nothing")  # no rename over a device


def test_atomic_write_replaces_and_keeps_mode_and_links(tmp_path):
    p = tmp_path / "out.txt"
    atomic_write(p, "one")
    assert p.read_text() == "one"
    os.chmod(p, 0o640)
    atomic_write(p, b"two")
    assert p.read_bytes() == b"two" and stat.S_IMODE(p.stat().st_mode) == 0o640
    link = tmp_path / "link.txt"
    os.symlink(p, link)
    atomic_write(link, "three")
    assert link.is_symlink() and p.read_text() == "three"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["link.txt", "out.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "model.pt"
    p.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic_path(p) as tmp:
            assert tmp.parent == tmp_path and tmp.suffix == ".pt" and tmp != p
            tmp.write_bytes(b"half")
            raise RuntimeError("killed mid-write")
    assert p.read_bytes() == b"old" and [x.name for x in tmp_path.iterdir()] == ["model.pt"]
    with pytest.raises(KeyboardInterrupt):
        with atomic_open(p, "w") as fh:
            fh.write("partial")
            raise KeyboardInterrupt
    assert p.read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_atomic_open_streams_then_renames(tmp_path):
    p = tmp_path / "r.jsonl"
    with atomic_open(p) as fh:
        fh.write("a\n")
        assert not p.exists()  # nothing visible until complete
        fh.write("b\n")
    assert p.read_text() == "a\nb\n"


def test_in_folder(tmp_path):
    assert in_folder(tmp_path, "fig.png") == tmp_path / "fig.png"
    assert in_folder(tmp_path / "x.png", "fig.png") == tmp_path / "x.png"
    assert in_folder("", "fig.png") == ""  # left to check_output to refuse
    with pytest.raises(ConfigError, match="empty"):
        check_output(in_folder(" ", "fig.png"))


def test_dev_stdout_lands_in_order_in_a_redirected_file(tmp_path):
    """-o /dev/stdout into a shell-redirected file: neither truncated nor renamed over, and
    in order with the process's own output (a reopen would start at offset 0)."""
    import subprocess
    import sys
    out = tmp_path / "o.txt"
    code = ("from theorybench.safe_io import atomic_write, check_output\n"
            "print('a', flush=True)\n"
            "atomic_write(check_output('/dev/stdout'), 'b\\n')\n"
            "print('c')\n")
    with open(out, "w") as fh:
        fh.write("0\n")
        fh.flush()
        subprocess.run([sys.executable, "-c", code], stdout=fh, check=True)
    assert out.read_text() == "0\na\nb\nc\n"
