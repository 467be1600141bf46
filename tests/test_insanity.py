"""Instant Insanity: the geometry, the generator, the three forms against a brute force, the
independent checker."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles import REGISTRY, get
from ilp_pyramid.puzzles.insanity import geometry, verify
from ilp_pyramid.puzzles.insanity.generate import generate
from ilp_pyramid.puzzles.insanity.instance import Tower, classic, parse
from ilp_pyramid.puzzles.insanity.puzzle import PUZZLE

FIXTURES = Path(__file__).parent / "fixtures" / "insanity"
SAT = "kissat" if "kissat" in solvers.names(installed=True) else "cadical"


def mirror_free_turns() -> list[tuple[int, ...]]:
    """The cube's rotations found without geometry.py: every face permutation that keeps
    opposite faces opposite (48) filtered by the checker's own handedness test."""
    return [p for p in itertools.permutations(range(6)) if verify.is_rotation(p)]


def brute_force(instance) -> int:
    """Towers (cubes in the given order) by trying every orientation of every cube, with the
    rotations of `mirror_free_turns` and the colour rule written out here (a partial tower
    with a colour twice on a side is cut off)."""
    turns = mirror_free_turns()
    sides = (0, 3, 1, 2)  # front, right, back, left
    if len(instance.colours) != instance.n:
        return 0

    def extend(k: int, shown: list[set]) -> int:
        if k == instance.n:
            return 1
        found = 0
        for p in turns:
            colours = [instance.cubes[k][p[s]] for s in sides]
            if any(c in seen for c, seen in zip(colours, shown, strict=True)):
                continue
            found += extend(k + 1, [seen | {c} for c, seen in zip(colours, shown, strict=True)])
        return found

    return extend(0, [set() for _ in sides])


def test_the_24_orientations_are_distinct_rotations_closed_under_composition():
    rotations = geometry.orientations()
    assert len(rotations) == 24 == len(set(rotations))
    assert rotations[0] == geometry.IDENTITY
    for a in rotations:
        for b in rotations:
            assert geometry.compose(a, b) in rotations
    # The same 24 as the checker's independent test picks out of all 720 permutations.
    assert sorted(rotations) == sorted(mirror_free_turns())
    assert len(mirror_free_turns()) == 24


def test_a_mirror_image_is_not_a_rotation():
    swap_left_right = (0, 1, 3, 2, 4, 5)
    assert not verify.is_rotation(swap_left_right)
    assert swap_left_right not in geometry.orientations()


def test_symmetry_representatives_are_one_per_vertical_axis():
    chosen = [geometry.orientations()[k] for k in geometry.symmetry_representatives()]
    assert len(chosen) == 3
    axes = {frozenset((o[geometry.TOP], o[geometry.BOTTOM])) for o in chosen}
    assert axes == {frozenset((0, 1)), frozenset((2, 3)), frozenset((4, 5))}


def test_the_puzzle_is_registered_and_keeps_the_protocol():
    assert REGISTRY["insanity"].endswith(":PUZZLE")
    assert get("insanity") is PUZZLE
    assert isinstance(PUZZLE, protocol.Puzzle)
    assert PUZZLE.name == "insanity"


def test_the_classic_set_parses_from_its_file_and_is_the_default():
    text = (FIXTURES / "classic.txt").read_text()
    assert parse(text) == classic() == PUZZLE.default()
    assert parse(classic().text()) == classic()
    assert sorted(classic().colours) == ["B", "G", "R", "Y"]


def test_the_classic_set_has_one_tower_up_to_the_towers_symmetries():
    # 8 = the tower turned about its axis (4) and upside down (2), cubes in a fixed order.
    assert brute_force(classic()) == 8


@pytest.mark.parametrize("solver", ["highs", "cbc", SAT])
def test_the_classic_set_solves_and_the_tower_verifies(solver):
    result = protocol.solve(PUZZLE, classic(), solver)
    assert result.status is Status.SOLVED, result.detail
    assert result.form == ("mip" if solver in ("highs", "cbc") else "cnf")
    assert PUZZLE.verify(classic(), result.solution) == []
    sides = PUZZLE.to_json(classic(), result.solution)["sides"]
    assert all(sorted(colours) == ["B", "G", "R", "Y"] for colours in sides.values())


def test_the_exact_cover_form_solves_the_classic_set_with_dancing_links():
    result = protocol.solve(PUZZLE, classic(), "dlx")
    assert result.status is Status.SOLVED and result.form == "exact_cover"
    assert PUZZLE.verify(classic(), result.solution) == []


@pytest.mark.parametrize("n", range(4, 9))
def test_planted_instances_are_solved_for_n_4_to_8(n):
    instance = generate(n, seed=n, planted=True)
    for solver in ("highs", SAT):
        result = protocol.solve(PUZZLE, instance, solver)
        assert result.status is Status.SOLVED, (solver, result.detail)
        assert PUZZLE.verify(instance, result.solution) == []


@pytest.mark.parametrize("seed", range(6))
def test_every_form_agrees_with_the_brute_force_on_random_four_cube_instances(seed):
    instance = generate(4, seed=seed)
    exists = brute_force(instance) > 0
    for solver in ("highs", SAT, "dlx"):
        result = protocol.solve(PUZZLE, instance, solver)
        assert result.status is (Status.SOLVED if exists else Status.INFEASIBLE), solver


def test_the_random_family_holds_both_answers_at_four_cubes():
    # Otherwise the test above would check one answer only.
    assert {brute_force(generate(4, seed=s)) > 0 for s in range(6)} == {True, False}


def test_a_colour_on_three_faces_is_infeasible_for_mip_and_sat():
    instance = parse((FIXTURES / "colour-missing.txt").read_text())
    assert brute_force(instance) == 0
    for solver in ("highs", SAT):
        assert protocol.solve(PUZZLE, instance, solver).status is Status.INFEASIBLE


def test_the_checker_rejects_broken_towers():
    result = protocol.solve(PUZZLE, classic(), "highs")
    good = [list(p) for p in result.solution.placements]
    cubes = [list(c) for c in classic().cubes]
    assert verify.problems(cubes, good) == []
    mirrored = [p[:] for p in good]
    mirrored[0][2], mirrored[0][3] = mirrored[0][3], mirrored[0][2]
    assert any("not a rotation" in r for r in verify.problems(cubes, mirrored))
    turned = [p[:] for p in good]
    turned[1] = list(geometry.compose(tuple(turned[1]), geometry.orientations()[1]))
    reasons = verify.problems(cubes, turned)
    assert reasons and all("shows" in r for r in reasons)
    assert verify.problems(cubes, good[:3]) == ["3 placements for 4 cubes"]
    assert PUZZLE.verify(classic(), Tower(tuple(map(tuple, turned)))) == reasons


def test_a_decoded_answer_with_a_cube_left_out_fails_the_check():
    from ilp_pyramid.puzzles.insanity.choices import choices, tower_of

    table = choices(classic())
    tower = tower_of(classic(), [c for c in table if c.cube != 2][:3])
    assert PUZZLE.verify(classic(), tower)


def test_the_generator_is_reproducible_and_seeded():
    for planted in (False, True):
        assert generate(7, seed=3, planted=planted) == generate(7, seed=3, planted=planted)
        assert generate(7, seed=3, planted=planted) != generate(7, seed=4, planted=planted)
    first = generate(6, seed=0).cubes[0]
    assert first == generate(6, seed=0).cubes[0]  # fixed by (n, seed), not by the run
    assert len(generate(30, seed=1).colours) == 30


def test_random_instances_carry_each_colour_six_times():
    instance = generate(9, seed=2)
    faces = [c for cube in instance.cubes for c in cube]
    assert instance.n == 9 and all(faces.count(c) == 6 for c in instance.colours)


@pytest.mark.parametrize("text", ["R R G R B\n", "R R G R B Y Y\n", "R R G R B Y!\n", "# x\n"])
def test_malformed_instances_are_one_line_input_errors(text):
    with pytest.raises(InputError) as caught:
        parse(text)
    assert "\n" not in str(caught.value)


def test_a_generated_size_out_of_range_is_an_input_error():
    with pytest.raises(InputError):
        generate(0)
    with pytest.raises(InputError):
        generate(10_000)


def test_json_round_trip_and_pictures():
    result = protocol.solve(PUZZLE, classic(), "highs")
    data = PUZZLE.to_json(classic(), result.solution)
    assert PUZZLE.from_json(data) == (classic(), result.solution)
    assert PUZZLE.from_json({"status": "solved", "solution": data}) == (classic(),
                                                                        result.solution)
    with pytest.raises(InputError):
        PUZZLE.from_json({"cubes": data["cubes"]})
    text = PUZZLE.render(classic(), result.solution, "text")
    assert "front" in text and len(text.splitlines()) == 1 + 4 + 1
    svg = PUZZLE.render(classic(), result.solution, "svg")
    assert svg.startswith("<svg") and svg.count("<rect") == 4 * 6
    with pytest.raises(InputError):
        PUZZLE.render(classic(), result.solution, "gif")


def test_the_png_picture_where_matplotlib_is_installed():
    pytest.importorskip("matplotlib")
    picture = PUZZLE.render(classic(), protocol.solve(PUZZLE, classic(), "highs").solution,
                            "png")
    assert picture[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_cases_are_planted_and_random_for_each_size():
    cases = PUZZLE.bench_cases([4, 5])
    assert [c.params for c in cases] == [{"n": 4, "instance": "planted"},
                                         {"n": 4, "instance": "random"},
                                         {"n": 5, "instance": "planted"},
                                         {"n": 5, "instance": "random"}]
    assert cases[0].args == ("insanity", "solve", "--generate", "4", "--planted")
    assert [c.params["n"] for c in PUZZLE.bench_cases()][::2] == list(range(4, 13))


def test_the_checker_imports_nothing_of_the_package():
    path = Path(verify.__file__)
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import reaches into the package"
            imported.add(node.module or "")
    assert imported  # the walk saw the file's imports
    assert not [name for name in imported if name.split(".")[0] == "ilp_pyramid"]
