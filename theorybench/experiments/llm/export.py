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

Classification tasks export as ``multiple_choice`` (metrics ``acc`` and ``acc_norm``) with
``target_delimiter`` = the template's answer prefix, so the harness scores exactly the
context/continuation pairs of ``loglik`` scoring; sequence tasks (and ``scoring="generate"``)
as ``generate_until`` with the template's stop sequences and lm-eval's ``exact_match``
ignoring whitespace (parser ``exact_match`` of :mod:`.scoring`).

The data are read by ``theorybench_lmeval.load`` (``custom_dataset``), relative to the
folder, so the folder can be moved. Every option that changes the prompts or the scoring
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
from .prompts import PromptBuilder, description, load_prompts

LOADER = "theorybench_lmeval"
_LOADER_SOURCE = '''"""Written by theorybench (llm export): lm-eval reads the exported tasks
through this module, so the folder can be moved. Nothing else imports it."""
import json
from pathlib import Path

from lm_eval.api.samplers import ContextSampler

HERE = Path(__file__).resolve().parent


def load(data_file, **kwargs):
    """The test split of a task, read from the JSONL beside this module."""
    import datasets

    with open(HERE / data_file, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


class Shots(ContextSampler):
    """Each document's own examples (its "shots"), the first n of them, in order."""

    def sample(self, n, eval_doc=None, df=None, **kwargs):
        shots = list(eval_doc["shots"]) if eval_doc is not None else []
        if n > len(shots):
            raise ValueError(f"this export holds {len(shots)} examples per prompt; "
                             f"ask for --num_fewshot {len(shots)} or fewer")
        return shots[:n]
'''


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
    ours = _read(loader) == _LOADER_SOURCE  # written by an earlier export: kept as it is
    for path in (data, yaml, group_yaml) + (() if ours else (loader,)):
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
                  "metric_list:"]
        for metric in ("acc", "acc_norm"):
            lines += [f"  - metric: {metric}", "    aggregation: mean",
                      "    higher_is_better: true"]
    else:
        budget = max_new_tokens or (8 if b.choices else
                                    2 * max(len(i.target.split()) for i in insts) + 8)
        lines += ["output_type: generate_until", "doc_to_target: target",
                  f"target_delimiter: {_q(b.answer_prefix)}", "generation_kwargs:",
                  f"  until: {json.dumps(list(b.stop))}", "  do_sample: false",
                  f"  max_gen_toks: {budget}", "metric_list:", "  - metric: exact_match",
                  "    aggregation: mean", "    higher_is_better: true",
                  f"    regexes_to_ignore: {json.dumps([chr(92) + 's'])}"]
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
