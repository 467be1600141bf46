"""Bel's Pyramids counted without listing them: a compiled search over the X and Y lines,
and below each of its leaves the Z lines' completions counted as an exact cover.

Once every X and Y line carries a label, every cell holds two of its three labels, and what
is left is an exact-cover problem: each Z line takes one label, which gives each of its cells
a cube, and the cubes must be all different (as many cubes as cells: each shown once). The
options are (Z line, label) pairs, each covering its line and its cells' cubes; the count of
exact covers is the count of completions. It is taken by a backtracking that always branches
on the uncovered cube with the fewest options still open (Knuth's rule), on bit masks of cubes
and lines, so a leaf with no completion (nearly all of them) costs a few nodes, and no
completion is listed.

The X and Y lines are searched as `count_search` searches them (its `_place`: a label's lines
within N(2N+1) cells, every cube still showable), in the split order of
`count_split.line_order` with labels in first-appearance order, so that a piece of a split
count (its first K lines given) is counted here exactly as D4 counts it there. The Z lines'
labels are left free: a label no X or Y line carries can be renamed among the others unused
there, (2N-1-k)! ways for k labels used on X and Y, and since every solution uses every
label, exactly one of those renamings keeps first appearance. So each leaf adds its covers
divided by (2N-1-k)!, and labelled pyramids = (2N-1)! x the sum.

A method apart from D4's (a #SAT counter on the CNF): the two share only the geometry.
Cubes are bits of one 64-bit word, so N <= 3 (35 cubes at N = 3, 84 at N = 4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.bel.count_search import SearchTables, _place, _unplace, search_tables
from ilp_pyramid.puzzles.bel.count_split import line_order
from ilp_pyramid.puzzles.bel.geometry import pyramid

MAX_N = 3  # cubes in one 64-bit word


@dataclass(frozen=True)
class CoverTables:
    """The search's tables (`count_search.SearchTables`, in the split order), the symmetry
    (g, pi) whose fixed points are counted (the identity for the plain count), and the Z
    lines grouped into the cycles of g: a cycle L, g(L), g^2(L), ... takes one label v, its
    t-th line pi^t(v) (so s(g(i)) = pi(s(i))), valid when pi^k(v) = v for a cycle of k."""

    search: SearchTables
    xy_positions: int  # the X and Y lines come first in the order
    z_cells: np.ndarray  # (Z cycles, cells) the cells of each cycle's lines, -1 padded
    z_shift: np.ndarray  # (Z cycles, cells) t for a cell of the cycle's t-th line
    z_cycle: np.ndarray  # (Z cycles,) the cycle's length k
    pi_power: np.ndarray  # (k + 1, m): pi^t(v)
    image: np.ndarray  # line -> g(line)
    preimage: np.ndarray  # line -> g^-1(line)
    symmetric: bool  # (g, pi) is not the identity: the X/Y labels are checked against it
    # every label can be carried by lines N(2N+1) cells long in all (a line whose cycle under
    # g has k lines carries l only if pi^k(l) = l); if not, no labelling is fixed
    first_appearance: bool  # pi is the identity: renamings broken (module doc)
    possible: bool
    cell_x: np.ndarray
    cell_y: np.ndarray
    cubes: int
    labels: int


def keeps_z(n: int, g: Sequence[int]) -> bool:
    """g maps the Z lines onto Z lines (every element does for N >= 2; at N = 1 the group
    moves the one cube's three lines among the families, and the cover count has no
    fixed points to offer)."""
    geo = pyramid(n)
    return all(geo.lines[int(g[i])].family == "Z" for i, line in enumerate(geo.lines)
               if line.family == "Z")


def cover_tables(n: int, g: Sequence[int] | None = None,
                 pi: Sequence[int] | None = None) -> CoverTables:
    """The tables of the models of N's pyramid, or with `g` (a line permutation of the group,
    `canonical.line_group`) and `pi` (a label permutation) of those s with s(g(i)) =
    pi(s(i)) for every line i: Burnside's fixed points."""
    if not 1 <= n <= MAX_N:
        raise InputError(f"the cover count takes N from 1 to {MAX_N} (got {n})")
    geo = pyramid(n)
    m = geo.num_labels
    order = list(line_order(n))
    xy = sum(1 for i in order if geo.lines[i].family != "Z")
    assert all(geo.lines[i].family == "Z" for i in order[xy:])
    image = np.arange(len(order), dtype=np.int32) if g is None else np.asarray(g, np.int32)
    pi_ = np.arange(m, dtype=np.int32) if pi is None else np.asarray(pi, np.int32)
    assert sorted(image.tolist()) == list(range(len(order))) and sorted(pi_.tolist()) == list(
        range(m))
    z_lines = order[xy:]
    assert {int(image[i]) for i in z_lines} == set(z_lines), "g must map Z lines to Z lines"
    cycles, seen = [], set()
    for line in z_lines:
        if line in seen:
            continue
        cycle = [line]
        while int(image[cycle[-1]]) != line:
            cycle.append(int(image[cycle[-1]]))
        seen.update(cycle)
        cycles.append(cycle)
    width = max(sum(len(geo.line_cells[i]) for i in c) for c in cycles)
    z_cells = np.full((len(cycles), width), -1, np.int32)
    z_shift = np.zeros((len(cycles), width), np.int32)
    for k, cycle in enumerate(cycles):
        cells = [(c, t) for t, line in enumerate(cycle) for c in geo.line_cells[line]]
        z_cells[k, :len(cells)] = [c for c, _ in cells]
        z_shift[k, :len(cells)] = [t for _, t in cells]
    longest = max(len(c) for c in cycles)
    pi_power = np.empty((longest + 1, m), np.int32)
    pi_power[0] = np.arange(m)
    for t in range(1, longest + 1):
        pi_power[t] = pi_[pi_power[t - 1]]
    rows = np.asarray(geo.cell_lines, np.int32)
    identity_pi = bool(np.all(pi_ == np.arange(m)))
    room = np.zeros(m, np.int64)  # the cells of the lines that can carry each label
    for line in range(len(order)):
        k, at = 1, int(image[line])
        while at != line:
            k, at = k + 1, int(image[at])
        for v in range(m):
            u = v
            for _ in range(k):
                u = int(pi_[u])
            room[v] += geo.line_lengths[line] if u == v else 0
    return CoverTables(search_tables(geo, order), xy, z_cells, z_shift,
                       np.asarray([len(c) for c in cycles], np.int32), pi_power, image,
                       np.argsort(image).astype(np.int32),
                       not (identity_pi and np.all(image == np.arange(len(order)))),
                       identity_pi, bool(np.all(room >= geo.label_total)), rows[:, 0].copy(),
                       rows[:, 1].copy(), len(geo.cubes), m)


@njit(cache=True, nogil=True)
def _z_covers(lab, z_cells, z_shift, z_cycle, pi_power, cell_x, cell_y, cube_of, cubes, m,
              masks, owner, of_cube, per_cube):
    """The exact covers of every cube by one (Z cycle, label) option per Z cycle (a Z line
    when g is the identity), the X and Y labels being `lab`'s. The last four are work arrays
    (`_work`), reused leaf after leaf."""
    lines = z_cells.shape[0]
    width = z_cells.shape[1]
    masks[:] = 0
    per_cube[:] = 0
    shown = np.empty(width, np.int64)  # the cubes of one option
    for z in range(lines):
        for v in range(m):
            if pi_power[z_cycle[z], v] != v:
                continue  # the cycle would come back to another label
            mask = np.uint64(0)
            clash = False
            size = 0
            for j in range(width):
                c = z_cells[z, j]
                if c < 0:
                    break
                cube = cube_of[lab[cell_x[c]], lab[cell_y[c]], pi_power[z_shift[z, j], v]]
                bit = np.uint64(1) << np.uint64(cube)
                if mask & bit:
                    clash = True
                    break
                mask |= bit
                shown[size] = cube
                size += 1
            if clash:
                continue
            o = z * m + v
            masks[o] = mask
            owner[o] = z
            for j in range(size):
                k = shown[j]
                of_cube[k, per_cube[k]] = o
                per_cube[k] += 1
            of_cube[cubes + z, per_cube[cubes + z]] = o  # the line is an item too
            per_cube[cubes + z] += 1
    # Single-cell Z lines whose cells hold the same two labels cover the same cubes label
    # for label: they are interchangeable, each cover giving t! covers of a group of t by
    # permuting its lines. Only a group's lowest free line may take an option, and the count
    # is multiplied back by every group's t!. (Longer lines are rarely alike; they are left
    # apart, which only costs the search their permutations.)
    before = np.full(lines, -1, np.int64)  # the group's previous line
    last = np.full(m * m, -1, np.int64)  # the last single line seen with each pair
    seen = np.zeros(m * m, np.int64)
    factor = 1
    for z in range(lines):
        c = z_cells[z, 0]
        if z_cells.shape[1] > 1 and z_cells[z, 1] >= 0:
            continue
        a, b = lab[cell_x[c]], lab[cell_y[c]]
        key = min(a, b) * m + max(a, b)
        before[z] = last[key]
        last[key] = z
        seen[key] += 1
        factor *= seen[key]
    # A line of a group is never branched on as an item: choosing a cube for a group's
    # lowest line would count each of the group's cube sets once per order of its cubes.
    alone = np.ones(lines, np.bool_)
    for z in range(lines):
        if before[z] >= 0:
            alone[z] = False
            alone[before[z]] = False
    full = np.uint64(0)
    for k in range(cubes):
        full |= np.uint64(1) << np.uint64(k)
    chosen_cube = np.zeros(lines + 1, np.int32)
    at = np.zeros(lines + 1, np.int32)
    chosen = np.zeros(lines + 1, np.int64)
    used = np.uint64(0)
    taken = np.int64(0)  # Z lines with a label, one bit each
    found = 0

    # The items are the cubes and the lines (0 .. cubes-1, then cubes + line); the branch
    # is on the item with the fewest open options, a line only where it is alone (in no
    # group). The root's:
    best, fewest = -1, 1 << 30
    for k in range(cubes + lines):
        if k >= cubes and not alone[k - cubes]:
            continue
        n_open = per_cube[k]
        if n_open < fewest:
            best, fewest = k, n_open
    if fewest == 0:
        return 0
    depth = 0
    chosen_cube[0] = best
    at[0] = 0
    while depth >= 0:
        k = chosen_cube[depth]
        pick = -1
        while at[depth] < per_cube[k]:
            o = of_cube[k, at[depth]]
            at[depth] += 1
            if (masks[o] & used) == 0 and (taken >> owner[o]) & 1 == 0 and (
                    before[owner[o]] < 0 or (taken >> before[owner[o]]) & 1):
                pick = o
                break
        if pick < 0:
            depth -= 1
            if depth >= 0:
                o = chosen[depth]
                used ^= masks[o]
                taken ^= np.int64(1) << owner[o]
            continue
        chosen[depth] = pick
        used |= masks[pick]
        taken |= np.int64(1) << owner[pick]
        if used == full:
            found += 1
            used ^= masks[pick]
            taken ^= np.int64(1) << owner[pick]
            continue
        best, fewest = -1, 1 << 30
        for q in range(cubes + lines):
            if q < cubes:
                if used & (np.uint64(1) << np.uint64(q)):
                    continue
            elif (taken >> (q - cubes)) & 1 or not alone[q - cubes]:
                continue
            n_open = 0
            for t in range(per_cube[q]):
                o = of_cube[q, t]
                if (masks[o] & used) == 0 and (taken >> owner[o]) & 1 == 0 and (
                        before[owner[o]] < 0 or (taken >> before[owner[o]]) & 1):
                    n_open += 1
                    if n_open >= fewest:
                        break
            if n_open < fewest:
                best, fewest = q, n_open
                if n_open <= 1:
                    break
        if fewest == 0:
            used ^= masks[pick]
            taken ^= np.int64(1) << owner[pick]
            continue
        depth += 1
        chosen_cube[depth] = best
        at[depth] = 0
    return found * factor


@njit(cache=True, nogil=True)
def _work(lines, m, cubes):
    """_z_covers' work arrays: each option's cube mask and line, the options of each item
    (each cube, then each line)."""
    return (np.zeros(lines * m, np.uint64), np.zeros(lines * m, np.int64),
            np.zeros((cubes + lines, lines * m), np.int32), np.zeros(cubes + lines, np.int32))


@njit(cache=True, nogil=True)
def _fits(line, lab, image, preimage, pi):
    """Line `line`'s label keeps s(g(i)) = pi(s(i)) with the lines labelled so far."""
    v = lab[line]
    after = lab[image[line]]
    if after >= 0 and after != pi[v]:
        return False
    before = lab[preimage[line]]
    return before < 0 or v == pi[before]


@njit(cache=True, nogil=True)
def _count_below(p0, top0, xy, order, start, cells, cell_lines, cube_of, cover, every,
                 lengths, total, m, lab, used, sums, z_cells, z_shift, z_cycle, pi_power,
                 image, preimage, symmetric, first_appearance, cell_x, cell_y, cubes, unit):
    """Sum over the X/Y leaves below position p0 (labels 0 .. top0-1 used so far) of their
    Z covers times unit[k] (the share of the k labels used); the state is restored.
    Returns (that sum, X/Y nodes, leaves).
    The loop is count_search's `_subtree` with these leaves and the check against g, written
    out as there: a step shared between numba kernels cost about 40% of the nodes a second."""
    total_sum = 0
    nodes = 0
    leaves = 0
    masks, owner, of_cube, per_cube = _work(z_cells.shape[0], m, cubes)
    if p0 == xy:
        return _z_covers(lab, z_cells, z_shift, z_cycle, pi_power, cell_x, cell_y, cube_of,
                         cubes, m, masks, owner, of_cube, per_cube) * unit[top0], 0, 1
    nxt = np.zeros(xy + 1, np.int32)
    tops = np.zeros(xy + 2, np.int32)
    p = p0
    tops[p] = top0
    nxt[p] = 0
    while p >= p0:
        v = nxt[p]
        if v >= (min(tops[p] + 1, m) if first_appearance else m):
            p -= 1
            if p >= p0:
                _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used,
                         sums)
            continue
        nxt[p] = v + 1
        nodes += 1
        if not _place(p, v, order, start, cells, cell_lines, cube_of, cover, every, lengths,
                      total, lab, used, sums):
            continue
        if symmetric and not _fits(order[p], lab, image, preimage, pi_power[1]):
            _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used, sums)
            continue
        top = max(tops[p], v + 1)
        if p + 1 == xy:
            leaves += 1
            covers = _z_covers(lab, z_cells, z_shift, z_cycle, pi_power, cell_x, cell_y,
                               cube_of, cubes, m, masks, owner, of_cube, per_cube)
            total_sum += covers * unit[top]
            _unplace(p, order, start, cells, cell_lines, cube_of, lengths, lab, used, sums)
            continue
        p += 1
        tops[p] = top
        nxt[p] = 0
    return total_sum, nodes, leaves


@dataclass
class CoverCount:
    """Models with first appearance along the split order (x (2N-1)! = labelled), and the
    work: X/Y nodes tried and X/Y leaves whose Z covers were counted."""

    models: int
    nodes: int
    leaves: int


def count_piece(tables: CoverTables, prefix: Sequence[int] = ()) -> CoverCount:
    """The models whose first len(prefix) lines of the split order carry `prefix` (labels in
    first-appearance order); the whole count with no prefix."""
    t = tables.search
    m = tables.labels
    if not tables.possible:
        return CoverCount(0, 0, 0)
    lab = np.full(len(t.order), -1, np.int32)
    used = np.zeros(tables.cubes, np.uint8)
    sums = np.zeros(m, np.int64)
    top = 0
    highest = min(top, m - 1)
    for p, v in enumerate(prefix):
        if not 0 <= v <= (highest if tables.first_appearance else m - 1) \
                or p >= tables.xy_positions:
            raise InputError(f"not a prefix of X/Y labels the count takes: {list(prefix)}")
        if not _place(p, v, t.order, t.complete_start, t.complete_cells, t.cell_lines,
                      t.cube_of, t.cover, t.every, t.lengths, t.total, lab, used, sums):
            return CoverCount(0, 0, 0)
        if tables.symmetric and not _fits(int(t.order[p]), lab, tables.image, tables.preimage,
                                          tables.pi_power[1]):
            return CoverCount(0, 0, 0)
        top = max(top, v + 1)
        highest = min(top, m - 1)
    # With first appearance a leaf with k labels on its X/Y lines counts 1/(m-k)! of its
    # covers: scaled by m! so that every share is an integer, divided back at the end.
    unit = np.asarray([math.factorial(m) // math.factorial(m - k) if tables.first_appearance
                       else math.factorial(m) for k in range(m + 1)], np.int64)
    scaled, nodes, leaves = _count_below(
        len(prefix), top, tables.xy_positions, t.order, t.complete_start, t.complete_cells,
        t.cell_lines, t.cube_of, t.cover, t.every, t.lengths, t.total, m, lab, used, sums,
        tables.z_cells, tables.z_shift, tables.z_cycle, tables.pi_power, tables.image,
        tables.preimage, tables.symmetric, tables.first_appearance, tables.cell_x,
        tables.cell_y, tables.cubes, unit)
    models, rest = divmod(int(scaled), math.factorial(m))
    assert rest == 0, "covers not divisible among the renamings of the unused labels"
    return CoverCount(models, int(nodes), int(leaves))


def labellings(tables: CoverTables, models: int) -> int:
    """The labellings a count of `tables` stands for: with first appearance each model is one
    of (2N-1)! renamings."""
    return models * math.factorial(tables.labels) if tables.first_appearance else models
