"""`ilp-pyramid solve N --method lns`: the hybrid search behind the usual solve output.

The answer has the same form as the exact method's: the verified drawing (or the same --json
object: the common keys of every solve, the exact method's, and a few of its own), exit 3 and
status "timeout" when the time limit passes first. The live line (best repeated cubes so far)
goes to stderr, never with --json. A search that ends without a solution still has a closest
state: --json gives it as `best` (N, its count of repeated cubes, its labels; the form of a
hunt's best.json, which `render` and `verify` read), at the time limit and on Ctrl-C too
(status "interrupted", exit 130: the one JSON object is printed before the command ends).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ilp_pyramid.backends import require
from ilp_pyramid.cli.options import (
    EXIT_TIMEOUT,
    console,
    err_console,
    fail,
    print_json,
    write_output,
)
from ilp_pyramid.progress import feed
from ilp_pyramid.puzzles.bel.geometry import cell_count
from ilp_pyramid.puzzles.bel.lns.race import RaceOutcome, process_cpu, seeds
from ilp_pyramid.puzzles.bel.lns.repair import REPAIR_SOLVERS, REPAIRS
from ilp_pyramid.puzzles.bel.lns.result import lns_result, run_search

METHODS = ("exact", "lns")
# Said on a terminal before a run whose search kernels numba must compile first (nothing else
# shows for those seconds; the compile's cost is in docs/auto.md, "Whole-process time").
# Later runs load the kernels from numba's cache (NUMBA_CACHE_DIR, else __pycache__ beside the
# sources).
COMPILING = "compiling the search kernels (first run only)..."


def check_method(method: str, repair: str) -> None:
    if method not in METHODS:
        fail(f"unknown method {method!r} (choose from {', '.join(METHODS)})")
    if repair not in REPAIRS:
        fail(f"unknown repair {repair!r} (choose from {', '.join(REPAIRS)})")
    require(REPAIR_SOLVERS[repair])  # a missing extra: exit 2 naming it


def progress_text(p: Any) -> str:
    rate = p.moves / p.seconds / 1e6 if p.seconds > 0 else 0.0
    repaired = sum(p.repairs.values())
    return (f"N={p.n} lns {p.seconds:6.1f} s  best [bold]{p.best}[/] repeated cubes "
            f"(now {p.current})  {p.moves / 1e6:7.1f} M moves ({rate:.1f} M/s)  "
            f"{repaired} repairs  {p.restarts} restarts")


class LiveLine:
    """The one-line progress display on stderr (refreshed at most a few times a second)."""

    def __init__(self, enabled: bool):
        self.live = None
        self.last = 0.0
        if enabled:
            from rich.live import Live

            self.live = Live("", console=err_console, refresh_per_second=4, transient=True,
                             redirect_stdout=False, redirect_stderr=False)

    def __enter__(self):
        if self.live is not None:
            self.live.__enter__()
        return self

    def __exit__(self, *exc):
        if self.live is not None:
            self.live.__exit__(*exc)

    def update(self, progress: Any) -> None:
        feed({"elapsed": progress.seconds, "best": progress.best, "current": progress.current,
              "moves": progress.moves, "restarts": progress.restarts,
              "repairs": sum(progress.repairs.values())})
        now = time.monotonic()
        if self.live is not None and now - self.last >= 0.25:
            self.last = now
            self.live.update(progress_text(progress))


def run_lns_command(n: int, repair: str, time_limit: float | None, seed: int | None,
                    output: Path | None, json_out: bool,
                    on_progress: Callable[[int, float], None] | None = None, jobs: int = 1,
                    json_extra: dict | None = None) -> int:
    """The command's body; returns its exit code (0 solved, 3 time limit), for the Typer
    command to raise and the quick path (no Typer) to return. `on_progress(best, elapsed)`:
    called after every chunk of moves with the fewest repeated cubes so far and the seconds
    since the start (for a caller's display). `jobs` > 1: that many searches race
    (lns/race.py); `json_extra`: keys added to --json."""
    if not json_out:
        searches = f"{jobs} racing local searches" if jobs > 1 else "local search"
        console.print(f"Bel's Pyramid N={n}: {cell_count(n)} cells, {2 * n - 1} labels; "
                      f"{searches} + {repair} repair", markup=False)
    if err_console.is_terminal:
        say_compiling()
    closest = Closest(n, repair, jobs, seed)
    try:
        with LiveLine(enabled=not json_out and err_console.is_terminal) as live:
            def progress(p: Any) -> None:
                live.update(p)
                closest.progress = p
                if on_progress is not None:
                    on_progress(p.best, p.seconds)

            race = run_search(n, repair, time_limit, seed, jobs, progress, closest.keep)
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: say what the search had, then end as asked
        show_interrupted(closest.outcome(), json_out, json_extra)
        raise
    result = lns_result(race, json_extra)
    if json_out:
        print_json(result.to_json())
    else:
        print_text(race)
    if result.solution is not None:
        write_output(output, result.solution.to_drawing())
    return 0 if result.solved else EXIT_TIMEOUT


def say_compiling() -> None:
    """One line on stderr when the search's kernels are not compiled yet. A terminal only:
    it is for a person watching a silent screen, and it would make a script's stderr differ
    between a first run and the next; with --json too (stdout stays the one object)."""
    from ilp_pyramid.puzzles.bel.lns.search import kernels_cached  # numba

    if not kernels_cached():
        err_console.print(COMPILING, markup=False)


@dataclass
class Closest:
    """What a search has seen so far: its fewest repeated cubes and their labels (`keep` is
    its `on_best`), its last live measures; what an interrupted search still has to show."""

    n: int
    repair: str
    jobs: int
    seed: int | None
    conflicts: int | None = None
    labels: Any = None
    progress: Any = None
    began: float = 0.0
    cpu0: float = 0.0

    def __post_init__(self) -> None:
        self.began, self.cpu0 = time.perf_counter(), process_cpu()

    def keep(self, conflicts: int, labels: Any) -> None:
        if self.conflicts is None or conflicts < self.conflicts:
            self.conflicts, self.labels = int(conflicts), labels.copy()

    def outcome(self) -> RaceOutcome:
        """The search so far as an interrupted outcome (no solution, its best state)."""
        import numpy as np

        from ilp_pyramid.puzzles.bel.lns.driver import INTERRUPTED, LnsOutcome

        p = self.progress
        outcome = LnsOutcome(
            self.n, self.repair, INTERRUPTED, time.perf_counter() - self.began,
            -1 if self.conflicts is None else self.conflicts,
            np.zeros(0, np.int32) if self.labels is None else self.labels,
            p.moves if p else 0, p.restarts if p else 0, p.repairs.copy() if p else Counter())
        return RaceOutcome(outcome, self.jobs, None, seeds(self.seed, self.jobs)[0],
                           process_cpu() - self.cpu0)


def show_interrupted(race: RaceOutcome, json_out: bool, json_extra: dict | None) -> None:
    """An interrupted search's answer: --json's one object (status "interrupted", its best
    state), or the line the time limit would print."""
    outcome = race.outcome
    if json_out:
        print_json(lns_result(race, json_extra).to_json())
    elif outcome.best_conflicts >= 0:
        console.print(f"interrupted after {outcome.seconds:.1f} s: best state had "
                      f"{outcome.best_conflicts} repeated cubes")


def print_text(race: RaceOutcome) -> None:
    outcome = race.outcome
    console.print(f"search: {outcome.moves / 1e6:.1f} M moves "
                  f"({outcome.moves_per_second / 1e6:.2f} M/s), {outcome.restarts} restarts, "
                  f"{sum(outcome.repairs.values())} repairs ({outcome.repair_seconds:.1f} s); "
                  f"{outcome.seconds:.2f} s")
    if race.jobs > 1:
        won = (f"won by search {race.winner} (seed {race.seed})" if race.winner is not None
               else "none finished")
        console.print(f"race: {race.jobs} searches, {won}; {race.cpu_seconds:.1f} CPU s in all",
                      markup=False)
    if outcome.solution is not None:
        console.print(f"verified: every cube of the set appears exactly once "
                      f"(found by {outcome.solved_by})")
        console.print(outcome.solution.to_drawing(), end="", markup=False)
    else:
        console.print(f"timeout: no solution within the time limit ({outcome.seconds:.1f} s); "
                      f"best state had {outcome.best_conflicts} repeated cubes")
