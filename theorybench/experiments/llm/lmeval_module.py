"""The Python module written beside an lm-eval export (:mod:`.export`), as text.

lm-eval imports it from the export folder (``!function theorybench_lmeval.NAME`` in the
task YAMLs): the data loader, the few-shot sampler and the metrics. It must run with
lm-eval alone (the folder moves to machines without theorybench), so it repeats the
metric definitions of :func:`.scoring.metrics` rather than importing them; a test checks
that both give the same numbers.

Versions: ``custom_dataset`` needs lm-eval 0.4.9 or later. lm-eval 0.4.10 changed the
sampler interface (``sample(n, eval_doc=...)`` instead of ``get_context(doc,
num_fewshot)`` calling ``sample(n)``); :class:`Shots` answers both.
"""

#: The first line of every version of the module: an existing file that starts otherwise
#: is not ours and is not replaced without --force.
MARK = '"""Written by theorybench (llm export)'

SOURCE = MARK + ''': lm-eval reads the exported tasks through this
module (data, few-shot examples, metrics), so the folder can be moved. Nothing else imports
it. Needs lm-eval 0.4.9 or later (custom_dataset) and numpy (an lm-eval dependency).

Metrics (the same definitions as theorybench's llm line):
  acc, acc_norm          lm-eval's multiple_choice ones (argmax of the log-likelihoods,
                         and of the log-likelihoods over the answers' lengths in characters)
  exact_match            lm-eval's exact_match ignoring whitespace (generate tasks)
  chance                 accuracy of always giving the most frequent gold answer
  balanced_accuracy      mean over the gold answers present of the accuracy on each
  calibrated_accuracy    argmax after subtracting each answer's mean log-likelihood over
                         the documents (removes a constant lean to one answer)
  auc                    two answers: P(a gold-1 document has a larger ll(1) - ll(0) than
                         a gold-0 one), ties half; N/A when one class is absent
lm-eval gives a standard error for the means (acc, acc_norm, exact_match) only.
"""
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from lm_eval.api.samplers import ContextSampler

HERE = Path(__file__).resolve().parent


def load(data_file, **kwargs):
    """The test split of a task, read from the JSONL beside this module."""
    import datasets

    with open(HERE / data_file, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


class Shots(ContextSampler):
    """Each document's own examples (its "shots"), the first n of them, in order.

    lm-eval 0.4.10 and later call sample(n, eval_doc=doc). lm-eval 0.4.9 calls
    get_context / get_chat_context(doc, num_fewshot), which ask sample() for one spare
    example and drop the document itself (never among its own examples): the document
    and the number wanted are kept for the sample() call they make."""

    _asked = None

    def sample(self, n, eval_doc=None, df=None, **kwargs):
        if eval_doc is None and self._asked is not None:
            eval_doc, n = self._asked
        shots = list(eval_doc["shots"]) if eval_doc is not None else []
        if n > len(shots):
            raise ValueError(f"this export holds {len(shots)} examples per prompt; "
                             f"ask for --num_fewshot {len(shots)} or fewer")
        return shots[:n]

    def _old(self, build, doc, num_fewshot, *args, **kwargs):
        before, self._asked = self._asked, (doc, num_fewshot)
        try:
            return build(doc, num_fewshot, *args, **kwargs)
        finally:
            self._asked = before

    def get_context(self, doc, num_fewshot, *args, **kwargs):
        return self._old(super().get_context, doc, num_fewshot, *args, **kwargs)

    def get_chat_context(self, doc, num_fewshot, *args, **kwargs):
        return self._old(super().get_chat_context, doc, num_fewshot, *args, **kwargs)


def _argmax(values):
    return max(range(len(values)), key=lambda i: (values[i], -i))  # ties: the first


def process_results(doc, results):
    """A multiple-choice document's values (results: (log-likelihood, is_greedy) per
    choice, in the order of doc["choices"])."""
    lls = [float(r[0]) for r in results]
    gold, choices = int(doc["gold"]), list(doc["choices"])
    acc = float(_argmax(lls) == gold)
    out = {"acc": acc,
           "acc_norm": float(_argmax([v / len(c) for v, c in zip(lls, choices)]) == gold),
           "chance": gold, "balanced_accuracy": (gold, acc),
           "calibrated_accuracy": (gold, lls)}
    if len(choices) == 2:
        out["auc"] = (gold, lls)
    return out


def process_generate(doc, results):
    """A generate task's values: lm-eval's own exact_match ignoring whitespace."""
    from lm_eval.api.metrics import exact_match_fn

    right = float(exact_match_fn(predictions=[results[0]], references=[doc["target"]],
                                 regexes_to_ignore=["\\\\s"])["exact_match"])
    return {"exact_match": right, "chance": doc["target"],
            "balanced_accuracy": (doc["target"], right)}


def chance(golds):
    counts = defaultdict(int)
    for g in golds:
        counts[str(g)] += 1
    return max(counts.values()) / len(golds)


def balanced_accuracy(items):
    by_gold = defaultdict(list)
    for gold, right in items:
        by_gold[str(gold)].append(float(right))
    return float(np.mean([np.mean(v) for v in by_gold.values()]))


def calibrated_accuracy(items):
    gold = np.array([g for g, _ in items])
    s = np.array([lls for _, lls in items], dtype=float)
    return float(((s - s.mean(axis=0, keepdims=True)).argmax(axis=1) == gold).mean())


def auc(items):
    gold = np.array([g for g, _ in items])
    s = np.array([lls for _, lls in items], dtype=float)
    d = s[:, 1] - s[:, 0]
    pos, neg = d[gold == 1], np.sort(d[gold == 0])
    if not len(pos) or not len(neg):
        return "N/A"
    below = np.searchsorted(neg, pos, side="left")
    ties = np.searchsorted(neg, pos, side="right") - below
    return float((below.sum() + 0.5 * ties.sum()) / (len(pos) * len(neg)))
'''
