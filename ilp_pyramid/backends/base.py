"""The one interface every backend offers: solve(model, options) -> SolveResult.

A backend knows nothing about puzzles. A MIP backend takes a `pulp.LpProblem` and answers
with variable values by name; a SAT backend takes a CNF and answers with a model (a list of
true literals). The puzzle decodes either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Result statuses, shared by every backend.
OPTIMAL = "optimal"  # a solution, proved optimal (for feasibility problems: a solution)
FEASIBLE = "feasible"  # a solution, but a limit stopped the proof of optimality
INFEASIBLE = "infeasible"  # proved: no solution exists
TIMEOUT = "timeout"  # the time limit passed with no solution
ERROR = "error"  # the solver failed or crashed


@dataclass(frozen=True)
class SolveOptions:
    time_limit: float | None = None
    threads: int | None = None
    seed: int | None = None
    verbose: bool = False
    # Solver-specific settings passed through untouched (HiGHS option names, CBC flags).
    extra: dict = field(default_factory=dict)


@dataclass
class SolveResult:
    solver: str
    status: str
    seconds: float
    values: dict[str, float] = field(default_factory=dict)  # MIP: variable name -> value
    model: list[int] = field(default_factory=list)  # SAT: true literals
    objective: float | None = None
    message: str = ""

    @property
    def has_solution(self) -> bool:
        return self.status in (OPTIMAL, FEASIBLE)
