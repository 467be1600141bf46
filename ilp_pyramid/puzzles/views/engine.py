"""An exact minimum-cube search compiled with numba: the battery's engine.

The problem is a set cover: every set pixel of the three views is an element, every candidate
cell (all three projections set) is a set of three pixels, one per view. The search branches on
the uncovered pixel with the fewest usable cells; the branch that takes cell k forbids the
cells tried before it, so no cover is enumerated twice. A branch is cut when cubes used plus a
lower bound reach the best cover so far. The bound counts, per layer z, per column x and per
depth y, the uncovered pixels that one cube can cover at most one of at a time:

    layer z : a cube covers at most one front pixel of row z and one side pixel of row z, so
              layer z still needs max(front row z, side row z) cubes;
    column x: max(top column x, front column x);     depth y: max(top row y, side column n-1-y)

and takes the largest of the three sums. The search is exhaustive unless `node_limit` stops it,
so a result with `proved` set is the optimum; the MIP in `model.py` is the second, independent
exact method (tests compare the two on hundreds of seeds).

Pixels are bits of one uint64 per view, pixel (row r, column c) at bit r * n + c (n <= 8).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ilp_pyramid.puzzles.views.geometry import Views

UNSOLVABLE = -1
DEFAULT_NODE_LIMIT = 50_000_000

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _popcount(v):
    v = v - ((v >> _ONE) & _M1)
    v = (v & _M2) + ((v >> np.uint64(2)) & _M2)
    v = (v + (v >> np.uint64(4))) & _M4
    return np.int64((v * _H01) >> np.uint64(56))


@njit(cache=True)
def _bound(n, rows, cols, ut, uf, us):
    layers = 0
    xs = 0
    ys = 0
    for i in range(n):
        a = _popcount(uf & rows[i])
        b = _popcount(us & rows[i])
        layers += a if a > b else b
        a = _popcount(ut & cols[i])
        b = _popcount(uf & cols[i])
        xs += a if a > b else b
        a = _popcount(ut & rows[i])
        b = _popcount(us & cols[n - 1 - i])
        ys += a if a > b else b
    best = layers if layers > xs else xs
    return best if best > ys else ys


@njit(cache=True)
def _pick_pixel(n, ut, uf, us, pix_cells, pix_count, forbidden):
    """The uncovered pixel with the fewest usable cells, and how many it has."""
    pick = -1
    fewest = 1 << 30
    nn = n * n
    for v in range(3):
        m = ut if v == 0 else (uf if v == 1 else us)
        while m != _ZERO:
            p = _popcount((m & (~m + _ONE)) - _ONE)  # index of the lowest set bit
            m &= m - _ONE
            pid = v * nn + p
            usable = 0
            for j in range(pix_count[pid]):
                if not forbidden[pix_cells[pid, j]]:
                    usable += 1
            if usable < fewest:
                fewest = usable
                pick = pid
                if usable <= 1:  # forced (or dead): nothing beats it
                    return pick, fewest
    return pick, fewest


@njit(cache=True)
def _search(n, rows, cols, cell_pix, pix_cells, pix_count, m, top, front, side,
            best_cells, node_limit):
    """Depth-first branch and bound with an explicit stack (numba cannot cache recursion).

    Returns (best cube count, nodes, stopped); best_cells holds the best cover's cells.
    """
    best = m  # the maximal placement (cells 0..m-1, already in best_cells) is a cover
    state = np.empty((m + 1, 3), dtype=np.uint64)
    order = np.empty((m + 1, n), dtype=np.int64)
    count = np.zeros(m + 1, dtype=np.int64)
    index = np.zeros(m + 1, dtype=np.int64)
    bound = np.zeros(m + 1, dtype=np.int64)
    chosen = np.empty(m + 1, dtype=np.int64)
    forbidden = np.zeros(m + 1, dtype=np.bool_)
    gain = np.empty(n, dtype=np.int64)
    state[0, 0] = top
    state[0, 1] = front
    state[0, 2] = side
    nodes = 0
    stopped = False
    d = 0
    entering = True
    while d >= 0:
        if entering:
            entering = False
            ut = state[d, 0]
            uf = state[d, 1]
            us = state[d, 2]
            if (ut | uf | us) == _ZERO:
                if d < best:
                    best = d
                    for i in range(d):
                        best_cells[i] = chosen[i]
                d -= 1
                continue
            bound[d] = _bound(n, rows, cols, ut, uf, us)
            if d + bound[d] >= best:
                d -= 1
                continue
            nodes += 1
            if nodes > node_limit:
                stopped = True
                break
            pick, fewest = _pick_pixel(n, ut, uf, us, pix_cells, pix_count, forbidden)
            if fewest == 0:
                d -= 1
                continue
            # Cells covering more uncovered pixels first: good covers early, tight cuts later.
            k = 0
            for j in range(pix_count[pick]):
                c = pix_cells[pick, j]
                if forbidden[c]:
                    continue
                g = (np.int64((ut >> np.uint64(cell_pix[c, 0])) & _ONE)
                     + np.int64((uf >> np.uint64(cell_pix[c, 1])) & _ONE)
                     + np.int64((us >> np.uint64(cell_pix[c, 2])) & _ONE))
                i = k
                while i > 0 and gain[i - 1] < g:
                    order[d, i] = order[d, i - 1]
                    gain[i] = gain[i - 1]
                    i -= 1
                order[d, i] = c
                gain[i] = g
                k += 1
            count[d] = k
            index[d] = 0
        # Resume node d: forbid the child just explored, then try the next one.
        i = index[d]
        if i > 0:
            forbidden[order[d, i - 1]] = True
        if i < count[d] and d + bound[d] < best:
            c = order[d, i]
            index[d] = i + 1
            chosen[d] = c
            state[d + 1, 0] = state[d, 0] & ~(_ONE << np.uint64(cell_pix[c, 0]))
            state[d + 1, 1] = state[d, 1] & ~(_ONE << np.uint64(cell_pix[c, 1]))
            state[d + 1, 2] = state[d, 2] & ~(_ONE << np.uint64(cell_pix[c, 2]))
            d += 1
            entering = True
        else:
            for j in range(count[d]):
                forbidden[order[d, j]] = False
            d -= 1
    return best, nodes, stopped


@njit(cache=True)
def min_cubes(n, top, front, side, node_limit):
    """(cubes or -1 if unsolvable, placement bits [z*n*n + y*n + x], nodes, proved)."""
    nn = n * n
    placement = np.zeros(n * nn, dtype=np.bool_)
    rows = np.zeros(n, dtype=np.uint64)
    cols = np.zeros(n, dtype=np.uint64)
    for r in range(n):
        for c in range(n):
            rows[r] |= _ONE << np.uint64(r * n + c)
            cols[c] |= _ONE << np.uint64(r * n + c)
    # Candidate cells and which pixel of each view they cover.
    cell_pix = np.empty((n * nn, 3), dtype=np.int64)
    cell_at = np.empty(n * nn, dtype=np.int64)
    pix_cells = np.empty((3 * nn, n), dtype=np.int64)
    pix_count = np.zeros(3 * nn, dtype=np.int64)
    ct = _ZERO
    cf = _ZERO
    cs = _ZERO
    m = 0
    for z in range(n):
        for y in range(n):
            for x in range(n):
                t = y * n + x
                f = z * n + x
                s = z * n + (n - 1 - y)
                if ((top >> np.uint64(t)) & (front >> np.uint64(f)) & (side >> np.uint64(s))
                        & _ONE):
                    cell_pix[m, 0] = t
                    cell_pix[m, 1] = f
                    cell_pix[m, 2] = s
                    cell_at[m] = z * nn + y * n + x
                    for v, p in ((0, t), (1, f), (2, s)):
                        pid = v * nn + p
                        pix_cells[pid, pix_count[pid]] = m
                        pix_count[pid] += 1
                    ct |= _ONE << np.uint64(t)
                    cf |= _ONE << np.uint64(f)
                    cs |= _ONE << np.uint64(s)
                    m += 1
    if ct != top or cf != front or cs != side:
        return UNSOLVABLE, placement, 0, True
    best_cells = np.arange(m + 1)
    best, nodes, stopped = _search(n, rows, cols, cell_pix, pix_cells, pix_count, m,
                                   top, front, side, best_cells, node_limit)
    for i in range(best):
        placement[cell_at[best_cells[i]]] = True
    return best, placement, nodes, not stopped


@njit(cache=True)
def solvable_batch(n, tops, fronts, sides):
    """Element-wise: does the largest placement show exactly these views?"""
    out = np.zeros(len(tops), dtype=np.bool_)
    for k in range(len(tops)):
        top = tops[k]
        front = fronts[k]
        side = sides[k]
        ct = _ZERO
        cf = _ZERO
        cs = _ZERO
        for z in range(n):
            for y in range(n):
                for x in range(n):
                    t = np.uint64(y * n + x)
                    f = np.uint64(z * n + x)
                    s = np.uint64(z * n + (n - 1 - y))
                    if (top >> t) & (front >> f) & (side >> s) & _ONE:
                        ct |= _ONE << t
                        cf |= _ONE << f
                        cs |= _ONE << s
        out[k] = ct == top and cf == front and cs == side
    return out


def view_masks(views: Views) -> tuple[int, int, int]:
    """The views as the engine's uint64 masks: pixel (r, c) at bit r * n + c."""
    weights = np.uint64(1) << np.arange(views.n * views.n, dtype=np.uint64)
    return tuple(int(np.bitwise_or.reduce(np.where(v.ravel(), weights, np.uint64(0))))
                 for v in (views.top, views.front, views.side))


@dataclass
class FastResult:
    cubes: int  # UNSOLVABLE (-1) when no placement shows the views
    placement: np.ndarray | None  # [z, y, x]
    nodes: int
    proved: bool  # False only when the node limit stopped the search

    @property
    def solvable(self) -> bool:
        return self.cubes != UNSOLVABLE


def solve_fast(views: Views, node_limit: int = DEFAULT_NODE_LIMIT) -> FastResult:
    n = views.n
    top, front, side = (np.uint64(m) for m in view_masks(views))
    cubes, flat, nodes, proved = min_cubes(n, top, front, side, node_limit)
    placement = flat.reshape(n, n, n) if cubes != UNSOLVABLE else None
    return FastResult(int(cubes), placement, int(nodes), bool(proved))


def warm_up() -> None:
    """Compile (or load from numba's cache) before timing or forking workers."""
    min_cubes(1, np.uint64(1), np.uint64(1), np.uint64(1), 10)
    one = np.ones(1, dtype=np.uint64)
    solvable_batch(1, one, one, one)
