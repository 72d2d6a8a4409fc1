"""Theory files: a researcher's theory as a plain Python file, turned into a matrix column.

Two contracts (docs/extending.md, "Bring your own theory"). The small one::

    NAME = "counting"                 # the column's name (not a shipped theory's)
    def predict(task):                # task: a TaskRef; task.build(n=8) gives an instance
        inst = task.build(n=8)
        x = inst.enumerate()
        ...
        return "easy", "why"          # or "hard" / "unknown"

``predict`` may return a verdict (``"easy"``, ``"hard"``, ``"unknown"`` or a
:class:`Verdict`), a ``(verdict, explanation)`` or ``(verdict, explanation, evidence)``
tuple, a dict with ``verdict`` and optional ``explanation``, ``evidence``, ``status``,
``basis``, or a :class:`Prediction`. Optional: ``TITLE``, ``SUMMARY``, ``ASSUMPTIONS``,
``SOURCES`` (tuples of strings), and per experiment line ``predict_length(task, encoding)``
(called for each of ``ENCODINGS``, default :data:`LENGTH_ENCODINGS`),
``predict_in_distribution(task)`` and ``predict_llm(task)``: the same return values, or
None for "as ``predict`` says". The larger contract: the file defines subclasses of
:class:`~.base.Theory` (``@rule`` methods), listed in ``THEORIES`` or found in the module.

A verdict from ``predict`` without a status is ``cited``: the file's function is applied
and nothing of its argument was checked here. A status the file claims is held to the
project's one policy (:func:`.prediction.status_problem`); a claim its evidence does not
back is shown as ``cited`` and the claim is kept in the evidence. A ``predict`` that raises
or returns something else costs its one cell (Unknown, with the file and line); the rest of
the matrix is kept. Every mistake in the file itself is a :class:`TheoryError` naming the
file, the line and the fix.

Files come from the command line (a theory name ending in ``.py``), from
:data:`ENV` (paths or folders, ``os.pathsep`` apart) and from the entry-point group
:data:`ENTRY_POINTS`; :func:`load_theory_file` adds what it loads to :data:`ENV` in this
process's environment, so spawned pool and Ray workers load the same files.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import os
import pathlib
import re
import sys
import traceback
from typing import Any, Callable

from ..errors import ConfigError, TheoryError
from ..registry import THEORY_FILES_ENV, entry_point_items
from ..tasks import TaskRef
from .base import (LENGTH_LINE, Basis, Context, Prediction, RuleSkip, Status, Theory, Verdict,
                   line_key, line_prediction, rule, status_problem, to_jsonable)

#: The environment variable naming theory files and folders of them (os.pathsep apart).
ENV = THEORY_FILES_ENV
#: The entry-point group of a package of theories.
ENTRY_POINTS = "theorybench.theories"
#: The positional encodings ``predict_length`` is asked about by default (names of
#: ``experiments.positional``; a test checks each is registered there).
LENGTH_ENCODINGS = ("nope", "learned", "learned_offsets", "rope")
#: The experiment lines a file may predict for separately (values of experiments.lines).
LINE_HOOKS = (("predict_in_distribution", "in_distribution"), ("predict_llm", "llm"))
MAX_BYTES = 1 << 20
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_VERDICT_WORDS = {"easy": Verdict.EASY, "hard": Verdict.HARD, "unknown": Verdict.UNKNOWN}


def is_theory_file(text: Any) -> bool:
    """Whether a theory name on the command line is a file (it ends in ``.py``)."""
    return isinstance(text, (str, os.PathLike)) and str(text).strip().endswith(".py")


class _Source:
    """A theory file's bytes, digest, parsed tree and the line of each top-level name."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        try:
            if not path.is_file():
                what = "does not exist" if not path.exists() else "is not a regular file"
                raise TheoryError(f"theory file {path} {what}; give the path of a .py theory "
                                  "file (docs/extending.md, 'Bring your own theory')")
            if path.stat().st_size > MAX_BYTES:
                raise TheoryError(f"theory file {path} is {path.stat().st_size:,} bytes, more "
                                  f"than {MAX_BYTES:,}: not a theory file")
            self.data = path.read_bytes()
        except OSError as exc:
            raise TheoryError(f"theory file {path}: cannot read it ({exc.strerror or exc})") \
                from None
        self.digest = hashlib.sha256(self.data).hexdigest()
        try:
            tree = ast.parse(self.data, str(path))
        except SyntaxError as exc:
            raise TheoryError(f"{path}:{exc.lineno}:{exc.offset or 0}: the theory file does "
                              f"not parse: {exc.msg}; fix the Python syntax there") from None
        except ValueError as exc:  # null bytes
            raise TheoryError(f"{path}: the theory file is not Python text ({exc})") from None
        self.lines: dict[str, int] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.lines.setdefault(node.name, node.lineno)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Name):
                            self.lines.setdefault(sub.id, node.lineno)

    def at(self, name: str | None) -> str:
        line = self.lines.get(name) if name else None
        return f"{self.path}:{line}" if line else str(self.path)

    def error(self, name: str | None, message: str) -> TheoryError:
        return TheoryError(f"{self.at(name)}: {message}")


def _import(src: _Source) -> Any:
    """The file as a fresh module under a private name (two files never collide)."""
    name = f"_theorybench_theory_{src.digest[:16]}"
    spec = importlib.util.spec_from_file_location(name, src.path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pickling (pool workers) looks classes up by module name
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # the file's own code: report it, never a traceback
        sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise TheoryError(f"{src.path}{_line_in(exc, src.path)}: importing the theory file "
                          f"failed: {type(exc).__name__}: {exc}; fix the file so that "
                          "`python FILE` runs") from None
    return module


def _line_in(exc: BaseException, path: pathlib.Path) -> str:
    """``:LINE`` of the deepest frame of ``exc``'s traceback inside ``path``, else ``""``."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if pathlib.Path(f.filename) == path]
    return f":{frames[-1].lineno}" if frames else ""


def _strings(src: _Source, module: Any, name: str) -> tuple[str, ...]:
    value = getattr(module, name, ())
    if isinstance(value, str):
        value = (value,)
    if not (isinstance(value, (tuple, list)) and all(isinstance(v, str) for v in value)):
        raise src.error(name, f"{name} must be a tuple of strings (got {type(value).__name__})")
    return tuple(value)


def _text(src: _Source, module: Any, name: str, default: str) -> str:
    value = getattr(module, name, default)
    if not isinstance(value, str):
        raise src.error(name, f"{name} must be a string (got {type(value).__name__})")
    return value


def _check_callable(src: _Source, module: Any, name: str, arity: int) -> Callable | None:
    fn = getattr(module, name, None)
    if fn is None:
        return None
    if not callable(fn):
        raise src.error(name, f"{name} must be a function, got {type(fn).__name__}; write "
                              f"`def {name}(...)`")
    try:
        inspect.signature(fn).bind(*range(arity))
    except TypeError:
        args = "task, encoding" if arity == 2 else "task"
        raise src.error(name, f"{name} must take {arity} argument(s) ({args}); write "
                              f"`def {name}({args}):`") from None
    except ValueError:  # a builtin without a signature: let the call decide
        pass
    return fn


# ---- the small contract: a function -> a Theory subclass ---------------------------------

class FileTheory(Theory):
    """The column of a theory file's ``predict`` (subclassed per file by :func:`_adapt`)."""

    source: _Source
    module: Any
    encodings: tuple[str, ...] = LENGTH_ENCODINGS

    @rule("theory file", Basis.THEOREM)
    def from_file(self, family, ctx: Context):
        """The theory file's ``predict(task)``."""
        return self._call("predict", self.module.predict, (family,), family)

    def _call(self, hook: str, fn: Callable, args: tuple, family) -> Prediction | RuleSkip:
        try:
            out = fn(*args)
        except (KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:
            where = _line_in(exc, self.source.path) or f":{self.source.lines.get(hook, 0)}"
            return RuleSkip(f"{self.source.path}{where}: {hook} raised "
                            f"{type(exc).__name__}: {exc}", {"error": f"{type(exc).__name__}: "
                                                                       f"{exc}"})
        return _as_prediction(self, hook, out, family)

    def predict(self, family, context: Context | None = None) -> Prediction:
        # the file's function only: no catalogue reductions are admitted for it
        ctx = context or Context()
        p = self._run_rules(TaskRef.of(family), ctx)
        hooks = [(h, line) for h, line in LINE_HOOKS if callable(getattr(self.module, h, None))]
        length = getattr(self.module, "predict_length", None)
        jobs = [(h, getattr(self.module, h), (p.task,), line) for h, line in hooks]
        if callable(length):
            encs = self.encodings or tuple(ctx.options.get("encodings") or LENGTH_ENCODINGS)
            jobs += [("predict_length", length, (p.task, e), line_key(LENGTH_LINE, e))
                     for e in encs]
        for hook, fn, args, key in jobs:
            got = self._call(hook, fn, args, p.task)
            if isinstance(got, RuleSkip):
                p.lines[key] = line_prediction(Verdict.UNKNOWN, Status.NONE, got.reason,
                                               got.evidence)
            elif got is not None:
                p.lines[key] = line_prediction(got.verdict, got.status, got.explanation,
                                               got.evidence)
        return p


_SAY = ("return 'easy', 'hard' or 'unknown', a (verdict, explanation) pair, a dict "
        "{'verdict': ..., 'explanation': ...} or a Prediction")


def _as_prediction(theory: FileTheory, hook: str, out: Any, family) -> Prediction | RuleSkip | None:
    """A hook's return value as a cell; a value of the wrong type is a RuleSkip naming the
    hook's line and what to return. None from a per-line hook: "as predict says"."""
    src = theory.source
    bad = RuleSkip(f"{src.at(hook)}: {hook} returned {_show(out)}; {_SAY}",
                   {"error": f"{hook} returned {type(out).__name__}"})
    if out is None and hook != "predict":
        return None
    if isinstance(out, Prediction):
        out.theory = theory.name
        return _policy(theory, out)
    explanation, evidence, status, basis = "", {}, None, None
    if isinstance(out, tuple) and 1 <= len(out) <= 3:
        verdict = out[0]
        explanation = out[1] if len(out) > 1 else ""
        evidence = out[2] if len(out) > 2 else {}
    elif isinstance(out, dict) and "verdict" in out:
        unknown = set(out) - {"verdict", "explanation", "evidence", "status", "basis"}
        if unknown:
            return RuleSkip(f"{src.at(hook)}: {hook} returned a dict with unknown key(s) "
                            f"{sorted(unknown)}; use verdict, explanation, evidence, status, "
                            "basis", {"error": "unknown keys"})
        verdict, explanation = out["verdict"], out.get("explanation", "")
        evidence, status, basis = out.get("evidence") or {}, out.get("status"), out.get("basis")
    else:
        verdict = out
    v = _verdict(verdict)
    if v is None or not isinstance(explanation, str) or not isinstance(evidence, dict):
        return bad
    try:
        st = Status(status) if status is not None else None
        b = Basis(basis) if basis is not None else Basis.THEOREM
    except ValueError:
        return RuleSkip(f"{src.at(hook)}: {hook} returned status {status!r} / basis {basis!r}; "
                        f"statuses: {', '.join(s.value for s in Status if s != Status.NONE)}; "
                        f"bases: {', '.join(x.value for x in Basis if x != Basis.NONE)}",
                        {"error": "bad status or basis"})
    evidence = dict(to_jsonable(evidence))
    if v == Verdict.UNKNOWN:   # recorded as the rule's reason, like any rule that does not fire
        return RuleSkip(explanation or f"{hook} gives no verdict", evidence)
    if st is None:
        st = Status.CITED
        evidence.setdefault("why_cited", f"the verdict of {src.path.name}'s {hook}; nothing "
                                         "of its argument was checked by theorybench")
    p = theory.prediction(family, v, b, st, evidence,
                          explanation or f"{theory.name}'s {hook} says {v.value}")
    return _policy(theory, p)


def _policy(theory: FileTheory, p: Prediction) -> Prediction:
    """Hold a status the file claims to the one policy; an unbacked claim becomes cited."""
    problem = status_problem(p)
    if problem and p.verdict != Verdict.UNKNOWN:
        p.evidence = {**p.evidence, "status_claimed": p.status.value,
                      "why_cited": f"the file claimed {p.status.value} but {problem}; shown "
                                   "as cited"}
        p.status = Status.CITED
    elif problem:  # an Unknown with a status
        p.status, p.basis = Status.NONE, Basis.NONE
    return p


def _verdict(value: Any) -> Verdict | None:
    if isinstance(value, Verdict):
        return value
    if isinstance(value, str):
        return _VERDICT_WORDS.get(value.strip().lower())
    return None


def _show(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def _adapt(src: _Source, module: Any) -> type[Theory]:
    name = getattr(module, "NAME", None)
    if name is None:
        raise src.error(None, "the theory file has no NAME; add `NAME = \"mine\"` (the "
                              "column's name: lower case letters, digits and _)")
    if not (isinstance(name, str) and _NAME.match(name)):
        raise src.error("NAME", f"NAME {name!r} is not a column name; use lower case letters, "
                                "digits and _, starting with a letter (e.g. NAME = \"mine\")")
    _check_callable(src, module, "predict", 1)
    _check_callable(src, module, "predict_length", 2)
    for hook, _ in LINE_HOOKS:
        _check_callable(src, module, hook, 1)
    encs = _strings(src, module, "ENCODINGS") if hasattr(module, "ENCODINGS") else ()
    attrs = {
        "name": name, "title": _text(src, module, "TITLE", name),
        "summary": _text(src, module, "SUMMARY", f"the theory of {src.path.name}"),
        "assumptions": _strings(src, module, "ASSUMPTIONS"),
        "sources": _strings(src, module, "SOURCES") or (str(src.path),),
        "source": src, "module": module, "encodings": encs, "origin": str(src.path),
        "definition_digest": src.digest, "__module__": module.__name__,
        "reduction_closures": (),   # no catalogue reductions: the file's function only
    }
    cls = type(f"FileTheory_{name}", (FileTheory,), attrs)
    setattr(module, cls.__name__, cls)  # picklable by module name
    return cls


def load_classes(path: str | os.PathLike) -> list[type[Theory]]:
    """The theory classes a file defines (validated; nothing registered)."""
    try:
        resolved = pathlib.Path(path).expanduser().resolve()
    except (ValueError, OSError, RuntimeError) as exc:
        raise TheoryError(f"theory file {str(path)!r} is not a usable path ({exc}); give the "
                          "path of a .py theory file") from None
    if resolved.suffix != ".py":
        raise TheoryError(f"theory file {resolved} does not end in .py; a theory file is a "
                          "Python file")
    src = _Source(resolved)
    module = _import(src)
    listed = getattr(module, "THEORIES", None)
    if listed is not None:
        if not (isinstance(listed, (tuple, list)) and listed and all(
                isinstance(c, type) and issubclass(c, Theory) for c in listed)):
            raise src.error("THEORIES", "THEORIES must be a non-empty tuple of Theory "
                                        "subclasses")
        classes = list(listed)
    else:
        classes = [c for c in vars(module).values() if isinstance(c, type)
                   and issubclass(c, Theory) and c.__module__ == module.__name__]
    if classes and hasattr(module, "predict"):
        raise src.error("predict", "the file defines both predict(task) and Theory "
                                   "subclasses; keep one of the two contracts")
    if not classes:
        if not hasattr(module, "predict"):
            raise src.error(None, "the theory file defines neither `def predict(task):` nor a "
                                  "Theory subclass; add one (docs/extending.md, 'Bring your "
                                  "own theory')")
        return [_adapt(src, module)]
    for c in classes:
        if not (isinstance(getattr(c, "name", None), str) and _NAME.match(c.name)):
            raise src.error(c.__name__, f"theory class {c.__name__} needs a name: set "
                                        "`name = \"mine\"` (lower case letters, digits, _)")
        if not any(getattr(c, a, None) for a in dir(c) if hasattr(getattr(c, a), "_rule")):
            raise src.error(c.__name__, f"theory class {c.__name__} has no @rule method; add "
                                        "one (see theorybench.theories.base)")
        c.origin = str(resolved)
        c.definition_digest = src.digest
    return classes


def register_file(path: str | os.PathLike, registry, export: bool = True) -> list[str]:
    """Load a theory file into ``registry`` (the theory registry); returns the names it
    adds. The same file again is a no-op; a shipped theory's name, or another file's, is
    refused; the same file edited since replaces its old columns."""
    resolved = pathlib.Path(path).expanduser().resolve() if _usable(path) else path
    try:
        digest = hashlib.sha256(pathlib.Path(resolved).read_bytes()).hexdigest()
    except (OSError, ValueError, TypeError):
        digest = None
    same = [n for n, c in registry.items() if digest and getattr(c, "origin", None)
            == str(resolved) and getattr(c, "definition_digest", None) == digest]
    if same:
        names = same
    else:
        classes = load_classes(path)
        names = []
        for c in classes:
            first = registry._origins.get(c.name) if c.name in registry._items else None
            if first is not None and first != str(resolved):
                shipped = first == "builtin"
                raise TheoryError(
                    f"{c.source.at('NAME') if hasattr(c, 'source') else resolved}: the name "
                    f"{c.name!r} is {'a shipped theory' if shipped else 'the theory of ' + first}"
                    f"; choose another name (e.g. {c.name}_mine)")
        for c in classes:
            registry.unregister(c.name)    # this file, edited since it was loaded
            registry.register(c, name=c.name, origin=str(resolved))
            names.append(c.name)
    if export:
        listed = [p for p in os.environ.get(ENV, "").split(os.pathsep) if p]
        if str(resolved) not in listed and str(pathlib.Path(resolved).parent) not in listed:
            os.environ[ENV] = os.pathsep.join(listed + [str(resolved)])
    return names


def _usable(path: Any) -> bool:
    try:
        pathlib.Path(path).expanduser().resolve()
        return True
    except (ValueError, OSError, RuntimeError, TypeError):
        return False


def theory_files(spec: str) -> list[pathlib.Path]:
    """The theory files ``spec`` (:data:`ENV`'s syntax) names: files, and each ``*.py`` of a
    folder (sorted; names starting with _ skipped)."""
    out = []
    for part in filter(None, (p.strip() for p in spec.split(os.pathsep))):
        p = pathlib.Path(part).expanduser()
        if p.is_dir():
            out.extend(sorted(f for f in p.glob("*.py") if not f.name.startswith("_")))
        elif p.is_file():
            out.append(p)
        else:
            raise ConfigError(f"{ENV}: {part} is neither a theory file nor a folder; fix or "
                              f"unset {ENV}")
    return out


def load_external(registry) -> list[str]:
    """Register the theories of :data:`ENV` and of the :data:`ENTRY_POINTS` group (an entry
    point loads to a Theory subclass, a list of them, a module that is a theory file, or a
    path of theory files)."""
    names = []
    for f in theory_files(os.environ.get(ENV, "")):
        names += register_file(f, registry, export=False)
    for ep, item in entry_point_items(ENTRY_POINTS):
        if isinstance(item, type) and issubclass(item, Theory):
            if item.name not in registry._items:
                registry.register(item, name=item.name, origin=f"entry point {ep.name}")
            names.append(item.name)
        elif isinstance(item, (str, os.PathLike)):
            for f in theory_files(str(item)):
                names += register_file(f, registry, export=False)
        elif getattr(item, "__file__", None):
            names += register_file(item.__file__, registry, export=False)
        else:
            raise ConfigError(f"entry point {ep.name} = {ep.value} ({ENTRY_POINTS}) gives "
                              f"{item!r}; give a Theory subclass, a theory module or a "
                              "path of theory files")
    return names


__all__ = ["ENV", "ENTRY_POINTS", "LENGTH_ENCODINGS", "FileTheory", "is_theory_file",
           "load_classes", "register_file", "theory_files", "load_external"]
