"""`solve N --method exact` without the command-line machinery, and its text.

`ilp-pyramid solve N` (optionally `--json`) where --method auto runs an exact SAT engine
(the small sizes) is answered here before Typer is even imported: parsing a command line
through Typer (with its Pydantic adapters) and loading Rich cost more than the whole solve at
N <= 3, and `solve 1` is measured against a reference tool that starts in 0.08 s. Any other
command line, and any N the table gives another engine, goes the usual way (the one option
vocabulary stays Typer's; this path accepts only what it can answer exactly as the usual path
would: same output, same exit codes, the same verified solution).
"""

from __future__ import annotations

import sys

from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.puzzles.bel import runner
from ilp_pyramid.puzzles.bel.geometry import MAX_N, cell_count

EXIT_NO_SOLUTION, EXIT_TIMEOUT = 1, 3  # as cli_common's


def run(args: list[str]) -> int | None:
    """The exit code of `solve N [--json]` answered here, or None: not a case for this path."""
    if len(args) not in (2, 3) or args[0] != "solve" or args[2:] not in ([], ["--json"]):
        return None
    if not (args[1].isascii() and args[1].isdigit() and len(args[1]) <= 3):
        return None
    n = int(args[1])
    if not 1 <= n <= MAX_N:
        return None  # the usual path says what is wrong
    from ilp_pyramid.puzzles.bel import auto

    engine = auto.choose(n)
    if engine.method != "exact" or runner.form_for(engine.solver) == "mip":
        return None  # MIP models load PuLP; the hybrid search loads numba: Typer is no cost
    json_out = args[2:] == ["--json"]
    outcome = run_exact(n, engine.solver, "counts", SolveOptions(), None,
                        list(engine.strategies), engine, json_out)
    if auto.hands_over(engine, outcome):
        return _hand_over(n, engine, outcome, json_out)
    if json_out:
        from ilp_pyramid.output import print_json

        print_json(outcome.to_json())
    else:
        text, error = outcome_text(outcome)
        sys.stdout.write(text)
        sys.stdout.flush()
        if error:
            print(error, file=sys.stderr, flush=True)
    if outcome.solution is None:
        return EXIT_TIMEOUT if outcome.status == runner.TIMEOUT else EXIT_NO_SOLUTION
    return 0


def _hand_over(n: int, engine, outcome: runner.BelRun, json_out: bool) -> int:
    """auto.hand_over from here: the hybrid search prints the answer; its exit code."""
    from ilp_pyramid.puzzles.bel import auto

    return auto.hand_over(n, engine, outcome, None, None, None, json_out)


def run_exact(n: int, solver: str, formulation: str, options: SolveOptions, card: str | None,
              strategies: list[str], engine, json_out: bool) -> runner.BelRun:
    """One exact run as `solve` makes it: the first line of text, the live status line on a
    terminal, the run (verified), named after the auto engine when auto chose it."""
    if not json_out:
        how = f"engine {engine.name} (--method auto)" if engine else f"solver {solver}"
        print(f"Bel's Pyramid N={n}: {cell_count(n)} cells, {2 * n - 1} labels; "
              f"{how}, formulation {formulation}", flush=True)
    from ilp_pyramid.progress import LiveStatus, with_progress

    label = f"N={n} {engine.name if engine else 'exact:' + solver}"
    with LiveStatus(label, enabled=not json_out and sys.stderr.isatty()) as live:
        outcome = runner.run(n, solver, formulation, with_progress(options, live.update),
                             card=card, strategies=strategies)
    if engine is not None:
        from ilp_pyramid.puzzles.bel import auto

        outcome = auto.named(outcome, engine)
    return outcome


def outcome_text(outcome: runner.BelRun) -> tuple[str, str]:
    """What `solve` prints after its first line (stdout), and its error line (stderr) if any."""
    rows = "constraints" if runner.form_for(outcome.solver) == "mip" else "clauses"
    out = [f"model: {outcome.variables} variables, {outcome.constraints} {rows}; "
           f"build {outcome.build_seconds:.2f} s, solve {outcome.solve_seconds:.2f} s\n"]
    error = ""
    if outcome.solution is not None:
        out.append("verified: every cube of the set appears exactly once\n")
        out.append(outcome.solution.to_drawing())
    elif outcome.status == runner.TIMEOUT:
        out.append(f"timeout: no solution within the time limit "
                   f"({outcome.solve_seconds:.1f} s)\n")
    elif outcome.status == runner.INFEASIBLE:
        from ilp_pyramid.puzzles.bel.strategies import hypotheses

        assumed = hypotheses(outcome.strategies)
        out.append(f"infeasible under the hypotheses {', '.join(assumed)}: no labelling of this "
                   f"kind\n" if assumed else "infeasible: no labelling satisfies the model\n")
    else:
        error = f"error: the solver failed {outcome.message}".rstrip()
    return "".join(out), error
