"""Export a task at n to the LM evaluation harness's format (EleutherAI lm-evaluation-harness):
a task YAML plus a JSONL file of the same prompts this line scores. The harness is not
needed (nor imported) to write them; run them with
``lm_eval --include_path DIR --tasks NAME --model hf --model_args pretrained=...``.

Each JSONL row: ``{"id", "prompt" (instruction, k solved examples and the query: the
examples are in the prompt, so the YAML sets num_fewshot 0), "choices" (allowed answers,
without the answer prefix), "gold" (index of the answer in choices; -1 for sequence
answers), "target" (the answer text)}``. Classification tasks export as
``multiple_choice`` with ``target_delimiter`` = the template's answer prefix, so the harness
scores exactly the context/continuation pairs of ``loglik`` scoring; sequence tasks (and
``scoring="generate"``) as ``generate_until`` with the template's stop sequences and
exact match ignoring whitespace. The YAML holds the absolute path of the JSONL (the
harness resolves relative data paths against its working directory).
"""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import ConfigError
from ...safe_io import atomic_open, atomic_write, check_output
from .prompts import PromptBuilder, load_prompts


def _q(s) -> str:
    return json.dumps(s)  # a JSON string is a valid YAML double-quoted scalar


def export_lm_eval(task: str, n: int, out_dir: str | Path, params: dict | None = None,
                   k: int = 8, template: str = "plain", order: str = "balanced",
                   seed: int = 0, count: int = 100, scoring: str = "loglik",
                   prompts: str | None = None, max_new_tokens: int | None = None,
                   force: bool = False):
    """Write ``<name>.yaml`` and ``<name>.jsonl`` under ``out_dir``; returns both paths.
    Each is written atomically, and never over a results store, checkpoint or program
    unless ``force`` (:func:`theorybench.safe_io.check_output`)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        # zero prompts would write a data file the harness cannot run
        raise ConfigError(f"count (prompts to export) must be a positive integer, got {count!r}")
    ps = load_prompts(prompts)
    b = PromptBuilder(task, n, dict(params or {}), k, template, order, ps)
    if scoring not in ("loglik", "generate"):
        raise ConfigError(f"unknown scoring {scoring!r}; scorings: loglik, generate")
    insts = b.instances(count, seed)
    extra = "".join(f"_{key}{val}" for key, val in sorted((params or {}).items()))
    name = f"theorybench_{task}_n{n}{extra}_k{k}_{template}_s{seed}"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = (out / f"{name}.jsonl").resolve()
    yaml = out / f"{name}.yaml"
    for path in (data, yaml):
        check_output(path, force=force)
    with atomic_open(data) as f:
        for i in insts:
            gold = list(b.choices).index(i.target) if b.choices else -1
            f.write(json.dumps({"id": i.index, "prompt": i.text(), "choices": list(b.choices),
                                "gold": gold, "target": i.target}) + "\n")
    lines = [f"# theorybench export: {task} n={n} params={dict(params or {})} k={k} "
             f"template={template} order={order} seed={seed} count={count} "
             f"prompts={ps.digest}",
             f"task: {name}", "dataset_path: json", "dataset_kwargs:", "  data_files:",
             f"    test: {_q(str(data))}", "test_split: test", "num_fewshot: 0",
             "doc_to_text: prompt"]
    if b.choices and scoring == "loglik":
        lines += ["output_type: multiple_choice", "doc_to_choice: choices",
                  "doc_to_target: gold", f"target_delimiter: {_q(b.answer_prefix)}",
                  "metric_list:", "  - metric: acc", "    aggregation: mean",
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
    lines += ["metadata:", "  version: 1.0"]
    atomic_write(yaml, "\n".join(lines) + "\n")
    return yaml, data
