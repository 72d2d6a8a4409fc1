"""Argument helpers shared by command modules (parsing only; no logic of the package)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Iterable, Sequence

from ..errors import TaskParameterError
from ..tasks.base import MAX_ENUMERATE

#: Largest seed every consumer takes: ``numpy.random.default_rng`` wants an integer >= 0,
#: ``torch.manual_seed`` one below 2^64, and a seed stored in a results store (SQLite
#: INTEGER) one below 2^63; the common range is 0 .. 2^63 - 1.
MAX_SEED = (1 << 63) - 1


def parse_seed(text: str) -> int:
    """argparse type of every ``--seed``/``--seeds``: an integer in 0 .. 2^63 - 1, checked
    once at the edge so that no rule or run fails on it later."""
    try:
        v = int(text.strip())
    except (ValueError, AttributeError):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an integer seed; seeds are integers from 0 to 2^63-1 "
            f"({MAX_SEED})") from None
    if not 0 <= v <= MAX_SEED:
        shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
        raise argparse.ArgumentTypeError(
            f"{shown} is out of range; seeds are integers from 0 to 2^63-1 ({MAX_SEED})")
    return v


class IntermixedParser(argparse.ArgumentParser):
    """A leaf command's parser whose options may come anywhere, also between positionals:
    ``crasp run PROGRAM --trace t.html "0 1 1"``. Use it as ``parser_class`` of the
    ``add_subparsers`` whose commands have no subcommands of their own."""

    _intermixing = False

    def parse_known_args(self, args=None, namespace=None):
        # parse_known_intermixed_args calls parse_known_args itself: run the plain one then
        if self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def _number_text(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def int_arg(lo: int | None = None, hi: int | None = None, why: str = ""):
    """argparse type: an integer in lo..hi (either end open when None); ``why`` says what
    the upper end protects (e.g. "memory"). Too many digits is an error, not a hang."""
    span = (f"from {lo:,} to {hi:,}" if lo is not None and hi is not None else
            f"at least {lo:,}" if lo is not None else f"at most {hi:,}")

    def parse(text: str) -> int:
        try:
            v = int(text.strip())
        except (ValueError, AttributeError):
            raise argparse.ArgumentTypeError(
                f"{_number_text(text)!r} is not an integer (use one {span})") from None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(
                f"{_number_text(text)} is out of range: use an integer {span}"
                + (f" ({why})" if why else ""))
        return v

    parse.__name__ = "integer"
    return parse


def float_arg(lo: float | None = None, hi: float | None = None, lo_open: bool = False,
              why: str = ""):
    """argparse type: a finite number in [lo, hi] (``(lo, hi]`` with ``lo_open``); nan and
    inf are refused here, once, so that no command meets them later."""
    left = "(" if lo_open else "["
    span = f"in {left}{lo:g}, {hi:g}]" if lo is not None and hi is not None else (
        f"{'>' if lo_open else '>='} {lo:g}" if lo is not None else f"<= {hi:g}")

    def parse(text: str) -> float:
        try:
            v = float(text.strip())
        except (ValueError, AttributeError):
            raise argparse.ArgumentTypeError(
                f"{_number_text(text)!r} is not a number (use a finite number {span})") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(
                f"{text.strip()} is not a finite number: use a finite number {span}")
        if (lo is not None and (v < lo or (lo_open and v == lo))) or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"{text.strip()} is out of range: use a number "
                                             f"{span}" + (f" ({why})" if why else ""))
        return v

    parse.__name__ = "number"
    return parse


#: Most values one --n range may list (each n is checked before any work).
MAX_RANGE_VALUES = 100_000


def parse_params(pairs: Sequence[str] | None) -> dict[str, str]:
    """``["k=3", "D=2"]`` -> ``{"k": "3", "D": "2"}``; values are coerced by the task.

    ``n`` is refused (every command takes it as ``--n``), and so is one name given two
    different values."""
    out: dict[str, str] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise TaskParameterError(
                f"--param {pair!r} is not of the form NAME=VALUE (e.g. --param k=3)")
        if key == "n":
            raise TaskParameterError(f"--param {pair!r}: give the input length as --n, "
                                     f"not as a --param")
        if key in out and out[key] != value:
            raise TaskParameterError(
                f"--param {key} is given twice ({key}={out[key]} and {key}={value}); keep one")
        out[key] = value
    return out


def parse_range(text: str, what: str = "--n") -> list[int]:
    """``"4..20"`` -> 4..20 inclusive, ``"4..20:2"`` with step, ``"8,16,32"`` a list."""
    lo = hi = step = None
    try:
        if ".." in text:
            a, _, rest = text.partition("..")
            b, _, c = rest.partition(":")
            lo, hi, step = int(a), int(b), int(c) if c else 1
        else:
            values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise TaskParameterError(
            f"{what} {_number_text(text)!r} is not a range: use A..B, A..B:STEP or a list "
            f"A,B,C of integers") from None
    if step is None and len(values) > MAX_RANGE_VALUES:
        raise TaskParameterError(f"{what}: {len(values):,} values, more than "
                                 f"{MAX_RANGE_VALUES:,}; give fewer n")
    if step is not None:
        if step < 1:
            raise TaskParameterError(f"{what} {text!r}: the step must be positive "
                                     f"(A..B:STEP with STEP >= 1), got {step}")
        if lo > hi:
            raise TaskParameterError(f"{what} {text!r} is an empty range: the lower end "
                                     f"{lo} is above the upper end {hi}")
        count = (hi - lo) // step + 1  # counted before the list is built
        if count > MAX_RANGE_VALUES:
            raise TaskParameterError(
                f"{what} {_number_text(text)} has {count:,} values, more than "
                f"{MAX_RANGE_VALUES:,}; use a step (A..B:STEP) or a shorter range")
        values = list(range(lo, hi + 1, step))
    if not values:
        raise TaskParameterError(f"{what} {text!r} is empty: give at least one n")
    return values


def add_task_args(parser, n_required: bool = True) -> None:
    parser.add_argument("task", help="task: FAMILY or FAMILY:K=V[:K=V] (e.g. khop:k=2; see "
                        "`theorybench tasks`)")
    parser.add_argument("--n", required=n_required, help="input length n")
    parser.add_argument("--param", action="append", metavar="K=V",
                        help="deprecated: write the task as FAMILY:K=V instead")


def print_table(rows: Iterable[Sequence[Any]], header: Sequence[str], out=None) -> None:
    """A plain aligned text table."""
    out = out or sys.stdout
    rows = [[str(c) for c in r] for r in rows]
    widths = [len(h) for h in header]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    print(fmt.format(*header).rstrip(), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for r in rows:
        print(fmt.format(*r).rstrip(), file=out)


def print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, default=_json_default))


def _json_default(o: Any):
    import numpy as np
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if hasattr(o, "to_dict"):
        return o.to_dict()
    return str(o)


#: What --force allows, said the same way by every command that writes a file.
FORCE_HELP = ("write {what} even over one of this command's inputs or over an existing file "
              "of another kind (a results store, a checkpoint, a .cr/.br program, a .py task "
              "file); without --force such an output is refused before any work. Outputs are "
              "always written to a temporary file and renamed into place")


def add_force(parser, what: str = "--out") -> None:
    """The shared ``--force`` of a command that writes ``what`` (see :mod:`..safe_io`)."""
    parser.add_argument("--force", action="store_true", help=FORCE_HELP.format(what=what))


def path_arg(what: str):
    """argparse type of a path option: refuses an empty or blank path by name (an empty
    path would otherwise be read as the current folder, ".")."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"the path is empty; give the path of {what}")
        return text

    parse.__name__ = "path"
    return parse


#: Largest --max-n: exact methods enumerate up to 2^n inputs, and the task suite's
#: enumeration limit is MAX_ENUMERATE = 2^22 points.
MAX_EXACT_N = MAX_ENUMERATE.bit_length() - 1


def max_n_arg(text: str) -> int:
    """An argparse type for --max-n: an integer from 1 to MAX_EXACT_N."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"{v} must be at least 1")
    if v > MAX_EXACT_N:
        raise argparse.ArgumentTypeError(
            f"{v} is too large for exact methods (2^{v} inputs; the enumeration limit is "
            f"2^{MAX_EXACT_N}); use --max-n {MAX_EXACT_N} or less - the rules already measure "
            f"larger n by Monte Carlo samples and sampled verification, and `theorybench "
            f"sensitivity TASK --n A..B` estimates any n")
    return v
