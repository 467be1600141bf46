"""How many Bel's Pyramids of N levels there are: labelled, and up to symmetry.

The symmetry group is the one the package states (symmetry.py): G, the pyramid's own 4^N
incidence automorphisms (6 at N = 1), times the (2N-1)! renamings of the labels. A class is an
orbit of G x S_(2N-1) on the labelled solutions.

Methods, each independent of the others in how it finds the solutions:

- "sat": SAT enumeration (CaDiCaL via python-sat) of the package's CNF with label renamings
  broken by first appearance (count_cnf.precedence): one solution per class of renamings,
  blocked in turn. labelled = found x (2N-1)!; classes = distinct canonical forms
  (canonical.py) of what was found.
- "search": the compiled backtracking over line labels (count_search.py), renamings broken
  the same way along its own line order; labelled and classes as for "sat".
- "d4": the #SAT counter D4 (optional `d4Solver`): labelled = models of the CNF with
  precedence x (2N-1)!; classes by Burnside's lemma, (1 / |G| (2N-1)!) x the sum over every
  (g, pi) of the solutions fixed by it, each fixed-point count a D4 count of the CNF plus
  "line i carries l -> line g(i) carries pi(l)" (count_cnf.fixed_by). The count depends only
  on the conjugacy class of g in G and the cycle type of pi, so one (g, pi) per pair of
  classes is counted and weighted by the pair's size.
- "ganak": the same counts by Ganak (optional `pyganak`), a counter written apart from D4.
- "scip": the same counts by SCIP's counting mode (optional `pyscipopt`) on the CNF as a 0-1
  program: the MIP side's column, a branch and bound that lists no solution but visits each.

With a `Split`, these counters count the labelled figure (and any fixed-point formula with
first appearance that has models) as a sum over pieces that partition the models, each in
its own child, resumable from a record (count_split.py).

The enumerating methods also check the orbit-stabiliser theorem on every class: a class whose
representative is fixed by |Stab| elements of G x S holds exactly |G| / |Stab| of the
solutions they found (each solution stands for its (2N-1)! renamings). Every class's
representative is checked by verify/ before it is counted. Methods that finish must agree on
both numbers; a disagreement raises SolverError and prints no number.

"approxmc" (optional `pyapproxmc`) is a bound, never an exact column: ApproxMC's estimate of
the models of the CNF with precedence, projected on the line variables, within a factor
(1 + epsilon) of the true count with probability at least 1 - delta, times (2N-1)!.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Generator
from dataclasses import asdict, dataclass, field
from itertools import permutations
from pathlib import Path

import numpy as np

from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.backends.process import forked, native_output
from ilp_pyramid.errors import InputError, SolverError
from ilp_pyramid.extras import available, need
from ilp_pyramid.puzzles.bel.canonical import first_appearance, images, line_group
from ilp_pyramid.puzzles.bel.count_child import detach_child, model_count, satisfiable
from ilp_pyramid.puzzles.bel.count_cnf import (
    approxmc_count,
    base_cnf,
    fixed_by,
    line_vars,
    precedence,
)
from ilp_pyramid.puzzles.bel.count_split import cnf_pieces, count_split, line_order
from ilp_pyramid.puzzles.bel.geometry import MAX_N, pyramid
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.puzzles.bel.symmetry import group_order
from ilp_pyramid.verify.bel import verify_solution

METHODS = ("sat", "search", "cover", "d4", "ganak", "scip")
# The default pair: D4 on the package's CNF and cover, a compiled search that shares with it
# only the geometry, so that a wrong CNF could not make the two agree (and at N = 2 cover
# takes 0.2 CPU s where Ganak takes 4); past cover's N <= 3 the two exact counters. sat
# stands in for a counter that is not installed (docs/counts.md).
DEFAULT_METHODS = ("d4", "cover")
DEFAULT_METHODS_PAST_COVER = ("d4", "ganak")
COVER_MAX_N = 3  # count_cover.MAX_N, kept here: that module loads numba
COUNTED, TIMEOUT, ESTIMATE = "counted", "timeout", "estimate"
# Largest N a count is attempted for: past 4 no method comes near finishing.
COUNT_MAX_N = 5

Progress = Callable[[str, dict], None]


@dataclass(frozen=True)
class Split:
    """How an exact counter's labelled count is split (count_split.py): `depth` lines deep
    to start, a piece past `cube_time` CPU seconds split again, `jobs` pieces at a time,
    the pieces recorded in `record` (a directory) for a rerun to resume from."""

    depth: int
    record: Path | None = None
    cube_time: float | None = None
    jobs: int | None = None


def check_split(n: int, split: Split) -> None:
    lines = len(pyramid(n).lines)
    if not 0 <= split.depth <= lines:
        raise InputError(f"--split must be between 0 and {lines} lines at N={n} (got "
                         f"{split.depth})")
    if split.cube_time is not None and not (math.isfinite(split.cube_time)
                                             and split.cube_time > 0):
        raise InputError(f"--cube-time must be a finite number of CPU seconds > 0 (got "
                         f"{split.cube_time})")
    if split.record is not None and split.record.exists() and not split.record.is_dir():
        raise InputError(f"--record {split.record}: not a directory")


@dataclass
class MethodCount:
    """One method's answer. With status "timeout" the figures are lower bounds (what was
    found before the limit), never the answer; "estimate": ApproxMC's, in `detail`."""

    method: str
    status: str
    labelled: int | None = None
    classes: int | None = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    detail: dict = field(default_factory=dict)


@dataclass
class CountReport:
    n: int
    geometric_symmetries: int  # |G|
    label_permutations: int  # (2N-1)!
    labelled: int | None  # agreed by every method that finished; None if none did
    classes: int | None
    methods: list[MethodCount]

    @property
    def complete(self) -> bool:
        return self.labelled is not None

    @property
    def status(self) -> str:
        """counted; estimate (only ApproxMC was asked, and answered); else timeout."""
        if self.complete:
            return COUNTED
        if self.methods and all(m.status == ESTIMATE for m in self.methods):
            return ESTIMATE
        return TIMEOUT

    @property
    def agreeing(self) -> list[str]:
        return [m.method for m in self.methods if m.status == COUNTED]

    def lower_bounds(self) -> tuple[int, int]:
        """(labelled, classes) proved so far: solutions found (each standing for its
        renamings) and the classes among them; labelled >= L (a count, or a counter's pieces
        so far) also gives classes >= L / |G x S|, orbits being no larger."""
        labelled = max([m.labelled or 0 for m in self.methods if m.status != ESTIMATE] + [0])
        classes = max([m.classes or 0 for m in self.methods if m.status != ESTIMATE] + [0])
        order = self.geometric_symmetries * self.label_permutations
        return labelled, max(classes, -(-labelled // order))

    def to_dict(self) -> dict:
        low_labelled, low_classes = self.lower_bounds()
        return {"n": self.n, "status": self.status,
                "labelled": self.labelled, "up_to_symmetry": self.classes,
                "labelled_at_least": low_labelled, "up_to_symmetry_at_least": low_classes,
                "group": {"geometric": self.geometric_symmetries,
                          "label_permutations": self.label_permutations,
                          "order": self.geometric_symmetries * self.label_permutations},
                "methods_agreeing": self.agreeing,
                "methods": [asdict(m) for m in self.methods]}


def check_n(n: int) -> None:
    if not 1 <= n <= COUNT_MAX_N:
        raise InputError(f"N must be between 1 and {COUNT_MAX_N} for a count (got {n}; "
                         f"the pyramid itself goes to {MAX_N})")


def check_methods(methods: list[str], approx: bool = False) -> None:
    """Known names; none at all only beside ApproxMC's estimate."""
    for name in methods:
        if name not in METHODS:
            raise InputError(f"unknown counting method {name!r} (choose from "
                             f"{', '.join(METHODS)})")
    if not methods and not approx:
        raise InputError("no counting method given (none is only for --approx)")


# --- classes of enumerated solutions -------------------------------------------------------


class Classes:
    """Canonical forms of solutions given one per class of renamings (rows of line labels),
    with how many solutions each class received and its stabiliser in G x S."""

    def __init__(self, n: int):
        self.n = n
        self.group = line_group(n)
        self.members: dict[bytes, int] = {}
        self.stabiliser: dict[bytes, int] = {}

    def add(self, rows: np.ndarray, chunk: int = 256) -> None:

        m = pyramid(self.n).num_labels
        size = len(self.group)
        for begin in range(0, len(rows), chunk):
            part = rows[begin: begin + chunk]
            every = np.concatenate([images(self.n, row) for row in part])
            renamed = first_appearance(every, m).reshape(len(part), size, -1)
            for r in range(len(part)):
                forms = renamed[r]
                least = forms[np.lexsort(forms.T[::-1])[0]]
                key = least.astype(np.uint8).tobytes()
                # (g, pi) fixes the solution iff g's image renamed equals it renamed (row 0
                # is the identity); pi is then unique, renamings acting freely.
                stab = int(np.all(forms == forms[0], axis=1).sum())
                self.members[key] = self.members.get(key, 0) + 1
                self.stabiliser.setdefault(key, stab)

    def __len__(self) -> int:
        return len(self.members)

    def check_orbits(self, method: str) -> None:
        """Orbit-stabiliser on every class: |G| / |Stab| renaming classes in each."""
        size = len(self.group)
        for key, count in self.members.items():
            if count * self.stabiliser[key] != size:
                raise SolverError(f"{method}: a class holds {count} solutions up to renaming "
                                  f"where |G| / |Stab| = {size} / {self.stabiliser[key]}: "
                                  f"the enumeration is not exact")

    def verify(self, method: str) -> None:
        """Every class representative checked by the independent verifier."""

        geo = pyramid(self.n)
        for key in self.members:
            labels = np.frombuffer(key, np.uint8)
            solution = BelSolution.from_line_labels(
                self.n, {(line.family, line.a, line.b): int(labels[i])
                         for i, line in enumerate(geo.lines)})
            if not verify_solution(solution).valid:
                raise SolverError(f"{method}: a solution found fails verification")

    def symmetric(self) -> int:
        """Classes whose members are fixed by some symmetry other than the identity."""
        return sum(1 for s in self.stabiliser.values() if s > 1)


Rows = Generator[np.ndarray, None, None]


def _enumerated(method: str, n: int, rows_of: Rows, finished: Callable[[], bool],
                deadline: float | None, progress: Progress | None, start: float,
                detail: Callable[[], dict]) -> MethodCount:
    classes = Classes(n)
    found = 0
    cpu = time.process_time() + _children_cpu()
    last = start
    for rows in rows_of:
        if len(rows):
            classes.add(rows)
            found += len(rows)
        now = time.perf_counter()
        if progress is not None and now - last >= 1.0:
            progress(method, {"found": found, "classes": len(classes), **detail()})
            last = now
        if deadline is not None and now >= deadline:
            break
    rows_of.close()  # a forked enumeration still running is stopped and reaped here
    factor = math.factorial(pyramid(n).num_labels)
    classes.verify(method)
    status = COUNTED if finished() else TIMEOUT
    if status == COUNTED:
        classes.check_orbits(method)
    return MethodCount(method, status, found * factor, len(classes),
                       time.perf_counter() - start,
                       time.process_time() + _children_cpu() - cpu,
                       {"found_up_to_renaming": found, "symmetric_classes": classes.symmetric(),
                        **detail()})


def count_by_search(n: int, deadline: float | None = None,
                    progress: Progress | None = None) -> MethodCount:
    from ilp_pyramid.puzzles.bel.count_search import LabelSearch

    start = time.perf_counter()
    search = LabelSearch(pyramid(n))

    def rows() -> Rows:
        while not search.finished:
            yield search.step().astype(np.int32)

    return _enumerated("search", n, rows(), lambda: search.finished, deadline, progress, start,
                       lambda: {"nodes": search.nodes})


def _sat_enumeration(clauses: list[list[int]], first_var: int, m: int, size: int,
                     send) -> None:
    """In a forked child: every model of `clauses`, as rows of line labels, sent in batches
    (at least every half second while models come), then ("done", None)."""
    detach_child()
    from pysat.solvers import Solver

    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        batch: list[list[int]] = []
        sent = time.monotonic()
        line_vars = range(first_var, first_var + size * m)
        while solver.solve():
            model = solver.get_model()
            true = [v for v in line_vars if model[v - 1] > 0]
            solver.add_clause([-v for v in true])  # one label per line: "not all these"
            labels = [0] * size
            for v in true:
                labels[(v - first_var) // m] = (v - first_var) % m
            batch.append(labels)
            if len(batch) >= 256 or time.monotonic() - sent > 0.5:
                send(("rows", np.asarray(batch, np.int8)))
                batch, sent = [], time.monotonic()
        send(("rows", np.asarray(batch, np.int8).reshape(-1, size)))
        send(("done", None))


def count_by_sat(n: int, deadline: float | None = None,
                 progress: Progress | None = None) -> MethodCount:

    start = time.perf_counter()
    cnf = base_cnf(n)
    extra, _ = precedence(cnf)
    xs = line_vars(cnf)
    geo = pyramid(n)
    # base_cnf numbers the line variables first, line by line, label by label.
    assert xs == list(range(xs[0], xs[0] + len(xs)))
    done = [False]

    def rows() -> Rows:
        args = (cnf.formula.clauses + extra, xs[0], geo.num_labels, len(geo.lines))
        with forked(_sat_enumeration, args) as child:
            while True:
                limit = None if deadline is None else max(deadline - child.start, 0.0)
                answer = child.answer(SolveOptions(time_limit=limit))
                if answer is None:
                    return
                kind, payload = answer
                if kind == "done":
                    done[0] = True
                    return
                if kind != "rows":
                    raise SolverError(f"the SAT enumeration ended early (exit code {payload})")
                yield payload.astype(np.int32)

    return _enumerated("sat", n, rows(), lambda: done[0], deadline, progress, start, dict)


# --- D4 and Burnside -----------------------------------------------------------------------


def conjugacy_classes(group: np.ndarray) -> list[tuple[int, int]]:
    """(index of a representative, class size) of every conjugacy class of a permutation
    group given as rows."""
    keys = {row.tobytes(): i for i, row in enumerate(group)}
    inverses = np.argsort(group, axis=1)
    seen: set[int] = set()
    out = []
    for i, g in enumerate(group):
        if i in seen:
            continue
        members = {keys[h[g[inv]].tobytes()] for h, inv in zip(group, inverses, strict=True)}
        seen |= members
        out.append((i, len(members)))
    return out


def cycle_types(m: int) -> list[tuple[list[int], int]]:
    """(a permutation of m labels, how many permutations share its cycle type), one per type."""
    seen: dict[tuple[int, ...], list] = {}
    for perm in permutations(range(m)):
        lengths, visited = [], set()
        for start in range(m):
            if start not in visited:
                length, k = 0, start
                while k not in visited:
                    visited.add(k)
                    k = perm[k]
                    length += 1
                lengths.append(length)
        key = tuple(sorted(lengths))
        if key in seen:
            seen[key][1] += 1
        else:
            seen[key] = [list(perm), 1]
    return [(perm, size) for perm, size in seen.values()]


# The exact model counters: method name -> the module `need` checks (count_cnf holds each
# counter's call).
COUNTERS = {"d4": "py_d4", "ganak": "pyganak", "scip": "pyscipopt"}


def _counted_in_child(method: str, clauses: list[list[int]], num_vars: int,
                      deadline: float | None, decompose: bool = True,
                      satisfiable_only: bool = False) -> int | None:
    """The counter's answer in a forked child (killed at the deadline or on Ctrl-C); None at
    the limit. `satisfiable_only`: 1 or 0, whether its SAT solver finds a model."""

    def target(clauses: list, num_vars: int, send) -> None:
        detach_child()
        with native_output():
            result = (int(satisfiable(method, clauses)) if satisfiable_only
                      else model_count(method, clauses, num_vars, decompose))
        send(("counted", result))

    left = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
    with forked(target, (clauses, num_vars)) as child:
        answer = child.answer(SolveOptions(time_limit=left))
    if answer is None:
        return None
    if answer[0] != "counted":
        raise SolverError(f"{method} ended without a count (exit code {answer[1]})")
    return int(answer[1])


def count_by_model_counter(method: str, n: int, deadline: float | None = None,
                           progress: Progress | None = None,
                           split: Split | None = None) -> MethodCount:
    """An exact counter's (d4, ganak or scip) labelled count and Burnside's classes; InputError
    naming the extra when the counter is not installed. With `split`, the labelled count is
    the sum of the counts of pieces that partition the models (count_split.py); a time limit
    before every piece is counted leaves their sum so far as a lower bound."""

    need(COUNTERS[method])

    start = time.perf_counter()
    children_cpu = _children_cpu()
    cnf = base_cnf(n)
    base = list(cnf.formula.clauses)
    m = pyramid(n).num_labels
    factor = math.factorial(m)
    detail: dict = {}

    def stopped(labelled: int | None, calls: int) -> MethodCount:
        return MethodCount(method, TIMEOUT, labelled, None, time.perf_counter() - start,
                           _children_cpu() - children_cpu,
                           {"fixed_point_counts": calls, **detail})

    if split is None:
        extra, top = precedence(cnf)
    else:

        extra, top = precedence(cnf, line_order(n))

        def said(figures: dict) -> None:
            if progress is not None:
                progress(method, figures)

    def with_precedence(more: list[list[int]], formula: str) -> int | None:
        """Models of base + extra + more: in one child, or in pieces with `split` (a
        lower bound in detail[formula] when the pieces stop short); None at the limit."""
        if split is None:
            return _counted_in_child(method, base + extra + more, top, deadline,
                                     decompose=not more)
        if more:
            found = _counted_in_child(method, base + extra + more, top, deadline,
                                      satisfiable_only=True)
            if not found:
                return found  # 0: no model; None: the limit
        counter = cnf_pieces(method, base + extra + more,
                             lambda cube: [[cnf.line_var(i, v)] for i, v in cube], top)
        pieces = count_split(method, n, counter, split.depth, split.record, split.cube_time,
                             split.jobs, deadline, said, formula)
        detail[formula] = pieces.to_dict()
        return pieces.models if pieces.complete else None

    models = with_precedence([], "split")
    if models is None:
        low = detail.get("split", {}).get("models")
        return stopped(None if low is None else low * factor, 0)
    labelled = models * factor
    group = line_group(n)
    identity = list(range(m))
    total, calls = 0, 0
    for g, g_size in conjugacy_classes(group):
        for pi, pi_size in cycle_types(m):
            if g == 0 and pi == identity:
                fixed = labelled
            elif pi == identity:
                # Fix(g, id) is closed under renaming, which acts freely: one per orbit. It
                # can be a good part of the whole (the top swap fixes every solution whose
                # top cube's two short lines share a label), so it is split too.
                found = with_precedence(fixed_by(cnf, group[g], pi), f"split fixed by g{g}")
                fixed = None if found is None else found * factor
            else:
                fixed = _counted_in_child(method, base + fixed_by(cnf, group[g], pi),
                                          cnf.num_variables, deadline, decompose=False)
            if fixed is None:
                return stopped(labelled, calls)
            calls += 1
            total += g_size * pi_size * fixed
            if progress is not None:
                progress(method, {"fixed_point_counts": calls})
    order = len(group) * factor
    if total % order:
        raise SolverError(f"{method}: Burnside's sum {total} is not a multiple of |G x S| = "
                          f"{order}")
    return MethodCount(method, COUNTED, labelled, total // order, time.perf_counter() - start,
                       _children_cpu() - children_cpu, {"fixed_point_counts": calls, **detail})


def count_by_d4(n: int, deadline: float | None = None, progress: Progress | None = None,
                split: Split | None = None) -> MethodCount:
    return count_by_model_counter("d4", n, deadline, progress, split)


def count_by_ganak(n: int, deadline: float | None = None, progress: Progress | None = None,
                   split: Split | None = None) -> MethodCount:
    return count_by_model_counter("ganak", n, deadline, progress, split)


def count_by_scip(n: int, deadline: float | None = None, progress: Progress | None = None,
                  split: Split | None = None) -> MethodCount:
    return count_by_model_counter("scip", n, deadline, progress, split)


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def estimate_by_approxmc(n: int, epsilon: float = 0.8, delta: float = 0.2, seed: int = 1,
                         deadline: float | None = None) -> MethodCount:
    """ApproxMC's estimate of the labelled count (module doc); status "estimate" with the
    bounds it implies in `detail`, or "timeout"; InputError naming the extra when
    pyapproxmc is not installed."""

    need("pyapproxmc")
    if not (0 < epsilon and 0 < delta < 1):
        raise InputError(f"ApproxMC needs epsilon > 0 and 0 < delta < 1 (got {epsilon}, "
                         f"{delta})")

    start = time.perf_counter()
    children_cpu = _children_cpu()
    cnf = base_cnf(n)
    extra, _ = precedence(cnf)
    clauses = cnf.formula.clauses + extra
    sampling = line_vars(cnf)

    def target(clauses: list, sampling: list, send) -> None:
        detach_child()

        with native_output():
            result = approxmc_count(clauses, sampling, epsilon, delta, seed)
        send(("counted", result))

    left = None if deadline is None else max(deadline - time.perf_counter(), 0.0)
    with forked(target, (clauses, sampling)) as child:
        answer = child.answer(SolveOptions(time_limit=left))
    detail = {"epsilon": epsilon, "delta": delta, "seed": seed,
              "meaning": "with probability >= 1 - delta, estimate / (1 + epsilon) <= labelled "
                         "<= estimate x (1 + epsilon)"}
    seconds, cpu = time.perf_counter() - start, _children_cpu() - children_cpu
    if answer is None:
        return MethodCount("approxmc", TIMEOUT, seconds=seconds, cpu_seconds=cpu, detail=detail)
    if answer[0] != "counted":
        raise SolverError(f"ApproxMC ended without a count (exit code {answer[1]})")
    estimate = int(answer[1]) * math.factorial(pyramid(n).num_labels)
    detail.update(estimate=estimate, low=math.ceil(estimate / (1 + epsilon)),
                  high=math.floor(estimate * (1 + epsilon)))
    return MethodCount("approxmc", ESTIMATE, None, None, seconds, cpu, detail)


class _Stopped(Exception):
    """The time limit came during a fixed-point formula's SAT check."""


def count_by_cover(n: int, deadline: float | None = None, progress: Progress | None = None,
                   split: Split | None = None) -> MethodCount:
    """The labelled count and Burnside's classes by the cover count (count_cover.py: the X
    and Y lines searched, each leaf's Z completions counted as exact covers), every formula
    in a child; with `split`, the labelled count and each Fix(g, id) piece by piece (at most
    the X and Y lines deep), as the counters' are. A fixed-point formula goes to MiniSat
    first (count_child.SAT_FIRST) and is counted only if it has a model."""
    # numba: loaded when used
    from ilp_pyramid.puzzles.bel.count_cover import count_piece, cover_tables, keeps_z, labellings

    start = time.perf_counter()
    children_cpu = _children_cpu()
    tables = cover_tables(n)
    split = split if split is not None else Split(0)
    if split.depth > tables.xy_positions:
        raise InputError(f"--split with the cover method: at most {tables.xy_positions} lines "
                         f"(the X and Y lines) at N={n} (got {split.depth})")
    count_piece(cover_tables(1))  # the kernels loaded here, shared by every forked child
    cnf = base_cnf(n)
    detail: dict = {}

    def said(figures: dict) -> None:
        if progress is not None:
            progress("cover", figures)

    def fixed(g: np.ndarray | None, pi: list[int] | None, formula: str) -> int | None:
        """The labellings (g, pi) fixes (all of them for the identity); None at the limit.
        Renamings are broken only where pi is the identity, and only then is it split."""
        these = tables if g is None else cover_tables(n, g, pi)
        if g is not None and not (these.possible and has_model(g, pi)):
            return 0

        def counter(cube: tuple) -> tuple[int, str]:
            return count_piece(these, [label for _, label in cube]).models, "cover"

        whole = not these.first_appearance or not these.possible
        pieces = count_split("cover", n, counter, 0 if whole else split.depth,
                             None if whole else split.record, split.cube_time, split.jobs,
                             deadline, said, formula, split_limit=tables.xy_positions)
        if not whole:
            detail[formula] = pieces.to_dict()
        return labellings(these, pieces.models) if pieces.complete else None

    def has_model(g: np.ndarray, pi: list[int]) -> bool:
        """Whether the fixed-point formula has a model at all, by its SAT solver (SAT_FIRST)
        on the CNF: a zero is MiniSat's, as D4's are Glucose's."""
        found = _counted_in_child("cover", cnf.formula.clauses + fixed_by(cnf, g, pi),
                                  cnf.num_variables, deadline, satisfiable_only=True)
        if found is None:
            raise _Stopped
        return bool(found)

    def stopped(labelled: int | None, calls: int) -> MethodCount:
        return MethodCount("cover", TIMEOUT, labelled, None, time.perf_counter() - start,
                           _children_cpu() - children_cpu,
                           {"fixed_point_counts": calls, **detail})

    labelled = fixed(None, None, "split")
    if labelled is None:
        low = detail["split"]["models"] * math.factorial(tables.labels)
        return stopped(low, 0)
    group = line_group(n)
    if not all(keeps_z(n, g) for g in group):
        return MethodCount("cover", COUNTED, labelled, None, time.perf_counter() - start,
                           _children_cpu() - children_cpu, detail)
    identity = list(range(tables.labels))
    total, calls = 0, 0
    for g, g_size in conjugacy_classes(group):
        for pi, pi_size in cycle_types(tables.labels):
            try:
                term = labelled if g == 0 and pi == identity else fixed(
                    group[g], pi, f"split fixed by g{g}")
            except _Stopped:
                term = None
            if term is None:
                return stopped(labelled, calls)
            calls += 1
            total += g_size * pi_size * term
            said({"fixed_point_counts": calls})
    order = len(group) * math.factorial(tables.labels)
    if total % order:
        raise SolverError(f"cover: Burnside's sum {total} is not a multiple of |G x S| = "
                          f"{order}")
    return MethodCount("cover", COUNTED, labelled, total // order, time.perf_counter() - start,
                       _children_cpu() - children_cpu, {"fixed_point_counts": calls, **detail})


RUNNERS = {"sat": count_by_sat, "search": count_by_search, "cover": count_by_cover,
           "d4": count_by_d4, "ganak": count_by_ganak, "scip": count_by_scip}
# The methods that take a Split.
SPLITTING = ("cover", *COUNTERS)


def default_methods(n: int) -> list[str]:
    """d4 and cover up to N = 3, d4 and ganak past it; sat for a counter that is not
    installed."""
    pair = DEFAULT_METHODS if n <= COVER_MAX_N else DEFAULT_METHODS_PAST_COVER
    return list(dict.fromkeys(m if m not in COUNTERS or available(COUNTERS[m]) else "sat"
                              for m in pair))


def count(n: int, methods: list[str] | tuple[str, ...] | None = None,
          time_limit: float | None = None, progress: Progress | None = None,
          approx: tuple[float, float, int] | None = None,
          split: Split | None = None) -> CountReport:
    """Count Bel's Pyramids of N levels by every method in `methods`, one after the other,
    all within `time_limit` seconds. The exact figures are those every finished method
    agrees on; a disagreement raises SolverError. `approx` = (epsilon, delta, seed) adds
    ApproxMC's estimate (a bound, not a count) after them. `methods` None:
    `default_methods(n)`. `split`: the exact counters' labelled counts piece by piece
    (count_split.py); the enumerations ignore it."""
    check_n(n)
    methods = default_methods(n) if methods is None else list(dict.fromkeys(methods))
    check_methods(methods, approx is not None)
    if time_limit is not None and not (math.isfinite(time_limit) and time_limit >= 0):
        raise InputError(f"time_limit must be a finite number of seconds >= 0 (got "
                         f"{time_limit})")
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    if split is not None:
        check_split(n, split)
    results = [RUNNERS[name](n, deadline, progress, split) if name in SPLITTING
               else RUNNERS[name](n, deadline, progress) for name in methods]
    if approx is not None:
        results.append(estimate_by_approxmc(n, *approx, deadline=deadline))
    finished = [r for r in results if r.status == COUNTED]
    labelled = classes = None
    if finished:
        # the cover count gives no classes: the others' are compared among themselves
        figures = {r.labelled for r in finished}
        class_figures = {r.classes for r in finished if r.classes is not None}
        if len(figures) > 1 or len(class_figures) > 1:
            said = "; ".join(f"{r.method}: {r.labelled} labelled, {r.classes} classes"
                             for r in finished)
            raise SolverError(f"the counting methods disagree ({said})")
        labelled = figures.pop()
        classes = class_figures.pop() if class_figures else None
    geo = pyramid(n)
    return CountReport(n, group_order(n), math.factorial(geo.num_labels), labelled, classes,
                       results)


def table_row(result: dict, command: str, cpu_seconds: float) -> dict:
    """A results file's row for docs/counts.md (`bench render`'s table=rows): one count."""
    done = result["status"] == COUNTED

    def figure(exact: str, bound: str) -> str:
        if done:
            return f"{result[exact]:,}"
        return f">= {result[bound]:,} (found)" if result[bound] else "-"

    methods = []
    for m in result["methods"]:
        if m["status"] == ESTIMATE:
            d = m["detail"]
            methods.append(f"approxmc ~{d['estimate']:,}: {d['low']:,} to {d['high']:,} with "
                           f"probability >= {1 - d['delta']:.2f} (epsilon {d['epsilon']}, "
                           f"delta {d['delta']}), {m['cpu_seconds']:.1f} CPU s")
        else:
            text = f"{m['method']} {m['status']} {m['cpu_seconds']:.1f} CPU s"
            # A split count may go on from a record kept over several runs: this run's CPU
            # alone would hide what the count cost.
            pieces = [d["piece_cpu_seconds"] for d in (m.get("detail") or {}).values()
                      if isinstance(d, dict) and "piece_cpu_seconds" in d]
            if pieces:
                text += f" (its pieces {sum(pieces):,.0f} CPU s over every run)"
            methods.append(text)
    group = result["group"]
    return {"N": str(result["n"]), "labelled": figure("labelled", "labelled_at_least"),
            "up to symmetry": figure("up_to_symmetry", "up_to_symmetry_at_least"),
            "group": f"{group['geometric']} x {group['label_permutations']}",
            "methods": "; ".join(methods), "run CPU s": f"{cpu_seconds:.1f}",
            "command": f"`{command}`"}
