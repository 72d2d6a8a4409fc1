"""Text -> :class:`~.ast.Program`, with syntax errors that say where and what was expected.

``parse(text)`` parses every line (a statement is one line) and raises one
:class:`ProgramError` listing the syntax problems of *all* lines, each with its line,
column, the offending text and what was expected. It does not type-check: that is
:func:`.validate.check`. :func:`load` runs both, and is what every consumer of program
text uses (files, the library, the commands, the compiler's callers): a program is never
used before it has been validated.

Line structure is :func:`..program_files.program_lines`'s: a leading byte-order mark is
dropped, ``\n``, ``\r\n`` and a lone ``\r`` end a line, and U+2028, U+2029, U+0085 (and
the other breaks only ``str.splitlines`` knows) are refused where they stand.

A comment line ``// alphabet: a b c`` declares the program's input alphabet (an
extension; the public tool ignores it as a comment).
"""

from __future__ import annotations

import functools
import re

from lark import Lark, Token as LarkToken, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError

from ..program_files import line_problem, program_lines, too_deep
from ...errors import ProgramError, ProgramProblem
from . import ast as A
from .grammar import GRAMMAR, KEYWORDS, TERMINAL_TEXT

_ALPHABET = re.compile(r"^\s*//\s*alphabet\s*:(.*)$")


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(GRAMMAR, start="line", parser="lalr", lexer="contextual",
                propagate_positions=True, maybe_placeholders=False)


class _ProductError(Exception):
    def __init__(self, problem: ProgramProblem):
        self.problem = problem


def _p(tok_or_meta) -> A.Pos:
    line = getattr(tok_or_meta, "line", None)
    col = getattr(tok_or_meta, "column", None)
    return (line, col) if line is not None else None


@v_args(meta=True)
class _ToAst(Transformer):
    def __init__(self, line_no: int):
        super().__init__()
        self.line_no = line_no

    def _pos(self, meta) -> A.Pos:
        col = getattr(meta, "column", None)
        return (self.line_no, col) if col is not None else None

    def line(self, meta, children):
        return children[0] if children else None

    def assign(self, meta, c):
        return A.Assign(str(c[0]), c[1], (self.line_no, c[0].column))

    def import_stmt(self, meta, c):
        return A.Import(str(c[1]), (self.line_no, c[1].column))

    def cond(self, meta, c):
        return A.Cond(c[0], c[1], c[2], self._pos(meta))

    def or_(self, meta, c):
        return A.Or(c[0], c[1], self._pos(meta))

    def and_(self, meta, c):
        return A.And(c[0], c[1], self._pos(meta))

    def compare(self, meta, c):
        return A.Compare(str(c[1]), c[0], c[2], self._pos(meta))

    def add(self, meta, c):
        return A.Add(c[0], c[2], self._pos(meta))

    def sub(self, meta, c):
        return A.Sub(c[0], c[2], self._pos(meta))

    def mul(self, meta, c):
        left, star, right = c
        pos = self._pos(meta)
        if isinstance(left, A.IntConst):
            return A.Scale(left.value, right, pos)
        if isinstance(right, A.IntConst):
            return A.Scale(right.value, left, pos)
        raise _ProductError(ProgramProblem(
            f"'*' needs an integer literal on one side (C-RASP has only constant "
            f"multiples k * count): got {A.expr_text(left)} * {A.expr_text(right)}",
            *pos))

    def not_(self, meta, c):
        return A.Not(c[0], self._pos(meta))

    def count(self, meta, c):
        return A.Count(c[0], None, self._pos(meta))

    def guarded_count(self, meta, c):
        return A.Count(c[1], str(c[0]), self._pos(meta))

    def token(self, meta, c):
        return A.Token(str(c[0])[1:-1], (self.line_no, c[0].column))

    def int_(self, meta, c):
        return A.IntConst(int(c[0]), (self.line_no, c[0].column))

    def true(self, meta, c):
        return A.BoolConst(True, self._pos(meta))

    def false(self, meta, c):
        return A.BoolConst(False, self._pos(meta))

    def ref(self, meta, c):
        return A.Ref(str(c[0]), (self.line_no, c[0].column))

    def min_(self, meta, c):
        return A.Min(c[0], c[1], self._pos(meta))

    def max_(self, meta, c):
        return A.Max(c[0], c[1], self._pos(meta))


def _expected_text(names) -> str:
    parser = _lark()
    shown = set()
    for name in names:
        if name in TERMINAL_TEXT:
            shown.add(TERMINAL_TEXT[name])
            continue
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            shown.add(name)
            continue
        shown.add(f"'{pattern.value}'" if pattern.type == "str" else name)
    return ", ".join(sorted(shown))


def _syntax_problem(exc: UnexpectedInput, text: str, line_no: int) -> ProgramProblem:
    col = exc.column if isinstance(exc.column, int) and exc.column > 0 else len(text) + 1
    if isinstance(exc, UnexpectedCharacters):
        bad = text[col - 1: col] if col - 1 < len(text) else ""
        msg = f"unexpected character {bad!r}"
        if bad == '"':
            msg += " (an unterminated token literal? literals are \"...\" on one line)"
        exp = _expected_text(exc.allowed or ())
    else:
        tok = getattr(exc, "token", None)
        if tok is None or tok.type == "$END":
            msg, col = "unexpected end of line", len(text.rstrip()) + 1
        else:
            msg = f"unexpected {str(tok)!r}"
            if tok.type == "NAME" and str(tok) in KEYWORDS:
                msg += " (a reserved word)"
            elif str(tok) in KEYWORDS and getattr(exc, "expected", None) and "NAME" in exc.expected:
                msg += f" ({tok!s} is a reserved word and cannot be a name)"
        exp = _expected_text(getattr(exc, "expected", None) or ())
    if exp:
        msg += f"; expected {exp}"
    return ProgramProblem(msg, line_no, col)


def parse_line(text: str, line_no: int = 1):
    """One line -> an Assign, an Import, or None (blank/comment); raises ProgramError."""
    size = line_problem(text, line_no)
    if size is not None:
        raise ProgramError([size])
    try:
        tree = _lark().parse(text)
    except UnexpectedInput as exc:
        raise ProgramError([_syntax_problem(exc, text, line_no)]) from None
    except RecursionError:
        raise ProgramError([too_deep(line_no)]) from None
    try:
        return _ToAst(line_no).transform(tree)
    except RecursionError:
        raise ProgramError([too_deep(line_no)]) from None
    except VisitError as exc:
        if isinstance(exc.orig_exc, _ProductError):
            raise ProgramError([exc.orig_exc.problem]) from None
        if isinstance(exc.orig_exc, RecursionError):
            raise ProgramError([too_deep(line_no)]) from None
        raise


def parse(text: str, source_name: str = "<program>") -> A.Program:
    """Parse program text; raise :class:`ProgramError` listing every syntax problem."""
    program, problems, _ = parse_partial(text, source_name)
    if problems:
        raise ProgramError(problems, source_name)
    return program


_DEF_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=")


def parse_partial(text: str, source_name: str = "<program>"):
    """(program of the lines that parse, syntax problems, names on lines that did not).

    For linting: the valid lines can still be validated, and references to a name whose
    definition line has a syntax error are not reported again as undefined."""
    statements, problems, alphabet, broken = [], [], None, set()
    for line_no, line, odd in program_lines(text):
        if odd is not None:
            problems.append(odd)
            m = _DEF_NAME.match(line)
            if m:
                broken.add(m.group(1))
            continue
        m = _ALPHABET.match(line)
        if m:
            alphabet = tuple(m.group(1).split())
            continue
        try:
            stmt = parse_line(line, line_no)
        except ProgramError as err:
            problems.extend(err.problems)
            m = _DEF_NAME.match(line)
            if m:
                broken.add(m.group(1))
            continue
        if stmt is not None:
            statements.append(stmt)
    return A.Program(tuple(statements), alphabet, source_name), problems, broken


def parse_expr(text: str) -> A.Expr:
    """Parse a single expression (for tests and the DSL): ``parse_expr('# "a" > 1')``."""
    stmt = parse_line(f"__expr__ = {text}")
    if not isinstance(stmt, A.Assign):
        raise ProgramError([ProgramProblem("expected an expression", 1, 1)])
    return stmt.expr
