"""Every Bel's Pyramid labelling, one per class of label renamings: a compiled backtracking.

Lines are labelled one by one in `line_order`: the X and Y lines level by level, then the Z
lines, longest first. When a line's label completes a cell (its third line), the cell's cube
is looked up and the branch dies if another cell shows it already. After every label,
coverage is checked: every cell not yet complete must still be able to show some unused cube
(one containing the labels its lines already carry), and every unused cube must still be
showable by some such cell; cells and cubes being as many, both are necessary. A label's
lines may not be longer in total than N(2N+1) (every label occurs exactly that often on the
cells, since every cube is shown once). Each check is a necessary condition, so none loses a
solution. With the X and Y lines first, every cell holds two labels before any Z line is
chosen, which is where the coverage check prunes.

Label renamings are broken by first appearance: the k-th line may carry only labels
0 .. (labels used before it), so labels appear in the order 0, 1, 2, ... along `line_order`.
Why that counts each class of renamings exactly once: in a solution every cube appears, the
cubes (l, l, l) too, so every label is used; a renaming that fixes a solution therefore fixes
every label (S_(2N-1) acts freely), and of the (2N-1)! renamings of a solution exactly one
puts its labels in first-appearance order. So labelled solutions = (2N-1)! x what this finds.

The search is resumable, as the package's exact-cover engine is: its whole state lives in
numpy arrays, the compiled kernel runs a bounded number of nodes and returns to Python, which
reads the clock, reports progress and answers Ctrl-C between two slices.

`estimate` is Knuth's estimator of the same tree: a random walk from the root that takes, at
each depth, a uniformly random label among those `_place` accepts, and multiplies the
numbers of choices met; the product is an unbiased estimate of the solutions (the nodes
likewise), and the mean over many walks tells whether an enumeration can finish at all.
Where walks rarely reach a solution, the last `exhaust` positions are searched in full below
the node a walk reaches, and the walk's weight multiplies what that subtree holds: still
unbiased, with far less variance.
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
    """The X and Y lines of each level, alternating, from the bottom level up; then the Z
    lines, longest first (the module doc says why)."""
    order: list[int] = []
    for h in range(geo.n):
        xs = [i for i, line in enumerate(geo.lines) if line.family == "X" and line.b == h]
        ys = [i for i, line in enumerate(geo.lines) if line.family == "Y" and line.b == h]
        for pair in zip(xs, ys, strict=True):
            order += pair
    zs = [i for i, line in enumerate(geo.lines) if line.family == "Z"]
    return order + sorted(zs, key=lambda i: (-geo.line_lengths[i], i))


@dataclass
class SearchTables:
    """What the kernel reads: the order, the cells each position completes, the cube table."""

    order: np.ndarray  # position -> line index
    complete_start: np.ndarray  # CSR: cells completed at position p are
    complete_cells: np.ndarray  # complete_cells[complete_start[p]:complete_start[p + 1]]
    cell_lines: np.ndarray  # (cells, 3) line indices
    cube_of: np.ndarray  # (m, m, m) -> cube index, any order of the three labels
    # (a + 1, b + 1) -> the cubes holding labels a and b (-1: none), a bit set in uint64 words
    cover: np.ndarray
    every: np.ndarray  # the bit set of all cubes
    lengths: np.ndarray  # line index -> length
    total: int  # N(2N+1): each label's lines add up to this
    labels: int


def search_tables(geo: Pyramid, order: list[int] | None = None) -> SearchTables:
    """The kernel's tables for labelling the lines in `order` (`line_order` if None)."""
    order = line_order(geo) if order is None else list(order)
    position = {line: p for p, line in enumerate(order)}
    completed: list[list[int]] = [[] for _ in order]
    for cell, row in enumerate(geo.cell_lines):
        completed[max(position[line] for line in row)].append(cell)
    m = geo.num_labels
    cube_of = np.empty((m, m, m), np.int32)
    for a in range(m):
        for b in range(m):
            for c in range(m):
                cube_of[a, b, c] = geo.cube_index[tuple(sorted((a, b, c)))]
    words = (len(geo.cubes) + 63) // 64
    cover = np.zeros((m + 1, m + 1, words), np.uint64)
    every = np.zeros(words, np.uint64)
    for k, cube in enumerate(geo.cubes):
        bit = np.uint64(1) << np.uint64(k % 64)
        every[k // 64] |= bit
        for a in range(-1, m):
            for b in range(-1, m):
                if _holds(cube, [x for x in (a, b) if x >= 0]):
                    cover[a + 1, b + 1, k // 64] |= bit
    return SearchTables(np.asarray(order, np.int32), *_csr(completed),
                        np.asarray(geo.cell_lines, np.int32), cube_of, cover, every,
                        np.asarray(geo.line_lengths, np.int32), geo.label_total, m)


def _holds(cube: tuple[int, ...], labels: list[int]) -> bool:
    """The cube (a multiset) contains the labels (a multiset) on some of its faces."""
    rest = list(cube)
    for label in labels:
        if label not in rest:
            return False
        rest.remove(label)
    return True


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
def _covered(cell_lines, cover, every, lab, used):
    """Every incomplete cell can still show an unused cube, and every unused cube can still
    be shown by an incomplete cell."""
    words = every.shape[0]
    free = every.copy()
    for cube in range(used.shape[0]):
        if used[cube]:
            free[cube // 64] &= ~(np.uint64(1) << np.uint64(cube % 64))
    union = np.zeros(words, np.uint64)
    for c in range(cell_lines.shape[0]):
        a, b, labelled = -1, -1, 0
        for i in range(3):
            label = lab[cell_lines[c, i]]
            if label >= 0:
                labelled += 1
                if a < 0:
                    a = label
                else:
                    b = label
        if labelled == 3:
            continue
        some = False
        for w in range(words):
            showable = cover[a + 1, b + 1, w] & free[w]
            union[w] |= showable
            some = some or showable != 0
        if not some:
            return False
    for w in range(words):
        if union[w] != free[w]:
            return False
    return True


@njit(cache=True, nogil=True)
def _place(p, v, order, start, cells, cell_lines, cube_of, cover, every, lengths, total,
           lab, used, sums):
    """Label position p with v; False (nothing changed) if a cube repeats, a label's lines
    grow too long, or coverage fails (module doc)."""
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
    if not _covered(cell_lines, cover, every, lab, used):
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
def _run(order, start, cells, cell_lines, cube_of, cover, every, lengths, total, m,
         lab, used, sums, top, nxt, state, out, budget):
    """Continue the search for `budget` nodes or until `out` is full; state[0] is the depth
    (-1: finished), state[1] the solutions written to `out` in this call.

    The backtracking step is written out here and in `_subtree`: as a shared numba function,
    even inlined, it cost about 40% of the nodes a CPU second (N=3, measured 2026-12-07)."""
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
        if _place(p, v, order, start, cells, cell_lines, cube_of, cover, every, lengths,
                  total, lab, used, sums):
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
        self.nodes += _run(t.order, t.complete_start, t.complete_cells, t.cell_lines,
                           t.cube_of, t.cover, t.every,
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


@njit(cache=True, nogil=True)
def _subtree(p0, top0, order, start, cells, cell_lines, cube_of, cover, every, lengths, total,
             m, lab, used, sums):
    """(solutions, nodes) below position p0, searched in full; the state is restored."""
    size = order.shape[0]
    top = np.zeros(size + 1, np.int32)
    nxt = np.zeros(size + 1, np.int32)
    top[p0] = top0
    p, solutions, nodes = p0, 0, 0
    while p >= p0:
        if p == size:
            solutions += 1
            p -= 1
            _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used, sums)
            continue
        v = nxt[p]
        if v > top[p] or v >= m:
            p -= 1
            if p >= p0:
                _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used,
                         sums)
            continue
        nxt[p] = v + 1
        nodes += 1
        if _place(p, v, order, start, cells, cell_lines, cube_of, cover, every, lengths,
                  total, lab, used, sums):
            top[p + 1] = max(top[p], v + 1)
            p += 1
            nxt[p] = 0
    return solutions, nodes


@njit(cache=True, nogil=True)
def _walks(order, start, cells, cell_lines, cube_of, cover, every, lengths, total, m, cubes,
           walks, seed, exhaust, nodes_out, solutions_out):
    """`walks` random walks (module doc); walk i's estimates into nodes_out[i] and
    solutions_out[i]."""
    np.random.seed(seed)
    size = order.shape[0]
    accepted = np.empty(m, np.int32)
    for i in range(walks):
        lab = np.full(size, -1, np.int32)
        used = np.zeros(cubes, np.uint8)
        sums = np.zeros(m, np.int64)
        weight, nodes, top, p = 1.0, 1.0, 0, 0
        while p < size - exhaust:
            tried = min(top + 1, m)  # first appearance: labels 0 .. top
            k = 0
            for v in range(tried):
                if _place(p, v, order, start, cells, cell_lines, cube_of, cover, every,
                          lengths, total, lab, used, sums):
                    accepted[k] = v
                    k += 1
                    _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used,
                             sums)
            nodes += weight * tried
            if k == 0:
                break
            v = accepted[np.random.randint(k)]
            weight *= k
            _place(p, v, order, start, cells, cell_lines, cube_of, cover, every, lengths,
                   total, lab, used, sums)
            top = max(top, v + 1)
            p += 1
        found = 0.0
        if p == size - exhaust:
            below, searched = _subtree(p, top, order, start, cells, cell_lines, cube_of, cover,
                                       every, lengths, total, m, lab, used, sums)
            nodes += weight * searched
            found = weight * below
        nodes_out[i] = nodes
        solutions_out[i] = found


@dataclass
class TreeEstimate:
    """Knuth's estimates over `walks` walks: means and their standard errors. The solutions
    are counted up to renaming, as the search finds them."""

    walks: int
    seed: int
    exhaust: int
    nodes: float
    nodes_error: float
    solutions: float
    solutions_error: float
    walks_to_a_solution: int


def estimate(geo: Pyramid, walks: int, seed: int = 1, exhaust: int = 0) -> TreeEstimate:
    """Knuth's estimate of the search's nodes and solutions, the last `exhaust` positions
    searched in full (module doc)."""
    t = search_tables(geo)
    exhaust = min(max(exhaust, 0), len(t.order))
    nodes = np.empty(walks, np.float64)
    solutions = np.empty(walks, np.float64)
    _walks(t.order, t.complete_start, t.complete_cells, t.cell_lines, t.cube_of, t.cover,
           t.every, t.lengths, t.total, t.labels, len(geo.cubes), walks, seed, exhaust, nodes,
           solutions)
    root = np.sqrt(max(walks, 1))
    return TreeEstimate(walks, seed, exhaust, float(nodes.mean()), float(nodes.std() / root),
                        float(solutions.mean()), float(solutions.std() / root),
                        int(np.count_nonzero(solutions)))
