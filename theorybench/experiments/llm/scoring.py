"""Answer parsing and the metrics of the llm line.

Parser (generation): the text is cut at the first stop sequence, then stripped. For a
classification (allowed answers given) the parsed value is the first whitespace-separated
word with trailing ``.,;:!`` removed, if it is one of the allowed answers; otherwise the
answer is *unparseable* (``parsed`` None, counted, scored wrong). For a sequence answer the
parsed value is the words joined by single spaces, if every word is a symbol of the
answer vocabulary; otherwise unparseable.

Metrics: ``accuracy``; ``chance`` (the accuracy of always giving the most frequent gold
answer of the sample; ``uniform_chance`` = 1/number of allowed answers); ``unparseable``
(fraction); ``balanced_accuracy`` (mean recall over the gold answers present); and for
log-likelihood scoring ``calibrated_accuracy``: the argmax after subtracting each answer's
mean score over the sample (a transductive contextual calibration that removes a constant
lean to one answer, as SmolLM2 has towards " 1"), and for two answers ``auc``, the
probability that a gold-1 prompt gets a larger score difference than a gold-0 prompt (ties
count half).
"""

from __future__ import annotations

import numpy as np

_TRAIL = ".,;:!"


def parse_answer(text: str, choices, vocab=None):
    """The parsed answer of a generated text, or None when it cannot be parsed."""
    words = text.split()
    if choices:
        if not words:
            return None
        w = words[0].rstrip(_TRAIL)
        return w if w in choices else None
    if not words or (vocab is not None and any(w not in vocab for w in words)):
        return None
    return " ".join(words)


def _auc(pos: np.ndarray, neg: np.ndarray) -> float | None:
    if not len(pos) or not len(neg):
        return None
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)


def metrics(records: list[dict], choices) -> dict:
    """Metrics of per-sample records (keys: target, parsed, correct, optional scores)."""
    n = len(records)
    if n == 0:
        return {"count": 0}
    targets = [r["target"] for r in records]
    correct = np.array([bool(r["correct"]) for r in records])
    values, counts = np.unique(np.array(targets, dtype=object).astype(str), return_counts=True)
    out = {
        "count": n,
        "accuracy": float(correct.mean()),
        "chance": float(counts.max() / n),
        "uniform_chance": (1.0 / len(choices)) if choices else None,
        "unparseable": float(np.mean([r["parsed"] is None for r in records])),
        "balanced_accuracy": float(np.mean([correct[[t == v for t in targets]].mean()
                                            for v in values])),
    }
    if choices and all(r.get("scores") for r in records):
        s = np.array([[r["scores"][c] for c in choices] for r in records], dtype=float)
        centred = s - s.mean(axis=0, keepdims=True)
        gold = np.array([list(choices).index(t) for t in targets])
        out["calibrated_accuracy"] = float((centred.argmax(axis=1) == gold).mean())
        pred = s.argmax(axis=1)
        out["prediction_rate"] = {c: float((pred == i).mean()) for i, c in enumerate(choices)}
        if len(choices) == 2:
            d = s[:, 1] - s[:, 0]
            out["auc"] = _auc(d[gold == 1], d[gold == 0])
    return out
