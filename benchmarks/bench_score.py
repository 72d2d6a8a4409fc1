"""Wall time of scoring a new user's theory file against the shipped reference.

    python benchmarks/bench_score.py                 # the quick reference, 3 repeats
    python benchmarks/bench_score.py --reference huang2025 --repeat 1

Writes a theory file as a newcomer would (not one of the examples: "Easy iff the label
depends on the first and last symbol only, checked on every input at n <= 7") to a
temporary folder and times `theorybench score FILE --format json` in a fresh interpreter,
end to end (imports, loading the reference and its snapshot, computing the file's theory
on every task of the reference, the leaderboard). The shipped theories come from the
reference's snapshot while its code digest matches; the benchmark says whether it did.
Target (issue 42): at most 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

THEORY = '''\
import numpy as np

NAME = "ends_only"
ASSUMPTIONS = ("the model reads the first and the last token only",)


def predict(task):
    ns = task.variant().valid_ns(2, 7)
    if not ns:
        return "unknown", "no n up to 7"
    for n in ns[-2:]:
        inst = task.build(n=n)
        x = inst.enumerate()
        y = inst.label(x)
        if y.ndim > 1:
            return "unknown", "a sequence output"
        ends = x[:, 0] * len(inst.vocab) + x[:, -1]
        for e in np.unique(ends):
            if len(np.unique(y[ends == e])) > 1:
                return "hard", f"the label is not a function of the ends at n = {n}"
    return "easy", "the label depends on the first and last token only"
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", default="quick")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "ends_only.py"
        path.write_text(THEORY)
        times, got = [], None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "theorybench.cli.main", "score",
                                  str(path), "--reference", args.reference, "--format", "json"],
                                 capture_output=True, text=True,
                                 env={**os.environ, "THEORYBENCH_THEORIES": ""})
            times.append(time.perf_counter() - t0)
            if out.returncode != 0:
                sys.exit(f"score failed: {out.stderr}")
            got = json.loads(out.stdout)
    rows = [e for e in got["entries"] if e["predictor"] == "ends_only"]
    cached = sorted(n for n, how in got["provenance"].items() if how.startswith("snapshot"))
    print(f"theorybench score FILE --reference {args.reference}: "
          f"{min(times):.1f} s best, {sum(times) / len(times):.1f} s mean of {len(times)} "
          f"(target <= 30 s); cores {os.cpu_count()}")
    print(f"  shipped theories from the snapshot: {', '.join(cached) or 'none (recomputed)'}")
    for e in rows:
        acc = "—" if e["accuracy"] is None else f"{e['accuracy']:.2f}"
        print(f"  ends_only on {e['line']}: {e['compared']} compared, accuracy {acc}")


if __name__ == "__main__":
    main()
