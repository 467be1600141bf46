"""`ilp-pyramid sudoku-cube ...`: generate, solve, apply, export, bench."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import typer
from rich.table import Table

from ilp_pyramid.cli_common import (
    EXIT_NO_SOLUTION,
    EXIT_TIMEOUT,
    Format,
    Json,
    Output,
    Seed,
    Solver,
    Threads,
    TimeLimit,
    Verbose,
    console,
    fail,
    like,
    load_input,
    print_json,
    report_written,
    solve_options,
    solver_names,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.puzzles.sudoku_cube import runner
from ilp_pyramid.puzzles.sudoku_cube.generate import BREAKS, DEFAULT_SCRAMBLE, generate
from ilp_pyramid.puzzles.sudoku_cube.geometry import FACES
from ilp_pyramid.puzzles.sudoku_cube.model import (
    DEFAULT_PARITY,
    PARITY_MODES,
    RULES,
    NoGrid,
    build_model,
)
from ilp_pyramid.puzzles.sudoku_cube.render import net
from ilp_pyramid.puzzles.sudoku_cube.simulate import apply_moves, format_moves, parse_moves
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState, parse_state

app = typer.Typer(
    help="Sudoku Cube: a Rubik's Cube with digits. Solve the grid (which piece goes where, "
         "turned which way, so every face shows 1-9 upright) as a 0-1 program, keep it "
         "reachable by turning, and give the face turns.",
    no_args_is_help=True,
)

FileArg = typer.Argument(..., help="Sticker state: one line per face, e.g. "
                                   "'F: 3^ 9> 4^ 6v 1< 5^ 5^ 7> 9^' (^ > v <: where the "
                                   "digit's top points).")
SolverOpt = like(Solver, default="highs",
                 help=f"MIP solver: {solver_names('mip')} (highs the fastest "
                      "measured: 0.33 s per generated cube, CBC 2.1 s; docs/sudoku_cube.md).")
ParityOpt = typer.Option(DEFAULT_PARITY, "--parity",
                         help="How the model keeps the permutation parities equal: inversions "
                              "(counted in the model, default) | cuts (solve, then forbid "
                              "each grid whose parities disagree, and solve again).")
SymmetricOpt = typer.Option(None, "--symmetric",
                            help="Digits that look the same after a half turn and so may point "
                                 "up or down (1 always does). Repeat or comma-separate: "
                                 "--symmetric 8.")


def symmetric_digits(values: list[str] | None) -> frozenset[int]:
    digits = {1}
    for value in values or []:
        for part in value.replace(",", " ").split():
            if not (part.isascii() and part.isdigit() and 1 <= int(part) <= 9):
                fail(f"--symmetric takes digits 1-9 (got {part!r})")
            digits.add(int(part))
    return frozenset(digits)


def check_choices(solver: str, parity: str) -> None:
    from ilp_pyramid import backends

    try:
        backends.first_form(solver, ("mip",), "the Sudoku Cube model")  # a MIP model only
        backends.require(solver)
    except InputError as exc:
        fail(str(exc))
    if parity not in PARITY_MODES:
        fail(f"unknown parity mode {parity!r} (choose from {', '.join(PARITY_MODES)})")


def load_state(path: Path) -> CubeState:
    return load_input(path, parse_state)


@app.command("generate")
def generate_cmd(
    seed: int = like(Seed, default=..., help="Random seed: the same seed, the same cube."),
    scramble: int = typer.Option(DEFAULT_SCRAMBLE, "--scramble", min=0, max=10_000,
                                 help="Random face turns applied to the designed cube."),
    output: Path = like(Output, help="Write here instead of stdout."),
    symmetric: list[str] = SymmetricOpt,
    broken: str = typer.Option(None, "--broken",
                               help="Then reassemble it wrongly, so that no turning solves it: "
                                    + "; ".join(f"{k} = {v}" for k, v in BREAKS.items()) + "."),
    json_out: bool = Json,
) -> None:
    """Design a random solved Sudoku Cube (every face 1-9, upright), scramble it, print it."""
    if broken is not None and broken not in BREAKS:
        fail(f"unknown --broken {broken!r} (choose from {', '.join(BREAKS)})")
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
        sys.stdout.write(text)  # raw: a console would wrap the long comment lines
    else:
        console.print(f"wrote {output} (seed {seed}, {scramble} turns)")


@app.command("solve")
def solve_cmd(
    file: Path = FileArg,
    moves: bool = typer.Option(False, "--moves", "-m",
                               help="Also give the face turns that reach the grid (always "
                                    "included with --json)."),
    solver: str = SolverOpt,
    parity: str = ParityOpt,
    symmetric: list[str] = SymmetricOpt,
    time_limit: float = TimeLimit,
    threads: int = Threads,
    seed: int = Seed,
    output: Path = like(Output, help="Also write the solved faces here, in the text format."),
    json_out: bool = Json,
    verbose: bool = Verbose,
    png: Path = typer.Option(None, "--png", help="Write a picture of the six faces as a net, "
                                                 "before and after, every digit turned its "
                                                 "way (when solved)."),
) -> None:
    """Find a grid reachable by turning, verify it, and (with --moves) the turns to get there.

    Exit codes: 0 solved, 1 not solvable (by turning, or at all), 2 bad input, 3 time limit.
    """
    check_choices(solver, parity)
    state = load_state(file)
    digits = symmetric_digits(symmetric)
    options = solve_options(time_limit, threads, seed, verbose and not json_out)
    from ilp_pyramid import extras

    if moves:
        extras.need("kociemba")  # before the solve, not after it
    # --json carries the moves whenever they can be found (the `sudoku` extra).
    outcome = runner.run(state, solver, parity, digits, options,
                         with_moves=moves or (json_out and extras.available("kociemba")))
    if outcome.solution is not None and output is not None:
        header = f"solved faces of {file.name}"
        if outcome.solution.moves is not None:
            header += f"\nmoves: {format_moves(outcome.solution.moves)}"
        write_atomic(output, outcome.solution.target.to_text(header))
    if outcome.solution is not None and png is not None:
        _write_png(png, file, outcome.solution)
    if json_out:  # "engine": the same key as `solve`'s, naming what produced the answer
        print_json({**outcome.to_json(), "engine": f"mip:{outcome.solver}"})
    else:
        report(file, outcome, digits)
        if outcome.solution is not None and output is not None:
            console.print(f"wrote the solved faces to {output}", markup=False)
    if not outcome.solved:
        raise typer.Exit(EXIT_TIMEOUT if outcome.status == runner.TIMEOUT else EXIT_NO_SOLUTION)


def _write_png(path: Path, file: Path, solution) -> None:
    from ilp_pyramid.figures import save
    from ilp_pyramid.puzzles.sudoku_cube.render import png_bytes

    save(path, png_bytes(solution.given, solution.target, solution.directions,
                         f"Sudoku Cube {file.name}"))


def report(file: Path, outcome: runner.CubeRun, symmetric: frozenset[int]) -> None:
    sym = ", ".join(map(str, sorted(symmetric)))
    console.print(f"Sudoku Cube {file}: solver {outcome.solver}, parity {outcome.parity}, "
                  f"half-turn-symmetric digits {sym}", markup=False)
    if outcome.variables:
        calls = f"{outcome.solver_calls} solver call{'s' if outcome.solver_calls != 1 else ''}"
        console.print(f"model: {outcome.variables} variables, {outcome.constraints} constraints;"
                      f" build {outcome.build_seconds:.3f} s, solve {outcome.solve_seconds:.3f} s"
                      f" ({calls})")
    if outcome.solution is None:
        label = {runner.TIMEOUT: "timeout", runner.ERROR: "error"}.get(outcome.status, "")
        text = outcome.reason if not label else f"{label}: {outcome.reason}"
        if outcome.detail == runner.NO_GRID:
            text = f"no solution: {outcome.reason}"
        console.print(text, markup=False)
        return
    solution = outcome.solution
    inv = outcome.invariants
    console.print(
        "verified: every face shows 1-9 once, upright; reachable by turning (corner twists "
        f"{inv['corner_twist_mod3']} mod 3, edge flips {inv['edge_flip_mod2']} mod 2, both "
        f"permutations {'odd' if inv['corner_parity'] else 'even'}, centre quarter turns "
        f"{'odd' if inv['centre_turns_mod2'] else 'even'})")
    console.print(net(solution.target, solution.directions), markup=False)
    console.print(assignment_table(solution.assignment()))
    if solution.moves is not None:
        console.print(f"moves ({len(solution.moves)} face turns, found in "
                      f"{outcome.moves_seconds:.3f} s):", markup=False)
        console.print(format_moves(solution.moves) or "(none: already there)", markup=False,
                      soft_wrap=True)  # one line, so that it can be copied whole
        console.print("checked: simulating these turns on the given cube shows exactly the "
                      "faces above, every digit's direction included")


def assignment_table(rows: list[dict]) -> Table:
    """Corners, edges and centres side by side: from slot -> to slot, and how it turns."""
    table = Table(title="piece assignment", title_justify="left")
    for column in ("corner", "twist", "edge", "flip", "centre", "quarter turns"):
        table.add_column(column, justify="right" if column in ("twist", "flip") else "left")
    groups = {kind: [r for r in rows if r["piece"] == kind] for kind in ("corner", "edge",
                                                                         "centre")}
    for i in range(max(len(g) for g in groups.values())):
        cells = []
        for kind, turn in (("corner", "twist"), ("edge", "flip"), ("centre", "quarter_turns")):
            if i < len(groups[kind]):
                row = groups[kind][i]
                where = row["from"] if kind == "centre" else f"{row['from']} -> {row['to']}"
                cells += [where, str(row[turn])]
            else:
                cells += ["", ""]
        table.add_row(*cells)
    return table


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


@app.command("export")
def export_cmd(
    file: Path = FileArg,
    output: Path = like(Output, default=...),
    fmt: str = Format,
    parity: str = ParityOpt,
    symmetric: list[str] = SymmetricOpt,
    json_out: bool = Json,
) -> None:
    """Export the grid model of a sticker state as LP or MPS (readable, stable names)."""
    from ilp_pyramid.formats.mipfile import MIP_FORMATS, format_from_name, write_mip

    check_choices("highs", parity)
    fmt = (fmt or format_from_name(str(output)) or "").lower()
    if fmt not in MIP_FORMATS:
        fail(f"unknown export format {fmt!r} (use --format {' or '.join(MIP_FORMATS)})")
    state = load_state(file)
    problem = runner.digit_count_problem(state)
    if problem:
        fail(problem, EXIT_NO_SOLUTION)
    try:
        model = build_model(state, symmetric_digits(symmetric), parity)
    except NoGrid as exc:
        fail(str(exc), EXIT_NO_SOLUTION)
    write_mip(model.problem, str(output), fmt)
    report_written({"path": str(output), "format": fmt, "parity": parity,
                    "variables": model.num_variables, "constraints": model.num_constraints},
                   json_out)


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
    from ilp_pyramid.bench.grid import puzzle_grid
    from ilp_pyramid.bench.session import execute, invocation
    from ilp_pyramid.puzzles.sudoku_cube.bench_cases import bench_cases

    check_choices(solver, parity)
    if broken is not None and broken not in BREAKS:
        fail(f"unknown --broken {broken!r} (choose from {', '.join(BREAKS)})")
    cases = bench_cases([scramble], parity, moves, grid_only, broken)
    try:
        specs = puzzle_grid("sudoku-cube", cases, [solver], [], time_limit, count,
                            first_seed=start)
    except InputError as exc:
        fail(str(exc))
    kill_after = (time_limit or 0) * 4 + 120  # a cube may take several solver calls
    done, _ = execute(specs, results, resume, kill_after, invocation(ctx), quiet=json_out)
    rows: list[dict] = []
    failed: list[dict] = []
    statuses: dict[str, int] = {}
    reachable = 0
    for spec in specs:
        record = done[spec.key()]
        data = record.get("result") or {}
        status = data.get("detail") or data.get("status", record["status"])
        statuses[status] = statuses.get(status, 0) + 1
        expected = runner.NOT_TURNABLE if broken else runner.SOLVED
        if status not in (expected, runner.SOLVED):
            failed.append({"seed": spec.seed, "status": status,
                           "reason": data.get("reason") or record.get("message", "")})
            continue
        reachable += bool(data.get("turnable"))
        rows.append({"seed": spec.seed, "build": data["build_seconds"],
                     "solve": data["solve_seconds"], "moves": data["moves_seconds"],
                     "total": data["total_seconds"], "calls": data["solver_calls"],
                     "turns": data["turns"], "wall": record["wall_seconds"],
                     "cpu": record["cpu_seconds"]})
    summary = {key: _stats([r[key] for r in rows])
               for key in ("build", "solve", "moves", "total", "calls", "turns", "wall", "cpu")}
    result = {"count": count, "answered": len(rows), "statuses": statuses,
              "reachable_grids": reachable, "failed": failed, "solver": solver,
              "parity": "none" if grid_only else parity, "broken": broken, "stats": summary}
    if json_out:
        print_json(result)
    else:
        what = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
        model = "grid only (no turning rules)" if grid_only else f"parity {parity}"
        table = Table(title=f"{count} cubes{' broken by ' + broken if broken else ''}: {what}; "
                            f"{reachable} grids reachable ({solver}, {model})",
                      title_justify="left")
        for column in ("per cube", "median", "mean", "max"):
            table.add_column(column, justify="right")
        for key, label in (("build", "build model (s)"), ("solve", "solve (s)"),
                           ("moves", "moves (s)"), ("total", "total (s)"),
                           ("wall", "process wall (s)"), ("cpu", "process CPU (s)"),
                           ("calls", "solver calls"), ("turns", "face turns")):
            s = summary[key]
            if s and key in ("calls", "turns"):
                table.add_row(label, f"{s['median']:g}", f"{s['mean']:.1f}", f"{s['max']:g}")
            elif s:
                table.add_row(label, f"{s['median']:.3f}", f"{s['mean']:.3f}", f"{s['max']:.3f}")
        console.print(table)
        for f in failed:
            console.print(f"seed {f['seed']}: {f['status']}: {f['reason']}", markup=False)
    if failed:
        raise typer.Exit(EXIT_NO_SOLUTION)


@app.command("bench-one", hidden=True)
def bench_one_cmd(
    seed: int = like(Seed, default=..., help="The cube's seed, as for generate --seed."),
    scramble: int = typer.Option(DEFAULT_SCRAMBLE, "--scramble", min=0, max=10_000),
    solver: str = SolverOpt,
    parity: str = ParityOpt,
    moves: bool = typer.Option(True, "--moves/--no-moves"),
    grid_only: bool = typer.Option(False, "--grid-only"),
    broken: str = typer.Option(None, "--broken"),
    time_limit: float = TimeLimit,
    json_out: bool = Json,
) -> None:
    """One cube of `bench` (run by the benchmark runner in its own process): generate it,
    solve and check it, print its timings (--json: as one JSON object)."""
    check_choices(solver, parity)
    if broken is not None and broken not in BREAKS:
        fail(f"unknown --broken {broken!r} (choose from {', '.join(BREAKS)})")
    instance = generate(seed, scramble)
    if broken:
        instance = instance.broken(broken)
    began = time.perf_counter()
    outcome = runner.run(instance.state, solver, parity,
                         options=solve_options(time_limit, 1, None),
                         with_moves=moves and not grid_only, rules=() if grid_only else RULES)
    data = {"status": outcome.status, "detail": outcome.detail or None,
            "reason": outcome.reason or None,
            "turnable": outcome.turnable, "build_seconds": outcome.build_seconds,
            "solve_seconds": outcome.solve_seconds, "moves_seconds": outcome.moves_seconds,
            "total_seconds": time.perf_counter() - began,
            "solver_calls": outcome.solver_calls,
            "turns": len(outcome.solution.moves or []) if outcome.solution else 0}
    if json_out:
        print_json(data)
    else:
        console.print(f"seed {seed}: {data['detail'] or data['status']} in "
                      f"{data['total_seconds']:.3f} s ({data['solver_calls']} solver calls, "
                      f"{data['turns']} face turns)", markup=False)
    if outcome.status == runner.TIMEOUT:
        raise typer.Exit(EXIT_TIMEOUT)


def _stats(values: list[float]) -> dict | None:
    if not values:
        return None
    return {"median": statistics.median(values), "mean": statistics.fmean(values),
            "max": max(values)}


__all__ = ["app", "FACES"]
