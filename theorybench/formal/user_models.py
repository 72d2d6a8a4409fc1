"""Circuits, MPC algorithms and BAPO protocols supplied with a task file (docs/extending.md,
"Bring your own task"; issue 28): checked against the task's label when the file loads,
then added first to their theory model's library, for that task class only - the
counterpart of :mod:`.user_artifacts` for the models whose artifacts are Python objects.

A task file may define

* ``CIRCUIT``: ``fn(n) -> Circuit`` over the task's bit encoding (:mod:`.circuits.encoding`:
  one bit per position for a two-token ALPHABET, 1 where the token is ALPHABET[1]; one-hot
  bits, position by position, for more tokens), or the builder form ``fn(task, df, enc)``
  of :data:`.circuits.builders.BUILDERS`; or ``{"build": fn, "basis": "ac0"|"tc0",
  "description": "..."}`` to claim a basis. The basis the gates use at every n checked is
  what counts: a threshold (or majority) gate makes it a TC0 circuit, evidence for ``tc0``
  only, whatever is claimed (Hao, Angluin & Frank, TACL 2022: hard attention is in AC0;
  Majority is not, Furst-Saxe-Sipser 1984), and the record says so;
* ``MPC``: an :class:`.mpc.algorithms.Algorithm`, or its ``program(net, task)`` alone
  (run in the simulator of :mod:`.mpc.simulator`; machine 0's word 0 is the answer);
* ``BAPO``: a protocol maker ``fn(df) -> [Protocol, ...]`` (a :class:`.bapo.protocol.Protocol`
  or a list), the form of :data:`.bapo.library.PROTOCOLS` entries.

Each is checked with its model's own verifier - circuit evaluation
(:func:`.circuits.verify.verify`), the MPC simulator (every machine recomputed alone on two
inputs, :class:`.mpc.simulator.LocalityError`), the BAPO verifier (every split, adversarial
choices of G) - on every input of every valid n with at most
:data:`.user_artifacts.EXHAUSTIVE` inputs and on :data:`.user_artifacts.SAMPLES` inputs at
the longest n up to :data:`.user_artifacts.SAMPLED_N`. A disagreement, or a function that
raises or returns the wrong kind of object, is a :class:`TaskParameterError` naming the
file, the line, the input and both answers. The libraries look some artifacts up by family
name, where the class condition cannot apply, so a file loaded again (edited) first takes
its earlier artifacts out of the libraries.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Callable

import numpy as np

from .. import tasks
from ..errors import TaskParameterError, TheorybenchError
from ..tasks.user_program import ARTIFACT_CHECKERS, CHECKED_PATHS
from .bapo.library import PROTOCOLS
from .bapo.protocol import Protocol
from .bapo.verify import verify as verify_protocol
from .circuits.builders import BUILDERS, MAX_INPUT_BITS, Builder, Built
from .circuits.encoding import Encoding
from .circuits.evaluate import evaluate
from .circuits.ir import Circuit
from .circuits.verify import decode
from .circuits.verify import verify as verify_circuit
from .mpc.algorithms import C_DEFAULT, MPC_ALGORITHMS, Algorithm
from .mpc.simulator import MPC as Simulator
from .user_artifacts import EXHAUSTIVE, SAMPLES, add_records, instances, serves_only

#: The task-file names this module reads, each with its checker.
NAMES = ("CIRCUIT", "MPC", "BAPO")
#: The memory exponent the load-time MPC check runs at (the MPC column's default).
MPC_DELTA = 0.5
#: Inputs run again machine by machine (locality) at each n.
LOCALITY_ROWS = 2
_GATES = {"ac0": "AND/OR/NOT", "tc0": "threshold"}

#: (library, artifact) added per task file path: taken out when the file loads again.
_ADDED: dict[str, list[tuple[Any, Any]]] = {}


def _inputs(cls, task, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Every input of ``task``'s decision function where there are at most EXHAUSTIVE,
    else SAMPLES uniform ones (not label-balanced: a rare class must not stop the check)."""
    view = task.decision_view()[0]
    if len(cls.alphabet) ** task.n <= EXHAUSTIVE:
        return view.enumerate(limit=EXHAUSTIVE), True
    return rng.integers(0, len(cls.alphabet), size=(SAMPLES, task.n), dtype=np.int64), False


def _wrong(where: str, what: str, task, row: np.ndarray, want: int, got: Any,
           extra: str = "") -> TaskParameterError:
    return TaskParameterError(
        f"{where}: the {what} supplied for the task disagrees with its label at n={task.n} "
        f"on {task.render(row)!r}{extra}: label {want}, {what.split()[-1]} {got}; fix it (or "
        f"the label) - it is used as evidence only once it agrees on every input checked")


def _call(where: str, what: str, fn: Callable, *args) -> Any:
    """Run the user's function; anything it raises is one line naming the file."""
    try:
        return fn(*args)
    except TheorybenchError as exc:
        raise TaskParameterError(f"{where}: {what}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - user code: any error is a message, not a trace
        raise TaskParameterError(f"{where}: {what} raised {type(exc).__name__}: {exc}") from None


def _source(obj: Any) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return repr(obj)


def _record(language: str, fragment: str, where: str, columns: list[str], text: str,
            checked: list[dict[str, Any]], artifact: Any, **extra) -> dict[str, Any]:
    exhaustive = [c["n"] for c in checked if c["exhaustive"]]
    return {"language": language, "fragment": fragment, "origin": where, "columns": columns,
            "program": text, "exhaustive_up_to": max(exhaustive, default=0),
            "verified_up_to": max((c["n"] for c in checked), default=0), "checked": checked,
            "artifact": artifact, **extra}


# ---- circuits ----------------------------------------------------------------------------

def _circuit_spec(where: str, value: Any) -> tuple[Callable, str | None, str]:
    """(builder-form function, claimed basis, description) of a CIRCUIT value."""
    spec = value if isinstance(value, dict) else {"build": value}
    unknown = sorted(set(spec) - {"build", "basis", "description"})
    if unknown:
        raise TaskParameterError(f"{where}: unknown key(s) {unknown}; CIRCUIT takes build, "
                                 "basis and description")
    fn, claimed = spec.get("build"), spec.get("basis")
    if not callable(fn):
        raise TaskParameterError(f"{where}: CIRCUIT must be a function n -> Circuit (or "
                                 f"task, df, enc -> Circuit), or a dict with one under "
                                 f"'build', not {type(fn).__name__}")
    if claimed not in (None, "ac0", "tc0"):
        raise TaskParameterError(f"{where}: basis {claimed!r}; use 'ac0' (AND/OR/NOT) or "
                                 "'tc0' (threshold gates too)")
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                         p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = [None]
    if len(params) not in (1, 3):
        raise TaskParameterError(f"{where}: the circuit function takes {len(params)} "
                                 "arguments; write fn(n) or fn(task, df, enc)")
    wrapped = fn if len(params) == 3 else (lambda task, df, enc: fn(task.n))
    return wrapped, claimed, str(spec.get("description") or "")


def _circuit_at(where: str, fn: Callable, task) -> Built:
    """The supplied circuit at ``task.n``, checked to be a circuit over the task's bits."""
    df = task.decision_view()[0]
    enc = Encoding.of(df)
    if enc.n_bits > MAX_INPUT_BITS:
        raise TaskParameterError(f"{where}: at n={task.n} the task has {enc.n_bits:,} input "
                                 f"bits, more than a circuit is built for ({MAX_INPUT_BITS:,})")
    c = _call(where, f"the circuit function at n={task.n}", fn, task, df, enc)
    if not isinstance(c, Circuit):
        raise TaskParameterError(f"{where}: at n={task.n} the circuit function returned "
                                 f"{type(c).__name__}, not a Circuit "
                                 "(theorybench.formal.circuits.ir)")
    if c.n_inputs != enc.n_bits or not c.outputs:
        raise TaskParameterError(
            f"{where}: at n={task.n} the circuit has {c.n_inputs} inputs and "
            f"{len(c.outputs)} outputs; the task's bit encoding has {enc.n_bits} bits "
            f"({', '.join(enc.names[:4])}{', ...' if enc.n_bits > 4 else ''}) and the circuit "
            "needs an output (set_outputs)")
    return Built(task, df, enc, c, None)  # type: ignore[arg-type]


def check_circuit(cls, value: Any, where: str) -> dict[str, Any]:
    fn, claimed, description = _circuit_spec(where, value)
    rng = np.random.default_rng(0)
    checked, kinds = [], set()
    for task in instances(cls):
        built = _circuit_at(where, fn, task)
        try:
            chk = verify_circuit(built, rng, exhaustive_limit=EXHAUSTIVE, samples=SAMPLES)
        except TheorybenchError as exc:
            raise TaskParameterError(f"{where}: the circuit at n={task.n} cannot be "
                                     f"evaluated: {exc}") from None
        if chk.errors:
            row = np.array(chk.counterexample, dtype=np.int64)[None, :]
            want = int(np.asarray(built.df.evaluate(row)).reshape(-1)[0])
            got = int(decode(built.circuit, evaluate(built.circuit, built.encoding.encode(row)))[0])
            raise _wrong(where, "circuit", task, row[0], want, got)
        kinds |= built.circuit.kinds_used()
        checked.append({"n": task.n, "inputs": chk.checked, "exhaustive": chk.exhaustive,
                        "depth": chk.depth, "size": chk.size,
                        "basis": "ac0" if built.circuit.in_basis("ac0") else "tc0"})
    basis = "tc0" if any(c["basis"] == "tc0" for c in checked) else "ac0"
    extra: dict[str, Any] = {"basis": basis, "claimed_basis": claimed or basis,
                             "gates": sorted(kinds)}
    if claimed == "ac0" and basis == "tc0":
        at = next(c["n"] for c in checked if c["basis"] == "tc0")
        extra["note"] = (f"claimed AC0, but the circuit uses {_GATES['tc0']} gates "
                         f"({', '.join(sorted(kinds))} at n={at}): evidence for TC0 only")
    columns = ["ac0", "tc0"] if basis == "ac0" else ["tc0"]

    def build(task, df, enc):
        return _circuit_at(where, fn, task).circuit

    builder = Builder(cls.name, basis, build, description or f"the circuit supplied in "
                      f"{where}", source=where)
    return _record("circuit", f"{basis.upper()} circuit", where, columns, _source(
        value.get("build") if isinstance(value, dict) else value), checked, builder, **extra)


def outside_basis(family: str, basis: str) -> list[dict[str, Any]]:
    """The circuits supplied with ``family``'s task file that are no evidence in ``basis``
    (a threshold circuit for AC0), for the construction rule to name."""
    try:
        cls = tasks.family(family)
    except TheorybenchError:
        return []
    return [{k: a.get(k) for k in ("origin", "basis", "claimed_basis", "gates", "note")}
            for a in getattr(cls, "artifacts", ())
            if a.get("language") == "circuit" and basis not in a["columns"]]


# ---- MPC algorithms ----------------------------------------------------------------------

def check_mpc(cls, value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, Algorithm):
        alg = value
    elif callable(value):
        doc = (inspect.getdoc(value) or "").strip().splitlines()
        alg = Algorithm(doc[0] if doc else "MPC program", value)
    else:
        raise TaskParameterError(f"{where}: MPC must be an Algorithm (theorybench.formal.mpc."
                                 f"algorithms) or a program(net, task), not "
                                 f"{type(value).__name__}")
    rng = np.random.default_rng(0)
    checked = []
    for task in instances(cls):
        x, exhaustive = _inputs(cls, task, rng)
        view = task.decision_view()[0]
        want = np.asarray(view.evaluate(x), dtype=np.int64).reshape(-1)
        sim = _call(where, "the MPC simulator", Simulator, x.shape[1], MPC_DELTA, C_DEFAULT)
        if alg.limit is not None:
            block = sim.block_for(alg.share)
            why = _call(where, "the algorithm's limit", alg.limit, task, sim, block,
                        sim.machines_for(block))
            if why:
                raise TaskParameterError(f"{where}: the MPC algorithm does not fit at "
                                         f"n={task.n}: {why}")
        r = _call(where, f"the MPC algorithm at n={task.n}", sim.run, alg.program, task, x,
                  alg.share)
        bad = np.flatnonzero(r.output != want)
        if len(bad):
            i = int(bad[0])
            raise _wrong(where, "MPC algorithm", task, x[i], int(want[i]), int(r.output[i]),
                         f" (after {int(r.rounds[i])} rounds)")
        _call(where, f"the MPC algorithm at n={task.n}, every machine recomputed alone",
              sim.run, alg.program, task, x[:LOCALITY_ROWS], alg.share, True)
        checked.append({"n": task.n, "inputs": int(len(x)), "exhaustive": exhaustive,
                        "rounds": int(r.rounds.max()), "max_memory": int(r.max_memory)})
    supplied = dataclasses.replace(alg, description=f"{alg.description} (supplied in {where})")
    return _record("MPC", "MPC algorithm", where, ["mpc"], _source(alg.program), checked,
                   supplied, delta=MPC_DELTA)


# ---- BAPO protocols ----------------------------------------------------------------------

def _protocols(where: str, make: Callable, df) -> list[Protocol]:
    got = _call(where, f"the protocol maker at n={df.task.n}", make, df)
    got = [got] if isinstance(got, Protocol) else got
    if not isinstance(got, (list, tuple)) or not got or not all(
            isinstance(p, Protocol) for p in got):
        raise TaskParameterError(f"{where}: the protocol maker must return a Protocol or a "
                                 f"non-empty list of them (theorybench.formal.bapo.protocol), "
                                 f"not {type(got).__name__}")
    return list(got)


def check_bapo(cls, value: Any, where: str) -> dict[str, Any]:
    if not callable(value) or isinstance(value, Protocol):
        raise TaskParameterError(f"{where}: BAPO must be a function df -> [Protocol, ...] "
                                 f"(the form of PROTOCOLS entries), not {type(value).__name__}")
    rng = np.random.default_rng(0)
    checked = []
    for task in instances(cls):
        df = task.decision_view()[0]
        x, exhaustive = _inputs(cls, task, rng)
        for p in _protocols(where, value, df):
            try:
                res = verify_protocol(p, df, rng=rng, inputs=x)
            except TheorybenchError as exc:
                raise TaskParameterError(f"{where}: at n={task.n}: {exc}") from None
            if not res.ok:
                fl = res.failure or {}
                row = np.array(fl["input_ids"], dtype=np.int64)
                raise _wrong(where, "BAPO protocol", task, row, fl["expected"], fl["got"],
                             f" (protocol {p.name!r}, ({p.a}, {p.b}), split "
                             f"k={fl['split']}, G={fl['G']})")
            checked.append({"n": task.n, "protocol": p.name, "a": p.a,
                            "b": p.b, "inputs": int(len(x)), "exhaustive": exhaustive})

    def make(df, value=value, where=where):
        # the origin in the name: the BAPO cell names its protocol by name
        return [dataclasses.replace(p, name=f"{p.name} [{where}]",
                                    meta={**p.meta, "origin": where})
                for p in _protocols(where, value, df)]
    return _record("BAPO", "BAPO protocol", where, ["bapo"], _source(value), checked, make)


# ---- the checker -------------------------------------------------------------------------

_CHECKS = {"CIRCUIT": (check_circuit, BUILDERS), "MPC": (check_mpc, MPC_ALGORITHMS),
           "BAPO": (check_bapo, PROTOCOLS)}


def _forget(path: str) -> None:
    """Take the artifacts an earlier load of the file at ``path`` added out of their
    libraries: some rules look a builder up by family name, where the class condition does
    not apply, so a stale one would still be found."""
    for library, artifact in _ADDED.pop(path, []):
        library.remove(artifact)
    CHECKED_PATHS.discard(path)


def check_task_models(cls) -> None:
    """Verify every CIRCUIT / MPC / BAPO ``cls``'s file defines, then add each, first, to
    its library for instances of ``cls`` at its default parameters only."""
    module = getattr(cls, "module", None)
    path = str(cls.source.path)
    given = [(name, getattr(module, name)) for name in NAMES
             if getattr(module, name, None) is not None]
    records = [_CHECKS[name][0](cls, value, f"{cls.source.at(name)} ({name})")
               for name, value in given]  # all checked before any is added
    _forget(path)
    serves = serves_only(cls)
    for (name, _), rec in zip(given, records):
        library = _CHECKS[name][1]
        library.add(rec["artifact"], cls.name, when=serves, origin=rec["origin"], first=True)
        _ADDED.setdefault(path, []).append((library, rec["artifact"]))
        CHECKED_PATHS.add(path)
    add_records(cls, records)


ARTIFACT_CHECKERS.register(check_task_models, name="models")

__all__ = ["check_task_models", "check_circuit", "check_mpc", "check_bapo", "outside_basis",
           "NAMES"]
