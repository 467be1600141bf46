"""`ilp-pyramid solve N [--json]` answered before Typer is even imported.

Where --method auto runs an exact SAT engine (the small sizes), parsing a command line
through Typer (with its Pydantic adapters) and loading Rich cost more than the whole solve at
N <= 3, and `solve 1` is measured against a reference tool that starts fast (docs/bel.md,
"Measured: against the reference tool"). Any other command line, and any N the table gives
another engine, goes the usual way (the one option vocabulary stays Typer's; this path
accepts only what it can answer exactly as the usual path would: same output, same exit
codes, the same verified solution, printed by the same code, cli/bel/exact.py).
"""

from __future__ import annotations

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.cli.bel import exact as bel_exact
from ilp_pyramid.puzzles.bel import auto
from ilp_pyramid.puzzles.bel.geometry import MAX_N
from ilp_pyramid.puzzles.bel.puzzle import PUZZLE


def run(args: list[str]) -> int | None:
    """The exit code of `solve N [--json]` answered here, or None: not a case for this path."""
    if len(args) not in (2, 3) or args[0] != "solve" or args[2:] not in ([], ["--json"]):
        return None
    if not (args[1].isascii() and args[1].isdigit() and len(args[1]) <= 3):
        return None
    n = int(args[1])
    if not 1 <= n <= MAX_N:
        return None  # the usual path says what is wrong
    engine = auto.choose(n)
    if engine.method != "exact" or protocol.pick_form(PUZZLE, engine.solver) != "cnf":
        return None  # MIP models load PuLP; the hybrid search loads numba: Typer is no cost
    json_out = args[2:] == ["--json"]
    result = bel_exact.solve_exact(n, engine.solver, "counts", SolveOptions(), None,
                                   list(engine.strategies), engine, json_out)
    if auto.hands_over(engine, result):
        from ilp_pyramid.cli.bel.auto import hand_over  # the search: numpy, Rich

        return hand_over(n, engine, result, None, None, None, json_out)
    return bel_exact.show(result, json_out)
