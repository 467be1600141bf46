"""`ilp-pyramid solve N`: Bel's Pyramid, the flagship, at the top level.

Not cli/puzzle.py's standard `solve`: the instance is N, an argument (no FILE, no --generate);
`--method` picks the engine (auto: the measured table, puzzles/bel/auto.py; exact: one solver
on the whole model through `protocol.solve`; lns: the hybrid search, which is no solver form);
the text names the model before the solve and the engine after it, and `solve N [--json]` on
an exact SAT engine is answered before Typer loads (cli/bel/quick.py). The exact method
solves and prints through cli/bel/exact.py, as the quick path does, and its --json is
`Result.to_json()` as every puzzle's.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ilp_pyramid import protocol
from ilp_pyramid.backends import solvers
from ilp_pyramid.cli.bel import exact as bel_exact
from ilp_pyramid.cli.bel.options import (
    CardOpt,
    FormulationOpt,
    SolverOptionOpt,
    StrategyOpt,
    check_card,
    check_formulation,
    check_model_memory,
    check_n,
    check_solver,
    check_strategies,
    chosen_strategies,
    parse_solver_options,
    split_strategies,
)
from ilp_pyramid.cli.bel.pictures import CubesCsvOpt, CubesOpt, HtmlOpt, Pictures, PngOpt
from ilp_pyramid.cli.options import (
    Jobs,
    Json,
    Output,
    Seed,
    Solver,
    SolverCommand,
    SolverSeed,
    Threads,
    TimeLimit,
    Verbose,
    cores,
    fail,
    like,
    solve_options,
    solver_names,
    write_output,
)
from ilp_pyramid.puzzles.bel import auto

SolverOpt = like(Solver, show_default="highs with --method exact",
                 help=f"Implies --method exact. MIP: {solver_names('mip')}. SAT (python-sat, "
                      f"own process; docs/sat.md): {solver_names('sat')}. OR-Tools: "
                      f"{solver_names('cp')}. A solver whose library is missing names the "
                      "extra to install (e.g. ilp-pyramid[cpsat]).")
MethodOpt = typer.Option("auto", "--method",
                         help="auto (the engine measured fastest for N, see above) | exact (one "
                              "solver on the whole model) | lns (compiled local search + exact "
                              "repair, docs/hybrid.md).")
RepairOpt = typer.Option("sat", "--repair",
                         help="--method lns: how a freed line family is re-labelled: sat "
                              "(MiniSat) | mip (HiGHS) | dlx (Dancing Links) | scip (SCIP, "
                              "extra ilp-pyramid[scip]).")
JobsOpt = like(Jobs, show_default=f"one per core from N={auto.RACE_FROM}, else 1",
               help="--method lns: independent searches racing (different seeds), the first "
                    "verified answer stopping the rest; 1: one search in this process; at most "
                    "the cores.")


def solve(
    n: int = typer.Argument(..., help="Number of levels (N=3 is the classic 35-cube pyramid)."),
    solver: str = SolverOpt,
    solver_command: list[str] = SolverCommand,
    formulation: str = FormulationOpt,
    card: str = CardOpt,
    time_limit: float = TimeLimit,
    threads: int = Threads,
    seed: int = Seed,
    solver_seed: int = like(SolverSeed, help="The solver's own random seed (Bel's instance "
                                             "takes none: the same as --seed, which it "
                                             "overrides)."),
    output: Path = like(Output, help="Also write the drawing here."),
    strategy: list[str] = StrategyOpt,
    solver_option: list[str] = SolverOptionOpt,
    json_out: bool = Json,
    verbose: bool = Verbose,
    method: str = MethodOpt,
    repair: str = RepairOpt,
    jobs: int = JobsOpt,
    png: Path = PngOpt,
    html: Path = HtmlOpt,
    cubes: bool = CubesOpt,
    cubes_csv: Path = CubesCsvOpt,
) -> None:
    """Solve Bel's Pyramid of N levels and print the verified solution in Knuth's drawing.

    With no options, --method auto runs the engine measured fastest for N (docs/auto.md):
    AUTO_TABLE. The output names the engine ("engine" in --json). An engine named with a
    hypothesis (exact:SOLVER:YStep+...) searches only the solutions of that shape; if it
    finds none, which says nothing about the puzzle, the hybrid search takes over. Giving
    --solver, --formulation, --card, --strategy or --threads means --method exact; --repair
    means --method lns.

    --method exact: each backend runs its best measured configuration: HiGHS the counts
    formulation with LabelPermutationImportance, SCIP the same rows with its CP emphasis (no
    LP), CBC and Gurobi the plain counts formulation, SAT (kissat, cadical, ...) the counts
    encoding with a sequential-counter "one cell per cube" and no strategy. `--strategy none`
    turns the default off. The MIP solvers are the slow way here (why, and the measurements
    behind each choice: docs/mip.md, docs/mip_vs_sat.md "Strategies for HiGHS",
    docs/auto.md).

    Exit codes: 0 solved, 1 infeasible, 2 bad input, 3 time limit reached without a solution,
    130 / 143 interrupted (Ctrl-C / SIGTERM).
    """
    check_n(n)
    seed = seed if solver_seed is None else solver_seed
    strategy = split_strategies(strategy)
    pictures = Pictures(png, html, cubes, cubes_csv)
    exact_only = {"--solver": solver is not None, "--formulation": formulation != "counts",
                  "--card": card is not None, "--strategy": bool(strategy),
                  "--threads": threads is not None, "--solver-option": bool(solver_option)}
    given = [name for name, used in exact_only.items() if used]
    method, engine = _method(n, method, given, repair)
    if engine is not None:
        solver = repair = engine.solver
    if method != "exact":
        if pictures.wanted():
            given.append("--png/--html/--cubes (use `render` on the -o file)")
        _exit(_search(n, method, repair, engine, given, time_limit, seed, output, json_out,
                      jobs))
        return
    if jobs is not None:
        fail("--jobs applies to --method lns only (--method exact takes --threads)")
    entry, extra = _checked(n, solver or "highs", formulation, card, strategy, solver_option)
    pictures.check_extras()
    options = solve_options(time_limit, threads, seed, verbose and not json_out, **extra)
    strategies = list(engine.strategies) or None if engine else chosen_strategies(strategy)
    result = bel_exact.solve_exact(n, entry, formulation, options, card, strategies, engine,
                                   json_out)
    if auto.hands_over(engine, result):
        from ilp_pyramid.cli.bel.auto import hand_over  # the hybrid search: numpy

        _exit(hand_over(n, engine, result, time_limit, seed, output, json_out))
        return
    _exit(_answer(result, json_out, output, pictures))


solve.__doc__ = (solve.__doc__ or "").replace("AUTO_TABLE", auto.table_text())


def _search(n: int, method: str, repair: str, engine: auto.Engine | None, given: list[str],
            time_limit: float | None, seed: int | None, output: Path | None, json_out: bool,
            jobs: int | None) -> int:
    """--method lns, or auto's hybrid engine: the search's exit code."""
    from ilp_pyramid.cli.bel.auto import run_lns  # the hybrid search: numpy, numba
    from ilp_pyramid.cli.bel.lns import check_method, run_lns_command

    check_method(method, repair)
    if given:
        fail(f"{', '.join(given)} applies to --method exact only "
             f"(--method lns takes --repair, --jobs, --seed, --time-limit)")
    jobs = jobs or auto.race_jobs(n, cores())
    if engine is not None:
        return run_lns(n, engine, time_limit, seed, output, json_out, jobs)
    return run_lns_command(n, repair, time_limit, seed, output, json_out, jobs=jobs)


def _method(n: int, method: str, given: list[str], repair: str
            ) -> tuple[str, auto.Engine | None]:
    """The method that runs, and auto's engine when auto chooses: an option that only one
    method takes picks that method."""
    if method != "auto":
        return method, None
    if given:
        return "exact", None
    if repair != "sat":
        return "lns", None
    engine = auto.choose(n)
    return engine.method, engine


def _checked(n: int, solver: str, formulation: str, card: str | None, strategy: list[str],
             solver_option: list[str]) -> tuple[solvers.Solver, dict]:
    """Exit 2 for anything the exact method cannot take (before the model is built); the
    solver, resolved once, and its own options (--solver-option) as a dict."""
    entry, form = check_solver(solver)
    check_formulation(formulation, form)
    check_card(card)
    check_strategies(strategy)
    extra = parse_solver_options(solver_option, entry)
    check_model_memory(n, formulation, form)
    return entry, extra


def _answer(result: protocol.Result, json_out: bool, output: Path | None,
            pictures: Pictures) -> int:
    """The exact method's answer printed, with the pictures asked for; its exit code."""
    if bel_exact.refused(result) or result.solution is None:
        return bel_exact.show(result, json_out)
    made = pictures.write(result.solution)
    code = bel_exact.show(result, json_out, made)
    if not json_out:
        pictures.show(made)
    write_output(output, result.solution.to_drawing())
    return code


def _exit(code: int) -> None:
    if code:
        raise typer.Exit(code)
