"""`ilp-pyramid iq ...`: IQ Pyramid / Kanoodle boards — solve, count, verify, show, export.

`solve` and `export` are the standard commands (cli/puzzle.py) with IQ's own options: the BOARD
argument, `--given`, `--pieces` (and `--png` for solve); `count`, `verify` and `show` are
IQ's own. Every solve goes through `protocol.solve`, which checks the filling with the
independent checker (verify/iq.py) before anything is printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ilp_pyramid import backends, protocol
from ilp_pyramid.backends import solvers
from ilp_pyramid.cli.iq_count import count_and_report, describe, fast_exit
from ilp_pyramid.cli.iq_terminal import coloured
from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    Jobs,
    Json,
    Output,
    Seed,
    Solver,
    TimeLimit,
    console,
    cores,
    fail,
    like,
    print_json,
)
from ilp_pyramid.cli.puzzle import Call, export_command, solve_command
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.puzzles.iq.boards import MAX_BOARD_CELLS, board_by_name
from ilp_pyramid.puzzles.iq.given import read_challenge
from ilp_pyramid.puzzles.iq.model import Instance, build_instance
from ilp_pyramid.puzzles.iq.pieces import piece_set
from ilp_pyramid.puzzles.iq.puzzle import PUZZLE
from ilp_pyramid.puzzles.iq.render import letter_grid, png_bytes

app = typer.Typer(
    help="IQ Pyramid / Kanoodle: fill 2-D boards and 3-D ball pyramids with the 12 pieces.",
    no_args_is_help=True,
)

BoardArg = typer.Argument(..., help="triangle | rectangle | pyramid5 | pyramid4 | pyramidN | "
                                    "a text file ('.' a cell, '#' or space outside; at most "
                                    f"{MAX_BOARD_CELLS} cells).")
GivenOpt = typer.Option(None, "--given", "-g",
                        help="Puzzle-book challenge: the board drawn with the letters of pieces "
                             "already placed ('.' free; a small letter pins one cell to that "
                             "piece, the rest of it to be found). 3-D: one grid per level, "
                             "bottom first, blank line between levels.")
GenerateGivenOpt = typer.Option(
    None, "--generate-given", min=0, metavar="K",
    help="A challenge drawn at random instead of --given: a random filling of BOARD (picked "
         "by --seed, default 0) with K of its pieces given, the rest to find. The same board "
         "and seed give the same filling everywhere; fewer given, more to search.")
GivenSeed = like(Seed, help="Random seed: of --generate-given's challenge (default 0) and of "
                            "the solver.")
PiecesOpt = typer.Option(None, "--pieces",
                         help="JSON piece set: [{\"letter\", \"cells\": [[col, row], ...], "
                              "\"colour\"}, ...] (default: the 12 Kanoodle pieces).")
SolverOpt = like(
    Solver, default="auto",
    help=f"auto (dlx, the fastest measured: docs/iq.md) | sat (kissat) | "
         f"MIP: {solvers.listing('mip')} | SAT: {solvers.listing('sat')} | "
         f"{solvers.listing('cp')} (OR-Tools CP-SAT) | "
         f"{solvers.listing('dlx')} (the package's Dancing Links). Every one solves the exact "
         "cover: dlx as it is, the others lowered to the form they take.")
CountSolverHelp = (f"{solvers.listing('dlx')} (the package's Dancing Links, its own search) | "
                   f"{solvers.listing('cp')} (OR-Tools CP-SAT enumerating every solution) | SAT "
                   f"(blocking each filling found): "
                   f"{' | '.join(solvers.names('sat', can='counts', aliases=False))}.")
# Standard options IQ takes its own way: the board is an argument (no FILE, no --generate N:
# --generate-given K draws a challenge on it), the seed that challenge's and the solver's, the
# solver `auto` by default, and --json read before the solve (the text names the board and
# the engine first).
_SOLVE_OWN_WAY = ("file", "generate", "planted", "seed", "solver", "json_out")
_EXPORT_OWN_WAY = ("file", "generate", "planted", "seed")


def load_instance(board_name: str, given: Path | None, pieces_file: Path | None,
                  generate_given: int | None = None, seed: int | None = None) -> Instance:
    """BOARD with the challenge of --given (or of --generate-given K with --seed) on it and
    the pieces of --pieces; InputError (one line) for anything malformed, the board's size
    checked before any placement is laid."""
    if given is not None and generate_given is not None:
        raise InputError("give a challenge with --given or --generate-given K, not both")
    board = board_by_name(board_name)
    pieces = piece_set(str(pieces_file) if pieces_file else None)
    if generate_given is not None:
        return PUZZLE.generate_given(board, generate_given, seed or 0, pieces=pieces)
    if given is None:
        return build_instance(board, pieces)
    challenge = read_challenge(str(given), board, pieces)
    return build_instance(board, pieces, challenge.given, challenge.pins)


def _loaded(board_name: str, given: Path | None, pieces_file: Path | None,
            generate_given: int | None = None, seed: int | None = None) -> Instance:
    try:
        return load_instance(board_name, given, pieces_file, generate_given, seed)
    except InputError as exc:
        fail(str(exc))


def _draw(path: Path, instance: Instance, letters: dict[int, str], title: str) -> None:
    write_atomic(path, png_bytes(instance.board, letters, instance.pieces, title=title,
                                 given=set(instance.given), pins=set(instance.pins)))


def _show(instance: Instance, letters: dict[int, str]) -> None:
    console.print(coloured(instance.board, letters, instance.pieces,
                           color_system=console.color_system), end="")


def _on_the_terminal(instance: Instance, solution: dict[int, int]) -> Any:
    """IQ as `solve` shows it: the text picture coloured, every piece on its own colour
    (plain letters when stdout is no terminal), the pyramids' levels side by side."""
    return coloured(instance.board, instance.letters(solution), instance.pieces,
                    color_system=console.color_system)


def _solve_options(
    board: str = BoardArg,
    given: Path = GivenOpt,
    generate_given: int = GenerateGivenOpt,
    solver: str = SolverOpt,
    pieces: Path = PiecesOpt,
    seed: int = GivenSeed,
    png: Path = typer.Option(None, "--png", help="Also draw the filled board to this PNG."),
    json_out: bool = Json,
) -> Call:
    try:  # an unknown solver is exit 2 before any board is read
        engine = protocol.solver_for(PUZZLE, solver).name
    except InputError as exc:
        raise InputError(f"{exc} or {', '.join(PUZZLE.solver_aliases)}") from None
    instance = load_instance(board, given, pieces, generate_given, seed)
    if not json_out:
        chosen = f"{engine} (auto)" if solver.strip().lower() == "auto" else engine
        console.print(describe(instance) + f"; engine {chosen}", markup=False)

    def then(instance: Instance, result: protocol.Result) -> None:
        fast_exit()
        if png is not None and result.solution is not None:
            _draw(png, instance, instance.letters(result.solution),
                  f"{instance.board.name} ({PUZZLE.engine(result.solver)})")

    return Call(instance=instance, after={"solver": solver}, then=then)


app.command("solve")(solve_command(
    PUZZLE, _solve_options, hide=_SOLVE_OWN_WAY, text_render=_on_the_terminal,
    doc="Fill BOARD (completing a challenge with --given, or a random one with "
        "--generate-given K) and print it, each piece a letter.\n\nExit codes: 0 solved, 1 "
        "no solution exists, 2 bad input, 3 time limit reached."))


def _export_options(board: str = BoardArg, given: Path = GivenOpt,
                    generate_given: int = GenerateGivenOpt, pieces: Path = PiecesOpt,
                    seed: int = like(Seed, help="Random seed of --generate-given's challenge "
                                                "(default 0).")) -> Call:
    instance = load_instance(board, given, pieces, generate_given, seed)
    return Call(instance=instance, keys={"board": instance.board.name})


app.command("export")(export_command(
    PUZZLE, _export_options, hide=_EXPORT_OWN_WAY,
    doc="Write the exact-cover model of BOARD as an LP or MPS file (one binary per "
        "placement) or as DIMACS CNF (the clauses a SAT solver gets)."))


@app.command()
def count(
    board: str = BoardArg,
    given: Path = GivenOpt,
    pieces: Path = PiecesOpt,
    jobs: int = Jobs,
    depth: int = typer.Option(None, "--depth", min=1, max=12,
                              help="Split the search tree this many levels deep (default: deep "
                                   "enough for 128 sub-trees per job; dlx only)."),
    output: Path = like(Output, help="Write every filling to this file, one per line (see "
                                     "docs/iq.md; .gz to gzip); it appears only when the count "
                                     "is complete."),
    time_limit: float = like(TimeLimit, help="Stop after this many seconds (exit 3, partial "
                                             "count)."),
    solver: str = like(Solver, default="dlx", help=CountSolverHelp),
    json_out: bool = Json,
) -> None:
    """Count every way to fill BOARD, and the count up to the board's symmetries (mirror for the
    triangle, 4 for the rectangle, 8 for a pyramid; only those keeping the givens in place).

    The board's symmetries (those keeping the givens) spare most of the search: it runs below
    one placement of each orbit only, and what it finds is carried over to the others (the same
    fillings, each once). How the work is split: the exact-cover search tree is cut a few
    levels down into many disjoint sub-trees (at least 128 per job); each worker process takes
    the next sub-tree as soon as it is free, so every core stays busy to the end. With
    --solver another family counts the same fillings: CP-SAT enumerating every solution, a SAT
    solver blocking each filling it finds until none is left; each filling is checked by the
    independent checker and the figures are the same (one process: --jobs is Dancing
    Links'). Exit codes: 0 counted, 2 bad input (an unknown solver, one that cannot count),
    3 time limit (the partial count is printed as such), 130/143 interrupted (no worker
    survives; no --output file is written).
    """
    try:
        entry = solvers.solver(solver)
        if not entry.counts:
            fail(f"solver {entry.name!r} cannot count (choose from "
                 f"{', '.join(solvers.names(installed=True, can='counts'))})")
        own_search = entry.reads(solvers.EXACT_COVER)  # Dancing Links counts by its search
        if not own_search:
            entry = backends.counting(entry)
    except InputError as exc:
        fail(str(exc))
    if not own_search and jobs is not None and jobs > 1:
        fail(f"--jobs is Dancing Links' (--solver dlx); {entry.name} counts in one process")
    if not own_search and depth is not None:
        fail(f"--depth splits Dancing Links' search (--solver dlx), not {entry.name}'s")
    instance = _loaded(board, given, pieces)
    workers = min(jobs or cores(), cores()) if own_search else 1
    code = count_and_report(instance, workers, depth, output, time_limit, entry.name,
                            own_search, json_out)
    if code:
        raise typer.Exit(code)


@app.command()
def verify(
    board: str = BoardArg,
    solutions: Path = typer.Argument(..., help="A file of fillings, one per line, as "
                                               "'iq count --output' writes (.gz read too)."),
    given: Path = GivenOpt,
    pieces: Path = PiecesOpt,
    json_out: bool = Json,
) -> None:
    """Check every filling in a file with the independent checker (each line read back as
    written: rows joined by '/', pyramid levels by '|'). Exit 0 all valid and distinct,
    1 some invalid or repeated, 2 unreadable."""
    from ilp_pyramid.puzzles.iq.lines import check_file  # numpy: when checking

    instance = _loaded(board, given, pieces)
    try:
        report = check_file(solutions, instance.board,
                            {p.letter: p.cells for p in instance.pieces},
                            instance.fixed_letters())
    except OSError as exc:
        fail(f"cannot read {solutions}: {exc.strerror or exc}")
    except UnicodeDecodeError:
        fail(f"{solutions} is not a text file")
    ok = report.invalid == 0 and report.duplicates == 0 and report.fillings > 0
    if json_out:
        print_json({"board": instance.board.name, "file": str(solutions), "valid": ok,
                    "fillings": report.fillings, "invalid": report.invalid,
                    "duplicates": report.duplicates, "problems": report.problems})
    else:
        for problem in report.problems:
            console.print(problem, markup=False)
        state = "all valid and distinct" if ok else (
            "no filling in the file" if report.fillings == 0
            else f"{report.invalid} invalid, {report.duplicates} repeated")
        console.print(f"{solutions}: {report.fillings:,} fillings of {instance.board.name}: "
                      f"{state}", markup=False)
    if not ok:
        raise typer.Exit(EXIT_NO_SOLUTION)


@app.command()
def show(
    board: str = BoardArg,
    given: Path = GivenOpt,
    generate_given: int = GenerateGivenOpt,
    pieces: Path = PiecesOpt,
    seed: int = like(Seed, help="Random seed of --generate-given's challenge (default 0)."),
    png: Path = typer.Option(None, "--png", help="Also draw it to this PNG."),
    json_out: bool = Json,
) -> None:
    """Print a board (and the pieces of a challenge already on it), without solving."""
    instance = _loaded(board, given, pieces, generate_given, seed)
    pins = {c: letter.lower() for c, letter in instance.letters(instance.pins).items()}
    letters = {**instance.letters(instance.given), **pins}
    if png is not None:
        _draw(png, instance, letters, instance.board.name)
    if json_out:
        print_json({"board": instance.board.name, "cells": instance.board.size,
                    "placements": len(instance.placements),
                    "grid": letter_grid(instance.board, letters)})
        return
    console.print(describe(instance), markup=False)
    _show(instance, letters)
