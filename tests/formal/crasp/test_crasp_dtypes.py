"""The interpreter's narrow dtypes and recycled buffers never change a value."""

import sys

import numpy as np
import pytest

from theorybench.formal import crasp
from theorybench.formal.crasp.interpret import (INT16_MAX, INT32_MAX, INT64_MAX, BufferPool,
                                                int_dtype)

HEAD = "// alphabet: 0 1\nones = # \"1\"\nzeros = # \"0\"\n"


def test_int_dtype_boundaries_are_exact():
    assert int_dtype(INT16_MAX) == np.int16 and int_dtype(INT16_MAX + 1) == np.int32
    assert int_dtype(INT32_MAX) == np.int32 and int_dtype(INT32_MAX + 1) == np.int64
    assert int_dtype(INT64_MAX) == np.int64 and int_dtype(INT64_MAX + 1) == object
    for bound in (INT16_MAX, INT32_MAX, INT64_MAX):
        dt = int_dtype(bound)
        assert np.iinfo(dt).max >= bound and np.iinfo(dt).min <= -bound


@pytest.mark.parametrize("factor", [1, 127, 128, 40000, 70000, 1 << 20, (1 << 40) + 3])
def test_scaled_counts_cross_every_width_and_match_naive(factor):
    # bounds cross int16 (2^15), int32 (2^31) and stay below int64 at length <= 30
    text = HEAD + (f"a = {factor} * ones - zeros\nb = a + a - {factor} * zeros\n"
                   f"c = b if a > {factor} else min(a, b)\nout = c > {factor} * 3\n")
    prog = crasp.parse(text)
    rng = np.random.default_rng(factor % 97)
    words = [[str(int(v)) for v in rng.integers(0, 2, size=int(rng.integers(1, 30)))]
             for _ in range(25)]
    r = crasp.run(prog, [" ".join(w) for w in words])
    for i, w in enumerate(words):
        want = crasp.naive_values(prog, w)
        for name in ("a", "b", "c"):
            assert r.values[name].dtype == np.int64
            assert r.values[name][i, : len(w) + 1].tolist() == [int(v) for v in want[name]]
    assert r.accept.tolist() == [crasp.naive_accepts(prog, w) for w in words]


def test_counts_past_int16_positions():
    # T > 2^15 - 1 positions: counts run in int32 and stay exact
    n = INT16_MAX + 10
    prog = crasp.parse(HEAD + "out = ones - zeros == 10 && ones > 16000 && ones + zeros > 32767\n")
    word = ["1"] * ((n + 10) // 2) + ["0"] * ((n - 10) // 2)
    r = crasp.run(prog, [" ".join(word)])
    assert r.values["ones"][0, len(word) - 1] == (n + 10) // 2
    assert r.accept.tolist() == [True]


def test_values_are_fresh_writable_int64_and_bool():
    prog = crasp.parse(HEAD + "k = 5\nt = true\nout = ones > k && t\n")
    r = crasp.run(prog, ["1 1 0", "0 1 1"])
    for name, dt in (("ones", np.int64), ("k", np.int64), ("t", bool), ("out", bool)):
        v = r.values[name]
        assert v.dtype == dt and v.flags.writeable and v.flags.c_contiguous and v.shape == (2, 4)
    assert r.values["k"].tolist() == [[5] * 4] * 2
    assert set(r.values) == {"ones", "zeros", "k", "t", "out"} and len(r.values) == 5


def test_pool_never_hands_out_a_buffer_in_use():
    pool = BufferPool(max_bytes=1 << 20, min_block=1)
    a = pool.empty((64, 64), np.int16)
    a[:] = 7
    part = a[3:5]          # a slice keeps the buffer busy
    view = memoryview(a)   # so does a memoryview
    del a
    b = pool.empty((64, 64), np.int16)
    b[:] = 9
    assert np.all(part == 7) and np.all(np.frombuffer(view, dtype=np.int16) == 7)
    del part, view
    c = pool.empty((64, 64), np.int16)   # now the first buffer is free again
    c[:] = 1
    assert np.all(b == 9)
    assert len(pool._blocks) == 2 and pool._held == 2 * 64 * 64 * 2


def test_pool_is_bounded_and_evicts_free_blocks():
    pool = BufferPool(max_bytes=3 * 4096, min_block=1)
    keep = [pool.empty((1024,), np.int32) for _ in range(3)]   # 4 KiB each: full
    extra = pool.empty((1024,), np.int32)                      # over the bound: plain array
    assert pool._held == 3 * 4096 and all(sys.getrefcount(b) >= 3 for b in pool._blocks)
    assert not any(extra.base is b for b in pool._blocks)
    del keep
    other = pool.empty((2048,), np.int32)                       # evicts free 4 KiB blocks
    assert pool._held <= 3 * 4096 and any(other.base is b for b in pool._blocks)


def test_runs_kept_alive_are_not_overwritten_by_later_runs():
    prog = crasp.parse(HEAD + "out = ones > zeros\n")
    interp = crasp.Interpreter(prog)
    rng = np.random.default_rng(3)
    ids1 = rng.integers(0, 2, size=(256, 200))
    ids2 = 1 - ids1
    r1 = interp.run(ids1, prog.alphabet)
    snap = {k: np.array(r1.values[k]) for k in r1.values}
    acc1 = r1.accept.copy()
    raw_before = r1.values.raw("ones").copy()
    for _ in range(3):
        interp.run(ids2, prog.alphabet)
    assert np.array_equal(r1.values.raw("ones"), raw_before)
    assert np.array_equal(r1.accept, acc1)
    for k, v in snap.items():
        assert np.array_equal(r1.values[k], v)
