"""`solve N --method auto`'s hybrid-search engines and the hand-over, as they run and print.

Which engine runs, and which one takes over, is puzzles/bel/auto.py's table; here the chosen
hybrid search runs as `--method lns` would (cli/bel/lns.py), its --json saying
`"method": "auto"` and the engine, and an exact engine whose hypotheses left no solution
hands over to the search of `auto.fallback(N)` with the time that is left.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ilp_pyramid.cli.bel.lns import run_lns_command
from ilp_pyramid.machine import cores
from ilp_pyramid.output import say
from ilp_pyramid.puzzles.bel.auto import Engine, fallback, race_jobs

# The repair behind each hybrid engine, as the first line names it.
REPAIRED_BY = {"mip": "HiGHS", "scip": "SCIP", "sat": "MiniSat", "dlx": "Dancing Links"}


def run_lns(n: int, engine: Engine, time_limit: float | None, seed: int | None,
            output: Path | None, json_out: bool, jobs: int = 1,
            json_extra: dict | None = None) -> int:
    """The hybrid search as `--method lns` runs it; --json says `"method": "auto"` too.
    Returns the exit code."""
    if not json_out:
        print(f"--method auto: engine {engine.name} for N={n}, the fastest measured "
              f"(exact-cover repairs by {REPAIRED_BY.get(engine.solver, '')}; table: solve "
              f"--help)", flush=True)
    extra = {"method": "auto", "engine": engine.name, **(json_extra or {})}
    return run_lns_command(n, engine.solver, time_limit, seed, output, json_out, jobs=jobs,
                           json_extra=extra)


def hand_over(n: int, engine: Engine, ruled_out: Any, time_limit: float | None,
              seed: int | None, output: Path | None, json_out: bool) -> int:
    """After `auto.hands_over(engine, result)`: the hybrid search of fallback(n) with the
    time that is left, racing as `solve` races at N; what it finds is the answer. Returns
    the exit code (0, or 3 at the time limit, never 1)."""
    other = fallback(n)
    say(f"no solution under the hypotheses {' + '.join(engine.hypotheses)} "
        f"({engine.name}, {ruled_out.solve_seconds:.2f} s): {other.name} takes over")
    spent = ruled_out.build_seconds + ruled_out.solve_seconds
    left = None if time_limit is None else max(0.0, time_limit - spent)
    return run_lns(n, other, left, seed, output, json_out, race_jobs(n, cores()),
                   json_extra={"ruled_out": {"engine": engine.name,
                                             "hypotheses": engine.hypotheses}})
