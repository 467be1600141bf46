"""`ilp-pyramid hunt N --state-dir DIR`: the long search for sizes nobody has solved.

One hybrid search (lns.driver.solve_lns) per core, on a Dask cluster: a local one by default,
`--scheduler ADDRESS` for a real one. Every worker reports its best states to the scheduler
(Dask's structured events, topic "bel-hunt"); this process keeps the best of them on disk in
DIR/best.json = {"n", "conflicts", "solution": {"Z", "X", "Y"}, ...}, written atomically, and
starts the workers from it after a restart. The hunt stops at a verified solution (then
written to DIR/solution.txt in Knuth's drawing) or when --time-limit seconds pass.

Dask is imported only here, inside the command, so the CLI itself starts fast.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import typer

from ilp_pyramid.cli_common import (
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
from ilp_pyramid.errors import InputError, SolverError, one_line
from ilp_pyramid.formats.fileio import append_line, read_text, write_atomic
from ilp_pyramid.machine import cores
from ilp_pyramid.parsing import load_json
from ilp_pyramid.puzzles.bel.lns.race import process_cpu

BEST_FILE = "best.json"
LOCK_FILE = "hunt.lock"  # held by the running hunt: pid, host, start (formats/lock.py)
SOLUTION_FILE = "solution.txt"
TOPIC = "bel-hunt"
REPORT_EVERY = 1.0  # a worker sends its best state at most this often (seconds)
STOP_POLL = 0.5  # and asks whether the hunt is over at most this often (Ctrl-C waits for it)
SHARE_POLL = 5.0  # and reads the hunt's best state at most this often
HEARTBEAT = 30.0  # a worker with nothing new still reports its CPU time this often
PROGRESS_FILE = "progress.jsonl"
PROGRESS_EVERY = 60.0  # a progress line at least this often, besides one per new best


# -- the state on disk ------------------------------------------------------------------------

@dataclass
class BestState:
    n: int
    conflicts: int
    labels: np.ndarray  # line labels in geometry order
    hunted_seconds: float = 0.0  # wall time of every hunt that worked on this directory
    cpu_seconds: float = 0.0  # CPU time of every search of every hunt on this directory

    def to_json(self) -> dict:
        from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution

        return {
            "n": self.n,
            "conflicts": self.conflicts,
            "solution": labels_to_solution(self.n, self.labels).to_dict(),
            "hunted_seconds": round(self.hunted_seconds, 1),
            "cpu_seconds": round(self.cpu_seconds, 1),
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
    hunted, cpu = data.get("hunted_seconds", 0.0) or 0.0, data.get("cpu_seconds", 0.0) or 0.0
    for name, value in (("hunted_seconds", hunted), ("cpu_seconds", cpu)):
        if type(value) not in (int, float):
            raise InputError(f"{path}: \"{name}\" is not a number")
    return BestState(n, conflicts_of(n, labels), labels, float(hunted), float(cpu))


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


def resumable(n: int, labels: np.ndarray) -> bool:
    """Whether a search can start from `labels`: label swaps keep every label's total, so
    below N=6 a state that breaks the counting condition could never become a solution; from
    N=6 the search moves single lines (lns/driver.py), which change the totals."""
    from ilp_pyramid.puzzles.bel.lns.driver import Settings

    return Settings().single_share(n) > 0 or meets_counting(n, labels)


# -- one worker's search ----------------------------------------------------------------------

def hunt_task(n: int, seed: int, start: list[int] | None, time_limit: float | None,
              repair: str, token: str, neighbourhood: str = "family",
              schedule: str = "fixed", descent: float | None = None) -> dict:
    """Runs on a Dask worker: one search; best states and CPU time reported to the scheduler,
    the hunt's best state (a Dask Variable the client keeps) read back so that a stalled
    descent restarts from it.

    With `descent` (CPU seconds) the worker runs fresh descents instead: each from random
    labels, restarting near its own best, for `descent` CPU seconds, then the next with
    another seed; only their best states are reported."""
    from distributed import Event, Variable, get_worker

    from ilp_pyramid.puzzles.bel.lns.driver import Settings, solve_lns

    try:
        worker = get_worker()
    except ValueError:  # not on a worker (called directly): report nowhere
        worker = None
    stop = Event(f"{TOPIC}-stop-{token}") if worker is not None else None
    shared = Variable(f"{TOPIC}-best-{token}") if worker is not None else None
    pending: dict = {}
    cpu0 = process_cpu()
    clock = {"report": 0.0, "poll": time.monotonic(), "beat": time.monotonic(), "share": 0.0}
    known: dict = {}  # the hunt's best as last read: conflicts, labels

    def flush(beat: bool = False) -> None:
        if worker is not None and (pending or beat):
            worker.log_event(TOPIC, {"token": token, "seed": seed,
                                     "cpu": process_cpu() - cpu0, **pending})
            pending.clear()
            clock["beat"] = time.monotonic()
        clock["report"] = time.monotonic()

    def on_best(conflicts: int, labels: np.ndarray) -> None:
        pending.update(conflicts=int(conflicts), labels=[int(x) for x in labels])
        if conflicts == 0 or time.monotonic() - clock["report"] >= REPORT_EVERY:
            flush()

    def should_stop() -> bool:
        if stopped:
            return True
        now = time.monotonic()
        if now - clock["report"] >= REPORT_EVERY:
            flush(beat=now - clock["beat"] >= HEARTBEAT)
        if stop is None or now - clock["poll"] < STOP_POLL:
            return False
        clock["poll"] = now
        if now - clock["share"] >= SHARE_POLL:
            clock["share"] = now
            read_shared()
        if stop.is_set():
            stopped.append(True)
        return bool(stopped)

    def read_shared() -> None:
        with contextlib.suppress(Exception):  # nothing shared yet, or the scheduler is busy
            value = shared.get(timeout=0.5)
            if value is not None and value.get("conflicts", 1 << 30) < known.get(
                    "conflicts", 1 << 30):
                known.update(conflicts=int(value["conflicts"]),
                             labels=np.asarray(value["labels"], dtype=np.int32))

    def shared_best() -> tuple[int, np.ndarray] | None:
        return (known["conflicts"], known["labels"]) if known else None

    stopped: list[bool] = []  # set once the hunt's stop flag is seen
    settings = Settings(restart_from_best=True, neighbourhood=neighbourhood, schedule=schedule)
    if descent is None:
        outcome = solve_lns(n, repair, time_limit=time_limit, seed=seed,
                            start=np.asarray(start, dtype=np.int32) if start is not None
                            else None, settings=settings, on_best=on_best,
                            should_stop=should_stop, shared_best=shared_best)
        outcomes = [outcome]
    else:
        outcomes = _fresh_descents(n, repair, time_limit, seed, settings, descent, on_best,
                                   should_stop, lambda: bool(stopped))
        outcome = min(outcomes, key=lambda o: o.best_conflicts)
    flush(beat=True)
    return {
        "seed": seed,
        "status": outcome.status,
        "conflicts": outcome.best_conflicts,
        "labels": [int(x) for x in outcome.best_labels],
        "moves": sum(o.moves for o in outcomes),
        "seconds": sum(o.seconds for o in outcomes),
        "cpu": process_cpu() - cpu0,
        "restarts": sum(o.restarts for o in outcomes),
        "repairs": sum(sum(o.repairs.values()) for o in outcomes),
        "descent_bests": ([o.best_conflicts for o in outcomes] if descent is not None
                          else []),
    }


# A descent's seeds: the worker's seed, then this far apart (the workers' seeds are adjacent)
DESCENT_SEED_STRIDE = 1_000_003


def _fresh_descents(n, repair, time_limit, seed, settings, descent, on_best, should_stop,
                    hunt_stopped) -> list:
    """Descents from random labels of `descent` CPU seconds each until the hunt stops, its
    time is up or one solves; each restarts near its own best, not the hunt's."""
    from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, solve_lns

    deadline = None if time_limit is None else time.monotonic() + time_limit
    outcomes = []
    while True:
        began = process_cpu()
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        outcome = solve_lns(
            n, repair, time_limit=left, seed=seed + DESCENT_SEED_STRIDE * len(outcomes),
            settings=settings, on_best=on_best,
            should_stop=lambda b=began: should_stop() or process_cpu() - b >= descent)
        outcomes.append(outcome)
        if (outcome.status == SOLVED or hunt_stopped()
                or (deadline is not None and time.monotonic() >= deadline)):
            return outcomes


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
    # the best count of every fresh descent run (--descent); empty when the searches walk on
    descent_bests: list[int] = field(default_factory=list)
    solution_text: str | None = None


class Hunt:
    """The client side: collect the workers' reports, keep the best on disk, share it back,
    and log the curve (best count against CPU time) to DIR/progress.jsonl."""

    def __init__(self, n: int, state_dir: Path, best: BestState | None, say):
        self.n = n
        self.state_dir = state_dir
        self.best = best
        self.hunted_before = best.hunted_seconds if best else 0.0
        self.cpu_before = best.cpu_seconds if best else 0.0
        self.cpu: dict = {}  # worker seed -> CPU seconds of its search so far
        self.began = time.monotonic()
        self.logged = 0.0
        self.say = say
        self.reports: list[dict] = []
        self.solved_labels: np.ndarray | None = None
        self.share = lambda best: None  # set by run_hunt: hands a new best to the workers

    def on_event(self, event) -> None:  # runs in the client's event-loop thread
        _, message = event
        self.reports.append(message)

    def take(self, message: dict) -> None:
        """A worker's report: its CPU time, and its state if any (recounted, never trusted,
        kept if it is better)."""
        from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of

        worker = message.get("seed")
        if "cpu" in message:
            self.cpu[worker] = max(self.cpu.get(worker, 0.0), float(message["cpu"]))
        if "labels" not in message:
            return
        labels = np.asarray(message["labels"], dtype=np.int32)
        conflicts = conflicts_of(self.n, labels)
        if conflicts == 0:
            self.solved_labels = labels
        if self.best is None or conflicts < self.best.conflicts:
            self.best = BestState(self.n, conflicts, labels, self.hunted_seconds(),
                                  self.cpu_seconds())
            save_best(self.state_dir, self.best)
            self.share(self.best)
            self.log(worker)
            self.say(f"{self.elapsed():8.1f} s  new best: {conflicts} repeated cubes "
                     f"(seed {worker})")

    def drain(self) -> None:
        while self.reports:
            self.take(self.reports.pop(0))
        if time.monotonic() - self.logged >= PROGRESS_EVERY:
            self.save()  # the time hunted since the last new best counts too
            self.log(None)

    def log(self, worker) -> None:
        """One line of the curve: cumulative CPU and wall seconds, best count, who found it."""
        self.logged = time.monotonic()
        if self.best is None:
            return
        line = {"cpu": round(self.cpu_seconds(), 1), "wall": round(self.hunted_seconds(), 1),
                "best": self.best.conflicts, "worker": worker,
                "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
        # Appended, not rewritten: a line cut short by a crash is skipped by read_progress.
        append_line(self.state_dir / PROGRESS_FILE, json.dumps(line))

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
        self.save()
        self.log(None)


def read_progress(path: Path) -> list[dict]:
    """The progress lines of a state directory (a torn last line is skipped)."""
    rows = []
    for line in read_text(path).splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            row = json.loads(line)
            if isinstance(row, dict) and {"cpu", "best"} <= row.keys():
                rows.append(row)
    return rows


def plot_progress(rows: list[dict], n: int, image: Path) -> None:
    """Best repeated-cube count against CPU hours, as a step curve, written atomically."""
    import io

    from ilp_pyramid.figures import pyplot

    plt = pyplot()

    hours = [row["cpu"] / 3600 for row in rows]
    best = [row["best"] for row in rows]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.step(hours, best, where="post", color="tab:blue")
    ax.plot(hours[-1:], best[-1:], "o", color="tab:blue")
    ax.set_xlabel("CPU hours (every search of every hunt on this state)")
    ax.set_ylabel("best state: repeated cubes")
    ax.set_title(f"Bel's Pyramid N={n}: hunt progress")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_atomic(image, buffer.getvalue())


def run_hunt(n: int, state_dir: Path, time_limit: float | None, jobs: int | None,
             scheduler: str | None, repair: str = "sat", seed: int | None = None,
             say=lambda text: None, neighbourhood: str = "family",
             schedule: str = "fixed", descent: float | None = None) -> HuntResult:
    """Hunt for `time_limit` seconds (None: until solved or interrupted).

    One hunt per state directory: it holds DIR/hunt.lock throughout (lock.Busy, naming the
    holder, for a second one); a lock left by a hunt that is gone is taken over.
    """
    from ilp_pyramid.formats.lock import describe, hold

    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot use --state-dir {state_dir}: {exc.strerror or exc}") from None

    def stale(text: str) -> None:
        say(f"note: {state_dir / LOCK_FILE} was left by {describe(text)}, which is gone; "
            f"taken over")

    with hold(state_dir / LOCK_FILE, f"--state-dir {state_dir}", on_stale=stale):
        return _run_locked(n, state_dir, time_limit, jobs, scheduler, repair, seed, say,
                           neighbourhood, schedule, descent)


def _run_locked(n: int, state_dir: Path, time_limit: float | None, jobs: int | None,
                scheduler: str | None, repair: str, seed: int | None, say,
                neighbourhood: str, schedule: str = "fixed",
                descent: float | None = None) -> HuntResult:
    from ilp_pyramid.extras import need

    need("distributed")
    import dask
    from distributed import Client, Event, LocalCluster, Variable

    from ilp_pyramid.puzzles.bel.hunt_cluster import LOG_FILE, ClusterOutput, check_limits
    from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution
    from ilp_pyramid.verify.bel import verify_solution

    best = load_best(state_dir, n)
    resumed_from = best.conflicts if best else None
    start = None
    if best is not None:
        if descent is not None:
            say(f"{state_dir / BEST_FILE} holds {best.conflicts} repeated "
                f"cube{'' if best.conflicts == 1 else 's'}; fresh descents of {descent:g} CPU "
                f"s each replace it only with a lower count")
        elif resumable(n, best.labels):
            start = [int(x) for x in best.labels]
            say(f"resuming from {state_dir / BEST_FILE}: {best.conflicts} repeated cubes, "
                f"{best.hunted_seconds / 60:.1f} min hunted so far")
        else:
            say(f"{state_dir / BEST_FILE} breaks the counting condition; starting afresh")
    hunt = Hunt(n, state_dir, best, say)
    deadline = None if time_limit is None else hunt.began + time_limit
    token = uuid.uuid4().hex[:12]
    base_seed = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    cluster = client = stop = None
    moves = 0
    descent_bests: list[int] = []
    if scheduler is None:
        jobs = min(jobs or cores(), cores())  # one search per core at most on this machine
        check_limits(jobs)
    output = ClusterOutput(state_dir / LOG_FILE)
    # Not daemonic: a worker may then fork the SAT solver's child, which keeps its time limit.
    with dask.config.set({"distributed.worker.daemon": False}), output, \
            hard_deadline(time_limit) as overrun:
        try:
            if scheduler is None:
                cluster = LocalCluster(n_workers=jobs, threads_per_worker=1,
                                       processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
                client = Client(cluster)
                where = "local cluster"
            else:
                client = Client(scheduler, timeout="20s")
                where = scheduler
            if jobs is None:
                jobs = max(1, sum(client.nthreads().values()))
            client.subscribe_topic(TOPIC, hunt.on_event)
            stop = Event(f"{TOPIC}-stop-{token}", client=client)
            shared = Variable(f"{TOPIC}-best-{token}", client=client)

            def share(state: BestState) -> None:
                with contextlib.suppress(Exception):  # sharing is a help, not a must
                    shared.set({"conflicts": state.conflicts,
                                "labels": [int(x) for x in state.labels]})

            hunt.share = share
            if best is not None:
                share(best)
            hunt.log(None)
            budget = None if deadline is None else max(0.0, deadline - time.monotonic())
            futures = [client.submit(hunt_task, n, base_seed + i, start,
                                     budget, repair, token, neighbourhood, schedule,
                                     descent, pure=False,
                                     key=f"bel-hunt-{token}-{i}")
                       for i in range(jobs)]
            say(f"hunting N={n} with {jobs} searches on {where}")
            while True:
                hunt.drain()
                finished = [f for f in futures if f.done()]
                for future in finished:
                    futures.remove(future)
                    if future.status == "error":
                        raise RuntimeError(f"a hunt worker failed: {future.exception()}")
                    result = future.result()
                    moves += result["moves"]
                    descent_bests += result.get("descent_bests", [])
                    hunt.take(result)
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
                descent_bests += result.get("descent_bests", [])
                hunt.take(result)
        except Overrun:
            say(f"the cluster did not finish within {OVERRUN_SECONDS:g} s of the time limit; "
                f"stopped")
        except (OSError, RuntimeError, TimeoutError) as exc:
            raise SolverError(f"the Dask cluster failed: {one_line(str(exc))} (its output: "
                              f"{output.path})") from None
        finally:
            # The state first (on Ctrl-C too): closing a cluster may take longer than the
            # interrupt leaves.
            overrun.cancel()
            hunt.drain()
            hunt.close()
            if stop is not None:  # the workers stop at their next poll
                with contextlib.suppress(Exception):
                    stop.set()
            _close(client, cluster, scheduler is None)
    if output.lines and not overrun.fired:
        say(f"note: {output.summary()}")
    result = HuntResult(n, "timeout", hunt.best, resumed_from, hunt.elapsed(), jobs or 0,
                        scheduler or "local", moves, descent_bests=descent_bests)
    if hunt.solved_labels is not None:
        solution = labels_to_solution(n, hunt.solved_labels)
        if not verify_solution(solution).valid:  # pragma: no cover - recounted above
            raise RuntimeError("a reported solution does not verify")
        result.status = "solved"
        result.solution_text = solution.to_drawing()
        write_atomic(state_dir / SOLUTION_FILE, result.solution_text)
    return result


# Whatever the cluster does (fails to start, hangs on a worker), the hunt ends this long after
# its time limit: the searches stop themselves at the limit and report within seconds.
OVERRUN_SECONDS = 10.0


class Overrun(Exception):
    """The hunt ran OVERRUN_SECONDS past its time limit."""


class _Alarm:
    def __init__(self) -> None:
        self.armed = False
        self.fired = False

    def cancel(self) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.armed = False


@contextlib.contextmanager
def hard_deadline(time_limit: float | None):
    """Raise Overrun in the main thread OVERRUN_SECONDS after `time_limit` (SIGALRM), so
    that no wait inside Dask outlasts the limit; `.cancel()` it once the work is over."""
    alarm = _Alarm()
    if (time_limit is None or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0):  # the timer is someone else's
        yield alarm
        return

    def ring(_signum, _frame) -> None:
        alarm.armed = False
        alarm.fired = True
        raise Overrun

    previous = signal.signal(signal.SIGALRM, ring)
    alarm.armed = True
    signal.setitimer(signal.ITIMER_REAL, time_limit + OVERRUN_SECONDS)
    try:
        yield alarm
    finally:
        alarm.cancel()
        signal.signal(signal.SIGALRM, previous)


def _close(client, cluster, local: bool) -> None:
    """Close the client and a local cluster within seconds each; if that fails (or the
    cluster never finished starting), kill the worker processes left."""
    clean = not local or cluster is not None
    for thing, seconds in ((client, 3), (cluster, 5)):
        if thing is None:
            continue
        try:
            thing.close(timeout=seconds)
        except Exception:  # noqa: BLE001 - whatever went wrong, the processes go below
            clean = False
    if not clean:
        from ilp_pyramid.cli import kill_descendants

        kill_descendants()


# -- the command ------------------------------------------------------------------------------

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
    seed: int = Seed,
    json_out: bool = Json,
) -> None:
    """Hunt for a Bel's Pyramid solution: one hybrid search per core, as long as it takes.

    The best state is kept in STATE_DIR/best.json; a restarted hunt resumes from it, and
    STATE_DIR/progress.jsonl logs the best count against CPU time (see --plot). The searches
    share their best state: a stalled one restarts near the hunt's best (with --descent they
    run fresh descents instead, and only a lower count replaces the saved state). A verified
    solution is written to STATE_DIR/solution.txt (docs/hybrid.md).
    Exit codes: 0 solved (or plotted), 2 bad input, 3 stopped by --time-limit without a
    solution, 130 interrupted (the best state is kept).
    """
    from ilp_pyramid.puzzles.bel.geometry import MAX_N
    from ilp_pyramid.puzzles.bel.lns.driver import NEIGHBOURHOODS, SCHEDULES
    from ilp_pyramid.puzzles.bel.lns.repair import REPAIRS

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
    if plot is not None:
        draw_plot(n, state_dir, plot, json_out)
        return

    def say(text: str) -> None:
        if not json_out:
            err_console.print(text, markup=False)

    result = run_hunt(n, state_dir, time_limit, jobs, scheduler, repair, seed, say=say,
                      neighbourhood=neighbourhood, schedule=schedule, descent=descent)
    best = result.best
    if json_out:
        print_json({
            "n": n,
            "status": result.status,
            "conflicts": best.conflicts if best else None,
            "resumed_from": result.resumed_from,
            "seconds": round(result.seconds, 2),
            "hunted_seconds": round(best.hunted_seconds, 1) if best else None,
            "cpu_seconds": round(best.cpu_seconds, 1) if best else None,
            "jobs": result.jobs,
            "scheduler": result.scheduler,
            "moves": result.moves,
            "descents": len(result.descent_bests),
            # best count -> how many fresh descents ended there
            "descent_bests": {str(k): v for k, v in
                              sorted(Counter(result.descent_bests).items())},
            "state_dir": str(state_dir),
            "best_file": str(state_dir / BEST_FILE),
            "solution_file": str(state_dir / SOLUTION_FILE) if result.solution_text else None,
            "solution": best.to_json()["solution"] if result.solution_text else None,
        })
    else:
        console.print(f"hunt N={n}: {result.seconds / 60:.1f} min with {result.jobs} searches "
                      f"({result.moves / 1e6:.0f} M moves); best state "
                      f"{best.conflicts if best else '-'} repeated cubes, "
                      f"{(best.hunted_seconds if best else 0) / 60:.1f} min hunted in total "
                      f"({(best.cpu_seconds if best else 0) / 3600:.2f} CPU hours); "
                      f"saved in {state_dir / BEST_FILE}")
        if result.descent_bests:
            console.print(f"{len(result.descent_bests)} fresh descents; their best counts: "
                          + ", ".join(f"{k} x{v}" for k, v in
                                      sorted(Counter(result.descent_bests).items())))
        if result.solution_text:
            console.print(f"solved and verified: {state_dir / SOLUTION_FILE}")
            console.print(result.solution_text, end="", markup=False)
    if result.status != "solved":
        raise typer.Exit(EXIT_TIMEOUT)


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
