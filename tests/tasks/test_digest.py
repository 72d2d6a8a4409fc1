"""A task's identity (tasks.digest): the definition digest follows the code that defines a
family, not its comments or docstrings, and canonical parameters make one spelling of a
variant."""

from __future__ import annotations

import importlib
import re
import sys

import pytest

from theorybench import tasks
from theorybench.errors import TaskParameterError
from theorybench.tasks.digest import canonical_params, definition_digest, task_identity

USER_TASK = '''"""A user family for the digest test."""
from theorybench.tasks.bits import N_PARAM, BitTask


class Mine(BitTask):
    """Parity, as a user would write it."""
    name = "mine_digest_test"
    kind = "boolean"
    params = (N_PARAM,)

    def function(self, x):
        return x.sum(axis=1) % 2
'''


def test_every_family_has_its_own_stable_digest():
    got = {name: definition_digest(name) for name in tasks.families()}
    assert all(re.fullmatch(r"[0-9a-f]{16}", d) for d in got.values())
    assert len(set(got.values())) == len(got)  # no two families share a definition
    assert definition_digest("parity") == definition_digest(tasks.family("parity"))
    with pytest.raises(TaskParameterError, match="unknown task"):
        definition_digest("parityy")


def test_shared_helpers_are_part_of_the_definition():
    from theorybench.tasks.digest import _modules

    dyck = _modules(tasks.family("dyck"))
    assert "theorybench.tasks.dyck.common" in dyck and "theorybench.tasks.base" in dyck
    assert not any(m.endswith((".registry", ".spec", ".digest")) for m in dyck)


def test_canonical_params_fill_defaults_and_keep_unknown_names():
    k_default = next(p.default for p in tasks.family("khop").params if p.name == "k")
    assert canonical_params("khop", {}) == canonical_params("khop", {"k": k_default})
    assert canonical_params("khop", {"k": k_default + 1}) != canonical_params("khop", {})
    assert canonical_params("khop", {"n": 8}) == canonical_params("khop", {})  # n: the size
    assert canonical_params("parity", {"bogus": 1}) == {"bogus": 1}
    ident = task_identity("khop", {"k": 2})
    assert ident["family"] == "khop" and ident["params"]["k"] == 2
    assert ident["digest"] == definition_digest("khop")


def _load(tmp_path, text: str):
    (tmp_path / "tb_digest_user.py").write_text(text)
    if "tb_digest_user" in sys.modules:
        return importlib.reload(sys.modules["tb_digest_user"]).Mine
    return importlib.import_module("tb_digest_user").Mine


def test_digest_ignores_comments_and_docstrings_but_not_code(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tb_digest_user", raising=False)
    first = definition_digest(_load(tmp_path, USER_TASK))
    reworded = USER_TASK.replace('"""Parity, as a user would write it."""',
                                 '"""Parity (reworded)."""  # a comment')
    assert definition_digest(_load(tmp_path, reworded + "\n# trailing note\n")) == first
    changed = USER_TASK.replace("% 2", "% 3")
    assert definition_digest(_load(tmp_path, changed)) != first
