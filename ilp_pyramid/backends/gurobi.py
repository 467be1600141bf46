"""Gurobi through PuLP (gurobipy), in this process, stoppable by Ctrl-C and SIGTERM, silent
on stdout; only where gurobipy is installed (extra: gurobi).

The pip package runs without a licence file up to 2,000 variables and 2,000 constraints;
a larger model is bad input here (exit 2, one line), not a solver failure. Each solve gets an
environment of its own, started with output off, so not even the licence banner reaches
stdout; with --verbose the log goes to stderr. `model.optimize()` runs through
`inprocess.run`; an interrupt calls `model.terminate()`, which Gurobi documents as the way to
stop a solve from another thread.

`SolveOptions.extra` holds Gurobi parameters by name (`{"Symmetry": 2}`).
"""

from __future__ import annotations

import contextlib
import signal

import pulp

from ilp_pyramid.backends import inprocess, process
from ilp_pyramid.backends.base import Progress, SolveOptions
from ilp_pyramid.errors import InputError, Interrupted
from ilp_pyramid.extras import need

SIZE_LIMIT_EXCEEDED = 10010  # GRB.Error.SIZE_LIMIT_EXCEEDED
SIZE_LIMIT = 2000  # variables and constraints the size-limited licence allows


def require() -> None:
    """InputError (exit 2) naming the extra when gurobipy is not installed."""
    need("gurobipy")


class InterruptibleGurobi(pulp.GUROBI):
    """pulp.GUROBI whose solve can be interrupted, that never prints on stdout and that
    names the licence when a model is too large for it."""

    def __init__(self, progress: Progress | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.progress = progress

    def actualSolve(self, lp: pulp.LpProblem, callback=None) -> int:  # noqa: N802
        # Always: Gurobi's own SIGINT handler prints "Interrupt request received" whatever
        # OutputFlag says, and PuLP prints the status with print() when msg is on.
        import gurobipy

        with process.native_output(self.msg):
            try:
                return super().actualSolve(lp, callback)
            except gurobipy.GurobiError as exc:
                if "licen" not in str(exc).lower():
                    raise
                # An expired or missing licence is the user's to mend, as the size limit is.
                raise InputError(f"gurobi: {exc}; a valid Gurobi licence is needed") from None

    def __del__(self) -> None:
        # PuLP's close() disposes of a model that a refused licence never made.
        with contextlib.suppress(Exception):
            super().__del__()

    def callSolver(self, lp: pulp.LpProblem, callback=None) -> None:  # noqa: N802
        import gurobipy

        model = lp.solverModel
        try:
            inprocess.run(lambda: model.optimize(callback), model.terminate, "gurobi-solve",
                          self.progress)
            if model.Status == gurobipy.GRB.INTERRUPTED:
                # Gurobi catches SIGINT itself while it optimizes (our handler never runs)
                # and returns "interrupted"; our own terminate() comes only with an exception.
                raise Interrupted(signal.SIGINT)
        except gurobipy.GurobiError as exc:
            if exc.errno == SIZE_LIMIT_EXCEEDED:
                raise InputError(
                    f"gurobi: the model has {model.NumVars} variables and {model.NumConstrs} "
                    f"constraints, more than the size-limited licence allows ({SIZE_LIMIT} of "
                    f"each); a full Gurobi licence is needed") from None
            raise pulp.PulpSolverError(f"gurobi: {exc}") from None


    def findSolutionValues(self, lp: pulp.LpProblem) -> int:  # noqa: N802 - PuLP's name
        status = super().findSolutionValues(lp)
        # PuLP maps "not solved" (a limit) to the solution status "infeasible", which
        # mip.solve would report as a proof; a limit with no solution found is a timeout.
        model = lp.solverModel
        if status == pulp.LpStatusNotSolved:
            lp.assignStatus(status, pulp.LpSolutionIntegerFeasible if model.SolCount
                            else pulp.LpSolutionNoSolutionFound)
        return status


def solver(options: SolveOptions) -> pulp.LpSolver:
    require()
    params = dict(options.extra)
    if options.seed is not None:
        params["Seed"] = int(options.seed)
    if options.threads is not None:
        params["Threads"] = int(options.threads)
    quiet = {} if options.verbose else {"OutputFlag": 0}
    return InterruptibleGurobi(progress=options.progress, msg=options.verbose,
                               timeLimit=options.time_limit, manageEnv=True,
                               envOptions=dict(quiet), **params)
