"""`ilp-pyramid bench` (run a grid), `bench report` (a table or the PAR-2 scores from results
files), `bench plot` (a cactus plot or performance profile) and `bench render` (regenerate the
README's measured tables from their results files)."""

from __future__ import annotations

import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from ilp_pyramid import puzzles
from ilp_pyramid.bench import plots, scores
from ilp_pyramid.bench import render as render_mod
from ilp_pyramid.bench.commands import MAX_REPEAT, with_solved_patterns
from ilp_pyramid.bench.grid import (
    DEFAULT_PUZZLE,
    command_grid,
    default_solvers,
    parse_axis,
    parse_list,
    parse_sizes,
    parse_template,
    puzzle_runs,
    template_axes,
)
from ilp_pyramid.bench.records import (
    INFEASIBLE,
    SOLVED,
    TIMEOUTS,
    check_results_path,
    latest_by_key,
    read_results,
)
from ilp_pyramid.bench.runner import hard_limit
from ilp_pyramid.bench.session import run_all, warn
from ilp_pyramid.bench.summary import plot, summarize_records, summary_table
from ilp_pyramid.cli.options import SolverCommand, console, fail, print_json
from ilp_pyramid.errors import InputError, Interrupted
from ilp_pyramid.formats.fileio import read_bytes, write_atomic
from ilp_pyramid.formats.lock import hold

if TYPE_CHECKING:
    import click

    from ilp_pyramid.bench.grid import Spec

MAX_SECONDS = 7 * 24 * 3600.0
# The sizes argv templates are expanded over when --n is not given.
TEMPLATE_SIZES = "2..4"

app = typer.Typer()  # its help: the docstring of `bench` below


@app.callback(invoke_without_command=True)
def bench(
    ctx: typer.Context,
    puzzle: str = typer.Option(DEFAULT_PUZZLE, "--puzzle",
                               help="The puzzle whose grid to run: its bench cases (see "
                                    "`ilp-pyramid --help` for the puzzles)."),
    n: str = typer.Option(None, "--n", show_default="the puzzle's own; templates 2..4",
                          help="Sizes: 2..5, or a list 2,3,5 (IQ: pieces given, 0 the empty "
                               "board)."),
    solver: str = typer.Option(None, "--solver", "-s",
                               show_default="highs,cbc,scip,kissat: those the puzzle "
                                            "takes, scip where installed",
                               help="Comma-separated solvers, MIP and SAT (see solve --help)."),
    solver_command: list[str] = SolverCommand,
    axis: list[str] = typer.Option(
        None, "--grid",
        help="One more grid dimension, KEY=V1,V2: each run passes --KEY V to the puzzle's "
             "command, e.g. Bel's formulation=counts,rotations, strategy=none,YStep or "
             "card=ladder; with bench --command/--external, V fills the templates' {KEY} "
             "instead, e.g. board=triangle,pyramid4 for 'iq count {board}' (repeatable)."),
    formulation: str = typer.Option(None, "--formulation",
                                    help="Comma-separated formulations (SAT: CNF encodings): "
                                         "--grid formulation=..., and the {formulation} of "
                                         "templates."),
    command: list[str] = typer.Option(
        None, "--command",
        help="Instead of a puzzle's grid: time a command of the package, [LABEL=]ARGV with "
             "placeholders {n} {solver} {formulation} {seed} {repeat} {time_limit} and the "
             "{KEY} of each --grid KEY, expanded over --n/--solver/--formulation/--grid/"
             "--repeat, e.g. 'auto=solve {n} --json' (repeatable). A template with {solver} "
             "scores as a family of its own, one column per solver."),
    external: list[str] = typer.Option(
        None, "--external",
        help="Also time an outside program, LABEL=ARGV with the same placeholders, e.g. "
             "'ref=/venv/bin/python bel_pyramid.py {n}' (repeatable); exit 0 counts as "
             "solved."),
    solved_if: list[str] = typer.Option(
        None, "--solved-if",
        help="LABEL=REGEX: a run of that template that exits 0 counts as solved only if its "
             "output matches, else as infeasible (for programs that exit 0 either way, e.g. "
             "'ref=^Solution:', multi-line)."),
    time_limit: float = typer.Option(600.0, "--time-limit", min=0.1, max=MAX_SECONDS,
                                     help="Each run's solver time limit, seconds."),
    kill_after: float = typer.Option(None, "--kill-after", min=0.1, max=MAX_SECONDS,
                                     help="Hard wall-clock kill per run, seconds "
                                          "(default: time limit + 30 s + 10%); such a run "
                                          "is a timeout."),
    repeat: int = typer.Option(1, "--repeat", min=1, max=MAX_REPEAT,
                               help="Runs per grid point (repeat r: --seed r-1, a generated "
                                    "instance's seed and, without --solver-seeds, the "
                                    "solver's)."),
    solver_seeds: int = typer.Option(None, "--solver-seeds", min=1, max=MAX_REPEAT,
                                     help="Run each repeat once per solver seed 0..K-1 "
                                          "(--solver-seed: the solver's own random seed, the "
                                          "instance unchanged); scores then give the spread "
                                          "over seeds."),
    results: Path = typer.Option(Path("bench-results.jsonl"), "--results",
                                 help="JSON-lines file: one line per finished run."),
    resume: bool = typer.Option(False, "--resume",
                                help="Keep the results file and skip the runs it holds."),
    warmup: int = typer.Option(0, "--warmup", min=0, max=10,
                               help="Unrecorded runs of each configuration first (its first "
                                    "spec; a --grid's points are one configuration), so that "
                                    "a first run's one-off costs (bytecode and numba caches "
                                    "written) land in no record."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Address of a Dask scheduler (tcp://host:8786): each "
                                       "run is a task on a worker there, still its own "
                                       "process with the same limits; records name the "
                                       "worker's host (docs/bench.md)."),
    plot_file: Path = typer.Option(None, "--plot", help="Also draw time vs N (PNG, log scale)."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Time runs, each in its own process: a puzzle's grid (its cases x solvers x repeats;
    Bel's by default), or --command / --external argv templates; tables from the records.

    A puzzle's grid runs `ilp-pyramid <case> [--KEY V] --solver S --seed r-1 --time-limit T
    --json` for each of the puzzle's bench cases (Bel: `solve N` for each --n), each --grid
    value and each solver; a record keeps the case's params and the options that shaped the
    run's model (its --json "model_options": Bel's formulation, strategy, card), and tables
    group by both, a column each. A template's run keeps its N, formulation and --grid
    values as its params the same way.
    Every finished run goes to --results at once (JSON lines, with its command line, the
    machine, the load average before and after, wall and CPU seconds); --resume skips those.
    Prints a table per configuration; --plot draws time vs N; --json gives the summary.
    `bench report` prints a results file as a Markdown table (--score par2: PAR-2 and the
    virtual best solver), `bench plot` draws a cactus plot or performance profile, `bench
    render README.md` regenerates the README's marked tables (see docs/bench.md).

    Examples: ilp-pyramid bench --n 2..4 --solver highs,cbc,kissat --time-limit 120;
    ilp-pyramid bench --n 3 --solver highs --grid strategy=none,YStep --repeat 3;
    ilp-pyramid bench --n 1..4 --repeat 5 --command 'auto=solve {n}'
    --external 'ref=/venv/bin/bel_pyramid {n}' --results docs/data/auto.jsonl;
    ilp-pyramid bench --command 'iq-count=iq count {board} --time-limit {time_limit} --json'
    --grid board=triangle,rectangle
    """
    if ctx.invoked_subcommand is not None:
        return
    try:
        solvers = parse_list(solver or default_solvers(), "solver")
        formulations = parse_list(formulation, "formulation") if formulation else []
        grid = [parse_axis(text) for text in axis or []]
        keys = [name for name, _ in grid]
        templates = [parse_template(text, False, keys) for text in command or []] + \
            [parse_template(text, True, keys) for text in external or []]
        templates = with_solved_patterns(templates, solved_if or [])
        if templates:
            if given(ctx, "puzzle") or solver_seeds:
                raise InputError("--puzzle and --solver-seeds make a puzzle's grid; with "
                                 "--command/--external, write the options into the template")
            if not formulations and any(t.uses("formulation") for t in templates):
                raise InputError("a template uses {formulation}: give --formulation")
            template_axes(templates, grid)
            specs = command_grid(templates, parse_sizes(n or TEMPLATE_SIZES), solvers,
                                 formulations, time_limit, repeat, grid)
        else:
            axes = [("formulation", formulations)] * bool(formulations) + grid
            specs = puzzle_runs(puzzle, parse_sizes(n) if n else None, solvers, axes,
                                time_limit, repeat, default_solvers=solver is None,
                                solver_seeds=solver_seeds or 0)
    except InputError as exc:
        fail(str(exc))
    done, ran_now = execute(specs, results, resume, kill_after or hard_limit(time_limit),
                            invocation(ctx), quiet=json_out, scheduler=scheduler,
                            warmup=warmup)
    rows = summarize_records([done[spec.key()] for spec in specs if spec.key() in done])
    title = "runs" if templates else _title(puzzle)
    if plot_file is not None:
        # A puzzle's grid: the solver's own times where every solved run reported them.
        solve = not templates and all(row["median_solve_seconds"] is not None
                                      for row in rows if row["solved"])
        try:
            plot(rows, time_limit, plot_file, title=f"{title}: MIP (dashed) vs SAT (solid)",
                 ylabel=f"median {'solve' if solve else 'wall'} time"
                        f"{'' if solve else ' of the whole run'}, s", solve_seconds=solve)
        except InputError:  # no matplotlib, an unwritable file: the user's to fix (exit 2)
            raise
        except ValueError as exc:  # nothing to plot against
            warn(f"no plot: {exc}")
            plot_file = None
    if json_out:
        print_json({"puzzle": None if templates else puzzle, "results": str(results),
                    "time_limit": time_limit, "runs": len(specs), "ran_now": ran_now,
                    "groups": rows})
        return
    # A table people read in full, also when piped: never squeezed into 80 columns.
    wide = Console(highlight=False, width=max(console.width, 220))
    # the puzzle is the title's, not a column's
    shown = [{**row, "config": {k: v for k, v in row["config"].items() if k != "puzzle"}}
             for row in rows]
    wide.print(summary_table(shown, f"{title}, limit {time_limit:g} s", sizes=not templates))
    if plot_file is not None:
        console.print(f"plot: {plot_file}")
    for spec in specs:
        record = done.get(spec.key())
        if record and record["status"] not in (SOLVED, INFEASIBLE, *TIMEOUTS):
            console.print(f"{spec.describe()}: {record['status']}: "
                          f"{record.get('message', '')}", markup=False)


def _title(name: str) -> str:
    """A puzzle's name for a table: its title up to the first colon."""

    return str(getattr(puzzles.get(name), "title", name)).split(":")[0]


TIME_HELP = ("The time of a run that scores and plots (report: with --score): solve (the "
             "solver's own seconds, from the run's --json) | wall (the whole process: "
             "start-up, build and check included; every record has it).")
SOLVER_PARAM_HELP = ("A param that belongs to the solver, not the instance, in scores and plots "
                     "(report: with --score; repeatable): --solver-param formulation compares "
                     "highs/counts with kissat/ladder on the same N.")
WHERE_HELP = ("Keep records whose field has one of these values: n=3,4 or solver=highs "
              "(repeatable).")


@app.command("report")
def report(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(..., help="Results files (JSON lines)."),
    table_name: str = typer.Option("summary", "--table",
                                   help="summary (one row per configuration) | grid (the "
                                        "same with solve seconds, model sizes, memory) | runs "
                                        "(one row per record)."),
    where: list[str] = typer.Option(None, "--where", help=WHERE_HELP),
    score: str = typer.Option(None, "--score",
                              help="Instead of a table of configurations: the score of each "
                                   "solver per puzzle family, par2 (PAR-2; parK: K x the "
                                   "time limit) with the virtual best solver (docs/bench.md)."),
    time: str = typer.Option(scores.DEFAULT_TIME, "--time", help=TIME_HELP),
    solver_param: list[str] = typer.Option(None, "--solver-param", help=SOLVER_PARAM_HELP),
    json_out: bool = typer.Option(False, "--json",
                                  help="Print the summary rows (--score: the scores) as JSON."),
) -> None:
    """Print the Markdown table of one or more results files (what `render` puts in README),
    or with --score the PAR-2 score of each solver and the virtual best, per puzzle family.

    An instance is a record's grid point without its solver and repeat; its repeats count
    by their median time. Examples: ilp-pyramid bench report docs/data/mip_vs_sat.jsonl;
    ilp-pyramid bench report docs/data/mip_vs_sat.jsonl --score par2 --where n=3,4
    """
    try:
        if score is None:
            for name in ("time", "solver_param"):
                if given(ctx, name):
                    raise InputError(f"--{name.replace('_', '-')} goes with --score")
        elif given(ctx, "table_name"):
            raise InputError("--table and --score are two different reports: give one")
        spec = render_mod.parse_spec(":".join(["-", f"table={table_name}", *(where or [])]))
        records = _records(files, spec.filters)
        if score is not None:
            data = scores.score_report(records, scores.penalty_factor(score), time,
                                       solver_param or [])
    except InputError as exc:
        fail(str(exc))
    if score is not None:
        if json_out:
            print_json({"files": [str(p) for p in files], **data})
        else:
            print(scores.score_text(data))
        return
    if json_out:
        print_json({"files": [str(p) for p in files], "groups": summarize_records(records)})
        return
    print(render_mod.markdown(records, spec.table, ", ".join(str(p) for p in files)))


def _records(files: list[Path], filters) -> list[dict]:
    """The records of the results files that pass the filters; InputError when none do
    (naming the files' bad lines: then they are the one line said, not a warning before it).
    """
    records, bad = [], []
    for path in files:
        if not path.is_file():
            raise InputError(f"{path} is not a results file")
        records += read_results(path, warn=bad.append)
    if not records and bad:
        raise InputError("no records to report: " + "; ".join(bad))
    for message in bad:
        warn(message)
    records = render_mod.select(records, filters)
    if not records:
        raise InputError("no records to report" + (" match --where" if filters else ""))
    return records


@app.command("plot")
def plot_command(
    files: list[Path] = typer.Argument(..., help="Results files (JSON lines)."),
    kind: str = typer.Option("cactus", "--kind",
                             help="cactus (instances solved against time, log scale) | "
                                  "profile (the Dolan-More performance profile: the share "
                                  "solved within tau x the best time, log2 scale)."),
    output: Path = typer.Option(..., "--output", "-o", help="The PNG file to write."),
    where: list[str] = typer.Option(None, "--where", help=WHERE_HELP),
    time: str = typer.Option(scores.DEFAULT_TIME, "--time", help=TIME_HELP),
    solver_param: list[str] = typer.Option(None, "--solver-param", help=SOLVER_PARAM_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print what was drawn as JSON."),
) -> None:
    """Draw a cactus plot or a performance profile of one or more results files: one line per
    solver, one panel per puzzle family (needs the `pictures` extra).

    Instances, solved runs and repeats count as in `bench report --score`. Examples:
    ilp-pyramid bench plot docs/data/mip_vs_sat.jsonl --kind cactus -o cactus.png;
    ilp-pyramid bench plot docs/data/mip_vs_sat.jsonl --kind profile -o profile.png
    """

    try:
        if kind not in plots.KINDS:
            raise InputError(f"unknown --kind {kind!r} (choose from {', '.join(plots.KINDS)})")
        spec = render_mod.parse_spec(":".join(["-", *(where or [])]))
        families = scores.families(_records(files, spec.filters), time, solver_param or [])
        plots.write_plot(kind, families, output, time)
    except InputError as exc:
        fail(str(exc))
    if json_out:
        print_json({"files": [str(p) for p in files], "kind": kind, "output": str(output),
                    "families": [{"family": f.name, "instances": len(f.instances),
                                  "solvers": f.solvers} for f in families]})
        return
    console.print(f"{kind}: {output}", markup=False)


@app.command("render")
def render(
    readme: Path = typer.Argument(Path("README.md"), help="Markdown file with bench blocks."),
    check: bool = typer.Option(False, "--check",
                               help="Change nothing; exit 1 if a block differs from its data."),
    json_out: bool = typer.Option(False, "--json", help="Print what was done as JSON."),
) -> None:
    """Regenerate every `<!-- bench:FILE:table=summary -->` ... `<!-- /bench -->` block of a
    Markdown file from its results file (relative to the Markdown file's folder)."""
    try:
        if not readme.is_file():
            raise InputError(f"{readme} is not a file")
        text = read_bytes(readme).decode("utf-8")  # strict: it is written back
        new = render_mod.render_text(text, readme.parent)
    except OSError as exc:
        fail(f"cannot read {readme}: {exc.strerror or exc}")
    except (InputError, UnicodeDecodeError) as exc:
        fail(f"{readme}: {exc}")
    blocks = len(render_mod.blocks(text))
    stale = render_mod.stale_blocks(text, new)
    if json_out:
        print_json({"file": str(readme), "blocks": blocks, "stale": stale,
                    "written": bool(stale) and not check})
    if check:
        if stale:
            if not json_out:
                for spec in stale:
                    console.print(f"{readme}: block {spec} differs from its data", markup=False)
            raise typer.Exit(1)
        if not json_out:
            console.print(f"{readme}: {blocks} bench blocks match their data", markup=False)
        return
    if stale:
        write_atomic(readme, new)
    if not json_out:
        console.print(f"{readme}: {blocks} bench blocks, {len(stale)} rewritten", markup=False)


def execute(specs: Sequence[Spec], results: Path | None, resume: bool, kill_after: float,
            bench_argv: Sequence[str] = (), quiet: bool = False,
            scheduler: str | None = None, warmup: int = 0) -> tuple[dict[str, dict], int]:
    """The command-line side of a bench: lock the results file, check it, skip what it holds
    (with --resume), run the rest; on SIGINT/SIGTERM one line and exit 130/143.

    Returns the records by key (old and new) and how many runs ran now.
    """
    if results is None:
        return _execute(specs, None, resume, kill_after, bench_argv, quiet, scheduler, warmup)
    try:
        check_results_path(results)
        with hold(lock_path(results), f"results file {results}"):
            return _execute(specs, results, resume, kill_after, bench_argv, quiet, scheduler,
                            warmup)
    except InputError as exc:  # the lock, or a record that cannot be written
        fail(str(exc))


def lock_path(results: Path) -> Path:
    """The lock beside a results file: one bench at a time appends to it."""
    return results.with_name(results.name + ".lock")


def _execute(specs: Sequence[Spec], results: Path | None, resume: bool, kill_after: float,
             bench_argv: Sequence[str], quiet: bool, scheduler: str | None,
             warmup: int = 0) -> tuple[dict[str, dict], int]:
    done: dict[str, dict] = {}
    if results is not None:
        try:
            if results.exists() and results.stat().st_size > 0 and not resume:
                raise InputError(f"{results} already holds results: add --resume to go on "
                                 f"with it, or give another --results file")
            done = latest_by_key(read_results(results, warn=warn))
            check_results_path(results, writable=True)
        except InputError as exc:
            fail(str(exc))
    pending = [spec for spec in specs if spec.key() not in done]
    skipped = len(specs) - len(pending)
    if skipped and not quiet:
        console.print(f"resuming {results}: {skipped} of {len(specs)} runs already done")
    try:
        run_all(pending, kill_after, results, done, bench_argv, quiet, scheduler, warmup)
    except Interrupted as exc:
        finished = sum(spec.key() in done for spec in pending)
        kept = f"; {finished} finished runs of this session kept in {results}" \
            if results is not None else ""
        fail(f"interrupted by {signal.Signals(exc.signum).name}{kept}", exc.exit_code)
    return done, len(pending)




def given(ctx: click.Context, name: str) -> bool:
    """Was option `name` given on the command line (not left at its default)?"""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def invocation(ctx: click.Context) -> list[str]:
    """The bench's command line as given (options in declaration order), for the records."""
    argv = ctx.command_path.split()
    for param in ctx.command.params:
        if not param.opts or not given(ctx, param.name):
            continue
        value = ctx.params[param.name]
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            if isinstance(item, bool):
                flags = param.opts if item else getattr(param, "secondary_opts", [])
                argv += flags[:1]
            else:
                argv += [param.opts[0], str(item)]
    return argv
