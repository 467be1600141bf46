"""The Sudoku Cube's CNF (cnf.py): SAT solvers answer with the MIP's rules, through the same
decode, after-hook and independent checker."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import Status
from ilp_pyramid.backends.sat import solve_in_process
from ilp_pyramid.backends.solvers import solver
from ilp_pyramid.puzzles.sudoku_cube import cnf as cube_cnf
from ilp_pyramid.puzzles.sudoku_cube.checks import (
    NOT_TURNABLE,
    broken_rules,
    permutation_parity,
)
from ilp_pyramid.puzzles.sudoku_cube.generate import generate
from ilp_pyramid.puzzles.sudoku_cube.puzzle import PUZZLE as cube
from ilp_pyramid.puzzles.sudoku_cube.state import parse_state
from ilp_pyramid.verify.sudoku_cube import check_answer, check_moves

ROOT = Path(__file__).resolve().parent.parent
CADICAL = solver("cadical195")


@pytest.mark.parametrize(("solver", "seed", "scramble"),
                         [("kissat", 0, 30), ("kissat", 5, 3), ("cadical", 11, 30),
                          ("cadical", 12, 1)])
def test_a_sat_solver_finds_a_grid_the_checker_accepts(solver, seed, scramble):
    instance = cube.generate(scramble, seed)
    result = protocol.solve(cube, instance, solver, {"time_limit": 60})
    assert (result.status, result.form, result.solver_calls) == (Status.SOLVED, "cnf", 1)
    assert cube.verify(instance, result.solution) == []
    verdict = check_answer(instance.state.to_dict(), result.solution.target.to_dict(),
                           result.solution.source, instance.symmetric)
    assert verdict.valid and verdict.turnable
    assert result.constraints == len(cube.model(instance, "cnf").form)


BROKE = {"twist": "twist", "swap": "parity", "centre": "centres"}


@pytest.mark.parametrize("how", list(BROKE))
def test_a_broken_cube_is_not_turnable_for_sat_as_for_the_mip(how):
    broken = cube.instance(generate(3, 20).broken(how).state)
    mip = protocol.solve(cube, broken, "highs")
    sat = protocol.solve(cube, broken, "kissat")
    assert (sat.status, sat.detail) == (mip.status, mip.detail) == \
        (Status.INFEASIBLE, NOT_TURNABLE)
    # the diagnosis ran on the CNF too: relaxed grids found, the broken rule's invariant off
    assert sat.solver_calls >= 2
    assert broken_rules(sat.invariants) == broken_rules(mip.invariants) == {BROKE[how]}


def test_cuts_mode_adds_no_good_clauses_until_none_is_left():
    broken = cube.instance(generate(3, 20).broken("swap").state)
    result = protocol.solve(cube, broken, "cadical", parity="cuts")
    assert (result.status, result.detail) == (Status.INFEASIBLE, NOT_TURNABLE)
    assert result.cuts >= 1 and result.parity == "cuts"
    solved = protocol.solve(cube, cube.generate(10, 4), "cadical", parity="cuts")
    assert solved.status is Status.SOLVED and cube.verify(cube.generate(10, 4),
                                                          solved.solution) == []


def test_fewer_rules_give_a_grid_that_breaks_them():
    """The seed's model (no rules of turning) on a cube with a twisted corner: the CNF finds
    the grid that only a screwdriver reaches, so the twist rule is what forbade it."""
    state = generate(2, 15).broken("twist").state
    built = cube_cnf.build_cnf(state, rules=())
    answer = solve_in_process(built.form, CADICAL)
    assert answer.status is Status.SOLVED
    from ilp_pyramid.puzzles.sudoku_cube.solution import assemble

    solution = assemble(state, built.grid(answer))
    verdict = check_answer(state.to_dict(), solution.target.to_dict(), solution.source,
                           built.symmetric)
    assert verdict.valid and not verdict.turnable
    assert verdict.invariants["corner_twist_mod3"] != 0


def _fixed(pool, at, perm):
    return [[at[i, j] if perm[i] == j else -at[i, j]] for i in range(len(perm))
            for j in range(len(perm))]


@pytest.mark.parametrize("n", [2, 5, 8])
def test_the_parity_chain_is_the_permutations_parity(n):
    rng = random.Random(n)
    for _ in range(6):
        pool = cube_cnf._Pool()
        at = {(i, j): pool.new() for i in range(n) for j in range(n)}
        pi = cube_cnf._permutation_parity(pool, at, n)
        perm = list(range(n))
        rng.shuffle(perm)
        fixed = pool.clauses + _fixed(pool, at, perm)
        answer = solve_in_process(fixed, CADICAL)
        assert answer.status is Status.SOLVED
        assert (pi in answer.model) is bool(permutation_parity(dict(enumerate(perm))))
        # and the other parity is impossible: the chain is exact, not a guess
        wrong = -pi if pi in answer.model else pi
        assert solve_in_process(fixed + [[wrong]], CADICAL).status is Status.INFEASIBLE


def test_the_twist_chain_holds_exactly_the_sums_divisible_by_three():
    rng = random.Random(3)
    n = 8
    for _ in range(8):
        pool = cube_cnf._Pool()
        c = {(i, j, t): pool.new() for i in range(n) for j in range(n) for t in range(3)}
        cube_cnf._twist_sum(pool, c, n)
        twists = [rng.randrange(3) for _ in range(n)]
        units = [[c[i, i, t] if t == twists[i] else -c[i, i, t]] for i in range(n) for t in
                 range(3)] + [[-c[i, j, t]] for i in range(n) for j in range(n) if i != j
                              for t in range(3)]
        found = solve_in_process(pool.clauses + units, CADICAL).status
        assert (found is Status.SOLVED) is (sum(twists) % 3 == 0)


def test_solve_json_with_kissat_in_a_real_process(tmp_path):
    path = tmp_path / "cube.txt"
    path.write_text(generate(8, 25).to_text())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "ilp_pyramid", "sudoku-cube", "solve", path,
                           "--solver", "kissat", "--json"], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["status"], data["form"], data["engine"]) == ("solved", "cnf", "cnf:kissat")
    given = parse_state(path.read_text()).to_dict()
    # the answer's assignment, rebuilt and checked by the independent checker
    instance, solution = cube.from_json({**data, "given": given})
    assert cube.verify(instance, solution) == []
    if data["moves"] is not None:  # the moves need the `sudoku` extra
        assert check_moves(given, data["faces"], data["moves"]) == []


def test_bench_one_takes_a_sat_solver_and_reports_the_cnfs_size(cli):
    result = cli("sudoku-cube", "bench-one", "--seed", 2, "--scramble", 3, "--solver", "cadical",
                 "--no-moves", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert (data["status"], data["form"], data["solver_calls"]) == ("solved", "cnf", 1)
    built = cube.model(cube.generate(3, 2), "cnf")
    assert (data["variables"], data["constraints"]) == (built.variables, built.constraints)


def test_the_bench_ramp_runs_from_one_turn_to_the_generators_default():
    scrambles = [case.params["scramble"] for case in cube.bench_cases()]
    assert scrambles == sorted(scrambles) and scrambles[0] == 1 and scrambles[-1] == 30
    assert len(scrambles) >= 4


def test_the_exact_parities_answer_the_cut_loops_worst_case_at_once():
    """Every grid of this cube has the wrong centre parity (2^6 of them per grid): cuts give
    up after hundreds of solves, the XOR chains prove it in one, and the diagnosis names the
    centre (measured in docs/sudoku_cube.md)."""
    from test_sudoku_cube_solve import ones_in_the_middle

    result = protocol.solve(cube, cube.instance(ones_in_the_middle(0)), "kissat",
                            {"time_limit": 60})
    assert (result.status, result.detail) == (Status.INFEASIBLE, NOT_TURNABLE)
    assert "a centre is turned a quarter in place" in result.reason and result.cuts == 0
