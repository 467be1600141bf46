"""The independent checker: faces, sticker maps, turning invariants, move simulation."""

import random

from ilp_pyramid.puzzles.sudoku_cube.generate import generate, random_turns
from ilp_pyramid.puzzles.sudoku_cube.geometry import corner_placements, edge_placements
from ilp_pyramid.puzzles.sudoku_cube.simulate import apply_labels, format_moves
from ilp_pyramid.verify.sudoku_cube import check_answer, check_faces, check_moves, simulate

IDENTITY = list(range(54))


def design():
    return generate(12).design.to_dict()


def moved_by_hand(placements):
    """A sticker map (source[b] = a) for pieces moved by hand, the rest left alone."""
    source = list(IDENTITY)
    for placement in placements:
        for a, b, _ in placement.moves:
            source[b] = a
    return source


def carry(faces, placements):
    """The faces after moving pieces by hand, directions turned as the geometry says."""
    out = {face: list(tokens) for face, tokens in faces.items()}
    flat = [t for face in "URFDLB" for t in faces[face]]
    arrows = "^>v<"
    for placement in placements:
        for a, b, turn in placement.moves:
            digit, arrow = flat[a][0], flat[a][1]
            out["URFDLB"[b // 9]][b % 9] = digit + arrows[(arrows.index(arrow) + turn) % 4]
    return out


def test_a_design_has_valid_faces_and_the_identity_is_reachable():
    faces = design()
    verdict = check_faces(faces)
    assert verdict.valid and set(verdict.directions.values()) == {"^"}
    answer = check_answer(faces, faces, IDENTITY)
    assert answer.valid and answer.turnable
    assert set(answer.invariants.values()) == {0}


def test_duplicate_digit_and_crooked_digit_are_named():
    faces = design()
    faces["F"][0], faces["F"][1] = faces["F"][1], faces["F"][1]
    faces["R"][3] = faces["R"][3][0] + ">"
    reasons = " | ".join(check_faces(faces).reasons())
    assert "face F does not show 1-9 once each" in reasons
    assert "face R: its digits do not all point one way" in reasons


def test_half_turn_symmetric_digits_may_point_down():
    faces = design()
    pos = faces["U"].index("8^")
    faces["U"][pos] = "8v"
    assert not check_faces(faces).valid
    assert check_faces(faces, symmetric={8}).valid


def test_a_whole_face_may_point_another_way():
    faces = design()
    faces["D"] = [t[0] + ("<" if t[0] != "1" else ">") for t in faces["D"]]
    verdict = check_faces(faces)
    assert verdict.valid and verdict.directions["D"] == "<"


def test_twisted_corner_flipped_edge_and_swapped_edges_break_the_invariants():
    faces = design()
    cases = {
        "twist": [corner_placements()[0, 0, 1]],
        "flip": [edge_placements()[3, 3, 1]],
        "swap": [edge_placements()[0, 1, 0], edge_placements()[1, 0, 0]],
        "three-cycle": [corner_placements()[0, 1, 0], corner_placements()[1, 2, 0],
                        corner_placements()[2, 0, 0]],
    }
    for name, placements in cases.items():
        target = carry(faces, placements)
        verdict = check_answer(faces, target, moved_by_hand(placements))
        assert verdict.map_ok, (name, verdict.map_problems)
        text = " ".join(verdict.unreachable)
        if name == "twist":
            assert "corner twists sum to 1 mod 3" in text
        elif name == "flip":
            assert "edge flips sum to 1 mod 2" in text
        elif name == "swap":
            assert "corner permutation is even but the edge permutation is odd" in text
        else:
            assert verdict.turnable, text


def test_a_map_that_misturns_a_digit_is_caught():
    faces = design()
    placements = [corner_placements()[0, 5, 2], corner_placements()[5, 0, 1]]
    target = carry(faces, placements)
    b = placements[0].moves[0][1]
    face, pos = "URFDLB"[b // 9], b % 9
    token = target[face][pos]
    target[face][pos] = token[0] + ("v" if token[1] != "v" else "^")
    verdict = check_answer(faces, target, moved_by_hand(placements))
    assert not verdict.map_ok and not verdict.valid
    assert any("but the piece carries" in p for p in verdict.map_problems)


def test_scrambled_design_is_reachable_and_moves_check():
    instance = generate(4)
    given, target = instance.state.to_dict(), instance.design.to_dict()
    undo = [(f, (4 - q) % 4) for f, q in reversed(instance.scramble)]
    assert check_moves(given, target, format_moves(undo)) == []
    assert check_moves(given, target, "R") != []
    # The sticker map of the scramble: where each sticker of the given state ends up.
    source = apply_labels(IDENTITY, undo)
    verdict = check_answer(given, target, source)
    assert verdict.valid and verdict.turnable, verdict.reasons()
    assert not check_answer(target, given, source).map_ok  # the map read the wrong way round


def test_any_move_sequence_keeps_the_invariants():
    rng = random.Random(9)
    faces = design()
    for _ in range(5):
        moves = random_turns(rng, 17)
        source = apply_labels(IDENTITY, moves)
        target = simulate(faces, format_moves(moves))
        verdict = check_answer(faces, target, source)
        assert verdict.map_ok and verdict.turnable and not verdict.faces_ok
        assert verdict.invariants["corner_parity"] == verdict.invariants["centre_turns_mod2"]
