"""What each (cube, orientation) shows on the tower's four long sides: the one table the
MIP, CNF and exact-cover forms are written from (every consequence precomputed here, none
left to the solver)."""

from __future__ import annotations

from dataclasses import dataclass

from ilp_pyramid.puzzles.insanity import geometry
from ilp_pyramid.puzzles.insanity.instance import Instance, Tower


@dataclass(frozen=True)
class Choice:
    cube: int
    orientation: int  # index into geometry.orientations()
    shows: tuple[str, ...]  # colours on front, right, back, left


def choices(instance: Instance, break_symmetry: bool = True) -> list[Choice]:
    """Every (cube, orientation), cube by cube; with `break_symmetry` the first cube takes
    only `geometry.symmetry_representatives()` (one solution of each class of 8 is kept)."""
    rotations = geometry.orientations()
    keep_first = set(geometry.symmetry_representatives())
    out = []
    for k, cube in enumerate(instance.cubes):
        for index, o in enumerate(rotations):
            if k == 0 and break_symmetry and index not in keep_first:
                continue
            out.append(Choice(k, index, geometry.sides_shown(cube, o)))
    return out


def tower_of(instance: Instance, chosen: list[Choice]) -> Tower:
    """The tower from one chosen orientation per cube (a form's decoded answer). A cube with
    no choice or several gets no orientation at all (six times face 0), which the checker
    rejects with its number: a broken answer is reported, never repaired."""
    by_cube: dict[int, list[int]] = {}
    for c in chosen:
        by_cube.setdefault(c.cube, []).append(c.orientation)
    rotations = geometry.orientations()
    return Tower(tuple(rotations[by_cube[k][0]] if len(by_cube.get(k, ())) == 1 else (0,) * 6
                       for k in range(instance.n)))
