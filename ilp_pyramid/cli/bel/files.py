"""Bel's Pyramid as files: `verify` a solution, `export` the model, `read-solution` of an
outside solver (the public benchmark sets: cli/models.py).

Not the standard commands of cli/puzzle.py: Bel's instance is N, an argument, not a FILE;
`verify` reads Knuth's drawing and the build list besides JSON; `export` writes the CNF with
the comment lines that map every variable (`c x 17 Z 3 4 label 2`), which `read-solution`
reads back, and takes the model's own options (--formulation, --card, --strategy).
"""

from __future__ import annotations

import re
from pathlib import Path

import typer

from ilp_pyramid.cli.bel.options import (
    CardOpt,
    FormulationOpt,
    StrategyOpt,
    check_card,
    check_formulation,
    check_model_memory,
    check_n,
    check_strategies,
    chosen_strategies,
)
from ilp_pyramid.cli.bel.pictures import load_solution
from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    Format,
    Json,
    Output,
    console,
    fail,
    like,
    print_json,
    report_written,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import mipfile
from ilp_pyramid.formats.dimacs import SATISFIABLE, UNSATISFIABLE, parse_certificate
from ilp_pyramid.formats.fileio import read_text
from ilp_pyramid.puzzles.bel.geometry import cell_count
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.verify.bel import verify_solution


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
    check_n(n)
    check_strategies(strategy)
    strategies = chosen_strategies(strategy) or []
    fmt = (fmt or mipfile.format_from_name(str(output)) or "").lower()
    if fmt == "cnf":
        export_cnf(n, output, formulation, card, strategies, json_out)
        return
    check_formulation(formulation)
    if fmt not in mipfile.MIP_FORMATS:
        fail(f"unknown export format {fmt!r} (use --format lp, mps or cnf)")
    check_model_memory(n, formulation, "mip")
    from ilp_pyramid.puzzles.bel.model import build_model  # PuLP

    model = build_model(n, formulation, strategies)
    mipfile.write_mip(model.problem, str(output), fmt)
    report_written({"n": n, "path": str(output), "format": fmt, "formulation": formulation,
                    "strategies": strategies, "variables": model.num_variables,
                    "constraints": model.num_constraints}, json_out)


def export_cnf(n: int, output: Path, encoding: str, card: str | None,
               strategies: list[str] | None = None, json_out: bool = False) -> None:
    from ilp_pyramid.puzzles.bel.cnf import DEFAULT_CARD, ENCODINGS, build_cnf  # python-sat

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
    else:
        solution = read_mip_solution(model_file, model_text, solution_file, solution_text)
    show_read_solution(solution, json_out)


def read_mip_solution(model_file: Path, model_text: str, solution_file: Path,
                      solution_text: str) -> BelSolution:
    """Decode a MIP solver's solution file through the exported model's variable names."""
    from ilp_pyramid.puzzles.bel.model import decode_values, model_kind  # PuLP

    kind = model_kind(model_text[:2000])
    if kind is None:
        fail(f"{model_file}: not a Bel model exported by ilp-pyramid (no bel_n<N>_ name)")
    n, _formulation = kind
    check_n(n, f"{model_file}: ")
    values = read_mip_values(solution_text)
    if not values:
        fail(f"{solution_file}: no values for the model's x_ variables found")
    try:
        return decode_values(n, values)
    except InputError as exc:
        fail(f"{solution_file}: {exc}")


def read_cnf_certificate(model_file: Path, model_text: str, solution_file: Path,
                         solution_text: str) -> BelSolution:
    """Decode a SAT solver's certificate through the exported CNF's variable comments."""
    from ilp_pyramid.puzzles.bel.cnf import decode_certificate, read_cnf_info  # python-sat

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
