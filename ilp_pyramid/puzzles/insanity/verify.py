"""The independent checker of an Instant Insanity tower. It imports nothing of the package
and shares no code with the models: a placement is accepted as a rotation when it keeps
opposite faces opposite and keeps the handedness of a corner (a determinant), not by looking
it up in the table of 24 the models are built from.

Face order, as in the input: front, back, left, right, top, bottom.
"""

from __future__ import annotations

# Outward normals in that order: x right, y away from the viewer, z up.
_NORMAL = ((0, -1, 0), (0, 1, 0), (-1, 0, 0), (1, 0, 0), (0, 0, 1), (0, 0, -1))
_SIDES = {"front": 0, "right": 3, "back": 1, "left": 2}
_TOP, _FRONT, _RIGHT = 4, 0, 3


def _det(a, b, c) -> int:
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


def is_rotation(placement) -> bool:
    """Whether `placement` (the cube's face at each of the six positions) is a turn of a
    solid cube, not a mirror image or a face assignment no cube has."""
    if sorted(placement) != list(range(6)):
        return False
    for position in range(6):
        opposite = position ^ 1  # positions and faces pair as 0-1, 2-3, 4-5
        if placement[opposite] != placement[position] ^ 1:
            return False
    corner = (_TOP, _FRONT, _RIGHT)
    moved = [_NORMAL[placement[p]] for p in corner]
    return _det(*moved) == _det(*(_NORMAL[p] for p in corner))


def problems(cubes, placements) -> list[str]:
    """Why `placements` do not stack `cubes` into a solved tower; [] when they do.

    `cubes`: n lists of six colours (face order above); `placements`: n lists of six face
    numbers, the cube's own face at each position. The cubes stand in the given order.
    """
    n = len(cubes)
    if len(placements) != n:
        return [f"{len(placements)} placements for {n} cubes"]
    found = []
    for k, placement in enumerate(placements, 1):
        if not (isinstance(placement, list | tuple) and len(placement) == 6
                and all(type(f) is int for f in placement)) or not is_rotation(placement):
            found.append(f"cube {k}: {list(placement)} is not a rotation of a cube")
    if found:
        return found
    colours = {c for cube in cubes for c in cube}
    if len(colours) != n:
        found.append(f"{len(colours)} colours on {n} cubes: a side of {n} cubes cannot show "
                     f"each of them exactly once")
    for side, position in _SIDES.items():
        shown = [cube[placement[position]] for cube, placement in
                 zip(cubes, placements, strict=True)]
        for colour in sorted(colours):
            times = shown.count(colour)
            if times != 1:
                found.append(f"the {side} side shows {colour} {times} times")
    return found
