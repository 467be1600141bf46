"""IQ Pyramid / Kanoodle as a `protocol.Puzzle`: an instance is a `model.Instance` (board,
pieces, given pieces and pins), a solution the filling {board cell: piece index}.

    >>> from ilp_pyramid import protocol
    >>> from ilp_pyramid.puzzles.iq.puzzle import PUZZLE as iq
    >>> challenge = iq.instance("triangle", {"B": [[0, 0], [0, 1], [1, 1], [0, 2], [1, 2]]})
    >>> result = protocol.solve(iq, challenge, solver="auto")
    >>> result.status, result.form, result.solver
    (<Status.SOLVED: 'solved'>, 'exact_cover', 'dlx')

One model: the exact cover (model.Instance.exact_cover_rows), which Dancing Links takes as it
is and the backends lower for MIP solvers, SAT solvers and CP-SAT (backends/lowering.py).
Importing this module loads neither PuLP, nor python-sat, nor numba, nor numpy (count.py's),
nor the model and pictures (model.py, render.py: imported where used).

Every method checks its arguments at the door (`_check_instance`, `_check_filling`): anything
that is no instance or no filling is an InputError of one line.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ilp_pyramid.backends import ExactCoverForm
from ilp_pyramid.backends.base import Result as BackendResult
from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.figures import svg_text
from ilp_pyramid.protocol import (
    BenchCase,
    Model,
    Result,
    check_choice,
    check_form,
    check_object,
    check_sizes,
    check_text,
    check_whole,
    shown,
    solve_options,
)
from ilp_pyramid.puzzles.iq.boards import Board, board_by_name, named_board, parse_text_board
from ilp_pyramid.puzzles.iq.generate import generate_given
from ilp_pyramid.puzzles.iq.given import parse_challenge
from ilp_pyramid.puzzles.iq.model import Instance, build_instance
from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES, Piece, piece_from_json, piece_set
from ilp_pyramid.puzzles.iq.render import draw, letter_grid, png_bytes
from ilp_pyramid.verify.iq import verify_filling

# The model, its pictures and the count (numpy) are imported where used: the top-level help
# lists the puzzle by this object alone (tests/test_startup.py).
if TYPE_CHECKING:
    from ilp_pyramid.backends.base import SolveOptions
    from ilp_pyramid.backends.solvers import Solver
    from ilp_pyramid.puzzles.iq.model import Instance

DEFAULT_BOARD = "pyramid5"  # the IQ Pyramid itself: 55 balls, the 12 pieces
BENCH_BOARDS = ("pyramid5", "triangle", "rectangle")
# The bench's ramp: pieces given of a seeded filling (generate.py), fewer given = more to
# search; 0 is the empty board.
BENCH_GIVEN = (8, 6, 4, 2, 0)

Filling = dict[int, int]  # board cell index -> piece index


def exact_cover_form(instance: Instance) -> ExactCoverForm:
    """The instance as the backends' exact-cover form, rows and items named for export."""
    rows, primary, secondary = instance.exact_cover_rows()
    row_names, item_names = instance.exact_cover_names()
    return ExactCoverForm(rows, primary, secondary, row_names=row_names,
                          item_names=item_names,
                          name=f"iq_{instance.board.name}".replace(".", "_"))


def _nothing_to_place(solver: Solver, options: SolveOptions) -> BackendResult:
    """The answer of an exact cover with no item to cover: no row at all (a MIP with no
    variable or an empty CNF is no question to put to a solver)."""
    return BackendResult(solver.name, Status.SOLVED, 0.0, rows=[])


class IQPuzzle:
    """Fill a 2-D board or a ball pyramid with the Kanoodle pieces, some perhaps given."""

    name = "iq"
    title = "IQ Pyramid / Kanoodle: fill 2-D boards and ball pyramids with the 12 pieces"
    forms = ("exact_cover",)
    # `--solver auto`: the fastest measured overall (docs/iq.md, "Solving times"); `sat`:
    # the SAT solver it runs.
    solver_aliases = {"auto": "dlx", "sat": "kissat"}

    def instance(self, board: str | Board = DEFAULT_BOARD,
                 given: str | Mapping[str, Any] | None = None, *,
                 pieces: str | Sequence[Piece] | None = None) -> Instance:
        """`board`: a name (triangle, rectangle, pyramidN), a board file, or a `Board`.
        `given`: the puzzle-book challenge, as the text `iq solve --given` reads (a drawing
        or JSON) or as a dict {"B": [[x, y], ...], "h": [[i, j, level]]} (a small letter
        pins cells). `pieces`: a piece-set file, or the pieces (default: the 12 Kanoodle)."""

        board = _board(board)
        chosen = _pieces(pieces)
        text = _given_text(given)
        if text is None:
            return build_instance(board, chosen)
        challenge = parse_challenge(text, board, chosen)
        return build_instance(board, chosen, challenge.given, challenge.pins)

    def generate_given(self, board: str | Board = DEFAULT_BOARD, k: int = 0, seed: int = 0, *,
                       pieces: str | Sequence[Piece] | None = None) -> Instance:
        """A challenge drawn at random: a seeded random filling of `board` with `k` of its
        pieces given (what `iq solve BOARD --generate-given K --seed S` solves). The same
        board and seed give the same filling on every machine, and the givens of k pieces
        are among those of k + 1. InputError for a board with no filling or k more than the
        pieces a filling uses."""
        board, chosen = _board(board), _pieces(pieces)
        k = check_whole(k, "the number of pieces given", 0, len(chosen))
        return generate_given(board, chosen, k, check_whole(seed, "seed"))

    def parse(self, text: str) -> Instance:
        """A board name on the first line, then (optionally) the challenge drawn on it as
        `--given` files hold it; or a 2-D board drawn as text ('.' a cell, '#' outside)."""
        lines = check_text(text, "an IQ instance").splitlines()
        first = next((i for i, line in enumerate(lines) if line.strip()), None)
        if first is None:
            raise InputError("empty IQ input: give a board name or draw a board")
        board = named_board(lines[first])
        if board is None:
            return self.instance(parse_text_board(text))
        rest = "\n".join(lines[first + 1:])
        return self.instance(board, rest if rest.strip() else None)

    def default(self) -> Instance:
        return self.instance(DEFAULT_BOARD)

    def model(self, instance: Instance, form: str) -> Model:
        """One row per placement of a free piece on free cells; items: the free cells, then
        the free pieces. A board with every cell given is the empty cover: its one answer,
        no row, is found without a solver and checked like any other."""
        instance, _ = _check_instance(instance), check_form(self, form)
        cover = exact_cover_form(instance)
        return Model("exact_cover", cover, lambda answer: instance.assignment(answer.rows),
                     variables=len(cover.rows), constraints=instance.num_items,
                     run=None if instance.free_cells else _nothing_to_place)

    def after(self, instance: Instance, result: Result, options: SolveOptions,
              solver: str | None = None) -> Result:
        """`solver`: the name the user gave; one of IQ's shorthands (auto, sat) is what the
        result then says, as it says "kissat" for the table's kissat404, and `json_keys`'
        "engine" the solver that ran."""
        if solver is not None and solver.strip().lower() in self.solver_aliases:
            result.solver = solver.strip().lower()
        if result.solved and not instance.free_cells:
            result.detail = "every cell is given: nothing was left to place (no solver ran)"
        return result

    def engine(self, solver: str) -> str:
        """The table's solver a `--solver` name runs: IQ's shorthands resolved."""
        return self.solver_aliases.get(solver, solver)

    def json_keys(self, instance: Instance, result: Result) -> dict[str, Any]:
        """`iq solve --json`'s own keys: "solved", "board", "engine" (the solver that ran,
        where "solver" is the name given: auto) and "grid" (null when unsolved)."""

        solved = result.solved and result.solution is not None
        grid = letter_grid(instance.board, instance.letters(result.solution)) if solved \
            else None
        return {"solved": solved, "board": instance.board.name,
                "engine": self.engine(result.solver), "grid": grid}

    def summary(self, instance: Instance, result: Result) -> str:
        """The line under the picture: the status, the engine and the time."""
        engine, seconds = self.engine(result.solver), result.seconds
        reason = f": {result.detail}" if result.detail else ""
        if result.solved:
            return f"solved and verified in {seconds:.2f} s (engine {engine}){reason}"
        if result.status is Status.INFEASIBLE:
            return f"no solution (engine {engine}, {seconds:.2f} s){reason}"
        if result.status is Status.TIMEOUT:
            return f"timeout: no solution found within the time limit ({seconds:.1f} s)"
        if result.status is Status.ERROR:
            return f"error: the solver failed: {result.detail or 'no reason given'}"
        return str(result)

    def verify(self, instance: Instance, solution: Filling) -> list[str]:
        """The filling by board coordinates and letters, judged by verify/iq.py alone: the
        reasons it does not fill the board ([] when it does), cells off the board and pieces
        not in the set among them. InputError when `solution` is no filling at all."""
        instance, filling = _check_instance(instance), _check_filling(solution)
        problems = _misfits(instance, filling)
        if problems:
            return problems
        board = instance.board
        filling = {board.cells[c]: letter for c, letter in instance.letters(filling).items()}
        verdict = verify_filling(board.cells, {p.letter: p.cells for p in instance.pieces},
                                 filling, instance.fixed_letters())
        return verdict.problems

    def render(self, instance: Instance, solution: Filling, fmt: str = "text") -> str | bytes:
        """"text": the letter grid of `iq solve` (a pyramid level by level, bottom first);
        "png" / "svg": the coloured board (extra `pictures`)."""

        fmt = check_choice(fmt, "iq's picture format", ("text", "png", "svg"))
        instance, solution = _check_pair(instance, solution)
        board, letters = instance.board, instance.letters(solution)
        if fmt == "text":
            grid = letter_grid(board, letters)
            if board.dims == 2:
                return "\n".join(grid) + "\n"  # type: ignore[arg-type]
            return "\n\n".join("\n".join(level) for level in grid) + "\n"
        drawing = {"given": set(instance.given), "pins": set(instance.pins)}
        if fmt == "png":

            return png_bytes(board, letters, instance.pieces, board.name, **drawing)

        return svg_text(draw(board, letters, instance.pieces, board.name, **drawing))

    def to_json(self, instance: Instance, solution: Filling) -> dict:
        """"board" and "grid" as `iq solve --json` has them, "given" as `--given` JSON reads
        it; a board or piece set of one's own is written out whole."""

        instance, solution = _check_pair(instance, solution)
        board = instance.board
        data: dict[str, Any] = {"board": board.name}
        if named_board(board.name) != board:
            data["cells"] = [list(cell) for cell in board.cells]
        if instance.pieces != STANDARD_PIECES:
            data["pieces"] = [{"letter": p.letter, "cells": [list(c) for c in p.cells],
                               "colour": p.colour} for p in instance.pieces]
        given: dict[str, list[list[int]]] = {}
        for cells, case in ((instance.given, str.upper), (instance.pins, str.lower)):
            for c, k in sorted(cells.items()):
                given.setdefault(case(instance.pieces[k].letter), []).append(
                    list(board.cells[c]))
        data["given"] = given
        data["grid"] = letter_grid(board, instance.letters(solution))
        return data

    def from_json(self, data: dict) -> tuple[Instance, Filling]:
        """`to_json`'s output; a `iq solve --json` object (board and grid) too."""
        data = check_object(data, "an IQ solution")
        board = _json_board(data)
        pieces = _json_pieces(data)
        given = data.get("given") or None
        if given is not None and not isinstance(given, dict):
            raise InputError('"given" must be a JSON object {"letter": [cells], ...}')
        instance = self.instance(board, given, pieces=pieces)
        return instance, _read_grid(instance, data.get("grid"))

    def count(self, instance: Instance,
              options: SolveOptions | Mapping[str, Any] | None = None) -> int:
        """Every filling, over `options.threads` processes (default 1); TimeoutError when
        `options.time_limit` stops the count first (a partial count is no answer). `options`
        as `solve` takes them: SolveOptions or a dict of its fields."""
        from ilp_pyramid.puzzles.iq.count import count_solutions

        instance, options = _check_instance(instance), solve_options(options)
        report = count_solutions(instance, jobs=options.threads or 1,
                                 time_limit=options.time_limit)
        if not report.complete:
            raise TimeoutError(f"the count stopped at the time limit after {report.solutions} "
                               f"fillings")
        return report.solutions

    def bench_cases(self, sizes: Sequence[int] | None = None) -> list[BenchCase]:
        """The three 55-cell boards, each with k of the 12 pieces given (`sizes`: the k, by
        default BENCH_GIVEN) from a seeded filling: the bench's --seed picks the challenge
        (repeat r: seed r-1), the same on every machine. k = 0 is the empty board, one
        instance whatever the seed."""
        given = check_sizes(sizes, "number of pieces given", 0, len(STANDARD_PIECES)) \
            or BENCH_GIVEN
        return [BenchCase(("iq", "solve", board, "--generate-given", str(k)),
                          {"k": k, "board": board, "instance": "generated"}, seeded=k > 0)
                for k in given for board in BENCH_BOARDS]


def _check_instance(instance: object) -> Instance:
    """An IQ instance is what `instance`, `parse` and `default` make (a `model.Instance`)."""

    if not isinstance(instance, Instance):
        raise InputError(f"an IQ instance is what iq.instance(...), parse or default make, not "
                         f"{shown(instance)}")
    return instance


def _check_filling(solution: object) -> Filling:
    """A filling maps board cell indices to piece indices, whole numbers both."""
    if not isinstance(solution, Mapping) or not all(
            _whole(c) and _whole(k) for c, k in solution.items()):
        raise InputError(f"an IQ solution is a filling {{board cell: piece index}} of whole "
                         f"numbers, not {shown(solution)}")
    return dict(solution)


def _whole(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _misfits(instance: Instance, filling: Filling) -> list[str]:
    """The cells of `filling` off the board and the pieces not in the set."""
    board = instance.board
    problems = [f"cell {c} is not on board {board.name}" for c in filling
                if not 0 <= c < board.size]
    problems += [f"piece {k} is not in the piece set" for k in sorted(set(filling.values()))
                 if not 0 <= k < len(instance.pieces)]
    return problems


def _check_pair(instance: object, solution: object) -> tuple[Instance, Filling]:
    """What `render` and `to_json` take: a filling of this board by this set's pieces
    (`verify` reports the misfits as its reasons instead)."""
    instance, filling = _check_instance(instance), _check_filling(solution)
    problems = _misfits(instance, filling)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(f"cannot draw this filling: {problems[0]}{more}")
    return instance, filling


def _board(board: object) -> Board:
    if isinstance(board, Board):
        return board
    if not isinstance(board, str):
        raise InputError(f"an IQ board is a name (triangle, rectangle, pyramidN), a board "
                         f"file or a Board, not {shown(board)}")
    return board_by_name(board)


def _pieces(pieces: object) -> tuple[Piece, ...]:
    if pieces is None or isinstance(pieces, str):
        return piece_set(pieces)
    if not isinstance(pieces, Sequence) or not pieces or \
            not all(isinstance(p, Piece) for p in pieces):
        raise InputError(f"pieces must be a piece-set file or a non-empty list of Pieces, not "
                         f"{shown(pieces)}")
    if len({p.letter for p in pieces}) != len(pieces):
        raise InputError("pieces uses a letter twice")
    return tuple(pieces)


def _given_text(given: object) -> str | None:
    """The challenge as the text `parse_challenge` reads: a drawing or JSON as it is, a dict
    {"B": [[x, y], ...]} written as JSON (the reader then checks each piece's cells)."""
    if given is None or isinstance(given, str):
        return given
    if not isinstance(given, Mapping) or not all(isinstance(k, str) for k in given):
        raise InputError(f'given must be a challenge drawn as text or a dict {{"B": [[x, y], '
                         f'...], ...}} of piece letters and cells, not {shown(given)}')
    try:
        return json.dumps(dict(given))
    except (TypeError, ValueError, RecursionError):  # numpy numbers, objects, cycles
        raise InputError('given\'s cells must be lists of whole numbers: {"B": [[x, y], '
                         '...], ...}') from None


def _json_board(data: object) -> Board:
    if not isinstance(data, dict) or not isinstance(data.get("board"), str):
        raise InputError('an IQ solution must be a JSON object with a "board" name')
    name, cells = data["board"], data.get("cells")
    if cells is None:
        board = named_board(name)
        if board is None:
            raise InputError(f"unknown board {name!r} without its \"cells\"")
        return board
    if not isinstance(cells, list) or not cells or not all(
            isinstance(c, list) and len(c) == 2 and all(type(v) is int and v >= 0 for v in c)
            for c in cells):
        raise InputError('"cells" must be a list of [x, y] pairs of integers >= 0')
    if len({tuple(c) for c in cells}) != len(cells):
        raise InputError('"cells" lists a cell twice')
    return Board(name, 2, tuple((c[0], c[1]) for c in cells))


def _json_pieces(data: dict) -> tuple[Piece, ...] | None:
    entries = data.get("pieces")
    if entries is None:
        return None
    if not isinstance(entries, list) or not entries:
        raise InputError('"pieces" must be a non-empty list')
    pieces = tuple(piece_from_json(entry, i, "the solution") for i, entry in enumerate(entries))
    if len({p.letter for p in pieces}) != len(pieces):
        raise InputError('"pieces" uses a letter twice')
    return pieces


def _read_grid(instance: Instance, grid: object) -> Filling:
    """The filling from `render.letter_grid`'s rows (2-D) or levels of rows (3-D); a `.`
    leaves the cell empty, for the checker to report."""
    board = instance.board
    rows_ok = isinstance(grid, list) and all(isinstance(row, str) for row in grid)
    levels_ok = isinstance(grid, list) and all(
        isinstance(level, list) and all(isinstance(row, str) for row in level) for level in grid)
    if not (rows_ok if board.dims == 2 else levels_ok):
        raise InputError('"grid" must be the rows of letters (a pyramid: a list of levels of '
                         'rows), as `iq solve --json` writes it')
    letters = {p.letter: k for k, p in enumerate(instance.pieces)}
    filling: Filling = {}
    for c, cell in enumerate(board.cells):
        *at, last = (cell[2], cell[1], cell[0]) if board.dims == 3 else (cell[1], cell[0])
        rows: Any = grid
        for index in at:
            rows = rows[index] if index < len(rows) else ""
        ch = rows[last] if last < len(rows) else "."
        if ch in ". ":
            continue
        if ch not in letters:
            raise InputError(f"the grid holds {ch!r}, no piece of the set")
        filling[c] = letters[ch]
    return filling


PUZZLE = IQPuzzle()
