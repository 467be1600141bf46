"""`ilp-pyramid solve-cnf`: any DIMACS file through the package's SAT door.

For comparing encodings on the same solver: our exported CNF against another tool's (the
reference's `--cnf` export), each with its clauses shuffled by `--seed`, timed the same way.
Knows no puzzle: the model is checked against every clause of the file (`verify/cnf.py`).
"""

from __future__ import annotations

import time
from pathlib import Path

import typer

from ilp_pyramid import backends
from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.backends.sat import shuffled
from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    EXIT_TIMEOUT,
    Json,
    Output,
    Seed,
    Solver,
    TimeLimit,
    console,
    fail,
    like,
    load_input,
    print_json,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.dimacs import SATISFIABLE, read_dimacs
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.verify.cnf import unsatisfied


def _cnf_solvers() -> str:
    """'kissat | cadical | ...': the solver table's lines that read CNF as it is."""
    return " | ".join(name for name in solvers.names() if solvers.solver(name).reads("cnf"))


def solve_cnf(
    cnf_file: Path = typer.Argument(..., help="DIMACS CNF file (.cnf, or .cnf.gz)."),
    solver: str = like(Solver, default="kissat",
                       help=f"A solver that reads CNF: {_cnf_solvers()}."),
    seed: int = like(Seed, default=0,
                     help="Shuffle the clauses and their literals with this seed (0: as in "
                          "the file). CDCL solvers are deterministic: the order is what makes "
                          "a repeat a new sample."),
    time_limit: float = TimeLimit,
    output: Path = like(Output, help="Write the model as 's'/'v' lines (the SAT competition "
                                     "format)."),
    json_out: bool = Json,
) -> None:
    """Solve a DIMACS CNF file with one SAT solver: exit 0 SATISFIABLE (the model checked
    against every clause), 1 UNSATISFIABLE, 3 time limit.

    `solve_seconds` is the solver's time from handing it the (shuffled) clauses to its answer;
    reading and shuffling the file are `read_seconds`, outside it.
    """

    try:
        entry = solvers.solver(solver).require()
    except InputError as exc:
        fail(str(exc))
    if not entry.reads("cnf"):
        fail(f"solve-cnf takes a solver that reads CNF ({_cnf_solvers()}), not {entry.name}")
    real = entry.name
    start = time.perf_counter()
    cnf = load_input(cnf_file, read_dimacs)
    clauses = shuffled(cnf.clauses, seed)
    read_seconds = time.perf_counter() - start
    result = backends.solve(clauses, entry, SolveOptions(time_limit=time_limit))
    report = {"file": str(cnf_file), "solver": real, "seed": seed,
              "variables": cnf.num_variables, "clauses": len(cnf.clauses),
              "status": result.status.value, "read_seconds": round(read_seconds, 3),
              "solve_seconds": round(result.seconds, 3)}
    if result.status == Status.SOLVED:
        _check(clauses, result.model, cnf_file)
        if output is not None:
            _write_certificate(output, result.model)
    elif result.message:
        report["message"] = result.message
    if json_out:
        print_json(report)
    else:
        word = {Status.SOLVED: "SATISFIABLE", Status.INFEASIBLE: "UNSATISFIABLE",
                Status.TIMEOUT: "UNKNOWN (time limit)"}.get(result.status, "ERROR")
        console.print(f"s {word}", markup=False)
        console.print(f"c {real}, seed {seed}: {cnf.num_variables:,} variables, "
                      f"{len(cnf.clauses):,} clauses; solve {result.seconds:.2f} s, read "
                      f"{read_seconds:.2f} s" + ("; model satisfies every clause"
                                                if result.status == Status.SOLVED else ""),
                      markup=False)
    if result.status == Status.INFEASIBLE:
        raise typer.Exit(EXIT_NO_SOLUTION)
    if result.status == Status.TIMEOUT:
        raise typer.Exit(EXIT_TIMEOUT)
    if result.status != Status.SOLVED:
        fail(f"{real}: {result.message or result.status.value}", EXIT_NO_SOLUTION)


def _check(clauses, model, cnf_file: Path) -> None:

    bad = unsatisfied(clauses, model)
    if bad:
        fail(f"{cnf_file}: the solver's model leaves clause(s) {bad} unsatisfied; not printed",
             EXIT_NO_SOLUTION)


def _write_certificate(path: Path, model) -> None:

    values = " ".join(map(str, model))
    write_atomic(path, f"s {SATISFIABLE}\nv {values} 0\n")
