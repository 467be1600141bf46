"""One Bel's Pyramid run end to end: build -> solve -> decode -> verify.

The CLI, the benchmark and the tests all go through `run`, so a solution is never reported
unless the independent checker accepted it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ilp_pyramid import backends
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError, SolverError
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.verify.bel import verify_solution

# Statuses of a run, as printed and in --json: the one vocabulary (backends/base.py).
SOLVED, INFEASIBLE, TIMEOUT, ERROR = Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT, Status.ERROR
# The forms Bel's model comes in, best first: the PuLP problem (model.py), the CNF (cnf.py).
FORMS = ("mip", "cnf")


def form_for(solver: str) -> str:
    """The form of Bel's model that `solver` takes: the first of `backends.forms_for(solver)`
    that Bel builds. InputError for an unknown solver and for one that takes neither (dlx)."""
    return backends.first_form(solver, FORMS, "Bel's Pyramid")


@dataclass
class BelRun:
    n: int
    solver: str
    formulation: str
    status: str
    build_seconds: float
    solve_seconds: float
    variables: int
    constraints: int
    solution: BelSolution | None = None
    message: str = ""
    strategies: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        # Present only when an "infeasible" status would hold just under these strategies
        # (the --method lns output shares the other keys and knows no strategies).
        assumed = []
        if self.strategies:
            from ilp_pyramid.puzzles.bel.strategies import hypotheses

            assumed = hypotheses(self.strategies)
        return {
            "n": self.n,
            "solver": self.solver,
            "formulation": self.formulation,
            "strategies": self.strategies,
            **({"hypotheses": assumed} if assumed else {}),
            "status": self.status,
            "build_seconds": round(self.build_seconds, 4),
            "solve_seconds": round(self.solve_seconds, 4),
            "variables": self.variables,
            "constraints": self.constraints,
            "solution": self.solution.to_dict() if self.solution else None,
            "message": self.message,
        }


def run(n: int, solver: str = "highs", formulation: str = "counts",
        options: SolveOptions | None = None, card: str | None = None,
        strategies: Sequence[str] = ()) -> BelRun:
    """Build the form `solver` takes (the MIP model or the CNF), solve, decode, verify."""
    options = options or SolveOptions()
    if form_for(solver) == "cnf":
        return run_sat(n, solver, formulation, options, card, strategies)
    from ilp_pyramid.puzzles.bel.model import build_model

    model = build_model(n, formulation, strategies)
    result = backends.solve(model.problem, solver, options)
    outcome = BelRun(n, solver, formulation, _status(result.status), model.build_seconds,
                     result.seconds, model.num_variables, model.num_constraints,
                     message=result.message, strategies=list(strategies))
    if result.has_solution:
        outcome.solution = checked(model.decode(result.values), solver)
    return outcome


def run_sat(n: int, solver: str, encoding: str = "counts", options: SolveOptions | None = None,
            card: str | None = None, strategies: Sequence[str] = ()) -> BelRun:
    """The CNF path (encoding = the formulation's name): SAT solvers and CP-SAT."""
    from ilp_pyramid.puzzles.bel.cnf import DEFAULT_CARD, build_cnf

    cnf = build_cnf(n, encoding, card or DEFAULT_CARD, strategies=strategies)
    result = backends.solve(cnf.formula, solver, options or SolveOptions())
    outcome = BelRun(n, solver, encoding, _status(result.status), cnf.build_seconds,
                     result.seconds, cnf.num_variables, cnf.num_clauses, message=result.message,
                     strategies=list(strategies))
    if result.has_solution:
        try:
            solution = cnf.decode(result.model)
        except InputError as exc:
            raise SolverError(f"{solver} returned a model that does not decode: {exc}") from None
        outcome.solution = checked(solution, solver)
    return outcome


def _status(backend_status: Status) -> Status:
    """A feasibility puzzle: any solution is the answer."""
    return SOLVED if backend_status == Status.FEASIBLE else Status(backend_status)


def checked(solution: BelSolution, solver: str) -> BelSolution:
    """Refuse, loudly, any solution the independent checker rejects."""
    verdict = verify_solution(solution)
    if not verdict.valid:
        reason = verdict.reasons()[0]
        raise SolverError(f"{solver} returned a labelling that does not verify: {reason}")
    return solution
