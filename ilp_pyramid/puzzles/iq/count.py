"""Count every completion of an IQ instance, and the count up to the board's symmetries.

Symmetry classes are found by canonical forms: every solution is mapped through every symmetry
of the board that keeps the given pieces in place, and the lexicographically smallest image
(as the vector "placement of piece k") stands for its class.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ilp_pyramid.backends.exact_cover import count_exact_cover
from ilp_pyramid.puzzles.iq.model import Instance


@dataclass
class CountReport:
    solutions: int
    distinct_up_to_symmetry: int
    symmetries: int  # the size of the group used
    division_exact: bool  # solutions == distinct * symmetries (no solution maps to itself)
    symmetric_solutions: int  # solutions fixed by some symmetry other than the identity
    seconds: float
    subtrees: int = 0
    nodes: int = 0


def symmetry_group(instance: Instance) -> list[tuple[int, ...]]:
    """Board symmetries (cell permutations) that keep every given piece where it is."""
    group = []
    for perm in instance.board.symmetries():
        if all(instance.given.get(perm[c]) == k for c, k in instance.given.items()):
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


def count_solutions(instance: Instance, jobs: int = 1, depth: int = 3,
                    progress: Callable[[int, int], None] | None = None) -> CountReport:
    start = time.perf_counter()
    rows, primary, secondary = instance.exact_cover_rows()
    if not instance.free_cells:
        return CountReport(1, 1, 1, True, 0, time.perf_counter() - start)
    if not rows:
        return CountReport(0, 0, 1, True, 0, time.perf_counter() - start)
    result = count_exact_cover(rows, primary, secondary, jobs=jobs, depth=depth, collect=True,
                               progress=progress)
    assert result.solutions is not None
    group = symmetry_group(instance)
    vectors = by_piece(instance, result.solutions)
    best, symmetric = canonical_forms(vectors, placement_permutations(instance, group))
    distinct = int(np.unique(best, axis=0).shape[0]) if len(best) else 0
    exact = result.count == distinct * len(group)
    return CountReport(result.count, distinct, len(group), exact, symmetric,
                       time.perf_counter() - start, nodes=result.nodes)
