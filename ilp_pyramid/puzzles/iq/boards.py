"""Boards: 2-D grids (the triangle, the rectangle, text drawings) and 3-D ball pyramids.

Every board is a list of cells plus a *lattice* in which pieces are laid out:

- 2-D: cell (x, y), x the column and y the row from the top; lattice point (x, y); neighbour
  vectors (+-1, 0), (0, +-1).
- 3-D: ball (i, j) of level h (h = 0 the bottom, 0 <= i, j < n - h) sits in the hollows of the
  level below, at the integer point (2i + h, 2j + h, h). Squared distances are measured as
  dx^2 + dy^2 + 2 dz^2, so touching balls are at 4 and every ball has up to 12 neighbours.

A flat piece is laid as {p + a*u + b*v : (a, b) in the piece} for two perpendicular neighbour
vectors u, v. In the pyramid those pairs span the horizontal levels and the two families of
vertical diagonal planes (x - y and x + y constant); see placements.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import read_text

MAX_PYRAMID = 12  # 650 balls: far past any piece set, still quick to build
# The most cells a board may have: 36 times the real boards (55 cells), above the largest
# pyramid (650 balls) and a 44 x 44 square, whose placements are still quick to lay out.
# Refused before any placement is enumerated, which grows with the cells (a 100 KB one-row
# board would take minutes).
MAX_BOARD_CELLS = 2000
_PYRAMID = re.compile(r"^pyramid([0-9]{1,18})$")  # int() of 5000 digits raises

# The 8 symmetries of the square lattice, acting on (x, y); identity first.
_PLANE_MAPS = (
    (1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0),
    (-1, 0, 0, 1), (1, 0, 0, -1), (0, 1, 1, 0), (0, -1, -1, 0),
)
_VECTORS_2D = ((1, 0), (0, 1), (-1, 0), (0, -1))
_VECTORS_3D = ((2, 0, 0), (-2, 0, 0), (0, 2, 0), (0, -2, 0)) + tuple(
    (a, b, c) for a, b, c in product((1, -1), repeat=3))


@dataclass(frozen=True)
class Board:
    """A board: its cells (2-D (x, y) or 3-D (i, j, h)) and the lattice pieces are laid in."""

    name: str
    dims: int  # 2 or 3
    cells: tuple[tuple[int, ...], ...]
    levels: int = 1  # 3-D: the pyramid's height
    _index: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        check_size(self.name, len(self.cells))
        self._index.update({cell: k for k, cell in enumerate(self.cells)})

    @property
    def size(self) -> int:
        return len(self.cells)

    def index(self, cell: tuple[int, ...]) -> int | None:
        return self._index.get(cell)

    # -- lattice ---------------------------------------------------------------------------
    def point(self, cell: tuple[int, ...]) -> tuple[int, ...]:
        if self.dims == 2:
            return cell
        i, j, h = cell
        return (2 * i + h, 2 * j + h, h)

    def index_at(self, point: tuple[int, ...]) -> int | None:
        """The index of the board cell at a lattice point, or None."""
        if self.dims == 2:  # a 2-D cell is its own point
            return self._index.get(point)
        cell = self.cell_at(point)
        return None if cell is None else self._index[cell]

    def cell_at(self, point: tuple[int, ...]) -> tuple[int, ...] | None:
        """The board cell at a lattice point, or None."""
        if self.dims == 2:
            return point if point in self._index else None
        x, y, h = point
        if (x - h) % 2 or (y - h) % 2:
            return None
        cell = ((x - h) // 2, (y - h) // 2, h)
        return cell if cell in self._index else None

    @property
    def neighbour_vectors(self) -> tuple[tuple[int, ...], ...]:
        return _VECTORS_2D if self.dims == 2 else _VECTORS_3D

    def dot(self, u: tuple[int, ...], v: tuple[int, ...]) -> int:
        if self.dims == 2:
            return u[0] * v[0] + u[1] * v[1]
        return u[0] * v[0] + u[1] * v[1] + 2 * u[2] * v[2]

    # -- layout for text ---------------------------------------------------------------------
    @property
    def rows(self) -> int:
        """2-D: the number of text rows."""
        return 1 + max(c[1] for c in self.cells)

    @property
    def width(self) -> int:
        return 1 + max(c[0] for c in self.cells)

    def level_size(self, h: int) -> int:
        return self.levels - h

    # -- symmetry ----------------------------------------------------------------------------
    def symmetries(self) -> list[tuple[int, ...]]:
        """The board's symmetries as permutations of cell indices (identity first): the maps of
        the square lattice (rotations, reflections) that carry the board onto itself."""
        points = [self.point(c) for c in self.cells]
        min_x = min(p[0] for p in points)
        min_y = min(p[1] for p in points)
        found: list[tuple[int, ...]] = []
        for a, b, c, d in _PLANE_MAPS:
            moved = [(a * p[0] + b * p[1], c * p[0] + d * p[1], *p[2:]) for p in points]
            dx = min_x - min(m[0] for m in moved)
            dy = min_y - min(m[1] for m in moved)
            perm = []
            for m in moved:
                cell = self.cell_at((m[0] + dx, m[1] + dy, *m[2:]))
                if cell is None:
                    break
                perm.append(self._index[cell])
            else:
                if tuple(perm) not in found:
                    found.append(tuple(perm))
        return found


def check_size(name: str, cells: int) -> None:
    """InputError when a board of `cells` cells is past `MAX_BOARD_CELLS`."""
    if cells > MAX_BOARD_CELLS:
        raise InputError(f"board {name} has {cells:,} cells, more than the {MAX_BOARD_CELLS:,} "
                         "a board may have")


def triangle(rows: int = 10) -> Board:
    return Board("triangle", 2, tuple((x, y) for y in range(rows) for x in range(y + 1)))


def rectangle(width: int = 11, height: int = 5) -> Board:
    return Board("rectangle", 2, tuple((x, y) for y in range(height) for x in range(width)))


def pyramid(levels: int) -> Board:
    if not 1 <= levels <= MAX_PYRAMID:
        raise InputError(f"a pyramid needs 1 to {MAX_PYRAMID} levels (got {levels})")
    cells = tuple((i, j, h) for h in range(levels) for j in range(levels - h)
                  for i in range(levels - h))
    return Board(f"pyramid{levels}", 3, cells, levels=levels)


def parse_text_board(text: str, name: str = "custom") -> Board:
    """A 2-D board drawn as text: `.` a free cell, `#` or a space outside the board."""
    check_size(name, text.count("."))  # before the character-by-character reading
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    cells = []
    for y, line in enumerate(lines):
        for x, ch in enumerate(line):
            if ch == ".":
                cells.append((x, y))
            elif ch not in "# \t":
                raise InputError(f"board {name}: unexpected character {ch!r} at row {y + 1}, "
                                 f"column {x + 1} (use '.' for a cell, '#' or space outside)")
    if not cells:
        raise InputError(f"board {name} has no cells ('.')")
    min_x = min(c[0] for c in cells)
    # Keep the drawing's columns, but let the left-most cell sit in column 0.
    return Board(name, 2, tuple((x - min_x, y) for x, y in cells))


def named_board(name: str) -> Board | None:
    """The board called `name` (triangle, rectangle, pyramidN), or None for any other name."""
    key = name.strip().lower()
    if key == "triangle":
        return triangle()
    if key == "rectangle":
        return rectangle()
    match = _PYRAMID.match(key)
    if match:
        return pyramid(int(match.group(1)))
    return None


def board_by_name(name: str) -> Board:
    """A named board (triangle, rectangle, pyramidN) or a text board read from a file."""
    board = named_board(name)
    if board is not None:
        return board
    try:  # not Path.exists(): it raises on a name too long for the file system
        text = read_text(name)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"unknown board {name!r} (choose triangle, rectangle, pyramid5, "
                         "pyramid4, pyramidN, or give a text file)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read board file {name}: {exc}") from exc
    return parse_text_board(text, name=Path(name).name)
