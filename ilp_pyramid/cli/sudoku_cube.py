"""`ilp-pyramid sudoku-cube ...`: generate, solve, apply, export, bench (verify and render are
the standard ones, added by `cli/puzzle.py`).

`solve` and `export` are the standard commands (`cli/puzzle.py`'s `solve_command`, `export_command`)
with the cube's own options: its instance is the sticker FILE (with --symmetric digits), its
model options --parity, its after-options --moves. Every solve goes through `protocol.solve`.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ilp_pyramid import extras, protocol
from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.base import Status
from ilp_pyramid.bench.grid import puzzle_grid
from ilp_pyramid.cli.bench import execute, invocation
from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    EXIT_TIMEOUT,
    Json,
    Output,
    Seed,
    Solver,
    SolverCommand,
    SolverSeed,
    TimeLimit,
    console,
    fail,
    like,
    load_input,
    print_json,
    print_table,
    save,
    solve_options,
)
from ilp_pyramid.cli.puzzle import Call, export_command, solve_command
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.puzzles.sudoku_cube import checks
from ilp_pyramid.puzzles.sudoku_cube.bench_cases import bench_cases
from ilp_pyramid.puzzles.sudoku_cube.checks import DEFAULT_PARITY, NOT_TURNABLE, RULES
from ilp_pyramid.puzzles.sudoku_cube.generate import BREAKS, DEFAULT_SCRAMBLE, generate
from ilp_pyramid.puzzles.sudoku_cube.puzzle import PUZZLE, Cube
from ilp_pyramid.puzzles.sudoku_cube.render import png_bytes
from ilp_pyramid.puzzles.sudoku_cube.simulate import apply_moves, format_moves, parse_moves
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState, parse_state

app = typer.Typer(
    help="Sudoku Cube: a Rubik's Cube with digits. Solve the grid (which piece goes where, "
         "turned which way, so every face shows 1-9 upright) as a 0-1 program or CNF, keep it "
         "reachable by turning, and give the face turns.",
    no_args_is_help=True,
)


def _form_solvers() -> str:
    """'highs | cbc | ...': the table's solvers of the families that take the cube's form."""
    families = [family for family in solvers.FAMILIES
                if any(entry.family == family and set(entry.forms) & set(PUZZLE.forms)
                       for entry in solvers.SOLVERS)]
    return solvers.listing(*families)


FileArg = typer.Argument(..., help="Sticker state: one line per face, e.g. "
                                   "'F: 3^ 9> 4^ 6v 1< 5^ 5^ 7> 9^' (^ > v <: where the "
                                   "digit's top points).")
SOLVER_HELP = (f"MIP or SAT solver: {_form_solvers()} (a SAT solver takes the grid as CNF; "
               "kissat and cadical the fastest measured: docs/sudoku_cube.md).")
SolverOpt = like(Solver, default="highs", help=SOLVER_HELP)
ParityOpt = typer.Option(DEFAULT_PARITY, "--parity",
                         help="How the model keeps the permutation parities equal: inversions "
                              "(counted in the model, default) | cuts (solve, then forbid "
                              "each grid whose parities disagree, and solve again).")
SymmetricOpt = typer.Option(None, "--symmetric",
                            help="Digits that look the same after a half turn and so may point "
                                 "up or down (1 always does). Repeat or comma-separate: "
                                 "--symmetric 8.")
BrokenOpt = typer.Option(None, "--broken",
                         help="Then reassemble it wrongly, so that no turning solves it: "
                              + "; ".join(f"{k} = {v}" for k, v in BREAKS.items()) + ".")


def symmetric_digits(values: list[str] | None) -> frozenset[int]:
    digits = {1}
    for value in values or []:
        for part in value.replace(",", " ").split():
            if not (part.isascii() and part.isdigit() and 1 <= int(part) <= 9):
                fail(f"--symmetric takes digits 1-9 (got {part!r})")
            digits.add(int(part))
    return frozenset(digits)


def check_parity(parity: str) -> None:
    try:
        checks.check_parity(parity)
    except InputError as exc:
        fail(str(exc))


def check_choices(solver: str, parity: str) -> None:
    """The solver known, installed and taking the cube's model; the parity mode known."""
    try:
        protocol.pick_form(PUZZLE, protocol.solver_for(PUZZLE, solver))
    except InputError as exc:
        fail(str(exc))
    check_parity(parity)


def check_broken(broken: str | None) -> None:
    if broken is not None and broken not in BREAKS:
        fail(f"unknown --broken {broken!r} (choose from {', '.join(BREAKS)})")


def load_state(path: Path) -> CubeState:
    return load_input(path, parse_state)


@app.command("generate")
def generate_cmd(
    seed: int = like(Seed, default=..., help="Random seed: the same seed, the same cube."),
    scramble: int = typer.Option(DEFAULT_SCRAMBLE, "--scramble", min=0, max=10_000,
                                 help="Random face turns applied to the designed cube."),
    output: Path = like(Output, help="Write here instead of stdout."),
    symmetric: list[str] = SymmetricOpt,
    broken: str = BrokenOpt,
    json_out: bool = Json,
) -> None:
    """Design a random solved Sudoku Cube (every face 1-9, upright), scramble it, print it."""
    check_broken(broken)
    instance = generate(seed, scramble, symmetric_digits(symmetric))
    if broken:
        instance = instance.broken(broken)
    text = instance.to_text()
    if output is not None:
        write_atomic(output, text)
    if json_out:
        print_json({"seed": seed, "scramble": scramble, "broken": broken,
                    "output": None if output is None else str(output), "cube": text})
    elif output is None:
        sys.stdout.write(text)  # raw: the cube is data, written byte for byte
    else:
        console.print(f"wrote {output} (seed {seed}, {scramble} turns)")


def solve_options_of_the_cube(
    file: Path = FileArg,
    moves: bool = typer.Option(False, "--moves", "-m",
                               help="Also give the face turns that reach the grid (always "
                                    "included with --json)."),
    parity: str = ParityOpt,
    symmetric: list[str] = SymmetricOpt,
    seed: int = Seed,
    faces_out: Path = like(Output, help="Also write the solved faces here, in the text "
                                        "format."),
    json_out: bool = Json,
    png: Path = typer.Option(None, "--png", help="Write a picture of the six faces as a net, "
                                                 "before and after, every digit turned its "
                                                 "way (when solved)."),
) -> Call:
    """The cube's part of `solve`: the sticker FILE, the parity mode, the moves, and the
    files written once it is solved (--output, --png)."""
    check_parity(parity)
    if moves:
        extras.need("kociemba")  # before the solve, not after it
    if png is not None:
        extras.need("matplotlib")
    instance = PUZZLE.instance(load_state(file), symmetric_digits(symmetric))
    # --json carries the moves whenever they can be found (the `sudoku` extra).
    with_moves = moves or (json_out and extras.available("kociemba"))

    def then(instance: Cube, result: protocol.Result) -> None:
        solution = result.solution
        if solution is None:
            return
        if faces_out is not None:
            header = f"solved faces of {file.name}"
            if solution.moves is not None:
                header += f"\nmoves: {format_moves(solution.moves)}"
            write_atomic(faces_out, solution.target.to_text(header))
            if not json_out:
                console.print(f"wrote the solved faces to {faces_out}", markup=False)
        if png is not None:
            _write_png(png, file, instance, solution)

    return Call(instance=instance, model={"parity": parity}, after={"moves": with_moves},
                then=then)


def _write_png(path: Path, file: Path, instance: Cube, solution: Any) -> None:

    save(path, png_bytes(instance.state, solution.target, solution.directions,
                         f"Sudoku Cube {file.name}"))


app.command("solve")(solve_command(
    PUZZLE, solve_options_of_the_cube,
    hide=("file", "generate", "planted", "seed", "output", "json_out"),
    doc="Find a grid reachable by turning, verify it, and (with --moves) the turns to get "
        "there.\n\nExit codes: 0 solved, 1 not solvable (by turning, or at all), 2 bad input, "
        "3 time limit.",
    solver_help=SOLVER_HELP))


@app.command("apply")
def apply_cmd(
    file: Path = FileArg,
    moves: str = typer.Argument(..., help="Face turns, e.g. \"R U2 F' D\"."),
    output: Path = like(Output, help="Write the result here."),
    json_out: bool = Json,
) -> None:
    """Turn the cube: simulate face turns on a sticker state, digit directions included."""
    state = load_state(file)
    try:
        turns = parse_moves(moves)
    except InputError as exc:
        fail(str(exc))
    after = apply_moves(state, turns)
    if output is not None:
        write_atomic(output, after.to_text(f"{file.name} after {format_moves(turns)}"))
    if json_out:
        print_json({"faces": after.to_dict(), "moves": format_moves(turns)})
    elif output is None:
        sys.stdout.write(after.to_text())


def export_options_of_the_cube(
    file: Path = FileArg,
    parity: str = ParityOpt,
    symmetric: list[str] = SymmetricOpt,
) -> Call:
    """The cube's part of `export`: the sticker FILE and the parity mode."""
    check_parity(parity)
    return Call(instance=PUZZLE.instance(load_state(file), symmetric_digits(symmetric)),
                model={"parity": parity}, keys={"parity": parity})


app.command("export")(export_command(
    PUZZLE, export_options_of_the_cube, hide=("file", "generate", "seed", "planted"),
    doc="Export the grid model of a sticker state as LP or MPS (readable, stable names)."))


@app.command("bench")
def bench_cmd(
    ctx: typer.Context,
    count: int = typer.Option(100, "--count", "-n", min=1, max=10_000,
                              help="How many generated cubes."),
    start: int = typer.Option(0, "--start", min=0, help="First seed (then start+1, ...)."),
    scramble: int = typer.Option(DEFAULT_SCRAMBLE, "--scramble", min=0, max=10_000),
    solver: str = SolverOpt,
    parity: str = ParityOpt,
    moves: bool = typer.Option(True, "--moves/--no-moves", help="Also find and check moves."),
    grid_only: bool = typer.Option(False, "--grid-only",
                                   help="The seed's model: no turning rules (for comparison; "
                                        "counts how many grids turned out reachable anyway)."),
    broken: str = typer.Option(None, "--broken", help="Break every cube first (twist, flip, "
                                                      "swap): time the 'not solvable' answers."),
    time_limit: float = TimeLimit,
    results: Path = typer.Option(None, "--results",
                                 help="Also keep every cube's record here (JSON lines, as "
                                      "`ilp-pyramid bench` writes; `bench report` reads it)."),
    resume: bool = typer.Option(False, "--resume", help="Skip the cubes --results holds."),
    json_out: bool = Json,
) -> None:
    """Generate, solve, verify (and simulate the moves of) COUNT cubes; time every stage.

    The package's benchmark runner on the cube's bench case (`ilp-pyramid bench --puzzle
    sudoku-cube`): each cube one run in its own process, killed at a hard limit, its wall and
    CPU seconds and memory recorded; cube i is generated from seed START + i.
    """

    check_choices(solver, parity)
    check_broken(broken)
    cases = bench_cases([scramble], parity, moves, grid_only, broken)
    try:
        specs = puzzle_grid("sudoku-cube", cases, [solver], [], time_limit, count,
                            first_seed=start)
    except InputError as exc:
        fail(str(exc))
    kill_after = (time_limit or 0) * 4 + 120  # a cube may take several solver calls
    done, _ = execute(specs, results, resume, kill_after, invocation(ctx), quiet=json_out)
    result = _bench_summary(specs, done, broken)
    result.update({"count": count, "solver": solver,
                   "parity": "none" if grid_only else parity, "broken": broken})
    if json_out:
        print_json(result)
    else:
        model = "grid only (no turning rules)" if grid_only else f"parity {parity}"
        _print_bench(result, model)
    if result["failed"]:
        raise typer.Exit(EXIT_NO_SOLUTION)


def _bench_summary(specs: list, done: dict, broken: str | None) -> dict[str, Any]:
    """The bench's records summed up: the statuses, the cubes answered as expected (solved,
    or not turnable when broken) with their timings, and the others with their reasons."""
    rows: list[dict] = []
    failed: list[dict] = []
    statuses: dict[str, int] = {}
    reachable = 0
    for spec in specs:
        record = done[spec.key()]
        data = record.get("result") or {}
        status = data.get("detail") or data.get("status", record["status"])
        statuses[status] = statuses.get(status, 0) + 1
        expected = NOT_TURNABLE if broken else "solved"
        if status not in (expected, "solved"):
            failed.append({"seed": spec.seed, "status": status,
                           "reason": data.get("reason") or record.get("message", "")})
            continue
        reachable += bool(data.get("turnable"))
        rows.append({"seed": spec.seed, "build": data["build_seconds"],
                     "solve": data["solve_seconds"], "moves": data["moves_seconds"],
                     "total": data["total_seconds"], "calls": data["solver_calls"],
                     "turns": data["turns"], "wall": record["wall_seconds"],
                     "cpu": record["cpu_seconds"]})
    stats = {key: _stats([r[key] for r in rows])
             for key in ("build", "solve", "moves", "total", "calls", "turns", "wall", "cpu")}
    return {"answered": len(rows), "statuses": statuses, "reachable_grids": reachable,
            "failed": failed, "stats": stats}


def _print_bench(result: dict[str, Any], model: str) -> None:
    what = ", ".join(f"{n} {status}" for status, n in sorted(result["statuses"].items()))
    broken = f" broken by {result['broken']}" if result["broken"] else ""
    table = Table(title=f"{result['count']} cubes{broken}: {what}; "
                        f"{result['reachable_grids']} grids reachable ({result['solver']}, "
                        f"{model})",
                  title_justify="left")
    for column in ("per cube", "median", "mean", "max"):
        table.add_column(column, justify="right")
    for key, label in (("build", "build model (s)"), ("solve", "solve (s)"),
                       ("moves", "moves (s)"), ("total", "total (s)"),
                       ("wall", "process wall (s)"), ("cpu", "process CPU (s)"),
                       ("calls", "solver calls"), ("turns", "face turns")):
        s = result["stats"][key]
        if s and key in ("calls", "turns"):
            table.add_row(label, f"{s['median']:g}", f"{s['mean']:.1f}", f"{s['max']:g}")
        elif s:
            table.add_row(label, f"{s['median']:.3f}", f"{s['mean']:.3f}", f"{s['max']:.3f}")
    print_table(table)
    for f in result["failed"]:
        console.print(f"seed {f['seed']}: {f['status']}: {f['reason']}", markup=False)


@app.command("bench-one", hidden=True)
def bench_one_cmd(
    seed: int = like(Seed, default=..., help="The cube's seed, as for generate --seed."),
    solver_seed: int = like(SolverSeed, help="The solver's own random seed (default: the "
                                             "solver's own default)."),
    scramble: int = typer.Option(DEFAULT_SCRAMBLE, "--scramble", min=0, max=10_000),
    solver: str = SolverOpt,
    solver_command: list[str] = SolverCommand,
    parity: str = ParityOpt,
    moves: bool = typer.Option(True, "--moves/--no-moves"),
    grid_only: bool = typer.Option(False, "--grid-only"),
    broken: str = typer.Option(None, "--broken"),
    time_limit: float = TimeLimit,
    json_out: bool = Json,
) -> None:
    """One cube of `bench` (run by the benchmark runner in its own process): generate it,
    solve and check it, print its timings (--json: as one JSON object).

    With --grid-only the question is the seed's, a grid of the model without the rules of
    turning: "solved" when it has one, reachable or not ("turnable" says which).
    """
    check_choices(solver, parity)
    check_broken(broken)
    instance = generate(seed, scramble)
    if broken:
        instance = instance.broken(broken)
    began = time.perf_counter()
    result = protocol.solve(PUZZLE, Cube(instance.state), solver,
                            solve_options(time_limit, 1, solver_seed),
                            parity=parity, rules=() if grid_only else RULES,
                            after={"moves": moves and not grid_only})
    found = result.grid is not None
    data = {"status": "solved" if found else str(result.status),
            "detail": result.detail or None, "reason": None if found else result.reason or None,
            "turnable": result.turnable, "build_seconds": result.build_seconds,
            "solve_seconds": result.solve_seconds, "moves_seconds": result.moves_seconds,
            "total_seconds": time.perf_counter() - began,
            "solver_calls": result.solver_calls,
            "turns": len(result.solution.moves or []) if result.solution else 0,
            "form": result.form, "variables": result.variables or None,
            "constraints": result.constraints or None,
            "model_options": result.model_options}
    if json_out:
        print_json(data)
    else:
        console.print(f"seed {seed}: {data['detail'] or data['status']} in "
                      f"{data['total_seconds']:.3f} s ({data['solver_calls']} solver calls, "
                      f"{data['turns']} face turns)", markup=False)
    if result.status is Status.TIMEOUT:
        raise typer.Exit(EXIT_TIMEOUT)


def _stats(values: list[float]) -> dict | None:
    if not values:
        return None
    return {"median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values)}
