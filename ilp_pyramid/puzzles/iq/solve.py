"""Solve an IQ instance with any backend: its exact cover goes to Dancing Links as it is and
to HiGHS/CBC (MIP), a SAT solver or CP-SAT through the backends' one lowering."""

from __future__ import annotations

from dataclasses import dataclass, field

from ilp_pyramid import backends
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.model import Instance

SOLVED, INFEASIBLE, TIMEOUT, ERROR = Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT, Status.ERROR
SOLVER_CHOICES = ("auto", "dlx", "highs", "cbc", "sat", "cpsat")
# The engine `auto` runs: the fastest measured overall (docs/iq.md, "Solving times").
AUTO_ENGINE = "dlx"
SAT_ENGINE = "kissat"  # what `--solver sat` runs


@dataclass
class IQResult:
    status: Status
    solver: str
    seconds: float
    assignment: dict[int, int] = field(default_factory=dict)  # board cell -> piece index
    message: str = ""


def engine_for(solver: str) -> str:
    """The backend solver a --solver choice names: auto and sat are IQ's own shorthands."""
    return {"auto": AUTO_ENGINE, "sat": SAT_ENGINE}.get(solver, solver)


def check_solver(solver: str) -> None:
    """InputError for a solver name no backend knows (or cpsat without OR-Tools)."""
    try:
        backends.require(engine_for(solver))
    except InputError as exc:
        raise InputError(f"{exc} or auto, sat") from exc


def exact_cover_form(instance: Instance) -> backends.ExactCoverForm:
    """The instance as the backends' exact-cover form, rows and items named for export."""
    rows, primary, secondary = instance.exact_cover_rows()
    row_names, item_names = instance.exact_cover_names()
    return backends.ExactCoverForm(rows, primary, secondary, row_names=row_names,
                                   item_names=item_names,
                                   name=f"iq_{instance.board.name}".replace(".", "_"))


def solve_instance(instance: Instance, solver: str = "auto",
                   options: SolveOptions | None = None) -> IQResult:
    """Fill the instance with `solver` (any backend solver, or auto / sat)."""
    options = options or SolveOptions()
    engine = engine_for(solver)
    if not instance.free_cells:
        return IQResult(SOLVED, engine, 0.0, instance.assignment([]))
    result = backends.solve(exact_cover_form(instance), engine, options)
    if result.has_solution:
        return IQResult(SOLVED, engine, result.seconds, instance.assignment(result.rows))
    if result.status in (INFEASIBLE, TIMEOUT):
        return IQResult(result.status, engine, result.seconds, message=result.message)
    return IQResult(ERROR, engine, result.seconds,
                    message=result.message or f"the solver stopped ({result.status})")
