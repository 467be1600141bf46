"""The dual landscape: cubes placed, lines in conflict (issue 29).

The line-label walk (search.py) keeps every line consistent and counts repeated cubes. Here
the other constraint is kept instead: every cell shows a different cube (the cubes are a
bijection onto the cells), each turned some way, i.e. cell c shows label tup[c, f] to its
line cell_line[c, f]. A line is *in conflict* when its cells do not all show it the same
label; a state with no line in conflict is a solution (each line's one label is its label,
and the cells show every cube once). Moves: two cells swap cubes, each then turned to its
best orientation at its new cell, or one cube turned in place. The walk minimises
    E = w_cells * (cells that differ from their line's majority label) + w_lines * (lines in
    conflict),
so both the issue's count (lines in conflict) and a finer one can be followed.

Counts are incremental: per line and label the cells showing that label (lc), each line's
largest count (maxc), the lines in conflict as an O(1) list. Geometry and incidence come from
lns/arrays.py, like the other walk's.
"""

from __future__ import annotations

import math

import numpy as np

from ilp_pyramid.puzzles.bel.lns.search import _below, _kernel, _list_add, _list_remove, _uniform

S_CELLS, S_LINES = 0, 1  # sc slots: disagreeing cells, lines in conflict
# The six ways a sorted cube (a, b, c) can face a cell's three lines.
PERMS = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]],
                 dtype=np.int32)


@_kernel(inline="always")
def _line_remove(i, label, line_len, lc, maxc, bad, bad_pos, sc):
    v = lc[i, label]
    lc[i, label] = v - 1
    if v == maxc[i]:
        top = v - 1
        for q in range(lc.shape[1]):
            if lc[i, q] > top:
                top = lc[i, q]
        if top < v:
            sc[S_CELLS] += v - top
            maxc[i] = top
            if v == line_len[i]:
                _list_add(bad, bad_pos, sc, S_LINES, i)


@_kernel(inline="always")
def _line_add(i, label, line_len, lc, maxc, bad, bad_pos, sc):
    v = lc[i, label] + 1
    lc[i, label] = v
    if v > maxc[i]:
        sc[S_CELLS] -= v - maxc[i]
        maxc[i] = v
        if v == line_len[i]:
            _list_remove(bad, bad_pos, sc, S_LINES, i)


@_kernel()
def _show(c, a, b, d, cell_line, line_len, state):
    """Cell c shows a, b, d to its lines 0, 1, 2 (counts updated)."""
    tup, cube_at, where, lc, maxc, bad, bad_pos, sc, rng = state
    new = (a, b, d)
    for f in range(3):
        old = tup[c, f]
        if old != new[f]:
            i = cell_line[c, f]
            _line_remove(i, old, line_len, lc, maxc, bad, bad_pos, sc)
            _line_add(i, new[f], line_len, lc, maxc, bad, bad_pos, sc)
            tup[c, f] = new[f]


@_kernel(inline="always")
def _energy(sc, w_cells, w_lines):
    return w_cells * sc[S_CELLS] + w_lines * sc[S_LINES]


@_kernel()
def _best_turn(c, k, cube_labels, perms, cell_line, line_len, state, w_cells, w_lines,
               skip_current):
    """Turn cube k (which cell c holds) to its best orientation there (ties at random); with
    skip_current, the best one other than the present orientation. Returns False if none."""
    tup = state[0]
    sc = state[7]
    rng = state[8]
    a0 = tup[c, 0]
    b0 = tup[c, 1]
    d0 = tup[c, 2]
    best_e = 1e300
    best_p = -1
    ties = 0
    for p in range(6):
        a = cube_labels[k, perms[p, 0]]
        b = cube_labels[k, perms[p, 1]]
        d = cube_labels[k, perms[p, 2]]
        if skip_current and a == a0 and b == b0 and d == d0:
            continue
        _show(c, a, b, d, cell_line, line_len, state)
        e = _energy(sc, w_cells, w_lines)
        if e < best_e:
            best_e = e
            best_p = p
            ties = 1
        elif e == best_e:
            ties += 1
            if _below(rng, ties) == 0:
                best_p = p
    if best_p < 0:
        _show(c, a0, b0, d0, cell_line, line_len, state)
        return False
    _show(c, cube_labels[k, perms[best_p, 0]], cube_labels[k, perms[best_p, 1]],
          cube_labels[k, perms[best_p, 2]], cell_line, line_len, state)
    return True


@_kernel()
def init_dual(geom, cube_labels, state):
    """Recompute every count from tup and cube_at (after a start or a restart)."""
    cell_line, line_start, line_cells, line_len, len_start, len_lines, cube_id = geom
    tup, cube_at, where, lc, maxc, bad, bad_pos, sc, rng = state
    lc[:, :] = 0
    bad_pos[:] = -1
    sc[S_CELLS] = 0
    sc[S_LINES] = 0
    for c in range(cell_line.shape[0]):
        where[cube_at[c]] = c
        for f in range(3):
            lc[cell_line[c, f], tup[c, f]] += 1
    for i in range(line_len.shape[0]):
        top = 0
        for q in range(lc.shape[1]):
            if lc[i, q] > top:
                top = lc[i, q]
        maxc[i] = top
        sc[S_CELLS] += line_len[i] - top
        if top < line_len[i]:
            _list_add(bad, bad_pos, sc, S_LINES, i)


@_kernel()
def run_dual(geom, cube_labels, label_cubes_start, label_cubes, perms, state, best_tup,
             best_cube, best, moves, params):
    """Up to `moves` moves; stops at a state with no line in conflict.
    params = [temperature, p_turn, p_target, w_cells, w_lines]; best = [E, lines in conflict]
    of the best state so far (kept in best_tup/best_cube). Returns the moves made."""
    cell_line, line_start, line_cells, line_len, len_start, len_lines, cube_id = geom
    tup, cube_at, where, lc, maxc, bad, bad_pos, sc, rng = state
    temperature = params[0]
    p_turn = params[1]
    p_target = params[2]
    w_cells = params[3]
    w_lines = params[4]
    num_cubes = cube_labels.shape[0]
    made = 0
    for _ in range(moves):
        if sc[S_LINES] == 0:
            break
        made += 1
        cur = _energy(sc, w_cells, w_lines)
        i = bad[_below(rng, sc[S_LINES])]
        s = line_start[i]
        c = line_cells[s + _below(rng, line_len[i])]
        k1 = cube_at[c]
        a1 = tup[c, 0]
        b1 = tup[c, 1]
        d1 = tup[c, 2]
        c2 = -1
        if _uniform(rng) < p_turn:
            if not _best_turn(c, k1, cube_labels, perms, cell_line, line_len, state,
                              w_cells, w_lines, True):
                continue
        else:
            if _uniform(rng) < p_target:
                # a cube carrying the label another cell of line i shows it
                d = line_cells[s + _below(rng, line_len[i])]
                f = 0
                while cell_line[d, f] != i:
                    f += 1
                m = tup[d, f]
                lo = label_cubes_start[m]
                k2 = label_cubes[lo + _below(rng, label_cubes_start[m + 1] - lo)]
            else:
                k2 = _below(rng, num_cubes)
            c2 = where[k2]
            if c2 == c:
                continue
            a2 = tup[c2, 0]
            b2 = tup[c2, 1]
            d2 = tup[c2, 2]
            # c2 takes k1 as c held it, c takes k2, each then turned to its best at its cell
            _show(c2, a1, b1, d1, cell_line, line_len, state)
            _best_turn(c, k2, cube_labels, perms, cell_line, line_len, state, w_cells,
                       w_lines, False)
            _best_turn(c2, k1, cube_labels, perms, cell_line, line_len, state, w_cells,
                       w_lines, False)
            cube_at[c] = k2
            cube_at[c2] = k1
            where[k2] = c
            where[k1] = c2
        e = _energy(sc, w_cells, w_lines)
        delta = e - cur
        if delta <= 0.0 or _uniform(rng) < math.exp(-delta / temperature):
            if e < best[0]:
                best[0] = e
                best[1] = sc[S_LINES]
                for t in range(cube_at.shape[0]):
                    best_cube[t] = cube_at[t]
                    best_tup[t, 0] = tup[t, 0]
                    best_tup[t, 1] = tup[t, 1]
                    best_tup[t, 2] = tup[t, 2]
        else:
            if c2 >= 0:
                _show(c2, a2, b2, d2, cell_line, line_len, state)
                cube_at[c] = k1
                cube_at[c2] = k2
                where[k1] = c
                where[k2] = c2
            _show(c, a1, b1, d1, cell_line, line_len, state)
    return made


# -- the Python side ---------------------------------------------------------------------------

class DualSearch:
    """The dual walk's state for one N: a cube (and its orientation) per cell."""

    def __init__(self, n: int, cube_at: np.ndarray, tup: np.ndarray, seed: int,
                 w_cells: float = 1.0, w_lines: float = 1.0):
        from ilp_pyramid.puzzles.bel.geometry import pyramid
        from ilp_pyramid.puzzles.bel.lns.arrays import arrays

        a = arrays(n)
        self.n = n
        self.arrays = a
        self.geom = a.geometry()
        self.cube_labels = np.array(pyramid(n).cubes, dtype=np.int32)
        holders = [[k for k, cube in enumerate(pyramid(n).cubes) if label in cube]
                   for label in range(a.num_labels)]
        self.label_cubes_start = np.zeros(a.num_labels + 1, dtype=np.int32)
        self.label_cubes_start[1:] = np.cumsum([len(h) for h in holders])
        self.label_cubes = np.array([k for h in holders for k in h], dtype=np.int32)
        self.weights = (float(w_cells), float(w_lines))
        cells = a.num_cells
        rng_word = (int(seed) * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) % 2**64 or 1
        self.state = (
            np.array(tup, dtype=np.int32, copy=True).reshape(cells, 3),  # tup
            np.array(cube_at, dtype=np.int32, copy=True),  # cube_at
            np.zeros(cells, np.int32),  # where
            np.zeros((a.num_lines, a.num_labels), np.int32),  # lc
            np.zeros(a.num_lines, np.int32),  # maxc
            np.zeros(a.num_lines, np.int32),  # bad
            np.full(a.num_lines, -1, np.int32),  # bad_pos
            np.zeros(3, np.int64),  # sc
            np.array([rng_word], np.uint64),  # rng
        )
        self.moves = 0
        self._restart()

    def _restart(self) -> None:
        init_dual(self.geom, self.cube_labels, self.state)
        self.best_tup = self.state[0].copy()
        self.best_cube = self.state[1].copy()
        self.best = np.array([self.energy, self.lines_in_conflict], dtype=np.float64)

    @classmethod
    def random(cls, n: int, rng: np.random.Generator, seed: int, **weights) -> DualSearch:
        """Every cube on a random cell, turned at random."""
        from ilp_pyramid.puzzles.bel.geometry import pyramid

        cubes = np.array(pyramid(n).cubes, dtype=np.int32)
        cube_at = rng.permutation(len(cubes)).astype(np.int32)
        turn = PERMS[rng.integers(6, size=len(cubes))]
        tup = np.take_along_axis(cubes[cube_at], turn, axis=1)
        return cls(n, cube_at, tup, seed, **weights)

    @classmethod
    def from_labels(cls, n: int, labels: np.ndarray, rng: np.random.Generator, seed: int,
                    **weights) -> DualSearch:
        """The dual state nearest a line labelling: every cube the labels show once stays on
        its cell (facing its lines as the labels say); the cells of repeated cubes take the
        missing ones, at random, each turned to agree with most of its lines' labels."""
        from ilp_pyramid.puzzles.bel.geometry import pyramid
        from ilp_pyramid.puzzles.bel.lns.arrays import arrays

        a = arrays(n)
        lab = np.asarray(labels, dtype=np.int32)
        tup = lab[a.cell_line].astype(np.int32)
        shown = a.cube_id[tup[:, 0], tup[:, 1], tup[:, 2]]
        cubes = np.array(pyramid(n).cubes, dtype=np.int32)
        cube_at = np.full(a.num_cells, -1, dtype=np.int32)
        taken = np.zeros(len(cubes), dtype=bool)
        for c in rng.permutation(a.num_cells):
            if not taken[shown[c]]:
                taken[shown[c]] = True
                cube_at[c] = shown[c]
        free_cells = np.flatnonzero(cube_at < 0)
        missing = rng.permutation(np.flatnonzero(~taken))
        for c, k in zip(free_cells, missing, strict=True):
            cube_at[c] = k
            turns = cubes[k][PERMS]
            tup[c] = turns[int(np.argmax((turns == tup[c]).sum(axis=1)))]
        return cls(n, cube_at, tup, seed, **weights)

    @property
    def energy(self) -> float:
        sc = self.state[7]
        return self.weights[0] * sc[S_CELLS] + self.weights[1] * sc[S_LINES]

    @property
    def lines_in_conflict(self) -> int:
        return int(self.state[7][S_LINES])

    @property
    def best_lines(self) -> int:
        return int(self.best[1])

    def run(self, moves: int, temperature: float = 0.5, p_turn: float = 0.2,
            p_target: float = 0.5) -> int:
        """Up to `moves` moves, or until no line is in conflict; returns the fewest lines in
        conflict of the best state (by E) so far."""
        params = np.array([temperature, p_turn, p_target, *self.weights], dtype=np.float64)
        made = run_dual(self.geom, self.cube_labels, self.label_cubes_start, self.label_cubes,
                        PERMS, self.state, self.best_tup, self.best_cube, self.best, int(moves),
                        params)
        self.moves += int(made)
        return self.best_lines

    def labels(self, best: bool = True) -> np.ndarray:
        """Line labels: each line's most shown label (ties: the smallest) in the best (or the
        current) state. With no line in conflict, a solution."""
        tup = self.best_tup if best else self.state[0]
        a = self.arrays
        counts = np.zeros((a.num_lines, a.num_labels), dtype=np.int64)
        for f in range(3):
            np.add.at(counts, (a.cell_line[:, f], tup[:, f]), 1)
        return counts.argmax(axis=1).astype(np.int32)


def lines_in_conflict(n: int, tup: np.ndarray) -> int:
    """Lines whose cells do not all show the same label, computed plainly."""
    from ilp_pyramid.puzzles.bel.lns.arrays import arrays

    a = arrays(n)
    seen: dict[int, set[int]] = {}
    for c in range(a.num_cells):
        for f in range(3):
            seen.setdefault(int(a.cell_line[c, f]), set()).add(int(tup[c, f]))
    return sum(len(labels) > 1 for labels in seen.values())
