"""Rows of the matrix are spelled as tasks are everywhere (``khop:k=2``, issue 27)."""

import pytest

from theorybench.matrix.empirical import cell_name, row_name
from theorybench.tasks import TaskRef


@pytest.mark.parametrize("spec, name", [
    ({"task": "khop", "params": {"k": 2, "n": 16}}, "khop:k=2"),
    ({"task": "khop", "params": {"k": 1}}, "khop"),
    ({"task": "dyck", "params": {"k": 1}}, "dyck:k=1"),
    ({"task": "sparse_parity", "params": {"positions": "1,5,9"}},
     "sparse_parity:positions=[1,5,9]"),
    ({"task": "no_such_family", "params": {"a": 1}}, "no_such_family:a=1"),
])
def test_runs_are_named_by_the_task_spelling(spec, name):
    assert cell_name(spec) == name
    if not name.startswith("no_such"):
        assert TaskRef.parse(name) == name  # a row name is a task the CLI takes


@pytest.mark.parametrize("text, name", [
    ("khop:k=2", "khop:k=2"), ("khop[k=2]", "khop:k=2"), ("dyck[k=1]", "dyck:k=1"),
    ("khop:k=1", "khop"), ("parity", "parity"), ("no_such:x=1", "no_such:x=1")])
def test_predictions_and_older_files_meet_in_one_row(text, name):
    assert row_name(text) == name


def test_the_sharpness_figure_draws_one_line_per_variant(tmp_path, monkeypatch):
    from theorybench.matrix import sharpness_plot

    labels = []
    monkeypatch.setattr(sharpness_plot, "save_figure", lambda fig, path: labels.extend(
        t.get_text() for t in fig.axes[1].get_legend().get_texts()))
    row = {"state": "trained", "lambda_max": 1.0, "avg_sharpness": 0.1,
           "avg_sharpness_se": 0.01, "accuracy": 1.0}
    rows = [dict(row, task="khop", params={"k": k}, n=n) for k in (2, 3) for n in (8, 16)]
    sharpness_plot.sharpness_vs_n(tmp_path / "s.png", rows)
    assert labels == ["khop:k=2 (trained)", "khop:k=3 (trained)"]
