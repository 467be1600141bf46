"""The one lowering of the exact-cover form to every other form a solver reads, and back.

An `ExactCoverForm` (rows of items; every primary item in exactly one chosen row, every
secondary item in at most one) is solved natively by Dancing Links (`exact_cover.py`) and
lowered here for everyone else, always the same way: row r is one 0-1 unknown,

- `to_mip`:  a PuLP problem, binary per row (named by `row_names`), `== 1` per primary item
  and `<= 1` per secondary item (named by `item_names`), objective 0: HiGHS, CBC, SCIP, Gurobi;
- `to_cnf`:  clauses over variables 1..len(rows) (row r is variable r + 1), exactly-one per
  primary item and at-most-one per secondary item (`cardinality.CardEnc`; auxiliary variables
  above len(rows)): the SAT solvers; as the hard clauses of a WCNF (`to_wcnf`): RC2;
- `to_bool`: a CP-SAT `BoolModel`, one exactly-one group per primary item (propagated
  natively, no encoding) and a linear `<= 1` per secondary item: cpsat.

`lower(form, kind)` is the transform with its inverse (as cvxpy's reductions have): the
lowered form, and `invert`, which reads the chosen rows (`Result.rows`) from a backend's
answer to it. `backends.solve` lowers, solves and inverts; this module imports no backend.
Callers that write a model to a file (an LP, a CNF) call the lowering functions themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ilp_pyramid.backends.base import Result
from ilp_pyramid.backends.forms import BoolModel, ExactCoverForm, load_pulp
from ilp_pyramid.errors import InputError

if TYPE_CHECKING:  # PuLP loads only on the path that needs it
    import pulp
    from pysat.formula import WCNF

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


def to_wcnf(form: ExactCoverForm) -> WCNF:
    """The exact cover as a weighted CNF of hard clauses only (`to_cnf`'s): an optimum of
    cost 0 is a cover."""
    from pysat.formula import WCNF

    lowered = WCNF()
    lowered.extend(to_cnf(form))
    return lowered


# The forms an exact cover is lowered to, each with the library loaded before a solve's
# clock starts (as Dancing Links' starts after numba is loaded).
TARGETS = ("mip", "cnf", "wcnf", "bool")


@dataclass
class Lowered:
    """An exact cover lowered to a form of kind `kind`, and the way back (`invert`)."""

    form: object
    kind: str
    rows: Callable[[Result], list[int]]  # the chosen rows, from an answer with a solution

    def invert(self, result: Result) -> Result:
        """`result`, the answer to the lowered form, with `rows` set when it has a solution."""
        if result.has_solution:
            result.rows = self.rows(result)
        return result


def load(kind: str) -> None:
    """Load the library the lowering to `kind` uses (PuLP, python-sat's encodings)."""
    if kind == "mip":
        load_pulp()
    elif kind in ("cnf", "wcnf"):
        import ilp_pyramid.cardinality  # noqa: F401 - python-sat's encodings


def lower(form: ExactCoverForm, kind: str) -> Lowered:
    """`form` as a form of `kind` (one of TARGETS), with its inverse."""
    if kind == "mip":
        lowered = to_mip(form)
        return Lowered(lowered.problem, kind, lambda result: lowered.rows(result.values))
    makers = {"cnf": to_cnf, "wcnf": to_wcnf, "bool": to_bool}
    if kind not in makers:
        raise InputError(f"an exact cover is lowered to {', '.join(TARGETS)}, not {kind!r}")
    return Lowered(makers[kind](form), kind,
                   lambda result: rows_from_model(form, result.model))
