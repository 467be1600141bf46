"""The package's layers, read from its source with `ast` (every import, also those inside
functions): a rule broken here is an import that runs the wrong way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ilp_pyramid"
# Solver libraries: the backends' business, not the formats'.
SOLVER_LIBRARIES = ("highspy", "pysat.solvers", "ortools", "ilp_pyramid.backends")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
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
    "puzzles.bel is imported only inside bel/ and by cli.py": (
        lambda m: puzzle_of(m) != "bel" and m != "ilp_pyramid.cli",
        lambda m, i: within(i, "ilp_pyramid.puzzles.bel")),
    "bench imports no puzzle": (
        # it reaches a puzzle through the registry (`puzzles.get`) and the protocol only
        lambda m: within(m, "ilp_pyramid.bench"),
        lambda m, i: puzzle_of(i) not in (None, "get", "names", "REGISTRY")),
}


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
    ("puzzles.bel is imported only inside bel/ and by cli.py",
     "ilp_pyramid.backends.sat", "ilp_pyramid.puzzles.bel.cnf"),
    ("bench imports no puzzle", "ilp_pyramid.bench.grid", "ilp_pyramid.puzzles.bel.geometry"),
    ("bench imports no puzzle", "ilp_pyramid.bench.cli", "ilp_pyramid.puzzles.sudoku_cube"),
])
def test_each_rule_catches_the_import_it_forbids(rule, module, imported):
    applies, forbidden = RULES[rule]
    assert broken({module: {imported}}, applies, forbidden) == [f"{module} imports {imported}"]


def test_the_bench_may_ask_the_registry():
    applies, forbidden = RULES["bench imports no puzzle"]
    allowed = {"ilp_pyramid.puzzles", "ilp_pyramid.puzzles.get", "ilp_pyramid.protocol"}
    assert broken({"ilp_pyramid.bench.grid": allowed}, applies, forbidden) == []


def test_every_module_is_read():
    assert "ilp_pyramid.backends.base" in MODULES["ilp_pyramid.backends.mip"]
    assert len(MODULES) > 40 and "ilp_pyramid.formats.mipfile" in MODULES
