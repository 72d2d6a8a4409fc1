"""Answer parsing and the metrics of the llm line.

Parser (generation): the text is cut at the first stop sequence, then stripped. For a
classification (allowed answers given) the parsed value is the first whitespace-separated
word with trailing ``.,;:!`` removed, if it is one of the allowed answers; otherwise the
answer is *unparseable* (``parsed`` None, counted, scored wrong). For a sequence answer the
parsed value is the words joined by single spaces, if every word is a symbol of the
answer vocabulary; otherwise unparseable.

Parsers (generation; ``PARSERS``): ``first_word`` (above, theorybench's own) and
``exact_match`` (lm-eval's ``exact_match`` metric with ``regexes_to_ignore: ["\\s"]``, the
default of exported generate tasks: right when the text equals the gold answer once every
whitespace character is removed from both; " 1." is wrong there and right for
``first_word``). The metrics name the parser that produced them (``parser``; ``loglik`` for
log-likelihood scoring, which parses nothing).

Standard errors: every accuracy comes with ``<name>_stderr`` as lm-eval computes it for a
mean (``lm_eval.api.metrics.mean_stderr``: the sample standard deviation, divisor n - 1,
over sqrt(n); for 0/1 scores sqrt(p (1 - p) / (n - 1))); None below two prompts (lm-eval
prints N/A). ``balanced_accuracy_stderr`` combines the per-class ones
(sqrt(sum se_c^2) / classes). ``acc`` and ``acc_norm`` are lm-eval's names: ``acc`` the
accuracy; ``acc_norm`` the argmax of each answer's log-likelihood divided by its length in
characters (lm-eval's ``acc_norm`` for multiple choice; log-likelihood scoring only).

Metrics: ``accuracy`` and ``correct`` (the number right, of ``count``); ``chance`` (the accuracy of always giving the most frequent gold
answer of the sample; ``uniform_chance`` = 1/number of allowed answers); ``unparseable``
(fraction); ``balanced_accuracy`` (mean recall over the gold answers present); and for
log-likelihood scoring ``calibrated_accuracy``: the argmax after subtracting each answer's
mean score over the sample (a transductive contextual calibration that removes a constant
lean to one answer, as SmolLM2 has towards " 1"), and for two answers ``auc``, the
probability that a gold-1 prompt gets a larger score difference than a gold-0 prompt (ties
count half).

Statistics for the verdicts (the matrix's ``llm`` column): :func:`binomial_sf`, the exact
one-sided tail P(X >= x) of a Binomial(count, p) (the p-value of "accuracy above chance p"),
and :func:`wilson_lower`, the lower end of the Wilson score interval.
"""

from __future__ import annotations

import math
import re

import numpy as np

_TRAIL = ".,;:!"
PARSERS = ("first_word", "exact_match")
_WS = re.compile(r"\s")


def mean_stderr(values) -> float | None:
    """lm-eval's ``mean_stderr``: sample standard deviation (n - 1) / sqrt(n); None for
    fewer than two values."""
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return None
    return float(x.std(ddof=1) / math.sqrt(len(x)))


def exact_match(text: str, target: str) -> bool:
    """lm-eval's ``exact_match`` with ``regexes_to_ignore: ["\\s"]``."""
    return _WS.sub("", text) == _WS.sub("", target)


def parse_answer(text: str, choices, vocab=None, parser: str = "first_word"):
    """The parsed answer of a generated text, or None when it cannot be parsed.
    ``exact_match``: the allowed answer (or, for a sequence, the vocabulary words) whose
    whitespace-free form equals the text's."""
    if parser == "exact_match":
        bare = _WS.sub("", text)
        if choices:
            return next((c for c in choices if _WS.sub("", c) == bare), None)
        words = text.split()
        if not words or (vocab is not None and any(w not in vocab for w in words)):
            return None
        return " ".join(words)
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
    """P(pos > neg) + P(pos = neg) / 2 over all pairs, counted by binary search in the
    sorted negatives (a pairwise matrix would need count^2 / 4 cells: 2.5e9 at the
    100,000 prompts ``--limit`` allows)."""
    if not len(pos) or not len(neg):
        return None
    neg = np.sort(neg)
    below = np.searchsorted(neg, pos, side="left")
    ties = np.searchsorted(neg, pos, side="right") - below
    return float((below.sum() + 0.5 * ties.sum()) / (len(pos) * len(neg)))


def metrics(records: list[dict], choices) -> dict:
    """Metrics of per-sample records (keys: target, parsed, correct, optional scores)."""
    n = len(records)
    if n == 0:
        return {"count": 0}
    targets = [r["target"] for r in records]
    correct = np.array([bool(r["correct"]) for r in records])
    values, counts = np.unique(np.array(targets, dtype=object).astype(str), return_counts=True)
    per_class = [correct[np.array([t == v for t in targets])] for v in values]
    class_se = [mean_stderr(c) for c in per_class]
    out = {
        "count": n,
        "correct": int(correct.sum()),
        "accuracy": float(correct.mean()),
        "accuracy_stderr": mean_stderr(correct),
        "chance": float(counts.max() / n),
        "uniform_chance": (1.0 / len(choices)) if choices else None,
        "unparseable": float(np.mean([r["parsed"] is None for r in records])),
        "balanced_accuracy": float(np.mean([c.mean() for c in per_class])),
        "balanced_accuracy_stderr": (None if any(se is None for se in class_se) else
                                     float(math.sqrt(sum(se * se for se in class_se))
                                           / len(class_se))),
    }
    out["acc"], out["acc_stderr"] = out["accuracy"], out["accuracy_stderr"]
    if choices and all(r.get("scores") for r in records):
        s = np.array([[r["scores"][c] for c in choices] for r in records], dtype=float)
        centred = s - s.mean(axis=0, keepdims=True)
        gold = np.array([list(choices).index(t) for t in targets])
        calibrated = centred.argmax(axis=1) == gold
        out["calibrated_accuracy"] = float(calibrated.mean())
        out["calibrated_accuracy_stderr"] = mean_stderr(calibrated)
        lengths = np.array([float(len(c)) for c in choices])
        normed = (s / lengths).argmax(axis=1) == gold
        out["acc_norm"], out["acc_norm_stderr"] = float(normed.mean()), mean_stderr(normed)
        pred = s.argmax(axis=1)
        out["prediction_rate"] = {c: float((pred == i).mean()) for i, c in enumerate(choices)}
        if len(choices) == 2:
            d = s[:, 1] - s[:, 0]
            out["auc"] = _auc(d[gold == 1], d[gold == 0])
    return out


def binomial_sf(x: int, count: int, p: float) -> float:
    """P(X >= x) for X ~ Binomial(count, p), exactly summed in log space (vectorised over
    the terms): the one-sided p-value of ``x`` successes in ``count`` against rate ``p``."""
    if not (isinstance(x, int) and isinstance(count, int)) or count < 0:
        raise ValueError(f"binomial_sf needs integer x and count >= 0, got {x!r}, {count!r}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"binomial_sf needs 0 <= p <= 1, got {p!r}")
    if x <= 0:
        return 1.0
    if x > count:
        return 0.0
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    k = np.arange(x, count + 1, dtype=float)
    # log C(count, k): C(count, x) once, then the ratios C(n, j) / C(n, j - 1) cumulated
    steps = np.log((count - k[1:] + 1) / k[1:])
    log_comb = (math.lgamma(count + 1) - math.lgamma(x + 1) - math.lgamma(count - x + 1)
                + np.concatenate(([0.0], np.cumsum(steps))))
    terms = log_comb + k * math.log(p) + (count - k) * math.log1p(-p)
    top = terms.max()
    return float(min(1.0, math.exp(top) * np.exp(terms - top).sum()))


def wilson_lower(correct: int, count: int, z: float = 1.959963984540054) -> float:
    """Lower end of the Wilson score interval for ``correct`` of ``count`` (z = 1.96: the
    two-sided 95% interval)."""
    if count <= 0:
        return 0.0
    ph = correct / count
    den = 1 + z * z / count
    centre = ph + z * z / (2 * count)
    half = z * math.sqrt(ph * (1 - ph) / count + z * z / (4 * count * count))
    return max(0.0, (centre - half) / den)
