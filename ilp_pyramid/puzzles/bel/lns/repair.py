"""Whole-family repair as exact cover, solved by SAT, MIP or Dancing Links.

The cover is a `backends.ExactCoverForm`; the backend lowers it to what the repair's solver
takes (backends/lowering.py). A repair's status is a `Status`: solved, infeasible (no
labelling of the family completes the other two), timeout, or error (the solver failed).

With two line families fixed, choosing the third is an exact-cover problem. For Z: every
column (x, y) picks one label l, which places the cubes {X(x, h), Y(y, h), l} for every h of
the column; a solution covers every cube exactly once, so it IS a solution of the pyramid.
The same holds for X given Y and Z, and for Y given X and Z (every cell lies on exactly one
line of each family, so the free lines partition the cells).

Items: the C(N) cubes, then the free lines. Option (line, label): the line's item plus the
cubes its cells would show; an option whose cells would show one cube twice is left out.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ilp_pyramid import backends
from ilp_pyramid.backends import lowering, sat, solvers
from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.puzzles.bel.lns.arrays import FAMILY_CODE, arrays

REPAIRS = ("sat", "mip", "dlx", "scip")
# The solver of each repair: "mip" is HiGHS; "scip" the same model through SCIP (extra scip).
# "sat" is MiniSat in this process (`_solve_sat`): it proves a typical impossible N=5 Z cover
# faster than Kissat in process or through a child (docs/hybrid.md), and an N=5 search tries
# hundreds of them.
REPAIR_SOLVERS = {"sat": "minisat22", "mip": "highs", "dlx": "dlx", "scip": "scip"}
SOLVED, INFEASIBLE, TIMEOUT, ERROR = Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT, Status.ERROR

if TYPE_CHECKING:
    from ilp_pyramid.backends import ExactCoverForm


@dataclass(frozen=True)
class CoverProblem:
    n: int
    family: str
    num_cubes: int
    free_lines: list[int]  # geometry line indices of the freed family
    options: list[tuple[int, int]]  # (position in free_lines, label)
    rows: list[list[int]]  # items covered: cubes 0..num_cubes-1, then num_cubes + position

    @property
    def num_items(self) -> int:
        return self.num_cubes + len(self.free_lines)

    def form(self) -> ExactCoverForm:
        """The cover as the backends' exact-cover form (every item primary), named for
        reading: o_<family>_<line>_l<label> per option, item_<i> per item."""

        names = [f"o_{self.family}_{self.free_lines[pos]}_l{label}" for pos, label in self.options]
        return backends.ExactCoverForm(self.rows, self.num_items, row_names=names,
                                       name=f"bel_n{self.n}_repair_{self.family}")


@dataclass
class RepairResult:
    status: Status  # solved | infeasible | timeout | error
    seconds: float
    labels: np.ndarray | None = None
    message: str = ""


def cover_problem(n: int, labels: np.ndarray, family: str) -> CoverProblem:
    """The exact cover that re-labels every line of `family`, the other two kept."""
    a = arrays(n)
    num_cubes = int(a.cube_id.max()) + 1
    code = FAMILY_CODE[family]
    free = [int(i) for i in np.flatnonzero(a.family == code)]
    lab = np.asarray(labels, dtype=np.int32)
    options, rows = [], []
    for pos, line in enumerate(free):
        cells = a.line_cells[a.line_start[line]:a.line_start[line + 1]]
        fixed = a.cell_line[cells]  # (cells, 3); the free family's column is replaced
        others = [f for f in range(3) if f != code]
        u = lab[fixed[:, others[0]]]
        v = lab[fixed[:, others[1]]]
        for label in range(a.num_labels):
            cubes = a.cube_id[u, v, label]
            if len(set(cubes.tolist())) < len(cubes):
                continue  # the line would show one cube twice
            options.append((pos, label))
            rows.append([*cubes.tolist(), num_cubes + pos])
    return CoverProblem(n, family, num_cubes, free, options, rows)


def apply_choice(problem: CoverProblem, labels: np.ndarray, chosen: list[int]) -> np.ndarray:
    """The labelling with the freed lines set by the chosen options."""
    out = np.array(labels, dtype=np.int32, copy=True)
    for option in chosen:
        pos, label = problem.options[option]
        out[problem.free_lines[pos]] = label
    return out


def repair(n: int, labels: np.ndarray, family: str, method: str = "sat",
           time_limit: float | None = None, seed: int | None = None) -> RepairResult:
    """Re-label one whole family so that every cube appears exactly once, if possible."""
    if method not in REPAIRS:
        raise ValueError(f"unknown repair {method!r} (choose from {', '.join(REPAIRS)})")
    start = time.perf_counter()
    problem = cover_problem(n, labels, family)
    form = problem.form()
    if form.uncovered():
        # some cube or line has no option at all: nothing to search
        return RepairResult(INFEASIBLE, time.perf_counter() - start)
    answer = _solve(form, method, time_limit, seed)
    status = SOLVED if answer.has_solution else answer.status
    message = "" if status in (SOLVED, INFEASIBLE) else (
        answer.message or f"{answer.solver}: {answer.status}")
    result = RepairResult(status, time.perf_counter() - start, message=message)
    if status == SOLVED:
        result.labels = apply_choice(problem, labels, answer.rows)
    return result


def _solve(form: ExactCoverForm, method: str, time_limit: float | None,
           seed: int | None) -> Result:
    """The backend's answer (`Result`, rows set) for the repair's solver."""

    solver = REPAIR_SOLVERS[method]
    if method == "sat":
        return _solve_sat(form, solver, time_limit)
    # One thread: racing searches (--jobs) already take a core each.
    return backends.solve(form, solver, SolveOptions(time_limit=time_limit, threads=1,
                                                     seed=seed))


def _solve_sat(form: ExactCoverForm, solver: str, time_limit: float | None) -> Result:
    """The backends' lowering to CNF, solved in this process: a cover takes milliseconds,
    which a child process would cost alone; the session's slices keep the time limit and
    Ctrl-C, and a daemonic process (a Dask worker) need not fork. The limit is this thread's
    CPU time: a cover gets the same work on a loaded machine as on an idle one, so a seed's
    search takes the same path on both (on wall time, a loaded machine cut long covers short
    and the seed walked elsewhere)."""

    lowered = lowering.lower(form, "cnf")
    with sat.SatSession(lowered.form, solvers.solver(solver), one_shot=True) as session:
        return lowered.invert(session.solve((), time_limit, clock=time.thread_time))
