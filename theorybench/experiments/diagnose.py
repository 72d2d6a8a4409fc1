"""Where a next-symbol model goes wrong: which positions of its test strings carry a wrong
set, and which set it predicted in place of which.

A string counts as right only when every one of its sets is (:mod:`.data`), so a long
string fails on a single wrong position. :func:`set_errors` says whether a failure at 3x
the training length is a per-position error rate that stays small and compounds, or a
systematic mistake (one true set, such as "end of string allowed", predicted wrong from
some position on). It reads one batch in a few forward passes; nothing loops over
strings or positions in Python.

``python -m theorybench.experiments.diagnose huang2025 dyck1/nope --seed 1`` retrains one
row of a reproduction's quick plan through the length line itself (the same spec, hence
the same model as the stored run), reads the model back from its checkpoint and prints its
profile on fresh test strings of every bin.
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
import torch

from ..errors import ConfigError
from ..tasks.prefix import EOS
from .data import IGNORE, NEXT_SET, NEXT_SYMBOL, TorchBatch, predicted_sets


def set_errors(logits: torch.Tensor, targets: torch.Tensor, output: str,
               symbols: tuple[str, ...], edges: tuple[int, ...] = ()) -> dict:
    """The error profile of one batch: ``logits`` (rows, positions, outputs) against the
    target bitmasks (``IGNORE`` off the string). ``symbols`` names bit i of a set;
    ``edges`` cut the positions into ranges (position t is the set after t letters).

    Returns ``strings_right`` (fraction), ``position_error`` (per range: the fraction of
    its scored positions that are wrong), ``first_error`` (per range: the fraction of wrong
    strings whose first wrong set lies there), ``confusions`` (the most common (true set,
    predicted set) pairs among wrong positions, with their share) and ``symbols``
    (per symbol: how often it was missed - allowed, not predicted - or added)."""
    pred = predicted_sets(logits, output).cpu()
    tgt = targets.cpu()
    scored = tgt != IGNORE
    wrong = (pred != tgt) & scored
    rows_scored = scored.any(1)
    bad_rows = wrong.any(1)
    n_rows = int(rows_scored.sum())
    width = tgt.shape[1]
    cuts = [0] + [e + 1 for e in edges if 0 < e + 1 < width] + [width]
    first = torch.where(bad_rows, wrong.to(torch.int8).argmax(1), -1)
    ranges, pos_err, first_err = [], [], []
    for a, b in zip(cuts, cuts[1:]):
        ranges.append(f"{a}-{b - 1}")
        s = int(scored[:, a:b].sum())
        pos_err.append(int(wrong[:, a:b].sum()) / s if s else None)
        first_err.append(int(((first >= a) & (first < b)).sum()) / max(1, int(bad_rows.sum())))
    t, p = tgt[wrong].numpy(), pred[wrong].numpy()
    pairs = Counter(zip(t.tolist(), p.tolist()))
    total = max(1, len(t))

    def name(mask: int) -> str:
        return "{" + ",".join(sym for i, sym in enumerate(symbols) if mask >> i & 1) + "}"

    bits = 1 << np.arange(len(symbols))
    missed = ((t[:, None] & bits) != 0) & ((p[:, None] & bits) == 0)
    added = ((t[:, None] & bits) == 0) & ((p[:, None] & bits) != 0)
    return {"strings": n_rows,
            "strings_right": (n_rows - int(bad_rows.sum())) / max(1, n_rows),
            "ranges": ranges, "position_error": pos_err, "first_error": first_err,
            "confusions": [(name(a), name(b), c / total) for (a, b), c in pairs.most_common(5)],
            "symbols": {sym: {"missed": int(missed[:, i].sum()), "added": int(added[:, i].sum())}
                        for i, sym in enumerate(symbols)}}


def batch_logits(model, batch: TorchBatch, chunk: int = 256) -> torch.Tensor:
    """The model's logits on ``batch``, in chunks of rows (evaluation mode)."""
    model.eval()
    with torch.no_grad():
        parts = [model(batch.inputs[i:i + chunk]) for i in range(0, len(batch), chunk)]
    return torch.cat(parts)


def _spec_for(paper: str, row: str, seed: int):
    from .reproduce import plan
    planned = [p for p in plan(paper, "quick", rows=[row], seeds=[seed]) if p.specs]
    if len(planned) != 1:
        raise ConfigError(f"{row!r} names {len(planned)} rows of {paper}; name one, as "
                          f"task/encoding (e.g. dyck1/nope)")
    return planned[0].specs[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m theorybench.experiments.diagnose",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("paper", help="the reproduction whose quick plan holds the row")
    ap.add_argument("row", help="one row, task/encoding (e.g. dyck1/nope)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=512, help="test strings per bin")
    args = ap.parse_args(argv)
    import tempfile

    from .checkpoint import load_checkpoint
    from .length_generalization import prepare, run
    spec = _spec_for(args.paper, args.row, args.seed)
    if spec.objective not in (NEXT_SYMBOL, NEXT_SET):
        raise ConfigError(f"{args.row} is not a language row: set errors need a next-symbol "
                          f"objective")
    with tempfile.TemporaryDirectory() as folder:
        metrics = run(spec, progress=False, checkpoint_dir=folder)
        model, _ = load_checkpoint(f"{folder}/{spec.key}.pt", task=spec.task,
                                   params=spec.param_dict)
    data, _, bins, _ = prepare(spec)
    symbols = data.letters + (EOS,)
    print(f"{spec.task} {spec.size}/{spec.encoding} [{spec.objective}] seed {spec.seed}: "
          f"{metrics['steps']} steps, training-length accuracy "
          f"{metrics['train_accuracy']:.3f}")
    rng = np.random.default_rng(10_000 + spec.seed)   # fresh strings, not the run's
    for label, ns in bins:
        batch = data.sample(rng, args.count, ns)
        edges = tuple(sorted({50, 100, 150} & set(range(1, batch.targets.shape[1]))))
        prof = set_errors(batch_logits(model, batch), batch.targets, data.output, symbols,
                          edges)
        print(f"  bin {label}: {100 * prof['strings_right']:.1f} % of {prof['strings']} "
              f"strings right")
        for r, e, f in zip(prof["ranges"], prof["position_error"], prof["first_error"]):
            if e is not None:
                print(f"    positions {r}: {100 * e:.2f} % wrong sets; first error of "
                      f"{100 * f:.0f} % of the wrong strings")
        for true, got, share in prof["confusions"]:
            print(f"    {true} predicted as {got}: {100 * share:.0f} % of the wrong sets")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except ConfigError as exc:   # a bad row or seed: the message, not a traceback
        raise SystemExit(f"error: {exc}") from None
