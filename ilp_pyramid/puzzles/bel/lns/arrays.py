"""The pyramid's incidences as flat integer arrays, the form the compiled search reads.

Line indices are the geometry's (Z lines first, then X, then Y); cube indices are the
geometry's sorted triples. Everything here is computed once per N and cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ilp_pyramid.puzzles.bel.geometry import Pyramid, pyramid
from ilp_pyramid.puzzles.bel.solution import BelSolution


@dataclass(frozen=True)
class Arrays:
    n: int
    num_labels: int
    num_lines: int
    num_cells: int
    cell_line: np.ndarray  # (cells, 3): the cell's X, Y and Z line
    line_start: np.ndarray  # CSR over lines: line_cells[line_start[i]:line_start[i+1]]
    line_cells: np.ndarray
    line_len: np.ndarray
    len_start: np.ndarray  # CSR over lengths 0..B: the lines of each length
    len_lines: np.ndarray
    cube_id: np.ndarray  # (L, L, L): index of the multiset {a, b, c}, for every order
    family: np.ndarray  # per line: 0 = X, 1 = Y, 2 = Z
    # (len(line_cells), 2): the other two lines through the cell line_cells[t], so the cube a
    # cell of a re-labelled line shows is one look-up (the N=6 walk moves one line at a time)
    line_others: np.ndarray

    def geometry(self) -> tuple:
        """The tuple the compiled kernels take."""
        return (self.cell_line, self.line_start, self.line_cells, self.line_len,
                self.len_start, self.len_lines, self.cube_id, self.line_others)


FAMILY_CODE = {"X": 0, "Y": 1, "Z": 2}


@cache
def arrays(n: int) -> Arrays:
    pyr = pyramid(n)
    labels = pyr.num_labels
    cell_line = np.array(pyr.cell_lines, dtype=np.int32).reshape(-1, 3)
    lengths = np.array(pyr.line_lengths, dtype=np.int32)
    line_start = np.zeros(len(pyr.lines) + 1, dtype=np.int32)
    line_start[1:] = np.cumsum(lengths)
    line_cells = np.array([c for cells in pyr.line_cells for c in cells], dtype=np.int32)
    max_len = int(lengths.max())
    by_len = [[i for i, length in enumerate(lengths) if length == k] for k in range(max_len + 1)]
    len_start = np.zeros(max_len + 2, dtype=np.int32)
    len_start[1:] = np.cumsum([len(group) for group in by_len])
    len_lines = np.array([i for group in by_len for i in group], dtype=np.int32)
    cube_id = np.full((labels, labels, labels), -1, dtype=np.int32)
    for k, (a, b, c) in enumerate(pyr.cubes):
        for p in {(a, b, c), (a, c, b), (b, a, c), (b, c, a), (c, a, b), (c, b, a)}:
            cube_id[p] = k
    family = np.array([FAMILY_CODE[line.family] for line in pyr.lines], dtype=np.int32)
    owner = np.repeat(np.arange(len(pyr.lines), dtype=np.int32), lengths)
    through = cell_line[line_cells]
    line_others = through[through != owner[:, None]].reshape(-1, 2).astype(np.int32)
    return Arrays(n, labels, len(pyr.lines), len(pyr.cells), cell_line, line_start, line_cells,
                  lengths, len_start, len_lines, cube_id, family, line_others)


def labels_to_solution(n: int, labels: np.ndarray) -> BelSolution:
    """Line labels (geometry order) -> the solution object every command prints."""
    pyr: Pyramid = pyramid(n)
    by_line = {(line.family, line.a, line.b): int(labels[i]) for i, line in enumerate(pyr.lines)}
    return BelSolution.from_line_labels(n, by_line)


def solution_to_labels(solution: BelSolution) -> np.ndarray:
    pyr = pyramid(solution.n)
    return np.array([solution.label(line.family, line.a, line.b) for line in pyr.lines],
                    dtype=np.int32)


def conflicts_of(n: int, labels: np.ndarray) -> int:
    """Repeated cubes, computed plainly (the kernels keep this number incrementally)."""
    a = arrays(n)
    lab = np.asarray(labels)
    shown = a.cube_id[lab[a.cell_line[:, 0]], lab[a.cell_line[:, 1]], lab[a.cell_line[:, 2]]]
    counts = np.bincount(shown, minlength=len(pyramid(n).cubes))
    return int(np.maximum(counts - 1, 0).sum())
