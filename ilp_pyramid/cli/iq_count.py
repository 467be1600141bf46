"""`iq count`'s count and report, without Typer: the command (cli/iq.py) parses its options
and calls `count_and_report`; `quick` answers `iq count BOARD [--jobs N] [--json]` before
Typer is even imported.

Why a quick path: that command is measured against a C++ solver (docs/iq.md), and parsing a
command line through Typer (with its Pydantic adapters) is a serial cost no worker shares.
It accepts only what it answers exactly as the command would (a named board, the 12 pieces,
Dancing Links, a job count within the cores): same output, same exit codes, printed by the
same code below. Any other command line goes the usual way.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process, solvers
from ilp_pyramid.cli.consoles import console, err_console, print_table
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import atomic_stream
from ilp_pyramid.machine import cores
from ilp_pyramid.output import print_json
from ilp_pyramid.puzzles.iq.boards import named_board
from ilp_pyramid.puzzles.iq.model import build_instance
from ilp_pyramid.puzzles.iq.pieces import piece_set

if TYPE_CHECKING:
    from pathlib import Path

    from ilp_pyramid.puzzles.iq.count import CountReport
    from ilp_pyramid.puzzles.iq.model import Instance

EXIT_TIMEOUT = 3  # as cli/options.py's


def describe(instance: Instance) -> str:
    board = instance.board
    kind = f"{board.levels}-level ball pyramid" if board.dims == 3 else "2-D board"
    placed = len(set(instance.given.values()))
    given = f", {placed} piece{'s' if placed > 1 else ''} given" if placed else ""
    if instance.pins:
        given += f", {len(instance.pins)} pin{'s' if len(instance.pins) > 1 else ''}"
    return (f"{board.name} ({kind}, {board.size} cells{given}): {len(instance.placements)} "
            f"placements of {len(instance.free_pieces)} pieces")


def fast_exit() -> None:
    """Once numba's compiled code is loaded, the interpreter's final garbage collection takes
    a noticeable part of a second at exit; nothing left needs collecting, so spare it (keeps
    Ctrl-C within the 2 s the CLI promises)."""
    gc.freeze()


def quick(args: list[str]) -> int | None:
    """The exit code of `iq count BOARD [--jobs N] [--json]` answered here (BOARD a named
    one), or None: not a case for this path."""
    if len(args) < 3 or args[:2] != ["iq", "count"]:
        return None
    jobs, json_out, rest = None, False, args[3:]
    while rest:
        if rest[0] == "--json" and not json_out:
            json_out, rest = True, rest[1:]
        elif rest[0] in ("--jobs", "-j") and jobs is None and len(rest) > 1 \
                and rest[1].isascii() and rest[1].isdigit() and len(rest[1]) <= 3:
            jobs, rest = int(rest[1]), rest[2:]
        else:
            return None
    if jobs is not None and not 1 <= jobs <= cores():
        return None  # the usual path says what is wrong, or caps it with a note
    try:  # a name first, as `board_by_name` reads it; a file or a wrong name: the usual path
        board = named_board(args[2])
    except InputError:
        return None
    if board is None:
        return None
    instance = build_instance(board, piece_set(None))
    return count_and_report(instance, min(jobs or cores(), cores()), None, None, None,
                            solvers.solver("dlx").name, True, json_out)


class _Unfinished(Exception):
    """The count stopped early: its output file must not appear."""


def count_and_report(instance: Instance, workers: int, depth: int | None, output: Path | None,
                     time_limit: float | None, solver: str, own_search: bool,
                     json_out: bool) -> int:
    """Count the fillings (Dancing Links over `workers` processes, or `solver`'s own
    enumeration), print the figures and return the exit code (0, or 3 for a time limit).
    InputError for an output file that cannot be written."""
    from ilp_pyramid.puzzles.iq.count import count_by_solver, count_solutions  # numpy, numba

    if not json_out:
        console.print(describe(instance) + f"; {solver}, {workers} job(s)", markup=False)
    try:
        with process.interruptible(), contextlib.ExitStack() as stack:
            sink = None
            if output is not None:
                if output.is_dir():
                    raise InputError(f"cannot write {output}: it is a directory")
                try:
                    sink = stack.enter_context(atomic_stream(output))
                except OSError as exc:
                    raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
            # sub-trees are Dancing Links' own: another solver's count shows none
            shown = not json_out and own_search and err_console.is_terminal
            update = stack.enter_context(_progress()) if shown else None
            if own_search:
                # skip_cffi: no thread of this process imports anything meanwhile
                report = count_solutions(instance, jobs=workers, depth=depth, progress=update,
                                         time_limit=time_limit, output=sink, skip_cffi=True)
            else:
                report = count_by_solver(instance, solver, time_limit=time_limit, output=sink)
            if not report.complete:
                raise _Unfinished
    except _Unfinished:
        pass  # the temp file is gone; the partial figures are reported below
    except KeyboardInterrupt:  # SIGINT or SIGTERM: the workers and the temp file are gone
        fast_exit()
        raise
    fast_exit()
    _report_count(instance, report, workers, output, json_out, solver, own_search)
    return 0 if report.complete else EXIT_TIMEOUT


@contextlib.contextmanager
def _progress() -> Iterator[Callable[[int, int], None]]:
    """A progress bar on the terminal's stderr, as sub-trees finish (Rich's, loaded only
    when shown)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (TextColumn("counting"), BarColumn(), MofNCompleteColumn(),
               TextColumn("sub-trees"), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True) as progress:
        task = progress.add_task("count", total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield update


def _report_count(instance: Instance, report: CountReport, workers: int,
                  output: Path | None, json_out: bool, solver: str, own_search: bool) -> None:
    complete = report.complete
    data = {
        "board": instance.board.name,
        "solver": solver,
        "complete": complete,
        "status": "counted" if complete else "timeout",
        "given_pieces": sorted({instance.pieces[k].letter for k in instance.given.values()}),
        "pins": len(instance.pins),
        "solutions": report.solutions if complete else None,
        "distinct_up_to_symmetry": report.distinct_up_to_symmetry if complete else None,
        "symmetries": report.symmetries,
        "division_exact": report.division_exact if complete else None,
        "symmetric_solutions": report.symmetric_solutions if complete else None,
        "partial_solutions": None if complete else report.solutions,
        "seconds": round(report.seconds, 3),
        "jobs": workers,
        # This process's CPU (start-up, split, collecting) and each worker's: how evenly the
        # work was shared, on a machine busy with other work too.
        "cpu_seconds": round(time.process_time(), 3),
        "worker_cpu_seconds": report.worker_cpu,
        "nodes": report.nodes if own_search else None,  # the search's own figure
        "output": str(output) if output is not None and complete else None,
    }
    if json_out:
        print_json(data)
        return
    if not complete:
        where = "in the sub-trees finished so far" if own_search else f"found by {solver}"
        console.print(f"time limit reached after {report.seconds:.1f} s: the count is NOT "
                      f"complete. Partial count (a lower bound, not the answer): "
                      f"{report.solutions:,} solutions {where}"
                      + (f"; {output} was not written" if output is not None else ""),
                      markup=False)
        return
    from rich.table import Table

    table = Table(title=f"{instance.board.name}: every filling", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("solutions", f"{report.solutions:,}")
    table.add_row(f"up to symmetry ({report.symmetries} maps)",
                  f"{report.distinct_up_to_symmetry:,}")
    check = ("exact" if report.division_exact
             else f"not exact: {report.symmetric_solutions} symmetric solutions")
    table.add_row("solutions / symmetries", check)
    if own_search:
        table.add_row("search nodes", f"{report.nodes:,}")
    else:
        table.add_row("counted by", f"{solver} (every filling verified)")
    table.add_row("wall time", f"{report.seconds:.2f} s ({workers} job(s))")
    if output is not None:
        table.add_row("written to", f"{output} (every line verified)")
    print_table(table)
