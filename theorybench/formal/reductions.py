"""Reductions as first-class objects: maps between problems, checked by running them.

A :class:`Problem` is a decision problem on token arrays indexed by a size n (a task's
main decision function, via :func:`task_problem`, or a problem that is not a task, such
as the flip-flop language or 1-cycle vs 2-cycles). A :class:`Reduction` maps every
instance of a source problem of size n to an instance of a target task family; its
:meth:`Reduction.check` verifies computationally that labels are preserved - on all
source instances when there are few enough, on random ones otherwise - that the images
are well-formed target instances, and, for ``kind="projection"``, that every output
token depends on at most one input position (a projection in the sense of Skyum &
Valiant 1985 / Furst, Saxe, Sipser 1984: each output symbol is a constant or a function
of a single input symbol). Dependence is detected by perturbing one input position at a
time on the checked instances, so a projection verdict means "no output token was seen
to depend on two positions", recorded with the dependency map.

So "Parity reduces to X by projection" is code that runs; a theory that uses a reduction
puts its :class:`ReductionCheck` in the evidence.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from .. import tasks
from ..errors import EnumerationTooLarge, TaskParameterError, TheoryError
from ..tasks.base import DecisionFunction, product_space

KINDS = ("projection", "general")
#: Up to this many instances the projection property is tested on all of them.
DEPENDENCY_ALL = 1 << 12


def _arity(fn: Callable) -> int:
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
        return len(params)
    except (TypeError, ValueError):
        return 1


@dataclass
class Problem:
    """A decision problem on token arrays, indexed by size n.

    fn:        labels of a batch: ``fn(tokens)`` or ``fn(tokens, n)`` -> (batch,) ints.
    choices:   ``choices(n)`` -> allowed token ids per position (the instance space).
    enumerate: optional ``enumerate(n)`` -> all instances (batch, L); default: the
               product of ``choices(n)`` filtered by ``valid``.
    valid:     optional ``valid(tokens, n)`` -> bool mask of well-formed instances.
    sample:    optional ``sample(rng, n, count)`` -> instances; default: uniform over
               ``choices(n)`` (rejection on ``valid``).
    """

    name: str
    fn: Callable[..., np.ndarray]
    choices: Callable[[int], Sequence[Sequence[int]]]
    enumerate: Callable[[int], np.ndarray] | None = None
    valid: Callable[[np.ndarray, int], np.ndarray] | None = None
    sample: Callable[[np.random.Generator, int, int], np.ndarray] | None = None
    doc: str = ""

    def label(self, tokens: np.ndarray, n: int) -> np.ndarray:
        tokens = np.asarray(tokens, dtype=np.int64)
        out = self.fn(tokens, n) if _arity(self.fn) >= 2 else self.fn(tokens)
        return np.asarray(out).reshape(len(tokens))

    def space_size(self, n: int) -> int:
        size = 1
        for c in self.choices(n):
            size *= len(c)
        return size

    def instances(self, n: int, limit: int) -> np.ndarray:
        """All instances of size n (EnumerationTooLarge above ``limit``)."""
        if self.enumerate is not None:
            return np.asarray(self.enumerate(n), dtype=np.int64)
        x = product_space(self.choices(n), limit, what=f"instances of {self.name} (n={n})")
        if self.valid is not None:
            x = x[np.asarray(self.valid(x, n), dtype=bool)]
        return x

    def draw(self, rng: np.random.Generator, n: int, count: int) -> np.ndarray:
        if self.sample is not None:
            return np.asarray(self.sample(rng, n, count), dtype=np.int64)
        ch = [np.asarray(c, dtype=np.int64) for c in self.choices(n)]
        out, have = [], 0
        for _ in range(100):
            m = max(64, 2 * (count - have))
            x = np.stack([c[rng.integers(0, len(c), size=m)] for c in ch], axis=1)
            if self.valid is not None:
                x = x[np.asarray(self.valid(x, n), dtype=bool)]
            out.append(x)
            have += len(x)
            if have >= count:
                return np.concatenate(out)[:count]
        raise TheoryError(f"could not sample {count} valid instances of {self.name} at n={n}")


def task_problem(family: str, **params: Any) -> Problem:
    """A task family's main decision function as a :class:`Problem` (n is the task's n)."""
    import functools

    @functools.lru_cache(maxsize=16)
    def df(n: int) -> DecisionFunction:
        return tasks.get(family, n=n, **params).decision_view()[0]

    tasks.family(family)  # unknown names fail here, with the known names

    return Problem(
        name=family if not params else
        f"{family}({', '.join(f'{k}={v}' for k, v in params.items())})",
        fn=lambda tokens, n: df(n).evaluate(tokens),
        choices=lambda n: df(n).choices,
        enumerate=lambda n: df(n).enumerate(),
        valid=None,
        sample=lambda rng, n, count: df(n).sample(rng, count),
        doc=f"the main decision function of task {family}")


@dataclass
class CheckAtN:
    n: int
    checked: int
    exhaustive: bool
    mismatches: int
    invalid_images: int
    counterexample: dict[str, Any] | None = None
    dependency: list[int] | None = None  # per output token: the input position, -1 constant
    projection_violations: list[dict[str, Any]] = field(default_factory=list)
    identity: bool = False  # every checked image equals its source instance
    dependency_checked: int = 0  # instances the projection property was tested on
    #: source and target sizes: the task's n of the target, and the token lengths
    target_n: int | None = None
    source_length: int = 0
    target_length: int = 0
    #: projection checks only: the largest number of output tokens that depend on one
    #: input position, and whether the input positions read are non-decreasing along the
    #: output (constants anywhere) - then the image of every prefix/suffix split of the
    #: source is a prefix/suffix split of the target ("split-preserving")
    fanout: int | None = None
    monotone: bool | None = None
    #: identity maps only: the source's instance space is a proper subset of the target's
    #: (per position choices contained, some strictly): an inclusion, not the same problem
    proper_inclusion: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "checked": self.checked, "exhaustive": self.exhaustive,
                "identity": self.identity, "dependency_checked": self.dependency_checked,
                "target_n": self.target_n, "source_length": self.source_length,
                "target_length": self.target_length, "fanout": self.fanout,
                "monotone": self.monotone, "proper_inclusion": self.proper_inclusion,
                "mismatches": self.mismatches, "invalid_images": self.invalid_images,
                "counterexample": self.counterexample, "dependency": self.dependency,
                "projection_violations": self.projection_violations[:5]}


@dataclass
class ReductionCheck:
    """The outcome of :meth:`Reduction.check`: per-n records and the overall verdict."""

    reduction: str
    source: str
    target: str
    kind: str
    by_n: list[CheckAtN]

    @property
    def labels_preserved(self) -> bool:
        return all(c.mismatches == 0 and c.invalid_images == 0 for c in self.by_n)

    @property
    def is_projection(self) -> bool:
        """No output token was seen to depend on more than one input position."""
        return all(not c.projection_violations for c in self.by_n)

    @property
    def ok(self) -> bool:
        return self.labels_preserved and (self.kind != "projection" or self.is_projection)

    @property
    def is_identity(self) -> bool:
        """The map returned every checked instance unchanged: not a reduction between two
        problems but a check that the task *is* the source problem (a theorem's premise)."""
        return bool(self.by_n) and all(c.identity for c in self.by_n)

    @property
    def is_inclusion(self) -> bool:
        """An identity map whose source instance space is a proper subset of the target's at
        every checked n (e.g. Dyck-1 words inside Dyck-k words): a genuine map between two
        problems - the inclusion of instance spaces - not a problem reduced to itself."""
        return self.is_identity and all(c.proper_inclusion for c in self.by_n)

    @property
    def is_split_preserving(self) -> bool:
        """A projection whose dependency map is non-decreasing at every checked n."""
        return (self.kind == "projection" and self.is_projection and bool(self.by_n)
                and all(c.monotone for c in self.by_n))

    @property
    def max_fanout(self) -> int | None:
        vals = [c.fanout for c in self.by_n if c.fanout is not None]
        return max(vals) if vals else None

    @property
    def verified_up_to(self) -> int:
        """The largest source n checked (every n in the list, exhaustively or sampled)."""
        return max(c.n for c in self.by_n)

    @property
    def sampled(self) -> dict[int, int]:
        """n -> K for the n checked on K random instances instead of all of them."""
        return {c.n: c.checked for c in self.by_n if not c.exhaustive}

    @property
    def counterexample(self) -> dict[str, Any] | None:
        return next((c.counterexample for c in self.by_n if c.counterexample), None)

    def to_dict(self) -> dict[str, Any]:
        return {"reduction": self.reduction, "source": self.source, "target": self.target,
                "kind": self.kind, "ok": self.ok, "labels_preserved": self.labels_preserved,
                "is_projection": self.is_projection, "is_identity": self.is_identity,
                "is_inclusion": self.is_inclusion,
                "is_split_preserving": self.is_split_preserving,
                "max_fanout": self.max_fanout, "sampled": self.sampled,
                "ns": [c.n for c in self.by_n],
                "checked": sum(c.checked for c in self.by_n),
                "by_n": [c.to_dict() for c in self.by_n]}


@dataclass
class Reduction:
    """A map from instances of ``source`` (size n) to instances of ``target_family``.

    target_params: ``target_params(n)`` -> the target task's parameters (including its n).
    map:           ``map(tokens (batch, L_source), n)`` -> target tokens (batch, L_target).
    label_map:     optional map of source labels to target labels (default: identity).
    kind:          "projection" (each output token a constant or a function of one input
                   position; checked) or "general".
    """

    name: str
    source: Problem
    target_family: str
    target_params: Callable[[int], dict[str, Any]]
    map: Callable[[np.ndarray, int], np.ndarray]
    kind: str = "general"
    doc: str = ""
    label_map: Callable[[np.ndarray], np.ndarray] | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise TheoryError(f"reduction kind {self.kind!r} is not one of {', '.join(KINDS)}")

    def target(self, n: int) -> DecisionFunction:
        return tasks.get(self.target_family, **self.target_params(n)).decision_view()[0]

    def apply(self, tokens: np.ndarray, n: int) -> np.ndarray:
        out = np.asarray(self.map(np.asarray(tokens, dtype=np.int64), n), dtype=np.int64)
        if out.ndim != 2 or len(out) != len(tokens):
            raise TheoryError(f"reduction {self.name}: map returned shape {out.shape} for "
                              f"{len(tokens)} instances; it must return (batch, length)")
        return out

    def check(self, ns: Sequence[int], samples: int = 2000,
              rng: np.random.Generator | None = None,
              exhaustive_limit: int = 1 << 16) -> ReductionCheck:
        """Check label preservation (and the projection property) for every n in ``ns``."""
        if not ns:
            raise TaskParameterError("Reduction.check needs at least one n")
        rng = rng or np.random.default_rng(0)
        by_n = [self._check_n(int(n), samples, rng, exhaustive_limit) for n in ns]
        return ReductionCheck(self.name, self.source.name, self.target_family, self.kind, by_n)

    def _check_n(self, n, samples, rng, limit) -> CheckAtN:
        try:
            if self.source.space_size(n) > limit:
                raise EnumerationTooLarge("too many")
            x = self.source.instances(n, limit)
            exhaustive = True
        except EnumerationTooLarge:
            x = self.source.draw(rng, n, samples)
            exhaustive = False
        tgt = self.target(n)
        y = self.apply(x, n)
        src_lab = self.source.label(x, n)
        want = src_lab if self.label_map is None else np.asarray(self.label_map(src_lab))
        bad_shape = y.shape[1] != tgt.length
        if bad_shape:
            ok = np.zeros(len(y), dtype=bool)
            got = np.full(len(y), -1)
        else:
            ok = _in_choices(y, tgt.choices)
            if tgt.valid is not None:
                ok &= np.asarray(tgt.valid(y), dtype=bool)
            got = np.full(len(y), -1)
            if ok.any():
                got[ok] = np.asarray(tgt.evaluate(y[ok])).reshape(int(ok.sum()))
        mism = ok & (got != want)
        rec = CheckAtN(n=n, checked=len(x), exhaustive=exhaustive,
                       mismatches=int(mism.sum()), invalid_images=int((~ok).sum()),
                       identity=bool(y.shape == x.shape and np.array_equal(y, x)),
                       target_n=self.target_params(n).get("n"), source_length=int(x.shape[1]),
                       target_length=int(y.shape[1]))
        if rec.identity:
            rec.proper_inclusion = _proper_inclusion(self.source.choices(n), tgt.choices)
        first = np.flatnonzero(mism | ~ok)
        if len(first):
            j = int(first[0])
            rec.counterexample = {
                "n": n, "source": x[j].tolist(), "image": y[j].tolist(),
                "source_label": int(want[j]), "target_label": None if not ok[j] else int(got[j]),
                "why": "label changed" if ok[j] else
                       (f"image has length {y.shape[1]}, target expects {tgt.length}"
                        if bad_shape else "image is not a valid target instance")}
        if self.kind == "projection" and not bad_shape:
            # all instances when feasible, else a uniform sample: the lexicographically
            # first ones fix the leading positions and hide dependencies on them
            probe = x
            if len(x) > max(samples, DEPENDENCY_ALL):
                probe = x[np.sort(rng.choice(len(x), size=samples, replace=False))]
            rec.dependency_checked = int(len(probe))
            rec.dependency, rec.projection_violations = self._dependencies(probe, n)
            read = [d for d in rec.dependency if d >= 0]
            rec.monotone = all(a <= b for a, b in zip(read, read[1:]))
            rec.fanout = max(np.bincount(np.asarray(read, dtype=np.int64)).tolist(),
                             default=0)
        return rec

    def _dependencies(self, x: np.ndarray, n: int):
        """Which input positions each output token was seen to depend on."""
        y = self.apply(x, n)
        choices = self.source.choices(n)
        deps = np.zeros((x.shape[1], y.shape[1]), dtype=bool)
        for i, c in enumerate(choices):
            for sym in c:
                xp = x.copy()
                xp[:, i] = sym
                keep = np.ones(len(xp), dtype=bool)
                if self.source.valid is not None:
                    keep = np.asarray(self.source.valid(xp, n), dtype=bool)
                if keep.any():
                    deps[i] |= (self.apply(xp[keep], n) != y[keep]).any(axis=0)
        dependency, violations = [], []
        for j in range(y.shape[1]):
            src = np.flatnonzero(deps[:, j])
            dependency.append(int(src[0]) if len(src) else -1)
            if len(src) > 1:
                violations.append({"output_position": j, "input_positions": src.tolist()})
        return dependency, violations


def _proper_inclusion(src: Sequence[Sequence[int]], tgt: Sequence[Sequence[int]]) -> bool:
    """Per position, the source's allowed tokens are among the target's, some strictly."""
    if len(src) != len(tgt):
        return False
    pairs = [(set(map(int, a)), set(map(int, b))) for a, b in zip(src, tgt)]
    return all(a <= b for a, b in pairs) and any(a < b for a, b in pairs)


def _in_choices(y: np.ndarray, choices: Sequence[Sequence[int]]) -> np.ndarray:
    ok = np.ones(len(y), dtype=bool)
    for i, c in enumerate(choices):
        ok &= np.isin(y[:, i], np.asarray(c))
    return ok


__all__ = ["Problem", "Reduction", "ReductionCheck", "CheckAtN", "task_problem", "KINDS"]
