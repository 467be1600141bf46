"""Every registered puzzle keeps the protocol: one `protocol.solve` for every solver family it
has a form for, the independent checker on what comes back, JSON that reads back, a text
picture, and an import that loads no solver."""

from __future__ import annotations

import copy
import doctest
import importlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import InputError

# Not `from ilp_pyramid import puzzles`: the package's own `puzzles()` function has that name.
registry = importlib.import_module("ilp_pyramid.puzzles")
FIXTURES = Path(__file__).parent / "fixtures"
NAMES = registry.names()
SAT_SOLVER = "kissat"


def small(name: str) -> Any:
    """An instance every solver of the suite answers in about a second."""
    puzzle = registry.get(name)
    if name == "bel":
        return puzzle.instance(2)
    if name == "iq":  # the triangle with five pieces given: seven left to place
        return puzzle.parse("triangle\n" + (FIXTURES / "iq/triangle_five_given.txt").read_text())
    if name == "sudoku-cube":
        return puzzle.generate(12, seed=3)
    return puzzle.default()


def solved(name: str, solver: str = "highs") -> tuple[Any, Any, Any]:
    puzzle = registry.get(name)
    instance = small(name)
    result = protocol.solve(puzzle, instance, solver)
    assert result.status is Status.SOLVED, result
    # every puzzle's --json names the options that shaped its model, as plain values
    options = result.to_json()["model_options"]
    assert options == result.model.options and json.loads(json.dumps(options)) == options
    assert all(isinstance(v, str | int | float | bool) for v in options.values())
    return puzzle, instance, result.solution


# --- what each puzzle's solution looks like broken; never through the code that built it ---

def _bel(solution):
    broken = copy.deepcopy(solution)
    labels = 2 * broken.n - 1
    # The corner column (0, 0) holds one cell: its cube changes, so the cube it shows now is
    # shown twice and the one it showed is missing.
    broken.Z[0][0] = (broken.Z[0][0] + 1) % labels
    return broken


def _views(placement):
    broken = placement.copy()
    z, y, x = np.argwhere(broken)[0]
    broken[z, y, x] = False  # an optimum has no cube to spare
    return broken


def _iq(filling):
    broken = dict(filling)
    first = next(iter(broken))
    other = next(k for k in broken.values() if k != broken[first])
    broken[first] = other  # one piece a cell short, another a cell too many
    return broken


def _sudoku(solution):
    from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

    broken = copy.copy(solution)
    stickers = list(solution.target.stickers)
    digit, direction = stickers[0]
    stickers[0] = (digit % 9 + 1, direction)
    broken.target = CubeState(tuple(stickers))
    return broken


def _insanity(tower):
    first = list(tower.placements[0])
    first[2], first[3] = first[3], first[2]  # left and right swapped: a mirror image
    return type(tower)((tuple(first), *tower.placements[1:]))


CORRUPT: dict[str, Callable[[Any], Any]] = {"bel": _bel, "views": _views, "iq": _iq,
                                             "sudoku-cube": _sudoku, "insanity": _insanity}


@pytest.mark.parametrize("name", NAMES)
def test_a_registered_puzzle_is_a_protocol_puzzle_under_its_own_name(name):
    puzzle = registry.get(name)
    assert isinstance(puzzle, protocol.Puzzle)
    assert puzzle.name == name
    assert puzzle.title and puzzle.forms
    assert set(puzzle.forms) <= set(protocol.FORMS)


def test_the_registry_holds_the_four_puzzles():
    assert {"bel", "views", "iq", "sudoku-cube"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_highs_solves_a_small_instance_and_the_checker_accepts_it(name):
    puzzle, instance, solution = solved(name, "highs")
    assert puzzle.verify(instance, solution) == []


def _sat_takes(name: str) -> bool:
    from ilp_pyramid import backends

    return bool(set(backends.forms_for(SAT_SOLVER)) & set(registry.get(name).forms))


@pytest.mark.parametrize("name", [n for n in NAMES if _sat_takes(n)])
def test_a_sat_solver_solves_a_small_instance_and_the_checker_accepts_it(name):
    puzzle = registry.get(name)
    instance = small(name)
    result = protocol.solve(puzzle, instance, SAT_SOLVER)
    assert result.status == Status.SOLVED
    assert result.form == protocol.pick_form(puzzle, SAT_SOLVER)
    assert puzzle.verify(instance, result.solution) == []


def test_a_sat_solver_takes_bel_and_the_cube_by_cnf_views_by_wcnf_and_iq_by_exact_cover():
    assert [n for n in ("bel", "views", "iq", "sudoku-cube") if _sat_takes(n)] == \
        ["bel", "views", "iq", "sudoku-cube"]
    assert protocol.pick_form(registry.get("bel"), SAT_SOLVER) == "cnf"
    assert protocol.pick_form(registry.get("views"), SAT_SOLVER) == "wcnf"
    assert protocol.pick_form(registry.get("sudoku-cube"), SAT_SOLVER) == "cnf"
    assert protocol.pick_form(registry.get("iq"), SAT_SOLVER) == "exact_cover"


@pytest.mark.parametrize("name", NAMES)
def test_every_puzzle_has_a_corruption_for_this_file(name):
    assert name in CORRUPT, f"add to CORRUPT how a solution of {name} looks broken"


@pytest.mark.parametrize("name", list(CORRUPT))
def test_the_checker_rejects_a_corrupted_solution(name):
    puzzle, instance, solution = solved(name)
    problems = puzzle.verify(instance, CORRUPT[name](solution))
    assert problems and all(isinstance(p, str) and p for p in problems)
    assert puzzle.verify(instance, solution) == []  # the corruption copied, not changed it


@pytest.mark.parametrize("name", NAMES)
def test_to_json_reads_back_to_the_same_instance_and_solution(name):
    puzzle, instance, solution = solved(name)
    data = puzzle.to_json(instance, solution)
    text = json.dumps(data)  # JSON, not just a dict
    again, back = puzzle.from_json(json.loads(text))
    assert puzzle.to_json(again, back) == data
    assert puzzle.verify(again, back) == []


@pytest.mark.parametrize("name", NAMES)
def test_from_json_refuses_what_is_not_a_solution(name):
    puzzle = registry.get(name)
    for bad in ({}, {"solution": None}, {"grid": 3, "board": 4}):
        with pytest.raises(InputError):
            puzzle.from_json(bad)


def test_a_json_solution_whose_pieces_do_not_make_its_faces_fails_the_check():
    puzzle, instance, solution = solved("sudoku-cube")
    data = puzzle.to_json(instance, solution)
    data["faces"]["U"][0], data["faces"]["U"][1] = data["faces"]["U"][1], data["faces"]["U"][0]
    again, back = puzzle.from_json(data)
    assert puzzle.verify(again, back)


@pytest.mark.parametrize("name", NAMES)
def test_the_text_picture_shows_the_solution(name):
    puzzle, instance, solution = solved(name)
    text = puzzle.render(instance, solution, "text")
    assert isinstance(text, str) and text.strip()
    with pytest.raises(InputError):
        puzzle.render(instance, solution, "gif")


@pytest.mark.parametrize("name", ["bel", "views", "iq", "sudoku-cube"])
def test_the_pictures_are_png_and_svg_and_a_result_shows_one_in_a_notebook(name):
    puzzle = registry.get(name)
    instance = small(name)
    result = protocol.solve(puzzle, instance, "highs")
    png = puzzle.render(instance, result.solution, "png")
    svg = puzzle.render(instance, result.solution, "svg")
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG")
    assert isinstance(svg, str) and "<svg" in svg
    assert "<svg" in result._repr_html_()


@pytest.mark.parametrize("name", NAMES)
def test_importing_a_puzzle_object_loads_no_solver_or_plotting(name):
    module = registry.REGISTRY[name].split(":")[0]
    code = (f"import json, sys, {module}\n"
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = {name.split(".")[0] for name in json.loads(done.stdout)}
    heavy = {"pulp", "numba", "pysat", "highspy", "numpy", "matplotlib", "typer", "rich",
             "networkx", "ortools"}
    assert not loaded & heavy, sorted(loaded & heavy)


@pytest.mark.parametrize("name", ["bel", "views", "iq", "sudoku-cube", "insanity"])
def test_the_examples_in_a_puzzle_objects_docstring_hold(name):
    module = importlib.import_module(registry.REGISTRY[name].split(":")[0])
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0


@pytest.mark.parametrize("name", NAMES)
def test_the_bench_cases_are_command_lines_with_their_columns(name):
    cases = protocol.bench_cases(registry.get(name))
    assert cases
    for case in cases:
        assert case.args and all(isinstance(arg, str) for arg in case.args)
        assert case.params


# --- Bel's Pyramid ------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow)])
@pytest.mark.parametrize("solver, form", [("highs", "mip"), ("kissat", "cnf")])
def test_bel_through_the_protocol(n, solver, form):
    bel = registry.get("bel")
    result = protocol.solve(bel, bel.instance(n), solver)
    assert (result.status, result.form) == (Status.SOLVED, form)
    assert result.solution.n == n
    assert bel.verify(n, result.solution) == []


def test_bel_reads_n_and_a_solve_json_object():
    bel = registry.get("bel")
    assert bel.parse(" 4\n") == 4
    for bad in ("0", "13", "four", ""):
        with pytest.raises(InputError):
            bel.parse(bad)
    _, _, solution = solved("bel")
    n, back = bel.from_json({"n": 2, "status": "solved", "solution": solution.to_dict()})
    assert n == 2 and back.to_dict() == solution.to_dict()
    assert bel.verify(3, solution)  # a labelling for another N


def test_bel_bench_cases_are_solve_n():
    cases = registry.get("bel").bench_cases([2, 3])
    assert [(c.args, c.params) for c in cases] == [(("solve", "2"), {"n": 2}),
                                                  (("solve", "3"), {"n": 3})]


def test_bel_model_takes_a_formulation():
    bel = registry.get("bel")
    model = bel.model(2, "mip", formulation="rotations")
    assert model.kind == "mip" and model.form.name == "bel_n2_rotations"
    result = protocol.solve(bel, 2, "highs", model=model)
    assert result.status is Status.SOLVED and bel.verify(2, result.solution) == []


def test_bel_model_carries_its_strategies_and_the_hypotheses_they_rest_on():
    bel = registry.get("bel")
    # XStep + YStep leave the N=3 pyramid without a labelling (the spec): a proof about
    # that shape only, which the result says.
    result = protocol.solve(bel, 3, SAT_SOLVER, strategies=["XStep", "YStep"])
    assert result.status is Status.INFEASIBLE
    assert result.hypotheses == ("XStep", "YStep")
    assert "XStep" in result.detail and "YStep" in result.detail
    data = result.to_json()
    assert data["strategies"] == ["XStep", "YStep"]
    assert data["hypotheses"] == ["XStep", "YStep"] and data["solution"] is None
    assert data["model_options"]["strategy"] == "XStep+YStep"
    # A symmetry breaker loses no solution: nothing is assumed, a solution is found.
    plain = bel.model(3, "mip", strategies=["LabelPermutationImportance"])
    assert plain.hypotheses == () and plain.keys == {
        "formulation": "counts", "strategies": ["LabelPermutationImportance"]}
    # a MIP has no cardinality encoding; no strategy at all is "none"
    assert plain.options == {"formulation": "counts", "strategy": "LabelPermutationImportance"}
    assert bel.model(2, "mip").options == {"formulation": "counts", "strategy": "none"}
    assert plain.variables == plain.form.numVariables() > 0
    assert plain.constraints == plain.form.numConstraints() > 0
    with pytest.raises(InputError, match="unknown strategy"):
        bel.model(2, "cnf", strategies=["NoSuchStrategy"])


def test_bel_json_keeps_the_keys_of_solve_n_beside_the_common_ones():
    bel = registry.get("bel")
    result = protocol.solve(bel, 2, SAT_SOLVER, formulation="support", card="totalizer")
    data = result.to_json()
    assert list(data)[:5] == ["puzzle", "status", "solver", "form", "seconds"]
    assert (data["puzzle"], data["status"], data["form"]) == ("bel", "solved", "cnf")
    assert {"n", "formulation", "strategies", "build_seconds", "solve_seconds", "variables",
            "constraints", "solution", "message"} <= set(data)
    assert (data["n"], data["formulation"], data["strategies"]) == (2, "support", [])
    # the options that shaped the model, defaults resolved: a reader sees which model ran
    assert data["model_options"] == {"formulation": "support", "strategy": "none",
                                     "card": "totalizer"}
    assert (data["variables"], data["constraints"]) == (result.variables, result.constraints)
    assert "hypotheses" not in data  # only where an infeasible answer would rest on some
    assert bel.from_json(data)[1].to_dict() == result.solution.to_dict()


# --- views --------------------------------------------------------------------------------

def test_views_that_no_placement_shows_are_infeasible_with_the_reason():
    views = registry.get("views")
    result = protocol.solve(views, views.instance("670b14728ad9"), "highs")
    assert result.status is Status.INFEASIBLE
    assert result.solution is None and "unsolvable views" in result.detail


def test_views_instances_from_a_spec_a_seed_or_rows_agree():
    views = registry.get("views")
    assert views.instance(number=157) == views.instance("fe88e8f9b499") == views.default()
    rows = views.instance(top="xx,x.", front="xx,.x", side="x.,xx")
    assert rows.n == 2
    with pytest.raises(InputError):
        views.instance("fe88e8f9b499", number=157)
    assert views.optimizes is True


# --- IQ -----------------------------------------------------------------------------------

def test_iq_solves_a_challenge_given_as_a_dict_with_every_kind_of_solver():
    iq = registry.get("iq")
    challenge = iq.instance("triangle", {"B": [[0, 0], [0, 1], [1, 1], [0, 2], [1, 2]]})
    # One exact-cover form; the backend lowers it for HiGHS (0-1 program) and Kissat (CNF).
    for solver in ("dlx", "highs", "kissat"):
        result = protocol.solve(iq, challenge, solver)
        assert (result.status, result.form) == (Status.SOLVED, "exact_cover")
        assert iq.verify(challenge, result.solution) == []
        assert all(result.solution[c] == k for c, k in challenge.given.items())


def test_iq_input_is_a_board_name_and_its_challenge_or_a_drawn_board():
    iq = registry.get("iq")
    assert iq.default().board.name == "pyramid5"
    challenge = iq.parse("pyramid5\n" + (FIXTURES / "iq/pyramid5_given.txt").read_text())
    assert challenge.board.name == "pyramid5" and challenge.given
    drawn = iq.parse("...\n..#\n")
    assert drawn.board.size == 5 and not drawn.given
    with pytest.raises(InputError):
        iq.parse("triangle\nZZZ\n")


def test_bel_counts_its_labelled_pyramids_through_the_api():
    """`ilp_pyramid.puzzle("bel").count(N)`: the default pair's labelled count (counts.md), a
    time limit that stops it is TimeoutError, a size past the counts' range InputError."""
    pytest.importorskip("py_d4", reason="the count extra is not installed")
    bel = registry.get("bel")
    assert bel.count(bel.instance(2)) == 2112
    with pytest.raises(TimeoutError):
        bel.count(bel.instance(3), {"time_limit": 0.5})
    with pytest.raises(InputError):
        bel.count(bel.instance(6))


def test_iq_counts_the_fillings_of_a_small_board():
    iq = registry.get("iq")
    board = iq.instance("pyramid4")
    assert iq.count(board) == 184  # docs/iq.md
    # One piece of a filling given where it lies: that filling is still counted, and the
    # symmetric images that move the piece are not.
    filling = protocol.solve(iq, board, "dlx").solution
    piece = filling[0]
    cells = [list(board.board.cells[c]) for c, k in filling.items() if k == piece]
    challenge = iq.instance("pyramid4", {board.pieces[piece].letter: cells})
    assert 1 <= iq.count(challenge) < 184


# --- Sudoku Cube --------------------------------------------------------------------------

def test_sudoku_cube_digits_that_cannot_make_six_faces_are_infeasible():
    from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

    cube = registry.get("sudoku-cube")
    stickers = list(small("sudoku-cube").state.stickers)
    digit, direction = stickers[0]
    stickers[0] = (digit % 9 + 1, direction)  # that digit 7 times, the one it was 5 times
    result = protocol.solve(cube, cube.instance(CubeState(tuple(stickers))), "highs")
    assert result.status is Status.INFEASIBLE and "no_grid" in result.detail
    assert result.to_json()["model_options"] == {}  # refused before any model was built


def test_sudoku_cube_a_reassembled_cube_is_infeasible():
    from ilp_pyramid.puzzles.sudoku_cube.generate import generate

    cube = registry.get("sudoku-cube")
    broken = cube.instance(generate(3, 12).broken("swap").state)
    assert protocol.solve(cube, broken, "highs").status is Status.INFEASIBLE


def test_sudoku_cube_has_no_default_but_generates():
    cube = registry.get("sudoku-cube")
    with pytest.raises(InputError):
        cube.default()
    assert cube.generate(5, seed=1) == cube.generate(5, seed=1) != cube.generate(5, seed=2)


def test_iq_a_board_of_ones_own_travels_in_its_json():
    iq = registry.get("iq")
    drawn = iq.parse("...\n..#\n")  # five cells: the P pentomino, piece B
    result = protocol.solve(iq, drawn, "dlx")
    assert result.status is Status.SOLVED
    data = json.loads(json.dumps(iq.to_json(drawn, result.solution)))
    assert data["cells"] and data["grid"] == ["BBB", "BB"]
    again, back = iq.from_json(data)
    assert again.board == drawn.board and iq.verify(again, back) == []


# --- the protocol's own paths -------------------------------------------------------------

def test_an_answer_that_does_not_decode_is_an_error_result_not_bad_input():
    bel = registry.get("bel")
    model = bel.model(2, "cnf")

    def refuse(answer):
        raise InputError("line Z_0_0 has no label in the model")

    result = protocol.solve(bel, 2, SAT_SOLVER, model=protocol.Model("cnf", model.form, refuse))
    assert result.status is Status.ERROR and result.solution is None
    assert "does not decode" in result.detail
