"""The embedded Python DSL of C-RASP: builds the nodes of :mod:`.ast` from Python values
(see the DSL example in :mod:`.ast`)."""

from __future__ import annotations

from .ast import Assign, Cond, Count, Expr, Import, Max, Min, Program, Ref, Token, lift


def tok(symbol: str) -> Token:
    return Token(symbol)


def ref(name: str) -> Ref:
    return Ref(name)


def count(body, guard: str | None = None) -> Count:
    return Count(lift(body), guard)


def const(v) -> Expr:
    return lift(v)


def min_(a, b) -> Min:
    return Min(lift(a), lift(b))


def max_(a, b) -> Max:
    return Max(lift(a), lift(b))


def where(cond, then, otherwise) -> Cond:
    return Cond(lift(then), lift(cond), lift(otherwise))


class Builder:
    """Collects statements in order: ``let`` returns a :class:`Ref` to the new name."""

    def __init__(self, alphabet=None):
        self.statements: list[Assign | Import] = []
        self.alphabet = tuple(alphabet) if alphabet is not None else None

    def import_(self, name: str) -> Ref:
        self.statements.append(Import(name))
        return Ref(name)

    def let(self, name: str, expr) -> Ref:
        self.statements.append(Assign(name, lift(expr)))
        return Ref(name)

    def program(self) -> Program:
        return Program(tuple(self.statements), self.alphabet)
