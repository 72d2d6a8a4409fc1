"""Tasks that split the theories: found by search, ranked by disagreement, settled by
training (`theorybench discover`).

1. **Candidates.** Regular languages by canonical minimal DFA (:mod:`..formal.automata.
   enumerate`: every language with at most S states over k letters, each exactly once, so
   no two candidates are the same language at any length). A candidate equal to a
   registered family (or one of the shipped language files), up to a renaming of the
   letters, on every word of each length 1..``EQUIV_LEN`` where that family is defined, is
   dropped as known. Each candidate is a task file (``DFA = {...}``), so it takes the road
   every user task takes.
2. **Verdicts.** Every shipped theory column predicts each candidate (rules under a per-rule
   time limit, ``Context.time_limit_s``; a rule past it does not fire, so the cell may be
   Unknown). When there are more candidates than ``candidates``, a subset drawn with the
   run's seed is judged.
3. **Ranking.** Disagreement = the number of pairs of columns giving opposite decided
   verdicts (Easy against Hard); ties go to the cheaper task to train (fewer states, fewer
   letters), then the name. Deterministic given the seed.
4. **Training.** In rank order among the ``top`` with opposite verdicts, in distribution
   with the quick profile's protocol (its model, budget, n and three seeds), in a results
   store keyed by each task file's digest: a second run resumes and trains nothing twice.
   Each candidate is trained one n at a time, smallest first, and stops once its verdict
   cannot change (:func:`train_staged`); training ends when ``settle`` candidates are
   settled or at the time budget. A task is *settled* when its in-distribution cell is
   Easy or Hard (not inconclusive, not insufficient, not cut by the time budget).
5. **Output.** ``discovered.md`` (the figures of every stage, each found task with its
   verdicts, its outcome with intervals and the theories it refutes), each settled task as
   a task file with that record in its docstring, and a reference of their outcomes for
   ``theorybench score --reference FILE``.

A theory is *refuted* by a task when its decided verdict is the opposite of the settled
outcome; the document says, for every theory no task refutes, how many settled tasks it
decided and agreed on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import pathlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ConfigError, TheorybenchError
from ..experiments.lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION
from ..formal.automata.dfa import DFA
from ..formal.automata.enumerate import minimal_languages, words_upto
from ..safe_io import atomic_write
from ..tasks import registry as task_registry
from ..theories.base import Context
from ..theories.registry import shipped_theories
from ..experiments.store import ResultsStore
from ..theories.runner import cell as cell_text, predict_matrix
from . import reference as ref_mod
from .cells import EASY, HARD, Thresholds
from .empirical import in_distribution_cells, length_generalization_cells
from .reference import RefCell, Reference, cells_digest, file_sha256

#: Words of each length up to this are compared for the equivalence with known families.
EQUIV_LEN = 8
#: A found task file's longest length: the length line tests up to 256 (the quick bins).
MAX_LEN = 256
#: The length line's encoding: NoPE, the one the Huang et al. column's C-RASP rules speak of
#: without positional terms (one encoding, so that the line fits the quick budget).
LENGTH_ENCODING = "nope"
NOT_FITTED = "not fitted"
LETTERS = "abcdefgh"


@dataclass(frozen=True)
class Generator:
    """Regular languages over ``letters`` letters with at most ``states`` states."""

    letters: int
    states: int

    @classmethod
    def parse(cls, text: str) -> "Generator":
        """``dfa:2:3`` -> 2 letters, at most 3 states."""
        parts = str(text).strip().split(":")
        try:
            if parts[0] != "dfa" or len(parts) != 3:
                raise ValueError
            k, s = int(parts[1]), int(parts[2])
        except ValueError:
            raise ConfigError(f"generator {text!r} is not dfa:LETTERS:STATES (e.g. dfa:2:3: "
                              "every language over 2 letters with at most 3 states)") from None
        if not (2 <= k <= 3 and 2 <= s <= 4) or (k == 3 and s > 3) or (s == 4 and k > 2):
            raise ConfigError(f"generator {text!r}: use 2-3 letters and 2-4 states (dfa:2:4 "
                              "and dfa:3:3 walk about 10^6 and 1.6 x 10^5 tables)")
        return cls(k, s)

    def __str__(self) -> str:
        return f"dfa:{self.letters}:{self.states}"


DEFAULT_GENERATORS = ("dfa:2:3", "dfa:3:2")


@dataclass
class Candidate:
    dfa: DFA
    generator: str
    name: str = ""
    path: str = ""
    cells: dict[str, str] = field(default_factory=dict)         # theory -> verdict
    labels: dict[str, str] = field(default_factory=dict)        # theory -> cell text
    #: theory -> its verdict for the length line under LENGTH_ENCODING, for the theories
    #: with their own entry for that line (``Prediction.lines``; the others' cells speak of
    #: learning at the trained lengths and are not read as a length prediction here)
    length: dict[str, str] = field(default_factory=dict)
    disagreement: int = 0
    pairs: list[tuple[str, str]] = field(default_factory=list)  # (Easy column, Hard column)

    def __post_init__(self):
        if not self.name:
            key = self.dfa.delta.tobytes() + b"|" + self.dfa.output.tobytes()
            digest = hashlib.sha256(key).hexdigest()[:8]
            self.name = f"re{self.dfa.k}_{self.dfa.size}s_{digest}"

    @property
    def cost(self) -> tuple[int, int]:
        return (self.dfa.size, self.dfa.k)

    def dfa_dict(self) -> dict[str, Any]:
        a = self.dfa.alphabet
        return {"start": 0, "accept": [int(q) for q in np.flatnonzero(self.dfa.output)],
                "delta": {int(q): {a[i]: int(self.dfa.delta[q, i]) for i in range(self.dfa.k)}
                          for q in range(self.dfa.size)}}

    def examples(self, count: int = 4) -> tuple[list[str], list[str]]:
        """The shortest members and non-members (for people reading the page)."""
        yes, no = [], []
        for words in words_upto(self.dfa.k, 6)[1:]:
            out = self.dfa.evaluate(words)
            for w, o in zip(words, out):
                (yes if o else no).append("".join(self.dfa.alphabet[i] for i in w))
            if len(yes) >= count and len(no) >= count:
                break
        return yes[:count], no[:count]

    def file_text(self, record: str = "") -> str:
        yes, no = self.examples()
        doc = (f"Found by `theorybench discover` ({self.generator}): the language of a "
               f"{self.dfa.size}-state minimal automaton over {{{', '.join(self.dfa.alphabet)}}}."
               f"\n\nShortest members: {', '.join(yes) or '(none)'}; non-members: "
               f"{', '.join(no) or '(none)'}.")
        if record:
            doc += "\n\n" + record
        return (f'"""{doc}\n"""\n\nNAME = "{self.name}"\n'
                f"ALPHABET = {tuple(self.dfa.alphabet)!r}\nLENGTHS = (1, {MAX_LEN})\n"
                f"DFA = {self.dfa_dict()!r}\n")


def generate(generators: Sequence[str] = DEFAULT_GENERATORS) -> list[Candidate]:
    """Every language of the generators, once each, nontrivial (not empty, not full)."""
    out = []
    for text in generators:
        g = Generator.parse(text)
        for dfa in minimal_languages(LETTERS[:g.letters], g.states):
            out.append(Candidate(dfa, str(g)))
    return out


# ---- equivalence with what is known -----------------------------------------------------------

def known_signatures(letters: Iterable[int], max_len: int = EQUIV_LEN,
                     extra_files: Iterable[str | pathlib.Path] = ()) -> dict[int, list[tuple[str, dict[int, bytes]]]]:
    """Per alphabet size: (family, n -> its labels on every word of length n, in base-k
    order) for every registered single-output family at its default parameters, and for
    ``extra_files`` (task files, loaded)."""
    for f in extra_files:
        task_registry.load_task_file(f, export=False)
    wanted = set(letters)
    out: dict[int, list[tuple[str, dict[int, bytes]]]] = {k: [] for k in wanted}
    for name, cls in task_registry.families().items():
        try:
            fam_ns = list(cls.valid_ns(1, max_len))
        except TheorybenchError:
            continue
        sig: dict[int, bytes] = {}
        k = None
        for n in fam_ns:
            try:
                inst = cls(n=n)
                if len(inst.vocab) not in wanted:
                    break
                k = len(inst.vocab)
                x = inst.enumerate()
                y = np.asarray(inst.label(x))
            except (TheorybenchError, AttributeError, TypeError, ValueError, MemoryError):
                break
            if y.ndim != 1 or x.shape != (k ** n, n) or x.max(initial=0) >= k:
                break   # not one label per word of length n over k letters
            order = np.argsort((x * (k ** np.arange(n - 1, -1, -1))).sum(1), kind="stable")
            sig[n] = (y[order] != 0).astype(np.uint8).tobytes()
        if k is not None and len(sig) >= 3:
            out[k].append((name, sig))
    return out


def equivalent_known(c: Candidate, known: dict[int, list[tuple[str, dict[int, bytes]]]]
                     ) -> str | None:
    """The known family the candidate equals (up to renaming letters) on every word of every
    length both define up to EQUIV_LEN, or None."""
    k = c.dfa.k
    words = words_upto(k, EQUIV_LEN)
    for perm in itertools.permutations(range(k)):
        renamed = c.dfa.delta[:, list(perm)]
        d = DFA(c.dfa.alphabet, renamed, c.dfa.output, 0)
        mine = {n: (d.evaluate(words[n]) != 0).astype(np.uint8).tobytes()
                for n in range(1, EQUIV_LEN + 1)}
        for name, sig in known.get(k, []):
            if all(mine[n] == v for n, v in sig.items()):
                return name
    return None


# ---- verdicts and ranking ---------------------------------------------------------------------

def disagreement(cells: dict[str, str]) -> tuple[int, list[tuple[str, str]]]:
    """Pairs of columns with opposite decided verdicts: (count, [(Easy column, Hard column)])."""
    easy = [t for t, v in cells.items() if v == EASY]
    hard = [t for t, v in cells.items() if v == HARD]
    pairs = [(e, h) for e in easy for h in hard]
    return len(pairs), pairs


def profile(c: Candidate) -> tuple[tuple[str, str], ...]:
    """A candidate's verdict profile: every column's verdict, by column name."""
    return tuple(sorted(c.cells.items()))


def rank(cands: Sequence[Candidate]) -> list[Candidate]:
    """Round by round, one candidate of each verdict profile: a profile's second candidate
    comes after the first of every other profile, so that the trained top tests as many
    different splits of the columns as it can (with the plain order, one profile held 23
    of 60 candidates and every trained slot). Within a round, and within a profile: most
    disagreement first; ties: cheaper to train (fewer states, fewer letters), name."""
    key = (lambda c: (-c.disagreement, c.cost, c.name))
    groups: dict[tuple, list[Candidate]] = {}
    for c in sorted(cands, key=key):
        groups.setdefault(profile(c), []).append(c)
    out: list[Candidate] = []
    for r in range(max((len(g) for g in groups.values()), default=0)):
        out += sorted((g[r] for g in groups.values() if len(g) > r), key=key)
    return out


def judge(cands: Sequence[Candidate], folder: pathlib.Path, ctx: Context,
          workers: int | None = None, progress: bool = True) -> None:
    """Write each candidate's task file into ``folder``, load it, and fill its cells from
    every shipped theory's prediction."""
    folder.mkdir(parents=True, exist_ok=True)
    names = shipped_theories()
    for c in cands:
        path = folder / f"{c.name}.py"
        text = c.file_text()
        if not path.is_file() or path.read_text() != text:
            atomic_write(path, text)
        c.path = str(path)
        task_registry.load_task_file(path)
    preds = predict_matrix(names, [c.name for c in cands], ctx, progress=progress,
                           workers=workers)
    by = {c.name: c for c in cands}
    for p in preds:
        c = by[str(p.task)]
        c.cells[p.theory] = p.verdict.value
        c.labels[p.theory] = cell_text(p)
        own = p.on_line(f"{LENGTH_GENERALIZATION}:{LENGTH_ENCODING}")
        if own.get("line") is not None:   # the theory's own entry, not its cell's verdict
            c.length[p.theory] = str(own["verdict"])
    for c in cands:
        c.disagreement, c.pairs = disagreement(c.cells)


# ---- training -----------------------------------------------------------------------------

def _stages(c: Candidate, profile: str, seeds: Sequence[int]) -> list[list[Any]]:
    """The candidate's in-distribution run specs, grouped by n, smallest n first."""
    from ..experiments.profiles import expand
    by: dict[int, list[Any]] = {}
    for s in expand(IN_DISTRIBUTION, profile, [c.name], list(seeds)):
        by.setdefault(int(s.n), []).append(s)
    return [by[n] for n in sorted(by)]


def train_staged(cands: Sequence[Candidate], db: str, seeds: Sequence[int] = (0, 1, 2),
                 profile: str = "quick", workers: int | None = None, progress: bool = True,
                 settle: int | None = None, deadline: float | None = None,
                 window: int | None = None, log=None) -> tuple[list[Candidate], dict[str, Any]]:
    """Train the candidates in rank order, one n at a time (smallest first), until
    ``settle`` of them are settled, the list ends, or the next wave would pass
    ``deadline`` (a ``time.time()``); returns (the candidates with runs, a summary).

    A candidate stops as soon as its verdict cannot change: once some n is not learned it
    is Hard whatever the larger n give (the matrix's rule, :func:`.empirical.
    in_distribution_cells`), so its larger n are not trained. Easy needs every n; after an
    inconclusive n the candidate cannot be Easy, so only its largest n is trained next (the
    likeliest to be not learned; the n between are skipped, and said so). Each wave
    trains the next n of up to ``window`` candidates (default: four per worker) in one
    sweep, so that the workers stay busy; a wave starts only if the runs' times so far (by
    n) say it ends before the deadline. New candidates join while fewer than ``settle``
    are settled; those in training then finish (so a few more than ``settle`` may
    settle). Deterministic given the ranking, except where the deadline cuts the list;
    resumable (the store skips what it holds)."""
    import os
    import time as _time
    from ..experiments.sweep import run_sweep
    say = log or (lambda line: None)
    workers_n = workers or os.cpu_count() or 1
    window = window or 4 * workers_n
    queue = list(cands)
    active: list[tuple[Candidate, list[list[Any]]]] = []
    started: list[Candidate] = []
    verdicts: dict[str, str] = {}
    per_run: dict[int, list[float]] = {}     # n -> wall seconds of this run's finished runs
    total: dict[str, Any] = {"ran": 0, "skipped_done": 0, "failed": 0, "waves": 0,
                             "stopped_early": [], "skipped_between": [],
                             "left_partly_trained": [],
                             "cut_by_deadline": False, "settle": settle}
    begin = _time.perf_counter()
    trained_keys: set[str] = set()

    def settled_count() -> int:
        return sum(v in (EASY, HARD) for v in verdicts.values())

    while True:
        while len(active) < window and queue and (settle is None or settled_count() < settle):
            c = queue.pop(0)
            active.append((c, _stages(c, profile, seeds)))
            started.append(c)
        if not active:
            break
        # longest runs first, so that the wave's tail is short (the step count by n)
        wave = sorted((s for _, stages in active for s in stages[0]),
                      key=lambda s: -int(s.n))
        if deadline is not None:
            # a run not yet timed at its n is guessed at 70 ms a step (the deep model at
            # n = 32 on one thread, the slowest the quick profile trains)
            est = sum(_mean(per_run.get(int(s.n)), s.training.steps * 0.07)
                      for s in wave) / workers_n
            if _time.time() + est > deadline:
                total["cut_by_deadline"] = True
                total["left_partly_trained"] = [c.name for c, _ in active]
                say(f"the next wave ({len(wave)} runs, about {est / 60:.1f} min) would pass "
                    f"the time budget: {len(active)} candidate(s) left partly trained, "
                    f"{len(queue)} not trained")
                break
        summary = run_sweep(IN_DISTRIBUTION, tasks=sorted({c.name for c, _ in active}),
                            profile=profile, db=db, seeds=list(seeds), specs=wave,
                            progress=progress, workers=workers, label="discover")
        total["waves"] += 1
        for k in ("ran", "skipped_done", "failed"):
            total[k] += int(summary.get(k, 0) or 0)
        records = ResultsStore(db, readonly=True).records(IN_DISTRIBUTION)
        keys = {w.key for w in wave}
        trained_keys |= keys
        for r, wall in _walls(records, keys):
            per_run.setdefault(int(r.spec.get("n") or 0), []).append(wall)
        # only the stages this schedule has reached: a resumed store may already hold a
        # larger n, which must not decide an earlier step (else a resume takes another path)
        cells = outcomes([c for c, _ in active], [r for r in records if r.key in trained_keys])
        nxt = []
        for c, stages in active:
            cell = cells.get(c.name)
            verdict = cell.verdict if cell is not None else None
            rest = stages[1:]
            if verdict not in (EASY, HARD) and len(rest) > 1:
                # an unsettled smaller n: the candidate cannot be Easy, and the largest n
                # is where it is likeliest to be not learned; the n between are skipped
                total["skipped_between"].append(c.name)
                rest = rest[-1:]
            if verdict == HARD and rest:
                total["stopped_early"].append(c.name)
            if verdict is None or verdict == HARD or not rest:
                verdicts[c.name] = verdict or "failed"
            else:
                nxt.append((c, rest))
        active = nxt
    total["wall_s"] = _time.perf_counter() - begin
    total["not_trained"] = len(queue)
    return started, total


def length_specs(c: Candidate, profile: str, seeds: Sequence[int]) -> list[Any]:
    """The candidate's length-line runs: the next-symbol objective (every position's set of
    allowed next symbols, end of string included, derived from its automaton), trained on
    lengths up to the profile's ``train_max_len`` and tested in its bins, the small model
    with LENGTH_ENCODING, :data:`LENGTH_TRAINING`, one run per seed."""
    from ..experiments.data import NEXT_SYMBOL
    from ..experiments.profiles import get_profile
    from ..experiments.spec import RunSpec
    prof = get_profile(profile)
    return [RunSpec(LENGTH_GENERALIZATION, c.name, (), train_max_len=prof.train_max_len,
                    eval_bins=prof.eval_bins, size="small", encoding=LENGTH_ENCODING,
                    training=LENGTH_TRAINING, seed=int(seed), objective=NEXT_SYMBOL)
            for seed in seeds]


def _length_training():
    from ..experiments.trainer import TrainingConfig
    # 600 steps at lr 1e-3 with a check every 100 and early stop at 100 % per string on the
    # training lengths; the plateau rule stops a run whose loss is flat. Measured on two found
    # tasks (2026-12-07, 1,500-step budget): a 2-state language fitted by step 500 (14 s),
    # a 3-state one stayed at 0.64 per string after 1,500 steps (44 s).
    return TrainingConfig(steps=600, batch_size=64, lr=1e-3, warmup=50, eval_every=100,
                          eval_count=256, target=1.0, final_eval_count=256, plateau=200,
                          plateau_tol=0.01)


LENGTH_TRAINING = _length_training()


def train_length(cands: Sequence[Candidate], db: str, seeds: Sequence[int] = (0, 1, 2),
                 profile: str = "quick", workers: int | None = None, progress: bool = True,
                 deadline: float | None = None, log=None) -> dict[str, Any]:
    """The length line of ``cands`` (:func:`length_specs`), in waves of a few candidates,
    each started only if it ends before ``deadline`` by the runs' times so far; the rest
    are named in the summary (``not_run``)."""
    import os
    import time as _time
    from ..experiments.sweep import run_sweep
    say = log or (lambda line: None)
    workers_n = workers or os.cpu_count() or 1
    queue = list(cands)
    times: list[float] = []
    total: dict[str, Any] = {"ran": 0, "skipped_done": 0, "failed": 0, "not_run": []}
    begin = _time.perf_counter()
    while queue:
        batch, queue = queue[:2 * workers_n], queue[2 * workers_n:]
        specs = [s for c in batch for s in length_specs(c, profile, seeds)]
        if deadline is not None:
            est = len(specs) * _mean(times, LENGTH_TRAINING.steps * 0.03) / workers_n
            if _time.time() + est > deadline:
                total["not_run"] = [c.name for c in batch + queue]
                say(f"the length line stops at the time budget: {len(batch) + len(queue)} "
                    f"candidate(s) without it")
                break
        summary = run_sweep(LENGTH_GENERALIZATION, tasks=sorted({c.name for c in batch}),
                            profile=profile, db=db, seeds=list(seeds), specs=specs,
                            progress=progress, workers=workers, label="discover length")
        for k in ("ran", "skipped_done", "failed"):
            total[k] += int(summary.get(k, 0) or 0)
        times += [wall for _, wall in _walls(
            ResultsStore(db, readonly=True).records(LENGTH_GENERALIZATION),
            {s.key for s in specs})]
    total["wall_s"] = _time.perf_counter() - begin
    return total


def length_outcomes(cands: Sequence[Candidate], records: Iterable[Any], profile: str = "quick",
                    thresholds: Thresholds = Thresholds()) -> dict[str, Any]:
    """task -> its length-line cell from the runs :func:`length_specs` makes (others, e.g.
    membership runs of the same task under another protocol, are not pooled in)."""
    names = {c.name for c in cands}
    if not names:
        return {}
    probe = json.loads(json.dumps(length_specs(cands[0], profile, (0,))[0].to_dict()))
    same = {k: probe[k] for k in ("objective", "model", "training", "train_max_len",
                                  "eval_bins")}
    mine = [r for r in records if r.spec.get("task") in names
            and all(r.spec.get(k) == v for k, v in same.items())]
    return {t: cell for t, cell in length_generalization_cells(mine, thresholds).items()
            if t in names}


def _walls(records, keys: set[str]) -> list[tuple[Any, float]]:
    """(record, wall seconds) of the finished runs among ``keys``."""
    return [(r, float(r.metrics["wall_s"])) for r in records
            if r.key in keys and isinstance((r.metrics or {}).get("wall_s"), (int, float))]


def _mean(xs, default: float) -> float:
    return sum(xs) / len(xs) if xs else default


def outcomes(cands: Sequence[Candidate], records: Iterable[Any],
             thresholds: Thresholds = Thresholds()) -> dict[str, Any]:
    """task -> its in-distribution cell (:func:`.empirical.in_distribution_cells`)."""
    names = {c.name for c in cands}
    return {t: cell for t, cell in in_distribution_cells(list(records), thresholds).items()
            if t in names}


def refutes(c: Candidate, observed: str, length: bool = False) -> list[str]:
    """The theories whose decided verdict is the opposite of the settled outcome: of the
    in-distribution line, or with ``length`` of the length line (each theory's prediction
    for that line, :attr:`Candidate.length`)."""
    if observed not in (EASY, HARD):
        return []
    verdicts = c.length if length else c.cells
    return sorted(t for t, v in verdicts.items() if v in (EASY, HARD) and v != observed)


# ---- the whole run ------------------------------------------------------------------------

@dataclass
class Discovery:
    generated: int
    known: list[tuple[str, str]]          # (candidate, the family it equals)
    judged: list[Candidate]
    ranked: list[Candidate]
    trained: list[Candidate]
    cells: dict[str, Any]                 # task -> in-distribution EmpiricalCell
    train_summary: dict[str, Any]
    options: dict[str, Any]
    theories: list[str]
    length_cells: dict[str, Any] = field(default_factory=dict)   # task -> length-line cell
    length_summary: dict[str, Any] = field(default_factory=dict)

    def length_verdict(self, name: str) -> str | None:
        """The length line's reading of a task: its cell's verdict, or "not fitted" when its
        best configuration's mean stays below the length bar on the training lengths
        themselves (the line then says nothing about length, only about its budget)."""
        cell = self.length_cells.get(name)
        if cell is None:
            return None
        bins = cell.by_config.get(cell.best_config or "", {})
        first = next(iter(bins.values()), None)
        if first is not None and first.pick("mean") < Thresholds().length_accuracy:
            return NOT_FITTED
        return cell.verdict

    def partial(self) -> set[str]:
        """Candidates the time budget left before their last n: whatever their cell says
        so far, they are not settled (an Easy needs every n)."""
        return set(self.train_summary.get("left_partly_trained") or ())

    def settled(self) -> list[Candidate]:
        part = self.partial()
        return [c for c in self.trained if c.name in self.cells and c.name not in part
                and self.cells[c.name].verdict in (EASY, HARD)]


def select(pool: Sequence[Candidate], known, candidates: int, seed: int
           ) -> tuple[list[Candidate], list[tuple[str, str]]]:
    """Up to ``candidates`` of ``pool`` not equal to a known family, in an order drawn
    with ``seed``; and the (candidate, family) pairs dropped on the way."""
    fresh, dropped = [], []
    for i in np.random.default_rng(seed).permutation(len(pool)):
        c = pool[int(i)]
        same = equivalent_known(c, known)
        if same:
            dropped.append((c.name, same))
            continue
        fresh.append(c)
        if len(fresh) >= candidates:
            break
    return fresh, dropped


def discover(generators: Sequence[str] = DEFAULT_GENERATORS, candidates: int = 60,
             top: int = 24, seed: int = 0, out: str | pathlib.Path = "discover-out",
             db: str | None = None, seeds: Sequence[int] = (0, 1, 2), profile: str = "quick",
             max_n: int = 10, time_limit_s: float = 10.0, workers: int | None = None,
             train_top: bool = True, progress: bool = True,
             extra_known: Iterable[str | pathlib.Path] = (),
             log=None, settle: int | None = None, deadline: float | None = None,
             length_line: bool = True) -> Discovery:
    """Generate, drop the known, judge a seeded subset, rank, train (:func:`train_staged`:
    in rank order among the ``top`` with opposite verdicts, until ``settle`` are settled or
    the ``deadline``, a ``time.time()``), read them. ``log``: called with one line per
    stage (the CLI prints them to stderr). ``length_line``: then the settled candidates'
    length line (:func:`train_length`, within the same deadline)."""
    say = log or (lambda line: None)
    if candidates < 1 or top < 0:
        raise ConfigError("--candidates must be at least 1 and --top at least 0")
    if len(set(seeds)) < 1:
        raise ConfigError("--seeds needs at least one seed")
    out = pathlib.Path(out)
    pool = generate(generators)
    generated = len(pool)
    known = known_signatures({c.dfa.k for c in pool}, extra_files=extra_known)
    fresh, dropped = select(pool, known, candidates, seed)
    say(f"{generated} languages generated; judging {len(fresh)} ({len(dropped)} equal to a "
        f"known family dropped on the way) with every theory column")
    ctx = Context(max_n=max_n, seed=seed, time_limit_s=time_limit_s)
    judge(fresh, out / "candidates", ctx, workers=workers, progress=progress)
    ranked = rank(fresh)
    eligible = [c for c in ranked if c.disagreement > 0][:top]
    db = db or str(out / "runs.sqlite")
    summary: dict[str, Any] = {"ran": 0, "skipped_done": 0, "failed": 0, "wall_s": 0.0}
    picked: list[Candidate] = []
    if train_top and eligible:
        say(f"training in rank order, smallest n first, until {settle} are settled"
            if settle else f"training the top {len(eligible)}")
        say(f"  (at most {len(eligible)} candidates, in distribution, {profile} protocol, "
            f"seeds {list(seeds)}, into {db})")
        id_deadline = deadline
        if deadline is not None and length_line and settle:
            # keep time for the settled ones' length line (about 15 s a run, measured)
            import os
            id_deadline = deadline - settle * len(seeds) * LENGTH_TRAINING.steps * 0.025 \
                / (workers or os.cpu_count() or 1)
        picked, summary = train_staged(eligible, db, seeds, profile, workers, progress,
                                       settle=settle, deadline=id_deadline, log=say)
    elif not train_top:   # judge and rank only: the eligible, with what the store holds
        picked = eligible
    store = ResultsStore(db, readonly=True) if pathlib.Path(db).is_file() else None
    records = store.records(IN_DISTRIBUTION) if store else []
    cells = outcomes(picked, records)
    # an Easy needs every n: one missing an n (a run cut short, a render of such a store)
    # is partly trained whatever its cell says
    for c in picked:
        cell = cells.get(c.name)
        if cell is not None and cell.verdict == EASY and \
                set(cell.by_n) != {int(st[0].n) for st in _stages(c, profile, seeds)}:
            summary.setdefault("left_partly_trained", [])
            if c.name not in summary["left_partly_trained"]:
                summary["left_partly_trained"].append(c.name)
    part = set(summary.get("left_partly_trained") or ())
    settled = [c for c in picked if c.name in cells and c.name not in part
               and cells[c.name].verdict in (EASY, HARD)]
    length_summary: dict[str, Any] = {"ran": 0, "skipped_done": 0, "failed": 0,
                                      "not_run": [], "wall_s": 0.0}
    if train_top and length_line and settled:
        say(f"the length line of the {len(settled)} settled: next-symbol objective, "
            f"{LENGTH_ENCODING}, trained on lengths <= 32, tested to 256")
        length_summary = train_length(settled, db, seeds, profile, workers, progress,
                                      deadline=deadline, log=say)
        store = ResultsStore(db, readonly=True)
    length_cells = length_outcomes(settled, store.records(LENGTH_GENERALIZATION), profile) \
        if store and length_line else {}
    opts = {"generators": list(generators), "candidates": candidates, "top": top,
            "settle": settle, "seed": seed, "seeds": list(seeds), "profile": profile,
            "max_n": max_n, "time_limit_s": time_limit_s, "db": db,
            "equivalence_lengths": EQUIV_LEN, "train": bool(train_top),
            "eligible": len(eligible), "length_line": bool(length_line),
            "length_encoding": LENGTH_ENCODING}
    return Discovery(generated, dropped, fresh, ranked, picked, cells, summary, opts,
                     shipped_theories(), length_cells, length_summary)


def _outcome_text(cell) -> str:
    """"n=8: 1.00 (seeds 0.99-1.00; Wilson 0.99-1.00); ..." of an in-distribution cell."""
    return "; ".join(f"n={n}: {agg.interval_text()}" for n, agg in sorted(cell.by_n.items()))


def reference_of(d: Discovery) -> Reference:
    """The settled tasks' outcomes as a reference (tasks named by their file, relative to
    the reference's folder: ``discovered/NAME.py``)."""
    cells = {IN_DISTRIBUTION: {f"discovered/{c.name}.py": RefCell(
        f"discovered/{c.name}.py", IN_DISTRIBUTION, d.cells[c.name].verdict,
        d.cells[c.name].note) for c in d.settled()}}
    line = f"{LENGTH_GENERALIZATION}:{d.options.get('length_encoding', LENGTH_ENCODING)}"
    lg = {f"discovered/{c.name}.py": RefCell(
        f"discovered/{c.name}.py", line, d.length_verdict(c.name),
        d.length_cells[c.name].note) for c in d.settled()
        if d.length_verdict(c.name) in (EASY, HARD)}
    if lg:   # one encoding only: no pooled length line, which would speak for all of them
        cells[line] = lg
    src = {"lines": sorted(cells), "from": "theorybench discover",
           "options": json.dumps(d.options, sort_keys=True)}
    if pathlib.Path(d.options["db"]).is_file():
        src["store_sha256"] = file_sha256(d.options["db"])
    return Reference("discovered", "tasks found by `theorybench discover` that split the "
                     "theories, settled by training", Thresholds().describe(), [src], cells,
                     cells_digest(cells))


def write(d: Discovery, out: str | pathlib.Path, tasks_dir: str | pathlib.Path | None = None
          ) -> dict[str, pathlib.Path]:
    """``discovered.md``, the settled tasks' files (in ``tasks_dir``, default
    ``OUT/discovered``) and ``discovered.json`` (a reference) in ``out``."""
    out = pathlib.Path(out)
    tasks_dir = pathlib.Path(tasks_dir) if tasks_dir else out / "discovered"
    tasks_dir.mkdir(parents=True, exist_ok=True)
    files: dict[str, pathlib.Path] = {}
    settled = d.settled()
    for c in settled:
        cell = d.cells[c.name]
        record = (f"Settled in distribution: {cell.verdict.capitalize()} "
                  f"({_outcome_text(cell)}; {cell.note}).\n\nTheory verdicts: "
                  + "; ".join(f"{t} {v}" for t, v in c.cells.items())
                  + f".\n\nRefutes: {', '.join(refutes(c, cell.verdict)) or 'none'}.")
        lg = d.length_cells.get(c.name)
        if lg is not None:
            v = d.length_verdict(c.name)
            record += (f"\n\nLength line ({d.options.get('length_encoding', LENGTH_ENCODING)},"
                       f" next-symbol objective, trained on lengths <= 32, tested to 256): "
                       f"{v} ({lg.note}); refutes on that line: "
                       f"{', '.join(refutes(c, v, True)) or 'none'}.")
        p = tasks_dir / f"{c.name}.py"
        atomic_write(p, c.file_text(record))
        files[p.name] = p
    ref = reference_of(d)
    files["discovered.json"] = out / "discovered.json"
    ref_mod.write(files["discovered.json"], ref)
    files["discovered.md"] = out / "discovered.md"
    atomic_write(files["discovered.md"], markdown(d))
    return files


def _training_lines(d: "Discovery", settled: list[Candidate]) -> list[str]:
    """The training stage in figures (markdown bullets)."""
    o, t = d.options, d.train_summary
    eligible = o.get("eligible", len(d.trained))
    with_runs = sum(c.name in d.cells for c in d.trained)
    lines = [f"- with opposite pairs, in rank order, trained at most: {eligible} (--top "
             f"{o['top']}); trained: {len(d.trained)}, with runs in the store: {with_runs}"
             + ("" if o.get("train", True) else " (this render trained nothing: --no-train)")]
    if o.get("train", True):
        lines.append(
            f"- how: each candidate one n at a time, smallest first, stopped once its verdict "
            f"cannot change (Hard as soon as an n is not learned: "
            f"{len(t.get('stopped_early') or [])} stopped before their largest n; after an "
            f"inconclusive n only the largest is trained: "
            f"{len(t.get('skipped_between') or [])} skipped the n between); new "
            f"candidates joined while fewer than {o.get('settle') or 'all'} were settled; "
            f"{t.get('waves', 0)} waves; this invocation: "
            f"{t.get('ran', 0)} runs ran, {t.get('skipped_done', 0)} already in the store, "
            f"{t.get('failed', 0)} failed; {t.get('wall_s', 0):.0f} s")
        if t.get("cut_by_deadline"):
            lines.append(f"- the time budget ended the training: "
                         f"{len(t.get('left_partly_trained') or [])} candidate(s) left partly "
                         f"trained (not counted as settled), {t.get('not_trained', 0)} never "
                         f"started")
    part = d.partial()
    lines.append(f"- settled (Easy or Hard over {len(o['seeds'])} seeds): {len(settled)}"
                 + (f" (the target was {o['settle']})" if o.get("settle") else "")
                 + f"; inconclusive or insufficient: "
                 f"{with_runs - len(settled) - len(part & {c.name for c in d.trained})}"
                 f"; partly trained: {len(part)}; not trained: "
                 f"{sum(c.name not in d.cells for c in d.trained)}")
    return lines


def markdown(d: Discovery) -> str:
    settled = d.settled()
    o = d.options
    judged_decided = {t: sum(c.cells.get(t) in (EASY, HARD) for c in d.judged)
                      for t in d.theories}
    hist: dict[int, int] = {}
    for c in d.judged:
        hist[c.disagreement] = hist.get(c.disagreement, 0) + 1
    out = ["# Tasks that split the theories", "",
           f"Found by `theorybench discover` with generators {', '.join(o['generators'])}, "
           f"seed {o['seed']}, {o['candidates']} candidates judged at most, trained in "
           f"rank order in distribution under the {o['profile']} profile's protocol "
           f"with seeds {o['seeds']} (store {o['db']}); theory rules capped at "
           f"{o['time_limit_s']:g} s each, exact computations up to n = {o['max_n']}.", "",
           "## The search in figures", "",
           f"- languages generated (each once, by canonical minimal DFA): {d.generated}",
           f"- equal to a known family up to a renaming of letters on every word of length "
           f"1-{o['equivalence_lengths']}, dropped: {len(d.known)}"
           + (" (e.g. " + ", ".join(f"{a} = {b}" for a, b in d.known[:5]) + ")"
              if d.known else ""),
           f"- judged by every column: {len(d.judged)}",
           "- pairs of columns with opposite verdicts, by candidate: "
           + ", ".join(f"{k}: {v}" for k, v in sorted(hist.items(), reverse=True)),
           ] + _training_lines(d, settled) + [""]
    out += ["## Found tasks", "",
            "| task | states/letters | opposite pairs | " + " | ".join(d.theories)
            + " | observed | refutes |", "|" + "---|" * (len(d.theories) + 5)]
    part = d.partial()
    for c in d.trained:
        cell = d.cells.get(c.name)
        obs = ("partly trained" if c.name in part else cell.verdict) if cell is not None \
            else "not trained"
        out.append(f"| {c.name} | {c.dfa.size}/{c.dfa.k} | {c.disagreement} | "
                   + " | ".join(c.cells.get(t, "") for t in d.theories)
                   + f" | {obs} | {', '.join(refutes(c, obs)) or '—'} |")
    out += ["", "Outcomes with intervals (mean over seeds, the seed range, a Wilson 95 % "
            "interval over the test examples):", ""]
    for c in d.trained:
        cell = d.cells.get(c.name)
        if cell is not None:
            yes, no = c.examples(3)
            shown = ("partly trained when the time budget ran out, not settled (so far "
                     f"{cell.verdict})" if c.name in part else cell.verdict)
            out.append(f"- **{c.name}** (members {', '.join(yes) or '—'}; non-members "
                       f"{', '.join(no) or '—'}): {shown}: {_outcome_text(cell)}. "
                       f"{cell.note}")
    out += _length_section(d, settled)
    out += ["", "## Each theory", ""]
    for t in d.theories:
        hit = [c.name for c in settled if t in refutes(c, d.cells[c.name].verdict)]
        agree = sum(c.cells.get(t) == d.cells[c.name].verdict for c in settled)
        decided = sum(c.cells.get(t) in (EASY, HARD) for c in settled)
        if hit:
            out.append(f"- **{t}**: refuted by {len(hit)} ({', '.join(hit)}); agrees on "
                       f"{agree} of the {decided} settled tasks it decides")
        else:
            out.append(f"- **{t}**: refuted by none. It decides {decided} of the "
                       f"{len(settled)} settled tasks and agrees on {agree}; over all "
                       f"{len(d.judged)} judged candidates it decided "
                       f"{judged_decided[t]}")
        lg = [c for c in settled if c.name in d.length_cells]
        lg_hit = [c.name for c in lg if t in refutes(c, d.length_verdict(c.name), True)]
        lg_decided = [c for c in lg if c.length.get(t) in (EASY, HARD)
                      and d.length_verdict(c.name) in (EASY, HARD)]
        if lg_decided:
            out[-1] += (f"; on the length line ({o.get('length_encoding', LENGTH_ENCODING)}) "
                        f"it decides {len(lg_decided)} of the {len(lg)} with that line and is "
                        f"refuted by {len(lg_hit)}"
                        + (f" ({', '.join(lg_hit)})" if lg_hit else ""))
    return "\n".join(out) + "\n"


def _length_section(d: Discovery, settled: list[Candidate]) -> list[str]:
    """The settled tasks' length line: per task the accuracy by bin, its reading, and the
    theories whose prediction for that line it contradicts."""
    o, t = d.options, d.length_summary
    if not o.get("length_line"):
        return []
    enc = o.get("length_encoding", LENGTH_ENCODING)
    out = ["", f"## The length line ({enc}, next-symbol objective)", "",
           f"Each settled task trained again on its members of length <= 32 under the "
           f"next-symbol objective (every position's set of allowed next symbols, end of "
           f"string included, from the task's automaton; a string is right when every "
           f"position is), the small model with {enc}, {LENGTH_TRAINING.steps} steps at most "
           f"(early stop at 100 % per string), seeds {o['seeds']}; tested in the bins up to "
           f"256. A task *generalizes* when the mean over seeds is >= "
           f"{Thresholds().length_accuracy:g} in every bin. Only a theory with its own "
           f"prediction for this line (the Huang et al. column, per encoding) is read here; "
           f"the other columns' cells speak of learning at the trained lengths. A task whose "
           f"mean stays below that bar on the training lengths themselves is *not fitted*: "
           f"its line says nothing about length (the budget was too small for it) and is "
           f"not read. The theories analyse membership, the acceptance of a whole word; "
           f"this line trains next-symbol sets, in which every position also reads its own "
           f"symbol, so a disagreement here can be one of objective rather than of the "
           f"theory (Sigma* b, for one, is out of C-RASP without positions as a membership "
           f"question, while its next-symbol sets need only the current symbol).",
           "", f"This invocation: {t.get('ran', 0)} runs ran, {t.get('skipped_done', 0)} "
           f"already in the store, {t.get('failed', 0)} failed; {t.get('wall_s', 0):.0f} s"
           + (f"; not run for lack of time: {', '.join(t['not_run'])}" if t.get("not_run")
              else ""), ""]
    rows = [c for c in settled if c.name in d.length_cells]
    if not rows:
        return out + ["No settled task has a length line in the store.", ""]
    cols = [x for x in d.theories if any(x in c.length for c in rows)]
    out += ["| task | in distribution | by bin (mean over seeds) | length line | "
            + "".join(f"{x} ({enc}) | " for x in cols) + "refutes |",
            "|" + "---|" * (len(cols) + 5)]
    for c in rows:
        cell = d.length_cells[c.name]
        bins = cell.by_config.get(cell.best_config or "", {}) if cell.best_config else {}
        shown = ", ".join(f"{b}: {a.pick('mean'):.2f}" for b, a in bins.items()) or cell.note
        v = d.length_verdict(c.name)
        out.append(f"| {c.name} | {d.cells[c.name].verdict} | {shown} | {v} | "
                   + "".join(f"{c.length.get(x, '')} | " for x in cols)
                   + f"{', '.join(refutes(c, v, True)) or '—'} |")
    fitted = [c for c in rows if d.length_verdict(c.name) in (EASY, HARD)]
    out += ["", f"Fitted on the training lengths: {len(fitted)} of {len(rows)}; of those, "
            f"{sum(d.length_verdict(c.name) == EASY for c in fitted)} generalize to 256."]
    return out


__all__ = ["Generator", "Candidate", "generate", "known_signatures", "equivalent_known",
           "disagreement", "rank", "select", "judge", "train_staged", "train_length",
           "length_specs", "length_outcomes", "outcomes", "refutes", "discover",
           "Discovery", "write", "markdown", "reference_of", "DEFAULT_GENERATORS"]
