"""`ilp-pyramid conquer N --strategy A+B --record DIR`: cube-and-conquer the whole puzzle
under a named hypothesis set, on this machine or a Dask `--scheduler`, resumable from DIR.

The cubes (puzzles/bel/hunt/conquer.py, `Hypotheses`) are split by a lookahead and settled
by CaDiCaL; every settled cube is appended to DIR/conquer-KEY.jsonl at once, and a rerun with
the same N and strategies goes on from it. A sample of refuted cubes (--check-proofs) is
refuted again with a DRAT proof that drat-trim, or without it the package's own DRUP checker,
checks; the record says which cubes, and which checker.
"""

from __future__ import annotations

from pathlib import Path

import typer

from ilp_pyramid.cli.bel.options import StrategyOpt, check_n, check_strategies, split_strategies
from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    EXIT_TIMEOUT,
    Jobs,
    Json,
    Output,
    TimeLimit,
    console,
    err_console,
    fail,
    like,
    print_json,
    write_output,
)
from ilp_pyramid.puzzles.bel.hunt.conquer_run import ConquestResult, run_conquest
from ilp_pyramid.puzzles.bel.hunt.state import save_solution
from ilp_pyramid.puzzles.bel.strategies import hypotheses


def conquer(
    n: int = typer.Argument(..., help="Number of levels."),
    strategy: list[str] = like(StrategyOpt, help="The hypothesis set (repeatable, or A+B; "
                                                 "see `ilp-pyramid strategies`); `none` for "
                                                 "the bare puzzle."),
    record: Path = typer.Option(..., "--record",
                                help="Directory for the record (conquer-KEY.jsonl, resumed "
                                     "from) and solution.txt."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Address of a Dask scheduler (tcp://host:8786); "
                                       "default: a local cluster."),
    jobs: int = like(Jobs, help="Workers of the local cluster (default: one per core; at "
                                "most the cores)."),
    time_limit: float = like(TimeLimit, help="Stop after this many seconds, the cubes "
                                             "settled kept (default: until settled or "
                                             "interrupted)."),
    cube_time: float = typer.Option(30.0, "--cube-time", min=0.0,
                                    help="CPU seconds one cube gets before it is split."),
    check_proofs: float = typer.Option(
        0.0, "--check-proofs", min=0.0, max=1.0,
        help="Fraction of the cubes whose refutation is written again as a DRAT proof and "
             "checked by drat-trim (on the PATH, or $ILP_PYRAMID_DRAT_TRIM), else by the "
             "package's own DRUP checker; 1: every one."),
    output: Path = like(Output, help="Also write the drawing of a solution here."),
    json_out: bool = Json,
) -> None:
    """Cube-and-conquer Bel's Pyramid under a named hypothesis set, resumable, on a cluster.

    The whole puzzle's CNF with the strategies compiled in is split into cubes (a few lines
    given labels, chosen by a unit-propagation lookahead); each cube is solved by CaDiCaL
    and split again past --cube-time CPU seconds. Every settled cube is recorded in
    RECORD/conquer-KEY.jsonl; a rerun with the same N and strategies goes on from it.
    Progress (cubes settled and open, CPU spent, an estimate of the rest) goes to stderr.
    Exit codes: 0 solved (verified, saved to RECORD/solution.txt and drawn), 1 every cube
    refuted: no solution under the strategies named, 2 bad input, 3 --time-limit with cubes
    open, 130/143 interrupted (the record kept).
    """
    check_n(n)
    names = split_strategies(strategy)
    check_strategies(names)
    names = [] if names == ["none"] else names
    if record.exists() and not record.is_dir():
        fail(f"--record {record}: not a directory")
    result = run_conquest(n, names, record, cube_time, time_limit, jobs, scheduler,
                          lambda text: err_console.print(text, markup=False), check_proofs)
    drawing = None
    if result.labels is not None:
        drawing = save_solution(record, n, result.labels)  # verified, or RuntimeError
    if json_out:
        print_json(conquest_json(result, drawing))
    else:
        print_conquest(result, drawing)
    write_output(output, drawing)
    if result.status == "unsat":
        raise typer.Exit(EXIT_NO_SOLUTION)
    if result.status != "solved":
        raise typer.Exit(EXIT_TIMEOUT)


def verdict(result: ConquestResult) -> str:
    name = result.hypotheses.name
    if result.status == "solved":
        return f"solved under {name}: verified, saved to {result.record.parent / 'solution.txt'}"
    if result.status == "unsat":
        if not hypotheses(result.hypotheses.strategies):  # symmetry or valid strategies only
            return (f"no solution: every cube refuted under {name}, which loses no solution "
                    f"(a proof about the puzzle)")
        return f"no solution under {name}: every cube refuted"
    return f"{result.open} cube(s) still open under {name}"


def conquest_json(result: ConquestResult, drawing: str | None) -> dict:
    return {"n": result.n, "status": result.status,
            "strategies": list(result.hypotheses.strategies),
            "hypotheses": result.hypotheses.name, "verdict": verdict(result),
            "unsat_cubes": result.unsat, "split_cubes": result.split,
            "open_cubes": result.open, "cubes_this_run": result.cubes_this_run,
            "cpu_seconds": round(result.cpu_seconds, 2), "seconds": round(result.seconds, 2),
            "refuted_share": round(result.refuted_share, 6), "jobs": result.jobs,
            "proofs_checked": result.proofs_checked,
            "proofs_verified": result.proofs_verified,
            "record": str(result.record), "solution": drawing}


def print_conquest(result: ConquestResult, drawing: str | None) -> None:
    proofs = (f"; {result.proofs_verified} of {result.proofs_checked} checked proof(s) "
              f"verified (the record names each one's checker)" if result.proofs_checked else "")
    console.print(f"conquer N={result.n}: {verdict(result)}; {result.unsat} cube(s) UNSAT, "
                  f"{result.split} split, {result.cubes_this_run} settled in this run "
                  f"({result.seconds:.1f} s, {result.jobs} job(s)); "
                  f"{result.cpu_seconds:.1f} CPU s on {result.record}{proofs}", markup=False)
    if drawing:
        console.print(drawing, end="", markup=False)
