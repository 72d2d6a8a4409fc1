"""B-RASP and B-RASP[pos]: the programming language of the Star-free theory.

Yang, Chiang & Angluin, "Masked hard-attention transformers recognize exactly the
star-free languages" (NeurIPS 2024, arXiv 2310.13897): B-RASP programs, masked
hard-attention transformers, LTL and FO[<] all define exactly the star-free languages.

Modules: ``ast`` (nodes, printing, depth and size), ``parser`` (the ``.br`` text syntax,
lark), ``validate`` (every static problem), ``dsl`` (building programs in Python),
``interpret`` (vectorized interpreter), ``naive`` (per-position reference interpreter),
``trace`` (text / HTML traces), ``check`` (a program against a task), ``programs`` (the
library and its recipes).
"""

from .ast import Program, depth, size, to_text, uses_positions
from .check import CheckReport, check_against_task
from .interpret import Trace, accept, run
from .parser import parse, parse_file
from .programs import for_task, library, load_program
from .validate import problems

__all__ = ["Program", "depth", "size", "to_text", "uses_positions", "CheckReport",
           "check_against_task", "Trace", "accept", "run", "parse", "parse_file", "for_task",
           "library", "load_program", "problems"]
