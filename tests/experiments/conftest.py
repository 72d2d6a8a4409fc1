import pytest
import torch


@pytest.fixture(autouse=True)
def _one_thread():
    """Tests share 2 cores with other work; one torch thread is both faster and stabler."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)
