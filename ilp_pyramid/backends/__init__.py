"""Backends behind one door: `solve(form, solver, options) -> Result`.

The form says what kind of model it is, and with it which solvers can take it:

| form                                  | solvers                                     |
|---------------------------------------|---------------------------------------------|
| `pulp.LpProblem`                      | `mip.MIP_REGISTRY`: highs, cbc, scip, gurobi |
| CNF: a list of clauses or a pysat CNF | python-sat's solvers (`sat.py`), cpsat      |
| `ExactCoverForm` (rows and items)     | every solver: dlx natively (`exact_cover.py`), |
|                                       | the others through its one lowering         |
|                                       | (`lowering.py`: PuLP problem, CNF, BoolModel) |
| `cpsat.BoolModel`                     | cpsat (`cpsat.py`)                          |

Every backend keeps the same contract (`base.py`): one `Status`, one `Result`, the time limit
kept, SIGINT/SIGTERM stop the solver and its children and raise `errors.Interrupted`, no
solver process outlives this one, and nothing a solver prints reaches stdout (`solve` holds
`process.native_output`: the log asked for with `verbose` goes to stderr). A puzzle builds
its form and calls `solve`; it never asks which family a solver belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ilp_pyramid.backends.base import CPSAT, DLX, Result, SolveOptions
from ilp_pyramid.backends.mip import MIP_SOLVERS
from ilp_pyramid.errors import InputError


@dataclass(frozen=True)
class ExactCoverForm:
    """Choose rows so that every primary item is in exactly one chosen row and every
    secondary item (numbered after the primary ones) in at most one.

    Every solver takes it; the answer is `Result.rows`, the chosen rows. The names are
    optional and only for people reading a lowered model (an exported LP keeps them as
    variable and constraint names): `row_names[r]`, `item_names[i]`, the model's `name`.

        >>> from ilp_pyramid import backends
        >>> form = backends.ExactCoverForm([[0, 1], [1, 2], [2]], num_primary=3)
        >>> sorted(backends.solve(form, "highs").rows), sorted(backends.solve(form, "dlx").rows)
        ([0, 2], [0, 2])
    """

    rows: Sequence[Sequence[int]]
    num_primary: int
    num_secondary: int = 0
    row_names: Sequence[str] | None = None
    item_names: Sequence[str] | None = None
    name: str = "exact_cover"

    @property
    def num_items(self) -> int:
        return self.num_primary + self.num_secondary

    def uncovered(self) -> list[int]:
        """The primary items no row holds: when there are any, no cover exists."""
        held = {item for row in self.rows for item in row}
        return [item for item in range(self.num_primary) if item not in held]


def kind(solver: str) -> str:
    """'mip', 'sat' or 'dlx' (Dancing Links, exact cover only) for a known solver name;
    ValueError otherwise.

    For the bench, which groups its records by family; puzzles pick a form with
    `forms_for` (or `protocol.pick_form`) instead.
    """
    if solver in MIP_SOLVERS:
        return "mip"
    from ilp_pyramid.backends import sat

    if sat.is_sat_solver(solver):
        return "sat"
    if solver == DLX:
        return "dlx"
    raise ValueError(f"unknown solver {solver!r} (try: {', '.join(all_solvers())}, {DLX})")


def all_solvers() -> list[str]:
    from ilp_pyramid.backends import sat

    return list(MIP_SOLVERS) + sat.solver_names()


def accepts(form_kind: str, solver: str) -> bool:
    """Whether `solver` takes forms of kind 'mip', 'cnf', 'exact_cover' or 'bool'."""
    if form_kind == "mip":
        return solver in MIP_SOLVERS
    if form_kind == "exact_cover":  # natively (dlx) or through lowering.py
        return solver == DLX or accepts("mip", solver) or accepts("cnf", solver)
    if form_kind == "bool":
        return solver == CPSAT
    from ilp_pyramid.backends import sat

    return sat.is_sat_solver(solver)  # includes cpsat


def forms_for(solver: str) -> tuple[str, ...]:
    """The model forms `solver` takes, best first: its native form(s) ('bool', 'mip' or
    'cnf'), then 'exact_cover', which every solver takes (lowered to the native form);
    InputError for an unknown solver. A puzzle builds the first of them it has.

        >>> from ilp_pyramid import backends
        >>> backends.forms_for("highs"), backends.forms_for("dlx")
        (('mip', 'exact_cover'), ('exact_cover',))
    """
    order = [kind for kind in ("bool", "mip", "cnf", "exact_cover") if accepts(kind, solver)]
    if not order:
        raise InputError(f"unknown solver {solver!r} (try: {', '.join(all_solvers())}, "
                         f"{DLX})")
    return tuple(order)


def first_form(solver: str, forms: Sequence[str], owner: str = "the model") -> str:
    """The first of `solver`'s forms (`forms_for`) among `forms`, the forms a model comes in;
    InputError for an unknown solver or one that takes none of them (`owner` names the
    model in the message). `protocol.pick_form` for callers without a Puzzle object.

        >>> from ilp_pyramid import backends
        >>> backends.first_form("cpsat", ("mip", "cnf"))
        'cnf'
    """
    takes = forms_for(solver)
    for form in takes:
        if form in forms:
            return form
    raise InputError(f"{owner} has no form {solver!r} takes ({solver} takes {', '.join(takes)}; "
                     f"{owner} comes as {', '.join(forms)})")


def require(solver: str) -> None:
    """InputError (exit 2) for an unknown solver, or one whose optional library is missing
    (the message names the extra to install)."""
    forms_for(solver)
    if solver in MIP_SOLVERS:
        from ilp_pyramid.backends import mip

        mip.require(solver)
    elif solver == CPSAT:
        from ilp_pyramid.backends import cpsat

        cpsat.require()


def form_kind(form: object) -> str:
    """'mip', 'cnf', 'exact_cover' or 'bool' for a model form; InputError otherwise."""
    import sys

    pulp = sys.modules.get("pulp")  # no PuLP problem exists before PuLP is loaded
    if pulp is not None and isinstance(form, pulp.LpProblem):
        return "mip"
    if isinstance(form, ExactCoverForm):
        return "exact_cover"
    cpsat = sys.modules.get("ilp_pyramid.backends.cpsat")  # nor a BoolModel before cpsat.py
    if cpsat is not None and isinstance(form, cpsat.BoolModel):
        return "bool"
    if hasattr(form, "clauses") or isinstance(form, list | tuple):
        return "cnf"
    raise InputError(f"not a model form a backend takes: {type(form).__name__}")


def solve(form: object, solver: str, options: SolveOptions | None = None) -> Result:
    """Solve a model form with `solver`; InputError if the solver cannot take that form."""
    options = options or SolveOptions()
    what = form_kind(form)
    if not accepts(what, solver):
        raise InputError(f"solver {solver!r} does not take a {what} model")
    from ilp_pyramid.backends import process

    # stdout is the package's: whatever a native solver prints goes to stderr or nowhere.
    with process.native_output(options.verbose):
        return _solve(form, what, solver, options)


def _solve(form: object, what: str, solver: str, options: SolveOptions) -> Result:
    if what == "mip":
        from ilp_pyramid.backends import mip

        return mip.solve(form, solver, options)
    if what == "bool":
        from ilp_pyramid.backends import cpsat

        return cpsat.solve_model(form, options)
    if what == "exact_cover":
        return _solve_exact_cover(form, solver, options)
    from ilp_pyramid.backends import sat

    clauses = form.clauses if hasattr(form, "clauses") else form
    return sat.solve(clauses, solver, options)


def _solve_exact_cover(form: ExactCoverForm, solver: str, options: SolveOptions) -> Result:
    from ilp_pyramid.backends import lowering

    return lowering.solve(form, solver, options)
