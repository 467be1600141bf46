"""One worker's search: what a Dask worker of the hunt runs (`hunt_task`).

It reports its best states and its CPU time to the scheduler (Dask's structured events,
topic TOPIC), reads the hunt's best state back (a Dask Variable the client keeps) so that a
stalled descent restarts from it, and stops when the hunt's stop flag (a Dask Event) is set.
Dask is imported only when a task runs.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import numpy as np

import ilp_pyramid
from ilp_pyramid.puzzles.bel.lns.race import process_cpu

TOPIC = "bel-hunt"
REPORT_EVERY = 1.0  # a worker sends its best state at most this often (seconds)
STOP_POLL = 0.5  # and asks whether the hunt is over at most this often (Ctrl-C waits for it)
SHARE_POLL = 5.0  # and reads the hunt's best state at most this often
HEARTBEAT = 30.0  # a worker with nothing new still reports its CPU time this often
# A descent's seeds: the worker's seed, then this far apart (the workers' seeds are adjacent)
DESCENT_SEED_STRIDE = 1_000_003
NONE_YET = 1 << 30  # a count above any real one
# A descent's record says when it first reached each count up to this one (the counts above
# pass in its first seconds): the data for choosing a descent's length or cutting it early.
REACHED_UP_TO = 10


def stop_name(token: str) -> str:
    """The Dask Event that the client sets when the hunt is over."""
    return f"{TOPIC}-stop-{token}"


def shared_name(token: str) -> str:
    """The Dask Variable that holds the hunt's best state, for the workers to read."""
    return f"{TOPIC}-best-{token}"


class Reporter:
    """A search's link to the hunt: its best states and CPU time sent to the scheduler at
    most every REPORT_EVERY seconds (a solution at once), the stop flag and the hunt's best
    state read back now and then. Off a Dask worker it reports nowhere and never stops."""

    def __init__(self, seed: int, token: str) -> None:
        from distributed import Event, Variable, get_worker

        try:
            self.worker = get_worker()
        except ValueError:  # not on a worker (called directly): report nowhere
            self.worker = None
        on_worker = self.worker is not None
        self.stop = Event(stop_name(token)) if on_worker else None
        self.shared = Variable(shared_name(token)) if on_worker else None
        self.seed = seed
        self.token = token
        self.pending: dict = {}
        self.cpu0 = process_cpu()
        now = time.monotonic()
        self.clock = {"report": 0.0, "poll": now, "beat": now, "share": 0.0}
        self.known: dict = {}  # the hunt's best as last read: conflicts, labels
        self.stopped = False  # set once the hunt's stop flag is seen

    def cpu(self) -> float:
        return process_cpu() - self.cpu0

    def flush(self, beat: bool = False) -> None:
        if self.worker is not None and (self.pending or beat):
            self.worker.log_event(TOPIC, {"token": self.token, "seed": self.seed,
                                          "cpu": self.cpu(), **self.pending})
            self.pending.clear()
            self.clock["beat"] = time.monotonic()
        self.clock["report"] = time.monotonic()

    def on_best(self, conflicts: int, labels: np.ndarray, run_seed: int | None = None) -> None:
        if conflicts > self.pending.get("conflicts", NONE_YET):
            # a new descent began: its first state must not hide the last one's best
            self.flush()
        self.pending.update(conflicts=int(conflicts), labels=[int(x) for x in labels],
                            run_seed=self.seed if run_seed is None else int(run_seed))
        if conflicts == 0 or time.monotonic() - self.clock["report"] >= REPORT_EVERY:
            self.flush()

    def on_descent(self, record: dict) -> None:
        """A fresh descent has ended: its record goes out at once, with its best state."""
        self.pending["descent"] = record
        self.flush()

    def should_stop(self) -> bool:
        if self.stopped:
            return True
        now = time.monotonic()
        if now - self.clock["report"] >= REPORT_EVERY:
            self.flush(beat=now - self.clock["beat"] >= HEARTBEAT)
        if self.stop is None or now - self.clock["poll"] < STOP_POLL:
            return False
        self.clock["poll"] = now
        if now - self.clock["share"] >= SHARE_POLL:
            self.clock["share"] = now
            self.read_shared()
        self.stopped = self.stop.is_set()
        return self.stopped

    def read_shared(self) -> None:
        with contextlib.suppress(Exception):  # nothing shared yet, or the scheduler is busy
            value = self.shared.get(timeout=0.5)
            if value is not None and value.get("conflicts", NONE_YET) < self.known.get(
                    "conflicts", NONE_YET):
                self.known.update(conflicts=int(value["conflicts"]),
                                  labels=np.asarray(value["labels"], dtype=np.int32))

    def shared_best(self) -> tuple[int, np.ndarray] | None:
        return (self.known["conflicts"], self.known["labels"]) if self.known else None


def hunt_task(n: int, seed: int, start: list[int] | None, time_limit: float | None,
              repair: str, token: str, neighbourhood: str = "family",
              schedule: str = "fixed", descent: float | None = None) -> dict:
    """Runs on a Dask worker: one search; best states and CPU time reported to the scheduler,
    the hunt's best state read back so that a stalled descent restarts from it.

    With `descent` (CPU seconds) the worker runs fresh descents instead: each from random
    labels, restarting near its own best, for `descent` CPU seconds, then the next with
    another seed; only their best states are reported, and each descent's record
    (`_descent_record`) as it ends."""
    # Here, not at the top: the driver loads the numba-compiled search.
    from ilp_pyramid.puzzles.bel.lns.driver import Settings, solve_lns

    reporter = Reporter(seed, token)
    settings = Settings(restart_from_best=True, neighbourhood=neighbourhood, schedule=schedule)
    if descent is None:
        outcomes = [solve_lns(n, repair, time_limit=time_limit, seed=seed,
                              start=np.asarray(start, dtype=np.int32) if start is not None
                              else None, settings=settings, on_best=reporter.on_best,
                              should_stop=reporter.should_stop,
                              shared_best=reporter.shared_best)]
    else:
        records: list[dict] = []

        def ended(record: dict) -> None:
            records.append(record)
            reporter.on_descent(record)

        outcomes = _fresh_descents(n, repair, time_limit, seed, settings, descent,
                                   reporter.on_best, reporter.should_stop,
                                   lambda: reporter.stopped, ended)
    outcome = min(outcomes, key=lambda o: o.best_conflicts)
    reporter.flush(beat=True)
    return {
        "seed": seed,
        "status": outcome.status,
        "conflicts": outcome.best_conflicts,
        "labels": [int(x) for x in outcome.best_labels],
        "moves": sum(o.moves for o in outcomes),
        "seconds": sum(o.seconds for o in outcomes),
        "cpu": reporter.cpu(),
        "restarts": sum(o.restarts for o in outcomes),
        "repairs": sum(sum(o.repairs.values()) for o in outcomes),
        "descents": records if descent is not None else [],
    }


def _fresh_descents(n: int, repair: str, time_limit: float | None, seed: int, settings,
                    descent: float, on_best: Callable, should_stop: Callable[[], bool],
                    hunt_stopped: Callable[[], bool], ended: Callable[[dict], None]) -> list:
    """Descents from random labels of `descent` CPU seconds each until the hunt stops, its
    time is up or one solves; each restarts near its own best, not the hunt's. `ended` gets
    each descent's record."""
    # Here, not at the top: the driver loads the numba-compiled search.
    from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, solve_lns

    deadline = None if time_limit is None else time.monotonic() + time_limit
    outcomes = []
    while True:
        began = process_cpu()
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        run_seed = seed + DESCENT_SEED_STRIDE * len(outcomes)
        reached: list[list] = []  # [count, CPU s into the descent], each count lower

        def improved(count, labels, s=run_seed, b=began, reached=reached) -> None:
            if count <= REACHED_UP_TO and (not reached or count < reached[-1][0]):
                reached.append([int(count), round(process_cpu() - b, 1)])
            on_best(count, labels, s)

        outcome = solve_lns(
            n, repair, time_limit=left, seed=run_seed, settings=settings, on_best=improved,
            should_stop=lambda b=began: should_stop() or process_cpu() - b >= descent)
        outcomes.append(outcome)
        ended(_descent_record(outcome, run_seed, descent, process_cpu() - began,
                              outcome.status == SOLVED, reached))
        if (outcome.status == SOLVED or hunt_stopped()
                or (deadline is not None and time.monotonic() >= deadline)):
            return outcomes


def _descent_record(outcome, run_seed: int, budget: float, cpu: float, solved: bool,
                    reached: list[list] | None = None) -> dict:
    """What DIR/descents.jsonl keeps of one descent (hunt/state.py). "full": it ran its whole
    CPU budget (or solved), so its best count speaks for descents of that budget. "reached":
    the CPU second at which it first reached each count up to REACHED_UP_TO."""
    return {"seed": int(run_seed), "budget": float(budget), "cpu": round(cpu, 1),
            "best": int(outcome.best_conflicts), "moves": int(outcome.moves),
            "full": bool(solved or cpu >= budget), "reached": reached or [],
            # the package's version, so that descents of different walks are told apart
            "version": ilp_pyramid.__version__}
