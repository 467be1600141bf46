"""Seeded IQ challenges (`iq.generate_given`, `iq solve --generate-given K`): the same seed
gives the same challenge, every one is solvable and its answer passes the independent
checker, bad requests are one-line errors, and the bench's ramp is made of them."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.boards import board_by_name
from ilp_pyramid.puzzles.iq.generate import random_filling
from ilp_pyramid.puzzles.iq.model import build_instance
from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES
from ilp_pyramid.puzzles.iq.puzzle import BENCH_BOARDS, BENCH_GIVEN
from ilp_pyramid.puzzles.iq.puzzle import PUZZLE as iq


def given_pieces(instance):
    return {instance.pieces[k].letter: sorted(c for c, j in instance.given.items() if j == k)
            for k in set(instance.given.values())}


def test_the_same_seed_gives_the_same_challenge_and_another_seed_another():
    first = iq.generate_given("triangle", 5, seed=7)
    again = iq.generate_given("triangle", 5, seed=7)
    assert first.given == again.given and len(given_pieces(first)) == 5
    assert [p.cells for p in first.placements] == [p.cells for p in again.placements]
    others = {tuple(sorted(iq.generate_given("triangle", 5, seed=s).given.items()))
              for s in range(3)}
    assert len(others) > 1


def test_the_challenges_of_one_seed_nest_and_keep_a_filling():
    fewer, more = (iq.generate_given("rectangle", k, seed=3) for k in (3, 7))
    assert fewer.given.items() <= more.given.items()
    assert iq.generate_given("rectangle", 0, seed=3).given == {}
    assert not iq.generate_given("rectangle", 12, seed=3).free_cells  # nothing left to place


@pytest.mark.parametrize("board", ["triangle", "rectangle", "pyramid4", "pyramid5"])
def test_the_random_filling_passes_the_independent_checker(board):
    empty = build_instance(board_by_name(board), STANDARD_PIECES)
    rows = random_filling(empty, random.Random(f"test {board}"))
    assert rows is not None
    assert iq.verify(empty, empty.assignment(rows)) == []


@pytest.mark.parametrize("board, k, seed, solver", [
    ("triangle", 6, 0, "kissat"), ("rectangle", 8, 1, "highs"), ("pyramid5", 8, 2, "kissat"),
    ("pyramid4", 3, 0, "kissat"), ("triangle", 4, 5, "dlx")])
def test_a_generated_challenge_is_solved_and_verified(board, k, seed, solver):
    challenge = iq.generate_given(board, k, seed)
    result = protocol.solve(iq, challenge, solver)
    assert result.status is Status.SOLVED
    assert iq.verify(challenge, result.solution) == []
    assert challenge.given.items() <= result.solution.items()


def test_a_board_without_a_filling_or_too_many_pieces_is_refused():
    with pytest.raises(InputError, match="no filling"):
        iq.generate_given("pyramid3", 1)
    with pytest.raises(InputError, match="between 0 and 12"):
        iq.generate_given("triangle", 13)
    # pyramid4's 30 balls take some of the 12 pieces (55 balls) only
    with pytest.raises(InputError, match="can be given"):
        iq.generate_given("pyramid4", 12, seed=1)


def one_line_error(result):
    assert result.code == 2, (result.out, result.err)
    assert result.err.startswith("error:") and len(result.err.strip().splitlines()) == 1
    return result.err


def test_conflicting_requests_are_one_line_errors(cli, fixtures):
    given = str(fixtures / "iq" / "triangle_five_given.txt")
    err = one_line_error(cli("iq", "solve", "triangle", "--given", given,
                             "--generate-given", "3"))
    assert "not both" in err
    assert "between 0 and 12" in one_line_error(
        cli("iq", "solve", "triangle", "--generate-given", "13"))
    assert "no filling" in one_line_error(cli("iq", "solve", "pyramid3", "--generate-given", "2"))


def test_the_cli_solves_the_seeded_challenge_in_a_real_process(tmp_path):
    args = ["iq", "solve", "triangle", "--generate-given", "6", "--seed", "2", "-s", "kissat",
            "--json"]
    run = subprocess.run([sys.executable, "-m", "ilp_pyramid", *args], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["status"] == "solved" and data["board"] == "triangle"
    challenge = iq.generate_given("triangle", 6, seed=2)
    board = challenge.board
    for cell, letter in challenge.letters(challenge.given).items():
        x, y = board.cells[cell]
        assert data["grid"][y][x] == letter  # the seed's givens, where it put them


def test_the_bench_ramp_is_pieces_given_on_each_board():
    cases = iq.bench_cases()
    assert [c.params["k"] for c in cases] == [k for k in BENCH_GIVEN for _ in BENCH_BOARDS]
    assert {c.params["board"] for c in cases} == set(BENCH_BOARDS)
    four = iq.bench_cases([4])
    assert [c.args for c in four] == [("iq", "solve", b, "--generate-given", "4")
                                      for b in BENCH_BOARDS]
    assert all(c.params == {"k": 4, "board": c.args[2], "instance": "generated"} for c in four)
    with pytest.raises(InputError):
        iq.bench_cases([13])


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["highs", "cbc", "kissat", "cadical", "dlx"])
def test_the_ramp_is_solved_and_verified_by_every_kind_of_solver(solver):
    for board in BENCH_BOARDS:
        for k in (8, 4):
            for seed in range(3):
                challenge = iq.generate_given(board, k, seed)
                result = protocol.solve(iq, challenge, solver)
                assert result.status is Status.SOLVED, (board, k, seed)
                assert iq.verify(challenge, result.solution) == []


def test_show_draws_the_seeded_challenge(cli):
    result = cli("iq", "show", "rectangle", "--generate-given", "3", "--seed", "4", "--json")
    assert result.code == 0, result.err
    grid = json.loads(result.out)["grid"]
    challenge = iq.generate_given("rectangle", 3, seed=4)
    drawn = {(x, y): ch for y, row in enumerate(grid) for x, ch in enumerate(row) if ch != "."}
    letters = challenge.letters(challenge.given)
    assert drawn == {challenge.board.cells[c]: letter for c, letter in letters.items()}
