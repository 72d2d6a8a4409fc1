"""Per-line checks of a stored run's spec and metrics: what makes a row unreadable (a spec
that is not an object, a done run of the length-generalization line without length bins, an
llm accuracy outside [0, 1], ...). Each check returns the problem in words, or None."""

from __future__ import annotations

import math

from ..lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION, LLM


def kind_of(v) -> str:
    """The JSON kind of ``v`` in words, for a problem message ("an object", "a number")."""
    return {dict: "an object", list: "a list", str: "a string", type(None): "null",
            bool: "a boolean", int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def is_int(v) -> bool:
    """An integer that is not a boolean."""
    return isinstance(v, int) and not isinstance(v, bool)


def is_fraction(v) -> bool:
    """A finite number in [0, 1] that is not a boolean."""
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            and 0 <= v <= 1)


def spec_problem(spec) -> str | None:
    """What is wrong with a stored spec, or None."""
    if not isinstance(spec, dict):
        return f"spec is {kind_of(spec)}, not an object"
    if not isinstance(spec.get("task"), str):
        return "spec has no task name"
    for name in ("params", "model", "training"):
        if spec.get(name) is not None and not isinstance(spec[name], dict):
            return f"spec {name} is {kind_of(spec[name])}, not an object"
    for name in ("size", "encoding"):
        v = (spec.get("model") or {}).get(name)
        if v is not None and not isinstance(v, str):
            return f"spec model {name} is {kind_of(v)}, not a string"
    for name in ("n", "train_max_len", "train_size", "seed"):
        if spec.get(name) is not None and not is_int(spec[name]):
            return f"spec {name} is {kind_of(spec[name])}, not an integer"
    return None


def metrics_problem(line: str, status: str, metrics: dict) -> str | None:
    """What is wrong with the metrics of a run of ``line`` (only a done run's are checked),
    or None."""
    if status != "done":
        return None
    if line == LENGTH_GENERALIZATION:
        bins = metrics.get("bins")
        if not isinstance(bins, dict) or not bins:
            return "a done run whose metrics have no length bins"
        for label, v in bins.items():
            if v is not None and not is_fraction(v):
                return f"length bin {label} accuracy {v!r} is not a number in [0, 1]"
    elif line == LLM:
        if not is_fraction(metrics.get("accuracy")):
            return (f"accuracy {metrics.get('accuracy')!r} of a done llm run is not a number "
                    f"in [0, 1]")
        if not is_int(metrics.get("count")) or metrics["count"] < 1:
            return f"prompt count {metrics.get('count')!r} of a done llm run is not positive"
        for name in ("chance", "unparseable"):
            if metrics.get(name) is not None and not is_fraction(metrics[name]):
                return f"{name} {metrics[name]!r} of a done llm run is not a number in [0, 1]"
    elif "test_accuracy" in metrics or line == IN_DISTRIBUTION:
        if not is_fraction(metrics.get("test_accuracy")):
            return (f"test_accuracy {metrics.get('test_accuracy')!r} of a done run is not a "
                    f"number in [0, 1]")
    return None
