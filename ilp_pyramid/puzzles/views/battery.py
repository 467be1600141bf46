"""The spec's battery: MD5("000000".."999999") -> 48 input bits -> exact minimum, over processes.

Each worker takes a chunk of seeds: MD5 (hashlib), a compiled screen that drops the
unsolvable inputs (about 99.5 % of them), the exact branch and bound on the rest (timed one by
one), and the independent re-projection check of every verdict in the chunk, solvable or not.
A case the branch and bound could not finish within its node limit goes to the MIP; one that
neither proves is reported as unproved, never counted as optimal in silence.

The pool's helper processes (the forkserver, the resource tracker) are stopped and waited for
before `run_battery` returns: none outlives it, and the CPU they and the workers used is in
its CPU figure (this process's RUSAGE_CHILDREN).
"""

from __future__ import annotations

import gc
import hashlib
import math
import multiprocessing
import resource
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.machine import cores
from ilp_pyramid.puzzles.views.geometry import (
    BATTERY_SIZE,
    SEED_DIGITS,
    placement_bits,
    seed_views,
)
from ilp_pyramid.puzzles.views.outcome import PROVER
from ilp_pyramid.puzzles.views.puzzle import PUZZLE
from ilp_pyramid.verify.views import verify_batch

N = 4  # the battery's puzzles are 4 x 4 x 4 (48 input bits, 64 answer bits)
CHUNK = 25_000
NODE_LIMIT = 10_000_000
MIP_FALLBACK_SECONDS = 60.0

# Bit-reversal of 16-bit words: the spec reads pixel 0 from the most significant bit of a
# view, the engine keeps pixel p at bit p.
_WORDS = np.arange(1 << 16, dtype=np.uint64)
_REV16 = sum(((_WORDS >> np.uint64(b)) & np.uint64(1)) << np.uint64(15 - b) for b in range(16))


def seed_text(seed: int) -> str:
    return f"{seed:0{SEED_DIGITS}}"


def seed_inputs(start: int, stop: int) -> np.ndarray:
    """The 48-bit inputs of seeds start..stop-1 (first 6 bytes of each MD5, big-endian)."""
    digests = b"".join(hashlib.md5(b"%06d" % k).digest()[:6] for k in range(start, stop))
    raw = np.frombuffer(digests, dtype=np.uint8).reshape(-1, 6).astype(np.uint64)
    values = np.zeros(len(raw), dtype=np.uint64)
    for i in range(6):
        values = (values << np.uint64(8)) | raw[:, i]
    return values


def engine_masks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mask = np.uint64(0xFFFF)
    return tuple(_REV16[(values >> np.uint64(shift)) & mask] for shift in (32, 16, 0))


@dataclass
class ChunkResult:
    start: int
    stop: int
    seeds: np.ndarray  # the solvable seeds
    cubes: np.ndarray
    answers: np.ndarray  # 64-bit answers, bit 0 (cell x=y=z=0) most significant
    seconds: np.ndarray  # branch and bound CPU time per solvable seed
    nodes: np.ndarray
    unproved: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)  # verdicts the re-projection rejected


def run_chunk(start: int, stop: int, node_limit: int = NODE_LIMIT) -> ChunkResult:
    from ilp_pyramid.puzzles.views.engine import min_cubes, solvable_batch

    values = seed_inputs(start, stop)
    tops, fronts, sides = engine_masks(values)
    solvable = solvable_batch(N, tops, fronts, sides)
    where = np.nonzero(solvable)[0]
    cubes = np.zeros(len(where), dtype=np.int64)
    answers = np.zeros(len(values), dtype=np.uint64)
    seconds = np.zeros(len(where))
    nodes = np.zeros(len(where), dtype=np.int64)
    unproved = []
    for j, i in enumerate(where):
        # CPU time of this thread: on a shared machine, wall time per case measures the
        # neighbours more than the search.
        began = time.thread_time()
        count, placement, searched, proved = min_cubes(N, tops[i], fronts[i], sides[i],
                                                       node_limit)
        seconds[j] = time.thread_time() - began
        cubes[j], nodes[j] = count, searched
        answers[i] = int.from_bytes(np.packbits(placement).tobytes(), "big")
        if not proved:
            unproved.append(start + int(i))
    holds = verify_batch(N, values, answers, solvable)
    failed = [start + int(i) for i in np.nonzero(~holds)[0]]
    return ChunkResult(start, stop, where + start, cubes, answers[where], seconds, nodes,
                       unproved, failed)


def _chunk_job(args: tuple[int, int, int]) -> ChunkResult:
    return run_chunk(*args)


@dataclass
class Case:
    seed: int
    cubes: int
    answer: int
    seconds: float
    nodes: int
    proved_by: str = "branch and bound"

    @property
    def answer_hex(self) -> str:
        return f"{self.answer:016x}"


@dataclass
class BatteryReport:
    start: int
    count: int
    jobs: int
    seconds: float = 0.0  # wall clock, engine load excluded
    cpu_seconds: float = 0.0  # CPU of this process and of its helpers and workers, same span
    warmup_seconds: float = 0.0
    cases: list[Case] = field(default_factory=list)  # solvable seeds, in seed order
    unproved: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)

    @property
    def solvable(self) -> int:
        return len(self.cases)

    @property
    def total_cubes(self) -> int:
        return sum(case.cubes for case in self.cases)

    @property
    def distribution(self) -> dict[int, int]:
        return dict(sorted(Counter(case.cubes for case in self.cases).items()))

    @property
    def slowest(self) -> Case | None:
        return max(self.cases, key=lambda case: case.seconds, default=None)

    @property
    def hardest(self) -> Case | None:
        """The case with the most branch and bound nodes (timings on a busy machine jitter)."""
        return max(self.cases, key=lambda case: case.nodes, default=None)

    def to_json(self) -> dict:
        slowest, hardest = self.slowest, self.hardest
        return {
            "count": self.count,
            "start": self.start,
            "solvable": self.solvable,
            "unsolvable": self.count - self.solvable,
            "total_cubes": self.total_cubes,
            "distribution": {str(k): v for k, v in self.distribution.items()},
            "slowest": None if slowest is None else {
                "seed": seed_text(slowest.seed), "cubes": slowest.cubes,
                "seconds": round(slowest.seconds, 6), "nodes": slowest.nodes,
            },
            "hardest": None if hardest is None else {
                "seed": seed_text(hardest.seed), "cubes": hardest.cubes,
                "seconds": round(hardest.seconds, 6), "nodes": hardest.nodes,
            },
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "warmup_seconds": round(self.warmup_seconds, 3),
            "jobs": self.jobs,
            "engine": "branch and bound (numba)",
            "proved_by_mip": sum(case.proved_by == "mip" for case in self.cases),
            "unproved": [seed_text(s) for s in self.unproved],
            "verify_failed": [seed_text(s) for s in self.failed],
        }

    def lines(self) -> list[str]:
        """The --output lines: seed, cubes, 64-bit answer in hex."""
        return [f"{seed_text(c.seed)} {c.cubes} {c.answer_hex}" for c in self.cases]


def plan(start: int, count: int, jobs: int) -> list[tuple[int, int]]:
    size = max(1, min(CHUNK, math.ceil(count / max(1, jobs * 4))))
    return [(a, min(a + size, start + count)) for a in range(start, start + count, size)]


def run_battery(start: int = 0, count: int = BATTERY_SIZE, jobs: int | None = None,
                node_limit: int = NODE_LIMIT, solver: str = "highs",
                advance: Callable[[int], None] | None = None) -> BatteryReport:
    """Solve seeds start..start+count-1; `advance(k)` is called as k more seeds are done."""
    from ilp_pyramid.puzzles.views.engine import warm_up

    jobs = jobs or cores()
    report = BatteryReport(start, count, jobs)
    began = time.perf_counter()
    warm_up()  # compile into (or load from) the on-disk cache the workers then load
    report.warmup_seconds = time.perf_counter() - began
    began, cpu = time.perf_counter(), cpu_seconds()
    chunks = [(a, b, node_limit) for a, b in plan(start, count, jobs)]
    results: list[ChunkResult] = []

    def done(result: ChunkResult) -> None:
        results.append(result)
        if advance:
            advance(result.stop - result.start)

    if jobs > 1 and len(chunks) > 1:
        _run_pooled(chunks, min(jobs, len(chunks)), done)
    else:
        for chunk in chunks:
            done(_chunk_job(chunk))
    results.sort(key=lambda r: r.start)
    for r in results:
        report.cases += [Case(int(s), int(c), int(a), float(t), int(k))
                         for s, c, a, t, k in zip(r.seeds, r.cubes, r.answers, r.seconds,
                                                  r.nodes, strict=True)]
        report.unproved += r.unproved
        report.failed += r.failed
    if report.unproved:
        _prove_with_mip(report, solver)
    report.seconds = time.perf_counter() - began
    report.cpu_seconds = cpu_seconds() - cpu
    return report


def cpu_seconds() -> float:
    """CPU of this process, and of its children that ended and were waited for: the
    forkserver, and through it the workers it waited for (they are its children, not ours)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _run_pooled(chunks: list[tuple[int, int, int]], workers: int,
                done: Callable[[ChunkResult], None]) -> None:
    """The chunks on `workers` processes, each result to `done` as it finishes.

    The workers come from a forkserver, a single-threaded process that loaded the compiled
    engine once: forking this process instead would copy whatever locks its other threads
    (the CLI's signal watchdog, a solver's) held at that moment, and a pool of such children
    has hung in its own queue. Once the pool is shut down (its workers joined), the
    forkserver and the resource tracker are stopped and waited for (`_stop_helpers`).
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["ilp_pyramid.puzzles.views.engine"])
    try:
        with ProcessPoolExecutor(workers, mp_context=context,
                                 initializer=_warm_worker) as executor:
            futures = [executor.submit(_chunk_job, chunk) for chunk in chunks]
            try:
                for future in as_completed(futures):
                    done(future.result())
            finally:
                for future in futures:
                    future.cancel()
    finally:
        _stop_helpers()


def _stop_helpers() -> None:
    """Stop multiprocessing's forkserver and resource tracker and wait for them: left alone
    they end only when this process does, so they would outlive the battery (and a forkserver
    that waited for the workers is what brings their CPU into RUSAGE_CHILDREN)."""
    from multiprocessing import forkserver, resource_tracker

    # The pool's queues and locks unregister from the tracker as they are freed: freed now,
    # the tracker finds nothing left to clean up (and warns of nothing) as it stops.
    gc.collect()
    forkserver._forkserver._stop()
    resource_tracker._resource_tracker._stop()


def _warm_worker() -> None:
    from ilp_pyramid.puzzles.views.engine import warm_up

    warm_up()


def mip_optimum(seed: int, solver: str, time_limit: float) -> protocol.Result:
    """Battery puzzle `seed` solved by the MIP alone (no branch and bound cross-check): the
    result is solved only with an optimum the MIP proved (its "proved_by" key says "mip")
    or one the branch and bound settled after the MIP stopped early."""
    return protocol.solve(PUZZLE, seed_views(seed), solver, SolveOptions(time_limit=time_limit),
                          after={"check": False})


def proved_by_mip(result: protocol.Result) -> int | None:
    """The cubes of an optimum the solver proved (a MIP's, or a MaxSAT solver's), else None."""
    if result.status is Status.SOLVED and result.keys.get("proved_by") in PROVER.values():
        return int(result.solution.sum())
    return None


def _prove_with_mip(report: BatteryReport, solver: str) -> None:
    """Cases the branch and bound left open: the MIP proves them or they stay unproved."""
    by_seed = {case.seed: case for case in report.cases}
    still_open = []
    for seed in report.unproved:
        result = mip_optimum(seed, solver, MIP_FALLBACK_SECONDS)
        cubes = proved_by_mip(result)
        if cubes is not None:
            case = by_seed[seed]
            case.cubes = cubes
            case.answer = int(placement_bits(result.solution), 2)
            case.proved_by = "mip"
        else:
            still_open.append(seed)
    report.unproved = still_open


@dataclass
class CrossCheck:
    checked: int = 0
    disagree: list[tuple[int, int, int]] = field(default_factory=list)  # seed, fast, mip
    mip_seconds: list[float] = field(default_factory=list)

    def to_json(self) -> dict:
        times = self.mip_seconds
        return {
            "checked": self.checked,
            "agree": self.checked - len(self.disagree),
            "disagree": [{"seed": seed_text(s), "fast": f, "mip": m}
                         for s, f, m in self.disagree],
            "mip_seconds_mean": round(sum(times) / len(times), 5) if times else None,
            "mip_seconds_max": round(max(times), 5) if times else None,
        }


def cross_check(report: BatteryReport, sample: int, solver: str = "highs",
                time_limit: float = 60.0,
                advance: Callable[[int], None] | None = None) -> CrossCheck:
    """Re-solve `sample` solvable cases, spread evenly over the battery, with the MIP."""
    out = CrossCheck()
    cases = report.cases
    if not cases or sample <= 0:
        return out
    step = len(cases) / min(sample, len(cases))
    for i in range(min(sample, len(cases))):
        case = cases[int(i * step)]
        result = mip_optimum(case.seed, solver, time_limit)
        out.checked += 1
        out.mip_seconds.append(result.build_seconds + result.solve_seconds)
        mip_cubes = proved_by_mip(result)
        if mip_cubes != case.cubes:
            out.disagree.append((case.seed, case.cubes, -1 if mip_cubes is None else mip_cubes))
        if advance:
            advance(1)
    return out
