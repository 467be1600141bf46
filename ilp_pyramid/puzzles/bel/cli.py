"""Bel's Pyramid commands: solve, verify, export, read-solution, models."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer

from ilp_pyramid import backends
from ilp_pyramid.backends.mip import MIP_SOLVERS
from ilp_pyramid.cli_common import (
    EXIT_NO_SOLUTION,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    Format,
    Jobs,
    Json,
    Output,
    Seed,
    Solver,
    Threads,
    TimeLimit,
    Verbose,
    check_memory,
    console,
    cores,
    err_console,
    fail,
    like,
    print_json,
    report_written,
    solve_options,
    solver_names,
    write_output,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import mipfile
from ilp_pyramid.formats.fileio import read_text, write_atomic
from ilp_pyramid.puzzles.bel import auto, runner
from ilp_pyramid.puzzles.bel.footprint import model_bytes
from ilp_pyramid.puzzles.bel.geometry import MAX_N, cell_count
from ilp_pyramid.puzzles.bel.pictures import (
    CubesCsvOpt,
    CubesOpt,
    HtmlOpt,
    Pictures,
    PngOpt,
    load_solution,
)
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.verify.bel import verify_solution

SolverOpt = like(Solver, show_default="highs with --method exact",
                 help=f"Implies --method exact. MIP: {solver_names('mip')}. SAT (python-sat, "
                      f"own process; docs/sat.md): {solver_names('sat')}. OR-Tools: "
                      f"{solver_names('cpsat')}. A solver whose library is missing names the "
                      "extra to install (e.g. ilp-pyramid[cpsat]).")
FormulationOpt = typer.Option("counts", "--formulation",
                              help="counts (cell-cube assignment linked by label counts) | "
                                   "rotations (one binary per cell x cube x rotation); "
                                   "SAT/CNF also: support (forward clauses only).")
CardOpt = typer.Option(None, "--card",
                       help="SAT/CNF: pysat.card encoding of 'one cell per cube' "
                            "(seqcounter, totalizer, ladder, pairwise, ...; default: the best "
                            "measured).")


SolverOptionOpt = typer.Option([], "--solver-option",
                               help="NAME=VALUE passed to the MIP solver as it is "
                                    "(repeatable): a SCIP parameter (misc/usesymmetry=0, "
                                    "emphasis=feasibility), a HiGHS option "
                                    "(mip_detect_symmetry=false), a Gurobi parameter "
                                    "(Symmetry=2), a CBC flag (cuts=off).")
StrategyOpt = typer.Option([], "--strategy", help="Add a strategy (repeatable, or A+B); see "
                           "`ilp-pyramid strategies`; `none` for no strategy at all.")

# The best measured configuration per backend when no --strategy is given: at N=3, HiGHS
# took a median 4.41 s with value precedence on the centre lines against 5.84 s plain (seeds
# 0-2, docs/highs_strategies_n3.jsonl, written by docs/measure.sh); every other set measured
# was slower. SCIP (with its CP emphasis, backends/scip.py): a median 0.95 s of solve time
# with the same rows against 1.43 s without (seeds 0-4, docs/mip_n3.jsonl, docs/mip.md).
DEFAULT_STRATEGIES = {"highs": ["LabelPermutationImportance"],
                      "scip": ["LabelPermutationImportance"]}


def split_strategies(names: list[str]) -> list[str]:
    """`--strategy A+B` is `--strategy A --strategy B`: a strategy set is one value (one value
    of a bench axis, `bench --grid strategy=none,A+B`)."""
    return [part for name in names for part in name.split("+") if part]


def check_strategies(names: list[str]) -> None:
    if not names:  # the catalogue is not loaded for nothing
        return
    from ilp_pyramid.puzzles.bel.strategies import CATALOGUE

    if "none" in names and len(names) > 1:
        fail("--strategy none cannot be combined with other strategies")
    for name in names:
        if name not in CATALOGUE and name != "none":
            fail(f"unknown strategy {name!r} (see `ilp-pyramid strategies`)")
    warn_unsound(names)


def warn_unsound(names: list[str]) -> None:
    from ilp_pyramid.puzzles.bel.strategies import unsound_pairs

    pairs = unsound_pairs([name for name in names if name != "none"])
    if pairs:
        listed = ", ".join(f"{a} + {b}" for a, b in pairs)
        err_console.print(f"warning: {listed} not known to combine soundly: an infeasible "
                          f"answer is not a proof", markup=False, soft_wrap=True)


def chosen_strategies(names: list[str], solver: str | None) -> list[str]:
    """The strategies a run uses: as given, `none` for none, else the backend's default."""
    if names == ["none"]:
        return []
    if names:
        return names
    return list(DEFAULT_STRATEGIES.get(solver or "", []))


def check_n(n: int, where: str = "") -> None:
    """The one range check for N, from the command line or read from a file (`where`)."""
    if not 1 <= n <= MAX_N:
        fail(f"{where}N must be between 1 and {MAX_N} (got {n})")


def check_model_memory(n: int, formulation: str, form: str) -> None:
    check_memory(model_bytes(n, formulation, form), f"the N={n} {formulation} model")


def parse_solver_options(items: list[str], solver: str) -> dict:
    """'name=value' items -> {name: value}, numbers and true/false read as such."""
    if items and runner.form_for(solver) != "mip":
        fail(f"--solver-option is for the MIP solvers ({', '.join(MIP_SOLVERS)})")
    options: dict = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip():
            fail(f"--solver-option {item!r}: expected NAME=VALUE")
        options[name.strip()] = _option_value(text.strip())
    return options


def _option_value(text: str) -> object:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def check_solver(solver: str) -> None:
    """Exit 2 for a solver that takes no form of Bel's model, or whose library is missing."""
    try:
        runner.form_for(solver)
        backends.require(solver)
    except InputError as exc:
        fail(str(exc))


def check_formulation(formulation: str, solver: str = "highs") -> None:
    if runner.form_for(solver) == "mip":
        from ilp_pyramid.puzzles.bel.model import FORMULATIONS as choices  # loads PuLP
    else:
        from ilp_pyramid.puzzles.bel.cnf import ENCODINGS as choices
    if formulation not in choices:
        fail(f"unknown formulation {formulation!r} (choose from {', '.join(choices)})")


def check_card(card: str | None) -> None:
    from ilp_pyramid.puzzles.bel.cnf import CARD_ENCODINGS

    if card is not None and card not in CARD_ENCODINGS:
        fail(f"unknown cardinality encoding {card!r} (choose from {', '.join(CARD_ENCODINGS)})")


def auto_table() -> str:
    return auto.table_text()


def solve(
    n: int = typer.Argument(..., help="Number of levels (N=3 is the classic 35-cube pyramid)."),
    solver: str = SolverOpt,
    formulation: str = FormulationOpt,
    card: str = CardOpt,
    time_limit: float = TimeLimit,
    threads: int = Threads,
    seed: int = Seed,
    output: Path = like(Output, help="Also write the drawing here."),
    strategy: list[str] = StrategyOpt,
    solver_option: list[str] = SolverOptionOpt,
    json_out: bool = Json,
    verbose: bool = Verbose,
    method: str = typer.Option("auto", "--method",
                               help="auto (the engine measured fastest for N, see above) | "
                                    "exact (one solver on the whole model) | lns (compiled "
                                    "local search + exact repair, docs/hybrid.md)."),
    repair: str = typer.Option("sat", "--repair",
                               help="--method lns: how a freed line family is re-labelled: "
                                    "sat (MiniSat) | mip (HiGHS) | dlx (Dancing Links) | "
                                    "scip (SCIP, extra ilp-pyramid[scip])."),
    jobs: int = like(Jobs, show_default=f"one per core from N={auto.RACE_FROM}, else 1",
                     help="--method lns: independent searches racing (different seeds), the "
                          "first verified answer stopping the rest; 1: one search in this "
                          "process; at most the cores."),
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
    formulation with LabelPermutationImportance (median 4.41 s against 5.84 s plain over 3
    seeds at N=3; the full-precedence breakers were slower), SCIP the same rows with its CP
    emphasis (no LP; solve time at most 1.0 s over 5 seeds at N=3, docs/mip.md), CBC and
    Gurobi the plain counts formulation, SAT (kissat, cadical, ...) the counts encoding with a
    sequential-counter "one cell per cube" and no strategy. `--strategy none` turns the
    default off. The MIP solvers are the slow way
    here: HiGHS needs seconds at N=3, SCIP about 1 s only with its LP switched off, and no
    MIP solver setting measured answered N=4 within 60 s, where Kissat needs about 1.2 s and
    the hybrid search about 0.6 s (docs/mip.md, docs/mip_vs_sat.jsonl, docs/auto.jsonl).

    Exit codes: 0 solved, 1 infeasible, 2 bad input, 3 time limit reached without a solution,
    130 / 143 interrupted (Ctrl-C / SIGTERM).
    """
    check_n(n)
    strategy = split_strategies(strategy)
    exact_only = {"--solver": solver is not None, "--formulation": formulation != "counts",
                  "--card": card is not None, "--strategy": bool(strategy),
                  "--threads": threads is not None, "--solver-option": bool(solver_option)}
    given = [name for name, used in exact_only.items() if used]
    engine = None
    if method == "auto":  # options that only one method takes pick that method
        if given:
            method = "exact"
        elif repair != "sat":
            method = "lns"
        else:
            engine = auto.choose(n)
            method, solver, repair = engine.method, engine.solver, engine.solver
    solver = solver or "highs"
    if method != "exact":  # the hybrid search: its own module, loaded only when asked for
        from ilp_pyramid.puzzles.bel.lns.command import check_method, run_lns_command

        check_method(method, repair)
        pictures = "--png/--html/--cubes (use `render` on the -o file)"
        if Pictures(png, html, cubes, cubes_csv).wanted():
            given.append(pictures)
        if given:
            fail(f"{', '.join(given)} applies to --method exact only "
                 f"(--method lns takes --repair, --jobs, --seed, --time-limit)")
        jobs = jobs or auto.race_jobs(n, cores())
        code = (auto.run_lns(n, engine, time_limit, seed, output, json_out, jobs)
                if engine is not None else
                run_lns_command(n, repair, time_limit, seed, output, json_out, jobs=jobs))
        if code:
            raise typer.Exit(code)
        return
    if jobs is not None:
        fail("--jobs applies to --method lns only (--method exact takes --threads)")
    check_solver(solver)
    check_formulation(formulation, solver)
    check_card(card)
    check_strategies(strategy)
    extra = parse_solver_options(solver_option, solver)
    check_model_memory(n, formulation, runner.form_for(solver))
    Pictures(png, html, cubes, cubes_csv).check_extras()
    options = solve_options(time_limit, threads, seed, verbose and not json_out, **extra)
    from ilp_pyramid.puzzles.bel.quick import run_exact

    strategies = list(engine.strategies) if engine else chosen_strategies(strategy, solver)
    outcome = run_exact(n, solver, formulation, options, card, strategies, engine, json_out)
    if auto.hands_over(engine, outcome):
        code = auto.hand_over(n, engine, outcome, time_limit, seed, output, json_out)
        if code:
            raise typer.Exit(code)
        return
    report(outcome, json_out, output, Pictures(png, html, cubes, cubes_csv))


solve.__doc__ = (solve.__doc__ or "").replace("AUTO_TABLE", auto_table())


def report(outcome: runner.BelRun, json_out: bool, output: Path | None,
           pictures: Pictures | None = None) -> None:
    from ilp_pyramid.puzzles.bel.quick import outcome_text

    made = pictures.write(outcome.solution) if pictures and outcome.solution else {}
    if json_out:
        print_json({**outcome.to_json(), **made})
    else:
        text, error = outcome_text(outcome)
        console.print(text, end="", markup=False, soft_wrap=True)
        if error:
            err_console.print(error, markup=False, soft_wrap=True)
        if outcome.solution is not None and pictures is not None:
            pictures.show(made)
    if outcome.solution is None:
        raise typer.Exit(EXIT_TIMEOUT if outcome.status == runner.TIMEOUT else EXIT_NO_SOLUTION)
    write_output(output, outcome.solution.to_drawing())


def verify(
    file: Path = typer.Argument(..., help="Knuth's drawing, the solve --json object or a "
                                          "--cubes-csv build list."),
    json_out: bool = Json,
) -> None:
    """Check a solution: exit 0 "valid", 1 with the reasons, 2 if the file is malformed."""
    solution = load_solution(file)
    verdict = verify_solution(solution)
    if json_out:
        print_json({"n": solution.n, "valid": verdict.valid, "reasons": verdict.reasons()})
    elif verdict.valid:
        console.print(f"valid: N={solution.n}, "
                      f"all {cell_count(solution.n)} cubes appear exactly once")
    else:
        console.print(f"invalid: N={solution.n}")
        for reason in verdict.reasons():
            console.print(f"  {reason}", markup=False)
    if not verdict.valid:
        raise typer.Exit(EXIT_NO_SOLUTION)


def export(
    n: int = typer.Argument(..., help="Number of levels."),
    output: Path = like(Output, default=...),
    fmt: str = like(Format, help="lp | mps | cnf (DIMACS) (default: from the file name)."),
    formulation: str = FormulationOpt,
    card: str = CardOpt,
    strategy: list[str] = StrategyOpt,
    json_out: bool = Json,
) -> None:
    """Export the model as LP or MPS with readable, stable variable names, or as DIMACS CNF
    whose comment lines map every variable (`c x 17 Z 3 4 label 2`)."""
    from ilp_pyramid.formats.mipfile import MIP_FORMATS, format_from_name, write_mip

    check_n(n)
    check_strategies(strategy)
    fmt = (fmt or format_from_name(str(output)) or "").lower()
    if fmt == "cnf":
        export_cnf(n, output, formulation, card, chosen_strategies(strategy, None), json_out)
        return
    check_formulation(formulation)
    if fmt not in MIP_FORMATS:
        fail(f"unknown export format {fmt!r} (use --format lp, mps or cnf)")
    check_model_memory(n, formulation, "mip")
    from ilp_pyramid.puzzles.bel.model import build_model
    model = build_model(n, formulation, chosen_strategies(strategy, None))
    write_mip(model.problem, str(output), fmt)
    report_written({"n": n, "path": str(output), "format": fmt, "formulation": formulation,
                    "strategies": chosen_strategies(strategy, None),
                    "variables": model.num_variables, "constraints": model.num_constraints},
                   json_out)


def export_cnf(n: int, output: Path, encoding: str, card: str | None,
               strategies: list[str] | None = None, json_out: bool = False) -> None:
    from ilp_pyramid.puzzles.bel.cnf import DEFAULT_CARD, ENCODINGS, build_cnf

    if encoding not in ENCODINGS:
        fail(f"unknown CNF encoding {encoding!r} (choose from {', '.join(ENCODINGS)})")
    check_card(card)
    check_model_memory(n, encoding, "cnf")
    cnf = build_cnf(n, encoding, card or DEFAULT_CARD, strategies=strategies or ())
    cnf.write(output)
    report_written({"n": n, "path": str(output), "format": "cnf", "encoding": cnf.encoding,
                    "card": cnf.card, "strategies": list(strategies or []),
                    "variables": cnf.num_variables, "clauses": cnf.num_clauses}, json_out)


# The model's line variables, the only ones a solution is decoded from.
_LINE_NAMES = re.compile(r"x_[XYZ]_\d+_\d+_l\d+")


def read_mip_values(text: str) -> dict[str, float]:
    """The line variables' values from a MIP solution file (any format formats.mipfile reads)."""
    return mipfile.read_mip_values(text, _LINE_NAMES)


def read_solution(
    model_file: Path = typer.Argument(..., help="The exported model (.lp/.mps/.cnf[.gz])."),
    solution_file: Path = typer.Argument(
        ..., help="The outside solver's solution file (for a .cnf: its 's'/'v' lines)."),
    json_out: bool = Json,
) -> None:
    """Decode an outside solver's solution of an exported model by name, verify and draw it."""
    try:
        model_text = read_text(model_file)
        solution_text = read_text(solution_file)
    except OSError as exc:
        fail(f"cannot read {exc.filename}: {exc.strerror}")
    if model_text.startswith("c bel n="):
        solution = read_cnf_certificate(model_file, model_text, solution_file, solution_text)
        show_read_solution(solution, json_out)
        return
    from ilp_pyramid.puzzles.bel.model import decode_values, model_kind
    kind = model_kind(model_text[:2000])
    if kind is None:
        fail(f"{model_file}: not a Bel model exported by ilp-pyramid (no bel_n<N>_ name)")
    n, _formulation = kind
    check_n(n, f"{model_file}: ")
    values = read_mip_values(solution_text)
    if not values:
        fail(f"{solution_file}: no values for the model's x_ variables found")
    try:
        solution = decode_values(n, values)
    except InputError as exc:
        fail(f"{solution_file}: {exc}")
    show_read_solution(solution, json_out)


def read_cnf_certificate(model_file: Path, model_text: str, solution_file: Path,
                         solution_text: str) -> BelSolution:
    """Decode a SAT solver's certificate through the exported CNF's variable comments."""
    from ilp_pyramid.formats.dimacs import SATISFIABLE, UNSATISFIABLE, parse_certificate
    from ilp_pyramid.puzzles.bel.cnf import decode_certificate, read_cnf_info

    try:
        info = read_cnf_info(model_text)
    except InputError as exc:
        fail(f"{model_file}: {exc}")
    check_n(info.n, f"{model_file}: ")
    try:
        status, literals = parse_certificate(solution_text)
    except InputError as exc:
        fail(f"{solution_file}: {exc}")
    if status == UNSATISFIABLE:
        fail(f"{solution_file}: the solver reported UNSATISFIABLE: no solution to read",
             EXIT_NO_SOLUTION)
    if status != SATISFIABLE:
        fail(f"{solution_file}: no model in the certificate (status {status})", EXIT_NO_SOLUTION)
    try:
        return decode_certificate(info, literals)
    except InputError as exc:
        fail(f"{solution_file}: {exc}")


def show_read_solution(solution: BelSolution, json_out: bool) -> None:
    n = solution.n
    verdict = verify_solution(solution)
    if json_out:
        print_json({"n": n, "valid": verdict.valid, "reasons": verdict.reasons(),
                    "solution": solution.to_dict()})
    else:
        console.print("valid" if verdict.valid else "invalid")
        for reason in verdict.reasons():
            console.print(f"  {reason}", markup=False)
        if verdict.valid:
            console.print(solution.to_drawing(), end="", markup=False)
    if not verdict.valid:
        raise typer.Exit(EXIT_NO_SOLUTION)


def models(
    directory: Path = typer.Argument(Path("models"), help="Where to write the benchmark set."),
    max_n: int = typer.Option(5, "--max-n", min=2, max=8),
    output: Path = typer.Option(None, "-o", "--output", help="Same as DIRECTORY."),
    json_out: bool = Json,
) -> None:
    """(Re)generate the public benchmark set: Bel N=2..max-n as .mps.gz and .cnf.gz, plus
    manifest.json. The output is byte-for-byte reproducible (gzip without timestamps)."""
    from ilp_pyramid.formats.mipfile import mip_text, mps_stats

    directory = output or directory
    from ilp_pyramid.puzzles.bel.cnf import build_cnf
    from ilp_pyramid.puzzles.bel.model import build_model

    entries = []
    for n in range(2, max_n + 1):
        model = build_model(n, "counts")
        text = mip_text(model.problem, "mps")
        name = f"bel_n{n}_counts.mps.gz"
        write_atomic(directory / name, text)
        entries.append({"file": name, "puzzle": "bel", "n": n, "format": "mps",
                        "formulation": "counts", **mps_stats(text), "status": "feasible"})
        cnf = build_cnf(n)
        cnf_name = f"bel_n{n}_{cnf.encoding}.cnf.gz"
        write_atomic(directory / cnf_name, cnf.dimacs())
        entries.append({"file": cnf_name, "puzzle": "bel", "n": n, "format": "cnf",
                        "encoding": cnf.encoding, "card": cnf.card,
                        "variables": cnf.num_variables, "clauses": cnf.num_clauses,
                        "status": "feasible"})
        if not json_out:
            console.print(f"wrote {directory / name}, {directory / cnf_name}", markup=False)
    manifest = {
        "generator": "ilp-pyramid models",
        "note": "status 'feasible': a verified solution is known (N=2..4 solved by this "
                "package; N=5 by SAT and by the hybrid search)",
        "instances": entries,
    }
    write_atomic(directory / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    if json_out:
        print_json({"directory": str(directory), **manifest})


__all__ = ["solve", "verify", "export", "read_solution", "models", "EXIT_USAGE"]
