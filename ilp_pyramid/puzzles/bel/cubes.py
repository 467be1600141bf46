"""The build list: which cube goes in which cell, turned which way, from the bottom up.

A line's label sits on the faces where its cells touch each other, so it faces the axis the
line runs along: Y(y, h) runs along x and shows on a cube's two x-faces, X(x, h) runs along y
and shows on the y-faces, Z(x, y) on the top and bottom. With opposite faces alike, the three
labels facing x, y and z fix a cube's orientation completely.

The CSV form (`x,y,h,cube,faces_x,faces_y,faces_z`, the cube written `a b c`) reads back into
a solution, so a build list can be checked with `ilp-pyramid verify` like any other answer.
"""

from __future__ import annotations

import csv
import io

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import csvrows
from ilp_pyramid.puzzles.bel.geometry import MAX_N, cell_count, pyramid
from ilp_pyramid.puzzles.bel.solution import BelSolution, parse_solution_text

COLUMNS = ("x", "y", "h", "cube", "faces_x", "faces_y", "faces_z")


def build_list(solution: BelSolution) -> list[dict]:
    """One row per cell, bottom level first, then back to front (y), then left to right (x)."""
    rows = []
    for cell in pyramid(solution.n).cells:  # the geometry's order is (h, y, x)
        x, y, h = cell.x, cell.y, cell.h
        faces = (solution.label("Y", y, h), solution.label("X", x, h), solution.label("Z", x, y))
        rows.append({"x": x, "y": y, "h": h, "cube": sorted(faces), "faces_x": faces[0],
                     "faces_y": faces[1], "faces_z": faces[2]})
    return rows


def to_csv(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([row["x"], row["y"], row["h"], " ".join(map(str, row["cube"])),
                         row["faces_x"], row["faces_y"], row["faces_z"]])
    return out.getvalue()


def is_build_list(text: str) -> bool:
    return text.lstrip().startswith(",".join(COLUMNS[:3]))


def parse_build_list(text: str) -> BelSolution:
    """A solution from the CSV; InputError names the first row that breaks a line's label or
    the cell set (a missing, repeated or impossible cell)."""
    lines = ((number, row) for number, row in csvrows.rows(text) if row)
    _, header = next(lines, (0, []))
    if tuple(h.strip() for h in header) != COLUMNS:
        raise InputError(f"build list header must be {','.join(COLUMNS)}")
    cells: dict[tuple[int, int, int], tuple[int, int, int]] = {}
    for number, row in lines:
        if len(row) != len(COLUMNS):
            raise InputError(f"build list line {number}: {len(row)} fields, expected "
                             f"{len(COLUMNS)}")
        try:
            x, y, h, fx, fy, fz = (int(row[i]) for i in (0, 1, 2, 4, 5, 6))
            cube = sorted(int(v) for v in row[3].split())
        except ValueError:
            raise InputError(f"build list line {number}: fields must be integers") from None
        if cube != sorted((fx, fy, fz)):
            raise InputError(f"build list line {number}: cube {row[3]!r} is not the labels "
                             f"facing x, y, z ({fx}, {fy}, {fz})")
        if (x, y, h) in cells:
            raise InputError(f"build list line {number}: cell ({x}, {y}, {h}) listed twice")
        cells[(x, y, h)] = (fx, fy, fz)
    return _solution_from_cells(cells)


def _solution_from_cells(cells: dict[tuple[int, int, int], tuple[int, int, int]]) -> BelSolution:
    n = next((k for k in range(1, MAX_N + 1) if cell_count(k) == len(cells)), None)
    if n is None:
        raise InputError(f"build list has {len(cells)} cells: no pyramid has that many")
    chosen: dict[tuple[str, int, int], set[int]] = {}
    for cell in pyramid(n).cells:
        key = (cell.x, cell.y, cell.h)
        if key not in cells:
            raise InputError(f"build list has no row for cell {key} of the N={n} pyramid")
        fx, fy, fz = cells[key]
        for line, label in ((("Y", cell.y, cell.h), fx), (("X", cell.x, cell.h), fy),
                            (("Z", cell.x, cell.y), fz)):
            chosen.setdefault(line, set()).add(label)
    return BelSolution.from_choices(n, chosen, "build list")


def parse_any(text: str) -> BelSolution:
    """Knuth's drawing, the --json object, or the build list CSV."""
    if is_build_list(text):
        return parse_build_list(text)
    return parse_solution_text(text)
