"""The cube's geometry, the face turns and the centre algorithms, checked by simulation."""

import random

import kociemba
import pytest

from ilp_pyramid.puzzles.sudoku_cube.geometry import (
    FACES,
    corner_placements,
    edge_placements,
    face_turn,
    facelet_name,
    geometry,
)
from ilp_pyramid.puzzles.sudoku_cube.simulate import (
    apply_labels,
    apply_moves,
    format_moves,
    inverse,
    parse_moves,
    simplify,
)
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState
from ilp_pyramid.puzzles.sudoku_cube.turns import (
    ADJACENT,
    HALF,
    centre_fix,
    centre_half,
    centre_pair,
)
from ilp_pyramid.verify import sudoku_cube as checker

SOLVED_COLOURS = [f for f in FACES for _ in range(9)]


def random_state(rng: random.Random) -> CubeState:
    return CubeState(tuple((rng.randint(1, 9), rng.randint(0, 3)) for _ in range(54)))


def labelled() -> CubeState:
    """Every facelet a different (digit, direction) pair is impossible with 9 digits, so use
    direction 0 everywhere and track the facelets by id separately."""
    return CubeState(tuple((1, 0) for _ in range(54)))


def effect(moves):
    """(facelets whose sticker moved, centre quarter turns, non-centre stickers turned)."""
    ids = apply_labels(list(range(54)), moves)
    moved = [facelet_name(i) for i in range(54) if ids[i] != i]
    after = apply_moves(labelled(), moves)
    centres = {f: after.stickers[9 * k + 4][1] for k, f in enumerate(FACES)}
    turned = [facelet_name(i) for i in range(54) if i % 9 != 4 and after.stickers[i][1]]
    return moved, centres, turned


def test_pieces_cover_every_facelet_once():
    geo = geometry()
    facelets = [i for c in geo.corners for i in c] + [i for e in geo.edges for i in e]
    facelets += list(geo.centres)
    assert sorted(facelets) == list(range(54))
    for piece in geo.corners + geo.edges:
        assert len({geo.facelets[i].cubie for i in piece}) == 1
        assert len({geo.facelets[i].face for i in piece}) == len(piece)


def test_placements_are_all_proper_and_identity_keeps_directions():
    corners, edges = corner_placements(), edge_placements()
    assert len(corners) == 8 * 8 * 3 and len(edges) == 12 * 12 * 2
    for i in range(8):
        assert all(turn == 0 and a == b for a, b, turn in corners[i, i, 0].moves)
    for i in range(12):
        assert all(turn == 0 and a == b for a, b, turn in edges[i, i, 0].moves)


def test_u_turn_moves_front_row_to_left_and_turns_the_u_centre_clockwise():
    turn = face_turn("U", 1)
    assert [facelet_name(turn.dest[i]) for i in (18, 19, 20)] == ["L1", "L2", "L3"]
    assert turn.turn[4] == 1  # "^" becomes ">"
    assert facelet_name(turn.dest[0]) == "U3"


@pytest.mark.parametrize("face", FACES)
def test_four_quarter_turns_are_nothing(face):
    state = random_state(random.Random(face))
    assert apply_moves(state, [(face, 1)] * 4) == state
    assert apply_moves(state, [(face, 2), (face, 2)]) == state
    assert apply_moves(state, [(face, 1), (face, 3)]) == state


def test_a_sequence_and_its_inverse_cancel():
    rng = random.Random(5)
    state = random_state(rng)
    moves = [(rng.choice(FACES), rng.randint(1, 3)) for _ in range(40)]
    assert apply_moves(apply_moves(state, moves), inverse(moves)) == state
    assert apply_moves(state, simplify(moves)) == apply_moves(state, moves)


def test_sexy_move_has_order_six():
    moves = parse_moves("R U R' U'")
    state = random_state(random.Random(1))
    assert apply_moves(state, moves * 6) == state
    assert apply_moves(state, moves * 3) != state


def test_the_checker_simulates_the_same_cube():
    """Two independent simulators (matrices on indices vs. points in space) must agree."""
    rng = random.Random(11)
    for _ in range(20):
        state = random_state(rng)
        moves = [(rng.choice(FACES), rng.randint(1, 3)) for _ in range(12)]
        ours = apply_moves(state, moves).to_dict()
        assert checker.simulate(state.to_dict(), format_moves(moves)) == ours


def test_facelet_order_is_the_two_phase_solvers():
    rng = random.Random(2)
    for _ in range(5):
        scramble = [(rng.choice(FACES), rng.randint(1, 3)) for _ in range(25)]
        colours = apply_labels(SOLVED_COLOURS, scramble)
        answer = parse_moves(kociemba.solve("".join(colours)))
        assert apply_labels(colours, answer) == SOLVED_COLOURS


def test_move_notation_round_trips_and_rejects_junk():
    assert format_moves(parse_moves("R U2 F' D2' b".upper())) == "R U2 F' D2 B"
    from ilp_pyramid.errors import InputError

    with pytest.raises(InputError, match="move 2"):
        parse_moves("R X")


def test_published_centre_algorithms_do_what_the_spec_says():
    moved, centres, turned = effect(parse_moves(ADJACENT))
    assert moved == [] and turned == []
    assert centres == {"U": 1, "R": 0, "F": 3, "D": 0, "L": 0, "B": 0}
    moved, centres, turned = effect(parse_moves(HALF))
    assert moved == [] and turned == []
    assert centres == {"U": 2, "R": 0, "F": 0, "D": 0, "L": 0, "B": 0}


@pytest.mark.parametrize("plus", FACES)
def test_centre_pairs_and_halves_on_every_face(plus):
    for minus in FACES:
        if minus == plus:
            continue
        moved, centres, turned = effect(centre_pair(plus, minus))
        assert moved == [] and turned == []
        want = {f: 0 for f in FACES} | {plus: 1, minus: 3}
        assert centres == want, (plus, minus)
    moved, centres, turned = effect(centre_half(plus))
    assert moved == [] and turned == []
    assert centres == {f: 0 for f in FACES} | {plus: 2}


def test_centre_fix_reaches_any_even_combination():
    rng = random.Random(4)
    for _ in range(15):
        need = {f: rng.randint(0, 3) for f in FACES}
        if sum(need.values()) % 2:
            need["B"] = (need["B"] + 1) % 4
        moved, centres, turned = effect(centre_fix(need))
        assert moved == [] and turned == []
        assert centres == need
