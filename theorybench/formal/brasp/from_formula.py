"""A B-RASP[pos] program for an AND/OR/NOT template formula of the circuit template search
(:mod:`theorybench.formal.search.circuits`).

Each atom becomes a few attentions whose results are the same at every position, so the
program's answer at the last position is the formula's value. Positions are 1-based, n the
length (the ``.br`` syntax, :mod:`.parser`):

* first / last / ends: ``leftmost j [j == 1]`` (or ``j == n``) reads the letter there;
* unary: ``leftmost j [S(j)] true : false`` finds a position with a letter of S (for all:
  one without);
* next, mirror, half: at each i the partner's letter is read by ``leftmost j [j == P]``
  with P = ``i + 1``, ``n + 1 - i`` or ``i + n / 2``; a position-wise test then checks the
  pair, and an unmasked attention finds a position that passes (for all: one that fails);
  half also tests ``n % 2 == 0`` (a length predicate: the atom is false at odd n);
* before: ``leftmost j < i`` finds an earlier letter p, so position i knows the pairs
  (p, x_i) with p before it.

Only the count atoms (threshold gates) have no B-RASP counterpart; a formula with one gets
no program. The program is an object of fixed size for every n (its text does not depend
on n), checked like any library program by the theory that uses it.
"""

from __future__ import annotations

from ...errors import TaskParameterError
from . import ast as A
from .parser import parse

_PARTNER = {"next": "i + 1", "mirror": "n + 1 - i", "half": "i + n / 2"}
_INSIDE = {"next": "i <= n - 1", "mirror": "true", "half": "i <= n / 2"}


def _q(letter: str) -> str:
    if '"' in letter or "\\" in letter:
        raise TaskParameterError(f"token {letter!r} cannot be written in a .br string")
    return f'"{letter}"'


def _any(letters, at: str) -> str:
    return "(" + " || ".join(f"{_q(s)}({at})" for s in letters) + ")" if letters else "false"


def _atom(t: int, atom, L: tuple[str, ...]) -> tuple[list[str], str]:
    """(statements, the name holding the atom's value)."""
    me = f"f{t}"
    if atom.kind in ("first", "last"):
        pos = "1" if atom.kind == "first" else "n"
        s = [L[a] for a in sorted(atom.rel)]
        return [f"{me} = leftmost j [j == {pos}] {_any(s, 'j')} : false"], me
    if atom.kind == "unary":
        s = [L[a] for a in sorted(atom.rel)]
        if atom.quant == "all":
            return [f"{me}_bad = leftmost j [!{_any(s, 'j')}] true : false",
                    f"{me} = !{me}_bad"], me
        return [f"{me} = leftmost j [{_any(s, 'j')}] true : false"], me
    pairs = sorted(atom.rel)
    if atom.kind == "ends":
        out = [f"{me}_a{p} = leftmost j [j == 1] {_q(L[p])}(j) : false" for p in range(len(L))]
        out += [f"{me}_b{q} = leftmost j [j == n] {_q(L[q])}(j) : false" for q in range(len(L))]
        test = " || ".join(f"({me}_a{p} && {me}_b{q})" for p, q in pairs) or "false"
        return out + [f"{me} = {test}"], me
    if atom.kind in _PARTNER:
        out = [f"{me}_p{q} = leftmost j [j == {_PARTNER[atom.kind]}] {_q(L[q])}(j) : false"
               for q in range(len(L))]
        ok = " || ".join(f"({_q(L[p])} && {me}_p{q})" for p, q in pairs) or "false"
        out += [f"{me}_ok = {ok}", f"{me}_in = {_INSIDE[atom.kind]}"]
        # half reads "n is even and ...": false at odd n, as in the search and the circuit
        even = (f" && {me}_even", [f"{me}_even = leftmost j [n % 2 == 0] true : false"]) \
            if atom.kind == "half" else ("", [])
        out += even[1]
        if atom.quant == "all":
            return out + [f"{me}_bad = leftmost j [{me}_in(j) && !{me}_ok(j)] true : false",
                          f"{me} = !{me}_bad{even[0]}"], me
        return out + [f"{me}_any = leftmost j [{me}_in(j) && {me}_ok(j)] true : false",
                      f"{me} = {me}_any{even[0]}"], me
    if atom.kind == "before":
        k = len(L)
        rel = set(pairs) if atom.quant == "some" else \
            {(p, q) for p in range(k) for q in range(k)} - set(pairs)
        out = [f"{me}_s{p} = leftmost j < i [{_q(L[p])}(j)] true : false" for p in range(k)]
        hit = " || ".join(f"({me}_s{p} && {_q(L[q])})" for p, q in sorted(rel)) or "false"
        out += [f"{me}_hit = {hit}", f"{me}_any = leftmost j [{me}_hit(j)] true : false"]
        return out + [f"{me} = {'!' if atom.quant == 'all' else ''}{me}_any"], me
    raise TaskParameterError(f"a {atom.kind} atom has no B-RASP program (it needs counting)")


def program_text(formula, letters: tuple[str, ...]) -> str:
    """The ``.br`` text of the formula (TaskParameterError for a count atom)."""
    lines = [f"// B-RASP[pos] program of the template formula {formula.text(letters)}"]
    names = []
    for t, atom in enumerate(formula.atoms):
        body, name = _atom(t, atom, letters)
        lines += body
        names.append(name)
    join = " && " if formula.join == "and" else " || "
    lines += [f"out = {join.join(names)}", "output out"]
    return "\n".join(lines) + "\n"


def formula_program(formula, letters: tuple[str, ...]) -> A.Program:
    """The parsed program of :func:`program_text`."""
    return parse(program_text(formula, letters))


__all__ = ["program_text", "formula_program"]
