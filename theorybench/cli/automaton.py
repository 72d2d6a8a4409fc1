"""`theorybench automaton TASK --n N`: the learned minimal automaton of a task's language.

Prints its size, whether its transition monoid is aperiodic (star-free) and, if not, a
word w and a state whose cycle under w proves it.  Without an automaton at this bound the
outcome is NONREGULAR only with a proof (a pumping family checked against the reference,
:mod:`theorybench.formal.automata.nonregular`), else INCONCLUSIVE at this bound; the
residual-class counts are printed either way, as description.  N is the check bound: the automaton is learned from words up to
length N - 2 and checked against the reference on all words up to length N.
"""

from __future__ import annotations

from ..errors import TaskParameterError
from ..formal import automata
from ..formal.language import language_view
from .common import parse_params, print_json


def register(sub) -> None:
    p = sub.add_parser("automaton", help="learn a task's minimal DFA; aperiodic or not")
    p.add_argument("task", help="task: FAMILY or FAMILY:K=V[:K=V] (its alphabet must not "
                   "grow with n)")
    p.add_argument("--n", type=int, default=None,
                   help="check bound: all words up to this length (default: the largest "
                        "feasible, at most 16)")
    p.add_argument("--param", action="append", metavar="K=V",
                   help="deprecated: write the task as FAMILY:K=V instead")
    p.add_argument("--monoid-limit", type=int, default=automata.MONOID_LIMIT,
                   help=f"most transition-monoid elements to build (default "
                        f"{automata.MONOID_LIMIT})")
    p.add_argument("--table", action="store_true", help="print the transition table")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: the whole result (with the transition table) as one object")
    p.set_defaults(func=cmd_automaton)


def cmd_automaton(args) -> int:
    params = parse_params(args.param)
    view = language_view(args.task, params)
    if args.n is not None and args.n < 2:
        raise TaskParameterError(f"--n {args.n}: use a check bound of at least 2")
    res = automata.learn_view(view, None, args.n)
    if args.format == "json":
        return _json(res, view, args.monoid_limit)
    print(f"task {args.task}  alphabet {' '.join(view.alphabet)}  "
          f"(learned from words up to length {res.learn_len}, checked up to {res.check_len})")
    g = res.growth
    print("residual classes by bound m: "
          + ", ".join(f"m={m}: {c}" for m, c in zip(g["m"], g["classes"])))
    if res.status == "nonregular":
        print(f"NONREGULAR (proved by a pumping family checked on words up to length "
              f"{res.certificate['verified_up_to']}): {res.reason}")
        return 0
    if res.status != "regular":
        print(f"INCONCLUSIVE at this bound (neither a checked automaton nor a proof of "
              f"non-regularity; no lower bound follows): {res.reason}")
        return 0
    dfa = res.dfa
    print(f"minimal automaton: {dfa.size} states (checked on all words up to length "
          f"{res.check_len})")
    if args.table:
        print(dfa.render())
    aper, wit = automata.aperiodicity(dfa, args.monoid_limit, view=view)
    if aper:
        print("aperiodic: yes - every element m of the transition monoid has m^k = m^(k+1); "
              "the language is star-free")
        return 0
    print("aperiodic: no - the transition monoid contains a group")
    print(f"  word w = {wit['word']}")
    print(f"  state {wit['state']} (reached by {wit['access']}) cycles under w through "
          f"states {' -> '.join(map(str, wit['cycle']))} -> {wit['cycle'][0]} "
          f"(period {wit['period']})")
    print(f"  suffix z = {wit['suffix']} tells the cycle's states apart: outputs of "
          f"u w^i z for i = 0, 1, ...: {wit['outputs_u_w^i_z']}"
          + ("" if wit.get("reference_agrees", True) else " (reference disagrees!)"))
    return 0


def _json(res, view, monoid_limit: int) -> int:
    out = res.to_dict()
    out["alphabet"] = list(view.alphabet)
    if res.status == "regular":
        out["dfa"] = res.dfa.to_dict()
        aper, wit = automata.aperiodicity(res.dfa, monoid_limit, view=view)
        out["aperiodic"] = bool(aper)
        out["witness"] = None if aper else wit
    print_json(out)
    return 0
