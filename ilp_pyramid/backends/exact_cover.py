"""The package's one exact-cover engine: Dancing Links (Knuth's Algorithm X), compiled by numba.

An exact-cover problem is a list of rows, each a list of item numbers. Items
``0 .. num_primary-1`` are *primary* (covered exactly once), items
``num_primary .. num_primary+num_secondary-1`` are *secondary* (covered at most once).
A solution is a list of row indices whose rows cover every primary item exactly once and no
secondary item twice. As in Knuth's Algorithm X the search branches on primary items only, so a
row made of secondary items alone is never part of a solution.

Typical use::

    from ilp_pyramid.backends.exact_cover import ExactCover, solve_exact_cover, count_exact_cover

    result = solve_exact_cover(rows, num_primary=300, limit=1, time_limit=10.0)
    if result.solutions:           # one solution: a sorted list of row indices
        ...
    elif result.exhausted:         # the whole tree was searched: no solution exists
        ...
    else:                          # a limit (time or nodes) stopped the search: unknown
        ...

    total = count_exact_cover(rows, num_primary=67, jobs=2).count

    # Splitting by hand (for your own pool of workers):
    ec = ExactCover(rows, num_primary=67)
    prefixes = ec.split(depth=3)           # disjoint sub-trees, each a tuple of row indices
    sum(ec.count(prefix=p).count for p in prefixes)   # == the full count (any process)

Why a compiled engine of our own (numbers in docs/iq.md): this numba DLX counts the IQ boards
as fast as a plain C Dancing Links (0.9-1.5x of its time). Of the PyPI libraries, ``exact-cover``
1.5.0 (C) is ~3x slower and has no secondary items, limits or split; ``xcover`` is as fast but
offers no time/node limit or split and compiles for ~30 s on first use; ``dlx`` and
``dancing-links`` are pure Python, 40-50x slower.

The search is resumable: every bit of its state lives in numpy arrays, so the compiled kernel
runs for a bounded number of nodes (sized to take ~50 ms), returns to Python (which checks the
wall clock and reports progress) and continues where it stopped. Time limits therefore cost
nothing inside the hot loop and are kept to within ~0.1 s.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.backends.process import die_with_parent
from ilp_pyramid.machine import cores

if TYPE_CHECKING:
    from ilp_pyramid.backends.base import Solver
    from ilp_pyramid.backends.forms import ExactCoverForm

__all__ = [
    "CountResult",
    "ExactCover",
    "SearchResult",
    "auto_depth",
    "count_exact_cover",
    "run",
    "solve_exact_cover",
]

# Kernel return codes.
_EXHAUSTED = 0  # the sub-tree is fully searched
_BUDGET = 1  # the node budget for this call ran out (resume by calling again)
_FOUND = 2  # the number of solutions asked for was reached
_BUFFER_FULL = 3  # the solution buffer is full (grow it and resume)

# Slots of the small state vector the kernel keeps between calls.
_K, _MODE, _NODES, _COUNT, _STORED, _BASE = range(6)
_ENTER, _BACKTRACK = 0, 1

# Search runs in chunks of nodes sized to take about this long, so that time limits and
# progress stay live whatever a node costs (a node of a 500-item problem costs far more than one
# of the 67-item IQ boards).
_CHUNK_SECONDS = 0.05
_FIRST_CHUNK = 20_000


@njit(cache=True, nogil=True, inline="always")
def _cover(c, L, R, U, D, C, S):
    L[R[c]] = L[c]
    R[L[c]] = R[c]
    i = D[c]
    while i != c:
        j = R[i]
        while j != i:
            U[D[j]] = U[j]
            D[U[j]] = D[j]
            S[C[j]] -= 1
            j = R[j]
        i = D[i]


@njit(cache=True, nogil=True, inline="always")
def _uncover(c, L, R, U, D, C, S):
    i = U[c]
    while i != c:
        j = L[i]
        while j != i:
            S[C[j]] += 1
            U[D[j]] = j
            D[U[j]] = j
            j = L[j]
        i = U[i]
    L[R[c]] = c
    R[L[c]] = c


@njit(cache=True, nogil=True, inline="always")
def _cover_rest(r, L, R, U, D, C, S):
    """Cover the items of row node r's row other than r's own, left to right."""
    j = R[r]
    while j != r:
        _cover(C[j], L, R, U, D, C, S)
        j = R[j]


@njit(cache=True, nogil=True, inline="always")
def _uncover_rest(r, L, R, U, D, C, S):
    """Undo `_cover_rest(r)`: right to left, the reverse order."""
    j = L[r]
    while j != r:
        _uncover(C[j], L, R, U, D, C, S)
        j = L[j]


@njit(cache=True, nogil=True, inline="always")
def _descend(c, k, path, L, R, U, D, C, S):
    """Level k branches on item c: c covered, its first row taken (path[k]) and covered."""
    _cover(c, L, R, U, D, C, S)
    r = D[c]
    path[k] = r
    _cover_rest(r, L, R, U, D, C, S)


@njit(cache=True, nogil=True, inline="always")
def _next_row(k, path, L, R, U, D, C, S):
    """Level k's row given up for the next row of its item: True when there was one (now
    path[k], covered); False when the item's rows are used up (the item uncovered again)."""
    r = path[k]
    c = C[r]
    _uncover_rest(r, L, R, U, D, C, S)
    r = D[r]
    if r == c:
        _uncover(c, L, R, U, D, C, S)
        return False
    path[k] = r
    _cover_rest(r, L, R, U, D, C, S)
    return True


@njit(cache=True, nogil=True, inline="always")
def _fewest(R, S):
    """The primary item with the fewest rows left (Knuth's S heuristic), and that number."""
    c = R[0]
    best = S[c]
    j = R[c]
    while j != 0 and best > 1:
        if S[j] < best:
            best = S[j]
            c = j
        j = R[j]
    return c, best


@njit(cache=True, nogil=True)
def _search(L, R, U, D, C, S, ROW, path, st, buf, max_nodes, stop_after, store):
    """Run Algorithm X from the state in `st` for at most `max_nodes` nodes.

    `path[k]` is the row node chosen at level k. Solutions are counted in st[_COUNT]; when `store`
    is set their row indices are written to `buf` (one solution per buffer row).
    """
    k = st[_K]
    mode = st[_MODE]
    base = st[_BASE]
    nodes = 0
    width = buf.shape[1]
    while True:
        if mode == _ENTER:
            if R[0] == 0:
                # Every primary item is covered: a solution.
                if store:
                    if st[_STORED] >= buf.shape[0]:
                        st[_K] = k
                        st[_MODE] = _ENTER
                        st[_NODES] += nodes
                        return _BUFFER_FULL
                    s = st[_STORED]
                    for t in range(width):
                        buf[s, t] = ROW[path[t]] if t < k else -1
                    st[_STORED] = s + 1
                st[_COUNT] += 1
                mode = _BACKTRACK
                if stop_after > 0 and st[_COUNT] >= stop_after:
                    st[_K] = k
                    st[_MODE] = mode
                    st[_NODES] += nodes
                    return _FOUND
                continue
            if nodes >= max_nodes:
                st[_K] = k
                st[_MODE] = _ENTER
                st[_NODES] += nodes
                return _BUDGET
            nodes += 1
            c, best = _fewest(R, S)
            if best == 0:
                mode = _BACKTRACK
                continue
            _descend(c, k, path, L, R, U, D, C, S)
            k += 1
        else:
            if k == base:
                st[_K] = k
                st[_MODE] = _BACKTRACK
                st[_NODES] += nodes
                return _EXHAUSTED
            k -= 1
            if _next_row(k, path, L, R, U, D, C, S):
                k += 1
                mode = _ENTER


@njit(cache=True, nogil=True)
def _select(r, L, R, U, D, C, S):
    """Commit row node `r` for good (its item and every other item of the row get covered)."""
    _cover(C[r], L, R, U, D, C, S)
    _cover_rest(r, L, R, U, D, C, S)


@njit(cache=True, nogil=True)
def _split(L, R, U, D, C, S, ROW, path, depth, out):
    """All partial choices `depth` levels deep, in search order (row indices per level).

    Sub-trees that close earlier (a solution above `depth`, or a dead end) are written shorter,
    padded with -1; dead ends are left out. Returns the number of prefixes written.
    """
    n = 0
    k = 0
    mode = _ENTER
    while True:
        if mode == _ENTER:
            if R[0] == 0 or k == depth:
                if n < out.shape[0]:
                    for t in range(out.shape[1]):
                        out[n, t] = ROW[path[t]] if t < k else -1
                n += 1
                mode = _BACKTRACK
                continue
            c, best = _fewest(R, S)
            if best == 0:
                mode = _BACKTRACK
                continue
            _descend(c, k, path, L, R, U, D, C, S)
            k += 1
        else:
            if k == 0:
                return n
            k -= 1
            if _next_row(k, path, L, R, U, D, C, S):
                k += 1
                mode = _ENTER


@contextlib.contextmanager
def _numba_without_cffi() -> Iterator[None]:
    """numba's typing context, set up on the first kernel load, imports cffi when installed and
    parses C declarations with it, for cffi functions no kernel here takes: hidden for that load
    (`import cffi` fails meanwhile; numba then types no cffi objects in this process), unless
    cffi is loaded already."""
    hide = "cffi" not in sys.modules
    if hide:
        sys.modules["cffi"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        if hide and sys.modules.get("cffi", False) is None:
            del sys.modules["cffi"]


_kernels_loaded = False


def load_kernels(skip_cffi: bool = False) -> None:
    """Load (or compile) every kernel once, up front (`count_exact_cover` calls this before it
    plans): a tiny problem through each search, so that processes forked afterwards share the
    loaded code.
    `skip_cffi`: spare numba's cffi support (see `_numba_without_cffi`), for a process where no
    other thread imports anything meanwhile (the command line's)."""
    global _kernels_loaded
    if _kernels_loaded:
        return
    _kernels_loaded = True
    try:
        with _numba_without_cffi() if skip_cffi else contextlib.nullcontext():
            tiny = ExactCover([[0], [1]], num_primary=2)
            tiny.count(prefix=(0,))  # _select, _search
            tiny.subtrees(1)  # _split
    except BaseException:
        _kernels_loaded = False
        raise


@dataclass
class SearchResult:
    """What a search found. `exhausted` means the whole tree was searched (so an empty
    `solutions` proves there is none); `timed_out` means a time or node limit stopped it."""

    solutions: list[list[int]] = field(default_factory=list)
    exhausted: bool = False
    timed_out: bool = False
    nodes: int = 0
    seconds: float = 0.0


@dataclass
class CountResult:
    """A count of solutions. `solutions` (only when asked to collect) is an int array with one
    solution per row (row indices, padded with -1 where a solution has fewer rows)."""

    count: int
    exhausted: bool
    timed_out: bool = False
    nodes: int = 0
    seconds: float = 0.0
    solutions: np.ndarray | None = None
    # CPU seconds each worker process spent (empty when counted in this process): equal
    # figures mean the work was shared evenly.
    worker_cpu: list[float] = field(default_factory=list)


class ExactCover:
    """One exact-cover problem. Build it once; every search (solve, count, split) works on a
    fresh copy of the linked structure, so one instance serves any number of searches."""

    def __init__(self, rows: Sequence[Sequence[int]], num_primary: int, num_secondary: int = 0):
        self.rows = [sorted({int(i) for i in row}) for row in rows]
        self.num_primary = int(num_primary)
        self.num_secondary = int(num_secondary)
        num_items = self.num_primary + self.num_secondary
        if self.num_primary < 0 or self.num_secondary < 0 or num_items <= 0:
            raise ValueError("an exact-cover problem needs at least one item")
        for index, row in enumerate(self.rows):
            if not row:
                raise ValueError(f"row {index} is empty")
            if row[0] < 0 or row[-1] >= num_items:
                raise ValueError(f"row {index} names an item outside 0..{num_items - 1}")
        self._base = self._build(num_items)

    def _build(self, num_items: int) -> tuple[np.ndarray, ...]:
        # Unsigned node numbers: numba then skips the negative-index check on every access,
        # which is worth ~1.5x in the kernel.
        size = 1 + num_items + sum(len(r) for r in self.rows)
        L = np.empty(size, np.uint32)  # Knuth's names
        R = np.empty(size, np.uint32)
        U = np.empty(size, np.uint32)
        D = np.empty(size, np.uint32)
        C = np.zeros(size, np.uint32)
        ROW = np.full(size, -1, np.int32)
        S = np.zeros(num_items + 1, np.int32)
        # Header 0 is the root; item i has header i + 1. Only primary items join the root
        # list, so secondary items are never chosen to branch on, only covered by rows.
        for h in range(num_items + 1):
            U[h] = D[h] = C[h] = L[h] = R[h] = h
        primary = [0, *range(1, self.num_primary + 1)]
        for a, b in zip(primary, primary[1:] + primary[:1], strict=True):
            R[a] = b
            L[b] = a
        node = num_items + 1
        self._first_node = np.empty(len(self.rows), np.uint32)
        for index, row in enumerate(self.rows):
            first = node
            self._first_node[index] = first
            for item in row:
                h = item + 1
                C[node] = h
                ROW[node] = index
                U[node] = U[h]
                D[node] = h
                D[U[h]] = node
                U[h] = node
                S[h] += 1
                L[node] = node - 1
                R[node] = node + 1
                node += 1
            L[first] = node - 1
            R[node - 1] = first
        return L, R, U, D, C, S, ROW

    def incidence(self) -> np.ndarray:
        """Rows x items, True where a row holds an item (built once)."""
        if getattr(self, "_incidence", None) is None:
            table = np.zeros((len(self.rows), self.num_primary + self.num_secondary), bool)
            lengths = [len(row) for row in self.rows]
            table[np.repeat(np.arange(len(self.rows)), lengths),
                  np.fromiter((i for row in self.rows for i in row), np.int64, sum(lengths))] = True
            self._incidence = table
        return self._incidence

    def _fresh(self) -> tuple[np.ndarray, ...]:
        L, R, U, D, C, S, ROW = self._base
        return L.copy(), R.copy(), U.copy(), D.copy(), C.copy(), S.copy(), ROW

    def _apply_prefix(self, arrays: tuple[np.ndarray, ...], prefix: Sequence[int]) -> bool:
        """Commit the rows of `prefix`; False when they clash (then nothing extends them)."""
        covered: set[int] = set()
        for r in prefix:
            items = self.rows[r]
            if covered.intersection(items):
                return False
            covered.update(items)
        L, R, U, D, C, S, _ = arrays
        for r in prefix:
            _select(self._first_node[r], L, R, U, D, C, S)
        return True

    # -- searches ------------------------------------------------------------------------
    def solve(self, limit: int = 1, time_limit: float | None = None,
              node_limit: int | None = None, prefix: Sequence[int] = ()) -> SearchResult:
        """Find up to `limit` solutions (0: all). Each solution is a sorted list of row indices
        (including the rows of `prefix`)."""
        out = self._run(store=True, stop_after=max(0, int(limit)), time_limit=time_limit,
                        node_limit=node_limit, prefix=prefix, progress=None)
        assert out.solutions is not None
        solutions = [sorted(int(x) for x in s if x >= 0) for s in out.solutions]
        return SearchResult(solutions, out.exhausted, out.timed_out, out.nodes, out.seconds)

    def count(self, prefix: Sequence[int] = (), time_limit: float | None = None,
              node_limit: int | None = None, collect: bool = False,
              progress: Callable[[int, int], None] | None = None) -> CountResult:
        """Count every solution extending `prefix`; with `collect`, also return them
        (`progress(nodes, count)` is called between chunks of search)."""
        return self._run(store=collect, stop_after=0, time_limit=time_limit,
                         node_limit=node_limit, prefix=prefix, progress=progress)

    def split(self, depth: int, prefix: Sequence[int] = ()) -> list[tuple[int, ...]]:
        """Disjoint sub-trees covering the whole search (or the part of it extending `prefix`),
        each given by the rows chosen on the way down (`prefix`, then `depth` levels, fewer
        where a solution closes earlier). Counting each prefix and adding up gives the full
        count; sub-trees that die above `depth` are left out."""
        prefix = tuple(int(r) for r in prefix)
        arrays = self._fresh()
        if not self._apply_prefix(arrays, prefix):
            return []
        if depth <= 0:
            return [prefix]
        L, R, U, D, C, S, ROW = arrays
        path = np.zeros(max(1, self.num_primary + 1), np.uint32)
        capacity = 4096
        while True:
            out = np.full((capacity, depth), -1, np.int32)
            n = _split(L, R, U, D, C, S, ROW, path, int(depth), out)
            if n <= capacity:
                break
            capacity = n  # the structure is restored after a full pass: run again, larger
        return [prefix + tuple(int(x) for x in row if x >= 0) for row in out[:n]]

    def subtrees(self, depth: int, prefix: Sequence[int] = ()) -> int:
        """How many sub-trees `split(depth, prefix)` gives, without listing them."""
        arrays = self._fresh()
        if not self._apply_prefix(arrays, tuple(int(r) for r in prefix)):
            return 0
        if depth <= 0:
            return 1
        L, R, U, D, C, S, ROW = arrays
        path = np.zeros(max(1, self.num_primary + 1), np.uint32)
        return int(_split(L, R, U, D, C, S, ROW, path, int(depth),
                          np.empty((0, depth), np.int32)))

    def _run(self, store: bool, stop_after: int, time_limit: float | None,
             node_limit: int | None, prefix: Sequence[int],
             progress: Callable[[int, int], None] | None) -> CountResult:
        start = time.perf_counter()
        prefix = tuple(int(r) for r in prefix)
        width = self.num_primary + 1
        arrays = self._fresh()
        if not self._apply_prefix(arrays, prefix):
            empty = np.empty((0, width + len(prefix)), np.int32) if store else None
            return CountResult(0, True, nodes=0, seconds=time.perf_counter() - start,
                               solutions=empty)
        L, R, U, D, C, S, ROW = arrays
        path = np.zeros(width, np.uint32)
        st = np.zeros(8, np.int64)
        buf = np.full((64 if store else 0, width), -1, np.int32)
        chunks: list[np.ndarray] = []
        deadline = None if time_limit is None else start + float(time_limit)
        timed_out = False
        code = _BUDGET
        chunk = _FIRST_CHUNK
        while True:
            budget = chunk
            if node_limit is not None:
                budget = min(budget, int(node_limit) - int(st[_NODES]))
                if budget <= 0:
                    timed_out = True
                    break
            began = time.perf_counter()
            code = _search(L, R, U, D, C, S, ROW, path, st, buf, budget, stop_after, store)
            spent = time.perf_counter() - began
            if code == _BUDGET and budget == chunk:
                scale = _CHUNK_SECONDS / max(spent, 1e-6)
                chunk = int(min(max(chunk * min(scale, 8.0), 1_000), 50_000_000))
            if code == _BUFFER_FULL:
                chunks.append(buf.copy())
                st[_STORED] = 0
                if buf.shape[0] < 1 << 16:
                    buf = np.full((buf.shape[0] * 4, width), -1, np.int32)
                continue
            if code in (_EXHAUSTED, _FOUND):
                break
            if progress is not None:
                progress(int(st[_NODES]), int(st[_COUNT]))
            if deadline is not None and time.perf_counter() >= deadline:
                timed_out = True
                break
        solutions = None
        if store:
            chunks.append(buf[: st[_STORED]])
            found = np.concatenate(chunks)
            if prefix:
                pre = np.tile(np.asarray(prefix, np.int32), (found.shape[0], 1))
                found = np.concatenate([pre, found], axis=1)
            solutions = found
        exhausted = code == _EXHAUSTED and not timed_out
        return CountResult(int(st[_COUNT]), exhausted, timed_out, int(st[_NODES]),
                           time.perf_counter() - start, solutions)


# -- convenience functions -------------------------------------------------------------------
def solve_exact_cover(rows: Sequence[Sequence[int]], num_primary: int, num_secondary: int = 0,
                      limit: int = 1, time_limit: float | None = None,
                      node_limit: int | None = None) -> SearchResult:
    """Find up to `limit` solutions (0: all) of an exact-cover problem; see the module doc."""
    return ExactCover(rows, num_primary, num_secondary).solve(limit, time_limit, node_limit)


# -- counting over processes -------------------------------------------------------------
# How the work is split: the search tree is cut `depth` levels down (Knuth's MRV choices, so the
# sub-trees are disjoint) into many more sub-trees than workers -- at least PARTS_PER_JOB per
# worker -- and every worker takes the next sub-tree from a shared counter as soon as it is
# free. A sub-tree is then a small share of the work, so both cores stay busy to the end
# instead of one waiting on the other's last large piece.
PARTS_PER_JOB = 128  # quoted in `iq count --help` and docs/iq.md
_MAX_AUTO_DEPTH = 8
# How often (seconds) the parent looks at the clock and at its workers while waiting.
_POLL_SECONDS = 0.05
# Sub-trees' results travel (and are summarised) in batches: a few hundred microseconds of
# Python per message would otherwise cost more than the smallest sub-trees' search.
_BATCH_SOLUTIONS = 4096
_BATCH_SECONDS = 0.25


def auto_depth(problem: ExactCover, jobs: int, orbits: list[_Seed] | None = None) -> int:
    """The smallest split depth giving at least PARTS_PER_JOB sub-trees per job (or as many as
    the tree has, when it closes before that)."""
    return _auto_split(problem, jobs, orbits)[0]


def _auto_split(problem: ExactCover, jobs: int, orbits: list[_Seed] | None
                ) -> tuple[int, list[tuple[tuple[int, ...], int]]]:
    """`auto_depth`, and the sub-trees at that depth (found on the way: not split again)."""
    want = PARTS_PER_JOB * max(1, jobs)
    depth, parts = 1, _parts(problem, 1, orbits)
    while len(parts) < want and depth < _MAX_AUTO_DEPTH:
        deeper = _parts(problem, depth + 1, orbits)
        if len(deeper) <= len(parts):
            break  # the tree closes above this depth: splitting deeper gives nothing more
        depth, parts = depth + 1, deeper
    return depth, parts


# -- symmetry -------------------------------------------------------------------------------
# A group of row permutations that carries solutions to solutions (a board's rotations and
# reflections, say) spares most of the search: take a primary item and the maps of the group
# that only permute its rows among themselves (a subgroup: all of it when the group keeps the
# item, as a board's maps keep each piece). Every solution holds exactly one of those rows, and
# such a map carries the solutions through row r one to one onto those through its image. So it
# is enough to search below one row of each orbit and to carry what is found through one map per
# other row of the orbit: the same solutions, each exactly once, for about 1/|subgroup| of the
# search. Below a row that some maps keep (its stabiliser), the same is done again with those
# maps, _ORBIT_LEVELS levels in all.
# A third level saved the triangle a small share of its search for more planning than it
# saved (planning no other core shares).
_ORBIT_LEVELS = 2
_ORBIT_SCORE_DEPTH = 2  # how deep each candidate item's orbits are split to estimate the work
# Candidate items (fewest orbits first) whose work is estimated: past the second, the estimates
# cost the planning more than a better pick saved the IQ boards' search.
_ORBIT_CANDIDATES = 2


@dataclass
class _Seed:
    """Rows chosen by orbits, and the maps (rows of a permutation table whose last column keeps
    -1 as -1) that carry the solutions below them onto every other choice they stand for."""

    prefix: tuple[int, ...]
    maps: np.ndarray


def _seeds(problem: ExactCover, symmetries: np.ndarray) -> list[_Seed] | None:
    """Where the search starts when counting by orbits (None: no map but the identity keeps
    any item's rows)."""
    n = len(problem.rows)
    table = np.asarray(symmetries, np.int64)
    if table.ndim != 2 or table.shape[1] not in (n, n + 1):
        raise ValueError(f"symmetries: one row of {n} row indices per map expected")
    table = np.concatenate([table[:, :n], np.full((table.shape[0], 1), -1, np.int64)], axis=1)
    if any(sorted(g[:n].tolist()) != list(range(n)) for g in table):
        raise ValueError("symmetries: every map must be a permutation of the rows")
    identity = np.append(np.arange(n, dtype=np.int64), -1)[None, :]
    table = _distinct_rows(np.concatenate([identity, table]))  # orbits hold their own row
    seeds: list[_Seed] = []
    frontier = [((), table, identity)]  # (rows chosen, the maps keeping them, carry-over)
    for _ in range(_ORBIT_LEVELS):
        deeper = []
        for prefix, group, carry in frontier:
            orbits = _orbit_plan(problem, prefix, group) if len(group) > 1 else None
            if orbits is None:
                seeds.append(_Seed(prefix, carry))
                continue
            for r, cosets, stabiliser in orbits:
                # Carry-over after this level's map: (c o m)(x) = c[m[x]].
                deeper.append((prefix + (r,), stabiliser,
                               carry[:, cosets].reshape(-1, n + 1)))
        frontier = deeper
    seeds += [_Seed(prefix, carry) for prefix, _, carry in frontier]
    if all(len(seed.maps) == 1 for seed in seeds):
        return None
    return seeds


def _distinct_rows(table: np.ndarray) -> np.ndarray:
    """`np.unique(table, axis=0)`: the distinct rows in lexicographic order, without the
    structured dtype of one field per column numpy builds for it (slow to set up for a table
    as wide as the rows of a problem)."""
    rows = sorted(set(map(tuple, table.tolist())))
    return np.array(rows, table.dtype).reshape(len(rows), table.shape[1])


def _orbit_plan(problem: ExactCover, prefix: tuple[int, ...], group: np.ndarray
                ) -> list[tuple[int, np.ndarray, np.ndarray]] | None:
    """Below `prefix` (kept by every map of `group`): the primary item whose orbits promise the
    least search, as (first row of the orbit, one map per row of the orbit, the maps keeping
    that row) per orbit; None when no map but the identity keeps any item's rows."""
    incidence = problem.incidence()
    free = ~incidence[:, [item for r in prefix for item in problem.rows[r]]].any(axis=1)
    candidates = []
    for item in range(problem.num_primary):
        rows = np.flatnonzero(incidence[:, item] & free)
        if not rows.size:
            continue
        among = np.zeros(group.shape[1], bool)
        among[rows] = True
        keep = group[among[group[:, rows]].all(axis=1)]
        first = np.unique(keep[:, rows].min(axis=0)).tolist()
        if len(first) < rows.size:
            candidates.append((len(first), item, first, keep))
    if not candidates:
        return None
    candidates.sort(key=lambda c: c[:2])

    def work(candidate: tuple) -> int:
        # Sub-trees a little way below each orbit's first row: a cheap measure of the search.
        return sum(problem.subtrees(_ORBIT_SCORE_DEPTH, (*prefix, r)) for r in candidate[2])

    _, _, first, keep = min(candidates[:_ORBIT_CANDIDATES], key=work)
    orbits = []
    for r in first:
        _, pick = np.unique(keep[:, r], return_index=True)  # one map per image of r
        orbits.append((r, keep[np.sort(pick)], keep[keep[:, r] == r]))
    return orbits


def _parts(problem: ExactCover, depth: int,
           seeds: list[_Seed] | None) -> list[tuple[tuple[int, ...], int]]:
    """The sub-trees to count, each with the seed it grows from (-1: none, itself only)."""
    if seeds is None:
        return [(prefix, -1) for prefix in problem.split(depth)]
    return [(prefix, k) for k, seed in enumerate(seeds)
            for prefix in problem.split(depth - len(seed.prefix), seed.prefix)]


def _count_part(problem: ExactCover, part: tuple[tuple[int, ...], int],
                seeds: list[_Seed] | None, collect: bool,
                time_limit: float | None = None) -> CountResult:
    """One sub-tree's count (and solutions), carried over what its seed stands for."""
    prefix, seed = part
    result = problem.count(prefix=prefix, collect=collect, time_limit=time_limit)
    if seed < 0 or seeds is None or len(seeds[seed].maps) == 1:
        return result
    maps = seeds[seed].maps
    result.count *= len(maps)
    if result.solutions is not None:
        found = result.solutions
        result.solutions = maps[:, found].reshape(-1, found.shape[1]).astype(np.int32)
    return result


def _stack(arrays: list[np.ndarray]) -> np.ndarray:
    """Solutions of several sub-trees as one array, -1 padded to a common width, without the
    all -1 columns (a solution has far fewer rows than there are items)."""
    width = 0
    for a in arrays:
        used = np.flatnonzero((a >= 0).any(axis=0))
        width = max(width, int(used[-1]) + 1 if used.size else 0)
    fitted = [np.pad(a[:, :width], ((0, 0), (0, max(0, width - a.shape[1]))),
                     constant_values=-1) for a in arrays]
    return np.concatenate(fitted) if fitted else np.empty((0, width), np.int32)


class _Batch:
    """Sub-tree results gathered until worth a message: (sub-trees, count, nodes, summary)."""

    def __init__(self, summarise: Callable[[np.ndarray], object] | None) -> None:
        self.summarise = summarise
        self._reset()

    def _reset(self) -> None:
        self.parts = self.count = self.nodes = 0
        self.found: list[np.ndarray] = []
        self.since = time.perf_counter()

    def add(self, part: CountResult) -> tuple | None:
        """Take one sub-tree's result; a message when the batch is full."""
        self.parts += 1
        self.count += part.count
        self.nodes += part.nodes
        if part.solutions is not None and len(part.solutions):
            self.found.append(part.solutions)
        full = sum(len(a) for a in self.found) >= _BATCH_SOLUTIONS
        if full or time.perf_counter() - self.since >= _BATCH_SECONDS:
            return self.flush()
        return None

    def flush(self) -> tuple | None:
        if not self.parts:
            return None
        summary = self.summarise(_stack(self.found)) if self.summarise is not None else None
        message = (self.parts, self.count, self.nodes, summary)
        self._reset()
        return message


def _detach_worker() -> None:
    """In a worker: Ctrl-C goes to the whole terminal group, but only the parent decides (it kills
    the workers); SIGTERM kills at once; and the worker dies with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()


def _work(problem: ExactCover, parts: list[tuple[tuple[int, ...], int]],
          orbits: list[_Seed] | None, counter, results,
          summarise: Callable[[np.ndarray], object] | None) -> None:
    _detach_worker()
    began = time.process_time()
    batch = _Batch(summarise)
    try:
        while True:
            with counter.get_lock():
                index = counter.value
                counter.value = index + 1
            if index >= len(parts):
                break
            message = batch.add(_count_part(problem, parts[index], orbits,
                                            collect=summarise is not None))
            if message is not None:
                results.put(message)
        message = batch.flush()
        if message is not None:
            results.put(message)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        results.put(("error", f"{type(exc).__name__}: {exc}"))
    results.put(("done", time.process_time() - began))


class _Tally:
    """The parent's side: adds up messages, hands summaries on, reports progress."""

    def __init__(self, total_parts: int, on_part: Callable[[object], None] | None,
                 progress: Callable[[int, int], None] | None) -> None:
        self.total_parts = total_parts
        self.on_part = on_part
        self.progress = progress
        self.parts = self.count = self.nodes = 0

    def take(self, message: tuple | None) -> None:
        if message is None:
            return
        parts, count, nodes, summary = message
        self.parts += parts
        self.count += count
        self.nodes += nodes
        if self.on_part is not None and summary is not None:
            self.on_part(summary)
        if self.progress is not None:
            self.progress(self.parts, self.total_parts)


def count_exact_cover(rows: Sequence[Sequence[int]], num_primary: int, num_secondary: int = 0,
                      jobs: int = 1, depth: int | None = None, collect: bool = False,
                      progress: Callable[[int, int], None] | None = None,
                      time_limit: float | None = None,
                      summarise: Callable[[np.ndarray], object] | None = None,
                      on_part: Callable[[object], None] | None = None,
                      symmetries: np.ndarray | None = None) -> CountResult:
    """Count every solution, the tree split into disjoint sub-trees counted over `jobs`
    processes (fork; each takes the next sub-tree when free; see PARTS_PER_JOB).

    `depth`: split depth (None: `auto_depth`). `progress(done, total)` is called as sub-trees
    finish. `collect`: return every solution too (one per row of an int array of row indices,
    padded with -1). For results too large to hold, pass `summarise` instead: it is called on
    the solutions of a batch of sub-trees where they were counted (in a worker process) and
    its result handed to `on_part` in this process, batch by batch, in no fixed order.
    `time_limit` (seconds): stop there; the count is then partial (`timed_out`, not
    `exhausted`): the solutions of the sub-trees reported so far. KeyboardInterrupt (and any
    other exception) kills the workers before it propagates.

    `symmetries`: a group of row permutations carrying solutions to solutions (an int array,
    one map per row: the image of every row index; the identity may be among them). The
    search then runs below one row of each orbit of a well-chosen item and the solutions found
    are carried through the group (see "symmetry" above): the same count and the same
    solutions, each once, for a fraction of the search. `nodes` counts the search done."""
    start = time.perf_counter()
    problem = ExactCover(rows, num_primary, num_secondary)
    load_kernels()
    deadline = None if time_limit is None else start + float(time_limit)
    found: list[np.ndarray] = []
    if collect and summarise is None:
        summarise, on_part = np.asarray, found.append  # batches arrive stacked already
    orbits = None if symmetries is None else _seeds(problem, symmetries)
    parts = _auto_split(problem, jobs, orbits)[1] if depth is None else \
        _parts(problem, depth, orbits)
    jobs = max(1, min(jobs, len(parts), cores()))  # never more than the cores
    tally = _Tally(len(parts), on_part, progress)
    if progress is not None:
        progress(0, len(parts))
    worker_cpu: list[float] = []
    if jobs == 1:
        finished = _count_here(problem, parts, orbits, summarise, tally, deadline)
    else:
        finished = _count_in_workers(problem, parts, orbits, jobs, summarise, tally, deadline,
                                     worker_cpu)
    solutions = _stack(found) if collect else None
    return CountResult(tally.count, finished, not finished, tally.nodes,
                       time.perf_counter() - start, solutions, worker_cpu)


def _count_here(problem: ExactCover, parts: list[tuple[tuple[int, ...], int]],
                orbits: list[_Seed] | None, summarise: Callable[[np.ndarray], object] | None,
                tally: _Tally, deadline: float | None) -> bool:
    """The sub-trees one after the other in this process (bounded memory for `summarise`)."""
    batch = _Batch(summarise)
    for task in parts:
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            tally.take(batch.flush())
            return False
        part = _count_part(problem, task, orbits, summarise is not None, time_limit=left)
        tally.take(batch.add(part))
        if part.timed_out:
            tally.take(batch.flush())
            return False
    tally.take(batch.flush())
    return True


def _count_in_workers(problem: ExactCover, parts: list[tuple[tuple[int, ...], int]],
                      orbits: list[_Seed] | None, jobs: int,
                      summarise: Callable[[np.ndarray], object] | None, tally: _Tally,
                      deadline: float | None, worker_cpu: list[float]) -> bool:
    import queue

    # The compiled kernels are loaded (`load_kernels`) before the fork: the workers share them
    # (spawn would load numba and the kernels again in every worker).
    context = multiprocessing.get_context("fork")
    counter = context.Value("q", 0)
    results = context.Queue()
    workers = [context.Process(target=_work, daemon=True,
                               args=(problem, parts, orbits, counter, results, summarise))
               for _ in range(jobs)]
    running = 0
    try:
        for worker in workers:
            worker.start()
            running += 1
        while running:
            try:
                item = results.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                item = None
            if deadline is not None and time.perf_counter() >= deadline:
                return False
            if item is None:
                if any(w.exitcode not in (None, 0) for w in workers):
                    raise RuntimeError("an exact-cover worker process died")
            elif item[0] == "done":
                running -= 1
                worker_cpu.append(round(item[1], 3))
            elif item[0] == "error":
                raise RuntimeError(f"an exact-cover worker failed: {item[1]}")
            else:
                tally.take(item)
        return True
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.kill()
        for worker in workers:
            if worker.pid is not None:
                worker.join(timeout=2)
        results.cancel_join_thread()
        results.close()


def run(form: ExactCoverForm, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The backend's door (`backends.solve`): an exact cover, its first solution as
    `Result.rows`; its clock starts after numba is loaded."""
    start = time.perf_counter()
    if not form.rows:
        status = Status.SOLVED if form.num_primary == 0 else Status.INFEASIBLE
        return Result(solver.name, status, 0.0)
    found = ExactCover(form.rows, form.num_primary, form.num_secondary).solve(
        limit=1, time_limit=options.time_limit)
    seconds = time.perf_counter() - start
    if found.solutions:
        return Result(solver.name, Status.SOLVED, seconds, rows=list(found.solutions[0]))
    if found.exhausted:
        return Result(solver.name, Status.INFEASIBLE, seconds)
    return Result(solver.name, Status.TIMEOUT, seconds,
                  message=f"no answer within {options.time_limit} s")
