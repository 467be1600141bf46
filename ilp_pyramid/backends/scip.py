"""SCIP through PuLP (PySCIPOpt, SCIP bundled in its wheel), in this process, stoppable by
Ctrl-C and SIGTERM, silent on stdout.

PuLP's SCIP_PY calls `Model.optimize()` on the main thread, holding the GIL, with SCIP's own
SIGINT handler installed (`misc/catchctrlc`) and SIGTERM unseen. Here SCIP's handler is off
and `optimizeNogil()` runs through `inprocess.run`: a signal stops the wait, SCIP is asked to
stop (`interruptSolve`, honoured at its next check) and the interrupt propagates.

SCIP writes its log through C stdio to fd 1. Without --verbose the log is off
(`hideOutput`); with it, it goes to stderr (`process.native_output`). SCIP's tree search
runs on one thread here (`--threads` does not change it); progress reports elapsed time only
(SCIP's statistics are not safe to read from another thread while it solves).

SOS1 sets declared on the PuLP problem (`problem.sos1`) become SCIP SOS1 constraints.

`SolveOptions.extra` holds SCIP parameters by name (`{"misc/usesymmetry": 0}`) plus one key
of ours, `emphasis` (a `SCIP_PARAMEMPHASIS` name: `feasibility`, `easycip`, ...).
"""

from __future__ import annotations

import pulp

from ilp_pyramid.backends import inprocess, process
from ilp_pyramid.backends.base import Progress, SolveOptions
from ilp_pyramid.errors import InputError
from ilp_pyramid.extras import need

# Settings this backend applies unless `extra` overrides them (`emphasis=default` for
# SCIP's own). SCIP's CP emphasis (no LP, depth-first search, 1-UIP conflicts, restarts)
# took a median 1.4 s of solve time at N=3 against 10 s with SCIP's defaults (5 seeds,
# docs/mip.md, docs/mip_n3.jsonl): the LP relaxation of the Bel model decides nothing.
DEFAULTS: dict[str, object] = {"emphasis": "cpsolver"}


def require() -> None:
    """InputError (exit 2) naming the extra when PySCIPOpt is not installed."""
    need("pyscipopt")


class InterruptibleSCIP(pulp.SCIP_PY):
    """pulp.SCIP_PY whose solve can be interrupted, reports progress and never prints on
    stdout."""

    def __init__(self, progress: Progress | None = None, seed: int | None = None,
                 params: dict | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.progress = progress
        self.seed = seed
        self.params = dict(params or {})

    def buildSolverModel(self, lp: pulp.LpProblem) -> None:  # noqa: N802 - PuLP's name
        super().buildSolverModel(lp)
        model = lp.solverModel
        if not self.msg:
            model.hideOutput()
        params = dict(self.params)
        emphasis = params.pop("emphasis", None)
        if emphasis is not None:
            from pyscipopt import SCIP_PARAMEMPHASIS

            setting = getattr(SCIP_PARAMEMPHASIS, str(emphasis).upper(), None)
            if setting is None:
                raise InputError(f"unknown SCIP emphasis {emphasis!r}")
            model.setEmphasis(setting, True)
        # After the emphasis: "default" resets every parameter, PuLP's time limit included.
        if self.timeLimit is not None:
            model.setParam("limits/time", self.timeLimit)
        model.setParam("misc/catchctrlc", False)  # our handler, for SIGINT and SIGTERM alike
        if self.seed is not None:
            model.setParam("randomization/randomseedshift", int(self.seed))
        for name, value in params.items():
            try:
                model.setParam(name, value)
            except (LookupError, ValueError, TypeError) as exc:
                raise InputError(f"SCIP parameter {name}={value!r}: {exc}") from None
        for name, weights in lp.sos1.items():  # PuLP's SCIP_PY leaves them out
            model.addConsSOS1([var.solverVar for var in weights], list(weights.values()),
                              name=str(name))

    def callSolver(self, lp: pulp.LpProblem) -> None:  # noqa: N802 - PuLP's name
        model = lp.solverModel
        with process.native_output(self.msg):
            inprocess.run(model.optimizeNogil, model.interruptSolve, "scip-solve",
                          self.progress)


def solver(options: SolveOptions) -> pulp.LpSolver:
    require()
    return InterruptibleSCIP(progress=options.progress, seed=options.seed,
                             params={**DEFAULTS, **options.extra}, msg=options.verbose,
                             timeLimit=options.time_limit)
