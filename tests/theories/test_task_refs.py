"""Theories see tasks as values: a TaskRef per cell and the runner's universe, never a
task registry changed behind their back (issue 27)."""

import ast
import re
from pathlib import Path

from theorybench import tasks
from theorybench.tasks import TaskRef
from theorybench.theories.base import Basis, RuleSkip, Theory, rule
from theorybench.theories.runner import default_tasks, predict_matrix, predict_one

PACKAGE = Path(__file__).resolve().parents[2] / "theorybench"


def _probe_theory(seen):
    class Probe(Theory):
        name = "zz_probe"

        @rule("look", Basis.CONSTRUCTION)
        def look(self, family, ctx):
            seen.append((family, list(tasks.families()), ctx.universe,
                         tasks.get(family, n=8).values))
            return RuleSkip("a probe")

    return Probe


def test_rules_get_a_task_ref_and_the_registry_stays_as_it_is(monkeypatch):
    from theorybench.theories import registry

    seen = []
    real = registry.theories
    monkeypatch.setattr(registry, "theories", lambda: {**real(), "zz_probe": _probe_theory(seen)})
    before = list(tasks.families())
    predict_matrix(["zz_probe"], ["khop:k=2", "dyck:k=1"], progress=False)
    assert [str(f) for f, *_ in seen] == ["khop:k=2", "dyck:k=1"]
    for family, listed, universe, values in seen:
        assert isinstance(family, TaskRef)
        assert listed == before            # nothing registered while rules run
        assert list(universe) == default_tasks()
    assert seen[0][3]["k"] == 2 and seen[1][3]["k"] == 1


def test_one_cell_alone_sees_the_same_universe(monkeypatch):
    from theorybench.theories import registry

    seen = []
    probe = _probe_theory(seen)
    monkeypatch.setattr(registry, "theory", lambda name: probe())
    predict_one("zz_probe", "khop:k=3")
    assert seen[0][0] == "khop:k=3" and list(seen[0][2]) == default_tasks()


def test_no_module_writes_the_task_registry_and_the_framework_never_imports_the_runner():
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() != "tasks/registry.py":
            assert not re.search(r"(?<!\w)_FAMILIES\b", path.read_text()), path
    for name in ("base.py", "closures.py", "prediction.py", "universe.py"):
        tree = ast.parse((PACKAGE / "theories" / name).read_text())
        imported = {node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module}
        assert "runner" not in imported, name


def test_a_variant_that_fits_no_analysed_size_is_refused_with_its_sizes():
    import pytest

    from theorybench.errors import TaskParameterError
    from theorybench.theories.runner import resolve_families

    with pytest.raises(TaskParameterError, match="defined from n = 21 on"):
        resolve_families(["sparse_parity:k=20"])
    assert resolve_families(["khop:k=2", "khop:k=2", "khop:k=1"]) == ["khop:k=2", "khop"]
