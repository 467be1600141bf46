"""What a picture of a solved pyramid shows: the outer faces seen from the front-right, above,
and one colour per label.

Seen from above, the front (y = B-1 side) and the right (x = B-1 side), the step pyramid shows
every line exactly once: each column's top face (its Z line), the front end of every X line
and the right end of every Y line, so the picture shows the whole solution. Front and right
faces are never hidden; a top face behind a taller step is partly hidden, and its label must
go where it can be seen (render.Camera.label_point).
"""

from __future__ import annotations

from dataclasses import dataclass

from ilp_pyramid.puzzles.bel.solution import BelSolution

# Qualitative colours, far apart for the few labels of small pyramids (tab10, then tab20's
# light shades, then a few more): N <= 12 needs at most 23.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5", "#393b79", "#637939", "#843c39",
)


def label_colour(label: int) -> str:
    return PALETTE[label % len(PALETTE)]


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on the background."""
    r, g, b = (int(background[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


@dataclass(frozen=True)
class Face:
    axis: str  # the axis the face looks along: "x" (right), "y" (front) or "z" (top)
    line: tuple[str, int, int]  # the line whose label it shows
    cell: tuple[int, int, int]  # (x, y, h) of the cube it belongs to
    label: int
    corners: tuple[tuple[float, float, float], ...]  # (x, y, z) in the spec's coordinates

    @property
    def centre(self) -> tuple[float, float, float]:
        k = len(self.corners)
        return tuple(sum(c[i] for c in self.corners) / k for i in range(3))  # type: ignore


def visible_faces(solution: BelSolution) -> list[Face]:
    """The top face of every column, the front face of every X line's front cell and the right
    face of every Y line's right cell; a cube (x, y, h) spans [x, x+1] x [y, y+1] x [h, h+1]."""
    base = solution.base

    def t(i: int) -> int:
        return min(i + 1, base - i)

    faces = []
    for y in range(base):
        for x in range(base):
            top = min(t(x), t(y))
            corners = ((x, y, top), (x + 1, y, top), (x + 1, y + 1, top), (x, y + 1, top))
            faces.append(Face("z", ("Z", x, y), (x, y, top - 1), solution.label("Z", x, y),
                              corners))
    for x in range(base):
        for h in range(t(x)):
            y = base - 1 - h  # the line's frontmost cell: t(y) > h ends there
            corners = ((x, y + 1, h), (x + 1, y + 1, h), (x + 1, y + 1, h + 1), (x, y + 1, h + 1))
            faces.append(Face("y", ("X", x, h), (x, y, h), solution.label("X", x, h), corners))
    for y in range(base):
        for h in range(t(y)):
            x = base - 1 - h
            corners = ((x + 1, y, h), (x + 1, y + 1, h), (x + 1, y + 1, h + 1), (x + 1, y, h + 1))
            faces.append(Face("x", ("Y", y, h), (x, y, h), solution.label("Y", y, h), corners))
    return faces
