"""The package's layers, read from its source with `ast` (every import, also those inside
functions): a rule broken here is an import that runs the wrong way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ilp_pyramid"
# Solver libraries: the backends' business, not the formats'.
SOLVER_LIBRARIES = ("highspy", "pysat.solvers", "ortools", "ilp_pyramid.backends")
# The command line's libraries and modules: a puzzle's model imports none of them.
COMMAND_LINE = ("typer", "rich", "click", "ilp_pyramid.cli", "ilp_pyramid.cli_common",
                "ilp_pyramid.puzzle_cli", "ilp_pyramid.commands")


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module `path` imports, relative imports resolved."""
    tree = ast.parse(path.read_text(), str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                prefix = package[:len(package) - node.level + 1]
                base = ".".join(prefix + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{alias.name}" for alias in node.names}
    return out


MODULES = {module_name(p): imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def broken(modules: dict[str, set[str]], applies, forbidden) -> list[str]:
    return [f"{mod} imports {imp}" for mod, found in modules.items() if applies(mod)
            for imp in sorted(found) if forbidden(mod, imp)]


def puzzle_of(name: str) -> str | None:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "puzzles" else None


RULES = {
    "backends import no puzzle": (
        lambda m: within(m, "ilp_pyramid.backends"),
        lambda m, i: within(i, "ilp_pyramid.puzzles")),
    "formats import no puzzle and no solver": (
        lambda m: within(m, "ilp_pyramid.formats"),
        lambda m, i: within(i, "ilp_pyramid.puzzles")
        or any(within(i, lib) for lib in SOLVER_LIBRARIES)),
    "models import no backend": (
        lambda m: puzzle_of(m) is not None and m.rsplit(".", 1)[1] in ("model", "cnf"),
        lambda m, i: within(i, "ilp_pyramid.backends")
        or any(within(i, lib) for lib in SOLVER_LIBRARIES[:-1])),
    "verify imports nothing of the package": (
        lambda m: within(m, "ilp_pyramid.verify"),
        lambda m, i: within(i, "ilp_pyramid") and not within(i, "ilp_pyramid.verify")),
    "no puzzle imports another puzzle": (
        lambda m: puzzle_of(m) is not None,
        lambda m, i: puzzle_of(i) is not None and puzzle_of(i) != puzzle_of(m)),
    "puzzles.bel is imported only inside bel/ and by the command line": (
        lambda m: puzzle_of(m) != "bel" and m != "ilp_pyramid.cli"
        and not within(m, "ilp_pyramid.commands"),
        lambda m, i: within(i, "ilp_pyramid.puzzles.bel")),
    "Bel's model knows no command line": (
        # its commands live in ilp_pyramid/commands/
        lambda m: puzzle_of(m) == "bel",
        lambda m, i: any(within(i, ui) for ui in COMMAND_LINE)),
    "the benchmark library imports no puzzle": (
        # it reaches every puzzle through the registry and the protocol only
        lambda m: m == "ilp_pyramid.library",
        lambda m, i: puzzle_of(i) not in (None, "get", "names", "REGISTRY")),
    "bench imports no puzzle": (
        # it reaches a puzzle through the registry (`puzzles.get`) and the protocol only
        lambda m: within(m, "ilp_pyramid.bench"),
        lambda m, i: puzzle_of(i) not in (None, "get", "names", "REGISTRY")),
    "the workbench's frame imports no puzzle, a page only its own": (
        # ilp_pyramid/ui/pages/<puzzle>.py may read its puzzle's modules; the frame (app,
        # runs, web, ...) and the other pages reach a puzzle through the registry only
        lambda m: within(m, "ilp_pyramid.ui"),
        lambda m, i: puzzle_of(i) not in (None, "get", "names", "REGISTRY", page_of(m))),
}


def page_of(name: str) -> str | None:
    """The puzzle a workbench page module is for (ilp_pyramid.ui.pages.<puzzle>)."""
    parts = name.split(".")
    return parts[3] if len(parts) == 4 and parts[1:3] == ["ui", "pages"] else None


@pytest.mark.parametrize("rule", list(RULES))
def test_layer_rule_holds(rule):
    applies, forbidden = RULES[rule]
    assert broken(MODULES, applies, forbidden) == []


@pytest.mark.parametrize(("rule", "module", "imported"), [
    ("backends import no puzzle", "ilp_pyramid.backends.sat", "ilp_pyramid.puzzles.bel.cnf"),
    ("formats import no puzzle and no solver", "ilp_pyramid.formats.mipfile", "highspy"),
    ("models import no backend", "ilp_pyramid.puzzles.iq.model", "ilp_pyramid.backends.mip"),
    ("verify imports nothing of the package", "ilp_pyramid.verify.bel", "ilp_pyramid.errors"),
    ("no puzzle imports another puzzle", "ilp_pyramid.puzzles.iq.cli",
     "ilp_pyramid.puzzles.bel.export"),
    ("puzzles.bel is imported only inside bel/ and by the command line",
     "ilp_pyramid.backends.sat", "ilp_pyramid.puzzles.bel.cnf"),
    ("Bel's model knows no command line", "ilp_pyramid.puzzles.bel.auto", "typer"),
    ("Bel's model knows no command line", "ilp_pyramid.puzzles.bel.lns.driver",
     "ilp_pyramid.commands.lns"),
    ("Bel's model knows no command line", "ilp_pyramid.puzzles.bel.puzzle",
     "ilp_pyramid.cli_common"),
    ("the benchmark library imports no puzzle", "ilp_pyramid.library",
     "ilp_pyramid.puzzles.views.model"),
    ("bench imports no puzzle", "ilp_pyramid.bench.grid", "ilp_pyramid.puzzles.bel.geometry"),
    ("bench imports no puzzle", "ilp_pyramid.bench.cli", "ilp_pyramid.puzzles.sudoku_cube"),
    ("the workbench's frame imports no puzzle, a page only its own", "ilp_pyramid.ui.runs",
     "ilp_pyramid.puzzles.iq.boards"),
    ("the workbench's frame imports no puzzle, a page only its own", "ilp_pyramid.ui.pages.iq",
     "ilp_pyramid.puzzles.views.geometry"),
])
def test_each_rule_catches_the_import_it_forbids(rule, module, imported):
    applies, forbidden = RULES[rule]
    assert broken({module: {imported}}, applies, forbidden) == [f"{module} imports {imported}"]


def test_the_bench_may_ask_the_registry():
    applies, forbidden = RULES["bench imports no puzzle"]
    allowed = {"ilp_pyramid.puzzles", "ilp_pyramid.puzzles.get", "ilp_pyramid.protocol"}
    assert broken({"ilp_pyramid.bench.grid": allowed}, applies, forbidden) == []


def test_a_workbench_page_may_read_its_own_puzzle_and_ask_the_registry():
    applies, forbidden = RULES["the workbench's frame imports no puzzle, a page only its own"]
    allowed = {"ilp_pyramid.ui.pages.sudoku_cube": {"ilp_pyramid.puzzles.sudoku_cube.state"},
               "ilp_pyramid.ui.pages.bel": {"ilp_pyramid.puzzles", "ilp_pyramid.puzzles.get"},
               "ilp_pyramid.ui.app": {"ilp_pyramid.protocol", "ilp_pyramid.ui.pages"}}
    assert broken(allowed, applies, forbidden) == []


def test_every_module_is_read():
    assert "ilp_pyramid.backends.base" in MODULES["ilp_pyramid.backends.mip"]
    assert len(MODULES) > 40 and "ilp_pyramid.formats.mipfile" in MODULES


# --- import cycles ------------------------------------------------------------------------
# The import graph has one edge per module an import statement names, inside functions too
# (a lazy import delays a cycle, it does not remove it):
# - `import a.b` and `from a.b import c` (c not a module) are edges to a.b;
# - `from a.b import c` where a.b.c is a module is an edge to a.b.c alone (the name is the
#   module, and the package a.b is only the way to it);
# - a package's own `__init__` importing its submodule is an edge package -> submodule like
#   any other, and a submodule importing a name from its package is an edge back: together
#   a cycle. The parents Python runs before a submodule (a and a.b before a.b.c) are no edges:
#   they are finished or being finished by then, and counting them would make every
#   package that re-exports a submodule a cycle with it;
# - an import under `if TYPE_CHECKING:` is no edge: it never runs, it names a type for the
#   annotations (which `from __future__ import annotations` leaves unevaluated).
# Only the package's own modules are nodes.


def import_edges(path: Path, known: set[str], root: Path = PACKAGE) -> dict[str, int]:
    """The package's modules (`known`) that `path` imports, each with the line of its first
    import."""
    tree = ast.parse(path.read_text(), str(path))
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out: dict[str, int] = {}
    for node in _run_time_nodes(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                prefix = package[:len(package) - node.level + 1]
                base = ".".join(prefix + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            if target in known and (target not in out or node.lineno < out[target]):
                out[target] = node.lineno
    return out


def _run_time_nodes(tree: ast.AST):
    """Every node of `tree` except the bodies of `if TYPE_CHECKING:`."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING",
                                                                    "typing.TYPE_CHECKING"):
            todo += node.orelse
            continue
        todo += ast.iter_child_nodes(node)


PATHS = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
GRAPH = {name: import_edges(path, set(PATHS)) for name, path in PATHS.items()}


def _path(graph: dict[str, dict[str, int]], start: str, goal: str) -> list[str] | None:
    """A shortest import path start -> ... -> goal (breadth first), or None."""
    before = {start: start}
    todo = [start]
    while todo:
        later = []
        for node in todo:
            for after in sorted(graph.get(node, {})):
                if after == goal:
                    path = [goal, node]
                    while path[-1] != start:
                        path.append(before[path[-1]])
                    return path[::-1]
                if after not in before:
                    before[after] = node
                    later.append(after)
        todo = later
    return None


def cycles(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import edge that lies on a cycle, as the shortest cycle through it, written
    `a (line 3) -> b (line 7) -> a` (a imports b on its line 3, ...); each cycle once."""
    found = {}
    for module in sorted(graph):
        for imported in sorted(graph[module]):
            back = _path(graph, imported, module) if imported != module else [module]
            if back is None:
                continue
            loop = [module, *back]
            # One spelling per cycle: start at its smallest module.
            ring = loop[:-1]
            first = ring.index(min(ring))
            ring = ring[first:] + ring[:first]
            found[tuple(ring)] = " -> ".join(
                f"{a} (line {graph[a][b]})" for a, b in zip(ring, ring[1:] + ring[:1], strict=True)
            ) + f" -> {ring[0]}"
    return sorted(found.values())


def test_no_import_cycle():
    assert cycles(GRAPH) == []


def test_the_cycle_finder_reports_each_cycle_as_a_path():
    graph = {"p.a": {"p.b": 3}, "p.b": {"p.c": 5, "p.a": 9}, "p.c": {"p.a": 2},
             "p.d": {"p.a": 1}}
    assert cycles(graph) == ["p.a (line 3) -> p.b (line 5) -> p.c (line 2) -> p.a",
                             "p.a (line 3) -> p.b (line 9) -> p.a"]
    assert cycles({"p.a": {"p.a": 4}}) == ["p.a (line 4) -> p.a"]
    assert cycles({"p.a": {"p.b": 1}, "p.b": {}}) == []


def test_import_edges_follow_the_rule(tmp_path):
    root = tmp_path / "pkg"
    files = {
        "__init__.py": "",
        "sub/__init__.py": "from pkg.sub import mod\n",
        "sub/mod.py": ("from . import mod2\n"
                       "def f():\n"
                       "    from pkg.sub import NAME\n"
                       "    import pkg.other\n"),
        "sub/mod2.py": ("from typing import TYPE_CHECKING\n"
                        "if TYPE_CHECKING:\n"
                        "    from pkg.sub import NAME\n"),
        "other.py": "import json\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    paths = {module_name(root / name, root): root / name for name in files}
    graph = {name: import_edges(path, set(paths), root) for name, path in paths.items()}
    assert graph == {"pkg": {}, "pkg.sub": {"pkg.sub.mod": 1},
                     "pkg.sub.mod": {"pkg.sub.mod2": 1, "pkg.sub": 3, "pkg.other": 4},
                     "pkg.sub.mod2": {}, "pkg.other": {}}
    # The package importing its submodule, and the submodule taking a name from the package
    # inside a function: a cycle.
    assert cycles(graph) == ["pkg.sub (line 1) -> pkg.sub.mod (line 3) -> pkg.sub"]
