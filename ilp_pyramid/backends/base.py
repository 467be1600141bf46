"""The one contract every backend keeps: `run(form, what, solver, options) -> Result`.

A backend knows nothing about puzzles. It takes a model *form* (a PuLP problem, CNF clauses,
exact-cover rows or a CP-SAT Boolean model, see `backends.solve`) and answers with a `Result`:
variable values by name (MIP, CP-SAT), true literals (SAT) or chosen rows (exact cover). The
puzzle decodes them. It is handed the `Solver` to run (defined here, its lines are the one
table in `solvers.py`), never a name: what the solver can do is a field of it
(`CAPABILITIES`), never a test of its name.

One status vocabulary, `Status`, is used by every backend, every puzzle runner and every
`--json` output (docs/status.md):

- `solved`      a solution; for a model with an objective, one proved optimal.
- `feasible`    a solution, but a limit stopped the proof of optimality (backends; a runner of a
                pure feasibility puzzle reports it as `solved`, one that needs the optimum as
                `timeout`).
- `infeasible`  proved: no solution exists. Why, when a puzzle knows more, goes in a separate
                `reason` / `detail` field (e.g. Sudoku Cube's `no_grid`, views' `unsolvable`).
- `timeout`     the time limit passed without a solution.
- `interrupted` SIGINT/SIGTERM, or a caller's stop request (the LNS search's `should_stop`),
                stopped the run. Backends do not return it: they stop their solver and
                children and raise `errors.Interrupted`; it appears in records that are
                written on the way out (bench, hunt).
- `error`       the solver failed, crashed or answered something unusable.

Exit codes follow from it: solved 0, infeasible 1, timeout 3, interrupted 130/143, error 1.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import NoReturn

from ilp_pyramid import extras
from ilp_pyramid.errors import InputError


class Status(StrEnum):
    """A run's outcome; a str, so it prints and serialises to JSON as its value."""

    SOLVED = "solved"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"
    ERROR = "error"


# A progress callback gets a small dict: always "elapsed" (seconds); MIP solvers add
# "incumbent" (best objective found, None before the first), "bound" and "nodes".
Progress = Callable[[dict], None]


@dataclass(frozen=True)
class SolveOptions:
    """What every solver is told. Checked when made (InputError, one line): `time_limit`
    None or a finite number of seconds >= 0, `threads` None or a whole number >= 1, `seed`
    None or a whole number >= 0, `verbose` a bool, `extra` a dict, `progress` None or a
    callable. A bad value fails here, not frames deep inside a solver's library."""

    time_limit: float | None = None
    threads: int | None = None
    seed: int | None = None
    verbose: bool = False
    # Solver-specific settings passed through untouched (HiGHS option names, CBC flags).
    extra: dict = field(default_factory=dict)
    # Called about once a second while a solver runs (off by default; keep it cheap).
    progress: Progress | None = None

    def __post_init__(self) -> None:
        limit = self.time_limit
        if limit is not None:
            if not _is_real(limit) or not _finite(limit) or limit < 0:
                _refuse("time_limit", limit, "None or a finite number of seconds >= 0")
        for name, low in (("threads", 1), ("seed", 0)):
            value = getattr(self, name)
            if value is not None:
                if not _is_whole(value) or value < low:
                    _refuse(name, value, f"None or a whole number >= {low}")
                object.__setattr__(self, name, int(value))  # numpy's ints too; frozen
        if not isinstance(self.verbose, bool):
            _refuse("verbose", self.verbose, "True or False")
        if not isinstance(self.extra, dict):
            _refuse("extra", self.extra, "a dict of solver settings")
        if self.progress is not None and not callable(self.progress):
            _refuse("progress", self.progress, "None or a callable taking a dict")


def _is_real(value: object) -> bool:
    # bool is an int, but time_limit=True is a slip, not one second.
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _finite(value: numbers.Real) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int past float's range
        return False


def _is_whole(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _refuse(name: str, value: object, wanted: str) -> NoReturn:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    raise InputError(f"SolveOptions {name} must be {wanted}, not {shown}")


@dataclass
class Result:
    """A backend's answer, before any puzzle decodes it: the status and the solver's own
    values (by variable name), literals (a SAT model) or chosen rows (exact cover)."""

    solver: str
    status: Status
    seconds: float
    values: dict[str, float] = field(default_factory=dict)  # MIP, CP-SAT: name -> value
    model: list[int] = field(default_factory=list)  # SAT: the literals of a model
    objective: float | None = None
    message: str = ""
    rows: list[int] = field(default_factory=list)  # exact cover: the chosen rows
    # An outside program's run (external.py): wall and CPU seconds, peak memory, exit code.
    usage: dict = field(default_factory=dict)

    @property
    def has_solution(self) -> bool:
        """True for `solved` and `feasible`: the values, literals or rows hold an answer."""
        return self.status in (Status.SOLVED, Status.FEASIBLE)


@dataclass
class Enumeration:
    """How a count by enumeration ended (`backends.count_models`): `solved` (every model
    found: `count` is the count), `timeout` (the limit stopped it: `count` a lower bound) or
    `error` (`message` says)."""

    solver: str
    status: Status
    count: int
    seconds: float
    message: str = ""

    @property
    def complete(self) -> bool:
        return self.status == Status.SOLVED


# Called with the true projection variables of each model an enumeration finds.
OnModel = Callable[[list[int]], None]


EXACT_COVER = "exact_cover"  # every solver takes it, natively (dlx) or lowered
PYSAT = "pysat"  # the library of python-sat's lines: python-sat builds some solvers only


@dataclass(frozen=True)
class Solver:
    """One solver: what it is, what it reads, what it can do, whether it is here, and which
    backend module solves it. The capability fields (`CAPABILITIES`) are what callers ask
    instead of testing a name or a family."""

    name: str
    family: str  # one of FAMILIES: listings and the bench's groups, never to decide
    native: tuple[str, ...]  # the forms its backend module reads as they are, best first
    backend: str  # the module whose run(form, what, solver, options) solves its forms
    library: str | None = None  # the module it needs that a base install may lack
    plugin: str = ""  # MIP: PuLP's solver module; SAT: python-sat's own name; RC2: oracle
    note: str = ""  # one line for listings
    aliases: tuple[str, ...] = field(default=(), compare=False)
    # Capabilities (see CAPABILITIES):
    threads: bool = False
    seeds: bool = False
    parameters: bool = False
    budget: bool = False
    sessions: bool = False
    assumptions: bool = False
    phases: bool = False
    reuse: bool = False
    orbitopes: bool = False
    presolve_retry: bool = False
    counts: bool = False

    @property
    def forms(self) -> tuple[str, ...]:
        """The model forms it takes, best first: its native ones, then the exact cover."""
        return self.native + tuple(f for f in (EXACT_COVER,) if f not in self.native)

    @property
    def extra(self) -> str | None:
        """The pip extra that installs its library (None: in the base install)."""
        return extras.EXTRAS[self.library][0] if self.library in extras.EXTRAS else None

    @property
    def installed(self) -> bool:
        """Whether it can run here: its library imports (and python-sat has it built)."""
        if self.library is not None and not extras.available(self.library):
            return False
        if self.library == PYSAT:
            return _pysat_has(self.plugin)
        return True

    def require(self) -> Solver:
        """Itself; InputError (one line naming the extra to install) if it is not here."""
        if self.library is not None and self.library in extras.EXTRAS:
            extras.need(self.library)
        elif not self.installed:
            raise InputError(f"solver {self.name!r} is not available in this python-sat")
        return self

    def takes(self, form: str) -> bool:
        """Whether the solver takes a form of this kind, natively or lowered."""
        return form in self.forms

    def reads(self, form: str) -> bool:
        """Whether its backend module reads a form of this kind as it is (no lowering)."""
        return form in self.native

    def __str__(self) -> str:
        return self.name


# What a solver can do, one field of its line each (all False unless the line says so).
CAPABILITIES = {
    "threads": "takes SolveOptions.threads (more than one thread)",
    "seeds": "takes SolveOptions.seed as its own random seed (of python-sat's solvers only "
             "CaDiCaL; the SAT backend shuffles every solver's clauses by the seed too)",
    "parameters": "takes its own parameters by name (SolveOptions.extra, --solver-option)",
    "budget": "takes a conflict budget on a single solve, so a small formula is solved in "
              "this process in slices between which the time limit and signals hold",
    "sessions": "keeps a conflict budget across incremental solves under assumptions "
                "(sat.SatSession)",
    "assumptions": "solves under assumptions (without: as unit clauses, on a fresh solver)",
    "phases": "takes initial phases (python-sat's set_phases)",
    "reuse": "answers more than one solve on one solver object (Kissat aborts the process)",
    "orbitopes": "takes the orbitopes a MIP model declares (mip_model.orbitopes)",
    "presolve_retry": "a solve error on a lowered exact cover is asked again without presolve "
                      "(HiGHS' presolve can fail on an infeasible cover)",
    "counts": "enumerates every model, each once, for a count (enumerate.py): CP-SAT by its "
              "own enumeration, a SAT solver by blocking clauses on one incremental solver; "
              "Dancing Links, which reads the exact cover itself, by its own search",
}
assert set(CAPABILITIES) <= {f.name for f in fields(Solver)}


def _pysat_has(name: str) -> bool:
    if not extras.available(PYSAT):
        return False
    from pysat.solvers import SolverNames  # python-sat: part of the base install

    return hasattr(SolverNames, name)
