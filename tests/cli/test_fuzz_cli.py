"""Fuzzed command lines, generated from the CLI's own parser: every leaf command, with one
positional or option at a time set to a hostile value (negative, zero, huge, nan, inf,
empty, unicode, wrong type, a directory, a missing or unwritable path, a device). Each runs
in this process under a time and memory cap and must end with exit 0, 2 or 3 (1 where a
command documents it: a check that found a counterexample), never a traceback.

A second generator points every output option (OUTPUTS) at one of its command's inputs,
spelled as the same path, relatively, through "..", a symbolic or a hard link, or at an
existing results store, checkpoint, program or task file: each must be refused before any
work with the file's bytes unchanged (no command writes over its inputs without --force).

``THEORYBENCH_FUZZ=N`` runs N command lines with no time budget, the slow commands (report,
verify, sharpness, construct, claim) included, and N/10 collisions (default: as many
command lines as fit in about 40 seconds, at least 40, without them, and 24 collisions);
``THEORYBENCH_FUZZ_SEED`` picks another sample and ``THEORYBENCH_FUZZ_CAP`` the seconds
one command line may take (default 30).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import random
import resource
import signal
import time

import pytest

from theorybench.cli.main import build_parser

HOSTILE = ["-1", "0", "1" + "0" * 30, "9" * 5000, "nan", "inf", "-inf", "", "ü∆ 中", "abc",
           "1.5", "1e400", "{dir}", "{dir}/missing", "/dev/zero", "/proc/nope/out.txt",
           "--", "3..1", "1..100000000000", "k=", "=", "a:b=c", " ", "\x00"]

TINY_REFERENCE = str(pathlib.Path(__file__).resolve().parents[1] / "data"
                     / "reference-tiny.json")
THEORY_FILE = str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "theories"
                  / "counts_only.py")
#: Cheap valid command lines to start from (a hostile value then replaces one part).
BASE = {
    ("automaton",): ["parity", "--n", "4"],
    ("bapo", "bandwidth"): ["parity", "--n", "4"],
    ("bapo", "frontier"): ["parity", "--n", "3", "--max-a", "1", "--max-b", "1", "--timeout", "5"],
    ("bapo", "verify"): ["parity", "--n", "4"],
    ("brasp", "run"): ["any", "1 0 1"],
    ("brasp", "check"): ["any", "--task", "any", "--max-n", "4", "--samples", "50"],
    ("brasp", "lint"): ["any"],
    ("brasp", "list"): [],
    ("circuit", "build"): ["parity", "--n", "4"],
    ("circuit", "synth"): ["parity", "--n", "2", "--depth", "1", "--max-size", "2", "--timeout", "5"],
    ("crasp", "run"): ["majority", "1 0 1"],
    ("crasp", "check"): ["majority", "--task", "majority", "--max-n", "4", "--samples", "50"],
    ("crasp", "lint"): ["majority"],
    ("crasp", "list"): [],
    ("crasp", "prove"): ["majority", "--task", "majority", "--timeout", "5"],
    ("mpc", "rounds"): ["parity", "--n", "64", "--instances", "1"],
    ("predict",): ["--theory", "crasp", "--task", "parity", "--max-n", "4"],
    ("explain",): ["crasp", "parity", "--max-n", "4"],
    ("run",): ["in-distribution", "--dry-run", "--tasks", "parity"],
    ("runs",): ["--db", "{dir}/none.sqlite"],
    ("export",): ["--db", "{dir}/none.sqlite"],
    ("sensitivity",): ["parity", "--n", "30", "--samples", "50"],  # Monte Carlo: --samples used
    ("tasks",): [],
    ("sample",): ["parity", "--n", "4", "--count", "2"],
    ("label",): ["parity", "1 0 1 1", "--n", "4"],
    ("claims",): [],
    ("score",): ["tc0", "--reference", TINY_REFERENCE, "--max-n", "4"],
    ("theory", "check"): [THEORY_FILE, "--task", "parity", "--max-n", "4"],
    ("discover",): ["--budget", "smoke", "--candidates", "2", "--no-train", "--out",
                    "{dir}/disc"],
    ("reproduce",): ["huang2025", "--dry-run", "--db", "{dir}/rep.sqlite", "--out",
                     "{dir}/rep"],
    ("task", "check"): [str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks"
                            / "mod3.py"), "--count", "10"],
    ("llm", "models"): [],
    ("llm", "eval"): ["parity", "--n", "4", "--count", "2", "--k", "1", "--models",
                      "{dir}/models.json"],  # an http model nobody serves: refused at once
    ("llm", "export"): ["parity", "--n", "4", "--count", "2", "--out", "{dir}/lm-export"],
}
#: The model file of ``llm eval``'s line (written into {dir} by the tests that use BASE).
MODELS_FILE = {"format": "theorybench-llm-models", "version": 1, "models": [
    {"name": "m", "backend": "http", "base_url": "http://127.0.0.1:9", "model": "m",
     "timeout": 1, "max_retries": 0}]}
#: Switches the fuzz never adds: --refresh-snapshot writes a snapshot beside the reference,
#: a file of this repository (tests/data).
NEVER = {"--refresh-snapshot"}


@pytest.fixture(autouse=True)
def theories_stay_in_their_test():
    """A fuzzed `theory check` (or `score ./file.py`) registers the file's theory: scoped,
    so that it is not a column of every later test (tests/conftest.py scopes the task
    families and the artifact libraries, not the theories)."""
    from theorybench.theories.registry import THEORY_REGISTRY
    with THEORY_REGISTRY.scoped():
        yield


def _base_files(folder) -> None:
    import json
    (pathlib.Path(folder) / "models.json").write_text(json.dumps(MODELS_FILE))


#: Commands that train models or sweep the whole matrix even when valid: fuzzed only in a
#: long run (THEORYBENCH_FUZZ=N), with the values most likely refused up front.
SLOW = {("report",), ("verify",), ("sharpness",), ("construct",), ("claim",)}
#: Commands whose exit 1 means "the check found a counterexample / failed", by design.
EXIT_1 = {("brasp", "check"), ("crasp", "check"), ("bapo", "verify"), ("mpc", "rounds"),
          ("circuit", "build"), ("crasp", "prove"), ("claim",), ("construct",), ("verify",)}

#: Commands left out of the default run while what the fuzz found there is open; a long
#: run (THEORYBENCH_FUZZ=N) still includes them.
PENDING: set[tuple[str, ...]] = set()

CAP_S = float(os.environ.get("THEORYBENCH_FUZZ_CAP", "30"))
#: Options of the slow commands that take any file or folder name.
SLOW_PATH_DESTS = {"out", "db", "checkpoints", "predictions", "sharpness", "models", "trained",
                   "plot", "output"}
MEMORY_CAP = 4 << 30


def _leaves():
    out = []

    def walk(parser, path):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if subs:
            for name, sub in subs[0].choices.items():
                walk(sub, path + (name,))
            return
        out.append((path, parser))

    walk(build_parser(), ())
    return out


def _cases(rng: random.Random, tmp: str, slow: bool = True):
    """Endless (command path, argv) pairs: one hostile value in a cheap valid line."""
    leaves = [(p, parser) for p, parser in _leaves()
              if slow or (p not in SLOW and p not in PENDING)]
    while True:
        path, parser = rng.choice(leaves)
        base = [a.replace("{dir}", tmp) for a in BASE.get(path, [])]
        options = [a for a in parser._actions if a.option_strings and a.dest != "help"
                   and not NEVER & set(a.option_strings)]
        positional = [a for a in parser._actions if not a.option_strings]
        bad = rng.choice(HOSTILE).replace("{dir}", tmp)
        if path in SLOW:  # only values no valid run accepts
            bad = rng.choice(["-1", "nan", "inf", "", "abc", "/dev/zero", tmp])
            # a switch, or a folder or file name ("abc", "-1" are fine names), would make a
            # valid line: the whole slow job (verify trains), not a hostile input
            options = [a for a in options if a.nargs != 0 and a.dest not in SLOW_PATH_DESTS]
            if not options and not positional:
                continue
        if positional and (not options or rng.random() < 0.3):
            k = rng.randrange(len(positional))
            argv = list(base)
            pos_idx = [i for i, a in enumerate(argv) if not a.startswith("--")
                       and (i == 0 or not argv[i - 1].startswith("--"))]
            if k < len(pos_idx):
                argv[pos_idx[k]] = bad
            else:
                argv.insert(0, bad)
        else:
            opt = rng.choice(options)
            flag = rng.choice(opt.option_strings)
            argv = list(base)
            if opt.nargs == 0:
                argv.append(flag)
            else:
                if flag in argv:  # replace the base value
                    i = argv.index(flag)
                    argv[i + 1] = bad
                else:
                    argv += [flag, bad]
        yield path, [*path, *argv]


class _Cap(BaseException):
    """The time cap of one command line (a BaseException: no handler in the CLI eats it)."""


def _alarm(signum, frame):
    raise _Cap()


def _run_capped(cli_exit, argv):
    old = signal.signal(signal.SIGALRM, _alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as fh:
        vm = int(fh.read().split()[0]) * resource.getpagesize()
    cap = vm + MEMORY_CAP
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else
                                            min(cap, hard), hard))
    signal.setitimer(signal.ITIMER_REAL, CAP_S)
    try:
        return cli_exit(*argv)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_fuzzed_command_lines_end_cleanly(cli_exit, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a stray default output lands here
    _base_files(tmp_path)
    count = int(os.environ.get("THEORYBENCH_FUZZ", "0"))
    seed = int(os.environ.get("THEORYBENCH_FUZZ_SEED", "20261203"))
    rng = random.Random(seed)
    # 20 s by default (the suite's time); THEORYBENCH_FUZZ=N runs N lines, the slow
    # job's way of running many more
    budget = None if count else 20.0
    start, done, failures = time.time(), 0, []
    for path, argv in _cases(rng, str(tmp_path), slow=bool(count)):
        if count and done >= count:
            break
        if budget is not None and done >= 20 and time.time() - start > budget:
            break
        try:
            code, out, err = _run_capped(cli_exit, argv)
        except _Cap:
            failures.append((argv, f"ran past {CAP_S:g} s without finishing"))
        except MemoryError:
            failures.append((argv, "MemoryError (memory cap)"))
        except Exception as exc:  # noqa: BLE001 - any escape is the failure we look for
            failures.append((argv, f"traceback: {type(exc).__name__}: {exc}"[:300]))
        else:
            allowed = {0, 2, 3} | ({1} if path in EXIT_1 else set())
            if code not in allowed or "Traceback" in err:
                failures.append((argv, f"exit {code}: {err.strip()[-300:]}"))
        done += 1
    shown = "\n".join(f"{[a[:40] for a in argv]}: {why}" for argv, why in failures[:15])
    assert not failures, f"{len(failures)} of {done} fuzzed command lines failed:\n{shown}"


def test_generator_covers_every_leaf_command(tmp_path):
    leaves = {p for p, _ in _leaves()}
    assert {("crasp", "run"), ("brasp", "check"), ("sensitivity",), ("mpc", "rounds")} <= leaves
    seen = set()
    gen = _cases(random.Random(0), str(tmp_path))  # slow and pending included
    for _ in range(3000):
        seen.add(next(gen)[0])
    assert seen == leaves


#: byo's task file: a shipped example (the collision files hold no valid task file).
BYO_TASK = str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "tasks"
               / "first_eq_last.py")
#: Every option that names an output, by command: a cheap valid command line (an output
#: folder as "{out}" where the option names a folder), the inputs it reads (an output
#: pointed at one of them is a collision) and, for a folder, the file names written in it.
#: ``run --checkpoints`` is left out: it only adds files named by run keys.
OUTPUTS = {
    (("export",), "--output"): (["--db", "{store}"], ["{store}"], None),
    (("crasp", "compile"), "--out"): (["{program}", "--max-len", "3"], ["{program}"], None),
    (("construct",), "--out"): (["--program", "{program}", "--n", "3"], ["{program}"], None),
    (("crasp", "run"), "--trace"): (["{crasp_txt}", "1 0 1"], ["{crasp_txt}"], None),
    (("brasp", "run"), "--trace"): (["{brasp_txt}", "1 0 1"], ["{brasp_txt}"], None),
    (("circuit", "build"), "--dot"): (["parity", "--n", "4"], [], None),
    (("sharpness",), "--plot"): (["parity", "--n", "4", "--iters", "2", "--perturbations",
                                  "2", "--batch", "16"], [], None),
    # --log_samples: lm-eval's spelling of --records (the longest option string is listed)
    (("llm", "eval"), "--log_samples"): (["parity", "--n", "4", "--count", "2", "--models",
                                          "{models}"], ["{models}"], None),
    (("llm", "export"), "--out"): (["parity", "--n", "4", "--count", "2"], [],
                                   ["theorybench_parity_n4_k8_plain_balanced_loglik_s0_c2.jsonl",
                                    "theorybench_parity_n4_k8_plain_balanced_loglik_s0_c2.yaml",
                                    "theorybench.yaml"]),
    (("report",), "--out"): (["--db", "{store}", "--predictions", "{out}/predictions.json"],
                             ["{store}", "{out}/predictions.json"],
                             ["predictions.json", "index.html", "heatmap.png", "summary.json"]),
    (("verify",), "--out"): (["--db", "{store}"], ["{store}"],
                             ["index.html", "predictions-evidence.json", "agreement.csv"]),
    (("byo",), "--out"): ([BYO_TASK, "--no-train"], [BYO_TASK],
                          ["first_eq_last.md", "first_eq_last.html"]),
    (("reproduce",), "--out"): (["huang2025", "--db", "{store}"], ["{store}"],
                                ["huang2025.md", "huang2025.json"]),
    (("score",), "--out"): (["tc0", "--reference", TINY_REFERENCE, "--max-n", "4"],
                            [TINY_REFERENCE], None),
    (("score",), "--save-reference"): (["tc0", "--db", "{store}", "--max-n", "4"],
                                       ["{store}"], None),
    (("discover",), "--out"): (["--budget", "smoke", "--candidates", "2", "--no-train"], [],
                               ["discovered.md", "discovered.json"]),
}
#: Commands whose output is itself a checkpoint: a newer model may replace an older one.
WRITES_CHECKPOINT = {("crasp", "compile"), ("construct",)}
#: Options whose destination names an output file or folder (the coverage test's net).
OUTPUT_DESTS = {"out", "output", "trace", "dot", "plot", "records", "save_reference"}


def _make_files(d):
    """One file of each kind a collision may hit, in folder ``d``: path by placeholder."""
    import json
    import shutil
    import sqlite3

    import theorybench.formal as formal
    lib = os.path.dirname(formal.__file__)
    d.mkdir()
    f = {"store": d / "runs.sqlite", "program": d / "prog.cr", "crasp_txt": d / "c.txt",
         "brasp_txt": d / "b.txt", "models": d / "models.json", "task_file": d / "task.py",
         "checkpoint": d / "model.pt", "out": d / "out"}
    con = sqlite3.connect(f["store"])
    con.execute("create table t (x)")
    con.commit()
    con.close()
    shutil.copyfile(os.path.join(lib, "crasp", "library", "majority.cr"), f["program"])
    shutil.copyfile(f["program"], f["crasp_txt"])
    shutil.copyfile(os.path.join(lib, "brasp", "library", "any.br"), f["brasp_txt"])
    f["models"].write_text(json.dumps({"format": "theorybench-llm-models", "version": 1,
                                       "models": [{"name": "m", "backend": "http",
                                                   "base_url": "http://127.0.0.1:9",
                                                   "model": "m", "timeout": 1,
                                                   "max_retries": 0}]}))
    f["task_file"].write_text("NAME = 'mine'\nALPHABET = '01'\n")
    import zipfile
    with zipfile.ZipFile(f["checkpoint"], "w") as z:  # torch.save's format
        z.writestr("model/data.pkl", b"\x80\x02}q\x00.")
    f["out"].mkdir()
    (f["out"] / "predictions.json").write_text(
        json.dumps([{"theory": "crasp", "task": "parity", "verdict": "hard"}]))
    return {k: str(v) for k, v in f.items()}


def _spellings(rng: random.Random, path: str, d) -> str:
    """Another name for the file ``path``: itself, relative, through "..", a symbolic link
    or a hard link."""
    how = rng.choice(["same", "relative", "dotdot", "symlink", "hardlink"])
    name = os.path.basename(path)
    if how == "relative":
        return os.path.relpath(path)
    if how == "dotdot":
        return os.path.join(os.path.dirname(path), "out", "..", name)
    if how in ("symlink", "hardlink"):
        alias = os.path.join(os.path.dirname(path), f"alias-{rng.randrange(10**9)}-{name}")
        (os.symlink if how == "symlink" else os.link)(path, alias)
        return alias
    return path


def _collisions(rng: random.Random, tmp: str):
    """Endless (command path, argv, victim file): an output option pointed at one of the
    command's inputs (spelled in any way) or at an existing file of another kind (a store,
    a checkpoint, a program, a task file); for a folder output, a store or checkpoint
    placed under a name the command writes there."""
    import pathlib
    import shutil
    i = 0
    while True:
        i += 1
        files = _make_files(pathlib.Path(tmp) / f"collision-{i}")
        (path, flag), (base, inputs, names) = rng.choice(sorted(OUTPUTS.items()))
        argv = [a.format(**files) for a in base]
        if names is None:  # a file output: an input, or a file of another kind
            kinds = ["store", "program", "task_file"] + (
                [] if path in WRITES_CHECKPOINT else ["checkpoint"])
            victim = rng.choice([x.format(**files) for x in inputs] + [files[k] for k in kinds])
            target = _spellings(rng, victim, files["out"])
        else:  # kinds known by content (a program is one by its suffix, not here)
            victim = os.path.join(files["out"], rng.choice(names))
            shutil.copyfile(files[rng.choice(["store", "checkpoint"])], victim)
            target = files["out"]
        yield path, [*path, *argv, flag, target], victim


def _leftovers(folder: str) -> list[str]:
    return [os.path.join(r, n) for r, _, ns in os.walk(folder) for n in ns if ".tmp" in n]


def test_fuzzed_output_collisions_lose_nothing(cli_exit, tmp_path, monkeypatch):
    """An output option pointed at an input of the command, by any spelling, or at an
    existing store, checkpoint, program or task file: refused (exit 2) with the victim's
    bytes unchanged and no temporary file left, before any work (issue 31, cause 1)."""
    monkeypatch.chdir(tmp_path)
    count = int(os.environ.get("THEORYBENCH_FUZZ", "0")) // 10 or 24
    rng = random.Random(int(os.environ.get("THEORYBENCH_FUZZ_SEED", "20261205")))
    failures, seen = [], set()
    gen = _collisions(rng, str(tmp_path))
    for _ in range(count):
        path, argv, victim = next(gen)
        seen.add(path)
        with open(victim, "rb") as fh:
            before = fh.read()
        try:
            code, out, err = _run_capped(cli_exit, argv)
        except _Cap:
            failures.append((argv, f"ran past {CAP_S:g} s: the output was not refused up front"))
            continue
        except Exception as exc:  # noqa: BLE001
            failures.append((argv, f"traceback: {type(exc).__name__}: {exc}"[:300]))
            continue
        with open(victim, "rb") as fh:
            lost = fh.read() != before
        if code != 2 or lost or "Traceback" in err:
            failures.append((argv, f"exit {code}, victim {'replaced' if lost else 'kept'}: "
                                   f"{err.strip()[-200:]}"))
        if _leftovers(str(tmp_path)):
            failures.append((argv, f"temporary files left: {_leftovers(str(tmp_path))}"))
    shown = "\n".join(f"{argv}: {why}" for argv, why in failures[:10])
    assert not failures, f"{len(failures)} of {count} collisions lost data:\n{shown}"


def test_every_output_option_has_a_collision_case(tmp_path):
    """A new option that writes a file must join OUTPUTS (and so the collision fuzz), and
    its command must take --force."""
    leaves = dict(_leaves())
    found = {(p, max(a.option_strings, key=len)) for p, parser in leaves.items()
             for a in parser._actions if a.option_strings and a.dest in OUTPUT_DESTS}
    assert found == set(OUTPUTS)
    assert all(any(a.dest == "force" for a in leaves[p]._actions) for p, _ in OUTPUTS)
    gen = _collisions(random.Random(1), str(tmp_path))
    assert {next(gen)[0] for _ in range(60)} == {p for p, _ in OUTPUTS}


@pytest.mark.parametrize("argv", [
    ["sensitivity", "parity", "--n", "64", "--samples", "1000000000000"],
    ["bapo", "bandwidth", "parity", "--n", "34", "--limit", "1099511627776"],
    ["brasp", "check", "any", "--task", "any", "--max-n", "5", "--samples", "1000000000"],
    ["mpc", "rounds", "parity", "--n", "64", "--instances", "1000000000"],
])
def test_huge_requests_are_refused_fast(cli_exit, argv):
    t = time.time()
    code, out, err = _run_capped(cli_exit, argv)
    assert code == 2 and "Traceback" not in err and time.time() - t < CAP_S


def _numeric_options(parser):
    """Options that take one number: typed int/float, or a shared number type."""
    out = []
    for a in parser._actions:
        if not a.option_strings or a.nargs == 0 or a.dest == "help" or a.choices:
            continue
        t = a.type
        name = getattr(t, "__name__", "") or type(t).__name__
        if t in (int, float) or any(k in name.lower() for k in ("int", "float", "seed")):
            out.append(a)
    return out


@pytest.mark.parametrize("value", ["1000000000000", "-1"])
def test_every_numeric_option_at_an_extreme(cli_exit, tmp_path, monkeypatch, value):
    """Each number-taking option of every fast command, set to 10^12 and to -1: refused or
    bounded, never a traceback, a hang or an allocation past the cap (a --samples left
    unchecked is found here, whatever the random sample of the other test draws)."""
    monkeypatch.chdir(tmp_path)
    _base_files(tmp_path)
    failures, tried = [], []
    for path, parser in _leaves():
        if path in SLOW or path not in BASE:
            continue
        for opt in _numeric_options(parser):
            flag = opt.option_strings[-1]
            argv = [a.replace("{dir}", str(tmp_path)) for a in BASE[path]]
            if flag in argv:
                argv[argv.index(flag) + 1] = value
            else:
                argv += [flag, value]
            tried.append((path, flag))
            try:
                code, _, err = _run_capped(cli_exit, [*path, *argv])
            except _Cap:
                failures.append((path, flag, f"ran past {CAP_S:g} s"))
                continue
            except MemoryError:
                failures.append((path, flag, "MemoryError (memory cap)"))
                continue
            allowed = {0, 2, 3} | ({1} if path in EXIT_1 else set())
            if code not in allowed or "Traceback" in err:
                failures.append((path, flag, f"exit {code}: {err.strip()[-200:]}"))
    assert (("sensitivity",), "--samples") in tried and len(tried) >= 25
    assert not failures, failures
