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

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

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
    time_limit: float | None = None
    threads: int | None = None
    seed: int | None = None
    verbose: bool = False
    # Solver-specific settings passed through untouched (HiGHS option names, CBC flags).
    extra: dict = field(default_factory=dict)
    # Called about once a second while a solver runs (off by default; keep it cheap).
    progress: Progress | None = None


@dataclass
class Result:
    solver: str
    status: Status
    seconds: float
    values: dict[str, float] = field(default_factory=dict)  # MIP, CP-SAT: name -> value
    model: list[int] = field(default_factory=list)  # SAT: the literals of a model
    objective: float | None = None
    message: str = ""
    rows: list[int] = field(default_factory=list)  # exact cover: the chosen rows

    @property
    def has_solution(self) -> bool:
        return self.status in (Status.SOLVED, Status.FEASIBLE)

