"""`ilp-pyramid iq ...`: IQ Pyramid / Kanoodle boards — solve, count, export."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ilp_pyramid.cli_common import (
    EXIT_NO_SOLUTION,
    EXIT_TIMEOUT,
    Json,
    Seed,
    Threads,
    TimeLimit,
    console,
    err_console,
    fail,
    print_json,
    solve_options,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.puzzles.iq import solve as iq_solve
from ilp_pyramid.puzzles.iq.boards import board_by_name
from ilp_pyramid.puzzles.iq.given import read_given
from ilp_pyramid.puzzles.iq.model import Instance, build_instance
from ilp_pyramid.puzzles.iq.pieces import piece_set
from ilp_pyramid.puzzles.iq.render import coloured, letter_grid, png_bytes
from ilp_pyramid.verify.iq import verify_filling

app = typer.Typer(
    help="IQ Pyramid / Kanoodle: fill 2-D boards and 3-D ball pyramids with the 12 pieces.",
    no_args_is_help=True,
)

BoardArg = typer.Argument(..., help="triangle | rectangle | pyramid5 | pyramid4 | pyramidN | "
                                    "a text file ('.' a cell, '#' or space outside).")
GivenOpt = typer.Option(None, "--given", "-g",
                        help="Puzzle-book challenge: the board drawn with the letters of pieces "
                             "already placed ('.' free). 3-D: one grid per level, bottom first, "
                             "blank line between levels.")
PiecesOpt = typer.Option(None, "--pieces",
                         help="JSON piece set: [{\"letter\", \"cells\": [[col, row], ...], "
                              "\"colour\"}, ...] (default: the 12 Kanoodle pieces).")


def load_instance(board_name: str, given: Path | None, pieces_file: Path | None) -> Instance:
    board = board_by_name(board_name)
    pieces = piece_set(str(pieces_file) if pieces_file else None)
    placed = read_given(str(given), board, pieces) if given else {}
    return build_instance(board, pieces, placed)


def letters_of(instance: Instance, assignment: dict[int, int]) -> dict[int, str]:
    return {c: instance.pieces[k].letter for c, k in assignment.items()}


def check_filling(instance: Instance, assignment: dict[int, int]) -> None:
    """Every solution goes through the independent checker before anyone sees it."""
    board = instance.board
    verdict = verify_filling(
        board.cells, {p.letter: p.cells for p in instance.pieces},
        {board.cells[c]: instance.pieces[k].letter for c, k in assignment.items()},
        {board.cells[c]: instance.pieces[k].letter for c, k in instance.given.items()})
    if not verdict.valid:
        fail(f"internal error: the solver's filling failed verification: {verdict.problems[0]}",
             code=1)


def describe(instance: Instance) -> str:
    board = instance.board
    kind = f"{board.levels}-level ball pyramid" if board.dims == 3 else "2-D board"
    placed = len(set(instance.given.values()))
    given = f", {placed} piece{'s' if placed > 1 else ''} given" if placed else ""
    return (f"{board.name} ({kind}, {board.size} cells{given}): {len(instance.placements)} "
            f"placements of {len(instance.free_pieces)} pieces")


@app.command()
def solve(
    board: str = BoardArg,
    given: Path = GivenOpt,
    solver: str = typer.Option("highs", "--solver", "-s",
                               help="highs | cbc (MIP) | sat (python-sat; or a SAT solver name "
                                    "such as cadical) | dlx (exact cover, the fastest) | cpsat "
                                    "(OR-Tools CP-SAT on the exact cover, extra [cpsat])."),
    pieces: Path = PiecesOpt,
    time_limit: float = TimeLimit,
    threads: int = Threads,
    seed: int = Seed,
    png: Path = typer.Option(None, "--png", help="Also draw the filled board to this PNG."),
    json_out: bool = Json,
) -> None:
    """Fill BOARD (completing a challenge with --given) and print it, each piece a letter.

    Exit codes: 0 solved, 1 no solution exists, 2 bad input, 3 time limit reached.
    """
    try:
        iq_solve.solver_kind(solver)
    except InputError as exc:
        fail(str(exc))
    instance = load_instance(board, given, pieces)
    if not json_out:
        console.print(describe(instance) + f"; solver {solver}", markup=False)
    result = iq_solve.solve_instance(instance, solver, solve_options(time_limit, threads, seed))
    solved = result.status == iq_solve.SOLVED
    if solved:
        check_filling(instance, result.assignment)
        letters = letters_of(instance, result.assignment)
        if png is not None:
            write_atomic(png, png_bytes(instance.board, letters, instance.pieces,
                                        title=f"{instance.board.name} ({result.solver})"))
    if json_out:
        print_json({
            "solved": solved,
            "status": result.status,
            "board": instance.board.name,
            "solver": result.solver,
            "seconds": round(result.seconds, 4),
            "grid": letter_grid(instance.board, letters) if solved else None,
        })
    elif solved:
        console.print(coloured(instance.board, letters, instance.pieces), end="")
        console.print(f"solved and verified in {result.seconds:.2f} s ({result.solver})")
    elif result.status == iq_solve.NO_SOLUTION:
        console.print(f"no solution ({result.solver}, {result.seconds:.2f} s)")
    elif result.status == iq_solve.TIMEOUT:
        console.print(f"timeout: no solution found within the time limit "
                      f"({result.seconds:.1f} s)")
    else:
        console.print(f"error: the solver failed: {result.message}", markup=False)
    if not solved:
        raise typer.Exit(EXIT_TIMEOUT if result.status == iq_solve.TIMEOUT else EXIT_NO_SOLUTION)


@app.command()
def count(
    board: str = BoardArg,
    given: Path = GivenOpt,
    pieces: Path = PiecesOpt,
    jobs: int = typer.Option(0, "--jobs", "-j", min=0,
                             help="Worker processes (0: one per core)."),
    depth: int = typer.Option(3, "--depth", min=0, max=8,
                              help="Split the search tree this many levels deep into jobs."),
    json_out: bool = Json,
) -> None:
    """Count every way to fill BOARD (exact cover, split over processes), and the count up to
    the board's symmetries (mirror for the triangle, 4 for the rectangle, 8 for a pyramid;
    only the symmetries that keep the given pieces in place)."""
    from ilp_pyramid.puzzles.iq.count import count_solutions

    instance = load_instance(board, given, pieces)
    workers = jobs or os.cpu_count() or 1
    if not json_out:
        console.print(describe(instance) + f"; {workers} job(s)", markup=False)
    columns = (TextColumn("counting"), BarColumn(), MofNCompleteColumn(),
               TextColumn("sub-trees"), TimeElapsedColumn())
    with Progress(*columns, console=err_console, transient=True,
                  disable=json_out or not err_console.is_terminal) as progress:
        task = progress.add_task("count", total=None)

        def update(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        report = count_solutions(instance, jobs=workers, depth=depth, progress=update)
    data = {
        "board": instance.board.name,
        "given_pieces": sorted({instance.pieces[k].letter for k in instance.given.values()}),
        "solutions": report.solutions,
        "distinct_up_to_symmetry": report.distinct_up_to_symmetry,
        "symmetries": report.symmetries,
        "division_exact": report.division_exact,
        "symmetric_solutions": report.symmetric_solutions,
        "seconds": round(report.seconds, 3),
        "jobs": workers,
        "nodes": report.nodes,
    }
    if json_out:
        print_json(data)
        return
    table = Table(title=f"{instance.board.name}: every filling", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("solutions", f"{report.solutions:,}")
    table.add_row(f"up to symmetry ({report.symmetries} maps)",
                  f"{report.distinct_up_to_symmetry:,}")
    check = ("exact" if report.division_exact
             else f"not exact: {report.symmetric_solutions} symmetric solutions")
    table.add_row("solutions / symmetries", check)
    table.add_row("search nodes", f"{report.nodes:,}")
    table.add_row("wall time", f"{report.seconds:.2f} s ({workers} job(s))")
    console.print(table)


@app.command()
def export(
    board: str = BoardArg,
    output: Path = typer.Argument(..., help="Where to write: .lp or .mps (add .gz to gzip)."),
    given: Path = GivenOpt,
    pieces: Path = PiecesOpt,
    fmt: str = typer.Option(None, "--format", "-f", help="lp | mps (default: from the name)."),
    json_out: bool = Json,
) -> None:
    """Write the exact-cover model of BOARD as an LP or MPS file (one binary per placement)."""
    from ilp_pyramid.formats.mipfile import MIP_FORMATS, format_from_name, write_mip
    from ilp_pyramid.puzzles.iq.model import build_model

    chosen = (fmt or format_from_name(str(output)) or "").lower()
    if chosen not in MIP_FORMATS:
        fail(f"cannot tell the format of {output}: use --format lp or --format mps")
    instance = load_instance(board, given, pieces)
    model = build_model(instance)
    write_mip(model.problem, str(output), chosen)
    data = {"board": instance.board.name, "path": str(output), "format": chosen,
            "variables": model.problem.numVariables(),
            "constraints": model.problem.numConstraints()}
    if json_out:
        print_json(data)
    else:
        console.print(f"wrote {output} ({chosen}): {data['variables']} binaries, "
                      f"{data['constraints']} constraints", markup=False)


@app.command()
def show(
    board: str = BoardArg,
    given: Path = GivenOpt,
    pieces: Path = PiecesOpt,
    png: Path = typer.Option(None, "--png", help="Also draw it to this PNG."),
    json_out: bool = Json,
) -> None:
    """Print a board (and the pieces of a challenge already on it), without solving."""
    instance = load_instance(board, given, pieces)
    letters = letters_of(instance, instance.given)
    if png is not None:
        write_atomic(png, png_bytes(instance.board, letters, instance.pieces,
                                    title=instance.board.name))
    if json_out:
        print_json({"board": instance.board.name, "cells": instance.board.size,
                    "placements": len(instance.placements),
                    "grid": letter_grid(instance.board, letters)})
        return
    console.print(describe(instance), markup=False)
    console.print(coloured(instance.board, letters, instance.pieces), end="")
