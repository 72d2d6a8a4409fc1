"""Sweep profiles (smoke, quick, paper): their exact settings, and the grid -> specs.

``PROFILES[name]`` is a :class:`Profile`; :func:`profile_tasks` and :func:`profile_ns` give a
profile's tasks and sizes, :func:`expand` the run specs of one line. Expected times were
measured on the development machine (2 shared CPU cores, torch 2.13 CPU, 1-2 threads per run)
where the text says "measured", and extrapolated from measured step times otherwise.

smoke  - in-distribution: EVERY registered family (19) at its first train_ns entry (n = 8;
         majority 7, binary_add 4), and any, all, majority, parity, index also at their
         second (16; majority 15): 24 runs. Length generalization: any, majority, parity,
         index, dyck x (nope, alibi, learned_offsets), train lengths <= 32, bins <=32, 33-64,
         65-128, 129-256: 15 runs. Small model (2 layers, width 64) with RoPE for
         in-distribution (learned absolute positions learn index only after a long,
         seed-dependent plateau); 400 steps max, batch 64, lr 2e-3 (with 1e-3 index, khop
         and binary_add are not learned in 400 steps; above 2e-3 dyck becomes unstable),
         warm-up 40, eval every 50 steps on 256 fresh instances, target 0.99, final test on
         1024 (512 per length bin), online, seed 0, one torch thread per run (on a shared
         2-core machine two threads per tiny model run 3-4x slower through contention).
         Since 2026-12-05 the plateau rule (mean training loss over the last 100 steps
         down by less than 1 % on the 100 before; first checked at step 240) stops the runs
         that stay at chance (parity, dyck and index length generalization ran all 400
         steps), recorded as stop reason "plateau", read as not learned within budget.
         Measured 2026-12-02 on the development machine (2 cores shared with other work,
         load average 1-3): `theorybench verify --profile smoke --db /tmp/x.sqlite --out
         /tmp/xr` took 4 min 11 s wall (predictions 22 s, in-distribution 68 s,
         length generalization ~160 s, report a few s); user CPU 226 s. `python
         benchmarks/bench_training.py --smoke` (both lines only, load average ~1.3): 229 s.
         Outcome then: learned to >= 0.99 - all, any, majority, index, khop, sparse_all,
         sparse_any, dyck_bounded, dyck; partly (0.8-0.97) - index_all, index_any,
         binary_add, edge_exists, sparse_parity; at chance - parity, index_parity,
         reach_directed, reach_undirected. Length generalization: any generalizes with all
         three encodings, majority with learned_offsets; parity, index (not learned at
         train lengths in 400 steps) and dyck do not.
         Measured again 2026-12-04 on a clean clone (the auto executor, 2 workers): verify
         260 s (predictions 30 s, in-distribution 46 s, length generalization 72 s, llm 92 s,
         report 17 s); time outside forward/backward 11 % (in-distribution) and 20 %
         (length generalization; 33 % before its batches came from per-n buffers and its
         evaluation cut padding).
quick  - the profile that can show the study's findings on a laptop (2 CPU cores, under an
         hour for both trained lines). In distribution: every family (19), with the studied
         variants khop k = 1, 2, 3 and dyck k = 1, 2 (22 task variants), at the first three
         train_ns (8, 16, 32; majority 7, 15, 31; binary_add and kv_retrieval 4, 8, 16),
         seeds 0, 1, 2: 198 runs. Length generalization: majority, parity, index, khop
         (k = 1), dyck k = 1 and dyck_bounded, trained on inputs of length <= 32 and tested
         in the bins <=32, 33-64, 65-128, 129-256, with all nine encodings at the small size
         and at the base size for NoPE and RoPE (the two encodings the study's length
         findings name - NoPE on Dyck-1, RoPE on 1-hop - and opposite in kind: no position
         signal against a relative rotation): 66 runs, seed 0, and seeds 1, 2 for the
         configurations the findings read (Dyck-1 with NoPE, 1-hop with RoPE, both sizes;
         since 2026-12-06 also 1-hop with NoPE and learned_offsets, for the three-encoding
         length figure): 80 runs. Since 2026-12-06 also Dyck-1 under the papers' objective,
         next-symbol prediction (every position's set of allowed symbols, a string right
         when all are), small size, NoPE and learned_offsets, seeds 0, 1, 2, lr 1e-3, at
         most 1,500 steps with early stop at 100 % per string: 6 runs, labelled
         "next-symbol" in the matrix, beside the membership runs.
         Model size. Since 2026-12-05 the in-distribution line uses the DEEP model (4
         layers, width 64, RoPE): the known 2- and 3-hop constructions need 3 layers, and
         the study's models have 4, so a 2-layer "Hard" could only mean "too shallow". It
         costs about twice a small step (41 against 20 ms at batch 64 x 33, one thread);
         the plateau rule (training loss down by less than 1 % over 200 steps) stops the
         runs that stay at chance, which pays for it. The base model stays out of reach:
         a base-model step at batch 64 takes 161 ms at length 9, 291 ms at 17 and 565 ms
         at 33 (one thread), so 198 base runs of even 300 steps would take about 2.6 hours
         on 2 cores. Before 2026-12-05 the line used the small model (2 layers).
         Budgets, from the learning curves of ``python benchmarks/bench_quick_budget.py``
         (small model, lr 2e-3, cap 2000 steps, evaluation every 100 steps on 512 fresh
         instances; 2026-12-04): majority (15, 31), index (16, 32), khop k=1 and dyck k=1
         (16) reach 0.99 by step 100-200; parity, sparse_parity, index_parity (16) and
         reach_directed (8) stay near chance for all 2000 steps (best 0.53-0.56);
         dyck k=2 (16) reaches 0.83 at step 100 and then falls back to 0.44-0.55 (unstable
         at this learning rate; a lower one was not piloted); khop k=2 climbs slowly (0.94 at
         step 1000, 0.98 at 2000), khop k=3 more slowly (0.79, 0.85), binary_add n=8 (0.81,
         0.94). A cap of 1000 steps (5x what the easy tasks need) is therefore where the
         easy tasks are all learned and the hard ones visibly are not, while more steps
         would only move khop k=2 and binary_add towards the target; the budget forbids
         2000 (about 1.5 h for this line alone). Length generalization (mixed lengths
         <= 32, NoPE): majority and dyck k=1 reach 0.99 on the training lengths in 100-200
         steps; index (0.66 at 1000, 0.63 at 2000) and khop k=1 (0.87, 0.89) plateau, so
         the cap is 1000 there too; the base-size runs (0.53-0.54 s a step) get 200 steps
         at lr 1e-3 (majority: 0.99 at step 150; index 0.67 after 400) and 256 test
         instances per bin. Pilot wall time 535 s on 2 cores.
         Estimated from those step times: about 25 min in distribution and 20 min length
         generalization on 2 cores (2-layer); measured with 4 layers on 2026-12-05 on a
         quiet machine: 40 min and 22 min (docs/results-quick.md).
llm    - (``theorybench run llm``) smoke: every embedded model that is installed (SmolLM2,
         Gemma 3 270M; the packaged model file) on majority n = 5, parity n = 4 and index
         n = 8 (one n each since 2026-12-05, when the second model came: the main job stays
         short); 8-shot, 16 prompts per run (24 before 2026-12-05), log-likelihood of the
         allowed answers, seed 0, every core (the line runs alone, after the trained lines:
         on 2 cores 2 threads took 27 s where 1 took 45 s for Gemma on 48 prompts, measured
         2026-12-05).
         quick: majority, parity and index - the tasks the study's LLM finding reads
         (degrading on Majority and Index; few-shot success where trained models fail) - at
         their first three train_ns (accuracy against n per model), 100 prompts per n.
         Every family with a prompt entry would be 5,400 prompts per model, hours on 2
         cores; ``theorybench run llm --profile quick --task ...`` adds families.
         paper: every family with a prompt entry, train_ns extended up to n = 64, 200
         prompts, seeds 0, 1, 2. Families whose answer is a sequence (binary_add) are
         scored by greedy generation. Times: ``Profile.llm_expected_time``.
paper  - every family at its train_ns extended by doubling up to n = 256; base model;
         10000 steps max, lr 3e-4, eval every 250; fixed training sets 2^7 .. 2^14 besides
         online; the full 27-configuration grid (small/base/large x 9 encodings) for length
         generalization; seeds 0, 1, 2. Meant for a GPU or a cluster (Ray): on 2 CPU cores a
         base-model step at batch 64, length 64 takes about 0.35 s, i.e. months in total.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

from .. import tasks
from ..errors import ConfigError, TaskParameterError
from .data import NEXT_SYMBOL
from .lines import IN_DISTRIBUTION, LENGTH_GENERALIZATION
from .llm.evaluate import LLMSpec
from .llm.prompts import load_prompts
from .model import GRID_SIZES
from .positional import ENCODINGS
from .spec import DEFAULT_BINS, LINES, RunSpec
from .trainer import TrainingConfig


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    expected_time: str
    in_tasks: tuple | None             # in-distribution task names (None = every family)
    lg_tasks: tuple | None             # length-generalization task names (None = every one)
    ns: dict = field(default_factory=dict)   # family -> explicit n list (in-distribution)
    ns_count: int | None = 3           # else the first ns_count of the family's train_ns
    max_n: int | None = None           # else train_ns extended by doubling up to max_n
    in_size: str = "small"
    in_encoding: str = "rope"
    in_training: TrainingConfig = TrainingConfig()
    in_lrs: tuple = ()                 # a learning-rate grid (else in_training.lr alone)
    protocol: str = "theorybench"      # the protocol its verdicts are read under
    train_sizes: tuple = ()            # fixed training-set sizes run besides online
    lg_sizes: tuple = ("small",)
    lg_encodings: tuple = ("nope",)
    lg_training: TrainingConfig = TrainingConfig()
    lg_extra: tuple = ()               # (size, encoding) pairs run besides the grid ...
    lg_extra_training: TrainingConfig | None = None  # ... with this budget (else lg_training)
    lg_seeds: tuple | None = None      # length-generalization seeds (None: ``seeds``)
    # more seeds for the configurations a finding reads: (task, encoding, seeds), every size
    lg_seeded: tuple = ()
    # next-symbol runs of languages beside the membership grid: (task, encoding, seeds) at
    # every lg size, trained with lg_next_training (else lg_training)
    lg_next_symbol: tuple = ()
    lg_next_training: TrainingConfig | None = None
    train_max_len: int = 32
    eval_bins: tuple = DEFAULT_BINS
    seeds: tuple = (0,)
    threads: int | None = None         # torch threads per run (None: torch's default)
    # the llm line (few-shot prompting of pretrained models)
    llm_tasks: tuple | None = None     # None: every family with a prompt entry
    llm_ns: dict = field(default_factory=dict)  # family -> explicit n list
    llm_ns_count: int | None = 2       # else the first llm_ns_count of the train_ns ...
    llm_max_n: int | None = None       # ... or train_ns extended by doubling up to llm_max_n
    llm_k: int = 8                     # few-shot examples per prompt
    llm_count: int = 100               # prompts (queries) per run
    llm_template: str = "plain"
    llm_order: str = "balanced"
    llm_seeds: tuple = (0,)
    llm_threads: int | None = None     # torch threads of the local backend (None: default)
    llm_expected_time: str = ""


_SMOKE_TRAIN = TrainingConfig(steps=400, batch_size=64, lr=2e-3, warmup=40, eval_every=50,
                              eval_count=256, target=0.99, final_eval_count=1024,
                              plateau=100, plateau_tol=0.01)
_SMOKE_LG_TRAIN = TrainingConfig(steps=400, batch_size=64, lr=2e-3, warmup=40, eval_every=50,
                                 eval_count=256, target=0.99, final_eval_count=512,
                                 plateau=100, plateau_tol=0.01)
_QUICK_TRAIN = TrainingConfig(steps=1000, batch_size=64, lr=2e-3, warmup=50, eval_every=100,
                              eval_count=512, target=0.99, final_eval_count=2048,
                              plateau=200, plateau_tol=0.01)
_QUICK_LG_TRAIN = TrainingConfig(steps=1000, batch_size=64, lr=2e-3, warmup=50, eval_every=100,
                                 eval_count=512, target=0.99, final_eval_count=512,
                                 plateau=200, plateau_tol=0.01)
#: Next-symbol runs of Dyck-1 (the papers' objective): lr 1e-3 (2e-3 at width 64 was not
#: piloted; 1e-3 at 1,500 steps fitted every seed in the reproduction probes), early stop
#: at 100 % per string on the training lengths, checked every 500 steps.
_QUICK_LG_NEXT = TrainingConfig(steps=1500, batch_size=64, lr=1e-3, warmup=100,
                                eval_every=500, eval_count=256, target=1.0,
                                final_eval_count=512)
_QUICK_LG_BASE = TrainingConfig(steps=200, batch_size=64, lr=1e-3, warmup=20, eval_every=50,
                                eval_count=256, target=0.99, final_eval_count=256)
#: The quick profile's task variants: every family, khop with k = 1, 2, 3, dyck with k = 1, 2.
_QUICK_TASKS = tuple(t for f in tasks.families() for t in (
    ("khop:k=1", "khop:k=2", "khop:k=3") if f == "khop" else
    ("dyck:k=1", "dyck:k=2") if f == "dyck" else (f,)))
_PAPER_TRAIN = TrainingConfig(steps=10000, batch_size=64, lr=3e-4, warmup=500,
                              eval_every=250, eval_count=1024, target=0.99,
                              final_eval_count=4096)

PROFILES: dict[str, Profile] = {
    "smoke": Profile(
        name="smoke", description="every task at its smallest n, small model; length "
        "generalization on 5 tasks x 3 encodings",
        expected_time="about 4-5 minutes for both trained lines, both embedded llms and "
                      "the report on 2 CPU cores (measured on a fresh clone at 617edb8, "
                      "2026-12-05: `theorybench verify --profile smoke` 261 s - predictions "
                      "31 s, trained lines 42 + 59 s, llm line 107 s with both models' first "
                      "loads, report 19 s)",
        in_tasks=None, lg_tasks=("any", "majority", "parity", "index", "dyck"),
        ns={"any": (8, 16), "all": (8, 16), "majority": (7, 15), "parity": (8, 16),
            "index": (8, 16)},
        ns_count=1, in_training=_SMOKE_TRAIN, lg_encodings=("nope", "alibi", "learned_offsets"),
        lg_training=_SMOKE_LG_TRAIN, threads=1,
        llm_tasks=("majority", "parity", "index"),
        llm_ns={"majority": (5,), "parity": (4,), "index": (8,)}, llm_k=8,
        llm_count=16, llm_threads=None,
        llm_expected_time="about 1-2 minutes per installed model on 2 CPU cores (measured "
                          "2026-12-05 at load average ~3.5 with n = 5, 9 / 4, 8 / 4, 8: Gemma "
                          "3 270M 6 runs in 151 s, 0.9-1.3 prompts/s, 7 s load from the "
                          "cache; the first load dequantises, 30-40 s; one n per task halves "
                          "that)"),
    "quick": Profile(
        name="quick", description="every task variant at 3 n x 3 seeds; length "
        "generalization on 6 tasks x 9 encodings (and base-size NoPE, RoPE)",
        expected_time="about 67 minutes on 2 CPU cores (measured 2026-12-05 on a quiet "
                      "machine: verify 4,002 s wall - predictions 28 s, in distribution "
                      "2,375 s, length generalization 1,346 s, report 250 s; "
                      "docs/results-quick.md; since 2026-12-06 the length line has 86 runs, "
                      "2,434 s measured with the test suite sharing the 2 cores)",
        in_tasks=_QUICK_TASKS,
        lg_tasks=("majority", "parity", "index", "khop:k=1", "dyck:k=1", "dyck_bounded"),
        ns_count=3, in_size="deep", in_training=_QUICK_TRAIN, seeds=(0, 1, 2), lg_seeds=(0,),
        lg_seeded=(("dyck:k=1", "nope", (0, 1, 2)), ("khop", "rope", (0, 1, 2)),
                   ("khop", "nope", (0, 1, 2)), ("khop", "learned_offsets", (0, 1, 2))),
        lg_next_symbol=(("dyck:k=1", "nope", (0, 1, 2)),
                        ("dyck:k=1", "learned_offsets", (0, 1, 2))),
        lg_next_training=_QUICK_LG_NEXT,
        lg_encodings=tuple(ENCODINGS), lg_training=_QUICK_LG_TRAIN,
        lg_extra=(("base", "nope"), ("base", "rope")), lg_extra_training=_QUICK_LG_BASE,
        llm_tasks=("majority", "parity", "index"), llm_ns_count=3, llm_count=100,
        llm_expected_time="900 prompts per model (majority, parity, index at 3 n each, 100 "
                          "prompts per n): about 10-20 minutes per model on 2 CPU cores at "
                          "1-4 prompts/s (estimated from the smoke line's rates)"),
    "paper": Profile(
        name="paper", description="base model, n up to 256, the full 27-configuration grid",
        expected_time="days on one GPU; use --executor ray on a cluster",
        in_tasks=None, lg_tasks=None, ns_count=None, max_n=256, in_size="base",
        in_training=_PAPER_TRAIN, train_sizes=tuple(2 ** k for k in range(7, 15)),
        lg_sizes=GRID_SIZES, lg_encodings=tuple(ENCODINGS), lg_training=_PAPER_TRAIN,
        seeds=(0, 1, 2), llm_ns_count=None, llm_max_n=64, llm_count=200, llm_seeds=(0, 1, 2),
        llm_expected_time="tens of thousands of prompts per model: hours to days on CPU; "
                          "use a GPU or HTTP endpoints (estimated)"),
}


def get_profile(name: str) -> Profile:
    if name not in PROFILES:
        raise ConfigError(f"unknown profile {name!r}; known profiles: {', '.join(PROFILES)}")
    return PROFILES[name]


def parse_task(text: str) -> tuple[str, dict]:
    """``"khop:k=2"`` -> ("khop", {"k": 2}) in the task syntax every command shares."""
    try:
        return tasks.parse_task(text)
    except TaskParameterError as exc:
        raise ConfigError(str(exc)) from None


def profile_tasks(profile: Profile | str, line: str, names: Sequence[str] | None = None):
    """[(family, params), ...] of a line: ``names`` if given, else the profile's list."""
    profile = get_profile(profile) if isinstance(profile, str) else profile
    if names:
        try:
            return tasks.parse_task_list(names)
        except TaskParameterError as exc:
            raise ConfigError(str(exc)) from None
    chosen = profile.in_tasks if line == IN_DISTRIBUTION else profile.lg_tasks
    if chosen is None:
        chosen = tuple(tasks.families())
    return [parse_task(t) for t in chosen]


def _valid(family: str, params: dict, n: int) -> bool:
    try:
        tasks.get(family, n=n, **params)
        return True
    except TaskParameterError:
        return False


def profile_ns(profile: Profile | str, family: str, params: dict | None = None) -> list[int]:
    """The in-distribution sizes of ``family`` under ``profile``."""
    profile = get_profile(profile) if isinstance(profile, str) else profile
    params = params or {}
    if family in profile.ns:
        return list(profile.ns[family])
    ns = list(tasks.family(family).train_ns)
    if profile.max_n:
        while ns and ns[-1] * 2 <= profile.max_n + 1:
            nxt = ns[-1] * 2
            nxt = next((m for m in (nxt, nxt + 1, nxt - 1) if _valid(family, params, m)), None)
            if nxt is None or nxt > profile.max_n:
                break
            ns.append(nxt)
    if profile.ns_count:
        ns = ns[:profile.ns_count]
    return [n for n in ns if _valid(family, params, n)]


def in_trainings(profile: Profile) -> list[TrainingConfig]:
    """The in-distribution training configurations: one per rate of the learning-rate grid
    (the matrix pools seeds per rate and lets the best rate decide)."""
    rates = tuple(dict.fromkeys(profile.in_lrs)) or (profile.in_training.lr,)
    return [dataclasses.replace(profile.in_training, lr=lr) for lr in rates]


def expand(line: str, profile: Profile | str = "smoke", task_names: Sequence[str] | None = None,
           seeds: Sequence[int] | None = None) -> list[RunSpec]:
    """Every run spec of ``line`` under ``profile`` (optionally other tasks / seeds)."""
    if line not in LINES:
        raise ConfigError(f"unknown experiment line {line!r}; lines: {', '.join(LINES)}")
    profile = get_profile(profile) if isinstance(profile, str) else profile
    chosen = tuple(seeds) if seeds else None
    if not seeds:
        seeds = (profile.lg_seeds if line == LENGTH_GENERALIZATION and profile.lg_seeds
                 else profile.seeds)
    specs = []
    for family, params in profile_tasks(profile, line, task_names):
        items = tuple(sorted(params.items()))
        if line == IN_DISTRIBUTION:
            for seed in seeds:
                for n in profile_ns(profile, family, params):
                    for size in (None,) + tuple(profile.train_sizes):
                        for training in in_trainings(profile):
                            specs.append(RunSpec(line, family, items, n=n,
                                                 size=profile.in_size,
                                                 encoding=profile.in_encoding,
                                                 training=training, seed=seed,
                                                 train_size=size))
            continue
        grid = [(size, enc, profile.lg_training) for size in profile.lg_sizes
                for enc in profile.lg_encodings]
        grid += [(size, enc, profile.lg_extra_training or profile.lg_training)
                 for size, enc in profile.lg_extra if size not in profile.lg_sizes
                 or enc not in profile.lg_encodings]
        label = tasks.task_label(family, params)
        for seed in seeds:
            for size, enc, training in grid:
                specs.append(RunSpec(line, family, items, train_max_len=profile.train_max_len,
                                     eval_bins=profile.eval_bins, size=size, encoding=enc,
                                     training=training, seed=seed))
        if chosen is None:   # the profile's extra seeds for the configurations findings read
            for task, enc, more in profile.lg_seeded:
                if task != label:
                    continue
                for seed in (s for s in more if s not in seeds):
                    for size, e, training in grid:
                        if e == enc:
                            specs.append(RunSpec(line, family, items,
                                                 train_max_len=profile.train_max_len,
                                                 eval_bins=profile.eval_bins, size=size,
                                                 encoding=e, training=training, seed=seed))
        for task, enc, more in profile.lg_next_symbol:
            if task != label:
                continue
            for seed in (seeds if chosen is not None else more):
                for size in profile.lg_sizes:
                    specs.append(RunSpec(line, family, items,
                                         train_max_len=profile.train_max_len,
                                         eval_bins=profile.eval_bins, size=size, encoding=enc,
                                         training=profile.lg_next_training
                                         or profile.lg_training,
                                         seed=seed, objective=NEXT_SYMBOL))
    return specs


# ---- the llm line ----------------------------------------------------------------------
def llm_tasks(profile: Profile | str, names: Sequence[str] | None = None,
              prompts: str | None = None) -> tuple[list, list[str]]:
    """([(family, params), ...], [families left out: no prompt entry]) of the llm line."""
    profile = get_profile(profile) if isinstance(profile, str) else profile
    have = load_prompts(prompts).families
    if names:
        try:
            chosen = tasks.parse_task_list(names)
        except TaskParameterError as exc:
            raise ConfigError(str(exc)) from None
        missing = [f for f, _ in chosen if f not in have]
        if missing:
            raise ConfigError(f"no prompt for {', '.join(missing)} in the prompt file; add "
                              f"an entry under \"families\" (families with prompts: "
                              f"{', '.join(have)})")
        return chosen, []
    names = profile.llm_tasks if profile.llm_tasks is not None else tuple(tasks.families())
    chosen = [parse_task(t) for t in names]
    return [t for t in chosen if t[0] in have], [f for f, _ in chosen if f not in have]


def llm_ns(profile: Profile | str, family: str, params: dict | None = None) -> list[int]:
    """The sizes of ``family`` in the llm line under ``profile``."""
    profile = get_profile(profile) if isinstance(profile, str) else profile
    params = params or {}
    if family in profile.llm_ns:
        return [n for n in profile.llm_ns[family] if _valid(family, params, n)]
    view = Profile(profile.name, "", "", None, None, ns_count=profile.llm_ns_count,
                   max_n=profile.llm_max_n)
    return profile_ns(view, family, params)


def expand_llm(profile: Profile | str, models: dict, task_names: Sequence[str] | None = None,
               seeds: Sequence[int] | None = None, prompts: str | None = None) -> list:
    """Every run spec (``LLMSpec``) of the llm line: each model of ``models`` (name ->
    ModelConfig) x task x n x seed; log-likelihood scoring where the family has a list of
    allowed answers, greedy generation where its answer is a sequence (binary_add)."""
    profile = get_profile(profile) if isinstance(profile, str) else profile
    if not models:
        raise ConfigError("the llm line needs at least one model (see --models)")
    fams = load_prompts(prompts).families
    seeds = tuple(seeds) if seeds else profile.llm_seeds
    chosen, _ = llm_tasks(profile, task_names, prompts)
    specs = []
    for model in models.values():
        for family, params in chosen:
            scoring = "generate" if fams[family]["answer"] == "sequence" else "loglik"
            items = tuple(sorted(params.items()))
            for n in llm_ns(profile, family, params):
                for seed in seeds:
                    specs.append(LLMSpec(family, n, model, items, k=profile.llm_k,
                                         template=profile.llm_template,
                                         order=profile.llm_order, seed=seed,
                                         count=profile.llm_count, scoring=scoring,
                                         prompts=prompts))
    return specs
