"""The experiment-line registry: one declared name per line, in report order."""

import pytest

from theorybench.errors import ConfigError
from theorybench.experiments.lines import (IN_DISTRIBUTION, LENGTH_GENERALIZATION, LINES, LLM,
                                           trained_lines)
from theorybench.matrix import empirical


def test_lines_in_report_order_and_the_trained_ones():
    assert LINES.names() == [IN_DISTRIBUTION, LENGTH_GENERALIZATION, LLM]
    assert trained_lines() == (IN_DISTRIBUTION, LENGTH_GENERALIZATION)
    assert empirical.LINES == tuple(LINES.names())


def test_a_training_line_names_its_runner_and_llm_has_none():
    assert LINES.get(IN_DISTRIBUTION).runner().__name__.endswith(".in_distribution")
    assert callable(LINES.get(LENGTH_GENERALIZATION).runner().run)
    with pytest.raises(TypeError, match="no training runner"):
        LINES.get(LLM).runner()


def test_an_unknown_line_gets_a_hint():
    with pytest.raises(ConfigError, match="did you mean length_generalization"):
        LINES.get("length_generalisation")
