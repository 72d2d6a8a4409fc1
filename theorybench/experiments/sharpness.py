"""Sharpness of the loss landscape of a task's transformer, at initialisation or trained.

Two measures on one fixed batch of the task:

* ``lambda_max`` - the Hessian eigenvalue of largest magnitude, by power iteration on
  Hessian-vector products (double back-propagation; the Hessian is never formed);
* ``avg_sharpness`` - the average loss increase under Gaussian parameter noise,
  (E[L(theta + rho z)] - L(theta)) / rho^2 with z ~ N(0, I), estimated from
  ``perturbations`` antithetic pairs (for small rho it tends to trace(H) / 2). This is the
  perturbation view of sharpness under which Hahn & Rofin ("Why are sensitive functions
  hard for transformers?", ACL 2024, arXiv 2402.09963) show that high average sensitivity
  forces sharp minima; their exact normalisation is not reproduced here, so compare values
  across tasks and n, not with the paper's numbers.

Everything random (the model's initial weights, the batch, the power-iteration start and
the noise) comes from generators seeded by ``seed``: the same seed gives the same figures.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

from ..errors import ConfigError
from .data import TaskData, accuracy
from .model import ModelConfig, Transformer
from .trainer import TrainingConfig, loss_fn, train

STATES = ("init", "trained")


@dataclass
class SharpnessResult:
    task: str
    params: dict
    n: int
    state: str                      # "init" | "trained"
    loss: float
    accuracy: float | None
    lambda_max: float
    lambda_iterations: int
    lambda_converged: bool
    avg_sharpness: float
    avg_sharpness_se: float         # standard error over the perturbations
    rho: float
    batch: int
    parameters: int
    train_steps: int = 0
    seconds: float = 0.0
    history: list[float] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def _flat(tensors) -> torch.Tensor:
    return torch.cat([t.reshape(-1) for t in tensors])


def top_hessian_eigenvalue(loss_of, params: list[torch.Tensor], generator: torch.Generator,
                           iters: int = 30, tol: float = 1e-3) -> tuple[float, int, bool, list]:
    """Largest-magnitude Hessian eigenvalue of ``loss_of()`` in ``params`` by power
    iteration: (value, iterations, converged, the Rayleigh quotients by iteration)."""
    loss = loss_of()
    grads = torch.autograd.grad(loss, params, create_graph=True)
    v = [torch.randn(p.shape, generator=generator, dtype=p.dtype) for p in params]
    norm = _flat(v).norm()
    v = [x / norm for x in v]
    history: list[float] = []
    for it in range(1, iters + 1):
        hv = torch.autograd.grad(grads, params, grad_outputs=v, retain_graph=True)
        lam = float(sum((a * b).sum() for a, b in zip(v, hv)))
        history.append(lam)
        norm = _flat(hv).norm()
        if not torch.isfinite(norm) or norm == 0:
            return lam, it, False, history
        v = [x / norm for x in hv]
        if it > 2 and abs(history[-1] - history[-2]) <= tol * max(abs(history[-1]), 1e-12):
            return lam, it, True, history
    return history[-1], iters, False, history


@torch.no_grad()
def average_sharpness(loss_of, params: list[torch.Tensor], rho: float, draws: int,
                      generator: torch.Generator) -> tuple[float, float]:
    """(mean, standard error) of the loss increase under noise rho z, divided by rho^2,
    over ``draws`` antithetic pairs: (L(theta + rho z) + L(theta - rho z)) / 2 - L(theta).
    The pair cancels the gradient's linear term, which would otherwise dominate the
    variance at small rho; the mean is unchanged (E[z] = 0)."""
    base = float(loss_of())
    saved = [p.detach().clone() for p in params]
    out = []
    try:
        for _ in range(draws):
            z = [torch.randn(p.shape, generator=generator, dtype=p.dtype) for p in params]
            pair = []
            for sign in (1.0, -1.0):
                for p, s, d in zip(params, saved, z):
                    p.copy_(s + sign * rho * d)
                pair.append(float(loss_of()))
            out.append(((pair[0] + pair[1]) / 2 - base) / rho ** 2)
    finally:
        for p, s in zip(params, saved):
            p.copy_(s)
    arr = np.array(out)
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(len(arr))) if len(arr) > 1 else 0.0


def measure(task: str, n: int, params: dict | None = None, *, state: str = "init",
            size: str = "small", encoding: str = "nope", seed: int = 0, batch: int = 256,
            iters: int = 30, rho: float = 1e-3, perturbations: int = 16,
            train_steps: int = 2000, checkpoint: str | None = None,
            progress: bool | None = False, warn=None) -> SharpnessResult:
    """Sharpness of the model of ``task`` at ``n``: freshly initialised (``state='init'``),
    trained here for ``train_steps`` steps, or loaded from ``checkpoint`` (which must be a
    model of this task, see :func:`.checkpoint.load_checkpoint`; ``warn`` receives its
    note on an old checkpoint)."""
    if state not in STATES:
        raise ConfigError(f"state {state!r}: use one of {', '.join(STATES)}")
    for name, value, lo in (("batch", batch, 2), ("iters", iters, 1),
                            ("perturbations", perturbations, 2), ("train_steps", train_steps, 1)):
        if not isinstance(value, int) or value < lo or value > 1_000_000:
            raise ConfigError(f"--{name.replace('_', '-')} {value}: give an integer from {lo} "
                              f"to 1,000,000")
    if not (np.isfinite(rho) and 0 < rho < 1):
        raise ConfigError(f"--rho {rho}: give a noise scale strictly between 0 and 1")
    t0 = time.perf_counter()
    params = dict(params or {})
    data = TaskData(task, params, [n])
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng([seed, 7])
    steps = 0
    if checkpoint:
        from .checkpoint import load_checkpoint
        # the task (family, parameters, definition) and n are checked, not only the vocabulary
        model, meta = load_checkpoint(checkpoint, task=task, params=params, n=n, warn=warn)
        if tuple(meta["vocab"]) != data.vocab or tuple(meta["labels"]) != data.label_vocab:
            raise ConfigError(f"checkpoint {checkpoint} was trained on other tokens or labels "
                              f"than {task} has at n={n} ({len(meta['vocab'])} tokens and "
                              f"{len(meta['labels'])} labels, not {len(data.vocab)} and "
                              f"{len(data.label_vocab)}); give a checkpoint trained at this n")
        state = "trained"
    else:
        cfg = ModelConfig.of_size(size, vocab_size=len(data.vocab),
                                  num_labels=len(data.label_vocab), encoding=encoding,
                                  max_positions=max(64, data.max_sequence_length()))
        model = Transformer(cfg, gen)
        if state == "trained":
            tcfg = TrainingConfig(steps=train_steps)
            train_rng, test_rng = np.random.default_rng([seed, 1]), np.random.default_rng([seed, 2])
            res = train(model, lambda step: data.sample(train_rng, tcfg.batch_size),
                        lambda count: data.sample(test_rng, count), data.output, tcfg, gen,
                        progress=progress, label=f"{task} n={n}")
            steps = res.steps
    model.eval()
    fixed = data.sample(rng, batch)
    weights = [p for p in model.parameters() if p.requires_grad]

    def loss_of():
        # the math kernel: fused attention kernels have no second derivative
        with sdpa_kernel(SDPBackend.MATH):
            return loss_fn(model(fixed.inputs, generator=torch.Generator().manual_seed(seed)),
                           fixed.targets, data.output)

    with torch.no_grad():
        logits = model(fixed.inputs, generator=torch.Generator().manual_seed(seed))
        acc = accuracy(logits.float(), fixed.targets, data.output)
        loss = float(loss_fn(logits, fixed.targets, data.output))
    lam, its, ok, hist = top_hessian_eigenvalue(loss_of, weights, gen, iters)
    avg, se = average_sharpness(loss_of, weights, rho, perturbations, gen)
    return SharpnessResult(task, params, n, state, loss, acc, lam, its, ok, avg, se, rho, batch,
                           model.num_parameters(), steps, time.perf_counter() - t0, hist)
