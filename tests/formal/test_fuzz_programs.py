"""Mutated library programs (.cr and .br): tokens deleted, duplicated, nested, replaced by
huge numbers or stray characters. Each must parse, validate and run, or fail with a
:class:`TheorybenchError` whose program problems carry a line number; never a traceback.

The same programs written as files from other editors (a byte-order mark, CRLF or lone CR
line ends) must give exactly the same result, problems at the same line and column; a
Unicode line separator (U+2028, U+2029, U+0085) must be a problem at exactly its place.

``THEORYBENCH_FUZZ=N`` mutates N programs per language (default 300; a sixth as many for
the line-structure variants, so that the default run stays near its old time).
"""

from __future__ import annotations

import os
import random
import re

import pytest

from theorybench.errors import ProgramError, TheorybenchError
from theorybench.formal import crasp, program_files
from theorybench.formal.brasp import interpret as binterpret
from theorybench.formal.brasp import parser as bparser
from theorybench.formal.brasp import programs as bprograms

_TOKEN = re.compile(r'\s+|"[^"\n]*"|\d+|[A-Za-z_]\w*|==|!=|<=|>=|&&|\|\||.', re.S)
COUNT = int(os.environ.get("THEORYBENCH_FUZZ", "300"))


def _mutate(text: str, rng: random.Random) -> str:
    toks = _TOKEN.findall(text)
    for _ in range(rng.randint(1, 4)):
        words = [i for i, t in enumerate(toks) if not t.isspace()]
        if not words:
            break
        i = rng.choice(words)
        kind = rng.randrange(7)
        if kind == 0:
            del toks[i]
        elif kind == 1:
            toks.insert(i, toks[i])
        elif kind == 2:
            depth = rng.choice([1, 3, 150, 2000])
            toks[i] = "(" * depth + toks[i] + ")" * depth
        elif kind == 3:
            toks[i] = "!" * rng.choice([1, 2, 150, 5000]) + toks[i]
        elif kind == 4:
            toks[i] = rng.choice(["9" * 30, "9" * 5000, "-1", "0", "18446744073709551616"])
        elif kind == 5:
            toks[i] = rng.choice(["@", "ü", "\t", "\n", '"', "#", "[", "]", "//", "=", ";"])
        else:
            j = rng.choice(words)
            toks[i], toks[j] = toks[j], toks[i]
    return "".join(toks)


def _check_error(exc: TheorybenchError, text: str):
    if isinstance(exc, ProgramError):
        for p in exc.problems:
            # a problem of the text is located; whole-program ones (no output, ...) may not be
            assert p.line is None or 1 <= p.line <= len(program_files.program_lines(text)) + 1, \
                (p, text[:200])


@pytest.mark.parametrize("lang", ["crasp", "brasp"])
def test_mutated_programs_give_a_result_or_a_located_error(lang):
    rng = random.Random(17 if lang == "crasp" else 18)
    lib = crasp.library() if lang == "crasp" else bprograms.library()
    texts = [e.text for e in lib.values()]
    outcomes = {"ran": 0, "error": 0}
    for _ in range(COUNT):
        text = _mutate(rng.choice(texts), rng)
        try:
            if lang == "crasp":
                prog = crasp.parse(text)
                crasp.check(prog)
                alpha = prog.alphabet or ("0", "1")
                crasp.run(prog, [" ".join(rng.choice(alpha) for _ in range(5)), alpha[0]],
                          alphabet=alpha)
            else:
                prog = bparser.parse(text)
                alpha = prog.alphabet or ("0", "1")
                binterpret.run(prog, [[rng.choice(alpha) for _ in range(5)], [alpha[0]]])
            outcomes["ran"] += 1
        except TheorybenchError as exc:
            _check_error(exc, text)
            outcomes["error"] += 1
        except Exception as exc:  # noqa: BLE001 - the failure this test looks for
            pytest.fail(f"{type(exc).__name__}: {exc}\n--- program ---\n{text[:1500]}")
    assert outcomes["ran"] and outcomes["error"], outcomes  # both kinds were exercised


def _outcome(lang: str, text: str):
    """What parsing and validating gives: the statement count, or every problem located."""
    try:
        prog = crasp.load(text, "p") if lang == "crasp" else bparser.parse(text, "p")
    except ProgramError as exc:
        return [(p.line, p.column, p.message) for p in exc.problems]
    return len(prog.statements if lang == "crasp" else prog.stmts)


def _other_editor(text: str, rng: random.Random) -> str:
    """The text as another editor saves it: a byte-order mark, CRLF or lone-CR line ends."""
    eol = rng.choice(["\n", "\r\n", "\r"])
    bom = rng.choice(["", "\ufeff"])
    if eol == "\n" and not bom:
        eol = "\r\n"
    return bom + text.replace("\n", eol)


@pytest.mark.parametrize("lang", ["crasp", "brasp"])
def test_bom_crlf_and_line_separators_keep_line_and_column(lang):
    rng = random.Random(19 if lang == "crasp" else 20)
    lib = crasp.library() if lang == "crasp" else bprograms.library()
    texts = [e.text for e in lib.values()]
    for _ in range(max(1, COUNT // 6)):
        text = rng.choice(texts)
        if rng.random() < 0.5:
            text = _mutate(text, rng)
        plain = _outcome(lang, text)
        moved = _other_editor(text, rng)
        assert _outcome(lang, moved) == plain, (repr(moved[:300]), plain)
        # a separator that editors do not break at: refused exactly where it stands
        at = rng.randrange(len(text) + 1)
        sep = rng.choice(["\u2028", "\u2029", "\x85"])
        odd = text[:at] + sep + text[at:]
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        found = _outcome(lang, _other_editor(odd, rng) if rng.random() < 0.5 else odd)
        assert isinstance(found, list), repr(odd[:300])
        assert any((ln, c) == (line, col) and f"U+{ord(sep):04X}" in m
                   for ln, c, m in found), (repr(odd[:300]), line, col, found)
