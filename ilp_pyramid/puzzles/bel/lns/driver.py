"""The hybrid search: compiled local search, exact whole-family repairs, restarts.

One run: start from random labels that meet the counting condition; run the local search in
chunks (so the wall clock, the live line and a stop request are checked between chunks);
whenever the search stands at few repeated cubes, free one family of lines and solve the
exact cover that re-labels it (Z first: the X and Y labels of a state decide whether its
Z repair can work, so each X/Y configuration is tried once; the small X and Y repairs only at
the lowest levels); restart from new random labels when a descent stalls. Whatever it
returns as solved has passed ilp_pyramid.verify.bel.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ilp_pyramid.backends.base import Status
from ilp_pyramid.puzzles.bel.lns import repair as repairs
from ilp_pyramid.puzzles.bel.lns.arrays import FAMILY_CODE, arrays, conflicts_of, labels_to_solution
from ilp_pyramid.puzzles.bel.lns.region import RegionNeighbourhood, conflict_lines
from ilp_pyramid.puzzles.bel.lns.search import LocalSearch, perturb, random_labels
from ilp_pyramid.puzzles.bel.lns.tempering import Tempering
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.verify.bel import verify_solution

# A run that `should_stop` ended (the hunt's stop flag) is `interrupted`: stopped from outside.
SOLVED, TIMEOUT, INTERRUPTED = Status.SOLVED, Status.TIMEOUT, Status.INTERRUPTED
NEIGHBOURHOODS = ("family", "region", "region2")
SCHEDULES = ("fixed", "tempering")


@dataclass(frozen=True)
class Settings:
    """Knobs of the search; the defaults are the ones measured in docs/hybrid.md."""

    temperature: float = 0.3  # simulated annealing at a fixed temperature (delta in cubes)
    p_target: float = 0.5  # share of moves aimed at a missing cube
    p_triple: float = 0.2  # share of one-for-two swaps (moves lengths between labels)
    # share of moves that re-label one line alone, the counting condition free to break
    # (None: by N); at N=6 they took a descent far lower (docs/hybrid.md, "Single-line moves")
    p_single: float | None = None
    chunk: int = 250_000  # moves between two looks at the clock
    repair_at: int | None = None  # try repairs at this many repeated cubes (None: by N)
    restart_moves: int | None = None  # restart a descent this long without a new best
    # one repair may take this long at most: CPU seconds of a SAT repair, wall seconds of the
    # others (measured together with the N=5 level 3, not apart from it: with repairs at 3,
    # most covers are impossible and a long wait for one costs more than the next descent;
    # 1 s at N=5 shortened the choosing seeds' tail, not the checking seeds': docs/hybrid.md,
    # "Long covers")
    repair_time_limit: float = 5.0
    # a Z cover cut by that limit counts as this many impossible ones toward the restart
    # (`restart_covers`); not measured apart from the 1 s limit, so off
    timeout_weight: float = 0.0
    # also the (small) X and Y repairs below the repair level (None: by N)
    xy_repairs: bool | None = None
    # restart a descent after this many impossible Z covers of its states (None: by N)
    restart_covers: int | None = None
    restart_from_best: bool = False  # restart from the best state, kicked, not from scratch
    kick_swaps: int | None = None  # label exchanges of that kick (None: by N)
    # "family": whole-family repairs only; "region": also SAT re-labels the lines through the
    # conflicting cells plus crossing lines (lns/region.py), all three families free there;
    # "region2": the same with one family (drawn per repair) kept fixed in the region
    neighbourhood: str = "family"
    region_time_limit: float = 2.0  # one region repair; the region grows while answers come
    region_at: int | None = None  # region repairs at this many repeated cubes (None: by N)
    # at most this share of the run's wall time goes to region repairs (with the CNF's
    # build): unbounded, they starved the N=6 descent of its moves (docs/hybrid.md)
    region_share: float = 0.2
    # at most this share of the run's wall time goes to whole-family repairs (None: by N);
    # past it the search runs whole chunks without stopping at low states. With single-line
    # moves an N=5 descent sat at 1-3 repeated cubes and spent its time on repairs
    repair_share: float | None = None
    # "fixed": one walk at `temperature`; "tempering": replicas on `ladder` exchanging
    # temperatures (lns/tempering.py), `segment` moves each between two exchange sweeps
    schedule: str = "fixed"
    # after an impossible Z repair, this many neighbours of the state (one X/Y line through a
    # repeated cube exchanged with an X/Y line of its length) get a Z repair each (None: by
    # N). The Z cover depends on the X and Y labels alone: a neighbour costs one cover, far
    # less than the moves the walk spends on its next new state (docs/hybrid.md)
    z_kicks: int | None = None
    ladder: tuple[float, ...] = (0.25, 0.3, 0.37, 0.45)
    segment: int = 25_000

    def region_level(self, n: int) -> int:
        if self.region_at is not None:
            return self.region_at
        # N=6 descents rarely got low (docs/hybrid.md): region repairs start higher there
        return max(self.repair_level(n), 6 if n >= 6 else 0)

    def single_share(self, n: int) -> float:
        if self.p_single is not None:
            return self.p_single
        return 1.0 if n >= 6 else 0.0

    def repair_cap(self, n: int) -> float:
        if self.repair_share is not None:
            return self.repair_share
        return 0.25 if n >= 6 else 1.0

    def repair_level(self, n: int) -> int:
        if self.repair_at is not None:
            return self.repair_at
        # N=5 at 3 (not 2): less CPU to a solution, measured over seeds (docs/hybrid.md).
        # N>=6 at 1: no cover ever completed a 2- or 3-state there, and stopping the walk for
        # them cost the descents that got that low moves (side by side, docs/frontier.md)
        return {1: 0, 2: 0, 3: 1, 4: 3, 5: 3}.get(n, 1)

    def restart_after(self, n: int) -> int:
        if self.restart_moves is not None:
            return self.restart_moves
        if n >= 6:
            # single-line moves (the N>=6 default) find a descent's floor within about this
            # many moves; kicked restarts from the best this often reached 3 repeated cubes
            # sooner than rarer ones (N=6, docs/hybrid.md)
            return 20_000_000
        return 2_000_000 * 5 ** max(0, n - 3)  # N=4: 10 M, N=5: 50 M

    def xy(self, n: int) -> bool:
        if self.xy_repairs is not None:
            return self.xy_repairs
        # N=5, over seeds (docs/hybrid.md): no X or Y cover ever completed a state, and
        # without them the seeds took less CPU in all and the slowest seed less
        return n != 5

    def kicks(self, n: int) -> int:
        if self.z_kicks is not None:
            return self.z_kicks
        # N=5, over seeds (docs/hybrid.md): 4 kicks solved more seeds, sooner, than none or
        # 10; not measured at other N
        return 4 if n == 5 else 0

    def covers_before_restart(self, n: int) -> float:
        if self.restart_covers is not None:
            return self.restart_covers
        # N=5, over seeds (docs/hybrid.md): a restart after 15 impossible covers beat never
        # restarting; after 4, 8 or 30 no better than never
        return 15 if n == 5 else float("inf")

    def kick(self, n: int) -> int:
        return self.kick_swaps if self.kick_swaps is not None else 2 * n


@dataclass
class Progress:
    """What the live line shows."""

    n: int
    seconds: float
    best: int  # fewest repeated cubes seen in this run
    current: int
    moves: int
    restarts: int
    repairs: Counter


@dataclass
class LnsOutcome:
    n: int
    repair: str
    status: Status  # solved | timeout | interrupted
    seconds: float
    best_conflicts: int
    best_labels: np.ndarray
    moves: int
    restarts: int
    repairs: Counter = field(default_factory=Counter)  # (family, Status) -> count
    solution: BelSolution | None = None
    solved_by: str = ""  # "search" or "repair X|Y|Z|Zkick|region"
    repair_seconds: float = 0.0  # wall time spent in repairs
    slowest_repair: float = 0.0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds > 0 else 0.0

    def repair_summary(self) -> dict[str, int]:
        return {f"{family}_{status}": count for (family, status), count in sorted(
            self.repairs.items())}


def solve_lns(n: int, repair: str = "sat", time_limit: float | None = None,
              seed: int | None = None, settings: Settings | None = None,
              start: np.ndarray | None = None,
              progress: Callable[[Progress], None] | None = None,
              should_stop: Callable[[], bool] | None = None,
              on_best: Callable[[int, np.ndarray], None] | None = None,
              shared_best: Callable[[], tuple[int, np.ndarray] | None] | None = None,
              ) -> LnsOutcome:
    """Search until a verified solution, the time limit, or `should_stop()`.

    `start`: labels to begin from (a saved best state) instead of random ones.
    `on_best(conflicts, labels)` is called whenever the run's best improves.
    `shared_best()`: the best state other searches found (a hunt's workers share theirs), or
    None; a stalled descent restarts from it (kicked) when it beats this run's best.
    """
    if repair not in repairs.REPAIRS:
        raise ValueError(f"unknown repair {repair!r} (choose from {', '.join(repairs.REPAIRS)})")
    settings = settings or Settings()
    if settings.neighbourhood not in NEIGHBOURHOODS:
        raise ValueError(f"unknown neighbourhood {settings.neighbourhood!r} "
                         f"(choose from {', '.join(NEIGHBOURHOODS)})")
    if settings.schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {settings.schedule!r} "
                         f"(choose from {', '.join(SCHEDULES)})")
    region = (RegionNeighbourhood(n, two_free=settings.neighbourhood == "region2")
              if settings.neighbourhood != "family" else None)
    try:
        return _solve(n, repair, time_limit, seed, settings, start, progress, should_stop,
                      on_best, shared_best, region)
    finally:
        if region is not None:
            region.close()


def _solve(n, repair, time_limit, seed, settings, start, progress, should_stop, on_best,
           shared_best, region) -> LnsOutcome:
    began = time.perf_counter()
    deadline = None if time_limit is None else began + time_limit
    seed = 0 if seed is None else int(seed)
    rng = np.random.default_rng(seed)
    a = arrays(n)
    level = settings.repair_level(n)
    region_level = settings.region_level(n) if region is not None else level
    restart_after = settings.restart_after(n)
    restart_covers = settings.covers_before_restart(n)
    single = settings.single_share(n)
    repair_cap = settings.repair_cap(n)
    kicks = settings.kicks(n)
    first = np.asarray(start, dtype=np.int32) if start is not None else random_labels(n, rng)
    search = (Tempering(n, first, seed, settings.ladder, settings.segment)
              if settings.schedule == "tempering" else LocalSearch(n, first, seed))
    best = search.best
    best_labels = search.best_labels.copy()
    tried: set[tuple[str, bytes]] = set()
    stats: Counter = Counter()
    restarts = 0
    spent = [0.0, 0.0]  # seconds in repairs, slowest repair
    region_spent = [0.0]  # wall seconds in region repairs, the solver's set-up included
    family_spent = [0.0]  # wall seconds in whole-family repairs
    descent_best, descent_mark = search.best, 0
    descent_covers = 0  # impossible Z covers since the descent began
    if on_best is not None:
        on_best(best, best_labels)

    def measured(kind: str, attempt: Callable, limit: float):
        """attempt(limit), its time and answer counted (the shares, the --json summary)."""
        before = time.perf_counter()
        result = attempt(limit)
        (region_spent if kind == "region" else family_spent)[0] += time.perf_counter() - before
        stats[(kind, result.status)] += 1
        spent[0] += result.seconds
        spent[1] = max(spent[1], result.seconds)
        return result

    def finish(status: Status, solution: BelSolution | None = None, how: str = "") -> LnsOutcome:
        return LnsOutcome(n, repair, status, time.perf_counter() - began, best, best_labels,
                          search.moves, restarts, stats, solution, how, *spent)

    while True:
        now = time.perf_counter()
        if deadline is not None and now >= deadline:
            return finish(TIMEOUT)
        if should_stop is not None and should_stop():
            return finish(INTERRUPTED)
        elapsed = time.perf_counter() - began
        family_ok = _within(family_spent[0], repair_cap, elapsed)
        region_ok = region is not None and _within(region_spent[0], settings.region_share,
                                                   elapsed)
        repairing = family_ok or region_ok
        search.run(settings.chunk, settings.temperature, settings.p_target, settings.p_triple,
                   stop_at=max(level, region_level) if repairing else -1, p_single=single)
        if search.best < best:
            best = search.best
            best_labels = search.best_labels.copy()
            if on_best is not None:
                on_best(best, best_labels)
        if search.conflicts == 0:
            return finish(SOLVED, _verified(n, search.labels), "search")
        if repairing and search.conflicts <= max(level, region_level):
            labels = search.labels
            attempts = []  # (kind, state key, time limit, the repair)
            if search.conflicts <= level and family_ok:
                for family in _families(search.conflicts, level, settings.xy(n)):
                    attempts.append((family, labels[a.family != FAMILY_CODE[family]].tobytes(),
                                     settings.repair_time_limit,
                                     lambda limit, f=family, lab=labels: repairs.repair(
                                         n, lab, f, repair, limit, seed)))
            if region_ok:
                attempts.append(("region", labels.tobytes(), settings.region_time_limit,
                                 lambda limit, lab=labels: region.attempt(lab, rng, limit)))
            for kind, state, limit, attempt in attempts:
                if (kind, state) in tried:
                    continue
                tried.add((kind, state))
                if deadline is not None:
                    limit = min(limit, max(0.05, deadline - time.perf_counter()))
                result = measured(kind, attempt, limit)
                solved_by = kind
                if kind == "Z" and result.status == repairs.TIMEOUT:
                    descent_covers += settings.timeout_weight
                if kind == "Z" and result.status == repairs.INFEASIBLE:
                    descent_covers += 1
                    if kicks:
                        solved_by = "Zkick"
                        result = _kicked(n, labels, kicks, rng, tried, a, lambda lab, lim=limit:
                                         measured("Zkick", lambda t: repairs.repair(
                                             n, lab, "Z", repair, t, seed), lim))
                if result.status == repairs.SOLVED:
                    best, best_labels = 0, result.labels
                    if on_best is not None:
                        on_best(0, best_labels)
                    return finish(SOLVED, _verified(n, result.labels), f"repair {solved_by}")
        if search.best < descent_best:
            descent_best, descent_mark = search.best, search.moves
        elif (search.moves - descent_mark > restart_after
              or descent_covers >= restart_covers):
            restarts += 1
            descent_covers = 0
            search.reset(_restart_labels(n, settings, rng, best, best_labels, shared_best))
            descent_best, descent_mark = search.best, search.moves
        if progress is not None:
            progress(Progress(n, time.perf_counter() - began, best, search.conflicts,
                              search.moves, restarts, stats))


def _restart_labels(n: int, settings: Settings, rng: np.random.Generator, best: int,
                    best_labels: np.ndarray,
                    shared_best: Callable[[], tuple[int, np.ndarray] | None] | None,
                    ) -> np.ndarray:
    """Where a stalled descent starts again: a kicked copy of the best state known (another
    search's, when it is better), or fresh random labels."""
    other = shared_best() if shared_best is not None else None
    if other is not None and other[0] < best:
        return perturb(n, other[1], settings.kick(n), rng)
    if settings.restart_from_best:
        return perturb(n, best_labels, settings.kick(n), rng)
    return random_labels(n, rng)


def _kicked(n: int, labels: np.ndarray, kicks: int, rng: np.random.Generator,
            tried: set, a, repair_z: Callable) -> repairs.RepairResult:
    """`repair_z(neighbour)` for `kicks` neighbours of `labels` (one X/Y line through a
    repeated cube exchanged with another X/Y line of its length and another label), skipping
    X/Y labels already `tried`: the first answer that completes, or the last one."""

    xy = a.family != FAMILY_CODE["Z"]
    near = [int(i) for i in conflict_lines(n, labels) if xy[i]]
    result = repairs.RepairResult(repairs.INFEASIBLE, 0.0)
    for _ in range(kicks if near else 0):
        i = near[int(rng.integers(len(near)))]
        partners = np.flatnonzero(xy & (a.line_len == a.line_len[i]) & (labels != labels[i]))
        if len(partners) == 0:
            continue
        j = int(partners[int(rng.integers(len(partners)))])
        lab = labels.copy()
        lab[i], lab[j] = lab[j], lab[i]
        key = ("Z", lab[xy].tobytes())
        if key in tried:
            continue
        tried.add(key)
        result = repair_z(lab)
        if result.status == repairs.SOLVED:
            break
    return result


def _within(spent: float, share: float, elapsed: float) -> bool:
    """Whether repairs of one kind may run: they have had at most `share` of the time."""
    return share > 0 and spent <= share * elapsed


def _families(conflicts: int, level: int, xy: bool = True) -> tuple[str, ...]:
    # The Z repair frees most lines and is the one that works; the X and Y repairs free only
    # N^2 lines each, so they are worth their (small) cost only at the lowest levels.
    return ("Z", "X", "Y") if xy and (conflicts < level or level <= 1) else ("Z",)


def _verified(n: int, labels: np.ndarray) -> BelSolution:
    solution = labels_to_solution(n, labels)
    verdict = verify_solution(solution)
    if not verdict.valid:  # pragma: no cover - the search and the repairs are exact
        raise RuntimeError(f"lns produced a labelling that does not verify: "
                           f"{verdict.reasons()[0]} ({conflicts_of(n, labels)} repeated cubes)")
    return solution
