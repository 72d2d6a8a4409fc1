"""fork_map: the same list as a loop, in order, whatever the number of processes."""

import os

import pytest

from theorybench import parallel
from theorybench.errors import ConfigError


def _square_and_pid(x):
    return x * x, os.getpid()


def _nested(x):
    # a job that itself maps: runs inside its worker, not in a new pool
    return [v for v, _ in parallel.fork_map(_square_and_pid, [x, x + 1], workers=2)]


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                    reason="no fork on this platform")
def test_results_come_back_in_order_from_other_processes():
    seen = []
    out = parallel.fork_map(_square_and_pid, range(12), workers=2,
                            on_result=lambda i, v: seen.append(i))
    assert [v for v, _ in out] == [i * i for i in range(12)]
    assert sorted(seen) == list(range(12))
    assert os.getpid() not in {pid for _, pid in out}
    assert parallel.fork_map(_nested, [1, 3], workers=2) == [[1, 4], [9, 16]]


def test_one_worker_runs_here_and_bad_counts_are_refused():
    out = parallel.fork_map(_square_and_pid, [2, 3], workers=1)
    assert out == [(4, os.getpid()), (9, os.getpid())]
    assert parallel.fork_map(_square_and_pid, [], workers=None) == []
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ConfigError, match="workers"):
            parallel.workers_for(bad, 3)
    assert parallel.workers_for(8, 3) == 3
    assert 1 <= parallel.workers_for(None, 100) <= parallel.DEFAULT_CAP
