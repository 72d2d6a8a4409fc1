"""The ``.br`` text syntax of B-RASP, parsed with lark (one statement per line).

Syntax (``//`` starts a comment; blank lines are ignored)::

    alphabet "0" "1"                        // optional: the token set (inputs are checked)
    one  = "1"                              // position-wise: token test at i
    bad  = !one && (P || false)             // ! binds tighter than &&, && tighter than ||
    seen = leftmost j < i ["0"(j)] true : false
    last = rightmost j > i [true] P(j) && Q(i) : one
    out  = !seen && one
    output out                              // optional: default is the last statement
    // or, for a task whose answer is a token (k-hop): the first listed vector true at n
    // names the answer, else the last label:   output "a": A, "b": B, else "_"

Attention ``NAME = leftmost|rightmost j [< i | > i] [SCORE] VALUE : DEFAULT``: the mask is
strict (j < i or j > i) or absent (all j).  Inside SCORE and VALUE every vector and token
test names its position: ``P(i)`` (the query position) or ``P(j)`` (the attended one);
DEFAULT and position-wise statements are at i (``P`` means ``P(i)``).
B-RASP[pos] adds comparisons of position terms: ``i``, ``j``, ``n`` (the length), integer
constants, ``+``/``-``, ``t % p`` and ``t / p`` (floor division; both bind tighter
than ``+``/``-`` and apply to i, j, n, a constant or tokpos; no parentheses in terms) and ``tokpos(i)``/``tokpos(j)`` (the position a numeral token names, see
``interpret``), compared with ``== != < <= > >=``, e.g. ``j == i - 1``, ``j <= 3``,
``i % 2 == 0``.  Positions are 1-based.  ``i``, ``j``, ``n``, ``true``, ``false``,
``leftmost``, ``rightmost``, ``tokpos``, ``output``, ``alphabet`` and ``else`` are
reserved.

Each line is parsed on its own, so every syntax error in a file is reported at once (line,
column, the offending text and what was expected); then :func:`validate.problems` checks
the whole program. Line structure is :func:`..program_files.program_lines`'s (a leading
byte-order mark dropped; ``\n``, ``\r\n``, lone ``\r`` end lines; U+2028 and the like
refused where they stand).
"""

from __future__ import annotations

import re

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                             UnexpectedToken, VisitError)

from ..program_files import line_problem, program_lines, read_program_text, too_deep
from ...errors import ProgramError, ProgramProblem
from . import ast as A
from .validate import problems as check

GRAMMAR = r"""
?start: stmt
stmt: NAME "=" expr                                              -> assign
    | NAME "=" direction J mask? "[" expr "]" expr ":" expr     -> attend
    | "output" NAME                                              -> output
    | "output" case ("," case)* "," "else" STRING                -> output_classes
    | "alphabet" STRING+                                         -> alphabet
case: STRING ":" NAME
mask: CMPOP I
direction: LEFTMOST | RIGHTMOST
LEFTMOST: "leftmost"
RIGHTMOST: "rightmost"

?expr: or_expr
?or_expr: and_expr ("||" and_expr)*
?and_expr: not_expr ("&&" not_expr)*
?not_expr: "!" not_expr                  -> not_
         | atom
?atom: "true"                            -> true
     | "false"                           -> false
     | NAME                              -> bare_ref
     | NAME "(" pos ")"                  -> ref
     | STRING                            -> bare_tok
     | STRING "(" pos ")"                -> tok
     | "(" expr ")"
     | term CMPOP term                   -> cmp

?term: factor
     | term ADDOP factor                 -> arith
?factor: base
       | base "%" INT                    -> mod
       | base "/" INT                    -> div
?base: pos                               -> var
     | N                                 -> nvar
     | INT                               -> int_
     | "tokpos" "(" pos ")"              -> tokpos
pos: I | J

I: "i"
J: "j"
N: "n"
CMPOP: "==" | "!=" | "<=" | ">=" | "<" | ">"
ADDOP: "+" | "-"
NAME: /[A-Za-z_][A-Za-z0-9_]*/
STRING: /"(\\.|[^"\\])*"/
INT: /[0-9]+/
%ignore /[ \t\f\r]+/
"""

_PARSER = Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False)

_NICE = {"NAME": "a name", "STRING": "a token in double quotes", "INT": "an integer",
         "POS": "i or j", "CMPOP": "a comparison (== != < <= > >=)", "ADDOP": "+ or -",
         "LEFTMOST": "leftmost", "RIGHTMOST": "rightmost", "EQUAL": "=", "LPAR": "(", "RPAR": ")",
         "LSQB": "[", "RSQB": "]", "COLON": ":", "BANG": "!", "OROR": "||", "ANDAND": "&&",
         "TRUE": "true", "FALSE": "false", "PERCENT": "%", "SLASH": "/", "$END": "end of line",
         "OUTPUT": "output", "ALPHABET": "alphabet", "J": "j", "I": "i", "N": "n",
         "TOKPOS": "tokpos"}


def _unquote(s: str) -> str:
    body = s[1:-1]
    out, k = [], 0
    while k < len(body):
        if body[k] == "\\" and k + 1 < len(body):
            out.append(body[k + 1])
            k += 2
        else:
            out.append(body[k])
            k += 1
    return "".join(out)


class _Build(Transformer):
    def __init__(self, line: int):
        super().__init__()
        self.line = line

    def _loc(self, tok) -> tuple:
        return (self.line, tok.column) if isinstance(tok, Token) and tok.column else ()

    @v_args(meta=True)
    def assign(self, meta, items):
        name, expr = items
        return A.Assign(str(name), expr, (self.line, meta.column))

    @v_args(meta=True)
    def attend(self, meta, items):
        name, direction, _j, *rest = items
        mask = ""
        if isinstance(rest[0], tuple) and rest[0] and rest[0][0] == "mask":
            mask = rest[0][1]
            rest = rest[1:]
        score, value, default = rest
        return A.Attend(str(name), str(direction), mask, score, value, default,
                        (self.line, meta.column))

    def mask(self, items):
        op = items[0]
        return ("mask", str(op), self._loc(op))

    def output(self, items):
        return ("output", str(items[0]), self._loc(items[0]))

    def case(self, items):
        return (_unquote(str(items[0])), str(items[1]))

    def output_classes(self, items):
        return ("classes", tuple(items[:-1]), _unquote(str(items[-1])), (self.line, 1))

    def alphabet(self, items):
        return ("alphabet", tuple(_unquote(str(s)) for s in items), self._loc(items[0]))

    def or_expr(self, items):
        return A.Or(tuple(items))

    def and_expr(self, items):
        return A.And(tuple(items))

    def not_(self, items):
        return A.Not(items[0])

    def true(self, _):
        return A.Const(True)

    def false(self, _):
        return A.Const(False)

    def bare_ref(self, items):
        return A.Ref(str(items[0]), "i", False, self._loc(items[0]))

    def ref(self, items):
        return A.Ref(str(items[0]), str(items[1]), True, self._loc(items[0]))

    def bare_tok(self, items):
        return A.Tok(_unquote(str(items[0])), "i", False, self._loc(items[0]))

    def tok(self, items):
        return A.Tok(_unquote(str(items[0])), str(items[1]), True, self._loc(items[0]))

    def cmp(self, items):
        left, op, right = items
        return A.PosCmp(str(op), left, right, self._loc(op))

    def arith(self, items):
        left, op, right = items
        return A.Arith(str(op), left, right)

    def mod(self, items):
        return A.Mod(items[0], int(items[1]))

    def direction(self, items):
        return items[0]

    def pos(self, items):
        return items[0]

    def div(self, items):
        return A.Div(items[0], int(items[1]))

    def var(self, items):
        return A.Var(str(items[0]), self._loc(items[0]))

    def nvar(self, _):
        return A.Var("n")

    def int_(self, items):
        return A.Int(int(items[0]))

    def tokpos(self, items):
        return A.TokPos(str(items[0]), self._loc(items[0]))


RESERVED = ("i", "j", "n", "true", "false", "leftmost", "rightmost", "tokpos", "output",
            "alphabet", "else")
_RESERVED_DEF = re.compile(r"^(\s*)(" + "|".join(RESERVED) + r")\s*=(?!=)")


def _strip_comment(line: str) -> str:
    out, in_str, k = [], False, 0
    while k < len(line):
        ch = line[k]
        if in_str:
            out.append(ch)
            if ch == "\\" and k + 1 < len(line):
                out.append(line[k + 1])
                k += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif line.startswith("//", k):
            break
        else:
            out.append(ch)
        k += 1
    return "".join(out)


def _syntax_problem(exc: UnexpectedInput, line: int, text: str) -> ProgramProblem:
    col = getattr(exc, "column", None)
    if isinstance(exc, UnexpectedCharacters):
        bad = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else "?"
        return ProgramProblem(f"unexpected character {bad!r}", line, col)
    expected = sorted({_NICE.get(e, e.lower().strip('"')) for e in (exc.expected or ())})
    exp = f"; expected {', '.join(expected)}" if expected else ""
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        return ProgramProblem(f"the statement ends too early{exp}", line, len(text.rstrip()) + 1)
    tok = exc.token
    hint = ""
    if str(tok) in ("i", "j", "n") and "NAME" in (exc.expected or ()):
        hint = f" ({tok!s} is reserved: it is a position variable)"
    return ProgramProblem(f"unexpected {str(tok)!r}{hint}{exp}", line, tok.column)


def parse_lines(text: str) -> tuple[A.Program | None, list[ProgramProblem]]:
    """Parse without validating: (program or None, syntax problems)."""
    stmts, problems = [], []
    output, output_loc, alphabet, classes, otherwise = None, (), None, None, None
    for number, raw, odd in program_lines(text):
        if odd is not None:  # checked before comments are cut: one there hides code
            problems.append(odd)
            continue
        line = _strip_comment(raw)
        if not line.strip():
            continue
        reserved = _RESERVED_DEF.match(line)
        if reserved:
            problems.append(ProgramProblem(
                f"{reserved.group(2)!r} is a reserved word and cannot be defined; choose "
                f"another name", number, len(reserved.group(1)) + 1))
            continue
        size = line_problem(line, number)
        if size is not None:
            problems.append(size)
            continue
        try:
            tree = _PARSER.parse(line)
            node = _Build(number).transform(tree)
        except UnexpectedInput as exc:
            problems.append(_syntax_problem(exc, number, line))
            continue
        except RecursionError:
            problems.append(too_deep(number))
            continue
        except VisitError as exc:  # lark wraps what the tree builder raises
            if isinstance(exc.orig_exc, RecursionError):
                problems.append(too_deep(number))
                continue
            raise
        if isinstance(node, tuple) and node[0] in ("output", "classes"):
            if output is not None or classes is not None:
                problems.append(ProgramProblem("a second output statement (only one allowed)",
                                               number, 1))
            if node[0] == "output":
                output, output_loc = node[1], node[2]
            else:
                classes, otherwise, output_loc = node[1], node[2], node[3]
        elif isinstance(node, tuple) and node[0] == "alphabet":
            if alphabet is not None:
                problems.append(ProgramProblem("a second alphabet statement (only one allowed)",
                                               number, 1))
            alphabet = node[1]
        else:
            stmts.append(node)
    if problems:
        return None, problems
    return A.Program(tuple(stmts), output, alphabet, output_loc, classes, otherwise), []


def parse(text: str, source_name: str = "<program>", validate: bool = True,
          positional: bool = True) -> A.Program:
    """Parse (and by default validate) ``.br`` text; :class:`ProgramError` lists every
    problem.  ``positional=False`` rejects B-RASP[pos] features."""
    program, problems = parse_lines(text)
    if problems:
        raise ProgramError(problems, source_name)
    if validate:
        found = check(program, positional=positional)
        if found:
            raise ProgramError(found, source_name)
    return program


def parse_file(path, validate: bool = True, positional: bool = True) -> A.Program:
    """Parse a ``.br`` file (read by the shared loader: regular files of bounded size)."""
    return parse(read_program_text(path), str(path), validate, positional)
