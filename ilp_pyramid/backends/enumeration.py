"""Every model of a formula, each once, for a count: `count_models` and `count_covers`.

A solver whose line `counts` (base.CAPABILITIES) and whose backend module has
`enumerate_models(form, what, solver, options, projection, on_model, antichain)` enumerates
here: CP-SAT by its own enumeration (cpsat.py), a python-sat solver by blocking clauses on
one incremental solver in a forked child (sat.py). Models are told apart by their
*projection*, the variables 1..projection: each distinct assignment of those is one model,
handed to `on_model` as its true variables (in the order the solver found them), as soon as
the parent has it. A caller's `on_model` may raise (a model that fails its check): the
solver is stopped and the exception goes on.

The time limit (`SolveOptions.time_limit`) stops an enumeration with status `timeout` and
the count so far, a lower bound; SIGINT/SIGTERM stop the solver and its children and raise
`errors.Interrupted`, as every backend does. Dancing Links reads the exact cover itself and
counts it with its own search (`exact_cover.count_exact_cover`), not here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import EXACT_COVER, SolveOptions, Status
from ilp_pyramid.backends.forms import ExactCoverForm, form_kind
from ilp_pyramid.backends.solvers import Solver, names
from ilp_pyramid.backends.solvers import solver as solver_of
from ilp_pyramid.errors import InputError

# Called with the true projection variables of each model found.
OnModel = Callable[[list[int]], None]


@dataclass
class Enumeration:
    """How an enumeration ended: `solved` (every model found: `count` is the count),
    `timeout` (the limit stopped it: `count` a lower bound) or `error` (`message` says)."""

    solver: str
    status: Status
    count: int
    seconds: float
    message: str = ""

    @property
    def complete(self) -> bool:
        return self.status == Status.SOLVED


def counting(solver: str | Solver) -> Solver:
    """The line of a solver that enumerates here, checked (installed too); InputError (one
    line) for an unknown solver, one that cannot count, or Dancing Links (its own count)."""
    entry = solver_of(solver)
    if not entry.counts or entry.reads(EXACT_COVER):
        choices = [name for name in names(installed=True, can="counts")
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
    entry = counting(solver)
    what = form_kind(form)
    if not entry.reads(what):
        raise InputError(f"solver {entry.name!r} does not read a {what} model")
    backend = importlib.import_module(entry.backend)
    with process.native_output((options or SolveOptions()).verbose):
        return backend.enumerate_models(form, what, entry, options or SolveOptions(),
                                        projection, on_model, antichain)


def count_covers(form: ExactCoverForm, solver: str | Solver, options: SolveOptions | None,
                 on_cover: Callable[[list[int]], None]) -> Enumeration:
    """Every exact cover of `form`, lowered to `solver`'s form (lowering.py, row r is
    variable r + 1); `on_cover` gets each cover's rows."""
    from ilp_pyramid.backends import lowering

    entry = counting(solver)
    target = next((kind for kind in entry.native if kind in lowering.TARGETS), None)
    if target is None:
        raise InputError(f"solver {entry.name!r} reads no form an exact cover is lowered to")
    lowering.load(target)
    lowered = lowering.lower(form, target)
    return count_models(lowered.form, entry, options,
                        lambda true: on_cover([var - 1 for var in true]),
                        projection=len(form.rows), antichain=True)
