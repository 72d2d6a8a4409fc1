"""The B-RASP program library: ``library/*.br`` files and the recipes they come from.

Each library file is an ordinary ``.br`` program whose leading comments carry metadata:

    // family: index_all           the task family it decides
    // requires: k=3 mode=tokens   task parameter values it is written for (optional)

A program that uses position comparisons (or ``tokpos``) is B-RASP[pos]; the others are
plain B-RASP.  Families whose programs depend on a parameter have a recipe here
(:func:`sparse_program`, :func:`index_program`, :func:`khop_program`); the shipped files
are those recipes at the default parameters (a test keeps them identical).
:data:`PROGRAMS` is the per-task library (:mod:`theorybench.registry`) of the recipes and
the shipped files; :func:`for_task` returns the first of its programs for a task instance
(or None), preferring plain B-RASP unless ``positional`` asks for the [pos] variant, and
else a plain program found by search (:mod:`..search.programs`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ...registry import BUILTIN, artifact_library
from . import ast as A
from . import dsl as B
from ..program_files import Recipe, add_library_file, library_texts, load_text, resolve
from ..search import programs as search
from .parser import parse, parse_file

_META = re.compile(r"^\s*//\s*(family|requires)\s*:(.*)$")


@dataclass(frozen=True)
class LibraryProgram:
    name: str
    family: str
    requires: tuple
    description: str
    text: str

    @property
    def program(self) -> A.Program:
        return parse(self.text, f"library:{self.name}")

    @property
    def positional(self) -> bool:
        return A.uses_positions(self.program)

    @property
    def source(self) -> str:
        return f"library:{self.name}"

    def name_for(self, task) -> str:
        return self.name

    def instantiate(self, task) -> A.Program:
        return self.program

    def applies_to(self, task) -> bool:
        return task.name == self.family and all(
            str(task.values.get(k)) == v for k, v in self.requires)


def _entry(name: str, text: str) -> LibraryProgram:
    meta = {"family": "", "requires": ""}
    desc = []
    for line in text.splitlines():
        m = _META.match(line)
        if m:
            meta[m.group(1)] = m.group(2).strip()
        elif line.strip().startswith("//"):
            desc.append(line.strip()[2:].strip())
    requires = tuple(tuple(kv.split("=", 1)) for kv in meta["requires"].split() if "=" in kv)
    return LibraryProgram(name, meta["family"] or name, requires, " ".join(desc), text)


@functools.lru_cache(maxsize=1)
def library() -> dict[str, LibraryProgram]:
    """All shipped programs by name (file stem), sorted."""
    return {name: _entry(name, text) for name, text in library_texts(__package__, ".br").items()}


def load_program(name_or_path: str) -> A.Program:
    """A library program by name (``all``) or a ``.br`` file by path."""
    lib = library()
    name, path = resolve(name_or_path, lib, "theorybench brasp list")
    return lib[name].program if name is not None else parse_file(path)


def program_text(name_or_path: str) -> tuple[str, str]:
    """(text, source name) of a library program or a ``.br`` file (for linting)."""
    return load_text(name_or_path, library(), lambda e: e.text, "theorybench brasp list")


# ---- recipes ----------------------------------------------------------------------------

def _position_markers(b: B.Builder, top: int) -> list[str]:
    """Vectors at_1 .. at_top, at_p true exactly at position p, without positions:
    at_1 = no earlier position; at_p = the previous position is at_(p-1)."""
    names = ["at_1"]
    b.let("at_1", B.leftmost(B.TRUE, B.FALSE, B.TRUE, mask="<"))
    for p in range(2, top + 1):
        b.let(f"at_{p}", B.rightmost(B.TRUE, B.ref(f"at_{p - 1}", "j"), B.FALSE, mask="<"))
        names.append(f"at_{p}")
    return names


def _combine(op: str, xs: list) -> B.E:
    if op == "all":
        return B.all_of(*xs)
    if op == "any":
        return B.any_of(*xs)
    acc = xs[0]
    for x in xs[1:]:  # a xor b = (a && !b) || (!a && b)
        acc = (acc & ~x) | (~acc & x)
    return acc


def sparse_program(op: str, positions: tuple[int, ...], positional: bool) -> A.Program:
    """``op`` (all/any/parity) of the bits at the 1-based ``positions``: with [pos], by
    ``j == p``; without, by position markers built from strict masking (size grows
    with max(positions), not with n)."""
    b = B.Builder(alphabet=("0", "1"))
    bits = []
    if not positional:
        _position_markers(b, max(positions))
    for p in positions:
        score = B.J.eq(p) if positional else B.ref(f"at_{p}", "j")
        b.let(f"x_{p}", B.leftmost(score, B.tok("1", "j"), B.FALSE, mask=""))
        bits.append(B.ref(f"x_{p}"))
    b.let("out", _combine(op, bits))
    return b.build()


def index_program(op: str, k: int) -> A.Program:
    """index/index_all/any/parity (query tokens): at a query token, the bit at the position
    it names (``j == tokpos(i)``); then ``op`` of that bit at the last k positions."""
    b = B.Builder()
    b.let("bit", B.leftmost(B.J.eq(B.tokpos("i")), B.tok("1", "j"), B.FALSE, mask="<"))
    bits = [B.ref("bit")]
    for d in range(1, k):
        prev = "bit" if d == 1 else f"bit_back{d - 1}"
        b.let(f"bit_back{d}", B.rightmost(B.TRUE, B.ref(prev, "j"), B.FALSE, mask="<"))
        bits.append(B.ref(f"bit_back{d}"))
    b.let("out", _combine(op, bits) if k > 1 else B.ref("bit"))
    return b.build()


def khop_program(k: int, alphabet=("a", "b", "c", "d"), none: str = "_") -> A.Program:
    """k-hop induction head without positions: prev_s(i) = [x_(i-1) = s] by rightmost
    strict attention; find(i) = the rightmost j < i with x_(j-1) = x_i; hop_1 reads the
    token at find(i), hop_m reads hop_(m-1) at find(i)."""
    b = B.Builder(alphabet=tuple(alphabet))
    for s in alphabet:
        b.let(f"prev_{s}", B.rightmost(B.TRUE, B.tok(s, "j"), B.FALSE, mask="<"))
    match = B.any_of(*[B.tok(s, "i") & B.ref(f"prev_{s}", "j") for s in alphabet])
    for m in range(1, k + 1):
        for s in alphabet:
            val = B.tok(s, "j") if m == 1 else B.ref(f"hop{m - 1}_{s}", "j")
            b.let(f"hop{m}_{s}", B.rightmost(match, val, B.FALSE, mask="<"))
    prog = b.build()
    classes = tuple((s, f"hop{k}_{s}") for s in alphabet)
    return A.Program(prog.stmts, None, prog.alphabet, (), classes, none)


def _fill() -> tuple[str, ...]:
    """The shipped files, each for the family its ``// family:`` header names (after the
    recipes, which are registered below when this module is imported)."""
    for entry in library().values():
        PROGRAMS.add(entry, entry.family, when=entry.applies_to, origin=BUILTIN)
    return ()


#: B-RASP programs per task family: each artifact answers ``instantiate(task)`` (the
#: program) and ``name_for(task)``.
PROGRAMS = artifact_library("B-RASP program", _fill, column="B-RASP")

_SPARSE = ("sparse_all", "sparse_any", "sparse_parity")
_INDEX = ("index", "index_all", "index_any", "index_parity")


def _support(task) -> tuple[int, ...]:
    return tuple(int(p) + 1 for p in sorted(task.support))


def _sparse_recipe(positional: bool) -> Recipe:
    suffix = "_pos" if positional else ""
    return Recipe(f"sparse_program{suffix}",
                  lambda t: sparse_program(t.name.split("_", 1)[1], _support(t), positional),
                  lambda t: f"{t.name}{suffix} (recipe, S={list(_support(t))})")


def _index_op(task) -> tuple[str, int]:
    """The query family's declared operation and query count (Index: one query, whose AND
    is the queried bit), never read from the family's name."""
    return task.op, int(task.values.get("k", 1))


for _recipe in (_sparse_recipe(False), _sparse_recipe(True)):
    PROGRAMS.add(_recipe, *_SPARSE, origin=BUILTIN)
PROGRAMS.add(Recipe("index_program", lambda t: index_program(*_index_op(t)),
                    lambda t: f"{t.name}_pos (recipe, k={t.values.get('k', 1)})"),
             *_INDEX, when=lambda t: t.values.get("mode", "tokens") == "tokens", origin=BUILTIN)
PROGRAMS.add(Recipe("khop_program", lambda t: khop_program(int(t.values["k"]), t.vocab),
                    lambda t: f"khop (recipe, k={t.values['k']})"), "khop", origin=BUILTIN)


def add_program_file(path) -> LibraryProgram:
    """Add a ``.br`` file outside the package to :data:`PROGRAMS` (after the shipped
    programs), under the family its ``// family:`` header names; its origin is the path.
    The program is parsed now, so a mistake is reported here, with line and column."""
    return add_library_file(path, PROGRAMS, _entry, parse)


def for_task(task, positional: bool, searched: bool = True) -> tuple[str, A.Program] | None:
    """(name, program) deciding ``task``'s main decision function, or None.  With
    ``positional=False`` only plain B-RASP programs qualify.  When the library has none,
    the smallest plain program agreeing with the task on every input up to some n is
    searched for (once per task identity; :func:`..search.programs.cached_search`),
    unless ``searched`` is False; its name says so and how far it was checked."""
    for _origin, artifact in PROGRAMS.for_task(task):
        prog = artifact.instantiate(task)
        if positional or not A.uses_positions(prog):
            return artifact.name_for(task), prog
    if searched:
        found = search.cached_search(task, "B-RASP")
        if found.program is not None:
            return found.origin, found.program
    return None
