"""C-RASP (Yang & Chiang, "Counting like transformers", COLM 2024) as an executable model:
text syntax (``.cr`` files compatible with the public interpreter), an embedded DSL,
a validator, a vectorized interpreter with traces, a naive reference interpreter, a
program library, and checks against the task suite. The theory's rules live in
``theorybench/theories/crasp.py``.

Quick use::

    from theorybench.formal import crasp
    prog = crasp.parse('ones = # "1"\\nzeros = # "0"\\nmaj = ones > zeros\\n')
    crasp.run(prog, ["1 0 1", "0 0 1"]).accept      # array([ True, False])
"""

from .ast import EOS, Program, expr_text, size, to_text
from .dsl import Builder, count, max_, min_, ref, tok, where
from .check import CheckReport, check_against_task
from .interpret import Interpreter, Run, run
from .naive import naive_accepts, naive_values
from .parser import parse, parse_expr
from .programs import for_task, library, load_program, program_text, sparse_program
from .trace import trace_html, trace_text
from .validate import check, lint, load, parse_file, problems

__all__ = ["EOS", "Builder", "Program", "count", "expr_text", "max_", "min_", "ref", "size",
           "to_text", "tok", "where", "CheckReport", "check_against_task", "Interpreter", "Run",
           "run", "naive_accepts", "naive_values", "load", "parse", "parse_expr", "parse_file",
           "for_task", "library", "load_program", "sparse_program", "trace_html", "trace_text",
           "check", "problems", "lint", "program_text"]
