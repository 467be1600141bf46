"""No import circle anywhere in the package: data flows one way.

Every module's imports are read statically (ast), wherever they stand: at the top, under
`if TYPE_CHECKING:`, inside a function, and `importlib.import_module("ilp_pyramid...")`
with a constant name. Two things are not edges, on purpose:

- the implicit import of a module's parent packages (`import ilp_pyramid.backends.sat` runs
  `ilp_pyramid/backends/__init__.py` first): Python's own mechanism, which every submodule
  of a package with a front door (`backends.solve`, `ilp_pyramid.solve`) goes through; an
  explicit `from ilp_pyramid.backends import solve` is an edge like any other;
- a module named by data and imported at run time (`importlib.import_module(variable)`: the
  solver table's `backend` and `plugin` fields, `puzzles.REGISTRY`): a line of a table, not
  an import of the module that holds the table.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ilp_pyramid

PACKAGE = Path(ilp_pyramid.__file__).resolve().parent


def _modules(root: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module of the package at `root`."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(name: str, tree: ast.Module, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that module `name` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def known(dotted: str) -> str | None:
        while dotted and dotted not in modules:  # an attribute of a module: the module
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    found: set[str | None] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {known(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from pkg import sub` imports the submodule; `from mod import name` the module
            found |= {known(f"{base}.{alias.name}") if f"{base}.{alias.name}" in modules
                      else known(base) for alias in node.names}
        elif (isinstance(node, ast.Call) and node.args
              and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
              == "import_module"
              and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            found.add(known(node.args[0].value))
    return {module for module in found if module is not None and module != name}


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, for the package at `root`."""
    modules = _modules(root)
    return {name: _imported(name, ast.parse(path.read_text(), str(path)), path, modules)
            for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_package_has_no_import_circle():
    graph = import_graph(PACKAGE)
    assert len(graph) > 100 and "ilp_pyramid.backends.sat" in graph  # the walk sees it all
    assert graph["ilp_pyramid.backends"] >= {"ilp_pyramid.backends.solvers"}
    found = circles(graph)
    assert found == [], "import circles: " + "; ".join(
        " <-> ".join(group) + " (" + ", ".join(
            f"{a} -> {b}" for a in group for b in sorted(graph[a] & set(group))) + ")"
        for group in found)


def test_backend_modules_import_neither_the_table_nor_the_lowering():
    """A backend module is handed a `Solver`: it needs no table to resolve a name, and the
    lowering is the door's (`backends.solve`), not a backend's."""
    graph = import_graph(PACKAGE)
    doors = {"ilp_pyramid.backends", "ilp_pyramid.backends.solvers"}
    # outside.py is the table's side of outside solvers (it adds their lines), not a backend
    backends_dir = PACKAGE / "backends"
    modules = sorted(path.stem for path in backends_dir.glob("*.py")
                     if path.stem not in ("__init__", "solvers", "outside"))
    assert {"sat", "mip", "external", "lowering", "process"} <= set(modules)
    for module in modules:
        name = f"ilp_pyramid.backends.{module}"
        assert not graph[name] & doors, (name, graph[name] & doors)
    assert not graph["ilp_pyramid.backends.lowering"] & {
        f"ilp_pyramid.backends.{m}" for m in ("sat", "mip", "cpsat", "maxsat", "linear")}


def test_the_walk_finds_every_kind_of_import_circle(tmp_path):
    """The walk is not blind: circles made by a type-checking import, a function-level one,
    a relative one and an import_module call with a constant name are all found."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import b\n",
        "b.py": "def f():\n    import pkg.a\n",
        "c.py": "from . import d\n",
        "d.py": "import importlib\nimportlib.import_module('pkg.c')\n",
        "sub/__init__.py": "from pkg.sub.e import x\n",
        "sub/e.py": "from .. import e_user\n",
        "e_user.py": "import pkg.sub\n",
        "alone.py": "import pkg.a\nimport os\n",
    }
    for name, text in files.items():
        (root / name).write_text(text)
    assert circles(import_graph(root)) == [
        ["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"], ["pkg.e_user", "pkg.sub", "pkg.sub.e"]]
