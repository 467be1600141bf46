"""Options, output and error handling shared by every sub-command."""

from __future__ import annotations

import copy
import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer

from ilp_pyramid.backends import outside
from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.backends.solvers import listing
from ilp_pyramid.cli.consoles import (  # noqa: F401 - apart: the quick paths load no Typer
    console,
    err_console,
    print_table,
)
from ilp_pyramid.errors import InputError, one_line
from ilp_pyramid.formats.csvrows import locate
from ilp_pyramid.formats.fileio import read_text, write_atomic
from ilp_pyramid.machine import cores
from ilp_pyramid.output import print_json

# Exit codes: 0 solved / valid, 1 no solution (infeasible, invalid), 2 usage, 3 timeout.
EXIT_NO_SOLUTION = 1
EXIT_USAGE = 2
EXIT_TIMEOUT = 3

# The longest time limit taken: a year. More (or inf, nan) is a typo, and solvers overflow.
MAX_SECONDS = 365 * 24 * 3600.0


def finite_seconds(param: typer.CallbackParam, value: float | None) -> float | None:
    """Option callback: a time limit is a finite number of seconds (no inf, no nan)."""
    if value is not None and not 0 <= value <= MAX_SECONDS:  # nan fails every comparison
        raise typer.BadParameter(f"{value} is not a number of seconds between 0 and "
                                 f"{MAX_SECONDS:.0f}", param=param)
    return value


def cap_to_cores(param: typer.CallbackParam, value: int | None) -> int | None:
    """Option callback for --threads/--jobs: at most one per core, with a note when capped."""
    available = cores()
    if value is not None and value > available:
        err_console.print(f"note: {param.opts[0]} {value} capped at the machine's "
                          f"{available} cores", markup=False)
        return available
    return value


def check_memory(needed: int, what: str) -> None:
    """Refuse (exit 2, with the estimate) what would not fit in the memory available now."""
    available = available_memory()
    if available is not None and needed > available:
        fail(f"{what} would need about {needed / 2**30:.1f} GiB of memory; "
             f"{available / 2**30:.1f} GiB is available")


def available_memory() -> int | None:
    """MemAvailable from /proc/meminfo in bytes (None where there is no such file)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


# The option vocabulary: one spelling, one short flag, one type and one meaning per option
# across every command (docs/cli.md is the table; tests/test_cli_vocabulary.py keeps it so).
# A command that needs its own default or help text takes a copy through `like`.
TimeLimit = typer.Option(None, "--time-limit", min=0.0, callback=finite_seconds,
                         help="Wall-clock limit in seconds.")
Threads = typer.Option(None, "--threads", min=1, callback=cap_to_cores,
                       help="Solver threads (default: solver's own; at most the cores).")
Seed = typer.Option(None, "--seed", min=0, help="Random seed passed to the solver.")
SolverSeed = typer.Option(None, "--solver-seed", min=0,
                          help="The solver's own random seed, apart from the instance's "
                               "(default: --seed).")
Json = typer.Option(False, "--json", help="Print one JSON object instead of text.")
Jobs = typer.Option(None, "--jobs", "-j", min=1, callback=cap_to_cores,
                    help="Worker processes (default: one per core; at most the cores).")
Output = typer.Option(None, "--output", "-o", help="File to write (.gz: gzip).")
Format = typer.Option(None, "--format", "-f", help="lp | mps (default: from the file name).")
Solver = typer.Option(None, "--solver", "-s", help="The solver.")
Verbose = typer.Option(False, "--verbose", "-v", help="Show the solver's log (on stderr).")


def register_solver_commands(param: typer.CallbackParam, value: list[str] | None
                             ) -> list[str]:
    """Option callback for --solver-command: each NAME=FORMAT:COMMAND becomes a line of the
    solver table (backends/outside.py) before the command resolves its --solver."""
    for text in value or []:
        try:
            outside.register(text)
        except InputError as exc:
            raise typer.BadParameter(str(exc), param=param) from None
    return list(value or [])


SolverCommand = typer.Option(
    None, "--solver-command", callback=register_solver_commands,
    help="An outside solver NAME=FORMAT:COMMAND that --solver then names (repeatable): "
         "FORMAT cnf (SAT Competition output), wcnf (MaxSAT Evaluation output) or mps (a "
         "solution file: MIPLIB .sol, glpsol -w or cbc's); COMMAND with {file} for the "
         "instance and, for mps, {solution} for the file it writes, e.g. "
         "'picosat=cnf:picosat {file}' (docs/backends.md).")


def like(option: Any, **changes: Any) -> Any:
    """A copy of a shared option with its own default, help or show_default: the spelling,
    short flag, type and checks stay those of the vocabulary."""
    copied = copy.copy(option)
    for name, value in changes.items():
        if not hasattr(copied, name) or name in ("param_decls", "callback", "min", "max"):
            raise TypeError(f"like() changes defaults and help only, not {name!r}")
        setattr(copied, name, value)
    return copied


def solver_names(*families: str) -> str:
    """'highs | cbc | ...' for help texts, from the one solver table (a solver added there
    shows in every help at once; nothing is imported). Families: mip, sat, cp, dlx, maxsat."""
    return listing(*families)


def solve_options(time_limit: float | None, threads: int | None, seed: int | None,
                  verbose: bool = False, solver_seed: int | None = None,
                  **extra: Any) -> SolveOptions:
    """The options of a solve; the solver's seed is `solver_seed` (--solver-seed) where
    given, else `seed` (--seed, which may also have picked the instance)."""
    return SolveOptions(time_limit=time_limit, threads=threads,
                        seed=seed if solver_seed is None else solver_seed, verbose=verbose,
                        extra=extra)


# Set once a command has printed its own error line, so main() does not add a second one.
reported = False


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr and a non-zero exit; never a traceback."""
    global reported
    reported = True
    err_console.print(f"error: {one_line(message)}", markup=False)
    raise typer.Exit(code)


Parsed = TypeVar("Parsed")


def load_input(path: Path, parse: Callable[[str], Parsed]) -> Parsed:
    """Read (`fileio.read_text`: bounded, gzip transparent) and parse a user's file; an
    unreadable, oversized or malformed one is a one-line error and exit 2."""

    try:
        text = read_text(path)
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")
    except InputError as exc:  # too large, broken gzip: the message names the file
        fail(str(exc))
    try:
        return parse(text)
    except InputError as exc:
        fail(f"{path}: {exc}")
    except csv.Error as exc:  # a parser that read CSV with the csv module directly

        fail(f"{path}: {locate(text) or f'malformed CSV ({exc})'}")


def report_written(data: dict, json_out: bool) -> None:
    """What an export prints: `data` as JSON, or one line naming the file and the model's
    size (its "variables" and its "constraints" or "clauses")."""
    if json_out:
        print_json(data)
        return
    rows = "clauses" if "clauses" in data else "constraints"
    console.print(f"wrote {data['path']}: {data['variables']} variables, {data[rows]} {rows}",
                  markup=False)


def write_output(path: Path | None, text: str | None) -> None:
    """Write a command's result to its -o file once it has been printed: a file that cannot
    be written (full disk, no permission) is one line and exit 2, and the work is not lost."""
    if path is None or text is None:
        return

    try:
        write_atomic(path, text)
    except InputError as exc:
        fail(f"{exc} (the result is printed above)")


def save(path: Path, content: str | bytes) -> None:
    """Write atomically; a path that cannot be written is a usage error (exit 2), one line."""
    try:
        write_atomic(path, content)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror}")
