"""Options, output and error handling shared by every sub-command."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

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


# Set once a command has printed its own error line, so main() does not add a second one.
reported = False


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr and a non-zero exit; never a traceback."""
    global reported
    reported = True
    err_console.print(f"error: {message}", markup=False, soft_wrap=True)
    raise typer.Exit(code)


Parsed = TypeVar("Parsed")


def load_input(path: Path, parse: Callable[[str], Parsed]) -> Parsed:
    """Read and parse a user's file; an unreadable or malformed one is a one-line error."""
    from ilp_pyramid.errors import InputError
    from ilp_pyramid.formats.fileio import read_text

    try:
        text = read_text(path)
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    try:
        return parse(text)
    except InputError as exc:
        fail(f"{path}: {exc}")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=None, separators=(", ", ": ")) + "\n")
