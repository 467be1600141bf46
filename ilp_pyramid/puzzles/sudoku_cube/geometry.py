"""The cube's geometry: facelets, pieces, how a piece's digit directions turn when it moves.

Everything is derived from one 3D picture so that the piece tables, the placement rotations
and the face turns can never disagree:

- axes: x towards R, y towards U, z towards F; a cubie sits at a point of {-1, 0, 1}^3.
- each face has an outward normal `n`, a grid "up" vector and a grid "right" vector
  (right = up x n), chosen so that the grids read as in the spec (URFDLB order of two-phase
  solvers: U seen from above with B at the top, D from below with F at the top, the four side
  faces from outside with U at the top).
- facelet (face, row r, column c) belongs to the cubie at n + (c-1)*right + (1-r)*up.
- a direction d (0 ^ up, 1 > right, 2 v down, 3 < left: quarter turns clockwise from up) is the
  3D vector up, right, -up, -right of the facelet's face.

A rotation of a cubie (a face turn, or putting a piece into another slot) maps positions,
normals and direction vectors; read back in the new face's grid it adds a fixed number of
quarter turns to the direction, which is all the model and the simulator need.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

Vec = tuple[int, int, int]
Mat = tuple[Vec, Vec, Vec]  # rows

FACES = "URFDLB"
DIRECTIONS = "^>v<"  # index = quarter turns clockwise from "up" in the face's grid view
NUM_FACELETS = 54

# Face -> (outward normal, grid up).
_FRAMES: dict[str, tuple[Vec, Vec]] = {
    "U": ((0, 1, 0), (0, 0, -1)),
    "R": ((1, 0, 0), (0, 1, 0)),
    "F": ((0, 0, 1), (0, 1, 0)),
    "D": ((0, -1, 0), (0, 0, 1)),
    "L": ((-1, 0, 0), (0, 1, 0)),
    "B": ((0, 0, -1), (0, 1, 0)),
}

# Slots in the two-phase solvers' order; the first facelet of each is the reference facelet
# (U/D for corners and for U/D edges, F/B for the middle-layer edges) that the orientation
# invariants are counted against, and corner facelets run clockwise around the corner.
CORNER_SLOTS: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("URF", ("U9", "R1", "F3")),
    ("UFL", ("U7", "F1", "L3")),
    ("ULB", ("U1", "L1", "B3")),
    ("UBR", ("U3", "B1", "R3")),
    ("DFR", ("D3", "F9", "R7")),
    ("DLF", ("D1", "L9", "F7")),
    ("DBL", ("D7", "B9", "L7")),
    ("DRB", ("D9", "R9", "B7")),
)
EDGE_SLOTS: tuple[tuple[str, tuple[str, str]], ...] = (
    ("UR", ("U6", "R2")),
    ("UF", ("U8", "F2")),
    ("UL", ("U4", "L2")),
    ("UB", ("U2", "B2")),
    ("DR", ("D6", "R8")),
    ("DF", ("D2", "F8")),
    ("DL", ("D4", "L8")),
    ("DB", ("D8", "B8")),
    ("FR", ("F6", "R4")),
    ("FL", ("F4", "L6")),
    ("BL", ("B6", "L4")),
    ("BR", ("B4", "R6")),
)
CENTRE_SLOTS: tuple[tuple[str, str], ...] = tuple((f, f"{f}5") for f in FACES)


def add(a: Vec, b: Vec) -> Vec:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def scale(k: int, a: Vec) -> Vec:
    return (k * a[0], k * a[1], k * a[2])


def dot(a: Vec, b: Vec) -> int:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def apply(m: Mat, v: Vec) -> Vec:
    return (dot(m[0], v), dot(m[1], v), dot(m[2], v))


def from_columns(a: Vec, b: Vec, c: Vec) -> Mat:
    return ((a[0], b[0], c[0]), (a[1], b[1], c[1]), (a[2], b[2], c[2]))


def matmul(a: Mat, b: Mat) -> Mat:
    cols = [(b[0][j], b[1][j], b[2][j]) for j in range(3)]
    return tuple(tuple(dot(row, col) for col in cols) for row in a)  # type: ignore[return-value]


def transpose(m: Mat) -> Mat:
    return from_columns(m[0], m[1], m[2])


def det(m: Mat) -> int:
    return dot(m[0], cross(m[1], m[2]))


def quarter_turn(axis: Vec) -> Mat:
    """Clockwise quarter turn seen from outside along `axis` (a rotation by -90 degrees)."""
    # R v = -(a x v) + a (a . v) for a unit axis vector a and angle -90 degrees.
    columns = []
    for e in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
        a_cross = cross(axis, e)
        columns.append(add(scale(-1, a_cross), scale(dot(axis, e), axis)))
    return from_columns(*columns)


@dataclass(frozen=True)
class Facelet:
    index: int  # 0..53 in URFDLB order, row by row
    face: str
    pos: int  # 0..8 in the face's grid
    cubie: Vec
    normal: Vec
    up: Vec
    right: Vec

    @property
    def name(self) -> str:
        return f"{self.face}{self.pos + 1}"

    def direction_vector(self, d: int) -> Vec:
        return (self.up, self.right, scale(-1, self.up), scale(-1, self.right))[d % 4]

    def direction_of(self, v: Vec) -> int:
        for d in range(4):
            if self.direction_vector(d) == v:
                return d
        raise ValueError(f"{v} is not a direction in face {self.face}")


@dataclass(frozen=True)
class Geometry:
    facelets: tuple[Facelet, ...]
    by_name: dict[str, int]
    by_place: dict[tuple[Vec, Vec], int]  # (cubie, normal) -> facelet index
    corners: tuple[tuple[int, int, int], ...]  # per corner slot: its facelets, reference first
    edges: tuple[tuple[int, int], ...]
    centres: tuple[int, ...]
    corner_names: tuple[str, ...]
    edge_names: tuple[str, ...]


def _facelets() -> tuple[Facelet, ...]:
    out = []
    for f, face in enumerate(FACES):
        normal, up = _FRAMES[face]
        right = cross(up, normal)
        for pos in range(9):
            r, c = divmod(pos, 3)
            cubie = add(normal, add(scale(c - 1, right), scale(1 - r, up)))
            out.append(Facelet(9 * f + pos, face, pos, cubie, normal, up, right))
    return tuple(out)


@cache
def geometry() -> Geometry:
    facelets = _facelets()
    by_name = {fl.name: fl.index for fl in facelets}
    by_place = {(fl.cubie, fl.normal): fl.index for fl in facelets}
    corners = tuple(tuple(by_name[n] for n in names) for _, names in CORNER_SLOTS)
    edges = tuple(tuple(by_name[n] for n in names) for _, names in EDGE_SLOTS)
    centres = tuple(by_name[n] for _, n in CENTRE_SLOTS)
    return Geometry(
        facelets, by_name, by_place, corners, edges, centres,  # type: ignore[arg-type]
        tuple(n for n, _ in CORNER_SLOTS), tuple(n for n, _ in EDGE_SLOTS),
    )


def face_normal(face: str) -> Vec:
    return _FRAMES[face][0]


def facelet_name(index: int) -> str:
    return geometry().facelets[index].name


def _frame(facelets: tuple[int, ...]) -> Mat:
    """Columns: the normals of a piece's facelets (and their cross product for an edge)."""
    geo = geometry()
    normals = [geo.facelets[i].normal for i in facelets]
    if len(normals) == 2:
        normals.append(cross(normals[0], normals[1]))
    return from_columns(*normals)


def _turn_of(rotation: Mat, source: int, target: int) -> int:
    """Quarter turns added to a direction when `rotation` carries facelet source to target."""
    geo = geometry()
    a, b = geo.facelets[source], geo.facelets[target]
    turns = {(b.direction_of(apply(rotation, a.direction_vector(d))) - d) % 4 for d in range(4)}
    assert len(turns) == 1, "a proper rotation turns every direction alike"
    return turns.pop()


@dataclass(frozen=True)
class Placement:
    """Piece from slot `source` put into slot `target` with orientation `twist`.

    The piece's facelet k (in its source slot's order) lands on the target slot's facelet
    (k + twist) mod size; `moves[k] = (source facelet, target facelet, quarter turns added to
    its direction)`.
    """

    kind: str  # "corner" | "edge"
    source: int
    target: int
    twist: int
    moves: tuple[tuple[int, int, int], ...]


def _placements(kind: str, slots: tuple[tuple[int, ...], ...]) -> dict:
    out = {}
    for i, src in enumerate(slots):
        for j, dst in enumerate(slots):
            size = len(dst)
            for t in range(size):
                landed = tuple(dst[(k + t) % size] for k in range(size))
                rotation = matmul(_frame(landed), transpose(_frame(src)))
                if det(rotation) != 1:  # pragma: no cover - the tables above are consistent
                    raise AssertionError(f"{kind} {i}->{j} twist {t} is a mirror image")
                pairs = zip(src, landed, strict=True)
                moves = tuple((a, b, _turn_of(rotation, a, b)) for a, b in pairs)
                out[i, j, t] = Placement(kind, i, j, t, moves)
    return out


@cache
def corner_placements() -> dict[tuple[int, int, int], Placement]:
    return _placements("corner", geometry().corners)


@cache
def edge_placements() -> dict[tuple[int, int, int], Placement]:
    return _placements("edge", geometry().edges)


@dataclass(frozen=True)
class FaceTurn:
    """A face turn as a facelet permutation: the sticker at s goes to dest[s], turned by turn[s]."""

    face: str
    quarters: int  # 1 clockwise, 2 half, 3 counter-clockwise
    dest: tuple[int, ...]
    turn: tuple[int, ...]


@cache
def face_turn(face: str, quarters: int) -> FaceTurn:
    geo = geometry()
    normal, _ = _FRAMES[face]
    rotation = quarter_turn(normal)
    dest, turn = list(range(NUM_FACELETS)), [0] * NUM_FACELETS
    for _ in range(quarters % 4):
        for s in range(NUM_FACELETS):
            here = geo.facelets[dest[s]]
            if dot(here.cubie, normal) != 1:
                continue
            moved = geo.by_place[(apply(rotation, here.cubie), apply(rotation, here.normal))]
            turn[s] = (turn[s] + _turn_of(rotation, here.index, moved)) % 4
            dest[s] = moved
    return FaceTurn(face, quarters % 4, tuple(dest), tuple(turn))
