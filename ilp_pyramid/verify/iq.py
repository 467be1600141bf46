"""Check an IQ Pyramid / Kanoodle filling from first principles (no model, no solver).

Plain data in: the board's cells (2-D (x, y) or 3-D (i, j, h) balls), the piece shapes, the
filling and the given cells, all keyed by coordinates and letters. A filling is valid when every
board cell holds exactly one letter, every given cell keeps its letter, no piece is used twice,
every piece is used when the pieces have exactly as many cells as the board, and the cells of
each letter are a congruent copy of that piece laid flat in the lattice: in 2-D a rotation or
reflection of it; in the ball pyramid a rotation or reflection of it in a horizontal level or in
one of the two families of vertical diagonal planes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

Coord = tuple[int, ...]


@dataclass
class IQVerdict:
    valid: bool
    problems: list[str] = field(default_factory=list)


def _canonical(shape: Iterable[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    """The smallest normalised image of a 2-D shape under the 8 square symmetries."""
    cells = list(shape)
    forms = []
    for a, b, c, d in ((1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0),
                       (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0)):
        moved = [(a * x + b * y, c * x + d * y) for x, y in cells]
        mx = min(p[0] for p in moved)
        my = min(p[1] for p in moved)
        forms.append(tuple(sorted((x - mx, y - my) for x, y in moved)))
    return frozenset(min(forms))


def _plane_shape(balls: list[Coord]) -> list[tuple[int, int]] | None:
    """2-D coordinates of pyramid balls lying in one plane of the packing, else None.

    Ball (i, j, h) sits at (X, Y, Z) = (2i + h, 2j + h, h). In a horizontal level the unit steps
    are (2, 0, 0) and (0, 2, 0); in a plane X - Y = const they are (1, 1, 1) and (1, 1, -1); in a
    plane X + Y = const, (1, -1, 1) and (1, -1, -1). Those pairs are perpendicular under the
    packing's metric dx^2 + dy^2 + 2 dz^2, so lattice steps in them are true unit squares.
    """
    points = [(2 * i + h, 2 * j + h, h) for i, j, h in balls]
    if len({p[2] for p in points}) == 1:
        return [((x - points[0][0]) // 2, (y - points[0][1]) // 2) for x, y, _ in points]
    x0, y0, z0 = points[0]
    if len({x - y for x, y, _ in points}) == 1:
        # d = a (1, 1, 1) + b (1, 1, -1):  dx = a + b, dz = a - b.
        return [((x - x0 + z - z0) // 2, (x - x0 - (z - z0)) // 2) for x, _, z in points]
    if len({x + y for x, y, _ in points}) == 1:
        return [((x - x0 + z - z0) // 2, (x - x0 - (z - z0)) // 2) for x, _, z in points]
    return None


def verify_filling(cells: Iterable[Coord], pieces: Mapping[str, Iterable[tuple[int, int]]],
                   filling: Mapping[Coord, str],
                   given: Mapping[Coord, str] | None = None) -> IQVerdict:
    """`cells`: the board; `pieces`: letter -> cells of the piece; `filling`: cell -> letter."""
    board = list(cells)
    board_set = set(board)
    given = dict(given or {})
    problems: list[str] = []
    for cell in board:
        if cell not in filling:
            problems.append(f"cell {cell} is empty")
    for cell in filling:
        if cell not in board_set:
            problems.append(f"cell {cell} is not on the board")
    for cell, letter in given.items():
        if filling.get(cell) != letter:
            problems.append(f"given cell {cell} should hold {letter}, holds {filling.get(cell)}")
    by_letter: dict[str, list[Coord]] = {}
    for cell, letter in filling.items():
        by_letter.setdefault(letter, []).append(cell)
    shapes = {letter: _canonical(shape) for letter, shape in pieces.items()}
    for letter, placed in sorted(by_letter.items()):
        if letter not in shapes:
            problems.append(f"unknown piece {letter}")
            continue
        if len(placed) != len(shapes[letter]):
            problems.append(f"piece {letter} covers {len(placed)} cells, it has "
                            f"{len(shapes[letter])} (used twice or cut?)")
            continue
        dims = len(placed[0])
        flat = [(c[0], c[1]) for c in placed] if dims == 2 else _plane_shape(placed)
        if flat is None:
            problems.append(f"piece {letter} does not lie in one plane of the pyramid")
        elif _canonical(flat) != shapes[letter]:
            problems.append(f"the cells of piece {letter} are not a copy of its shape")
    total = sum(len(set(s)) for s in pieces.values())
    if total == len(board):
        for letter in sorted(set(pieces) - set(by_letter)):
            problems.append(f"piece {letter} is not used")
    return IQVerdict(not problems, problems)
