"""The hunt's client side: one search (task.py) per core on a Dask cluster, their reports
collected, the best state kept on disk and shared back to them, the curve logged (state.py).

A local cluster by default, `scheduler` for a real one. The hunt stops at a verified solution
(then written to DIR/solution.txt in Knuth's drawing) or when its time limit passes. What it
has to tell on the way goes to a `Listener` (the command prints it). Dask is imported only
when a hunt runs.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ilp_pyramid.errors import InputError, SolverError, one_line
from ilp_pyramid.extras import need
from ilp_pyramid.formats.lock import describe, hold
from ilp_pyramid.puzzles.bel.hunt.cluster import (
    LOG_FILE,
    ClusterOutput,
    close_client,
    local_jobs,
    start_client,
    until_one_ends,
)
from ilp_pyramid.puzzles.bel.hunt.deadline import OVERRUN_SECONDS, Overrun, hard_deadline
from ilp_pyramid.puzzles.bel.hunt.near import load_near, update_near
from ilp_pyramid.puzzles.bel.hunt.state import (
    BEST_FILE,
    LOCK_FILE,
    BestState,
    load_best,
    log_descent,
    log_progress,
    resumable,
    save_best,
    save_solution,
)
from ilp_pyramid.puzzles.bel.hunt.task import (
    STOP_POLL,
    TOPIC,
    hunt_task,
    shared_name,
    stop_name,
)
from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of

PROGRESS_EVERY = 60.0  # a progress line at least this often, besides one per new best
WAIT_PAST_DEADLINE = 30.0  # the searches stop themselves at the deadline; no wait for ever


class Listener:
    """What a running hunt has to tell, as it happens; this one keeps it to itself."""

    def lock_taken_over(self, lock: Path, holder: str) -> None:
        """`lock` was left by `holder` (formats.lock.describe), a hunt that is gone."""

    def resuming(self, best_file: Path, best: BestState) -> None:
        """The searches start from the saved state."""

    def keeping(self, best_file: Path, best: BestState) -> None:
        """Fresh descents run; only a lower count than the saved state's replaces it."""

    def starting_afresh(self, best_file: Path) -> None:
        """The saved state breaks the counting condition: the searches start afresh."""

    def started(self, n: int, jobs: int, where: str) -> None:
        """`jobs` searches run on `where` ("local cluster" or the scheduler's address)."""

    def new_best(self, seconds: float, conflicts: int, seed: int | None) -> None:
        """The search of `seed` found a better state, `seconds` into the hunt."""

    def overrun(self, seconds: float) -> None:
        """The cluster did not finish within `seconds` of the time limit: the hunt stopped."""

    def cluster_wrote(self, lines: int, tracebacks: int, log: Path) -> None:
        """The cluster wrote `lines` lines (`tracebacks` tracebacks among them) into `log`."""


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
    # every fresh descent of this hunt (--descent), as DIR/descents.jsonl has them; empty when
    # the searches walk on
    descents: list[dict] = field(default_factory=list)
    solution_text: str | None = None


class Hunt:
    """The workers' reports taken in: the best kept on disk and shared back, the curve
    (best count against CPU time) logged to DIR/progress.jsonl, every fresh descent logged to
    DIR/descents.jsonl as it ends, and every state at the two lowest counts seen kept in
    DIR/near.jsonl.gz (near.py)."""

    def __init__(self, n: int, state_dir: Path, best: BestState | None,
                 listener: Listener, by: str = "hunt") -> None:
        self.n = n
        self.state_dir = state_dir
        self.best = best
        self.by = by  # what found the states, for the kept ones: hunt | descent
        # the highest count a state may have to be kept (None: any), as of the last write
        self.near_limit = load_near(state_dir, n).limit()
        self.near_pending: list[tuple[np.ndarray, dict]] = []
        self.hunted_before = best.hunted_seconds if best else 0.0
        self.cpu_before = best.cpu_seconds if best else 0.0
        self.cpu: dict = {}  # worker seed -> CPU seconds of its search so far
        self.began = time.monotonic()
        self.logged = 0.0
        self.listener = listener
        self.reports: list[dict] = []
        self.solved_labels: np.ndarray | None = None
        self.descents: dict[int, dict] = {}  # descent seed -> its record, logged once
        self.share = lambda best: None  # set by Searches: hands a new best to the workers

    def on_event(self, event) -> None:  # runs in the client's event-loop thread
        _, message = event
        self.reports.append(message)

    def take(self, message: dict) -> None:
        """A worker's report: its CPU time, and its state if any (recounted, never trusted,
        kept if it is better)."""
        worker = message.get("seed")
        if "cpu" in message:
            self.cpu[worker] = max(self.cpu.get(worker, 0.0), float(message["cpu"]))
        if "descent" in message:
            self.take_descent(message["descent"])
        if "labels" not in message:
            return
        labels = np.asarray(message["labels"], dtype=np.int32)
        conflicts = conflicts_of(self.n, labels)
        if conflicts == 0:
            self.solved_labels = labels
        if self.near_limit is None or conflicts <= self.near_limit:
            self.near_pending.append((labels, {"by": self.by, "seed": worker,
                                               "run_seed": message.get("run_seed", worker)}))
        if self.best is None or conflicts < self.best.conflicts:
            self.best = BestState(self.n, conflicts, labels, self.hunted_seconds(),
                                  self.cpu_seconds())
            save_best(self.state_dir, self.best)
            self.share(self.best)
            self.log(worker)
            self.listener.new_best(self.elapsed(), conflicts, worker)

    def take_descent(self, record: dict) -> None:
        """A descent's record, logged the first time it comes: by a report as it ends, or in
        its worker's result (a report the hunt's end overtook)."""
        if record["seed"] not in self.descents:
            self.descents[record["seed"]] = record
            log_descent(self.state_dir, {"n": self.n, **record})

    def drain(self) -> None:
        while self.reports:
            self.take(self.reports.pop(0))
        self.keep_near()
        if time.monotonic() - self.logged >= PROGRESS_EVERY:
            self.save()  # the time hunted since the last new best counts too
            self.log(None)

    def keep_near(self) -> None:
        """The near-solutions reported since the last call, added to DIR/near.jsonl.gz."""
        if self.near_pending:
            pending, self.near_pending = self.near_pending, []
            self.near_limit = update_near(self.state_dir, self.n, pending).limit()

    def log(self, worker: int | None) -> None:
        """One line of the curve, once there is a best state."""
        self.logged = time.monotonic()
        if self.best is not None:
            log_progress(self.state_dir, self.cpu_seconds(), self.hunted_seconds(),
                         self.best.conflicts, worker)

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def hunted_seconds(self) -> float:
        return self.hunted_before + self.elapsed()

    def cpu_seconds(self) -> float:
        return self.cpu_before + sum(self.cpu.values())

    def save(self) -> None:
        """best.json with the time hunted up to now."""
        if self.best is not None:
            self.best.hunted_seconds = self.hunted_seconds()
            self.best.cpu_seconds = self.cpu_seconds()
            save_best(self.state_dir, self.best)

    def close(self) -> None:
        self.keep_near()
        self.save()
        self.log(None)


class Searches:
    """The hunt's searches on a Dask cluster: the cluster reached, the searches started and
    waited for, their results taken in, then stopped and the cluster closed."""

    def __init__(self, hunt: Hunt, scheduler: str | None, jobs: int | None) -> None:
        self.hunt = hunt
        self.scheduler = scheduler
        self.jobs = jobs
        self.token = uuid.uuid4().hex[:12]
        self.client = self.cluster = self.stop = self.shared = None
        self.futures: list = []
        self.moves = 0

    def connect(self) -> str:
        """Start the local cluster or reach the scheduler; where the searches run."""
        from distributed import Event, Variable

        self.client, self.cluster, where = start_client(self.scheduler, self.jobs)
        if self.jobs is None:
            self.jobs = max(1, sum(self.client.nthreads().values()))
        self.client.subscribe_topic(TOPIC, self.hunt.on_event)
        self.stop = Event(stop_name(self.token), client=self.client)
        self.shared = Variable(shared_name(self.token), client=self.client)
        self.hunt.share = self.share
        if self.hunt.best is not None:
            self.share(self.hunt.best)
        self.hunt.log(None)
        return where

    def share(self, state: BestState) -> None:
        with contextlib.suppress(Exception):  # sharing is a help, not a must
            self.shared.set({"conflicts": state.conflicts,
                             "labels": [int(x) for x in state.labels]})

    def submit(self, n: int, base_seed: int, start: list[int] | None, budget: float | None,
               repair: str, neighbourhood: str, schedule: str, descent: float | None) -> None:
        """One search per job, with adjacent seeds."""
        self.futures = [self.client.submit(hunt_task, n, base_seed + i, start, budget, repair,
                                           self.token, neighbourhood, schedule, descent,
                                           pure=False, key=f"bel-hunt-{self.token}-{i}")
                        for i in range(self.jobs)]

    def wait(self, deadline: float | None) -> None:
        """Until a solution, every search done, or WAIT_PAST_DEADLINE past the deadline;
        then the searches still running are told to stop and what they did is taken in."""
        while True:
            self.hunt.drain()
            for future in [f for f in self.futures if f.done()]:
                self.futures.remove(future)
                if future.status == "error":
                    raise RuntimeError(f"a hunt worker failed: {future.exception()}")
                self.take(future.result())
            if self.hunt.solved_labels is not None or not self.futures:
                break
            if deadline is not None and time.monotonic() > deadline + WAIT_PAST_DEADLINE:
                break
            until_one_ends(self.futures)
        self.stop.set()
        # The workers look at the stop flag every few seconds: collect what they did.
        for future in self.futures:
            try:
                result = future.result(timeout=STOP_POLL + 5.0)
            except Exception:  # noqa: BLE001 - a straggler only costs its move count
                future.cancel()
                continue
            self.take(result)

    def take(self, result: dict) -> None:
        self.moves += result["moves"]
        for record in result.get("descents", []):
            self.hunt.take_descent(record)
        self.hunt.take(result)

    def close(self) -> None:
        # The state first (on Ctrl-C too): closing a cluster may take longer than the
        # interrupt leaves.
        self.hunt.drain()
        self.hunt.close()
        if self.stop is not None:  # the workers stop at their next poll
            with contextlib.suppress(Exception):
                self.stop.set()
        close_client(self.client, self.cluster, self.scheduler is None)


def run_hunt(n: int, state_dir: Path, time_limit: float | None, jobs: int | None,
             scheduler: str | None, repair: str = "sat", seed: int | None = None,
             listener: Listener | None = None, neighbourhood: str = "family",
             schedule: str = "fixed", descent: float | None = None) -> HuntResult:
    """Hunt for `time_limit` seconds (None: until solved or interrupted).

    One hunt per state directory: it holds DIR/hunt.lock throughout (lock.Busy, naming the
    holder, for a second one); a lock left by a hunt that is gone is taken over.
    """
    listener = listener or Listener()
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot use --state-dir {state_dir}: {exc.strerror or exc}") from None

    def stale(text: str) -> None:
        listener.lock_taken_over(state_dir / LOCK_FILE, describe(text))

    with hold(state_dir / LOCK_FILE, f"--state-dir {state_dir}", on_stale=stale):
        return _run_locked(n, state_dir, time_limit, jobs, scheduler, repair, seed, listener,
                           neighbourhood, schedule, descent)


def _run_locked(n: int, state_dir: Path, time_limit: float | None, jobs: int | None,
                scheduler: str | None, repair: str, seed: int | None, listener: Listener,
                neighbourhood: str, schedule: str, descent: float | None) -> HuntResult:
    need("distributed")
    import dask

    best = load_best(state_dir, n)
    start = _start_from(state_dir, best, descent, listener)
    if best is not None:  # a state directory from before near.jsonl.gz: its best is one
        update_near(state_dir, n, [(best.labels, {"by": BEST_FILE})])
    hunt = Hunt(n, state_dir, best, listener, by="hunt" if descent is None else "descent")
    deadline = None if time_limit is None else hunt.began + time_limit
    base_seed = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    if scheduler is None:
        jobs = local_jobs(jobs)
    searches = Searches(hunt, scheduler, jobs)
    output = ClusterOutput(state_dir / LOG_FILE)
    # Not daemonic: a worker may then fork the SAT solver's child, which keeps its time limit.
    with dask.config.set({"distributed.worker.daemon": False}), output, \
            hard_deadline(time_limit) as overrun:
        try:
            where = searches.connect()
            budget = None if deadline is None else max(0.0, deadline - time.monotonic())
            searches.submit(n, base_seed, start, budget, repair, neighbourhood, schedule,
                            descent)
            listener.started(n, searches.jobs, where)
            searches.wait(deadline)
        except Overrun:
            listener.overrun(OVERRUN_SECONDS)
        except (OSError, RuntimeError, TimeoutError) as exc:
            raise SolverError(f"the Dask cluster failed: {one_line(str(exc))} (its output: "
                              f"{output.path})") from None
        finally:
            overrun.cancel()
            searches.close()
    if output.lines and not overrun.fired:
        listener.cluster_wrote(output.lines, output.tracebacks, output.path)
    result = HuntResult(n, "timeout", hunt.best, best.conflicts if best else None,
                        hunt.elapsed(), searches.jobs or 0, scheduler or "local",
                        searches.moves, descents=list(hunt.descents.values()))
    if hunt.solved_labels is not None:
        result.status = "solved"
        result.solution_text = save_solution(state_dir, n, hunt.solved_labels)
    return result


def _start_from(state_dir: Path, best: BestState | None, descent: float | None,
                listener: Listener) -> list[int] | None:
    """The labels the searches start from: the saved state's when they walk on from it and
    it can still become a solution; None (random labels) otherwise."""
    if best is None:
        return None
    if descent is not None:
        listener.keeping(state_dir / BEST_FILE, best)
        return None
    if resumable(best.n, best.labels):
        listener.resuming(state_dir / BEST_FILE, best)
        return [int(x) for x in best.labels]
    listener.starting_afresh(state_dir / BEST_FILE)
    return None
