"""Few-shot prompts for the llm line, built from template data (``prompts.json``).

A prompt is a header (the family's instruction and the answer format), ``k`` solved
examples and the query, each written in the task's own textual form (``Task.render``).
The answer of an instance depends on the family's ``answer`` kind:

* ``label`` - the label of a ``final`` task (``0`` / ``1``): a classification with the
  label vocabulary as the allowed answers;
* ``last`` - the label at the last position of a ``per_position`` task (khop: the letter
  reached from the last position), allowed answers the label vocabulary;
* ``sequence`` - the whole answer of an ``answer`` task (binary_add), space-separated; it
  has no short list of allowed answers, so it is scored by generation only.

Determinism and prefixes: the queries are drawn in blocks of :data:`QUERY_BLOCK`, block
``b`` from ``np.random.default_rng([seed, 1, b])``, so the first N prompts of ``count`` M >= N
are the prompts of ``count`` N (lm-eval's ``--limit N``: the first N documents); a sampler
that balances a whole batch (index, khop, Dyck) would otherwise give other queries for
another count. The examples of query ``i`` come from ``default_rng([seed, 2, i])``; they
never equal the query's input and never repeat within one prompt. ``order`` is ``random``
(examples from the task's distribution) or ``balanced`` (equally many examples of each
allowed answer, shuffled; for ``label``/``last`` answers).

Chat (:func:`chat_messages`): the header is the system turn, each example a user turn (its
query text) and an assistant turn (its answer), the query a last user turn: lm-eval's
``--apply_chat_template --fewshot_as_multiturn`` layout.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ... import tasks
from ...errors import ConfigError, TaskParameterError
from .files import read_document

DEFAULT_PROMPTS = Path(__file__).with_name("prompts.json")
ORDERS = ("random", "balanced")
ANSWER_KINDS = ("label", "last", "sequence")
_TEMPLATE_KEYS = ("header", "example", "query", "separator", "answer_prefix", "stop")
#: Rounds of drawing before a family is declared too small for k distinct examples.
MAX_DRAW_ROUNDS = 8
#: Queries are drawn this many at a time, each block from its own generator (prefixes).
QUERY_BLOCK = 64


@dataclass(frozen=True)
class PromptSet:
    """A loaded prompt file: templates, family entries and the digest of its content."""

    path: str
    templates: dict
    families: dict
    digest: str


def load_prompts(path: str | Path | None = None) -> PromptSet:
    """Read and check a prompt file (default: the packaged ``prompts.json``)."""
    path = Path(path) if path else DEFAULT_PROMPTS
    return _load(str(path.resolve()) if path.exists() else str(path))


@lru_cache(maxsize=8)
def _load(path: str) -> PromptSet:
    text, data = read_document(Path(path), "prompt", "theorybench-llm-prompts", "--prompts")
    templates, fams = data.get("templates") or {}, data.get("families") or {}
    for name, t in templates.items():
        missing = [k for k in _TEMPLATE_KEYS if k not in t]
        if missing:
            raise ConfigError(f"prompt file {path}: template {name!r} lacks "
                              f"{', '.join(missing)}")
    known = tasks.families()
    for name, f in fams.items():
        if name not in known:
            raise ConfigError(f"prompt file {path}: unknown family {name!r}; families: "
                              f"{', '.join(known)}")
        if f.get("answer") not in ANSWER_KINDS or not isinstance(f.get("instruction"), str):
            raise ConfigError(f"prompt file {path}: family {name!r} needs \"instruction\" "
                              f"(text) and \"answer\" (one of {', '.join(ANSWER_KINDS)})")
    digest = hashlib.sha256(json.dumps({"t": templates, "f": fams}, sort_keys=True)
                            .encode()).hexdigest()[:12]
    return PromptSet(path, templates, fams, digest)


@dataclass(frozen=True)
class Instance:
    """One query: the prompt parts, the gold answer and the allowed answers."""

    index: int
    header: str
    examples: tuple[str, ...]   # rendered solved examples
    query: str                  # rendered query (ends before the answer)
    target: str                 # gold answer text (no prefix)
    choices: tuple[str, ...]    # allowed answers ((), for sequence answers)
    input_text: str
    separator: str
    #: (query text, answer) of each example: the chat turns
    shots: tuple[tuple[str, str], ...] = ()

    def text(self) -> str:
        """The completion-style prompt (everything before the answer)."""
        return self.separator.join((self.header, *self.examples, self.query))


class PromptBuilder:
    """Builds the instances of one (task, n, k, template, order, seed)."""

    def __init__(self, family: str, n: int, params: dict, k: int, template: str = "plain",
                 order: str = "balanced", prompts: PromptSet | None = None):
        self.prompts = prompts or load_prompts()
        if template not in self.prompts.templates:
            raise ConfigError(f"unknown prompt template {template!r}; templates in "
                              f"{self.prompts.path}: {', '.join(self.prompts.templates)}")
        if family not in self.prompts.families:
            raise ConfigError(f"no prompt for family {family!r} in {self.prompts.path}; add "
                              f"an entry under \"families\"")
        if order not in ORDERS:
            raise ConfigError(f"unknown example order {order!r}; orders: {', '.join(ORDERS)}")
        if not isinstance(k, int) or k < 0:
            raise ConfigError(f"k (few-shot examples) must be a non-negative integer, got {k!r}")
        try:
            self.task = tasks.get(family, n=n, **params)
        except TaskParameterError as exc:
            raise ConfigError(f"task {family} with n={n}: {exc}") from None
        self.t = self.prompts.templates[template]
        entry = self.prompts.families[family]
        self.kind = entry["answer"]
        self.k, self.order = k, order
        self.choices = tuple(self.task.label_vocab) if self.kind != "sequence" else ()
        answers = " or ".join(self.choices) if self.choices else "the output only"
        try:
            instruction = entry["instruction"].format(**self.task.values)
            self.header = self.t["header"].format(instruction=instruction, answers=answers,
                                                  **self.task.values)
        except (KeyError, IndexError) as exc:
            raise ConfigError(f"prompt for {family}: unknown placeholder {exc} in "
                              f"{self.prompts.path}") from None

    @property
    def stop(self) -> tuple[str, ...]:
        return tuple(self.t["stop"])

    @property
    def answer_prefix(self) -> str:
        return self.t["answer_prefix"]

    def answers(self, batch) -> list[str]:
        """The gold answer text of every row of a task batch."""
        labels = np.asarray(batch.labels)
        vocab = self.task.label_vocab
        if self.kind == "label":
            return [vocab[int(v)] for v in labels.reshape(len(batch), -1)[:, 0]]
        if self.kind == "last":
            last = np.asarray(batch.lengths) - 1
            return [vocab[int(labels[i, last[i]])] for i in range(len(batch))]
        return [self.task.render_label(labels[i], None if batch.mask is None else batch.mask[i])
                for i in range(len(batch))]

    def _solved(self, text: str, answer: str) -> str:
        return self.t["example"].format(input=text, answer=answer)

    def _examples(self, seed: int, index: int, query_row: np.ndarray) -> list[str]:
        rng = np.random.default_rng([seed, 2, index])
        want = self.k
        per = ({c: want // len(self.choices) + (i < want % len(self.choices))
                for i, c in enumerate(self.choices)}
               if self.order == "balanced" and self.choices else None)
        picked: list[tuple[str, str]] = []
        taken = dict.fromkeys(per or (), 0)
        seen = {query_row.tobytes()}  # never the query, never one example twice
        for _ in range(MAX_DRAW_ROUNDS):
            if len(picked) >= want:
                break
            batch = self.task.sample(rng, 4 * want + 8)
            answers = self.answers(batch)
            for i in range(len(batch)):
                row = np.ascontiguousarray(batch.tokens[i][: int(batch.lengths[i])],
                                           dtype=query_row.dtype)
                if row.tobytes() in seen:
                    continue
                if per is not None:
                    if taken.get(answers[i], want) >= per[answers[i]]:
                        continue
                    taken[answers[i]] += 1
                seen.add(row.tobytes())
                picked.append((self.task.render(row), answers[i]))
                if len(picked) >= want:
                    break
        if len(picked) < want:
            raise ConfigError(f"{self.task.name} at n={self.task.n} cannot supply {want} "
                              f"distinct examples other than the query ("
                              f"{'balanced' if per else 'random'} order found {len(picked)}); "
                              f"lower k or raise n")
        if per is not None:
            rng.shuffle(picked)
        return picked

    def instances(self, count: int, seed: int) -> list[Instance]:
        """``count`` queries with their examples; the same seed gives the same prompts."""
        out = []
        for b in range(-(-count // QUERY_BLOCK)):
            batch = self.task.sample(np.random.default_rng([seed, 1, b]), QUERY_BLOCK)
            answers = self.answers(batch)
            for j in range(min(QUERY_BLOCK, count - b * QUERY_BLOCK)):
                i = b * QUERY_BLOCK + j
                row = np.ascontiguousarray(batch.tokens[j][: int(batch.lengths[j])])
                text = self.task.render(row)
                picked = self._examples(seed, i, row)
                shots = tuple((self.t["query"].format(input=t), a) for t, a in picked)
                examples = tuple(self._solved(t, a) for t, a in picked)
                out.append(Instance(i, self.header, examples,
                                    self.t["query"].format(input=text), answers[j],
                                    self.choices, text, self.t["separator"], shots))
        return out


def maybe_delimit(prefix: str | None, suffix: str | None, delimiter: str) -> str:
    """lm-eval's join of a system instruction and a description: ``delimiter`` between
    them unless one of them has whitespace at the boundary."""
    if not prefix:
        return suffix or ""
    if not suffix:
        return prefix
    gap = "" if prefix[-1].isspace() or suffix[0].isspace() else delimiter
    return prefix + gap + suffix


def description(inst: Instance, system: str | None = None) -> str:
    """The text before the first example, as lm-eval's ``description`` (the header and the
    separator), after an optional system instruction."""
    return maybe_delimit(system, inst.header + inst.separator, inst.separator)


def chat_messages(inst: Instance, system: str | None = None) -> list[dict]:
    """The chat turns of an instance, as lm-eval builds them with ``--apply_chat_template
    --fewshot_as_multiturn`` from an export (:mod:`.export`): a system turn holding
    :func:`description` (the header with its trailing separator, after ``system``), a user
    turn (the example's query text) and an assistant turn (its answer) per example, and the
    query as the last user turn. A template without a system role drops that turn
    (:meth:`local.LocalModel.apply_chat`, as lm-eval's ``hf`` model does)."""
    msgs: list[dict] = [{"role": "system", "content": description(inst, system)}]
    for q, a in inst.shots:
        msgs += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    msgs.append({"role": "user", "content": inst.query})
    return msgs
