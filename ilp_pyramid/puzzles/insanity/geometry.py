"""A cube's six faces and its 24 rotations, derived from two quarter turns (nothing typed in).

Faces are numbered in the input order, opposite faces adjacent:

    0 front, 1 back, 2 left, 3 right, 4 top, 5 bottom

An orientation is a tuple `p` of six face numbers: `p[position]` is the cube's own face that
sits at tower position `position` (same numbering). The tower's four long sides are front,
right, back, left (`SIDES`, in the order one meets them walking round the tower).
"""

from __future__ import annotations

from functools import cache

FACES = ("front", "back", "left", "right", "top", "bottom")
FRONT, BACK, LEFT, RIGHT, TOP, BOTTOM = range(6)
SIDES = (FRONT, RIGHT, BACK, LEFT)
SIDE_NAMES = tuple(FACES[s] for s in SIDES)

# Outward normals: x to the right, y away from the viewer, z up.
NORMALS = ((0, -1, 0), (0, 1, 0), (-1, 0, 0), (1, 0, 0), (0, 0, 1), (0, 0, -1))

Orientation = tuple[int, ...]


def _face_of(vector: tuple[int, int, int]) -> int:
    return NORMALS.index(vector)


def _turn_about_z(v: tuple[int, int, int]) -> tuple[int, int, int]:
    x, y, z = v
    return (-y, x, z)  # a quarter turn seen from above, counter-clockwise


def _turn_about_x(v: tuple[int, int, int]) -> tuple[int, int, int]:
    x, y, z = v
    return (x, -z, y)


def _as_permutation(turn) -> Orientation:
    """The rotation `turn` of space as an orientation: the face that lands on each position."""
    moved = {_face_of(turn(NORMALS[face])): face for face in range(6)}
    return tuple(moved[position] for position in range(6))


def compose(first: Orientation, then: Orientation) -> Orientation:
    """Rotate by `first`, then by `then` (both read as position -> face)."""
    return tuple(first[then[position]] for position in range(6))


IDENTITY: Orientation = tuple(range(6))


@cache
def orientations() -> tuple[Orientation, ...]:
    """The 24 rotations of a cube, the closure of two quarter turns, identity first."""
    generators = (_as_permutation(_turn_about_z), _as_permutation(_turn_about_x))
    found = [IDENTITY]
    seen = {IDENTITY}
    for current in found:  # grows while it is walked: a breadth-first closure
        for generator in generators:
            nxt = compose(current, generator)
            if nxt not in seen:
                seen.add(nxt)
                found.append(nxt)
    return tuple(found)


def sides_shown(colours: tuple[str, ...], orientation: Orientation) -> tuple[str, ...]:
    """The colours a cube coloured `colours` (input order) shows on front, right, back, left."""
    return tuple(colours[orientation[side]] for side in SIDES)


def placed(colours: tuple[str, ...], orientation: Orientation) -> tuple[str, ...]:
    """The colours at the six tower positions (input order of positions)."""
    return tuple(colours[orientation[position]] for position in range(6))


@cache
def symmetry_representatives() -> tuple[int, ...]:
    """One orientation per choice of the cube's vertical axis (3 of the 24).

    The tower's own symmetries (8: a turn about its axis, times turning it upside down) act
    on every cube at once and map solutions to solutions; each orbit of them on one cube's
    orientations holds the 8 orientations with the same pair of faces top and bottom. Fixing
    the first cube to one of these 3 keeps one solution of each class of 8.
    """
    chosen: dict[frozenset[int], int] = {}
    for index, o in enumerate(orientations()):
        chosen.setdefault(frozenset((o[TOP], o[BOTTOM])), index)
    return tuple(sorted(chosen.values()))
