"""One Sudoku Cube run end to end: checks -> model -> solve -> decode -> verify -> moves.

The CLI, the benchmark and the tests all go through `run`; an answer is returned only after
the independent checker accepted the grid (faces, sticker map, turning invariants) and, with
moves, after simulating them on the given state reproduced the target facelet for facelet.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import combinations

from ilp_pyramid import backends
from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.errors import SolverError
from ilp_pyramid.puzzles.sudoku_cube.model import (
    DEFAULT_PARITY,
    DEFAULT_SYMMETRIC,
    PARITY_RULES,
    RULES,
    CubeModel,
    NoGrid,
    build_model,
    decode,
)
from ilp_pyramid.puzzles.sudoku_cube.simulate import format_moves
from ilp_pyramid.puzzles.sudoku_cube.solution import CubeSolution, assemble
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState
from ilp_pyramid.puzzles.sudoku_cube.turns import plan
from ilp_pyramid.verify.sudoku_cube import check_answer, check_moves

# The one status vocabulary (backends/base.py). Both kinds of "no solution" are
# `infeasible`; which one is in `detail` (and --json "detail"), why in words in `reason`.
SOLVED, INFEASIBLE, TIMEOUT, ERROR = Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT, Status.ERROR
NOT_TURNABLE = "not_turnable"  # 1-9 faces exist, but only for a reassembled cube
NO_GRID = "no_grid"  # the digits cannot form six 1-9 faces at all

MAX_CUT_ROUNDS = 500


@dataclass
class CubeRun:
    status: Status
    solver: str
    parity: str
    detail: str = ""  # infeasible: NO_GRID or NOT_TURNABLE; "" otherwise
    reason: str = ""
    solution: CubeSolution | None = None
    build_seconds: float = 0.0
    solve_seconds: float = 0.0
    moves_seconds: float = 0.0
    solver_calls: int = 0
    cuts: int = 0
    variables: int = 0
    constraints: int = 0
    invariants: dict = field(default_factory=dict)
    turnable: bool = False  # the grid found can be reached by face turns

    def settle(self, status: Status, detail: str = "") -> None:
        """The outcome so far: a status, and the detail that goes with it (or none)."""
        self.status, self.detail = status, detail

    @property
    def solved(self) -> bool:
        return self.status == SOLVED

    def to_json(self) -> dict:
        data = {
            "solved": self.solved,
            "status": self.status,
            "detail": self.detail or None,
            "reason": self.reason or None,
            "faces": None,
            "moves": None,
        }
        if self.solution is not None:
            data.update(self.solution.to_json())
        data.update({
            "solver": self.solver,
            "parity": self.parity,
            "build_seconds": round(self.build_seconds, 4),
            "solve_seconds": round(self.solve_seconds, 4),
            "moves_seconds": round(self.moves_seconds, 4),
            "solver_calls": self.solver_calls,
            "parity_cuts": self.cuts,
            "variables": self.variables,
            "constraints": self.constraints,
            "invariants": self.invariants or None,
        })
        return data


def digit_count_problem(state: CubeState) -> str:
    """Six 1-9 faces need every digit exactly six times; say which are off."""
    counts = Counter(state.digits())
    wrong = [f"{d} appears {counts[d]} times" for d in range(1, 10) if counts[d] != 6]
    if not wrong:
        return ""
    return ("the digits cannot form six 1-9 faces: each digit must appear exactly 6 times, "
            f"but {', '.join(wrong)}")


def run(state: CubeState, solver: str = "highs", parity: str = DEFAULT_PARITY,
        symmetric: Iterable[int] = DEFAULT_SYMMETRIC, options: SolveOptions | None = None,
        with_moves: bool = False, rules: Iterable[str] = RULES) -> CubeRun:
    """Solve `state`. With fewer `rules` (the benchmark's "grid only", the seed's model) the
    grid may be one that turning cannot reach: then `turnable` is False and no moves exist."""
    options = options or SolveOptions()
    rules = tuple(rules)
    symmetric = frozenset(symmetric) | DEFAULT_SYMMETRIC
    outcome = CubeRun(INFEASIBLE, solver, parity, NO_GRID)
    problem = digit_count_problem(state)
    if problem:
        outcome.reason = problem
        return outcome
    try:
        model = build_model(state, symmetric, parity, rules)
    except NoGrid as exc:
        outcome.reason = str(exc)
        return outcome
    outcome.build_seconds = model.build_seconds
    result = _solve(model, solver, options, outcome)
    outcome.variables, outcome.constraints = model.num_variables, model.num_constraints
    if result.status == Status.TIMEOUT:
        outcome.settle(TIMEOUT)
        outcome.reason = "time limit reached without a grid"
        return outcome
    if result.status == Status.ERROR:
        outcome.settle(ERROR)
        outcome.reason = f"the solver failed: {result.message}"
        return outcome
    if not result.has_solution:
        if set(rules) == set(RULES):
            _diagnose(state, symmetric, solver, options, outcome)
        else:
            outcome.reason = "no grid: the digits cannot form six 1-9 faces"
        return outcome
    solution = assemble(state, decode(model, result.values))
    verdict = check_answer(state.to_dict(), solution.target.to_dict(), solution.source,
                           symmetric)
    outcome.invariants, outcome.turnable = verdict.invariants, verdict.turnable
    if not verdict.valid or (set(rules) == set(RULES) and not verdict.turnable):
        raise SolverError("the checker rejected the model's grid: " + "; ".join(verdict.reasons()))
    if with_moves and verdict.turnable:
        start = time.perf_counter()
        solution.moves = plan(state, solution.source, solution.target)
        outcome.moves_seconds = time.perf_counter() - start
        misses = check_moves(state.to_dict(), solution.target.to_dict(),
                             format_moves(solution.moves))
        if misses:
            raise SolverError("simulating the moves missed the target at " + ", ".join(misses[:5]))
    outcome.settle(SOLVED)
    outcome.solution = solution
    return outcome


def _solve(model: CubeModel, solver: str, options: SolveOptions, outcome: CubeRun) -> Result:
    """Solve; in "cuts" mode, forbid each grid whose parities disagree and solve again."""
    start = time.perf_counter()
    while True:
        opts = options
        if options.time_limit is not None:
            left = options.time_limit - outcome.solve_seconds
            opts = replace(options, time_limit=max(0.01, left))
        result = backends.solve(model.problem, solver, opts)
        outcome.solve_seconds = time.perf_counter() - start
        outcome.solver_calls += 1
        if model.parity != "cuts" or not model.rules & PARITY_RULES or not result.has_solution:
            return result
        grid = decode(model, result.values)
        corners = {i: j for i, (j, _) in grid.corners.items()}
        edges = {i: j for i, (j, _) in grid.edges.items()}
        cp, ep = permutation_parity(corners), permutation_parity(edges)
        turns = sum(grid.centres.values()) % 2
        if cp == ep == turns:
            return result
        if outcome.cuts >= MAX_CUT_ROUNDS:
            raise SolverError(f"no grid with matching parities after {MAX_CUT_ROUNDS} cuts")
        model.add_parity_cut(corners, edges, grid.centres if cp == ep else None)
        outcome.cuts = model.cuts
        if options.time_limit is not None and outcome.solve_seconds >= options.time_limit:
            return Result(solver, Status.TIMEOUT, outcome.solve_seconds)


def permutation_parity(perm: dict[int, int]) -> int:
    return sum(1 for a, b in combinations(sorted(perm), 2) if perm[a] > perm[b]) % 2


def _diagnose(state: CubeState, symmetric: frozenset[int], solver: str, options: SolveOptions,
              outcome: CubeRun) -> None:
    """No reachable grid: is there one at all (a reassembled cube) or none (bad digits)?

    First without any turning rule: no grid means the digits are at fault. Otherwise drop one
    rule at a time; a grid that breaks that rule alone names what is wrong with the cube.
    """
    found = _relaxed_grid(state, symmetric, solver, options, outcome, ())
    if found is None:
        if outcome.status != TIMEOUT:
            outcome.settle(INFEASIBLE, NO_GRID)
            outcome.reason = ("the digits cannot form six 1-9 faces: no arrangement of these "
                              "pieces shows every digit once and upright on each face, not even "
                              "with the cube taken apart")
        return
    broken = broken_rules(found.invariants)
    single = found if len(broken) == 1 else None
    # Otherwise drop one rule at a time, those this grid breaks first.
    for rule in sorted(RULES, key=lambda r: r not in broken):
        if single is not None or outcome.status == TIMEOUT:
            break
        single = _relaxed_grid(state, symmetric, solver, options, outcome,
                               [r for r in RULES if r != rule])
    if outcome.status == TIMEOUT:
        return
    verdict = single or found
    outcome.invariants = verdict.invariants
    why = "; ".join(verdict.unreachable)
    outcome.settle(INFEASIBLE, NOT_TURNABLE)
    if single is not None:
        how = f"with one rule of turning ignored a grid exists, and it breaks that rule: {why}"
    else:
        how = f"every grid breaks more than one rule of turning, for example: {why}"
    outcome.reason = ("not solvable by turning: the faces can show 1-9 only after taking the "
                      f"cube apart and putting it back differently; {how}")


def broken_rules(invariants: dict) -> set[str]:
    """Which of RULES a grid with these invariants (from the checker) breaks."""
    out = set()
    if invariants["corner_twist_mod3"]:
        out.add("twist")
    if invariants["edge_flip_mod2"]:
        out.add("flip")
    if invariants["corner_parity"] != invariants["edge_parity"]:
        out.add("parity")
    if invariants["centre_turns_mod2"] != invariants["corner_parity"]:
        out.add("centres")
    return out


def _relaxed_grid(state, symmetric, solver, options, outcome, rules):
    """The checker's verdict on a grid of the model with only `rules`, or None if none."""
    model = build_model(state, symmetric, rules=rules)
    result = backends.solve(model.problem, solver, options)
    outcome.solver_calls += 1
    outcome.solve_seconds += result.seconds
    if result.status == Status.TIMEOUT:
        outcome.settle(TIMEOUT)
        outcome.reason = "no grid reachable by turning; time ran out finding out why"
        return None
    if not result.has_solution:
        return None
    solution = assemble(state, decode(model, result.values))
    verdict = check_answer(state.to_dict(), solution.target.to_dict(), solution.source,
                           symmetric)
    if not verdict.valid:
        raise SolverError("the checker rejected the model's grid: " + "; ".join(verdict.reasons()))
    return verdict
