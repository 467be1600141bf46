"""The one contract every backend keeps: `solve(form, solver, options) -> Result`.

A backend knows nothing about puzzles. It takes a model *form* (a PuLP problem, CNF clauses,
exact-cover rows or a CP-SAT Boolean model, see `backends.solve`) and answers with a `Result`:
variable values by name (MIP, CP-SAT), true literals (SAT) or chosen rows (exact cover). The
puzzle decodes them.

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
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NoReturn

from ilp_pyramid.errors import InputError

# Solver names that are no MIP and no python-sat solver, known to every backend module.
DLX = "dlx"  # the package's Dancing Links engine, for the exact-cover form
CPSAT = "cpsat"


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

