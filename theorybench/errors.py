"""Every exception theorybench raises for bad input or a resource limit.

All derive from :class:`TheorybenchError`; the CLI prints their message and exits
non-zero without a traceback. A message says what was wrong and how to fix it.
"""

from __future__ import annotations


class TheorybenchError(Exception):
    """Base class: a user-facing error whose message is meant to be printed as is."""


class TaskParameterError(TheorybenchError, ValueError):
    """A task family was asked for with a bad name, parameter or value."""


class TaskFileError(TaskParameterError):
    """A function of a task file (``label``, ``oracle``, ``sample``, ``VALID``) raised, ran
    past its time limit or returned a malformed value. The file must be fixed: unlike other
    task errors it is never absorbed into a skipped rule or an Unknown cell, the command
    stops on it with the file's line."""


class TaskInputError(TheorybenchError, ValueError):
    """A typed or tokenized task instance is malformed (wrong token, wrong length...)."""


class EnumerationTooLarge(TheorybenchError):
    """``enumerate()`` (or an exact method) was asked for a size it cannot hold."""


class ProgramError(TheorybenchError):
    """Program text (C-RASP, B-RASP, ...) is malformed or invalid.

    ``problems`` lists every problem found, each a :class:`ProgramProblem`.
    """

    def __init__(self, problems: list["ProgramProblem"], source_name: str = "<program>"):
        self.problems = list(problems)
        self.source_name = source_name
        lines = [f"{source_name}:{p}" for p in self.problems]
        super().__init__("\n".join(lines) if lines else f"{source_name}: invalid program")


class ProgramProblem:
    """One problem in program text, with its 1-based line and column when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        self.message, self.line, self.column = message, line, column

    def __str__(self) -> str:
        where = f"{self.line}:{self.column}: " if self.line is not None else " "
        return f"{where}{self.message}"

    def __repr__(self) -> str:
        return f"ProgramProblem({self.message!r}, line={self.line}, column={self.column})"


class VerificationError(TheorybenchError):
    """A construction, protocol or algorithm did not compute what it claims."""


class ResourceLimitError(TheorybenchError):
    """A declared resource (memory, bandwidth, time limit) was exceeded."""


class ConfigError(TheorybenchError, ValueError):
    """An experiment config, profile, encoding or size is unknown or inconsistent."""


class NoPrefixOracle(ConfigError):
    """A task has no prefix oracle, so the next-symbol objective cannot be derived for it
    (its language is given by a label function, not by an automaton or a counter)."""


class StoreError(TheorybenchError):
    """A results store is missing, corrupted, foreign or of an incompatible schema."""


class TheoryError(TheorybenchError, ValueError):
    """An unknown theory, or a theory asked for something outside its scope."""
