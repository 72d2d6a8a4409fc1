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
  to depth 0. Left out: the authors keep a fixed set of distinct strings (200 for
  training, 25 per test bin) and lower the 0.75 after 20,000 rejected draws; ours are
  drawn afresh, repeats allowed.

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


def _dn_string(rng: np.random.Generator, depth: int, target: int) -> str:
    # recursive and data-dependent in its lengths, so sequential by nature; a batch of 64
    # strings of length <= 150 takes about a millisecond
    if depth == 0 or target <= 0:
        return ""
    out = ""
    while len(out) < target:
        inner = int(target * 0.75 * (0.1 * rng.standard_normal() + 1))
        out += "a" + _dn_string(rng, depth - 1, inner) + "b"
    return out


def huang_dn(depth: int) -> Callable[[np.random.Generator, int, int], str]:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ConfigError(f"sampler huang_dn needs depth >= 1 (an integer), got {depth!r}")

    def draw(rng: np.random.Generator, lo: int, hi: int) -> str:
        for _ in range(MAX_TRIES):
            target = int(hi * 0.75 * (0.1 * rng.standard_normal() + 1))
            s = _dn_string(rng, depth, target)
            if lo <= len(s) <= hi:
                return s
        raise ConfigError(f"sampler huang_dn:depth={depth} drew no string of length "
                          f"{lo}..{hi} in {MAX_TRIES:,} tries; widen the length range")
    return draw


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
