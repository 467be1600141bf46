"""Whole-family repair as exact cover, solved by SAT, MIP or Dancing Links.

With two line families fixed, choosing the third is an exact-cover problem. For Z: every
column (x, y) picks one label l, which places the cubes {X(x, h), Y(y, h), l} for every h of
the column; a solution covers every cube exactly once, so it IS a solution of the pyramid.
The same holds for X given Y and Z, and for Y given X and Z (every cell lies on exactly one
line of each family, so the free lines partition the cells).

Items: the C(N) cubes, then the free lines. Option (line, label): the line's item plus the
cubes its cells would show; an option whose cells would show one cube twice is left out.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass

import numpy as np

from ilp_pyramid import backends
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.puzzles.bel.lns.arrays import FAMILY_CODE, arrays

REPAIRS = ("sat", "mip", "dlx", "scip")
# The MIP repairs: "mip" is HiGHS; "scip" the same model through SCIP (extra scip).
MIP_REPAIRS = {"mip": "highs", "scip": "scip"}
SOLVED, IMPOSSIBLE, TIMEOUT = "solved", "impossible", "timeout"
# SAT repairs with at most this many options run in-process (kissat cannot be interrupted
# there); larger ones run in a child process that keeps the time limit.
INLINE_OPTIONS = 600


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


@dataclass
class RepairResult:
    status: str  # solved | impossible | timeout
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
    start = time.perf_counter()
    problem = cover_problem(n, labels, family)
    covered = {item for row in problem.rows for item in row}
    if len(covered) < problem.num_items:
        # some cube or line has no option at all: nothing to search
        return RepairResult(IMPOSSIBLE, time.perf_counter() - start)
    if method == "sat":
        status, chosen, message = _solve_sat(problem, time_limit, seed)
    elif method in MIP_REPAIRS:
        status, chosen, message = _solve_mip(problem, time_limit, seed, MIP_REPAIRS[method])
    elif method == "dlx":
        status, chosen, message = _solve_dlx(problem, time_limit)
    else:
        raise ValueError(f"unknown repair {method!r} (choose from {', '.join(REPAIRS)})")
    result = RepairResult(status, time.perf_counter() - start, message=message)
    if status == SOLVED:
        result.labels = apply_choice(problem, labels, chosen)
    return result


# -- SAT: one variable per option, exactly one option per item --------------------------------

def cover_cnf(problem: CoverProblem) -> list[list[int]]:
    from pysat.formula import IDPool

    from ilp_pyramid.cardinality import CardEnc, EncType

    by_item: list[list[int]] = [[] for _ in range(problem.num_items)]
    for option, row in enumerate(problem.rows):
        for item in row:
            by_item[item].append(option + 1)
    pool = IDPool(start_from=len(problem.rows) + 1)
    clauses: list[list[int]] = []
    for lits in by_item:
        encoding = EncType.pairwise if len(lits) <= 6 else EncType.seqcounter
        clauses.extend(CardEnc.equals(lits, bound=1, vpool=pool, encoding=encoding).clauses)
    return clauses


def _solve_sat(problem: CoverProblem, time_limit: float | None, seed: int | None):
    from ilp_pyramid.backends import sat

    clauses = cover_cnf(problem)
    if len(problem.rows) <= INLINE_OPTIONS or multiprocessing.current_process().daemon:
        # Small covers (the X and Y families) take milliseconds: a child process would cost
        # more than the solve. A daemonic process (a Dask worker, say) may not fork at all.
        return _solve_sat_inline(clauses, problem)
    result = sat.solve(clauses, "kissat404", SolveOptions(time_limit=time_limit, seed=seed))
    if result.status == Status.SOLVED:
        true = set(lit for lit in result.model if lit > 0)
        return SOLVED, [o for o in range(len(problem.rows)) if o + 1 in true], ""
    if result.status == Status.INFEASIBLE:
        return IMPOSSIBLE, None, ""
    return TIMEOUT, None, result.message


def _solve_sat_inline(clauses: list[list[int]], problem: CoverProblem):
    from ilp_pyramid.backends import sat

    result = sat.solve_in_process(clauses, "kissat")
    if result.status != Status.SOLVED:
        return IMPOSSIBLE, None, ""
    true = set(lit for lit in result.model if lit > 0)
    return SOLVED, [o for o in range(len(problem.rows)) if o + 1 in true], ""


# -- MIP: the set-partitioning model, solved by HiGHS or SCIP ---------------------------------

def cover_mip(problem: CoverProblem):
    import pulp

    model = pulp.LpProblem(f"bel_n{problem.n}_repair_{problem.family}", pulp.LpMinimize)
    chosen = [model.add_variable(f"o_{problem.family}_{problem.free_lines[pos]}_l{label}",
                                 cat=pulp.LpBinary)
              for pos, label in problem.options]
    by_item: list[list[int]] = [[] for _ in range(problem.num_items)]
    for option, row in enumerate(problem.rows):
        for item in row:
            by_item[item].append(option)
    for item, options in enumerate(by_item):
        expression = pulp.LpAffineExpression([(chosen[o], 1) for o in options])
        model.addConstraint(pulp.LpConstraint(expression, pulp.LpConstraintEQ, rhs=1),
                            f"item_{item}")
    model.setObjective(pulp.LpAffineExpression([]))
    return model, chosen


def _solve_mip(problem: CoverProblem, time_limit: float | None, seed: int | None,
               solver: str = "highs"):
    model, variables = cover_mip(problem)
    result = backends.solve(model, solver,
                            SolveOptions(time_limit=time_limit, threads=1, seed=seed))
    if result.has_solution:
        return SOLVED, [o for o, v in enumerate(variables)
                        if result.values.get(v.name, 0.0) > 0.5], ""
    if result.status == Status.INFEASIBLE:
        return IMPOSSIBLE, None, ""
    if result.status == Status.TIMEOUT:
        return TIMEOUT, None, result.message
    return TIMEOUT, None, f"{solver}: {result.status} {result.message}".strip()


# -- Dancing Links: the package's exact-cover engine ------------------------------------------

def _solve_dlx(problem: CoverProblem, time_limit: float | None):
    result = backends.solve(backends.ExactCoverForm(problem.rows, problem.num_items), "dlx",
                            SolveOptions(time_limit=time_limit))
    if result.status == Status.SOLVED:
        return SOLVED, result.rows, ""
    if result.status == Status.INFEASIBLE:
        return IMPOSSIBLE, None, ""
    return TIMEOUT, None, "time limit"
