"""The import direction of ``theorybench/__init__.py``, checked on every module's imports
(module level and inside functions alike); no import cycles, no private names across
modules, and imports inside functions only where they keep a heavy optional dependency lazy."""

from __future__ import annotations

import ast
import functools
import pathlib
import shutil

import networkx as nx

import theorybench

PKG = pathlib.Path(theorybench.__file__).parent
SHARED = {"errors", "registry", "safe_io", "parallel", "__init__"}   # leaves any layer may import


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


# ---- module graph: cycles and private names ------------------------------------------------
def _import_nodes(path: pathlib.Path) -> list[tuple[ast.stmt, bool]]:
    """(import statement, inside a function) for every import in the file, parsed once per
    version of the file (each check walks every module)."""
    st = path.stat()
    return _parse_imports(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=None)
def _parse_imports(path: str, _mtime_ns: int, _size: int) -> list[tuple[ast.stmt, bool]]:
    out = []

    def visit(node, inner):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append((child, inner))
            elif not isinstance(child, ast.expr):   # an import is never inside an expression
                visit(child, inner or isinstance(child, (ast.FunctionDef,
                                                         ast.AsyncFunctionDef)))

    visit(ast.parse(pathlib.Path(path).read_text(), path), False)
    return out


def _module(path: pathlib.Path, pkg: pathlib.Path) -> str:
    parts = path.relative_to(pkg.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(pkg: pathlib.Path):
    """(importer, line, imported module, imported name or None, inside a function) for every
    import of the package's own modules, module level and inside functions alike."""
    mods = {_module(p, pkg): p for p in pkg.rglob("*.py")}
    root = pkg.name
    for name, path in mods.items():
        for node, inner in _import_nodes(path):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == root:
                        yield name, node.lineno, alias.name, None, inner
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    base = base[:len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != root:
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in mods:           # "from . import ast": a module
                        yield name, node.lineno, sub, None, inner
                    else:
                        yield name, node.lineno, target, alias.name, inner


def import_cycles(pkg: pathlib.Path) -> list[list[str]]:
    """Strongly connected components of more than one module (module-level and function
    imports alike: a function import only hides a cycle from import time)."""
    mods = {_module(p, pkg) for p in pkg.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for src, _, target, _, _ in module_imports(pkg):
        while target not in mods and "." in target:
            target = target.rsplit(".", 1)[0]
        if target in mods and target != src:
            graph[src].add(target)
    comps = nx.strongly_connected_components(nx.DiGraph([(a, b) for a in graph for b in graph[a]]))
    return sorted(sorted(c) for c in comps if len(c) > 1)


def private_imports(pkg: pathlib.Path) -> list[str]:
    """Imports of another module's private (``_name``) module or object."""
    bad = []
    for src, line, target, name, _ in module_imports(pkg):
        if target == src:
            continue
        hidden = [p for p in target.split(".") if p.startswith("_") and p != "__init__"]
        if hidden or (name and name.startswith("_") and not name.startswith("__")):
            bad.append(f"{src}:{line} imports {target}{'.' + name if name else ''}")
    return bad


def test_no_import_cycles():
    assert import_cycles(PKG) == []


def test_no_private_names_across_modules():
    assert private_imports(PKG) == []


def test_a_cycle_and_a_private_import_are_caught(tmp_path):
    copy = tmp_path / "theorybench"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__"))
    # a cycle inside one layer, hidden in a function
    a, b = copy / "formal" / "growth.py", copy / "formal" / "communication.py"
    a.write_text(a.read_text() + "\n\ndef _f():\n    from . import communication\n")
    b.write_text(b.read_text() + "\n\ndef _g():\n    from .growth import classify_growth\n")
    helper = copy / "tasks" / "bits.py"
    helper.write_text(helper.read_text() + "\n\ndef _secret():\n    return 1\n")
    user = copy / "tasks" / "balance.py"
    user.write_text(user.read_text() + "\nfrom .bits import _secret\n")
    assert ["theorybench.formal.communication", "theorybench.formal.growth"] in \
        import_cycles(copy)
    assert any("theorybench.tasks.bits._secret" in b for b in private_imports(copy))


# ---- function-level imports: only to keep a heavy optional dependency lazy ------------------
#: Optional dependencies that take seconds to import (torch ~1.5 s) or may be absent; a
#: function-level import of a module that loads one keeps light commands light.
HEAVY_ROOTS = {"torch", "z3", "transformers", "matplotlib", "ray"}


def heavy_modules(pkg: pathlib.Path) -> set[str]:
    """The package's modules whose import loads a heavy root: each that imports one at
    module level, and each that imports such a module at module level, its parent packages'
    ``__init__`` included (importing ``a.b.c`` runs ``a.b``), transitively."""
    mods = {_module(p, pkg): p for p in pkg.rglob("*.py")}
    heavy = set()
    for name, path in mods.items():
        for node, inner in _import_nodes(path):
            if inner:
                continue
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = [(node.module or "").split(".")[0]]
            else:
                continue
            if HEAVY_ROOTS.intersection(roots):
                heavy.add(name)
    deps: dict[str, set[str]] = {m: {".".join(m.split(".")[:i]) for i in
                                     range(1, m.count(".") + 1)} for m in mods}
    for src, _, target, _, inner in module_imports(pkg):
        if not inner:
            deps[src].add(_owner(target, mods))
    changed = True
    while changed:
        changed = False
        for m in mods:
            if m not in heavy and deps[m] & heavy:
                heavy.add(m)
                changed = True
    return heavy


def _owner(target: str, mods) -> str:
    """The module ``target`` names (``a.b.name`` -> ``a.b``)."""
    while target not in mods and "." in target:
        target = target.rsplit(".", 1)[0]
    return target


def light_function_imports(pkg: pathlib.Path) -> list[str]:
    """Imports of a package module inside a function where that module loads no heavy root:
    they only hide the dependency (and any cycle) from the reader and from import time."""
    heavy = heavy_modules(pkg)
    mods = {_module(p, pkg) for p in pkg.rglob("*.py")}
    return [f"{src}:{line} imports {_owner(target, mods)} inside a function"
            for src, line, target, _, inner in module_imports(pkg)
            if inner and _owner(target, mods) not in heavy]


def test_function_level_imports_only_keep_heavy_dependencies_lazy():
    bad = light_function_imports(PKG)
    assert bad == [], ("move these imports to the top of their files (only an import of a "
                       f"module that loads one of {sorted(HEAVY_ROOTS)} stays in a function): "
                       + "; ".join(bad))


def test_a_light_function_import_is_caught(tmp_path):
    copy = tmp_path / "theorybench"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__"))
    # heavy directly, heavy through a module-level import, heavy through a parent package
    (copy / "formal" / "heavy_leaf.py").write_text("import z3\n")
    (copy / "formal" / "heavy_mid.py").write_text("from .heavy_leaf import z3\n")
    (copy / "formal" / "heavy_pkg").mkdir()
    (copy / "formal" / "heavy_pkg" / "__init__.py").write_text("import torch\n")
    (copy / "formal" / "heavy_pkg" / "light.py").write_text("X = 1\n")
    victim = copy / "formal" / "growth.py"
    victim.write_text(victim.read_text() + "\n\ndef _f():\n    from . import heavy_leaf\n"
                      "    from .heavy_mid import z3\n    from .heavy_pkg.light import X\n"
                      "    from ..errors import ConfigError\n")
    heavy = heavy_modules(copy)
    assert {"theorybench.formal.heavy_leaf", "theorybench.formal.heavy_mid",
            "theorybench.formal.heavy_pkg", "theorybench.formal.heavy_pkg.light"} <= heavy
    assert "theorybench.errors" not in heavy
    bad = [b for b in light_function_imports(copy) if b.startswith("theorybench.formal.growth:")]
    assert len(bad) == 1 and bad[0].endswith("imports theorybench.errors inside a function")
