"""Cube-and-count: an exact counter's model count of a CNF with first appearance, summed over
pieces that partition its models, each piece counted in its own child process, resumable.

The pieces are the cubes of a tree over the split lines, which come first in the
first-appearance order (count_cnf.precedence): a cube gives the first k lines of that order
labels, and splitting it on line k + 1 gives one child per label that line may carry after
them, 0 .. (the largest label so far) + 1 (at most the last label). Every model's labels
along the order are in first-appearance order, so exactly one leaf of the tree holds it: the
leaves' counts sum to the whole count (disjoint, as two leaves differ in some line's label,
and each line carries one label; exhaustive, as no label a model can carry is left out).

The tree starts `depth` lines deep. A piece that runs past `cube_time` CPU seconds is split
again on the next line of the order (its CPU time recorded, so the record's total is the
whole cost); a piece that gives every line a label is one labelling, counted like any other.

The record is conquer's (hunt/conquer.py `Record`): the problem first, then one JSON line per
settled cube, appended at once, so an interrupted or timed-out run keeps every piece it
counted and a rerun with the same N, counter and split lines goes on from there; a split is
recorded as conquer records one, a counted piece as {"cube", "status": "counted", "count",
"cpu", "by"}.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.backends.process import (
    ENDED,
    ForkedSolver,
    cpu_seconds,
    death,
    forked,
    interruptible,
    native_output,
)
from ilp_pyramid.errors import SolverError
from ilp_pyramid.formats.lock import hold
from ilp_pyramid.machine import cores
from ilp_pyramid.puzzles.bel.count_child import SAT_FIRST, detach_child, model_count
from ilp_pyramid.puzzles.bel.geometry import pyramid

Clause = list[int]
Cube = tuple[tuple[int, int], ...]
PIECE = "counted"  # a settled piece's status in the record
RECORD_VERSION = 1  # part of the key: a record of another meaning is never resumed
# How long the parent sleeps at most between looks at its children (the deadline, a
# piece's CPU cap): a Ctrl-C is raised in it at once, whatever this is.
POLL_SECONDS = 0.5
PROGRESS_SECONDS = 1.0  # between two progress reports


def split_lines(n: int, depth: int) -> tuple[int, ...]:
    """The first `depth` lines of the split order: the bottom level's X lines, then its Y
    lines, then the levels above, then the Z lines, longest first within each. The bottom
    level's long lines cross most cells, so fixing them propagates most."""
    geo = pyramid(n)
    lengths = geo.line_lengths

    def key(i: int) -> tuple:
        line = geo.lines[i]
        if line.family == "Z":
            return (1, 0, 0, -lengths[i], i)
        return (0, line.b, line.family != "X", -lengths[i], i)

    return tuple(sorted(range(len(geo.lines)), key=key))[:depth]


def line_order(n: int) -> tuple[int, ...]:
    """Every line in the split order (`split_lines`): a piece is split on the next one."""
    return split_lines(n, len(pyramid(n).lines))


def children(cube: Cube, num_labels: int) -> list[int]:
    """The labels the next line of the order may carry after `cube` under first appearance."""
    largest = max((label for _, label in cube), default=-1)
    return list(range(min(largest + 2, num_labels)))


@dataclass(frozen=True)
class SplitCount:
    """What a record is of: the models of N's CNF with first appearance along `line_order`,
    by `method`, split `depth` lines deep."""

    n: int
    method: str
    depth: int
    formula: str = "split"  # which formula: the labelled count's, or a fixed-point one's

    @property
    def key(self) -> str:
        text = json.dumps(["count", RECORD_VERSION, self.n, self.method, self.depth,
                           line_order(self.n)] + ([] if self.formula == "split"
                                                  else [self.formula]))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def to_json(self) -> dict:
        return {"n": self.n, "key": self.key, "count": self.method, "depth": self.depth,
                "formula": self.formula, "order": list(line_order(self.n))}


@dataclass
class SplitTally:
    """Where a split count stands: the models counted in the settled pieces (the whole count
    once none is open), the pieces, and the CPU seconds spent on them over every run."""

    models: int
    complete: bool
    counted: int
    split: int
    open: int
    cpu_seconds: float
    record: Path | None

    def to_dict(self) -> dict:
        return {"models": self.models, "complete": self.complete, "pieces_counted":
                self.counted, "pieces_split": self.split, "pieces_open": self.open,
                "piece_cpu_seconds": round(self.cpu_seconds, 2),
                "record": None if self.record is None else str(self.record)}


class _MemoryRecord:
    """The record without a file (no --record): the same tree, kept for this run only."""

    def __init__(self, problem: SplitCount):
        self.path = None
        self.hood = problem
        self.settled: dict[Cube, dict] = {}

    def add(self, row: dict) -> None:
        self.settled[tuple((int(a), int(b)) for a, b in row["cube"])] = row


def open_cubes(settled: dict[Cube, dict], order: tuple[int, ...], num_labels: int,
               depth: int) -> list[Cube]:
    """Every piece still to count, in tree order: the leaves below `depth` lines not yet
    settled, and the children of every piece split since."""
    left, stack = [], [()]
    while stack:
        cube = stack.pop()
        row = settled.get(cube)
        if row is None and len(cube) < depth:
            row = {"status": "split", "line": order[len(cube)],
                   "children": children(cube, num_labels)}
        if row is None:
            left.append(cube)
        elif row["status"] == "split":
            stack.extend((*cube, (row["line"], label)) for label in
                         reversed(row["children"]))
    return left


def tally(record, problem: SplitCount) -> SplitTally:
    geo = pyramid(problem.n)
    rows = record.settled.values()
    left = open_cubes(record.settled, line_order(problem.n), geo.num_labels, problem.depth)
    return SplitTally(sum(int(r["count"]) for r in rows if r["status"] == PIECE), not left,
                      sum(1 for r in rows if r["status"] == PIECE),
                      sum(1 for r in rows if r["status"] == "split"), len(left),
                      sum(float(r.get("cpu", 0.0)) for r in rows), record.path)


# A piece's counter: its model count and who said it (the counter, or for an unsatisfiable
# piece the SAT solver that found no model), run in the piece's forked child.
PieceCounter = Callable[[Cube], tuple[int, str]]


def cnf_pieces(method: str, clauses: list[Clause],
               cube_clauses: Callable[[Cube], list[Clause]], num_vars: int) -> PieceCounter:
    """The models of `clauses` plus a piece's unit clauses (`cube_clauses(cube)`) by an exact
    #SAT counter (count_child.model_count), its SAT solver first."""

    def count(cube: Cube) -> tuple[int, str]:
        with native_output():
            # D4's tree decomposition is a fixed cost per call that outweighs a small piece.
            result = model_count(method, clauses + cube_clauses(cube), num_vars, False)
        return result, SAT_FIRST[method] if result == 0 and method in SAT_FIRST else method

    return count


def _count_piece(counter: PieceCounter, cube: Cube, send) -> None:
    """In a forked child: the piece's count, the CPU seconds it took, and who said it."""
    detach_child()
    began = time.process_time()
    result, by = counter(cube)
    send((PIECE, (result, time.process_time() - began, by)))


def count_split(method: str, n: int, counter: PieceCounter, depth: int,
                record_dir: Path | None = None, cube_time: float | None = None,
                jobs: int | None = None, deadline: float | None = None,
                progress: Callable[[dict], None] | None = None,
                formula: str = "split", split_limit: int | None = None) -> SplitTally:
    """Count the models (labels in first appearance along `line_order(n)`) piece by piece,
    each by `counter` (`cnf_pieces`, or the cover count's) in its own child, `jobs` at a time
    (at most the cores), until every piece is counted or `deadline` (perf_counter) passes;
    `method` names the counter in the record. With `record_dir`, pieces are recorded there
    and a rerun resumes; `formula` names which formula it is (a record apiece). A piece past
    `cube_time` is split again only while it gives fewer than `split_limit` lines labels (all
    of them if None). SolverError if a counter's child ends without an answer."""
    from ilp_pyramid.puzzles.bel.hunt.conquer import Record

    problem = SplitCount(n, method, depth, formula)
    jobs = max(1, min(jobs or cores(), cores()))
    with contextlib.ExitStack() as stack:
        if record_dir is None:
            record = _MemoryRecord(problem)
        else:
            record_dir.mkdir(parents=True, exist_ok=True)
            stack.enter_context(hold(record_dir / f"count-{problem.key}.lock",
                                     f"the count record {record_dir}"))
            record = Record.open(record_dir, problem, name="count")
        _settle(method, n, counter, record, problem, cube_time, jobs, deadline, progress,
                split_limit)
        return tally(record, problem)


def _settle(method: str, n: int, counter: PieceCounter, record, problem: SplitCount,
            cube_time: float | None, jobs: int, deadline: float | None, progress,
            split_limit: int | None) -> None:
    geo = pyramid(n)
    order = line_order(n)
    limit = len(order) if split_limit is None else split_limit
    queue = open_cubes(record.settled, order, geo.num_labels, problem.depth)
    queue.reverse()  # popped from the end: tree order
    running: dict[int, tuple[Cube, ForkedSolver, contextlib.ExitStack]] = {}
    # Kept up to date piece by piece: a tally walks the whole tree (a fifth of a second at
    # 86k pieces), which once a second took a sixth of a core from the counters.
    standing = tally(record, problem)
    last = time.perf_counter()
    # One interruptible() around every child's: the children's own holds, ended in any
    # order, then all give back the handler this one installed.
    with interruptible(), contextlib.ExitStack() as children_stack:
        while queue or running:
            while queue and len(running) < jobs:
                cube = queue.pop()
                frame = contextlib.ExitStack()
                child = frame.enter_context(forked(_count_piece, (counter, cube)))
                children_stack.push(frame)
                running[child.child.pid] = (cube, child, frame)
            now = time.perf_counter()
            if deadline is not None and now >= deadline:
                return  # the children are killed on leaving: their pieces stay open
            left = POLL_SECONDS if deadline is None else min(POLL_SECONDS, deadline - now)
            ready = wait([child.receiver for _, child, _ in running.values()], left)
            for pid, (cube, child, frame) in list(running.items()):
                if child.receiver in ready:
                    answer = child.answer(SolveOptions())
                    frame.close()
                    del running[pid]
                    if answer[0] == ENDED:
                        raise SolverError(f"{method} on a piece: {death(answer[1])}")
                    if answer[0] != PIECE:
                        raise SolverError(f"{method} on a piece: {answer[1]}")
                    models, cpu, by = answer[1]
                    record.add({"cube": [list(p) for p in cube], "status": PIECE,
                                "count": int(models), "cpu": round(cpu, 2), "by": by})
                    standing.models += int(models)
                    standing.counted += 1
                    standing.cpu_seconds += round(cpu, 2)
                elif cube_time is not None and cpu_seconds(pid) > cube_time \
                        and len(cube) < limit:
                    cpu = cpu_seconds(pid)
                    frame.close()
                    del running[pid]
                    labels = children(cube, geo.num_labels)
                    record.add({"cube": [list(p) for p in cube], "status": "split",
                                "line": order[len(cube)], "children": labels, "refuted": [],
                                "cpu": round(cpu, 2)})
                    queue.extend((*cube, (order[len(cube)], label))
                                 for label in reversed(labels))
                    standing.split += 1
                    standing.cpu_seconds += round(cpu, 2)
            if progress is not None and time.perf_counter() - last >= PROGRESS_SECONDS:
                standing.open = len(queue) + len(running)
                standing.complete = not standing.open
                progress(standing.to_dict())
                last = time.perf_counter()
