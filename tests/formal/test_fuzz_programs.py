"""Mutated library programs (.cr and .br): tokens deleted, duplicated, nested, replaced by
huge numbers or stray characters. Each must parse, validate and run, or fail with a
:class:`TheorybenchError` whose program problems carry a line number; never a traceback.

``THEORYBENCH_FUZZ=N`` mutates N programs per language (default 300).
"""

from __future__ import annotations

import os
import random
import re

import pytest

from theorybench.errors import ProgramError, TheorybenchError
from theorybench.formal import crasp
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
            assert p.line is None or 1 <= p.line <= text.count("\n") + 2, (p, text[:200])


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
