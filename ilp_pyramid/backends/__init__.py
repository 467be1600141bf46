"""Backends behind one door: `solve(form, solver, options) -> Result`.

The form says what kind of model it is, and with it which solvers can take it:

| form                                  | solvers (the one table: `solvers.py`)        |
|---------------------------------------|---------------------------------------------|
| `pulp.LpProblem`                      | family mip: highs, cbc, scip, gurobi         |
| CNF: a list of clauses or a pysat CNF | family sat (python-sat's solvers), cpsat     |
| `ExactCoverForm` (rows and items)     | every solver: dlx natively (`exact_cover.py`), |
|                                       | the others through its one lowering         |
|                                       | (`lowering.py`: PuLP problem, CNF, BoolModel) |
| `cpsat.BoolModel`                     | cpsat (`cpsat.py`)                          |
| `pysat.formula.WCNF` (hard + weighted | family maxsat: rc2 (`maxsat.py`)            |
| soft clauses)                         |                                             |

A solver is resolved once from its name (`solver(name)`, a `solvers.Solver`) and that object
is passed on: it knows its family, its forms, whether it is installed and how it solves.

Every backend keeps the same contract (`base.py`): one `Status`, one `Result`, the time limit
kept, SIGINT/SIGTERM stop the solver and its children and raise `errors.Interrupted`, no
solver process outlives this one, and nothing a solver prints reaches stdout (`solve` holds
`process.native_output`: the log asked for with `verbose` goes to stderr). A puzzle builds
its form and calls `solve`; it never asks which family a solver belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ilp_pyramid.backends import process, solvers
from ilp_pyramid.backends.base import CPSAT, DLX, Result, SolveOptions
from ilp_pyramid.backends.solvers import Solver
from ilp_pyramid.backends.solvers import solver as solver_of
from ilp_pyramid.errors import InputError

__all__ = ["CPSAT", "DLX", "ExactCoverForm", "Result", "SolveOptions", "Solver", "accepts",
           "all_solvers", "first_form", "form_kind", "forms_for", "kind", "require", "solve",
           "solver_of", "solvers"]


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


def kind(solver: str | Solver) -> str:
    """The family of a solver (one of `solvers.FAMILIES`); InputError for an unknown one.
    For the bench, which groups its records by family."""
    return solver_of(solver).family


def all_solvers() -> list[str]:
    """Every solver name of the table that can run here (aliases included)."""
    return solvers.names(installed=True)


def accepts(form_kind: str, solver: str | Solver) -> bool:
    """Whether `solver` takes forms of kind 'mip', 'cnf', 'wcnf', 'exact_cover' or 'bool'."""
    return solver_of(solver).takes(form_kind)


def forms_for(solver: str | Solver) -> tuple[str, ...]:
    """The model forms `solver` takes, best first: its native form(s) ('bool', 'mip' or
    'cnf'), then 'exact_cover', which every solver takes (lowered to the native form);
    InputError for an unknown solver. A puzzle builds the first of them it has.

        >>> from ilp_pyramid import backends
        >>> backends.forms_for("highs"), backends.forms_for("dlx")
        (('mip', 'exact_cover'), ('exact_cover',))
    """
    return solver_of(solver).forms


def first_form(solver: str | Solver, forms: Sequence[str], owner: str = "the model") -> str:
    """The first of `solver`'s forms (`forms_for`) among `forms`, the forms a model comes in;
    InputError for an unknown solver or one that takes none of them (`owner` names the
    model in the message). `protocol.pick_form` for callers without a Puzzle object.

        >>> from ilp_pyramid import backends
        >>> backends.first_form("cpsat", ("mip", "cnf"))
        'cnf'
    """
    entry = solver_of(solver)
    for form in entry.forms:
        if form in forms:
            return form
    raise InputError(f"{owner} has no form {entry.name!r} takes ({entry.name} takes "
                     f"{', '.join(entry.forms)}; {owner} comes as {', '.join(forms)})")


def require(solver: str | Solver) -> Solver:
    """The solver, checked: InputError (exit 2) for an unknown solver, or one whose optional
    library is missing (the message names the extra to install)."""
    return solver_of(solver).require()


def form_kind(form: object) -> str:
    """'mip', 'cnf', 'wcnf', 'exact_cover' or 'bool' for a model form; InputError otherwise."""
    import sys

    pulp = sys.modules.get("pulp")  # no PuLP problem exists before PuLP is loaded
    if pulp is not None and isinstance(form, pulp.LpProblem):
        return "mip"
    if isinstance(form, ExactCoverForm):
        return "exact_cover"
    cpsat = sys.modules.get("ilp_pyramid.backends.cpsat")  # nor a BoolModel before cpsat.py
    if cpsat is not None and isinstance(form, cpsat.BoolModel):
        return "bool"
    if hasattr(form, "soft") and hasattr(form, "wght"):  # a WCNF: before any other clauses
        return "wcnf"
    if hasattr(form, "clauses") or isinstance(form, list | tuple):
        return "cnf"
    raise InputError(f"not a model form a backend takes: {type(form).__name__}")


def solve(form: object, solver: str | Solver, options: SolveOptions | None = None) -> Result:
    """Solve a model form with `solver` (a name or a `Solver`); InputError if the solver
    cannot take that form."""
    options = options or SolveOptions()
    entry = solver_of(solver)
    what = form_kind(form)
    if not entry.takes(what):
        raise InputError(f"solver {entry.name!r} does not take a {what} model")
    # stdout is the package's: whatever a native solver prints goes to stderr or nowhere.
    with process.native_output(options.verbose):
        return entry.solve(form, what, options)
