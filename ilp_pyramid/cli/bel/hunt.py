"""`ilp-pyramid hunt N --state-dir DIR`: the long search for sizes nobody has solved.

One hybrid search per core on a Dask cluster (puzzles/bel/hunt/), a local one by default,
`--scheduler ADDRESS` for a real one; the best state is kept in DIR/best.json and a restarted
hunt resumes from it. This module is the command: its options, its checks, the lines it
prints while the hunt runs, its report, `--plot`, and `--near` / `--learn` (the kept
near-solutions, DIR/near.jsonl.gz).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from statistics import median

import typer

from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
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
)
from ilp_pyramid.puzzles.bel.geometry import MAX_N
from ilp_pyramid.puzzles.bel.hunt.conquer import lines_text
from ilp_pyramid.puzzles.bel.hunt.conquer_run import ConquerResult, run_conquer
from ilp_pyramid.puzzles.bel.hunt.coordinator import HuntResult, Listener, run_hunt
from ilp_pyramid.puzzles.bel.hunt.near import NEAR_FILE, NearStore, load_near
from ilp_pyramid.puzzles.bel.hunt.plot import plot_progress
from ilp_pyramid.puzzles.bel.hunt.state import (
    BEST_FILE,
    DESCENTS_FILE,
    PROGRESS_FILE,
    SOLUTION_FILE,
    BestState,
    descent_tally,
    reach_times,
    read_descents,
    read_progress,
)
from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution
from ilp_pyramid.puzzles.bel.lns.repair import REPAIRS


def hunt(
    n: int = typer.Argument(..., help="Number of levels (6 is the open case)."),
    state_dir: Path = typer.Option(..., "--state-dir",
                                   help="Directory for best.json (resumed from) and "
                                        "solution.txt."),
    time_limit: float = like(TimeLimit, help="Stop after this many seconds (default: run "
                                             "until solved or interrupted)."),
    jobs: int = like(Jobs, help="Searches to run (default: one per core, or every worker "
                                "thread of --scheduler; at most the cores)."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Address of a Dask scheduler (tcp://host:8786); "
                                       "default: a local cluster."),
    repair: str = typer.Option("sat", "--repair",
                               help="sat | mip | dlx | scip (see solve --help)."),
    neighbourhood: str = typer.Option(
        "family", "--neighbourhood",
        help="Exact repairs besides the search: family (whole X/Y/Z families) | region (also "
             "SAT re-labels the lines through the repeated cubes plus crossing lines) | "
             "region2 (the same, one family kept fixed) (docs/hybrid.md)."),
    schedule: str = typer.Option(
        "fixed", "--schedule",
        help="How each search walks: fixed (one walk at one temperature, restarts near the "
             "best) | tempering (replicas on a temperature ladder exchanging states) "
             "(docs/frontier.md)."),
    descent: float = typer.Option(
        None, "--descent", min=1.0,
        help="CPU seconds of one fresh descent: each search starts from random labels and "
             "begins anew every this many CPU seconds, instead of walking on near the saved "
             "best (docs/frontier.md)."),
    plot: Path = typer.Option(None, "--plot",
                              help="Do not hunt: draw STATE_DIR/progress.jsonl (best count "
                                   "against CPU hours) into this PNG file."),
    near: bool = typer.Option(False, "--near",
                              help="Do not hunt: list the near-solutions kept in "
                                   "STATE_DIR/near.jsonl.gz (count, repeated cubes; with "
                                   "--json every state's labels, to export)."),
    learn_: bool = typer.Option(False, "--learn",
                                help="Do not hunt: what the kept near-solutions share, line "
                                     "by line (each moved by symmetry and label renaming "
                                     "onto the first kept state), beside what shuffled "
                                     "states agree on by chance; and how many lines each "
                                     "state is off the hypothesis strategies (YStep, ZRing, "
                                     "the constructive ones, ...)."),
    conquer: int = typer.Option(
        None, "--conquer", min=1,
        help="Do not walk: cube-and-conquer the LINES-line neighbourhood of the saved best "
             "state (every other line kept at its label, a named hypothesis): split into "
             "cubes, each settled by CaDiCaL; STATE_DIR/conquer-KEY.jsonl records them and a "
             "rerun goes on from it (docs/frontier.md). Exit 1: every cube UNSAT."),
    cube_time: float = typer.Option(
        30.0, "--cube-time", min=0.1,
        help="With --conquer: CPU seconds one cube gets before it is split."),
    whole_family: str = typer.Option(
        None, "--whole-family",
        help="With --conquer: X | Y | Z, the neighbourhood holds every line of this family "
             "(lines of one family never cross) besides the lines through the repeated "
             "cubes, and grows from there to LINES (docs/frontier.md)."),
    seed: int = Seed,
    json_out: bool = Json,
) -> None:
    """Hunt for a Bel's Pyramid solution: one hybrid search per core, as long as it takes.

    The best state is kept in STATE_DIR/best.json; a restarted hunt resumes from it, and
    STATE_DIR/progress.jsonl logs the best count against CPU time (see --plot). The searches
    share their best state: a stalled one restarts near the hunt's best (with --descent they
    run fresh descents instead, and only a lower count replaces the saved state). A verified
    solution is written to STATE_DIR/solution.txt (docs/hybrid.md). Every state at the two
    lowest counts seen is kept in STATE_DIR/near.jsonl.gz, once per symmetry class (see
    --near, --learn; docs/frontier.md); every fresh descent is logged to
    STATE_DIR/descents.jsonl as it ends, the rate of reaching each count across hunts.
    --conquer settles a neighbourhood of the saved state instead of walking.
    Exit codes: 0 solved (or plotted, listed), 1 (--conquer) no solution in the neighbourhood,
    2 bad input, 3 stopped by --time-limit without a solution, 130 interrupted (the best state
    and every settled cube are kept).
    """
    check_options(n, state_dir, repair, neighbourhood, schedule)
    if sum((plot is not None, near, learn_, conquer is not None)) > 1:
        fail("--plot, --near, --learn and --conquer are separate: give one")
    if whole_family is not None and conquer is None:
        fail("--whole-family goes with --conquer")
    if plot is not None:
        draw_plot(n, state_dir, plot, json_out)
        return
    if near or learn_:
        store = kept_states(n, state_dir)
        if near:
            list_near(store, state_dir, json_out)
        else:
            # Here: learn's assignment is numba-compiled, which `hunt --help` need not load.
            from ilp_pyramid.puzzles.bel.hunt.learn import learn, learn_text

            report = learn(store)
            if json_out:
                print_json(report)
            else:
                console.print(learn_text(report), end="", markup=False)
        return
    if conquer is not None:
        conquer_command(n, state_dir, conquer, cube_time, time_limit, jobs, scheduler,
                        json_out, whole_family)
        return
    result = run_hunt(n, state_dir, time_limit, jobs, scheduler, repair, seed,
                      listener=Lines(json_out, descent), neighbourhood=neighbourhood,
                      schedule=schedule, descent=descent)
    if json_out:
        print_json(result_json(result, state_dir))
    else:
        print_report(result, state_dir)
    if result.status != "solved":
        raise typer.Exit(EXIT_TIMEOUT)


def check_options(n: int, state_dir: Path, repair: str, neighbourhood: str,
                  schedule: str) -> None:
    """One line and exit 2 for an option the hunt cannot take."""
    # Here, not at the top: the driver loads the numba-compiled search (`hunt --help` need not).
    from ilp_pyramid.puzzles.bel.lns.driver import NEIGHBOURHOODS, SCHEDULES

    if not 2 <= n <= MAX_N:
        fail(f"N must be between 2 and {MAX_N} (got {n})")
    if repair not in REPAIRS:
        fail(f"unknown repair {repair!r} (choose from {', '.join(REPAIRS)})")
    if neighbourhood not in NEIGHBOURHOODS:
        fail(f"unknown neighbourhood {neighbourhood!r} (choose from {', '.join(NEIGHBOURHOODS)})")
    if schedule not in SCHEDULES:
        fail(f"unknown schedule {schedule!r} (choose from {', '.join(SCHEDULES)})")
    if state_dir.exists() and not state_dir.is_dir():
        fail(f"--state-dir {state_dir} is a file, not a directory")


class Lines(Listener):
    """What the hunt tells as it runs, one line each on stderr (nothing with --json)."""

    def __init__(self, json_out: bool, descent: float | None) -> None:
        self.quiet = json_out
        self.descent = descent

    def say(self, text: str) -> None:
        if not self.quiet:
            err_console.print(text, markup=False)

    def lock_taken_over(self, lock: Path, holder: str) -> None:
        self.say(f"note: {lock} was left by {holder}, which is gone; taken over")

    def resuming(self, best_file: Path, best: BestState) -> None:
        self.say(f"resuming from {best_file}: {best.conflicts} repeated cubes, "
                 f"{best.hunted_seconds / 60:.1f} min hunted so far")

    def keeping(self, best_file: Path, best: BestState) -> None:
        self.say(f"{best_file} holds {best.conflicts} repeated "
                 f"cube{'' if best.conflicts == 1 else 's'}; fresh descents of "
                 f"{self.descent:g} CPU s each replace it only with a lower count")

    def starting_afresh(self, best_file: Path) -> None:
        self.say(f"{best_file} breaks the counting condition; starting afresh")

    def started(self, n: int, jobs: int, where: str) -> None:
        self.say(f"hunting N={n} with {jobs} searches on {where}")

    def new_best(self, seconds: float, conflicts: int, seed: int | None) -> None:
        self.say(f"{seconds:8.1f} s  new best: {conflicts} repeated cubes (seed {seed})")

    def overrun(self, seconds: float) -> None:
        self.say(f"the cluster did not finish within {seconds:g} s of the time limit; "
                 f"stopped")

    def cluster_wrote(self, lines: int, tracebacks: int, log: Path) -> None:
        errors = f", {tracebacks} traceback(s)" if tracebacks else ""
        self.say(f"note: the Dask cluster wrote {lines} line(s){errors}: see {log}")


def result_json(result: HuntResult, state_dir: Path) -> dict:
    """`hunt --json`: the hunt's outcome, its totals and where its files are."""
    best = result.best
    on_file, reach = _on_file(result, state_dir)
    return {
        "n": result.n,
        "status": result.status,
        "conflicts": best.conflicts if best else None,
        "resumed_from": result.resumed_from,
        "seconds": round(result.seconds, 2),
        "hunted_seconds": round(best.hunted_seconds, 1) if best else None,
        "cpu_seconds": round(best.cpu_seconds, 1) if best else None,
        "jobs": result.jobs,
        "scheduler": result.scheduler,
        "moves": result.moves,
        "descents": len(result.descents),
        "descents_cut": sum(not record["full"] for record in result.descents),
        # best count -> how many of this hunt's full descents ended there
        "descent_bests": _counts(record["best"] for record in result.descents
                                 if record["full"]),
        # the same for every full descent of this budget in DIR/descents.jsonl
        "descents_on_file": on_file,
        # low count -> how many full descents on file logged reaching it, and their median
        # CPU s to get there: the data for choosing --descent
        "descent_reach_on_file": {str(count): {"descents": len(cpu),
                                               "median_cpu": round(median(cpu), 1)}
                                  for count, cpu in reach.items()},
        "state_dir": str(state_dir),
        "best_file": str(state_dir / BEST_FILE),
        "solution_file": str(state_dir / SOLUTION_FILE) if result.solution_text else None,
        "solution": best.to_json()["solution"] if result.solution_text else None,
    }


def print_report(result: HuntResult, state_dir: Path) -> None:
    best = result.best
    console.print(f"hunt N={result.n}: {result.seconds / 60:.1f} min with {result.jobs} "
                  f"searches ({result.moves / 1e6:.0f} M moves); best state "
                  f"{best.conflicts if best else '-'} repeated cubes, "
                  f"{(best.hunted_seconds if best else 0) / 60:.1f} min hunted in total "
                  f"({(best.cpu_seconds if best else 0) / 3600:.2f} CPU hours); "
                  f"saved in {state_dir / BEST_FILE}")
    if result.descents:
        full = [record["best"] for record in result.descents if record["full"]]
        cut = len(result.descents) - len(full)
        console.print(f"{len(result.descents)} fresh descents ({cut} cut short by the hunt's "
                      f"end); the full ones' best counts: {_counts_text(_counts(full))}")
        on_file, reach = _on_file(result, state_dir)
        console.print(f"{state_dir / DESCENTS_FILE}: {sum(on_file.values())} full descents of "
                      f"{result.descents[0]['budget']:g} CPU s; their best counts: "
                      f"{_counts_text(on_file)}")
        if reach:
            console.print("median CPU s to first reach " + ", ".join(
                f"{count}: {median(cpu):.0f} (of {len(cpu)})" for count, cpu in reach.items()))
    if result.solution_text:
        console.print(f"solved and verified: {state_dir / SOLUTION_FILE}")
        console.print(result.solution_text, end="", markup=False)


def _counts(bests) -> dict[str, int]:
    """Best count -> how many descents ended there (JSON keys are strings)."""
    return {str(k): v for k, v in sorted(Counter(bests).items())}


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} x{v}" for k, v in counts.items()) or "-"


def _on_file(result: HuntResult, state_dir: Path) -> tuple[dict[str, int],
                                                           dict[int, list[float]]]:
    """Every full descent in DIR/descents.jsonl of this hunt's budget (one read of the file):
    best count -> how many ended there, and low count -> the CPU s at which each reached it."""
    if not result.descents:
        return {}, {}
    budget = float(result.descents[0]["budget"])
    records = read_descents(state_dir)
    tally = descent_tally(records)
    return ({str(k): v for k, v in tally.get(budget, {}).items()},
            reach_times(records, budget))


def conquer_command(n: int, state_dir: Path, size: int, cube_time: float,
                    time_limit: float | None, jobs: int | None, scheduler: str | None,
                    json_out: bool, family: str | None = None) -> None:
    """`hunt --conquer LINES`: settle the neighbourhood's cubes; exit 0 solved, 1 every cube
    UNSAT, 3 cubes left open at --time-limit."""
    say = Lines(json_out, None).say
    result = run_conquer(n, state_dir, size, cube_time, time_limit, jobs, scheduler, say,
                         family)
    if json_out:
        print_json(conquer_json(result))
    else:
        print_conquest(result)
    if result.status == "unsat":
        raise typer.Exit(EXIT_NO_SOLUTION)
    if result.status != "solved":
        raise typer.Exit(EXIT_TIMEOUT)


def conquer_json(result: ConquerResult) -> dict:
    return {"n": result.n, "status": result.status, "neighbourhood": result.key,
            "lines": result.lines, "whole_family": result.family,
            "start_conflicts": result.start_conflicts,
            "unsat_cubes": result.unsat, "split_cubes": result.split,
            "open_cubes": result.open, "cubes_this_run": result.cubes_this_run,
            "cpu_seconds": round(result.cpu_seconds, 1), "seconds": round(result.seconds, 2),
            "jobs": result.jobs, "record": str(result.record),
            "hypothesis": "every line outside the neighbourhood keeps its label",
            "solution": result.solution_text}


def print_conquest(result: ConquerResult) -> None:
    verdict = {"solved": "SAT: solved and verified",
               "unsat": "every cube UNSAT: no solution with the lines outside kept",
               "timeout": f"{result.open} cube(s) still open"}[result.status]
    console.print(f"conquer N={result.n}, {lines_text(result.lines, result.family)} around "
                  f"a state with "
                  f"{result.start_conflicts} repeated cube(s): {verdict}; {result.unsat} "
                  f"cube(s) UNSAT, {result.split} split, {result.cubes_this_run} settled in "
                  f"this run ({result.seconds / 60:.1f} min, {result.jobs} job(s)); "
                  f"{result.cpu_seconds / 3600:.2f} CPU hours on {result.record}")
    if result.solution_text:
        console.print(result.solution_text, end="", markup=False)


def draw_plot(n: int, state_dir: Path, image: Path, json_out: bool) -> None:
    """`hunt --plot`: the state directory's progress lines as a PNG."""
    path = state_dir / PROGRESS_FILE
    if not path.is_file():
        fail(f"{path}: no progress file (run a hunt on {state_dir} first)")
    rows = read_progress(path)
    if not rows:
        fail(f"{path}: no progress lines in it")
    plot_progress(rows, n, image)
    last = rows[-1]
    if json_out:
        print_json({"n": n, "plot": str(image), "points": len(rows), "best": last["best"],
                    "cpu_seconds": last["cpu"], "wall_seconds": last.get("wall")})
    else:
        console.print(f"{image}: {len(rows)} points; best {last['best']} repeated cubes after "
                      f"{last['cpu'] / 3600:.2f} CPU hours")


def kept_states(n: int, state_dir: Path) -> NearStore:
    """The kept near-solutions of `state_dir` (exit 2 when there are none)."""
    path = state_dir / NEAR_FILE
    if not path.is_file():
        fail(f"{path}: no near-solutions kept (run a hunt on {state_dir} first)")
    store = load_near(state_dir, n)
    if not len(store):
        fail(f"{path}: no near-solutions in it")
    return store


def list_near(store: NearStore, state_dir: Path, json_out: bool) -> None:
    """`hunt --near`: one line per kept state, or (--json) all of them with their labels."""
    if json_out:
        states = []
        for state in store:
            data = state.to_json()
            data["solution"] = labels_to_solution(store.n, state.labels).to_dict()
            states.append(data)
        print_json({"n": store.n, "near_file": str(state_dir / NEAR_FILE),
                    "counts": {str(k): sum(s.count == k for s in store)
                               for k in store.counts()},
                    "states": states})
        return
    console.print(f"{state_dir / NEAR_FILE}: {len(store)} kept states", markup=False)
    for index, state in enumerate(store, 1):
        repeated, _ = state.cubes()
        cubes = " ".join(f"{{{','.join(map(str, cube))}}}x{times}" for cube, times in repeated)
        source = state.source
        by = source.get("by", "?") + (f" seed {source['run_seed']}"
                                      if source.get("run_seed") is not None else "")
        console.print(f"{index:4d}  {state.count} repeated: {cubes}  ({by}, {state.found})",
                      markup=False)
