"""The cubes of one neighbourhood, or of the whole puzzle under hypotheses (conquer.py),
settled on a Dask cluster, as the hunt's searches are: a local cluster of one worker per core
by default, `scheduler` for a real one.

Each finished cube is appended to the record at once, so an interrupted or timed-out run
keeps every cube it settled and a rerun on the same state and size goes on from there. A
SAT cube's labels are verified before they are written to STATE_DIR/solution.txt.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ilp_pyramid.errors import InputError, SolverError, one_line
from ilp_pyramid.extras import need
from ilp_pyramid.formats.lock import hold
from ilp_pyramid.puzzles.bel.hunt.cluster import (
    LOG_FILE,
    ClusterOutput,
    close_client,
    local_jobs,
    start_client,
    until_one_ends,
)
from ilp_pyramid.puzzles.bel.hunt.conquer import (
    SAT,
    SPLIT,
    Hypotheses,
    Problem,
    Record,
    chosen_for_proof,
    family_name,
    lines_text,
    neighbourhood,
    settle_cube,
)
from ilp_pyramid.puzzles.bel.hunt.deadline import Overrun, hard_deadline
from ilp_pyramid.puzzles.bel.hunt.state import BEST_FILE, load_best, save_solution


@dataclass
class Tally:
    """A run over a record: how it ended and the record's cubes as it left them."""

    n: int
    status: str  # solved | unsat (every cube UNSAT) | timeout (cubes left open)
    record: Path
    unsat: int  # cubes settled UNSAT so far (refuted labels count as cubes)
    split: int
    open: int
    cubes_this_run: int
    cpu_seconds: float  # the solver's CPU time over every run on this record
    seconds: float  # this run's wall time
    jobs: int


@dataclass
class ConquerResult(Tally):
    """`hunt --conquer`: the cubes of a neighbourhood of the saved state."""

    key: str
    lines: int  # free lines of the neighbourhood
    family: str | None  # the whole family it starts from, if any
    start_conflicts: int  # repeated cubes of the state the neighbourhood is taken around
    solution_text: str | None = None


def run_conquer(n: int, state_dir: Path, size: int, cube_time: float,
                time_limit: float | None, jobs: int | None, scheduler: str | None,
                say=lambda text: None, family: str | None = None) -> ConquerResult:
    """Settle the cubes of the `size`-line neighbourhood of STATE_DIR/best.json (every other
    line held at its label; starting from every line of `family` when one is named) until
    all are settled, one is SAT, or `time_limit` passes."""
    family = family_name(family)
    best = load_best(state_dir, n)
    if best is None:
        raise InputError(f"{state_dir / BEST_FILE}: no saved state to conquer around "
                         f"(run a hunt on {state_dir} first)")
    if best.conflicts == 0:
        raise InputError(f"{state_dir / BEST_FILE} is already a solution")
    need("distributed")
    hood = neighbourhood(n, best.labels, size, family)
    opening = (f"conquering {lines_text(len(hood.lines), family)} around "
               f"{state_dir / BEST_FILE} ({best.conflicts} repeated "
               f"cube{'' if best.conflicts == 1 else 's'}), every other line kept")
    tally, _, solved = _conquer(hood, state_dir, f"--state-dir {state_dir} --conquer", opening,
                                cube_time, time_limit, jobs, scheduler, say)
    result = ConquerResult(**vars(tally), key=hood.key, lines=len(hood.lines), family=family,
                           start_conflicts=best.conflicts)
    if solved is not None:
        result.solution_text = save_solution(state_dir, n, solved)
    return result


def _conquer(problem: Problem, record_dir: Path, holder: str, opening: str,
             cube_time: float, time_limit: float | None, jobs: int | None,
             scheduler: str | None, say, proofs: float = 0.0, report_every: float = 60.0,
             progress: bool = False) -> tuple[Tally, Record, np.ndarray | None]:
    """RECORD_DIR/conquer-KEY.jsonl of `problem` opened under its lock (held in the name of
    `holder`, the command), its open cubes settled until all are, one is SAT, or
    `time_limit` passes; the tally, the record, a SAT cube's labels. `opening` is said first;
    `progress`: the record's state said before and after the work too."""
    with hold(record_dir / f"conquer-{problem.key}.lock", holder):
        record = Record.open(record_dir, problem)
        began = time.monotonic()
        deadline = None if time_limit is None else began + time_limit
        if scheduler is None:
            jobs = local_jobs(jobs)
        say(f"{opening}; record {record.path}")
        solved = record.solution()
        done = 0
        if solved is None:
            if progress and record.settled:
                say(progress_line(record))
            done, solved = _settle(record, cube_time, deadline, jobs, scheduler, record_dir,
                                   say, proofs, report_every)
        if progress:
            say(progress_line(record))
        counts = record.counts()
        status = "solved" if solved is not None else (
            "unsat" if counts["open"] == 0 else "timeout")
        tally = Tally(problem.n, status, record.path, counts["unsat"], counts["split"],
                      counts["open"], done, record.cpu_seconds(), time.monotonic() - began,
                      jobs or 0)
    return tally, record, solved


def progress_line(record: Record) -> str:
    """Cubes settled and open, CPU spent, and the rest estimated from the share of the cube
    tree refuted so far (a guess that assumes the rest is as hard as what is done)."""
    counts = record.counts()
    cpu = record.cpu_seconds()
    share = record.refuted_measure()
    rest = (f"about {cpu * (1 - share) / share / 3600:.2f} CPU hours left "
            f"({100 * share:.1f}% of the cube tree refuted)" if share > 0 else
            "no estimate of the rest yet")
    return (f"{len(record.settled)} cube(s) settled ({counts['unsat']} UNSAT, "
            f"{counts['split']} split), {counts['open']} open, {cpu / 3600:.3f} CPU hours; "
            f"{rest}")


def _settle(record: Record, cube_time: float, deadline: float | None, jobs: int | None,
            scheduler: str | None, state_dir: Path, say, proofs: float = 0.0,
            report_every: float = 60.0) -> tuple[int, np.ndarray | None]:
    """Cubes handed to the workers, one per worker in flight, their answers
    recorded and their children queued; (cubes settled this run, a solution's labels).
    `proofs`: the fraction of cubes whose refutation is proof-checked (chosen_for_proof)."""
    import dask

    queue = record.open_cubes()
    if not queue:
        return 0, None
    output = ClusterOutput(state_dir / LOG_FILE)
    client = cluster = None
    done, solved = 0, None
    time_limit = None if deadline is None else deadline - time.monotonic()
    with dask.config.set({"distributed.worker.daemon": False}), output, \
            hard_deadline(time_limit) as overrun:
        try:
            client, cluster, where = start_client(scheduler, jobs)
            workers = max(1, sum(client.nthreads().values()))
            say(f"{len(queue)} open cube(s); {workers} worker(s) on {where}")
            running: list = []
            reported = time.monotonic()
            while queue or running:
                # at the limit the cubes in work are given up: they stay open in the record
                if deadline is not None and time.monotonic() > deadline:
                    break
                # one cube queued behind each worker's: it starts the moment one ends
                while queue and len(running) < 2 * workers:
                    cube = queue.pop()
                    running.append(client.submit(settle_cube, record.hood, cube, cube_time,
                                                 chosen_for_proof(cube, proofs), pure=False))
                for future in [f for f in running if f.done()]:
                    running.remove(future)
                    if future.status == "error":
                        raise RuntimeError(f"a worker failed: {future.exception()}")
                    row = future.result()
                    record.add(row)
                    done += 1
                    if row["status"] == SAT:
                        solved = np.asarray(row["labels"], dtype=np.int32)
                    elif row["status"] == SPLIT:
                        cube = tuple(tuple(pair) for pair in row["cube"])
                        queue.extend((*cube, (row["line"], label))
                                     for label in reversed(row["children"]))
                if solved is not None:
                    break
                if time.monotonic() - reported >= report_every:
                    reported = time.monotonic()
                    say(progress_line(record))
                until_one_ends(running, 0.5 if deadline is None else
                               min(0.5, deadline - time.monotonic()))
        except Overrun:
            pass
        except (OSError, TimeoutError) as exc:
            raise SolverError(f"the Dask cluster failed: {one_line(str(exc))} (its output: "
                              f"{output.path})") from None
        finally:
            overrun.cancel()
            close_client(client, cluster, scheduler is None)
    return done, solved


@dataclass
class ConquestResult(Tally):
    """`conquer N --strategy A+B`: the cubes of the whole puzzle under hypotheses."""

    hypotheses: Hypotheses
    proofs_checked: int
    proofs_verified: int
    refuted_share: float
    labels: np.ndarray | None = None  # a solution's (verified by the caller)


def run_conquest(n: int, strategies: list[str], record_dir: Path, cube_time: float,
                 time_limit: float | None, jobs: int | None, scheduler: str | None,
                 say=lambda text: None, proofs: float = 0.0,
                 report_every: float = 10.0) -> ConquestResult:
    """Settle the cubes of the whole N-level puzzle under `strategies` (conquer.Hypotheses)
    until all are settled, one is SAT, or `time_limit` passes; RECORD_DIR/conquer-KEY.jsonl
    keeps every settled cube and a rerun goes on from it."""
    need("distributed")
    problem = Hypotheses(n, tuple(dict.fromkeys(strategies)))
    record_dir.mkdir(parents=True, exist_ok=True)
    tally, record, solved = _conquer(problem, record_dir, f"conquer --record {record_dir}",
                                     f"conquering N={n} under {problem.name}", cube_time,
                                     time_limit, jobs, scheduler, say, proofs, report_every,
                                     progress=True)
    checked = record.checked_proofs()
    return ConquestResult(**vars(tally), hypotheses=problem,
                          proofs_checked=checked["checked"],
                          proofs_verified=checked["verified"],
                          refuted_share=record.refuted_measure(), labels=solved)
