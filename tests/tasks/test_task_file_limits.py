"""A task file's label misbehaving after it passed the load check (issue 43, item 5): one
that hangs on big batches is stopped by the per-call time limit (with its line, and every
later call fails at once), the limit is configurable, and it leaves an outer timer (a
test's cap) alone. The commands' side is in tests/cli/test_hostile_inputs.py."""

from __future__ import annotations

import signal
import textwrap
import time

import numpy as np
import pytest

from theorybench.errors import TaskFileError
from theorybench.tasks import registry
from theorybench.tasks.user import load_family
from theorybench.tasks.user_checks import LIMIT_ENV, call_limit_s, full_check, time_limit

HEAD = 'NAME = "tiny"\nALPHABET = ("a", "b")\nLENGTHS = (2, 8)\n'
#: Passes the load check (batches of 35 rows), hangs on a batch of more than 1,000 rows.
HANGS = HEAD + textwrap.dedent("""
    import time
    def label(x):
        if len(x) > 1000:
            time.sleep(600)
        return x[:, 0] == x[:, -1]
    """)


@pytest.fixture(autouse=True)
def isolated(monkeypatch):
    monkeypatch.setenv(registry.ENV, "")
    with registry.FAMILIES.scoped():
        yield


def _family(tmp_path, text):
    path = tmp_path / "t.py"
    path.write_text(text)
    return load_family(path)


def test_a_hanging_label_is_stopped_with_its_line_and_stays_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, "0.5")
    cls = _family(tmp_path, HANGS)                       # the load check passes
    t0 = time.monotonic()
    with pytest.raises(TaskFileError, match=r"t\.py:8: label ran for more than 0\.5 s on an "
                       r"input of shape \(2003, 2\).*THEORYBENCH_CALL_LIMIT_S"):
        full_check(cls, np.random.default_rng(0), 2000)
    assert time.monotonic() - t0 < 5
    t0 = time.monotonic()                                # a later call fails at once
    with pytest.raises(TaskFileError, match="ran for more than 0.5 s"):
        cls(n=4).label(np.zeros((3, 4), dtype=np.int64))
    assert time.monotonic() - t0 < 0.2


def test_the_limit_is_checked_and_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, "0")
    assert call_limit_s() == 0
    monkeypatch.setenv(LIMIT_ENV, "soon")
    with pytest.raises(Exception, match="THEORYBENCH_CALL_LIMIT_S='soon' is not a number"):
        call_limit_s()


def test_an_outer_timer_is_left_alone_and_put_back():
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)       # fires before the limit: stands
        with time_limit(10):
            time.sleep(0.1)
        assert fired == [1]
        signal.setitimer(signal.ITIMER_REAL, 0.3)        # fires after the limit: put back
        with time_limit(0.1):
            time.sleep(0.01)
        assert signal.getsignal(signal.SIGALRM) is not None and fired == [1]
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < left < 0.3
        time.sleep(0.35)
        assert fired == [1, 1]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)



def test_an_import_that_hangs_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv(LIMIT_ENV, "0.5")
    path = tmp_path / "t.py"
    path.write_text(HEAD + "while True:\n    pass\n")
    with pytest.raises(Exception, match=r"t\.py:[45]: importing the task file failed: ran for "
                       r"more than 0\.5 s and was stopped"):
        load_family(path)


def test_a_ragged_sample_is_a_message(tmp_path):
    cls = _family(tmp_path, HEAD + "def sample(rng, count, n):\n    return [[0] * n, [0]]\n"
                  "def label(x):\n    return x[:, 0]\n")
    with pytest.raises(TaskFileError, match=r"t\.py:4: sample\(rng, 3, 4\) must return an int "
                       r"array of shape \(3, 4\) .*got object \(2,\)"):
        cls(n=4).sample(np.random.default_rng(0), 3)
