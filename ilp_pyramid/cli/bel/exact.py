"""`solve N --method exact` as it runs and prints, without Typer or Rich.

The Typer command (cli/bel/solve.py) and the quick path (cli/bel/quick.py) both solve and
print through here, so that they cannot drift apart: the first line before the solve, the
live status line on a terminal, the one solve path (`protocol.solve`), then the text or the
`Result.to_json()` object and the exit code.
"""

from __future__ import annotations

import sys

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.backends.solvers import Solver
from ilp_pyramid.errors import SolverError
from ilp_pyramid.output import print_json, say
from ilp_pyramid.progress import LiveStatus, with_progress
from ilp_pyramid.puzzles.bel.auto import Engine
from ilp_pyramid.puzzles.bel.geometry import cell_count
from ilp_pyramid.puzzles.bel.puzzle import PUZZLE

# As cli/options.py's (which loads Typer and Rich): 1 no solution, 3 time limit.
EXIT_NO_SOLUTION, EXIT_TIMEOUT = 1, 3

# The end of the live line of a run without a time limit: a MIP solver's bound and node count
# can stand still for minutes (`bound 0  0 nodes` at N=4), which looks hung.
NO_LIMIT = "no time limit: Ctrl-C to stop"
# From this N on, an exact MIP run without a time limit is known to be long: seconds at N=3
# (CBC often not within the limits tried), no MIP solver within the limits tried at N=4 (the
# measurements: docs/mip.md, docs/mip_vs_sat.md, docs/sat.md).
LONG_FROM = 3


def solve_exact(n: int, solver: str | Solver, formulation: str, options: SolveOptions,
                card: str | None, strategies: list[str] | None, engine: Engine | None,
                json_out: bool) -> protocol.Result:
    """One exact solve as `solve` makes it: the first line of text, the live status line on
    a terminal, the verified result; named after the auto engine when auto chose it. A MIP
    run without a time limit says so on the live line, and at the start, on a terminal's
    stderr, when it is known to be long (`long_run_note`): a script's stderr stays the one
    line of the CLI contract (bad input, an interruption)."""
    solver = protocol.solver_for(PUZZLE, solver)  # the object passed on: resolved once
    if not json_out:
        how = f"engine {engine.name} (--method auto)" if engine else f"solver {solver}"
        print(f"Bel's Pyramid N={n}: {cell_count(n)} cells, {2 * n - 1} labels; "
              f"{how}, formulation {formulation}", flush=True)
    unbounded = solver.reads("mip") and options.time_limit is None
    if unbounded and engine is None and n >= LONG_FROM and sys.stderr.isatty():
        say(long_run_note(n))
    label = f"N={n} {engine.name if engine else 'exact:' + solver.name}"
    with LiveStatus(label, enabled=not json_out and sys.stderr.isatty(),
                    note=NO_LIMIT if unbounded else "") as live:
        result = protocol.solve(PUZZLE, n, solver, with_progress(options, live.update),
                                formulation=formulation, card=card, strategies=strategies)
    if engine is not None:
        result.keys = {**result.keys, "method": "auto", "engine": engine.name}
    return result


def long_run_note(n: int) -> str:
    """The line on stderr before an exact MIP run at N >= LONG_FROM without a time limit."""
    if n == LONG_FROM:
        outlook = "may run for minutes (measured: docs/mip.md)"
    else:
        outlook = "may run for a long time (measured: docs/mip.md)"
    return (f"note: no time limit; exact MIP at N={n} {outlook}: bound it with --time-limit "
            f"SECONDS, or drop --solver for the fastest engine")


def show(result: protocol.Result, json_out: bool, extra: dict | None = None) -> int:
    """Print the result (text, or its JSON with `extra` keys) and return the exit code.
    An answer the independent checker refused is one error line, as any failed solver."""
    if refused(result):
        raise SolverError(f"{result.solver}: {result.detail}")
    if json_out:
        print_json({**result.to_json(), **(extra or {})})
    else:
        text, error = result_text(result)
        sys.stdout.write(text)
        sys.stdout.flush()
        if error:
            say(error)
    return exit_code(result)


def refused(result: protocol.Result) -> bool:
    """The solver answered, and its answer did not decode or failed the check."""
    return result.status is Status.ERROR and result.backend is not None \
        and result.backend.has_solution


def exit_code(result: protocol.Result) -> int:
    if result.solution is not None:
        return 0
    return EXIT_TIMEOUT if result.status is Status.TIMEOUT else EXIT_NO_SOLUTION


def result_text(result: protocol.Result) -> tuple[str, str]:
    """What `solve` prints after its first line (stdout), and its error line (stderr) if any."""
    rows = "constraints" if result.form == "mip" else "clauses"
    out = [f"model: {result.variables} variables, {result.constraints} {rows}; "
           f"build {result.build_seconds:.2f} s, solve {result.solve_seconds:.2f} s\n"]
    error = ""
    if result.solution is not None:
        out.append("verified: every cube of the set appears exactly once\n")
        out.append(result.solution.to_drawing())
    elif result.status is Status.TIMEOUT:
        out.append(f"timeout: no solution within the time limit "
                   f"({result.solve_seconds:.1f} s)\n")
    elif result.status is Status.INFEASIBLE:
        assumed = result.hypotheses
        out.append(f"infeasible under the hypotheses {', '.join(assumed)}: no labelling of this "
                   f"kind\n" if assumed else "infeasible: no labelling satisfies the model\n")
    else:
        message = result.backend.message if result.backend is not None else result.detail
        error = f"error: the solver failed {message}".rstrip()
    return "".join(out), error
