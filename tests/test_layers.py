"""The import direction of ``theorybench/__init__.py``, checked on every module's imports
(module level and inside functions alike)."""

from __future__ import annotations

import ast
import pathlib
import shutil

import theorybench

PKG = pathlib.Path(theorybench.__file__).parent
SHARED = {"errors", "registry", "safe_io", "__init__"}   # leaves any layer may import


def allowed(layers: dict[str, tuple[str, ...]]) -> dict[str, set[str]]:
    """Transitive closure of the layer edges (each layer may also import itself)."""
    out = {}
    for top in layers:
        seen, todo = {top}, [top]
        while todo:
            for nxt in layers[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        out[top] = seen
    return out


def _imported_layers(path: pathlib.Path, pkg: pathlib.Path):
    """(line, imported top-level subpackage of theorybench) for every import in ``path``."""
    rel = path.relative_to(pkg).with_suffix("").parts
    if rel[-1] == "__init__":
        rel = rel[:-1]
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "theorybench" and len(parts) > 1:
                    yield node.lineno, parts[1]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] != "theorybench":
                    continue
                target = parts[1:]
            else:
                base = list(rel) if is_pkg else list(rel[:-1])
                up = node.level - 1
                if up > len(base):
                    continue
                target = base[:len(base) - up] + (node.module.split(".") if node.module else [])
            if target:
                yield node.lineno, target[0]
            else:   # "from .. import tasks" at the top: the names are the layers
                for alias in node.names:
                    yield node.lineno, alias.name


def violations(pkg: pathlib.Path, layers: dict[str, tuple[str, ...]]) -> list[str]:
    ok = allowed(layers)
    bad = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).parts
        layer = rel[0] if len(rel) > 1 else None
        if layer is None:          # top-level modules (errors, __init__) import no layer
            for line, target in _imported_layers(path, pkg):
                if target in layers:
                    bad.append(f"{path.relative_to(pkg)}:{line} imports {target}")
            continue
        assert layer in layers, f"subpackage {layer} is not in theorybench.LAYERS"
        for line, target in _imported_layers(path, pkg):
            if target in SHARED or target not in layers and not (pkg / target).exists():
                continue
            if target not in ok[layer]:
                bad.append(f"{path.relative_to(pkg)}:{line}: {layer} imports {target}")
    return bad


def test_every_subpackage_is_a_layer():
    subs = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert subs == set(theorybench.LAYERS)


def test_imports_point_down_the_layers():
    assert violations(PKG, theorybench.LAYERS) == []


def test_an_upward_import_is_caught(tmp_path):
    copy = tmp_path / "theorybench"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__"))
    victim = copy / "formal" / "growth.py"
    victim.write_text(victim.read_text() + "\n\ndef _f():\n    from ..theories import base\n")
    tasks_mod = copy / "tasks" / "base.py"
    tasks_mod.write_text(tasks_mod.read_text() + "\nimport theorybench.experiments.store\n")
    bad = violations(copy, theorybench.LAYERS)
    assert any("formal/growth.py" in b and "imports theories" in b for b in bad)
    assert any("tasks/base.py" in b and "imports experiments" in b for b in bad)
    assert len(bad) == 2
