"""The Sudoku Cube's `after` hook: what a solve of the grid model means for the cube.

- solved: the checker's invariants of the grid and, when asked, the face turns that reach it,
  planned (turns.py) and simulated on the given stickers before they are given;
- infeasible: why. No grid at all (NO_GRID: the digits cannot form six 1-9 faces, not even
  with the cube taken apart), or grids that only a reassembled cube shows (NOT_TURNABLE):
  models with fewer rules of turning find a grid, and the rule it breaks is named;
- timeout, error, interrupted: the reason in words.

Everything it finds goes into a `CubeResult` (outcome.py).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ilp_pyramid import backends
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError, SolverError
from ilp_pyramid.protocol import Result
from ilp_pyramid.puzzles.sudoku_cube.checks import NO_GRID, NOT_TURNABLE, RULES, broken_rules
from ilp_pyramid.puzzles.sudoku_cube.cnf import build_cnf
from ilp_pyramid.puzzles.sudoku_cube.model import build_model
from ilp_pyramid.puzzles.sudoku_cube.outcome import CubeResult
from ilp_pyramid.puzzles.sudoku_cube.rounds import Rounds
from ilp_pyramid.puzzles.sudoku_cube.simulate import format_moves
from ilp_pyramid.puzzles.sudoku_cube.solution import CubeSolution, assemble
from ilp_pyramid.puzzles.sudoku_cube.turns import plan
from ilp_pyramid.verify.sudoku_cube import CubeVerdict, check_answer, check_moves

if TYPE_CHECKING:
    from ilp_pyramid.puzzles.sudoku_cube.state import Cube

# What a status other than solved or infeasible says, in words.
_STOPPED = {Status.TIMEOUT: "time limit reached without a grid",
            Status.INTERRUPTED: "interrupted before a grid was found"}
# Why a diagnosis stopped short.
_UNFINISHED = {Status.TIMEOUT: "no grid reachable by turning; time ran out finding out why",
               Status.INTERRUPTED: "no grid reachable by turning; interrupted finding out why"}


def finish(instance: Cube, result: Result, options: SolveOptions,
           moves: bool = False) -> CubeResult:
    """`result` as a `CubeResult`: its rounds counted, and what its status means for the
    cube (above); `moves`: plan and check the face turns of a solved cube."""
    model = result.model
    rounds = model.run if model is not None and isinstance(model.run, Rounds) else None
    cube = CubeResult.of(result, parity=model.keys.get("parity") if model else None,
                         solver_calls=rounds.calls if rounds else int(model is not None),
                         cuts=rounds.cuts if rounds else 0)
    if rounds is not None:  # as solved: its cuts, and the __dummy PuLP adds to a 0 objective
        model.variables = rounds.cube.num_variables
        model.constraints = rounds.cube.num_constraints
    status, cube.detail = cube.status, ""
    if status is Status.SOLVED:
        _solved(instance, cube, moves)
    elif status is Status.INFEASIBLE and model is None:  # refused before any model
        cube.detail, cube.reason = NO_GRID, result.detail
    elif status is Status.INFEASIBLE:
        if rounds is not None and rounds.cube.rules != frozenset(RULES):
            cube.detail, cube.reason = NO_GRID, "no grid: the digits cannot form six 1-9 faces"
        else:
            diagnose(instance, cube, options)
    elif status is Status.ERROR:
        _error(instance, cube, result, rounds)
    else:
        cube.reason = _STOPPED.get(status, result.detail or str(status))
    return cube


def _solved(instance: Cube, cube: CubeResult, moves: bool) -> None:
    """The invariants of a verified grid, and its face turns (simulated) when asked."""
    solution = cube.solution
    verdict = _verdict(instance, solution)
    cube.invariants, cube.turnable, cube.grid = verdict.invariants, verdict.turnable, solution
    if not moves:
        return
    start = time.perf_counter()
    try:
        solution.moves = plan(instance.state, solution.source, solution.target)
    except SolverError as exc:
        _refuse(cube, f"no face turns found: {exc}")
        return
    cube.moves_seconds = time.perf_counter() - start
    misses = check_moves(instance.state.to_dict(), solution.target.to_dict(),
                         format_moves(solution.moves))
    if misses:
        _refuse(cube, "simulating the moves missed the target at " + ", ".join(misses[:5]))


def _refuse(cube: CubeResult, reason: str) -> None:
    """No answer after all: what was found fails a check of its own."""
    cube.status, cube.reason, cube.solution, cube.grid = Status.ERROR, reason, None, None


def _error(instance: Cube, cube: CubeResult, result: Result, rounds: Rounds | None) -> None:
    """The solver failed, or its grid failed the check. A model given fewer rules of turning
    may rightly find a grid that turning does not reach: that grid is kept (`grid`,
    `turnable` False), and the reason says which rules it breaks."""
    if result.backend is not None and result.backend.status is Status.ERROR:
        gave_up = rounds is not None and rounds.gave_up
        cube.reason = result.detail if gave_up else f"the solver failed: {result.detail}"
        return
    cube.reason = result.detail
    if rounds is None or rounds.cube.rules == frozenset(RULES) or result.backend is None:
        return
    try:
        solution = assemble(instance.state, rounds.cube.grid(result.backend))
    except InputError:
        return
    verdict = _verdict(instance, solution)
    if verdict.valid:
        cube.grid, cube.invariants, cube.turnable = solution, verdict.invariants, False
        cube.reason = ("the model without the rules " + ", ".join(
            r for r in RULES if r not in rounds.cube.rules) + " found a grid that turning "
            "does not reach: " + "; ".join(verdict.unreachable))


def _verdict(instance: Cube, solution: CubeSolution) -> CubeVerdict:
    return check_answer(instance.state.to_dict(), solution.target.to_dict(), solution.source,
                        instance.symmetric)


def diagnose(instance: Cube, cube: CubeResult, options: SolveOptions) -> None:
    """No grid reachable by turning: is there one at all (a reassembled cube) or none?

    First without any rule of turning: no grid means the digits are at fault. Otherwise drop
    one rule at a time, those the grid found breaks first; a grid that breaks that rule
    alone names what is wrong with the cube. Every solve adds to the cube's solver calls and
    solve time; a solve that does not answer ends the diagnosis with its status.
    """
    found = _relaxed_grid(instance, cube, options, ())
    if found is None:
        if cube.status is Status.INFEASIBLE:
            cube.detail = NO_GRID
            cube.reason = ("the digits cannot form six 1-9 faces: no arrangement of these "
                           "pieces shows every digit once and upright on each face, not even "
                           "with the cube taken apart")
        return
    broken = broken_rules(found.invariants)
    single = found if len(broken) == 1 else None
    for rule in sorted(RULES, key=lambda r: r not in broken):
        if single is not None or cube.status is not Status.INFEASIBLE:
            break
        single = _relaxed_grid(instance, cube, options, [r for r in RULES if r != rule])
    if cube.status is not Status.INFEASIBLE:
        return
    verdict = single or found
    cube.invariants = verdict.invariants
    why = "; ".join(verdict.unreachable)
    if single is not None:
        how = f"with one rule of turning ignored a grid exists, and it breaks that rule: {why}"
    else:
        how = f"every grid breaks more than one rule of turning, for example: {why}"
    cube.detail = NOT_TURNABLE
    cube.reason = ("not solvable by turning: the faces can show 1-9 only after taking the "
                   f"cube apart and putting it back differently; {how}")


def _relaxed_grid(instance: Cube, cube: CubeResult, options: SolveOptions,
                  rules: list[str] | tuple[str, ...]) -> CubeVerdict | None:
    """The checker's verdict on a grid of the model with only `rules`, or None if it has
    none (or the solve did not answer: then the cube's status says why)."""
    # The solve's own form (MIP or CNF), so the diagnosis runs on the solver asked for.
    build = build_cnf if cube.form == "cnf" else build_model
    model = build(instance.state, instance.symmetric, rules=rules)
    answer = backends.solve(model.form, cube.solver, options)
    cube.solver_calls += 1
    cube.solve_seconds += answer.seconds
    if answer.status is Status.INFEASIBLE:
        return None
    if not answer.has_solution:
        cube.status = answer.status
        cube.reason = _UNFINISHED.get(answer.status, f"the solver failed: {answer.message}")
        return None
    solution = assemble(instance.state, model.grid(answer))
    verdict = _verdict(instance, solution)
    if not verdict.valid:
        cube.status = Status.ERROR
        cube.reason = "the checker rejected the model's grid: " + "; ".join(verdict.reasons())
        return None
    return verdict
