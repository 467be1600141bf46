"""MIP backends through PuLP: the form is a `pulp.LpProblem`, values come back by name.

MIP solvers are lines of the one solver table (`solvers.py`, family "mip", backend this
module); each names the module (`plugin`) that makes PuLP's solver object from
`SolveOptions` (`solver(options) -> pulp.LpSolver`, plus, where the solver can tell a limit
from a failure, `failure_message(problem)`). A new MIP solver through PuLP is one such
module and one table line (scip.py, gurobi.py). Whether it takes the orbitopes a model
declares is its line's `orbitopes`.
"""

from __future__ import annotations

import importlib
import time
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.backends.forms import load_pulp
from ilp_pyramid.errors import InputError

if TYPE_CHECKING:
    import pulp

    from ilp_pyramid.backends.base import Solver

def run(form: pulp.LpProblem, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The backend's door (`backends.solve`): a PuLP problem."""
    return solve(form, solver, options)


def solve(problem: pulp.LpProblem, solver: Solver, options: SolveOptions | None = None
          ) -> Result:
    """Solve `problem` with a MIP line of the solver table; values come back keyed by
    variable name.

    SIGINT/SIGTERM during the solve stop the solver (and its process) and raise
    `errors.Interrupted`.
    """
    if solver.backend != __name__:
        raise InputError(f"{solver.name} is no MIP solver")
    entry, solver = solver, solver.name
    pulp = load_pulp()
    options = options or SolveOptions()
    module = importlib.import_module(entry.plugin)
    from ilp_pyramid.mip_model import orbitopes  # imports PuLP: loaded above, not at start-up

    if orbitopes(problem) and not entry.orbitopes:
        # Dropping the declaration would solve another problem's symmetry silently, and no
        # backend writes it as rows (a model that wants rows asks for them).
        raise InputError(f"{solver} cannot take the orbitope this model declares (a solver "
                         f"whose table line takes orbitopes can, as scip's does)")
    backend = module.solver(options)
    start = time.perf_counter()
    try:
        with process.interruptible(), process.native_output(options.verbose):
            problem.solve(backend)
    except pulp.PulpSolverError as exc:
        return Result(solver, Status.ERROR, time.perf_counter() - start, message=str(exc))
    seconds = time.perf_counter() - start
    status = _status(problem)
    if status == Status.TIMEOUT and hasattr(module, "failure_message"):
        failure = module.failure_message(problem)
        if failure is not None:
            return Result(solver, Status.ERROR, seconds, message=failure)
    values: dict[str, float] = {}
    if status in (Status.SOLVED, Status.FEASIBLE):
        values = {v.name: (v.varValue or 0.0) for v in problem.variables()}
    objective = pulp.value(problem.objective) if values and problem.objective else None
    return Result(solver, status, seconds, values=values, objective=objective)


def _status(problem: pulp.LpProblem) -> Status:
    pulp = load_pulp()
    # PuLP folds "time limit with an incumbent" into Optimal; sol_status keeps them apart.
    if problem.sol_status == pulp.LpSolutionOptimal:
        return Status.SOLVED
    if problem.sol_status == pulp.LpSolutionIntegerFeasible:
        return Status.FEASIBLE
    if problem.sol_status == pulp.LpSolutionInfeasible or problem.status == pulp.LpStatusInfeasible:
        return Status.INFEASIBLE
    if problem.status == pulp.LpStatusNotSolved:
        return Status.TIMEOUT
    return Status.ERROR
