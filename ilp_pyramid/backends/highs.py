"""HiGHS through PuLP (highspy, in this process), stoppable by Ctrl-C and SIGTERM.

PuLP calls `Highs.run()` on the main thread, where no Python signal handler can run until
HiGHS returns. Here the solve runs on highspy's own solver thread while the main thread waits
in short slices: a signal raises there (`process.interruptible`), HiGHS is asked to stop
through its interrupt callback, and the interrupt propagates once it has (at most a few
tenths of a second on the Bel models). The same wait reports progress when asked to.
highspy prints a banner on fd 1 when the `Highs` object is made, before any option can be
set: `mip.solve` holds `process.native_output` around the whole solve for that.
"""

from __future__ import annotations

import time

import pulp

from ilp_pyramid.backends.base import Progress, SolveOptions

# How long the main thread sleeps between looks at the solver thread (and progress calls).
_SLICE = 0.1
_PROGRESS_EVERY = 1.0
# How long a cancelled HiGHS gets to return before the interrupt propagates anyway (its thread
# is a daemon; the CLI then ends the process with os._exit, which a running HiGHS survives
# without the abort its static destructors would cause at a normal exit).
_CANCEL_WAIT = 0.8


class InterruptibleHiGHS(pulp.HiGHS):
    """pulp.HiGHS whose solve can be interrupted and reports progress."""

    def __init__(self, progress: Progress | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.progress = progress

    def callSolver(self, lp: pulp.LpProblem) -> None:  # noqa: N802 - PuLP's name
        highs = lp.solverModel
        highs.HandleUserInterrupt = True  # cancelSolve() now stops the run at its next check
        latest: dict = {"incumbent": None, "bound": None, "nodes": 0}
        if self.progress is not None:
            highs.cbMipInterrupt.subscribe(lambda event: _record(event, latest))
        start = time.perf_counter()
        shown = start
        thread = highs.startSolve()
        try:
            while not highs.wait(_SLICE)[0]:
                now = time.perf_counter()
                if self.progress is not None and now - shown >= _PROGRESS_EVERY:
                    shown = now
                    self.progress({"elapsed": now - start, **latest})
        except BaseException:
            highs.cancelSolve()
            thread.join(_CANCEL_WAIT)
            raise


def _record(event, latest: dict) -> None:
    out = event.data_out
    incumbent = out.mip_primal_bound
    latest["incumbent"] = incumbent if abs(incumbent) < 1e300 else None
    latest["bound"] = out.mip_dual_bound
    latest["nodes"] = int(out.mip_node_count)


def solver(options: SolveOptions) -> pulp.LpSolver:
    params = dict(options.extra)
    if options.seed is not None:
        params["random_seed"] = int(options.seed)
    return InterruptibleHiGHS(progress=options.progress, msg=options.verbose,
                              timeLimit=options.time_limit, threads=options.threads, **params)


def failure_message(problem: pulp.LpProblem) -> str | None:
    """None if HiGHS stopped at a limit; else its own words for the failure.

    PuLP calls every HiGHS failure "not solved"; only a limit is a timeout.
    """
    import highspy

    limits = {highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit,
              highspy.HighsModelStatus.kInterrupt, highspy.HighsModelStatus.kSolutionLimit}
    model = problem.solverModel
    status = model.getModelStatus()
    return None if status in limits else f"HiGHS: {model.modelStatusToString(status)}"
