"""Member distributions of the next-symbol objective other than the default.

By default (:class:`~theorybench.experiments.data.TaskData`) a training or test string is
drawn by picking its length uniformly among the lengths of the range that have members and
then a member of that length uniformly. A paper's own data can be drawn quite differently,
and what a model must get right at three times the training length depends on it: a
protocol row may name a *sampler* instead, ``"name"`` or ``"name:key=value,..."``, which
draws whole strings with lengths in a range.

Samplers:

* ``huang_dn:depth=N`` - the D_N strings of Huang et al. (ICLR 2025)'s formal-language
  suite, drawn as their generator draws them (lacoco-lab/length_generalization,
  ``formal_lang_suite/generators/starfree_generator.py``, class ``D_nLanguage``, read at
  commit 24c8c29): a target length L = floor(0.75 * hi * (1 + 0.1 g)) with g standard
  normal; a D_k string of target L is a concatenation of blocks ``a D_{k-1} b``, each
  inner string with its own target floor(0.75 * L * (1 + 0.1 g)), appended until the
  string is at least L long (D_0 and a target <= 0: the empty string); a string whose
  length is outside [lo, hi] is drawn again. The strings come out as a few top-level
  blocks with long runs inside (``aabababab...bb``), not the uniform draw's many returns
  to depth 0. By default the strings are drawn afresh, repeats allowed.
* ``huang_dn:depth=N,distinct=M`` - the same generator as the authors' ``generate_list``
  runs it: a set of M distinct strings per length window, drawn once, where a draw that
  repeats an earlier string or falls outside the window counts as rejected and every
  20,000 rejections lower the 0.75 (in the outer and the inner targets) by 0.02, until
  the set is full or the ratio would fall below 0; the run then draws from that set,
  uniformly. This matters: at lengths up to 100 the plain draw of D_3 yields about 160
  distinct strings in 3,000, none shorter than 50, where the authors' 10,000 distinct
  training strings run from 2 to 100 letters (median 64). Each window's set is drawn from
  the generator of the first call at that window (the training stream's, or the test
  bins'), so the test strings of a bin are a set of their own, as the authors' are.

A sampler's strings are checked against the task's own prefix oracle (the run fails with
a message if one is not a member), so a sampler named for the wrong language cannot train
it silently.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import ConfigError

#: The most draws per string before a sampler gives up on a length range.
MAX_TRIES = 10_000


#: The authors' generate_list lowers its length ratio by RATIO_STEP after REJECTIONS
#: rejected draws (formal_lang_suite/generators/starfree_generator.py, D_nLanguage).
RATIO, RATIO_STEP, REJECTIONS = 0.75, 0.02, 20_000
#: The largest distinct set a sampler draws (a run holds it in memory).
MAX_DISTINCT = 1_000_000


def _dn_string(rng: np.random.Generator, depth: int, target: int, ratio: float = RATIO) -> str:
    # recursive and data-dependent in its lengths, so sequential by nature; a batch of 64
    # strings of length <= 150 takes about a millisecond
    if depth == 0 or target <= 0:
        return ""
    out = ""
    while len(out) < target:
        inner = int(target * ratio * (0.1 * rng.standard_normal() + 1))
        out += "a" + _dn_string(rng, depth - 1, inner, ratio) + "b"
    return out


def _dn_set(rng: np.random.Generator, depth: int, count: int, lo: int, hi: int) -> list[str]:
    """Up to ``count`` distinct D_depth strings of lengths lo..hi, drawn as the authors'
    generate_list draws them (see the module docstring)."""
    ratio, rejected, kept = RATIO, 0, {}
    while len(kept) < count:
        s = _dn_string(rng, depth, int(hi * ratio * (0.1 * rng.standard_normal() + 1)), ratio)
        if lo <= len(s) <= hi and s not in kept:
            kept[s] = None
            continue
        rejected += 1
        if rejected > REJECTIONS:
            rejected, ratio = 0, ratio - RATIO_STEP
            if ratio < 0:
                break
    return list(kept)


def huang_dn(depth: int, distinct: int = 0) -> Callable[[np.random.Generator, int, int], str]:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ConfigError(f"sampler huang_dn needs depth >= 1 (an integer), got {depth!r}")
    if not 0 <= distinct <= MAX_DISTINCT:
        raise ConfigError(f"sampler huang_dn: distinct={distinct} must lie in 0..{MAX_DISTINCT:,} "
                          f"(0: fresh draws, repeats allowed)")

    def fresh(rng: np.random.Generator, lo: int, hi: int) -> str:
        for _ in range(MAX_TRIES):
            target = int(hi * RATIO * (0.1 * rng.standard_normal() + 1))
            s = _dn_string(rng, depth, target)
            if lo <= len(s) <= hi:
                return s
        raise ConfigError(f"sampler huang_dn:depth={depth} drew no string of length "
                          f"{lo}..{hi} in {MAX_TRIES:,} tries; widen the length range")
    if not distinct:
        return fresh
    sets: dict[tuple[int, int], list[str]] = {}

    def from_set(rng: np.random.Generator, lo: int, hi: int) -> str:
        if (lo, hi) not in sets:
            drawn = _dn_set(rng, depth, distinct, lo, hi)
            if not drawn:
                raise ConfigError(f"sampler huang_dn:depth={depth},distinct={distinct} drew "
                                  f"no string of length {lo}..{hi}; widen the length range")
            sets[lo, hi] = drawn
        pool = sets[lo, hi]
        return pool[int(rng.integers(len(pool)))]
    return from_set


SAMPLERS: dict[str, Callable] = {"huang_dn": huang_dn}


def parse_sampler(text: str) -> tuple[str, dict]:
    """``"huang_dn:depth=3"`` -> ``("huang_dn", {"depth": 3})`` (integer values)."""
    name, _, rest = str(text).partition(":")
    if name not in SAMPLERS:
        raise ConfigError(f"unknown sampler {name!r}; samplers: {', '.join(SAMPLERS)} "
                          f"(or none: uniform over lengths, then over the members)")
    params = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        try:
            params[key.strip()] = int(value)
        except ValueError:
            raise ConfigError(f"sampler {text!r}: parameter {item!r} must be key=integer") from None
        if not eq:
            raise ConfigError(f"sampler {text!r}: parameter {item!r} must be key=integer")
    return name, params


def make_sampler(text: str) -> Callable[[np.random.Generator, int, int], str]:
    """The draw function ``draw(rng, lo, hi) -> str`` named by ``text``."""
    name, params = parse_sampler(text)
    try:
        return SAMPLERS[name](**params)
    except TypeError as exc:
        raise ConfigError(f"sampler {text!r}: {exc}") from None


def draw_members(draw: Callable, rng: np.random.Generator, count: int, lo: int, hi: int,
                 alphabet: tuple[str, ...]) -> list[np.ndarray]:
    """``count`` strings of ``draw`` as letter-id arrays over ``alphabet``."""
    ids = {c: i for i, c in enumerate(alphabet)}
    out = []
    for _ in range(count):
        s = draw(rng, lo, hi)
        try:
            out.append(np.fromiter((ids[c] for c in s), dtype=np.int64, count=len(s)))
        except KeyError as exc:
            raise ConfigError(f"the sampler drew the letter {exc.args[0]!r}, which is not in "
                              f"the task's alphabet {', '.join(alphabet)}") from None
    return out
