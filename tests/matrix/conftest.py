"""Hand-made run records with known empirical verdicts."""

from dataclasses import dataclass

import pytest


@dataclass
class Rec:
    line: str
    spec: dict
    metrics: dict
    status: str = "done"
    error: str | None = None
    key: str = ""


def ind(task, n, acc, seed=0, train_size=None):
    return Rec("in_distribution", {"task": task, "n": n, "seed": seed, "train_size": train_size},
               {"test_accuracy": acc})


def lg(task, enc, bins, size="small", seed=0):
    return Rec("length_generalization",
               {"task": task, "seed": seed, "model": {"size": size, "encoding": enc}},
               {"bins": bins})


@pytest.fixture
def records():
    good = {"<=32": 1.0, "33-64": 0.97, "65-128": 0.95}
    bad = {"<=32": 1.0, "33-64": 0.6, "65-128": 0.5}
    return [
        # majority: learned at both n (target 0.99; mean of two seeds)
        ind("majority", 8, 0.99, 0), ind("majority", 8, 1.0, 1),
        ind("majority", 16, 0.995, 0), ind("majority", 16, 0.995, 1),
        # parity: learned at 8, not at 16 -> hard
        ind("parity", 8, 1.0, 0), ind("parity", 8, 1.0, 1),
        ind("parity", 16, 0.5, 0), ind("parity", 16, 0.52, 1),
        # index: fixed-size runs only: sample complexity 256 at n=8
        ind("index", 8, 0.6, 0, 128), ind("index", 8, 0.995, 0, 256), ind("index", 8, 1.0, 0, 512),
        # any: one failed run only -> no verdict from it
        Rec("in_distribution", {"task": "any", "n": 8, "seed": 0}, {}, status="failed",
            error="NaN loss"),
        lg("majority", "nope", good), lg("majority", "rope", bad),
        lg("parity", "nope", bad), lg("parity", "rope", bad),
    ]


PREDICTIONS = [
    # theory A: right on majority (easy) and parity (hard), says easy on index (right)
    {"theory": "A", "task": "majority", "verdict": "easy", "basis": "construction", "status": "proven"},
    {"theory": "A", "task": "parity", "verdict": "hard", "basis": "lower-bound", "status": "proven"},
    {"theory": "A", "task": "index", "verdict": "easy", "basis": "construction", "status": "proven"},
    {"theory": "A", "task": "any", "verdict": "easy", "basis": "construction", "status": "proven"},
    # theory B: wrong on majority, right on parity, unknown on index
    {"theory": "B", "task": "majority", "verdict": "hard", "basis": "lower-bound", "status": "proven"},
    {"theory": "B", "task": "parity", "verdict": "hard", "basis": "lower-bound", "status": "proven"},
    {"theory": "B", "task": "index", "verdict": "unknown", "basis": "none", "status": "none"},
    {"theory": "B", "task": "any", "verdict": "easy", "basis": "construction", "status": "proven"},
]
