"""What the workbench's IQ page still asks here: whether `iq solve --solver NAME` can run.

IQ solves through `protocol.solve(PUZZLE, instance, solver)` like every puzzle; its
shorthands (auto, sat) are `IQPuzzle.solver_aliases`. `check_solver` stays for the page
(ui/pages/iq.py) until it asks `protocol.solver_for` itself.
"""

from __future__ import annotations

from ilp_pyramid import protocol
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.puzzle import PUZZLE


def check_solver(solver: str) -> None:
    """InputError for a solver name no backend knows (or one whose library is missing)."""
    try:
        protocol.solver_for(PUZZLE, solver)
    except InputError as exc:
        raise InputError(f"{exc} or {', '.join(PUZZLE.solver_aliases)}") from exc
