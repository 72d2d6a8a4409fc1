"""The module an export writes for lm-eval (``theorybench_lmeval.py``): its metrics give the
numbers of :func:`scoring.metrics`, and its sampler answers lm-eval's older interface
(0.4.9: ``get_context(doc, num_fewshot)`` calling ``sample(num_fewshot + 1)``) as well as the
current one. Runs without lm-eval: a stand-in ``lm_eval`` package gives the module the
names it imports."""

from __future__ import annotations

import importlib.util
import re
import sys
import types

import numpy as np
import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.llm import scoring
from theorybench.experiments.llm.export import export_lm_eval
from theorybench.experiments.llm.lmeval_module import SOURCE


class _OldSampler:
    """lm-eval 0.4.9's ContextSampler.get_context, reduced to its sampling: one spare
    example when the few-shot split is the test split, the document itself dropped."""

    def get_context(self, doc, num_fewshot, gen_prefix=None):
        picked = [x for x in self.sample(num_fewshot + 1) if x != doc][:num_fewshot]
        return "|".join(s["query"] for s in picked)

    def get_chat_context(self, doc, num_fewshot, fewshot_as_multiturn=False, gen_prefix=None):
        if not fewshot_as_multiturn:
            return [{"role": "user", "content": self.get_context(doc, num_fewshot)}]
        return [{"role": "user", "content": s["query"]}
                for s in [x for x in self.sample(num_fewshot + 1) if x != doc][:num_fewshot]]


@pytest.fixture
def module(tmp_path, monkeypatch):
    """The written module, imported with stand-ins for lm_eval's samplers and metrics."""
    def exact_match_fn(predictions, references, regexes_to_ignore):
        strip = [lambda x: re.sub(r, "", x) for r in regexes_to_ignore][0]
        return {"exact_match": float(strip(predictions[0]) == strip(references[0]))}

    names = {"lm_eval": {}, "lm_eval.api": {},
             "lm_eval.api.samplers": {"ContextSampler": _OldSampler},
             "lm_eval.api.metrics": {"exact_match_fn": exact_match_fn}}
    for name, attrs in names.items():
        monkeypatch.setitem(sys.modules, name, types.SimpleNamespace(**attrs))
    path = tmp_path / "theorybench_lmeval.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("theorybench_lmeval_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _records(rng, count, choices, lean=0.0, ties=False):
    """Records with log-likelihood scores (ties among them when asked)."""
    recs = []
    for _ in range(count):
        gold = choices[int(rng.integers(len(choices)))]
        s = rng.normal(size=len(choices)).round(1 if ties else 6)
        s[-1] += lean
        best = choices[int(np.argmax(s))]
        recs.append({"target": gold, "parsed": best, "correct": best == gold,
                     "scores": dict(zip(choices, s.tolist()))})
    return recs


def _lm_eval_like(module, recs, choices, metrics):
    """What lm-eval computes from the module: process_results per document, then each
    metric's aggregation over the documents' values."""
    per_doc = [module.process_results(
        {"gold": choices.index(r["target"]), "choices": list(choices)},
        [(r["scores"][c], False) for c in choices]) for r in recs]
    out = {}
    for m in metrics:
        values = [d[m] for d in per_doc]
        out[m] = float(np.mean(values)) if m in ("acc", "acc_norm") else \
            getattr(module, m)(values)
    return out


@pytest.mark.parametrize("choices, lean, ties", [(("0", "1"), 1.5, False),
                                                 (("0", "1"), 0.0, True),
                                                 (("a", "bb", "c"), 0.7, True)])
@pytest.mark.parametrize("seed", range(3))
def test_metrics_equal_the_lines(module, choices, lean, ties, seed):
    recs = _records(np.random.default_rng(seed), 40, choices, lean, ties)
    ours = scoring.metrics(recs, choices)
    names = ["acc", "acc_norm", "chance", "calibrated_accuracy", "balanced_accuracy"]
    names += ["auc"] if len(choices) == 2 else []
    theirs = _lm_eval_like(module, recs, choices, names)
    for m in names:
        assert theirs[m] == pytest.approx(ours[m], abs=1e-12), m


def test_auc_of_one_class_is_na(module):
    recs = [{"target": "1", "parsed": "1", "correct": True, "scores": {"0": -1.0, "1": -0.5}}
            for _ in range(3)]
    assert _lm_eval_like(module, recs, ("0", "1"), ["auc"])["auc"] == "N/A"
    assert scoring.metrics(recs, ("0", "1"))["auc"] is None


def test_generate_metrics(module):
    docs = [("1 0", " 1 0\n"), ("1 0", "1 0."), ("0 0", "0  0"), ("1 0", "1 1")]
    per = [module.process_generate({"target": t}, [text]) for t, text in docs]
    assert [p["exact_match"] for p in per] == [1.0, 0.0, 1.0, 0.0]
    assert module.chance([p["chance"] for p in per]) == 0.75
    # recall 1/3 on "1 0", 1 on "0 0"
    assert module.balanced_accuracy([p["balanced_accuracy"] for p in per]) == \
        pytest.approx((1 / 3 + 1) / 2)
    recs = [{"target": t, "parsed": None, "correct": scoring.exact_match(x, t)} for t, x in docs]
    m = scoring.metrics(recs, ())
    assert (m["accuracy"], m["chance"]) == (0.5, 0.75)
    assert m["balanced_accuracy"] == pytest.approx((1 / 3 + 1) / 2)


def test_sampler_answers_the_old_interface(module):
    """lm-eval 0.4.9 calls sample(num_fewshot + 1) without the document: the sampler must
    still give that document's own first num_fewshot examples (before, it raised: no
    document, no examples)."""
    doc = {"shots": [{"query": f"q{i}"} for i in range(4)]}
    s = module.Shots()
    assert s.get_context(doc, 3) == "q0|q1|q2"
    assert s.get_context(doc, 4) == "q0|q1|q2|q3"
    turns = s.get_chat_context(doc, 2, fewshot_as_multiturn=True)
    assert [t["content"] for t in turns] == ["q0", "q1"]
    assert s.get_chat_context(doc, 2)[0]["content"] == "q0|q1"
    # the current interface: the document comes with the call
    assert [x["query"] for x in s.sample(2, eval_doc=doc)] == ["q0", "q1"]
    with pytest.raises(ValueError, match="--num_fewshot 4 or fewer"):
        s.get_context(doc, 5)


def test_auc_matches_all_pairs():
    rng = np.random.default_rng(7)
    pos, neg = rng.integers(0, 5, 300).astype(float), rng.integers(0, 5, 200).astype(float)
    diff = pos[:, None] - neg[None, :]
    want = ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size
    assert scoring._auc(pos, neg) == pytest.approx(want, abs=1e-15)


def test_a_foreign_module_is_not_replaced(tmp_path):
    mine = tmp_path / "theorybench_lmeval.py"
    mine.write_text("print('mine')\n")
    with pytest.raises(ConfigError, match="not written by theorybench"):
        export_lm_eval("majority", 5, tmp_path, k=2, count=3)
    assert mine.read_text() == "print('mine')\n"
    export_lm_eval("majority", 5, tmp_path, k=2, count=3, force=True)
    assert mine.read_text() == SOURCE


def test_an_older_module_of_ours_is_replaced(tmp_path):
    mine = tmp_path / "theorybench_lmeval.py"
    mine.write_text(SOURCE.split("\n", 1)[0] + "\nold version\n")
    export_lm_eval("majority", 5, tmp_path, k=2, count=3)
    assert mine.read_text() == SOURCE
