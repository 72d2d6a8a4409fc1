"""One run of the llm line: ``evaluate_llm(spec) -> {"spec", "metrics", "records"}``.

``LLMSpec`` is the run (frozen, hashable, stable ``key``): task family, its parameters and
n, the model entry (``ModelConfig.to_dict()`` plus its name), k, template, example order,
seed, number of prompts, scoring (``loglik`` or ``generate``), the prompt file and the
digest of its content (edited templates are new runs). Records (one per prompt, in order)::

    {"index", "prompt", "target", "choices", "scores" (answer -> summed log-probability,
     None when generating), "answer" (the model's answer: the best-scoring choice, or the
     generated text), "parsed" (None when unparseable), "correct"}

Metrics are :func:`scoring.metrics` plus ``parser`` (which parser produced the accuracy:
``loglik``, ``first_word`` or ``exact_match``), ``seconds`` (building and scoring the
prompts, model loading excluded) and ``prompts_per_s``.

Chat: ``chat`` (None: the model entry's switch) applies the model's chat template to
:func:`prompts.chat_messages` (multi-turn few-shot, ``system`` an optional instruction
before the header). Scoring follows lm-eval's conventions throughout: in chat mode the
answer is the choice without the answer prefix, and the chat template's closing newline
(the end of "<|im_start|>assistant\n") is scored as the first character of the answer
(lm-eval moves a context's trailing whitespace into the continuation;
:meth:`local.LocalModel.split`).

The spec's ``sampler`` (2: queries in prefix-stable blocks, examples distinct within a
prompt) is part of its key: runs stored by the earlier sampler are other runs.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass

from ...errors import ConfigError
from . import scoring
from .http import HTTPModel
from .local import LocalModel
from .models import ModelConfig, model_from_dict
from .prompts import PromptBuilder, chat_messages, load_prompts

SCORINGS = ("loglik", "generate")
#: Version of the prompt sampler (see the module docstring).
SAMPLER = 2
_BACKENDS: dict[str, object] = {}  # loaded models by config digest (loading takes seconds)


@dataclass(frozen=True)
class LLMSpec:
    task: str
    n: int
    model: ModelConfig
    params: tuple = ()
    k: int = 8
    template: str = "plain"
    order: str = "balanced"
    seed: int = 0
    count: int = 100
    scoring: str = "loglik"
    prompts: str | None = None       # prompt file (None: the packaged one)
    max_new_tokens: int | None = None
    parser: str = "first_word"       # generation only (scoring.PARSERS)
    chat: bool | None = None         # None: the model entry's "chat"
    system: str | None = None        # chat only: an instruction before the header

    def __post_init__(self):
        if self.parser not in scoring.PARSERS:
            raise ConfigError(f"unknown answer parser {self.parser!r}; parsers: "
                              f"{', '.join(scoring.PARSERS)}")
        if self.chat not in (None, True, False):
            raise ConfigError(f"chat must be true, false or null, got {self.chat!r}")
        if self.system is not None and not isinstance(self.system, str):
            raise ConfigError(f"system (instruction) must be text, got {self.system!r}")
        if self.scoring not in SCORINGS:
            raise ConfigError(f"unknown llm scoring {self.scoring!r}; scorings: "
                              f"{', '.join(SCORINGS)}")
        if not isinstance(self.count, int) or self.count < 1:
            raise ConfigError(f"count (prompts) must be a positive integer, got {self.count!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {self.seed!r}")

    @property
    def line(self) -> str:
        """The experiment line (the results store's ``line`` column)."""
        return "llm"

    @property
    def use_chat(self) -> bool:
        return self.model.chat if self.chat is None else self.chat

    def describe(self) -> str:
        extra = f" params={dict(self.params)}" if self.params else ""
        chat = " chat" if self.use_chat else ""
        parser = f" parser={self.parser}" if self.scoring == "generate" else ""
        return (f"llm {self.task} n={self.n}{extra} {self.model.name} k={self.k} "
                f"{self.scoring}{parser}{chat} {self.template} seed={self.seed} "
                f"prompts={self.count}")

    def to_dict(self) -> dict:
        return {"line": "llm", "task": self.task, "params": dict(self.params), "n": self.n,
                "model": self.model.to_dict(), "k": self.k, "template": self.template,
                "order": self.order, "seed": self.seed, "count": self.count,
                "scoring": self.scoring, "prompts": self.prompts,
                "prompts_digest": load_prompts(self.prompts).digest,
                "max_new_tokens": self.max_new_tokens, "sampler": SAMPLER,
                # only when set, so that the keys of other runs stay as they are
                **({"parser": self.parser} if self.parser != "first_word" else {}),
                **({"chat": self.chat} if self.chat is not None else {}),
                **({"system": self.system} if self.system is not None else {})}

    @property
    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()
                              ).hexdigest()[:16]

    @classmethod
    def from_dict(cls, d: dict) -> "LLMSpec":
        d = dict(d)
        d.pop("line", None)
        d.pop("prompts_digest", None)
        if d.pop("sampler", 1) != SAMPLER:  # a spec without one predates the field
            raise ConfigError("this run spec was stored by another prompt sampler "
                              f"(theorybench's is {SAMPLER}); its prompts cannot be rebuilt")
        m = d.pop("model")
        model = m if isinstance(m, ModelConfig) else model_from_dict(m)
        d["params"] = tuple(sorted(dict(d.get("params") or {}).items()))
        return cls(model=model, **d)


def load_backend(config: ModelConfig):
    """The backend of a model entry, loaded once per process."""
    if config.digest not in _BACKENDS:
        if config.backend == "local":
            _BACKENDS[config.digest] = LocalModel.load(config)
        else:
            _BACKENDS[config.digest] = HTTPModel(config)
    return _BACKENDS[config.digest]


def evaluate_llm(spec: LLMSpec | dict, backend=None) -> dict:
    """Build the prompts of ``spec``, score them with the model and return
    ``{"spec": spec.to_dict(), "key", "metrics", "records"}``."""
    if isinstance(spec, dict):
        spec = LLMSpec.from_dict(spec)
    start = time.perf_counter()
    builder = PromptBuilder(spec.task, spec.n, dict(spec.params), spec.k, spec.template,
                            spec.order, load_prompts(spec.prompts))
    insts = builder.instances(spec.count, spec.seed)
    backend = backend or load_backend(spec.model)
    # local chat models get the chat template here; an http chat endpoint applies its own
    chat = spec.use_chat and spec.model.backend == "local"
    if chat:
        prompts = [backend.apply_chat(chat_messages(i, spec.system)) for i in insts]
        prefix, special = "", False  # the assistant turn starts the answer
    else:
        prompts = [i.text() for i in insts]
        prefix, special = builder.answer_prefix, True
    scoring_mode = spec.scoring
    if scoring_mode == "loglik" and not builder.choices:
        raise ConfigError(f"{spec.task} answers are sequences with no list of allowed answers: "
                          f"use scoring 'generate'")
    records = []
    if scoring_mode == "loglik":
        reqs = [(p, prefix + c) for p in prompts for c in builder.choices]
        res = backend.loglikelihood(reqs, special=special)
        m = len(builder.choices)
        for j, inst in enumerate(insts):
            scores = {c: res[j * m + q][0] for q, c in enumerate(builder.choices)}
            best = max(builder.choices, key=lambda c: scores[c])  # ties: the first choice
            records.append({"index": inst.index, "prompt": prompts[j], "target": inst.target,
                            "choices": list(builder.choices), "scores": scores,
                            "answer": best, "parsed": best, "correct": best == inst.target})
    else:
        budget = spec.max_new_tokens or (8 if builder.choices else
                                         2 * max(len(i.target.split()) for i in insts) + 8)
        texts = backend.generate(prompts, max_new_tokens=budget, stop=builder.stop,
                                 special=special)
        vocab = set(builder.task.label_vocab)
        for j, inst in enumerate(insts):
            parsed = scoring.parse_answer(texts[j], builder.choices, vocab, spec.parser)
            right = (scoring.exact_match(texts[j], inst.target) if spec.parser == "exact_match"
                     else parsed is not None and parsed == inst.target)
            records.append({"index": inst.index, "prompt": prompts[j], "target": inst.target,
                            "choices": list(builder.choices), "scores": None,
                            "answer": texts[j], "parsed": parsed, "correct": right})
    took = time.perf_counter() - start
    metrics = scoring.metrics(records, builder.choices)
    metrics["parser"] = "loglik" if scoring_mode == "loglik" else spec.parser
    metrics["seconds"] = round(took, 3)  # prompts built and scored (no model loading)
    metrics["prompts_per_s"] = round(len(records) / took, 3) if took > 0 else None
    return {"spec": spec.to_dict(), "key": spec.key, "metrics": metrics, "records": records}
