"""Independent hybrid searches racing, one per core: the first verified answer stops the rest.

The time a search needs is heavy-tailed over seeds (N=5: 0.6 to 31 CPU s), and two independent
searches finish when the faster one does, so a race cuts the tail hardest. Each search is a
forked process running `driver.solve_lns` with its own seed (search 0 has the seed a single
search would have, so `--jobs 1` and search 0 walk the same path); it reports its best count
a few times a second, its best state whenever it improves (only to a race given `on_best`:
an interrupted race still has the closest state to show) and its outcome at the end. The
first solution that passes the independent checker here wins; every other search is killed
(SIGKILL, then reaped; their SAT children die with them, backends/process.py) before this
returns, also on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process
from ilp_pyramid.puzzles.bel.lns.warmup import compile_kernels
from ilp_pyramid.verify.bel import verify_solution

if TYPE_CHECKING:  # the driver loads numba: imported where a search runs
    import numpy as np

    from ilp_pyramid.puzzles.bel.lns.driver import LnsOutcome, Progress

# Seeds of searches 1, 2, ...: far from the seeds a user or a benchmark walks through (0, 1,
# 2, ...), so that two races with neighbouring seeds run no search in common.
SEED_STRIDE = 1_000_003
REPORT_EVERY = 0.25  # seconds between two progress messages of a search
GRACE = 5.0  # past the time limit, how long a search may take to say it stopped


@dataclass
class RaceOutcome:
    """The winning search's outcome (or, without a winner, the one with the fewest repeated
    cubes), which search that was, and the CPU time of every search together."""

    outcome: LnsOutcome
    jobs: int
    winner: int | None  # index of the search that found the solution
    seed: int  # that search's seed
    cpu_seconds: float  # every search and its children, and this process, while racing


def seeds(seed: int | None, jobs: int) -> list[int]:
    base = 0 if seed is None else int(seed)
    return [base + i * SEED_STRIDE for i in range(jobs)]


def process_cpu() -> float:
    """CPU seconds of this process and its reaped children (and theirs)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def race_lns(n: int, repair: str, jobs: int, time_limit: float | None = None,
             seed: int | None = None,
             progress: Callable[[Progress], None] | None = None,
             on_best: Callable[[int, np.ndarray], None] | None = None) -> RaceOutcome:
    """Run `jobs` searches until one finds a verified solution or the time limit passes.
    `on_best(conflicts, labels)`: called with each search's new best states as they come
    (not in order across searches: the caller keeps the fewest)."""
    from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution
    from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, TIMEOUT

    compile_kernels(n)  # loaded (or compiled) once here and inherited by every search
    cpu0, began = process_cpu(), time.perf_counter()
    context = multiprocessing.get_context("fork")
    # Not daemonic: a search forks its large SAT repairs into a child that keeps a time limit.
    workers, pipes = [], []
    try:
        for index, worker_seed in enumerate(seeds(seed, jobs)):
            receiver, sender = context.Pipe(duplex=False)
            worker = context.Process(target=_search, name=f"bel-race-{index}",
                                     args=(sender, n, repair, time_limit, worker_seed,
                                           on_best is not None))
            worker.start()
            sender.close()
            workers.append(worker)
            pipes.append(receiver)
        best: dict[int, Progress] = {}
        done: dict[int, LnsOutcome] = {}
        deadline = None if time_limit is None else began + time_limit + GRACE
        while len(done) < jobs:
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            ready = multiprocessing.connection.wait(
                [p for i, p in enumerate(pipes) if i not in done],
                timeout=0.5 if left is None else min(0.5, left))
            for pipe in ready:
                index = pipes.index(pipe)
                try:
                    kind, payload = pipe.recv()
                except EOFError:  # the search died without a word: it is out of the race
                    done[index] = _lost(n, repair, time.perf_counter() - began)
                    continue
                if kind == "best":
                    if on_best is not None:
                        on_best(*payload)
                    continue
                if kind == "progress":
                    best[index] = payload
                    if progress is not None:
                        progress(_merged(n, best, time.perf_counter() - began))
                    continue
                done[index] = payload
                if payload.status == SOLVED:
                    solution = labels_to_solution(n, payload.best_labels)
                    if not verify_solution(solution).valid:  # pragma: no cover - verified there
                        raise RuntimeError(f"search {index} reported a solution that does "
                                           f"not verify")
                    _stop(workers)
                    won = replace(payload, solution=solution)
                    return RaceOutcome(won, jobs, index, seeds(seed, jobs)[index],
                                       process_cpu() - cpu0)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        _stop(workers)
        outcomes = list(done.values()) or [_lost(n, repair, time.perf_counter() - began)]
        closest = min(outcomes, key=lambda o: o.best_conflicts)
        index = next((i for i, o in done.items() if o is closest), 0)
        return RaceOutcome(replace(closest, status=TIMEOUT), jobs, None,
                           seeds(seed, jobs)[index], process_cpu() - cpu0)
    finally:
        _stop(workers)  # on Ctrl-C, SIGTERM or an error too: no search outlives the race
        for pipe in pipes:
            pipe.close()


def _search(sender, n: int, repair: str, time_limit: float | None, seed: int,
            share_best: bool = False) -> None:
    """One search, in its own process; `share_best`: send every new best state too."""
    from ilp_pyramid.puzzles.bel.lns.driver import solve_lns

    process.die_with_parent()
    for sig in (signal.SIGINT, signal.SIGTERM):  # the race's process does the cleaning up
        signal.signal(sig, signal.SIG_DFL)
    last = [0.0]

    def report(p: Progress) -> None:
        now = time.monotonic()
        if now - last[0] >= REPORT_EVERY:
            last[0] = now
            sender.send(("progress", p))

    def best(conflicts: int, labels: np.ndarray) -> None:
        sender.send(("best", (conflicts, labels)))

    outcome = solve_lns(n, repair, time_limit=time_limit, seed=seed, progress=report,
                        on_best=best if share_best else None)
    # The solution goes back as labels only: the race re-checks it from them.
    sender.send(("done", replace(outcome, solution=None)))
    sender.close()


def _merged(n: int, best: dict[int, Progress], seconds: float) -> Progress:
    """What the live line shows for the race: the fewest repeated cubes of any search, the
    moves and restarts of all of them."""
    from ilp_pyramid.puzzles.bel.lns.driver import Progress

    return Progress(n, seconds, min(p.best for p in best.values()),
                    min(p.current for p in best.values()), sum(p.moves for p in best.values()),
                    sum(p.restarts for p in best.values()),
                    sum((p.repairs for p in best.values()), Counter()))


def _lost(n: int, repair: str, seconds: float) -> LnsOutcome:
    import numpy as np

    from ilp_pyramid.puzzles.bel.lns.driver import TIMEOUT, LnsOutcome

    return LnsOutcome(n, repair, TIMEOUT, seconds, 1 << 30, np.zeros(0, np.int32), 0, 0)


def _stop(workers: list) -> None:
    for worker in workers:
        if worker.pid is not None and worker.exitcode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGKILL)
    for worker in workers:
        if worker.pid is not None:
            worker.join()

