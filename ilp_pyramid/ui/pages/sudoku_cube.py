"""The Sudoku Cube page: its HTML is static/sudoku-cube.html; its JSON routes are below.

The page is a cube net of 54 stickers, each a digit and the way its top points (the sticker
file's tokens, "5^"). Everything the page learns about a cube comes from the package's own
code: the text format and its parser (state.py), the digit count (runner.py), the generator
(generate.py), the pieces' facelets (geometry.py), face turns simulated sticker by sticker
(simulate.py). Solving is `ilp-pyramid sudoku-cube solve FILE --moves --json` run as a
child process, the state written in the file format into the run's own folder.

    GET  /api/sudoku-cube/layout    the net, the facelets in space, the pieces, the choices
    POST /api/sudoku-cube/check     {faces} -> the problems the stickers have now (live check)
    POST /api/sudoku-cube/parse     {text} -> {faces}: a sticker file pasted into the page
    POST /api/sudoku-cube/example   {seed, scramble} -> a generated, scrambled cube
    POST /api/sudoku-cube/solve     {faces, solver, parity, symmetric, time_limit} -> a run
                                    (400 in the live check's words while a sticker is
                                    unfinished; digit counts are the command's to judge)
    POST /api/sudoku-cube/steps     {faces, moves, target} -> the cube after every face turn
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.sudoku_cube.checks import DEFAULT_PARITY, PARITY_MODES, digit_count_problem
from ilp_pyramid.puzzles.sudoku_cube.generate import DEFAULT_SCRAMBLE, generate
from ilp_pyramid.puzzles.sudoku_cube.geometry import (
    CORNER_SLOTS,
    DIRECTIONS,
    EDGE_SLOTS,
    FACES,
    NUM_FACELETS,
    geometry,
)
from ilp_pyramid.puzzles.sudoku_cube.render import NET, TINT
from ilp_pyramid.puzzles.sudoku_cube.simulate import (
    apply_labels,
    apply_moves,
    format_moves,
    parse_moves,
)
from ilp_pyramid.puzzles.sudoku_cube.state import parse_state, parse_token, state_from_dict
from ilp_pyramid.ui.pages import Page
from ilp_pyramid.ui.web import (
    DEFAULT_TIME_LIMIT,
    MAX_TIME_LIMIT,
    body_json,
    field_choice,
    field_int,
    field_text,
    page_solvers,
    start_run,
    time_limit,
    time_limit_args,
)

if TYPE_CHECKING:
    from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

STATE_FILE = "cube.txt"
MAX_SCRAMBLE = 200  # the generator takes more; a page example needs no more than this
MAX_MOVES = 2_000  # the answers are 60-110 turns; the cap bounds the states sent back
MAX_MOVES_CHARS = 10 * MAX_MOVES  # "R2' " and commas, spaces between
MAX_FILE_CHARS = 100_000  # a sticker file is six lines of nine tokens, and comments
DEFAULT_SOLVER = "highs"  # the page's first choice: a MIP solver of the base install


def _faces_field(data: dict[str, Any], key: str = "faces") -> dict[str, list[str]]:
    """{"U": ["5^", ...nine], ...} as the page sends it: six faces of nine strings each (the
    strings themselves are judged by the parser or the live check)."""

    faces = data.get(key)
    if not isinstance(faces, dict) or sorted(faces) != sorted(FACES):
        raise InputError(f'{key} must be the six faces {" ".join(FACES)}: '
                         '{"U": ["5^", ...], ...}')
    for face, tokens in faces.items():
        if (not isinstance(tokens, list) or len(tokens) != 9
                or not all(isinstance(t, str) and len(t) <= 8 for t in tokens)):
            raise InputError(f"{key}: face {face} must be a list of nine stickers such as '5^'")
    return {face: [t.strip() for t in faces[face]] for face in FACES}


def _state(faces: dict[str, list[str]]) -> CubeState:
    """The CubeState, through the sticker file's own parser (its one-line errors)."""

    return state_from_dict(faces)


async def layout(_request: Request) -> Response:
    """What the page draws with: the net (render.py's), each facelet's cubie and outward
    normal (geometry.py's axes: x to R, y to U, z to F), the pieces' facelets, the choices."""
    facelets = [{"name": f.name, "cubie": f.cubie, "normal": f.normal}
                for f in geometry().facelets]
    pieces = ([{"slot": slot, "facelets": list(names)} for slot, names in CORNER_SLOTS]
              + [{"slot": slot, "facelets": list(names)} for slot, names in EDGE_SLOTS])
    return JSONResponse({
        "faces": FACES, "directions": DIRECTIONS, "net": NET, "tint": TINT,
        "facelets": facelets, "pieces": pieces,
        "solvers": _solvers(), "solver": DEFAULT_SOLVER,
        "parities": list(PARITY_MODES), "parity": DEFAULT_PARITY,
        "scramble": DEFAULT_SCRAMBLE, "max_scramble": MAX_SCRAMBLE,
        "default_time_limit": DEFAULT_TIME_LIMIT, "max_time_limit": MAX_TIME_LIMIT,
    })


def _solvers() -> list[str]:
    """The installed solvers of the page's list: the grid model goes to a MIP solver as it
    is, to a SAT solver as CNF (`sudoku-cube solve --solver`)."""
    return page_solvers()


def problems_of(faces: dict[str, list[str]]) -> dict[str, Any]:
    """The live check: every sticker that is not a digit and a direction yet; then, for a
    whole cube, the package's own first check of `sudoku-cube solve`: each digit six times
    (runner.digit_count_problem). Each problem names the facelets it is about.

    Nothing finer is decided here: a Sudoku Cube's pieces carry digits, not colours, so any
    digits on a corner or an edge make a piece, and whether the pieces make six upright 1-9
    faces (and whether turning reaches them, or a corner was twisted in place) takes the grid
    model: Solve answers that, naming the rule a reassembled cube breaks. (With every digit
    six times the model's own pre-check, a digit only on other faces' centres, cannot fire.)
    """

    problems: list[dict[str, Any]] = []
    digits: dict[str, int] = {}
    for face, tokens in faces.items():
        for pos, text in enumerate(tokens, start=1):
            sticker = parse_token(text)
            name = f"{face}{pos}"
            if sticker is not None:
                digits[name] = sticker[0]
            elif text in ("", *DIRECTIONS):
                problems.append({"text": f"{name}: no digit yet", "facelets": [name]})
            elif len(text) == 1 and text in "123456789":
                problems.append({"text": f"{name}: {text} has no direction (^ > v <)",
                                 "facelets": [name]})
            else:
                problems.append({"text": f"{name}: {text!r} is not a digit 1-9 and a direction "
                                         "^ > v <", "facelets": [name]})
    counts = Counter(digits.values())
    result: dict[str, Any] = {"counts": {str(d): counts[d] for d in range(1, 10)},
                              "problems": problems, "complete": not problems, "text": None}
    if problems:
        return result
    state = _state(faces)
    result["text"] = state.to_text()
    count_problem = digit_count_problem(state)
    if count_problem:
        off = {d for d in range(1, 10) if counts[d] != 6}
        problems.append({"text": count_problem,
                         "facelets": [name for name, d in digits.items() if d in off]})
    return result

def not_ready(problems: list[dict[str, Any]], shown: int = 3) -> str:
    """Why Solve cannot start yet, in the live check's words: its first problems and how
    many more there are."""
    texts = [problem["text"] for problem in problems]
    more = len(texts) - shown
    return ("not ready to solve: " + "; ".join(texts[:shown])
            + (f"; and {more} more (the live check lists them)" if more > 0 else ""))


async def check(request: Request) -> Response:
    return JSONResponse(problems_of(_faces_field(await body_json(request))))


async def parse(request: Request) -> Response:
    """A sticker file pasted into the page, read by the CLI's parser (in memory)."""
    data = await body_json(request)
    if not isinstance(data.get("text"), str):
        raise InputError("text must be the sticker file's text")
    text = field_text(data, "text", MAX_FILE_CHARS)

    return JSONResponse({"faces": parse_state(text).to_dict()})


async def example(request: Request) -> Response:
    """A cube as `sudoku-cube generate --seed S --scramble N` makes it."""

    data = await body_json(request)
    seed = field_int(data, "seed", 0, 2**31 - 1, 0)
    scramble = field_int(data, "scramble", 0, MAX_SCRAMBLE, DEFAULT_SCRAMBLE)
    instance = generate(seed, scramble)
    return JSONResponse({"faces": instance.state.to_dict(), "header": instance.header(),
                         "seed": seed, "scramble": scramble})


def _symmetric(data: dict[str, Any]) -> list[str]:
    """The digits besides 1 that count as upright pointing down: "8", "6, 9" or [8]."""
    value = data.get("symmetric") or ""
    parts = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(parts, list) or len(parts) > 9:
        raise InputError("symmetric must be digits such as '8' or '6, 9'")
    digits = []
    for part in parts:
        if not isinstance(part, str | int) or isinstance(part, bool):
            raise InputError("symmetric must be digits such as '8' or '6, 9'")
        text = str(part).strip()
        if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 9):
            raise InputError(f"symmetric takes digits 1-9 (got {text!r})")
        digits.append(text)
    return digits


async def solve(request: Request) -> Response:
    """`ilp-pyramid sudoku-cube solve cube.txt --moves --json` on the page's stickers."""
    data = await body_json(request)
    faces = _faces_field(data)
    live = problems_of(faces)
    if not live["complete"]:  # stickers still to type: the live check's words, not the
        raise InputError(not_ready(live["problems"]))  # sticker file parser's
    state = _state(faces)
    solver = field_choice(data, "solver", _solvers(), DEFAULT_SOLVER)
    parity = field_choice(data, "parity", PARITY_MODES, DEFAULT_PARITY)
    # One core: the solver's threads stay within the core the run is given.
    args = ["sudoku-cube", "solve", "--moves", "--json", "--solver", solver,
            "--parity", parity, "--threads", "1"]
    symmetric = _symmetric(data)
    if symmetric:
        args += ["--symmetric", ",".join(symmetric)]
    limit = time_limit(data)
    args += time_limit_args(limit)
    text = state.to_text("entered on the workbench's Sudoku Cube page")
    # The file is named in the run's own working folder: no path reaches the page.
    return await start_run(request, [*args, STATE_FILE], files={STATE_FILE: text.encode()},
                           seconds=limit)


def steps_of(faces: dict[str, list[str]], moves_text: str,
             target: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """The cube before the first face turn and after each one (simulate.apply_moves, digit
    directions included), and for every sticker the face it ends on after the last turn
    (simulate.apply_labels), so the page can colour a sticker by where it is going."""

    state = _state(faces)
    moves = parse_moves(moves_text)
    if len(moves) > MAX_MOVES:
        raise InputError(f"at most {MAX_MOVES:,} face turns (got {len(moves):,})")
    final = apply_labels(range(NUM_FACELETS), moves)  # final[b]: the sticker that ends on b
    ends = [""] * NUM_FACELETS
    for b, a in enumerate(final):
        ends[a] = FACES[b // 9]
    states, goes = [state.to_dict()], [_by_face(ends)]
    for move in moves:
        state = apply_moves(state, [move])
        ends = apply_labels(ends, [move])
        states.append(state.to_dict())
        goes.append(_by_face(ends))
    reaches = None if target is None else _state(target).to_dict() == states[-1]
    return {"moves": [format_moves([m]) for m in moves], "states": states, "goes": goes,
            "reaches_target": reaches}


def _by_face(labels: list[str]) -> dict[str, list[str]]:

    return {face: labels[9 * k: 9 * k + 9] for k, face in enumerate(FACES)}


async def steps(request: Request) -> Response:
    data = await body_json(request)
    if not isinstance(data.get("moves"), str):
        raise InputError("moves must be face turns such as \"R U2 F'\"")
    moves = field_text(data, "moves", MAX_MOVES_CHARS)
    target = _faces_field(data, "target") if data.get("target") is not None else None
    return JSONResponse(steps_of(_faces_field(data), moves, target))


PAGE = Page(slug="sudoku-cube", title="Sudoku Cube", html="sudoku-cube.html",
            blurb="type the stickers of a scrambled cube into a net; get the solved grid and "
                  "the face turns, step by step",
            routes=[Route("/api/sudoku-cube/layout", layout),
                    Route("/api/sudoku-cube/check", check, methods=["POST"]),
                    Route("/api/sudoku-cube/parse", parse, methods=["POST"]),
                    Route("/api/sudoku-cube/example", example, methods=["POST"]),
                    Route("/api/sudoku-cube/solve", solve, methods=["POST"]),
                    Route("/api/sudoku-cube/steps", steps, methods=["POST"])])
