"""The one registry idiom (:mod:`theorybench.registry`) and the extension points built on it:
lookups with a hint, duplicate refusal, per-task libraries, lazy loading, and the check
that every library entry names a registered task family."""

from __future__ import annotations

import importlib
import importlib.resources
import pkgutil
import sys
import types

import pytest

from theorybench import tasks
from theorybench.cli import main as cli_main
from theorybench.cli.tasks import artifact_libraries, coverage
from theorybench.errors import ConfigError, TaskParameterError, TheoryError
from theorybench.registry import BUILTIN, Library, Registry, family_of


class Thing:
    def __init__(self, name):
        self.name = name


def test_register_by_attribute_argument_and_call_lists_in_order():
    reg = Registry("widget")

    @reg.register
    class Alpha:
        name = "alpha"

    @reg.register("beta")
    def beta():
        return 2

    reg.register(Thing("gamma"))
    assert reg.names() == ["alpha", "beta", "gamma"]
    assert reg.get("beta") is beta and reg.get("alpha") is Alpha
    assert [n for n, _ in reg.items()] == ["alpha", "beta", "gamma"]
    assert "gamma" in reg and "delta" not in reg and len(reg) == 3


def test_lookup_error_names_the_closest_and_all_known():
    reg = Registry("widget")
    reg.register(Thing("majority"))
    reg.register(Thing("sensitivity"))
    with pytest.raises(ConfigError) as exc:
        reg.get("majorty")
    msg = str(exc.value)
    assert "unknown widget 'majorty' (did you mean majority?)" in msg
    assert "known widgets: majority, sensitivity" in msg


def test_lookup_error_class_is_the_registry_s():
    reg = Registry("theory", error=TheoryError, plural="theories")
    with pytest.raises(TheoryError, match="known theories: \\(none\\)"):
        reg.get("x")


def test_a_second_object_under_a_taken_name_is_refused_the_same_one_is_not():
    reg = Registry("widget")
    a = Thing("a")
    reg.register(a)
    reg.register(a)  # a module imported twice
    with pytest.raises(TypeError, match="registered twice"):
        reg.register(Thing("a"))
    with pytest.raises(TypeError, match="needs a name"):
        reg.register(object())


def test_scoped_registrations_do_not_leak():
    reg = Registry("widget")
    reg.register(Thing("kept"))
    with reg.scoped():
        reg.register(Thing("temp"))
        assert reg.names() == ["kept", "temp"]
    assert reg.names() == ["kept"]


def test_origin_is_builtin_for_theorybench_and_the_module_otherwise():
    reg = Registry("widget")
    reg.register(Thing("here"))
    reg.register(Thing("there"), origin=BUILTIN)
    assert reg.origin("here") == __name__ and reg.origin("there") == BUILTIN


def test_modules_are_imported_on_first_lookup_only(tmp_path, monkeypatch):
    (tmp_path / "tb_lazy_fill.py").write_text(
        "from tests_registry_target import REG\n"
        "class T:\n    name = 'filled'\nREG.register(T)\n")
    target = types.ModuleType("tests_registry_target")
    target.REG = Registry("widget", ["tb_lazy_fill"])
    monkeypatch.setitem(sys.modules, "tests_registry_target", target)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "tb_lazy_fill" not in sys.modules
    assert target.REG.names() == ["filled"]
    assert "tb_lazy_fill" in sys.modules
    assert target.REG.origin("filled") == "tb_lazy_fill"
    monkeypatch.delitem(sys.modules, "tb_lazy_fill")


def test_library_matches_families_and_conditions_in_order():
    lib = Library("gadget")

    @lib.provides("parity", "all")
    def fold(task):
        return "fold"

    lib.add("big-k only", "parity", when=lambda t: t.k > 2, origin="mine.py")
    small = types.SimpleNamespace(name="parity", k=1)
    big = types.SimpleNamespace(name="parity", k=3)
    assert lib.for_task(small) == [(BUILTIN if __name__.startswith("theorybench") else __name__,
                                     fold)]
    assert [a for _, a in lib.for_task(big)] == [fold, "big-k only"]
    assert lib.for_task(big)[1][0] == "mine.py"
    assert lib.for_task("any") == [] and lib.families() == ["parity", "all"]
    # a family name (no instance) lists every artifact for the family
    assert len(lib.for_task("parity")) == 2
    with pytest.raises(TypeError, match="task families"):
        lib.add("x")


def test_library_first_and_scoped():
    lib = Library("gadget")
    lib.add("shipped", "parity", origin=BUILTIN)
    with lib.scoped():
        lib.add("mine", "parity", first=True)
        assert lib.by_family()["parity"] == "mine"
    assert lib.by_family()["parity"] == "shipped" and "all" not in lib.by_family()


def test_a_variant_label_is_not_its_family():
    assert family_of("khop:k=2") == "khop:k=2"
    assert family_of(types.SimpleNamespace(name="khop")) == "khop"


def test_task_registry_hint_and_error_class_are_kept():
    with pytest.raises(TaskParameterError, match="did you mean majority"):
        tasks.family("majorty")
    assert list(tasks.families())[:2] == ["all", "any"]


# ---- every library entry names a registered task family --------------------------------

def unknown_families(libraries) -> list[str]:
    """'column: family' for each library entry whose family is not a registered task."""
    known = set(tasks.families())
    return [f"{col}: {fam}" for col, lib in libraries.items() for fam in lib.families()
            if fam not in known]


def test_every_library_entry_names_a_registered_family():
    libs = artifact_libraries()
    assert {"C-RASP", "B-RASP", "circuit", "MPC", "BAPO", "construction", "circuit spec",
            "induction spec"} <= set(libs)
    assert unknown_families(libs) == []


def test_the_family_check_fails_on_an_entry_naming_an_unknown_family():
    libs = artifact_libraries()
    with libs["MPC"].scoped():
        libs["MPC"].add(object(), "parity_renamed")
        assert unknown_families(libs) == ["MPC: parity_renamed"]
    assert unknown_families(libs) == []


def test_a_program_file_s_family_header_is_what_the_library_files_it_under():
    from theorybench.formal.crasp.programs import PROGRAMS, library
    entries = {a.name: fams for fams, a in
               ((e.families, e.artifact) for e in PROGRAMS.entries()) if hasattr(a, "text")}
    assert entries == {name: (e.family,) for name, e in library().items()}


# ---- coverage and commands ---------------------------------------------------------------

def test_coverage_reads_the_libraries():
    table = {r["task"]: r["artifacts"] for r in coverage()}
    assert list(table) == list(tasks.families())
    assert table["majority"]["construction"] == [BUILTIN]
    assert table["reach_directed"]["circuit"] == []  # no constant-depth circuit is known
    libs = artifact_libraries()
    with libs["BAPO"].scoped():
        libs["BAPO"].add(lambda df: [], "kv_retrieval", origin="my_protocols")
        assert {r["task"]: r["artifacts"] for r in coverage()}["kv_retrieval"]["BAPO"] == [
            "my_protocols"]


def test_every_command_module_is_declared():
    import theorybench.cli as pkg
    with_register = {i.name for i in pkgutil.iter_modules(pkg.__path__)
                     if hasattr(importlib.import_module(f"theorybench.cli.{i.name}"),
                                "register") and i.name != "main"}
    assert with_register <= set(cli_main.COMMAND_MODULES)
    assert list(cli_main.COMMANDS.names()) == list(cli_main.COMMAND_MODULES)


def test_a_registered_command_reaches_the_parser(capsys):
    def register(sub):
        p = sub.add_parser("zz-hello", help="say hello")
        p.set_defaults(func=lambda args: print("hello") or 0)

    with cli_main.COMMANDS.scoped():
        cli_main.COMMANDS.register(register, name="zz_hello")
        assert cli_main.main(["zz-hello"]) == 0
    assert capsys.readouterr().out == "hello\n"
    assert "zz_hello" not in cli_main.COMMANDS


@pytest.mark.parametrize("lang,ext", [("crasp", ".cr"), ("brasp", ".br")])
def test_a_program_file_without_a_family_header_is_refused(tmp_path, lang, ext):
    from theorybench.errors import ProgramError
    mod = importlib.import_module(f"theorybench.formal.{lang}.programs")
    src = (importlib.resources.files(f"theorybench.formal.{lang}") / "library"
                          / f"all{ext}").read_text()
    bare = tmp_path / f"bare{ext}"
    bare.write_text("\n".join(ln for ln in src.splitlines() if "family:" not in ln) + "\n")
    with mod.PROGRAMS.scoped():
        with pytest.raises(ProgramError, match=r"1:1: a library program needs a `// family"):
            mod.add_program_file(bare)
        good = tmp_path / f"mine{ext}"
        good.write_text(src)
        mod.add_program_file(good)
        assert [o for o, _ in mod.PROGRAMS.for_task("all")][-1] == str(good)
    assert all(o == BUILTIN for o, _ in mod.PROGRAMS.for_task("all"))


def test_a_subclass_is_offered_its_parents_artifacts_after_its_own():
    # a family re-registered under another name as a subclass runs the same code
    from theorybench.registry import Library, lineage

    class Base:
        name = "base_fam"

    class Renamed(Base):
        name = "renamed_fam"

    lib = Library("thing")
    lib.add("parent's", "base_fam")
    lib.add("own", "renamed_fam")
    assert lineage(Renamed()) == ["renamed_fam", "base_fam"]
    assert [a for _, a in lib.for_task(Renamed())] == ["own", "parent's"]
    assert [a for _, a in lib.for_task(Base())] == ["parent's"]
    # a name is only itself: no class to inherit from
    assert [a for _, a in lib.for_task("renamed_fam")] == ["own"]
