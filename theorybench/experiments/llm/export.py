"""Export a task at n to the LM evaluation harness's format (EleutherAI lm-evaluation-harness):
a task YAML, a JSONL file of the same prompts this line scores, a loader module and a group
YAML. The harness is not needed (nor imported) to write them; run them with
``lm_eval --include_path DIR --tasks NAME|GROUP --model hf --model_args pretrained=...``.

Each JSONL row (a test document): ``{"id", "prompt" (the whole completion prompt this line
scores), "query" (the query's text, lm-eval's doc_to_text), "choices" (allowed answers,
without the answer prefix), "gold" (index of the answer in choices; -1 for sequence
answers), "target" (the answer text), "shots" (this prompt's k solved examples, each
{"query", "choices", "gold", "target"})}``.

Few-shot: the YAML sets ``num_fewshot: k``, ``description`` (the header and separator),
``fewshot_delimiter`` (the template's separator) and ``fewshot_split: test`` with a sampler
(``theorybench_lmeval.Shots``, in the folder) that gives each document its own examples,
in order: lm-eval then builds exactly this line's prompt (``--num_fewshot m`` below k takes
the first m), and with ``--apply_chat_template --fewshot_as_multiturn`` exactly the turns
of :func:`prompts.chat_messages`. A template whose example is not its query, answer prefix
and answer (a user's prompt file) cannot be rebuilt that way: its examples stay in the
prompt (``num_fewshot: 0``, ``doc_to_text: prompt``).

Classification tasks export as ``multiple_choice`` with ``target_delimiter`` = the
template's answer prefix, so the harness scores exactly the context/continuation pairs of
``loglik`` scoring; metrics ``acc``, ``acc_norm``, ``chance``, ``calibrated_accuracy``,
``balanced_accuracy`` and (two answers) ``auc``, as :func:`.scoring.metrics` defines them.
Sequence tasks (and ``scoring="generate"``) export as ``generate_until`` with the template's
stop sequences; metrics lm-eval's ``exact_match`` ignoring whitespace (parser
``exact_match`` of :mod:`.scoring`), ``chance`` and ``balanced_accuracy``. The metrics are
computed by ``process_results`` and aggregation functions of the folder's module
(:mod:`.lmeval_module`); lm-eval gives standard errors for the means (``acc``,
``acc_norm``, ``exact_match``) only.

The data are read by ``theorybench_lmeval.load`` (``custom_dataset``, lm-eval 0.4.9 or
later), relative to the folder, so the folder can be moved. Every option that changes the prompts or the scoring
is in the task name; the group YAML (``theorybench.yaml`` by default) lists every task
exported into the folder.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from ...errors import ConfigError
from ...safe_io import atomic_open, atomic_write, check_output
from .lmeval_module import MARK, SOURCE as _LOADER_SOURCE
from .prompts import PromptBuilder, description, load_prompts

LOADER = "theorybench_lmeval"


def _q(s) -> str:
    return json.dumps(s)  # a JSON string is a valid YAML double-quoted scalar


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "", str(text))


def task_name(task: str, n: int, params: dict | None, k: int, template: str, order: str,
              seed: int, count: int, scoring: str, chat: bool, system: str | None) -> str:
    """The exported task's name: every option that changes its prompts or scoring."""
    extra = "".join(f"_{_slug(key)}{_slug(val)}" for key, val in sorted((params or {}).items()))
    sysd = "" if system is None else "_sys" + hashlib.sha256(system.encode()).hexdigest()[:8]
    return (f"theorybench_{task}_n{n}{extra}_k{k}_{_slug(template)}_{order}_{scoring}"
            f"{'_chat' if chat else ''}{sysd}_s{seed}_c{count}")


def export_lm_eval(task: str, n: int, out_dir: str | Path, params: dict | None = None,
                   k: int = 8, template: str = "plain", order: str = "balanced",
                   seed: int = 0, count: int = 100, scoring: str = "loglik",
                   prompts: str | None = None, max_new_tokens: int | None = None,
                   force: bool = False, chat: bool = False, system: str | None = None,
                   group: str = "theorybench"):
    """Write ``<name>.yaml`` and ``<name>.jsonl`` under ``out_dir`` (plus the loader module
    and the group YAML); returns the task YAML and JSONL paths. Each file is written
    atomically, and never over a results store, checkpoint or program unless ``force``
    (:func:`theorybench.safe_io.check_output`)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        # zero prompts would write a data file the harness cannot run
        raise ConfigError(f"count (prompts to export) must be a positive integer, got {count!r}")
    if system is not None and not chat:
        raise ConfigError("a system instruction is for chat exports: add chat (--chat)")
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", group or ""):
        raise ConfigError(f"group name {group!r}: letters, digits and _ (starting with a "
                          f"letter)")
    ps = load_prompts(prompts)
    b = PromptBuilder(task, n, dict(params or {}), k, template, order, ps)
    if scoring not in ("loglik", "generate"):
        raise ConfigError(f"unknown scoring {scoring!r}; scorings: loglik, generate")
    if not b.choices:
        scoring = "generate"  # a sequence answer has no choices to score: one export
    insts = b.instances(count, seed)
    name = task_name(task, n, params, k, template, order, seed, count, scoring, chat, system)
    # lm-eval rebuilds the prompt from the examples only when an example reads as the
    # query text, the answer prefix and the answer
    split = all(ex == q + b.answer_prefix + a for i in insts
                for ex, (q, a) in zip(i.examples, i.shots))
    if chat and not split:
        raise ConfigError(f"template {template!r}: its examples are not its query, answer "
                          f"prefix and answer, so lm-eval cannot rebuild chat turns from them")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data, yaml = out / f"{name}.jsonl", out / f"{name}.yaml"
    loader, group_yaml = out / f"{LOADER}.py", out / f"{group}.yaml"
    found = _read(loader)
    ours = found == _LOADER_SOURCE  # written by an earlier export: kept as it is
    # an older version of it is replaced (the new one serves the older YAMLs as well);
    # a module of the same name that is not ours is not replaced without --force
    older = found is not None and found.startswith(MARK) and not ours
    if found is not None and not found.startswith(MARK) and not force:
        raise ConfigError(f"{loader} exists and was not written by theorybench; exports "
                          f"need that name for their module: choose another --out or pass "
                          f"--force")
    for path in (data, yaml, group_yaml) + (() if ours or older else (loader,)):
        check_output(path, force=force)
    with atomic_open(data) as f:
        for i in insts:
            gold = list(b.choices).index(i.target) if b.choices else -1
            shots = [{"query": q, "choices": list(b.choices),
                      "gold": list(b.choices).index(a) if b.choices else -1, "target": a}
                     for q, a in i.shots]
            f.write(json.dumps({"id": i.index, "prompt": i.text(), "query": i.query,
                                "choices": list(b.choices), "gold": gold,
                                "target": i.target, "shots": shots}) + "\n")
    if not ours:
        atomic_write(loader, _LOADER_SOURCE)
    mc = bool(b.choices) and scoring == "loglik"
    lines = [f"# theorybench export: {task} n={n} params={dict(params or {})} k={k} "
             f"template={template} order={order} seed={seed} count={count} "
             f"scoring={scoring} chat={chat} prompts={ps.digest}"
             + ("" if mc else " parser=exact_match"),
             f"task: {name}", f"custom_dataset: !function {LOADER}.load",
             "dataset_kwargs:", f"  data_file: {_q(data.name)}", "test_split: test"]
    if split:
        lines += [f"num_fewshot: {k}", "fewshot_split: test",
                  f"description: {_q(description(insts[0], system))}",
                  f"fewshot_delimiter: {_q(b.t['separator'])}",
                  "fewshot_config:", f"  sampler: !function {LOADER}.Shots",
                  "doc_to_text: query"]
    else:
        lines += ["num_fewshot: 0", "doc_to_text: prompt"]
    if mc:
        lines += ["output_type: multiple_choice", "doc_to_choice: choices",
                  "doc_to_target: gold", f"target_delimiter: {_q(b.answer_prefix)}",
                  f"process_results: !function {LOADER}.process_results"]
        metrics = ["acc", "acc_norm", "chance", "calibrated_accuracy", "balanced_accuracy"]
        metrics += ["auc"] if len(b.choices) == 2 else []
    else:
        budget = max_new_tokens or (8 if b.choices else
                                    2 * max(len(i.target.split()) for i in insts) + 8)
        lines += ["output_type: generate_until", "doc_to_target: target",
                  f"target_delimiter: {_q(b.answer_prefix)}", "generation_kwargs:",
                  f"  until: {json.dumps(list(b.stop))}", "  do_sample: false",
                  f"  max_gen_toks: {budget}",
                  f"process_results: !function {LOADER}.process_generate"]
        metrics = ["exact_match", "chance", "balanced_accuracy"]
    lines.append("metric_list:")
    for metric in metrics:
        mean = metric in ("acc", "acc_norm", "exact_match")  # lm-eval's stderr: means only
        lines += [f"  - metric: {metric}",
                  "    aggregation: " + ("mean" if mean else f"!function {LOADER}.{metric}"),
                  f"    higher_is_better: {'false' if metric == 'chance' else 'true'}"]
    lines += ["metadata:", "  version: 2.0"]
    atomic_write(yaml, "\n".join(lines) + "\n")
    _add_to_group(group_yaml, group, name)
    return yaml, data


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def group_tasks(path: Path) -> list[str]:
    """The task names listed by a group YAML written here (empty when there is none)."""
    return re.findall(r"^  - (\S+)$", _read(path) or "", flags=re.M)


def _add_to_group(path: Path, group: str, name: str) -> None:
    names = sorted(set(group_tasks(path)) | {name})
    atomic_write(path, "\n".join(
        [f"# theorybench export: every task exported into this folder "
         f"(lm_eval --include_path . --tasks {group})", f"group: {group}", "task:",
         *(f"  - {t}" for t in names), "metadata:", "  version: 2.0"]) + "\n")
