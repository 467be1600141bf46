"""The compiled local search: line labels, repeated cubes counted incrementally.

State (all numpy arrays, so numba compiles plain loops and Python can read them back):
lab[line] the labels; cellcube[cell] the cube each cell shows; cnt[cube] how many cells show
it; bucket[cube, :cnt] those cells (bpos[cell] = position in its bucket); the cubes shown
more than once (conf list) and never (miss list), each with a position index for O(1)
insert/delete; sc = [repeated cubes, len(conf), len(miss)]; rng = one xorshift64* word;
pool[length * L + label, :pool_size[..]] the lines of each length that carry each label
(pool_pos[line] = position there), so a swap partner is one draw; touched, scratch space for
weighing a move (the cubes it takes off and puts on); accept, the chance that a move that many
repeated cubes worse passes, at the temperature of the current run.

A move takes a cell whose cube is repeated, one of its three lines (label p) and a label q
(preferably one that makes the cell show a missing cube), and swaps labels with a line of the
same length that carries q, so every label keeps its total line length (the counting
condition), or (a "single" move) gives line i the label q alone: the counting condition then
breaks, which the count of repeated cubes pays for, and the walk is far freer (at N=6 a
descent floors at 3-6 repeated cubes instead of 11-13). A "triple" move swaps one line with
two lines whose lengths add up to its own, so that the lengths each label carries can change
as well. Worse moves pass with the
probability exp(-delta / temperature) (simulated annealing at a fixed temperature).

A move is weighed before it is made (`_delta`): at N=5 about 97% of the moves weighed are
refused, and making and unmaking each of them rewrote the counts of its cells twice. Weighing
first (and drawing partners from the pools instead of by rejection) gave the N=5 walk
several times the moves a CPU second (measured in docs/hybrid.md, "Weighing a move before
making it"). Profiled at N=6 (docs/notes/frontier_log.md, "Profiling the N=6 kernel"), the
weighing changes the counts in place and puts them back, indices are unsigned where they are
known to be >= 0, and the acceptance chances are a table: the same walk, more moves a CPU
second.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.lns.arrays import arrays

SC_CONFLICTS, SC_NCONF, SC_NMISS = 0, 1, 2


def _kernel(inline: str = "", helper: bool = True):
    """njit without numba's reference counting (these loops never allocate).

    With it, every array handed to a helper costs an atomic incref/decref pair that LLVM's
    pruning does not remove: the move loop ran several times slower (docs/hybrid.md).

    `inline` "llvm": the helper is compiled once per signature and LLVM inlines it into every
    caller (its alwaysinline attribute), so no call is left in the move loop. numba's own
    inlining (inline="always") gives the loop the same shape but copies and types the
    helper's body again at every call site, which made the first compile of run_moves take
    most of the first run of a fresh install (docs/hybrid.md, "The first compile").
    `inline` "numba": numba's own, for a helper with one call site, where that copy is the
    only one: it then has no compile of its own, whose fixed part (its signature carries the
    state's sixteen arrays) cost more than its body.

    `helper`: called from compiled code only, so without the entries Python would call it by
    (the wrapper that unboxes each of the state's arrays is the larger part of a helper's code
    to compile); init_state and run_moves, which Python calls, keep theirs.
    """
    return njit(cache=True, nogil=True, _nrt=False, error_model="numpy",
                forceinline=inline == "llvm", inline="always" if inline == "numba" else "never",
                no_cpython_wrapper=helper, no_cfunc_wrapper=helper)


@_kernel()
def _next(rng):
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return (x * np.uint64(2685821657736338717)) >> np.uint64(11)


@_kernel()
def _below(rng, n):
    # A 53-bit draw scaled by a multiply and a shift (a division costs more than the rest of
    # the draw); exact enough below 2**11, where every n the walk asks for lies.
    if n < 2048:
        return np.int64((_next(rng) * np.uint64(n)) >> np.uint64(53))
    return np.int64(_next(rng) % np.uint64(n))


@_kernel()
def _uniform(rng):
    return np.float64(_next(rng)) * (1.0 / 9007199254740992.0)


@_kernel(inline="llvm")
def _ix(x):
    """An index known to be >= 0, as an unsigned number: numba then leaves out the test for
    a negative index (Python's count from the end) that it puts on every signed one."""
    return np.uint64(x)


@_kernel(inline="llvm")
def _list_add(items, pos, sc, slot, k):
    m = sc[slot]
    items[m] = k
    pos[k] = m
    sc[slot] = m + 1


@_kernel(inline="llvm")
def _list_remove(items, pos, sc, slot, k):
    m = sc[slot] - 1
    p = pos[k]
    last = items[m]
    items[p] = last
    pos[last] = p
    pos[k] = -1
    sc[slot] = m


@_kernel(inline="numba")  # _set_label's
def _remove_cell(c, state):
    (lab, cellcube, cnt, bucket, bpos, conf, conf_pos, miss, miss_pos, sc, rng, pool,
     pool_size, pool_pos, touched, accept) = state
    k = np.int64(cellcube[c])
    m = cnt[k] - 1
    p = bpos[c]
    last = bucket[k, m]
    bucket[k, p] = last
    bpos[last] = p
    cnt[k] = m
    if m >= 1:
        sc[SC_CONFLICTS] -= 1
        if m == 1:
            _list_remove(conf, conf_pos, sc, SC_NCONF, k)
    else:
        _list_add(miss, miss_pos, sc, SC_NMISS, k)


@_kernel(inline="numba")  # _set_label's
def _add_cell(c, k, state):
    (lab, cellcube, cnt, bucket, bpos, conf, conf_pos, miss, miss_pos, sc, rng, pool,
     pool_size, pool_pos, touched, accept) = state
    m = cnt[k]
    if m == 0:
        _list_remove(miss, miss_pos, sc, SC_NMISS, k)
    else:
        sc[SC_CONFLICTS] += 1
        if m == 1:
            _list_add(conf, conf_pos, sc, SC_NCONF, k)
    bucket[k, m] = c
    bpos[c] = m
    cnt[k] = m + 1
    cellcube[c] = k


@_kernel(inline="llvm")
def _pool_add(i, key, pool, pool_size, pool_pos):
    m = pool_size[key]
    pool[key, m] = i
    pool_pos[i] = m
    pool_size[key] = m + 1


@_kernel(inline="llvm")
def _pool_remove(i, key, pool, pool_size, pool_pos):
    m = pool_size[key] - 1
    last = pool[key, m]
    pool[key, pool_pos[i]] = last
    pool_pos[last] = pool_pos[i]
    pool_size[key] = m


@_kernel(inline="llvm")
def _set_label(i, q, geom, state):
    (cell_line, line_start, line_cells, line_len, len_start, len_lines, cube_id,
     line_others) = geom
    lab = state[0]
    cellcube = state[1]
    pool, pool_size, pool_pos = state[11], state[12], state[13]
    base = line_len[i] * cube_id.shape[0]
    _pool_remove(i, base + lab[i], pool, pool_size, pool_pos)
    _pool_add(i, base + q, pool, pool_size, pool_pos)
    lab[i] = q
    for t in range(line_start[i], line_start[i + 1]):
        c = line_cells[t]
        k = np.int64(cube_id[lab[cell_line[c, 0]], lab[cell_line[c, 1]], lab[cell_line[c, 2]]])
        if k != cellcube[c]:
            _remove_cell(c, state)
            _add_cell(c, k, state)


@_kernel(inline="llvm")
def _moved_label(line, i, q, j, j2, p, lab):
    """A line's label after the move that gives i the label q and j, j2 the label p."""
    if line == i:
        return q
    if line == j or line == j2:
        return p
    return lab[_ix(line)]


# Inlined by force: as a call, every array of the two tuples goes on the stack field by field
# (some 130 words a call), which took a quarter of the N=6 walk's time when LLVM, on a larger
# body, stopped inlining it by itself (docs/notes/frontier_log.md, "Profiling the N=6 kernel").
@_kernel(inline="llvm")
def _delta(i, q, j, j2, p, geom, state):
    """How many more repeated cubes the move (i -> q, j and j2 -> p; j, j2 = -1 for none)
    would leave, computed without making it.

    The repeated cubes are the cells less the cubes shown, so a move changes their number by
    as much as it changes the number of cubes no cell shows. Each moved cell's cube is taken
    off cnt and its new one put on, in cnt itself, counting the cubes that fall to zero and
    those that leave it; cnt is put back before the return. A cell on two moved lines is
    counted once, with the first of them."""
    cell_line, line_start, line_cells = geom[0], geom[1], geom[2]
    cube_id, line_others = geom[6], geom[7]
    lab, cellcube, cnt = state[0], state[1], state[2]
    touched = state[14]
    delta = 0
    m = np.int64(0)
    # The count update is written out in both branches: as a shared inline helper the walk
    # was slower, the same walk (paired runs).
    if j < 0 and j2 < 0:  # one line alone (every move of the N=6 walk): no cell is shared
        for t in range(line_start[i], line_start[i + 1]):
            u = _ix(t)
            k = cube_id[_ix(q), _ix(lab[_ix(line_others[u, 0])]),
                        _ix(lab[_ix(line_others[u, 1])])]
            old = cellcube[_ix(line_cells[u])]
            delta += cnt[_ix(old)] == 1
            cnt[_ix(old)] -= 1
            delta -= cnt[_ix(k)] == 0
            cnt[_ix(k)] += 1
            touched[_ix(m)] = old
            touched[_ix(m + 1)] = k
            m += 2
    else:
        for which in range(3):
            line = i if which == 0 else (j if which == 1 else j2)
            if line < 0:
                continue
            for t in range(line_start[line], line_start[line + 1]):
                c = line_cells[_ix(t)]
                l0 = cell_line[_ix(c), 0]
                l1 = cell_line[_ix(c), 1]
                l2 = cell_line[_ix(c), 2]
                if which >= 1 and (l0 == i or l1 == i or l2 == i):
                    continue
                if which == 2 and (l0 == j or l1 == j or l2 == j):
                    continue
                k = cube_id[_ix(_moved_label(l0, i, q, j, j2, p, lab)),
                            _ix(_moved_label(l1, i, q, j, j2, p, lab)),
                            _ix(_moved_label(l2, i, q, j, j2, p, lab))]
                old = cellcube[_ix(c)]
                if k != old:
                    delta += cnt[_ix(old)] == 1
                    cnt[_ix(old)] -= 1
                    delta -= cnt[_ix(k)] == 0
                    cnt[_ix(k)] += 1
                    touched[_ix(m)] = old
                    touched[_ix(m + 1)] = k
                    m += 2
    for t in range(0, m, 2):
        cnt[_ix(touched[_ix(t)])] += 1
        cnt[_ix(touched[_ix(t + 1)])] -= 1
    return delta


@_kernel(helper=False)
def init_state(geom, state):
    """Recompute every count from lab (after a restart or a repair)."""
    (cell_line, line_start, line_cells, line_len, len_start, len_lines, cube_id,
     line_others) = geom
    (lab, cellcube, cnt, bucket, bpos, conf, conf_pos, miss, miss_pos, sc, rng, pool,
     pool_size, pool_pos, touched, accept) = state
    cnt[:] = 0
    conf_pos[:] = -1
    miss_pos[:] = -1
    sc[SC_CONFLICTS] = 0
    sc[SC_NCONF] = 0
    sc[SC_NMISS] = 0
    pool_size[:] = 0
    for i in range(lab.shape[0]):
        _pool_add(i, line_len[i] * cube_id.shape[0] + lab[i], pool, pool_size, pool_pos)
    for c in range(cell_line.shape[0]):
        k = cube_id[lab[cell_line[c, 0]], lab[cell_line[c, 1]], lab[cell_line[c, 2]]]
        cellcube[c] = k
        bucket[k, cnt[k]] = c
        bpos[c] = cnt[k]
        cnt[k] += 1
    for k in range(cnt.shape[0]):
        if cnt[k] == 0:
            _list_add(miss, miss_pos, sc, SC_NMISS, k)
        elif cnt[k] > 1:
            _list_add(conf, conf_pos, sc, SC_NCONF, k)
            sc[SC_CONFLICTS] += cnt[k] - 1
    return sc[SC_CONFLICTS]


@_kernel()
def _partner(rng, state, labels, length, q, avoid):
    """A random line of this length carrying label q, other than `avoid`, or -1."""
    pool, pool_size = state[11], state[12]
    if length < 1 or length * labels >= pool_size.shape[0]:
        return -1
    key = length * labels + q
    m = np.int64(pool_size[key])
    if m == 0:
        return -1
    t = _below(rng, m)
    if pool[key, t] != avoid:
        return pool[key, t]
    if m == 1:
        return -1
    u = _below(rng, m - 1)  # one of the others, uniformly
    return pool[key, u + 1 if u >= t else u]


@_kernel()
def _target_label(rng, c, i, p, geom, state, labels):
    """A label q != p for line i: one that makes cell c show a missing cube, if any."""
    cell_line = geom[0]
    cube_id = geom[6]
    lab = state[0]
    cnt = state[2]
    u = -1
    v = -1
    for f in range(3):
        other = cell_line[_ix(c), f]
        if other != i:
            if u < 0:
                u = lab[_ix(other)]
            else:
                v = lab[_ix(other)]
    chosen = -1
    seen = 0
    for q in range(labels):
        if q != p and cnt[_ix(cube_id[_ix(q), _ix(u), _ix(v)])] == 0:
            seen += 1
            if _below(rng, seen) == 0:
                chosen = q
    return chosen


@_kernel(helper=False)
def run_moves(geom, state, best_lab, best, moves, labels, params, stop_at):
    """Up to `moves` moves. Stops early after a move that changed the labels and left at most
    `stop_at` repeated cubes (so the caller can try a repair there), and always at zero.
    params = [temperature, p_target, p_triple, p_single].
    Returns (best conflicts, moves made)."""
    (cell_line, line_start, line_cells, line_len, len_start, len_lines, cube_id,
     line_others) = geom
    (lab, cellcube, cnt, bucket, bpos, conf, conf_pos, miss, miss_pos, sc, rng, pool,
     pool_size, pool_pos, touched, accept) = state
    temperature = params[0]
    p_target = params[1]
    p_triple = params[2]
    p_single = params[3]
    num_lines = lab.shape[0]
    # exp(-delta / temperature) for every delta a move can have, computed here by the same
    # call as before, so a table look-up gives the same bits: libm's exp took a share of the
    # N=6 walk (docs/notes/frontier_log.md, "Profiling the N=6 kernel")
    for d in range(accept.shape[0]):
        accept[d] = math.exp(-d / temperature)
    made = 0
    for _ in range(moves):
        cur = sc[SC_CONFLICTS]
        if cur == 0:
            break
        made += 1
        k = conf[_ix(_below(rng, sc[SC_NCONF]))]
        c = bucket[_ix(k), _ix(_below(rng, np.int64(cnt[_ix(k)])))]
        # Every line and label held as int64 (the arrays hold int32): each helper is then
        # compiled for one signature, not once for every mix of widths and literals it meets.
        i = np.int64(cell_line[_ix(c), _ix(_below(rng, np.int64(3)))])
        p = np.int64(lab[_ix(i)])
        q = np.int64(-1)
        if _uniform(rng) < p_target:
            q = _target_label(rng, c, i, p, geom, state, labels)
        if q < 0:
            q = _below(rng, labels - 1)
            if q >= p:
                q += 1
        length = np.int64(line_len[_ix(i)])
        j = np.int64(-1)
        j2 = np.int64(-1)
        if p_single > 0.0 and _uniform(rng) < p_single:
            pass  # line i alone changes label: the counting condition may break
        elif p_triple > 0.0 and length > 1 and _uniform(rng) < p_triple:
            # i (length a) <-> j (length b) + j2 (length a - b), both carrying q
            b = 1 + _below(rng, length - 1)
            j = _partner(rng, state, labels, b, q, i)
            if j < 0:
                continue
            j2 = _partner(rng, state, labels, length - b, q, j)
            if j2 < 0:
                continue
        else:
            j = _partner(rng, state, labels, length, q, i)
            if j < 0:
                continue
        delta = _delta(i, q, j, j2, p, geom, state)
        if delta <= 0 or _uniform(rng) < (accept[delta] if delta < accept.shape[0]
                                          else math.exp(-delta / temperature)):
            # i to q, j and j2 (where there are) to p, in that order, through one call of
            # _set_label: each call is a copy of its body in the loop to compile
            for which in range(3):
                line = i if which == 0 else (j if which == 1 else j2)
                if line >= 0:
                    _set_label(line, q if which == 0 else p, geom, state)
            if sc[SC_CONFLICTS] < best:
                best = sc[SC_CONFLICTS]
                for t in range(num_lines):
                    best_lab[t] = lab[t]
            if sc[SC_CONFLICTS] <= stop_at:
                break
    return best, made


# -- the Python side ---------------------------------------------------------------------------

def kernels_cached() -> bool:
    """Whether the first call of the search loads its compiled kernels (this process has
    them, or numba's cache holds them for this source, numba and machine) rather than
    compiling them, which takes seconds: a command says so before a run that compiles.

    The look is numba's own (its cache index and the key it would load by); where a numba
    without these internals cannot tell, True: no message rather than a wrong one.
    """
    try:
        return all(_cached(kernel) for kernel in (init_state, run_moves))
    except Exception:  # noqa: BLE001 - numba's private cache API changed: say nothing
        return True


def _cached(kernel) -> bool:
    if kernel.overloads:
        return True
    cache = kernel._cache
    codegen = kernel.targetctx.codegen()
    index = cache._cache_file._load_index()
    return any(cache._index_key(key[0], codegen) == key for key in index)


def compile_plan(geom: tuple, state: tuple) -> tuple[list, list, list]:
    """The kernels to compile before a search, each with the argument types it is called
    with, in three groups: two of run_moves' helpers, of about equal compile time
    (`_set_label`'s family with the draws; the weighing with the choice of a label), then
    run_moves. lns/warmup.py compiles the first two in two processes at once into numba's
    cache, from which run_moves then loads them, bitcode included, so LLVM inlines them as
    before. A type here that is not the one called costs a compile, never a wrong kernel: the
    caller compiles what it calls (tests/test_lns_warmup.py checks these are the calls)."""
    from numba import typeof

    g, s, rng = typeof(geom), typeof(state), typeof(state[10])
    i64, i32 = typeof(np.int64(0)), typeof(np.int32(0))
    lab, params = typeof(state[0]), typeof(np.zeros(4))
    first = [(_set_label, (i64, i64, g, s)),
             (_partner, (rng, s, i64, i64, i64, i64)),
             (_uniform, (rng,))]
    second = [(_delta, (i64, i64, i64, i64, i64, g, s)),
              (_target_label, (rng, i32, i64, i64, g, s, i64))]
    last = [(run_moves, (g, s, lab, i64, i64, i64, params, i64))]
    return first, second, last


def random_labels(n: int, rng: np.random.Generator) -> np.ndarray:
    """Random line labels that meet the counting condition: every label's lines add up to
    N(2N+1) cells. Lines go longest first, each to a random label that still has room (half
    of the time the roomiest one, which keeps the end of the packing from getting stuck)."""

    a = arrays(n)
    for _ in range(1000):
        room = np.full(a.num_labels, n * (2 * n + 1), dtype=np.int64)
        order = rng.permutation(a.num_lines)
        order = order[np.argsort(-a.line_len[order], kind="stable")]
        labels = np.empty(a.num_lines, dtype=np.int32)
        for i in order:
            fits = np.flatnonzero(room >= a.line_len[i])
            if len(fits) == 0:
                break
            if rng.random() < 0.5:
                fits = fits[room[fits] == room[fits].max()]
            label = int(rng.choice(fits))
            labels[i] = label
            room[label] -= a.line_len[i]
        else:
            return labels
    raise RuntimeError(f"no labelling met the counting condition for N={n}")  # pragma: no cover


def perturb(n: int, labels: np.ndarray, swaps: int, rng: np.random.Generator) -> np.ndarray:
    """`labels` with `swaps` random label exchanges between lines of the same length (so the
    counting condition still holds): a kick away from a state to restart the search near it."""

    a = arrays(n)
    out = np.array(labels, dtype=np.int32, copy=True)
    for _ in range(swaps):
        i = int(rng.integers(a.num_lines))
        same = a.len_lines[a.len_start[a.line_len[i]]:a.len_start[a.line_len[i] + 1]]
        j = int(rng.choice(same))
        out[i], out[j] = out[j], out[i]
    return out


def new_state(n: int, labels: np.ndarray, seed: int) -> tuple[np.ndarray, ...]:
    """The search's state arrays for `labels` (the counts still to be made by init_state)."""
    a = arrays(n)
    cubes = len(pyramid(n).cubes)
    cells = a.num_cells
    max_len = int(a.line_len.max())
    rng_word = (int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % 2**64 or 1
    return (
        np.array(labels, dtype=np.int32, copy=True),  # lab
        np.zeros(cells, np.int32),  # cellcube
        np.zeros(cubes, np.int32),  # cnt
        np.zeros((cubes, cells), np.int32),  # bucket
        np.zeros(cells, np.int32),  # bpos
        np.zeros(cubes, np.int32),  # conf
        np.full(cubes, -1, np.int32),  # conf_pos
        np.zeros(cubes, np.int32),  # miss
        np.full(cubes, -1, np.int32),  # miss_pos
        np.zeros(3, np.int64),  # sc
        np.array([rng_word], np.uint64),  # rng
        np.zeros(((max_len + 1) * a.num_labels, a.num_lines), np.int32),  # pool
        np.zeros((max_len + 1) * a.num_labels, np.int32),  # pool_size
        np.zeros(a.num_lines, np.int32),  # pool_pos
        # touched: the cubes a weighed move takes off and puts on (cnt is put back from it)
        np.zeros(6 * max_len, np.int32),
        # accept[d]: the chance a move d repeated cubes worse passes (a move changes the
        # cubes of at most 3 lines' cells)
        np.zeros(3 * max_len + 1, np.float64),
    )


class LocalSearch:
    """The compiled search's state for one N, with the best labelling seen so far."""

    def __init__(self, n: int, labels: np.ndarray, seed: int):

        a = arrays(n)
        self.n = n
        self.num_labels = a.num_labels
        self.geom = a.geometry()
        self.state = new_state(n, labels, seed)
        self.best_labels = self.state[0].copy()
        self.best = int(init_state(self.geom, self.state))
        self.moves = 0

    @property
    def labels(self) -> np.ndarray:
        return self.state[0]

    @property
    def conflicts(self) -> int:
        return int(self.state[9][SC_CONFLICTS])

    def reset(self, labels: np.ndarray) -> None:
        """Start again from `labels` (a restart, or the state a repair left)."""
        self.state[0][:] = labels
        self.best_labels[:] = labels
        self.best = int(init_state(self.geom, self.state))

    def run(self, moves: int, temperature: float, p_target: float = 0.5,
            p_triple: float = 0.2, stop_at: int = 0, p_single: float = 0.0) -> int:
        """Up to `moves` moves, or until a move leaves at most `stop_at` repeated cubes;
        returns the best number of repeated cubes so far."""
        params = np.array([temperature, p_target, p_triple, p_single], dtype=np.float64)
        best, made = run_moves(self.geom, self.state, self.best_labels, self.best, int(moves),
                               self.num_labels, params, int(stop_at))
        self.best = int(best)
        self.moves += int(made)
        return self.best
