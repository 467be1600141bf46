"""Count every completion of an IQ instance, and the count up to the board's symmetries.

Symmetry classes are found by canonical forms: every solution is mapped through every symmetry
of the board that keeps the given pieces and pins in place, and the lexicographically smallest
image (as the vector "placement of piece k") stands for its class. A solution is its class's
representative when it is its own smallest image, so the classes are counted sub-tree by
sub-tree, in the worker processes, without ever holding every solution.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

import numpy as np

from ilp_pyramid import backends
from ilp_pyramid.backends import ExactCoverForm, SolveOptions
from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import SolverError
from ilp_pyramid.puzzles.iq.lines import LineFormat
from ilp_pyramid.puzzles.iq.model import Instance
from ilp_pyramid.verify.iq import FillingChecker


@dataclass
class CountReport:
    """With `complete` False (a time limit stopped the count) every figure is partial: what the
    sub-trees finished so far hold, a lower bound and never the answer."""

    solutions: int
    distinct_up_to_symmetry: int
    symmetries: int  # the size of the group used
    division_exact: bool  # solutions == distinct * symmetries (no solution maps to itself)
    symmetric_solutions: int  # solutions fixed by some symmetry other than the identity
    seconds: float
    subtrees: int = 0
    nodes: int = 0
    complete: bool = True
    worker_cpu: list[float] = field(default_factory=list)  # CPU seconds of each worker


def symmetry_group(instance: Instance) -> list[tuple[int, ...]]:
    """Board symmetries (cell permutations) that keep every given piece where it is."""
    group = []
    for perm in instance.board.symmetries():
        if all(instance.given.get(perm[c]) == k for c, k in instance.given.items()) and all(
                instance.pins.get(perm[c]) == k for c, k in instance.pins.items()):
            group.append(perm)
    return group


def placement_permutations(instance: Instance,
                           group: list[tuple[int, ...]]) -> np.ndarray:
    """One row per symmetry: the image of every placement index (last slot: -1 -> -1)."""
    index = {(pl.piece, pl.cells): r for r, pl in enumerate(instance.placements)}
    table = np.full((len(group), len(instance.placements) + 1), -1, np.int64)
    for g, perm in enumerate(group):
        for r, pl in enumerate(instance.placements):
            table[g, r] = index[(pl.piece, tuple(sorted(perm[c] for c in pl.cells)))]
    return table


def by_piece(instance: Instance, solutions: np.ndarray) -> np.ndarray:
    """Solutions (rows of placement indices, -1 padded) as "placement of free piece k"."""
    slot = {p: k for k, p in enumerate(instance.free_pieces)}
    piece_of = np.array([slot[pl.piece] for pl in instance.placements] + [-1], np.int64)
    out = np.full((solutions.shape[0], len(instance.free_pieces)), -1, np.int64)
    for column in range(solutions.shape[1]):
        rows = solutions[:, column].astype(np.int64)
        present = rows >= 0
        out[np.nonzero(present)[0], piece_of[rows[present]]] = rows[present]
    return out


def canonical_forms(vectors: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, int]:
    """The smallest image of every solution vector, and how many are fixed by a non-identity
    symmetry."""
    best = vectors.copy()
    symmetric = np.zeros(vectors.shape[0], bool)
    rows = np.arange(vectors.shape[0])
    for g in range(1, table.shape[0]):
        image = table[g][vectors]
        symmetric |= np.all(image == vectors, axis=1)
        differ = image != best
        first = np.argmax(differ, axis=1)
        smaller = differ.any(axis=1) & (image[rows, first] < best[rows, first])
        best[smaller] = image[smaller]
    return best, int(symmetric.sum())


class _Unverified(Exception):
    """A filling failed the independent check: never written, never counted as valid."""


def _part_summary(instance: Instance, table: np.ndarray,
                  lines: Callable[[np.ndarray], bytes] | None
                  ) -> Callable[[np.ndarray], tuple[int, int, bytes]]:
    """What a worker sends back for one sub-tree: its class representatives, its symmetric
    solutions and (when writing them) its fillings as verified lines."""
    checker = None
    if lines is not None:
        board = instance.board
        checker = FillingChecker(
            board.cells, {p.letter: p.cells for p in instance.pieces},
            {board.cells[c]: instance.pieces[k].letter
             for c, k in {**instance.given, **instance.pins}.items()})

    def summarise(solutions: np.ndarray) -> tuple[int, int, bytes]:
        vectors = by_piece(instance, solutions)
        best, symmetric = canonical_forms(vectors, table)
        representatives = int(np.all(best == vectors, axis=1).sum())
        if lines is None or checker is None:
            return representatives, symmetric, b""
        text = lines(solutions)
        # Every line is read back as a reader would and checked from first principles.
        problem = checker.check_lines(text, instance.board.dims)
        if problem is not None:
            line = text.splitlines()[problem[0]].decode()
            raise _Unverified(f"{line}: {problem[1]}")
        return representatives, symmetric, text

    return summarise


def count_solutions(instance: Instance, jobs: int = 1, depth: int | None = None,
                    progress: Callable[[int, int], None] | None = None,
                    time_limit: float | None = None,
                    output: BinaryIO | None = None, skip_cffi: bool = False) -> CountReport:
    """Count the fillings over `jobs` processes (see `exact_cover.count_exact_cover` for the
    split); with `output`, write each one as a verified line (`lines.py`), as sub-trees finish.
    `skip_cffi`: see `exact_cover.load_kernels`."""
    with _collector_paused():
        return _count_solutions(instance, jobs, depth, progress, time_limit, output, skip_cffi)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the count: loading numba and planning the
    split allocate many objects and free few, so its passes find nothing, and workers forked
    meanwhile never walk (and so copy) the parent's objects. Nothing here builds cycles that
    must be freed before the count ends."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _count_solutions(instance: Instance, jobs: int, depth: int | None,
                     progress: Callable[[int, int], None] | None, time_limit: float | None,
                     output: BinaryIO | None, skip_cffi: bool) -> CountReport:
    # numba: loaded when used
    from ilp_pyramid.backends.exact_cover import count_exact_cover, load_kernels

    load_kernels(skip_cffi=skip_cffi)

    start = time.perf_counter()
    rows, primary, secondary = instance.exact_cover_rows()
    group = symmetry_group(instance)
    fmt = LineFormat(instance) if output is not None else None
    if not instance.free_cells or not rows:
        found = np.zeros((1 if not instance.free_cells else 0, 0), np.int64)
        if output is not None and fmt is not None:
            output.write(fmt.lines(found))
        n = found.shape[0]
        return CountReport(n, n, len(group), True, 0, time.perf_counter() - start)
    table = placement_permutations(instance, group)
    summarise = _part_summary(instance, table, fmt.lines if fmt is not None else None)
    tally = [0, 0]

    def on_part(summary: object) -> None:
        representatives, symmetric, text = summary  # type: ignore[misc]
        tally[0] += representatives
        tally[1] += symmetric
        if output is not None:
            output.write(text)

    result = count_exact_cover(rows, primary, secondary, jobs=jobs, depth=depth,
                               progress=progress, time_limit=time_limit,
                               summarise=summarise, on_part=on_part,
                               # The board's symmetries spare all but ~1/|group| of the search.
                               symmetries=table if len(group) > 1 else None)
    distinct, symmetric = tally
    exact = result.count == distinct * len(group)
    return CountReport(result.count, distinct, len(group), exact, symmetric,
                       time.perf_counter() - start, nodes=result.nodes,
                       complete=result.exhausted, worker_cpu=result.worker_cpu)


# Fillings a solver found are checked and tallied in batches of this many.
_BATCH = 4096


def count_by_solver(instance: Instance, solver: str, time_limit: float | None = None,
                    output: BinaryIO | None = None) -> CountReport:
    """Count the fillings by another solver family's enumeration (`backends.count_covers`:
    CP-SAT's own, a SAT solver's blocking clauses): every filling found is checked as a line
    by the independent checker and against the ones before (the same filling twice is an
    error, never counted), and tallied up to the board's symmetries as `count_solutions`
    does; with `output`, written as verified lines. SolverError for a solver that fails."""
    start = time.perf_counter()
    rows, primary, secondary = instance.exact_cover_rows()
    if not instance.free_cells or not rows:  # nothing to search: no solver asked
        backends.counting(solver)
        return count_solutions(instance, output=output)
    group = symmetry_group(instance)
    summarise = _part_summary(instance, placement_permutations(instance, group),
                              LineFormat(instance).lines)
    width = len(instance.free_pieces)
    seen: set[tuple[int, ...]] = set()
    batch: list[tuple[int, ...]] = []
    tally = [0, 0]

    def flush() -> None:
        if not batch:
            return
        solutions = np.full((len(batch), width), -1, np.int64)
        for at, chosen in enumerate(batch):
            solutions[at, : len(chosen)] = chosen
        representatives, symmetric, text = summarise(solutions)
        tally[0] += representatives
        tally[1] += symmetric
        if output is not None:
            output.write(text)
        batch.clear()

    def on_cover(chosen: list[int]) -> None:
        key = tuple(sorted(chosen))
        if len(key) > width:
            raise _Unverified(f"{solver} chose {len(key)} placements for {width} pieces")
        if key in seen:
            raise _Unverified(f"{solver} found the same filling twice")
        seen.add(key)
        batch.append(key)
        if len(batch) >= _BATCH:
            flush()

    try:
        result = backends.count_covers(ExactCoverForm(rows, primary, secondary), solver,
                                       SolveOptions(time_limit=time_limit), on_cover)
        flush()
    except _Unverified as exc:
        raise SolverError(f"{solver}: a filling failed the check: {exc}") from None
    if result.status not in (Status.SOLVED, Status.TIMEOUT):
        raise SolverError(f"{solver} failed: {result.message}")
    distinct, symmetric = tally
    return CountReport(result.count, distinct, len(group),
                       result.count == distinct * len(group), symmetric,
                       time.perf_counter() - start, complete=result.complete)
