"""Every Bel's Pyramid labelling, one per class of label renamings: a compiled backtracking.

Lines are labelled one by one in `line_order` (chosen so that cells are completed as early as
possible); when a line's label completes a cell (its third line), the cell's cube is looked up
and the branch dies if another cell shows it already. A label's lines may not be longer in
total than N(2N+1) (the counting condition: every label occurs exactly that often on the
cells, since every cube is shown once), which is a necessary condition and so loses nothing.

Label renamings are broken by first appearance: the k-th line may carry only labels
0 .. (labels used before it), so labels appear in the order 0, 1, 2, ... along `line_order`.
Why that counts each class of renamings exactly once: in a solution every cube appears, the
cubes (l, l, l) too, so every label is used; a renaming that fixes a solution therefore fixes
every label (S_(2N-1) acts freely), and of the (2N-1)! renamings of a solution exactly one
puts its labels in first-appearance order. So labelled solutions = (2N-1)! x what this finds.

The search is resumable, as the package's exact-cover engine is: its whole state lives in
numpy arrays, the compiled kernel runs a bounded number of nodes and returns to Python, which
reads the clock, reports progress and answers Ctrl-C between two slices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ilp_pyramid.puzzles.bel.geometry import Pyramid

# Nodes one kernel call visits before returning to Python (a few tens of milliseconds).
SLICE_NODES = 200_000
# Solutions one kernel call may write before returning (the buffer is emptied between calls).
BUFFER_ROWS = 4096


def line_order(geo: Pyramid) -> list[int]:
    """Lines in the order they are labelled: greedily the line that completes the most cells,
    then the one that brings the most cells to two lines labelled, then the longer."""
    lines_of = [set(row) for row in geo.cell_lines]
    done: set[int] = set()
    order: list[int] = []
    while len(order) < len(geo.lines):
        best, best_key = -1, None
        for line in range(len(geo.lines)):
            if line in done:
                continue
            completes = twos = 0
            for cell in geo.line_cells[line]:
                assigned = len(lines_of[cell] & done)
                completes += assigned == 2
                twos += assigned == 1
            key = (completes, twos, geo.line_lengths[line], -line)
            if best_key is None or key > best_key:
                best, best_key = line, key
        order.append(best)
        done.add(best)
    return order


@dataclass
class SearchTables:
    """What the kernel reads: the order, the cells each position completes, the cube table."""

    order: np.ndarray  # position -> line index
    complete_start: np.ndarray  # CSR: cells completed at position p are
    complete_cells: np.ndarray  # complete_cells[complete_start[p]:complete_start[p + 1]]
    open_start: np.ndarray  # CSR: cells with exactly two lines labelled once position p is,
    open_cells: np.ndarray  # open_cells[open_start[p]:open_start[p + 1]]
    cell_lines: np.ndarray  # (cells, 3) line indices
    cube_of: np.ndarray  # (m, m, m) -> cube index, any order of the three labels
    lengths: np.ndarray  # line index -> length
    total: int  # N(2N+1): each label's lines add up to this
    labels: int


def search_tables(geo: Pyramid) -> SearchTables:
    order = line_order(geo)
    position = {line: p for p, line in enumerate(order)}
    completed: list[list[int]] = [[] for _ in order]
    two_open: list[list[int]] = [[] for _ in order]
    for cell, row in enumerate(geo.cell_lines):
        first, second, last = sorted(position[line] for line in row)
        completed[last].append(cell)
        for p in range(second, last):
            two_open[p].append(cell)
    m = geo.num_labels
    cube_of = np.empty((m, m, m), np.int32)
    for a in range(m):
        for b in range(m):
            for c in range(m):
                cube_of[a, b, c] = geo.cube_index[tuple(sorted((a, b, c)))]
    return SearchTables(np.asarray(order, np.int32), *_csr(completed), *_csr(two_open),
                        np.asarray(geo.cell_lines, np.int32), cube_of,
                        np.asarray(geo.line_lengths, np.int32), geo.label_total, m)


def _csr(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    start = np.zeros(len(rows) + 1, np.int32)
    start[1:] = np.cumsum([len(r) for r in rows])
    return start, np.asarray([c for r in rows for c in r], np.int32)


@njit(cache=True, nogil=True)
def _unmark(p, upto, start, cells, cell_lines, cube_of, lab, used):
    for j in range(start[p], upto):
        d = cells[j]
        used[cube_of[lab[cell_lines[d, 0]], lab[cell_lines[d, 1]], lab[cell_lines[d, 2]]]] = 0


@njit(cache=True, nogil=True)
def _place(p, v, order, start, cells, ostart, ocells, cell_lines, cube_of, lengths, total, m,
           lab, used, sums):
    """Label position p with v; False (nothing changed) if a cube repeats, a label's lines
    grow too long, or a cell with two lines labelled has no unused cube left."""
    line = order[p]
    if sums[v] + lengths[line] > total:
        return False
    lab[line] = v
    for k in range(start[p], start[p + 1]):
        c = cells[k]
        cube = cube_of[lab[cell_lines[c, 0]], lab[cell_lines[c, 1]], lab[cell_lines[c, 2]]]
        if used[cube]:
            _unmark(p, k, start, cells, cell_lines, cube_of, lab, used)
            lab[line] = -1
            return False
        used[cube] = 1
    # A cell with two lines labelled (a, b) needs a third label c with {a, b, c} unused.
    for k in range(ostart[p], ostart[p + 1]):
        c = ocells[k]
        a, b = -1, -1
        for i in range(3):
            label = lab[cell_lines[c, i]]
            if label >= 0:
                if a < 0:
                    a = label
                else:
                    b = label
        free = False
        for third in range(m):
            if used[cube_of[a, b, third]] == 0:
                free = True
                break
        if not free:
            _unmark(p, start[p + 1], start, cells, cell_lines, cube_of, lab, used)
            lab[line] = -1
            return False
    sums[v] += lengths[line]
    return True


@njit(cache=True, nogil=True)
def _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used, sums):
    line = order[p]
    for k in range(start[p], start[p + 1]):
        c = cells[k]
        used[cube_of[lab[cell_lines[c, 0]], lab[cell_lines[c, 1]], lab[cell_lines[c, 2]]]] = 0
    sums[lab[line]] -= lengths[line]
    lab[line] = -1


@njit(cache=True, nogil=True)
def _run(order, start, cells, ostart, ocells, cell_lines, cube_of, lengths, total, m,
         lab, used, sums, top, nxt, state, out, budget):
    """Continue the search for `budget` nodes or until `out` is full; state[0] is the depth
    (-1: finished), state[1] the solutions written to `out` in this call."""
    size = order.shape[0]
    p = state[0]
    written = 0
    nodes = 0
    while p >= 0 and nodes < budget:
        if p == size:  # a solution: every cell shows a different cube
            for i in range(size):
                out[written, i] = lab[i]
            written += 1
            p -= 1
            _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used, sums)
            if written == out.shape[0]:
                break
            continue
        v = nxt[p]
        if v > top[p] or v >= m:  # every allowed label tried here: back up
            p -= 1
            if p >= 0:
                _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used, sums)
            continue
        nxt[p] = v + 1
        nodes += 1
        if _place(p, v, order, start, cells, ostart, ocells, cell_lines, cube_of, lengths,
                  total, m, lab, used, sums):
            top[p + 1] = max(top[p], v + 1)
            p += 1
            nxt[p] = 0
    state[0] = p
    state[1] = written
    return nodes


class LabelSearch:
    """The resumable search: `step()` runs one slice and returns the solutions it found
    (rows of line labels, geometry order); `finished` once the tree is exhausted."""

    def __init__(self, geo: Pyramid):
        self.tables = search_tables(geo)
        size = len(geo.lines)
        self.lab = np.full(size, -1, np.int32)
        self.used = np.zeros(len(geo.cubes), np.uint8)
        self.sums = np.zeros(geo.num_labels, np.int64)
        self.top = np.zeros(size + 1, np.int32)
        self.nxt = np.zeros(size + 1, np.int32)
        self.state = np.zeros(2, np.int64)
        self.out = np.empty((BUFFER_ROWS, size), np.int8)
        self.nodes = 0

    @property
    def finished(self) -> bool:
        return bool(self.state[0] < 0)

    def step(self, budget: int = SLICE_NODES) -> np.ndarray:
        t = self.tables
        self.nodes += _run(t.order, t.complete_start, t.complete_cells, t.open_start,
                           t.open_cells, t.cell_lines, t.cube_of,
                           t.lengths, t.total, t.labels, self.lab, self.used, self.sums,
                           self.top, self.nxt, self.state, self.out, budget)
        return self.out[: self.state[1]].copy()

    def progress(self) -> float:
        """Share of the tree behind the search, as if every label at every position led to
        equal work (a rough measure for the progress line, not an estimate of time)."""
        if self.finished:
            return 1.0
        t = self.tables
        share, width = 0.0, 1.0
        for p in range(int(self.state[0])):
            width /= min(int(self.top[p]) + 1, t.labels)
            share += max(int(self.nxt[p]) - 1, 0) * width
        return min(share, 1.0)
