"""Training loop: AdamW, linear warm-up then cosine (or linear) decay, gradient clipping, evaluation
every ``eval_every`` steps on fresh samples, early stop at the target accuracy, and
NaN/Inf detection that fails the run with a reason.

CPU by default; ``device="auto"`` picks CUDA when present, where the forward pass runs
under bf16 autocast. A tqdm progress bar is shown only when stderr is a terminal.
Randomness: data from a ``np.random.Generator``, everything in torch (init, minibatch
choice, random positions) from a ``torch.Generator``, both passed in.
"""

from __future__ import annotations

import math
import sys
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import ConfigError
from .data import IGNORE, NEXT_SYMBOL, TorchBatch, scored_counts, used_widths


class RunFailed(Exception):
    """A run that could not finish (diverged, impossible configuration); the sweep
    records the message as the run's error and continues."""


SCHEDULES = ("cosine", "linear", "constant")


@dataclass(frozen=True)
class TrainingConfig:
    steps: int = 2000            # maximum optimizer steps
    batch_size: int = 64         # rows per step
    lr: float = 1e-3             # peak learning rate (after warm-up)
    warmup: int = 100            # linear warm-up steps
    weight_decay: float = 0.01   # AdamW decoupled weight decay
    clip: float = 1.0            # gradient-norm clipping threshold
    eval_every: int = 100        # evaluate every this many steps
    eval_count: int = 512        # fresh test instances per evaluation
    target: float = 0.99         # stop early once test accuracy reaches this
    final_eval_count: int = 2048  # test instances for the final accuracy
    # plateau rule: stop once the mean training loss over the last ``plateau`` steps is less
    # than ``plateau_tol`` (relative) below the mean over the ``plateau`` steps before;
    # 0 turns it off. Such a stop reads "not learned within budget", never more.
    plateau: int = 0
    plateau_tol: float = 0.01
    #: the decay after warm-up: "cosine" (to 0), "linear" (to 0; Huang et al. 2025's
    #: algorithmic runs) or "constant" (none; their formal-language runs)
    schedule: str = "cosine"

    def __post_init__(self):
        for name in ("steps", "batch_size", "eval_every", "eval_count", "final_eval_count"):
            if getattr(self, name) < 1:
                raise ConfigError(f"training.{name} must be >= 1, got {getattr(self, name)}")
        if not 0 < self.target <= 1:
            raise ConfigError(f"training.target must be in (0, 1], got {self.target}")
        if self.schedule not in SCHEDULES:
            raise ConfigError(f"training.schedule must be one of {', '.join(SCHEDULES)}, got "
                              f"{self.schedule!r}")
        if self.plateau < 0 or not 0 <= self.plateau_tol < 1:
            raise ConfigError(f"training.plateau must be >= 0 (0: off) and plateau_tol in "
                              f"[0, 1), got {self.plateau} and {self.plateau_tol}")

    def to_dict(self) -> dict:
        d = asdict(self)
        if not self.plateau:
            # runs stored before the rule existed keep their keys (the rule is off for them)
            d.pop("plateau")
            d.pop("plateau_tol")
        if self.schedule == "cosine":
            d.pop("schedule")   # likewise: runs stored before the option keep their keys
        return d


@dataclass
class TrainResult:
    steps: int
    train_loss: float
    test_accuracy: float
    reached_target: bool
    curve: list = field(default_factory=list)  # [[step, accuracy], ...]
    wall_s: float = 0.0
    #: why training stopped: "target" (reached), "plateau" (loss flat) or "budget" (steps)
    stop_reason: str = "budget"
    #: relative fall of the mean training loss over the last window against the window
    #: before (window: ``plateau`` steps, or ``eval_every`` when the rule is off); > tol at a
    #: "budget" stop means the loss was still falling
    loss_drop: float | None = None
    # seconds in each phase: "data" (training batches), "step" (forward, backward, optimizer),
    # "eval" (test batches and their evaluation, the final one included)
    phases: dict = field(default_factory=dict)


def time_split(phases: dict, total: float) -> dict:
    """A run's seconds by phase, with ``other`` (model set-up, chance level, length bins)
    and ``outside_fraction``: the share of the run's wall time not spent in forward,
    backward and optimizer steps (the harness's overhead; the smoke profile's goal is < 20%)."""
    step = float(phases.get("step", 0.0))
    out = {k: round(float(v), 4) for k, v in phases.items()}
    out["other"] = round(max(0.0, total - sum(float(v) for v in phases.values())), 4)
    out["total"] = round(total, 4)
    out["outside_fraction"] = round(1.0 - step / total, 4) if total > 0 else None
    return out


def pick_device(device: str = "cpu") -> torch.device:
    """``cpu``, ``cuda`` / ``cuda:N`` (refused without a GPU) or ``auto`` (CUDA if present)."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device != "cpu" and not device.startswith("cuda"):
        raise ConfigError(f"unknown device {device!r}; use cpu, cuda, cuda:N or auto")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {device!r} asked for but CUDA is not available; use cpu")
    try:
        return torch.device(device)
    except RuntimeError as exc:
        raise ConfigError(f"bad device {device!r}: {exc}") from None


def lr_at(step: int, cfg: TrainingConfig) -> float:
    """Linear warm-up to ``lr`` over ``warmup`` steps, then cosine (or linear) decay to 0
    at ``steps``, or (``constant``) ``lr`` to the end."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    if cfg.schedule == "constant":
        return cfg.lr
    frac = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    if cfg.schedule == "linear":
        return cfg.lr * max(0.0, 1.0 - frac)
    return cfg.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, frac)))


def autocast(device: torch.device):
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return nullcontext()


def loss_fn(logits: torch.Tensor, targets: torch.Tensor, output: str = "final") -> torch.Tensor:
    """Cross-entropy over the scored positions; for ``next_symbol`` a binary cross-entropy
    per symbol of each scored position's set (the target bitmask), averaged."""
    if output == NEXT_SYMBOL:
        scored = targets != IGNORE
        bits = (targets[scored].unsqueeze(-1) >> torch.arange(logits.shape[-1],
                                                               device=targets.device)) & 1
        return F.binary_cross_entropy_with_logits(logits[scored].float(), bits.float())
    return F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), targets.reshape(-1),
                           ignore_index=IGNORE)


#: Tokens per evaluation chunk (rows x padded width): bounds memory at long lengths while
#: keeping short inputs in a few large forward passes.
EVAL_TOKENS = 16384


@torch.no_grad()
def evaluate(model, batch: TorchBatch, output: str, device, generator=None,
             tokens: int = EVAL_TOKENS) -> float:
    """Accuracy of ``model`` on ``batch``, pooled over chunks of consecutive rows; each
    chunk is cut to its longest row (batches of mixed lengths come grouped by n, so a
    chunk's padding is small), which a causal model reads exactly as the padded rows."""
    model.eval()
    widths = used_widths(batch)
    right = scored = start = 0
    while start < len(batch):
        rows = max(1, tokens // int(widths[start]))
        # a chunk must fit the token budget at its own widest row
        while rows > 1 and int(widths[start:start + rows].max()) * rows > tokens:
            rows //= 2
        part = batch.select(slice(start, start + rows))
        width = int(widths[start:start + rows].max())
        with autocast(device):
            logits = model(part.inputs[:, :width].to(device), generator=generator)
        r, s = scored_counts(logits.float(), part.targets[:, :width].to(device), output)
        right, scored, start = right + r, scored + s, start + rows
    model.train()
    return right / max(1, scored)


def train(model, next_batch: Callable[[int], TorchBatch], eval_batch: Callable[[int], TorchBatch],
          output: str, cfg: TrainingConfig, generator: torch.Generator, device="cpu",
          progress: bool | None = None, label: str = "train") -> TrainResult:
    """Train ``model``; ``next_batch(step)`` gives a training batch, ``eval_batch(count)``
    fresh test instances. Returns the final test accuracy on ``final_eval_count`` fresh
    instances (the curve holds the periodic evaluations)."""
    device = pick_device(device) if isinstance(device, str) else device
    model.to(device).train()
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": rest, "weight_decay": 0.0}], lr=cfg.lr)
    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    if show:
        from tqdm import tqdm
        bar = tqdm(total=cfg.steps, desc=label, leave=False, file=sys.stderr)
    start = time.perf_counter()
    curve, losses, step, stop = [], [], 0, "budget"
    t_data = t_eval = 0.0
    clock = time.perf_counter
    try:
        for step in range(1, cfg.steps + 1):
            for group in opt.param_groups:
                group["lr"] = lr_at(step - 1, cfg)
            t = clock()
            batch = next_batch(step)
            t_data += clock() - t
            with autocast(device):
                logits = model(batch.inputs.to(device), generator=generator)
            loss = loss_fn(logits, batch.targets.to(device), output)
            if not torch.isfinite(loss.detach()):
                raise RunFailed(f"training diverged: the loss became {float(loss.detach())} at step {step} "
                                f"(lower training.lr or keep training.clip on)")
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            if not torch.isfinite(norm):
                raise RunFailed(f"training diverged: the gradient norm became {float(norm)} "
                                f"at step {step} (lower training.lr)")
            opt.step()
            losses.append(float(loss.detach()))
            if bar is not None:
                bar.update(1)
                bar.set_postfix(loss=f"{losses[-1]:.3f}")
            if step % cfg.eval_every == 0 or step == cfg.steps:
                t = clock()
                acc = evaluate(model, eval_batch(cfg.eval_count), output, device, generator)
                t_eval += clock() - t
                curve.append([step, round(acc, 6)])
                if acc >= cfg.target:
                    stop = "target"
                    break
                if cfg.plateau and step >= cfg.warmup + 2 * cfg.plateau:
                    drop = loss_drop(losses, cfg.plateau)
                    if drop is not None and drop < cfg.plateau_tol:
                        stop = "plateau"
                        break
    finally:
        if bar is not None:
            bar.close()
    t = clock()
    final = evaluate(model, eval_batch(cfg.final_eval_count), output, device, generator)
    t_eval += clock() - t
    wall = clock() - start
    tail = losses[-max(1, min(len(losses), cfg.eval_every)):]
    phases = {"data": round(t_data, 4), "eval": round(t_eval, 4),
              "step": round(wall - t_data - t_eval, 4)}
    return TrainResult(steps=step, train_loss=float(np.mean(tail)) if tail else float("nan"),
                       test_accuracy=final, reached_target=final >= cfg.target,
                       curve=curve, wall_s=wall, phases=phases, stop_reason=stop,
                       loss_drop=loss_drop(losses, cfg.plateau or cfg.eval_every))


def loss_drop(losses: list[float], window: int) -> float | None:
    """(mean of the window before the last - mean of the last window) / the former: how
    much the training loss still fell; None with fewer than two windows of steps."""
    if window < 1 or len(losses) < 2 * window:
        return None
    before = float(np.mean(losses[-2 * window:-window]))
    last = float(np.mean(losses[-window:]))
    return (before - last) / max(abs(before), 1e-12)
