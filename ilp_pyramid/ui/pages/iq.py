"""The IQ Pyramid / Kanoodle page: pick a board, click the puzzle-book challenge, solve or count.

The page holds the challenge as the JSON `iq solve --given` reads: {"B": [[x, y], ...]} for a
piece given whole (3-D cells [i, j, level]) and a small letter for pinned cells. Every check
of a click is the package's own (boards.py, given.py, placements.py); every answer is a run of
the CLI's `iq solve --json` / `iq count --json --output`, which verified it before printing or
writing it. A count's listing is kept, gzipped, past the end of its run (runs.py `keep`) and
read back a page at a time.

Routes:
  GET  /api/iq/setup             boards, pieces, solvers
  POST /api/iq/board             a custom 2-D board {"cells": [[x, y], ...]} -> the board
  POST /api/iq/check             {board, given, draft?} -> the challenge after one click
  POST /api/iq/solve             {board, given, solver, time_limit?} -> a run
  POST /api/iq/count             {board, given, time_limit?} -> a run
  GET  /api/iq/listing/{run_id}  ?page=&size= -> a page of the finished count's fillings
"""

from __future__ import annotations

import gzip
import io
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ilp_pyramid import protocol
from ilp_pyramid.backends import solvers as solver_table
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.boards import Board, named_board, parse_text_board
from ilp_pyramid.puzzles.iq.model import Instance
from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES
from ilp_pyramid.puzzles.iq.placements import piece_placements
from ilp_pyramid.puzzles.iq.puzzle import PUZZLE
from ilp_pyramid.puzzles.iq.render import letter_grid
from ilp_pyramid.ui import web
from ilp_pyramid.ui.pages import Page

NAMED_BOARDS = ("triangle", "rectangle", "pyramid4", "pyramid5")
CUSTOM_SIDE = 16  # a custom board is drawn on at most 16 x 16 cells
DEFAULT_SOLVER = "dlx"
BOARD_FILE, GIVEN_FILE, LISTING_FILE = "board.txt", "given.json", "fillings.txt.gz"
MAX_PAGE_SIZE = 50
MAX_PAGE = 10**9


def _board(spec: object) -> Board:
    """A named board, or {"cells": [[x, y], ...]}: a 2-D board drawn on the page."""
    if isinstance(spec, str) and spec in NAMED_BOARDS:
        board = named_board(spec)
        assert board is not None
        return board
    if isinstance(spec, dict) and "cells" in spec:
        return _custom_board(spec["cells"])
    raise InputError(f"board must be one of: {', '.join(NAMED_BOARDS)}, or "
                     '{"cells": [[x, y], ...]}')


def _custom_board(cells: object) -> Board:
    if not isinstance(cells, list) or not all(
            isinstance(c, list) and len(c) == 2
            and all(type(v) is int and 0 <= v < CUSTOM_SIDE for v in c) for c in cells):
        raise InputError(f"a custom board's cells must be [x, y] pairs from 0 to "
                         f"{CUSTOM_SIDE - 1}")
    if not cells:
        raise InputError("the custom board has no cells: click some on")
    chosen = {(x, y) for x, y in cells}
    # The board goes through the text drawing a board file holds (spaces outside, so empty
    # rows at the top go as in the file `_drawing` writes): the page's board and the CLI's,
    # read from that file, are one and the same, shifted alike to the top-left.
    text = "\n".join("".join("." if (x, y) in chosen else " " for x in range(CUSTOM_SIDE))
                     for y in range(CUSTOM_SIDE))
    return parse_text_board(text, name="custom")


def _drawing(board: Board) -> str:
    """A 2-D board as the text file `iq solve BOARD` reads."""
    return "\n".join(letter_grid(board, {})) + "\n"  # type: ignore[arg-type]


def _describe(board: Board) -> dict[str, Any]:
    return {"name": board.name, "dims": board.dims, "levels": board.levels,
            "cells": [list(cell) for cell in board.cells],
            "symmetries": len(board.symmetries())}


def solvers() -> tuple[str, ...]:
    """The `iq solve --solver` choices this installation can run, Dancing Links first: the
    solver table's installed solvers, and IQ's own shorthand "sat" when its solver is."""
    found = [DEFAULT_SOLVER, *solver_table.names("mip", installed=True)]
    if solver_table.solver(PUZZLE.solver_aliases["sat"]).installed:
        found.append("sat")
    found += solver_table.names("sat", "cp", installed=True)
    return tuple(dict.fromkeys(found))


def _cores_args(solver: str) -> list[str]:
    """One core a run: a solver that takes threads is held to one."""
    return ["--threads", "1"] if protocol.solver_for(PUZZLE, solver).threads else []


def _given(data: dict, board: Board) -> dict[str, list]:
    """The challenge as the page sends it, in the shape `iq solve --given` reads (the CLI's
    message for a bad one)."""
    given = data.get("given") or {}
    if not isinstance(given, dict):
        raise InputError('given must be a JSON object {"letter": [cells], ...}')
    shape = "[x, y]" if board.dims == 2 else "[i, j, level]"
    for letter, cells in given.items():
        if len(letter) != 1 or not letter.isascii() or not letter.isalpha():
            raise InputError(f"unknown piece letter {letter[:8]!r} in given (pieces: "
                             f"{''.join(p.letter for p in STANDARD_PIECES)})")
        if cells and (not isinstance(cells, list) or not all(
                isinstance(c, list) and len(c) == board.dims
                and all(type(v) is int for v in c) for c in cells)):
            raise InputError(f"piece {letter}: cells must be a list of {shape} integer lists")
    return {letter: cells for letter, cells in given.items() if cells}


def _instance(board: Board, given: dict[str, list]) -> Instance:
    """The package's own reading of the challenge (given.parse_challenge): every cell on the
    board, no cell twice, each capital letter a legal placement of its piece."""
    return PUZZLE.instance(board, given or None)


def _with_draft(board: Board, given: dict[str, list],
                draft: object) -> tuple[dict[str, list], str]:
    """The challenge with the cells clicked for one piece: "placed" (a whole piece, or a pin),
    "partial" (fewer cells than the piece; left out of the challenge) or InputError."""
    if not isinstance(draft, dict):
        raise InputError('draft must be {"letter": "B", "cells": [...], "pin": false}')
    pieces = STANDARD_PIECES
    letters = {p.letter: k for k, p in enumerate(pieces)}
    letter = str(draft.get("letter", "")).upper()
    if letter not in letters:
        raise InputError(f"unknown piece {letter!r} (pieces: {''.join(letters)})")
    piece = pieces[letters[letter]]
    cells = draft.get("cells")
    if not isinstance(cells, list) or not cells or not all(
            isinstance(c, list) and len(c) == board.dims and all(type(v) is int for v in c)
            for c in cells):
        raise InputError(f"the cells of piece {letter} must be a list of "
                         f"{'[x, y]' if board.dims == 2 else '[i, j, level]'} integer lists")
    taken = {tuple(c): owner for owner, owned in given.items() for c in owned}
    for c in cells:
        if board.index(tuple(c)) is None:
            raise InputError(f"cell {c} is not on board {board.name}")
        owner = taken.get(tuple(c))
        if owner is not None:
            what = f"pin {owner}" if owner.islower() else f"piece {owner}"
            raise InputError(f"cell {c} is already covered by {what}: erase it first")
    if draft.get("pin"):
        return {**given, letter.lower(): list(given.get(letter.lower(), [])) + cells}, "placed"
    if letter in given:
        raise InputError(f"piece {letter} is already on the board: erase it first")
    if len(cells) < piece.size:
        # Some legal placement of the piece, clear of the other pieces, must still hold them.
        wanted = {board.index(tuple(c)) for c in cells}
        blocked = {board.index(c) for c in taken}
        if not any(wanted <= set(pl.cells) and not blocked & set(pl.cells)
                   for pl in piece_placements(board, piece, letters[letter])):
            raise InputError(f"no placement of piece {letter} covers these {len(cells)} cells "
                             "and keeps clear of the pieces already placed")
        return given, "partial"
    if len(cells) > piece.size:
        raise InputError(f"piece {letter} has {piece.size} cells, not {len(cells)}")
    return {**given, letter: cells}, "placed"


def _challenge_state(board: Board, given: dict[str, list],
                     instance: Instance) -> dict[str, Any]:
    pieces = instance.pieces
    return {"board": _describe(board), "given": given,
            "placements": len(instance.placements),
            "free_cells": len(instance.free_cells),
            "free_pieces": [pieces[k].letter for k in instance.free_pieces]}


async def setup(request: Request) -> Response:
    boards = {name: _describe(_board(name)) for name in NAMED_BOARDS}
    pieces = [{"letter": p.letter, "cells": [list(c) for c in p.cells], "colour": p.colour,
               "size": p.size} for p in STANDARD_PIECES]
    return JSONResponse({"boards": boards, "pieces": pieces, "solvers": list(solvers()),
                         "default_solver": DEFAULT_SOLVER, "custom_side": CUSTOM_SIDE,
                         "default_time_limit": web.DEFAULT_TIME_LIMIT,
                         "max_time_limit": web.MAX_TIME_LIMIT})


async def board(request: Request) -> Response:
    data = await web.body_json(request)
    return JSONResponse(_describe(_custom_board(data.get("cells"))))


async def check(request: Request) -> Response:
    data = await web.body_json(request)
    # Every placement of every piece is laid out anew: off the event loop, which streams the
    # runs' progress meanwhile.
    return JSONResponse(await run_in_threadpool(_check, data))


def _check(data: dict) -> dict[str, Any]:
    chosen = _board(data.get("board"))
    given = _given(data, chosen)
    state = None
    if data.get("draft") is not None:
        given, state = _with_draft(chosen, given, data["draft"])
    answer = _challenge_state(chosen, given, _instance(chosen, given))
    answer["draft"] = state
    return answer


def _run_files(data: dict) -> tuple[dict[str, bytes], str]:
    """The files a run reads (a custom board, the challenge) and the board's name; InputError
    before any run for a bad challenge."""
    chosen = _board(data.get("board"))
    given = _given(data, chosen)
    _instance(chosen, given)
    files: dict[str, bytes] = {}
    if chosen.name == "custom":
        files[BOARD_FILE] = _drawing(chosen).encode()
    if given:
        files[GIVEN_FILE] = json.dumps(given).encode()
    return files, chosen.name


def _files_args(files: dict[str, bytes], board_name: str, listing: bool = False) -> list[str]:
    """The run's BOARD [--given FILE] [--output FILE]: the files by their names in the run's
    own working folder (no path reaches the page)."""
    args = [BOARD_FILE if BOARD_FILE in files else board_name]
    if GIVEN_FILE in files:
        args += ["--given", GIVEN_FILE]
    if listing:
        args += ["--output", LISTING_FILE]
    return args


async def solve(request: Request) -> Response:
    data = await web.body_json(request)
    solver = web.field_choice(data, "solver", solvers(), DEFAULT_SOLVER)
    limit = web.time_limit(data)
    files, name = await run_in_threadpool(_run_files, data)
    args = ["iq", "solve", "--json", "--solver", solver, *_cores_args(solver),
            *web.time_limit_args(limit), *_files_args(files, name)]
    return await web.start_run(request, args, files, seconds=limit)


async def count(request: Request) -> Response:
    data = await web.body_json(request)
    limit = web.time_limit(data)
    files, name = await run_in_threadpool(_run_files, data)

    def args(jobs: int) -> list[str]:
        # Its worker processes: as many as the cores the run is given (runs.RunManager).
        return ["iq", "count", "--json", "--jobs", str(jobs), *web.time_limit_args(limit),
                *_files_args(files, name, listing=True)]

    return await web.start_run(request, args, files, keep=LISTING_FILE,
                               jobs=web.runs(request).cores, seconds=limit)


def _grid(line: str) -> list[str] | list[list[str]]:
    """A line of `iq count --output` as the grid `iq solve --json` prints (lines.grid_line
    backwards): 2-D rows; 3-D levels of rows, bottom first."""
    if "|" in line:
        return [level.split("/") for level in line.split("|")]
    return line.split("/")


async def listing(request: Request) -> Response:
    run = web.runs(request).runs.get(request.path_params["run_id"])
    if run is None or not web.owns(request, run):
        return web.error("no such run", 404)
    if not run.done:
        return web.error("the count is still running", 409)
    if run.kept is None:
        return web.error("this run kept no listing (stopped, over the time limit, or too "
                         "large to keep)", 404)
    query = dict(request.query_params)
    page = web.field_int(query, "page", 0, MAX_PAGE, 0)
    size = web.field_int(query, "size", 1, MAX_PAGE_SIZE, 10)
    total, shown = await run_in_threadpool(_page_of, run.kept, page * size, size)
    return JSONResponse({"total": total, "page": page, "size": size,
                         "grids": [_grid(line) for line in shown]})


def _page_of(kept: bytes, first: int, size: int) -> tuple[int, list[str]]:
    """How many fillings the gzipped listing holds, and `size` of them from the `first`:
    read line by line (a rectangle's 371,020 never whole in memory)."""
    total, shown = 0, []
    with gzip.open(io.BytesIO(kept), "rt", encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            if first <= total < first + size:
                shown.append(line)
            total += 1
    return total, shown


PAGE = Page(slug="iq", title="IQ Pyramid / Kanoodle", html="iq.html", routes=[
    Route("/api/iq/setup", setup),
    Route("/api/iq/board", board, methods=["POST"]),
    Route("/api/iq/check", check, methods=["POST"]),
    Route("/api/iq/solve", solve, methods=["POST"]),
    Route("/api/iq/count", count, methods=["POST"]),
    Route("/api/iq/listing/{run_id}", listing),
], blurb="pick a board, click the book's challenge, solve it or count every completion")
