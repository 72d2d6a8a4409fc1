"""`theorybench construct TASK --n N`: a hand-built softmax transformer for the task, its
shape, temperature and margin, and optionally a verification certificate and the saved
model (loads with ``torch.load(path, weights_only=True)``)."""

from __future__ import annotations

import math
import sys

import numpy as np

from .. import constructions
from ..constructions import verify as cverify
from ..errors import ConfigError
from ..formal.crasp import load_program
from ..safe_io import CHECKPOINT, atomic_path, check_output
from .ranges import usable_ns
from .common import add_force, parse_params, parse_range, parse_seed, print_json, print_table


def register(sub) -> None:
    p = sub.add_parser(
        "construct", help="a softmax transformer with set weights for a task, verified",
        description="Build the hand-set softmax transformer for TASK at length n (tasks: "
        f"{', '.join(constructions.supported())}; task variants as FAMILY:K=V, e.g. "
        "dyck_bounded:D=3), print its shape, inverse temperature and margin, and verify it: "
        "exhaustive (float64 and float32 on every input), interval (real arithmetic, "
        "outward-rounded intervals on every input), sampled (float64 and float32 on "
        "samples, any n) or z3 (symbolic: all n for Majority, "
        "this n otherwise).")
    p.add_argument("task", nargs="?", help="task family (optionally FAMILY:K=V)")
    p.add_argument("--program", metavar="FILE",
                   help="compile a C-RASP program (a .cr file or a library name) instead of "
                   "a task's hand-built construction; --verify exhaustive|interval|sampled "
                   "check it against the interpreter on inputs of length 1..n")
    p.add_argument("--n", required=True,
                   help="input size n of the task, or a range A..B / A..B:STEP / A,B,C: "
                   "one construction and certificate per n, and the status they support "
                   "(verified <= N, proven)")
    p.add_argument("--verify", choices=cverify.METHODS, help="verification method")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="z3 timeout per query in seconds (default 60); a timeout is "
                   "reported as unknown")
    p.add_argument("--samples", type=int, default=1000,
                   help="inputs per dtype for --verify sampled (default 1000)")
    p.add_argument("--seed", type=parse_seed, default=0, help="seed of --verify sampled")
    p.add_argument("--out", metavar="PATH", help="save the model (a dict of tensors)")
    add_force(p)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_construct, param=None)


def cmd_construct(args) -> int:
    if not (math.isfinite(args.timeout) and 0 < args.timeout <= 86400):
        raise ConfigError(f"--timeout must be a number of seconds in (0, 86400], got "
                          f"{args.timeout}")
    if not 1 <= args.samples <= 10**6:
        raise ConfigError(f"--samples must be an integer from 1 to 1,000,000, got "
                          f"{args.samples}")
    if args.out:
        _check_out(args)
    if args.program:
        if args.task:
            raise ConfigError("give either TASK or --program FILE, not both")
        return program_command(args)
    if not args.task:
        raise ConfigError("give a TASK (e.g. `theorybench construct majority --n 15`) or "
                          "--program FILE")
    params = parse_params(args.param)
    ns = parse_range(args.n)
    if len(ns) > 1:
        return _sweep(args, ns, params)
    c = constructions.build(args.task, ns[0], **params)
    certs = (cverify.verify(c, args.verify, int(args.timeout * 1000), args.samples,
                            np.random.default_rng(args.seed)) if args.verify else [])
    saved = None
    if args.out:
        _save(c.module().bundle(c.describe()), args.out)
        saved = args.out
    info = c.describe()
    if args.format == "json":
        print_json({**info, "certificates": [ct.as_dict() for ct in certs],
                    "status": cverify.evidence_status(certs) if certs else None,
                    "saved": saved})
    else:
        sh = info["shape"]
        print(f"construction: {c.name} for {args.task} n={c.n} "
              f"({', '.join(f'{k}={v}' for k, v in c.task.values.items() if k != 'n') or 'defaults'})")
        print(f"  {c.summary}")
        print(f"shape: {sh['layers']} layer(s), heads {sh['heads']}, width {sh['width']}, "
              f"MLP hidden {sh['mlp']}, {sh['parameters']:,} parameters, input length "
              f"{c.length}, {sh['classes']} logit(s) at {sh['output']} position(s)")
        betas = "; ".join(f"layer {i + 1}: " + ", ".join(f"{b:.4g}" if b else "uniform"
                                                          for b in row)
                          for i, row in enumerate(info["beta"]))
        print(f"temperature: {c.temperature} (beta here: {betas})")
        print(f"margin: {c.margin_formula}; hard-attention margin {c.hard_margin}")
        print(f"source: {c.source}")
        for ct in certs:
            extra = []
            if ct.inputs is not None:
                extra.append(f"{ct.inputs:,} inputs")
            if ct.margin is not None:
                extra.append(f"proved margin {ct.margin}")
            if ct.observed_margin is not None:
                extra.append(f"smallest observed margin {ct.observed_margin:.6g}")
            print(f"certificate [{ct.method}]: {ct.status.upper()} in {ct.seconds:.3f} s"
                  + (f" ({'; '.join(extra)})" if extra else ""))
            print(f"  {ct.claim}")
            if ct.counterexample is not None:
                print(f"  counter-example: {c.task.render(ct.counterexample)}")
        if certs:
            print(f"status: {cverify.evidence_status(certs)}")
        if saved:
            print(f"saved: {saved} (torch.load(path, weights_only=True); "
                  f"SetTransformer.from_bundle rebuilds the module)")
    if certs and not all(ct.ok for ct in certs):
        bad = [f"{ct.method}: {ct.status}" for ct in certs if not ct.ok]
        print(f"theorybench: verification did not pass ({', '.join(bad)})", file=sys.stderr)
        return 1
    return 0


def _check_out(args) -> None:
    """--out must name a file in an existing, writable folder, and neither the program read
    nor an existing file of another kind (unless --force); checked before any work."""
    program = getattr(args, "program", None)  # a file, or a library name (nothing to lose)
    check_output(args.out, inputs=[("the program", program)] if program else (),
                 force=getattr(args, "force", False), kind=CHECKPOINT)


def _save(obj, path: str) -> None:
    import torch
    try:
        with atomic_path(path) as tmp:
            torch.save(obj, tmp)
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"--out {path}: cannot write the model ({exc})") from None


def _sweep(args, ns, params) -> int:
    """One construction per n of the range, each verified; a table and the status."""
    if args.out:
        raise ConfigError("--out saves one model: give a single --n with --out")
    if args.task not in constructions.BUILDERS:
        constructions.build(args.task, ns[0], **params)     # the unsupported-task error
    ns = usable_ns(args.task, ns, params, text=args.n)
    rows, certs = [], []
    for n in ns:
        c = constructions.build(args.task, n, **params)
        got = (cverify.verify(c, args.verify, int(args.timeout * 1000), args.samples,
                              np.random.default_rng(args.seed)) if args.verify else [])
        certs += got
        sh = c.shape()
        for ct in got or [None]:
            rows.append((n, sh["layers"], sh["width"], sh["parameters"],
                         "; ".join(f"{b:.4g}" for row in c.betas() for b in row if b) or "uniform",
                         ct.method if ct else "-", ct.status if ct else "-",
                         (ct.margin or (f"{ct.observed_margin:.4g}" if ct.observed_margin
                                        is not None else "-")) if ct else "-",
                         f"{ct.seconds:.3f}" if ct else "-"))
    status = cverify.evidence_status(certs, ns) if certs else None
    if args.format == "json":
        print_json({"task": args.task, "params": params, "ns": ns, "status": status,
                    "certificates": [ct.as_dict() for ct in certs]})
    else:
        print_table(rows, ("n", "layers", "width", "params", "beta", "method", "status",
                           "margin", "seconds"))
        if status:
            print(f"status: {status}")
    if certs and not all(ct.ok for ct in certs):
        print("theorybench: verification did not pass at every n", file=sys.stderr)
        return 1
    return 0


def program_command(args) -> int:
    """`construct --program` and `crasp compile`: compile a C-RASP program, verify, save."""
    from ..constructions.compiler import compile_program, verify_compiled
    from ..constructions.model import SetTransformer
    ns = parse_range(args.n)
    if len(ns) != 1 or ns[0] < 1:
        raise ConfigError(f"--n for --program is one length >= 1 (the longest input), "
                          f"got {args.n}")
    args.n = ns[0]
    if args.out:  # `crasp compile` comes here directly
        _check_out(args)
    if args.verify == "z3":
        raise ConfigError("--verify z3 is not available for compiled programs; use "
                          "exhaustive, interval or sampled")
    prog = load_program(args.program)
    comp = compile_program(prog, args.n)
    cert = (verify_compiled(prog, comp, args.verify, np.random.default_rng(args.seed),
                            args.samples) if args.verify else None)
    if args.out:
        meta = {"program": str(args.program), "max_len": args.n,
                "vocab": list(comp.vocab), "shape": comp.shape()}
        _save(SetTransformer(comp.weights).bundle(meta), args.out)
    sh = comp.shape()
    if args.format == "json":
        print_json({"program": str(args.program), "n": args.n, "vocab": list(comp.vocab),
                    "shape": sh, "margin": "1/2",
                    "certificate": cert.as_dict() if cert else None, "saved": args.out})
    else:
        print(f"compiled: {args.program} for inputs of length <= {args.n} (tokens "
              f"{' '.join(comp.vocab)}; the input is followed by <eos>)")
        print(f"shape: {sh['layers']} layer(s), heads {sh['heads']}, width {sh['width']}, "
              f"MLP hidden {sh['mlp']}, {sh['parameters']:,} parameters")
        print("temperature: none: every head uniform (counts by averaging)")
        print("margin: 1/2 at the end marker in real arithmetic (exact 0/1 Booleans)")
        if cert:
            print(f"certificate [{cert.method}]: {cert.status.upper()} in {cert.seconds:.3f} s "
                  f"(smallest observed margin {cert.observed_margin:.6g}; "
                  f"{', '.join(f'{k} {v:.3g}' for k, v in cert.details.items() if k != 'counterexample')})")
            print(f"  {cert.claim}")
            if "counterexample" in cert.details:
                print(f"  counter-example: {cert.details['counterexample']}")
        if args.out:
            print(f"saved: {args.out} (torch.load(path, weights_only=True))")
    if cert and not cert.ok:
        print(f"theorybench: verification did not pass ({cert.status})", file=sys.stderr)
        return 1
    return 0
