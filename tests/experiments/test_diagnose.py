"""Set-error profiles of next-symbol models, on logits built by hand."""

import pytest
import torch

from theorybench.errors import ConfigError
from theorybench.experiments.data import IGNORE, NEXT_SET, NEXT_SYMBOL
from theorybench.experiments.diagnose import predicted_sets, set_errors

SYMBOLS = ("(", ")", "<eos>")


def per_symbol_logits(sets: torch.Tensor) -> torch.Tensor:
    """Logits that predict exactly ``sets`` (bitmasks) under the per-symbol read-out."""
    bits = (sets.clamp(min=0).unsqueeze(-1) >> torch.arange(3)) & 1
    return bits.float() * 10 - 5


def test_a_systematic_mistake_is_named_with_its_positions():
    # three strings of 4 positions; the second misses "end allowed" at its last position,
    # the third adds ")" at position 1
    tgt = torch.tensor([[0b101, 0b011, 0b011, 0b101],
                        [0b101, 0b011, 0b011, 0b101],
                        [0b101, 0b101, 0b011, IGNORE]])
    pred = tgt.clone()
    pred[1, 3] = 0b001
    pred[2, 1] = 0b111
    prof = set_errors(per_symbol_logits(pred), tgt, NEXT_SYMBOL, SYMBOLS, edges=(1,))
    assert prof["strings"] == 3 and prof["strings_right"] == pytest.approx(1 / 3)
    assert prof["ranges"] == ["0-1", "2-3"]
    assert prof["position_error"] == [pytest.approx(1 / 6), pytest.approx(1 / 5)]
    assert prof["first_error"] == [0.5, 0.5]
    assert {(a, b) for a, b, _ in prof["confusions"]} == {("{(,<eos>}", "{(}"),
                                                          ("{(,<eos>}", "{(,),<eos>}")}
    assert prof["symbols"]["<eos>"] == {"missed": 1, "added": 0}
    assert prof["symbols"][")"] == {"missed": 0, "added": 1}


def test_set_classes_are_read_by_their_argmax():
    tgt = torch.tensor([[5, 3]])
    logits = torch.zeros(1, 2, 8)
    logits[0, 0, 5] = 1.0
    logits[0, 1, 7] = 1.0
    assert predicted_sets(logits, NEXT_SET).tolist() == [[5, 7]]
    prof = set_errors(logits, tgt, NEXT_SET, SYMBOLS)
    assert prof["strings_right"] == 0.0 and prof["symbols"]["<eos>"]["added"] == 1
    with pytest.raises(ConfigError, match="next-symbol"):
        predicted_sets(logits, "final")
