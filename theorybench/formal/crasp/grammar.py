"""The C-RASP text syntax as a lark grammar (LALR, contextual lexer).

Compatible with the ``.cr`` files of the public C-RASP interpreter (coli-saar/c-rasp):
one statement per line, ``NAME = expr`` or ``#import NAME``; ``// comments``; token tests
are string literals ``"a"``; ``#`` is the prefix count, ``#[pred] expr`` a count guarded
by an imported binary predicate. The grammar is parsed one line at a time (a statement
never spans lines), so that every line's syntax error can be reported at once.

Precedence, loosest first (the public tool leaves it unspecified; this one defines it):
``A if C else B`` < ``||`` < ``&&`` < comparisons (non-associative) < ``+ -`` <
``*`` (an integer literal on one side) < prefix ``! # #[g]`` < atoms. So ``# "a" == 0``
is ``(# "a") == 0``, ``!x && y`` is ``(!x) && y``, and ``1 if "a" else 0`` is a count.
"""

GRAMMAR = r"""
line: [statement]

?statement: NAME "=" expr                 -> assign
          | IMPORT NAME                   -> import_stmt

?expr: or_expr
     | or_expr "if" or_expr "else" expr   -> cond

?or_expr: and_expr
        | or_expr "||" and_expr           -> or_

?and_expr: cmp_expr
         | and_expr "&&" cmp_expr         -> and_

?cmp_expr: sum_expr
         | sum_expr CMP sum_expr          -> compare

?sum_expr: prod_expr
         | sum_expr PLUS prod_expr        -> add
         | sum_expr MINUS prod_expr       -> sub

?prod_expr: prefix
          | prefix STAR prod_expr         -> mul

?prefix: atom
       | "!" prefix                       -> not_
       | "#" prefix                       -> count
       | "#" "[" NAME "]" prefix          -> guarded_count

?atom: STRING                             -> token
     | INT                                -> int_
     | "true"                             -> true
     | "false"                            -> false
     | NAME                               -> ref
     | "(" expr ")"
     | "min" "(" expr "," expr ")"        -> min_
     | "max" "(" expr "," expr ")"        -> max_

IMPORT: /#import\b/
CMP: "==" | "!=" | "<=" | ">=" | "<" | ">"
PLUS: "+"
MINUS: "-"
STAR: "*"
NAME: /[A-Za-z_][A-Za-z_0-9]*/
STRING: /"[^"\n]*"/
INT: /[0-9]+/
COMMENT: /\/\/[^\n]*/
%ignore COMMENT
%ignore /[ \t\r\f]+/
"""

#: Reserved words (not usable as names).
KEYWORDS = ("true", "false", "if", "else", "min", "max")

#: How terminals are shown in "expected ..." messages.
TERMINAL_TEXT = {
    "NAME": "a name", "STRING": 'a token literal like "a"', "INT": "an integer",
    "CMP": "a comparison (== != < > <= >=)", "IMPORT": "#import", "PLUS": "'+'",
    "MINUS": "'-'", "STAR": "'*'", "$END": "end of line",
}
