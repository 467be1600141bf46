"""The one lowering of the exact-cover form to every other form a solver takes.

An `ExactCoverForm` (rows of items; every primary item in exactly one chosen row, every
secondary item in at most one) is solved natively by Dancing Links (`exact_cover.py`) and
lowered here for everyone else, always the same way: row r is one 0-1 unknown,

- `to_mip`:  a PuLP problem, binary per row (named by `row_names`), `== 1` per primary item
  and `<= 1` per secondary item (named by `item_names`), objective 0: HiGHS, CBC, SCIP, Gurobi;
- `to_cnf`:  clauses over variables 1..len(rows) (row r is variable r + 1), exactly-one per
  primary item and at-most-one per secondary item (`cardinality.CardEnc`; auxiliary variables
  above len(rows)): the SAT solvers;
- `to_bool`: a CP-SAT `BoolModel`, one exactly-one group per primary item (propagated
  natively, no encoding) and a linear `<= 1` per secondary item: cpsat.

`solve` runs the form on any solver and always answers with `Result.rows`, the chosen rows.
Callers that write a model to a file (an LP, a CNF) call the lowering functions themselves.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ilp_pyramid.backends import (
    cpsat,  # its model class: with the cp path only
    mip,
    sat,
    solvers,
)
from ilp_pyramid.backends.base import DLX, Result, SolveOptions, Status
from ilp_pyramid.backends.cpsat import BoolModel
from ilp_pyramid.backends.mip import load_pulp

if TYPE_CHECKING:  # PuLP and OR-Tools' model load only on the path that needs them
    import pulp

    from ilp_pyramid.backends import ExactCoverForm
    from ilp_pyramid.backends.cpsat import BoolModel
    from ilp_pyramid.backends.solvers import Solver

# Groups of at most this many literals get the pairwise (binomial) exactly-one: no auxiliary
# variable and at most 15 binary clauses; larger ones the sequential counter, linear in size.
PAIRWISE_UP_TO = 6


def by_item(form: ExactCoverForm) -> list[list[int]]:
    """For each item (primary first, then secondary), the rows that contain it."""
    out: list[list[int]] = [[] for _ in range(form.num_primary + form.num_secondary)]
    for r, row in enumerate(form.rows):
        for item in row:
            out[item].append(r)
    return out


def row_name(form: ExactCoverForm, row: int) -> str:
    return form.row_names[row] if form.row_names is not None else f"x_{row}"


def item_name(form: ExactCoverForm, item: int) -> str:
    return form.item_names[item] if form.item_names is not None else f"item_{item}"


@dataclass
class MipLowering:
    """The PuLP problem of an exact cover and its row variables, in row order."""

    problem: pulp.LpProblem
    variables: list[pulp.LpVariable]

    def rows(self, values: dict[str, float]) -> list[int]:
        """The chosen rows, from a MIP backend's values by name."""
        return [r for r, v in enumerate(self.variables) if values.get(v.name, 0.0) > 0.5]


def to_mip(form: ExactCoverForm) -> MipLowering:
    """The exact cover as a 0-1 feasibility program (objective 0)."""

    pulp = load_pulp()
    problem = pulp.LpProblem(form.name, pulp.LpMinimize)
    variables = [problem.add_variable(row_name(form, r), cat=pulp.LpBinary)
                 for r in range(len(form.rows))]
    problem.setObjective(pulp.LpAffineExpression([]))
    for item, rows in enumerate(by_item(form)):
        primary = item < form.num_primary
        if not rows and not primary:
            continue  # "at most once" of an item no row holds says nothing
        # A primary item no row holds stays as the row 0 == 1: the model is infeasible, as
        # the exact cover is, and an exported file says so.
        expression = pulp.LpAffineExpression([(variables[r], 1) for r in rows])
        sense = pulp.LpConstraintEQ if primary else pulp.LpConstraintLE
        problem.addConstraint(pulp.LpConstraint(expression, sense, rhs=1),
                              item_name(form, item))
    return MipLowering(problem, variables)


def to_cnf(form: ExactCoverForm) -> list[list[int]]:
    """The exact cover as CNF clauses; row r is variable r + 1."""
    from ilp_pyramid.cardinality import CardEnc, EncType

    top = len(form.rows)
    clauses: list[list[int]] = []
    for item, rows in enumerate(by_item(form)):
        primary = item < form.num_primary
        lits = [r + 1 for r in rows]
        if not lits:
            if primary:  # nothing can cover it: a fresh variable forced both ways
                top += 1
                clauses += [[top], [-top]]
            continue
        if len(lits) == 1:
            if primary:
                clauses.append(lits)
            continue
        encoding = EncType.pairwise if len(lits) <= PAIRWISE_UP_TO else EncType.seqcounter
        encode = CardEnc.equals if primary else CardEnc.atmost
        encoded = encode(lits=lits, bound=1, top_id=top, encoding=encoding)
        clauses.extend(encoded.clauses)
        top = max(top, encoded.nv)
    return clauses


def rows_from_model(form: ExactCoverForm, model: Sequence[int]) -> list[int]:
    """The chosen rows, from the true literals of a model of `to_cnf`'s (or `to_bool`'s)."""
    n = len(form.rows)
    return [lit - 1 for lit in model if 0 < lit <= n]


def to_bool(form: ExactCoverForm) -> BoolModel:
    """The exact cover as a CP-SAT BoolModel; row r is variable r + 1."""

    model = BoolModel(num_vars=len(form.rows))
    for item, rows in enumerate(by_item(form)):
        lits = [r + 1 for r in rows]
        if item < form.num_primary:
            model.exactly_one.append(lits)  # empty: CP-SAT proves it infeasible at once
        elif len(lits) > 1:
            model.add_linear(lits, [1] * len(lits), "<=", 1)
    return model


def run(form: ExactCoverForm, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The solver table's door (`Solver.solve`): an exact cover, for any solver."""
    return solve(form, solver, options)


def solve(form: ExactCoverForm, solver: str | Solver, options: SolveOptions) -> Result:
    """`form` on `solver`, whatever its family; `Result.rows` holds the chosen rows.

    `seconds` counts the lowering and the solve, not the loading of the solver's library
    (as Dancing Links' clock starts after numba is loaded).
    """
    entry = solvers.solver(solver)
    if entry.family == "dlx":
        return _dlx(form, options)
    if entry.family == "cp":
        start = time.perf_counter()

        result = cpsat.solve_model(to_bool(form), options)
        return _with_rows(result, form, start)
    if entry.family == "mip":
        return _mip(form, entry.name, options)
    import ilp_pyramid.cardinality  # noqa: F401 - python-sat loads before the clock starts

    start = time.perf_counter()
    result = sat.solve(to_cnf(form), entry.name, options)
    return _with_rows(result, form, start)


def _with_rows(result: Result, form: ExactCoverForm, start: float) -> Result:
    result.seconds = time.perf_counter() - start
    if result.has_solution:
        result.rows = rows_from_model(form, result.model)
    return result


def _mip(form: ExactCoverForm, solver: str, options: SolveOptions) -> Result:

    mip.load_pulp()
    start = time.perf_counter()
    lowered = to_mip(form)
    result = mip.solve(lowered.problem, solver, options)
    if solver == "highs" and result.status == Status.ERROR and not _limit_reached(
            options, time.perf_counter() - start):
        # HiGHS 1.15's presolve can end in "solve error" on an infeasible cover (IQ's
        # pyramid3: "MIP solver claims optimality, but with ... infeasibilities"): ask again
        # without presolve.
        spent = time.perf_counter() - start
        left = None if options.time_limit is None else options.time_limit - spent
        retry = replace(options, time_limit=left, extra={**options.extra, "presolve": "off"})
        result = mip.solve(lowered.problem, solver, retry)
    result.seconds = time.perf_counter() - start
    if result.has_solution:
        result.rows = lowered.rows(result.values)
    return result


def _limit_reached(options: SolveOptions, seconds: float) -> bool:
    return options.time_limit is not None and seconds >= 0.95 * options.time_limit


def _dlx(form: ExactCoverForm, options: SolveOptions) -> Result:
    from ilp_pyramid.backends.exact_cover import ExactCover  # numba: loaded only when used

    start = time.perf_counter()
    if not form.rows:
        status = Status.SOLVED if form.num_primary == 0 else Status.INFEASIBLE
        return Result(DLX, status, 0.0)
    found = ExactCover(form.rows, form.num_primary, form.num_secondary).solve(
        limit=1, time_limit=options.time_limit)
    seconds = time.perf_counter() - start
    if found.solutions:
        return Result(DLX, Status.SOLVED, seconds, rows=list(found.solutions[0]))
    if found.exhausted:
        return Result(DLX, Status.INFEASIBLE, seconds)
    return Result(DLX, Status.TIMEOUT, seconds,
                  message=f"no answer within {options.time_limit} s")
