"""Backends behind one door: `solve(form, solver, options) -> Result`.

The form says what kind of model it is, and with it which solvers can take it:

| form                                  | solvers (the one table: `solvers.py`)        |
|---------------------------------------|---------------------------------------------|
| `pulp.LpProblem`                      | family mip: highs, cbc, scip, gurobi         |
| CNF: a list of clauses or a pysat CNF | family sat (python-sat's solvers), cpsat     |
| `ExactCoverForm` (rows and items)     | every solver: dlx natively (`exact_cover.py`), |
|                                       | the others through its one lowering         |
|                                       | (`lowering.py`: PuLP problem, CNF, WCNF,    |
|                                       | BoolModel; the answer mapped back to rows)  |
| `BoolModel`                           | cpsat (`cpsat.py`)                          |
| `pysat.formula.WCNF` (hard + weighted | family maxsat: rc2 (`maxsat.py`)            |
| soft clauses)                         |                                             |

The forms live in `forms.py`, apart from any solver. A solver is resolved once from its name
(`solver_of(name)`, a `solvers.Solver`), here, and that object is passed on: its table line
says its forms, what it can do (its capabilities), whether it is installed, and the backend
module that solves it; a backend module takes that object and a form, never a name.

Every backend keeps the same contract (`base.py`): one `Status`, one `Result`, the time limit
kept, SIGINT/SIGTERM stop the solver and its children and raise `errors.Interrupted`, no
solver process outlives this one, and nothing a solver prints reaches stdout (`solve` holds
`process.native_output`: the log asked for with `verbose` goes to stderr). A puzzle builds
its form and calls `solve`; it never asks which family a solver belongs to. A count is the
same door's other side: `count_models` / `count_covers` (below) enumerate every model with a
solver whose line `counts`.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from ilp_pyramid.backends import process, solvers
from ilp_pyramid.backends.base import (
    EXACT_COVER,
    Enumeration,
    OnModel,
    Result,
    SolveOptions,
    Status,
)
from ilp_pyramid.backends.forms import BoolModel, ExactCoverForm, form_kind
from ilp_pyramid.backends.solvers import Solver
from ilp_pyramid.backends.solvers import solver as solver_of
from ilp_pyramid.errors import InputError

__all__ = ["BoolModel", "Enumeration", "ExactCoverForm", "Result", "SolveOptions", "Solver",
           "accepts", "all_solvers", "count_covers", "count_models", "counting", "first_form",
           "form_kind", "forms_for", "kind", "require", "solve", "solver_of", "solvers"]


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


def solve(form: object, solver: str | Solver, options: SolveOptions | None = None) -> Result:
    """Solve a model form with `solver` (a name or a `Solver`); InputError if the solver
    cannot take that form, or is not installed. A form the solver does not read natively
    (an exact cover) is lowered to its first native form that `lowering` makes, and the
    answer mapped back (`Result.rows`)."""
    options = options or SolveOptions()
    entry = solver_of(solver)
    what = form_kind(form)
    if not entry.takes(what):
        raise InputError(f"solver {entry.name!r} does not take a {what} model")
    entry.require()
    backend = importlib.import_module(entry.backend)
    # stdout is the package's: whatever a native solver prints goes to stderr or nowhere.
    with process.native_output(options.verbose):
        if entry.reads(what):
            return backend.run(form, what, entry, options)
        return _lowered(form, entry, backend, options)


def _lowered(form: ExactCoverForm, entry: Solver, backend, options: SolveOptions) -> Result:
    """An exact cover on a solver that reads another form: lowered, solved, inverted.
    `seconds` counts the lowering and the solve, not the loading of the libraries (as
    Dancing Links' clock starts after numba is loaded)."""
    from ilp_pyramid.backends import lowering  # not on the path of a form solved natively

    target = next((kind for kind in entry.native if kind in lowering.TARGETS), None)
    if target is None:
        raise InputError(f"solver {entry.name!r} reads no form an exact cover is lowered to")
    lowering.load(target)
    start = time.perf_counter()
    lowered = lowering.lower(form, target)
    result = backend.run(lowered.form, target, entry, options)
    if entry.presolve_retry and result.status == Status.ERROR and not _limit_reached(
            options, time.perf_counter() - start):
        # HiGHS 1.15's presolve can end in "solve error" on an infeasible cover (IQ's
        # pyramid3: "MIP solver claims optimality, but with ... infeasibilities"): ask again
        # without presolve.
        spent = time.perf_counter() - start
        left = None if options.time_limit is None else options.time_limit - spent
        retry = replace(options, time_limit=left, extra={**options.extra, "presolve": "off"})
        result = backend.run(lowered.form, target, entry, retry)
    result.seconds = time.perf_counter() - start
    return lowered.invert(result)


def _limit_reached(options: SolveOptions, seconds: float) -> bool:
    return options.time_limit is not None and seconds >= 0.95 * options.time_limit


# Counting: every model of a formula, each once. A solver whose line `counts` and whose
# backend module has `enumerate_models(form, what, solver, options, projection, on_model,
# antichain)` enumerates here: CP-SAT by its own enumeration (cpsat.py), a python-sat solver
# by blocking clauses on one incremental solver in a forked child (sat.py). Models are told
# apart by their projection, the variables 1..projection: each distinct assignment of those
# is one model, handed to `on_model` as its true variables as soon as this process has it.
# An `on_model` that raises (a model that fails its check) stops the solver and the exception
# goes on. The time limit ends an enumeration as `timeout` with the count so far, a lower
# bound; SIGINT/SIGTERM stop the solver and its children and raise `errors.Interrupted`.
# Dancing Links reads the exact cover itself and counts with its own search
# (`exact_cover.count_exact_cover`), not here.


def counting(solver: str | Solver) -> Solver:
    """The line of a solver that enumerates here, checked (installed too); InputError (one
    line) for an unknown solver, one that cannot count, or Dancing Links (its own count)."""
    entry = solver_of(solver)
    if not entry.counts or entry.reads(EXACT_COVER):
        choices = [name for name in solvers.names(installed=True, can="counts")
                   if not solver_of(name).reads(EXACT_COVER)]
        raise InputError(f"solver {entry.name!r} does not enumerate models (choose from "
                         f"{', '.join(choices)})")
    return entry.require()


def count_models(form: object, solver: str | Solver, options: SolveOptions | None,
                 on_model: OnModel, projection: int, antichain: bool = False) -> Enumeration:
    """Every model of `form` (a form `solver` reads natively: CNF, or a BoolModel for
    CP-SAT) that differs on the variables 1..`projection`. `antichain`: no model's true
    projection variables hold another's (exact covers), so a SAT solver blocks a model by
    its true variables only, a short clause."""
    options = options or SolveOptions()
    entry = counting(solver)
    what = form_kind(form)
    if not entry.reads(what):
        raise InputError(f"solver {entry.name!r} does not read a {what} model")
    backend = importlib.import_module(entry.backend)
    with process.native_output(options.verbose):
        return backend.enumerate_models(form, what, entry, options, projection, on_model,
                                        antichain)


def count_covers(form: ExactCoverForm, solver: str | Solver, options: SolveOptions | None,
                 on_cover: Callable[[list[int]], None]) -> Enumeration:
    """Every exact cover of `form`, lowered to `solver`'s form as `solve` lowers it (row r
    is variable r + 1); `on_cover` gets each cover's rows."""
    from ilp_pyramid.backends import lowering  # not on the path of a form solved natively

    entry = counting(solver)
    target = next((kind for kind in entry.native if kind in lowering.TARGETS), None)
    if target is None:
        raise InputError(f"solver {entry.name!r} reads no form an exact cover is lowered to")
    lowering.load(target)
    lowered = lowering.lower(form, target)
    return count_models(lowered.form, entry, options,
                        lambda true: on_cover([var - 1 for var in true]),
                        projection=len(form.rows), antichain=True)
