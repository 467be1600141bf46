"""`ilp-pyramid bench` (run a grid), `bench report` (a table from results files) and
`bench render` (regenerate the README's measured tables from their results files)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from ilp_pyramid.bench import render as render_mod
from ilp_pyramid.bench.bel_grid import (
    command_grid,
    grid,
    parse_list,
    parse_sizes,
    parse_strategy_sets,
    parse_template,
)
from ilp_pyramid.bench.commands import MAX_REPEAT, with_solved_patterns
from ilp_pyramid.bench.records import SOLVED, TIMEOUT, read_results
from ilp_pyramid.bench.session import execute, given, invocation, warn
from ilp_pyramid.bench.summary import plot, summarize, summarize_records, summary_table, table
from ilp_pyramid.cli_common import console, fail, print_json
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import write_atomic

MAX_SECONDS = 7 * 24 * 3600.0
# Time a run gets beyond --time-limit (model building, process start) before it is killed.
GRACE_SECONDS = 30.0
GRACE_FRACTION = 0.1

app = typer.Typer()  # its help: the docstring of `bench` below


def hard_limit(time_limit: float) -> float:
    return time_limit + GRACE_SECONDS + GRACE_FRACTION * time_limit


@app.callback(invoke_without_command=True)
def bench(
    ctx: typer.Context,
    n: str = typer.Option("2..4", "--n", help="Sizes: 2..5, or a list 2,3,5."),
    solver: str = typer.Option(None, "--solver", "-s",
                               show_default="highs,cbc,scip,kissat (scip where installed)",
                               help="Comma-separated solvers, MIP and SAT (see solve --help)."),
    formulation: str = typer.Option("counts", "--formulation",
                                    help="Comma-separated formulations (SAT: CNF encodings)."),
    strategy: list[str] = typer.Option(None, "--strategy",
                                       help="Passed to every run's solve (repeatable)."),
    strategies: str = typer.Option(None, "--strategies",
                                   help="Strategy sets as a grid dimension, like solvers: "
                                        "'none;LabelPermutation+Automorphism;YStep'."),
    card: str = typer.Option(None, "--card", help="SAT: cardinality encoding for every run."),
    command: list[str] = typer.Option(
        None, "--command",
        help="Instead of the Bel grid: time a command of the package, [LABEL=]ARGV with "
             "placeholders {n} {solver} {formulation} {seed} {repeat} {time_limit}, expanded "
             "over --n/--solver/--formulation/--repeat, e.g. 'auto=solve {n} --json' "
             "(repeatable)."),
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
                                          "(default: time limit + 30 s + 10%)."),
    repeat: int = typer.Option(1, "--repeat", min=1, max=MAX_REPEAT,
                               help="Runs per grid point (repeat r: --seed r-1)."),
    results: Path = typer.Option(Path("bench-results.jsonl"), "--results",
                                 help="JSON-lines file: one line per finished run."),
    resume: bool = typer.Option(False, "--resume",
                                help="Keep the results file and skip the runs it holds."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Address of a Dask scheduler (tcp://host:8786): each "
                                       "run is a task on a worker there, still its own "
                                       "process with the same limits; records name the "
                                       "worker's host (docs/bench.md)."),
    plot_file: Path = typer.Option(None, "--plot", help="Also draw time vs N (PNG, log scale)."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Time runs, each in its own process: the Bel grid (sizes x solvers x formulations x
    repeats), or --command / --external argv templates; tables from the records.

    Every finished run goes to --results at once (JSON lines, with its command line, the
    machine, the load average before and after, wall and CPU seconds); --resume skips those.
    Prints a table per configuration; --plot draws time vs N; --json gives the summary.
    `bench report` prints a results file as a Markdown table, `bench render README.md`
    regenerates the README's marked tables (see docs/bench.md).

    Examples: ilp-pyramid bench --n 2..4 --solver highs,cbc,kissat --time-limit 120;
    ilp-pyramid bench --n 1..4 --repeat 5 --command 'auto=solve {n}'
    --external 'ref=/venv/bin/bel_pyramid {n}' --results docs/auto.jsonl
    """
    if ctx.invoked_subcommand is not None:
        return
    try:
        sizes = parse_sizes(n)
        solvers = parse_list(solver or default_solvers(), "solver")
        formulations = parse_list(formulation, "formulation")
        templates = [parse_template(text, False) for text in command or []] + \
            [parse_template(text, True) for text in external or []]
        templates = with_solved_patterns(templates, solved_if or [])
        if templates and _bel_grid_given(ctx):
            raise InputError("--strategy, --strategies and --card belong to the Bel grid; "
                             "with --command/--external, write them into the template")
        if templates:
            specs = command_grid(templates, sizes, solvers, formulations, time_limit, repeat)
        else:
            specs = grid(sizes, solvers, formulations, strategy or [], card, time_limit, repeat,
                         parse_strategy_sets(strategies) if strategies else None)
    except InputError as exc:
        fail(str(exc))
    done, ran_now = execute(specs, results, resume, kill_after or hard_limit(time_limit),
                            invocation(ctx), quiet=json_out, scheduler=scheduler)
    records = [done[spec.key()] for spec in specs if spec.key() in done]
    if templates:
        rows = summarize_records(records)
    else:
        rows = summarize(specs, done)
    if plot_file is not None:
        if templates:
            plot(rows, time_limit, plot_file, ylabel="median wall time of the whole run, s",
                 title="median wall time vs N")
        else:
            plot(rows, time_limit, plot_file)
    if json_out:
        print_json({"results": str(results), "time_limit": time_limit, "runs": len(specs),
                    "ran_now": ran_now, "groups": rows})
        return
    # A table people read in full, also when piped: never squeezed into 80 columns.
    wide = Console(highlight=False, width=max(console.width, 110))
    wide.print(summary_table(rows, f"limit {time_limit:g} s") if templates
               else table(rows, time_limit))
    if plot_file is not None:
        console.print(f"plot: {plot_file}")
    for spec in specs:
        record = done.get(spec.key())
        if record and record["status"] not in (SOLVED, TIMEOUT):
            console.print(f"{spec.describe()}: {record['status']}: "
                          f"{record.get('message', '')}", markup=False)


def _bel_grid_given(ctx: typer.Context) -> bool:
    return any(given(ctx, name) for name in ("strategy", "strategies", "card"))


@app.command("report")
def report(
    files: list[Path] = typer.Argument(..., help="Results files (JSON lines)."),
    table_name: str = typer.Option("summary", "--table",
                                   help="summary (one row per configuration) | grid (the "
                                        "same with solve seconds, model sizes, memory) | runs "
                                        "(one row per record)."),
    where: list[str] = typer.Option(None, "--where",
                                    help="Keep records whose field has one of these values: "
                                         "n=3,4 or solver=highs (repeatable)."),
    json_out: bool = typer.Option(False, "--json", help="Print the summary rows as JSON."),
) -> None:
    """Print the Markdown table of one or more results files (what `render` puts in README)."""
    try:
        spec = render_mod.parse_spec(":".join(["-", f"table={table_name}", *(where or [])]))
        records = []
        for path in files:
            if not path.is_file():
                raise InputError(f"{path} is not a results file")
            records += read_results(path, warn=warn)
        records = render_mod.select(records, spec.filters)
        if not records:
            raise InputError("no records to report" + (" match --where" if where else ""))
    except InputError as exc:
        fail(str(exc))
    if json_out:
        print_json({"files": [str(p) for p in files], "groups": summarize_records(records)})
        return
    print(render_mod.markdown(records, spec.table, ", ".join(str(p) for p in files)))


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
        text = readme.read_text(encoding="utf-8")
        new = render_mod.render_text(text, readme.parent)
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


def default_solvers() -> str:
    """The default MIP-vs-SAT grid: every open MIP solver that is installed, and Kissat."""
    from ilp_pyramid.extras import available

    return ",".join(["highs", "cbc", *(["scip"] if available("pyscipopt") else []), "kissat"])
