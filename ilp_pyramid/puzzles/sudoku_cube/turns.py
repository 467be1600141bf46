"""The moves: corners and edges by the two-phase solver, centres by two known algorithms.

1. Colour every sticker by the face it must end on; the two-phase solver (`kociemba`) turns
   that colour cube to solved, which puts every corner and edge where the grid wants it, turned
   the grid's way (a colour cube's pieces are all different, so "solved" pins them down).
2. The centres have turned along; what each still lacks (quarter turns mod 4) adds up to an
   even number, because the target is reachable. Two algorithms that move no piece fix that
   (both checked by simulation in the tests):
     ADJACENT  F B' L R' U D' F' U' D L' R F' B U   U centre +1, F centre -1 (quarter turns)
     HALF      U R L U2 R' L' U R L U2 R' L'        U centre +2
   carried to other faces by relabelling the faces through a rotation of the whole cube.
3. The whole sequence is simulated on the given state, directions included, by the caller.
"""

from __future__ import annotations

from functools import cache

from ilp_pyramid.errors import SolverError
from ilp_pyramid.extras import need
from ilp_pyramid.puzzles.sudoku_cube.geometry import (
    FACES,
    Mat,
    apply,
    face_normal,
    from_columns,
    matmul,
    quarter_turn,
)
from ilp_pyramid.puzzles.sudoku_cube.simulate import Move, apply_moves, parse_moves, simplify
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

ADJACENT = "F B' L R' U D' F' U' D L' R F' B U"  # U +1, F -1
HALF = "U R L U2 R' L' U R L U2 R' L'"  # U +2

_OPPOSITE = {"U": "D", "D": "U", "R": "L", "L": "R", "F": "B", "B": "F"}


def _normal_face() -> dict:
    return {face_normal(f): f for f in FACES}


@cache
def _rotations() -> list[dict[str, str]]:
    """The 24 rotations of the whole cube, each as a relabelling of the faces."""
    identity: Mat = from_columns((1, 0, 0), (0, 1, 0), (0, 0, 1))
    seen, frontier = {identity}, [identity]
    generators = [quarter_turn((1, 0, 0)), quarter_turn((0, 1, 0))]
    while frontier:
        m = frontier.pop()
        for g in generators:
            n = matmul(g, m)
            if n not in seen:
                seen.add(n)
                frontier.append(n)
    by_normal = _normal_face()
    return [{f: by_normal[apply(m, face_normal(f))] for f in FACES} for m in seen]


def relabel(moves: list[Move], mapping: dict[str, str]) -> list[Move]:
    """The same algorithm done on other faces (a whole-cube rotation keeps clockwise)."""
    return [(mapping[face], q) for face, q in moves]


def _mapping(**wanted: str) -> dict[str, str]:
    for rotation in _rotations():
        if all(rotation[a] == b for a, b in wanted.items()):
            return rotation
    raise AssertionError(f"no rotation of the cube takes {wanted}")  # pragma: no cover


def centre_pair(plus: str, minus: str) -> list[Move]:
    """Turn centre `plus` a quarter clockwise and `minus` a quarter counter-clockwise."""
    if _OPPOSITE[plus] == minus:  # through a face next to both
        middle = next(f for f in FACES if f not in (plus, minus))
        return centre_pair(plus, middle) + centre_pair(middle, minus)
    return relabel(parse_moves(ADJACENT), _mapping(U=plus, F=minus))


def centre_half(face: str) -> list[Move]:
    """Turn centre `face` half a turn."""
    return relabel(parse_moves(HALF), _mapping(U=face))


def centre_fix(need: dict[str, int]) -> list[Move]:
    """Moves that add need[face] quarter turns to each centre (their sum must be even)."""
    need = {f: need.get(f, 0) % 4 for f in FACES}
    if sum(need.values()) % 2:
        raise SolverError("the centres need an odd number of quarter turns in all: the target "
                          "is not reachable by turning")
    moves: list[Move] = []

    def pair(plus: str, minus: str) -> None:
        moves.extend(centre_pair(plus, minus))
        need[plus] = (need[plus] - 1) % 4
        need[minus] = (need[minus] + 1) % 4

    def partner(face: str, among: list[str]) -> str:
        # An adjacent partner costs one algorithm, an opposite one two.
        return min(among, key=lambda f: (_OPPOSITE[face] == f, FACES.index(f)))

    while True:
        plus = [f for f in FACES if need[f] == 1]
        minus = [f for f in FACES if need[f] == 3]
        if plus and minus:
            p = plus[0]
            pair(p, partner(p, minus))
        elif len(plus) >= 2:
            pair(plus[0], partner(plus[0], plus[1:]))  # the second one now needs a half turn
        elif len(minus) >= 2:
            pair(partner(minus[0], minus[1:]), minus[0])
        else:
            break
    for f in FACES:
        if need[f] == 2:
            moves.extend(centre_half(f))
            need[f] = 0
    assert not any(need.values()), need
    return moves


def colour_string(source: list[int]) -> str:
    """The two-phase solver's input: the sticker now at facelet a is coloured with the face it
    must end on (source[b] = a says it ends on b)."""
    colours = [""] * 54
    for b, a in enumerate(source):
        colours[a] = FACES[b // 9]
    return "".join(colours)


SOLVED_COLOURS = "".join(f * 9 for f in FACES)


def piece_moves(source: list[int]) -> list[Move]:
    """Face turns that bring every corner and edge to its target slot and orientation."""
    cube = colour_string(source)
    if cube == SOLVED_COLOURS:
        return []  # the solver answers a solved cube with a long identity: skip it

    kociemba = need("kociemba")
    try:
        answer = kociemba.solve(cube)
    except ValueError as exc:
        raise SolverError(f"the two-phase solver rejected the colour cube {cube}: {exc}") from exc
    return parse_moves(answer)


def plan(given: CubeState, source: list[int], target: CubeState) -> list[Move]:
    """Face turns from `given` to `target`, pieces first and then centres."""
    moves = piece_moves(source)
    after = apply_moves(given, moves)
    need = {}
    for k, face in enumerate(FACES):
        centre = 9 * k + 4
        need[face] = (target.stickers[centre][1] - after.stickers[centre][1]) % 4
    return simplify(moves + centre_fix(need))
