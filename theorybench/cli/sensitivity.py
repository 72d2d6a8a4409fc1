"""`theorybench sensitivity TASK`: average sensitivity by n, with the fitted growth.

n whose input space exceeds the exact limit (2^22 inputs) are estimated by Monte Carlo
automatically (with --samples draws) and a note on stderr says so; --method exact makes
that an error instead.
"""

from __future__ import annotations

import sys
from statistics import NormalDist

import numpy as np

from .. import tasks
from ..tasks.base import MAX_ENUMERATE
from ..formal.growth import classify_growth
from ..formal.sensitivity import METHODS, VARIANTS, average_sensitivity, check_options
from .ranges import usable_ns
from ..formal.resources import MEMORY_BUDGET, Progress, fmt_bytes, fmt_count
from ..formal.sensitivity import monte_carlo_cost
from .common import float_arg, int_arg, parse_params, parse_range, parse_seed, print_json, \
    print_table

#: Largest total Monte Carlo work of one command (samples x length^2 token reads, about a
#: nanosecond each for a cheap task: well under a minute); later n are skipped with a note.
WORK_BUDGET = 3 * 10 ** 10


def register(sub) -> None:
    p = sub.add_parser("sensitivity", help="average sensitivity of a task by n",
                       description="Average sensitivity of a task's main decision function "
                       "by n: exact (FWHT / enumeration) while the input space has at most "
                       f"{MAX_ENUMERATE:,} points, Monte Carlo with a confidence interval "
                       "beyond.")
    p.add_argument("task", help="task family name (see `theorybench tasks`)")
    p.add_argument("--n", help="n range: A..B, A..B:STEP or A,B,C (default: the family's "
                   "analysis n)")
    p.add_argument("--param", action="append", metavar="K=V",
                   help="another task parameter, e.g. --param k=3 (repeatable)")
    p.add_argument("--distribution", choices=("uniform", "task"), default="uniform",
                   help="uniform over the natural input space (default) or the task's own "
                   "sampling distribution (Monte Carlo)")
    p.add_argument("--method", choices=METHODS, default="auto")
    p.add_argument("--samples", type=int_arg(2), default=20000,
                   help="Monte Carlo samples (default 20000)")
    p.add_argument("--variant", choices=VARIANTS, default="deterministic",
                   help="larger alphabets: a position counts if some other symbol changes "
                   "f (deterministic) or by the fraction that do (probabilistic)")
    p.add_argument("--confidence", type=float_arg(0, 1, lo_open=True), default=0.95)
    p.add_argument("--histogram", action="store_true",
                   help="also print the distribution of s(f, x) at each n (text format)")
    p.add_argument("--seed", type=parse_seed, default=0, help="random seed (default 0)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_sensitivity)


def _feasible(args, params):
    """``extra`` for usable_ns: refuses an n whose Monte Carlo estimate passes the memory
    budget, or once the total work of the n so far passes WORK_BUDGET (checked before any
    work; the task's space size and length are read, nothing is computed)."""
    spent = [0]

    def reason(n: int) -> str | None:
        if spent[0] > WORK_BUDGET:
            return (f"the n before it already use the work budget of this command "
                    f"({args.samples:,} samples x length^2 ~ {WORK_BUDGET:.0e} token reads); "
                    f"run the larger n separately or lower --samples")
        df = tasks.get(args.task, n=n, **params).decision_view()[0]
        exact = (args.distribution == "uniform" and args.method != "monte_carlo"
                 and df.space_size() <= MAX_ENUMERATE)
        if exact:
            return None
        need, work = monte_carlo_cost(df.length, args.samples)
        if need > MEMORY_BUDGET:
            return (f"{args.samples:,} samples at length {df.length:,} need about "
                    f"{fmt_bytes(need)} of memory, above the budget of "
                    f"{fmt_bytes(MEMORY_BUDGET)}; lower --samples")
        if spent[0] + work > WORK_BUDGET:
            spent[0] = WORK_BUDGET + 1
            return (f"{args.samples:,} samples at length {df.length:,} pass the work budget "
                    f"of this command ({args.samples:,} x length^2 token reads, at most "
                    f"{WORK_BUDGET:.0e} in all); lower --samples or run fewer n")
        spent[0] += work
        return None

    return reason


def cmd_sensitivity(args) -> int:
    fam = tasks.family(args.task)
    params = parse_params(args.param)
    check_options(args.distribution, args.method, args.variant, args.samples, args.confidence)
    ns = parse_range(args.n) if args.n else list(fam.analysis_ns)
    # an n the task refuses (majority: odd n only) is skipped with a note, not fatal
    ns = usable_ns(args.task, ns, params, text=args.n or "", extra=_feasible(args, params))
    rng = np.random.default_rng(args.seed)
    results = []
    sampled = []
    with Progress(len(ns), f"sensitivity {args.task}") as bar:
        for j, n in enumerate(ns):
            df = tasks.get(args.task, n=n, **params).decision_view()[0]
            if (args.method == "auto" and args.distribution == "uniform"
                    and df.space_size() > MAX_ENUMERATE):
                sampled.append((n, df.space_size()))
            bar.update(j, f"n={n}")
            results.append(average_sensitivity(
                df, distribution=args.distribution, method=args.method, samples=args.samples,
                rng=rng, confidence=args.confidence, variant=args.variant,
                progress=lambda done, j=j, n=n: bar.update(j, f"n={n}: {done:,} samples")))
    if sampled:  # one note for all of them
        n0, size0 = sampled[0]
        which = f"n={n0}" if len(sampled) == 1 else f"{len(sampled)} n from n={n0}"
        print(f"note: {which}: the input space ({fmt_count(size0)} inputs at n={n0}) exceeds "
              f"the exact limit {MAX_ENUMERATE:,}; estimated by Monte Carlo with "
              f"{args.samples:,} samples (--samples to change)", file=sys.stderr)
    if args.format == "json":
        print_json([{"n": n, "distribution": r.distribution, "average_sensitivity": r.value,
                     "ci_low": r.ci_low, "ci_high": r.ci_high, "exact": r.exact}
                    for n, r in zip(ns, results)])
        return 0
    shown = ", ".join(f"{k}={v}" for k, v in params.items()) or "default parameters"
    print(f"# average sensitivity of {args.task} ({shown}), distribution "
          f"{args.distribution}, {args.variant}")
    rows = []
    for n, r in zip(ns, results):
        ci = "-" if r.exact else f"[{r.ci_low:.4f}, {r.ci_high:.4f}]"
        rows.append((n, r.n, f"{r.value:.6g}", ci, f"{r.value / max(r.free_positions, 1):.4f}",
                     "yes" if r.exact else "no", r.method))
    print_table(rows, ("n", "length", "as", f"CI {int(args.confidence * 100)}%", "as/n",
                       "exact", "method"))
    if args.histogram:
        for n, r in zip(ns, results):
            shown = ", ".join(f"{k:g}: {v:.4f}" for k, v in sorted(r.histogram.items()))
            print(f"n={n}: P(s = k) {{{shown}}}")
    if len(ns) >= 3 and all(b > a for a, b in zip(ns, ns[1:])):
        # standard errors of sampled estimates weight the fit (exact values: none)
        z = NormalDist().inv_cdf(0.5 + args.confidence / 2)
        fit = classify_growth(ns, [r.value for r in results],
                              sigma=[(r.ci_high - r.ci_low) / (2 * z) for r in results])
        note = (f"; {', '.join(fit.ambiguous_with)} also fit{'s' if len(fit.ambiguous_with) == 1 else ''}"
                if fit.ambiguous_with else "")
        if not fit.decided:
            note = "; undecided: no class fits within the uncertainties, the closest is shown"
        print(f"growth: {fit.kind}, {fit.formula} on n = {fit.window} (relative RMSE "
              f"{fit.rel_rmse:.3g}{note})")
    else:
        print("growth: needs at least three increasing n")
    print("as/n divides by the number of positions with more than one choice.")
    return 0
