"""Options, output and error handling shared by every sub-command."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console

from ilp_pyramid.backends.base import SolveOptions

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

# Exit codes: 0 solved / valid, 1 no solution (infeasible, invalid), 2 usage, 3 timeout.
EXIT_NO_SOLUTION = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3

TimeLimit = typer.Option(None, "--time-limit", min=0.0, help="Wall-clock limit in seconds.")
Threads = typer.Option(None, "--threads", min=1, help="Solver threads (default: solver's own).")
Seed = typer.Option(None, "--seed", min=0, help="Random seed passed to the solver.")
Json = typer.Option(False, "--json", help="Print one JSON object instead of text.")


def solve_options(time_limit: float | None, threads: int | None, seed: int | None,
                  verbose: bool = False, **extra: Any) -> SolveOptions:
    return SolveOptions(time_limit=time_limit, threads=threads, seed=seed, verbose=verbose,
                        extra=extra)


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr and a non-zero exit; never a traceback."""
    err_console.print(f"error: {message}", markup=False, soft_wrap=True)
    raise typer.Exit(code)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=None, separators=(", ", ": ")) + "\n")
