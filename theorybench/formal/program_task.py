"""The languages of :data:`theorybench.tasks.user_program.LANGUAGES`: a ``.cr`` (C-RASP) or
``.br`` (B-RASP) program file as a task, its label the vectorized interpreter's accept bit
and its oracle the naive one-row interpreter (which shares nothing with the vectorized
one but the syntax tree).

Each program is also placed in its fragment, which decides for which theory column it may
count as evidence: a C-RASP program with an ``#import`` is in C-RASP[periodic, local]
(Huang et al., ICLR 2025, Def. 8), not plain C-RASP (Yang & Chiang, COLM 2024); a B-RASP
program that compares positions is B-RASP[pos], not plain B-RASP (Yang, Chiang & Angluin,
NeurIPS 2024, Sec. 7).
"""

from __future__ import annotations

import numpy as np

from ..errors import ProgramError, ProgramProblem
from ..tasks.user_program import LANGUAGES, Language, LoadedProgram
from .brasp import ast as BA
from .brasp.interpret import accept as brasp_accept
from .brasp.naive import accept_row
from .brasp.parser import parse as parse_brasp
from .crasp.interpret import Interpreter
from .crasp.naive import naive_accepts
from .crasp.validate import load as load_crasp


def crasp_fragment(program) -> str:
    """"C-RASP", or "C-RASP[periodic, local]" when the program imports a positional
    predicate (``#import prev``, ``#import mod_3_1``, ...)."""
    return "C-RASP[periodic, local]" if program.imports else "C-RASP"


def brasp_fragment(program) -> str:
    return "B-RASP[pos]" if BA.uses_positions(program) else "B-RASP"


def _rows(x: np.ndarray, alphabet) -> list[list[str]]:
    return [[alphabet[int(t)] for t in row] for row in np.asarray(x)]


def load_crasp_task(text: str, source: str, alphabet) -> LoadedProgram:
    program = load_crasp(text, source, alphabet)
    interps: dict[tuple, Interpreter] = {}

    def accept(x, vocab):
        key = tuple(vocab)
        if key not in interps:
            interps[key] = Interpreter(program.with_alphabet(key), key)
        return interps[key].accepts(np.asarray(x, dtype=np.int64), key)

    def naive(x, vocab):
        prog = program.with_alphabet(tuple(vocab))
        return np.array([naive_accepts(prog, row) for row in _rows(x, vocab)], dtype=np.int64)

    return LoadedProgram("C-RASP", crasp_fragment(program), program, program.alphabet,
                         accept, naive)


def load_brasp_task(text: str, source: str, alphabet) -> LoadedProgram:
    program = parse_brasp(text, source)
    if program.classes is not None:
        raise ProgramError([ProgramProblem(
            "a program with several output classes is not a language; give one output "
            "vector (the accept bit at the last position)", None)], source)

    def accept(x, vocab):
        return brasp_accept(program, np.asarray(x, dtype=np.int64), tuple(vocab))

    def naive(x, vocab):
        return np.array([accept_row(program, row) for row in _rows(x, vocab)], dtype=np.int64)

    return LoadedProgram("B-RASP", brasp_fragment(program), program, program.alphabet,
                         accept, naive)


LANGUAGES.register(Language(".cr", "C-RASP", load_crasp_task), name=".cr")
LANGUAGES.register(Language(".br", "B-RASP", load_brasp_task), name=".br")

__all__ = ["crasp_fragment", "brasp_fragment", "load_crasp_task", "load_brasp_task"]
