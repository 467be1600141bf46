"""`ilp-pyramid count N`: how many Bel's Pyramids there are (all logic in puzzles/bel/count.py)."""

from __future__ import annotations

import time
from pathlib import Path

import typer
from rich.table import Table

from ilp_pyramid.backends.process import interruptible
from ilp_pyramid.cli.options import (
    EXIT_TIMEOUT,
    Jobs,
    Json,
    Seed,
    TimeLimit,
    console,
    err_console,
    fail,
    like,
    print_json,
    print_table,
)
from ilp_pyramid.puzzles.bel.count import (
    COVER_MAX_N,
    DEFAULT_METHODS,
    DEFAULT_METHODS_PAST_COVER,
    METHODS,
    CountReport,
    Split,
    check_methods,
    check_n,
    check_split,
)
from ilp_pyramid.puzzles.bel.count import count as count_pyramids

# Seconds between two progress lines of a split count on stderr (no live status line).
SPLIT_REPORT_EVERY = 30.0


def count(
    n: int = typer.Argument(..., help="Number of levels (1-5)."),
    method: str = typer.Option(None, "--method",
                               help=f"Counting methods, comma-separated, run one after the "
                                    f"other; every one that finishes must agree (default: "
                                    f"{','.join(DEFAULT_METHODS)} up to N={COVER_MAX_N}, "
                                    f"{','.join(DEFAULT_METHODS_PAST_COVER)} past it; sat "
                                    f"for a counter that is not installed) "
                                    f"({', '.join(METHODS)}; none: only the --approx "
                                    f"estimate)."),
    approx: bool = typer.Option(False, "--approx",
                                help="Also ApproxMC's estimate with its (epsilon, delta) "
                                     "guarantee (pip install 'ilp-pyramid[count]')."),
    epsilon: float = typer.Option(0.8, "--epsilon", min=0.0, help="ApproxMC's tolerance."),
    delta: float = typer.Option(0.2, "--delta", min=0.0, max=1.0,
                                help="ApproxMC's allowed failure probability."),
    seed: int = like(Seed, help="ApproxMC's random seed (default 1)."),
    time_limit: float = like(TimeLimit, help="Stop after this many seconds in all (exit 3, "
                                             "lower bounds printed as such)."),
    split: int = typer.Option(None, "--split", min=0,
                              help="Count the labelled figure of cover and the exact "
                                   "counters in cubes: the "
                                   "models split on the labels of this many lines (the "
                                   "bottom level's first), each cube counted in its own "
                                   "process, the counts summed."),
    cube_time: float = typer.Option(None, "--cube-time", min=0.0,
                                    help="With --split: CPU seconds one cube gets before it "
                                         "is split again on the next line (default: no "
                                         "limit)."),
    record: Path = typer.Option(None, "--record",
                                help="With --split: directory for the record of counted "
                                     "cubes (count-KEY.jsonl, one per counter), resumed "
                                     "from by a rerun."),
    jobs: int = like(Jobs, help="With --split: cubes counted at a time (default: one per "
                                "core; at most the cores)."),
    json_out: bool = Json,
) -> None:
    """Count Bel's Pyramids of N levels: labelled, and up to symmetry (the pyramid's 4^N incidence
    automorphisms times the (2N-1)! label renamings).

    Methods: sat (SAT enumeration, label renamings broken by first appearance), search (a
    compiled backtracking over line labels), cover (a compiled search over the X and Y lines,
    the Z lines' completions of each leaf counted as exact covers, classes by Burnside's lemma;
    N <= 3), d4 and ganak (the #SAT counters D4 and Ganak, up to symmetry by Burnside's lemma;
    pip install 'ilp-pyramid[count]'), scip (SCIP's counting mode on the CNF as a 0-1 program,
    the same way; pip install 'ilp-pyramid[scip]'). Classes of enumerated solutions come from
    canonical forms, checked by the orbit-stabiliser theorem; class representatives are
    verified. Exit codes: 0 counted (every finished method agrees), 1 the methods disagree (no
    number printed), 2 bad input, 3 time limit before any method finished (lower bounds printed
    as such), 130/143 interrupted. With --method none --approx: 0 once ApproxMC answered, 3 if
    it did not within the time limit.

    With --split K, cover, d4, ganak and scip count the labelled figure in cubes (K lines given
    labels, first appearance along them; for cover at most the X and Y lines), each cube in its
    own process, --jobs at a time; a cube past --cube-time CPU seconds is split again. With
    --record DIR every counted cube is kept in DIR and a rerun goes on from there; at the time
    limit the cubes counted so far give a lower bound. Progress goes to stderr.
    """
    methods = None if method is None else [
        m.strip() for m in method.split(",") if m.strip() and m.strip() != "none"]
    check_n(n)
    if methods is not None:
        check_methods(methods, approx)
    if split is None and (cube_time is not None or record is not None or jobs is not None):
        fail("--cube-time, --record and --jobs go with --split")
    cubes = None if split is None else Split(split, record, cube_time, jobs)
    if cubes is not None:
        check_split(n, cubes)
    live = not json_out and err_console.is_terminal
    status = err_console.status("counting", spinner="dots") if live else None
    start = time.perf_counter()

    said = [start]

    def progress(name: str, figures: dict) -> None:
        if status is None and "pieces_open" in figures and \
                time.perf_counter() - said[0] >= SPLIT_REPORT_EVERY:
            said[0] = time.perf_counter()
            err_console.print(_split_line(name, figures, said[0] - start), markup=False)
        if status is not None:
            shown = ", ".join(f"{k} {v:,}" for k, v in figures.items()
                              if isinstance(v, int) and not isinstance(v, bool))
            status.update(f"{name}: {shown} ({time.perf_counter() - start:.0f} s)")

    with interruptible():
        if status is not None:
            status.start()
        try:
            report = count_pyramids(n, methods, time_limit, progress,
                                    (epsilon, delta, 1 if seed is None else seed)
                                    if approx else None, cubes)
        finally:
            if status is not None:
                status.stop()
    if json_out:
        print_json(report.to_dict())
    else:
        _print(report)
    if report.status == "timeout":
        raise typer.Exit(EXIT_TIMEOUT)


def _split_line(name: str, figures: dict, elapsed: float) -> str:
    return (f"{name}: {figures['pieces_counted']:,} cube(s) counted, "
            f"{figures['pieces_open']:,} open, {figures['pieces_split']:,} split again; "
            f"{figures['models']:,} models so far; {figures['piece_cpu_seconds']:,.0f} CPU s "
            f"in cubes ({elapsed:.0f} s)")


def _print(report: CountReport) -> None:
    data = report.to_dict()
    order = data["group"]["order"]
    if report.complete:
        classes = (f"{report.classes:,} up to symmetry" if report.classes is not None else
                   f"up to symmetry not counted (at least {data['up_to_symmetry_at_least']:,})")
        console.print(f"N={report.n}: {report.labelled:,} labelled pyramids, {classes} "
                      f"(group of order {order:,} = "
                      f"{report.geometric_symmetries} x {report.label_permutations}); "
                      + (f"agreed by {', '.join(report.agreeing)}" if len(report.agreeing) > 1
                         else f"by {report.agreeing[0]} alone, unchecked by a second method"),
                      markup=False)
    elif report.status == "estimate":
        console.print(f"N={report.n}: ApproxMC's estimate only (no exact method was run)",
                      markup=False)
    else:
        console.print(f"N={report.n}: time limit reached, no method finished: NOT the count. "
                      f"Lower bounds: at least {data['labelled_at_least']:,} labelled, at "
                      f"least {data['up_to_symmetry_at_least']:,} up to symmetry",
                      markup=False)
    table = Table(title="methods")
    for column in ("method", "status", "labelled", "up to symmetry", "seconds", "CPU s"):
        table.add_column(column, justify="left" if column in ("method", "status") else "right")
    for m in report.methods:
        if m.status == "estimate":
            labelled = (f"~{m.detail['estimate']:,} ({m.detail['low']:,}-{m.detail['high']:,}"
                        f" w.p. >= {1 - m.detail['delta']:.2f})")
        else:
            labelled = "-" if m.labelled is None else (
                f"{m.labelled:,}" if m.status == "counted" else f">= {m.labelled:,}")
        classes = "-" if m.classes is None else (
            f"{m.classes:,}" if m.status == "counted" else f">= {m.classes:,}")
        table.add_row(m.method, m.status, labelled, classes, f"{m.seconds:.2f}",
                      f"{m.cpu_seconds:.2f}")
    print_table(table)
