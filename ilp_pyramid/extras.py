"""Optional dependencies: which extra brings each, and one message when it is missing.

The core install holds what `solve N` and its default engines need (PuLP with HiGHS and CBC,
python-sat, numba, networkx, typer). Pictures, the Dask cluster, the Sudoku Cube's face
turns, CP-SAT and pseudo-Boolean encodings come with extras (`pip install
'ilp-pyramid[all]'` for every one); asking for one that is not installed is bad input (exit
2) whose one line names the `pip install` to run.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from ilp_pyramid.errors import InputError

# import name -> (extra, what it is for)
EXTRAS = {
    "matplotlib": ("pictures", "a picture"),
    "plotly": ("pictures", "the interactive HTML view"),
    "distributed": ("cluster", "the hunt's Dask cluster"),
    "kociemba": ("sudoku", "finding the Sudoku Cube's face turns"),
    "ortools": ("cpsat", "OR-Tools CP-SAT"),
    "pindakaas": ("pb", "a pseudo-Boolean encoding"),
    "pyscipopt": ("scip", "the SCIP solver"),
    "gurobipy": ("gurobi", "the Gurobi solver"),
    "py_d4": ("count", "the #SAT counter D4"),
    "pyganak": ("count", "the #SAT counter Ganak"),
    "pyapproxmc": ("count", "ApproxMC's estimate"),
    "starlette": ("ui", "the web workbench"),
    "uvicorn": ("ui", "the web workbench"),
}


def install_hint(module: str) -> str:
    extra, what = EXTRAS[module]
    return f"{what} needs the optional package {module}: pip install 'ilp-pyramid[{extra}]'"


def available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def need(module: str) -> ModuleType:
    """`module`, imported; InputError (exit 2) with the pip line when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(install_hint(module)) from None
