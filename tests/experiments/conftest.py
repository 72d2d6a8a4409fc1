import pytest


@pytest.fixture(autouse=True)
def _one_thread(one_torch_thread):
    """Training tests share 2 cores with other work; one torch thread is faster and stabler."""
    yield
