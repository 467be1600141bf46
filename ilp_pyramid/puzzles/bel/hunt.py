"""`ilp-pyramid hunt N --state-dir DIR`: the long search for sizes nobody has solved.

One hybrid search (lns.driver.solve_lns) per core, on a Dask cluster: a local one by default,
`--scheduler ADDRESS` for a real one. Every worker reports its best states to the scheduler
(Dask's structured events, topic "bel-hunt"); this process keeps the best of them on disk in
DIR/best.json = {"n", "conflicts", "solution": {"Z", "X", "Y"}, ...}, written atomically, and
starts the workers from it after a restart. The hunt stops at a verified solution (then
written to DIR/solution.txt in Knuth's drawing) or when --minutes pass.

Dask is imported only here, inside the command, so the CLI itself starts fast.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import typer

from ilp_pyramid.cli_common import (
    EXIT_TIMEOUT,
    Json,
    Seed,
    cap_to_cores,
    console,
    err_console,
    fail,
    print_json,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import read_text, write_atomic
from ilp_pyramid.parsing import load_json

BEST_FILE = "best.json"
SOLUTION_FILE = "solution.txt"
TOPIC = "bel-hunt"
REPORT_EVERY = 1.0  # a worker sends its best state at most this often (seconds)
STOP_POLL = 2.0  # and asks whether the hunt is over at most this often


# -- the state on disk ------------------------------------------------------------------------

@dataclass
class BestState:
    n: int
    conflicts: int
    labels: np.ndarray  # line labels in geometry order
    hunted_seconds: float = 0.0  # wall time of every hunt that worked on this directory

    def to_json(self) -> dict:
        from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution

        return {
            "n": self.n,
            "conflicts": self.conflicts,
            "solution": labels_to_solution(self.n, self.labels).to_dict(),
            "hunted_seconds": round(self.hunted_seconds, 1),
        }


def load_best(state_dir: Path, n: int) -> BestState | None:
    """The saved best state, or None when the directory has none yet (InputError if bad)."""
    from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of, solution_to_labels
    from ilp_pyramid.puzzles.bel.solution import parse_json

    path = state_dir / BEST_FILE
    if not path.exists():
        return None
    try:
        data = load_json(read_text(path))
    except (OSError, InputError) as exc:
        raise InputError(f"{path}: cannot read the saved state ({exc})") from None
    if not isinstance(data, dict) or "solution" not in data:
        raise InputError(f"{path}: not a hunt state (no \"solution\")")
    if data.get("n") != n:
        raise InputError(f"{path} holds a state for N={data.get('n')}, not N={n}; "
                         f"use another --state-dir")
    try:
        solution = parse_json(json.dumps(data["solution"]))
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    if solution.n != n:
        raise InputError(f"{path}: the solution is for N={solution.n}, not N={n}")
    labels = solution_to_labels(solution)
    # The count on disk is recomputed, never trusted.
    hunted = data.get("hunted_seconds", 0.0) or 0.0
    if type(hunted) not in (int, float):
        raise InputError(f"{path}: \"hunted_seconds\" is not a number")
    return BestState(n, conflicts_of(n, labels), labels, float(hunted))


def save_best(state_dir: Path, state: BestState) -> None:
    write_atomic(state_dir / BEST_FILE, state_text(state.to_json()))


def state_text(data: dict) -> str:
    """JSON with one line per key and one line per row of labels (readable, still JSON)."""
    out = ["{"]
    for key, value in data.items():
        if key != "solution":
            out.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    out.append('  "solution": {')
    families = list(data["solution"].items())
    for index, (family, rows) in enumerate(families):
        body = ",\n".join(f"      {json.dumps(row)}" for row in rows)
        comma = "," if index < len(families) - 1 else ""
        out.append(f"    {json.dumps(family)}: [\n{body}\n    ]{comma}")
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def meets_counting(n: int, labels: np.ndarray) -> bool:
    """Every label's lines add up to N(2N+1) cells (the swaps keep whatever totals they get)."""
    from ilp_pyramid.puzzles.bel.lns.arrays import arrays

    a = arrays(n)
    totals = np.bincount(labels, weights=a.line_len, minlength=a.num_labels)
    return bool(np.all(totals == n * (2 * n + 1)))


# -- one worker's search ----------------------------------------------------------------------

def hunt_task(n: int, seed: int, start: list[int] | None, time_limit: float, repair: str,
              token: str) -> dict:
    """Runs on a Dask worker: one search, best states reported to the scheduler."""
    from distributed import Event, get_worker

    from ilp_pyramid.puzzles.bel.lns.driver import solve_lns

    try:
        worker = get_worker()
    except ValueError:  # not on a worker (called directly): report nowhere
        worker = None
    stop = Event(f"{TOPIC}-stop-{token}") if worker is not None else None
    pending: dict = {}
    clock = {"report": 0.0, "poll": time.monotonic()}

    def flush() -> None:
        if pending and worker is not None:
            worker.log_event(TOPIC, {"token": token, "seed": seed, **pending})
            pending.clear()
        clock["report"] = time.monotonic()

    def on_best(conflicts: int, labels: np.ndarray) -> None:
        pending.update(conflicts=int(conflicts), labels=[int(x) for x in labels])
        if conflicts == 0 or time.monotonic() - clock["report"] >= REPORT_EVERY:
            flush()

    def should_stop() -> bool:
        now = time.monotonic()
        if now - clock["report"] >= REPORT_EVERY:
            flush()
        if stop is None or now - clock["poll"] < STOP_POLL:
            return False
        clock["poll"] = now
        return stop.is_set()

    begin = np.asarray(start, dtype=np.int32) if start is not None else None
    outcome = solve_lns(n, repair, time_limit=time_limit, seed=seed, start=begin,
                        on_best=on_best, should_stop=should_stop)
    flush()
    return {
        "seed": seed,
        "status": outcome.status,
        "conflicts": outcome.best_conflicts,
        "labels": [int(x) for x in outcome.best_labels],
        "moves": outcome.moves,
        "seconds": outcome.seconds,
        "restarts": outcome.restarts,
        "repairs": sum(outcome.repairs.values()),
    }


# -- the hunt ---------------------------------------------------------------------------------

@dataclass
class HuntResult:
    n: int
    status: str  # solved | timeout
    best: BestState | None
    resumed_from: int | None
    seconds: float
    jobs: int
    scheduler: str
    moves: int = 0
    solution_text: str | None = None


class Hunt:
    """The client side: collect the workers' reports, keep the best on disk."""

    def __init__(self, n: int, state_dir: Path, best: BestState | None, say):
        self.n = n
        self.state_dir = state_dir
        self.best = best
        self.hunted_before = best.hunted_seconds if best else 0.0
        self.began = time.monotonic()
        self.say = say
        self.reports: list[dict] = []
        self.solved_labels: np.ndarray | None = None

    def on_event(self, event) -> None:  # runs in the client's event-loop thread
        _, message = event
        self.reports.append(message)

    def take(self, message: dict) -> None:
        """A worker's state: recount it (never trust a report) and keep it if it is better."""
        from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of

        labels = np.asarray(message["labels"], dtype=np.int32)
        conflicts = conflicts_of(self.n, labels)
        if conflicts == 0:
            self.solved_labels = labels
        if self.best is None or conflicts < self.best.conflicts:
            self.best = BestState(self.n, conflicts, labels, self.hunted_seconds())
            save_best(self.state_dir, self.best)
            self.say(f"{self.elapsed():8.1f} s  new best: {conflicts} repeated cubes "
                     f"(seed {message.get('seed')})")

    def drain(self) -> None:
        while self.reports:
            self.take(self.reports.pop(0))

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def hunted_seconds(self) -> float:
        return self.hunted_before + self.elapsed()

    def close(self) -> None:
        if self.best is not None:
            self.best.hunted_seconds = self.hunted_seconds()
            save_best(self.state_dir, self.best)


def run_hunt(n: int, state_dir: Path, minutes: float | None, jobs: int | None,
             scheduler: str | None, repair: str = "sat", seed: int | None = None,
             say=lambda text: None) -> HuntResult:
    import dask
    from distributed import Client, Event, LocalCluster

    from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution
    from ilp_pyramid.verify.bel import verify_solution

    state_dir.mkdir(parents=True, exist_ok=True)
    best = load_best(state_dir, n)
    resumed_from = best.conflicts if best else None
    start = None
    if best is not None:
        if meets_counting(n, best.labels):
            start = [int(x) for x in best.labels]
            say(f"resuming from {state_dir / BEST_FILE}: {best.conflicts} repeated cubes, "
                f"{best.hunted_seconds / 60:.1f} min hunted so far")
        else:
            say(f"{state_dir / BEST_FILE} breaks the counting condition; starting afresh")
    hunt = Hunt(n, state_dir, best, say)
    deadline = None if minutes is None else hunt.began + 60.0 * minutes
    token = uuid.uuid4().hex[:12]
    base_seed = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    cluster = None
    # Not daemonic: a worker may then fork the SAT solver's child, which keeps its time limit.
    with dask.config.set({"distributed.worker.daemon": False}):
        if scheduler is None:
            cluster = LocalCluster(n_workers=jobs or os.cpu_count() or 1, threads_per_worker=1,
                                   processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
            where = "local cluster"
        else:
            client = Client(scheduler, timeout="20s")
            where = scheduler
        stop = None
        try:
            if jobs is None:
                jobs = max(1, sum(client.nthreads().values()))
            client.subscribe_topic(TOPIC, hunt.on_event)
            stop = Event(f"{TOPIC}-stop-{token}", client=client)
            budget = None if deadline is None else max(0.0, deadline - time.monotonic())
            futures = [client.submit(hunt_task, n, base_seed + i, start,
                                     budget, repair, token, pure=False,
                                     key=f"bel-hunt-{token}-{i}")
                       for i in range(jobs)]
            say(f"hunting N={n} with {jobs} searches on {where}")
            moves = 0
            while True:
                hunt.drain()
                finished = [f for f in futures if f.done()]
                for future in finished:
                    futures.remove(future)
                    if future.status == "error":
                        raise RuntimeError(f"a hunt worker failed: {future.exception()}")
                    result = future.result()
                    moves += result["moves"]
                    hunt.take({"labels": result["labels"], "seed": result["seed"]})
                if hunt.solved_labels is not None or not futures:
                    break
                if deadline is not None and time.monotonic() > deadline + 30.0:
                    break  # the workers stop themselves at the deadline; don't wait forever
                time.sleep(0.5)
            stop.set()
            # The workers look at the stop flag every few seconds: collect what they did.
            for future in futures:
                try:
                    result = future.result(timeout=STOP_POLL + 5.0)
                except Exception:  # noqa: BLE001 - a straggler only costs its move count
                    future.cancel()
                    continue
                moves += result["moves"]
                hunt.take({"labels": result["labels"], "seed": result["seed"]})
        finally:
            if stop is not None:  # on Ctrl-C too: the workers stop at their next poll
                with contextlib.suppress(Exception):
                    stop.set()
            client.close()
            if cluster is not None:
                cluster.close()
            hunt.drain()
            hunt.close()  # also on Ctrl-C: the time hunted so far goes into best.json
    result = HuntResult(n, "timeout", hunt.best, resumed_from, hunt.elapsed(), jobs,
                        scheduler or "local", moves)
    if hunt.solved_labels is not None:
        solution = labels_to_solution(n, hunt.solved_labels)
        if not verify_solution(solution).valid:  # pragma: no cover - recounted above
            raise RuntimeError("a reported solution does not verify")
        result.status = "solved"
        result.solution_text = solution.to_drawing()
        write_atomic(state_dir / SOLUTION_FILE, result.solution_text)
    return result


# -- the command ------------------------------------------------------------------------------

def hunt(
    n: int = typer.Argument(..., help="Number of levels (6 is the open case)."),
    state_dir: Path = typer.Option(..., "--state-dir",
                                   help="Directory for best.json (resumed from) and "
                                        "solution.txt."),
    minutes: float = typer.Option(None, "--minutes", min=0.0,
                                  help="Stop after this many minutes (default: run until "
                                       "solved or interrupted)."),
    jobs: int = typer.Option(None, "--jobs", "-j", min=1, callback=cap_to_cores,
                             help="Searches to run (default: one per core, or every worker "
                                  "thread of --scheduler)."),
    scheduler: str = typer.Option(None, "--scheduler",
                                  help="Address of a Dask scheduler (tcp://host:8786); "
                                       "default: a local cluster."),
    repair: str = typer.Option("sat", "--repair", help="sat | mip | dlx (see solve --help)."),
    seed: int = Seed,
    json_out: bool = Json,
) -> None:
    """Hunt for a Bel's Pyramid solution: one hybrid search per core, as long as it takes.

    The best state is kept in STATE_DIR/best.json; a restarted hunt resumes from it.
    A verified solution is written to STATE_DIR/solution.txt (docs/hybrid.md).
    Exit codes: 0 solved, 2 bad input, 3 stopped by --minutes without a solution.
    """
    from ilp_pyramid.puzzles.bel.geometry import MAX_N
    from ilp_pyramid.puzzles.bel.lns.repair import REPAIRS

    if not 2 <= n <= MAX_N:
        fail(f"N must be between 2 and {MAX_N} (got {n})")
    if repair not in REPAIRS:
        fail(f"unknown repair {repair!r} (choose from {', '.join(REPAIRS)})")
    if state_dir.exists() and not state_dir.is_dir():
        fail(f"--state-dir {state_dir} is a file, not a directory")

    def say(text: str) -> None:
        if not json_out:
            err_console.print(text, markup=False)

    result = run_hunt(n, state_dir, minutes, jobs, scheduler, repair, seed, say=say)
    best = result.best
    if json_out:
        print_json({
            "n": n,
            "status": result.status,
            "conflicts": best.conflicts if best else None,
            "resumed_from": result.resumed_from,
            "seconds": round(result.seconds, 2),
            "hunted_seconds": round(best.hunted_seconds, 1) if best else None,
            "jobs": result.jobs,
            "scheduler": result.scheduler,
            "moves": result.moves,
            "state_dir": str(state_dir),
            "best_file": str(state_dir / BEST_FILE),
            "solution_file": str(state_dir / SOLUTION_FILE) if result.solution_text else None,
            "solution": best.to_json()["solution"] if result.solution_text else None,
        })
    else:
        console.print(f"hunt N={n}: {result.seconds / 60:.1f} min with {result.jobs} searches "
                      f"({result.moves / 1e6:.0f} M moves); best state "
                      f"{best.conflicts if best else '-'} repeated cubes, "
                      f"{(best.hunted_seconds if best else 0) / 60:.1f} min hunted in total; "
                      f"saved in {state_dir / BEST_FILE}")
        if result.solution_text:
            console.print(f"solved and verified: {state_dir / SOLUTION_FILE}")
            console.print(result.solution_text, end="", markup=False)
    if result.status != "solved":
        raise typer.Exit(EXIT_TIMEOUT)
