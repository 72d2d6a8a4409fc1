"""Label-balanced sampling helpers shared by the families (exact halves, rejection)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import TaskParameterError


def balanced_choice(rng: np.random.Generator, count: int) -> np.ndarray:
    """Exactly half (rounded by a fair coin) of ``count`` rows labelled 1, shuffled."""
    ones = count // 2 + (int(rng.integers(0, 2)) if count % 2 else 0)
    y = np.zeros(count, dtype=np.int64)
    y[:ones] = 1
    rng.shuffle(y)
    return y


def rejection_balance(draw: Callable[[int], tuple[np.ndarray, np.ndarray]], count: int,
                      rng: np.random.Generator, max_rounds: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Label-balanced batch by rejection: ``draw(m)`` returns (tokens, labels) uniformly.

    Keeps drawing until it has ``count//2`` of each class (binary labels), then shuffles.
    """
    if count == 0:  # nothing to balance; one draw gives the row width
        x, _ = draw(1)
        return np.zeros((0,) + tuple(x.shape[1:]), dtype=np.int64), np.zeros(0, dtype=np.int64)
    want = balanced_choice(rng, count)
    need = {0: int((want == 0).sum()), 1: int((want == 1).sum())}
    got: dict[int, list[np.ndarray]] = {0: [], 1: []}
    have = {0: 0, 1: 0}
    for _ in range(max_rounds):
        if have[0] >= need[0] and have[1] >= need[1]:
            break
        m = max(64, 2 * max(need[0] - have[0], need[1] - have[1], 1))
        x, y = draw(m)
        for cls in (0, 1):
            if have[cls] < need[cls]:
                sel = x[y == cls][: need[cls] - have[cls]]
                got[cls].append(sel)
                have[cls] += len(sel)
    else:
        raise TaskParameterError("could not balance labels by rejection; this class is too rare "
                                 "at these parameters (use distribution='uniform')")
    width = None
    parts = [np.concatenate(got[c]) if got[c] else None for c in (0, 1)]
    width = next(p.shape[1] for p in parts if p is not None)
    tokens = np.empty((count, width), dtype=np.int64)
    for cls in (0, 1):
        if need[cls]:
            tokens[want == cls] = parts[cls][: need[cls]]
    return tokens, want
