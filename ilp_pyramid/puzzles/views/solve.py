"""One views instance end to end: unsolvable check -> MIP -> decode -> verify -> cross-check.

The CLI and the tests go through `run`, so no answer is reported unless the independent
re-projection accepted it, and none is called optimal unless the MIP proved it or the exact
branch and bound (`engine.py`) reached the same count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ilp_pyramid import backends
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import SolverError
from ilp_pyramid.puzzles.views.geometry import (
    Views,
    layer_rows,
    maximal_placement,
    placement_bits,
    projections,
)
from ilp_pyramid.verify.views import verify_answer, verify_unsolvable

# The one status vocabulary (backends/base.py); views that no placement shows are
# "infeasible", with the detail "unsolvable views" (--json "reason").
SOLVED, INFEASIBLE, TIMEOUT, ERROR = Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT, Status.ERROR
UNSOLVABLE_REASON = "unsolvable views"
CHECK_NODE_LIMIT = 500_000  # the cross-check gives up (and says so) beyond this


@dataclass
class ViewsRun:
    views: Views
    status: Status
    solver: str
    placement: np.ndarray | None = None
    proved_by: str = ""  # "mip" or "branch and bound" when the optimum is certain
    build_seconds: float = 0.0
    solve_seconds: float = 0.0
    variables: int = 0
    constraints: int = 0
    check: str = ""  # what the second exact method said
    check_cubes: int | None = None
    missing: list[str] | None = None  # unsolvable: the pixels no cell can show
    message: str = ""
    detail: str = ""  # what the puzzle knows beyond the status: UNSOLVABLE_REASON

    @property
    def cubes(self) -> int | None:
        return int(self.placement.sum()) if self.placement is not None else None

    @property
    def bits(self) -> str | None:
        return placement_bits(self.placement) if self.placement is not None else None

    def to_json(self) -> dict:
        from ilp_pyramid.puzzles.views.geometry import bits_hex

        return {
            "solvable": self.detail != UNSOLVABLE_REASON,
            "cubes": self.cubes if self.status == SOLVED else None,
            "bits": self.bits if self.status == SOLVED else None,
            "hex": bits_hex(self.bits) if self.status == SOLVED else None,
            "layers": layer_rows(self.placement) if self.status == SOLVED else None,
            "n": self.views.n,
            "input": self.views.hex() or self.views.bits(),
            "status": self.status,
            "reason": self.detail or None,
            "missing": self.missing,  # unsolvable: the pixels no cell can show (why)
            "solver": self.solver,
            "proved_by": self.proved_by or None,
            "check": self.check or None,
            "lower_bound": lower_bound(self.views),
            "variables": self.variables,
            "constraints": self.constraints,
            "build_seconds": round(self.build_seconds, 4),
            "solve_seconds": round(self.solve_seconds, 4),
            "message": self.message,
        }


def lower_bound(views: Views) -> int:
    """The spec's bound: each cube shows at most one pixel of each view."""
    return int(max(views.top.sum(), views.front.sum(), views.side.sum()))


def missing_pixels(views: Views) -> list[str]:
    """Set pixels that no cell can show (the largest placement misses them)."""
    shown = projections(maximal_placement(views))
    out = []
    for name in ("top", "front", "side"):
        lack = getattr(views, name) & ~getattr(shown, name)
        out += [f"{name} row {r} column {c}" for r, c in zip(*np.nonzero(lack), strict=True)]
    return out


def run(views: Views, solver: str = "highs", options: SolveOptions | None = None,
        check: bool = True) -> ViewsRun:
    options = options or SolveOptions()
    if not views.solvable():
        verdict = verify_unsolvable(views.bits())
        if not verdict.valid:
            raise SolverError("internal error: the unsolvable verdict failed its check")
        return ViewsRun(views, INFEASIBLE, solver, missing=missing_pixels(views),
                        detail=UNSOLVABLE_REASON)

    from ilp_pyramid.puzzles.views.model import build_model

    model = build_model(views)
    result = backends.solve(model.problem, solver, options)
    outcome = ViewsRun(views, ERROR, solver, build_seconds=model.build_seconds,
                       solve_seconds=result.seconds, variables=model.num_variables,
                       constraints=model.num_constraints, message=result.message)
    if result.status == Status.TIMEOUT:
        outcome.status = TIMEOUT
        return outcome
    if not result.has_solution:
        outcome.message = outcome.message or f"the solver answered {result.status}"
        return outcome  # solvable views, so "infeasible" would be a solver failure

    placement = model.decode(result.values)
    verdict = verify_answer(views.bits(), placement_bits(placement))
    if not verdict.valid:
        raise SolverError(f"{solver} returned cubes that fail the re-projection: "
                          f"{'; '.join(verdict.reasons()[:3])}")
    outcome.placement = placement
    if result.status == Status.SOLVED:
        outcome.proved_by = "mip"
    if check or not outcome.proved_by:
        _cross_check(outcome)
    if not outcome.proved_by:
        outcome.status = TIMEOUT
        outcome.message = (f"best found {outcome.cubes} cubes, optimality not proved within "
                           f"the time limit")
        outcome.placement = None
        return outcome
    outcome.status = SOLVED
    return outcome


def _cross_check(outcome: ViewsRun) -> None:
    """Second exact method: the branch and bound must reach the same count."""
    from ilp_pyramid.puzzles.views.engine import solve_fast

    fast = solve_fast(outcome.views, CHECK_NODE_LIMIT)
    if not fast.proved:
        outcome.check = f"branch and bound stopped after {fast.nodes} nodes (not checked)"
        return
    outcome.check_cubes = fast.cubes
    mine = outcome.cubes
    if outcome.proved_by and fast.cubes != mine:
        raise SolverError(f"the MIP proved {mine} cubes but the branch and bound proved "
                          f"{fast.cubes}: one of them is wrong")
    if fast.cubes > mine:
        raise SolverError(f"the branch and bound proved {fast.cubes} cubes but the MIP found "
                          f"a verified {mine}: the branch and bound is wrong")
    if not outcome.proved_by:
        if fast.cubes < mine:
            # The MIP stopped early on a worse cover; the proved one is the answer.
            verdict = verify_answer(outcome.views.bits(), placement_bits(fast.placement))
            if not verdict.valid:
                raise SolverError("the branch and bound's cubes fail the re-projection")
            outcome.placement = fast.placement
        outcome.proved_by = "branch and bound"
    outcome.check = f"branch and bound proves {fast.cubes} cubes ({fast.nodes} nodes)"
