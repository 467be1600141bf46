"""One Bel's Pyramid run end to end: build -> solve -> decode -> verify.

The CLI, the benchmark and the tests all go through `run`, so a solution is never reported
unless the independent checker accepted it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ilp_pyramid import backends
from ilp_pyramid.backends import base
from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.errors import InputError, SolverError
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.verify.bel import verify_solution

# Statuses of a run, as printed and in --json.
SOLVED, INFEASIBLE, TIMEOUT, ERROR = "solved", "infeasible", "timeout", "error"


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
        from ilp_pyramid.puzzles.bel.strategies import hypotheses

        # Present only when an "infeasible" status would hold just under these strategies
        # (the --method lns output shares the other keys and knows no strategies).
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
    options = options or SolveOptions()
    solver_kind = backends.kind(solver)
    if solver_kind == "sat":
        return run_sat(n, solver, formulation, options, card, strategies)
    from ilp_pyramid.backends import mip
    from ilp_pyramid.puzzles.bel.model import build_model

    model = build_model(n, formulation, strategies)
    result = mip.solve(model.problem, solver, options)
    outcome = BelRun(n, solver, formulation, _status(result.status), model.build_seconds,
                     result.seconds, model.num_variables, model.num_constraints,
                     message=result.message, strategies=list(strategies))
    if result.has_solution:
        outcome.solution = checked(model.decode(result.values), solver)
    return outcome


def run_sat(n: int, solver: str, encoding: str = "counts", options: SolveOptions | None = None,
            card: str | None = None, strategies: Sequence[str] = ()) -> BelRun:
    """The SAT path: CNF (encoding = the formulation's name) -> child-process solve -> verify."""
    from ilp_pyramid.backends import sat
    from ilp_pyramid.puzzles.bel.cnf import DEFAULT_CARD, build_cnf

    cnf = build_cnf(n, encoding, card or DEFAULT_CARD)
    if strategies:
        add_strategy_clauses(cnf, n, strategies)
    result = sat.solve(cnf.formula.clauses, solver, options or SolveOptions())
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


def _status(backend_status: str) -> str:
    return {
        base.OPTIMAL: SOLVED,
        base.FEASIBLE: SOLVED,
        base.INFEASIBLE: INFEASIBLE,
        base.TIMEOUT: TIMEOUT,
    }.get(backend_status, ERROR)


def checked(solution: BelSolution, solver: str) -> BelSolution:
    """Refuse, loudly, any solution the independent checker rejects."""
    verdict = verify_solution(solution)
    if not verdict.valid:
        reason = verdict.reasons()[0]
        raise SolverError(f"{solver} returned a labelling that does not verify: {reason}")
    return solution


def add_strategy_clauses(cnf, n: int, strategies: Sequence[str]) -> None:
    """Append the strategies' clauses to a built Bel CNF (same rules as the MIP rows)."""
    from ilp_pyramid.puzzles.bel.geometry import pyramid
    from ilp_pyramid.puzzles.bel.rules_cnf import compile_clauses
    from ilp_pyramid.puzzles.bel.strategies import rules_for

    geo = pyramid(n)
    clauses = compile_clauses(rules_for(n, list(strategies)), cnf.line_var, cnf.pool,
                              geo.num_labels, geo.line_lengths)
    cnf.formula.extend(clauses)
    cnf.extras += list(strategies)
