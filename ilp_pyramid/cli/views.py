"""`ilp-pyramid views ...`: the top-front-side puzzle. `solve` and `export` are the standard
commands (cli/puzzle.py) with the views' own options, the views given as SPEC, --number or
--top/--front/--side; `battery` is the spec's one-million-case battery."""

from __future__ import annotations

import functools
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from ilp_pyramid import protocol
from ilp_pyramid.backends import solvers
from ilp_pyramid.cli import puzzle as puzzle_cli
from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    Jobs,
    Json,
    Output,
    Solver,
    console,
    err_console,
    fail,
    like,
    print_json,
    print_table,
    save,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.machine import cores
from ilp_pyramid.puzzles.views import battery as bat
from ilp_pyramid.puzzles.views import geometry
from ilp_pyramid.puzzles.views.geometry import BATTERY_SIZE, MAX_N, Views
from ilp_pyramid.puzzles.views.puzzle import PUZZLE

app = typer.Typer(
    help="Top-front-side puzzle: the fewest cubes in an n x n x n grid that show three views.",
    no_args_is_help=True,
)


SpecArg = typer.Argument(None, metavar="SPEC",
                         help="The three views: 12 hex digits (n = 4), or 3 n^2 bits as a 0/1 "
                              "string (48 for n = 4); top, front, side, each row by row, "
                              "most significant bit first.")
# Not --seed: that is an integer random seed everywhere; this is a battery puzzle's name.
NumberOpt = typer.Option(None, "--number", metavar="DIGITS",
                         help="The battery's puzzle of that number: MD5 of the 6-digit string "
                              "(e.g. 000157).")
TopOpt = typer.Option(None, "--top", help="Top view rows, back row first: xx..,xxxx,...")
FrontOpt = typer.Option(None, "--front", help="Front view rows, top row first: xxxx,...")
SideOpt = typer.Option(None, "--side",
                       help="Side view (seen from the right: the front is on the left), "
                            "top row first.")
GenerateOpt = typer.Option(None, "--generate", min=1, max=MAX_N, metavar="N",
                           help="Generated views instead: those of a random placement in an "
                                "N x N x N grid, the same for a --seed (default 0) everywhere.")
SizeOpt = typer.Option(None, "--size", min=1, max=MAX_N,
                       help="Grid size for SPEC when its length is ambiguous (default: from "
                            "the length; a 0/1 string of 3 n^2 characters is bits).")
# The solvers that take a form the views model comes in (the MIP, the weighted CNF), from the
# solver table.
TAKERS = [entry.name for entry in solvers.SOLVERS
          if any(entry.takes(form) for form in PUZZLE.forms)]
_SAT = solvers.listing("sat")  # every SAT solver, its short names first
SOLVER_HELP = (f"{solvers.listing('mip')} (the MIP); {solvers.listing('maxsat')} (MaxSAT on "
               f"the weighted CNF); {_SAT} (a linear search on the weighted CNF).")
# The standard options a views instance does not use: it is no FILE and has no planted
# solution. --generate is the views' own (GenerateOpt, which the standard instance_of then
# makes); --seed stays standard: the generated instance's, and the solver's in solve.
HIDDEN = ("file", "generate", "planted")


def load_views(spec: str | None, number: str | None, top: str | None, front: str | None,
               side: str | None, n: int | None, generate: int | None = None) -> Views | None:
    """The views from exactly one of SPEC, --number, --top/--front/--side; None for
    --generate (the standard commands make it, with --seed)."""
    rows = (top, front, side)
    given = [name for name, value in (("SPEC", spec), ("--number", number))
             if value is not None]
    if any(r is not None for r in rows):
        given.append("--top/--front/--side")
    if generate is not None:
        given.append("--generate")
    if not given:
        fail("give the views: SPEC, --number DIGITS, --top/--front/--side, or --generate N")
    if len(given) > 1:
        fail(f"give the views only one way (got {' and '.join(given)})")
    if generate is not None:
        if n is not None:
            fail("--size goes with SPEC or the rows; --generate N gives the size")
        return None
    try:
        if spec is not None:
            return geometry.parse_spec(spec, n)
        if number is not None:
            seed = geometry.parse_seed(number)
            if n not in (None, geometry.DEFAULT_N):
                fail("--number inputs are n = 4 puzzles")
            return geometry.seed_views(seed)
        missing = [f"--{name}" for name, r in zip(("top", "front", "side"), rows, strict=True)
                   if r is None]
        if missing:
            fail(f"--top, --front and --side go together (missing {', '.join(missing)})")
        views = geometry.from_rows(top, front, side)
        if n is not None and views.n != n:
            fail(f"the views are {views.n} x {views.n} but --size is {n}")
        return views
    except InputError as exc:
        fail(str(exc))


def _solve_options(
    spec: str | None = SpecArg,
    number: str | None = NumberOpt,
    top: str | None = TopOpt,
    front: str | None = FrontOpt,
    side: str | None = SideOpt,
    n: int | None = SizeOpt,
    generate: int | None = GenerateOpt,
    # Not --check: that is `bench render`'s "change nothing, exit 1 if stale".
    check: bool = typer.Option(True, "--bnb-check/--no-bnb-check",
                               help="Cross-check the optimum with the exact branch and bound."),
    png: Path | None = typer.Option(None, "--png", help="Write a picture: the three views "
                                                        "beside the minimum placement as "
                                                        "voxels."),
) -> puzzle_cli.Call:
    views = load_views(spec, number, top, front, side, n, generate)
    return puzzle_cli.Call(instance=views, after={"check": check},
                           then=None if png is None else functools.partial(_write_png, png))


def _write_png(path: Path, _views: Views, result: protocol.Result) -> None:
    """The views beside the minimum placement; nothing without one (no answer to draw)."""
    if result.solution is not None:
        save(path, result.render("png"))


# The same views options; export reads only the instance of the Call (not the check, no PNG).
_export_options = puzzle_cli.without(_solve_options, ("check", "png"))

app.command("solve")(puzzle_cli.solve_command(
    PUZZLE, _solve_options, hide=HIDDEN, solver_help=SOLVER_HELP,
    doc="""The fewest cubes showing the views, as layers and a 64-bit answer; or "unsolvable".

    Exit codes: 0 solved, 1 unsolvable, 2 bad input, 3 time limit before the optimum was
    proved.
    """))
app.command("export")(puzzle_cli.export_command(
    PUZZLE, _export_options, hide=HIDDEN,
    doc="Write the views' minimum-cube model as LP or MPS (variables c_x<x>_y<y>_z<z>)."))


@app.command()
def battery(
    count: int = typer.Option(BATTERY_SIZE, "--count", "-n", min=1, max=BATTERY_SIZE,
                              help="How many seeds."),
    start: int = typer.Option(0, "--start", min=0, max=BATTERY_SIZE - 1,
                              help="First seed."),
    jobs: int = Jobs,
    output: Path = like(Output, help="Write 'seed cubes answer-hex' per solvable case here "
                                     "(atomically; .gz: gzip)."),
    cross_check: int = typer.Option(0, "--cross-check", min=0, metavar="K",
                                    help="Also solve K solvable cases (spread evenly) with "
                                         "the MIP and compare the optima (a K above the "
                                         "solvable count checks them all)."),
    solver: str = like(Solver, default="highs",
                       help="The solver (a MIP, MaxSAT or SAT) for --cross-check and for any "
                            "case the branch and bound leaves open: "
                            f"{' | '.join(n for n in TAKERS if n not in solvers.names('sat'))}"
                            f" | {_SAT}."),
    node_limit: int = typer.Option(10_000_000, "--node-limit", min=1,
                                   help="Branch and bound nodes per case; a case that needs "
                                        "more goes to the MIP."),
    json_out: bool = Json,
) -> None:
    """Solve the spec's battery (MD5 of "000000".."999999") exactly and sum the optima.

    Every case goes through the exact branch and bound; every verdict, solvable or not, is
    re-checked by projection. Exit 1 if any case stays unproved, fails the check, or
    disagrees with the MIP in --cross-check.
    """
    try:
        protocol.pick_form(PUZZLE, protocol.solver_for(PUZZLE, solver))  # a MIP, installed
    except InputError as exc:
        fail(str(exc))
    if start + count > BATTERY_SIZE:
        fail(f"--start {start} --count {count} runs past seed {BATTERY_SIZE - 1:06}")
    jobs = jobs or cores()
    columns = (TextColumn("{task.description}"), BarColumn(),
               TextColumn("{task.completed:,}/{task.total:,}"), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=err_console, transient=True,
                  disable=not err_console.is_terminal) as progress:
        task = progress.add_task(f"battery ({jobs} jobs)", total=count)
        report = bat.run_battery(start, count, jobs, node_limit=node_limit, solver=solver,
                                 advance=lambda k: progress.advance(task, k))
        checked = None
        if cross_check:
            progress.update(task, description=f"MIP cross-check ({solver})", completed=0,
                            total=min(cross_check, report.solvable))
            checked = bat.cross_check(report, cross_check, solver,
                                      advance=lambda k: progress.advance(task, k))
    if output is not None:
        write_atomic(output, "".join(line + "\n" for line in report.lines()))
    data = report.to_json()
    if checked is not None:
        data["cross_check"] = checked.to_json()
    if json_out:
        print_json(data)
    else:
        _battery_table(report, data)
        if output is not None:
            console.print(f"wrote {output}: {report.solvable:,} lines", markup=False)
    bad = report.unproved or report.failed or (checked is not None and checked.disagree)
    if bad:
        raise typer.Exit(EXIT_NO_SOLUTION)


def _battery_table(report, data: dict) -> None:
    last = report.start + report.count - 1
    summary = Table(title=f"views battery: seeds {report.start:06}..{last:06}",
                    show_header=False)
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    summary.add_row("cases", f"{report.count:,}")
    summary.add_row("solvable", f"{report.solvable:,}")
    summary.add_row("total optimal cubes", f"{report.total_cubes:,}")
    slowest = data["slowest"]
    if slowest:
        summary.add_row("slowest case", f"{slowest['seed']}: {slowest['cubes']} cubes, "
                                        f"{slowest['seconds'] * 1e6:.0f} µs CPU, "
                                        f"{slowest['nodes']} nodes")
    hardest = data["hardest"]
    if hardest:
        summary.add_row("most nodes", f"{hardest['seed']}: {hardest['cubes']} cubes, "
                                      f"{hardest['seconds'] * 1e6:.0f} µs CPU, "
                                      f"{hardest['nodes']} nodes")
    summary.add_row("wall time", f"{report.seconds:.2f} s with {report.jobs} jobs "
                                 f"(+{report.warmup_seconds:.2f} s engine load)")
    summary.add_row("CPU time", f"{report.cpu_seconds:.2f} s")
    proved = "all optimal: branch and bound (exhaustive)"
    if data["proved_by_mip"]:
        proved += f", {data['proved_by_mip']} by the MIP"
    if report.unproved:
        proved = f"UNPROVED: {', '.join(data['unproved'][:10])}"
    summary.add_row("optimality", proved)
    summary.add_row("re-projection check",
                    "every verdict holds" if not report.failed
                    else f"FAILED: {', '.join(data['verify_failed'][:10])}")
    if "cross_check" in data:
        cc = data["cross_check"]
        text = f"{cc['agree']}/{cc['checked']} agree"
        if cc["mip_seconds_mean"] is not None:
            text += f", MIP {cc['mip_seconds_mean'] * 1000:.1f} ms per case on average"
        summary.add_row("MIP cross-check", text)
    print_table(summary)
    dist = Table()
    dist.add_column("optimal cubes", justify="right")
    dist.add_column("cases", justify="right")
    for cubes, cases in report.distribution.items():
        dist.add_row(str(cubes), f"{cases:,}")
    print_table(dist)


__all__ = ["app", "load_views"]
