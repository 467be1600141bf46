"""CBC (PuLP's bundled binary), started by us so that it never outlives this process.

PuLP starts CBC with a plain Popen and waits: Ctrl-C or SIGTERM to the parent, or its death,
leaves CBC running until its own time limit. Here PuLP still writes the MPS and reads the
solution, but CBC runs through `process.start` (own process group, PR_SET_PDEATHSIG) and is
killed with its group when the wait is interrupted; PuLP's temporary files go with it. With a
progress callback CBC's log is read line by line for its incumbent, bound and node count.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
import warnings

import pulp

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import Progress, SolveOptions

# "Cbc0010I After 300 nodes, 12 on tree, 1e+50 best solution, best possible 0 (2.1 seconds)"
_NODES = re.compile(r"After (\d+) nodes, \d+ on tree, (\S+) best solution, best possible (\S+)")
_PROGRESS_EVERY = 1.0


class OwnProcessCBC(pulp.PULP_CBC_CMD):
    """PULP_CBC_CMD whose CBC dies with us and stops on interrupt."""

    def __init__(self, progress: Progress | None = None, **kwargs: object) -> None:
        with warnings.catch_warnings():
            # PuLP 3.3 warns that its bundled CBC moves to an extra in 4.0; 3.3 is what we pin.
            warnings.simplefilter("ignore", DeprecationWarning)
            super().__init__(**kwargs)
        self.progress = progress

    def solve_CBC(self, lp: pulp.LpProblem, use_mps: bool = True) -> int:  # noqa: N802
        if not self.executable(self.path):
            raise pulp.PulpSolverError(f"cannot execute CBC at {self.path}")
        tmp_lp, tmp_mps, tmp_sol, tmp_mst = self.create_tmp_files(lp.name, "lp", "mps", "sol",
                                                                  "mst")
        try:
            variables, var_names, con_names, _ = lp.writeMPS(tmp_mps, rename=1)
            args = [self.path, tmp_mps]
            if lp.sense == pulp.LpMaximize:
                args.append("-max")
            if self.timeLimit is not None:
                args += ["-sec", str(self.timeLimit)]
            for option in self.options + self.getOptions():
                args += ("-" + option).split()
            args += ["-solve", "-printingOptions", "all", "-solution", tmp_sol]
            code = self._run(args)
            if code != 0 or not os.path.exists(tmp_sol):
                raise pulp.PulpSolverError(f"CBC exited with code {code} and no solution file")
            status, values, costs, prices, slacks, sol_status = self.readsol_MPS(
                tmp_sol, lp, variables, var_names, con_names)
        finally:
            for path in (tmp_lp, tmp_mps, tmp_sol, tmp_mst):
                try:
                    os.unlink(path)
                except OSError:
                    pass
        lp.assignVarsVals(values)
        lp.assignVarsDj(costs)
        lp.assignConsPi(prices)
        lp.assignConsSlack(slacks, activity=True)
        lp.assignStatus(status, sol_status)
        return status

    def _run(self, args: list[str]) -> int:
        watch = self.msg or self.progress is not None
        child = process.start(args, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE if watch else subprocess.DEVNULL,
                              stderr=subprocess.STDOUT)
        try:
            if watch:
                reader = threading.Thread(target=self._read_log, args=(child.stdout,),
                                          daemon=True)
                reader.start()
            return child.wait()  # mip.solve holds process.interruptible()
        finally:
            process.stop(child)  # a no-op once CBC has exited; else it and its group die here

    def _read_log(self, stream) -> None:
        start = shown = time.perf_counter()
        latest: dict = {"incumbent": None, "bound": None, "nodes": 0}
        for raw in stream:
            line = raw.decode(errors="replace")
            if self.msg:  # the log asked for goes to stderr: stdout is the package's
                sys.stderr.write(line)
            match = _NODES.search(line)
            if match:
                best = float(match.group(2))
                latest = {"incumbent": best if best < 1e49 else None,
                          "bound": float(match.group(3)), "nodes": int(match.group(1))}
            now = time.perf_counter()
            if self.progress is not None and now - shown >= _PROGRESS_EVERY:
                shown = now
                self.progress({"elapsed": now - start, **latest})


def solver(options: SolveOptions) -> pulp.LpSolver:
    flags = [f"{k} {v}" for k, v in options.extra.items()]
    if options.seed is not None:
        flags.append(f"randomCbcSeed {int(options.seed) + 1}")  # CBC reads 0 as "no seed"
    return OwnProcessCBC(progress=options.progress, msg=options.verbose,
                         timeLimit=options.time_limit, threads=options.threads, options=flags)
