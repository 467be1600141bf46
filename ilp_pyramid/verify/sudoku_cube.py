"""Check a Sudoku Cube answer from first principles, without the model's tables.

The cube is rebuilt here from the spec's conventions alone, as points in space: a facelet is
its centre on a cube of side 6 (faces at distance 3, grid spacing 2) and a digit's direction is
the unit step from that centre towards the digit's top. A face turn rotates the points of its
layer with an integer matrix; a piece moved by the answer must carry its stickers by one proper
rotation. Nothing from ilp_pyramid.puzzles is imported: the checker and the solver share only
the spec and the plain data passed in (tokens such as "5^", facelet indices, move strings).

Facelets are numbered as in the spec: faces U R F D L B, nine each, row by row.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations

FACE_ORDER = "URFDLB"
ARROWS = "^>v<"

# The spec's grid views: (outward normal, grid up, grid right) of every face.
_VIEWS = {
    "U": ((0, 1, 0), (0, 0, -1), (1, 0, 0)),
    "R": ((1, 0, 0), (0, 1, 0), (0, 0, -1)),
    "F": ((0, 0, 1), (0, 1, 0), (1, 0, 0)),
    "D": ((0, -1, 0), (0, 0, 1), (1, 0, 0)),
    "L": ((-1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "B": ((0, 0, -1), (0, 1, 0), (-1, 0, 0)),
}

Point = tuple[int, int, int]


def _plus(a: Point, b: Point, k: int = 1) -> Point:
    return (a[0] + k * b[0], a[1] + k * b[1], a[2] + k * b[2])


def _minus(a: Point, b: Point) -> Point:
    return _plus(a, b, -1)


def _det(a: Point, b: Point, c: Point) -> int:
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


@dataclass(frozen=True)
class _Cube:
    centres: tuple[Point, ...]  # facelet -> its centre point
    at: dict[Point, int]  # centre point -> facelet
    normals: tuple[Point, ...]
    cubie: tuple[Point, ...]  # facelet -> cubie it belongs to, in {-1, 0, 1}^3

    def arrow(self, facelet: int, direction: int) -> Point:
        _, up, right = _VIEWS[FACE_ORDER[facelet // 9]]
        return (up, right, _minus((0, 0, 0), up), _minus((0, 0, 0), right))[direction % 4]

    def direction(self, facelet: int, arrow: Point) -> int:
        for d in range(4):
            if self.arrow(facelet, d) == arrow:
                return d
        raise AssertionError(f"{arrow} does not lie in face {FACE_ORDER[facelet // 9]}")


@cache
def _cube() -> _Cube:
    centres, normals = [], []
    for face in FACE_ORDER:
        normal, up, right = _VIEWS[face]
        for row in range(3):
            for col in range(3):
                p = _plus(_plus(_plus((0, 0, 0), normal, 3), right, 2 * (col - 1)), up,
                          2 * (1 - row))
                centres.append(p)
                normals.append(normal)
    cubie = tuple(tuple(int(c / 2) for c in p) for p in centres)
    return _Cube(tuple(centres), {p: i for i, p in enumerate(centres)}, tuple(normals),
                 cubie)  # type: ignore[arg-type]


def _rotation(face: str) -> tuple[Point, Point, Point]:
    """Clockwise quarter turn seen from outside `face`, as the rows of an integer matrix."""
    normal = _VIEWS[face][0]
    axis = next(i for i in range(3) if normal[i])
    s = normal[axis]  # -90 degrees about the outward normal = s * (-90) about the +axis
    # Right-handed rotation by angle a about +x, +y, +z with sin a = -s, cos a = 0.
    if axis == 0:
        return ((1, 0, 0), (0, 0, s), (0, -s, 0))
    if axis == 1:
        return ((0, 0, -s), (0, 1, 0), (s, 0, 0))
    return ((0, s, 0), (-s, 0, 0), (0, 0, 1))


def _turn(m, p: Point) -> Point:
    return tuple(sum(m[r][k] * p[k] for k in range(3)) for r in range(3))  # type: ignore


Token = str  # "5^"
_TOKEN = re.compile(r"^([1-9])([\^>v<])$")


def _read(tokens_by_face: dict[str, list[Token]]) -> list[tuple[int, int]]:
    out = []
    for face in FACE_ORDER:
        tokens = tokens_by_face[face]
        if len(tokens) != 9:
            raise ValueError(f"face {face} has {len(tokens)} tokens")
        for pos, tok in enumerate(tokens, start=1):
            m = _TOKEN.match(tok)
            if not m:
                raise ValueError(f"face {face} position {pos}: bad token {tok!r}")
            out.append((int(m.group(1)), ARROWS.index(m.group(2))))
    return out


def _write(stickers: list[tuple[int, int]]) -> dict[str, list[Token]]:
    return {face: [f"{d}{ARROWS[r]}" for d, r in stickers[9 * k: 9 * k + 9]]
            for k, face in enumerate(FACE_ORDER)}


_MOVE = re.compile(r"^([URFDLB])(2|'|2'|)$")


def simulate(faces: dict[str, list[Token]], moves: str) -> dict[str, list[Token]]:
    """Turn the cube: every sticker of a turned layer moves and its digit turns with it."""
    cube = _cube()
    stickers = _read(faces)
    for word in moves.split():
        m = _MOVE.match(word)
        if not m:
            raise ValueError(f"not a face turn: {word!r}")
        face, suffix = m.group(1), m.group(2)
        quarters = 2 if suffix.startswith("2") else 3 if suffix == "'" else 1
        rotation = _rotation(face)
        normal = _VIEWS[face][0]
        for _ in range(quarters):
            moved = list(stickers)
            for i, (digit, direction) in enumerate(stickers):
                centre = cube.centres[i]
                # Facelet centres of the turned layer lie 2 or 3 out along the face's normal.
                if sum(a * b for a, b in zip(centre, normal, strict=True)) < 2:
                    continue
                top = _plus(centre, cube.arrow(i, direction))
                j = cube.at[_turn(rotation, centre)]
                moved[j] = (digit, cube.direction(j, _minus(_turn(rotation, top),
                                                            cube.centres[j])))
            stickers = moved
    return _write(stickers)


@dataclass
class CubeVerdict:
    faces_ok: bool = True  # every face 1-9 once, upright in one direction
    map_ok: bool = True  # the sticker map moves whole pieces as a real cube would
    turnable: bool = True  # the four invariants hold: reachable by face turns
    directions: dict[str, str] = field(default_factory=dict)
    invariants: dict[str, int] = field(default_factory=dict)
    face_problems: list[str] = field(default_factory=list)
    map_problems: list[str] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)  # broken turning invariants

    @property
    def valid(self) -> bool:
        """A correct answer: solved faces, reached by moving pieces as a cube can."""
        return self.faces_ok and self.map_ok

    def reasons(self) -> list[str]:
        return self.face_problems + self.map_problems + self.unreachable


def check_faces(faces: dict[str, list[Token]], symmetric=frozenset({1})) -> CubeVerdict:
    """Every face shows 1-9 once, all upright in one common direction."""
    verdict = CubeVerdict()
    stickers = _read(faces)
    symmetric = set(symmetric) | {1}
    for k, face in enumerate(FACE_ORDER):
        nine = stickers[9 * k: 9 * k + 9]
        counts = Counter(d for d, _ in nine)
        wrong = [f"{d} x{counts[d]}" for d in range(1, 10) if counts[d] != 1]
        if wrong:
            verdict.face_problems.append(f"face {face} does not show 1-9 once each: "
                                    f"{', '.join(wrong)}")
        ways = [w for w in range(4)
                if all(r == w or (d in symmetric and (r - w) % 4 == 2) for d, r in nine)]
        if ways:
            verdict.directions[face] = ARROWS[ways[0]]
        else:
            verdict.face_problems.append(f"face {face}: its digits do not all point one way")
    verdict.faces_ok = not verdict.face_problems
    return verdict


def _pieces() -> list[list[int]]:
    """Facelets grouped by cubie (corners, edges and centres), each with a reference first."""
    cube = _cube()
    groups: dict[Point, list[int]] = {}
    for i, c in enumerate(cube.cubie):
        groups.setdefault(c, []).append(i)
    out = []
    for members in groups.values():
        # Reference: the U/D facelet, else (middle-layer edges) the F/B one.
        members.sort(key=lambda i: (cube.normals[i][1] == 0, cube.normals[i][2] == 0))
        if len(members) == 3:
            a, b, c = members
            if _det(cube.normals[a], cube.normals[b], cube.normals[c]) > 0:
                members[1], members[2] = c, b  # one turning sense for every corner
        out.append(members)
    return out


def _parity(perm: dict[int, int]) -> int:
    keys = sorted(perm)
    return sum(1 for a, b in combinations(keys, 2) if perm[a] > perm[b]) % 2


def check_answer(given: dict[str, list[Token]], target: dict[str, list[Token]],
                 source: list[int], symmetric=frozenset({1})) -> CubeVerdict:
    """`source[b]`: the given facelet whose sticker shows at facelet b of the target.

    Checks the faces, that the map moves whole pieces by proper rotations and carries digits
    and directions as a real cube would, and the four invariants that decide whether the target
    can be reached from the given state by face turns.
    """
    verdict = check_faces(target, symmetric)
    cube = _cube()
    old, new = _read(given), _read(target)
    if sorted(source) != list(range(54)):
        verdict.map_problems.append("the sticker map is not a permutation of the 54 facelets")
        verdict.map_ok = False
        return verdict
    dest = [0] * 54
    for b, a in enumerate(source):
        dest[a] = b
    pieces = _pieces()
    home = {members[0]: k for k, members in enumerate(pieces)}
    perm: dict[int, dict[int, int]] = {1: {}, 2: {}, 3: {}}
    twist = {2: 0, 3: 0}
    centre_turns = 0
    for members in pieces:
        landed = [dest[a] for a in members]
        size = len(members)
        target_piece = next((p for p in pieces if landed[0] in p), None)
        if target_piece is None or sorted(landed) != sorted(target_piece):
            verdict.map_problems.append(f"the stickers of piece {members} do not move together")
            continue
        if size == 1 and landed[0] != members[0]:
            verdict.map_problems.append(f"centre {FACE_ORDER[members[0] // 9]} left its face")
            continue
        # The rotation taking the piece's normals to where they landed (columns -> columns).
        src = [cube.normals[a] for a in members]
        dst = [cube.normals[b] for b in landed]
        if size == 3:
            if _det(*src) != _det(*dst):
                verdict.map_problems.append(f"a corner was mirrored at facelets {landed}")
                continue
        if size == 1:  # a centre keeps its digit and may turn any way in its face
            if new[landed[0]][0] != old[members[0]][0]:
                verdict.map_problems.append(f"centre {FACE_ORDER[members[0] // 9]} changed digit")
            centre_turns += (new[landed[0]][1] - old[members[0]][1]) % 4
            continue
        for a, b in zip(members, landed, strict=True):
            digit, direction = old[a]
            want = _carry(cube, a, b, direction, src, dst, size)
            if new[b] != (digit, want):
                verdict.map_problems.append(
                    f"facelet {FACE_ORDER[b // 9]}{b % 9 + 1} shows {new[b][0]}{ARROWS[new[b][1]]}"
                    f" but the piece carries {digit}{ARROWS[want]} there")
        perm[size][home[members[0]]] = home[target_piece[0]]
        twist[size] += target_piece.index(landed[0])
    verdict.map_ok = not verdict.map_problems
    if not verdict.map_ok:
        return verdict
    inv = {
        "corner_twist_mod3": twist[3] % 3,
        "edge_flip_mod2": twist[2] % 2,
        "corner_parity": _parity(perm[3]),
        "edge_parity": _parity(perm[2]),
        "centre_turns_mod2": centre_turns % 2,
    }
    verdict.invariants = inv
    if inv["corner_twist_mod3"]:
        verdict.unreachable.append(f"the corner twists sum to {inv['corner_twist_mod3']} mod 3, "
                                   f"not 0 (a corner is twisted in place)")
    if inv["edge_flip_mod2"]:
        verdict.unreachable.append("the edge flips sum to 1 mod 2, not 0 (an edge is flipped "
                                   "in place)")
    if inv["corner_parity"] != inv["edge_parity"]:
        verdict.unreachable.append(
            f"the corner permutation is {_odd(inv['corner_parity'])} but the edge permutation "
            f"is {_odd(inv['edge_parity'])} (two pieces are swapped)")
    if inv["centre_turns_mod2"] != inv["corner_parity"]:
        verdict.unreachable.append(
            f"the centres' quarter turns add up to {_odd(inv['centre_turns_mod2'])} but the "
            f"corner permutation is {_odd(inv['corner_parity'])} (a centre is turned a quarter "
            f"in place)")
    verdict.turnable = not verdict.unreachable
    return verdict


def _odd(bit: int) -> str:
    return "odd" if bit else "even"


def _carry(cube: _Cube, a: int, b: int, direction: int, src, dst, size: int) -> int:
    """Direction at b of the digit that pointed `direction` at a, the piece moved rigidly."""
    arrow = cube.arrow(a, direction)
    # Write the arrow in the piece's own frame (its normals, plus their cross product for an
    # edge), then rebuild it from the landed normals.
    if size == 2:
        src = src + [_cross(src[0], src[1])]
        dst = dst + [_cross(dst[0], dst[1])]
    # The frame's columns are orthonormal, so a coordinate is a dot product.
    coords = [sum(x * y for x, y in zip(arrow, n, strict=True)) for n in src]
    landed = (0, 0, 0)
    for k, n in zip(coords, dst, strict=True):
        landed = _plus(landed, n, k)
    return cube.direction(b, landed)


def _cross(a: Point, b: Point) -> Point:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def check_moves(given: dict[str, list[Token]], target: dict[str, list[Token]],
                moves: str) -> list[str]:
    """Facelets (with what they show) where simulating `moves` on `given` misses `target`."""
    after = simulate(given, moves)
    out = []
    for face in FACE_ORDER:
        for pos, (got, want) in enumerate(zip(after[face], target[face], strict=True), start=1):
            if got != want:
                out.append(f"{face}{pos}: {got} instead of {want}")
    return out
