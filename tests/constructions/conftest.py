"""Every construction test runs torch on one thread (small models: threads only contend
on the shared two-core machine)."""

import pytest


@pytest.fixture(autouse=True)
def _one_thread(one_torch_thread):
    yield
