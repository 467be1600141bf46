"""The package's layers, read from its source with `ast` (every import, also those inside
functions): a rule broken here is an import that runs the wrong way."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ilp_pyramid"
# Solver libraries: the backends' business, not the formats'.
SOLVER_LIBRARIES = ("highspy", "pysat.solvers", "ortools", "ilp_pyramid.backends")
# The command line's libraries and modules: a puzzle's model imports none of them.
COMMAND_LINE = ("typer", "rich", "click", "ilp_pyramid.cli")


@cache
def _parsed(path: str, text: str) -> ast.Module:
    # Read by several rules below: each file parsed once (the trees are only walked).
    return ast.parse(text, path)


def parse(path: Path) -> ast.Module:
    return _parsed(str(path), path.read_text())


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module `path` imports, relative imports resolved."""
    tree = parse(path)
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


@cache
def package_modules() -> dict[str, set[str]]:
    """Every module of the package and what it imports; read when a rule first asks (not at
    collection, which every test worker does)."""
    return {module_name(p): imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


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
        lambda m: puzzle_of(m) != "bel" and not within(m, "ilp_pyramid.cli"),
        lambda m, i: within(i, "ilp_pyramid.puzzles.bel")),
    "no puzzle knows the command line": (
        # the commands live in ilp_pyramid/cli/
        lambda m: puzzle_of(m) is not None,
        lambda m, i: any(within(i, ui) for ui in COMMAND_LINE)),
    "only the command line and the entry point import the command line": (
        # puzzles/, the bench's library, the workbench, the Python API (ilp_pyramid/__init__,
        # protocol.py) and every other module: the command line is a layer on top of them
        lambda m: not within(m, "ilp_pyramid.cli") and m != "ilp_pyramid.__main__",
        lambda m, i: within(i, "ilp_pyramid.cli")),
    "the benchmark library imports no puzzle": (
        # it reaches every puzzle through the registry and the protocol only
        lambda m: m == "ilp_pyramid.library",
        lambda m, i: puzzle_of(i) not in (None, "get", "names", "REGISTRY")),
    "bench imports no puzzle": (
        # it reaches a puzzle through the registry (`puzzles.get`) and the protocol only; so
        # does its command
        lambda m: within(m, "ilp_pyramid.bench") or m == "ilp_pyramid.cli.bench",
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
    assert broken(package_modules(), applies, forbidden) == []


@pytest.mark.parametrize(("rule", "module", "imported"), [
    ("backends import no puzzle", "ilp_pyramid.backends.sat", "ilp_pyramid.puzzles.bel.cnf"),
    ("formats import no puzzle and no solver", "ilp_pyramid.formats.mipfile", "highspy"),
    ("models import no backend", "ilp_pyramid.puzzles.iq.model", "ilp_pyramid.backends.mip"),
    ("verify imports nothing of the package", "ilp_pyramid.verify.bel", "ilp_pyramid.errors"),
    ("no puzzle imports another puzzle", "ilp_pyramid.puzzles.iq.cli",
     "ilp_pyramid.puzzles.bel.export"),
    ("puzzles.bel is imported only inside bel/ and by the command line",
     "ilp_pyramid.backends.sat", "ilp_pyramid.puzzles.bel.cnf"),
    ("no puzzle knows the command line", "ilp_pyramid.puzzles.bel.auto", "typer"),
    ("no puzzle knows the command line", "ilp_pyramid.puzzles.views.battery", "rich.progress"),
    ("no puzzle knows the command line", "ilp_pyramid.puzzles.iq.render",
     "ilp_pyramid.cli.options"),
    ("no puzzle knows the command line", "ilp_pyramid.puzzles.bel.lns.driver",
     "ilp_pyramid.cli.bel.lns"),
    ("no puzzle knows the command line", "ilp_pyramid.puzzles.bel.puzzle",
     "ilp_pyramid.cli.options"),
    ("only the command line and the entry point import the command line",
     "ilp_pyramid.bench.session", "ilp_pyramid.cli.options"),
    ("only the command line and the entry point import the command line",
     "ilp_pyramid.bench.api", "ilp_pyramid.cli.bench"),
    ("only the command line and the entry point import the command line",
     "ilp_pyramid.puzzles.iq.puzzle", "ilp_pyramid.cli.iq"),
    ("only the command line and the entry point import the command line",
     "ilp_pyramid.ui.server", "ilp_pyramid.cli"),
    ("only the command line and the entry point import the command line", "ilp_pyramid",
     "ilp_pyramid.cli.puzzle"),
    ("the benchmark library imports no puzzle", "ilp_pyramid.library",
     "ilp_pyramid.puzzles.views.model"),
    ("bench imports no puzzle", "ilp_pyramid.bench.grid", "ilp_pyramid.puzzles.bel.geometry"),
    ("bench imports no puzzle", "ilp_pyramid.cli.bench", "ilp_pyramid.puzzles.sudoku_cube"),
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


def test_the_command_line_is_one_package_that_holds_every_command():
    # Every command module is under ilp_pyramid/cli/ (the bench's and the workbench's too),
    # and the layer rule above reads the modules that could import it.
    command_modules = {name for name, found in package_modules().items() if "typer" in found}
    assert command_modules and all(within(name, "ilp_pyramid.cli") for name in command_modules)
    assert {"ilp_pyramid", "ilp_pyramid.protocol", "ilp_pyramid.bench.api",
            "ilp_pyramid.bench.session", "ilp_pyramid.ui.server"} <= package_modules().keys()
    assert {"ilp_pyramid.cli.bench", "ilp_pyramid.cli.ui"} <= package_modules().keys()


def test_no_puzzle_names_its_command_line():
    # The tree (cli/tree.py) names each puzzle's group; a puzzle names no module of the
    # command line, not even as a "module:attribute" string (an import no rule here sees).
    named = [f"{path.relative_to(PACKAGE)}: {node.value}"
             for path in sorted((PACKAGE / "puzzles").rglob("*.py"))
             for node in ast.walk(parse(path))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and node.value.startswith("ilp_pyramid.cli")]
    assert named == []


def test_every_module_is_read():
    assert "ilp_pyramid.backends.base" in package_modules()["ilp_pyramid.backends.mip"]
    assert len(package_modules()) > 40 and "ilp_pyramid.formats.mipfile" in package_modules()


def test_the_hunt_model_side_knows_no_command_line():
    # The command (ilp_pyramid/cli/bel/hunt.py) prints; the modules it drives only tell.
    # (Here, where the package's imports are read once: from another test module they were
    # read a second time.)
    hunt = {name: found for name, found in package_modules().items()
            if within(name, "ilp_pyramid.puzzles.bel.hunt")}
    assert {"ilp_pyramid.puzzles.bel.hunt.state", "ilp_pyramid.puzzles.bel.hunt.task",
            "ilp_pyramid.puzzles.bel.hunt.coordinator"} <= hunt.keys()
    assert [(name, imported) for name, found in hunt.items() for imported in sorted(found)
            if any(within(imported, forbidden) for forbidden in COMMAND_LINE)] == []


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
    tree = parse(path)
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


# --- imports inside functions ------------------------------------------------------------
# An import of the package's own module inside a function hides an arrow of the graph above.
# One stays only where it defers something: a heavy library the importing module does not
# load already, a cycle the import would close at load time, or a module kept off the pinned
# start-up path (`solve N<=4`, `--version`, `import ilp_pyramid`, the bench kept off a
# puzzle's commands: tests/test_startup.py).
HEAVY_LIBRARIES = {"pulp", "highspy", "numpy", "numba", "matplotlib", "plotly", "pysat",
                   "ortools", "pyscipopt", "gurobipy", "starlette", "uvicorn", "dask",
                   "distributed", "networkx", "kociemba", "pindakaas", "typer", "rich", "click",
                   "httpx", "scipy"}
# 304 before the commands left puzzles/; counting's forked children added a few, the quick
# path of `iq count` one
MAX_OWN_IMPORTS_IN_FUNCTIONS = 126


def _top_and_inner(path: Path) -> tuple[set[str], list[tuple[str, int]]]:
    """The modules `path` imports at load time (own ones resolved), and the own modules its
    functions import, one per import statement, with the line."""
    tree = parse(path)
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    top, inner = set(), []

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        base = node.module or ""
        if node.level:
            base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
        return [f"{base}.{a.name}" if f"{base}.{a.name}" in PATHS else base for a in node.names]

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test) == "TYPE_CHECKING":
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found = targets(child)
                if not in_function:
                    top.update(found)
                else:
                    own = [t for t in found if t in PATHS]
                    if own:
                        inner.append((own[0], child.lineno))
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(tree, False)
    return top, inner


TOP_AND_INNER = {name: _top_and_inner(path) for name, path in PATHS.items()}


def loaded_by(name: str, seen: set[str] | None = None) -> set[str]:
    """Every module importing `name` loads (own modules and third-party top names)."""
    seen = set() if seen is None else seen
    out: set[str] = set()
    parts = name.split(".")
    for module in [".".join(parts[:i]) for i in range(1, len(parts) + 1)]:
        if module in seen or module not in PATHS:
            continue
        seen.add(module)
        for target in TOP_AND_INNER[module][0]:
            if target in PATHS:
                out |= {target} | loaded_by(target, seen)
            elif not target.startswith("ilp_pyramid"):
                out.add(target.split(".")[0])
    return out


# What `--version` and `import ilp_pyramid` load (tests/test_startup.py).
VERSION_PATH = {"ilp_pyramid", "ilp_pyramid.cli", "ilp_pyramid.cli.signals",
                "ilp_pyramid.cli.tree", "ilp_pyramid.errors"}


def deferrals() -> tuple[int, list[str]]:
    from tests.test_startup import KEPT_OFF_A_PUZZLE_COMMAND, SOLVE_SMALL

    count, hiding = 0, []
    for name, (_, inner) in sorted(TOP_AND_INNER.items()):
        for target, line in inner:
            count += 1
            heavy = (loaded_by(target) & HEAVY_LIBRARIES) - loaded_by(name)
            cycle = name in loaded_by(target) or target == name
            start_up = any(name in path and target not in path
                           for path in (SOLVE_SMALL, VERSION_PATH)) \
                or any(within(target, kept) for kept in KEPT_OFF_A_PUZZLE_COMMAND)
            if not (heavy or cycle or start_up):
                hiding.append(f"{PATHS[name].relative_to(PACKAGE.parent)}:{line} {target}")
    return count, hiding


def test_imports_inside_functions_each_defer_something():
    count, hiding = deferrals()
    assert count <= MAX_OWN_IMPORTS_IN_FUNCTIONS, count
    assert hiding == [], "\n".join(hiding)


def test_an_import_that_defers_nothing_is_caught(tmp_path):
    assert "numpy" in loaded_by("ilp_pyramid.puzzles.bel.lns.search")
    assert "ilp_pyramid.errors" in loaded_by("ilp_pyramid.parsing")
    assert not loaded_by("ilp_pyramid.errors") & HEAVY_LIBRARIES
