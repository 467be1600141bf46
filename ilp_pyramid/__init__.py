"""Cube-and-pyramid puzzles as integer programs, solved by MIP and SAT solvers.

The Python API (docs/api.md): a puzzle by name, its instances, its models in each form, one
`solve` for every solver, the independent check, and pictures.

    >>> import ilp_pyramid
    >>> bel = ilp_pyramid.puzzle("bel")
    >>> result = ilp_pyramid.solve(bel, bel.instance(3), solver="kissat")
    >>> result.status
    <Status.SOLVED: 'solved'>

Importing the package loads no solver, no PuLP and no plotting: the names below are looked
up on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# The version is the installed distribution's (pyproject.toml holds it, version.py reads
# it): `__version__` is looked up on first use, since importlib.metadata costs more than a
# small solve may spend.

if TYPE_CHECKING:
    __version__: str
    from ilp_pyramid.backends.base import SolveOptions, Status
    from ilp_pyramid.backends.solvers import Solver
    from ilp_pyramid.bench.api import run_bench
    from ilp_pyramid.protocol import BenchCase, Infeasible, Model, Puzzle, Result, solve
    from ilp_pyramid.version import UNKNOWN_VERSION as UNKNOWN_VERSION

# name -> module that defines it; loaded on first access (PEP 562).
_LAZY = {
    "UNKNOWN_VERSION": "ilp_pyramid.version",
    "solve": "ilp_pyramid.protocol",
    "Model": "ilp_pyramid.protocol",
    "Result": "ilp_pyramid.protocol",
    "Puzzle": "ilp_pyramid.protocol",
    "BenchCase": "ilp_pyramid.protocol",
    "Status": "ilp_pyramid.backends.base",
    "SolveOptions": "ilp_pyramid.backends.base",
    "InputError": "ilp_pyramid.errors",
    "Solver": "ilp_pyramid.backends.solvers",
    "Infeasible": "ilp_pyramid.protocol",
    "run_bench": "ilp_pyramid.bench.api",
}

__all__ = ["BenchCase", "Infeasible", "InputError", "Model", "Puzzle", "Result", "SolveOptions",
           "Solver", "Status", "puzzle", "puzzle_names", "register_solver", "run_bench", "solve",
           "solver", "solvers"]


def puzzle(name: str) -> Puzzle:
    """The puzzle called `name` ("bel", "views", "iq", "sudoku-cube", "insanity", ...);
    InputError (one line) naming the choices for anything else."""
    from ilp_pyramid.puzzles import get

    return get(name)


def puzzle_names() -> list[str]:
    """The names of every puzzle the package has (not `puzzles`: that is the subpackage)."""
    from ilp_pyramid.puzzles import names

    return names()


def solvers() -> list[str]:
    """Every solver name `solve` takes here: the solver table's lines that are installed."""
    from ilp_pyramid.backends import solvers as table

    return table.names(installed=True, aliases=False)


def solver(name: str) -> Solver:
    """The solver called `name` (an alias too), resolved once: its `name`, `family`,
    `forms`, `extra`, `installed`, and `solve(form, what, options)`; InputError if unknown."""
    from ilp_pyramid.backends import solvers as table

    return table.solver(name)


def register_solver(name: str, format: str, command: str) -> Solver:  # noqa: A002
    """Add an outside program to the solver table under `name`: `solve` and `run_bench`
    then take it like any other solver. `format` is what it reads, "cnf", "wcnf" or "mps";
    `command` has `{file}` for the instance and, for "mps", `{solution}` for the solution
    file it writes (docs/backends.md). InputError (one line) for a bad definition. E.g.
    `register_solver("picosat", "cnf", "picosat {file}")`, then `solve(bel, bel.instance(3),
    solver="picosat")`: Debian's PicoSAT, its answer checked like every other.
    """
    from ilp_pyramid.backends import outside

    return outside.register(outside.outside_solver(name, format, command))



def __getattr__(name: str):
    if name == "__version__":
        from ilp_pyramid.version import installed_version

        globals()[name] = version = installed_version()
        return version
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ilp_pyramid' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
