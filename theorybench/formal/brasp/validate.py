"""Static checks of a B-RASP program: every problem, with its position and a reason.

Checked: a name used before (or without) its definition, a name defined twice, a
reference at j outside an attention's score/value (j exists only there), a bare reference
inside score/value (say P(i) or P(j)), position terms mentioning j outside score/value,
a mask other than j < i / j > i, token tests outside the declared alphabet, an undefined
output, an empty program, and - when ``positional=False`` (plain B-RASP) - any
B-RASP[pos] feature (position comparisons).
"""

from __future__ import annotations

from ...errors import ProgramProblem
from . import ast as A


def _loc(node, fallback) -> tuple:
    loc = getattr(node, "loc", ()) or fallback or ()
    return tuple(loc) if loc else (None, None)


def _expr_problems(expr, where: str, binary: bool, defined: set, alphabet, stmt_loc,
                   positional: bool, out: list) -> None:
    for node in A.walk(expr):
        line, col = _loc(node, stmt_loc)
        if isinstance(node, (A.Ref, A.Tok)):
            ref = isinstance(node, A.Ref)
            shown = node.name if ref else f'"{node.symbol}"'
            bare = f"a bare {node.name!r}" if ref else "a bare token test"
            if ref and node.name not in defined:
                out.append(ProgramProblem(
                    f"{node.name!r} is not defined before this line (define it on an earlier "
                    f"line; programs are straight-line)", line, col))
            if binary and not node.explicit:
                out.append(ProgramProblem(
                    f"in an attention {where}, say {shown}(i) or {shown}(j): {bare} does not "
                    f"say which position it is read at", line, col))
            if not ref and alphabet is not None and node.symbol not in alphabet:
                out.append(ProgramProblem(
                    f"token {node.symbol!r} is not in the declared alphabet "
                    f"({' '.join(alphabet)})", line, col))
            if not binary and node.at == "j":
                out.append(ProgramProblem(
                    f"{shown}(j) in a {where}: j exists only inside an attention's score "
                    f"and value", line, col))
        elif isinstance(node, A.PosCmp):
            if not positional:
                out.append(ProgramProblem(
                    "a position comparison needs B-RASP[pos]; plain B-RASP (star_free) has no "
                    "position information", line, col))
            for t in A.walk(node):
                if isinstance(t, A.Mod) and t.modulus <= 0:
                    out.append(ProgramProblem(
                        f"% {t.modulus}: the modulus must be a positive integer", line, col))
                if isinstance(t, A.Div) and t.divisor <= 0:
                    out.append(ProgramProblem(
                        f"/ {t.divisor}: the divisor must be a positive integer", line, col))
                if not binary and ((isinstance(t, A.Var) and t.name == "j")
                                   or (isinstance(t, A.TokPos) and t.at == "j")):
                    tl, tc = _loc(t, (line, col))
                    out.append(ProgramProblem(
                        f"position j in a {where}: j exists only inside an attention's score "
                        f"and value", tl, tc))


def problems(program: A.Program, positional: bool = True) -> list[ProgramProblem]:
    """Every problem of ``program`` (empty list when it is valid)."""
    out: list[ProgramProblem] = []
    if not program.stmts:
        out.append(ProgramProblem("the program has no statements; write at least one "
                                  "definition NAME = ...", 1, 1))
        return out
    defined: set[str] = set()
    first: dict[str, tuple] = {}
    alphabet = program.alphabet
    for s in program.stmts:
        sl = s.loc or (None, None)
        if isinstance(s, A.Assign):
            _expr_problems(s.expr, "position-wise definition", False, defined, alphabet, sl,
                           positional, out)
        else:
            if s.mask not in ("<", ">", ""):
                out.append(ProgramProblem(
                    f"mask j {s.mask} i is not allowed: masks are strict (j < i or j > i) or "
                    f"absent", *sl))
            _expr_problems(s.score, "score", True, defined, alphabet, sl, positional, out)
            _expr_problems(s.value, "value", True, defined, alphabet, sl, positional, out)
            _expr_problems(s.default, "default", False, defined, alphabet, sl, positional, out)
        if s.name in defined:
            pl, _ = first[s.name]
            out.append(ProgramProblem(
                f"{s.name!r} is defined again (first defined on line {pl}); B-RASP vectors are "
                f"defined once - use a new name", *sl))
        else:
            first[s.name] = sl
        defined.add(s.name)
    outs = [name for _, name in program.classes] if program.classes else (
        [program.output] if program.output is not None else [])
    for name in outs:
        if name not in defined:
            out.append(ProgramProblem(f"the output {name!r} is not defined",
                                      *(program.output_loc or (None, None))))
    out.sort(key=lambda p: (p.line or 0, p.column or 0))
    return out
