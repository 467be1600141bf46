"""IQ Pyramid / Kanoodle: geometry, placements, models and counts (library level)."""

from __future__ import annotations

import json
import time

import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.backends.exact_cover import ExactCover
from ilp_pyramid.backends.solvers import names as solver_names
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.boards import (
    MAX_BOARD_CELLS,
    MAX_PYRAMID,
    Board,
    board_by_name,
    parse_text_board,
    pyramid,
    rectangle,
)
from ilp_pyramid.puzzles.iq.count import count_solutions
from ilp_pyramid.puzzles.iq.given import parse_challenge, read_challenge, read_given
from ilp_pyramid.puzzles.iq.model import build_instance
from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES, load_pieces
from ilp_pyramid.puzzles.iq.placements import all_placements, piece_placements
from ilp_pyramid.puzzles.iq.puzzle import PUZZLE
from ilp_pyramid.verify.iq import verify_filling

OPTIONS = SolveOptions(time_limit=60)
SOLVED, INFEASIBLE = Status.SOLVED, Status.INFEASIBLE


def solve_instance(instance, solver):
    """The one solve path: the filling comes back checked by verify/iq.py (or as no solution)."""
    return protocol.solve(PUZZLE, instance, solver, OPTIONS)


def filling(instance, assignment):
    board = instance.board
    return {board.cells[c]: instance.pieces[k].letter for c, k in assignment.items()}


def verdict(instance, assignment):
    board = instance.board
    given = {board.cells[c]: instance.pieces[k].letter for c, k in instance.given.items()}
    return verify_filling(board.cells, {p.letter: p.cells for p in instance.pieces},
                          filling(instance, assignment), given)


def test_piece_set_matches_the_spec():
    assert len(STANDARD_PIECES) == 12
    assert sum(p.size for p in STANDARD_PIECES) == 55
    # Distinct orientations in the plane, from the spec's table.
    expected = dict(zip("ABCDEFGHIJKL", [8, 8, 8, 8, 8, 4, 4, 4, 4, 2, 1, 1], strict=True))
    big = parse_text_board("\n".join(["." * 9] * 9))
    for k, piece in enumerate(STANDARD_PIECES):
        shapes = set()
        for placement in piece_placements(big, piece, k):
            cells = [big.cells[c] for c in placement.cells]
            mx = min(x for x, _ in cells)
            my = min(y for _, y in cells)
            shapes.add(tuple(sorted((x - mx, y - my) for x, y in cells)))
        assert len(shapes) == expected[piece.letter], piece.letter


@pytest.mark.parametrize("name, cells, symmetries",
                         [("triangle", 55, 2), ("rectangle", 55, 4), ("pyramid5", 55, 8),
                          ("pyramid4", 30, 8), ("pyramid3", 14, 8)])
def test_boards_and_symmetries(name, cells, symmetries):
    board = board_by_name(name)
    assert board.size == cells
    group = board.symmetries()
    assert len(group) == symmetries
    assert group[0] == tuple(range(board.size))
    assert all(sorted(g) == list(range(board.size)) for g in group)


def test_ball_neighbours_are_twelve_inside_the_packing():
    board = pyramid(5)
    points = {board.point(c) for c in board.cells}
    middle = board.point((1, 1, 1))
    touching = [p for p in points
                if (p[0] - middle[0]) ** 2 + (p[1] - middle[1]) ** 2
                + 2 * (p[2] - middle[2]) ** 2 == 4]
    assert len(touching) == 12


def test_pyramid_placements_lie_in_the_three_plane_families():
    board = pyramid(5)
    placements = all_placements(board, STANDARD_PIECES)
    assert len({(p.piece, p.cells) for p in placements}) == len(placements)  # deduplicated
    families = {"level": 0, "x-y": 0, "x+y": 0}
    for p in placements:
        points = [board.point(board.cells[c]) for c in p.cells]
        if len({z for _, _, z in points}) == 1:
            families["level"] += 1
        elif len({x - y for x, y, _ in points}) == 1:
            families["x-y"] += 1
        else:
            assert len({x + y for x, y, _ in points}) == 1
            families["x+y"] += 1
    assert min(families.values()) > 0
    assert families["x-y"] == families["x+y"]  # the two diagonal families mirror each other
    # The horizontal placements on the bottom level are the placements on a 5 x 5 square.
    bottom = [p for p in placements
              if all(board.cells[c][2] == 0 for c in p.cells)]
    assert len(bottom) == len(all_placements(rectangle(5, 5), STANDARD_PIECES))
    # Every placement is accepted by the independent checker.
    for p in placements[::7]:
        piece = STANDARD_PIECES[p.piece]
        cells = {board.cells[c]: piece.letter for c in p.cells}
        result = verify_filling(list(cells), {piece.letter: piece.cells}, cells)
        assert result.valid, result.problems


def test_pyramid4_has_184_solutions_in_8_symmetry_classes_of_23():
    report = count_solutions(build_instance(board_by_name("pyramid4"), STANDARD_PIECES))
    assert report.solutions == 184
    assert report.symmetries == 8
    assert report.division_exact
    assert report.distinct_up_to_symmetry * 8 == 184


def test_small_pyramids_have_no_filling():
    # pyramid3 also guards the HiGHS presolve "solve error" that must not read as a timeout.
    for n in (1, 2, 3):
        instance = build_instance(pyramid(n), STANDARD_PIECES)
        assert solve_instance(instance, "dlx").status == INFEASIBLE
        assert solve_instance(instance, "highs").status == INFEASIBLE


def test_five_given_triangle_is_completed_and_ilp_agrees_with_exact_cover(fixtures):
    board = board_by_name("triangle")
    given = read_given(str(fixtures / "iq" / "triangle_five_given.txt"), board, STANDARD_PIECES)
    assert len(set(given.values())) == 5
    instance = build_instance(board, STANDARD_PIECES, given)
    rows, primary, secondary = instance.exact_cover_rows()
    every = ExactCover(rows, primary, secondary).solve(limit=0)
    assert every.exhausted and every.solutions
    completions = {tuple(sorted(instance.assignment(s).items())) for s in every.solutions}
    for solver in ("dlx", "highs", "cbc", "sat"):
        result = solve_instance(instance, solver)
        assert result.status == SOLVED, solver
        assert verdict(instance, result.solution).valid
        assert tuple(sorted(result.solution.items())) in completions, solver
    assert count_solutions(instance).solutions == len(every.solutions)


@pytest.mark.parametrize("board_name, fixture",
                         [("triangle", "triangle_isolated.txt"),
                          ("pyramid5", "pyramid5_isolated.txt")])
def test_isolated_cell_means_no_solution_for_every_backend(fixtures, board_name, fixture):
    board = board_by_name(board_name)
    given = read_given(str(fixtures / "iq" / fixture), board, STANDARD_PIECES)
    instance = build_instance(board, STANDARD_PIECES, given)
    for solver in ("dlx", "highs", "sat"):
        assert solve_instance(instance, solver).status == INFEASIBLE, solver
    assert count_solutions(instance).solutions == 0


def test_pyramid_challenge_is_completed(fixtures):
    board = board_by_name("pyramid5")
    given = read_given(str(fixtures / "iq" / "pyramid5_given.txt"), board, STANDARD_PIECES)
    instance = build_instance(board, STANDARD_PIECES, given)
    for solver in ("dlx", "highs"):
        result = solve_instance(instance, solver)
        assert result.status == SOLVED
        assert verdict(instance, result.solution).valid
        assert all(result.solution[c] == k for c, k in given.items())


def test_whole_boards_solved_and_verified():
    for name, solvers in (("rectangle", ("dlx",)), ("pyramid5", ("dlx",)),
                          ("pyramid4", ("dlx", "sat"))):
        instance = build_instance(board_by_name(name), STANDARD_PIECES)
        for solver in solvers:
            result = solve_instance(instance, solver)
            assert result.status == SOLVED
            assert verdict(instance, result.solution).valid, (name, solver)


def test_verifier_rejects_broken_fillings():
    instance = build_instance(board_by_name("pyramid4"), STANDARD_PIECES)
    result = solve_instance(instance, "dlx")
    good = filling(instance, result.solution)
    pieces = {p.letter: p.cells for p in STANDARD_PIECES}
    assert verify_filling(instance.board.cells, pieces, good).valid
    cells = sorted(good)
    swapped = dict(good)
    a, b = next((x, y) for x in cells for y in cells if good[x] != good[y])
    swapped[a], swapped[b] = good[b], good[a]
    assert not verify_filling(instance.board.cells, pieces, swapped).valid
    missing = dict(good)
    del missing[cells[0]]
    assert not verify_filling(instance.board.cells, pieces, missing).valid


def test_custom_board_and_piece_set(tmp_path):
    pieces_file = tmp_path / "pieces.json"
    pieces_file.write_text(json.dumps({"pieces": [
        {"letter": "a", "cells": [[0, 0], [0, 1], [1, 1]], "colour": "#ff0000"},
        {"letter": "b", "cells": [[0, 0], [0, 1], [1, 1]]},
    ]}))
    pieces = load_pieces(str(pieces_file))
    assert [p.letter for p in pieces] == ["A", "B"]
    board = parse_text_board("#...\n#...\n")
    instance = build_instance(board, pieces)
    report = count_solutions(instance)
    # A 2 x 3 box has two tilings by L-trominoes, each with two ways to name the pieces.
    assert report.solutions == 4
    assert report.symmetries == 4
    assert report.distinct_up_to_symmetry == 1
    assert solve_instance(instance, "highs").status == SOLVED


@pytest.mark.slow
def test_triangle_has_32288_solutions_16144_up_to_mirror():
    report = count_solutions(build_instance(board_by_name("triangle"), STANDARD_PIECES), jobs=2)
    assert report.solutions == 32288
    assert report.distinct_up_to_symmetry == 16144
    assert report.division_exact


@pytest.mark.slow
def test_pyramid5_count_is_a_multiple_of_8_with_no_symmetric_solution():
    # 2448 is what a plain C Dancing Links counts from the same rows (see docs/iq.md).
    report = count_solutions(build_instance(board_by_name("pyramid5"), STANDARD_PIECES), jobs=2)
    assert report.solutions == 2448
    assert report.division_exact and report.distinct_up_to_symmetry == 306


def test_given_as_piece_and_cells_json_matches_the_grid(fixtures):
    from ilp_pyramid.puzzles.iq.given import parse_given

    for board_name, fixture in (("triangle", "triangle_five_given.txt"),
                                ("pyramid5", "pyramid5_given.txt")):
        board = board_by_name(board_name)
        grid = read_given(str(fixtures / "iq" / fixture), board, STANDARD_PIECES)
        as_json: dict[str, list[list[int]]] = {}
        for cell, k in grid.items():
            as_json.setdefault(STANDARD_PIECES[k].letter, []).append(list(board.cells[cell]))
        assert parse_given(json.dumps(as_json), board, STANDARD_PIECES) == grid


@pytest.mark.slow
def test_rectangle_count_matches_the_c_baseline():
    # 371020 is what a plain C Dancing Links counts from the same rows (see docs/iq.md).
    report = count_solutions(build_instance(board_by_name("rectangle"), STANDARD_PIECES), jobs=2)
    assert report.solutions == 371020
    assert report.division_exact and report.distinct_up_to_symmetry * 4 == 371020


def test_the_shorthands_auto_and_sat_name_the_table_s_solvers():
    assert protocol.solver_for(PUZZLE, "auto").name == "dlx"
    assert protocol.solver_for(PUZZLE, " SAT ").family == "sat"
    instance = build_instance(board_by_name("pyramid4"), STANDARD_PIECES)
    # Through the Python API the result names the solver that ran; given the name the user
    # typed (as the CLI passes it), the result says it and "engine" the solver that ran.
    assert solve_instance(instance, "auto").solver == "dlx"
    asked = protocol.solve(PUZZLE, instance, "sat", OPTIONS, after={"solver": "sat"})
    assert asked.solved and asked.solver == "sat"
    assert asked.to_json()["engine"] == "kissat"
    with pytest.raises(InputError, match="unknown solver"):
        protocol.solver_for(PUZZLE, "xpress")


def test_solve_json_keeps_iq_s_keys_after_the_common_ones(fixtures):
    board = board_by_name("triangle")
    for fixture, status in (("triangle_five_given.txt", SOLVED),
                            ("triangle_isolated.txt", INFEASIBLE)):
        challenge = read_challenge(str(fixtures / "iq" / fixture), board, STANDARD_PIECES)
        instance = build_instance(board, STANDARD_PIECES, challenge.given, challenge.pins)
        data = protocol.solve(PUZZLE, instance, "dlx", OPTIONS, after={"solver": "auto"}).to_json()
        assert list(data)[:5] == ["puzzle", "status", "solver", "form", "seconds"]
        assert {"solved", "board", "engine", "grid"} <= set(data)
        assert (data["status"], data["solver"], data["engine"]) == (status, "auto", "dlx")
        assert data["solved"] is (status is SOLVED)
        assert (data["grid"] is None) is (status is not SOLVED)


@pytest.mark.parametrize("solver", ["dlx", "highs", "cbc", "kissat",
                                    *solver_names("cp", installed=True)])
def test_a_board_with_every_cell_given_is_solved_without_a_solver_and_checked(solver):
    board = board_by_name("pyramid4")
    whole = solve_instance(build_instance(board, STANDARD_PIECES), "dlx").solution
    given = build_instance(board, STANDARD_PIECES, whole)
    assert not given.free_cells
    result = solve_instance(given, solver)
    assert result.status is SOLVED and result.solution == whole
    assert result.backend.rows == [] and result.solve_seconds == 0.0
    assert "no solver ran" in result.detail
    # The filling still goes through the independent checker: a wrong one is no solution.
    broken = build_instance(board, STANDARD_PIECES, whole)
    model = PUZZLE.model(broken, "exact_cover")
    model.decode = lambda answer: {**whole, 0: (whole[0] + 1) % len(STANDARD_PIECES)}
    assert protocol.solve(PUZZLE, broken, solver, OPTIONS, model=model).status is Status.ERROR


def test_a_board_past_the_cap_is_refused_before_any_placement_is_laid():
    assert pyramid(MAX_PYRAMID).size <= MAX_BOARD_CELLS  # every named board fits
    square = parse_text_board("\n".join(["." * 40] * (MAX_BOARD_CELLS // 40)))
    assert square.size == MAX_BOARD_CELLS
    row = "." * 100_000  # a 100 KB one-row board: minutes of placements without the cap
    started = time.perf_counter()
    with pytest.raises(InputError, match=f"more than the {MAX_BOARD_CELLS:,}"):
        parse_text_board(row)
    with pytest.raises(InputError, match="more than"):
        Board("drawn", 2, tuple((x, 0) for x in range(MAX_BOARD_CELLS + 1)))
    with pytest.raises(InputError, match="the given grid draws 100,010 cells"):
        parse_challenge(".\n" * 10 + row, board_by_name("triangle"), STANDARD_PIECES)
    assert time.perf_counter() - started < 5  # counted, not laid out: milliseconds


def test_nothing_under_puzzles_iq_imports_the_command_line():
    # ast, so imports inside functions count too.
    import ast
    from pathlib import Path

    import ilp_pyramid.puzzles.iq as package

    cli = ("typer", "rich", "click", "ilp_pyramid.cli")
    found = []
    for path in Path(package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.name}: {n}" for n in names
                      if any(n == c or n.startswith(c + ".") for c in cli)]
    assert found == []
